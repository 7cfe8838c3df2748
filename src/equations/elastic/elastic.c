/* The isotropic elastic equation behind the Equation table:

     rho dv/dt = div sigma + f,   dsigma/dt = lambda tr(eps(v)) I + 2 mu eps(v),

   particle velocities and stresses on a staggered grid, two stages a step
   (state.h, state.c).  Buoyancy on a velocity node is the mean of its two
   cells' (as in the variable-density equation), lambda and mu are taken at
   the centres where the normal stresses live, and mu on a shear stress's
   edge is the harmonic mean of its four cells' (0 where one of them is a
   fluid, so a fluid-solid contact carries no shear).  Its gradient: the
   exact adjoint (adjoint.c), with full storage or with the forward fields
   run backwards in the core (reconstruct.c), on either backend. */
#include "equations/elastic/kernels.h"
#include <math.h>

static const EquationParameter parameters[] = {
  {"vp",  "-vp",  "m/s",    "P velocity"},
  {"vs",  "-vs",  "m/s",    "S velocity"},
  {"rho", "-rho", "kg/m^3", "density"   },
};

static const EquationField fields[] = {
  [EL_VZ]  = {"vz", "particle velocity along z, half a cell below the centre", EQUATION_FIELD_BOX},
  [EL_VX]  = {"vx", "particle velocity along x, half a cell beyond the centre", EQUATION_FIELD_BOX},
  [EL_VY]  = {"vy", "particle velocity along y, half a cell beyond the centre", EQUATION_FIELD_BOX},
  [EL_SZZ] = {"szz", "normal stress sigma_zz at the centre", EQUATION_FIELD_BOX},
  [EL_SXX] = {"sxx", "normal stress sigma_xx at the centre", EQUATION_FIELD_BOX},
  [EL_SYY] = {"syy", "normal stress sigma_yy at the centre", EQUATION_FIELD_BOX},
  [EL_SZX] = {"szx", "shear stress sigma_zx, half a cell further along z and x", EQUATION_FIELD_BOX},
  [EL_SZY] = {"szy", "shear stress sigma_zy, half a cell further along z and y", EQUATION_FIELD_BOX},
  [EL_SXY] = {"sxy", "shear stress sigma_xy, half a cell further along x and y", EQUATION_FIELD_BOX},
  [EL_BDT] = {"bdt", "dt / rho at the centres, averaged onto the faces", EQUATION_FIELD_BOX},
  [EL_CDT] = {"cdt", "1 / (mu dt) at the centres (infinite in a fluid)", EQUATION_FIELD_BOX},
  [EL_CSZ] = {"csz", "1 / (mu dt) summed across the z faces, for the edges' harmonic means", EQUATION_FIELD_BOX},
  [EL_CSX] = {"csx", "1 / (mu dt) summed across the x faces (3D: the xy edges')", EQUATION_FIELD_BOX},
#define EL_OPERAND(a, b, A, B) [EL_OP + 3 * (a) + (b)] = {"d" A B, "adjoint: the operand of the derivative along " B " in v" A "'s equation, or of v" A, EQUATION_FIELD_BOX}
  EL_OPERAND(0, 0, "z", "z"), EL_OPERAND(0, 1, "z", "x"), EL_OPERAND(0, 2, "z", "y"),
  EL_OPERAND(1, 0, "x", "z"), EL_OPERAND(1, 1, "x", "x"), EL_OPERAND(1, 2, "x", "y"),
  EL_OPERAND(2, 0, "y", "z"), EL_OPERAND(2, 1, "y", "x"), EL_OPERAND(2, 2, "y", "y"),
#undef EL_OPERAND
  [EL_IB + 0] = {"ibz", "adjoint: the image of dt / rho on the z faces", EQUATION_FIELD_BOX},
  [EL_IB + 1] = {"ibx", "adjoint: the image of dt / rho on the x faces", EQUATION_FIELD_BOX},
  [EL_IB + 2] = {"iby", "adjoint: the image of dt / rho on the y faces", EQUATION_FIELD_BOX},
  [EL_IE + 0] = {"iezx", "adjoint: the image of mu dt on the zx edges (times its square)", EQUATION_FIELD_BOX},
  [EL_IE + 1] = {"iezy", "adjoint: the image of mu dt on the zy edges (times its square)", EQUATION_FIELD_BOX},
  [EL_IE + 2] = {"iexy", "adjoint: the image of mu dt on the xy edges (times its square)", EQUATION_FIELD_BOX},
#define EL_BACKWARDS(f, name) [EL_FR + (f)] = {"f" name, "boundary method: the forward " name ", run backwards", EQUATION_FIELD_BOX}
  EL_BACKWARDS(EL_VZ, "vz"),   EL_BACKWARDS(EL_VX, "vx"),   EL_BACKWARDS(EL_VY, "vy"),
  EL_BACKWARDS(EL_SZZ, "szz"), EL_BACKWARDS(EL_SXX, "sxx"), EL_BACKWARDS(EL_SYY, "syy"),
  EL_BACKWARDS(EL_SZX, "szx"), EL_BACKWARDS(EL_SZY, "szy"), EL_BACKWARDS(EL_SXY, "sxy"),
#undef EL_BACKWARDS
};

/* The velocities read the stresses across faces and edges, the stresses
   the velocities; in the adjoint (adjoint.c) stage 0 undoes the stress
   stage and stage 1 the velocity stage, each from the operands its
   transposed derivatives read; the boundary method's forward fields run
   back beside them, the stresses from the velocities in stage 0, the
   velocities from the stresses in stage 1 (reconstruct.c). */
#define EL_OPERANDS EL_OP + 0, EL_OP + 1, EL_OP + 2, EL_OP + 3, EL_OP + 4, EL_OP + 5, EL_OP + 6, EL_OP + 7, EL_OP + 8
static const EquationStage stages[] = {
  {"velocity", 6, {EL_SZZ, EL_SXX, EL_SYY, EL_SZX, EL_SZY, EL_SXY}, 12, {EL_OPERANDS, EL_FR + EL_VZ, EL_FR + EL_VX, EL_FR + EL_VY}},
  {"stress",   3, {EL_VZ, EL_VX, EL_VY},                            15, {EL_OPERANDS, EL_FR + EL_SZZ, EL_FR + EL_SXX, EL_FR + EL_SYY, EL_FR + EL_SZX, EL_FR + EL_SZY, EL_FR + EL_SXY}},
};
#undef EL_OPERANDS

/* As the variable-density equation's: velocities at their nodes, half a
   step of time before the pressure of the same sample. */
static const EquationComponent components[] = {
  {"p",  "pressure, minus the mean normal stress (Pa; in 2D of sigma_zz and sigma_xx)", -1},
  {"vz", "particle velocity along z, downwards (m/s)",                                   0 },
  {"vx", "particle velocity along x (m/s)",                                              1 },
  {"vy", "particle velocity along y (m/s)",                                              2 },
};

static const EquationComponent source_kinds[] = {
  [EL_SOURCE_PRESSURE]    = {"pressure", "an explosion: the wavelet (m^3/s) of volume injected over the cell volume, times the bulk modulus dt, off each normal stress", -1},
  [EL_SOURCE_FORCE + 0]   = {"fz", "a force along z, downwards: the wavelet (N) over the cell volume, times dt / rho, added to vz", 0},
  [EL_SOURCE_FORCE + 1]   = {"fx", "a force along x: the wavelet (N) over the cell volume, times dt / rho, added to vx", 1},
  [EL_SOURCE_FORCE + 2]   = {"fy", "a force along y: the wavelet (N) over the cell volume, times dt / rho, added to vy", 2},
};

/* The P-wave modulus times dt, (lambda + 2 mu) dt = rho vp^2 dt. */
static void CellModel(PetscInt n, const float *const value[], PetscReal dt, float *out)
{
  for (PetscInt i = 0; i < n; i++) {
    const double vp = value[0][i], rho = value[2][i];
    out[i]          = (float)(rho * vp * vp * dt);
  }
}

/* 0 <= vs < vp in every cell (vs = 0: a fluid); a warning where vp / vs <
   sqrt 2 (lambda < 0: allowed, and unusual in rocks). */
static PetscErrorCode CheckModel(MPI_Comm comm, size_t n, const float *const value[])
{
  /* the first cell of each kind on this rank, as (vs, vp), and the counts */
  double bad[3] = {0, 0, 0}, low[3] = {0, 0, 0}, all[6];

  PetscFunctionBeginUser;
  for (size_t c = 0; c < n; c++) {
    const double vp = value[0][c], vs = value[1][c];
    if (vs >= vp && !bad[0]++) bad[1] = vs, bad[2] = vp;
    if (vs > 0 && vp * vp < 2 * vs * vs && !low[0]++) low[1] = vs, low[2] = vp;
  }
  all[0] = bad[0];
  all[1] = low[0];
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, all, 2, MPI_DOUBLE, MPI_SUM, comm));
  {
    /* a rank that has one says which, the lowest such rank */
    PetscMPIInt rank, first[2], mine[2];
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    mine[0] = bad[0] ? rank : PETSC_MPI_INT_MAX;
    mine[1] = low[0] ? rank : PETSC_MPI_INT_MAX;
    PetscCallMPI(MPIU_Allreduce(mine, first, 2, MPI_INT, MPI_MIN, comm));
    if (all[0]) PetscCallMPI(MPI_Bcast(&bad[1], 2, MPI_DOUBLE, first[0], comm));
    if (all[1]) PetscCallMPI(MPI_Bcast(&low[1], 2, MPI_DOUBLE, first[1], comm));
  }
  PetscCheck(!all[0], comm, PETSC_ERR_USER_INPUT, "-vs: %.0f cells of the grid with its absorbing layers have vs >= vp (the first: vs %.6g m/s, vp %.6g m/s); expected 0 <= vs < vp in every cell", all[0], bad[1], bad[2]);
  if (all[1])
    PetscCall(PetscPrintf(comm, "WARNING: %.0f cells of the grid with its absorbing layers have vp / vs below sqrt 2 (the first: vs %.6g m/s, vp %.6g m/s): lambda < 0 there, which the scheme takes; is the model right?\n", all[1],
                          low[1], low[2]));
  PetscFunctionReturn(0);
}

/* The S velocity where there is one, else the P velocity. */
static float SlowestWave(size_t n, const float *const value[])
{
  float slow = (float)PETSC_INFINITY;

  for (size_t c = 0; c < n; c++) slow = PetscMin(slow, value[1][c] > 0 ? value[1][c] : value[0][c]);
  return slow;
}

/* The constant-density equation's floors, for the slowest wave (the S
   wave): a staggered difference of an order is no less accurate than the
   centred one of that order. */
static PetscReal CellsPerWavelength(PetscInt order) { return EquationAcoustic.cells_per_wavelength(order); }

static void StateBytes(const Grid *g, double *all, double *layers)
{
  PetscInt padded[3];
  double   cells = (double)GridPaddedCells(g, padded), profiles = 0;

  for (PetscInt a = 0; a < g->dim; a++) profiles += 4.0 * padded[a] * sizeof(float);
  *layers = 2.0 * g->dim * EquationArrayBytes(cells); /* along axis 0: ELMemoryCells */
  for (PetscInt b = 1; b < g->dim; b++) *layers += 2.0 * g->dim * EquationArrayBytes(StaggeredSlabCells(g, b));
  *all = (ELStateFloats(g->dim) - 2.0 * g->dim) * EquationArrayBytes(cells) + profiles + *layers;
}

/* Every step: full storage, the strain rates and stress divergences that
   the gradients wanted read (ELKeep) over the padded box; the boundary method, the band of every
   forward field beside the core (reconstruct.c). */
static void StoreShape(const struct KernelOps *ops, const Grid *g, GradientMethod m, PetscInt nimage, PetscInt steps, size_t *n, PetscInt *nsteps, WavefieldLive *live)
{
  PetscInt padded[3];

  if (m == GRADIENT_BOUNDARY) {
    ELReconstruction rec;
    ELReconstructionGeometry(g, &rec);
    *n = rec.floats;
  } else *n = (size_t)ELKeepRows(g->dim, EquationImages(&EquationElastic, nimage)) * GridPaddedCells(g, padded);
  *nsteps = steps;
  *live   = (WavefieldLive){0, 0, 0};
}

/* The adjoint's operands and the images of the gradients wanted, and the
   image handed out; the boundary method's forward fields run backwards
   besides. */
static double MethodBytes(const struct KernelOps *ops, const Grid *g, GradientMethod m, PetscInt nimage)
{
  PetscInt padded[3];

  return (double)(ELAdjointArrays(g->dim, EquationImages(&EquationElastic, nimage)) + (m == GRADIENT_BOUNDARY ? 2 * g->dim + ELPairs(g->dim) : 0)) * EquationArrayBytes((double)GridPaddedCells(g, padded));
}

/* From dJ/dlambda, dJ/dmu and dJ/db (lambda = rho (vp^2 - 2 vs^2), mu =
   rho vs^2, b = 1 / rho) to dJ/dvp, dJ/dvs and dJ/drho. */
static void Gradient(PetscInt n, const float *const model[], double *const grad[])
{
#pragma omp parallel for schedule(static)
  for (PetscInt c = 0; c < n; c++) {
    const double vp = model[0][c], vs = model[1][c], rho = model[2][c], gl = grad[0][c], gm = grad[1][c], gb = grad[2][c];
    grad[0][c] = 2 * rho * vp * gl;
    grad[1][c] = 2 * rho * vs * (gm - 2 * gl);
    grad[2][c] = (vp * vp - 2 * vs * vs) * gl + vs * vs * gm - gb / (rho * rho);
  }
}

static PetscBool Kernels(BackendChoice backend, EquationKernels *k)
{
  const ELKernels *ops = backend == BACKEND_CPU ? &ELKernelsCPU : NULL;

#ifdef HALOFWI_HAVE_CUDA
  if (backend == BACKEND_CUDA) ops = &ELKernelsCUDA;
#endif
  if (!ops) return PETSC_FALSE;
  *k = (EquationKernels){(const struct KernelOps *)ops, ops->backend};
  return PETSC_TRUE;
}

const Equation EquationElastic = {
  .name                 = "elastic",
  .summary              = "isotropic elastic: particle velocity and stress, first order in time, staggered",
  EQUATION_LISTS(parameters, fields, stages, components),
  .nmodel_field         = 2,
  .model_field          = {EL_BDT, EL_CDT},
  .nmodel_derived       = 2,
  .model_derived        = {EL_CSZ, EL_CSX},
  .watch_field          = EL_SZZ,
  .cell_model           = CellModel,
  .check_model          = CheckModel,
  .slowest_wave         = SlowestWave,
  .source               = "an explosion (volume injection, m^3/s) or a force (N), -source_type",
  .nsource_kind         = EQUATION_COUNT(source_kinds),
  .source_kind          = source_kinds,
  .source_image         = -1,
  .surface_no_parity    = PETSC_TRUE,
  .stable_step          = StaggeredStableStep,
  .cells_per_wavelength = CellsPerWavelength,
  .state_bytes          = StateBytes,
  .cell_floats          = 14, /* 2D: ELStateFloats(2) */
  .host_model_arrays    = 4, /* dt / rho, lambda dt, mu dt, 1 / (mu dt) */
  .forward_fields       = {5, 9}, /* the velocities, normal and shear stresses */
  .store_shape          = StoreShape,
  .method_bytes         = MethodBytes,
  .keeps                = {[GRADIENT_FULL] = "every step's strain rates (for dJ/dvp alone their trace) and, for dJ/drho, stress divergences", [GRADIENT_BOUNDARY] = "the band beside the layers that the core reads, every step"},
  /* Least-squares fits to scripts/bench-gradient (PHYSICS=elastic, with and
     without INVERT_FOR=vp, full and boundary; 1 rank, order 8, 20 layer
     cells; 2D 512^2 x 1000 and 1024^2 x 500, 3D 64^3 x 300; the AMD EPYC,
     2026-12-06): the step ratios within 0.4 of the fit in 2D, 0.15 in 3D.
     A layer cell's adjoint costs what a core cell's does; each float
     stored a cell and step (1 for dJ/dvp alone, 5 in 2D and 9 in 3D for
     all three) 0.29 forward steps in 2D, 0.08 in 3D; the forward step 5.5
     (2D, 2 threads) and 6.6 (3D, 1 thread) of the constant-density
     equation's per cell.  The boundary method's running back, per cell it
     runs the forward fields back in (since the support boxes):
     scripts/fit_plan.py on the boundary runs of two scripts/bench-gradient
     runs (2D 512^2 x 1000, 1024^2 and 2048^2 x 500, 1024^2 also with
     -invert_for vp, 3D 64^3 and 96^3 x 300; 2
     threads, 2026-12-07), the rest held: 2.29 (2D), 3.57 (3D). */
  .gradient_cost        = {{.adjoint_core = 1.44, .adjoint_layer = 1.44, .reconstruct = 0, .run_back = 2.29, .store = 0.29, .step = 5.5},
                           {.adjoint_core = 1.29, .adjoint_layer = 1.29, .reconstruct = 0, .run_back = 3.57, .store = 0.08, .step = 6.6}},
  .nimage_field         = 6,
  .image_field          = {EL_IB + 0, EL_IB + 1, EL_IB + 2, EL_IE + 0, EL_IE + 1, EL_IE + 2},
  .nimage_derived       = 3,
  .image_derived        = {EL_IE + 0, EL_IE + 1, EL_IE + 2},
  .gradient             = Gradient,
  .kernels              = Kernels,
  .scheme               = &ElasticScheme,
};
