/* Pieces of the CUDA backend shared between its files: the error check,
   the lanes (streams) a Fields works on, and the kernel launchers. */
#pragma once
#include <cuda_runtime.h>
#include "kernels.h"

#define CUDA_CALL(call) \
  do { \
    const cudaError_t e_ = (call); \
    PetscCheck(e_ == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "CUDA: %s failed: %s", #call, cudaGetErrorString(e_)); \
  } while (0)
/* After a launch: a bad configuration shows here, a fault at the next sync. */
#define CUDA_LAUNCHED() CUDA_CALL(cudaGetLastError())

/* The main lane (high priority: shell, halos, everything in order), the side
   lane (the interior) and the copy lane (the wavefield store's transfers). */
typedef struct {
  cudaStream_t main, side, copy;
  cudaEvent_t  main_mark, side_mark, copied[2];
  PetscBool    on_side;
  int         *flag; /* device: set by all_finite when a value is not finite */
} CudaLanes;

static inline cudaStream_t CudaLane(const Fields *f)
{
  const CudaLanes *l = (const CudaLanes *)f->backend;
  return l->on_side ? l->side : l->main;
}

/* Threads per block: 32 along axis 0 (contiguous) x 8 along axis 1; in 3D
   each thread walks CUDA_RUN cells along axis 2. */
#define CUDA_BX  32
#define CUDA_BY  8
#define CUDA_RUN 16

/* Blocks covering box extents e[3] with CUDA_BX x CUDA_BY threads and runs of `run` along axis 2. */
static inline dim3 CudaGrid(const PetscInt e[3], PetscInt run)
{
  return dim3((unsigned)((e[0] + CUDA_BX - 1) / CUDA_BX), (unsigned)((e[1] + CUDA_BY - 1) / CUDA_BY), (unsigned)((e[2] + run - 1) / run));
}

/* kernel<<<grid, block, 0, stream>>>(args): every launch goes through here,
   one place to add checks or timing. */
template <typename... Params, typename... Args>
static inline void CudaLaunch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, Args... args)
{
  kernel<<<grid, block, 0, stream>>>(args...);
}

/* step_cuda.cu */
PetscErrorCode CudaStep(Fields *f, const Box *b);
PetscErrorCode CudaAdvanceMemory(Fields *f, const Box *b);
PetscErrorCode CudaAdjointStep(Fields *f, const Box *b);
/* cells_cuda.cu */
PetscErrorCode CudaAdjointLayersBegin(Fields *f);
PetscErrorCode CudaAdjointLayersEnd(Fields *f);
PetscErrorCode CudaMirrorGhosts(Fields *f);
PetscErrorCode CudaZeroSurface(Fields *f);
PetscErrorCode CudaInject(Fields *f, const PointMap *m, const float amp[]);
PetscErrorCode CudaRecord(Fields *f, const PointMap *m, const float remote[], float out[]);
PetscErrorCode CudaAllFinite(Fields *f, PetscBool *finite);
PetscErrorCode CudaPackBoxes(Fields *f, float *field, PetscInt nbox, const Box box[], float *buf, PetscBool unpack);
