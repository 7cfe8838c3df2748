#include "inversion/objective.h"
#include <string.h>
#include "inversion/misfit.h"
#include "inversion/selection.h"
#include "data/vtk.h"
#include "data/events.h"
#include "data/filter.h"
#include "shot/gather.h"
#include "data/input.h"
#include "setup/memory.h"
#include "setup/output.h"
#include "data/rsf.h"
#include "data/segy.h"
#include "data/segy_survey.h"
#include "shot/survey.h"
#include "data/util.h"
#include "grid/timeaxis.h"
#include "data/timing.h"

/* Shot s's observed gather of recorded component j in -observed_dir: the
   first component's shot_NNNN.rsf, each further one's
   shot_NNNN_<component>.rsf, as -mode forward writes them. */
static PetscErrorCode ObservedPath(const Experiment *e, PetscInt s, PetscInt j, char path[PETSC_MAX_PATH_LEN])
{
  return OutputComponentPath(e->o->observed_dir, s, j ? ExperimentComponentName(e, j) : NULL, FORMAT_RSF, path);
}

/* Whether two surveys are the same, trace for trace: shots (their record
   numbers), sources and receivers. */
static PetscBool SameSurvey(const Geometry *a, const Geometry *b)
{
  const PetscInt n = a->nshots;

  return n == b->nshots && !memcmp(a->rec_start, b->rec_start, sizeof(PetscInt) * (n + 1)) && !memcmp(a->record, b->record, sizeof(PetscInt) * n) &&
             !memcmp(a->src, b->src, sizeof(Position) * n) && !memcmp(a->rec, b->rec, sizeof(Position) * a->rec_start[n])
           ? PETSC_TRUE
           : PETSC_FALSE;
}

/* Recorded component j > 0 from -observed_segy: its files (SegyPart)
   must hold -nt samples at -dt and the first component's survey. */
static PetscErrorCode SegyComponentCheck(MPI_Comm world, const Experiment *e, PetscInt j)
{
  const Options *o  = e->o;
  PetscInt       nt = o->nt;
  PetscReal      dt = o->dt;
  const char    *names[EQUATION_MAX_COMPONENTS];
  SegyPart       which;
  Geometry       g;
  PetscBool      same;

  PetscFunctionBeginUser;
  ExperimentSegyPart(e, j, names, &which);
  PetscCall(SegySurveyTime(world, o->observed_segy, &which, PETSC_TRUE, PETSC_TRUE, &nt, &dt));
  PetscCall(SegySurveyRead(world, o->observed_segy, &which, e->model[0].dim, o->segy_origin, e->model[0].o, &g));
  same = SameSurvey(&e->geo, &g);
  PetscCall(GeometryDestroy(&g));
  PetscCheck(same, world, PETSC_ERR_USER_INPUT,
             "-observed_segy %s: the %s traces (files named *_%s) hold another survey than the %s traces: expected the same shots (FFIDs), sources and receivers, trace "
             "for trace, as -mode forward -output_format segy -record %s writes them",
             o->observed_segy, which.part, which.part, ExperimentComponentName(e, 0), o->record);
  PetscFunctionReturn(0);
}

/* Every shot's observed gather of every component the misfit reads must
   exist with nt samples at dt and one trace per receiver of the shot;
   errors name the shot and the file.  (A SEG-Y survey is its own data:
   -nt and -dt were checked against the first component's files, and each
   further one must hold the same survey.) */
static PetscErrorCode ObservedCheck(MPI_Comm world, const Experiment *e)
{
  const Options  *o  = e->o;
  const Geometry *geo = &e->geo;
  PetscMPIInt     rank;

  PetscFunctionBeginUser;
  if (o->observed_segy[0]) {
    for (PetscInt j = 1; j < e->ncomponent; j++) PetscCall(SegyComponentCheck(world, e, j));
    PetscFunctionReturn(0);
  }
  PetscCallMPI(MPI_Comm_rank(world, &rank));
  for (PetscInt s = 0; s < geo->nshots; s++)
    for (PetscInt j = 0; j < e->ncomponent; j++) {
      char           path[PETSC_MAX_PATH_LEN], msg[FWI_MSG_LEN] = "";
      RsfHeader      h;
      const PetscInt nrec = geo->rec_start[s + 1] - geo->rec_start[s];
      PetscCall(ObservedPath(e, s, j, path));
      if (!rank) {
        PetscBool exists;
        PetscCall(PetscTestFile(path, 'r', &exists));
        if (!exists)
          snprintf(msg, sizeof(msg), "Observed data for shot %d: %s is missing (expected one %s per shot in -observed_dir%s%s)", (int)s, path,
                   j ? "shot_NNNN_<component>.rsf" : "shot_NNNN.rsf", j ? " for each component -record names after the first, here " : "",
                   j ? ExperimentComponentName(e, j) : "");
      }
      PetscCall(RootCheck(world, msg));
      PetscCall(RsfReadHeader(world, path, &h));
      PetscCheck(h.n[0] == o->nt && h.n[1] == nrec && h.n[2] == 1, world, PETSC_ERR_USER_INPUT,
                 "Observed data for shot %" PetscInt_FMT ": %s holds %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " samples, expected %" PetscInt_FMT
                 " samples (-nt) x %" PetscInt_FMT " receivers",
                 s, path, h.n[0], h.n[1], h.n[2], o->nt, nrec);
      PetscCheck(PetscAbsReal(h.d[0] - o->dt) <= 1e-6 * o->dt, world, PETSC_ERR_USER_INPUT, "Observed data for shot %" PetscInt_FMT ": %s is sampled at d1=%.6g s, expected -dt %.6g s", s,
                 path, (double)h.d[0], (double)o->dt);
    }
  PetscFunctionReturn(0);
}

/* Bounds from the options and the starting model, which must lie within them. */
static PetscErrorCode ResolveBounds(MPI_Comm world, const Options *o, Objective *obj)
{
  PetscFunctionBeginUser;
  obj->vp_lo = o->vp_min > 0 ? o->vp_min : 0.8 * obj->e.range[0][0];
  obj->vp_hi = o->vp_max > 0 ? o->vp_max : (o->mode == MODE_INVERT ? 1.25 : 1.0) * obj->e.range[0][1];
  PetscCheck(obj->vp_lo < obj->vp_hi, world, PETSC_ERR_ARG_OUTOFRANGE, "Velocity bounds %.6g to %.6g m/s (-vp_min, -vp_max or their defaults): expected vp_min < vp_max",
             (double)obj->vp_lo, (double)obj->vp_hi);
  PetscCheck(obj->e.range[0][0] >= obj->vp_lo && obj->e.range[0][1] <= obj->vp_hi, world, PETSC_ERR_USER_INPUT,
             "The starting model %s spans %.6g to %.6g m/s, outside the bounds %.6g to %.6g m/s (-vp_min, -vp_max): widen the bounds or fix the model", obj->e.model[0].name,
             (double)obj->e.range[0][0], (double)obj->e.range[0][1], (double)obj->vp_lo, (double)obj->vp_hi);
  PetscFunctionReturn(0);
}

/* -damping where "auto": lighter in 2D, where a line of sources and
   receivers constrains each cell of the section better than a surface grid
   of them constrains a volume's cells (docs/numerics.md, "Inversion
   defaults": in 3D the lighter damping left the near surface worse than
   the start, the larger first step did not). */
static void ResolveDamping(const Options *o, Objective *obj) { obj->damping = o->damping >= 0 ? o->damping : obj->e.model[0].dim == 3 ? 0.01 : 0.003; }

/* Parameter k's starting model on the user cells, and its bounds from the
   options or from its range: a density's, over every cell; an S
   velocity's as bounds on vs / vp (TAO's variable for it: program/invert.c),
   from -vpvs_max and -vpvs_min or the range of vp / vs over the solid cells
   (an S velocity of 0 is a fluid's, held at 0), narrowed by -vs_min and
   -vs_max over vp's bounds, so that vs = (vs / vp) vp keeps within them
   whatever vp becomes.  Inverting for it, those cells must lie within
   them. */
static PetscErrorCode ParameterBounds(MPI_Comm world, const Options *o, Objective *obj, PetscInt k)
{
  const EquationParameter *par = &obj->e.backend.eq->parameter[k];
  const PetscBool          rho = !strcmp(par->name, "rho");
  const PetscInt           n   = obj->ms.nlocal;
  PetscReal                range[2] = {PETSC_MAX_REAL, PETSC_MAX_REAL}, all[2], lo, hi;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + 1, &obj->start[k]));
  ModelSpaceRestrict(&obj->ms, obj->e.ext[k], obj->start[k]);
  for (PetscInt c = 0; c < n; c++)
    if (obj->start[k][c] > 0) {
      const PetscReal m = rho ? obj->start[k][c] : obj->vp_start[c] / obj->start[k][c]; /* rho, or vp / vs */
      range[0]          = PetscMin(range[0], m);
      range[1]          = PetscMin(range[1], -m);
    }
  PetscCallMPI(MPIU_Allreduce(range, all, 2, MPIU_REAL, MPIU_MIN, world));
  lo = rho ? (o->rho_min > 0 ? o->rho_min : PetscMax(MIN_DENSITY, 0.8 * all[0])) : (o->vpvs_min > 0 ? o->vpvs_min : PetscMax(1.1, 0.8 * all[0]));
  hi = rho ? (o->rho_max > 0 ? o->rho_max : 1.25 * -all[1]) : (o->vpvs_max > 0 ? o->vpvs_max : 1.25 * -all[1]);
  /* a density's bounds; an S velocity's on vs / vp, the inverse ratio's */
  obj->lo[k] = rho ? lo : PetscMax(1 / hi, o->vs_min / obj->vp_lo);
  obj->hi[k] = rho ? hi : o->vs_max > 0 ? PetscMin(1 / lo, o->vs_max / obj->vp_hi) : 1 / lo;
  if (o->mode != MODE_INVERT || !OptionsInverts(o, par->name)) PetscFunctionReturn(0);
  PetscCheck(all[0] < PETSC_MAX_REAL, world, PETSC_ERR_USER_INPUT, "-invert_for %s: the starting %s %s is 0 in every cell, with nothing to invert; expected a positive %s somewhere", o->invert_for,
             par->label, obj->e.model[k].name, par->name);
  if (rho) {
    PetscCheck(lo < hi, world, PETSC_ERR_ARG_OUTOFRANGE, "Density bounds %.6g to %.6g (-rho_min, -rho_max or their defaults): expected the lower below the upper", (double)lo, (double)hi);
    PetscCheck(all[0] >= lo && -all[1] <= hi, world, PETSC_ERR_USER_INPUT, "The starting density %s spans %.6g to %.6g, outside the bounds %.6g to %.6g (-rho_min, -rho_max): widen the bounds or fix the model",
               obj->e.model[k].name, (double)all[0], (double)-all[1], (double)lo, (double)hi);
  } else {
    PetscCheck(obj->lo[k] < obj->hi[k], world, PETSC_ERR_ARG_OUTOFRANGE,
               "vs / vp bounds %.6g to %.6g (from -vpvs_min, -vpvs_max, and -vs_min, -vs_max over vp's bounds %.6g to %.6g m/s, or their defaults): expected the lower below the upper",
               (double)obj->lo[k], (double)obj->hi[k], (double)obj->vp_lo, (double)obj->vp_hi);
    PetscCheck(1 / -all[1] >= obj->lo[k] && 1 / all[0] <= obj->hi[k], world, PETSC_ERR_USER_INPUT,
               "The starting vs / vp of %s spans %.6g to %.6g, outside the bounds %.6g to %.6g (from -vpvs_min, -vpvs_max, and -vs_min, -vs_max over vp's bounds %.6g to %.6g m/s): widen the bounds or fix the model",
               obj->e.model[k].name, 1 / (double)-all[1], 1 / (double)all[0], (double)obj->lo[k], (double)obj->hi[k], (double)obj->vp_lo, (double)obj->vp_hi);
  }
  PetscFunctionReturn(0);
}

/* Shot s's observed gather (nrec traces) of recorded component j into
   buf: from its RSF file, or from the SEG-Y files l of that component,
   whose traces are the survey's receivers in order. */
static PetscErrorCode ReadShot(const Objective *obj, const SegyList *l, PetscInt s, PetscInt j, PetscInt nrec, float *buf)
{
  const Experiment *e = &obj->e;
  const PetscInt    start[3] = {0, 0, 0}, count[3] = {e->t.nt, nrec, 1};
  char              path[PETSC_MAX_PATH_LEN];
  RsfHeader         h;

  PetscFunctionBeginUser;
  if (l) {
    PetscCall(SegyListRead(l, e->geo.rec_start[s], nrec, buf));
    PetscFunctionReturn(0);
  }
  PetscCall(ObservedPath(e, s, j, path));
  PetscCall(RsfReadHeader(PETSC_COMM_SELF, path, &h));
  PetscCall(RsfReadBlock(PETSC_COMM_SELF, &h, start, count, buf));
  PetscCall(InputCheckFinite("observed data", path, e->t.nt, 0, nrec, 0, e->t.dt, buf));
  PetscFunctionReturn(0);
}

/* Group rank 0: this group's observed gathers, as read, each shot's
   components one after the other (Objective.obs_raw); every rank: the
   checksum of every shot's samples (restart/run.txt records them), taken
   from the gathers in memory rather than by reading the files again. */
/* Whether the gradient is one shot's alone: this group's only shot and no
   other group's to add (PropagatorGradientReset's single). */
static PetscBool LoneShot(const Experiment *e) { return e->nshots == 1 && e->l.ngroups == 1 ? PETSC_TRUE : PETSC_FALSE; }

static PetscErrorCode ReadObserved(Objective *obj)
{
  const Experiment *e = &obj->e;
  SegyList          l[EQUATION_MAX_COMPONENTS];

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc2(e->nshots + 1, &obj->obs_raw, e->nshots + 1, &obj->obs));
  PetscCall(PetscCalloc1(e->geo.nshots, &obj->obs_sum));
  if (!e->l.group_rank) {
    const PetscBool segy = obj->o->observed_segy[0] ? PETSC_TRUE : PETSC_FALSE;
    const TimePhase was  = TimingEnter(TIME_IO);
    PetscCall(PetscLogEventBegin(FWI_IO, 0, 0, 0, 0));
    for (PetscInt j = 0; j < e->ncomponent && segy; j++) {
      const char *names[EQUATION_MAX_COMPONENTS];
      SegyPart    which;
      ExperimentSegyPart(e, j, names, &which);
      PetscCall(SegyListOpen(obj->o->observed_segy, &which, &l[j]));
    }
    for (PetscInt k = 0; k < e->nshots; k++) {
      const PetscInt s = e->shot[k], nrec = e->geo.rec_start[s + 1] - e->geo.rec_start[s];
      const size_t   n = (size_t)nrec * e->t.nt, all = n * e->ncomponent;
      MemoryCall(PetscMalloc2(all, &obj->obs_raw[k], all, &obj->obs[k]), "the observed data", 8.0 * all);
      for (PetscInt j = 0; j < e->ncomponent; j++) PetscCall(ReadShot(obj, segy ? &l[j] : NULL, s, j, nrec, obj->obs_raw[k] + j * n));
      obj->obs_sum[s] = Fnv1a(FNV_START, obj->obs_raw[k], sizeof(float) * all);
    }
    for (PetscInt j = 0; j < e->ncomponent && segy; j++) PetscCall(SegyListDestroy(&l[j]));
    PetscCall(PetscLogEventEnd(FWI_IO, 0, 0, 0, 0));
    TimingLeave(was);
  }
  /* one group rank 0 holds each shot's checksum, the other ranks zero */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, obj->obs_sum, (PetscMPIInt)e->geo.nshots, MPI_UINT64_T, MPI_SUM, e->l.world));
  PetscFunctionReturn(0);
}

/* The data selection of band b, for messages. */
static PetscErrorCode DescribeSelection(const Options *o, PetscInt b, char *what, size_t size)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(what, size,
                          "offsets from -offset_min %.6g to -offset_max %.6g m, -window_velocity %.6g m/s with -window_start %.6g and -window_end %.6g s, "
                          "-kill_traces %s, -kill_dead_traces %s",
                          (double)PerBandValue(&o->offset_min, b), (double)PerBandValue(&o->offset_max, b), (double)o->window_velocity,
                          (double)PerBandValue(&o->window_start, b), (double)PerBandValue(&o->window_end, b), o->kill_traces[0] ? o->kill_traces : "(none)",
                          o->kill_dead_traces ? "on" : "off"));
  PetscFunctionReturn(0);
}

/* Nothing to fit is an error, not a misfit of 0 and a gradient of zeros
   that an inversion takes for convergence: observed data zero in every
   sample, or a data selection that keeps no trace in any band.  A band
   whose selection keeps none while others keep some is warned about. */
static PetscErrorCode CheckSomethingToFit(Objective *obj)
{
  const Experiment *e      = &obj->e;
  const Options    *o      = obj->o;
  const PetscInt    nbands = PetscMax(o->nbands, 1), ntraces = e->geo.rec_start[e->geo.nshots];
  const char       *from   = o->observed_segy[0] ? "-observed_segy" : "-observed_dir", *folder = o->observed_segy[0] ? o->observed_segy : o->observed_dir;
  PetscInt         *kept, all = 0;
  PetscMPIInt       nonzero = 0;
  char              what[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(nbands, &kept));
  for (PetscInt k = 0; k < e->nshots && !e->l.group_rank; k++) {
    const PetscInt s = e->shot[k], nrec = e->geo.rec_start[s + 1] - e->geo.rec_start[s];
    for (size_t i = 0; i < (size_t)nrec * e->t.nt * e->ncomponent && !nonzero; i++) nonzero = obj->obs_raw[k][i] != 0;
    for (PetscInt b = 0; b < nbands; b++) {
      PetscInt n;
      PetscCall(SelectionKeptTraces(o, b, &e->geo, obj->killed, s, e->model[0].dim, e->t.nt, e->t.dt, obj->obs_raw[k], &n));
      kept[b] += n;
    }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nonzero, 1, MPI_INT, MPI_MAX, e->l.world));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, kept, (PetscMPIInt)nbands, MPIU_INT, MPI_SUM, e->l.world));
  for (PetscInt b = 0; b < nbands; b++) all += kept[b];
  for (PetscInt b = 0; b < nbands && all; b++)
    if (!kept[b]) {
      PetscCall(DescribeSelection(o, b, what, sizeof what));
      PetscCall(PetscPrintf(e->l.world, "WARNING: band %" PetscInt_FMT ": the data selection keeps none of the %" PetscInt_FMT " traces (%s): the band has nothing to fit\n",
                            b + 1, ntraces, what));
    }
  PetscCall(PetscFree(kept));
  PetscCheck(nonzero, e->l.world, PETSC_ERR_USER_INPUT, "Observed data (%s %s): every sample of every shot is zero; nothing to fit (expected recorded gathers)", from,
             folder);
  PetscCall(DescribeSelection(o, 0, what, sizeof what));
  PetscCheck(all, e->l.world, PETSC_ERR_USER_INPUT, "The data selection keeps none of the %" PetscInt_FMT " traces of the survey%s (%s%s): nothing to fit", ntraces,
             nbands > 1 ? " in any band" : "", nbands > 1 ? "band 1: " : "", what);
  PetscFunctionReturn(0);
}

PetscErrorCode ObjectiveCheckFreeCells(const Objective *obj, const double *weight, const PetscReal radius[2])
{
  const Options   *o     = obj->o;
  const ModelInfo *m     = &obj->e.model[0];
  const PetscReal  depth = m->o[0] + (m->n[0] - 1) * m->d[0];
  double           most  = 0;
  char             tapers[128];

  PetscFunctionBeginUser;
  PetscCheck(o->fix_above <= depth, obj->e.l.world, PETSC_ERR_USER_INPUT,
             "-fix_above %.6g m lies below the model's deepest cell (%.6g m): every cell is fixed, nothing to invert", (double)o->fix_above, (double)depth);
  for (PetscInt c = 0; c < obj->ms.nlocal && !obj->e.l.group_id; c++) most = PetscMax(most, weight[c]);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, obj->e.l.world));
  PetscCall(PetscSNPrintf(tapers, sizeof tapers, "-source_taper %.6g m and -receiver_taper %.6g m", (double)radius[0], (double)radius[1]));
  PetscCheck(most > 0, obj->e.l.world, PETSC_ERR_USER_INPUT, "%s (with -fix_above %.6g m) leave no model cell a gradient weight above 0: nothing to invert", tapers,
             (double)o->fix_above);
  if (most < 1)
    PetscCall(PetscPrintf(obj->e.l.world,
                          "WARNING: every free cell lies within %s of a source or receiver: the gradient is damped everywhere (weights at most %.3g), which the "
                          "inversion may take for convergence; use smaller radii\n",
                          tapers, most));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetBand(Objective *obj, PetscInt band, PetscReal fcut, PetscBool tell);

PetscErrorCode ObjectiveCreate(MPI_Comm world, const Options *o, Objective *obj)
{
  Experiment     *e   = &obj->e;
  const TimePhase was = TimingEnter(TIME_SETUP);
  TimePhase       setup;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(obj, sizeof(*obj)));
  obj->o = o;
  PetscCall(ExperimentCreate(world, o, e));
  PetscCall(ExperimentLoadModel(e));
  PetscCall(ResolveBounds(world, o, obj));
  ResolveDamping(o, obj);
  PetscCall(ObservedCheck(world, e));
  PetscCall(ExperimentSetUp(e, obj->vp_hi, obj->vp_lo));
  PetscCall(PetscPrintf(world, "velocity bounds %.6g to %.6g m/s; the time step and absorbing layers are set for %.6g m/s\n", (double)obj->vp_lo, (double)obj->vp_hi,
                        (double)obj->vp_hi));
  PetscCall(ModelSpaceCreate(&e->g, &obj->ms));
  PetscCall(PetscMalloc1(obj->ms.nlocal + 1, &obj->vp_start));
  ModelSpaceRestrict(&obj->ms, e->ext[0], obj->vp_start);
  for (PetscInt k = 1; k < e->backend.eq->nparameter; k++) PetscCall(ParameterBounds(world, o, obj, k));
  /* checkpointing's ring of a window's steps and one more in memory, as floats, wherever its snapshots lie */
  const WavefieldTier ring = {STORAGE_AUTO, CODEC_NONE, NULL};
  PetscCall(WavefieldStoreCreate(world, e->backend.memory, PropagatorLanes(&e->p), e->plan.n, e->plan.nsteps, e->plan.method == GRADIENT_CHECKPOINT ? &ring : &e->plan.tier, &e->plan.live,
                                 e->plan.method == GRADIENT_BOUNDARY ? "the layer band of every step" : e->plan.method == GRADIENT_CHECKPOINT ? "a window of steps run again, and one more" : "every step",
                                 &obj->store));
  if (e->plan.method == GRADIENT_CHECKPOINT) PetscCall(WavefieldStoreSetRing(obj->store));
  setup = TimingEnter(TIME_ALLOCATION);
  PetscCall(PropagatorGradientReset(&e->p, LoneShot(e))); /* its pages mapped with the store's, before any evaluation */
  TimingLeave(setup);
  PetscCall(ReadObserved(obj));
  PetscCall(SelectionKillList(world, o->kill_traces, &e->geo, &obj->killed));
  PetscCall(CheckSomethingToFit(obj));
  PetscCall(SetBand(obj, 0, 0, o->mode != MODE_INVERT)); /* an inversion sets each band's as it starts it */
  TimingLeave(was);
  PetscFunctionReturn(0);
}

PetscErrorCode ObjectiveDestroy(Objective *obj)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < obj->e.nshots && obj->obs_raw; k++)
    if (obj->obs_raw[k]) PetscCall(PetscFree2(obj->obs_raw[k], obj->obs[k]));
  PetscCall(PetscFree2(obj->obs_raw, obj->obs));
  PetscCall(PetscFree(obj->obs_sum));
  PetscCall(PetscFree(obj->killed));
  PetscCall(PetscFree(obj->vp_start));
  for (PetscInt k = 1; k < obj->e.backend.eq->nparameter; k++) PetscCall(PetscFree(obj->start[k]));
  PetscCall(PetscFree(obj->w_band));
  for (PetscInt k = 0; k < EQUATION_MAX_PARAMETERS; k++) PetscCall(PetscFree(obj->grad_ext[k]));
  for (PetscInt k = 0; k < obj->e.nshots && obj->wint_shot; k++) PetscCall(PetscFree(obj->wint_shot[k]));
  PetscCall(PetscFree(obj->wint_shot));
  PetscCall(WavefieldStoreDestroy(&obj->store));
  PetscCall(ModelSpaceDestroy(&obj->ms));
  PetscCall(ExperimentDestroy(&obj->e));
  PetscFunctionReturn(0);
}

/* Each component's weight in the band's misfit (Objective.weight): 1 for
   the first; with -misfit l2, a further one's the first's observed energy
   over its own in the band (summed over every shot), so that each
   component counts alike whatever its units (pascals against metres per
   second: the impedance squared apart); 1 for the misfits blind to
   scale; each times its -record_weights.  A further component whose band
   holds no energy is refused.  The energies are summed over the shots
   exactly, so that the weights do not depend on how the shots were spread
   over groups.  tell: print them. */
static PetscErrorCode ComponentWeights(Objective *obj, PetscBool tell)
{
  const Experiment *e = &obj->e;
  const PetscInt    nc = e->ncomponent;
  ExactSum          sum[EQUATION_MAX_COMPONENTS] = {{{0}}};
  double            first;
  MPI_Datatype      type;
  MPI_Op            op;
  int               bad = 0;
  char              line[256] = "";

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < nc; j++) obj->weight[j] = obj->o->record_weights_n ? obj->o->record_weights[j] : 1;
  if (nc == 1 || obj->o->misfit != MISFIT_L2) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < e->nshots && !e->l.group_rank; k++) {
    const size_t n = (size_t)(e->geo.rec_start[e->shot[k] + 1] - e->geo.rec_start[e->shot[k]]) * e->t.nt;
    for (PetscInt j = 0; j < nc; j++) {
      double shot = 0;
      for (size_t i = 0; i < n; i++) shot += (double)obj->obs[k][j * n + i] * obj->obs[k][j * n + i];
      bad |= ExactSumAdd(&sum[j], shot);
    }
  }
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FP, "The observed data's energy in a shot is not finite or exceeds 2^128: expected finite samples below 1e19");
  PetscCall(ExactSumMPI(&type, &op));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, sum, (PetscMPIInt)nc, type, op, e->l.world));
  first = ExactSumValue(&sum[0]);
  for (PetscInt j = 0; j < nc; j++) {
    const char  *name   = ExperimentComponentName(e, j);
    const double energy = ExactSumValue(&sum[j]);
    PetscCheck(energy > 0, e->l.world, PETSC_ERR_USER_INPUT,
               "Band %" PetscInt_FMT ": the observed %s data are zero in every sample (after the band's filter), so the misfit cannot weigh -record %s's components against each other; expected recorded %s gathers",
               obj->band + 1, name, obj->o->record, name);
    obj->weight[j] *= first / energy;
    PetscCall(PetscStrlcat(line, j ? ", " : "", sizeof line));
    PetscCall(PetscStrlcat(line, name, sizeof line));
    PetscCall(PetscSNPrintf(line + strlen(line), sizeof line - strlen(line), " %.4g", obj->weight[j]));
  }
  if (!tell) PetscFunctionReturn(0);
  if (obj->o->mode == MODE_INVERT) PetscCall(PetscPrintf(e->l.world, "band %" PetscInt_FMT ": ", obj->band + 1));
  PetscCall(PetscPrintf(e->l.world, "the misfit weighs its components %s (each scaled to the observed energy of the first%s)\n", line,
                        obj->o->record_weights_n ? ", times -record_weights" : ""));
  PetscFunctionReturn(0);
}

/* ObjectiveSetBand, printing the weights where tell is set. */
static PetscErrorCode SetBand(Objective *obj, PetscInt band, PetscReal fcut, PetscBool tell)
{
  const TimeAxis *t = &obj->e.t;
  float          *w;

  PetscFunctionBeginUser;
  obj->band = band;
  if (!obj->w_band) PetscCall(PetscMalloc1(t->nt, &obj->w_band));
  w = obj->w_band;
  PetscCall(PetscArraycpy(w, obj->e.w_raw, t->nt));
  if (fcut > 0) PetscCall(LowPassZeroPhase(fcut, t->dt, t->nt, 1, w));
  PetscCall(ResampleUp(t->nt, w, t->m, t->nsteps, obj->e.wint));
  for (PetscInt k = 0; k < obj->e.nshots; k++) {
    const PetscInt ntraces = (obj->e.geo.rec_start[obj->e.shot[k] + 1] - obj->e.geo.rec_start[obj->e.shot[k]]) * obj->e.ncomponent;
    if (!obj->obs[k]) continue;
    PetscCall(PetscArraycpy(obj->obs[k], obj->obs_raw[k], (size_t)ntraces * t->nt));
    if (fcut > 0) PetscCall(LowPassZeroPhase(fcut, t->dt, t->nt, ntraces, obj->obs[k]));
  }
  PetscCall(ComponentWeights(obj, tell));
  PetscFunctionReturn(0);
}

PetscErrorCode ObjectiveSetBand(Objective *obj, PetscInt band, PetscReal fcut) { return SetBand(obj, band, fcut, PETSC_TRUE); }

/* Group rank 0: the misfit of shot k's modelled gathers all[] (nrec x nt
   of each component, one after the other) over the selected data, and in
   all[] their adjoint sources: both gathers weighted by the selection (the
   same for every component, chosen on the first's traces), and the
   adjoint source by it once more (the transpose); the components' misfits
   summed with their weights (Objective.weight). */
static PetscErrorCode SelectedMisfit(Objective *obj, PetscInt k, float *all, double *J)
{
  const TimeAxis *t = &obj->e.t;
  const PetscInt  s = obj->e.shot[k], nrec = obj->e.geo.rec_start[s + 1] - obj->e.geo.rec_start[s];
  const size_t    n = (size_t)nrec * t->nt;
  const PetscBool all_kept = SelectionKeepsAll(obj->o, obj->band, &obj->e.geo, obj->killed, s, t->nt, obj->obs_raw[k]);
  float          *w = NULL, *o = NULL;

  PetscFunctionBeginUser;
  if (!all_kept) { /* weights of 1 change no value */
    MemoryCall(PetscMalloc2(n, &w, n, &o), "the data selection", 8.0 * n);
    SelectionWeights(obj->o, obj->band, &obj->e.geo, obj->killed, s, obj->e.model[0].dim, t->nt, t->dt, obj->obs_raw[k], w);
  }
  *J = 0;
  for (PetscInt j = 0; j < obj->e.ncomponent; j++) {
    float *const       syn = all + j * n;
    const float *const obs = obj->obs[k] + j * n;
    const float        scale = (float)obj->weight[j];
    if (!all_kept) {
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < n; i++) {
        syn[i] *= w[i];
        o[i] = obs[i] * w[i];
      }
    }
    *J += obj->weight[j] * MisfitGather(obj->o->misfit, nrec, t->nt, syn, all_kept ? obs : o, syn);
    if (!all_kept || scale != 1) {
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < n; i++) syn[i] *= (all_kept ? 1 : w[i]) * scale;
    }
  }
  PetscCall(PetscFree2(w, o));
  PetscFunctionReturn(0);
}

/* The internal-step wavelet of the group's shot k: estimated, or the band's. */
static const float *ShotWavelet(const Objective *obj, PetscInt k) { return obj->wint_shot ? obj->wint_shot[k] : obj->e.wint; }

/* A shot's recorded components (the first nc of Experiment.component):
   each one's receivers localized at its nodes (sl[j]) and this rank's
   traces of it (mine[j], with room for the adjoint's residuals too). */
typedef struct {
  PetscInt  nc;
  ShotLocal sl[EQUATION_MAX_COMPONENTS];
  float    *mine[EQUATION_MAX_COMPONENTS];
} ShotTraces;

static PetscErrorCode ShotTracesDestroy(ShotTraces *st)
{
  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < st->nc; j++) {
    PetscCall(PetscFree(st->mine[j]));
    PetscCall(ShotLocalDestroy(&st->sl[j]));
  }
  PetscFunctionReturn(0);
}

/* Shot k's forward run recording its first nc components (storing for the
   adjoint when store is set) into st, and the gathers in *all on the
   group's first rank (nrec x nt of each component, one after the other;
   NULL elsewhere). */
static PetscErrorCode Modelled(Objective *obj, PetscInt k, PetscInt nc, WavefieldStore store, ShotTraces *st, float **all)
{
  const Experiment *e = &obj->e;
  const TimeAxis   *t = &e->t;
  const PetscInt    s = e->shot[k], nrec = e->geo.rec_start[s + 1] - e->geo.rec_start[s];
  const size_t      n = (size_t)nrec * t->nt;
  ShotRecord        rec[EQUATION_MAX_COMPONENTS];
  TimePhase         was;

  PetscFunctionBeginUser;
  st->nc = 0;
  *all   = NULL;
  for (PetscInt j = 0; j < nc; j++) {
    ShotLocal *sl = &st->sl[j];
    PetscInt   ntraces;
    PetscCall(ExperimentShotLocalizeRecorded(e, k, j, sl));
    st->nc++;
    ntraces = PetscMax(sl->nrec, sl->nreach);
    MemoryCall(PetscMalloc1((size_t)ntraces * t->nt + 1, &st->mine[j]), "the shot's traces", 4.0 * ntraces * t->nt);
    rec[j] = (ShotRecord){e->component[j], sl, st->mine[j]};
  }
  was = TimingEnter(TIME_FORWARD);
  PetscCall(PropagatorRunRecords(&obj->e.p, t, &st->sl[0], s, ShotWavelet(obj, k), nc, rec, store));
  TimingLeave(was);
  if (!e->l.group_rank) MemoryCall(PetscMalloc1(n * nc, all), "the shot's gathers", 4.0 * n * nc);
  for (PetscInt j = 0; j < nc; j++) PetscCall(ShotGather(&e->l, t->nt, &st->sl[j], s, nrec, st->mine[j], *all ? *all + j * n : NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode ObjectiveModelShot(Objective *obj, PetscInt k, PetscInt nc, float **all)
{
  ShotTraces st;

  PetscFunctionBeginUser;
  PetscCheck(nc >= 1 && nc <= obj->e.ncomponent, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " components: expected 1 to %" PetscInt_FMT, nc, obj->e.ncomponent);
  PetscCall(Modelled(obj, k, nc, NULL, &st, all));
  PetscCall(ShotTracesDestroy(&st));
  PetscFunctionReturn(0);
}

/* One shot: modelled traces, residuals and misfit on the group's first
   rank, and with a gradient the adjoint run taking every component's
   residuals.  *J gets this shot's misfit on the group's first rank. */
static PetscErrorCode Shot(Objective *obj, PetscInt k, PetscBool grad, double *J)
{
  const Experiment *e = &obj->e;
  const TimeAxis   *t = &e->t;
  const PetscInt    s = e->shot[k], nrec = e->geo.rec_start[s + 1] - e->geo.rec_start[s];
  const size_t      n = (size_t)nrec * t->nt;
  ShotTraces        st;
  float            *all;

  PetscFunctionBeginUser;
  PetscCall(Modelled(obj, k, e->ncomponent, grad ? obj->store : NULL, &st, &all));
  *J = 0;
  if (!e->l.group_rank) PetscCall(SelectedMisfit(obj, k, all, J));
  if (grad) {
    const TimePhase was = TimingEnter(TIME_ADJOINT);
    ShotResidual    res[EQUATION_MAX_COMPONENTS];
    for (PetscInt j = 0; j < st.nc; j++) {
      PetscCall(ShotScatter(&e->l, t->nt, &st.sl[j], nrec, all ? all + j * n : NULL, st.mine[j]));
      res[j] = (ShotResidual){e->component[j], &st.sl[j], st.mine[j]};
    }
    PetscCall(PetscFree(all)); /* scattered: not held through the adjoint run */
    PetscCall(PropagatorAdjointResiduals(&obj->e.p, t, &st.sl[0], s, ShotWavelet(obj, k), st.nc, res, obj->store));
    TimingLeave(was);
  }
  PetscCall(PetscFree(all));
  PetscCall(ShotTracesDestroy(&st));
  PetscFunctionReturn(0);
}

/* The owned extended cells' dJ/dv (and dJ/d of the other parameters)
   summed over the groups (exactly, so that it does not depend on how the
   shots were spread), then folded onto the user cells: valid on group 0.
   The extended cells' arrays are kept from one evaluation to the next:
   fresh pages cost more than the fold. */
static PetscErrorCode GradientReduce(Objective *obj, double *grad)
{
  const Grid    *g = &obj->e.g;
  const size_t   cells = (size_t)g->size[0] * g->size[1] * g->size[2];
  const PetscInt np    = obj->e.backend.eq->nparameter;
  double *const *ext   = obj->grad_ext;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < np; k++)
    if (!ext[k]) PetscCall(PetscMalloc1(cells, &obj->grad_ext[k]));
  PetscCall(PropagatorGradientReduce(&obj->e.p, obj->e.l.cross));
  PetscCall(PropagatorGradient(&obj->e.p, (const float *const *)obj->e.ext, ext));
  PetscCall(ModelSpaceFold(&obj->ms, MPI_DOUBLE, ext[0], grad));
  for (PetscInt k = 1; k < np; k++)
    if (obj->grad_rest && obj->grad_rest[k - 1]) PetscCall(ModelSpaceFold(&obj->ms, MPI_DOUBLE, ext[k], obj->grad_rest[k - 1]));
  PetscFunctionReturn(0);
}

PetscErrorCode ObjectiveSetModel(Objective *obj, const float *vp)
{
  const float *v  = obj->e.ext[0];
  float        lo = (float)PETSC_INFINITY, hi = -(float)PETSC_INFINITY; /* float, so that the loop runs as vector code */
  PetscReal    range[2], all[2];

  PetscFunctionBeginUser;
  PetscCall(ModelSpaceExtend(&obj->ms, MPI_FLOAT, vp, obj->e.ext[0]));
#pragma omp parallel for reduction(min : lo) reduction(max : hi) schedule(static)
  for (PetscInt c = 0; c < obj->e.g.size[0] * obj->e.g.size[1] * obj->e.g.size[2]; c++) {
    lo = PetscMin(lo, v[c]);
    hi = PetscMax(hi, v[c]);
  }
  range[0] = lo;
  range[1] = -(PetscReal)hi;
  PetscCallMPI(MPIU_Allreduce(range, all, 2, MPIU_REAL, MPIU_MIN, obj->e.l.world));
  PetscCheck(all[0] > 0 && -all[1] <= obj->vp_hi * (1 + 1e-6), obj->e.l.world, PETSC_ERR_ARG_OUTOFRANGE,
             "Model velocities %.6g to %.6g m/s leave (0, %.6g] m/s, for which the time step was chosen (-vp_max); use a bound-constrained -tao_type (blmvm, bqnls, bncg)",
             (double)all[0], (double)-all[1], (double)obj->vp_hi);
  for (PetscInt k = 1; k < obj->e.backend.eq->nparameter; k++) {
    float *const ext   = obj->e.ext[k];
    float        least = (float)PETSC_INFINITY;
    if (!obj->rest[k]) continue;
    PetscCall(ModelSpaceExtend(&obj->ms, MPI_FLOAT, obj->rest[k], ext));
    if (k != ExperimentDensity(&obj->e)) continue;
#pragma omp parallel for reduction(min : least) schedule(static)
    for (PetscInt c = 0; c < obj->e.g.size[0] * obj->e.g.size[1] * obj->e.g.size[2]; c++) least = PetscMin(least, ext[c]);
    range[0] = least;
    PetscCallMPI(MPIU_Allreduce(range, all, 1, MPIU_REAL, MPIU_MIN, obj->e.l.world));
    PetscCheck(all[0] > 0, obj->e.l.world, PETSC_ERR_ARG_OUTOFRANGE, "Model density %.6g kg/m^3: expected a density above 0 in every cell (-rho_min)", (double)all[0]);
  }
  if (obj->e.backend.eq->check_model && obj->rest[1])
    PetscCall(obj->e.backend.eq->check_model(obj->e.l.world, (size_t)obj->e.g.size[0] * obj->e.g.size[1] * obj->e.g.size[2], (const float *const *)obj->e.ext));
  PetscCall(PropagatorSetModel(&obj->e.p, &obj->e.t, (const float *const *)obj->e.ext));
  PetscFunctionReturn(0);
}

PetscErrorCode ObjectiveEvaluate(Objective *obj, const float *vp, double *J, double *grad)
{
  ExactSum     misfit = {{0}}; /* summed exactly: J does not depend on how the shots were spread */
  MPI_Datatype exact_type;
  MPI_Op       exact_op;

  PetscFunctionBeginUser;
  PetscCall(ObjectiveSetModel(obj, vp));
  if (grad) PetscCall(PropagatorGradientReset(&obj->e.p, LoneShot(&obj->e)));
  for (PetscInt k = 0; k < obj->e.nshots; k++) {
    double         Js = 0;
    PetscLogDouble t0, t1;
    PetscCall(PetscTime(&t0));
    PetscCall(Shot(obj, k, grad ? PETSC_TRUE : PETSC_FALSE, &Js));
    PetscCheck(!ExactSumAdd(&misfit, Js), PETSC_COMM_SELF, PETSC_ERR_FP, "Shot %" PetscInt_FMT ": misfit %g: expected a finite value below 2^128", obj->e.shot[k], Js);
    PetscCall(PetscTime(&t1));
    if (!obj->e.l.group_rank && obj->o->progress_interval > 0) {
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, stdout, "  shot %" PetscInt_FMT " (group %d): misfit %.6e, %s %.3f s, %.4f G cell-updates/s\n", obj->e.shot[k], obj->e.l.group_id, Js,
                             grad ? "forward + adjoint" : "forward", t1 - t0, obj->e.cells * obj->e.t.nsteps * (grad ? 2 : 1) / (t1 - t0) * 1e-9));
      fflush(stdout);
    }
  }
  PetscCall(ExactSumMPI(&exact_type, &exact_op));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &misfit, 1, exact_type, exact_op, obj->e.l.world));
  *J = ExactSumValue(&misfit);
  if (grad) {
    const TimePhase was = TimingEnter(TIME_ADJOINT); /* the adjoint's images summed over the groups */
    PetscCall(GradientReduce(obj, grad));
    TimingLeave(was);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ObjectiveWriteModel(Objective *obj, const char *name, const char *vtk_name, const char *label, const char *unit, const float *user, PetscBool overwrite)
{
  const ModelInfo  *m        = &obj->e.model[0];
  RsfAxes           axes;
  PetscInt          start[3], count[3];
  char              path[PETSC_MAX_PATH_LEN];
  const TimePhase   was = TimingEnter(TIME_IO);

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FWI_IO, 0, 0, 0, 0));
  for (PetscInt a = 0; a < 3; a++) {
    start[a] = obj->ms.lo[a];
    count[a] = obj->e.l.group_id ? 0 : obj->ms.n[a];
  }
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", obj->o->output_dir, name));
  ModelAxes(m, &axes);
  axes.value_label = label;
  axes.value_unit  = unit;
  if (SegyIsPath(name)) PetscCall(SegyModelWrite(obj->e.l.world, path, m->n, m->d, m->o, start, count, user, overwrite));
  else PetscCall(RsfWriteBlock(obj->e.l.world, path, &axes, start, count, user, overwrite));
  if (vtk_name && obj->o->vtk) PetscCall(VtkFromRsf(obj->e.l.world, path, vtk_name, overwrite));
  PetscCall(PetscLogEventEnd(FWI_IO, 0, 0, 0, 0));
  TimingLeave(was);
  PetscFunctionReturn(0);
}
