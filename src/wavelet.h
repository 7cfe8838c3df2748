/* Source wavelets and band-limited resampling between the recording
   interval dt and the solver's internal step dt/m (m a positive integer). */
#pragma once
#include <petscsys.h>

/* Ricker: w(t) = (1 - 2 pi^2 f0^2 (t-t0)^2) exp(-pi^2 f0^2 (t-t0)^2) at t = k*dt. */
PetscErrorCode WaveletRicker(PetscInt nt, PetscReal dt, PetscReal f0, PetscReal t0, float *w);

/* 1D RSF wavelet: d1 must equal dt (relative 1e-6), n1 at most nt; shorter
   files are zero padded to nt.  Errors name the file and the values. */
PetscErrorCode WaveletReadFile(MPI_Comm comm, const char *path, PetscInt nt, PetscReal dt, float *w);

/* Modified Bessel function I0, for Kaiser windows I0(beta sqrt(1 - x^2)) / I0(beta). */
double BesselI0(double x);

/* Interpolation kernel: h(t) = sinc(t) * Kaiser window over |t| < RESAMPLE_HALF_WIDTH
   (t in coarse samples); exactly 1 at t=0 and 0 at other integers. */
#define RESAMPLE_HALF_WIDTH 12

/* Upsampling: out[j] = sum_k in[k] h(j/m - k), j < nout; in[] is zero outside [0, nin). */
PetscErrorCode ResampleUp(PetscInt nin, const float *in, PetscInt m, PetscInt nout, float *out);

/* Anti-aliased decimation: out[k] = (1/m) sum_j in[j] h(j/m - k), k < nout;
   the adjoint of ResampleUp up to the factor 1/m.  in[] is zero outside [0, nin). */
PetscErrorCode ResampleDown(PetscInt nin, const float *in, PetscInt m, PetscInt nout, float *out);

/* The same decimation fed one fine sample at a time, so traces recorded
   during a run are kept at the recording rate only. */
typedef struct {
  PetscInt m, nout;
  float   *taps; /* (m-1) x 2W weights h(.)/m, see Taps() in wavelet.c */
} Decimator;

PetscErrorCode DecimatorCreate(PetscInt m, PetscInt nout, Decimator *d);
PetscErrorCode DecimatorDestroy(Decimator *d);
/* Adds fine sample j of ntr traces, x[k], into out[k * nout + ...] (zeroed
   before the first sample). */
void DecimatorAdd(const Decimator *d, PetscInt j, PetscInt ntr, const float x[], float out[]);

/* The transpose of DecimatorAdd: x[k] = the sum over the recorded samples
   of trace k of in[] of the weight DecimatorAdd gives fine sample j there.
   It turns residual traces into the adjoint source of fine step j. */
void DecimatorGather(const Decimator *d, PetscInt j, PetscInt ntr, const float in[], float x[]);

/* Internal steps needed so that ResampleDown sees every sample it weights:
   nt for m == 1, else (nt - 1 + RESAMPLE_HALF_WIDTH) * m + 1. */
PetscInt ResampleInternalSteps(PetscInt nt, PetscInt m);
