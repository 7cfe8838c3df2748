/* Compression of what the gradient stores (-wavefield_compression): a
   step's n floats into CodecBytes(codec, n) bytes and back.

   bf16: each float rounded to the nearest bfloat16 (8 bits of mantissa,
   ties to even): a relative error of at most 2^-8 per value.
   int8: blocks of CODEC_BLOCK floats, each with its own scale (the block's
   largest magnitude / 127), every value rounded to the nearest multiple of
   the scale: an error of at most half a scale, 1/254 of the block's
   largest magnitude.  The scales lie first, then the bytes.
   Both keep zeros zero and leave NaN and infinity as the gradient would
   see them (bf16) or spread over their block (int8: a block holding one
   decodes as that NaN or infinity throughout, so that a blown-up run still shows).  Encoding and
   decoding share a step's values over the OpenMP threads. */
#pragma once
#include <stddef.h>
#include "options/options.h"

#define CODEC_BLOCK 64

size_t CodecBytes(WavefieldCodec codec, size_t n);
void   CodecEncode(WavefieldCodec codec, const float *x, size_t n, void *packed);
void   CodecDecode(WavefieldCodec codec, const void *packed, size_t n, float *x);
