/* The variable-density equation (equations/variable_density/) through the
   shot layer, against what its physics says:
   - constant density: the pressure is rho times the constant-density
     equation's field for the wavelet's backward difference over dt (the
     two leapfrogs are then the same recursion up to the spatial operator:
     a staggered difference applied twice against a centred second
     difference), 2D and 3D, with a free surface on top and without;
   - a density step at normal incidence (vp the same on both sides, so the
     reflection coefficient (rho2 - rho1) / (rho2 + rho1) holds at every
     angle and the reflection is that of the image source): the reflected
     event against the homogeneous medium's direct wave at the image
     source's distance;
   - decomposed runs (any number of ranks, split along z and x) against one
     rank: the same bits;
   - the cells the staggered kernels take without CPML (StaggeredPlainRange):
     on every rank's block, exactly its cells between the layers along z,
     centres and nodes. */
#include "data/geometry.h"
#include "data/wavelet.h"
#include "equations/staggered.h"
#include "grid/grid.h"
#include "grid/timeaxis.h"
#include "shot/propagate.h"
#include "shot/survey.h"
#include <math.h>

#define NREC 3

/* One experiment: the grid (cells, spacing 10 m, order, top free or not),
   rho by depth index (rho_top above iz_step, rho_bottom from it), vp
   homogeneous, a source and NREC receivers, nt steps of dt, a Ricker
   wavelet of peak f0. */
typedef struct {
  PetscInt  dim, n[3], order, nt, iz_step;
  PetscBool free_top;
  PetscReal vp, rho_top, rho_bottom, dt, f0; /* f0: the Ricker wavelet's peak (Hz) */
  Position  src, rec[NREC];
} Experiment;

/* Every receiver's trace (nt samples each, on every rank) of the equation
   eq on comm, the wavelet w (internal step = dt). */
static PetscErrorCode Run(MPI_Comm comm, const Equation *eq, const Experiment *x, const PetscInt procs[3], const float *w, float *traces)
{
  const PetscReal d[3] = {10, 10, 10};
  PetscInt        pml[3][2];
  Grid            g;
  Geometry        geo;
  TimeAxis        t;
  ShotLocal       sl;
  Propagator      p;
  EquationKernels k;
  float          *vp, *rho, *local;
  size_t          cells;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 3; a++) pml[a][0] = pml[a][1] = a < x->dim ? 20 : 0;
  if (x->free_top) pml[0][0] = 0;
  PetscCall(GridCreate(comm, x->dim, x->n, d, x->order, pml, procs, &g));
  cells = (size_t)g.size[0] * g.size[1] * g.size[2];
  PetscCall(PetscMalloc3(cells, &vp, cells, &rho, NREC * x->nt, &local));
  for (PetscInt kk = 0; kk < g.size[2]; kk++)
    for (PetscInt j = 0; j < g.size[1]; j++)
      for (PetscInt i = 0; i < g.size[0]; i++) {
        const size_t   c  = i + (size_t)g.size[0] * (j + (size_t)g.size[1] * kk);
        const PetscInt iz = g.start[0] + i - pml[0][0];
        vp[c]             = (float)x->vp;
        rho[c]            = (float)(iz < x->iz_step ? x->rho_top : x->rho_bottom);
      }
  PetscCall(GeometryAlloc(1, NREC, "test survey", &geo));
  geo.src[0]       = x->src;
  geo.rec_start[0] = 0;
  for (PetscInt r = 0; r < NREC; r++) geo.rec[r] = x->rec[r];
  PetscCall(TimeAxisSetUp(&g, eq->stable_step(&g, x->vp), x->nt, x->dt, 0.9, &t));
  PetscCheck(t.m == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "test set-up: the internal step must be dt");
  PetscCheck(eq->kernels(BACKEND_CPU, &k), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: no CPU kernels", eq->name);
  {
    const PropagatorSettings settings = {.f_pml = 15, .nan_check_interval = 100, .halo_type = HALO_HOST, .overlap = PETSC_TRUE};
    PetscCall(PropagatorCreate(&g, eq, &k, (const float *const[]){vp, rho}, x->vp, &t, &settings, &p));
  }
  PetscCall(ShotLocalize(&g, &geo, 0, PETSC_FALSE, &sl));
  PetscCall(PropagatorRun(&p, &t, &sl, 0, w, local, NULL));
  PetscCall(PetscArrayzero(traces, NREC * x->nt));
  for (PetscInt r = 0; r < sl.nrec; r++) PetscCall(PetscArraycpy(traces + sl.rec_id[r] * x->nt, local + r * x->nt, x->nt));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, traces, (PetscMPIInt)(NREC * x->nt), MPI_FLOAT, MPI_SUM, comm));
  PetscCall(ShotLocalDestroy(&sl));
  PetscCall(PropagatorDestroy(&p));
  PetscCall(GeometryDestroy(&geo));
  PetscCall(GridDestroy(&g));
  PetscCall(PetscFree3(vp, rho, local));
  PetscFunctionReturn(0);
}

/* |a - s b| / |s b| over n samples. */
static double RelativeL2(PetscInt n, const float *a, const float *b, double s)
{
  double num = 0, den = 0;

  for (PetscInt i = 0; i < n; i++) {
    num += (a[i] - s * b[i]) * (a[i] - s * b[i]);
    den += s * b[i] * s * b[i];
  }
  return sqrt(num / den);
}

/* Constant density against the constant-density equation. */
static PetscErrorCode CheckConstantDensity(const Experiment *x, double limit)
{
  const PetscInt procs[3] = {1, 1, 1}, n = NREC * x->nt;
  float         *w, *dw, *p, *u;
  double         err;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(x->nt, &w, x->nt, &dw, n, &p, n, &u));
  PetscCall(WaveletRicker(x->nt, x->dt, x->f0, 1.2 / x->f0, w));
  for (PetscInt i = 0; i < x->nt; i++) dw[i] = (float)((w[i] - (i ? w[i - 1] : 0)) / x->dt);
  PetscCall(Run(PETSC_COMM_SELF, &EquationVariableDensity, x, procs, w, p));
  PetscCall(Run(PETSC_COMM_SELF, &EquationAcoustic, x, procs, dw, u));
  err = RelativeL2(n, p, u, x->rho_top);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD order %d%s, %.1f cells a wavelength at the peak, constant density: p against rho u, relative L2 %.2e (limit %.0e)\n",
                        (int)x->dim, (int)x->order, x->free_top ? ", free surface" : "", x->vp / x->f0 / 10, err, limit));
  PetscCheck(err < limit, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD order %d: variable density at constant density differs from the constant-density equation by %.2e (limit %.0e)",
             (int)x->dim, (int)x->order, err, limit);
  PetscCall(PetscFree4(w, dw, p, u));
  PetscFunctionReturn(0);
}

/* The density step: receiver 0 beside the source, the step iz_step cells
   down (its face, where the buoyancy averages across, half a cell above);
   receiver 1 as far below the source in a homogeneous medium as the image
   source lies from receiver 0. */
static PetscErrorCode CheckReflection(Experiment x)
{
  const PetscInt procs[3] = {1, 1, 1}, n = NREC * x.nt;
  const double   want     = (x.rho_bottom - x.rho_top) / (x.rho_bottom + x.rho_top);
  const double   face     = (x.iz_step - 0.5) * 10;
  float         *w, *step, *flat, *image;
  double         num = 0, den = 0, got;
  Experiment     h = x;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(x.nt, &w, n, &step, n, &flat, n, &image));
  PetscCall(WaveletRicker(x.nt, x.dt, x.f0, 1.2 / x.f0, w));
  PetscCall(Run(PETSC_COMM_SELF, &EquationVariableDensity, &x, procs, w, step));
  h.iz_step = x.n[0] + 1;
  PetscCall(Run(PETSC_COMM_SELF, &EquationVariableDensity, &h, procs, w, flat));
  h.rec[1].c[0] = x.src.c[0] + (2 * face - x.src.c[0] - x.rec[0].c[0]);
  h.rec[1].c[1] = x.src.c[1];
  PetscCall(Run(PETSC_COMM_SELF, &EquationVariableDensity, &h, procs, w, image));
  for (PetscInt i = 0; i < x.nt; i++) {
    const double refl = step[i] - flat[i], im = image[x.nt + i];
    num += refl * im;
    den += im * im;
  }
  got = num / den;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "density step %g -> %g kg/m^3: reflection %.4f, expected %.4f (%.2f%%)\n", (double)x.rho_top, (double)x.rho_bottom, got, want,
                        100 * fabs(got - want) / want));
  PetscCheck(fabs(got - want) <= 0.02 * fabs(want), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "density step: reflection coefficient %.4f, expected %.4f within 2%%", got, want);
  PetscCall(PetscFree4(w, step, flat, image));
  PetscFunctionReturn(0);
}

/* Along z (absorbing on top or free, 20 layer cells below) each rank's
   plain ranges are its owned centres lo <= x <= hi and nodes x + 1/2 <= hi
   between the layers (lo, hi the first and last global interior cell), in
   padded indices: the kernels take those without CPML, the rest as layer
   cells. */
static PetscErrorCode CheckPlainRanges(PetscInt order, PetscBool free_top)
{
  const PetscInt  n[3] = {90, 40, 1}, procs[3] = {PETSC_DECIDE, 1, 1};
  const PetscReal d[3] = {10, 10, 10};
  PetscInt        pml[3][2] = {{free_top ? 0 : 20, 20}, {20, 20}, {0, 0}};
  Grid            g;
  float          *pa, *pb;

  PetscFunctionBeginUser;
  PetscCall(GridCreate(PETSC_COMM_WORLD, 2, n, d, order, pml, procs, &g));
  {
    const PetscInt R = g.radius, np = g.size[0] + 2 * R, lo = g.pml[0][0], hi = g.pml[0][0] + g.n[0] - 1;
    PetscCall(PetscMalloc2(np, &pa, np, &pb));
    for (PetscInt nodes = 0; nodes < 2; nodes++) {
      /* the owned cells from lo to hi (nodes: to hi - 1), in padded indices */
      const PetscInt want[2] = {PetscMax(lo, g.start[0]) - g.start[0] + R, PetscMin(hi + 1 - nodes, g.start[0] + g.size[0]) - g.start[0] + R};
      PetscInt       r[2];
      if (nodes) GridLayerProfileHalf(&g, 0, 3000, 10, 1e-3, pa, pb);
      else {
        float *da;
        PetscCall(PetscMalloc1(np, &da));
        PetscCall(GridLayerProfile(&g, 0, 3000, 10, 1e-3, pa, pb, da));
        PetscCall(PetscFree(da));
      }
      StaggeredPlainRange(np, R, pb, r);
      if (want[1] <= want[0]) continue; /* no interior here: any empty range will do */
      PetscCheck(r[0] == want[0] && r[1] == want[1], PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "order %d, top %s, rank block from %" PetscInt_FMT ": plain %s [%" PetscInt_FMT ", %" PetscInt_FMT "), expected [%" PetscInt_FMT ", %" PetscInt_FMT ")", (int)order,
                 free_top ? "free" : "absorbing", g.start[0], nodes ? "nodes" : "centres", r[0], r[1], want[0], want[1]);
    }
    PetscCall(PetscFree2(pa, pb));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "order %d, top %s: every rank's plain ranges are its interior cells\n", (int)order, free_top ? "free" : "absorbing"));
  PetscCall(GridDestroy(&g));
  PetscFunctionReturn(0);
}

/* The world's ranks split along every axis PETSc chooses against one rank:
   the same bits. */
static PetscErrorCode CheckDecomposition(const Experiment *x)
{
  const PetscInt one[3] = {1, 1, 1}, n = NREC * x->nt;
  PetscInt       procs[3] = {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}, differ = 0;
  PetscMPIInt    size;
  float         *w, *alone, *split;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscMalloc3(x->nt, &w, n, &alone, n, &split));
  PetscCall(WaveletRicker(x->nt, x->dt, x->f0, 1.2 / x->f0, w));
  PetscCall(Run(PETSC_COMM_SELF, &EquationVariableDensity, x, one, w, alone));
  PetscCall(Run(PETSC_COMM_WORLD, &EquationVariableDensity, x, procs, w, split));
  for (PetscInt i = 0; i < n; i++) differ += memcmp(&alone[i], &split[i], sizeof(float)) != 0;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD order %d on %d ranks against 1: %" PetscInt_FMT " of %" PetscInt_FMT " samples differ\n", (int)x->dim, (int)x->order, size, differ, n));
  PetscCheck(!differ, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD: %" PetscInt_FMT " samples differ between %d ranks and 1, expected the same bits", (int)x->dim, differ, size);
  PetscCall(PetscFree3(w, alone, split));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  /* 2D: 150 x 150 cells of 10 m, vp 2000 m/s, 20 Hz: 10 cells a wavelength at the peak */
  Experiment x2 = {.dim = 2, .n = {150, 150, 1}, .order = 8, .nt = 500, .iz_step = 1000, .vp = 2000, .rho_top = 1800, .rho_bottom = 1800, .dt = 1e-3, .f0 = 20,
                   .src = {{403, 747, 0}}, .rec = {{{403, 1213, 0}}, {{900, 747, 0}}, {{122, 360, 0}}}};
  Experiment x3 = x2;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (PetscInt order = 2; order <= 8; order += 6)
    for (PetscInt free_top = 0; free_top < 2; free_top++) PetscCall(CheckPlainRanges(order, (PetscBool)free_top));
  PetscCall(CheckConstantDensity(&x2, 5e-3));
  x2.free_top = PETSC_TRUE;
  PetscCall(CheckConstantDensity(&x2, 5e-3));
  x3.dim = 3, x3.n[0] = x3.n[1] = x3.n[2] = 60, x3.order = 4, x3.nt = 300, x3.f0 = 15, x3.rho_bottom = 2400, x3.iz_step = 30;
  x3.src    = (Position){{203, 297, 300}};
  x3.rec[0] = (Position){{203, 497, 300}}, x3.rec[1] = (Position){{403, 297, 250}}, x3.rec[2] = (Position){{52, 150, 420}};
  PetscCall(CheckDecomposition(&x3));
  x3.rho_bottom = x3.rho_top;
  PetscCall(CheckConstantDensity(&x3, 1e-2));
  {
    /* the step 1 km down, the source and receiver 300 m above it, 10 Hz: 20 cells a wavelength */
    Experiment r = x2;
    r.free_top = PETSC_FALSE, r.n[0] = 200, r.n[1] = 200, r.nt = 900, r.f0 = 10;
    r.iz_step = 100, r.rho_top = 1000, r.rho_bottom = 2500;
    r.src = (Position){{700, 1000, 0}}, r.rec[0] = (Position){{700, 1000, 0}};
    PetscCall(CheckReflection(r));
    /* the step where 2 ranks along z meet (220 cells with the layer below) */
    r.free_top = PETSC_TRUE, r.nt = 400, r.iz_step = 110;
    PetscCall(CheckDecomposition(&r));
  }
  PetscCall(PetscFinalize());
  return 0;
}
