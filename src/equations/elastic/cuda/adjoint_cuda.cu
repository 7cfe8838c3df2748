/* The elastic adjoint's CUDA operations on particular cells (adjoint.c):
   the operands, their values beyond the free surfaces, the narrowed
   stencils' transposes, the points' terms, the images and the boundary
   method's band; a thread per cell, row or point, in the CPU's formulas
   (adjoint_cells.h, state.h) and, where a cell takes terms from several
   passes, in its order. */
#include "equations/elastic/adjoint_cells.h"
#include "equations/elastic/cuda/el_cuda.h"

/* ELAdjointOperandsCPU a cell at a time: stage 0 undoes the stress stage
   (its row loops are ELUndoStressCell's terms off the surfaces), stage 1
   the velocity stage. */
__global__ void __launch_bounds__(CUDA_CELL_THREADS) OperandsKernel(const ELState s, const Box b, int stage)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = StaggeredCellCUDA(s.dim, s.radius, s.stride, i, q);
  if (!stage) ELUndoStressCell(&s, q, c, ELStressKept(&s));
  else
    for (int a = 0; a < s.dim; a++) ELUndoVelocityCell(&s, a, q, c, ELVelocityKept(&s), s.dim);
}

PetscErrorCode ELAdjointOperandsCUDA(ELState *s, PetscInt stage)
{
  const Box all = {{0, 0, 0}, {s->n[0], s->n[1], s->n[2]}, 0};

  PetscFunctionBeginUser;
  STAGGERED_LAUNCH_BOX(ELLane(s), &all, OperandsKernel, *s, all, (int)stage);
  PetscFunctionReturn(0);
}

/* A thread per owned row along axis a that ends on the free face (a,
   side): its operands beyond the surface (stage 0 or 1), or (narrowed)
   the narrowed stencils' transposes; face by face in the CPU's order, so
   that the cells where faces meet take the faces' terms in turn. */
__global__ void SurfaceRowKernel(const ELState s, int a, int side, int stage, int narrowed)
{
  ptrdiff_t row;
  if (!StaggeredSurfaceThreadRow(s.dim, s.radius, s.stride, s.n, a, &row)) return;
  if (narrowed) ELNarrowedRow(&s, a, side, row, s.stride[a], s.n[a]);
  else ELAdjointSurfaceRow(&s, stage, a, side, row, s.stride[a], s.n[a]);
}

static PetscErrorCode SurfaceRows(ELState *s, int stage, int narrowed)
{
  PetscFunctionBeginUser;
  STAGGERED_SURFACE_LAUNCH(s, ELLane(s), SurfaceRowKernel, stage, narrowed);
  PetscFunctionReturn(0);
}

PetscErrorCode ELAdjointSurfaceCUDA(ELState *s, PetscInt stage) { return SurfaceRows(s, (int)stage, 0); }
PetscErrorCode ELAdjointNarrowedCUDA(ELState *s) { return s->radius == 1 ? 0 : SurfaceRows(s, 0, 1); }

/* A thread per row of a point map (its rows are distinct cells): the
   source's own term in the images, or the residuals of component comp
   into the adjoint fields. */
__global__ void PointsKernel(const ELState s, const PointMap m, const float *amp, int residual, int comp)
{
  const PetscInt i = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= m.nrows) return;
  if (residual) ELResidualRow(&s, comp, &m, i, amp);
  else ELSourceImageRow(&s, &m, i, amp);
}

static PetscErrorCode Points(ELState *s, const PointMap *m, const float amp[], int residual, int comp)
{
  PetscFunctionBeginUser;
  if (!m->nrows) PetscFunctionReturn(0);
  CudaLaunch(PointsKernel, dim3((unsigned)((m->nrows + 127) / 128)), dim3(128), ELLane(s), *s, *m, amp, residual, comp);
  CUDA_LAUNCHED();
  PetscFunctionReturn(0);
}

PetscErrorCode ELSourceImageCUDA(ELState *s, const PointMap *m, const float amp[]) { return Points(s, m, amp, 0, 0); }
PetscErrorCode ELInjectResidualCUDA(ELState *s, PetscInt comp, const PointMap *m, const float amp[]) { return Points(s, m, amp, 1, (int)comp); }

/* A thread per owned row along pair p's first axis a: its edge images
   summed with their lower neighbours', from the last cell down (the
   CPU's DeriveImage). */
__global__ void DeriveImageKernel(const ELState s, int p)
{
  const int      a = p == 2 ? 1 : 0, u = a == 0 ? 1 : 0, v = 3 - a - u;
  const PetscInt t = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= s.n[u] * s.n[v]) return;
  for (PetscInt i = s.n[a] - 1; i >= 0; i--) {
    PetscInt o[3], q[3];
    o[a] = i, o[u] = t % s.n[u], o[v] = t / s.n[u];
    ELDeriveImageCell(&s, p, StaggeredCellCUDA(s.dim, s.radius, s.stride, o, q), o);
  }
}

PetscErrorCode ELDeriveImageCUDA(ELState *s)
{
  PetscFunctionBeginUser;
  for (int p = 0; p < ELPairs(s->dim); p++) {
    const int      a = p == 2 ? 1 : 0, u = a == 0 ? 1 : 0, v = 3 - a - u;
    const PetscInt rows = s->n[u] * s->n[v];
    CudaLaunch(DeriveImageKernel, dim3((unsigned)((rows + 127) / 128)), dim3(128), ELLane(s), *s, p);
    CUDA_LAUNCHED();
  }
  PetscFunctionReturn(0);
}

__global__ void __launch_bounds__(CUDA_CELL_THREADS) ImageKernel(const ELState s, const Box b, int k)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = StaggeredCellCUDA(s.dim, s.radius, s.stride, i, q);
  s.image[c]        = ELImageAt(&s, k, c, i);
}

PetscErrorCode ELImageCUDA(ELState *s, PetscInt k)
{
  const Box all = {{0, 0, 0}, {s->n[0], s->n[1], s->n[2]}, 0};

  PetscFunctionBeginUser;
  STAGGERED_LAUNCH_BOX(ELLane(s), &all, ImageKernel, *s, all, (int)k);
  PetscFunctionReturn(0);
}

/* The boundary method's band. */
PetscErrorCode ELBandCopyCUDA(ELState *s, float *const f[], PetscBool save, unsigned mask, float *buf)
{
  return StaggeredBandCopyCUDA(ELLanes(s), s->radius, s->dim, s->stride, s->rec->nband, s->rec->band, f, save, mask, buf);
}
