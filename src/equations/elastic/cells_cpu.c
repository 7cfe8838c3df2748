/* The elastic equation's CPU operations on particular cells (the model's
   face sums, the free surface, the points) and the CPU's table
   (kernels.h); the stages are in kernels_cpu.c. */
#include "equations/elastic/kernels.h"
#include "equations/staggered_cpu.h"
#include <math.h>

static PetscErrorCode LanesCreate(ELState *s, const GpuTile *tile)
{
  s->lanes = NULL;
  return 0;
}

static PetscErrorCode LanesDestroy(ELState *s) { return 0; }

/* Over the owned cells along a, from cdt's ghosts there; a ghost along
   another axis takes the sum of the nearest owned cell's (what the edges
   at a block's edge read beyond it where no neighbour lies; the shot layer
   then puts a neighbour's own sums where one does), so that the sums never
   read cdt's corner ghosts, which no exchange fills. */
static PetscErrorCode DeriveModel(ELState *s)
{
  const PetscInt R = s->radius;

  for (PetscInt a = 0; a + 1 < s->dim; a++) {
    const ptrdiff_t st = s->stride[a];
#pragma omp parallel for collapse(2) schedule(static)
    for (PetscInt k = 0; k < s->padded[2]; k++)
      for (PetscInt j = 0; j < s->padded[1]; j++)
        for (PetscInt i = 0; i < s->padded[0]; i++) {
          const PetscInt q[3] = {i, j, k};
          PetscInt       o[3];
          PetscBool      owned_along_a = PETSC_TRUE;
          for (PetscInt b = 0; b < 3; b++) {
            const PetscBool padded = b < s->dim;
            o[b]                   = padded ? PetscMax(R, PetscMin(R + s->n[b] - 1, q[b])) : q[b];
            if (b == a) owned_along_a = o[b] == q[b] ? PETSC_TRUE : PETSC_FALSE;
          }
          if (!owned_along_a) continue;
          o[a] = q[a];
          {
            const ptrdiff_t c = i + s->stride[1] * j + s->stride[2] * k, from = o[0] + s->stride[1] * o[1] + s->stride[2] * o[2];
            s->csum[a][c]     = s->cdt[from] + s->cdt[from + st];
          }
        }
  }
  return 0;
}

static PetscErrorCode SurfaceVelocity(ELState *s)
{
  STAGGERED_EACH_SURFACE_ROW(s, StaggeredSurfaceRow(ELSurfaceFluid(s, row, st, n, side) ? STAGGERED_MIRROR_NODES : STAGGERED_ZERO_PAST_SURFACE, s->v[a], row, st, n, side, s->radius));
  return 0;
}

static PetscErrorCode Surface(ELState *s, StaggeredSurfaceOp op, float *const f[3], PetscBool shear)
{
  STAGGERED_EACH_SURFACE_ROW(s, {
    if (!shear) StaggeredSurfaceRow(op, f[a], row, st, n, side, s->radius);
    else
      for (PetscInt b = 0; b < s->dim; b++)
        if (b != a) StaggeredSurfaceRow(op, s->t[ELPair(a, b)], row, st, n, side, s->radius);
  });
  return 0;
}

/* An explosion: every normal stress -= (the bulk modulus dt) q, q the
   injected volume rate over the cell volume (the pressure rises by it); a
   force along a: v_a += (dt / rho on the face) f, f the force over the
   cell volume. */
static PetscErrorCode Inject(ELState *s, const PointMap *m, const float amp[])
{
  for (PetscInt i = 0; i < m->nrows; i++) {
    const ptrdiff_t c = m->cell[i];
    const float     q = (float)PointMapRowSum(m, i, amp, NULL);
    if (s->source_kind == EL_SOURCE_PRESSURE) {
      const float t = ELBulkDt(s, c) * q;
      for (PetscInt a = 0; a < s->dim; a++) s->s[a][c] = s->s[a][c] - t;
    } else {
      const PetscInt a = s->source_kind - EL_SOURCE_FORCE;
      s->v[a][c]       = s->v[a][c] + StaggeredFaceMean(s->bdt, c, s->stride[a]) * q;
    }
  }
  return 0;
}

/* The pressure's row sums as PointMapRowSum's, each entry's pressure
   rounded to float as a neighbour sends it. */
static PetscErrorCode Record(ELState *s, PetscInt c, const PointMap *m, const float remote[], float out[])
{
  for (PetscInt i = 0; i < m->nrows; i++) {
    double sum = 0;
    if (c) {
      out[i] = (float)PointMapRowSum(m, i, s->v[c - 1], remote);
      continue;
    }
    for (PetscInt e = m->start[i]; e < m->start[i + 1]; e++) {
      const ptrdiff_t k = m->index[e];
      sum += (double)m->weight[e] * (k >= 0 ? ELPressureAt(s, k) : remote[-1 - k]);
    }
    out[i] = (float)sum;
  }
  return 0;
}

static PetscErrorCode AllFinite(ELState *s, PetscBool *finite)
{
  int bad = 0;

  for (PetscInt a = 0; a < s->dim; a++) {
    const float *x = s->s[a];
#pragma omp parallel for reduction(| : bad) schedule(static)
    for (size_t i = 0; i < s->ncells; i++) bad |= !isfinite(x[i]);
  }
  *finite = bad ? PETSC_FALSE : PETSC_TRUE;
  return 0;
}

const ELKernels ELKernelsCPU = {
  .lanes_create  = LanesCreate,
  .lanes_destroy = LanesDestroy,
  .derive_model  = DeriveModel,
  .velocity      = ELVelocityCPU,
  .stress        = ELStressCPU,
  .surface       = Surface,
  .surface_velocity = SurfaceVelocity,
  .inject        = Inject,
  .record        = Record,
  .all_finite    = AllFinite,
  .backend       = &BackendOpsCPU,
};
