/* The variable-density equation's CUDA operations on particular cells (the
   free surface, the points, the images, the boundary method's band), and
   its CUDA table (kernels.h): the same formulas as cells_cpu.c. */
#include "equations/variable_density/cuda/vd_cuda.h"

static PetscErrorCode LanesCreate(VDState *s, const GpuTile *tile) { return CudaLanesCreate(tile, (CudaLanes **)&s->lanes); }
static PetscErrorCode LanesDestroy(VDState *s) { return CudaLanesDestroy((CudaLanes **)&s->lanes); }

/* What a surface row's thread does (cells_cpu.c's passes of that name). */
enum SurfaceOp { ZERO_SURFACE, ZERO_PAST_SURFACE, MIRROR_CENTRES, MIRROR_NODES };

/* A thread per owned row along axis a ending on the free face (a, side). */
template <SurfaceOp OP>
__global__ void SurfaceKernel(const VDState s, int a, int side, float *x)
{
  const int      b1 = a == 0 ? 1 : 0, b2 = a == 2 ? 1 : 2;
  const PetscInt nj = s.n[b1], nk = s.dim > b2 ? s.n[b2] : 1, t = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= nj * nk) return;
  const ptrdiff_t row = VDSurfaceRow(&s, a, t % nj, t / nj), st = s.stride[a], c0 = row + (side ? (s.n[a] - 1) * st : 0);
  const PetscInt  n = s.n[a], R = s.radius;
  if (OP == ZERO_SURFACE) x[c0] = 0;
  if (OP == ZERO_PAST_SURFACE && side) x[c0] = 0;
  if (OP == MIRROR_CENTRES)
    for (PetscInt m = 1; m <= R; m++) x[c0 + m * (side ? st : -st)] = -x[c0 - m * (side ? st : -st)];
  if (OP == MIRROR_NODES)
    for (PetscInt i = side ? n - 1 : -R; i < (side ? n - 1 + R : 0); i++) x[row + i * st] = x[row + (side ? 2 * n - 3 - i : -1 - i) * st];
}

/* Every free face in the CPU's order, axis a's field f[a]. */
template <SurfaceOp OP>
static PetscErrorCode EachSurface(VDState *s, float *const f[3])
{
  PetscFunctionBeginUser;
  for (int a = 0; a < s->dim; a++)
    for (int side = 0; side < 2; side++) {
      const int      b1 = a == 0 ? 1 : 0, b2 = a == 2 ? 1 : 2;
      const PetscInt rows = s->n[b1] * (s->dim > b2 ? s->n[b2] : 1);
      if (!s->free_surface[a][side]) continue;
      CudaLaunch(SurfaceKernel<OP>, dim3((unsigned)((rows + 127) / 128)), dim3(128), VDLane(s), *s, a, side, f[a]);
      CUDA_LAUNCHED();
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode ZeroSurface(VDState *s, float *p)
{
  float *const f[3] = {p, p, p};
  return EachSurface<ZERO_SURFACE>(s, f);
}
static PetscErrorCode ZeroPastSurface(VDState *s, float *const v[3]) { return EachSurface<ZERO_PAST_SURFACE>(s, v); }
static PetscErrorCode MirrorCentres(VDState *s, float *const f[3]) { return EachSurface<MIRROR_CENTRES>(s, f); }
static PetscErrorCode MirrorNodes(VDState *s, float *const f[3]) { return EachSurface<MIRROR_NODES>(s, f); }

static PetscErrorCode Inject(VDState *s, float *p, PetscBool subtract, const PointMap *m, const float amp[]) { return CudaPointsInject(VDLanes(s), p, s->kdt, subtract ? true : false, m, amp); }

__global__ void AtSourceKernel(const VDState s, const PointMap m, float *out)
{
  const PetscInt i = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= m.nrows) return;
  out[i] = (float)((double)s.p[m.cell[i]] * s.dt / s.kdt[m.cell[i]]);
}

static PetscErrorCode AtSource(VDState *s, const PointMap *m, float out[])
{
  PetscFunctionBeginUser;
  if (!m->nrows) PetscFunctionReturn(0);
  CudaLaunch(AtSourceKernel, dim3((unsigned)((m->nrows + 127) / 128)), dim3(128), VDLane(s), *s, *m, out);
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

static PetscErrorCode BandCopy(VDState *s, float *const f[4], PetscBool save, PetscBool pressure, float *buf)
{
  ptrdiff_t origin = 0; /* owned cell 0's padded index */
  size_t    at     = 0;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->dim; a++) origin += s->radius * s->stride[a];
  for (PetscInt k = 0; k < s->rec.nband; k++) {
    const VDBand *band = &s->rec.band[k];
    if (save || (band->field == 0) == pressure) PetscCall(CudaBoxesPack(VDLanes(s), f[band->field], s->stride, origin, 1, &band->box, buf + at, save ? PETSC_FALSE : PETSC_TRUE));
    at += BoxCells(&band->box);
  }
  PetscFunctionReturn(0);
}

extern "C" const VDKernels VDKernelsCUDA = {
  .lanes_create         = LanesCreate,
  .lanes_destroy        = LanesDestroy,
  .velocity             = VDVelocityCUDA,
  .pressure             = VDPressureCUDA,
  .adjoint_operands     = VDAdjointOperandsCUDA,
  .reconstruct_pressure = VDReconstructPressureCUDA,
  .reconstruct_velocity = VDReconstructVelocityCUDA,
  .zero_surface         = ZeroSurface,
  .zero_past_surface    = ZeroPastSurface,
  .mirror_centres       = MirrorCentres,
  .mirror_nodes         = MirrorNodes,
  .inject               = Inject,
  .at_source            = AtSource,
  .record               = Record,
  .all_finite           = AllFinite,
  .image                = Image,
  .band_copy            = BandCopy,
  .backend              = &BackendOpsCUDA,
};
