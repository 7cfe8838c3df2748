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
      CodecEncodeBlock(x + i, n - i < CODEC_BLOCK ? n - i : CODEC_BLOCK, scale + b, q + i);
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
