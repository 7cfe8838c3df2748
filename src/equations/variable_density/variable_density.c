/* The variable-density acoustic equation behind the Equation table:

     dp/dt = -K div v + K q,   dv/dt = -b grad p,   K = rho vp^2, b = 1 / rho,

   pressure and particle velocity on a staggered grid, two stages a step
   (state.h, state.c).  Buoyancy on a face is the mean of its two cells'
   (the harmonic mean of their densities: the face's effective density for
   flow across it, as in a series of layers). */
#include "equations/variable_density/kernels.h"

static const EquationParameter parameters[] = {
  {"vp",  "-vp",  "m/s",    "P velocity"},
  {"rho", "-rho", "kg/m^3", "density"   },
};

static const EquationField fields[] = {
  [VD_P]   = {"p", "pressure", EQUATION_FIELD_BOX},
  [VD_VZ]  = {"vz", "particle velocity along z, half a cell below the centre", EQUATION_FIELD_BOX},
  [VD_VX]  = {"vx", "particle velocity along x, half a cell beyond the centre", EQUATION_FIELD_BOX},
  [VD_VY]  = {"vy", "particle velocity along y, half a cell beyond the centre", EQUATION_FIELD_BOX},
  [VD_BDT] = {"bdt", "dt / rho at the centres, averaged onto the faces", EQUATION_FIELD_BOX},
  [VD_DZ]  = {"dz", "adjoint: the operand of the derivative along z", EQUATION_FIELD_BOX},
  [VD_DX]  = {"dx", "adjoint: the operand of the derivative along x", EQUATION_FIELD_BOX},
  [VD_DY]  = {"dy", "adjoint: the operand of the derivative along y", EQUATION_FIELD_BOX},
  [VD_IZ]  = {"iz", "adjoint: the image of the buoyancy on the z faces", EQUATION_FIELD_BOX},
  [VD_IX]  = {"ix", "adjoint: the image of the buoyancy on the x faces", EQUATION_FIELD_BOX},
  [VD_IY]  = {"iy", "adjoint: the image of the buoyancy on the y faces", EQUATION_FIELD_BOX},
  [VD_FP]  = {"fp", "boundary method: the forward pressure, run backwards", EQUATION_FIELD_BOX},
  [VD_FVZ] = {"fvz", "boundary method: the forward velocity along z, run backwards", EQUATION_FIELD_BOX},
  [VD_FVX] = {"fvx", "boundary method: the forward velocity along x, run backwards", EQUATION_FIELD_BOX},
  [VD_FVY] = {"fvy", "boundary method: the forward velocity along y, run backwards", EQUATION_FIELD_BOX},
};

/* Velocities read the pressure across faces, the pressure the velocities;
   in the adjoint (adjoint.c) stage 0 undoes the pressure stage, updating
   the velocities, and stage 1 the velocity stage, each from the operands
   its derivatives read; the boundary method's forward fields run back
   beside them, the pressure from the velocities in stage 0, the
   velocities from the pressure in stage 1 (reconstruct.c). */
static const EquationStage stages[] = {
  {"velocity", 1, {VD_P}, 6, {VD_DZ, VD_DX, VD_DY, VD_FVZ, VD_FVX, VD_FVY}},
  {"pressure", 3, {VD_VZ, VD_VX, VD_VY}, 4, {VD_DZ, VD_DX, VD_DY, VD_FP}},
};

/* Velocities are recorded at their nodes, half a step of time before the
   pressure of the same sample (at the start of a step the state holds
   p^n and v^(n-1/2)). */
static const EquationComponent components[] = {
  {"p",  "pressure (Pa)",                              -1},
  {"vz", "particle velocity along z, downwards (m/s)", 0 },
  {"vx", "particle velocity along x (m/s)",            1 },
  {"vy", "particle velocity along y (m/s)",            2 },
};

/* K dt, the factor of the divergence in the pressure update. */
static void CellModel(PetscInt n, const float *const value[], PetscReal dt, float *out)
{
  for (PetscInt i = 0; i < n; i++) {
    const double vp = value[0][i], rho = value[1][i];
    out[i]          = (float)(rho * vp * vp * dt);
  }
}

/* The constant-density equation's floors: a staggered difference of an
   order is no less accurate than the centred one of that order. */
static PetscReal CellsPerWavelength(PetscInt order) { return EquationAcoustic.cells_per_wavelength(order); }

/* p, v per axis, K dt, dt / rho over the padded box, and the CPML
   memory of each derivative over its axis's slab. */
static void StateBytes(const Grid *g, double *all, double *layers)
{
  PetscInt padded[3];
  double   cells = (double)GridPaddedCells(g, padded), profiles = 0;

  *layers = 0;
  for (PetscInt a = 0; a < g->dim; a++) {
    profiles += 4.0 * padded[a] * sizeof(float);
    *layers += 2.0 * EquationArrayBytes(StaggeredSlabCells(g, a));
  }
  *all = (3.0 + g->dim) * EquationArrayBytes(cells) + profiles + *layers;
}

/* Every step: full storage, the divergence and, where dJ/drho is wanted,
   each axis's pressure gradient over the padded box; the boundary method,
   the band of p and v beside the core (reconstruct.c). */
static void StoreShape(const struct KernelOps *ops, const Grid *g, GradientMethod m, PetscInt nimage, PetscInt steps, size_t *n, PetscInt *nsteps, WavefieldLive *live)
{
  PetscInt padded[3];

  if (m == GRADIENT_BOUNDARY) {
    VDReconstruction rec;
    VDReconstructionGeometry(g, &rec);
    *n = rec.floats;
  } else *n = (EquationImages(&EquationVariableDensity, nimage) > 1 ? 1 + g->dim : 1) * GridPaddedCells(g, padded);
  *nsteps = steps;
  *live   = (WavefieldLive){0, 0, 0};
}

/* The adjoint's operands and the images of the gradients wanted, and the
   image handed out; the boundary method's forward fields run backwards
   besides. */
static double MethodBytes(const struct KernelOps *ops, const Grid *g, GradientMethod m, PetscInt nimage)
{
  PetscInt padded[3];

  return (double)(VDAdjointArrays(g->dim, EquationImages(&EquationVariableDensity, nimage) > 1) + (m == GRADIENT_BOUNDARY ? 1 + g->dim : 0)) * EquationArrayBytes((double)GridPaddedCells(g, padded));
}

/* From dJ/dK and dJ/db (K = rho vp^2, b = 1 / rho) to dJ/dvp and dJ/drho. */
static void Gradient(PetscInt n, const float *const model[], double *const grad[])
{
#pragma omp parallel for schedule(static)
  for (PetscInt c = 0; c < n; c++) {
    const double vp = model[0][c], rho = model[1][c], gk = grad[0][c], gb = grad[1][c];
    grad[0][c] = 2 * rho * vp * gk;
    grad[1][c] = vp * vp * gk - gb / (rho * rho);
  }
}

static PetscBool Kernels(BackendChoice backend, EquationKernels *k)
{
  const VDKernels *ops = backend == BACKEND_CPU ? &VDKernelsCPU : NULL;

#ifdef HALOFWI_HAVE_CUDA
  if (backend == BACKEND_CUDA) ops = &VDKernelsCUDA;
#endif
  if (!ops) return PETSC_FALSE;
  *k = (EquationKernels){(const struct KernelOps *)ops, ops->backend};
  return PETSC_TRUE;
}

const Equation EquationVariableDensity = {
  .name                 = "variable_density",
  .summary              = "variable-density acoustic: pressure and particle velocity, first order in time, staggered",
  EQUATION_LISTS(parameters, fields, stages, components),
  .nmodel_field         = 1,
  .model_field          = {VD_BDT},
  .nimage_field         = 3,
  .image_field          = {VD_IZ, VD_IX, VD_IY},
  .watch_field          = VD_P,
  .cell_model           = CellModel,
  .source               = "volume injection: the wavelet (m^3/s) over the cell volume, times K dt, added to p",
  .source_image         = 0, /* the injection is scaled by K dt */
  .stable_step          = StaggeredStableStep,
  .cells_per_wavelength = CellsPerWavelength,
  .state_bytes          = StateBytes,
  .cell_floats          = 5, /* 2D: p, vz, vx, K dt, dt / rho (the CPML memories lie in the layers) */
  .host_model_arrays    = 2, /* K dt, dt / rho */
  .forward_fields       = {3, 4}, /* p and the velocities */
  .store_shape          = StoreShape,
  .method_bytes         = MethodBytes,
  .keeps                = {[GRADIENT_FULL] = "every step's divergence (and pressure gradient for dJ/drho)", [GRADIENT_BOUNDARY] = "the band of p and v beside the layers, every step"},
  /* Least-squares fits to scripts/bench-gradient (PHYSICS=variable_density,
     with and without INVERT_FOR=vp, full and boundary; 1 rank, order 8, 20
     layer cells; 2D 1024^2 x 500, 3D 96^3 x 300; the AMD EPYC,
     2026-12-06): the step ratios within 0.02 of the fit.  A layer cell's
     adjoint costs what a core cell's does; each float stored a cell and
     step (1 for dJ/dvp alone, 3 in 2D and 4 in 3D with dJ/drho) 0.21
     forward steps in 2D, 0.135 in 3D; the forward step 2.4 (2D, 2
     threads) and 1.3 (3D, 1 thread) of the constant-density equation's
     per cell.  The boundary method's running back, per cell it runs the
     forward field back in (since the support boxes): scripts/fit_plan.py
     on the boundary runs of two scripts/bench-gradient runs (2D 512^2 x
     1000, 1024^2 and 2048^2 x 500, 1024^2 also with -invert_for vp, 3D
     96^3 x 300; 2 threads, 2026-12-07),
     the rest held: 0.32 (2D), 1.75 (3D). */
  .gradient_cost        = {{.adjoint_core = 1.78, .adjoint_layer = 1.78, .reconstruct = 0, .run_back = 0.32, .store = 0.21, .step = 2.4},
                           {.adjoint_core = 1.20, .adjoint_layer = 1.20, .reconstruct = 0, .run_back = 1.75, .store = 0.135, .step = 1.3}},
  .gradient             = Gradient,
  .kernels              = Kernels,
  .scheme               = &VariableDensityScheme,
};
