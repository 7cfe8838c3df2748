/* Set-up shared by every mode: survey, warnings, source wavelet, the summary. */
#include "setup.h"
#include "stencil.h"
#include "geometry.h"
#include "segy_survey.h"
#include "wavelet.h"

/* Does pos lie within half a cell of a free surface (a side with zero CPML width)? */
static PetscBool OnFreeSurface(const Options *o, const ModelInfo *m, const Position *pos)
{
  PetscInt  cell[3] = {0, 0, 0};
  PetscBool on      = PETSC_FALSE;

  GeometryCell(pos, m->dim, m->d, cell);
  for (PetscInt a = 0; a < m->dim; a++) on = on || (!o->pml[a][0] && cell[a] == 0) || (!o->pml[a][1] && cell[a] == m->n[a] - 1);
  return on;
}

/* Sources on a free surface emit nothing and receivers there record zeros
   (u = 0 on it), and within half a cell of it nearly so (the odd image
   cancels them): legal, but rarely what was meant. */
static PetscErrorCode WarnOnFreeSurface(MPI_Comm comm, const Options *o, const ModelInfo *m, const Geometry *geo)
{
  PetscInt nsrc_on = 0, nrec_on = 0;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < geo->nshots; s++) nsrc_on += OnFreeSurface(o, m, &geo->src[s]);
  for (PetscInt r = 0; r < geo->rec_start[geo->nshots]; r++) nrec_on += OnFreeSurface(o, m, &geo->rec[r]);
  if (nsrc_on || nrec_on)
    PetscCall(PetscPrintf(comm, "WARNING: %" PetscInt_FMT " sources and %" PetscInt_FMT " receivers lie within half a cell of a free surface (a side with zero CPML width), where u = 0: "
                                "those sources emit (almost) nothing and those receivers record (almost) zeros; place them at least one cell inside\n",
                          nsrc_on, nrec_on));
  PetscFunctionReturn(0);
}

/* A shot's traces (receivers x -nt samples) are sized in PetscInt and
   gathered in one MPI message (src/gather.c): checked here, before any work. */
static PetscErrorCode CheckGatherSize(MPI_Comm comm, const Options *o, const Geometry *geo)
{
  const PetscInt64 most = PetscMin((PetscInt64)PETSC_MAX_INT, (PetscInt64)PETSC_MPI_INT_MAX);

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < geo->nshots; s++) {
    const PetscInt64 nrec = geo->rec_start[s + 1] - geo->rec_start[s];
    PetscCheck(nrec * o->nt < most, comm, PETSC_ERR_INT_OVERFLOW,
               "shot %" PetscInt_FMT " (%s): %" PetscInt64_FMT " receivers x -nt %" PetscInt_FMT " samples = %" PetscInt64_FMT
               " trace samples, more than the %" PetscInt64_FMT " this PETSc counts (%d-bit indices) and one MPI message carries: fewer receivers per shot or a smaller -nt",
               s, geo->source, nrec, o->nt, nrec * o->nt, most, (int)(8 * sizeof(PetscInt)));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SurveyRead(MPI_Comm comm, const Options *o, const ModelInfo *m, Geometry *geo)
{
  PetscFunctionBeginUser;
  if (OptionsSegySurvey(o)) PetscCall(SegySurveyRead(comm, OptionsSegySurvey(o), m->dim, o->segy_origin, m->o, geo));
  else if (o->geometry[0]) PetscCall(GeometryRead(comm, o->geometry, m->dim, m->o, geo));
  else PetscCall(GeometryRegular(m->dim, m->n, m->d, m->o, o->nshots, o->nrec == PETSC_DECIDE ? m->n[1] : o->nrec, o->source_depth, o->receiver_depth, geo));
  PetscCall(GeometryValidate(comm, geo, m->dim, m->n, m->d, o->drop_outside));
  PetscCall(CheckGatherSize(comm, o, geo));
  PetscCall(WarnOnFreeSurface(comm, o, m, geo));
  PetscFunctionReturn(0);
}

/* Too few cells per wavelength makes the grid dispersive: the waves arrive
   late and ring.  The floor per order (2, 4, ..., 16) is where the phase
   error over ten wavelengths of travel reaches about a tenth of a period. */
PetscErrorCode WarnOnDispersion(MPI_Comm comm, const Options *o, const ModelInfo *m, PetscReal vmin)
{
  static const PetscReal floors[FWI_MAX_ORDER / 2] = {20, 10, 7, 6, 5, 5, 4, 4};
  PetscReal              dmax = 0, cells, floor_ = floors[o->order / 2 - 1];

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < m->dim; a++) dmax = PetscMax(dmax, m->d[a]);
  cells = vmin / o->f0 / dmax;
  if (cells < floor_)
    PetscCall(PetscPrintf(comm, "WARNING: %.3g cells per wavelength at the peak frequency -f0 %.6g Hz in the slowest medium (%.6g m/s, %.6g m cells); order %" PetscInt_FMT
                                " needs about %.6g: expect numerical dispersion (refine the grid, lower -f0 or raise -order)\n",
                          (double)cells, (double)o->f0, (double)vmin, (double)dmax, o->order, (double)floor_));
  PetscFunctionReturn(0);
}

PetscErrorCode SourceWavelet(MPI_Comm comm, const Options *o, const TimeAxis *t, float *w)
{
  PetscFunctionBeginUser;
  if (o->wavelet[0]) PetscCall(WaveletReadFile(comm, o->wavelet, t->nt, t->dt, w));
  else {
    PetscCall(WaveletRicker(t->nt, t->dt, o->f0, o->t0, w));
    PetscCall(WaveletRickerCheck(comm, t->nt, t->dt, o->f0, o->t0, w));
  }
  PetscFunctionReturn(0);
}

/* Shot s goes to group s mod G: with more groups than shots some get none. */
static PetscErrorCode WarnOnIdleGroups(MPI_Comm world, const Layout *l, const Geometry *geo)
{
  PetscFunctionBeginUser;
  if (l->ngroups > geo->nshots)
    PetscCall(PetscPrintf(world, "WARNING: %d shot groups for %" PetscInt_FMT " shots: %" PetscInt_FMT " of the groups (%" PetscInt_FMT " of the %d ranks) get no shot and sit idle; "
                                 "at most %" PetscInt_FMT " groups (-shot_groups dividing the world size) keep every rank busy\n",
                          l->ngroups, geo->nshots, l->ngroups - geo->nshots, (l->ngroups - geo->nshots) * l->group_size, l->world_size, geo->nshots));
  PetscFunctionReturn(0);
}

PetscErrorCode PrintSetUp(MPI_Comm world, const Layout *l, const ModelInfo *m, const Grid *g, const Geometry *geo, const TimeAxis *t, PetscReal vmin,
                          PetscReal vmax)
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
  PetscCall(WarnOnIdleGroups(world, l, geo));
  PetscFunctionReturn(0);
}

