/* Set-up shared by every mode: survey, warnings, source wavelet, the summary. */
#include "setup/setup.h"
#include "data/geometry.h"
#include "data/segy_survey.h"
#include "data/wavelet.h"

/* How far pos lies below the nearest free surface (a side with zero CPML
   width); PETSC_MAX_REAL without one. */
static PetscReal FreeSurfaceDepth(const Options *o, const ModelInfo *m, const Position *pos)
{
  PetscReal depth = PETSC_MAX_REAL;

  for (PetscInt a = 0; a < m->dim; a++) {
    if (!o->pml[a][0]) depth = PetscMin(depth, pos->c[a]);
    if (!o->pml[a][1]) depth = PetscMin(depth, (m->n[a] - 1) * m->d[a] - pos->c[a]);
  }
  return depth;
}

/* The free surface's ghost at frequency f for a point d below it, in a
   medium of velocity v: |1 - exp(-2 i k d)| = 2 sin(k d), k = 2 pi f / v,
   the amplitude against the same point in free space (vertical travel). */
static PetscReal Ghost(PetscReal f, PetscReal d, PetscReal v)
{
  return 2 * PetscAbsReal(PetscSinReal(PetscMin(2 * PETSC_PI * f * d / v, PETSC_PI / 2)));
}

/* Counts the points of n whose ghost at -f0 weakens them below free space,
   and the depth of the shallowest. */
static void Ghosted(const Options *o, const ModelInfo *m, const Position *pts, PetscInt n, PetscReal v, PetscInt *count, PetscReal *shallowest)
{
  *count      = 0;
  *shallowest = PETSC_MAX_REAL;
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal d = FreeSurfaceDepth(o, m, &pts[k]);
    if (Ghost(o->f0, d, v) < 1) (*count)++;
    *shallowest = PetscMin(*shallowest, d);
  }
}

PetscErrorCode NoteGhosts(MPI_Comm comm, const Options *o, const ModelInfo *m, const Geometry *geo, PetscReal vslow)
{
  PetscInt  nsrc, nrec;
  PetscReal dsrc, drec;

  PetscFunctionBeginUser;
  Ghosted(o, m, geo->src, geo->nshots, vslow, &nsrc, &dsrc);
  Ghosted(o, m, geo->rec, geo->rec_start[geo->nshots], vslow, &nrec, &drec);
  if (nsrc || nrec)
    PetscCall(PetscPrintf(comm, "free surface: %" PetscInt_FMT " source%s (the shallowest %.6g m below it) and %" PetscInt_FMT " receiver%s (the shallowest %.6g m) lie close enough "
                                "for its ghost to weaken them, as it does in the field: at -f0 %.6g Hz and %.6g m/s, 2 sin(2 pi f0 d / v) = %.3g (source) and %.3g (receiver) "
                                "of the free-space amplitude (0 on the surface itself, where u = 0)\n",
                          nsrc, nsrc == 1 ? "" : "s", (double)dsrc, nrec, nrec == 1 ? "" : "s", (double)drec, (double)o->f0, (double)vslow,
                          (double)Ghost(o->f0, dsrc, vslow), (double)Ghost(o->f0, drec, vslow)));
  PetscFunctionReturn(0);
}

/* A shot's traces (receivers x -nt samples) are sized in PetscInt and
   gathered in one MPI message (src/shot/gather.c): checked here, before any work. */
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

PetscErrorCode SurveyRead(MPI_Comm comm, const Options *o, const ModelInfo *m, const SegyPart *which, Geometry *geo)
{
  PetscFunctionBeginUser;
  if (OptionsSegySurvey(o)) PetscCall(SegySurveyRead(comm, OptionsSegySurvey(o), which, m->dim, o->segy_origin, m->o, geo));
  else if (o->geometry[0]) PetscCall(GeometryRead(comm, o->geometry, m->dim, m->o, geo));
  else PetscCall(GeometryRegular(m->dim, m->n, m->d, m->o, o->nshots, o->nrec == PETSC_DECIDE ? m->n[1] : o->nrec, o->source_depth, o->receiver_depth, geo));
  PetscCall(GeometryValidate(comm, geo, m->dim, m->n, m->d, o->drop_outside));
  PetscCall(CheckGatherSize(comm, o, geo));
  PetscFunctionReturn(0);
}

/* Too few cells per wavelength makes the grid dispersive: the waves arrive
   late and ring (the floor is the equation's, Equation.cells_per_wavelength). */
PetscErrorCode WarnOnDispersion(MPI_Comm comm, const Options *o, const Equation *eq, const ModelInfo *m, PetscReal vmin)
{
  PetscReal dmax = 0, cells, floor_ = eq->cells_per_wavelength(o->order);

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

/* "s" unless n is 1. */
static const char *Plural(PetscInt64 n)
{
  return n == 1 ? "" : "s";
}

/* Where n points lie, axis by axis, in the survey's coordinates (origin: the
   model's first sample's): "z 20 m, x 0 to 2900 m". */
static void PointsExtent(const Position *pts, PetscInt n, PetscInt dim, const PetscReal origin[3], char text[], size_t len)
{
  static const char axis[3] = {'z', 'x', 'y'};
  size_t            used    = 0;

  text[0] = 0;
  for (PetscInt a = 0; a < dim && n > 0; a++) {
    PetscReal lo = PETSC_MAX_REAL, hi = PETSC_MIN_REAL;
    for (PetscInt k = 0; k < n; k++) {
      lo = PetscMin(lo, origin[a] + pts[k].c[a]);
      hi = PetscMax(hi, origin[a] + pts[k].c[a]);
    }
    if (lo == hi) used += (size_t)snprintf(text + used, used < len ? len - used : 0, "%s%c %.6g m", a ? ", " : "", axis[a], (double)lo);
    else used += (size_t)snprintf(text + used, used < len ? len - used : 0, "%s%c %.6g to %.6g m", a ? ", " : "", axis[a], (double)lo, (double)hi);
  }
}

PetscErrorCode PrintSetUp(MPI_Comm world, const Layout *l, const ModelInfo *m, const Grid *g, const Geometry *geo, const TimeAxis *t, PetscReal vmin,
                          PetscReal vmax)
{
  const PetscInt nrec = geo->rec_start[geo->nshots];
  char           grid[128], origin[128] = "", src[256], rec[256];

  PetscFunctionBeginUser;
  if (m->dim == 2)
    PetscCall(PetscSNPrintf(grid, sizeof grid, "nz=%" PetscInt_FMT " nx=%" PetscInt_FMT ", spacing %.6g x %.6g m (z, x)", m->n[0], m->n[1], (double)m->d[0], (double)m->d[1]));
  else
    PetscCall(PetscSNPrintf(grid, sizeof grid, "nz=%" PetscInt_FMT " nx=%" PetscInt_FMT " ny=%" PetscInt_FMT ", spacing %.6g x %.6g x %.6g m (z, x, y)", m->n[0], m->n[1], m->n[2],
                            (double)m->d[0], (double)m->d[1], (double)m->d[2]));
  if (m->dim == 2 && (m->o[0] || m->o[1])) PetscCall(PetscSNPrintf(origin, sizeof origin, ", first sample at z %.6g x %.6g m", (double)m->o[0], (double)m->o[1]));
  if (m->dim == 3 && (m->o[0] || m->o[1] || m->o[2]))
    PetscCall(PetscSNPrintf(origin, sizeof origin, ", first sample at z %.6g x %.6g y %.6g m", (double)m->o[0], (double)m->o[1], (double)m->o[2]));
  PetscCall(PetscPrintf(world, "model %s: %" PetscInt_FMT "D, %s%s, velocities %.6g to %.6g m/s\n", m->name, m->dim, grid, origin, (double)vmin, (double)vmax));
  PetscCall(PetscPrintf(world, "grid with absorbing layers: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT
                               " (z, x, y), order %" PetscInt_FMT "; layers z %" PetscInt_FMT "/%" PetscInt_FMT
                               " x %" PetscInt_FMT "/%" PetscInt_FMT " y %" PetscInt_FMT "/%" PetscInt_FMT "\n",
                        g->N[0], g->N[1], g->N[2], g->order, g->pml[0][0], g->pml[0][1], g->pml[1][0], g->pml[1][1], g->pml[2][0],
                        g->pml[2][1]));
  PetscCall(PetscPrintf(world, "layout: %d rank%s = %d shot group%s x %d subdomain%s (z %" PetscInt_FMT " x %" PetscInt_FMT " y %" PetscInt_FMT "), %" PetscInt_FMT " thread%s per rank\n",
                        l->world_size, Plural(l->world_size), l->ngroups, Plural(l->ngroups), l->group_size, Plural(l->group_size), g->nproc[0], g->nproc[1], g->nproc[2],
                        l->threads, Plural(l->threads)));
  PointsExtent(geo->src, geo->nshots, m->dim, geo->origin, src, sizeof src);
  PointsExtent(geo->rec, nrec, m->dim, geo->origin, rec, sizeof rec);
  PetscCall(PetscPrintf(world, "survey %s: %" PetscInt_FMT " shot%s, %" PetscInt_FMT " receiver%s in all; sources at %s; receivers at %s\n", geo->source, geo->nshots,
                        Plural(geo->nshots), nrec, Plural(nrec), src, rec));
  PetscCall(PetscPrintf(world, "time: %" PetscInt_FMT " samples at %.6g s; internal step %.9g s (%" PetscInt_FMT " per sample, stability limit %.9g s), %" PetscInt_FMT " steps\n",
                        t->nt, (double)t->dt, (double)t->dt_int, t->m, (double)t->dt_stable, t->nsteps));
  PetscCall(WarnOnIdleGroups(world, l, geo));
  PetscFunctionReturn(0);
}
