/* The elastic equation's CUDA operations on particular cells (the model's
   face sums, the free surface, the points), and its CUDA table
   (kernels.h): the same formulas as cells_cpu.c; the adjoint's are in
   adjoint_cuda.cu. */
#include "equations/elastic/cuda/el_cuda.h"

static PetscErrorCode LanesCreate(ELState *s, const GpuTile *tile) { return CudaLanesCreate(tile, (CudaLanes **)&s->lanes); }
static PetscErrorCode LanesDestroy(ELState *s) { return CudaLanesDestroy((CudaLanes **)&s->lanes); }

/* A thread per padded cell of a plane along axes 0 and 1; grid y walks
   axis 2. */
__global__ void DeriveKernel(const ELState s, int a)
{
  const PetscInt t = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x), q[3] = {t % s.padded[0], t / s.padded[0], (PetscInt)blockIdx.y};
  if (t >= s.padded[0] * s.padded[1]) return;
  ELDeriveCell(&s, a, q);
}

static PetscErrorCode DeriveModel(ELState *s)
{
  const PetscInt plane = s->padded[0] * s->padded[1];

  PetscFunctionBeginUser;
  for (int a = 0; a + 1 < s->dim; a++) {
    CudaLaunch(DeriveKernel, dim3((unsigned)((plane + 127) / 128), (unsigned)s->padded[2]), dim3(128), ELLane(s), *s, a);
    CUDA_LAUNCHED();
  }
  PetscFunctionReturn(0);
}

/* A thread per owned row along axis a that ends on the free face (a,
   side): op on f's field of axis a, or (shear) on every shear stress of a,
   or (velocity) the normal velocity's pass of its surface cell's kind. */
__global__ void SurfaceKernel(const ELState s, int a, int side, StaggeredSurfaceOp op, StaggeredAxisFields f, int shear, int velocity)
{
  ptrdiff_t row;
  if (!StaggeredSurfaceThreadRow(s.dim, s.radius, s.stride, s.n, a, &row)) return;
  const ptrdiff_t st = s.stride[a];
  if (velocity) ELSurfaceVelocityRow(&s, s.v[a], row, st, s.n[a], side);
  else if (!shear) StaggeredSurfaceRow(op, f.x[a], row, st, s.n[a], side, s.radius);
  else
    for (int b = 0; b < s.dim; b++)
      if (b != a) StaggeredSurfaceRow(op, s.t[ELPair(a, b)], row, st, s.n[a], side, s.radius);
}

static PetscErrorCode SurfaceFaces(ELState *s, StaggeredSurfaceOp op, float *const f[3], int shear, int velocity)
{
  PetscFunctionBeginUser;
  STAGGERED_SURFACE_LAUNCH(s, ELLane(s), SurfaceKernel, op, StaggeredAxisFieldsOf(f), shear, velocity);
  PetscFunctionReturn(0);
}

static PetscErrorCode Surface(ELState *s, StaggeredSurfaceOp op, float *const f[3], PetscBool shear) { return SurfaceFaces(s, op, f, shear ? 1 : 0, 0); }
static PetscErrorCode SurfaceVelocity(ELState *s) { return SurfaceFaces(s, STAGGERED_ZERO_PAST_SURFACE, NULL, 0, 1); }

__global__ void InjectKernel(const ELState s, const PointMap m, const float *amp, PetscBool subtract)
{
  const PetscInt i = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < m.nrows) ELInjectRow(&s, &m, i, amp, subtract);
}

__global__ void RecordKernel(const ELState s, int comp, const PointMap m, const float *remote, float *out)
{
  const PetscInt i = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < m.nrows) out[i] = ELRecordRow(&s, comp, &m, i, remote);
}

static PetscErrorCode Inject(ELState *s, const PointMap *m, const float amp[], PetscBool subtract)
{
  PetscFunctionBeginUser;
  if (!m->nrows) PetscFunctionReturn(0);
  CudaLaunch(InjectKernel, dim3((unsigned)((m->nrows + 127) / 128)), dim3(128), ELLane(s), *s, *m, amp, subtract);
  CUDA_LAUNCHED();
  PetscFunctionReturn(0);
}

static PetscErrorCode Record(ELState *s, PetscInt c, const PointMap *m, const float remote[], float out[])
{
  PetscFunctionBeginUser;
  if (!m->nrows) PetscFunctionReturn(0);
  CudaLaunch(RecordKernel, dim3((unsigned)((m->nrows + 127) / 128)), dim3(128), ELLane(s), *s, (int)c, *m, remote, out);
  CUDA_LAUNCHED();
  PetscFunctionReturn(0);
}

static PetscErrorCode AllFinite(ELState *s, PetscBool *finite)
{
  PetscFunctionBeginUser;
  *finite = PETSC_TRUE;
  for (PetscInt a = 0; a < s->dim && *finite; a++) PetscCall(CudaFieldFinite(ELLanes(s), s->s[a], s->ncells, finite));
  PetscFunctionReturn(0);
}

extern "C" const ELKernels ELKernelsCUDA = {
  .lanes_create     = LanesCreate,
  .lanes_destroy    = LanesDestroy,
  .derive_model     = DeriveModel,
  .velocity         = ELVelocityCUDA,
  .stress           = ELStressCUDA,
  .surface          = Surface,
  .surface_velocity = SurfaceVelocity,
  .inject           = Inject,
  .record           = Record,
  .all_finite       = AllFinite,
  .adjoint_velocity = ELAdjointVelocityCUDA,
  .adjoint_stress   = ELAdjointStressCUDA,
  .adjoint_operands = ELAdjointOperandsCUDA,
  .adjoint_surface  = ELAdjointSurfaceCUDA,
  .adjoint_narrowed = ELAdjointNarrowedCUDA,
  .source_image     = ELSourceImageCUDA,
  .inject_residual  = ELInjectResidualCUDA,
  .derive_image     = ELDeriveImageCUDA,
  .image            = ELImageCUDA,
  .back_stress      = ELBackStressCUDA,
  .back_velocity    = ELBackVelocityCUDA,
  .band_copy        = ELBandCopyCUDA,
  .backend          = &BackendOpsCUDA,
};
