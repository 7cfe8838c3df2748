#include "setup/experiment.h"
#include "data/events.h"
#include "setup/memory.h"
#include "setup/optmodel.h"
#include "setup/setup.h"
#include "setup/snapshot.h"
#include "shot/survey.h"
#include "data/timing.h"
#include "data/util.h"
#include "data/wavelet.h"
#include <string.h>

/* The equation -physics names. */
static const Equation *PhysicsEquation(Physics physics)
{
  switch (physics) {
  case PHYSICS_VARIABLE_DENSITY:
    return &EquationVariableDensity;
  case PHYSICS_ELASTIC:
    return &EquationElastic;
  case PHYSICS_ACOUSTIC:
    break;
  }
  return &EquationAcoustic;
}

/* -source_type as an index into the equation's source kinds. */
static PetscErrorCode SourceKind(MPI_Comm comm, const Options *o, const Equation *eq, PetscInt dim, PetscInt *kind)
{
  char offered[256] = "pressure";

  PetscFunctionBeginUser;
  *kind = 0;
  if (eq->nsource_kind) {
    offered[0] = 0;
    for (PetscInt k = 0; k < eq->nsource_kind; k++) {
      PetscCall(PetscStrlcat(offered, k ? ", " : "", sizeof offered));
      PetscCall(PetscStrlcat(offered, eq->source_kind[k].name, sizeof offered));
    }
  }
  if (!o->source_type[0]) PetscFunctionReturn(0);
  for (*kind = 0; *kind < PetscMax(1, eq->nsource_kind); (*kind)++) {
    PetscBool same;
    PetscCall(PetscStrcmp(o->source_type, eq->nsource_kind ? eq->source_kind[*kind].name : "pressure", &same));
    if (!same) continue;
    PetscCheck(!eq->nsource_kind || eq->source_kind[*kind].axis < dim, comm, PETSC_ERR_USER_INPUT, "-source_type %s: a force along y, which a %" PetscInt_FMT "D model lacks; expected one of %s",
               o->source_type, dim, offered);
    PetscFunctionReturn(0);
  }
  SETERRQ(comm, PETSC_ERR_USER_INPUT, "-source_type %s: not a source the %s equation takes; expected one of %s", o->source_type, eq->name, offered);
}

void ExperimentInvertedChoices(const Equation *eq, char *out, size_t len)
{
  size_t at = 0;

  out[0] = 0;
  for (PetscInt k = 0; k < eq->nparameter && at < len; k++) {
    at += (size_t)snprintf(out + at, len - at, "%s%s", k ? (k + 1 < eq->nparameter ? ", " : " or ") : "", eq->parameter[0].name);
    for (PetscInt j = 1; j <= k && at < len; j++) at += (size_t)snprintf(out + at, len - at, ",%s", eq->parameter[j].name);
  }
}

/* The parameters whose gradients the run takes: those -invert_for names,
   which must be the equation's first ones, each once (Equation.gradient
   reads parameter k's image and those before it); -mode gradient without
   it takes them all. */
static PetscErrorCode GradientParameters(MPI_Comm world, const Options *o, const Equation *eq, PetscInt *np)
{
  PetscInt named = 0;
  char     expected[128];

  PetscFunctionBeginUser;
  *np = eq->nparameter;
  if (o->mode == MODE_FORWARD || (o->mode == MODE_GRADIENT && !o->invert_for_set)) PetscFunctionReturn(0);
  *np = 0;
  while (*np < eq->nparameter && OptionsInverts(o, eq->parameter[*np].name)) ++*np;
  for (PetscInt k = 0; k < eq->nparameter; k++) named += OptionsInverts(o, eq->parameter[k].name);
  ExperimentInvertedChoices(eq, expected, sizeof expected);
  PetscCheck(*np >= 1 && named == *np && OptionsInvertedCount(o) == *np, world, PETSC_ERR_ARG_OUTOFRANGE,
             "-invert_for %s: expected %s (the %s equation's parameters from the first, each once)", o->invert_for, expected, eq->name);
  PetscFunctionReturn(0);
}

/* The components -record names (Equation.component indices, the first
   first), each checked against the equation and the model's dimension;
   with a misfit (the modes other than forward), the ones it reads. */
static PetscErrorCode RecordedComponents(MPI_Comm comm, const Experiment *e, PetscInt *n, PetscInt comp[EQUATION_MAX_COMPONENTS])
{
  const Equation *eq = e->backend.eq;
  char            offered[256] = "";
  PetscInt        noffered     = 0;
  size_t          len;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < eq->ncomponent; c++)
    if (eq->component[c].axis < e->model[0].dim) {
      PetscCall(PetscStrlcat(offered, noffered++ ? ", " : "", sizeof offered));
      PetscCall(PetscStrlcat(offered, eq->component[c].name, sizeof offered));
    }
  *n = 0;
  if (!e->o->record[0]) {
    comp[(*n)++] = 0;
    PetscFunctionReturn(0);
  }
  for (const char *p = e->o->record, *item; OptionsListNext(&p, &item, &len);) {
    PetscInt c = 0;
    while (c < eq->ncomponent && !(strlen(eq->component[c].name) == len && !strncmp(eq->component[c].name, item, len) && eq->component[c].axis < e->model[0].dim)) c++;
    PetscCheck(c < eq->ncomponent, comm, PETSC_ERR_USER_INPUT, "-record %s: '%.*s' is not a component the %s equation records in %" PetscInt_FMT "D; expected names from %s, comma-separated",
               e->o->record, (int)len, item, eq->name, e->model[0].dim, offered);
    for (PetscInt k = 0; k < *n; k++) PetscCheck(comp[k] != c, comm, PETSC_ERR_USER_INPUT, "-record %s: %s is listed twice; expected each component once", e->o->record, eq->component[c].name);
    comp[(*n)++] = c;
  }
  PetscFunctionReturn(0);
}

_Static_assert(OPTIONS_MAX_RECORDED == EQUATION_MAX_COMPONENTS, "-record_weights holds one weight per component an equation can record");

/* -record_weights: one weight of 0 or more per component the misfit
   reads, not all 0. */
static PetscErrorCode CheckRecordWeights(MPI_Comm comm, const Experiment *e)
{
  const Options *o   = e->o;
  PetscReal      sum = 0;

  PetscFunctionBeginUser;
  if (!o->record_weights_n) PetscFunctionReturn(0);
  PetscCheck(o->mode != MODE_FORWARD, comm, PETSC_ERR_USER_INPUT, "-record_weights with -mode forward: the weights are the misfit's (-mode gradient or invert); expected no weights");
  PetscCheck(o->record_weights_n == e->ncomponent, comm, PETSC_ERR_ARG_SIZ, "-record_weights: %" PetscInt_FMT " weight%s for the %" PetscInt_FMT " component%s of -record %s; expected one per component",
             o->record_weights_n, o->record_weights_n == 1 ? "" : "s", e->ncomponent, e->ncomponent == 1 ? "" : "s", o->record[0] ? o->record : "(default: the first)");
  for (PetscInt j = 0; j < e->ncomponent; j++) {
    PetscCheck(o->record_weights[j] >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-record_weights: %.6g for %s; expected a weight of 0 or more", (double)o->record_weights[j],
               ExperimentComponentName(e, j));
    sum += o->record_weights[j];
  }
  PetscCheck(sum > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-record_weights: every weight is 0, which leaves nothing to fit; expected at least one above 0");
  PetscFunctionReturn(0);
}

PetscErrorCode ExperimentCreate(MPI_Comm world, const Options *o, Experiment *e)
{
  const TimePhase was = TimingEnter(TIME_SETUP);
  const Equation *eq  = PhysicsEquation(o->physics);
  const char     *names[EQUATION_MAX_COMPONENTS];
  SegyPart        first;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(e, sizeof(*e)));
  e->o = o;
  PetscCall(LayoutCreate(world, o->shot_groups, &e->l));
  PetscCall(BackendSetUp(&e->l, o, eq, &e->backend));
  PetscCall(ModelDescribe(world, o, &e->model[0]));
  for (PetscInt k = 1; k < eq->nparameter; k++) PetscCall(ModelDescribeParameter(world, o, eq->parameter[k].option, &e->model[0], &e->model[k]));
  PetscCall(OptionsCheckModel(world, o, eq, &e->model[0]));
  PetscCall(SourceKind(world, o, eq, e->model[0].dim, &e->source_kind));
  PetscCall(RecordedComponents(world, e, &e->ncomponent, e->component));
  PetscCall(GradientParameters(world, o, eq, &e->ngradient));
  PetscCall(CheckRecordWeights(world, e));
  ExperimentSegyPart(e, 0, names, &first);
  PetscCall(SurveyRead(world, o, &e->model[0], &first, &e->geo));
  PetscCall(MemoryCheck(o, &e->l, &e->backend, &e->model[0], &e->geo, NULL, NULL, NULL));
  TimingLeave(was);
  PetscFunctionReturn(0);
}

PetscInt ExperimentDensity(const Experiment *e) { return EquationParameterIndex(e->backend.eq, "rho"); }

PetscErrorCode ExperimentLoadModel(Experiment *e)
{
  const Options  *o     = e->o;
  const Equation *eq    = e->backend.eq;
  const TimePhase was   = TimingEnter(TIME_IO);
  size_t          cells;

  PetscFunctionBeginUser;
  {
    /* the decomposition (PETSc's DMDA and its maps) is set-up, not I/O */
    const TimePhase in_io = TimingEnter(TIME_SETUP);
    PetscCall(GridCreate(e->l.group, e->model[0].dim, e->model[0].n, e->model[0].d, o->order, o->pml, o->procs, &e->g));
    TimingLeave(in_io);
  }
  PetscCall(PetscLogEventBegin(FWI_IO, 0, 0, 0, 0));
  cells = (size_t)e->g.size[0] * e->g.size[1] * e->g.size[2];
  for (PetscInt k = 0; k < eq->nparameter; k++) {
    MemoryCall(PetscMalloc1(cells, &e->ext[k]), "the model on this rank's cells", 4.0 * cells * eq->nparameter);
    if (e->model[k].gardner) {
      float lo = (float)PETSC_INFINITY, hi = 0;
      ModelGardner(cells, e->ext[0], e->ext[k]);
      for (size_t c = 0; c < cells; c++) lo = PetscMin(lo, e->ext[k][c]), hi = PetscMax(hi, e->ext[k][c]);
      e->range[k][0] = lo;
      e->range[k][1] = -hi;
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, e->range[k], 2, MPIU_REAL, MPIU_MIN, e->l.group));
      e->range[k][1] = -e->range[k][1];
    } else PetscCall(ModelLoadBlock(&e->model[k], &e->g, e->l.cross, e->ext[k], &e->range[k][0], &e->range[k][1]));
  }
  if (eq->check_model) PetscCall(eq->check_model(e->l.group, cells, (const float *const *)e->ext));
  e->vslow = e->range[0][0];
  if (eq->slowest_wave) {
    float slow = eq->slowest_wave(cells, (const float *const *)e->ext);
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &slow, 1, MPI_FLOAT, MPI_MIN, e->l.group));
    e->vslow = PetscMin(e->vslow, slow);
  }
  if (eq->nparameter > 1) {
    PetscCall(PetscPrintf(e->l.world, "physics %s (%s)\n", eq->name, eq->summary));
    for (PetscInt k = 1; k < eq->nparameter; k++)
      PetscCall(PetscPrintf(e->l.world, "%s %s: %.6g to %.6g %s\n", e->model[k].what, e->model[k].name, (double)e->range[k][0], (double)e->range[k][1], e->model[k].unit));
  }
  PetscCall(PetscLogEventEnd(FWI_IO, 0, 0, 0, 0));
  TimingLeave(was);
  e->cells = (double)e->g.N[0] * e->g.N[1] * e->g.N[2];
  PetscFunctionReturn(0);
}

/* This group's shots, round robin over the groups. */
static PetscErrorCode GroupShots(Experiment *e)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(e->geo.nshots, &e->shot));
  for (PetscInt s = e->l.group_id; s < e->geo.nshots; s += e->l.ngroups) e->shot[e->nshots++] = s;
  PetscFunctionReturn(0);
}

/* Where the sources act: the centres, or the nodes of an axis. */
static PetscInt SourceNode(const Experiment *e) { return e->backend.eq->nsource_kind ? e->backend.eq->source_kind[e->source_kind].axis : -1; }

PetscErrorCode ExperimentShotLocalize(const Experiment *e, PetscInt k, ShotLocal *sl) { return ExperimentShotLocalizeAt(e, k, -1, sl); }

const char *ExperimentComponentName(const Experiment *e, PetscInt j) { return e->backend.eq->component[e->component[j]].name; }

void ExperimentSegyPart(const Experiment *e, PetscInt j, const char *names[EQUATION_MAX_COMPONENTS], SegyPart *which)
{
  const Equation *eq = e->backend.eq;

  for (PetscInt k = 0; k < eq->ncomponent; k++) names[k] = eq->component[k].name;
  *which = (SegyPart){j ? ExperimentComponentName(e, j) : NULL, names, eq->ncomponent};
}

PetscErrorCode ExperimentShotLocalizeRecorded(const Experiment *e, PetscInt k, PetscInt j, ShotLocal *sl) { return ExperimentShotLocalizeAt(e, k, e->backend.eq->component[e->component[j]].axis, sl); }

PetscErrorCode ExperimentShotLocalizeAt(const Experiment *e, PetscInt k, PetscInt node, ShotLocal *sl)
{
  const ShotPlacement at = {SourceNode(e), node, e->backend.eq->surface_no_parity ? PETSC_FALSE : PETSC_TRUE};

  PetscFunctionBeginUser;
  PetscCall(ShotLocalizeAt(&e->g, &e->geo, e->shot[k], e->o->point_interpolation == POINTS_NEAREST ? PETSC_TRUE : PETSC_FALSE, &at, sl));
  PetscFunctionReturn(0);
}

PetscErrorCode ExperimentSetUp(Experiment *e, PetscReal vfast, PetscReal vslow)
{
  const Options           *o        = e->o;
  MPI_Comm                 world    = e->l.world;
  PropagatorSettings settings = {.f_pml              = o->f0,
                                 .nan_check_interval = o->nan_check_interval,
                                 .progress_interval  = o->progress_interval,
                                 .halo_type          = e->backend.halo_type,
                                 .overlap            = e->backend.overlap,
                                 .skip_quiet         = o->adjoint_skip_quiet,
                                 .gpu_tile           = o->gpu_tile,
                                 .source_kind        = e->source_kind,
                                 .component          = e->component[0],
                                 .nimage             = e->ngradient,
                                 .watch              = SnapshotWrite,
                                 .watch_ctx          = e};
  const PetscBool    gradient = o->mode != MODE_FORWARD ? PETSC_TRUE : PETSC_FALSE;
  const TimePhase    was      = TimingEnter(TIME_SETUP);
  TimePhase          setup;

  PetscFunctionBeginUser;
  PetscCall(TimeAxisSetUp(&e->g, e->backend.eq->stable_step(&e->g, vfast), o->nt, o->dt, o->cfl, &e->t));
  if (!gradient) settings.watch_steps = o->snapshot_interval * e->t.m;
  PetscCall(PrintSetUp(world, &e->l, &e->model[0], &e->g, &e->geo, &e->t, e->range[0][0], e->range[0][1]));
  if (gradient) PetscCall(GradientPlanChoose(o, &e->l, &e->backend, &e->model[0], &e->geo, &e->g, &e->t, vfast, e->ngradient, &e->plan));
  PetscCall(MemoryCheck(o, &e->l, &e->backend, &e->model[0], &e->geo, &e->g, &e->t, gradient ? e->plan.bytes : NULL));
  PetscCall(WarnOnDispersion(world, o, e->backend.eq, &e->model[0], vslow));
  PetscCall(NoteGhosts(world, o, &e->model[0], &e->geo, vslow));
  setup = TimingEnter(TIME_ALLOCATION); /* the fields, every page mapped */
  {
    const EquationKernels k = {e->backend.ops, e->backend.memory};
    PetscCall(PropagatorCreate(&e->g, e->backend.eq, &k, (const float *const *)e->ext, vfast, &e->t, &settings, &e->p));
  }
  TimingLeave(setup);
  if (gradient && e->plan.method == GRADIENT_CHECKPOINT) {
    setup = TimingEnter(TIME_ALLOCATION); /* the replay's state and the snapshots */
    PetscCall(PropagatorSetCheckpoints(&e->p, &e->t, (const float *const *)e->ext, e->plan.snapshots, e->plan.window, e->plan.tier.where, e->plan.tier.dir));
    TimingLeave(setup);
  } else if (gradient) PetscCall(PropagatorSetGradientMethod(&e->p, e->plan.method));
  PetscCall(GroupShots(e));
  PetscCall(PetscMalloc2(e->t.nt, &e->w_raw, e->t.nsteps, &e->wint));
  PetscCall(SourceWavelet(world, o, &e->t, e->w_raw));
  PetscCall(ResampleUp(e->t.nt, e->w_raw, e->t.m, e->t.nsteps, e->wint));
  TimingLeave(was);
  PetscFunctionReturn(0);
}

PetscErrorCode ExperimentDestroy(Experiment *e)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(e->shot));
  PetscCall(PetscFree2(e->w_raw, e->wint));
  for (PetscInt k = 0; k < EQUATION_MAX_PARAMETERS; k++) PetscCall(PetscFree(e->ext[k]));
  PetscCall(PropagatorDestroy(&e->p));
  PetscCall(GridDestroy(&e->g));
  PetscCall(GeometryDestroy(&e->geo));
  PetscCall(LayoutDestroy(&e->l));
  PetscFunctionReturn(0);
}
