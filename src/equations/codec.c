/* -wavefield_compression's encodings (codec.h). */
#include "equations/codec.h"
#include "equations/codec_values.h"
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

/* The largest magnitude of a block (codec_values.h: as bits). */
static uint32_t LargestBits(const float *x, size_t n)
{
  uint32_t big = 0;

  for (size_t i = 0; i < n; i++) {
    const uint32_t u = CodecMagnitude(x[i]);
    big              = u > big ? u : big;
  }
  return big;
}

static void EncodeBlock(const float *x, size_t n, float *scale, int8_t *q)
{
  const float big = CodecFloat(LargestBits(x, n));

  *scale = CodecScale(big);
  if (!CodecKeeps(big)) {
    memset(q, 0, n);
    return;
  }
  for (size_t i = 0; i < n; i++) q[i] = CodecQuantize(x[i], big);
}

void CodecEncode(WavefieldCodec codec, const float *x, size_t n, void *packed)
{
  if (codec == CODEC_BF16) {
    uint16_t *h = packed;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) h[i] = CodecToBF16(x[i]);
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
    for (size_t i = 0; i < n; i++) x[i] = CodecFromBF16(h[i]);
  } else if (codec == CODEC_INT8) {
    const size_t  nb    = (n + CODEC_BLOCK - 1) / CODEC_BLOCK;
    const float  *scale = packed;
    const int8_t *q     = (const int8_t *)(scale + nb);
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < nb; b++) {
      const size_t i = b * CODEC_BLOCK, m = n - i < CODEC_BLOCK ? n - i : CODEC_BLOCK;
      const float  s = scale[b];
      if (isfinite(s))
        for (size_t j = 0; j < m; j++) x[i + j] = CodecDequantize(q[i + j], s);
      else
        for (size_t j = 0; j < m; j++) x[i + j] = s;
    }
  } else memcpy(x, packed, n * sizeof(float));
}
