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
   weights, psi their memory), psi = b psi + a out and out += psi (psi
   NULL: no CPML). */
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
  if (!psi) return;
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
      (void)q; \
      (void)tmp; \
      __VA_ARGS__; \
    }

/* A row's CPML weights along axis a: per cell along axis 0, one value for
   the whole row along the others (bstep 0). */
#define VD_ROW_WEIGHTS(s, ha, hb, a, q) &(ha)[a][q[a]], &(hb)[a][q[a]], (a) ? 0 : 1

/* The store's term k of the row at padded index row, or the scratch row
   given where the run stores nothing. */
#define VD_TERM(s, k, row, scratch) ((s)->keep ? (s)->keep + (k) * (s)->ncells + (row) : (scratch))

/* Forward, the derivatives of p (stage 0) or v (stage 1) with their CPML
   memory, the terms written to the store where the run keeps them;
   adjoint, the derivatives of d alone, added with the other sign. */
void VDVelocity(VDState *s, const Box *b, PetscBool adjoint)
{
  VD_EACH_ROW(s, b, {
    for (PetscInt a = 0; a < s->dim; a++) {
      const ptrdiff_t    st  = s->stride[a];
      float *restrict    v   = s->v[a] + row;
      const float *const bdt = s->bdt + row;
      float *restrict    g   = adjoint ? tmp : VD_TERM(s, 1 + a, row, tmp);
      if (adjoint) RowDerivative(n, s->radius, s->w[a], st, 1, s->d[a] + row, NULL, NULL, 0, NULL, g);
      else RowDerivative(n, s->radius, s->w[a], st, 1, s->p + row, VD_ROW_WEIGHTS(s, s->ha, s->hb, a, q), s->psi_p[a] + row, g);
      if (adjoint)
        for (PetscInt i = 0; i < n; i++) v[i] += VDFaceBuoyancy(bdt, i, st) * g[i];
      else
        for (PetscInt i = 0; i < n; i++) v[i] -= VDFaceBuoyancy(bdt, i, st) * g[i];
    }
  });
}

void VDPressure(VDState *s, const Box *b, PetscBool adjoint)
{
  VD_EACH_ROW(s, b, {
    float *restrict       div = adjoint ? tmp + s->padded[0] : VD_TERM(s, 0, row, tmp + s->padded[0]);
    float *restrict       p   = s->p + row;
    const float *restrict kdt = s->kdt + row;
    for (PetscInt i = 0; i < n; i++) div[i] = 0;
    for (PetscInt a = 0; a < s->dim; a++) {
      if (adjoint) RowDerivative(n, s->radius, s->w[a], s->stride[a], 0, s->d[a] + row, NULL, NULL, 0, NULL, tmp);
      else RowDerivative(n, s->radius, s->w[a], s->stride[a], 0, s->v[a] + row, VD_ROW_WEIGHTS(s, s->pa, s->pb, a, q), s->psi_v[a] + row, tmp);
      for (PetscInt i = 0; i < n; i++) div[i] += tmp[i];
    }
    if (adjoint)
      for (PetscInt i = 0; i < n; i++) p[i] += kdt[i] * div[i];
    else
      for (PetscInt i = 0; i < n; i++) p[i] -= kdt[i] * div[i];
  });
}

/* Stage 0 at the centres (x: u, the CPML memory psi_v, the image of K from
   the stored divergence), stage 1 on the nodes (x: w_a, psi_p, the image
   of each face's buoyancy from the stored gradient):
   d = x + a (x - m), m = b (m - x) where the row lies in a layer of a. */
void VDAdjointOperands(VDState *s, PetscInt stage)
{
  const Box all = {{0, 0, 0}, {s->grid->size[0], s->grid->size[1], s->grid->size[2]}, 0};

  VD_EACH_ROW(s, &all, {
    if (stage == 0) {
      const float *restrict u = s->p + row, *restrict h = s->keep + row;
      float *restrict       img = s->image_k + row;
      for (PetscInt i = 0; i < n; i++) img[i] += u[i] * h[i];
    }
    for (PetscInt a = 0; a < s->dim; a++) {
      const float *restrict x = stage ? s->v[a] + row : s->p + row;
      const float *const    wa = stage ? s->ha[a] : s->pa[a], *const wb = stage ? s->hb[a] : s->pb[a];
      const PetscInt        bstep = a ? 0 : 1;
      const float *restrict ca = wa + q[a], *restrict cb = wb + q[a];
      float *restrict       m = (stage ? s->psi_p[a] : s->psi_v[a]) + row, *restrict d = s->d[a] + row;
      if (stage) {
        const float *restrict g   = s->keep + (1 + a) * s->ncells + row;
        float *restrict       img = s->image_b[a] + row;
        for (PetscInt i = 0; i < n; i++) img[i] += x[i] * g[i];
      }
      for (PetscInt i = 0; i < n; i++) {
        const float bi = cb[i * bstep];
        if (bi != 0) {
          const float e = m[i] - x[i];
          d[i]          = x[i] - ca[i * bstep] * e;
          m[i]          = bi * e;
        } else d[i] = x[i];
      }
    }
  });
}
