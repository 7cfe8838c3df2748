/* -wavefield_compression's encodings (codec.h). */
#include "equations/codec.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

size_t CodecBytes(WavefieldCodec codec, size_t n)
{
  switch (codec) {
  case CODEC_BF16:
    return 2 * n;
  case CODEC_INT8:
    return (n + CODEC_BLOCK - 1) / CODEC_BLOCK * sizeof(float) + n;
  default:
    return n * sizeof(float);
  }
}

/* Nearest bfloat16, ties to even; a NaN stays a (quiet) NaN. */
static inline uint16_t ToBF16(float x)
{
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

static inline float FromBF16(uint16_t h)
{
  const uint32_t u = (uint32_t)h << 16;
  float          x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* The largest magnitude of a block as bits: for floats that are not NaN
   the order of |x|'s bits is the order of |x|, and an integer maximum
   vectorises; above 0x7f800000 (infinity) lie the NaNs. */
static uint32_t LargestBits(const float *x, size_t n)
{
  uint32_t big = 0;

  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &x[i], sizeof u);
    u &= 0x7fffffffu;
    big = u > big ? u : big;
  }
  return big;
}

static void EncodeBlock(const float *x, size_t n, float *scale, int8_t *q)
{
  const uint32_t bits = LargestBits(x, n);
  float          big;

  memcpy(&big, &bits, sizeof big);
  *scale = big / 127; /* NaN or infinity: the block decodes as that */
  if (!(big > 0) || !isfinite(big)) {
    memset(q, 0, n);
    return;
  }
  const float to = 127 / big;
  for (size_t i = 0; i < n; i++) q[i] = (int8_t)(int32_t)rintf(x[i] * to); /* |x to| <= 127 */
}

void CodecEncode(WavefieldCodec codec, const float *x, size_t n, void *packed)
{
  if (codec == CODEC_BF16) {
    uint16_t *h = packed;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) h[i] = ToBF16(x[i]);
  } else if (codec == CODEC_INT8) {
    const size_t nb    = (n + CODEC_BLOCK - 1) / CODEC_BLOCK;
    float       *scale = packed;
    int8_t      *q     = (int8_t *)(scale + nb);
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < nb; b++) {
      const size_t i = b * CODEC_BLOCK;
      EncodeBlock(x + i, n - i < CODEC_BLOCK ? n - i : CODEC_BLOCK, scale + b, q + i);
    }
  } else memcpy(packed, x, n * sizeof(float));
}

void CodecDecode(WavefieldCodec codec, const void *packed, size_t n, float *x)
{
  if (codec == CODEC_BF16) {
    const uint16_t *h = packed;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) x[i] = FromBF16(h[i]);
  } else if (codec == CODEC_INT8) {
    const size_t  nb    = (n + CODEC_BLOCK - 1) / CODEC_BLOCK;
    const float  *scale = packed;
    const int8_t *q     = (const int8_t *)(scale + nb);
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < nb; b++) {
      const size_t i = b * CODEC_BLOCK, m = n - i < CODEC_BLOCK ? n - i : CODEC_BLOCK;
      const float  s = scale[b];
      if (isfinite(s))
        for (size_t j = 0; j < m; j++) x[i + j] = (float)q[i + j] * s;
      else
        for (size_t j = 0; j < m; j++) x[i + j] = s;
    }
  } else memcpy(x, packed, n * sizeof(float));
}
