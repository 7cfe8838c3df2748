/* Trace filtering: see filter.h. */
#include "data/filter.h"
#include "data/kaiser.h"
#include <math.h>

/* Kaiser's design formulas for a stop-band attenuation of ATTEN_DB (the
   pass-band ripple is about the same, 1e-3). */
#define ATTEN_DB 60.0

PetscErrorCode LowPassZeroPhase(PetscReal fcut, PetscReal dt, PetscInt nt, PetscInt ntr, float *data)
{
  const double beta = 0.1102 * (ATTEN_DB - 8.7), fc = fcut * dt; /* cutoff in cycles per sample */
  double       order, i0beta = BesselI0(beta), *h, *x;
  PetscInt     m;

  PetscFunctionBeginUser;
  PetscCheck(dt > 0 && nt >= 0 && ntr >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "low-pass dt=%.6g nt=%d ntr=%d, expected dt > 0 and sizes >= 0",
             (double)dt, (int)nt, (int)ntr);
  PetscCheck(fcut > 0 && fcut < 0.5 / dt, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "low-pass cutoff fcut=%.6g Hz, expected 0 < fcut < %.6g Hz (the Nyquist frequency 1/(2 dt) at dt=%.6g s)", (double)fcut, 0.5 / (double)dt,
             (double)dt);
  /* transition width 0.5 fcut is pi fc radians per sample */
  order = ceil((ATTEN_DB - 7.95) / (2.285 * PETSC_PI * fc));
  PetscCheck(order < PETSC_MAX_INT / 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "low-pass cutoff fcut=%.6g Hz at dt=%.6g s needs %.6g taps, too many",
             (double)fcut, (double)dt, order + 1);
  m = (PetscInt)ceil(order / 2);
  PetscCall(PetscMalloc2(m + 1, &h, nt + 2 * m, &x));
  /* h[j] = h[-j]: the ideal low-pass 2 fc sinc(2 fc j) under a Kaiser window
     of half-length m.  Not rescaled to unit gain at 0 Hz: that would shift the
     whole pass band by the ripple there and double the worst error. */
  h[0] = 2 * fc;
  for (PetscInt j = 1; j <= m; j++) {
    double r = (double)j / m;

    h[j] = sin(2 * PETSC_PI * fc * j) / (PETSC_PI * j) * BesselI0(beta * sqrt(1 - r * r)) / i0beta;
  }
  PetscCall(PetscArrayzero(x, nt + 2 * m));
  for (PetscInt k = 0; k < ntr; k++) {
    float *tr = data + (size_t)k * nt;

    for (PetscInt i = 0; i < nt; i++) x[m + i] = tr[i];
    /* Each pair x[i-j] + x[i+j] is summed before weighting, so reversing the
       trace reverses the output exactly. */
    for (PetscInt i = 0; i < nt; i++) {
      const double *c   = x + m + i;
      double        acc = h[0] * c[0];

      for (PetscInt j = 1; j <= m; j++) acc += h[j] * (c[-j] + c[j]);
      tr[i] = (float)acc;
    }
  }
  PetscCall(PetscFree2(h, x));
  PetscFunctionReturn(0);
}
