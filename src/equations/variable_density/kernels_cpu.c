/* The variable-density stages on the CPU (state.h): each cell's update
   reads its stencil alone, in a fixed order, so every decomposition gives
   the same bits. */
#include "equations/variable_density/state.h"
#include <omp.h>

/* The padded index of owned cell (0, j, k) and the padded index of the
   cell's coordinate along each axis. */
static inline ptrdiff_t RowStart(const VDState *s, PetscInt j, PetscInt k)
{
  const PetscInt R = s->radius;
  return R + (j + (s->dim > 1 ? R : 0)) * s->stride[1] + (k + (s->dim > 2 ? R : 0)) * s->stride[2];
}

/* The staggered difference along axis a (stride st) of the n cells of a
   row from f: out[i] = sum_m w[m] (f[i + (m - 1 + up) st] - f[i - (m - up) st]),
   up = 1 for D+ (at the node above each cell), 0 for D-; then, where the
   row's cells lie in a layer of a (bit[i] != 0, b[i] and a[i] their CPML
   weights, psi their memory), psi = b psi + a out and out += psi. */
static void RowDerivative(PetscInt n, PetscInt radius, const float *w, ptrdiff_t st, PetscInt up, const float *restrict f, const float *restrict a, const float *restrict b,
                          PetscInt bstep, float *restrict psi, float *restrict out)
{
  /* term by term over the row, so that the loop along it is vector code;
     each cell still sums its terms from m = 1 up */
  for (PetscInt i = 0; i < n; i++) out[i] = 0;
  for (PetscInt m = 1; m <= radius; m++) {
    const float *restrict hi = f + (m - 1 + up) * st, *restrict lo = f - (m - up) * st;
    const float           wm = w[m];
    for (PetscInt i = 0; i < n; i++) out[i] += wm * (hi[i] - lo[i]);
  }
  for (PetscInt i = 0; i < n; i++)
    if (b[i * bstep] != 0) {
      psi[i] = b[i * bstep] * psi[i] + a[i * bstep] * out[i];
      out[i] += psi[i];
    }
}

/* Runs the statements given for every row of box b: row is the padded
   index of its first cell, n its cells, q[a] the padded index of its
   coordinate along axes 1 and 2 (q[0] of its first cell), tmp two rows of
   this thread's scratch. */
#define VD_EACH_ROW(s, b, ...) \
  _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt k = (b)->lo[2]; k < (b)->hi[2]; k++) \
    for (PetscInt j = (b)->lo[1]; j < (b)->hi[1]; j++) { \
      const ptrdiff_t row  = RowStart(s, j, k) + (b)->lo[0]; \
      const PetscInt  n    = (b)->hi[0] - (b)->lo[0]; \
      const PetscInt  q[3] = {(b)->lo[0] + (s)->radius, j + (s)->radius, k + (s)->radius}; \
      float *const    tmp  = (s)->scratch + 2 * (size_t)(s)->padded[0] * omp_get_thread_num(); \
      __VA_ARGS__; \
    }

/* A row's CPML weights along axis a: per cell along axis 0, one value for
   the whole row along the others (bstep 0). */
#define VD_ROW_WEIGHTS(s, ha, hb, a, q) (a) ? &(ha)[a][q[a]] : &(ha)[0][q[0]], (a) ? &(hb)[a][q[a]] : &(hb)[0][q[0]], (a) ? 0 : 1

void VDStepVelocity(VDState *s, const Box *b)
{
  VD_EACH_ROW(s, b, {
    for (PetscInt a = 0; a < s->dim; a++) {
      const ptrdiff_t    st  = s->stride[a];
      float *restrict    v   = s->v[a] + row;
      const float *const bdt = s->bdt + row;
      RowDerivative(n, s->radius, s->w[a], st, 1, s->p + row, VD_ROW_WEIGHTS(s, s->ha, s->hb, a, q), s->psi_p[a] + row, tmp);
      for (PetscInt i = 0; i < n; i++) v[i] -= 0.5f * (bdt[i] + bdt[i + st]) * tmp[i];
    }
  });
}

void VDStepPressure(VDState *s, const Box *b)
{
  VD_EACH_ROW(s, b, {
    float *restrict       div = tmp + s->padded[0];
    float *restrict       p   = s->p + row;
    const float *restrict kdt = s->kdt + row;
    for (PetscInt i = 0; i < n; i++) div[i] = 0;
    for (PetscInt a = 0; a < s->dim; a++) {
      RowDerivative(n, s->radius, s->w[a], s->stride[a], 0, s->v[a] + row, VD_ROW_WEIGHTS(s, s->pa, s->pb, a, q), s->psi_v[a] + row, tmp);
      for (PetscInt i = 0; i < n; i++) div[i] += tmp[i];
    }
    for (PetscInt i = 0; i < n; i++) p[i] -= kdt[i] * div[i];
  });
}
