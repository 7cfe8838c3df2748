#include "shot/propagate_impl.h"
#include "shot/boxes.h"
#include "data/events.h"
#include "shot/support.h"
#include "data/util.h"

/* The interior and shell boxes, cut at the layers as KernelOpsSplitBoxes
   says for each pass.  Ghosts beyond a free surface are mirrored
   before the interior starts, so only neighbours count. */
static PetscErrorCode BuildBoxes(Propagator *p)
{
  Box      inner, slab[6];
  PetscInt nslab;

  PetscFunctionBeginUser;
  BoxesInteriorShell(&p->f, p->f.neighbour, &inner, slab, &nslab);
  for (PetscInt pass = 0; pass < 2; pass++) {
    const PetscBool split = KernelOpsSplitBoxes(p->ops, pass ? PETSC_TRUE : PETSC_FALSE);
    PetscCall(PetscMalloc1(BOX_MAX_PIECES, &p->box[pass][0]));
    PetscCall(PetscMalloc1(BOX_MAX_PIECES * 6, &p->box[pass][1]));
    p->nbox[pass][0] = p->nbox[pass][1] = 0;
    BoxSplitAtLayers(&p->f, &inner, split, p->box[pass][0], &p->nbox[pass][0]);
    for (PetscInt k = 0; k < nslab; k++) BoxSplitAtLayers(&p->f, &slab[k], split, p->box[pass][1], &p->nbox[pass][1]);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorSetModel(Propagator *p, const TimeAxis *t, const float *vp)
{
  Fields *f = &p->f;

  PetscFunctionBeginUser;
  /* the equation's model coefficient (v^2 dt^2) in the padded layout, its padding 0 */
  if (!p->host_vdt2) PetscCall(PetscCalloc1(f->ncells, &p->host_vdt2));
#pragma omp parallel for collapse(2) schedule(static)
  for (PetscInt k = 0; k < f->n[2]; k++)
    for (PetscInt j = 0; j < f->n[1]; j++) {
      const PetscInt     row[3] = {0, j, k};
      const float *const value[1] = {&vp[f->n[0] * (j + f->n[1] * k)]};
      p->eq->cell_model(f->n[0], value, t->dt_int, &p->host_vdt2[FieldsIndex(f, row)]);
    }
  PetscCall(p->ops->backend->mem_upload(f->vdt2, p->host_vdt2, f->ncells * sizeof(float)));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorCreate(const Grid *g, const Equation *eq, const KernelOps *ops, const float *vp, PetscReal vmax, const TimeAxis *t,
                                const PropagatorSettings *settings, Propagator *p)
{
  Fields    *f = &p->f;
  HaloLayout hl;
  MPI_Comm   comm;
  float     *host;
  void      *stream = NULL;

  PetscFunctionBeginUser;
  PetscCheck(eq->nstage == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "the %s equation has %" PetscInt_FMT " stages a step: this time loop runs one", eq->name, eq->nstage);
  PetscCall(PetscMemzero(p, sizeof(*p)));
  p->eq                 = eq;
  p->ops                = ops;
  p->grid               = g;
  p->settings           = *settings;
  p->method             = GRADIENT_FULL;
  FieldsOfGrid(g, f);
  f->gpu_tile = settings->gpu_tile;
  {
    double bytes, layers;
    FieldsBytes(f, &bytes, &layers);
    MemoryCall(ops->alloc(f), "the wavefields", bytes);
  }

  PetscCall(PropagatorSetModel(p, t, vp));
  PetscCall(PetscMalloc1(3 * (size_t)PetscMax(f->padded[0], PetscMax(f->padded[1], f->padded[2])), &host));
  for (PetscInt a = 0; a < g->dim; a++) {
    float *pa = host, *pb = host + f->padded[a], *pda = host + 2 * f->padded[a];
    PetscCall(GridLayerProfile(g, a, vmax, settings->f_pml, t->dt_int, pa, pb, pda));
    PetscCall(ops->backend->mem_upload(f->pml_a[a], pa, f->padded[a] * sizeof(float)));
    PetscCall(ops->backend->mem_upload(f->pml_b[a], pb, f->padded[a] * sizeof(float)));
    PetscCall(ops->backend->mem_upload(f->pml_da[a], pda, f->padded[a] * sizeof(float)));
  }
  PetscCall(PetscFree(host));

  PetscCall(PetscObjectGetComm((PetscObject)g->da, &comm));
  PetscCall(PetscMemzero(&hl, sizeof(hl)));
  hl.dim   = g->dim;
  hl.width = g->radius;
  for (PetscInt a = 0; a < HALO_MAXDIM; a++) {
    hl.n[a]           = g->size[a];
    hl.neighbor[a][0] = g->nbr[a][0];
    hl.neighbor[a][1] = g->nbr[a][1];
  }
  PetscCall(ops->backend->main_stream ? ops->backend->main_stream(f->backend, &stream) : 0);
  PetscCall(HaloCreate(comm, &hl, settings->halo_type, &p->halo));
  PetscCall(HaloSetStream(p->halo, stream));
  /* a slab is a field of its own: its axis cut to the slab, neighbours only
     across the faces of that axis near the same layer */
  for (PetscInt a = 0; a < g->dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      const LayerSlab *slab = &f->slab[a][s];
      HaloLayout       sl   = hl;
      PetscBool        any  = PETSC_FALSE;
      if (slab->hi == slab->lo) continue;
      sl.n[a] = slab->hi - slab->lo - 2 * g->radius;
      sl.tag  = (int)(1 + 2 * a + s);
      for (PetscInt b = 0; b < HALO_MAXDIM; b++)
        for (PetscInt t = 0; t < 2; t++) {
          const PetscBool cut = b == a && GridFaceNearLayer(g, a, t, s) ? PETSC_TRUE : PETSC_FALSE;
          sl.neighbor[b][t]   = cut ? g->nbr[a][t] : MPI_PROC_NULL;
          any                 = any || cut;
        }
      if (!any) continue;
      PetscCall(HaloCreate(comm, &sl, settings->halo_type, &p->slab_halo[a][s]));
      PetscCall(HaloSetStream(p->slab_halo[a][s], stream));
    }
  PetscCall(BuildBoxes(p));
  PetscCall(DecimatorCreate(t->m, t->nt, &p->decimator));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorDestroy(Propagator *p)
{
  PetscFunctionBeginUser;
  if (p->ops) PetscCall(p->ops->free(&p->f));
  if (p->f.grad) PetscCall(p->ops->backend->mem_free((void **)&p->f.grad));
  PetscCall(ReconstructionDestroy(p));
  PetscCall(HaloDestroy(&p->halo));
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt s = 0; s < 2; s++) PetscCall(HaloDestroy(&p->slab_halo[a][s]));
  for (PetscInt pass = 0; pass < 2; pass++)
    for (PetscInt w = 0; w < 2; w++) PetscCall(PetscFree(p->box[pass][w]));
  PetscCall(DecimatorDestroy(&p->decimator));
  PetscCall(PetscFree(p->gsum));
  PetscCall(PetscFree(p->host_vdt2));
  PetscFunctionReturn(0);
}

/* The fields of kind `kind` the stage's exchange carries (forward or
   adjoint, Equation.stage) that the state holds now, for the padded box or
   for the slab on side s of axis a. */
static PetscInt StageFields(const Propagator *p, const EquationStage *st, PetscBool adjoint, EquationFieldKind kind, PetscInt a, PetscInt s, HaloField out[])
{
  const PetscInt  n    = adjoint ? st->nadjoint : st->nforward;
  const PetscInt *list = adjoint ? st->adjoint : st->forward;
  PetscInt        m    = 0;

  for (PetscInt i = 0; i < n; i++) {
    float *data = p->eq->field[list[i]].kind == kind ? p->eq->field_data(&p->f, list[i], a, s) : NULL;
    if (data) out[m++] = (HaloField){data, kind == EQUATION_FIELD_BOX ? HALO_ALL_FACES : HALO_AXIS(a)};
  }
  return m;
}

/* Starts the exchange of the fields the equation's stage names: those of
   the padded box across every face, each CPML slab's across the faces of
   its axis that cut its layer. */
static PetscErrorCode ExchangeBegin(Propagator *p, PetscBool adjoint)
{
  const EquationStage *st = &p->eq->stage[0];
  HaloField            field[EQUATION_MAX_FIELDS];

  PetscFunctionBeginUser;
  PetscCall(HaloExchangeBegin(p->halo, StageFields(p, st, adjoint, EQUATION_FIELD_BOX, 0, 0, field), field));
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt s = 0; s < 2; s++)
      if (p->slab_halo[a][s]) PetscCall(HaloExchangeBegin(p->slab_halo[a][s], StageFields(p, st, adjoint, EQUATION_FIELD_SLAB, a, s, field), field));
  PetscFunctionReturn(0);
}

static PetscErrorCode ExchangeEnd(Propagator *p)
{
  PetscFunctionBeginUser;
  PetscCall(HaloExchangeEnd(p->halo));
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt s = 0; s < 2; s++)
      if (p->slab_halo[a][s]) PetscCall(HaloExchangeEnd(p->slab_halo[a][s]));
  PetscFunctionReturn(0);
}

/* A line from the group's first rank every progress_interval seconds; the
   clock is read every 16 steps only. */
PetscErrorCode ReportProgress(const Propagator *p, const TimeAxis *t, const char *what, PetscInt shot_id, PetscInt done, PetscLogDouble last[2])
{
  const Grid    *g = p->grid;
  PetscLogDouble now;
  PetscMPIInt    rank;

  PetscFunctionBeginUser;
  if (p->settings.progress_interval <= 0 || done % 16 || done == t->nsteps) PetscFunctionReturn(0);
  PetscCall(PetscTime(&now));
  if (now - last[0] < p->settings.progress_interval) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)g->da), &rank));
  if (!rank) {
    const double cells = (double)g->N[0] * g->N[1] * g->N[2];
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, stdout, "  shot %" PetscInt_FMT " %s: step %" PetscInt_FMT " of %" PetscInt_FMT " (%.0f%%), %.4f G cell-updates/s\n", shot_id, what, done,
                           t->nsteps, 100.0 * done / t->nsteps, cells * (done - last[1]) / (now - last[0]) * 1e-9));
    fflush(stdout);
  }
  last[0] = now;
  last[1] = done;
  PetscFunctionReturn(0);
}

/* A box operation (forward or adjoint step) over the interior (which = 0) or shell (1) boxes. */
typedef PetscErrorCode (*BoxOp)(Fields *, const Box *);

static PetscErrorCode EachBox(Propagator *p, PetscBool adjoint, PetscInt which, BoxOp op)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < p->nbox[adjoint][which]; k++) PetscCall(op(&p->f, &p->box[adjoint][which][k]));
  PetscFunctionReturn(0);
}

/* psi steps once every box has read the old one. */
static PetscErrorCode AdvanceMemory(Propagator *p)
{
  PetscFunctionBeginUser;
  for (PetscInt w = 0; w < 2; w++)
    for (PetscInt k = 0; k < p->nbox[0][w]; k++)
      if (p->box[0][w][k].layer_axes) PetscCall(p->ops->advance_memory(&p->f, &p->box[0][w][k]));
  PetscFunctionReturn(0);
}

/* Every nan_check_interval steps and after the last: a clear error, on every
   rank of the group, once the field holds NaN or Inf. */
PetscErrorCode CheckFinite(Propagator *p, const TimeAxis *t, const char *what, PetscInt shot_id, PetscInt done)
{
  PetscBool finite, all;
  MPI_Comm  comm;

  PetscFunctionBeginUser;
  if (done % p->settings.nan_check_interval && done != t->nsteps) PetscFunctionReturn(0);
  PetscCall(PetscObjectGetComm((PetscObject)p->grid->da, &comm));
  PetscCall(p->ops->all_finite(&p->f, &finite));
  PetscCallMPI(MPI_Allreduce(&finite, &all, 1, MPIU_BOOL, MPI_LAND, comm));
  PetscCheck(all, comm, PETSC_ERR_FP,
             "Shot %" PetscInt_FMT ": the %s field became NaN/Inf by internal step %" PetscInt_FMT " of %" PetscInt_FMT
             "; internal step %.6g s against a stability limit of %.6g s: check -cfl and the model",
             shot_id, what, done, t->nsteps, (double)t->dt_int, (double)t->dt_stable);
  PetscFunctionReturn(0);
}

/* The source's cells one by one (weight 1), for reading the adjoint there. */
static PetscErrorCode SourceCells(const KernelOps *ops, const PointMap *src, PointMap *d)
{
  PointMap h;

  PetscFunctionBeginUser;
  PetscCall(PointMapOfCells(src->nrows, src->cell, &h));
  PetscCall(PointMapUpload(ops->backend, &h, d));
  PetscCall(PointMapDestroy(&h));
  PetscFunctionReturn(0);
}

PetscErrorCode ShotPointsCreate(const Propagator *p, const TimeAxis *t, const ShotLocal *shot, const float *wavelet, ShotPoints *d)
{
  const KernelOps *ops     = p->ops;
  const PetscInt   ntraces = PetscMax(shot->nrec, shot->nreach), nout = shot->send_start[shot->nnbr], nin = shot->recv_start[shot->nnbr];
  float           *amp;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(t->nsteps, &amp));
  for (PetscInt n = 0; n < t->nsteps; n++) amp[n] = wavelet[n] * shot->src_scale;
  PetscCall(ops->backend->mem_alloc((void **)&d->wav, t->nsteps * sizeof(float)));
  PetscCall(ops->backend->mem_upload(d->wav, amp, t->nsteps * sizeof(float)));
  PetscCall(PetscFree(amp));
  PetscCall(PointMapUpload(ops->backend, &shot->src, &d->src));
  PetscCall(SourceCells(ops, &shot->src, &d->src_cells));
  PetscCall(PointMapUpload(ops->backend, &shot->rec, &d->rec));
  PetscCall(PointMapUpload(ops->backend, &shot->reach, &d->reach));
  PetscCall(PointMapUpload(ops->backend, &shot->send, &d->send));
  PetscCall(ops->backend->mem_alloc((void **)&d->at_src, (size_t)t->nsteps * shot->src.nrows * sizeof(float)));
  PetscCall(ops->backend->mem_alloc((void **)&d->traces, (size_t)t->nsteps * ntraces * sizeof(float)));
  PetscCall(ops->backend->mem_alloc((void **)&d->outgoing, nout * sizeof(float)));
  PetscCall(ops->backend->mem_alloc((void **)&d->remote, nin * sizeof(float)));
  PetscCall(PetscMalloc1(nout, &d->host_outgoing));
  PetscCall(PetscMalloc1(nin, &d->host_remote));
  PetscCall(PetscMalloc1(2 * shot->nnbr, &d->req));
  PetscFunctionReturn(0);
}

PetscErrorCode ShotPointsDestroy(const Propagator *p, ShotPoints *d)
{
  const KernelOps *ops = p->ops;
  PointMap        *map[] = {&d->src, &d->src_cells, &d->rec, &d->reach, &d->send};

  PetscFunctionBeginUser;
  for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++) PetscCall(PointMapFree(ops->backend, map[k]));
  PetscCall(ops->backend->mem_free((void **)&d->wav));
  PetscCall(ops->backend->mem_free((void **)&d->at_src));
  PetscCall(ops->backend->mem_free((void **)&d->traces));
  PetscCall(ops->backend->mem_free((void **)&d->outgoing));
  PetscCall(ops->backend->mem_free((void **)&d->remote));
  PetscCall(PetscFree(d->host_outgoing));
  PetscCall(PetscFree(d->host_remote));
  PetscCall(PetscFree(d->req));
  PetscFunctionReturn(0);
}

/* Tag of the receivers' values: no halo is in flight while they travel. */
#define POINTS_TAG 7301

/* Before recording: the values of this rank's cells that other ranks'
   receivers read go to them, and theirs come here. */
static PetscErrorCode PointsExchange(Propagator *p, const ShotLocal *s, ShotPoints *d)
{
  const KernelOps *ops = p->ops;
  MPI_Comm         comm;

  PetscFunctionBeginUser;
  if (!s->nnbr) PetscFunctionReturn(0);
  PetscCall(PetscObjectGetComm((PetscObject)p->grid->da, &comm));
  PetscCall(ops->record(&p->f, &d->send, NULL, d->outgoing));
  PetscCall(ops->backend->mem_download(d->host_outgoing, d->outgoing, s->send_start[s->nnbr] * sizeof(float)));
  for (PetscInt r = 0; r < s->nnbr; r++) {
    PetscMPIInt nin, nout;
    PetscCall(PetscMPIIntCast(s->recv_start[r + 1] - s->recv_start[r], &nin));
    PetscCall(PetscMPIIntCast(s->send_start[r + 1] - s->send_start[r], &nout));
    PetscCallMPI(MPI_Irecv(d->host_remote + s->recv_start[r], nin, MPI_FLOAT, s->nbr[r], POINTS_TAG, comm, &d->req[2 * r]));
    PetscCallMPI(MPI_Isend(d->host_outgoing + s->send_start[r], nout, MPI_FLOAT, s->nbr[r], POINTS_TAG, comm, &d->req[2 * r + 1]));
  }
  PetscCallMPI(MPI_Waitall(2 * (PetscMPIInt)s->nnbr, d->req, MPI_STATUSES_IGNORE));
  PetscCall(ops->backend->mem_upload(d->remote, d->host_remote, s->recv_start[s->nnbr] * sizeof(float)));
  PetscFunctionReturn(0);
}

/* The part of a step between the free-surface ghosts and the shell: the
   interior (forward or adjoint) on the side lane while the halos travel,
   or after them without overlap; then the shell, and the lanes joined. */
PetscErrorCode StepRegions(Propagator *p, PetscBool adjoint)
{
  const KernelOps *ops  = p->ops;
  const BoxOp      step = adjoint ? ops->adjoint_step : ops->step;

  PetscFunctionBeginUser;
  /* the side lane starts from here, so it never waits for the halo traffic */
  if (p->settings.overlap) PetscCall(ops->backend->side_begin(p->f.backend));
  PetscCall(PhaseBegin(FWI_HALO));
  PetscCall(ExchangeBegin(p, adjoint));
  if (!p->settings.overlap) PetscCall(ExchangeEnd(p));
  PetscCall(PhaseEnd(FWI_HALO));

  PetscCall(PhaseBegin(FWI_INTERIOR));
  PetscCall(EachBox(p, adjoint, 0, step));
  if (p->settings.overlap) PetscCall(ops->backend->side_end(p->f.backend));
  PetscCall(PhaseEnd(FWI_INTERIOR));

  if (p->settings.overlap) {
    PetscCall(PhaseBegin(FWI_HALO));
    PetscCall(ExchangeEnd(p));
    PetscCall(PhaseEnd(FWI_HALO));
  }

  PetscCall(PhaseBegin(FWI_SHELL));
  PetscCall(EachBox(p, adjoint, 1, step));
  PetscCall(ops->backend->join(p->f.backend));
  PetscCall(PhaseEnd(FWI_SHELL));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorRun(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet,
                             float *traces, WavefieldStore store)
{
  const KernelOps *ops = p->ops;
  Fields          *f   = &p->f;
  ShotPoints       d;
  void            *copy;
  const void      *samples;
  PetscLogDouble   last[2] = {0, 0}; /* time and step of the last progress line */

  PetscFunctionBeginUser;
  PetscCall(ShotPointsCreate(p, t, shot, wavelet, &d));
  PetscCall(ops->zero_state(f));
  if (store && p->method == GRADIENT_BOUNDARY) PetscCall(SupportBegin(p, &d.src, t->nsteps));
  PetscCall(PetscTime(&last[0]));
  for (PetscInt n = 0; n < t->nsteps; n++) {
    PetscCall(PhaseBegin(FWI_STEP));
    if (store && p->method == GRADIENT_BOUNDARY) PetscCall(ReconstructionSave(p, store, n, t->nsteps));
    else if (store) {
      PetscCall(WavefieldStoreWriteBegin(store, n, &f->lap));
      f->live = WavefieldStoreLive(store, n, &f->live_start);
    }
    PetscCall(PhaseBegin(FWI_INJREC));
    PetscCall(PointsExchange(p, shot, &d));
    PetscCall(ops->record(f, &d.rec, d.remote, d.traces + (size_t)n * shot->nrec));
    PetscCall(PhaseEnd(FWI_INJREC));
    PetscCall(ops->mirror_ghosts(f));
    PetscCall(StepRegions(p, PETSC_FALSE));
    PetscCall(PhaseBegin(FWI_SHELL));
    PetscCall(AdvanceMemory(p));
    PetscCall(PhaseEnd(FWI_SHELL));

    PetscCall(PhaseBegin(FWI_INJREC));
    PetscCall(ops->inject(f, &d.src, d.wav + n));
    PetscCall(ops->zero_surface(f));
    PetscCall(PhaseEnd(FWI_INJREC));
    FieldsSwap(f);
    if (store && p->method == GRADIENT_BOUNDARY) SupportGrow(p, n + 1);
    if (f->lap) {
      PetscCall(WavefieldStoreWriteEnd(store, n));
      f->lap  = NULL;
      f->live       = NULL;
      f->live_start = NULL;
    }
    PetscCall(PhaseEnd(FWI_STEP));

    PetscCall(ReportProgress(p, t, "forward", shot_id, n + 1, last));
    PetscCall(CheckFinite(p, t, "forward", shot_id, n + 1));
    if (p->settings.watch_steps && (n + 1) % p->settings.watch_steps == 0) PetscCall(p->settings.watch(p->settings.watch_ctx, shot_id, n + 1, p->eq->field_data(f, p->eq->watch_field, 0, 0)));
  }
  if (store && p->method == GRADIENT_BOUNDARY) {
    PetscCall(SupportEnd(p));
    ReconstructionStart(p);
  }
  /* the traces at the recording interval, from every internal step's samples */
  PetscCall(KernelOpsRead(ops, d.traces, (size_t)t->nsteps * shot->nrec * sizeof(float), &copy, &samples));
  DecimatorAddAll(&p->decimator, t->nsteps, shot->nrec, (const float *)samples, traces);
  PetscCall(PetscFree(copy));
  PetscCall(ShotPointsDestroy(p, &d));
  PetscFunctionReturn(0);
}
