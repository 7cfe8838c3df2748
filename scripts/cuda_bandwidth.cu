/* Device memory bandwidth probe for scripts/bench-gpu.

   Copies one large buffer to another on the device with cudaMemcpyAsync
   (device to device), after a warm-up, several times, timed with CUDA
   events, and prints

     device <name>
     d2d_copy_GBps <GB/s>

   counting the bytes read plus the bytes written (2 x size per copy), as
   STREAM counts its copy kernel.  This is the bound the stencil kernels are
   measured against.  Argument: MiB per buffer (default 2048; two buffers are
   allocated).  Exits 77 when no CUDA device is visible. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define REPS 20
#define WARMUP 3

static void check(cudaError_t e, const char *what)
{
  if (e != cudaSuccess) {
    fprintf(stderr, "halofwi-cuda-bandwidth: %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}

int main(int argc, char **argv)
{
  int    ndev = 0;
  size_t mib  = argc > 1 ? strtoull(argv[1], NULL, 10) : 2048;
  if (mib == 0) {
    fprintf(stderr, "usage: halofwi-cuda-bandwidth [MiB per buffer, default 2048]\n");
    return 2;
  }
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    fprintf(stderr, "halofwi-cuda-bandwidth: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 77;
  }
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");

  const size_t bytes = mib << 20;
  void        *a, *b;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  check(cudaMemset(a, 1, bytes), "cudaMemset");
  check(cudaMemset(b, 0, bytes), "cudaMemset");

  cudaStream_t s;
  cudaEvent_t  t0, t1;
  check(cudaStreamCreate(&s), "cudaStreamCreate");
  check(cudaEventCreate(&t0), "cudaEventCreate");
  check(cudaEventCreate(&t1), "cudaEventCreate");
  for (int i = 0; i < WARMUP; i++) check(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
  check(cudaEventRecord(t0, s), "cudaEventRecord");
  for (int i = 0; i < REPS; i++) {
    /* alternate the direction so neither buffer stays the only source */
    if (i % 2) check(cudaMemcpyAsync(a, b, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
    else check(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
  }
  check(cudaEventRecord(t1, s), "cudaEventRecord");
  check(cudaEventSynchronize(t1), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, t0, t1), "cudaEventElapsedTime");

  printf("device %s\n", prop.name);
  printf("d2d_copy_GBps %.1f\n", 2.0 * (double)bytes * REPS / (ms * 1e-3) * 1e-9);
  printf("buffer_MiB %zu reps %d time_ms %.3f\n", mib, REPS, ms);
  check(cudaFree(a), "cudaFree");
  check(cudaFree(b), "cudaFree");
  return 0;
}
