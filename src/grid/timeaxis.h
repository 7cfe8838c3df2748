/* The time axis: the recording interval dt, the solver's internal step
   dt/m (m a positive integer) chosen from the stability limit, and the
   band-limited resampling between the two. */
#pragma once
#include "grid/grid.h"

/* Recording axis and the solver's internal steps. */
typedef struct {
  PetscInt  nt;        /* recorded samples */
  PetscReal dt;        /* recording interval */
  PetscReal dt_stable; /* stability limit of the scheme for this model */
  PetscInt  m;         /* internal steps per recorded sample */
  PetscReal dt_int;    /* dt / m */
  PetscInt  nsteps;    /* internal steps simulated */
} TimeAxis;

PetscErrorCode TimeAxisSetUp(const Grid *g, PetscReal dt_stable, PetscInt nt, PetscReal dt, PetscReal cfl, TimeAxis *t);

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

/* The two above over every fine sample j < nsteps at once, the traces
   (DecimatorAddAll, which zeroes out[] first) or the samples
   (DecimatorGatherAll) spread over the threads: x[] holds sample j of the
   ntr traces at x[j * ntr], and each output is summed in the same order as
   one call per sample sums it, so the result is the same to the bit. */
void DecimatorAddAll(const Decimator *d, PetscInt nsteps, PetscInt ntr, const float x[], float out[]);
void DecimatorGatherAll(const Decimator *d, PetscInt nsteps, PetscInt ntr, const float in[], float x[]);

/* Internal steps needed so that ResampleDown sees every sample it weights:
   nt for m == 1, else (nt - 1 + RESAMPLE_HALF_WIDTH) * m + 1. */
PetscInt ResampleInternalSteps(PetscInt nt, PetscInt m);
