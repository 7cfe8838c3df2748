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

static PetscErrorCode DeriveModel(ELState *s)
{
  for (PetscInt a = 0; a + 1 < s->dim; a++) {
#pragma omp parallel for collapse(2) schedule(static)
    for (PetscInt k = 0; k < s->padded[2]; k++)
      for (PetscInt j = 0; j < s->padded[1]; j++)
        for (PetscInt i = 0; i < s->padded[0]; i++) ELDeriveCell(s, a, (const PetscInt[3]){i, j, k});
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

static PetscErrorCode Inject(ELState *s, const PointMap *m, const float amp[])
{
  for (PetscInt i = 0; i < m->nrows; i++) ELInjectRow(s, m, i, amp);
  return 0;
}

static PetscErrorCode Record(ELState *s, PetscInt c, const PointMap *m, const float remote[], float out[])
{
  for (PetscInt i = 0; i < m->nrows; i++) out[i] = ELRecordRow(s, c, m, i, remote);
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
