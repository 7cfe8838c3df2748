#include "shot/propagate_impl.h"
#include "data/events.h"
#include "data/util.h"

/* The interior and shell boxes, cut at the layers as the equation says
   for each pass.  Ghosts beyond a free surface are mirrored before the
   interior starts, so only neighbours count. */
static PetscErrorCode BuildBoxes(Propagator *p)
{
  const Grid *g = p->grid;
  GridBlock   b;
  PetscInt    core[3][2], n[3];
  PetscBool   neighbour[3][2];
  Box         inner, slab[6];
  PetscInt    nslab;

  PetscFunctionBeginUser;
  GridBlockOf(g, &b);
  GridBlockCore(&b, core);
  for (PetscInt a = 0; a < 3; a++) {
    n[a] = a < g->dim ? b.n[a] : 1;
    for (PetscInt s = 0; s < 2; s++) neighbour[a][s] = a < g->dim && b.neighbour[a][s] ? PETSC_TRUE : PETSC_FALSE;
  }
  BoxesInteriorShell(g->dim, g->radius, n, neighbour, &inner, slab, &nslab);
  p->alone = GridBlockAlone(&b);
  for (PetscInt pass = 0; pass < 2; pass++) {
    const PetscBool split = p->eq->scheme->split_boxes(p->state, pass ? PETSC_TRUE : PETSC_FALSE);
    PetscCall(PetscMalloc1(BOX_MAX_PIECES, &p->box[pass][0]));
    PetscCall(PetscMalloc1(BOX_MAX_PIECES * 6, &p->box[pass][1]));
    p->nbox[pass][0] = p->nbox[pass][1] = 0;
    BoxSplitAtLayers(core, &inner, split, p->box[pass][0], &p->nbox[pass][0]);
    for (PetscInt k = 0; k < nslab; k++) BoxSplitAtLayers(core, &slab[k], split, p->box[pass][1], &p->nbox[pass][1]);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorExchangeBoxFields(Propagator *p, PetscInt n, const PetscInt list[])
{
  HaloField field[EQUATION_MAX_FIELDS];
  PetscInt  m = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    float *data = p->eq->scheme->field_data(p->state, list[i], 0, 0);
    if (data) field[m++] = (HaloField){data, HALO_ALL_FACES};
  }
  if (!m) PetscFunctionReturn(0);
  PetscCall(HaloExchangeBegin(p->halo, m, field));
  PetscCall(HaloExchangeEnd(p->halo));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorSetStateModel(Propagator *p, const TimeAxis *t, const float *const model[])
{
  PetscFunctionBeginUser;
  PetscCall(p->eq->scheme->set_model(p->state, model, t->dt_int));
  PetscCall(PropagatorExchangeBoxFields(p, p->eq->nmodel_field, p->eq->model_field));
  if (p->eq->scheme->derive_model) {
    PetscCall(p->eq->scheme->derive_model(p->state));
    PetscCall(PropagatorExchangeBoxFields(p, p->eq->nmodel_derived, p->eq->model_derived));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorSetModel(Propagator *p, const TimeAxis *t, const float *const model[])
{
  PetscFunctionBeginUser;
  PetscCall(PropagatorSetStateModel(p, t, model));
  if (p->ck) PetscCall(PropagatorCheckpointsSetModel(p, t, model));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorCreate(const Grid *g, const Equation *eq, const EquationKernels *k, const float *const model[], PetscReal vmax, const TimeAxis *t,
                                const PropagatorSettings *settings, Propagator *p)
{
  const EquationStateSettings state = {.vmax = vmax, .f_pml = settings->f_pml, .dt = t->dt_int, .skip_quiet = settings->skip_quiet, .gpu_tile = settings->gpu_tile, .source_kind = settings->source_kind,
                                       .nimage = settings->nimage};
  HaloLayout                  hl;
  GridBlock                   block;
  MPI_Comm                    comm;
  void                       *stream = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  p->eq       = eq;
  p->backend  = k->backend;
  p->grid     = g;
  p->settings = *settings;
  p->owned    = (size_t)g->size[0] * g->size[1] * g->size[2];
  p->kernels  = *k;
  p->state_settings = state;
  PetscCall(eq->scheme->create(g, k, &state, &p->state));

  comm = g->comm;
  PetscCall(PetscMemzero(&hl, sizeof(hl)));
  hl.dim   = g->dim;
  hl.width = g->radius;
  hl.pitch = g->pitch;
  for (PetscInt a = 0; a < HALO_MAXDIM; a++) {
    hl.n[a]           = g->size[a];
    hl.neighbor[a][0] = g->nbr[a][0];
    hl.neighbor[a][1] = g->nbr[a][1];
  }
  PetscCall(p->backend->main_stream ? p->backend->main_stream(PropagatorLanes(p), &stream) : 0);
  PetscCall(HaloCreate(comm, &hl, settings->halo_type, &p->halo));
  PetscCall(HaloSetStream(p->halo, stream));
  /* a slab is a field of its own: its axis cut to the slab, neighbours only
     across the faces of that axis near the same layer */
  GridBlockOf(g, &block);
  for (PetscInt a = 0; a < g->dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      HaloLayout sl  = hl;
      PetscBool  any = PETSC_FALSE;
      PetscInt   lo, hi;
      GridBlockLayerSlab(&block, a, s, &lo, &hi);
      if (hi == lo) continue;
      sl.n[a]  = hi - lo - 2 * g->radius;
      sl.pitch = a ? g->pitch : 0; /* a slab's rows are the field's but along axis 0 (fields.h) */
      sl.tag   = (int)(1 + 2 * a + s);
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
  PetscCall(PropagatorSetModel(p, t, model)); /* after the halos: a model's ghosts may travel */
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorDestroy(Propagator *p)
{
  PetscFunctionBeginUser;
  PetscCall(PropagatorCheckpointsDestroy(p));
  if (p->state) PetscCall(p->eq->scheme->destroy(&p->state));
  PetscCall(HaloDestroy(&p->halo));
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt s = 0; s < 2; s++) PetscCall(HaloDestroy(&p->slab_halo[a][s]));
  for (PetscInt pass = 0; pass < 2; pass++)
    for (PetscInt w = 0; w < 2; w++) PetscCall(PetscFree(p->box[pass][w]));
  PetscCall(DecimatorDestroy(&p->decimator));
  PetscCall(PetscFree(p->gsum));
  PetscCall(PetscFree2(p->lone.cell, p->lone.sum));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorSetGradientMethod(Propagator *p, GradientMethod m)
{
  PetscFunctionBeginUser;
  PetscCall(p->eq->scheme->set_method(p->state, m));
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
    float *data = p->eq->field[list[i]].kind == kind ? p->eq->scheme->field_data(p->state, list[i], a, s) : NULL;
    if (data) out[m++] = (HaloField){data, kind == EQUATION_FIELD_BOX ? HALO_ALL_FACES : HALO_AXIS(a)};
  }
  return m;
}

/* Starts the exchange of the fields the equation's stage names: those of
   the padded box across every face, each CPML slab's across the faces of
   its axis that cut its layer. */
static PetscErrorCode ExchangeBegin(Propagator *p, PetscInt stage, PetscBool adjoint)
{
  const EquationStage *st = &p->eq->stage[stage];
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

/* Whether one of the steps done - steps + 1 .. done is a multiple of every. */
static PetscBool Passes(PetscInt done, PetscInt steps, PetscInt every)
{
  for (PetscInt k = done - steps + 1; k <= done; k++)
    if (k % every == 0) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* A line from the group's first rank every progress_interval seconds; the
   clock is read every 16 steps only. */
PetscErrorCode ReportProgress(const Propagator *p, const TimeAxis *t, const char *what, PetscInt shot_id, PetscInt done, PetscInt steps, PetscLogDouble last[2])
{
  const Grid    *g = p->grid;
  PetscLogDouble now;
  PetscMPIInt    rank;

  PetscFunctionBeginUser;
  if (p->settings.progress_interval <= 0 || !Passes(done, steps, 16) || done == t->nsteps) PetscFunctionReturn(0);
  PetscCall(PetscTime(&now));
  if (now - last[0] < p->settings.progress_interval) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
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

/* Every nan_check_interval steps and after the last: a clear error, on every
   rank of the group, once the field holds NaN or Inf. */
PetscErrorCode CheckFinite(Propagator *p, const TimeAxis *t, const char *what, PetscInt shot_id, PetscInt done, PetscInt steps)
{
  PetscBool finite, all;
  MPI_Comm  comm;

  PetscFunctionBeginUser;
  if (!Passes(done, steps, p->settings.nan_check_interval) && done != t->nsteps) PetscFunctionReturn(0);
  comm = p->grid->comm;
  PetscCall(p->eq->scheme->all_finite(p->state, &finite));
  PetscCallMPI(MPI_Allreduce(&finite, &all, 1, MPIU_BOOL, MPI_LAND, comm));
  PetscCheck(all, comm, PETSC_ERR_FP,
             "Shot %" PetscInt_FMT ": the %s field became NaN/Inf by internal step %" PetscInt_FMT " of %" PetscInt_FMT
             "; internal step %.6g s against a stability limit of %.6g s: check -cfl and the model",
             shot_id, what, done, t->nsteps, (double)t->dt_int, (double)t->dt_stable);
  PetscFunctionReturn(0);
}

/* The source's cells one by one (weight 1), for reading the adjoint there. */
static PetscErrorCode SourceCells(const BackendOps *backend, const PointMap *src, PointMap *d)
{
  PointMap h;

  PetscFunctionBeginUser;
  PetscCall(PointMapOfCells(src->nrows, src->cell, &h));
  PetscCall(PointMapUpload(backend, &h, d));
  PetscCall(PointMapDestroy(&h));
  PetscFunctionReturn(0);
}

PetscErrorCode ShotPointsCreate(const Propagator *p, const TimeAxis *t, const ShotLocal *shot, const float *wavelet, PetscInt nresidual, const ShotResidual residual[],
                                ShotPoints *d)
{
  const BackendOps *backend = p->backend;
  float            *amp;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(d, sizeof(*d)));
  PetscCheck(nresidual >= 0 && nresidual <= EQUATION_MAX_COMPONENTS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " residual components: expected 0 to %d", nresidual,
             EQUATION_MAX_COMPONENTS);
  d->nsrc      = shot->src.nrows;
  d->nresidual = nresidual;
  PetscCall(PetscMalloc1(t->nsteps, &amp));
  for (PetscInt n = 0; n < t->nsteps; n++) amp[n] = wavelet[n] * shot->src_scale;
  PetscCall(backend->mem_alloc((void **)&d->wav, t->nsteps * sizeof(float)));
  PetscCall(backend->mem_upload(d->wav, amp, t->nsteps * sizeof(float)));
  PetscCall(PetscFree(amp));
  PetscCall(PointMapUpload(backend, &shot->src, &d->src));
  PetscCall(SourceCells(backend, &shot->src, &d->src_cells));
  PetscCall(backend->mem_alloc((void **)&d->at_src, (size_t)t->nsteps * shot->src.nrows * sizeof(float)));
  for (PetscInt i = 0; i < nresidual; i++) {
    const ShotLocal *at = residual[i].at;
    PetscCheck(residual[i].component >= 0 && residual[i].component < p->eq->ncomponent, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "The %s equation's adjoint takes the residuals of components 0 to %" PetscInt_FMT ", not %" PetscInt_FMT, p->eq->name, p->eq->ncomponent - 1, residual[i].component);
    d->component[i] = residual[i].component;
    d->nreach[i]    = at->nreach;
    PetscCall(PointMapUpload(backend, &at->reach, &d->reach[i]));
    PetscCall(backend->mem_alloc((void **)&d->traces[i], (size_t)t->nsteps * at->nreach * sizeof(float)));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ShotPointsDestroy(const Propagator *p, ShotPoints *d)
{
  const BackendOps *backend = p->backend;
  PointMap         *map[]   = {&d->src, &d->src_cells};

  PetscFunctionBeginUser;
  for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++) PetscCall(PointMapFree(backend, map[k]));
  PetscCall(backend->mem_free((void **)&d->wav));
  PetscCall(backend->mem_free((void **)&d->at_src));
  for (PetscInt i = 0; i < d->nresidual; i++) {
    PetscCall(PointMapFree(backend, &d->reach[i]));
    PetscCall(backend->mem_free((void **)&d->traces[i]));
  }
  PetscFunctionReturn(0);
}

/* One record's receivers in backend memory: the record and send maps of
   its localization (ShotRecord.at), every internal step's samples, and the
   values that travel between ranks every step. */
typedef struct {
  const ShotRecord *r;
  PointMap          rec, send;
  float            *traces, *outgoing, *remote;  /* backend */
  float            *host_outgoing, *host_remote; /* the travellers' host copies, for MPI */
  MPI_Request      *req;
} ShotReceivers;

static PetscErrorCode ShotReceiversCreate(const Propagator *p, const TimeAxis *t, const ShotRecord *r, ShotReceivers *d)
{
  const BackendOps *backend = p->backend;
  const ShotLocal  *at      = r->at;
  const PetscInt    nout = at->send_start[at->nnbr], nin = at->recv_start[at->nnbr];

  PetscFunctionBeginUser;
  PetscCheck(r->component >= 0 && r->component < p->eq->ncomponent, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "The %s equation's receivers record components 0 to %" PetscInt_FMT ", not %" PetscInt_FMT, p->eq->name, p->eq->ncomponent - 1, r->component);
  d->r = r;
  PetscCall(PointMapUpload(backend, &at->rec, &d->rec));
  PetscCall(PointMapUpload(backend, &at->send, &d->send));
  PetscCall(backend->mem_alloc((void **)&d->traces, (size_t)t->nsteps * at->nrec * sizeof(float)));
  PetscCall(backend->mem_alloc((void **)&d->outgoing, nout * sizeof(float)));
  PetscCall(backend->mem_alloc((void **)&d->remote, nin * sizeof(float)));
  PetscCall(PetscMalloc1(nout, &d->host_outgoing));
  PetscCall(PetscMalloc1(nin, &d->host_remote));
  PetscCall(PetscMalloc1(2 * at->nnbr, &d->req));
  PetscFunctionReturn(0);
}

static PetscErrorCode ShotReceiversDestroy(const Propagator *p, ShotReceivers *d)
{
  const BackendOps *backend = p->backend;

  PetscFunctionBeginUser;
  PetscCall(PointMapFree(backend, &d->rec));
  PetscCall(PointMapFree(backend, &d->send));
  PetscCall(backend->mem_free((void **)&d->traces));
  PetscCall(backend->mem_free((void **)&d->outgoing));
  PetscCall(backend->mem_free((void **)&d->remote));
  PetscCall(PetscFree(d->host_outgoing));
  PetscCall(PetscFree(d->host_remote));
  PetscCall(PetscFree(d->req));
  PetscFunctionReturn(0);
}

/* Tag of the receivers' values: no halo is in flight while they travel. */
#define POINTS_TAG 7301

/* Before recording: the values of this rank's cells that other ranks'
   receivers read go to them, and theirs come here. */
static PetscErrorCode PointsExchange(Propagator *p, ShotReceivers *d)
{
  const BackendOps *backend = p->backend;
  const ShotLocal  *s       = d->r->at;
  MPI_Comm          comm;

  PetscFunctionBeginUser;
  if (!s->nnbr) PetscFunctionReturn(0);
  comm = p->grid->comm;
  PetscCall(p->eq->scheme->record(p->state, d->r->component, &d->send, NULL, d->outgoing));
  PetscCall(backend->mem_download(d->host_outgoing, d->outgoing, s->send_start[s->nnbr] * sizeof(float)));
  for (PetscInt r = 0; r < s->nnbr; r++) {
    PetscMPIInt nin, nout;
    PetscCall(PetscMPIIntCast(s->recv_start[r + 1] - s->recv_start[r], &nin));
    PetscCall(PetscMPIIntCast(s->send_start[r + 1] - s->send_start[r], &nout));
    PetscCallMPI(MPI_Irecv(d->host_remote + s->recv_start[r], nin, MPI_FLOAT, s->nbr[r], POINTS_TAG, comm, &d->req[2 * r]));
    PetscCallMPI(MPI_Isend(d->host_outgoing + s->send_start[r], nout, MPI_FLOAT, s->nbr[r], POINTS_TAG, comm, &d->req[2 * r + 1]));
  }
  PetscCallMPI(MPI_Waitall(2 * (PetscMPIInt)s->nnbr, d->req, MPI_STATUSES_IGNORE));
  PetscCall(backend->mem_upload(d->remote, d->host_remote, s->recv_start[s->nnbr] * sizeof(float)));
  PetscFunctionReturn(0);
}

EquationStepPoints ShotPointsAt(const ShotPoints *d, PetscInt n)
{
  EquationStepPoints at = {.src = &d->src, .src_cells = &d->src_cells, .wav = d->wav + n, .at_src = d->at_src + (size_t)n * d->nsrc, .nresidual = d->nresidual};

  for (PetscInt i = 0; i < d->nresidual; i++) at.residual[i] = (EquationResidual){&d->reach[i], d->traces[i] + (size_t)n * d->nreach[i], d->component[i]};
  return at;
}

/* The equation's step over the boxes of a pass, interior (which = 0) or shell (1). */
static PetscErrorCode EachBox(Propagator *p, PetscInt stage, PetscBool adjoint, PetscInt which)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < p->nbox[adjoint][which]; k++) PetscCall(p->eq->scheme->box_step(p->state, stage, adjoint, &p->box[adjoint][which][k]));
  PetscFunctionReturn(0);
}

PetscErrorCode StepStages(Propagator *p, PetscBool adjoint, const EquationStepPoints *points)
{
  const EquationScheme *sc      = p->eq->scheme;
  const BackendOps     *backend = p->backend;
  void                 *lanes   = sc->lanes(p->state);
  const EquationRegions regions = {{p->nbox[adjoint][0], p->nbox[adjoint][1]}, {p->box[adjoint][0], p->box[adjoint][1]}};

  PetscFunctionBeginUser;
  if (p->alone && sc->fused_stages) {
    PetscBool done;
    PetscCall(PhaseBegin(FWI_INTERIOR));
    PetscCall(sc->fused_stages(p->state, adjoint, points, &done));
    PetscCall(PhaseEnd(FWI_INTERIOR));
    if (done) PetscFunctionReturn(0);
  }
  for (PetscInt stage = 0; stage < p->eq->nstage; stage++) {
    PetscCall(sc->stage_begin(p->state, stage, adjoint, points));
    /* the side lane starts from here, so it never waits for the halo traffic */
    if (p->settings.overlap) PetscCall(backend->side_begin(lanes));
    PetscCall(PhaseBegin(FWI_HALO));
    PetscCall(ExchangeBegin(p, stage, adjoint));
    if (!p->settings.overlap) PetscCall(ExchangeEnd(p));
    PetscCall(PhaseEnd(FWI_HALO));

    PetscCall(PhaseBegin(FWI_INTERIOR));
    PetscCall(EachBox(p, stage, adjoint, 0));
    if (p->settings.overlap) PetscCall(backend->side_end(lanes));
    PetscCall(PhaseEnd(FWI_INTERIOR));

    if (p->settings.overlap) {
      PetscCall(PhaseBegin(FWI_HALO));
      PetscCall(ExchangeEnd(p));
      PetscCall(PhaseEnd(FWI_HALO));
    }

    PetscCall(PhaseBegin(FWI_SHELL));
    PetscCall(EachBox(p, stage, adjoint, 1));
    PetscCall(backend->join(lanes));
    PetscCall(PhaseEnd(FWI_SHELL));
    PetscCall(sc->stage_end(p->state, stage, adjoint, &regions));
  }
  PetscFunctionReturn(0);
}

/* Forward steps n and n + 1 at once (EquationScheme.fused_steps) on a rank
   alone, step n + 1's records taken on the way and its start kept in store
   (NULL: none); *two false where the equation took neither. */
static PetscErrorCode TwoSteps(Propagator *p, WavefieldStore store, const ShotPoints *d, PetscInt n, PetscInt nrecord, const ShotRecord record[], const ShotReceivers rec[],
                               PetscBool *two)
{
  const EquationScheme    *sc        = p->eq->scheme;
  const EquationStepPoints points[2] = {ShotPointsAt(d, n), ShotPointsAt(d, n + 1)};
  EquationRecording        next[EQUATION_MAX_COMPONENTS];

  PetscFunctionBeginUser;
  *two = PETSC_FALSE;
  if (!p->alone || !sc->fused_steps || nrecord > EQUATION_MAX_COMPONENTS) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < nrecord; k++) next[k] = (EquationRecording){record[k].component, &rec[k].rec, rec[k].traces + (size_t)(n + 1) * record[k].at->nrec};
  PetscCall(PhaseBegin(FWI_INTERIOR));
  PetscCall(sc->fused_steps(p->state, store, n, points, nrecord, next, two));
  PetscCall(PhaseEnd(FWI_INTERIOR));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorRun(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet, float *traces, WavefieldStore store)
{
  const ShotRecord first = {p->settings.component, shot, traces};

  PetscFunctionBeginUser;
  PetscCall(PropagatorRunRecords(p, t, shot, shot_id, wavelet, 1, &first, store));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorRunRecords(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet, PetscInt nrecord,
                                    const ShotRecord record[], WavefieldStore store)
{
  const EquationScheme *sc = p->eq->scheme;
  ShotPoints            d;
  ShotReceivers        *rec;
  PetscLogDouble        last[2] = {0, 0}; /* time and step of the last progress line */

  PetscFunctionBeginUser;
  PetscCall(ShotPointsCreate(p, t, shot, wavelet, 0, NULL, &d));
  PetscCall(PetscCalloc1(nrecord, &rec));
  for (PetscInt k = 0; k < nrecord; k++) PetscCall(ShotReceiversCreate(p, t, &record[k], &rec[k]));
  {
    const EquationStepPoints first = ShotPointsAt(&d, 0);
    PetscCall(sc->run_begin(p->state, PETSC_FALSE, store, &first, t->nsteps));
    p->runs++;
  }
  PetscCall(PetscTime(&last[0]));
  for (PetscInt n = 0, steps; n < t->nsteps; n += steps) {
    const EquationStepPoints points = ShotPointsAt(&d, n);
    PetscBool                keep   = store ? PETSC_TRUE : PETSC_FALSE, two = PETSC_FALSE;

    if (store && p->ck) PetscCall(CheckpointsForwardStep(p, n, &keep));
    PetscCall(PhaseBegin(FWI_STEP));
    PetscCall(sc->step_begin(p->state, PETSC_FALSE, keep ? store : NULL, n, t->nsteps));
    PetscCall(PhaseBegin(FWI_INJREC));
    for (PetscInt k = 0; k < nrecord; k++) {
      PetscCall(PointsExchange(p, &rec[k]));
      PetscCall(sc->record(p->state, record[k].component, &rec[k].rec, rec[k].remote, rec[k].traces + (size_t)n * record[k].at->nrec));
    }
    PetscCall(PhaseEnd(FWI_INJREC));
    /* checkpointing decides step by step what it keeps */
    if (!(store && p->ck) && n + 1 < t->nsteps && !(p->settings.watch_steps && (n + 1) % p->settings.watch_steps == 0)) PetscCall(TwoSteps(p, store, &d, n, nrecord, record, rec, &two));
    if (!two) PetscCall(StepStages(p, PETSC_FALSE, &points));
    steps = two ? 2 : 1;
    {
      const EquationStepPoints last_points = ShotPointsAt(&d, n + steps - 1);
      PetscCall(sc->step_end(p->state, PETSC_FALSE, keep ? store : NULL, n + steps - 1, &last_points));
    }
    PetscCall(PhaseEnd(FWI_STEP));

    PetscCall(ReportProgress(p, t, "forward", shot_id, n + steps, steps, last));
    PetscCall(CheckFinite(p, t, "forward", shot_id, n + steps, steps));
    if (p->settings.watch_steps && (n + steps) % p->settings.watch_steps == 0)
      PetscCall(p->settings.watch(p->settings.watch_ctx, shot_id, n + steps, sc->field_data(p->state, p->eq->watch_field, 0, 0)));
  }
  PetscCall(sc->run_end(p->state, PETSC_FALSE, store));
  /* the traces at the recording interval, from every internal step's samples */
  for (PetscInt k = 0; k < nrecord; k++) {
    const PetscInt nrec = record[k].at->nrec;
    void          *copy;
    const void    *samples;
    PetscCall(EquationMemoryRead(p->backend, rec[k].traces, (size_t)t->nsteps * nrec * sizeof(float), &copy, &samples));
    DecimatorAddAll(&p->decimator, t->nsteps, nrec, (const float *)samples, record[k].traces);
    PetscCall(PetscFree(copy));
    PetscCall(ShotReceiversDestroy(p, &rec[k]));
  }
  PetscCall(PetscFree(rec));
  PetscCall(ShotPointsDestroy(p, &d));
  PetscFunctionReturn(0);
}
