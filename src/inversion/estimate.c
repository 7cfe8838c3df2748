#include "inversion/estimate.h"
#include "data/exactsum.h"
#include "data/rsf.h"
#include "inversion/selection.h"
#include "grid/timeaxis.h"
#include "data/wavelet.h"
#include "data/util.h"
#include <complex.h> /* before fftw3.h: fftw_complex is then C's double complex */
#include <fftw3.h>

/* Spectra of one group's shot: sum_r conj(S_r) O_r and sum_r |S_r|^2 over
   nf frequencies of traces zero-padded to 2 nt (so that the filter does
   not wrap around). */
typedef struct {
  PetscInt        nt, npad, nf;
  double         *in;
  fftw_complex   *out;
  fftw_plan       plan, back;
  double complex *num;
  double         *den;
} Spectra;

static PetscErrorCode SpectraCreate(PetscInt nt, Spectra *sp)
{
  PetscFunctionBeginUser;
  sp->nt   = nt;
  sp->npad = 2 * nt;
  sp->nf   = nt + 1;
  sp->in   = fftw_alloc_real((size_t)sp->npad);
  sp->out  = fftw_alloc_complex((size_t)sp->nf);
  PetscCheck(sp->in && sp->out, PETSC_COMM_SELF, PETSC_ERR_MEM, "source estimation: no memory for FFTs of %d samples", (int)sp->npad);
  sp->plan = fftw_plan_dft_r2c_1d((int)sp->npad, sp->in, sp->out, FFTW_ESTIMATE);
  sp->back = fftw_plan_dft_c2r_1d((int)sp->npad, sp->out, sp->in, FFTW_ESTIMATE);
  PetscCall(PetscCalloc2(sp->nf, &sp->num, sp->nf, &sp->den));
  PetscFunctionReturn(0);
}

static void SpectraDestroy(Spectra *sp)
{
  fftw_destroy_plan(sp->plan);
  fftw_destroy_plan(sp->back);
  fftw_free(sp->in);
  fftw_free(sp->out);
  PetscFree2(sp->num, sp->den);
}

/* The spectrum of x (nt samples, each times weight w[i] when w is given) into sp->out. */
static void Forward(Spectra *sp, const float *x, const float *w)
{
  for (PetscInt i = 0; i < sp->npad; i++) sp->in[i] = i < sp->nt ? (double)x[i] * (w ? w[i] : 1) : 0;
  fftw_execute(sp->plan);
}

/* Adds shot k's modelled (syn) and observed gathers, weighted by the data selection. */
static PetscErrorCode AddShot(Objective *obj, PetscInt k, const float *syn, Spectra *sp)
{
  const TimeAxis *t = &obj->e.t;
  const PetscInt  s = obj->e.shot[k], nrec = obj->e.geo.rec_start[s + 1] - obj->e.geo.rec_start[s];
  double complex *S;
  float          *w;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(sp->nf, &S, (size_t)nrec * t->nt, &w));
  SelectionWeights(obj->o, obj->band, &obj->e.geo, obj->killed, s, obj->e.model[0].dim, t->nt, t->dt, obj->obs_raw[k], w);
  for (PetscInt r = 0; r < nrec; r++) {
    Forward(sp, syn + (size_t)r * t->nt, w + (size_t)r * t->nt);
    for (PetscInt f = 0; f < sp->nf; f++) S[f] = sp->out[f];
    Forward(sp, obj->obs[k] + (size_t)r * t->nt, w + (size_t)r * t->nt);
    for (PetscInt f = 0; f < sp->nf; f++) {
      sp->num[f] += conj(S[f]) * sp->out[f];
      sp->den[f] += creal(S[f]) * creal(S[f]) + cimag(S[f]) * cimag(S[f]);
    }
  }
  PetscCall(PetscFree2(S, w));
  PetscFunctionReturn(0);
}

/* The survey's sums: every group's first rank adds its shots', exactly,
   over the world. */
static PetscErrorCode SumOverGroups(Objective *obj, Spectra *sp)
{
  ExactSum    *sum;
  MPI_Datatype type;
  MPI_Op       op;
  int          bad = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(3 * sp->nf, &sum));
  for (PetscInt f = 0; f < sp->nf && !obj->e.l.group_rank; f++) {
    bad |= ExactSumAdd(&sum[3 * f], creal(sp->num[f]));
    bad |= ExactSumAdd(&sum[3 * f + 1], cimag(sp->num[f]));
    bad |= ExactSumAdd(&sum[3 * f + 2], sp->den[f]);
  }
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FP, "source estimation: a spectrum is not finite or exceeds 2^128");
  PetscCall(ExactSumMPI(&type, &op));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, sum, (PetscMPIInt)(3 * sp->nf), type, op, obj->e.l.world));
  for (PetscInt f = 0; f < sp->nf; f++) {
    sp->num[f] = ExactSumValue(&sum[3 * f]) + I * ExactSumValue(&sum[3 * f + 1]);
    sp->den[f] = ExactSumValue(&sum[3 * f + 2]);
  }
  PetscCall(PetscFree(sum));
  PetscFunctionReturn(0);
}

/* w (nt samples at -dt) = the band's wavelet w0 filtered by the sums'
   stabilised ratio; the sums are reset. */
static void Deconvolve(Spectra *sp, PetscReal eps, const float *w0, float *w)
{
  double peak = 0;

  for (PetscInt f = 0; f < sp->nf; f++) peak = PetscMax(peak, sp->den[f]);
  Forward(sp, w0, NULL);
  for (PetscInt f = 0; f < sp->nf; f++) {
    const double complex ratio = peak > 0 ? sp->num[f] / (sp->den[f] + eps * peak) : 0, W = sp->out[f] * ratio;
    sp->out[f]    = W;
    sp->num[f]    = 0;
    sp->den[f]    = 0;
  }
  fftw_execute(sp->back);
  for (PetscInt i = 0; i < sp->nt; i++) w[i] = (float)(sp->in[i] / sp->npad);
}

/* Rank 0 of the world writes wavelet_BAND.rsf (ntr traces). */
typedef struct {
  const Objective *obj;
  PetscInt         band, ntr;
  const float     *w;
} WaveletFile;

static PetscErrorCode WriteWavelets(void *ctx)
{
  const WaveletFile *wf = (const WaveletFile *)ctx;
  const TimeAxis    *t  = &wf->obj->e.t;
  RsfAxes            axes = {0};
  char               path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  RsfAxesAdd(&axes, t->nt, t->dt, 0, "Time", "s");
  if (wf->ntr > 1) RsfAxesAdd(&axes, wf->ntr, 1, 0, "Shot", "");
  PetscCall(PetscSNPrintf(path, sizeof path, "%s/wavelet_%" PetscInt_FMT ".rsf", wf->obj->o->output_dir, wf->band + 1));
  PetscCall(RsfWrite(path, &axes, wf->w, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode SourceEstimate(Objective *obj, const float *vp, PetscInt band)
{
  Experiment    *e      = &obj->e;
  const TimeAxis *t     = &e->t;
  const PetscBool survey = obj->o->source_estimation == SOURCE_ESTIMATION_SURVEY ? PETSC_TRUE : PETSC_FALSE;
  const PetscInt  ntr    = survey ? 1 : e->geo.nshots;
  Spectra         sp;
  const float    *w0;
  float          *all_w;
  WaveletFile     wf = {.obj = obj, .band = band, .ntr = ntr};

  PetscFunctionBeginUser;
  PetscCall(ObjectiveSetModel(obj, vp));
  PetscCall(SpectraCreate(t->nt, &sp));
  w0 = obj->w_band;
  PetscCall(PetscCalloc1((size_t)ntr * t->nt, &all_w));
  if (!obj->wint_shot) {
    PetscCall(PetscCalloc1(e->nshots + 1, &obj->wint_shot));
    for (PetscInt k = 0; k < e->nshots; k++) PetscCall(PetscMalloc1(t->nsteps, &obj->wint_shot[k]));
  }
  for (PetscInt k = 0; k < e->nshots; k++) {
    float *syn;
    /* this band's wavelet, not the previous estimate, models the shot */
    PetscCall(PetscArraycpy(obj->wint_shot[k], e->wint, t->nsteps));
    PetscCall(ObjectiveModelShot(obj, k, 1, &syn));
    if (!e->l.group_rank) PetscCall(AddShot(obj, k, syn, &sp));
    PetscCall(PetscFree(syn));
    if (!survey) {
      if (!e->l.group_rank) Deconvolve(&sp, obj->o->source_estimation_eps, w0, all_w + (size_t)e->shot[k] * t->nt);
      PetscCallMPI(MPI_Bcast(all_w + (size_t)e->shot[k] * t->nt, (PetscMPIInt)t->nt, MPI_FLOAT, 0, e->l.group));
    }
  }
  if (survey) {
    PetscCall(SumOverGroups(obj, &sp));
    Deconvolve(&sp, obj->o->source_estimation_eps, w0, all_w);
  } else PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, all_w, (PetscMPIInt)(ntr * t->nt), MPI_FLOAT, MPI_SUM, e->l.cross)); /* one group holds each shot: exact */
  /* modelled data zero at every selected trace leave nothing to deconvolve: a zero wavelet would model nothing */
  PetscCheck(WaveletPeak(ntr * t->nt, all_w) > 0, e->l.world, PETSC_ERR_USER_INPUT,
             "source estimation (%s), band %" PetscInt_FMT ": the modelled data are zero at every selected trace, so every estimated wavelet is zero (receivers on a "
             "free surface, or sources where they emit nothing?)",
             survey ? "survey" : "shot", band + 1);
  for (PetscInt k = 0; k < e->nshots; k++) PetscCall(ResampleUp(t->nt, all_w + (survey ? 0 : (size_t)e->shot[k] * t->nt), t->m, t->nsteps, obj->wint_shot[k]));
  wf.w = all_w;
  PetscCall(RootRun(e->l.world, WriteWavelets, &wf));
  PetscCall(PetscPrintf(e->l.world, "source estimation (%s), band %" PetscInt_FMT ": -> %s/wavelet_%" PetscInt_FMT ".rsf\n", survey ? "one wavelet for the survey" : "one wavelet per shot",
                        band + 1, obj->o->output_dir, band + 1));
  SpectraDestroy(&sp);
  PetscCall(PetscFree(all_w));
  PetscFunctionReturn(0);
}
