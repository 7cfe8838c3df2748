#include "forward.h"
#include "events.h"
#include "geometry.h"
#include "grid.h"
#include "layout.h"
#include "model.h"
#include "output.h"
#include "propagate.h"
#include "rsf.h"
#include "survey.h"
#include "wavelet.h"

/* Sources on a free surface emit nothing and receivers there record zeros
   (u = 0 on it): legal, but rarely what was meant. */
static PetscErrorCode WarnOnFreeSurface(MPI_Comm comm, const Options *o, const ModelInfo *m, const Geometry *geo)
{
  const PetscInt nrec = geo->rec_start[geo->nshots];
  PetscInt       nsrc_on = 0, nrec_on = 0;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < geo->nshots + nrec; k++) {
    const Position *pos = k < geo->nshots ? &geo->src[k] : &geo->rec[k - geo->nshots];
    PetscInt        cell[3] = {0, 0, 0};
    PetscBool       on      = PETSC_FALSE;
    GeometryCell(pos, m->dim, m->d, cell);
    for (PetscInt a = 0; a < m->dim; a++) on = on || (!o->pml[a][0] && cell[a] == 0) || (!o->pml[a][1] && cell[a] == m->n[a] - 1);
    if (on && k < geo->nshots) nsrc_on++;
    else if (on) nrec_on++;
  }
  if (nsrc_on || nrec_on)
    PetscCall(PetscPrintf(comm, "WARNING: %" PetscInt_FMT " sources and %" PetscInt_FMT " receivers lie on a free surface (a side with zero CPML width), where u = 0: "
                                "those sources emit nothing and those receivers record zeros; place them at least one cell inside\n",
                          nsrc_on, nrec_on));
  PetscFunctionReturn(0);
}

static PetscErrorCode SurveyRead(MPI_Comm comm, const Options *o, const ModelInfo *m, Geometry *geo)
{
  PetscFunctionBeginUser;
  if (o->geometry[0]) PetscCall(GeometryRead(comm, o->geometry, m->dim, geo));
  else {
    const PetscReal zs = o->source_depth < 0 ? 2 * m->d[0] : o->source_depth;
    const PetscReal zr = o->receiver_depth < 0 ? 2 * m->d[0] : o->receiver_depth;
    const PetscInt  nr = o->nrec == PETSC_DECIDE ? m->n[1] : o->nrec;
    PetscCheck(o->nshots >= 1 && nr >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-nshots %" PetscInt_FMT " -nrec %" PetscInt_FMT ": expected at least one of each", o->nshots, nr);
    PetscCall(GeometryRegular(m->dim, m->n, m->d, o->nshots, nr, zs, zr, geo));
  }
  PetscCall(GeometryValidate(geo, m->dim, m->n, m->d));
  PetscCall(WarnOnFreeSurface(comm, o, m, geo));
  PetscFunctionReturn(0);
}

/* Too few cells per wavelength makes the grid dispersive: the waves arrive
   late and ring.  The floor per order is where the phase error over ten
   wavelengths of travel reaches about a tenth of a period. */
static PetscErrorCode WarnOnDispersion(MPI_Comm comm, const Options *o, const ModelInfo *m, PetscReal vmin)
{
  PetscReal dmax = 0, cells;
  PetscReal floor_ = o->order == 2 ? 20 : o->order == 4 ? 10 : 6;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < m->dim; a++) dmax = PetscMax(dmax, m->d[a]);
  cells = vmin / o->f0 / dmax;
  if (cells < floor_)
    PetscCall(PetscPrintf(comm, "WARNING: %.3g cells per wavelength at the peak frequency -f0 %.6g Hz in the slowest medium (%.6g m/s, %.6g m cells); order %" PetscInt_FMT
                                " needs about %.6g: expect numerical dispersion (refine the grid, lower -f0 or raise -order)\n",
                          (double)cells, (double)o->f0, (double)vmin, (double)dmax, o->order, (double)floor_));
  PetscFunctionReturn(0);
}

/* The recording-rate wavelet (Ricker or file), upsampled to the internal step. */
static PetscErrorCode SourceWavelet(MPI_Comm comm, const Options *o, const TimeAxis *t, float *wint)
{
  float *w;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(t->nt, &w));
  if (o->wavelet[0]) PetscCall(WaveletReadFile(comm, o->wavelet, t->nt, t->dt, w));
  else PetscCall(WaveletRicker(t->nt, t->dt, o->f0, o->t0, w));
  PetscCall(ResampleUp(t->nt, w, t->m, t->nsteps, wint));
  PetscCall(PetscFree(w));
  PetscFunctionReturn(0);
}

/* Gathers the shot's traces on group rank 0, which writes it. */
static PetscErrorCode WriteShot(const Layout *l, const Options *o, const TimeAxis *t, const ShotLocal *sl, PetscInt shot, PetscInt nrec,
                                const float *traces)
{
  PetscMPIInt *counts = NULL, *displs = NULL, nlocal = (PetscMPIInt)sl->nrec, ntotal = 0;
  float       *all = NULL, *gather = NULL;
  PetscInt    *ids = NULL;
  PetscMPIInt *idcounts = NULL, *iddispls = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FWI_IO, 0, 0, 0, 0));
  if (!l->group_rank) PetscCall(PetscMalloc4(l->group_size, &counts, l->group_size, &displs, l->group_size, &idcounts, l->group_size, &iddispls));
  PetscCallMPI(MPI_Gather(&nlocal, 1, MPI_INT, idcounts, 1, MPI_INT, 0, l->group));
  if (!l->group_rank) {
    for (PetscMPIInt r = 0; r < l->group_size; r++) {
      iddispls[r] = ntotal;
      counts[r]   = idcounts[r] * (PetscMPIInt)t->nt;
      displs[r]   = ntotal * (PetscMPIInt)t->nt;
      ntotal += idcounts[r];
    }
    PetscCheck(ntotal == nrec, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Shot %" PetscInt_FMT ": %d of %" PetscInt_FMT " receivers located", shot, ntotal, nrec);
    PetscCall(PetscMalloc3(nrec, &ids, nrec * t->nt, &gather, nrec * t->nt, &all));
  }
  PetscCallMPI(MPI_Gatherv(sl->rec_id, nlocal, MPIU_INT, ids, idcounts, iddispls, MPIU_INT, 0, l->group));
  PetscCallMPI(MPI_Gatherv(traces, nlocal * (PetscMPIInt)t->nt, MPI_FLOAT, gather, counts, displs, MPI_FLOAT, 0, l->group));
  if (!l->group_rank) {
    char              path[PETSC_MAX_PATH_LEN];
    const PetscInt    n[2]     = {t->nt, nrec};
    const PetscReal   d[2]     = {t->dt, 1}, origin[2] = {0, 0};
    const char *const label[2] = {"Time", "Receiver"};
    for (PetscInt k = 0; k < nrec; k++) PetscCall(PetscArraycpy(all + ids[k] * t->nt, gather + k * t->nt, t->nt));
    PetscCall(OutputShotPath(o->output_dir, shot, path));
    PetscCall(RsfWrite(path, 2, n, d, origin, label, all, o->overwrite));
    PetscCall(PetscFree3(ids, gather, all));
    PetscCall(PetscFree4(counts, displs, idcounts, iddispls));
  }
  PetscCall(PetscLogEventEnd(FWI_IO, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode PrintSetUp(MPI_Comm world, const Layout *l, const ModelInfo *m, const Grid *g, const Geometry *geo,
                                 const TimeAxis *t, PetscReal vmin, PetscReal vmax)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(world, "model %s: %" PetscInt_FMT "D, nz=%" PetscInt_FMT " nx=%" PetscInt_FMT " ny=%" PetscInt_FMT
                               ", spacing %.6g x %.6g x %.6g m, velocities %.6g to %.6g m/s\n",
                        m->name, m->dim, m->n[0], m->n[1], m->n[2], (double)m->d[0], (double)m->d[1], (double)m->d[2], (double)vmin, (double)vmax));
  PetscCall(PetscPrintf(world, "grid with absorbing layers: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT
                               " (z, x, y), order %" PetscInt_FMT "; layers z %" PetscInt_FMT "/%" PetscInt_FMT
                               " x %" PetscInt_FMT "/%" PetscInt_FMT " y %" PetscInt_FMT "/%" PetscInt_FMT "\n",
                        g->N[0], g->N[1], g->N[2], g->order, g->pml[0][0], g->pml[0][1], g->pml[1][0], g->pml[1][1], g->pml[2][0],
                        g->pml[2][1]));
  PetscCall(PetscPrintf(world, "layout: %d ranks = %d shot groups x %d subdomains (z %" PetscInt_FMT " x %" PetscInt_FMT " y %" PetscInt_FMT "), %" PetscInt_FMT " threads per rank\n",
                        l->world_size, l->ngroups, l->group_size, g->nproc[0], g->nproc[1], g->nproc[2], l->threads));
  PetscCall(PetscPrintf(world, "survey %s: %" PetscInt_FMT " shots, %" PetscInt_FMT " receivers in all\n", geo->source, geo->nshots,
                        geo->rec_start[geo->nshots]));
  PetscCall(PetscPrintf(world, "time: %" PetscInt_FMT " samples at %.6g s; internal step %.9g s (%" PetscInt_FMT " per sample, stability limit %.9g s), %" PetscInt_FMT " steps\n",
                        t->nt, (double)t->dt, (double)t->dt_int, t->m, (double)t->dt_stable, t->nsteps));
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
  PetscReal  vmin, vmax;
  float     *vp, *wint, *traces;
  double     cells = 1;

  PetscFunctionBeginUser;
  PetscCall(LayoutCreate(world, o->shot_groups, &l));
  PetscCall(ModelDescribe(world, o, &m));
  PetscCall(SurveyRead(world, o, &m, &geo));
  PetscCall(OutputPrepare(world, o->output_dir, geo.nshots, o->overwrite));

  PetscCall(PetscLogEventBegin(FWI_IO, 0, 0, 0, 0));
  PetscCall(GridCreate(l.group, m.dim, m.n, m.d, o->order, o->pml, o->procs, &g));
  PetscCall(PetscMalloc1(g.size[0] * g.size[1] * g.size[2], &vp));
  PetscCall(ModelLoadBlock(&m, &g, l.cross, vp, &vmin, &vmax));
  PetscCall(PetscLogEventEnd(FWI_IO, 0, 0, 0, 0));

  PetscCall(TimeAxisSetUp(&g, vmax, o->nt, o->dt, o->cfl, &t));
  PetscCall(PrintSetUp(world, &l, &m, &g, &geo, &t, vmin, vmax));
  PetscCall(WarnOnDispersion(world, o, &m, vmin));
  PetscCall(PetscMalloc1(t.nsteps, &wint));
  PetscCall(SourceWavelet(world, o, &t, wint));
  {
    const PropagatorSettings settings = {.f_pml = o->f0, .nan_check_interval = o->nan_check_interval, .progress_interval = o->progress_interval};
    PetscCall(PropagatorCreate(&g, &KernelOpsCPU, vp, vmax, &t, &settings, &p));
  }
  PetscCall(PetscFree(vp));
  for (PetscInt a = 0; a < 3; a++) cells *= (double)g.N[a];

  for (PetscInt s = l.group_id; s < geo.nshots; s += l.ngroups) {
    ShotLocal      sl;
    const PetscInt nrec = geo.rec_start[s + 1] - geo.rec_start[s];
    PetscLogDouble t0, t1;

    PetscCall(PetscTime(&t0));
    PetscCall(ShotLocalize(&g, &p.f, &geo, s, &sl));
    PetscCall(PetscMalloc1(sl.nrec * t.nt + 1, &traces));
    PetscCall(PropagatorRun(&p, &t, &sl, s, wint, traces));
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
  PetscCall(PetscFree(wint));
  PetscCall(PropagatorDestroy(&p));
  PetscCall(GridDestroy(&g));
  PetscCall(GeometryDestroy(&geo));
  PetscCall(LayoutDestroy(&l));
  PetscFunctionReturn(0);
}
