/* The variable-density equation's CPU operations on particular cells (the
   free surface, the points, the images, the boundary method's band) and the
   CPU's table (kernels.h); the stages are in kernels_cpu.c. */
#include "equations/variable_density/kernels.h"
#include "data/util.h"
#include <math.h>

static PetscErrorCode LanesCreate(VDState *s, const GpuTile *tile)
{
  s->lanes = NULL;
  return 0;
}

static PetscErrorCode LanesDestroy(VDState *s) { return 0; }

static PetscErrorCode Surface(VDState *s, StaggeredSurfaceOp op, float *const f[3])
{
  STAGGERED_EACH_SURFACE_ROW(s, StaggeredSurfaceRow(op, f[a], row, st, n, side, s->radius));
  return 0;
}

static PetscErrorCode InjectResidual(VDState *s, PetscInt comp, const PointMap *m, const float amp[])
{
  for (PetscInt i = 0; i < m->nrows; i++) VDResidualRow(s, comp, m, i, amp);
  return 0;
}

static PetscErrorCode Inject(VDState *s, float *p, PetscBool subtract, const PointMap *m, const float amp[])
{
  for (PetscInt i = 0; i < m->nrows; i++) {
    const ptrdiff_t c = m->cell[i];
    const float     t = s->kdt[c] * (float)PointMapRowSum(m, i, amp, NULL);
    p[c]              = subtract ? p[c] - t : p[c] + t;
  }
  return 0;
}

static PetscErrorCode AtSource(VDState *s, const PointMap *m, float out[])
{
  for (PetscInt i = 0; i < m->nrows; i++) out[i] = VDAtSource(s, m->cell[i]);
  return 0;
}

static PetscErrorCode Record(VDState *s, const float *field, const PointMap *m, const float remote[], float out[])
{
  for (PetscInt i = 0; i < m->nrows; i++) out[i] = (float)PointMapRowSum(m, i, field, remote);
  return 0;
}

static PetscErrorCode AllFinite(VDState *s, PetscBool *finite)
{
  int bad = 0;

#pragma omp parallel for reduction(| : bad) schedule(static)
  for (size_t i = 0; i < s->ncells; i++) bad |= !isfinite(s->p[i]);
  *finite = bad ? PETSC_FALSE : PETSC_TRUE;
  return 0;
}

/* adjoint.c: dJ/dK from image_k, dJ/db from half of each face's image. */
static PetscErrorCode Image(VDState *s, PetscInt k)
{
#pragma omp parallel for collapse(2) schedule(static)
  for (PetscInt z = 0; z < s->n[2]; z++)
    for (PetscInt y = 0; y < s->n[1]; y++) {
      const PetscInt q[3] = {0, y, z};
      const ptrdiff_t row = GridPaddedIndex(s->grid, q);
      for (PetscInt x = 0; x < s->n[0]; x++) s->image[row + x] = VDImageAt(s, k, row + x);
    }
  return 0;
}

/* The pressure's band is field 0, the velocities' 1 + a. */
static PetscErrorCode BandCopy(VDState *s, float *const f[4], PetscBool save, PetscBool pressure, float *buf)
{
  StaggeredBandCopy(s->grid, s->rec.nband, s->rec.band, f, save, pressure ? 1u : ~1u, buf);
  return 0;
}

const VDKernels VDKernelsCPU = {
  .lanes_create         = LanesCreate,
  .lanes_destroy        = LanesDestroy,
  .velocity             = VDVelocityCPU,
  .pressure             = VDPressureCPU,
  .adjoint_operands     = VDAdjointOperandsCPU,
  .reconstruct_pressure = VDReconstructPressureCPU,
  .reconstruct_velocity = VDReconstructVelocityCPU,
  .surface              = Surface,
  .inject               = Inject,
  .at_source            = AtSource,
  .inject_residual      = InjectResidual,
  .record               = Record,
  .all_finite           = AllFinite,
  .image                = Image,
  .band_copy            = BandCopy,
  .fused_forward        = VDFusedForwardCPU,
  .fused_adjoint        = VDFusedAdjointCPU,
  .backend              = &BackendOpsCPU,
};
