/* The variable-density acoustic equation behind the Equation table:

     dp/dt = -K div v + K q,   dv/dt = -b grad p,   K = rho vp^2, b = 1 / rho,

   pressure and particle velocity on a staggered grid, two stages a step
   (state.h, state.c).  Buoyancy on a face is the mean of its two cells'
   (the harmonic mean of their densities: the face's effective density for
   flow across it, as in a series of layers). */
#include "equations/variable_density/state.h"

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
};

/* Velocities read the pressure across faces, the pressure the velocities;
   the adjoint's stages read the same fields. */
static const EquationStage stages[] = {
  {"velocity", 1, {VD_P}, 1, {VD_P}},
  {"pressure", 3, {VD_VZ, VD_VX, VD_VY}, 3, {VD_VZ, VD_VX, VD_VY}},
};

static const char *const components[] = {"p"};

/* K dt, the factor of the divergence in the pressure update. */
static void CellModel(PetscInt n, const float *const value[], PetscReal dt, float *out)
{
  for (PetscInt i = 0; i < n; i++) {
    const double vp = value[0][i], rho = value[1][i];
    out[i]          = (float)(rho * vp * vp * dt);
  }
}

/* Leapfrog on the staggered system: vmax dt (sum_k |c_k|) sqrt(sum_a
   1 / d_a^2) <= 1, the staggered difference's largest symbol being
   2 sum_k |c_k| / d. */
static PetscReal StableStep(const Grid *g, PetscReal vmax)
{
  double    c[FWI_MAX_RADIUS + 1], sum = 0;
  PetscReal inv = 0;

  VDStaggeredWeights(g->radius, c);
  for (PetscInt k = 1; k <= g->radius; k++) sum += PetscAbsReal(c[k]);
  for (PetscInt a = 0; a < g->dim; a++) inv += 1.0 / (g->d[a] * g->d[a]);
  return 1.0 / (vmax * sum * PetscSqrtReal(inv));
}

/* The constant-density equation's floors: a staggered difference of an
   order is no less accurate than the centred one of that order. */
static PetscReal CellsPerWavelength(PetscInt order) { return EquationAcoustic.cells_per_wavelength(order); }

/* p, v per axis, K dt, dt / rho and the CPML memory of each derivative,
   every one over the padded box. */
static void StateBytes(const Grid *g, double *all, double *layers)
{
  PetscInt padded[3];
  double   cells = (double)GridPaddedCells(g, padded), profiles = 0;

  for (PetscInt a = 0; a < g->dim; a++) profiles += 4.0 * padded[a] * sizeof(float);
  *all    = (3.0 + 3.0 * g->dim) * cells * sizeof(float) + profiles;
  *layers = 2.0 * g->dim * cells * sizeof(float);
}

static PetscBool Kernels(BackendChoice backend, EquationKernels *k)
{
  if (backend != BACKEND_CPU) return PETSC_FALSE;
  *k = (EquationKernels){NULL, &BackendOpsCPU};
  return PETSC_TRUE;
}

const Equation EquationVariableDensity = {
  .name                 = "variable_density",
  .summary              = "variable-density acoustic: pressure and particle velocity, first order in time, staggered",
  EQUATION_LISTS(parameters, fields, stages, components),
  .nmodel_field         = 1,
  .model_field          = {VD_BDT},
  .watch_field          = VD_P,
  .cell_model           = CellModel,
  .source               = "volume injection: the wavelet (m^3/s) over the cell volume, times K dt, added to p",
  .source_image         = -1,
  .stable_step          = StableStep,
  .cells_per_wavelength = CellsPerWavelength,
  .state_bytes          = StateBytes,
  .cell_floats          = 9, /* 2D: p, vz, vx, K dt, dt / rho, four CPML memories */
  .kernels              = Kernels,
  .scheme               = &VariableDensityScheme,
};
