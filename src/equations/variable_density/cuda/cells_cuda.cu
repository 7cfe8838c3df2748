/* The variable-density equation's CUDA operations on particular cells (the
   free surface, the points, the images, the boundary method's band), and
   its CUDA table (kernels.h): the same formulas as cells_cpu.c. */
#include "equations/variable_density/cuda/vd_cuda.h"

static PetscErrorCode LanesCreate(VDState *s, const GpuTile *tile) { return CudaLanesCreate(tile, (CudaLanes **)&s->lanes); }
static PetscErrorCode LanesDestroy(VDState *s) { return CudaLanesDestroy((CudaLanes **)&s->lanes); }

/* A thread per owned row along axis a that ends on the free face (a,
   side): op on f's field of axis a. */
__global__ void SurfaceKernel(const VDState s, int a, int side, StaggeredSurfaceOp op, StaggeredAxisFields f)
{
  ptrdiff_t row;
  if (StaggeredSurfaceThreadRow(s.dim, s.radius, s.stride, s.n, a, &row)) StaggeredSurfaceRow(op, f.x[a], row, s.stride[a], s.n[a], side, s.radius);
}

static PetscErrorCode Surface(VDState *s, StaggeredSurfaceOp op, float *const f[3])
{
  PetscFunctionBeginUser;
  STAGGERED_SURFACE_LAUNCH(s, VDLane(s), SurfaceKernel, op, StaggeredAxisFieldsOf(f));
  PetscFunctionReturn(0);
}

static PetscErrorCode Inject(VDState *s, float *p, PetscBool subtract, const PointMap *m, const float amp[]) { return CudaPointsInject(VDLanes(s), p, s->kdt, subtract ? true : false, m, amp); }

__global__ void AtSourceKernel(const VDState s, const PointMap m, float *out)
{
  const PetscInt i = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= m.nrows) return;
  out[i] = VDAtSource(&s, m.cell[i]);
}

static PetscErrorCode AtSource(VDState *s, const PointMap *m, float out[])
{
  PetscFunctionBeginUser;
  if (!m->nrows) PetscFunctionReturn(0);
  CudaLaunch(AtSourceKernel, dim3((unsigned)((m->nrows + 127) / 128)), dim3(128), VDLane(s), *s, *m, out);
  CUDA_LAUNCHED();
  PetscFunctionReturn(0);
}

__global__ void ResidualKernel(const VDState s, int comp, const PointMap m, const float *amp)
{
  const PetscInt i = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < m.nrows) VDResidualRow(&s, comp, &m, i, amp);
}

static PetscErrorCode InjectResidual(VDState *s, PetscInt comp, const PointMap *m, const float amp[])
{
  PetscFunctionBeginUser;
  if (!m->nrows) PetscFunctionReturn(0);
  CudaLaunch(ResidualKernel, dim3((unsigned)((m->nrows + 127) / 128)), dim3(128), VDLane(s), *s, (int)comp, *m, amp);
  CUDA_LAUNCHED();
  PetscFunctionReturn(0);
}

static PetscErrorCode Record(VDState *s, const float *field, const PointMap *m, const float remote[], float out[]) { return CudaPointsRecord(VDLanes(s), field, m, remote, out); }

static PetscErrorCode AllFinite(VDState *s, PetscBool *finite) { return CudaFieldFinite(VDLanes(s), s->p, s->ncells, finite); }

__global__ void __launch_bounds__(CUDA_CELL_THREADS) ImageKernel(const VDState s, const Box b, int k)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = VDCell(s, i, q);
  s.image[c]        = VDImageAt(&s, k, c);
}

static PetscErrorCode Image(VDState *s, PetscInt k)
{
  const Box all = {{0, 0, 0}, {s->n[0], s->n[1], s->n[2]}, 0};

  PetscFunctionBeginUser;
  VD_LAUNCH_BOX(s, &all, ImageKernel, *s, all, (int)k);
  PetscFunctionReturn(0);
}

/* The pressure's band is field 0, the velocities' 1 + a (cells_cpu.c's). */
static PetscErrorCode BandCopy(VDState *s, float *const f[4], PetscBool save, PetscBool pressure, float *buf)
{
  return StaggeredBandCopyCUDA(VDLanes(s), s->radius, s->dim, s->stride, s->rec.nband, s->rec.band, f, save, pressure ? 1u : ~1u, buf);
}

extern "C" const VDKernels VDKernelsCUDA = {
  .lanes_create         = LanesCreate,
  .lanes_destroy        = LanesDestroy,
  .velocity             = VDVelocityCUDA,
  .pressure             = VDPressureCUDA,
  .adjoint_operands     = VDAdjointOperandsCUDA,
  .reconstruct_pressure = VDReconstructPressureCUDA,
  .reconstruct_velocity = VDReconstructVelocityCUDA,
  .surface              = Surface,
  .inject               = Inject,
  .at_source            = AtSource,
  .inject_residual      = InjectResidual,
  .record               = Record,
  .all_finite           = AllFinite,
  .image                = Image,
  .band_copy            = BandCopy,
  .backend              = &BackendOpsCUDA,
};
