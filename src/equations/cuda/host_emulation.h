/* The CUDA backend's sources compiled for the host (HALOFWI_CUDA_HOST), in
   place of <cuda_runtime.h>: the kernels run on the CPU, device memory is
   host memory, and streams and events do nothing, since every call
   completes before it returns.  CudaHostLaunch runs a launch's blocks one
   after another, and a block's threads as coroutines on one CPU thread:
   each runs until it reaches __syncthreads() or ends, then the next; when
   all have, the block goes on past the barrier.  __shared__ arrays are
   static, one per kernel, which is right while one block runs at a time.
   So a machine without a GPU runs the backend's kernels, indexing, launch
   shapes and shared-memory tiles as written, and a test can hold them
   against the CPU backend bit for bit or put them under AddressSanitizer.
   A missing barrier shows too: between two barriers every thread runs
   alone to the next, the block in ascending order one phase and
   descending the next, so a thread that reads a tile cell before its
   writer has written it, or after another has overwritten it, reads a
   stale value in one order or the other.  It cannot show what only the
   hardware shows: stream order, the memory model's weaker orderings. */
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ucontext.h>
#include <unordered_map>
/* AddressSanitizer is told of every switch of stacks, so that it keeps
   each thread's stack apart (switch_to before, switched after). */
#if defined(__SANITIZE_ADDRESS__)
  #include <sanitizer/common_interface_defs.h>
static inline void HostFiberSwitchTo(void **save, const void *bottom, size_t size) { __sanitizer_start_switch_fiber(save, bottom, size); }
static inline void HostFiberSwitched(void *save, const void **from_bottom, size_t *from_size) { __sanitizer_finish_switch_fiber(save, from_bottom, from_size); }
#else
static inline void HostFiberSwitchTo(void **, const void *, size_t) {}
static inline void HostFiberSwitched(void *, const void **, size_t *) {}
#endif

#define __global__
#define __device__
#define __launch_bounds__(...)
#define __shared__ static

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
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
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

/* A block's threads as coroutines (see the top of this file): a fiber per
   thread slot, made once and kept, each running the launch's kernel as
   the thread the scheduler names, over and over. */
struct HostBlock {
  enum { MAX_THREADS = 1024, STACK = 256 << 10 }; /* a stack holds a thread's locals, AddressSanitizer's redzones too */
  ucontext_t  scheduler, fiber[MAX_THREADS];
  char       *stacks   = nullptr;                 /* a STACK each */
  unsigned    nfibers  = 0, current = 0;
  bool        in_fiber = false, done[MAX_THREADS];
  unsigned    barriers = 0;                       /* barriers met in this launch */
  void      (*run)(void *) = nullptr;
  void       *arg             = nullptr;
  const void *scheduler_stack = nullptr;          /* the scheduler's stack, as AddressSanitizer reports it */
  size_t      scheduler_size  = 0;
};
/* This thread's, made on its first launch: on the heap, since a
   thread_local of this size would be part of every thread's static TLS. */
static inline HostBlock &HostBlockHere(void)
{
  static thread_local HostBlock *b = nullptr;
  if (!b) b = new HostBlock();
  return *b;
}

/* Thread t of a block, numbered along x, then y, then z. */
static inline uint3 HostThreadIdx(unsigned t, dim3 block) { return {t % block.x, t / block.x % block.y, t / block.x / block.y}; }

static inline void HostFail(const char *what)
{
  fprintf(stderr, "host emulation: %s\n", what);
  abort();
}

/* From the running thread's fiber back to the scheduler. */
static inline void HostYield(HostBlock &b)
{
  void *save = nullptr;
  HostFiberSwitchTo(&save, b.scheduler_stack, b.scheduler_size);
  swapcontext(&b.fiber[b.current], &b.scheduler);
  HostFiberSwitched(save, &b.scheduler_stack, &b.scheduler_size);
}

/* The running thread waits until every thread of its block has reached the barrier. */
static inline void __syncthreads(void)
{
  HostBlock &b = HostBlockHere();
  if (!b.in_fiber) HostFail("a barrier in a block run without fibers: the kernel's first block met none (CudaHostLaunch)");
  b.barriers++;
  HostYield(b);
}

static inline void HostFiberMain(void)
{
  HostBlock &b = HostBlockHere();
  HostFiberSwitched(nullptr, &b.scheduler_stack, &b.scheduler_size);
  for (;;) {
    b.run(b.arg);
    b.done[b.current] = true;
    HostYield(b);
  }
}

/* Fiber k, on its own stack, and from the scheduler to thread t's fiber
   until it yields.  Not inlined: getcontext and swapcontext return twice,
   and the caller's locals would have to be kept out of registers across
   them (-Wclobbered). */
static __attribute__((noinline)) void HostFiberMake(HostBlock &b, unsigned k)
{
  ucontext_t &c = b.fiber[k];
  getcontext(&c);
  c.uc_stack.ss_sp   = b.stacks + (size_t)k * HostBlock::STACK;
  c.uc_stack.ss_size = HostBlock::STACK;
  c.uc_link          = nullptr; /* a fiber never ends */
  makecontext(&c, HostFiberMain, 0);
}

static __attribute__((noinline)) void HostResume(HostBlock &b, unsigned t)
{
  void *save = nullptr;
  b.current  = t;
  HostFiberSwitchTo(&save, b.fiber[t].uc_stack.ss_sp, HostBlock::STACK);
  swapcontext(&b.scheduler, &b.fiber[t]);
  HostFiberSwitched(save, nullptr, nullptr);
}

/* Runs run(arg) as each of the block's nthreads threads, each as far as its
   next barrier, until all have ended. */
static inline void HostRunBlockFibers(unsigned nthreads, dim3 block, void (*run)(void *), void *arg)
{
  HostBlock &b = HostBlockHere();
  if (nthreads > HostBlock::MAX_THREADS) HostFail("more than 1024 threads in a block");
  if (!b.stacks && !(b.stacks = (char *)malloc((size_t)HostBlock::MAX_THREADS * HostBlock::STACK))) HostFail("no memory for the threads' stacks");
  for (; b.nfibers < nthreads; b.nfibers++) HostFiberMake(b, b.nfibers);
  b.run      = run;
  b.arg      = arg;
  b.in_fiber = true;
  for (unsigned t = 0; t < nthreads; t++) b.done[t] = false;
  for (unsigned phase = 0, left = nthreads; left; phase++) {
    unsigned ended = 0;
    for (unsigned k = 0; k < nthreads; k++) {
      const unsigned t = phase % 2 ? nthreads - 1 - k : k;
      if (b.done[t]) continue;
      threadIdx = HostThreadIdx(t, block);
      HostResume(b, t);
      ended += b.done[t];
    }
    /* CUDA leaves a barrier that some of the block's threads never reach undefined */
    if (ended && ended != left) HostFail("a barrier that not every thread of the block reached");
    left -= ended;
  }
  b.in_fiber = false;
}

/* kernel<<<grid, block>>>(args), the blocks one after another.  A
   kernel's first launch runs its first block's threads as fibers; if they
   meet no barrier, the kernel's other blocks, then and at every later
   launch, run their threads one after another on this stack, which is
   much faster (a barrier there fails). */
template <typename... Params, typename... Args>
static inline void CudaHostLaunch(void (*kernel)(Params...), dim3 grid, dim3 block, Args... args)
{
  static thread_local std::unordered_map<const void *, bool> cooperative; /* by kernel: it has barriers */
  auto           body     = [&]() { kernel(args...); };
  auto           run      = [](void *p) { (*(decltype(body) *)p)(); };
  const unsigned nthreads = block.x * block.y * block.z;
  auto           known    = cooperative.find((const void *)kernel);
  bool           fibers   = known == cooperative.end() || known->second;
  gridDim                 = grid;
  blockDim                = block;
  HostBlock     &hb       = HostBlockHere();
  hb.barriers             = 0;
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        blockIdx = {bx, by, bz};
        if (fibers) {
          HostRunBlockFibers(nthreads, block, run, &body);
          fibers = cooperative[(const void *)kernel] = hb.barriers > 0;
        } else
          for (unsigned t = 0; t < nthreads; t++) {
            threadIdx = HostThreadIdx(t, block);
            body();
          }
      }
}
