/* One value's encoding and decoding (codec.h), shared by the CPU's codec
   (codec.c) and the CUDA kernels (cuda/codec_cuda.cu), so that a step
   encoded on either gives the same bytes. */
#pragma once
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
  #define CODEC_INLINE static inline __host__ __device__
#else
  #define CODEC_INLINE static inline
#endif

CODEC_INLINE uint32_t CodecBits(float x)
{
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

CODEC_INLINE float CodecFloat(uint32_t u)
{
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* Nearest bfloat16, ties to even; a NaN stays a (quiet) NaN. */
CODEC_INLINE uint16_t CodecToBF16(float x)
{
  const uint32_t u = CodecBits(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

CODEC_INLINE float CodecFromBF16(uint16_t h) { return CodecFloat((uint32_t)h << 16); }

/* |x| as bits: for floats that are not NaN their order is the order of
   |x|, so a block's largest magnitude is an integer maximum (which
   vectorises, and reduces in any order); above 0x7f800000 (infinity) lie
   the NaNs. */
CODEC_INLINE uint32_t CodecMagnitude(float x) { return CodecBits(x) & 0x7fffffffu; }

/* A block's scale from its largest magnitude: NaN or infinity decodes as that. */
CODEC_INLINE float CodecScale(float big) { return big / 127; }

/* Whether a block of largest magnitude big keeps its values (else all 0:
   zeros, or a scale that decodes as itself). */
CODEC_INLINE int CodecKeeps(float big) { return big > 0 && big <= 3.40282347e38f; }

/* Value x of a block of largest magnitude big (CodecKeeps), as a multiple
   of its scale: |x 127 / big| <= 127. */
CODEC_INLINE int8_t CodecQuantize(float x, float big) { return (int8_t)(int32_t)rintf(x * (127 / big)); }

CODEC_INLINE float CodecDequantize(int8_t q, float scale) { return (float)q * scale; }

/* A block of n values (n <= CODEC_BLOCK) into its scale and bytes. */
CODEC_INLINE void CodecEncodeBlock(const float *x, size_t n, float *scale, int8_t *q)
{
  uint32_t bits = 0;

  for (size_t i = 0; i < n; i++) {
    const uint32_t u = CodecMagnitude(x[i]);
    bits             = u > bits ? u : bits;
  }
  const float big = CodecFloat(bits);
  *scale          = CodecScale(big);
  if (!CodecKeeps(big))
    for (size_t i = 0; i < n; i++) q[i] = 0;
  else
    for (size_t i = 0; i < n; i++) q[i] = CodecQuantize(x[i], big);
}
