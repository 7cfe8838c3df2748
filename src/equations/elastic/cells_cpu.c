/* The elastic equation's CPU operations on particular cells (the model's
   face sums, the free surface, the points) and the CPU's table
   (kernels.h); the stages are in kernels_cpu.c. */
#include "equations/elastic/adjoint_cells.h"
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
  STAGGERED_EACH_SURFACE_ROW(s, ELSurfaceVelocityRow(s, s->v[a], row, st, n, side));
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

static PetscErrorCode Inject(ELState *s, const PointMap *m, const float amp[], PetscBool subtract)
{
  for (PetscInt i = 0; i < m->nrows; i++) ELInjectRow(s, m, i, amp, subtract);
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

/* adjoint.c: the operands beyond each free surface (ELAdjointSurfaceRow). */
static PetscErrorCode AdjointSurface(ELState *s, PetscInt stage)
{
  STAGGERED_EACH_SURFACE_ROW(s, ELAdjointSurfaceRow(s, stage, a, side, row, st, n));
  return 0;
}

/* adjoint.c: the narrowed stencils' transposes (ELNarrowedRow). */
static PetscErrorCode AdjointNarrowed(ELState *s)
{
  if (s->radius == 1) return 0;
  STAGGERED_EACH_SURFACE_ROW(s, ELNarrowedRow(s, a, side, row, st, n));
  return 0;
}

static PetscErrorCode SourceImage(ELState *s, const PointMap *m, const float amp[])
{
  for (PetscInt i = 0; i < m->nrows; i++) ELSourceImageRow(s, m, i, amp);
  return 0;
}

static PetscErrorCode InjectResidual(ELState *s, PetscInt comp, const PointMap *m, const float amp[])
{
  for (PetscInt i = 0; i < m->nrows; i++) ELResidualRow(s, comp, m, i, amp);
  return 0;
}

/* Each pair's edge image summed with its lower neighbour's along the
   pair's first axis, in place: along that axis from the last cell down. */
static PetscErrorCode DeriveImage(ELState *s)
{
  for (PetscInt p = 0; p < ELPairs(s->dim); p++) {
    const PetscInt a = p == 2 ? 1 : 0, u = a == 0 ? 1 : 0, v = 3 - a - u;
#pragma omp parallel for collapse(2) schedule(static)
    for (PetscInt k = 0; k < s->n[v]; k++)
      for (PetscInt j = 0; j < s->n[u]; j++)
        for (PetscInt i = s->n[a] - 1; i >= 0; i--) {
          PetscInt o[3];
          o[a] = i, o[u] = j, o[v] = k;
          ELDeriveImageCell(s, p, GridPaddedIndex(s->grid, o), o);
        }
  }
  return 0;
}

static PetscErrorCode Image(ELState *s, PetscInt param)
{
  const Box all = {{0, 0, 0}, {s->n[0], s->n[1], s->n[2]}, 0};

  STAGGERED_EACH_ROW(s, &all, {
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt o[3] = {q[0] - s->radius + i, j, k};
      s->image[row + i]   = ELImageAt(s, param, row + i, o);
    }
  });
  return 0;
}

static PetscErrorCode BandCopy(ELState *s, float *const f[], PetscBool save, unsigned mask, float *buf)
{
  StaggeredBandCopy(s->grid, s->rec->nband, s->rec->band, f, save, mask, buf);
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
  .adjoint_velocity = ELAdjointVelocityCPU,
  .adjoint_stress   = ELAdjointStressCPU,
  .adjoint_operands = ELAdjointOperandsCPU,
  .adjoint_surface  = AdjointSurface,
  .adjoint_narrowed = AdjointNarrowed,
  .source_image     = SourceImage,
  .inject_residual  = InjectResidual,
  .derive_image     = DeriveImage,
  .image            = Image,
  .back_stress      = ELBackStressCPU,
  .back_velocity    = ELBackVelocityCPU,
  .band_copy        = BandCopy,
  .fused_forward    = ELFusedForwardCPU,
  .fused_adjoint    = ELFusedAdjointCPU,
  .backend       = &BackendOpsCPU,
};
