/* The adjoint of the propagator and the gradient it sums: see propagate.h. */
#include "shot/propagate_impl.h"
#include "data/events.h"

/* The sum is allocated at the first call (ObjectiveCreate's, beside the
   store) and zeroed by the threads at every later one (40 bytes a cell: a
   fresh allocation's page faults cost an evaluation as much as a tenth of
   its steps). */
PetscErrorCode PropagatorGradientReset(Propagator *p)
{
  const Fields *f = &p->f;
  const size_t  n = (size_t)f->n[0] * f->n[1] * f->n[2];

  PetscFunctionBeginUser;
  if (!p->gsum) PetscCall(PetscMalloc1(n, &p->gsum));
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < n; c++) p->gsum[c] = (ExactSum){{0}};
  PetscFunctionReturn(0);
}

/* The owned index (z fastest) of padded cell `cell`. */
static PetscInt OwnedIndex(const Fields *f, ptrdiff_t cell)
{
  PetscInt i[3];

  for (PetscInt a = 2; a >= 0; a--) i[a] = (PetscInt)((cell / f->stride[a]) % f->padded[a]) - (a < f->dim ? f->radius : 0);
  return i[0] + f->n[0] * (i[1] + f->n[1] * i[2]);
}

/* Adds the shot's image f.grad, and the source's term at each of its cells
   (src: host map; sum[i] for row i), to the sum over shots. */
static PetscErrorCode ImageAdd(Propagator *p, const PointMap *src, const double *sum)
{
  const Fields *f   = &p->f;
  int           bad = 0;
  void         *copy;
  const void   *image;

  PetscFunctionBeginUser;
  PetscCall(KernelOpsRead(p->ops, f->grad, f->ncells * sizeof(float), &copy, &image));
  const float *padded = (const float *)image;
#pragma omp parallel for collapse(2) reduction(| : bad) schedule(static)
  for (PetscInt k = 0; k < f->n[2]; k++)
    for (PetscInt j = 0; j < f->n[1]; j++)
      for (PetscInt i = 0; i < f->n[0]; i++) {
        const PetscInt idx[3] = {i, j, k};
        bad |= ExactSumAdd(&p->gsum[i + f->n[0] * (j + f->n[1] * k)], padded[FieldsIndex(f, idx)]);
      }
  PetscCall(PetscFree(copy));
  for (PetscInt i = 0; i < src->nrows; i++) bad |= ExactSumAdd(&p->gsum[OwnedIndex(f, src->cell[i])], sum[i]);
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FP, "The shot's gradient is not finite or exceeds 2^128: expected finite values (check the model and the -dt stability limit)");
  PetscFunctionReturn(0);
}

/* The source's term at each of its cells: the amplitude injected there (as
   the forward run rounds it) is scaled by v^2 dt^2 too; summed from the
   last step back. */
static PetscErrorCode SourceTerm(const Propagator *p, const TimeAxis *t, const ShotLocal *shot, const ShotPoints *d, const float *wavelet, double *sum)
{
  const PointMap *src = &shot->src;
  void           *copy;
  const void     *samples;

  PetscFunctionBeginUser;
  PetscCall(KernelOpsRead(p->ops, d->at_src, (size_t)t->nsteps * src->nrows * sizeof(float), &copy, &samples));
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
  const Fields *f = &p->f;
  const size_t  n = (size_t)f->n[0] * f->n[1] * f->n[2];
  MPI_Datatype  type;
  MPI_Op        op;
  PetscMPIInt   rank, size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(cross, &size));
  if (size == 1) PetscFunctionReturn(0);
  PetscCall(ExactSumMPI(&type, &op));
  PetscCallMPI(MPI_Comm_rank(cross, &rank));
  PetscCheck(n <= PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%zu cells per rank: more than one MPI message can reduce", n);
  PetscCallMPI(MPI_Reduce(rank ? p->gsum : MPI_IN_PLACE, p->gsum, (PetscMPIInt)n, type, op, 0, cross));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorQuietReport(MPI_Comm comm, const Propagator *p)
{
  double mine[2] = {(double)p->f.parts_left[0], (double)p->f.parts_left[1]}, all[2];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, comm));
  if (all[1] > 0)
    PetscCall(PetscPrintf(comm, "adjoint: %.1f%% of its steps of %d-cell row parts left as they were, their stencils reading only zeros (-adjoint_skip_quiet)\n",
                          100 * all[0] / all[1], FIELDS_QUIET_CELLS));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorGradient(Propagator *p, const float *vp, double *grad)
{
  const Fields *f = &p->f;

  PetscFunctionBeginUser;
#pragma omp parallel for schedule(static)
  for (PetscInt c = 0; c < f->n[0] * f->n[1] * f->n[2]; c++) grad[c] = ExactSumValue(&p->gsum[c]);
  p->eq->gradient(0, f->n[0] * f->n[1] * f->n[2], vp, grad);
  PetscFunctionReturn(0);
}

/* Reverse step n: it takes the adjoint of u^{n+1} (in u) and of u^{n+2}
   (in uprev) to that of u^n, and adds the gradient term of forward step n;
   from storage, every other step (pair) adds those of steps n and n + 1. */
static PetscErrorCode ReverseStep(Propagator *p, const ShotLocal *shot, const ShotPoints *d, WavefieldStore store, PetscInt n, PetscBool pair)
{
  const KernelOps *ops   = p->ops;
  Fields          *f     = &p->f;
  const PetscBool  image = pair || !n ? PETSC_TRUE : PETSC_FALSE;
  const float     *residual = d->traces + (size_t)n * shot->nreach;
  const PetscBool  in_step  = ops->adjoint_injects && ops->adjoint_injects(f) ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBeginUser;
  if (p->method == GRADIENT_BOUNDARY) PetscCall(ReconstructionBegin(p, n));
  else {
    if (pair) {
      PetscCall(WavefieldStoreReadBegin(store, n + 1, &f->lap_next));
      f->live_next = WavefieldStoreLive(store, n + 1, &f->live_next_start);
    }
    if (image) {
      PetscCall(WavefieldStoreReadBegin(store, n, &f->lap));
      f->live = WavefieldStoreLive(store, n, &f->live_start);
    }
  }
  PetscCall(PhaseBegin(FWI_INJREC));
  PetscCall(ops->record(f, &d->src_cells, NULL, d->at_src + (size_t)n * shot->src.nrows));
  PetscCall(PhaseEnd(FWI_INJREC));
  PetscCall(ops->adjoint_layers_begin(f));
  PetscCall(ops->mirror_ghosts(f));
  if (in_step) {
    f->inject     = &d->reach;
    f->inject_amp = residual;
  }
  PetscCall(StepRegions(p, PETSC_TRUE));
  f->inject = NULL;
  PetscCall(PhaseBegin(FWI_SHELL));
  PetscCall(ops->adjoint_layers_end(f));
  PetscCall(PhaseEnd(FWI_SHELL));

  PetscCall(PhaseBegin(FWI_INJREC));
  if (!in_step) PetscCall(ops->inject(f, &d->reach, residual));
  PetscCall(ops->zero_surface(f));
  PetscCall(PhaseEnd(FWI_INJREC));
  if (p->method == GRADIENT_BOUNDARY) PetscCall(ReconstructionEnd(p, d, store, n));
  else {
    if (pair) PetscCall(WavefieldStoreReadEnd(store, n + 1));
    if (image) PetscCall(WavefieldStoreReadEnd(store, n));
  }
  FieldsSwap(f);
  f->lap = f->lap_next = NULL;
  f->live = f->live_next = NULL;
  f->live_start = f->live_next_start = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorAdjoint(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet,
                                 const float *residual, WavefieldStore store)
{
  const KernelOps *ops = p->ops;
  Fields          *f   = &p->f;
  const size_t     n   = (size_t)t->nsteps * shot->nreach;
  ShotPoints       d;
  float           *host = NULL; /* the residuals over the steps, formed here before their upload (device backends) */
  double          *src_sum;
  PetscLogDouble   last[2] = {0, 0};

  PetscFunctionBeginUser;
  PetscCheck(p->gsum, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PropagatorGradientReset() must precede PropagatorAdjoint()");
  /* the shot's image starts from zero, in an array allocated for the first
     shot: a new one every shot would map every page again (and cudaFree
     waits for the whole device) */
  if (!f->grad) PetscCall(ops->backend->mem_alloc((void **)&f->grad, f->ncells * sizeof(float)));
  else PetscCall(ops->backend->mem_zero(f->backend, f->grad, f->ncells * sizeof(float)));
  PetscCall(PetscMalloc1(shot->src.nrows + 1, &src_sum));
  PetscCall(ShotPointsCreate(p, t, shot, wavelet, &d));
  if (!ops->backend->host_memory) PetscCall(PetscMalloc1(n + 1, &host));
  DecimatorGatherAll(&p->decimator, t->nsteps, shot->nreach, residual, host ? host : d.traces);
  if (host) PetscCall(ops->backend->mem_upload(d.traces, host, n * sizeof(float)));
  PetscCall(ops->zero_state(f));
  /* full storage: row parts that stay quiet left as they are */
  const PetscBool quiet = p->method != GRADIENT_BOUNDARY && p->settings.skip_quiet && ops->adjoint_live;
  if (quiet) PetscCall(ops->adjoint_live(f, PETSC_TRUE));
  PetscCall(PetscTime(&last[0]));
  /* two reverse steps at a time where the backend can (the boundary method) */
  for (PetscInt n = t->nsteps - 1; n >= 0;) {
    const PetscInt k = p->method == GRADIENT_BOUNDARY && p->rec.pair && n >= 1 ? 2 : 1;
    PetscCall(PhaseBegin(FWI_ADJOINT_STEP));
    if (k == 2) PetscCall(ReconstructionPair(p, shot, &d, store, n));
    else PetscCall(ReverseStep(p, shot, &d, store, n, (t->nsteps - 1 - n) % 2 ? PETSC_TRUE : PETSC_FALSE));
    PetscCall(PhaseEnd(FWI_ADJOINT_STEP));
    n -= k;
    PetscCall(ReportProgress(p, t, "adjoint", shot_id, t->nsteps - 1 - n, last));
    PetscCall(CheckFinite(p, t, "adjoint", shot_id, t->nsteps - 1 - n));
  }
  if (quiet) PetscCall(ops->adjoint_live(f, PETSC_FALSE));
  PetscCall(SourceTerm(p, t, shot, &d, wavelet, src_sum));
  PetscCall(ImageAdd(p, &shot->src, src_sum));
  PetscCall(ShotPointsDestroy(p, &d));
  PetscCall(PetscFree(host));
  PetscCall(PetscFree(src_sum));
  PetscFunctionReturn(0);
}
