/* Pieces of the CUDA backend shared between its files: the error check,
   the lanes (streams) a Fields works on, and the kernel launchers. */
#pragma once
#ifdef HALOFWI_CUDA_HOST
  #include "equations/acoustic/cuda/host_emulation.h"
  #define CUDA_BACKEND_NAME "cuda (host emulation)"
#else
  #include <cuda_runtime.h>
  #define CUDA_BACKEND_NAME "cuda"
#endif
#include "equations/acoustic/kernels.h"

#define CUDA_CALL(call) \
  do { \
    const cudaError_t e_ = (call); \
    PetscCheck(e_ == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "CUDA: %s failed: %s", #call, cudaGetErrorString(e_)); \
  } while (0)
/* After a launch: a bad configuration shows here, a fault at the next sync. */
#define CUDA_LAUNCHED() CUDA_CALL(cudaGetLastError())

/* The main lane (high priority: shell, halos, everything in order), the side
   lane (the interior) and the copy lane (the wavefield store's transfers);
   and the core kernel's launch shape (Fields.gpu_tile). */
typedef struct {
  cudaStream_t main, side, copy;
  cudaEvent_t  main_mark, side_mark, copied[2];
  PetscBool    on_side;
  int         *flag;      /* device: set by all_finite when a value is not finite */
  unsigned     rows, run; /* the core kernel's blocks: CUDA_BX x rows threads, each a run of `run` cells */
  bool         tile;      /* the core kernel reads the neighbours across the runs through a shared-memory tile */
} CudaLanes;

static inline cudaStream_t CudaLanesStream(const CudaLanes *l) { return l->on_side ? l->side : l->main; }
static inline cudaStream_t CudaLane(const Fields *f) { return CudaLanesStream((const CudaLanes *)f->backend); }

/* The core kernel's blocks are CUDA_BX threads along axis 0 (contiguous) by
   `rows` (at most CUDA_MAX_ROWS); the kernels that take a thread per cell
   have blocks of CUDA_CELL_THREADS. */
#define CUDA_BX           FIELDS_GPU_TILE_WIDTH
#define CUDA_MAX_ROWS     FIELDS_GPU_TILE_MAX_ROWS
#define CUDA_CELL_THREADS 256

/* A thread per cell of box b: grid x numbers the cells of a plane along
   axis 0, then 1, so that a thin slab keeps every lane busy; grid y walks
   axis 2.  Fills i (owned index); false for a thread past the plane. */
__device__ static inline bool BoxCell(const Box &b, PetscInt i[3])
{
  const unsigned e0 = (unsigned)(b.hi[0] - b.lo[0]), t = blockIdx.x * CUDA_CELL_THREADS + threadIdx.x;
  if (t >= e0 * (unsigned)(b.hi[1] - b.lo[1])) return false;
  i[0] = b.lo[0] + (PetscInt)(t % e0);
  i[1] = b.lo[1] + (PetscInt)(t / e0);
  i[2] = b.lo[2] + (PetscInt)blockIdx.y;
  return true;
}

/* BoxCell's grid for box extents e[3]. */
static inline dim3 BoxCellGrid(const PetscInt e[3]) { return dim3((unsigned)((e[0] * e[1] + CUDA_CELL_THREADS - 1) / CUDA_CELL_THREADS), (unsigned)e[2]); }

/* kernel<<<grid, block, 0, stream>>>(args): every launch goes through here,
   one place to add checks or timing. */
template <typename... Params, typename... Args>
static inline void CudaLaunch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, Args... args)
{
#ifdef HALOFWI_CUDA_HOST
  CudaHostLaunch(kernel, grid, block, args...);
#else
  kernel<<<grid, block, 0, stream>>>(args...);
#endif
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
