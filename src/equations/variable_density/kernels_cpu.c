/* The variable-density stages on the CPU (state.h): each cell's update
   reads its stencil alone, in a fixed order, so every decomposition gives
   the same bits. */
#include "equations/variable_density/state.h"

/* The padded index of owned cell (0, j, k) and the padded index of the
   cell's coordinate along each axis. */
static inline ptrdiff_t RowStart(const VDState *s, PetscInt j, PetscInt k)
{
  const PetscInt R = s->radius;
  return R + (j + (s->dim > 1 ? R : 0)) * s->stride[1] + (k + (s->dim > 2 ? R : 0)) * s->stride[2];
}

/* dp/dx_a at the v_a node of cell c (padded index q along a), with its CPML
   memory stepped where the node lies in a layer. */
static inline float PressureGradient(VDState *s, PetscInt a, ptrdiff_t c, PetscInt q)
{
  const ptrdiff_t st = s->stride[a];
  float           d  = 0;

  for (PetscInt m = 1; m <= s->radius; m++) d += s->w[a][m] * (s->p[c + m * st] - s->p[c - (m - 1) * st]);
  if (s->hb[a][q] != 0) {
    s->psi_p[a][c] = s->hb[a][q] * s->psi_p[a][c] + s->ha[a][q] * d;
    d += s->psi_p[a][c];
  }
  return d;
}

/* dv_a/dx_a at the centre of cell c, likewise. */
static inline float VelocityDivergenceTerm(VDState *s, PetscInt a, ptrdiff_t c, PetscInt q)
{
  const ptrdiff_t st = s->stride[a];
  const float    *v  = s->v[a];
  float           d  = 0;

  for (PetscInt m = 1; m <= s->radius; m++) d += s->w[a][m] * (v[c + (m - 1) * st] - v[c - m * st]);
  if (s->pb[a][q] != 0) {
    s->psi_v[a][c] = s->pb[a][q] * s->psi_v[a][c] + s->pa[a][q] * d;
    d += s->psi_v[a][c];
  }
  return d;
}

/* Runs the statements given for every cell of box b, its padded index c
   and the padded index q[a] of its coordinate along axis a; rows split over
   the threads. */
#define VD_EACH_CELL(s, b, ...) \
  _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt k = (b)->lo[2]; k < (b)->hi[2]; k++) \
    for (PetscInt j = (b)->lo[1]; j < (b)->hi[1]; j++) { \
      const ptrdiff_t row = RowStart(s, j, k); \
      for (PetscInt i = (b)->lo[0]; i < (b)->hi[0]; i++) { \
        const ptrdiff_t c    = row + i; \
        const PetscInt  q[3] = {i + (s)->radius, j + (s)->radius, k + (s)->radius}; \
        __VA_ARGS__; \
      } \
    }

void VDStepVelocity(VDState *s, const Box *b)
{
  VD_EACH_CELL(s, b, for (PetscInt a = 0; a < s->dim; a++) s->v[a][c] -= 0.5f * (s->bdt[c] + s->bdt[c + s->stride[a]]) * PressureGradient(s, a, c, q[a]));
}

void VDStepPressure(VDState *s, const Box *b)
{
  VD_EACH_CELL(s, b, {
    float div = 0;
    for (PetscInt a = 0; a < s->dim; a++) div += VelocityDivergenceTerm(s, a, c, q[a]);
    s->p[c] -= s->kdt[c] * div;
  });
}
