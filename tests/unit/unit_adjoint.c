/* The adjoint of the propagator: the gradient it gives matches a central
   finite difference of the misfit along a smooth direction, for every order,
   in 2D and 3D, with absorbing layers and a free surface, with the source
   and receivers resampled (internal step below the recording interval), on
   the decomposition mpiexec gives.  The velocities are those of the extended
   grid (layers included), so the check covers the layer cells too. */
#include "events.h"
#include "geometry.h"
#include "propagate.h"
#include "wavelet.h"
#include "survey.h"
#include "unit_check.h"

typedef struct {
  PetscInt  dim, order, n[3], pml;
  PetscBool x_only; /* every rank along x: at 4 ranks the subdomain faces fall 2-3 cells from the layers' edges */
} Case;

/* Smooth fields of the extended global index, the same on any decomposition. */
static double Background(const PetscInt x[3]) { return 2000 + 8 * x[0] + 150 * sin(0.3 * x[1]) * cos(0.2 * x[2]); }
static double Anomaly(const PetscInt x[3]) { return 120 * exp(-0.02 * ((x[0] - 14) * (x[0] - 14) + (x[1] - 16) * (x[1] - 16) + (x[2] - 9) * (x[2] - 9))); }
static double Direction(const PetscInt x[3]) { return cos(0.37 * x[0] + 0.11 * x[1]) * sin(0.23 * x[1] + 0.5) + 0.5 * cos(0.29 * x[2] + 0.31 * x[0]); }

static void FillModel(const Grid *g, double (*fn)(const PetscInt[3]), double scale, const float *base, float *v)
{
  for (PetscInt k = 0; k < g->size[2]; k++)
    for (PetscInt j = 0; j < g->size[1]; j++)
      for (PetscInt i = 0; i < g->size[0]; i++) {
        const PetscInt x[3] = {g->start[0] + i, g->start[1] + j, g->start[2] + k}, c = i + g->size[0] * (j + g->size[1] * k);
        v[c]                = (float)((base ? base[c] : 0) + scale * fn(x));
      }
}

/* Misfit 1/2 |d - obs|^2 of one shot over the world; with grad, also dJ/dv per owned cell. */
static PetscErrorCode Misfit(Propagator *p, const TimeAxis *t, const ShotLocal *sl, const float *w, const float *v, const float *obs, WavefieldStore store,
                             double *J, double *grad)
{
  const PetscInt nd = sl->nrec * t->nt;
  float         *d;
  double         local = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(nd + 1, &d));
  PetscCall(PropagatorSetModel(p, t, v));
  PetscCall(PropagatorRun(p, t, sl, 0, w, d, grad ? store : NULL));
  for (PetscInt k = 0; k < nd; k++) {
    d[k] -= obs ? obs[k] : 0;
    local += 0.5 * (double)d[k] * d[k];
  }
  PetscCallMPI(MPI_Allreduce(&local, J, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  if (grad) {
    PetscCall(PropagatorGradientReset(p));
    PetscCall(PropagatorAdjoint(p, t, sl, 0, w, d, store));
    PetscCall(PropagatorGradient(p, v, grad));
  }
  PetscCall(PetscFree(d));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckCase(const Case *c)
{
  const PetscReal d[3] = {10, 10, 10};
  PetscInt        pml[3][2], procs[3] = {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE};
  PetscMPIInt     size;
  Grid            g;
  Geometry        geo;
  TimeAxis        t;
  Propagator      p;
  ShotLocal       sl;
  WavefieldStore  store;
  float          *v, *vtrue, *vpert, *obs, *w, *wint;
  double         *grad;
  double          J, Jp, Jm, dot = 0, dot_all, cells;
  const double    h = 1.0;       /* m/s along Direction(), |Direction| <= 1.5: small enough for the
                                    second-order truncation, large enough for float rounding */
  const PetscReal vmax = 2600;   /* fixed, so the time axis and layers do not move with v */

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 3; a++) pml[a][0] = pml[a][1] = c->pml;
  pml[0][0] = 0; /* free surface on top */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (c->x_only) procs[0] = 1, procs[1] = size;
  PetscCall(GridCreate(PETSC_COMM_WORLD, c->dim, c->n, d, c->order, pml, procs, &g));
  cells = (double)g.size[0] * g.size[1] * g.size[2];
  PetscCall(PetscMalloc4((PetscInt)cells, &v, (PetscInt)cells, &vtrue, (PetscInt)cells, &vpert, (PetscInt)cells, &grad));
  FillModel(&g, Background, 1, NULL, v);
  FillModel(&g, Anomaly, 1, v, vtrue);
  PetscCall(TimeAxisSetUp(&g, vmax, 60, 0.004, 0.9, &t));
  PetscCheck(t.m > 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "test set-up: expected resampling, got m = %d", (int)t.m);
    /* deep enough that the free surface's ghost does not cancel the signal */
  PetscCall(GeometryRegular(c->dim, c->n, d, 1, 5, 50, 90, &geo));
  {
    const PropagatorSettings settings = {.f_pml = 15, .nan_check_interval = 50, .progress_interval = 0, .halo_type = HALO_HOST, .overlap = PETSC_TRUE};
    PetscCall(PropagatorCreate(&g, &KernelOpsCPU, v, vmax, &t, &settings, &p));
  }
  PetscCall(ShotLocalize(&g, &p.f, &geo, 0, &sl));
  PetscCall(PetscMalloc2(t.nt, &w, t.nsteps, &wint));
  PetscCall(WaveletRicker(t.nt, t.dt, 15, 0.08, w));
  PetscCall(ResampleUp(t.nt, w, t.m, t.nsteps, wint));
  PetscCall(PetscMalloc1(sl.nrec * t.nt + 1, &obs));
  PetscCall(PropagatorSetModel(&p, &t, vtrue));
  PetscCall(PropagatorRun(&p, &t, &sl, 0, wint, obs, NULL));

  PetscCall(WavefieldStoreCreate(PETSC_COMM_WORLD, &KernelOpsCPU, &p.f, t.nsteps, STORAGE_AUTO, 1e12, &store));
  PetscCall(Misfit(&p, &t, &sl, wint, v, obs, store, &J, grad));
  FillModel(&g, Direction, h, v, vpert);
  PetscCall(Misfit(&p, &t, &sl, wint, vpert, obs, NULL, &Jp, NULL));
  FillModel(&g, Direction, -h, v, vpert);
  PetscCall(Misfit(&p, &t, &sl, wint, vpert, obs, NULL, &Jm, NULL));
  for (PetscInt k = 0; k < g.size[2]; k++)
    for (PetscInt j = 0; j < g.size[1]; j++)
      for (PetscInt i = 0; i < g.size[0]; i++) {
        const PetscInt x[3] = {g.start[0] + i, g.start[1] + j, g.start[2] + k};
        dot += grad[i + g.size[0] * (j + g.size[1] * k)] * Direction(x);
      }
  PetscCallMPI(MPI_Allreduce(&dot, &dot_all, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  {
    const double fd = (Jp - Jm) / (2 * h), rel = fabs(fd - dot_all) / fabs(fd);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD order %d pml %d (m = %d): J %.6e, finite difference %.9e, adjoint %.9e, relative difference %.2e\n", (int)c->dim,
                          (int)c->order, (int)c->pml, (int)t.m, J, fd, dot_all, rel));
    PetscCheck(rel < 1e-3, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD order %d: adjoint gradient %.9e against finite difference %.9e (relative %.2e, limit 1e-3)", (int)c->dim,
               (int)c->order, dot_all, fd, rel);
  }
  PetscCall(WavefieldStoreDestroy(&store));
  PetscCall(ShotLocalDestroy(&sl));
  PetscCall(PropagatorDestroy(&p));
  PetscCall(GeometryDestroy(&geo));
  PetscCall(GridDestroy(&g));
  PetscCall(PetscFree2(w, wint));
  PetscCall(PetscFree4(v, vtrue, vpert, grad));
  PetscCall(PetscFree(obs));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const Case cases[] = {
    {2, 8, {30, 34, 1}, 6, PETSC_FALSE},
    {2, 8, {30, 22, 1}, 6, PETSC_TRUE },
    {2, 4, {30, 34, 1}, 6, PETSC_FALSE},
    {2, 2, {30, 34, 1}, 5, PETSC_FALSE},
    {3, 8, {18, 20, 16}, 4, PETSC_FALSE},
    {3, 2, {18, 20, 16}, 4, PETSC_FALSE},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(EventsRegister());
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) PetscCall(CheckCase(&cases[k]));
  PetscCall(PetscFinalize());
  return 0;
}
