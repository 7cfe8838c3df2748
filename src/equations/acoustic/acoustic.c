/* The constant-density acoustic equation behind the Equation table:
   d2u/dt2 = v^2 lap(u) + source, one field u, second order in time (one
   stage), CPML memory psi (zeta in the adjoint) in slabs per layer. */
#include "equations/acoustic/acoustic.h"
#include "equations/acoustic/state.h"

static const EquationParameter parameters[] = {
  {"vp", "-vp", "m/s", "P velocity"}
};

static const EquationField fields[] = {
  [ACOUSTIC_U]    = {"u", "pressure", EQUATION_FIELD_BOX},
  [ACOUSTIC_PSI]  = {"psi", "CPML memory of du/dx per layer axis", EQUATION_FIELD_SLAB},
  [ACOUSTIC_ZETA] = {"zeta", "CPML memory of the second derivative (the adjoint's E)", EQUATION_FIELD_SLAB},
  [ACOUSTIC_FU]   = {"fu", "the forward field run backwards (boundary gradient method)", EQUATION_FIELD_BOX},
};

/* The adjoint reads zeta across faces too, and the reconstruction's
   forward field travels with the adjoint's (docs/numerics.md). */
static const EquationStage stages[] = {
  {"pressure", 2, {ACOUSTIC_U, ACOUSTIC_PSI}, 4, {ACOUSTIC_U, ACOUSTIC_FU, ACOUSTIC_PSI, ACOUSTIC_ZETA}}
};

static const EquationComponent components[] = {
  {"p", "pressure (the scalar wavefield)", -1},
};

/* v^2 dt^2, the factor of the Laplacian in the leapfrog update. */
static void CellModel(PetscInt n, const float *const value[], PetscReal dt, float *out)
{
  for (PetscInt i = 0; i < n; i++) {
    const double v = value[0][i];
    out[i]         = (float)(v * v * dt * dt);
  }
}

/* Leapfrog with the order's second-difference symbol: v dt sqrt(sum of
   max symbol / d^2) <= 2. */
static PetscReal StableStep(const Grid *g, PetscReal vmax)
{
  PetscReal inv = 0;

  for (PetscInt a = 0; a < g->dim; a++) inv += 1.0 / (g->d[a] * g->d[a]);
  return 2.0 / (vmax * PetscSqrtReal(fd_d2_symbol_max((int)g->order) * inv));
}

/* Per order (2, 4, ..., 16): where the phase error over ten wavelengths of
   travel reaches about a tenth of a period. */
static PetscReal CellsPerWavelength(PetscInt order)
{
  static const PetscReal floors[FWI_MAX_ORDER / 2] = {20, 10, 7, 6, 5, 5, 4, 4};

  return floors[order / 2 - 1];
}

static void StateBytes(const Grid *g, double *all, double *layers)
{
  Fields f;

  FieldsOfGrid(g, &f);
  FieldsBytes(&f, all, layers);
}

void GradientStoreShape(const KernelOps *ops, const Fields *f, GradientMethod m, PetscInt steps, size_t *n, PetscInt *nsteps, WavefieldLive *live)
{
  Box      band[6];
  PetscInt nband;

  *live = (WavefieldLive){0, 0, 0};
  if (m == GRADIENT_BOUNDARY) {
    /* the band of u^0 .. u^{N-2}: u^{N-1} and u^N are kept whole */
    *n      = FieldsBandBoxes(f, band, &nband);
    *nsteps = PetscMax(steps - 1, 0);
  } else {
    *n      = f->ncells;
    *nsteps = steps;
    if (ops->live_map && ops->live_map(f)) *live = (WavefieldLive){FieldsLiveRows(f), FieldsLiveBytes(f), FIELDS_LIVE_CHUNK};
  }
}

double GradientFieldBytes(const KernelOps *ops, const Fields *f, GradientMethod m)
{
  size_t scratch;

  if (m != GRADIENT_BOUNDARY) return 0;
  return 2.0 * EquationArrayBytes((double)f->ncells) + (KernelOpsPairPlan(ops, f, &scratch) ? (double)scratch : 0);
}

static void StoreShape(const KernelOps *ops, const Grid *g, GradientMethod m, PetscInt nimage, PetscInt steps, size_t *n, PetscInt *nsteps, WavefieldLive *live)
{
  Fields f;

  FieldsOfGrid(g, &f);
  GradientStoreShape(ops, &f, m, steps, n, nsteps, live);
}

static double MethodBytes(const KernelOps *ops, const Grid *g, GradientMethod m, PetscInt nimage)
{
  Fields f;

  FieldsOfGrid(g, &f);
  return GradientFieldBytes(ops, &f, m);
}

/* The image is the sum of the adjoint times v^2 dt^2's term; d(v^2)/dv = 2v
   and the term already carries v^2: dJ/dv = 2 / v times the image. */
static void Gradient(PetscInt n, const float *const model[], double *const grad[])
{
  const float *vp = model[0];
  double      *g  = grad[0];

#pragma omp parallel for schedule(static)
  for (PetscInt c = 0; c < n; c++) g[c] = g[c] * 2.0 / vp[c];
}

static PetscBool Kernels(BackendChoice backend, EquationKernels *k)
{
  const KernelOps *ops = backend == BACKEND_CPU ? &KernelOpsCPU : NULL;

#ifdef HALOFWI_HAVE_CUDA
  if (backend == BACKEND_CUDA) ops = &KernelOpsCUDA;
#endif
  if (!ops) return PETSC_FALSE;
  *k = (EquationKernels){ops, ops->backend};
  return PETSC_TRUE;
}

const Equation EquationAcoustic = {
  .name                 = "acoustic",
  .summary              = "constant-density acoustic, second order in time",
  EQUATION_LISTS(parameters, fields, stages, components),
  .watch_field          = ACOUSTIC_U,
  .cell_model           = CellModel,
  .source               = "pressure: the wavelet times v^2 dt^2 / cell volume, added to u",
  .source_image         = 0, /* the injection is scaled by v^2 dt^2 */
  .stable_step          = StableStep,
  .cells_per_wavelength = CellsPerWavelength,
  .state_bytes          = StateBytes,
  .cell_floats          = 3, /* u, uprev, v^2 dt^2 */
  .host_model_arrays    = 1, /* v^2 dt^2 */
  .forward_fields       = {2, 2}, /* u, uprev */
  .store_shape          = StoreShape,
  .method_bytes         = MethodBytes,
  .keeps                = {[GRADIENT_FULL] = "the Laplacian term of every step and cell", [GRADIENT_BOUNDARY] = "the layer band of every step, 2 fields"},
  /* Fitted by scripts/fit_plan.py to runs of scripts/bench-gradient (1
     rank x 2 threads, order 8, 20 layer cells; 2D 512^2 x 1000, 1024^2
     and 2048^2 x 500, 3D 96^3 x 300 and 128^3 x 400; the AMD EPYC,
     2026-12-07), on the gradient process's time beyond the forward
     process's, with the layer terms held (2D: 4.5, from 10- to 40-cell
     layers; 3D: a core cell's, as no case there varies the layers'
     share enough to tell them apart) and the host backend's first_use;
     docs/numerics.md, "Gradient methods".  Both methods' adjoints leave
     the cells the waves have not reached (Fields.u_live), so the
     boundary method adds only running the forward field back (run_back,
     2D: fitted to its runs since it does, with 512^2 x 2000 and 768^2 x
     1500 added, which the waves fill, and adjoint_core held at full
     storage's fit; within 0.3 forward runs); in 3D, whose cases the waves
     fill, the marks are soon dropped and the fit of before holds (within
     0.05 of the later runs).  Full storage keeps one float a cell and
     step whatever is asked: its cost is in adjoint_core, store 0. */
  .gradient_cost = {{.adjoint_core = 0.605, .adjoint_layer = 4.5, .reconstruct = 0, .run_back = 1.65, .store = 0, .step = 1},
                    {.adjoint_core = 1.05, .adjoint_layer = 1.05, .reconstruct = 0, .run_back = 0.906, .store = 0, .step = 1}},
  .gradient             = Gradient,
  .kernels              = Kernels,
  .gpu_launch_shape     = PETSC_TRUE, /* the core kernel's (step_cuda.cu) */
  .scheme               = &AcousticScheme,
};
