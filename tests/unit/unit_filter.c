/* Zero-phase low-pass: pass band, stop band, spike response, zero phase,
   linearity and time invariance, bad cutoffs. */
#include "data/filter.h"
#include "unit_check.h"
#include "data/wavelet.h"
#include <math.h>

#define NT 1001
/* At fcut dt = 0.04 the filter reaches 91 samples either way: samples
   further than EDGE from the ends see no zero extension. */
#define EDGE 100

static const PetscReal dt = 0.002, fcut = 20; /* Nyquist 250 Hz */

/* A sinusoid at ratio * fcut must come out scaled by gain, sample by sample
   (so also without a shift), within tol of its unit amplitude. */
static PetscErrorCode TestSinusoid(PetscReal ratio, PetscReal gain, PetscReal tol)
{
  float  x[NT];
  double w = 2 * PETSC_PI * ratio * fcut * dt, err = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < NT; i++) x[i] = (float)sin(w * i + 0.4);
  PetscCall(LowPassZeroPhase(fcut, dt, NT, 1, x));
  for (PetscInt i = EDGE; i < NT - EDGE; i++) err = PetscMax(err, PetscAbsReal(x[i] - gain * sin(w * i + 0.4)));
  PetscCheck(err < tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sinusoid at %g fcut: largest difference from %g times the input %.3g, expected below %g",
             (double)ratio, (double)gain, err, (double)tol);
  PetscFunctionReturn(0);
}

/* Spikes at either end and in the middle (three traces in one call): the
   response is symmetric about the spike, and the ends cut it off unchanged,
   as zero extension does; its sum is the gain at 0 Hz. */
static PetscErrorCode TestSpikes(void)
{
  const PetscInt c = NT / 2;
  float          x[3 * NT], *first = x, *mid = x + NT, *last = x + 2 * NT;
  double         sum = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(x, 3 * NT));
  first[0] = mid[c] = last[NT - 1] = 1;
  PetscCall(LowPassZeroPhase(fcut, dt, NT, 3, x));
  for (PetscInt i = 0; i <= c; i++) {
    PetscCheck(mid[c + i] == mid[c - i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "spike response %.9g at lag %d but %.9g at lag -%d", (double)mid[c + i], (int)i,
               (double)mid[c - i], (int)i);
    PetscCheck(first[i] == mid[c + i] && last[NT - 1 - i] == mid[c - i], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "spike response at lag %d is %.9g, but %.9g for a spike at the start and %.9g at the end", (int)i, (double)mid[c + i], (double)first[i],
               (double)last[NT - 1 - i]);
    sum += (i ? 2.0 : 1.0) * mid[c + i];
  }
  PetscCheck(PetscAbsReal(sum - 1) < 1e-3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gain at 0 Hz %.9g, expected 1 within 1e-3", sum);
  PetscFunctionReturn(0);
}

/* Filtering commutes with time reversal bit for bit; the Ricker lies near the
   start so that the zero extension takes part. */
static PetscErrorCode TestZeroPhase(void)
{
  float a[NT], b[NT];

  PetscFunctionBeginUser;
  PetscCall(WaveletRicker(NT, dt, 15, 0.1, a));
  for (PetscInt i = 0; i < NT; i++) b[i] = a[NT - 1 - i];
  PetscCall(LowPassZeroPhase(fcut, dt, NT, 1, a));
  PetscCall(LowPassZeroPhase(fcut, dt, NT, 1, b));
  for (PetscInt i = 0; i < NT; i++)
    PetscCheck(a[i] == b[NT - 1 - i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "sample %d of the filtered Ricker is %.9g but %.9g when filtered reversed",
               (int)i, (double)a[i], (double)b[NT - 1 - i]);
  PetscFunctionReturn(0);
}

/* Largest |got - want| over the trace, relative to the largest |want|. */
static PetscErrorCode CheckClose(const char *what, const float *got, const float *want, PetscReal tol)
{
  double err = 0, norm = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < NT; i++) {
    err  = PetscMax(err, PetscAbsReal((double)got[i] - want[i]));
    norm = PetscMax(norm, PetscAbsReal(want[i]));
  }
  PetscCheck(err <= tol * norm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: largest difference %.3g of %.3g, expected at most %g of it", what, err, norm,
             (double)tol);
  PetscFunctionReturn(0);
}

/* Linearity, traces filtered together as alone, and time invariance: data
   made of delayed, scaled copies of a wavelet, filtered, equal the same copies
   of the filtered wavelet. */
static PetscErrorCode TestLinear(void)
{
  const PetscInt delay[3] = {0, 180, 450};
  const float    gain[3]  = {1, -0.5f, 0.3f};
  float          two[2 * NT], *w = two, *y = two + NT, alone[NT], mix[NT], data[NT], want[NT];

  PetscFunctionBeginUser;
  PetscCall(WaveletRicker(NT, dt, 12, 0.32, w)); /* peak at sample 160: nothing is cut off at the start after filtering */
  for (PetscInt i = 0; i < NT; i++) {
    y[i]     = (float)sin(0.37 * i * i + 1);
    alone[i] = y[i];
    mix[i]   = 2.5f * w[i] - 0.75f * y[i];
  }
  PetscCall(PetscArrayzero(data, NT));
  for (int s = 0; s < 3; s++)
    for (PetscInt i = delay[s]; i < NT; i++) data[i] += gain[s] * w[i - delay[s]];

  PetscCall(LowPassZeroPhase(fcut, dt, NT, 2, two));
  PetscCall(LowPassZeroPhase(fcut, dt, NT, 1, alone));
  PetscCall(LowPassZeroPhase(fcut, dt, NT, 1, mix));
  PetscCall(LowPassZeroPhase(fcut, dt, NT, 1, data));
  PetscCheck(!memcmp(alone, y, sizeof alone), PETSC_COMM_SELF, PETSC_ERR_PLIB, "trace 1 of 2 filtered differently from the same trace alone");
  for (PetscInt i = 0; i < NT; i++) want[i] = 2.5f * w[i] - 0.75f * y[i];
  PetscCall(CheckClose("filtered 2.5 w - 0.75 y against 2.5 (filtered w) - 0.75 (filtered y)", mix, want, 1e-6));
  PetscCall(PetscArrayzero(want, NT));
  for (int s = 0; s < 3; s++)
    for (PetscInt i = delay[s]; i < NT; i++) want[i] += gain[s] * w[i - delay[s]];
  PetscCall(CheckClose("filtered data against data from the filtered wavelet", data, want, 1e-6));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestErrors(void)
{
  float x[4] = {0};

  PetscFunctionBeginUser;
  EXPECT_ERROR(LowPassZeroPhase(0, dt, 4, 1, x), "fcut=0 Hz, expected 0 < fcut < 250 Hz (the Nyquist frequency");
  EXPECT_ERROR(LowPassZeroPhase(-5, dt, 4, 1, x), "fcut=-5 Hz");
  EXPECT_ERROR(LowPassZeroPhase(250, dt, 4, 1, x), "fcut=250 Hz, expected 0 < fcut < 250 Hz");
  EXPECT_ERROR(LowPassZeroPhase(400, dt, 4, 1, x), "fcut=400 Hz, expected 0 < fcut < 250 Hz");
  EXPECT_ERROR(LowPassZeroPhase(NAN, dt, 4, 1, x), "fcut=nan Hz");
  EXPECT_ERROR(LowPassZeroPhase(fcut, 0, 4, 1, x), "dt=0");
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  /* pass band up to 0.75 fcut, stop band from 1.25 fcut, ripple about 1e-3 at their edges */
  PetscCall(TestSinusoid(0.1, 1, 1e-3));
  PetscCall(TestSinusoid(0.3, 1, 1e-3));
  PetscCall(TestSinusoid(0.5, 1, 1e-3));
  PetscCall(TestSinusoid(1.0, 0.5, 1e-3)); /* -6 dB at fcut */
  PetscCall(TestSinusoid(1.5, 0, 1e-3));
  PetscCall(TestSinusoid(2.5, 0, 1e-3));
  PetscCall(TestSpikes());
  PetscCall(TestZeroPhase());
  PetscCall(TestLinear());
  PetscCall(TestErrors());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_filter: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
