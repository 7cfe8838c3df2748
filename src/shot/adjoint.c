/* The adjoint of the propagator and the gradient it sums: see propagate.h. */
#include "shot/propagate_impl.h"
#include "data/events.h"
#include <math.h>

/* The parameters whose images the adjoint forms (PropagatorSettings.nimage):
   the sums over shots of the others are neither zeroed nor reduced. */
static PetscInt Images(const Propagator *p) { return EquationImages(p->eq, p->settings.nimage); }

/* The sum is allocated at the first call (ObjectiveCreate's, beside the
   store) and zeroed by the threads at every later one (40 bytes a cell: a
   fresh allocation's page faults cost an evaluation as much as a tenth of
   its steps); single needs none. */
PetscErrorCode PropagatorGradientReset(Propagator *p, PetscBool single)
{
  const size_t n = p->owned * Images(p);

  PetscFunctionBeginUser;
  p->single    = single;
  p->lone.runs = -1;
  if (single) {
    PetscCall(PetscFree(p->gsum));
    PetscFunctionReturn(0);
  }
  if (!p->gsum) PetscCall(PetscMalloc1(n, &p->gsum));
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < n; c++) p->gsum[c] = (ExactSum){{0}};
  PetscFunctionReturn(0);
}

/* The owned index (z fastest) of padded cell `cell` (GridPaddedIndex read backwards). */
static size_t OwnedIndex(const Grid *g, ptrdiff_t cell)
{
  PetscInt  padded[3], i[3];
  ptrdiff_t stride[3];

  (void)GridPaddedCells(g, padded);
  GridPaddedStrides(g, stride);
  padded[0] = (PetscInt)stride[1]; /* the rows' extent in the layout */
  for (PetscInt a = 0; a < 3; a++) i[a] = (PetscInt)((cell / stride[a]) % padded[a]) - (a < g->dim ? g->radius : 0);
  return (size_t)i[0] + (size_t)g->size[0] * (i[1] + (size_t)g->size[1] * i[2]);
}

/* Single: the run whose images the state holds, and its source's terms
   by owned cell. */
static PetscErrorCode LoneImageKeep(Propagator *p, const PointMap *src, const double *sum)
{
  const PetscInt n = p->eq->source_image >= 0 ? src->nrows : 0;

  PetscFunctionBeginUser;
  PetscCheck(p->lone.runs < 0, PETSC_COMM_SELF, PETSC_ERR_ORDER, "A second shot's images since PropagatorGradientReset(single): expected one");
  p->lone.runs = p->runs;
  PetscCall(PetscFree2(p->lone.cell, p->lone.sum));
  PetscCall(PetscMalloc2(n + 1, &p->lone.cell, n + 1, &p->lone.sum));
  p->lone.n = n;
  for (PetscInt i = 0; i < n; i++) {
    p->lone.cell[i] = OwnedIndex(p->grid, src->cell[i]);
    p->lone.sum[i]  = sum[i];
  }
  PetscFunctionReturn(0);
}

/* What a shot's image that is not finite, or too large for the exact
   sums, makes the run say. */
#define IMAGE_NOT_FINITE "The shot's gradient is not finite or exceeds 2^128: expected finite values (check the model and the -dt stability limit)"

/* Parameter k's image over the owned cells: row(ctx, in, n, at) for each
   owned row, on the threads (in: its n floats, at: the owned index of its
   first cell, z fastest); *bad ORs what they return. */
static PetscErrorCode EachImageRow(Propagator *p, PetscInt k, int (*row)(void *ctx, const float *in, PetscInt n, size_t at), void *ctx, int *bad)
{
  const Grid  *g = p->grid;
  PetscInt     padded[3];
  const size_t cells = GridPaddedCells(g, padded);
  const float *dev;
  void        *copy;
  const void  *image;
  int          b = 0;

  PetscFunctionBeginUser;
  PetscCall(p->eq->scheme->image(p->state, k, &dev));
  PetscCall(EquationMemoryRead(p->backend, dev, cells * sizeof(float), &copy, &image));
  const float *img = (const float *)image;
#pragma omp parallel for collapse(2) reduction(| : b) schedule(static)
  for (PetscInt z = 0; z < g->size[2]; z++)
    for (PetscInt y = 0; y < g->size[1]; y++) {
      const PetscInt first[3] = {0, y, z};
      b |= row(ctx, img + GridPaddedIndex(g, first), g->size[0], (size_t)g->size[0] * (y + (size_t)g->size[1] * z));
    }
  PetscCall(PetscFree(copy));
  *bad |= b;
  PetscFunctionReturn(0);
}

/* An image row into the exact sums (ctx: the parameter's). */
static int SumRow(void *ctx, const float *in, PetscInt n, size_t at)
{
  ExactSum *out = (ExactSum *)ctx + at;
  int       bad = 0;

  for (PetscInt x = 0; x < n; x++) bad |= ExactSumAdd(&out[x], in[x]);
  return bad;
}

/* An image row as the exact sum of it alone gives it (ctx: the doubles):
   a float's value, but for -0, which the sum makes 0. */
static int LoneRow(void *ctx, const float *in, PetscInt n, size_t at)
{
  double *out = (double *)ctx + at;
  int     bad = 0;

  for (PetscInt x = 0; x < n; x++) {
    bad |= !isfinite(in[x]);
    out[x] = (double)in[x] + 0.0; /* -0 + 0 = 0 */
  }
  return bad;
}

/* Adds the shot's images (one per parameter), and the source's term at
   each of its cells to its parameter's (src: host map; sum[i] for row i),
   to the sums over shots; single keeps them where they are. */
static PetscErrorCode ImageAdd(Propagator *p, const PointMap *src, const double *sum)
{
  int bad = 0;

  PetscFunctionBeginUser;
  if (p->single) {
    PetscCall(LoneImageKeep(p, src, sum));
    PetscFunctionReturn(0);
  }
  for (PetscInt k = 0; k < Images(p); k++) PetscCall(EachImageRow(p, k, SumRow, p->gsum + k * p->owned, &bad));
  if (p->eq->source_image >= 0 && p->eq->source_image < Images(p))
    for (PetscInt i = 0; i < src->nrows; i++) bad |= ExactSumAdd(&p->gsum[p->eq->source_image * p->owned + OwnedIndex(p->grid, src->cell[i])], sum[i]);
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FP, IMAGE_NOT_FINITE);
  PetscFunctionReturn(0);
}

/* The source's term at each of its cells: the amplitude injected there (as
   the forward run rounds it) is scaled by a parameter's cell model too
   (Equation.source_image); summed from the last step back. */
static PetscErrorCode SourceTerm(const Propagator *p, const TimeAxis *t, const ShotLocal *shot, const ShotPoints *d, const float *wavelet, double *sum)
{
  const PointMap *src = &shot->src;
  void           *copy;
  const void     *samples;

  PetscFunctionBeginUser;
  PetscCall(EquationMemoryRead(p->backend, d->at_src, (size_t)t->nsteps * src->nrows * sizeof(float), &copy, &samples));
  const float *at = (const float *)samples;
  for (PetscInt i = 0; i < src->nrows; i++) {
    sum[i] = 0;
    for (PetscInt n = t->nsteps - 1; n >= 0; n--) {
      const float amp = wavelet[n] * shot->src_scale;
      double      w   = 0;
      for (PetscInt e = src->start[i]; e < src->start[i + 1]; e++) w += (double)src->weight[e] * amp;
      sum[i] += (double)at[(size_t)n * src->nrows + i] * (float)w;
    }
  }
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorGradientReduce(Propagator *p, MPI_Comm cross)
{
  const size_t n = p->owned * Images(p);
  MPI_Datatype type;
  MPI_Op       op;
  PetscMPIInt  rank, size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(cross, &size));
  PetscCheck(!p->single || size == 1, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PropagatorGradientReset(single) with %d groups: expected one", size);
  if (size == 1) PetscFunctionReturn(0);
  PetscCall(ExactSumMPI(&type, &op));
  PetscCallMPI(MPI_Comm_rank(cross, &rank));
  PetscCheck(n <= PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%zu cells per rank: more than one MPI message can reduce", n);
  PetscCallMPI(MPI_Reduce(rank ? p->gsum : MPI_IN_PLACE, p->gsum, (PetscMPIInt)n, type, op, 0, cross));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorQuietReport(MPI_Comm comm, const Propagator *p)
{
  PetscFunctionBeginUser;
  if (p->eq->scheme->adjoint_report) PetscCall(p->eq->scheme->adjoint_report(p->state, comm));
  PetscFunctionReturn(0);
}

/* Single: parameter k's image over the owned cells as the exact sum of
   it alone would give it (LoneRow), the source's terms added exactly at
   its cells. */
static PetscErrorCode LoneImage(Propagator *p, PetscInt k, double *out)
{
  int bad = 0;

  PetscFunctionBeginUser;
  if (p->lone.runs < 0) { /* no shot */
    PetscCall(PetscArrayzero(out, p->owned));
    PetscFunctionReturn(0);
  }
  PetscCheck(p->lone.runs == p->runs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The state ran again after the shot whose images it held");
  PetscCall(EachImageRow(p, k, LoneRow, out, &bad));
  for (PetscInt i = 0; k == p->eq->source_image && i < p->lone.n; i++) { /* each cell once: its image and every row's term there */
    const size_t c = p->lone.cell[i];
    ExactSum     s = {{0}};
    PetscInt     j = 0;
    while (j < i && p->lone.cell[j] != c) j++;
    if (j < i) continue;
    bad |= ExactSumAdd(&s, out[c]);
    for (j = i; j < p->lone.n; j++)
      if (p->lone.cell[j] == c) bad |= ExactSumAdd(&s, p->lone.sum[j]);
    out[c] = ExactSumValue(&s);
  }
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FP, IMAGE_NOT_FINITE);
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorGradient(Propagator *p, const float *const model[], double *const grad[])
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < p->eq->nparameter; k++) {
    double *out = grad[k];
    if (k >= Images(p)) { /* no image formed: its gradient is not wanted */
      PetscCall(PetscArrayzero(out, p->owned));
      continue;
    }
    if (p->single) {
      PetscCall(LoneImage(p, k, out));
      continue;
    }
    const ExactSum *gsum = p->gsum + k * p->owned;
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < p->owned; c++) out[c] = ExactSumValue(&gsum[c]);
  }
  p->eq->gradient((PetscInt)p->owned, model, grad);
  PetscFunctionReturn(0);
}

/* Reverse step n, or n and n - 1 where the equation takes two at once;
   *taken says how many. */
static PetscErrorCode ReverseStep(Propagator *p, const ShotPoints *d, WavefieldStore store, PetscInt n, PetscInt nsteps, PetscInt *taken)
{
  const EquationScheme    *sc     = p->eq->scheme;
  const EquationStepPoints points = ShotPointsAt(d, n);
  PetscBool                two    = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (sc->reverse_pair && n >= 1 && !p->ck) {
    const EquationStepPoints both[2] = {points, ShotPointsAt(d, n - 1)};
    PetscCall(sc->reverse_pair(p->state, store, n, both, &two));
  }
  if (!two) {
    PetscCall(sc->step_begin(p->state, PETSC_TRUE, store, n, nsteps));
    PetscCall(StepStages(p, PETSC_TRUE, &points));
    PetscCall(sc->step_end(p->state, PETSC_TRUE, store, n, &points));
  }
  *taken = two ? 2 : 1;
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorAdjoint(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet,
                                 const float *residual, WavefieldStore store)
{
  const ShotResidual only = {p->settings.component, shot, residual};

  PetscFunctionBeginUser;
  PetscCall(PropagatorAdjointResiduals(p, t, shot, shot_id, wavelet, 1, &only, store));
  PetscFunctionReturn(0);
}

/* Each component's residuals at every internal step, from the recording
   interval, into backend memory (through host memory on device backends). */
static PetscErrorCode ResidualsUpload(const Propagator *p, const TimeAxis *t, const ShotResidual residual[], ShotPoints *d)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < d->nresidual; i++) {
    const size_t n    = (size_t)t->nsteps * d->nreach[i];
    float       *host = NULL;
    if (!p->backend->host_memory) PetscCall(PetscMalloc1(n + 1, &host));
    DecimatorGatherAll(&p->decimator, t->nsteps, d->nreach[i], residual[i].residual, host ? host : d->traces[i]);
    if (host) PetscCall(p->backend->mem_upload(d->traces[i], host, n * sizeof(float)));
    PetscCall(PetscFree(host));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorAdjointResiduals(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet, PetscInt nresidual,
                                          const ShotResidual residual[], WavefieldStore store)
{
  const EquationScheme *sc = p->eq->scheme;
  ShotPoints            d;
  double               *src_sum;
  PetscLogDouble        last[2] = {0, 0};

  PetscFunctionBeginUser;
  PetscCheck(p->gsum || p->single, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PropagatorGradientReset() must precede PropagatorAdjoint()");
  PetscCheck(nresidual >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The adjoint takes the residuals of at least one component, not %" PetscInt_FMT, nresidual);
  PetscCall(PetscMalloc1(shot->src.nrows + 1, &src_sum));
  PetscCall(ShotPointsCreate(p, t, shot, wavelet, nresidual, residual, &d));
  PetscCall(ResidualsUpload(p, t, residual, &d));
  {
    const EquationStepPoints first = ShotPointsAt(&d, t->nsteps - 1);
    PetscCall(sc->run_begin(p->state, PETSC_TRUE, store, &first, t->nsteps));
    p->runs++;
  }
  if (p->ck) PetscCall(CheckpointsAdjointBegin(p, &d, t->nsteps));
  PetscCall(PetscTime(&last[0]));
  for (PetscInt n = t->nsteps - 1; n >= 0;) {
    PetscInt taken = 1;
    if (p->ck) PetscCall(CheckpointsTurn(p, &d, store, n, t->nsteps));
    PetscCall(PhaseBegin(FWI_ADJOINT_STEP));
    PetscCall(ReverseStep(p, &d, store, n, t->nsteps, &taken));
    PetscCall(PhaseEnd(FWI_ADJOINT_STEP));
    n -= taken;
    PetscCall(ReportProgress(p, t, "adjoint", shot_id, t->nsteps - 1 - n, 1, last));
    PetscCall(CheckFinite(p, t, "adjoint", shot_id, t->nsteps - 1 - n, 1));
  }
  PetscCall(sc->run_end(p->state, PETSC_TRUE, store));
  PetscCall(PropagatorExchangeBoxFields(p, p->eq->nimage_field, p->eq->image_field));
  if (sc->derive_image) {
    PetscCall(sc->derive_image(p->state));
    PetscCall(PropagatorExchangeBoxFields(p, p->eq->nimage_derived, p->eq->image_derived));
  }
  PetscCall(SourceTerm(p, t, shot, &d, wavelet, src_sum));
  PetscCall(ImageAdd(p, &shot->src, src_sum));
  PetscCall(ShotPointsDestroy(p, &d));
  PetscCall(PetscFree(src_sum));
  PetscFunctionReturn(0);
}
