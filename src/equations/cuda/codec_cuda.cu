/* -wavefield_compression's encodings on the device (cuda.h): the CPU's
   (codec.c), value for value through codec_values.h, so that a step
   encoded here is the same bytes. */
#include "equations/cuda/cuda.h"
#include "equations/codec.h"
#include "equations/codec_values.h"

#define CODEC_THREADS 256

/* CODEC_THREADS a thread block, a thread an item of n. */
static dim3 ThreadBlocks(size_t n) { return dim3((unsigned)((n + CODEC_THREADS - 1) / CODEC_THREADS)); }

__global__ void ToBF16Kernel(const float *x, size_t n, uint16_t *h)
{
  const size_t i = (size_t)blockIdx.x * CODEC_THREADS + threadIdx.x;
  if (i < n) h[i] = CodecToBF16(x[i]);
}

__global__ void FromBF16Kernel(const uint16_t *h, size_t n, float *x)
{
  const size_t i = (size_t)blockIdx.x * CODEC_THREADS + threadIdx.x;
  if (i < n) x[i] = CodecFromBF16(h[i]);
}

/* A thread a block of values, as the CPU takes it (no barrier, so the
   host emulation runs it as plain calls). */
__global__ void ToInt8Kernel(const float *x, size_t n, float *scale, int8_t *q)
{
  const size_t b = (size_t)blockIdx.x * CODEC_THREADS + threadIdx.x, i0 = b * CODEC_BLOCK;

  if (i0 < n) CodecEncodeBlock(x + i0, n - i0 < CODEC_BLOCK ? n - i0 : CODEC_BLOCK, scale + b, q + i0);
}

__global__ void FromInt8Kernel(const float *scale, const int8_t *q, size_t n, float *x)
{
  const size_t i = (size_t)blockIdx.x * CODEC_THREADS + threadIdx.x;
  if (i >= n) return;
  const float s = scale[i / CODEC_BLOCK];
  x[i]          = isfinite(s) ? CodecDequantize(q[i], s) : s;
}

PetscErrorCode CudaCodecEncode(const CudaLanes *l, WavefieldCodec codec, const float *x, size_t n, void *packed)
{
  const size_t nb = (n + CODEC_BLOCK - 1) / CODEC_BLOCK;

  PetscFunctionBeginUser;
  if (!n) PetscFunctionReturn(0);
  if (codec == CODEC_BF16) CudaLaunch(ToBF16Kernel, ThreadBlocks(n), dim3(CODEC_THREADS), CudaLanesStream(l), x, n, (uint16_t *)packed);
  else CudaLaunch(ToInt8Kernel, ThreadBlocks(nb), dim3(CODEC_THREADS), CudaLanesStream(l), x, n, (float *)packed, (int8_t *)((float *)packed + nb));
  CUDA_LAUNCHED();
  PetscFunctionReturn(0);
}

PetscErrorCode CudaCodecDecode(const CudaLanes *l, WavefieldCodec codec, const void *packed, size_t n, float *x)
{
  const size_t nb = (n + CODEC_BLOCK - 1) / CODEC_BLOCK;

  PetscFunctionBeginUser;
  if (!n) PetscFunctionReturn(0);
  if (codec == CODEC_BF16) CudaLaunch(FromBF16Kernel, ThreadBlocks(n), dim3(CODEC_THREADS), CudaLanesStream(l), (const uint16_t *)packed, n, x);
  else CudaLaunch(FromInt8Kernel, ThreadBlocks(n), dim3(CODEC_THREADS), CudaLanesStream(l), (const float *)packed, (const int8_t *)((const float *)packed + nb), n, x);
  CUDA_LAUNCHED();
  PetscFunctionReturn(0);
}
