/* The staggered equations' gradients (equations/variable_density/,
   equations/elastic/; -physics, variable_density by default) through the
   shot layer: the misfit J = 1/2 |d - obs|^2 of one shot, its adjoint run
   and the chain rule (PropagatorGradient) give dJ/dm for each of the
   equation's parameters (vp, rho; vp, vs, rho), and each, dotted with a
   smooth direction, matches a central finite difference of J
   (extrapolated from h and 2h) to 1e-3: the direction over every cell of
   the extended grid, and again over the absorbing layers' cells alone
   (full storage images the layers too, where the CPML terms carry the
   model), so that an error there cannot hide behind the core's larger
   share (a few percent of grad . dir).  An exact discrete adjoint is what
   lets a gradient-based inversion converge to the discrete problem's
   minimum, and only a finite difference of the forward code itself can
   show it.  The model varies smoothly in every parameter (vp with depth
   and a blob, vs likewise, rho a blob of its own) and has density steps
   where ranks meet (along z at N0 / 2, along x at N1 / 2 above it), where
   the buoyancy is averaged across a face whose ghosts come from a
   neighbour; the observed data come from a model with an anomaly in each
   parameter.  The source and the receivers lie between grid points
   (Hicks-weighted maps on both sides of the adjoint; the source's own
   term, its injection being scaled by the model at its cells, lies within
   the directions), one receiver 1.5 cells below the top (within the reach
   of the free surface's image, or next to the top layer).  Cases: 2D
   orders 8 and 2 with absorbing layers on every side, 2D orders 4 and 6
   with a free surface on top, 3D order 4 absorbing and order 8 with a
   free surface, and free surfaces on two sides (the top and the last
   axis's far side: 2D order 8, 3D order 4), where the mirrors beyond the
   far side differ from the top's; the elastic equation also with a water
   layer (vs = 0) under the free surface, with a vertical force for its
   source, and with a horizontal one; and each equation with velocity
   data under a free surface (vz for variable density, vx for the
   elastic: receivers on the velocity's nodes, the residuals going into
   the adjoint's velocity).
   On more than one rank the gradient of the decomposition mpiexec gives,
   and at 4 ranks of split ones chosen here (2 x 2 x 1, and 4 x 1 x 1 in 2D
   or 1 x 2 x 2 in 3D, each left out where it is the default; 2 x 2 x 1
   puts both density steps on rank boundaries), is the same bits, cell for
   cell, as one rank's (rank 0 alone, gathered by global index): the forward
   is independent of the decomposition to the bit, and so must its adjoint
   be.  A 1% error in the layers' dJ/dvp moves the whole grid's check by
   3e-4 only and fails the layers' check; a one-ulp change in one cell on
   one rank fails the decomposition check.
   The boundary method (the forward fields run backwards in the core, the
   band beyond it saved each step), where the equation offers it, is held
   the same way: its gradient is exactly 0 on every layer cell, matches
   the central differences along directions that are 0 on the layers and
   on the core's cells next to them (whose density sets the buoyancy of
   faces in the layers, which it does not image), lies within 1e-5
   (relative L2) of full storage's on the cells two or more from the
   layers, and is the same bits on every decomposition.
   With -against_cuda the CUDA backend runs every case of the equation
   beside the CPU's, on the decomposition mpiexec gives, and its traces and
   both methods' gradients must be the CPU's bits (the boundary method's
   within 1e-5 relative L2 where it runs without the CPU's support boxes:
   the constant-density and variable-density equations), and its checkpointed
   gradient (3 snapshots, windows of 4 steps, the snapshots in host memory
   in the 1st, 3rd, ... case and in device memory in the others) full
   storage's; in the first case its full storage on disk, and encoded in
   every tier, the CPU's with the same encoding; and there each backend's
   gradients of the first parameters alone (vp; vp and vs), whose adjoint
   forms only the images they read and whose full storage keeps only the
   terms those read, by each method the same bits as that backend's
   gradients of every parameter.  -physics acoustic -against_cuda does the same for the
   constant-density equation:
   unit_staggered_gradient_cuda_host runs its kernels compiled for the host
   (no GPU needed), unit_staggered_gradient_cuda on a GPU (GPU_SKIPPED,
   skipped, without one). */
#include "data/events.h"
#include "data/geometry.h"
#include "data/wavelet.h"
#include "equations/acoustic/acoustic.h"
#include "equations/variable_density/kernels.h"
#include "equations/elastic/kernels.h"
#include "grid/grid.h"
#include "grid/timeaxis.h"
#include "shot/propagate.h"
#include "shot/survey.h"
#include "gpu_skip.h"
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NREC 5

/* One case: the user grid (10 m cells), the layers' width (none on top with
   free_top, nor on the last axis's far side with free_far: free surfaces
   there), the order, nt samples at dt (the internal step: dt is below the
   stable step), the Ricker wavelet's peak f0 (Hz), the source's kind
   (Equation.source_kind), whether the top rows are water (vs = 0, the
   elastic equation), and the component the receivers record and the
   misfit reads (Equation.component: 0 the pressure, else a velocity on
   its own nodes, whose residuals the adjoint takes into that velocity).  Every extended N[a] is a multiple of 4, so that 2
   or 4 ranks along an axis split it at N[a] / 2 (the density steps). */
typedef struct {
  const char *name;
  PetscInt    dim, order, n[3], pml, nt;
  PetscBool   free_top;
  PetscReal   dt, f0;
  PetscBool   free_far;
  PetscInt    source_kind;
  PetscBool   water;
  PetscInt    component;
} Case;

static const PetscReal d[3] = {10, 10, 10};
static const PetscReal vmax = 2700; /* fixed above every model's vp, so that the time axis and layers do not move with the model */

/* The extended grid of the current case, of which the model and the
   directions are functions (global extended indices: the same on any
   decomposition), and its water rows. */
static struct {
  PetscInt  dim, N[3], n[3], pml[3][2];
  PetscBool water;
} shape;

static double Blob(const PetscInt x[3], double fz, double fx, double fy, double s)
{
  const double c[3] = {fz * shape.N[0], fx * shape.N[1], fy * shape.N[2]};
  double       r2   = 0;

  for (PetscInt a = 0; a < shape.dim; a++) r2 += (x[a] - c[a]) * (x[a] - c[a]);
  return exp(-r2 / (2 * s * s));
}

/* Water: the first fifth of the rows. */
static PetscBool Water(const PetscInt x[3]) { return shape.water && x[0] < shape.N[0] / 5; }

/* The model the gradient is taken at: vp up with depth and a blob (at most
   2000 + 4 * 83 + 150 + 120 with the anomaly below, under vmax); vs likewise
   (vp / vs from 1.6 to 1.9), 0 in water; rho a blob of its own, a step down
   at N0 / 2 and, above it, one across at N1 / 2. */
static double Vp(const PetscInt x[3]) { return Water(x) ? 1500 : 2000 + 4.0 * x[0] + 150 * Blob(x, 0.55, 0.35, 0.5, 5); }
static double Vs(const PetscInt x[3]) { return Water(x) ? 0 : 1150 + 2.0 * x[0] + 100 * Blob(x, 0.4, 0.55, 0.45, 5); }
static double Rho(const PetscInt x[3])
{
  const PetscBool below = x[0] >= shape.N[0] / 2, right = x[1] >= shape.N[1] / 2;
  return Water(x) ? 1000 : 1800 + 250 * Blob(x, 0.3, 0.65, 0.5, 6) + (below ? 300 : right ? 150 : 0);
}
/* What the observed data's model adds: an anomaly in each parameter,
   elsewhere than the blobs, none in the water. */
static double VpAnomaly(const PetscInt x[3]) { return Water(x) ? 0 : 120 * Blob(x, 0.45, 0.6, 0.45, 4); }
static double VsAnomaly(const PetscInt x[3]) { return Water(x) ? 0 : 90 * Blob(x, 0.58, 0.45, 0.55, 4); }
static double RhoAnomaly(const PetscInt x[3]) { return Water(x) ? 0 : 200 * Blob(x, 0.62, 0.3, 0.55, 4); }

/* Smooth directions, |.| <= 1.5, different for each parameter.  The
   density's has a part near the reflection wavenumber (0.75 a cell along z,
   8 cells a period): at fixed vp a density perturbation much smoother than
   the wavelength changes the data little (the traveltimes not at all), and
   the finite difference of so small a change would be float rounding.  The
   S velocity's is 0 in water, where vs = 0 is a bound. */
static double DirVp(const PetscInt x[3]) { return cos(0.37 * x[0] + 0.11 * x[1]) * sin(0.23 * x[1] + 0.5) + 0.5 * cos(0.29 * x[2] + 0.31 * x[0]); }
static double DirVs(const PetscInt x[3]) { return Water(x) ? 0 : sin(0.31 * x[0] - 0.13 * x[1] + 0.2) * cos(0.19 * x[1] + 0.27 * x[2]) + 0.5 * cos(0.41 * x[0] + 0.1); }
static double DirRho(const PetscInt x[3]) { return 0.5 * sin(0.21 * x[0] - 0.17 * x[1] + 0.3) * cos(0.13 * x[2] + 0.4) + cos(0.75 * x[0] + 0.25 * x[1] - 0.2 * x[2] + 0.1); }

/* An equation under test: its parameters' models, anomalies, directions
   and finite-difference steps (over the whole grid and over the layers
   alone; the parameter's unit), and its cases. */
typedef struct {
  const Equation *eq;
  double (*model[3])(const PetscInt[3]);
  double (*anomaly[3])(const PetscInt[3]);
  double (*dir[3])(const PetscInt[3]);
  double      h[3], h_layers[3];
  PetscInt    ncase;
  const Case *cases;
  PetscBool   boundary_rounds; /* the CUDA boundary method runs the forward field over the whole core, without the CPU's support boxes: the CPU's gradient to rounding (docs/gpu.md) */
} Tested;

/* 2D: 60 x 68 cells and layers of 12 (84 x 92), 400 steps of 1 ms at 15 Hz;
   3D: 24^3 and layers of 8 (40^3), 180 steps at 25 Hz */
static const Case vd_cases[] = {
  {"2D absorbing", 2, 8, {60, 68, 1},  12, 400, PETSC_FALSE, 1e-3, 15, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"2D free surface", 2, 4, {60, 68, 1},  12, 400, PETSC_TRUE,  1e-3, 15, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"3D absorbing", 3, 4, {24, 24, 24}, 8,  180, PETSC_FALSE, 1e-3, 25, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"2D absorbing, order 2", 2, 2, {60, 68, 1},  12, 400, PETSC_FALSE, 1e-3, 12, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"2D free surface, order 6", 2, 6, {60, 68, 1},  12, 400, PETSC_TRUE,  1e-3, 15, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"3D free surface, order 8", 3, 8, {24, 24, 24}, 8,  180, PETSC_TRUE, 1e-3, 25, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"2D free surfaces on top and right", 2, 8, {60, 68, 1},  12, 400, PETSC_TRUE, 1e-3, 15, PETSC_TRUE, 0, PETSC_FALSE, 0},
  {"3D free surfaces on top and far y", 3, 4, {24, 24, 24}, 8,  180, PETSC_TRUE, 1e-3, 25, PETSC_TRUE, 0, PETSC_FALSE, 0},
  {"2D free surface, vz data", 2, 4, {60, 68, 1},  12, 400, PETSC_TRUE,  1e-3, 15, PETSC_FALSE, 0, PETSC_FALSE, 1},
};

/* The same grids; the S waves' shorter wavelengths take lower peaks. */
static const Case el_cases[] = {
  {"2D absorbing", 2, 8, {60, 68, 1},  12, 400, PETSC_FALSE, 1e-3, 12, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"2D free surface", 2, 4, {60, 68, 1},  12, 400, PETSC_TRUE,  1e-3, 12, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"2D water over solid, free surface", 2, 8, {60, 68, 1},  12, 400, PETSC_TRUE,  1e-3, 12, PETSC_FALSE, 0, PETSC_TRUE, 0},
  {"2D free surface, vertical force", 2, 6, {60, 68, 1},  12, 400, PETSC_TRUE,  1e-3, 12, PETSC_FALSE, 1, PETSC_FALSE, 0},
  {"2D absorbing, order 2", 2, 2, {60, 68, 1},  12, 400, PETSC_FALSE, 1e-3, 10, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"2D free surface, horizontal force", 2, 4, {60, 68, 1},  12, 400, PETSC_TRUE, 1e-3, 12, PETSC_FALSE, 2, PETSC_FALSE, 0},
  {"3D absorbing", 3, 4, {24, 24, 24}, 8,  180, PETSC_FALSE, 1e-3, 20, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"3D free surface, order 8", 3, 8, {24, 24, 24}, 8,  180, PETSC_TRUE, 1e-3, 20, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"2D free surfaces on top and right", 2, 8, {60, 68, 1},  12, 400, PETSC_TRUE, 1e-3, 12, PETSC_TRUE, 0, PETSC_FALSE, 0},
  {"3D free surfaces on top and far y, water", 3, 4, {24, 24, 24}, 8,  180, PETSC_TRUE, 1e-3, 20, PETSC_TRUE, 0, PETSC_TRUE, 0},
  {"2D free surface, vx data", 2, 4, {60, 68, 1},  12, 400, PETSC_TRUE,  1e-3, 10, PETSC_FALSE, 0, PETSC_FALSE, 2},
};

/* The constant-density equation, for its CUDA backend through the shot
   layer (-against_cuda): its full storage reads steps n + 1 and n at once. */
static const Case ac_cases[] = {
  {"2D absorbing", 2, 8, {60, 68, 1},  12, 400, PETSC_FALSE, 1e-3, 15, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"2D free surface", 2, 4, {60, 68, 1},  12, 400, PETSC_TRUE,  1e-3, 15, PETSC_FALSE, 0, PETSC_FALSE, 0},
  {"3D absorbing", 3, 4, {24, 24, 24}, 8,  180, PETSC_FALSE, 1e-3, 25, PETSC_FALSE, 0, PETSC_FALSE, 0},
};

static const Tested tested[] = {
  {&EquationAcoustic, {Vp}, {VpAnomaly}, {DirVp}, {8}, {40}, EQUATION_COUNT(ac_cases), ac_cases, PETSC_TRUE},
  {&EquationVariableDensity, {Vp, Rho}, {VpAnomaly, RhoAnomaly}, {DirVp, DirRho}, {8, 8}, {40, 15}, EQUATION_COUNT(vd_cases), vd_cases, PETSC_TRUE},
  {&EquationElastic, {Vp, Vs, Rho}, {VpAnomaly, VsAnomaly, RhoAnomaly}, {DirVp, DirVs, DirRho}, {8, 8, 8}, {40, 40, 60}, EQUATION_COUNT(el_cases), el_cases, PETSC_TRUE},
};

/* The equation under test (-physics). */
static const Tested *phys;

/* Where a direction lives: every cell, the layers' cells, or the core's
   cells `margin` or more from the layers (margin 0: the whole core). */
typedef enum { EVERYWHERE, LAYERS, CORE } Region;

/* Whether global cell x lies within margin cells of the layers (margin 0:
   in them); a free surface's side has none. */
static PetscBool NearLayer(const PetscInt x[3], PetscInt margin)
{
  for (PetscInt a = 0; a < shape.dim; a++)
    if ((shape.pml[a][0] && x[a] < shape.pml[a][0] + margin) || (shape.pml[a][1] && x[a] >= shape.pml[a][0] + shape.n[a] - margin)) return PETSC_TRUE;
  return PETSC_FALSE;
}

static PetscBool InRegion(Region r, const PetscInt x[3], PetscInt margin) { return r == EVERYWHERE || (r == LAYERS ? NearLayer(x, 0) : !NearLayer(x, margin)); }

/* fn at global cell x, 0 outside region r (CORE: 1 cell from the layers). */
static double Eval(double (*fn)(const PetscInt[3]), Region r, const PetscInt x[3]) { return InRegion(r, x, 1) ? fn(x) : 0; }

/* Runs the statements given for every owned cell of grid g: x its global
   extended index, c its index among the owned cells (z fastest). */
#define EACH_OWNED_CELL(g, ...) \
  for (PetscInt k = 0; k < (g)->size[2]; k++) \
    for (PetscInt j = 0; j < (g)->size[1]; j++) \
      for (PetscInt i = 0; i < (g)->size[0]; i++) { \
        const PetscInt x[3] = {(g)->start[0] + i, (g)->start[1] + j, (g)->start[2] + k}; \
        const size_t   c    = i + (size_t)(g)->size[0] * (j + (size_t)(g)->size[1] * k); \
        __VA_ARGS__; \
      }

/* out = base + scale fn (Eval) over g's owned cells, z fastest; base NULL: 0. */
static void Fill(const Grid *g, double (*fn)(const PetscInt[3]), Region region, double scale, const float *base, float *out)
{
  EACH_OWNED_CELL(g, out[c] = (float)((base ? base[c] : 0) + scale * Eval(fn, region, x)));
}

/* One shot's propagator on comm with the process grid procs: the model
   (a float array per parameter) the gradient is taken at, the wavelet at
   the internal step, the observed traces of the receivers this rank
   records, the store (NULL until RunGradientSetUp), and the gradients
   taken (nimage: those of the first nimage parameters; 0 every one). */
typedef struct {
  MPI_Comm        comm;
  Grid            g;
  TimeAxis        t;
  EquationKernels k;
  ShotLocal       sl;
  Propagator      p;
  WavefieldStore  store;
  GradientMethod  method; /* the store's */
  WavefieldTier   tier, kept; /* where the next store keeps its steps, and where the store does */
  size_t          cells;
  PetscInt        np, nimage;
  float          *model[EQUATION_MAX_PARAMETERS], *w, *obs;
} Run;

/* The survey of a case: the source 12.3 cells deep, receiver 0 1.5 cells
   deep, the others 80% of the way down across the width; every point off
   the grid on every axis. */
static PetscErrorCode Survey(const Case *c, Geometry *geo)
{
  const PetscReal depth = (c->n[0] - 1) * d[0], width = (c->n[1] - 1) * d[1], across = (c->n[2] - 1) * d[2];
  const PetscBool y     = c->dim == 3;

  PetscFunctionBeginUser;
  PetscCall(GeometryAlloc(1, NREC, "test survey", geo));
  geo->rec_start[0] = 0;
  geo->rec_start[1] = NREC;
  geo->src[0]       = (Position){{12.3 * d[0], 0.4 * width + 0.3 * d[1], y ? 0.5 * across + 0.3 * d[2] : 0}};
  geo->rec[0]       = (Position){{1.5 * d[0], 0.6 * width + 0.25 * d[1], y ? 0.4 * across + 0.45 * d[2] : 0}};
  for (PetscInt r = 1; r < NREC; r++)
    geo->rec[r] = (Position){{0.8 * depth + 0.35 * d[0], (0.1 + 0.25 * (r - 1)) * width + (0.25 + 0.1 * r) * d[1], y ? (0.15 + 0.2 * r) * across + 0.15 * d[2] : 0}};
  PetscFunctionReturn(0);
}

/* The kernels of a run: the CPU's, or CUDA's (HALOFWI_CUDA_HOST: compiled
   for the host, whatever the build has). */
static PetscErrorCode RunKernels(PetscBool cuda, EquationKernels *k, HaloType *halo)
{
  const Equation *eq = phys->eq;

  PetscFunctionBeginUser;
  *halo = HALO_HOST;
#ifdef HALOFWI_CUDA_HOST
  if (cuda) {
    if (eq == &EquationElastic) *k = (EquationKernels){(const struct KernelOps *)&ELKernelsCUDA, ELKernelsCUDA.backend};
    else if (eq == &EquationVariableDensity) *k = (EquationKernels){(const struct KernelOps *)&VDKernelsCUDA, VDKernelsCUDA.backend};
    else *k = (EquationKernels){&KernelOpsCUDA, KernelOpsCUDA.backend};
    PetscFunctionReturn(0);
  }
#else
  if (cuda) *halo = HALO_STAGED; /* device memory */
#endif
  PetscCheck(eq->kernels(cuda ? BACKEND_CUDA : BACKEND_CPU, k), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: no %s kernels", eq->name, cuda ? "CUDA" : "CPU");
  PetscFunctionReturn(0);
}

static PetscErrorCode RunCreate(MPI_Comm comm, const Case *c, const PetscInt procs[3], PetscBool cuda, PetscInt nimage, Run *r)
{
  HaloType        halo;
  const Equation *eq = phys->eq;
  PetscInt        pml[3][2];
  Geometry        geo;
  float          *truth[EQUATION_MAX_PARAMETERS], *wrec;

  PetscFunctionBeginUser;
  r->comm  = comm;
  r->store = NULL;
  r->tier  = (WavefieldTier){STORAGE_AUTO, CODEC_NONE, NULL};
  r->np     = eq->nparameter;
  r->nimage = nimage;
  for (PetscInt a = 0; a < 3; a++) pml[a][0] = pml[a][1] = a < c->dim ? c->pml : 0;
  if (c->free_top) pml[0][0] = 0;
  if (c->free_far) pml[c->dim - 1][1] = 0;
  PetscCall(GridCreate(comm, c->dim, c->n, d, c->order, pml, procs, &r->g));
  r->cells = (size_t)r->g.size[0] * r->g.size[1] * r->g.size[2];
  for (PetscInt k = 0; k < r->np; k++) {
    PetscCall(PetscMalloc1(r->cells, &r->model[k]));
    PetscCall(PetscMalloc1(r->cells, &truth[k]));
    Fill(&r->g, phys->model[k], EVERYWHERE, 1, NULL, r->model[k]);
    Fill(&r->g, phys->anomaly[k], EVERYWHERE, 1, r->model[k], truth[k]);
  }
  PetscCall(TimeAxisSetUp(&r->g, eq->stable_step(&r->g, vmax), c->nt, c->dt, 0.9, &r->t));
  PetscCheck(r->t.m == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "test set-up: dt %g above 0.9 of the stable step %g", (double)c->dt, (double)r->t.dt_stable);
  PetscCall(RunKernels(cuda, &r->k, &halo));
  {
    const PropagatorSettings settings = {.f_pml = c->f0, .nan_check_interval = 100, .halo_type = halo, .overlap = PETSC_TRUE, .skip_quiet = PETSC_TRUE, .source_kind = c->source_kind,
                                         .component = c->component, .nimage = nimage};
    PetscCall(PropagatorCreate(&r->g, eq, &r->k, (const float *const *)r->model, vmax, &r->t, &settings, &r->p));
  }
  PetscCall(Survey(c, &geo));
  if (c->component) {
    const ShotPlacement at = {-1, eq->component[c->component].axis, eq->surface_no_parity ? PETSC_FALSE : PETSC_TRUE};
    PetscCall(ShotLocalizeAt(&r->g, &geo, 0, PETSC_FALSE, &at, &r->sl));
  } else PetscCall(ShotLocalize(&r->g, &geo, 0, PETSC_FALSE, &r->sl));
  PetscCall(GeometryDestroy(&geo));
  PetscCall(PetscMalloc1(r->t.nsteps, &r->w));
  PetscCall(PetscMalloc1(r->sl.nrec * r->t.nt + 1, &r->obs));
  PetscCall(PetscMalloc1(r->t.nt, &wrec));
  PetscCall(WaveletRicker(r->t.nt, r->t.dt, c->f0, 1.2 / c->f0, wrec));
  PetscCall(ResampleUp(r->t.nt, wrec, r->t.m, r->t.nsteps, r->w));
  PetscCall(PropagatorSetModel(&r->p, &r->t, (const float *const *)truth));
  PetscCall(PropagatorRun(&r->p, &r->t, &r->sl, 0, r->w, r->obs, NULL));
  PetscCall(PetscFree(wrec));
  for (PetscInt k = 0; k < r->np; k++) PetscCall(PetscFree(truth[k]));
  PetscFunctionReturn(0);
}

/* Gradient method m, and the store as the equation shapes it for m. */
static PetscErrorCode RunGradientSetUp(Run *r, GradientMethod m)
{
  const Equation *eq = phys->eq;
  size_t          n;
  PetscInt        nsteps;
  WavefieldLive   live;

  PetscFunctionBeginUser;
  if (r->store && r->method == m && r->kept.where == r->tier.where && r->kept.codec == r->tier.codec) PetscFunctionReturn(0);
  PetscCall(WavefieldStoreDestroy(&r->store));
  PetscCall(PropagatorSetGradientMethod(&r->p, m));
  PetscCheck(eq->store_shape && eq->gradient, PETSC_COMM_SELF, PETSC_ERR_SUP, "The %s equation has no gradient yet: its table has no store_shape or gradient", eq->name);
  eq->store_shape(r->k.ops, &r->g, m, r->nimage, r->t.nsteps, &n, &nsteps, &live);
  if (r->tier.codec != CODEC_NONE) live = (WavefieldLive){0, 0, 0}; /* an encoded step is whole */
  PetscCall(WavefieldStoreCreate(r->comm, r->k.backend, PropagatorLanes(&r->p), n, nsteps, &r->tier, &live, GradientMethods[m], &r->store));
  r->method = m;
  r->kept   = r->tier;
  PetscFunctionReturn(0);
}

static PetscErrorCode RunDestroy(Run *r)
{
  PetscFunctionBeginUser;
  if (r->store) PetscCall(WavefieldStoreDestroy(&r->store));
  PetscCall(ShotLocalDestroy(&r->sl));
  PetscCall(PropagatorDestroy(&r->p));
  PetscCall(GridDestroy(&r->g));
  for (PetscInt k = 0; k < r->np; k++) PetscCall(PetscFree(r->model[k]));
  PetscCall(PetscFree(r->w));
  PetscCall(PetscFree(r->obs));
  PetscFunctionReturn(0);
}

/* The residuals of the receivers whose support reaches this rank's cells
   (sl->reach_id), from those of the receivers it records (sl->rec_id).
   Each sample is one rank's, summed with zeros: the same bits on any
   decomposition. */
static PetscErrorCode ReachResiduals(const Run *r, const float *res, float *reach)
{
  const PetscInt nt = r->t.nt;
  float         *all;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(NREC * nt, &all));
  for (PetscInt k = 0; k < r->sl.nrec; k++) PetscCall(PetscArraycpy(all + r->sl.rec_id[k] * nt, res + k * nt, nt));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, all, (PetscMPIInt)(NREC * nt), MPI_FLOAT, MPI_SUM, r->comm));
  for (PetscInt k = 0; k < r->sl.nreach; k++) PetscCall(PetscArraycpy(reach + k * nt, all + r->sl.reach_id[k] * nt, nt));
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/* J = 1/2 |d - obs|^2 over every receiver and sample (double) at the model
   given (a float array per parameter); with grad, also dJ/dm for each
   parameter over the owned cells. */
static PetscErrorCode Misfit(Run *r, const float *const model[], double *J, double *const grad[])
{
  const PetscInt nd = r->sl.nrec * r->t.nt;
  float         *res, *reach;
  double         local = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(nd + 1, &res, r->sl.nreach * r->t.nt + 1, &reach));
  PetscCall(PropagatorSetModel(&r->p, &r->t, model));
  PetscCall(PropagatorRun(&r->p, &r->t, &r->sl, 0, r->w, res, grad ? r->store : NULL));
  for (PetscInt k = 0; k < nd; k++) {
    res[k] -= r->obs[k];
    local += 0.5 * (double)res[k] * res[k];
  }
  PetscCallMPI(MPI_Allreduce(&local, J, 1, MPI_DOUBLE, MPI_SUM, r->comm));
  if (grad) {
    PetscCall(PropagatorGradientReset(&r->p, PETSC_TRUE)); /* one shot, one group */
    PetscCall(ReachResiduals(r, res, reach));
    PetscCall(PropagatorAdjoint(&r->p, &r->t, &r->sl, 0, r->w, reach, r->store));
    PetscCall(PropagatorGradient(&r->p, model, grad));
  }
  PetscCall(PetscFree2(res, reach));
  PetscFunctionReturn(0);
}

/* The gradient of r at its model by method m, an array per parameter. */
static PetscErrorCode Gradient(Run *r, GradientMethod m, double *J, double *grad[])
{
  PetscFunctionBeginUser;
  PetscCall(RunGradientSetUp(r, m));
  for (PetscInt k = 0; k < r->np; k++) PetscCall(PetscMalloc1(r->cells, &grad[k]));
  PetscCall(Misfit(r, (const float *const *)r->model, J, grad));
  PetscFunctionReturn(0);
}

static PetscErrorCode GradientFree(const Run *r, double *grad[])
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < r->np; k++) PetscCall(PetscFree(grad[k]));
  PetscFunctionReturn(0);
}

/* One directional check: parameter `param` along its direction over
   region alone, with step h (the parameter's unit).
   The finite difference is Richardson's extrapolation of the central
   differences at h and 2h (their h^2 terms cancel); fd[0] that, fd[1] the
   plain one at h.  J's float rounding (a few 1e-7 of J, the traces being
   float) divided by h bounds h from below, the h^4 term from above; the
   steps (Tested.h: 0.4-0.7% of the model over the whole grid, 1-3% over
   the layers, whose share of J is smaller) keep both under 1e-4 of grad .
   dir in every variable-density case, as scans of h from a quarter to 4
   times them showed, the plateau's width being a factor 4 or more. */
typedef struct {
  PetscInt param;
  Region   region;
} Direction;

static double DirectionStep(const Direction *dn) { return dn->region == LAYERS ? phys->h_layers[dn->param] : phys->h[dn->param]; }

static PetscErrorCode FiniteDifference(Run *r, const Direction *dn, double fd[2])
{
  const double h = DirectionStep(dn);
  float       *pert, *model[EQUATION_MAX_PARAMETERS];
  double       Jpm[2][2];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(r->cells, &pert));
  for (PetscInt k = 0; k < r->np; k++) model[k] = k == dn->param ? pert : r->model[k];
  for (PetscInt q = 0; q < 2; q++)
    for (PetscInt s = 0; s < 2; s++) {
      Fill(&r->g, phys->dir[dn->param], dn->region, (s ? -1 : 1) * (q + 1) * h, r->model[dn->param], pert);
      PetscCall(Misfit(r, (const float *const *)model, &Jpm[q][s], NULL));
    }
  {
    const double d1 = (Jpm[0][0] - Jpm[0][1]) / (2 * h), d2 = (Jpm[1][0] - Jpm[1][1]) / (4 * h);
    fd[0] = (4 * d1 - d2) / 3;
    fd[1] = d1;
  }
  PetscCall(PetscFree(pert));
  PetscFunctionReturn(0);
}

/* grad . dir over every rank's owned cells. */
static PetscErrorCode Dot(const Run *r, const double *grad, const Direction *dn, double *dot)
{
  const Grid *g     = &r->g;
  double      local = 0;

  PetscFunctionBeginUser;
  EACH_OWNED_CELL(g, local += grad[c] * Eval(phys->dir[dn->param], dn->region, x));
  PetscCallMPI(MPI_Allreduce(&local, dot, 1, MPI_DOUBLE, MPI_SUM, r->comm));
  PetscFunctionReturn(0);
}

/* The owned blocks of every rank of r's grid put together on rank 0 of its
   comm: global[] (N cells, z fastest, allocated there; NULL elsewhere). */
static PetscErrorCode Gather(const Run *r, const double *local, double **global)
{
  const Grid  *g   = &r->g;
  PetscMPIInt  rank, size, box[6];
  PetscMPIInt *boxes = NULL, *counts = NULL, *displs = NULL;
  double      *all   = NULL;

  PetscFunctionBeginUser;
  *global = NULL;
  PetscCallMPI(MPI_Comm_rank(r->comm, &rank));
  PetscCallMPI(MPI_Comm_size(r->comm, &size));
  for (PetscInt a = 0; a < 3; a++) box[a] = (PetscMPIInt)g->start[a], box[3 + a] = (PetscMPIInt)g->size[a];
  if (!rank) PetscCall(PetscMalloc3(6 * size, &boxes, size, &counts, size + 1, &displs));
  PetscCallMPI(MPI_Gather(box, 6, MPI_INT, boxes, 6, MPI_INT, 0, r->comm));
  if (!rank) {
    displs[0] = 0;
    for (PetscMPIInt q = 0; q < size; q++) {
      counts[q]     = boxes[6 * q + 3] * boxes[6 * q + 4] * boxes[6 * q + 5];
      displs[q + 1] = displs[q] + counts[q];
    }
    PetscCheck(displs[size] == g->N[0] * g->N[1] * g->N[2], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the ranks' blocks hold %d cells, the grid %" PetscInt_FMT, displs[size],
               g->N[0] * g->N[1] * g->N[2]);
    PetscCall(PetscMalloc1(displs[size], &all));
    PetscCall(PetscMalloc1(displs[size], global));
  }
  PetscCallMPI(MPI_Gatherv(local, (PetscMPIInt)r->cells, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, r->comm));
  if (!rank) {
    for (PetscMPIInt q = 0; q < size; q++) {
      const PetscMPIInt *s = boxes + 6 * q, *n = s + 3;
      for (PetscMPIInt k = 0; k < n[2]; k++)
        for (PetscMPIInt j = 0; j < n[1]; j++)
          for (PetscMPIInt i = 0; i < n[0]; i++)
            (*global)[(s[0] + i) + (size_t)g->N[0] * ((s[1] + j) + (size_t)g->N[1] * (s[2] + k))] = all[displs[q] + i + (size_t)n[0] * (j + (size_t)n[1] * k)];
    }
    PetscCall(PetscFree(all));
    PetscCall(PetscFree3(boxes, counts, displs));
  }
  PetscFunctionReturn(0);
}

/* The gradient of the decomposed run r (grad: a parameter's over its
   owned cells each) against one rank's (ref[k] on rank 0 of the world, N
   cells): the values (a cell's dJ/dm) that differ in any bit, on every
   rank. */
static PetscErrorCode Differing(const Run *r, double *const grad[], double *const ref[], PetscInt *differ)
{
  const size_t N = (size_t)r->g.N[0] * r->g.N[1] * r->g.N[2];

  PetscFunctionBeginUser;
  *differ = 0;
  for (PetscInt k = 0; k < r->np; k++) {
    double *all;
    PetscCall(Gather(r, grad[k], &all));
    if (all)
      for (size_t c = 0; c < N; c++) *differ += memcmp(&all[c], &ref[k][c], sizeof(double)) != 0;
    PetscCall(PetscFree(all));
  }
  PetscCallMPI(MPI_Bcast(differ, 1, MPIU_INT, 0, r->comm));
  PetscFunctionReturn(0);
}

/* The directional checks of gradient grad on r: grad . dir against the
   finite differences, within 1e-3, printed on one line after what. */
static PetscErrorCode CheckDirections(Run *r, const char *what, PetscInt ndir, const Direction dirs[], double *const grad[])
{
  const char *const regions[] = {"", " (layers)", " (core)"};
  double            fd[2] = {0, 0}, dot;
  char              line[2048];
  size_t            len;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(line, sizeof(line), "%s", what));
  for (PetscInt q = 0; q < ndir; q++) {
    const char *name = phys->eq->parameter[dirs[q].param].name;
    double      rel;
    PetscCall(FiniteDifference(r, &dirs[q], fd));
    PetscCall(Dot(r, grad[dirs[q].param], &dirs[q], &dot));
    rel = fabs(dot - fd[0]) / fabs(fd[0]);
    PetscCall(PetscStrlen(line, &len));
    PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "; %s%s: fd %.9e (plain %.6e) adjoint %.9e ratio %.8f", name, regions[dirs[q].region], fd[0], fd[1], dot, dot / fd[0]));
    PetscCheck(rel < 1e-3, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: dJ/d%s along the direction%s: adjoint %.9e against finite difference %.9e, relative difference %.2e (limit 1e-3)", what, name,
               regions[dirs[q].region], dot, fd[0], rel);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", line));
  PetscFunctionReturn(0);
}

/* The boundary method's gradient b against full storage's f on r's
   owned cells: the layer cells' values not exactly 0 (*nonzero), and the
   relative L2 difference over the cells two or more from the layers
   (*rel, the largest over the parameters). */
static PetscErrorCode BoundaryAgainstFull(const Run *r, double *const f[], double *const b[], PetscInt *nonzero, double *rel)
{
  const Grid *g = &r->g;
  double      sums[2 * EQUATION_MAX_PARAMETERS] = {0}; /* |b - f|^2 and |f|^2 per parameter */
  PetscInt    count = 0;

  PetscFunctionBeginUser;
  EACH_OWNED_CELL(g, for (PetscInt q = 0; q < r->np; q++) {
    if (NearLayer(x, 0)) count += b[q][c] != 0;
    if (!InRegion(CORE, x, 2)) continue;
    sums[2 * q] += (b[q][c] - f[q][c]) * (b[q][c] - f[q][c]);
    sums[2 * q + 1] += f[q][c] * f[q][c];
  });
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, sums, (PetscMPIInt)(2 * r->np), MPI_DOUBLE, MPI_SUM, r->comm));
  PetscCallMPI(MPI_Allreduce(&count, nonzero, 1, MPIU_INT, MPI_SUM, r->comm));
  *rel = 0;
  for (PetscInt q = 0; q < r->np; q++) *rel = PetscMax(*rel, PetscSqrtReal(sums[2 * q] / sums[2 * q + 1]));
  PetscFunctionReturn(0);
}

/* The extended grid of case c (shape). */
static PetscErrorCode ShapeSetUp(const Case *c)
{
  PetscFunctionBeginUser;
  shape.dim   = c->dim;
  shape.water = c->water;
  for (PetscInt a = 0; a < 3; a++) {
    shape.n[a]      = a < c->dim ? c->n[a] : 1;
    shape.pml[a][0] = shape.pml[a][1] = a < c->dim ? c->pml : 0;
  }
  if (c->free_top) shape.pml[0][0] = 0;
  if (c->free_far) shape.pml[c->dim - 1][1] = 0;
  for (PetscInt a = 0; a < 3; a++) {
    shape.N[a] = shape.n[a] + shape.pml[a][0] + shape.pml[a][1];
    PetscCheck(a >= c->dim || shape.N[a] % 4 == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "test set-up: extended N[%d] = %" PetscInt_FMT ", expected a multiple of 4", (int)a, shape.N[a]);
  }
  PetscFunctionReturn(0);
}

/* The values of a and b (n each, of `size` bytes) that differ in any bit,
   summed over comm. */
static PetscErrorCode CountDiffering(MPI_Comm comm, const void *a, const void *b, size_t n, size_t size, PetscInt *differ)
{
  PetscInt local = 0;

  PetscFunctionBeginUser;
  for (size_t k = 0; k < n; k++) local += memcmp((const char *)a + k * size, (const char *)b + k * size, size) != 0;
  PetscCallMPI(MPI_Allreduce(&local, differ, 1, MPIU_INT, MPI_SUM, comm));
  PetscFunctionReturn(0);
}

/* The relative L2 difference of b from a (n doubles each), over comm. */
static PetscErrorCode RelativeDifference(MPI_Comm comm, const double *a, const double *b, size_t n, double *rel)
{
  double sums[2] = {0, 0};

  PetscFunctionBeginUser;
  for (size_t k = 0; k < n; k++) {
    sums[0] += (b[k] - a[k]) * (b[k] - a[k]);
    sums[1] += a[k] * a[k];
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm));
  *rel = sums[1] > 0 ? sqrt(sums[0] / sums[1]) : sqrt(sums[0]);
  PetscFunctionReturn(0);
}

/* The gradient methods the equation offers: full storage, and the boundary
   method where it has one. */
static PetscInt Methods(GradientMethod method[2])
{
  method[0] = GRADIENT_FULL;
  method[1] = GRADIENT_BOUNDARY;
  return phys->eq->keeps[GRADIENT_BOUNDARY] ? 2 : 1;
}

/* The gradient of r (a run whose method was full storage) by
   checkpointing: 3 snapshots, windows of 4 steps (shot/checkpoint.c); the
   snapshots come down from a device backend's memory and go back up. */
static PetscErrorCode CheckpointGradient(Run *r, double *J, double *grad[])
{
  const PetscInt window = 4;
  size_t         n;
  PetscInt       nsteps;
  WavefieldLive  live;

  PetscFunctionBeginUser;
  PetscCall(WavefieldStoreDestroy(&r->store));
  PetscCall(PropagatorSetCheckpoints(&r->p, &r->t, (const float *const *)r->model, 3, window, r->tier.where, r->tier.dir));
  phys->eq->store_shape(r->k.ops, &r->g, GRADIENT_FULL, r->nimage, r->t.nsteps, &n, &nsteps, &live);
  PetscCall(WavefieldStoreCreate(r->comm, r->k.backend, PropagatorLanes(&r->p), n, window + 1, &(WavefieldTier){STORAGE_AUTO, CODEC_NONE, NULL}, &live, "checkpointing's ring", &r->store));
  PetscCall(WavefieldStoreSetRing(r->store));
  r->method = GRADIENT_CHECKPOINT;
  for (PetscInt k = 0; k < r->np; k++) PetscCall(PetscMalloc1(r->cells, &grad[k]));
  PetscCall(Misfit(r, (const float *const *)r->model, J, grad));
  PetscFunctionReturn(0);
}

/* The CUDA backend's full storage on disk as floats or encoded, encoded
   in page-locked host memory and encoded in device memory (encoded on the
   device), against the CPU's with the same encoding in another tier: the
   same bits.  Counts the differing values (and J) in
   *differ. */
static PetscErrorCode CheckCudaTiers(Run run[2], PetscInt *differ)
{
  char        dir[64];
  int         pid = (int)getpid();
  const struct {
    WavefieldTier cpu, cuda;
  } pair[4] = {
    {{STORAGE_AUTO, CODEC_NONE, NULL}, {STORAGE_DISK, CODEC_NONE, dir}},
    {{STORAGE_AUTO, CODEC_INT8, NULL}, {STORAGE_DISK, CODEC_INT8, dir}},
    {{STORAGE_DISK, CODEC_BF16, dir},  {STORAGE_HOST, CODEC_BF16, NULL}},
    {{STORAGE_DISK, CODEC_INT8, dir},  {STORAGE_AUTO, CODEC_INT8, NULL}},
  };
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(PetscSNPrintf(dir, sizeof dir, "unit_staggered_gradient_store_%d", pid)); /* the test's variants may run at once */
  if (!rank) (void)mkdir(dir, 0700);
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  for (PetscInt p = 0; p < 4; p++) {
    double J[2], *g[2][EQUATION_MAX_PARAMETERS];
    for (PetscInt b = 0; b < 2; b++) {
      run[b].tier = b ? pair[p].cuda : pair[p].cpu;
      PetscCall(Gradient(&run[b], GRADIENT_FULL, &J[b], g[b]));
    }
    *differ += memcmp(&J[0], &J[1], sizeof(double)) != 0;
    for (PetscInt k = 0; k < run[0].np; k++) {
      PetscInt dk;
      PetscCall(CountDiffering(PETSC_COMM_WORLD, g[0][k], g[1][k], run[0].cells, sizeof(double), &dk));
      *differ += dk;
    }
    for (PetscInt b = 0; b < 2; b++) {
      PetscCall(GradientFree(&run[b], g[b]));
      PetscCall(WavefieldStoreDestroy(&run[b].store)); /* the file gone before the folder */
      run[b].tier = (WavefieldTier){STORAGE_AUTO, CODEC_NONE, NULL};
    }
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCheck(rank || !rmdir(dir), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "the disk tier left files in %s", dir);
  PetscFunctionReturn(0);
}

/* Each backend's gradients of the first nimage parameters alone (nimage
   1 .. np - 1), by each method, against its gradients of every parameter
   (run: the all-parameter runs): the same bits.  Counts the differing
   values in *differ. */
static PetscErrorCode CheckWantedGradients(const Case *c, Run run[2], PetscInt *differ)
{
  const PetscInt world[3] = {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE};
  GradientMethod method[2];
  const PetscInt nmethod = Methods(method), np = run[0].np;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < 2; b++) {
    Run some[EQUATION_MAX_PARAMETERS]; /* some[k]: the first k + 1 parameters' */
    for (PetscInt k = 0; k + 1 < np; k++) PetscCall(RunCreate(PETSC_COMM_WORLD, c, world, b ? PETSC_TRUE : PETSC_FALSE, k + 1, &some[k]));
    for (PetscInt m = 0; m < nmethod; m++) {
      double J, *all[EQUATION_MAX_PARAMETERS];
      PetscCall(Gradient(&run[b], method[m], &J, all));
      for (PetscInt k = 0; k + 1 < np; k++) {
        double *g[EQUATION_MAX_PARAMETERS];
        PetscCall(Gradient(&some[k], method[m], &J, g));
        for (PetscInt j = 0; j <= k; j++) {
          PetscInt dj;
          PetscCall(CountDiffering(PETSC_COMM_WORLD, all[j], g[j], run[b].cells, sizeof(double), &dj));
          *differ += dj;
        }
        PetscCall(GradientFree(&some[k], g));
      }
      PetscCall(GradientFree(&run[b], all));
    }
    for (PetscInt k = 0; k + 1 < np; k++) PetscCall(RunDestroy(&some[k]));
  }
  PetscFunctionReturn(0);
}

/* The CUDA backend against the CPU's on the world's decomposition (with
   -against_cuda): the forward's traces (the observed data, from the model
   with the anomalies), both methods' gradients at the model, and the CUDA
   backend's checkpointed gradient against the CPU's full storage, the
   same bits sample by sample and cell for cell; in the first case also
   its full storage in the other tiers (CheckCudaTiers). */
static PetscErrorCode CheckCudaCase(const Case *c)
{
  const PetscInt world[3] = {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE};
  GradientMethod method[2];
  const PetscInt nmethod = Methods(method);
  Run            run[2];
  PetscInt       differ[6] = {0, 0, 0, 0, 0, 0};
  double         Jfull = 0, *full[EQUATION_MAX_PARAMETERS] = {NULL};

  PetscFunctionBeginUser;
  PetscCall(ShapeSetUp(c));
  for (PetscInt b = 0; b < 2; b++) PetscCall(RunCreate(PETSC_COMM_WORLD, c, world, b ? PETSC_TRUE : PETSC_FALSE, 0, &run[b]));
  PetscCall(CountDiffering(PETSC_COMM_WORLD, run[0].obs, run[1].obs, (size_t)run[0].sl.nrec * run[0].t.nt, sizeof(float), &differ[0]));
  for (PetscInt m = 0; m < nmethod; m++) {
    double J[2], *g[2][EQUATION_MAX_PARAMETERS];
    for (PetscInt b = 0; b < 2; b++) PetscCall(Gradient(&run[b], method[m], &J[b], g[b]));
    /* the CUDA boundary method's rounding (boundary_rounds): within 1e-5, as unit_adjoint holds that path; J is the same traces' */
    const PetscBool rounds = method[m] == GRADIENT_BOUNDARY && phys->boundary_rounds ? PETSC_TRUE : PETSC_FALSE;
    differ[1 + m]          = memcmp(&J[0], &J[1], sizeof(double)) != 0;
    for (PetscInt k = 0; k < run[0].np; k++) {
      PetscInt dk;
      double   rel = 0;
      PetscCall(CountDiffering(PETSC_COMM_WORLD, g[0][k], g[1][k], run[0].cells, sizeof(double), &dk));
      if (rounds) {
        PetscCall(RelativeDifference(PETSC_COMM_WORLD, g[0][k], g[1][k], run[0].cells, &rel));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  boundary, without the CPU's support boxes: %" PetscInt_FMT " values differ, relative L2 %.2e (limit 1e-5)\n", dk, rel));
        dk = rel <= 1e-5 ? 0 : dk;
      }
      differ[1 + m] += dk;
    }
    if (method[m] == GRADIENT_FULL) { /* the CPU's, for the checkpointed gradient below */
      Jfull = J[0];
      for (PetscInt k = 0; k < run[0].np; k++) full[k] = g[0][k];
      PetscCall(GradientFree(&run[1], g[1]));
    } else
      for (PetscInt b = 0; b < 2; b++) PetscCall(GradientFree(&run[b], g[b]));
  }
  if (c == &phys->cases[0]) { /* before run[1] takes checkpoints, which it keeps */
    PetscCall(CheckCudaTiers(run, &differ[4]));
    PetscCall(CheckWantedGradients(c, run, &differ[5]));
  }
  {
    double J, *g[EQUATION_MAX_PARAMETERS];
    run[1].tier.where = (c - phys->cases) % 2 ? STORAGE_DEVICE : STORAGE_AUTO; /* the snapshots in device memory, or in host memory, case by case */
    PetscCall(CheckpointGradient(&run[1], &J, g));
    run[1].tier.where = STORAGE_AUTO;
    differ[3] = memcmp(&J, &Jfull, sizeof(double)) != 0;
    for (PetscInt k = 0; k < run[0].np; k++) {
      PetscInt dk;
      PetscCall(CountDiffering(PETSC_COMM_WORLD, full[k], g[k], run[0].cells, sizeof(double), &dk));
      differ[3] += dk;
    }
    PetscCall(GradientFree(&run[1], g));
    PetscCall(GradientFree(&run[0], full));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s (%dD order %d, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " ranks), %s against cpu: %" PetscInt_FMT " trace samples, %" PetscInt_FMT " full-storage, %" PetscInt_FMT
                        " boundary, %" PetscInt_FMT " checkpointed (snapshots in %s memory; against full storage), %" PetscInt_FMT " host, disk and encoded full-storage gradient values (and J) differ, and %" PetscInt_FMT
                        " values of the first parameters' gradients taken alone (against every parameter's, either backend)\n",
                        c->name, (int)c->dim, (int)c->order, run[0].g.nproc[0], run[0].g.nproc[1], run[0].g.nproc[2], run[1].k.backend->name, differ[0], differ[1], differ[2], differ[3], (c - phys->cases) % 2 ? "device" : "host", differ[4], differ[5]));
  PetscCheck(!differ[0] && !differ[1] && !differ[2] && !differ[3] && !differ[4] && !differ[5], PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "%s: the CUDA backend differs from the CPU's in %" PetscInt_FMT " trace samples, %" PetscInt_FMT " full, %" PetscInt_FMT " boundary, %" PetscInt_FMT
             " checkpointed and %" PetscInt_FMT " tiered gradient values, and %" PetscInt_FMT " values of the first parameters' gradients taken alone from every parameter's: expected the same bits",
             c->name, differ[0], differ[1], differ[2], differ[3], differ[4], differ[5]);
  for (PetscInt b = 0; b < 2; b++) PetscCall(RunDestroy(&run[b]));
  PetscFunctionReturn(0);
}

/* Case c's directional checks by each method, and on more than one rank
   its gradients against one rank's. */
static PetscErrorCode CheckCase(const Case *c)
{
  const PetscInt world[3] = {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE};
  GradientMethod method[2];
  const PetscInt nmethod = Methods(method), np = phys->eq->nparameter;
  Direction      dirs[2][2 * EQUATION_MAX_PARAMETERS];
  PetscMPIInt    size, rank;
  Run            r;
  double         J[2], *grad[2][EQUATION_MAX_PARAMETERS];
  char           what[256];

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < np; k++) {
    dirs[0][k]      = (Direction){k, EVERYWHERE};
    dirs[0][np + k] = (Direction){k, LAYERS};
    dirs[1][k]      = (Direction){k, CORE};
  }
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(ShapeSetUp(c));

  PetscCall(RunCreate(PETSC_COMM_WORLD, c, world, PETSC_FALSE, 0, &r));
  for (PetscInt m = 0; m < nmethod; m++) {
    PetscCall(Gradient(&r, method[m], &J[m], grad[m]));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s %s, %s (%dD order %d, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " ranks, %" PetscInt_FMT " steps): J %.6e", phys->eq->name, c->name,
                            GradientMethods[method[m]], (int)c->dim, (int)c->order, r.g.nproc[0], r.g.nproc[1], r.g.nproc[2], r.t.nsteps, J[m]));
    PetscCall(CheckDirections(&r, what, m ? np : 2 * np, dirs[m], grad[m]));
  }
  if (nmethod > 1) {
    PetscInt nonzero;
    double   rel;
    PetscCall(BoundaryAgainstFull(&r, grad[0], grad[1], &nonzero, &rel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  boundary against full: relative L2 %.3e two cells or more from the layers (limit 1e-5); %" PetscInt_FMT " layer cells not 0\n", rel, nonzero));
    PetscCheck(!nonzero && rel < 1e-5, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s, boundary: %" PetscInt_FMT " layer cells take a gradient (expected none); relative L2 %.3e against full storage (limit 1e-5)",
               c->name, nonzero, rel);
  }

  if (size > 1) {
    /* one rank's gradients on rank 0, against the world's decomposition
       and split ones */
    PetscInt splits[3][3] = {{0, 0, 0}, {2, 2, 1}, {4, 1, 1}}, nsplit = size == 4 ? 3 : 1;
    double  *ref[2][EQUATION_MAX_PARAMETERS] = {{NULL}};
    if (c->dim == 3) splits[2][0] = 1, splits[2][1] = 2, splits[2][2] = 2;
    if (!rank) {
      Run    one;
      double J1;
      PetscCall(RunCreate(PETSC_COMM_SELF, c, (const PetscInt[3]){1, 1, 1}, PETSC_FALSE, 0, &one));
      for (PetscInt m = 0; m < nmethod; m++) PetscCall(Gradient(&one, method[m], &J1, ref[m]));
      PetscCall(RunDestroy(&one));
    }
    for (PetscInt s = 0; s < nsplit; s++) {
      Run       split, *q = &r;
      PetscBool same = PETSC_TRUE;
      for (PetscInt a = 0; a < 3; a++) same = same && splits[s][a] == r.g.nproc[a];
      if (s && same) continue; /* the world's again */
      if (s) {
        PetscCall(RunCreate(PETSC_COMM_WORLD, c, splits[s], PETSC_FALSE, 0, &split));
        q = &split;
      }
      for (PetscInt m = 0; m < nmethod; m++) {
        double  *g[EQUATION_MAX_PARAMETERS], Js;
        PetscInt differ;
        for (PetscInt k = 0; k < np; k++) g[k] = grad[m][k];
        if (s) PetscCall(Gradient(q, method[m], &Js, g));
        PetscCall(Differing(q, g, ref[m], &differ));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " ranks against 1: %" PetscInt_FMT " of %" PetscInt_FMT " values (dJ/dm of every parameter, cell by cell) differ\n",
                              GradientMethods[method[m]], q->g.nproc[0], q->g.nproc[1], q->g.nproc[2], differ, np * q->g.N[0] * q->g.N[1] * q->g.N[2]));
        PetscCheck(!differ, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s, %s: %" PetscInt_FMT " gradient values differ between %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " ranks and 1, expected the same bits",
                   c->name, GradientMethods[method[m]], differ, q->g.nproc[0], q->g.nproc[1], q->g.nproc[2]);
        if (s) PetscCall(GradientFree(q, g));
      }
      if (s) PetscCall(RunDestroy(&split));
    }
    for (PetscInt m = 0; m < nmethod; m++)
      for (PetscInt k = 0; k < np; k++) PetscCall(PetscFree(ref[m][k]));
  }
  for (PetscInt m = 0; m < nmethod; m++) PetscCall(GradientFree(&r, grad[m]));
  PetscCall(RunDestroy(&r));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscBool against_cuda = PETSC_FALSE;
  char      name[64]     = "variable_density";

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(EventsRegister());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-against_cuda", &against_cuda, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-physics", name, sizeof(name), NULL));
  phys = NULL;
  for (size_t k = 0; k < sizeof(tested) / sizeof(tested[0]); k++)
    if (!strcmp(name, tested[k].eq->name)) phys = &tested[k];
  PetscCheck(phys, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-physics %s: expected acoustic, variable_density or elastic", name);
  PetscCheck(against_cuda || phys->eq != &EquationAcoustic, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "-physics acoustic: only with -against_cuda here (the constant-density gradient's finite-difference checks are tests/test_gradient.py's)");
#ifndef HALOFWI_CUDA_HOST
  if (against_cuda) {
    PetscBool missing;
    PetscCall(GpuMissing(&missing));
    if (missing) {
      PetscCall(PetscFinalize());
      return GPU_SKIPPED;
    }
  }
#endif
  for (PetscInt k = 0; k < phys->ncase; k++) PetscCall(against_cuda ? CheckCudaCase(&phys->cases[k]) : CheckCase(&phys->cases[k]));
  PetscCall(PetscFinalize());
  return 0;
}
