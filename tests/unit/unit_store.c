/* The wavefield store's tiers (src/equations/store.h) on the CPU backend,
   and (unit_store_cuda_host) on the CUDA backend compiled for the host:
   steps written in order and read back in reverse, one at a time (the
   staggered equations) and in pairs n + 1, n (the acoustic adjoint), over
   two evaluations in a row (the store reused), come back bit for bit from
   host memory and from disk, and within the stated bounds when encoded:
   bf16 within 2^-8 of each value, int8 within 1/254 of its block's largest
   magnitude (codec.h), and the same bits as the CPU's codec gives (the
   CUDA backend encodes on the device).  Zeros stay zero, whole blocks of
   them too.  The CUDA backend's steps go through its device buffers and,
   on disk, its page-locked host buffers (the emulation's device memory is
   host memory, which the test writes and reads in place). */
#include "equations/store.h"
#include "equations/codec.h"
#ifdef HALOFWI_CUDA_HOST
  #include "fields_setup.h"
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 1000 /* not a multiple of the 64-value block */
#define NSTEPS 7

/* Step k's values: zeros in the first block and every 9th value, and
   magnitudes spread over 12 decades. */
static float Value(PetscInt step, PetscInt i)
{
  if (i < CODEC_BLOCK || i % 9 == 0) return 0;
  return (float)((i % 2 ? -1 : 1) * pow(10.0, (double)((i * 7 + step * 13) % 24) / 2 - 6) * (1 + 0.1 * step));
}

static PetscBool Within(WavefieldCodec codec, PetscInt step, const float *got, PetscInt *bad)
{
  for (PetscInt i = 0; i < N; i++) {
    const float x = Value(step, i);
    double      bound = 0;
    if (codec == CODEC_BF16) bound = fabs(x) / 256;
    if (codec == CODEC_INT8) {
      const PetscInt b0 = i / CODEC_BLOCK * CODEC_BLOCK;
      for (PetscInt j = b0; j < PetscMin(b0 + CODEC_BLOCK, N); j++) bound = fmax(bound, fabs(Value(step, j)) / 254 * (1 + 1e-6));
    }
    if (fabs((double)got[i] - x) > bound || (x == 0 && got[i] != 0)) {
      *bad = i;
      return PETSC_FALSE;
    }
  }
  return PETSC_TRUE;
}

/* Whether got holds step's values as the CPU's codec gives them back. */
static PetscBool SameAsHost(WavefieldCodec codec, PetscInt step, const float *got)
{
  float x[N], back[N];
  char  packed[N * sizeof(float)];

  for (PetscInt i = 0; i < N; i++) x[i] = Value(step, i);
  CodecEncode(codec, x, N, packed);
  CodecDecode(codec, packed, N, back);
  return memcmp(back, got, sizeof back) ? PETSC_FALSE : PETSC_TRUE;
}

static PetscErrorCode Write(WavefieldStore s)
{
  PetscFunctionBeginUser;
  for (PetscInt n = 0; n < NSTEPS; n++) {
    float *buf;
    PetscCall(WavefieldStoreWriteBegin(s, n, &buf));
    for (PetscInt i = 0; i < N; i++) buf[i] = Value(n, i);
    PetscCall(WavefieldStoreWriteEnd(s, n));
  }
  PetscFunctionReturn(0);
}

/* Reads every step back, in pairs or one at a time; counts the steps that
   are not within the codec's bounds. */
static PetscErrorCode Read(WavefieldStore s, WavefieldCodec codec, PetscBool pairs, PetscInt *failed)
{
  PetscFunctionBeginUser;
  for (PetscInt n = NSTEPS - 1, last; n >= 0; n = last - 1) {
    float *buf[2];
    last = pairs && n > 0 ? n - 1 : n;
    for (PetscInt k = n; k >= last; k--) PetscCall(WavefieldStoreReadBegin(s, k, &buf[n - k]));
    for (PetscInt k = n; k >= last; k--) {
      PetscInt bad = -1;
      if (!Within(codec, k, buf[n - k], &bad)) {
        printf("FAIL %s, %s: step %d value %d is %.9g, expected %.9g\n", WavefieldCodecs[codec], pairs ? "pairs" : "single", (int)k, (int)bad, (double)buf[n - k][bad],
               (double)Value(k, bad));
        (*failed)++;
      } else if (!SameAsHost(codec, k, buf[n - k])) {
        printf("FAIL %s, %s: step %d is not the CPU codec's bits\n", WavefieldCodecs[codec], pairs ? "pairs" : "single", (int)k);
        (*failed)++;
      }
    }
    for (PetscInt k = n; k >= last; k--) PetscCall(WavefieldStoreReadEnd(s, k));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const WavefieldCodec   codecs[3] = {CODEC_NONE, CODEC_BF16, CODEC_INT8};
  const WavefieldStorage wheres[3] = {STORAGE_AUTO, STORAGE_HOST, STORAGE_DISK};
  char                   dir[64];
  const BackendOps      *b         = &BackendOpsCPU;
  void                  *lanes     = NULL;
  PetscInt               failed    = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
#ifdef HALOFWI_CUDA_HOST
  /* the lanes of a small block's fields, which the CUDA kernels create with them */
  Fields f;
  PetscCall(FieldsDescribeBlock(2, 1, (const PetscInt[3]){8, 8, 1}, CORE(0, 8, 0, 8, 0, 1), NULL, &f));
  PetscCall(KernelOpsCUDA.alloc(&f));
  b     = KernelOpsCUDA.backend;
  lanes = f.backend;
#endif
  (void)snprintf(dir, sizeof dir, "unit_store_dir_%d", (int)getpid()); /* the test's variants may run at once */
  (void)mkdir(dir, 0700);
  for (int w = 0; w < 3; w++)
    for (int c = 0; c < 3; c++) {
      const WavefieldTier tier = {wheres[w], codecs[c], dir};
      WavefieldStore      s;
      PetscCall(WavefieldStoreCreate(PETSC_COMM_WORLD, b, lanes, N, NSTEPS, &tier, &(WavefieldLive){0, 0, 0}, "unit_store's steps", &s));
      for (int pairs = 0; pairs < 2; pairs++) {
        PetscCall(Write(s));
        PetscCall(Read(s, codecs[c], (PetscBool)pairs, &failed));
      }
      PetscCall(WavefieldStoreDestroy(&s));
      printf("%s, %s, %s: written and read back twice\n", b->name, WavefieldStorages[wheres[w]], WavefieldCodecs[codecs[c]]);
    }
#ifdef HALOFWI_CUDA_HOST
  PetscCall(KernelOpsCUDA.free(&f));
#endif
  if (rmdir(dir)) {
    printf("FAIL the disk tier left files in %s\n", dir);
    failed++;
  }
  printf("%s\n", failed ? "unit_store: FAILED" : "unit_store: all passed");
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
