#include "program/forward.h"
#include "data/events.h"
#include "setup/experiment.h"
#include "shot/gather.h"
#include "setup/output.h"
#include "data/rsf.h"
#include "data/segy_survey.h"
#include "program/stop.h"
#include "data/timing.h"
#include "data/util.h"

/* Gathers the shot's traces on group rank 0, which writes it: component
   NULL into shot_NNNN.rsf (with its coordinates beside it), another into
   shot_NNNN_COMPONENT.rsf. */
static PetscErrorCode WriteShot(const Experiment *e, const ShotLocal *sl, PetscInt shot, PetscInt nrec, const float *traces, const char *component)
{
  const Layout   *l   = &e->l;
  const Options  *o   = e->o;
  const TimeAxis *t   = &e->t;
  float          *all = NULL;
  const TimePhase was = TimingEnter(TIME_IO);

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FWI_IO, 0, 0, 0, 0));
  if (!l->group_rank) MemoryCall(PetscMalloc1((size_t)nrec * t->nt, &all), "the shot's gather", 4.0 * nrec * t->nt);
  PetscCall(ShotGather(l, t->nt, sl, shot, nrec, traces, all));
  if (!l->group_rank) {
    char    path[PETSC_MAX_PATH_LEN], coords[PETSC_MAX_PATH_LEN];
    RsfAxes axes;
    GatherAxes(t->nt, t->dt, nrec, &axes);
    PetscCall(OutputComponentPath(o->output_dir, shot, component, o->output_format, path));
    if (o->output_format == FORMAT_SEGY) PetscCall(SegyWriteGather(path, &e->geo, shot, o->segy_origin, t->nt, t->dt, all, o->overwrite));
    else {
      PetscCall(RsfWrite(path, &axes, all, o->overwrite));
      /* the positions beside the first component's, as a Madagascar flow keeps trace headers */
      if (!component) {
        PetscCall(OutputCoordsPath(o->output_dir, shot, coords));
        PetscCall(GeometryWriteCoords(&e->geo, shot, coords, o->overwrite));
      }
    }
    PetscCall(PetscFree(all));
  }
  PetscCall(PetscLogEventEnd(FWI_IO, 0, 0, 0, 0));
  TimingLeave(was);
  PetscFunctionReturn(0);
}

/* The group's shot k: its gathers (one per component recorded, e->component[])
   written and a progress line, with what is left of the group's shots at
   their mean time so far (started: when its first began). */
static PetscErrorCode ForwardShot(Experiment *e, PetscInt k, PetscLogDouble started)
{
  const Options   *o = e->o;
  const Equation  *eq = e->backend.eq;
  const PetscInt   s = e->shot[k], nrec = e->geo.rec_start[s + 1] - e->geo.rec_start[s], ncomp = e->ncomponent, *comp = e->component;
  ShotLocal        sl, at[EQUATION_MAX_COMPONENTS]; /* the source's and centres' receivers; each staggered component's */
  ShotRecord       rec[EQUATION_MAX_COMPONENTS];
  PetscLogDouble   t0, t1;
  TimePhase        was;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(ExperimentShotLocalize(e, k, &sl));
  for (PetscInt j = 0; j < ncomp; j++) {
    const PetscInt node = eq->component[comp[j]].axis;
    if (node >= 0) PetscCall(ExperimentShotLocalizeAt(e, k, node, &at[j]));
    rec[j] = (ShotRecord){comp[j], node >= 0 ? &at[j] : &sl, NULL};
    MemoryCall(PetscMalloc1((size_t)rec[j].at->nrec * e->t.nt + 1, &rec[j].traces), "the shot's traces", 4.0 * rec[j].at->nrec * e->t.nt);
  }
  was = TimingEnter(TIME_FORWARD);
  PetscCall(PropagatorRunRecords(&e->p, &e->t, &sl, s, e->wint, ncomp, rec, NULL));
  TimingLeave(was);
  for (PetscInt j = 0; j < ncomp; j++) {
    PetscCall(WriteShot(e, rec[j].at, s, nrec, rec[j].traces, j ? ExperimentComponentName(e, j) : NULL));
    PetscCall(PetscFree(rec[j].traces));
    if (rec[j].at != &sl) PetscCall(ShotLocalDestroy(&at[j]));
  }
  PetscCall(ShotLocalDestroy(&sl));
  PetscCall(PetscTime(&t1));
  if (!e->l.group_rank) {
    char         path[PETSC_MAX_PATH_LEN], group[32] = "", more[EQUATION_MAX_COMPONENTS * 32] = "";
    const double left = (t1 - started) / (k + 1) * (e->nshots - k - 1);
    PetscCall(OutputShotPath(o->output_dir, s, o->output_format, path));
    if (e->l.ngroups > 1) PetscCall(PetscSNPrintf(group, sizeof group, " (group %d)", e->l.group_id));
    for (PetscInt j = 1; j < ncomp; j++) { /* the other components' gathers beside it */
      char other[PETSC_MAX_PATH_LEN];
      PetscCall(OutputComponentPath(".", s, ExperimentComponentName(e, j), o->output_format, other));
      PetscCall(PetscStrlcat(more, ", ", sizeof more));
      PetscCall(PetscStrlcat(more, other + 2, sizeof more)); /* its name alone */
    }
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, stdout, "shot %" PetscInt_FMT "%s: %.3f s, %.4f G cell-updates/s -> %s%s; %s%" PetscInt_FMT " of %" PetscInt_FMT " shots run, about %.0f s left\n", s,
                           group, t1 - t0, e->cells * e->t.nsteps / (t1 - t0) * 1e-9, path, more, e->l.ngroups > 1 ? "the group's " : "", k + 1, e->nshots, left));
    fflush(stdout);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode RunForward(MPI_Comm world, const Options *o)
{
  Experiment e;
  PetscInt       rounds, k;
  PetscBool      stop = PETSC_FALSE;
  PetscLogDouble started;
  char       kept[PETSC_MAX_PATH_LEN + 128];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(kept, sizeof(kept), "the shots reported written are complete in %s; rerun with -overwrite to run every shot", o->output_dir));
  PetscCall(StopWatch(world, o->output_dir, PETSC_TRUE, kept));
  PetscCall(ExperimentCreate(world, o, &e));
  PetscCall(OutputPrepare(world, o, e.geo.nshots));
  PetscCall(ExperimentLoadModel(&e));
  PetscCall(ExperimentSetUp(&e, e.range[0][1], e.vslow));
  /* round k: every group's shot k (round robin: a group has rounds or
     rounds - 1 shots).  The groups decide on a stop together between
     rounds, so that one decision holds for all; shots cost alike, so little
     is lost waiting for the round's slowest. */
  rounds = (e.geo.nshots + e.l.ngroups - 1) / e.l.ngroups;
  PetscCall(PetscTime(&started));
  for (k = 0; k < rounds; k++) {
    if (k) PetscCall(StopCheck(world, &stop));
    if (stop) break;
    if (k < e.nshots) PetscCall(ForwardShot(&e, k, started));
  }
  PetscCallMPI(MPI_Barrier(world));
  if (stop) {
    const PetscInt done = k * e.l.ngroups; /* shots 0 .. done - 1 */
    PetscCall(PetscPrintf(world,
                          "Stopped by %s after %" PetscInt_FMT " of %" PetscInt_FMT " shots: shots 0 to %" PetscInt_FMT " are written in %s, shots %" PetscInt_FMT " to %" PetscInt_FMT
                          " were not run; rerun with -overwrite to run every shot (the written ones are refused without it)\n",
                          StopCause(), done, e.geo.nshots, done - 1, o->output_dir, done, e.geo.nshots - 1));
  }
  PetscCall(ExperimentDestroy(&e));
  PetscCall(TimingReport(world, "", &(TimeMark){0}));
  PetscFunctionReturn(0);
}
