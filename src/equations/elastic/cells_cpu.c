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

/* adjoint.c: the operands beyond each free surface, for the stage's
   transposed stencils to read.  Stage 0 (undoing the stress stage, read
   by the velocities): the forward run holds the velocities beyond a
   surface at 0, so nothing there takes a share, but for a fluid's normal
   velocity, mirrored even, whose rate's operand is odd.  Stage 1 (undoing
   the velocity stage, read by the stresses): s_a and t_ab are odd beyond
   it, so the operands of their derivatives are even, t_ab's folded at the
   surface centre (ELFoldedCentre). */
static PetscErrorCode AdjointSurface(ELState *s, PetscInt stage)
{
  STAGGERED_EACH_SURFACE_ROW(s, {
    const StaggeredSurfaceOp normal = stage ? STAGGERED_MIRROR_NODES : ELSurfaceFluid(s, row, st, n, side) ? STAGGERED_MIRROR_CENTRES : STAGGERED_ZERO_BEYOND_CENTRES;
    StaggeredSurfaceRow(normal, s->op[a][a], row, st, n, side, s->radius);
    for (PetscInt b = 0; b < s->dim; b++)
      if (b != a) StaggeredSurfaceRow(stage ? STAGGERED_FOLD_CENTRES : STAGGERED_ZERO_BEYOND_NODES, s->op[b][a], row, st, n, side, s->radius);
  });
  return 0;
}

/* Contribution of the narrowed stencils (state.h: ELStencilRadius) to
   the transposed derivative along a at padded index j of a row (stride st,
   owned cells [lo, hi) in the band of one surface): stage 0's uniform
   transpose took each output's full weights w, so each output c in the
   band adds what its own weights W_c differ by, (W_c - w)[m] x[c] at the
   inputs its stencil reads (c + m - 1 + up, and c - m + up with the other
   sign). */
static float NarrowedTransposeAt(const ELState *s, PetscInt a, PetscInt up, const float *x, ptrdiff_t row, ptrdiff_t st, PetscInt lo, PetscInt hi, PetscInt j)
{
  const PetscInt R   = s->radius;
  float          acc = 0;

  for (PetscInt m = 1; m <= R; m++)
    for (PetscInt k = 0; k < 2; k++) {
      const PetscInt c = k ? j + 1 - up - m : j + m - up; /* the output whose input m (or -m) is j */
      if (c < lo || c >= hi) continue;
      const float *W = ELWeights(s, a, ELStencilRadius(s, a, up, R + c, row + c * st));
      const float  d = W[m] - s->w[a][m];
      acc            = k ? acc - d * x[row + c * st] : acc + d * x[row + c * st];
    }
  return acc;
}

/* adjoint.c: the narrowed stencils' transposes, after stage 0's operands:
   each velocity within reach of a free surface's band (2 R cells)
   takes from the band's normal rates' operands (op[a][a], the normal
   velocity v_a) and shear rates' (op[b][a], the tangential v_b) what
   their narrowed weights differ by from the uniform transpose's. */
static PetscErrorCode AdjointNarrowed(ELState *s)
{
  const PetscInt R = s->radius;

  if (R == 1) return 0;
  STAGGERED_EACH_SURFACE_ROW(s, {
    const PetscInt lo = side ? n - R : 0, hi = side ? n : R; /* the band's outputs, owned indices along a */
    for (PetscInt b = 0; b < s->dim; b++) {
      const PetscInt up = b == a ? 0 : 1;
      float         *v  = s->v[b];
      const float   *x  = s->op[b][a];
      for (PetscInt i = side ? n - 2 * R : 0; i < (side ? n : 2 * R); i++) v[row + i * st] = v[row + i * st] - NarrowedTransposeAt(s, a, up, x, row, st, lo, hi, i);
    }
  });
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
  .backend       = &BackendOpsCPU,
};
