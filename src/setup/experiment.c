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

PetscErrorCode ExperimentCreate(MPI_Comm world, const Options *o, Experiment *e)
{
  const TimePhase was = TimingEnter(TIME_SETUP);
  const Equation *eq  = o->physics == PHYSICS_VARIABLE_DENSITY ? &EquationVariableDensity : &EquationAcoustic;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(e, sizeof(*e)));
  e->o = o;
  PetscCall(LayoutCreate(world, o->shot_groups, &e->l));
  PetscCall(BackendSetUp(&e->l, o, eq, &e->backend));
  PetscCall(ModelDescribe(world, o, &e->m));
  if (o->physics == PHYSICS_VARIABLE_DENSITY) PetscCall(ModelDescribeDensity(world, o, &e->m, &e->rho));
  PetscCall(OptionsCheckModel(world, o, eq, &e->m));
  PetscCall(SurveyRead(world, o, &e->m, &e->geo));
  PetscCall(MemoryCheck(o, &e->l, &e->backend, &e->m, &e->geo, NULL, NULL, NULL));
  TimingLeave(was);
  PetscFunctionReturn(0);
}

PetscErrorCode ExperimentLoadModel(Experiment *e)
{
  const Options  *o   = e->o;
  const TimePhase was = TimingEnter(TIME_IO);

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FWI_IO, 0, 0, 0, 0));
  PetscCall(GridCreate(e->l.group, e->m.dim, e->m.n, e->m.d, o->order, o->pml, o->procs, &e->g));
  MemoryCall(PetscMalloc1((size_t)e->g.size[0] * e->g.size[1] * e->g.size[2], &e->vp_ext), "the model on this rank's cells",
             4.0 * e->g.size[0] * e->g.size[1] * e->g.size[2]);
  PetscCall(ModelLoadBlock(&e->m, &e->g, e->l.cross, e->vp_ext, &e->vmin, &e->vmax));
  if (o->physics == PHYSICS_VARIABLE_DENSITY) {
    const size_t cells = (size_t)e->g.size[0] * e->g.size[1] * e->g.size[2];
    PetscReal    loaded[2];
    float        range[2], lo = (float)PETSC_INFINITY, hi = 0;
    MemoryCall(PetscMalloc1(cells, &e->rho_ext), "the density on this rank's cells", 4.0 * cells);
    if (e->rho.gardner) ModelGardner(cells, e->vp_ext, e->rho_ext);
    else PetscCall(ModelLoadBlock(&e->rho, &e->g, e->l.cross, e->rho_ext, &loaded[0], &loaded[1]));
    for (size_t c = 0; c < cells; c++) lo = PetscMin(lo, e->rho_ext[c]), hi = PetscMax(hi, e->rho_ext[c]);
    PetscCallMPI(MPIU_Allreduce(&lo, &range[0], 1, MPI_FLOAT, MPI_MIN, e->l.group));
    PetscCallMPI(MPIU_Allreduce(&hi, &range[1], 1, MPI_FLOAT, MPI_MAX, e->l.group));
    e->rho_min = range[0];
    e->rho_max = range[1];
    PetscCall(PetscPrintf(e->l.world, "physics %s (%s); density %s: %.6g to %.6g kg/m^3\n", e->backend.eq->name, e->backend.eq->summary, e->rho.name, (double)range[0],
                          (double)range[1]));
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

PetscErrorCode ExperimentShotLocalize(const Experiment *e, PetscInt k, ShotLocal *sl) { return ExperimentShotLocalizeAt(e, k, -1, sl); }

PetscErrorCode ExperimentShotLocalizeAt(const Experiment *e, PetscInt k, PetscInt node, ShotLocal *sl)
{
  PetscFunctionBeginUser;
  PetscCall(ShotLocalizeAt(&e->g, &e->geo, e->shot[k], e->o->point_interpolation == POINTS_NEAREST ? PETSC_TRUE : PETSC_FALSE, node, sl));
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
                                 .watch              = SnapshotWrite,
                                 .watch_ctx          = e};
  const PetscBool    gradient = o->mode != MODE_FORWARD ? PETSC_TRUE : PETSC_FALSE;
  const TimePhase    was      = TimingEnter(TIME_SETUP);
  TimePhase          setup;

  PetscFunctionBeginUser;
  PetscCall(TimeAxisSetUp(&e->g, e->backend.eq->stable_step(&e->g, vfast), o->nt, o->dt, o->cfl, &e->t));
  if (!gradient) settings.watch_steps = o->snapshot_interval * e->t.m;
  PetscCall(PrintSetUp(world, &e->l, &e->m, &e->g, &e->geo, &e->t, e->vmin, e->vmax));
  if (gradient) PetscCall(GradientPlanChoose(o, &e->l, &e->backend, &e->m, &e->geo, &e->g, &e->t, &e->plan));
  PetscCall(MemoryCheck(o, &e->l, &e->backend, &e->m, &e->geo, &e->g, &e->t, gradient ? e->plan.bytes : NULL));
  PetscCall(WarnOnDispersion(world, o, e->backend.eq, &e->m, vslow));
  PetscCall(NoteGhosts(world, o, &e->m, &e->geo, vslow));
  setup = TimingEnter(TIME_ALLOCATION); /* the fields, every page mapped */
  {
    const EquationKernels k = {e->backend.ops, e->backend.memory};
    PetscCall(PropagatorCreate(&e->g, e->backend.eq, &k, (const float *const[]){e->vp_ext, e->rho_ext}, vfast, &e->t, &settings, &e->p));
  }
  TimingLeave(setup);
  if (gradient) PetscCall(PropagatorSetGradientMethod(&e->p, e->plan.method));
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
  PetscCall(PetscFree(e->vp_ext));
  PetscCall(PetscFree(e->rho_ext));
  PetscCall(PropagatorDestroy(&e->p));
  PetscCall(GridDestroy(&e->g));
  PetscCall(GeometryDestroy(&e->geo));
  PetscCall(LayoutDestroy(&e->l));
  PetscFunctionReturn(0);
}
