/* Source wavelets and band-limited resampling: see wavelet.h. */
#include "wavelet.h"
#include "rsf.h"
#include <math.h>

#define W RESAMPLE_HALF_WIDTH
/* Kaiser shape: larger beta lowers the ripple but widens the transition band.
   With 8 a Ricker resampled by 4 is within 3e-5 (relative L2) of the exact
   one when the coarse Nyquist is 4 f0, and within 1e-4 down to 3.5 f0. */
#define KAISER_BETA 8.0

PetscErrorCode WaveletRicker(PetscInt nt, PetscReal dt, PetscReal f0, PetscReal t0, float *w)
{
  PetscFunctionBeginUser;
  PetscCheck(nt >= 0 && dt > 0 && f0 > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Ricker nt=%d dt=%.6g f0=%.6g, expected nt >= 0, dt > 0, f0 > 0", (int)nt,
             (double)dt, (double)f0);
  for (PetscInt k = 0; k < nt; k++) {
    double a = PETSC_PI * f0 * (k * dt - t0);

    w[k] = (float)((1 - 2 * a * a) * exp(-a * a));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode WaveletReadFile(MPI_Comm comm, const char *path, PetscInt nt, PetscReal dt, float *w)
{
  RsfHeader h;
  PetscInt  start[RSF_MAXAXES] = {0, 0, 0}, count[RSF_MAXAXES] = {0, 1, 1};

  PetscFunctionBeginUser;
  PetscCall(RsfReadHeader(comm, path, &h));
  PetscCheck(h.naxes == 1, comm, PETSC_ERR_USER_INPUT, "wavelet %s has %d axes (n2=%d n3=%d), expected a 1D trace", path, (int)h.naxes, (int)h.n[1],
             (int)h.n[2]);
  PetscCheck(h.n[0] <= nt, comm, PETSC_ERR_USER_INPUT, "wavelet %s has n1=%d samples, more than nt=%d", path, (int)h.n[0], (int)nt);
  PetscCheck(PetscAbsReal(h.d[0] - dt) <= 1e-6 * dt, comm, PETSC_ERR_USER_INPUT, "wavelet %s has d1=%.6g s, expected dt=%.6g s", path, (double)h.d[0],
             (double)dt);
  count[0] = h.n[0];
  PetscCall(RsfReadBlock(comm, &h, start, count, w));
  for (PetscInt k = h.n[0]; k < nt; k++) w[k] = 0;
  PetscFunctionReturn(0);
}

double BesselI0(double x)
{
  double sum = 1, term = 1, q = x * x / 4;

  for (int k = 1; term > 1e-17 * sum; k++) {
    term *= q / ((double)k * k);
    sum += term;
  }
  return sum;
}

/* taps[(r-1)*2W + i] = scale * h(W-1-i + r/m) for r = 1..m-1: the weight
   between fine sample q*m+r and coarse sample q-W+1+i.  Fine samples with
   r = 0 sit on coarse ones, where h is exactly 1 or 0, so they need no taps
   (and m = 1 is an exact copy). */
static PetscErrorCode Taps(PetscInt m, double scale, double **taps)
{
  double i0beta = BesselI0(KAISER_BETA);

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1((m - 1) * 2 * W, taps));
  for (PetscInt r = 1; r < m; r++)
    for (int i = 0; i < 2 * W; i++) {
      double t = (W - 1 - i) + (double)r / m, x = t / W;

      (*taps)[(r - 1) * 2 * W + i] = scale * sin(PETSC_PI * t) / (PETSC_PI * t) * BesselI0(KAISER_BETA * sqrt(1 - x * x)) / i0beta;
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckArgs(PetscInt nin, PetscInt m, PetscInt nout)
{
  PetscFunctionBeginUser;
  PetscCheck(nin >= 0 && nout >= 0 && m >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "resampling nin=%d m=%d nout=%d, expected m >= 1 and sizes >= 0",
             (int)nin, (int)m, (int)nout);
  PetscFunctionReturn(0);
}

PetscErrorCode ResampleUp(PetscInt nin, const float *in, PetscInt m, PetscInt nout, float *out)
{
  double *taps;

  PetscFunctionBeginUser;
  PetscCall(CheckArgs(nin, m, nout));
  PetscCall(Taps(m, 1.0, &taps));
  for (PetscInt j = 0; j < nout; j++) {
    PetscInt q = j / m, r = j % m;

    if (!r) out[j] = q < nin ? in[q] : 0;
    else {
      const double *h   = taps + (r - 1) * 2 * W;
      double        acc = 0;

      /* coarse k = q-W+1+i must lie in [0, nin) */
      for (PetscInt i = PetscMax(0, W - 1 - q); i < PetscMin(2 * W, nin - q + W - 1); i++) acc += h[i] * in[q - W + 1 + i];
      out[j] = (float)acc;
    }
  }
  PetscCall(PetscFree(taps));
  PetscFunctionReturn(0);
}

PetscErrorCode DecimatorCreate(PetscInt m, PetscInt nout, Decimator *d)
{
  double *taps;

  PetscFunctionBeginUser;
  PetscCall(CheckArgs(0, m, nout));
  d->m    = m;
  d->nout = nout;
  PetscCall(Taps(m, 1.0 / m, &taps));
  PetscCall(PetscMalloc1((m - 1) * 2 * W, &d->taps));
  for (PetscInt i = 0; i < (m - 1) * 2 * W; i++) d->taps[i] = (float)taps[i];
  PetscCall(PetscFree(taps));
  PetscFunctionReturn(0);
}

PetscErrorCode DecimatorDestroy(Decimator *d)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(d->taps));
  PetscFunctionReturn(0);
}

void DecimatorAdd(const Decimator *d, PetscInt j, PetscInt ntr, const float x[], float out[])
{
  const PetscInt q = j / d->m, r = j % d->m, n = d->nout;

  if (!r) {
    /* on a coarse sample: weight h(0)/m = 1/m (exactly 1 for m = 1) */
    const float w = 1.0f / (float)d->m;
    if (q < n)
      for (PetscInt k = 0; k < ntr; k++) out[k * n + q] += w * x[k];
    return;
  }
  {
    const float   *h  = d->taps + (r - 1) * 2 * W;
    const PetscInt i0 = PetscMax(0, W - 1 - q), i1 = PetscMin(2 * W, n - q + W - 1); /* coarse q-W+1+i in [0, n) */
    for (PetscInt k = 0; k < ntr; k++)
      for (PetscInt i = i0; i < i1; i++) out[k * n + q - W + 1 + i] += h[i] * x[k];
  }
}

void DecimatorGather(const Decimator *d, PetscInt j, PetscInt ntr, const float in[], float x[])
{
  const PetscInt q = j / d->m, r = j % d->m, n = d->nout;

  if (!r) {
    const float w = 1.0f / (float)d->m;
    for (PetscInt k = 0; k < ntr; k++) x[k] = q < n ? w * in[k * n + q] : 0.0f;
    return;
  }
  {
    const float   *h  = d->taps + (r - 1) * 2 * W;
    const PetscInt i0 = PetscMax(0, W - 1 - q), i1 = PetscMin(2 * W, n - q + W - 1);
    for (PetscInt k = 0; k < ntr; k++) {
      float acc = 0.0f;
      for (PetscInt i = i0; i < i1; i++) acc += h[i] * in[k * n + q - W + 1 + i];
      x[k] = acc;
    }
  }
}

PetscErrorCode ResampleDown(PetscInt nin, const float *in, PetscInt m, PetscInt nout, float *out)
{
  Decimator d;

  PetscFunctionBeginUser;
  PetscCall(CheckArgs(nin, m, nout));
  PetscCall(DecimatorCreate(m, nout, &d));
  PetscCall(PetscArrayzero(out, nout));
  for (PetscInt j = 0; j < nin; j++) DecimatorAdd(&d, j, 1, in + j, out);
  PetscCall(DecimatorDestroy(&d));
  PetscFunctionReturn(0);
}

PetscInt ResampleInternalSteps(PetscInt nt, PetscInt m)
{
  return m == 1 ? nt : (nt - 1 + W) * m + 1;
}
