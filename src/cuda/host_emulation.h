/* The CUDA backend's sources compiled for the host (HALOFWI_CUDA_HOST), in
   place of <cuda_runtime.h>: the kernels run on the CPU, one thread after
   another (CudaLaunch walks the grid and each block's threads in order),
   device memory is host memory, and streams and events do nothing, since
   every call completes before it returns.  So a machine without a GPU runs
   the backend's kernels, indexing and launch shapes as written, and a test
   can hold them against the CPU backend bit for bit or put them under
   AddressSanitizer.  It cannot show what only concurrency shows: races,
   stream order, a missing barrier.  The kernels use no shared memory and no
   barriers, which running threads one after another could not honour. */
#pragma once
#include <cmath>
#include <cstdlib>
#include <cstring>

#define __global__
#define __device__
#define __launch_bounds__(...)

typedef struct {
  unsigned x, y, z;
} uint3;

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

/* The running thread's coordinates (CudaHostLaunch sets them). */
static thread_local uint3 blockIdx, threadIdx;
static thread_local dim3  blockDim, gridDim;

template <class T>
static inline T min(T a, T b)
{
  return b < a ? b : a;
}
using std::isfinite;

typedef int   cudaError_t;
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
enum { cudaSuccess = 0, cudaStreamNonBlocking = 1, cudaEventDisableTiming = 2, cudaHostAllocDefault = 0 };
enum cudaMemcpyKind { cudaMemcpyDeviceToHost, cudaMemcpyDefault };

static inline const char *cudaGetErrorString(cudaError_t) { return "no error (host emulation)"; }
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
static inline cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) { return *least = *greatest = 0, cudaSuccess; }
/* A stream is a handle to nothing, but a distinct one, as the runtime's are. */
static inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned, int) { return (*s = malloc(1)) ? cudaSuccess : 2; }
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) { return free(s), cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return cudaSuccess; }
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { return *e = NULL, cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
/* Allocations that fail say so as the runtime would: an error code. */
static inline cudaError_t cudaMalloc(void **p, size_t bytes) { return (*p = malloc(bytes)) ? cudaSuccess : 2; }
static inline cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned) { return cudaMalloc(p, bytes); }
static inline cudaError_t cudaFree(void *p) { return free(p), cudaSuccess; }
static inline cudaError_t cudaFreeHost(void *p) { return cudaFree(p); }
static inline cudaError_t cudaMemset(void *p, int v, size_t bytes) { return memset(p, v, bytes), cudaSuccess; }
static inline cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t) { return cudaMemset(p, v, bytes); }
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t bytes, cudaMemcpyKind) { return memmove(d, s, bytes), cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t bytes, cudaMemcpyKind k, cudaStream_t) { return cudaMemcpy(d, s, bytes, k); }
/* As much free "device" memory as a small GPU: what the planner sizes against. */
static inline cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) { return *free_bytes = *total = (size_t)16 << 30, cudaSuccess; }

/* kernel<<<grid, block>>>(args), one thread after another. */
template <typename... Params, typename... Args>
static inline void CudaHostLaunch(void (*kernel)(Params...), dim3 grid, dim3 block, Args... args)
{
  gridDim  = grid;
  blockDim = block;
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++)
        for (unsigned tz = 0; tz < block.z; tz++)
          for (unsigned ty = 0; ty < block.y; ty++)
            for (unsigned tx = 0; tx < block.x; tx++) {
              blockIdx  = {bx, by, bz};
              threadIdx = {tx, ty, tz};
              kernel(args...);
            }
}
