/* Wavelets and resampling: Ricker peak, m = 1 identity, adjointness,
   accuracy against the analytic Ricker, the decimator over all samples at
   once against one sample at a time, wavelet files. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include "data/rsf.h"
#include "unit_check.h"
#include "grid/timeaxis.h"
#include "data/wavelet.h"
#include <unistd.h>

static PetscErrorCode TestRicker(void)
{
  float w[101];

  PetscFunctionBeginUser;
  PetscCall(WaveletRicker(101, 0.002, 10, 0.1, w));
  PetscCheck(w[50] == 1.0f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Ricker at t0 is %.9g, expected 1", (double)w[50]);
  for (int k = 0; k < 101; k++)
    PetscCheck(w[k] <= w[50] && PetscAbsReal(w[k] - w[100 - k]) < 1e-6, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Ricker sample %d = %g is not symmetric about t0",
               k, (double)w[k]);
  /* side lobes at t0 +- sqrt(3/2)/(pi f0) = t0 +- 19.5 samples, of -2 exp(-3/2) */
  PetscCheck(PetscAbsReal(w[70] + 2 * exp(-1.5)) < 5e-3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Ricker side lobe w[70]=%g, expected about %g", (double)w[70],
             -2 * exp(-1.5));
  PetscFunctionReturn(0);
}

/* m = 1 is a plain copy, bit for bit; missing input samples are zero. */
static PetscErrorCode TestIdentity(void)
{
  float in[40], out[45];

  PetscFunctionBeginUser;
  for (int k = 0; k < 40; k++) in[k] = (float)sin(0.7 * k * k + 0.1) / 3;
  PetscCall(ResampleUp(40, in, 1, 45, out));
  PetscCheck(!memcmp(in, out, sizeof in) && out[40] == 0 && out[44] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ResampleUp with m = 1 is not a copy");
  PetscCall(ResampleDown(40, in, 1, 40, out));
  PetscCheck(!memcmp(in, out, sizeof in), PETSC_COMM_SELF, PETSC_ERR_PLIB, "ResampleDown with m = 1 is not a copy");
  PetscCheck(ResampleInternalSteps(40, 1) == 40 && ResampleInternalSteps(40, 3) == (39 + RESAMPLE_HALF_WIDTH) * 3 + 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "ResampleInternalSteps(40, 1 or 3) = %d, %d", (int)ResampleInternalSteps(40, 1), (int)ResampleInternalSteps(40, 3));
  PetscFunctionReturn(0);
}

/* <Up x, y> = m <x, Down y>, and Up keeps the coarse samples exactly. */
static PetscErrorCode TestAdjoint(PetscInt m)
{
  const PetscInt nc = 50, nf = ResampleInternalSteps(nc, m) - 5; /* also cut some fine samples off */
  float         *x, *y, *ux, *dy;
  double         lhs = 0, rhs = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(nc, &x, nf, &y, nf, &ux, nc, &dy));
  for (PetscInt k = 0; k < nc; k++) x[k] = (float)sin(1.3 * k * k);
  for (PetscInt j = 0; j < nf; j++) y[j] = (float)cos(0.37 * j * j + 1);
  PetscCall(ResampleUp(nc, x, m, nf, ux));
  PetscCall(ResampleDown(nf, y, m, nc, dy));
  for (PetscInt j = 0; j < nf; j++) lhs += (double)ux[j] * y[j];
  for (PetscInt k = 0; k < nc; k++) rhs += m * (double)x[k] * dy[k];
  PetscCheck(PetscAbsReal(lhs - rhs) <= 1e-5 * PetscAbsReal(lhs), PETSC_COMM_SELF, PETSC_ERR_PLIB, "m=%d: <Up x, y> = %.9g but m <x, Down y> = %.9g",
             (int)m, lhs, rhs);
  for (PetscInt k = 0; k < nc && k * m < nf; k++)
    PetscCheck(ux[k * m] == x[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "m=%d: Up changed coarse sample %d", (int)m, (int)k);
  PetscCall(PetscFree4(x, y, ux, dy));
  PetscFunctionReturn(0);
}

/* DecimatorAddAll and DecimatorGatherAll against one call per fine sample,
   to the bit: ntr traces, not a whole number of DecimatorAddAll's blocks
   of 16. */
static PetscErrorCode TestDecimatorAll(PetscInt m)
{
  const PetscInt nc = 30, ntr = 37, nf = ResampleInternalSteps(nc, m) - 2;
  const size_t   nx = (size_t)nf * ntr, ny = (size_t)nc * ntr, nmax = PetscMax(nx, ny);
  Decimator      d;
  float         *x, *y, *all, *one;

  PetscFunctionBeginUser;
  PetscCall(DecimatorCreate(m, nc, &d));
  PetscCall(PetscMalloc4(nx, &x, ny, &y, nmax, &all, nmax, &one));
  for (size_t i = 0; i < nx; i++) x[i] = (float)sin(0.7 * i * i + 0.1);
  for (size_t i = 0; i < ny; i++) y[i] = (float)cos(0.3 * i * i);
  DecimatorAddAll(&d, nf, ntr, x, all);
  PetscCall(PetscArrayzero(one, ny));
  for (PetscInt j = 0; j < nf; j++) DecimatorAdd(&d, j, ntr, x + (size_t)j * ntr, one);
  PetscCheck(!memcmp(all, one, ny * sizeof(float)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "m=%d: DecimatorAddAll differs from DecimatorAdd sample by sample", (int)m);
  DecimatorGatherAll(&d, nf, ntr, y, all);
  for (PetscInt j = 0; j < nf; j++) DecimatorGather(&d, j, ntr, y, one + (size_t)j * ntr);
  PetscCheck(!memcmp(all, one, nx * sizeof(float)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "m=%d: DecimatorGatherAll differs from DecimatorGather sample by sample",
             (int)m);
  PetscCall(PetscFree4(x, y, all, one));
  PetscCall(DecimatorDestroy(&d));
  PetscFunctionReturn(0);
}

/* Relative L2 error of got against want over [lo, hi). */
static PetscErrorCode CheckClose(const char *what, const float *got, const float *want, PetscInt lo, PetscInt hi, PetscReal tol)
{
  double err = 0, norm = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = lo; i < hi; i++) {
    err += ((double)got[i] - want[i]) * ((double)got[i] - want[i]);
    norm += (double)want[i] * want[i];
  }
  PetscCheck(sqrt(err / norm) <= tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: relative L2 error %.3g, expected at most %g", what, sqrt(err / norm), tol);
  PetscFunctionReturn(0);
}

/* A Ricker sampled with the coarse Nyquist at 4 f0 (content up to about
   3 f0): resampling by 4 either way must match the analytic wavelet. */
static PetscErrorCode TestAccuracy(void)
{
  const PetscInt  m = 4, nc = 161, nf = (nc - 1) * m + 1, edge = RESAMPLE_HALF_WIDTH;
  const PetscReal f0 = 10, dt = 1 / (8 * f0), t0 = 1;
  float          *coarse, *fine, *up, *down;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(nc, &coarse, nf, &fine, nf, &up, nc, &down));
  PetscCall(WaveletRicker(nc, dt, f0, t0, coarse));
  PetscCall(WaveletRicker(nf, dt / m, f0, t0, fine));
  PetscCall(ResampleUp(nc, coarse, m, nf, up));
  PetscCall(CheckClose("Ricker upsampled by 4", up, fine, edge * m, nf - edge * m, 1e-4));
  PetscCall(ResampleDown(nf, fine, m, nc, down));
  PetscCall(CheckClose("Ricker downsampled by 4", down, coarse, edge, nc - edge, 1e-4));
  PetscCall(PetscFree4(coarse, fine, up, down));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestFile(void)
{
  const PetscInt  n[1] = {5};
  const PetscReal d[1] = {0.002}, o[1] = {0};
  const float     data[5] = {1, -2, 3, -4, 5};
  char            path[64];
  float           w[8];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof path, "unit_wavelet_%d.rsf", (int)getpid()));
  PetscCall(RsfWrite(path, (const RsfAxes[]){{.naxes = 1, .n = {n[0]}, .d = {d[0]}, .o = {o[0]}}}, data, PETSC_FALSE));
  PetscCall(WaveletReadFile(PETSC_COMM_WORLD, path, 8, 0.002 * (1 + 1e-9), w));
  PetscCheck(!memcmp(w, data, sizeof data) && w[5] == 0 && w[7] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "wavelet file read back wrong or not zero padded");
  EXPECT_ERROR(WaveletReadFile(PETSC_COMM_WORLD, path, 4, 0.002, w), "n1=5 samples, more than nt=4");
  EXPECT_ERROR(WaveletReadFile(PETSC_COMM_WORLD, path, 8, 0.001, w), "d1=0.002 s, expected dt=0.001 s");
  remove(path);
  PetscCall(PetscStrcat(path, "@"));
  remove(path);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestRicker());
  PetscCall(TestIdentity());
  for (PetscInt m = 2; m <= 5; m++) PetscCall(TestAdjoint(m));
  for (PetscInt m = 1; m <= 3; m += 2) PetscCall(TestDecimatorAll(m));
  PetscCall(TestAccuracy());
  PetscCall(TestFile());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_wavelet: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
