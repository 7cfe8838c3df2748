#include "forward.h"
#include "events.h"
#include "experiment.h"
#include "gather.h"
#include "output.h"
#include "rsf.h"
#include "segy_survey.h"
#include "util.h"

/* Gathers the shot's traces on group rank 0, which writes it. */
static PetscErrorCode WriteShot(const Experiment *e, const ShotLocal *sl, PetscInt shot, PetscInt nrec, const float *traces)
{
  const Layout   *l   = &e->l;
  const Options  *o   = e->o;
  const TimeAxis *t   = &e->t;
  float          *all = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FWI_IO, 0, 0, 0, 0));
  if (!l->group_rank) MemoryCall(PetscMalloc1((size_t)nrec * t->nt, &all), "the shot's gather", 4.0 * nrec * t->nt);
  PetscCall(ShotGather(l, t->nt, sl, shot, nrec, traces, all));
  if (!l->group_rank) {
    char              path[PETSC_MAX_PATH_LEN];
    const PetscInt    n[2]     = {t->nt, nrec};
    const PetscReal   d[2]     = {t->dt, 1}, origin[2] = {0, 0};
    const char *const label[2] = {"Time", "Receiver"};
    PetscCall(OutputShotPath(o->output_dir, shot, o->output_format, path));
    if (o->output_format == FORMAT_SEGY) PetscCall(SegyWriteGather(path, &e->geo, shot, e->m.dim, o->segy_origin, t->nt, t->dt, all, o->overwrite));
    else PetscCall(RsfWrite(path, 2, n, d, origin, label, all, o->overwrite));
    PetscCall(PetscFree(all));
  }
  PetscCall(PetscLogEventEnd(FWI_IO, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode RunForward(MPI_Comm world, const Options *o)
{
  Experiment e;

  PetscFunctionBeginUser;
  PetscCall(ExperimentCreate(world, o, &e));
  PetscCall(OutputPrepare(world, o, e.geo.nshots));
  PetscCall(ExperimentLoadModel(&e));
  PetscCall(ExperimentSetUp(&e, e.vmax, e.vmin));
  for (PetscInt k = 0; k < e.nshots; k++) {
    const PetscInt   s = e.shot[k], nrec = e.geo.rec_start[s + 1] - e.geo.rec_start[s];
    ShotLocal      sl;
    float         *traces;
    PetscLogDouble t0, t1;

    PetscCall(PetscTime(&t0));
    PetscCall(ExperimentShotLocalize(&e, k, &sl));
    MemoryCall(PetscMalloc1((size_t)sl.nrec * e.t.nt + 1, &traces), "the shot's traces", 4.0 * sl.nrec * e.t.nt);
    PetscCall(PropagatorRun(&e.p, &e.t, &sl, s, e.wint, traces, NULL));
    PetscCall(WriteShot(&e, &sl, s, nrec, traces));
    PetscCall(PetscFree(traces));
    PetscCall(ShotLocalDestroy(&sl));
    PetscCall(PetscTime(&t1));
    if (!e.l.group_rank) {
      char path[PETSC_MAX_PATH_LEN];
      PetscCall(OutputShotPath(o->output_dir, s, o->output_format, path));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, stdout, "shot %" PetscInt_FMT " of %" PetscInt_FMT " (group %d): %.3f s, %.4f G cell-updates/s -> %s\n", s,
                             e.geo.nshots, e.l.group_id, t1 - t0, e.cells * e.t.nsteps / (t1 - t0) * 1e-9, path));
      fflush(stdout);
    }
  }
  PetscCallMPI(MPI_Barrier(world));
  PetscCall(ExperimentDestroy(&e));
  PetscFunctionReturn(0);
}
