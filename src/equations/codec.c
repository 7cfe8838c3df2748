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

static void EncodeBlock(const float *x, size_t n, float *scale, int8_t *q)
{
  float big = 0;

  for (size_t i = 0; i < n; i++) big = fmaxf(big, fabsf(x[i]));
  for (size_t i = 0; i < n && big == big; i++)
    if (x[i] != x[i]) big = x[i]; /* fmaxf passes NaN by: keep it */
  *scale = big / 127;
  for (size_t i = 0; i < n; i++) q[i] = big > 0 && isfinite(big) ? (int8_t)lrintf(x[i] * (127 / big)) : 0;
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
      for (size_t j = 0; j < m; j++) x[i + j] = isfinite(s) ? (float)q[i + j] * s : s;
    }
  } else memcpy(x, packed, n * sizeof(float));
}
