/* Kernels over point maps, boxes of cells and whole fields, whatever the
   equation (cuda.h): the same formulas and order as the CPU's. */
#include "equations/cuda/cuda.h"

/* One thread a row: rows are distinct cells, so injection needs no atomics,
   and each row sums its entries in their order, as the CPU does. */
__global__ void InjectKernel(float *field, const float *scale, bool subtract, const PointMap m, const float *amp)
{
  const PetscInt i = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= m.nrows) return;
  const ptrdiff_t c = m.cell[i];
  const float     t = scale[c] * (float)PointMapRowSum(&m, i, amp, NULL);
  field[c]          = subtract ? field[c] - t : field[c] + t;
}

__global__ void RecordKernel(const float *field, const PointMap m, const float *remote, float *out)
{
  const PetscInt i = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= m.nrows) return;
  out[i] = (float)PointMapRowSum(&m, i, field, remote);
}

static dim3 RowBlocks(const PointMap *m) { return dim3((unsigned)((m->nrows + 127) / 128)); }

PetscErrorCode CudaPointsInject(const CudaLanes *l, float *field, const float *scale, bool subtract, const PointMap *m, const float amp[])
{
  PetscFunctionBeginUser;
  if (!m->nrows) PetscFunctionReturn(0);
  CudaLaunch(InjectKernel, RowBlocks(m), dim3(128), CudaLanesStream(l), field, scale, subtract, *m, amp);
  CUDA_LAUNCHED();
  PetscFunctionReturn(0);
}

PetscErrorCode CudaPointsRecord(const CudaLanes *l, const float *field, const PointMap *m, const float remote[], float out[])
{
  PetscFunctionBeginUser;
  if (!m->nrows) PetscFunctionReturn(0);
  CudaLaunch(RecordKernel, RowBlocks(m), dim3(128), CudaLanesStream(l), field, *m, remote, out);
  CUDA_LAUNCHED();
  PetscFunctionReturn(0);
}

__global__ void FiniteKernel(const float *u, size_t n, int *flag)
{
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x)
    if (!isfinite(u[k])) *flag = 1;
}

PetscErrorCode CudaFieldFinite(CudaLanes *l, const float *u, size_t n, PetscBool *finite)
{
  int bad = 0;

  PetscFunctionBeginUser;
  CUDA_CALL(cudaMemsetAsync(l->flag, 0, sizeof(int), l->main));
  CudaLaunch(FiniteKernel, dim3(1024), dim3(256), l->main, u, n, l->flag);
  CUDA_LAUNCHED();
  CUDA_CALL(cudaMemcpyAsync(&bad, l->flag, sizeof(int), cudaMemcpyDeviceToHost, l->main));
  CUDA_CALL(cudaStreamSynchronize(l->main));
  *finite = bad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* One box's cells to or from its part of the packed buffer, a thread per cell. */
__global__ void PackKernel(float *field, const ptrdiff_t s0, const ptrdiff_t s1, const ptrdiff_t s2, ptrdiff_t origin, const Box b, float *buf, bool unpack)
{
  const PetscInt e0 = b.hi[0] - b.lo[0], e1 = b.hi[1] - b.lo[1];
  const size_t   n  = BoxCells(&b);
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
    const ptrdiff_t c = origin + (b.lo[0] + (ptrdiff_t)(k % e0)) * s0 + (b.lo[1] + (ptrdiff_t)(k / e0 % e1)) * s1 + (b.lo[2] + (ptrdiff_t)(k / e0 / e1)) * s2;
    if (unpack) field[c] = buf[k];
    else buf[k] = field[c];
  }
}

PetscErrorCode CudaBoxesPack(const CudaLanes *l, float *field, const ptrdiff_t stride[3], ptrdiff_t origin, PetscInt nbox, const Box box[], float *buf, PetscBool unpack)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < nbox; k++) {
    const Box   &b = box[k];
    const size_t n = BoxCells(&b);
    if (!n) continue;
    CudaLaunch(PackKernel, dim3((unsigned)PetscMin((n + 255) / 256, 4096)), dim3(256), CudaLanesStream(l), field, stride[0], stride[1], stride[2], origin, b, buf,
               unpack ? true : false);
    CUDA_LAUNCHED();
    buf += n;
  }
  PetscFunctionReturn(0);
}
