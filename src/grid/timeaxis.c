/* The time axis and its resampling: see timeaxis.h. */
#include "grid/timeaxis.h"
#include "data/kaiser.h"
#include <math.h>
#include <string.h>

#define W RESAMPLE_HALF_WIDTH
/* Kaiser shape: larger beta lowers the ripple but widens the transition band.
   With 8 a Ricker resampled by 4 is within 3e-5 (relative L2) of the exact
   one when the coarse Nyquist is 4 f0, and within 1e-4 down to 3.5 f0. */
#define KAISER_BETA 8.0

PetscErrorCode TimeAxisSetUp(const Grid *g, PetscReal dt_stable, PetscInt nt, PetscReal dt, PetscReal cfl, TimeAxis *t)
{
  PetscReal m;
  double    steps;
  MPI_Comm  comm;

  PetscFunctionBeginUser;
  t->nt        = nt;
  t->dt        = dt;
  t->dt_stable = dt_stable;
  /* the smallest m with dt/m <= cfl * dt_stable; the slack keeps exact ratios exact */
  m = PetscMax(1, PetscCeilReal(dt / (cfl * t->dt_stable) * (1 - 1e-12)));
  /* steps are counted in PetscInt; (nt - 1 + W) m + 1 bounds ResampleInternalSteps for every m */
  steps = ((double)nt - 1 + RESAMPLE_HALF_WIDTH) * m + 1;
  comm = g->comm;
  PetscCheck(steps <= PETSC_MAX_INT, comm, PETSC_ERR_INT_OVERFLOW,
             "-nt %" PetscInt_FMT " samples at %.6g internal steps each (-dt %.6g s over a stable step of %.6g s, -cfl %.6g) need about %.4g internal steps, more than the %" PetscInt_FMT
             " this PETSc counts (%d-bit PetscInt): record a shorter time (-nt x -dt)",
             nt, (double)m, (double)dt, (double)(cfl * t->dt_stable), (double)cfl, steps, PETSC_MAX_INT, (int)(8 * sizeof(PetscInt)));
  t->m      = (PetscInt)m;
  t->dt_int = dt / t->m;
  t->nsteps = ResampleInternalSteps(nt, t->m);
  PetscFunctionReturn(0);
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

/* Traces a thread takes at a time: one cache line of a fine sample. */
#define DECIMATE_TRACES 16

void DecimatorAddAll(const Decimator *d, PetscInt nsteps, PetscInt ntr, const float x[], float out[])
{
#pragma omp parallel for schedule(static)
  for (PetscInt k0 = 0; k0 < ntr; k0 += DECIMATE_TRACES) {
    const PetscInt nb = PetscMin(DECIMATE_TRACES, ntr - k0);
    memset(out + (size_t)k0 * d->nout, 0, (size_t)nb * d->nout * sizeof(float));
    for (PetscInt j = 0; j < nsteps; j++) DecimatorAdd(d, j, nb, x + (size_t)j * ntr + k0, out + (size_t)k0 * d->nout);
  }
}

void DecimatorGatherAll(const Decimator *d, PetscInt nsteps, PetscInt ntr, const float in[], float x[])
{
#pragma omp parallel for schedule(static)
  for (PetscInt j = 0; j < nsteps; j++) DecimatorGather(d, j, ntr, in, x + (size_t)j * ntr);
}

PetscErrorCode ResampleDown(PetscInt nin, const float *in, PetscInt m, PetscInt nout, float *out)
{
  Decimator d;

  PetscFunctionBeginUser;
  PetscCall(CheckArgs(nin, m, nout));
  PetscCall(DecimatorCreate(m, nout, &d));
  DecimatorAddAll(&d, nin, 1, in, out);
  PetscCall(DecimatorDestroy(&d));
  PetscFunctionReturn(0);
}

PetscInt ResampleInternalSteps(PetscInt nt, PetscInt m)
{
  return m == 1 ? nt : (nt - 1 + W) * m + 1;
}
