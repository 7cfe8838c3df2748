/* CUDA backend: the passes over particular cells: the adjoint's CPML slabs,
   the free-surface faces, sources and receivers, and the NaN check.  Same
   formulas and order as the CPU backend (src/cpu/). */
#include "equations/acoustic/cuda/kernels_cuda.h"

/* The adjoint's slab passes (see adjoint_layers_cpu.c), per cell of slab
   (a, s): c offset in the field, q in the slab, p the padded index. */
struct LayersBeginOp {
  __device__ void operator()(const Fields &f, const LayerSlab &sl, int a, ptrdiff_t c, ptrdiff_t q, const PetscInt p[3]) const { sl.zeta[q] += f.u[c]; }
};
template <int R>
struct ReachOp {
  __device__ void operator()(const Fields &f, const LayerSlab &sl, int a, ptrdiff_t c, ptrdiff_t q, const PetscInt p[3]) const
  {
    f.uprev[c] += f.vdt2[c] * fwi_adj_cpml_reach(sl.zeta + q, sl.psi + q, sl.stride[a], f.u + c, f.stride[a], f.pml_a[a] + p[a], f.pml_da[a] + p[a], f.c2[a], f.c1[a], R);
  }
};
template <int R>
struct PsiOp {
  __device__ void operator()(const Fields &f, const LayerSlab &sl, int a, ptrdiff_t c, ptrdiff_t q, const PetscInt p[3]) const
  {
    sl.psi[q] = fwi_adj_cpml_psi(sl.psi[q], f.u + c, f.stride[a], sl.zeta + q, sl.stride[a], f.pml_a[a] + p[a], f.pml_b[a] + p[a], f.c1[a], R);
  }
};
struct ZetaOp {
  __device__ void operator()(const Fields &f, const LayerSlab &sl, int a, ptrdiff_t c, ptrdiff_t q, const PetscInt p[3]) const { sl.zeta[q] *= f.pml_b[a][p[a]]; }
};

/* A thread per owned cell of box b (BoxCell) in slab (a, s). */
template <class Op>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) SlabKernel(const Fields f, int a, int s, const Box b, Op op)
{
  PetscInt i[3], p[3];
  if (!BoxCell(b, i)) return;
  for (int d = 0; d < 3; d++) p[d] = i[d] + (d < f.dim ? f.radius : 0);
  const LayerSlab &sl = f.slab[a][s];
  op(f, sl, a, FieldsIndex(&f, i), SlabIndex(&sl, a, p), p);
}

/* Every slab in the CPU's order (axis by axis, low side first), over its owned cells within `reach` of the layer. */
template <class Op>
static PetscErrorCode EachSlab(Fields *f, PetscInt reach, Op op)
{
  PetscFunctionBeginUser;
  for (int a = 0; a < f->dim; a++)
    for (int s = 0; s < 2; s++) {
      Box      b;
      PetscInt e[3];
      if (!f->slab[a][s].ncells) continue;
      FieldsSlabBox(f, a, s, reach, b.lo, b.hi);
      for (int d = 0; d < 3; d++) e[d] = b.hi[d] - b.lo[d];
      if (e[0] <= 0 || e[1] <= 0 || e[2] <= 0) continue;
      CudaLaunch(SlabKernel<Op>, BoxCellGrid(e), dim3(CUDA_CELL_THREADS), CudaLane(f), *f, a, s, b, op);
      CUDA_LAUNCHED();
    }
  PetscFunctionReturn(0);
}

PetscErrorCode CudaAdjointLayersBegin(Fields *f) { return EachSlab(f, 0, LayersBeginOp()); }

template <int R>
static PetscErrorCode LayersEnd(Fields *f)
{
  PetscFunctionBeginUser;
  /* every read of the adjoint psi before it steps back; psi reads E at
     neighbours, so E becomes zeta only once psi is done */
  PetscCall(EachSlab(f, f->radius, ReachOp<R>()));
  PetscCall(EachSlab(f, 0, PsiOp<R>()));
  PetscCall(EachSlab(f, 0, ZetaOp()));
  PetscFunctionReturn(0);
}

PetscErrorCode CudaAdjointLayersEnd(Fields *f)
{
#define LAYERS_CASE(R, DIM) \
  case R: return LayersEnd<R>(f);
  switch (f->radius) {
    FWI_KERNEL_RADII(LAYERS_CASE, 0)
  default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No CUDA kernel for radius %" PetscInt_FMT, f->radius);
  }
#undef LAYERS_CASE
}

/* Free-surface face (a, s): one thread per owned cell of the face. */
template <bool MIRROR>
__global__ void SurfaceKernel(const Fields f, int a, int s)
{
  const int pa = (a + 1) % 3, qa = (a + 2) % 3;
  PetscInt  i[3];
  i[a]  = s ? f.n[a] - 1 : 0;
  i[pa] = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  i[qa] = (PetscInt)blockIdx.y;
  if (i[pa] >= f.n[pa]) return;
  const ptrdiff_t cell = FieldsIndex(&f, i), out = (s ? 1 : -1) * f.stride[a];
  /* odd reflection about the surface sample, so u = 0 there to every order */
  if (MIRROR)
    for (PetscInt k = 1; k <= f.radius; k++) f.u[cell + k * out] = -f.u[cell - k * out];
  else f.uprev[cell] = 0.0f;
}

template <bool MIRROR>
static PetscErrorCode EachSurface(Fields *f)
{
  PetscFunctionBeginUser;
  for (int a = 0; a < f->dim; a++)
    for (int s = 0; s < 2; s++) {
      if (!f->free_surface[a][s]) continue;
      const PetscInt np = f->n[(a + 1) % 3], nq = f->n[(a + 2) % 3];
      CudaLaunch(SurfaceKernel<MIRROR>, dim3((unsigned)((np + 127) / 128), (unsigned)nq), dim3(128), CudaLane(f), *f, a, s);
      CUDA_LAUNCHED();
    }
  PetscFunctionReturn(0);
}

PetscErrorCode CudaMirrorGhosts(Fields *f) { return EachSurface<true>(f); }
PetscErrorCode CudaZeroSurface(Fields *f) { return EachSurface<false>(f); }

/* The points, the NaN check and the halos' boxes through the kernels
   every equation shares (equations/cuda/points_cuda.cu). */
PetscErrorCode CudaInject(Fields *f, const PointMap *m, const float amp[]) { return CudaPointsInject((const CudaLanes *)f->backend, f->uprev, f->vdt2, false, m, amp); }

PetscErrorCode CudaRecord(Fields *f, const PointMap *m, const float remote[], float out[]) { return CudaPointsRecord((const CudaLanes *)f->backend, f->u, m, remote, out); }

PetscErrorCode CudaAllFinite(Fields *f, PetscBool *finite) { return CudaFieldFinite((CudaLanes *)f->backend, f->u, f->ncells, finite); }

PetscErrorCode CudaPackBoxes(Fields *f, float *field, PetscInt nbox, const Box box[], float *buf, PetscBool unpack)
{
  const PetscInt zero[3] = {0, 0, 0};

  return CudaBoxesPack((const CudaLanes *)f->backend, field, f->stride, FieldsIndex(f, zero), nbox, box, buf, unpack);
}
