/* Source wavelets: see wavelet.h. */
#include "data/wavelet.h"
#include "data/input.h"
#include "data/rsf.h"
#include <math.h>

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

PetscReal WaveletPeak(PetscInt nt, const float *w)
{
  PetscReal peak = 0;

  for (PetscInt k = 0; k < nt; k++) peak = PetscMax(peak, PetscAbsReal(w[k]));
  return peak;
}

PetscErrorCode WaveletRickerCheck(MPI_Comm comm, PetscInt nt, PetscReal dt, PetscReal f0, PetscReal t0, const float *w)
{
  const PetscReal peak = WaveletPeak(nt, w);
  char            what[256];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(what, sizeof what, "the Ricker wavelet (-f0 %.6g Hz, peak at -t0 %.6g s) %s within the record (-nt %" PetscInt_FMT " samples at -dt %.6g s: 0 to %.6g s)",
                          (double)f0, (double)t0, peak > 0 ? "hardly fires" : "is zero at every sample", nt, (double)dt, (double)((nt - 1) * dt)));
  PetscCheck(peak > 0, comm, PETSC_ERR_USER_INPUT, "%s: nothing would be modelled; expected its peak within the record (a smaller -t0, a larger -nt or -dt)", what);
  if (peak < WAVELET_MIN_PEAK)
    PetscCall(PetscPrintf(comm, "WARNING: %s: it reaches at most %.3g of its peak there, so the data are (almost) zero; place its peak within the record (a smaller -t0, a larger -nt or -dt)\n", what, (double)peak));
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
  PetscCall(InputCheckFinite("wavelet", path, h.n[0], 0, 1, 0, dt, w));
  PetscCheck(WaveletPeak(h.n[0], w) > 0, comm, PETSC_ERR_USER_INPUT, "wavelet %s: all its %d samples are zero: expected a source that fires", path, (int)h.n[0]);
  for (PetscInt k = h.n[0]; k < nt; k++) w[k] = 0;
  PetscFunctionReturn(0);
}
