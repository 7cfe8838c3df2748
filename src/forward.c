#include "forward.h"
#include "backend.h"
#include "setup.h"
#include "events.h"
#include "gather.h"
#include "geometry.h"
#include "grid.h"
#include "layout.h"
#include "memory.h"
#include "model.h"
#include "output.h"
#include "propagate.h"
#include "rsf.h"
#include "survey.h"
#include "wavelet.h"

/* Gathers the shot's traces on group rank 0, which writes it. */
static PetscErrorCode WriteShot(const Layout *l, const Options *o, const TimeAxis *t, const ShotLocal *sl, PetscInt shot, PetscInt nrec,
                                const float *traces)
{
  float *all = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FWI_IO, 0, 0, 0, 0));
  if (!l->group_rank) MemoryCall(PetscMalloc1((size_t)nrec * t->nt, &all), "the shot's gather", 4.0 * nrec * t->nt);
  PetscCall(ShotGather(l, t->nt, sl, shot, nrec, traces, all));
  if (!l->group_rank) {
    char              path[PETSC_MAX_PATH_LEN];
    const PetscInt    n[2]     = {t->nt, nrec};
    const PetscReal   d[2]     = {t->dt, 1}, origin[2] = {0, 0};
    const char *const label[2] = {"Time", "Receiver"};
    PetscCall(OutputShotPath(o->output_dir, shot, path));
    PetscCall(RsfWrite(path, 2, n, d, origin, label, all, o->overwrite));
    PetscCall(PetscFree(all));
  }
  PetscCall(PetscLogEventEnd(FWI_IO, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode RunForward(MPI_Comm world, const Options *o)
{
  Layout     l;
  ModelInfo  m;
  Geometry   geo;
  Grid       g;
  TimeAxis   t;
  Propagator p;
  Backend    b;
  PetscReal  vmin, vmax;
  float     *vp, *w, *wint, *traces;
  double     cells = 1;

  PetscFunctionBeginUser;
  PetscCall(LayoutCreate(world, o->shot_groups, &l));
  PetscCall(BackendSetUp(&l, o, &b));
  PetscCall(ModelDescribe(world, o, &m));
  PetscCall(SurveyRead(world, o, &m, &geo));
  PetscCall(MemoryCheck(o, &l, b.ops, &m, &geo, NULL, NULL));
  PetscCall(OutputPrepare(world, o->output_dir, geo.nshots, o->overwrite));

  PetscCall(PetscLogEventBegin(FWI_IO, 0, 0, 0, 0));
  PetscCall(GridCreate(l.group, m.dim, m.n, m.d, o->order, o->pml, o->procs, &g));
  PetscCall(PetscMalloc1((size_t)g.size[0] * g.size[1] * g.size[2], &vp));
  PetscCall(ModelLoadBlock(&m, &g, l.cross, vp, &vmin, &vmax));
  PetscCall(PetscLogEventEnd(FWI_IO, 0, 0, 0, 0));

  PetscCall(TimeAxisSetUp(&g, vmax, o->nt, o->dt, o->cfl, &t));
  PetscCall(PrintSetUp(world, &l, &m, &g, &geo, &t, vmin, vmax));
  PetscCall(MemoryCheck(o, &l, b.ops, &m, &geo, &g, &t));
  PetscCall(WarnOnDispersion(world, o, &m, vmin));
  PetscCall(PetscMalloc2(t.nt, &w, t.nsteps, &wint));
  PetscCall(SourceWavelet(world, o, &t, w));
  PetscCall(ResampleUp(t.nt, w, t.m, t.nsteps, wint));
  {
    const PropagatorSettings settings = {.f_pml              = o->f0,
                                         .nan_check_interval = o->nan_check_interval,
                                         .progress_interval  = o->progress_interval,
                                         .halo_type          = b.halo_type,
                                         .overlap            = b.overlap};
    PetscCall(PropagatorCreate(&g, b.ops, vp, vmax, &t, &settings, &p));
  }
  PetscCall(PetscFree(vp));
  for (PetscInt a = 0; a < 3; a++) cells *= (double)g.N[a];

  for (PetscInt s = l.group_id; s < geo.nshots; s += l.ngroups) {
    ShotLocal      sl;
    const PetscInt nrec = geo.rec_start[s + 1] - geo.rec_start[s];
    PetscLogDouble t0, t1;

    PetscCall(PetscTime(&t0));
    PetscCall(ShotLocalize(&g, &p.f, &geo, s, &sl));
    MemoryCall(PetscMalloc1((size_t)sl.nrec * t.nt + 1, &traces), "the shot's traces", 4.0 * sl.nrec * t.nt);
    PetscCall(PropagatorRun(&p, &t, &sl, s, wint, traces, NULL));
    PetscCall(WriteShot(&l, o, &t, &sl, s, nrec, traces));
    PetscCall(PetscFree(traces));
    PetscCall(ShotLocalDestroy(&sl));
    PetscCall(PetscTime(&t1));
    if (!l.group_rank) {
      char path[PETSC_MAX_PATH_LEN];
      PetscCall(OutputShotPath(o->output_dir, s, path));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, stdout, "shot %" PetscInt_FMT " of %" PetscInt_FMT " (group %d): %.3f s, %.4f G cell-updates/s -> %s\n", s,
                             geo.nshots, l.group_id, t1 - t0, cells * t.nsteps / (t1 - t0) * 1e-9, path));
      fflush(stdout);
    }
  }
  PetscCallMPI(MPI_Barrier(world));
  PetscCall(PetscFree2(w, wint));
  PetscCall(PropagatorDestroy(&p));
  PetscCall(GridDestroy(&g));
  PetscCall(GeometryDestroy(&geo));
  PetscCall(LayoutDestroy(&l));
  PetscFunctionReturn(0);
}
