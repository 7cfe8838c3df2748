/* What every equation's CUDA kernels share: the error check, the lanes
   (streams) a state's work queues on, launches, a thread per cell of a
   box, and the kernels over point maps, boxes of cells and whole fields
   (points_cuda.cu); the backend's memory and lanes are in backend_cuda.cu.
   Compiled by nvcc, or for the host under HALOFWI_CUDA_HOST
   (host_emulation.h). */
#pragma once
#ifdef HALOFWI_CUDA_HOST
  #include "equations/cuda/host_emulation.h"
  #define CUDA_BACKEND_NAME "cuda (host emulation)"
#else
  #include <cuda_runtime.h>
  #define CUDA_BACKEND_NAME "cuda"
#endif
#include "equations/equation.h"

#define CUDA_CALL(call) \
  do { \
    const cudaError_t e_ = (call); \
    PetscCheck(e_ == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "CUDA: %s failed: %s", #call, cudaGetErrorString(e_)); \
  } while (0)
/* After a launch: a bad configuration shows here, a fault at the next sync. */
#define CUDA_LAUNCHED() CUDA_CALL(cudaGetLastError())

/* The main lane (high priority: shell, halos, everything in order), the side
   lane (the interior) and the copy lane (the wavefield store's transfers);
   and the launch shape of an equation's core kernel (-gpu_tile). */
typedef struct {
  cudaStream_t main, side, copy;
  cudaEvent_t  main_mark, side_mark, copied[2];
  PetscBool    on_side;
  int         *flag;      /* device: set by CudaFieldFinite when a value is not finite */
  unsigned     rows, run; /* the core kernel's blocks: CUDA_BX x rows threads, each a run of `run` cells */
  bool         tile;      /* the core kernel reads the neighbours across the runs through a shared-memory tile */
} CudaLanes;

static inline cudaStream_t CudaLanesStream(const CudaLanes *l) { return l->on_side ? l->side : l->main; }

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
static inline dim3 BoxCellGridOf(const Box *b)
{
  const PetscInt e[3] = {b->hi[0] - b->lo[0], b->hi[1] - b->lo[1], b->hi[2] - b->lo[2]};
  return BoxCellGrid(e);
}

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

/* The backend's memory and lanes (backend_cuda.cu).  LanesCreate takes the
   core kernel's launch shape from tile (0: the defaults). */
extern "C" const BackendOps BackendOpsCUDA;
PetscErrorCode CudaLanesCreate(const GpuTile *tile, CudaLanes **lanes);
PetscErrorCode CudaLanesDestroy(CudaLanes **lanes);

/* points_cuda.cu, each queued on l's current lane.  Inject: row i of map m
   (PointMap: inject) adds, or takes away where subtract, scale[cell] times
   its sum over amp to field[cell]; Record: out[i] = row i's sum over field
   (PointMap: record). */
PetscErrorCode CudaPointsInject(const CudaLanes *l, float *field, const float *scale, bool subtract, const PointMap *m, const float amp[]);
PetscErrorCode CudaPointsRecord(const CudaLanes *l, const float *field, const PointMap *m, const float remote[], float out[]);
/* Whether every one of u's n values is finite; waits for the main lane. */
PetscErrorCode CudaFieldFinite(CudaLanes *l, const float *u, size_t n, PetscBool *finite);
/* codec_cuda.cu: a step's n floats at x encoded into packed as codec.h
   lays it out (the CPU's bytes), or back, queued on l's current lane;
   codec bf16 or int8. */
PetscErrorCode CudaCodecEncode(const CudaLanes *l, WavefieldCodec codec, const float *x, size_t n, void *packed);
PetscErrorCode CudaCodecDecode(const CudaLanes *l, WavefieldCodec codec, const void *packed, size_t n, float *x);
/* The cells of the nbox boxes (owned coordinates; the padded index of cell
   i is origin + sum_a i[a] stride[a]) to buf, box by box, each along axis
   0, then 1, then 2, or back from it where unpack. */
PetscErrorCode CudaBoxesPack(const CudaLanes *l, float *field, const ptrdiff_t stride[3], ptrdiff_t origin, PetscInt nbox, const Box box[], float *buf, PetscBool unpack);
