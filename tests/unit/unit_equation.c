/* The equation seam (equations/equation.h): every equation's table is whole
   and consistent; the variable-density equation's staggered weights and
   stable step are what the scheme's analysis says (CheckVariableDensity);
   and the acoustic equation's entries agree with what its own state and
   the scheme's analysis say:
   - the stages name fields that exist, the watched field lies on the
     padded box, every operation is set and the CPU has kernels;
   - the scheme's hooks are set, and field_data gives the state's own
     arrays (that of a state the scheme made);
   - stable_step is the leapfrog limit 2 / (v sqrt(sum_a S / d_a^2)) with S
     the largest second-difference symbol: 4 at order 2 and 16/3 at order 4;
   - cell_model is v^2 dt^2, and the chain rule `gradient` is the image
     times d(cell model)/dv over the cell model (the image is taken against
     the model term's relative change), checked by central differences;
   - state_bytes and store_shape are those of the equation's own layout
     (FieldsBytes, GradientStoreShape) on one rank's block, and the box
     fields a step exchanges are the one pressure field;
   - the variable-density and elastic adjoints count only the images of
     the gradients wanted (method_bytes with nimage: CheckWantedArrays);
   - a padded row (in 3D, or plane) whose bytes come within 256 of a
     multiple of 4096 is lengthened (grid.h: GridPaddedCells), and the
     acoustic layout, its layer slabs included, follows the grid's row
     pitch. */
#include "equations/acoustic/acoustic.h"
#include "equations/acoustic/state.h"
#include "equations/variable_density/state.h"
#include "equations/elastic/state.h"
#include <math.h>

static const Equation *const equations[] = {&EquationAcoustic, &EquationVariableDensity, &EquationElastic};

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

static PetscErrorCode CheckTable(const Equation *eq)
{
  EquationKernels k;

  PetscFunctionBeginUser;
  CHECK(eq->name && eq->summary && eq->source, "%s: name, summary and source must be set", eq->name);
  CHECK(eq->nparameter >= 1 && eq->ncomponent >= 1 && eq->nstage >= 1, "%s: no parameter, component or stage", eq->name);
  for (PetscInt p = 0; p < eq->nparameter; p++)
    CHECK(eq->parameter[p].name && eq->parameter[p].option && eq->parameter[p].unit && eq->parameter[p].label, "%s: parameter %" PetscInt_FMT " incomplete", eq->name, p);
  for (PetscInt s = 0; s < eq->nstage; s++) {
    const EquationStage *st = &eq->stage[s];
    CHECK(st->nforward >= 1 && st->nforward <= EQUATION_MAX_FIELDS && (st->nadjoint >= 1 || !eq->gradient) && st->nadjoint <= EQUATION_MAX_FIELDS,
          "%s: stage %s exchanges no field or too many (an adjoint's none only without a gradient)", eq->name, st->name);
    for (PetscInt i = 0; i < st->nforward + st->nadjoint; i++) {
      const PetscInt f = i < st->nforward ? st->forward[i] : st->adjoint[i - st->nforward];
      CHECK(f >= 0 && f < eq->nfield, "%s: stage %s names field %" PetscInt_FMT " of %" PetscInt_FMT, eq->name, st->name, f, eq->nfield);
    }
  }
  CHECK(eq->watch_field >= 0 && eq->watch_field < eq->nfield && eq->field[eq->watch_field].kind == EQUATION_FIELD_BOX, "%s: the watched field must be a box field", eq->name);
  CHECK(eq->cell_model && eq->stable_step && eq->cells_per_wavelength && eq->state_bytes && eq->cell_floats > 0 && eq->host_model_arrays > 0 && eq->kernels, "%s: an operation is missing", eq->name);
  CHECK(!eq->store_shape == !eq->gradient && !eq->method_bytes == !eq->gradient, "%s: store_shape, method_bytes and gradient must be set together (or none: forward only)", eq->name);
  for (PetscInt i = 0; i < eq->nmodel_field; i++)
    CHECK(eq->model_field[i] >= 0 && eq->model_field[i] < eq->nfield && eq->field[eq->model_field[i]].kind == EQUATION_FIELD_BOX, "%s: model field %" PetscInt_FMT " must be a box field", eq->name,
          eq->model_field[i]);
  {
    const EquationScheme *sc = eq->scheme;
    CHECK(sc && sc->create && sc->destroy && sc->set_model && sc->lanes && sc->field_data && sc->split_boxes && sc->set_method && sc->run_begin && sc->run_end && sc->step_begin &&
            sc->stage_begin && sc->box_step && sc->stage_end && sc->step_end && sc->record && sc->all_finite && sc->image,
          "%s: a hook of its scheme is missing", eq->name);
  }
  for (PetscInt c = 0; c < eq->ncomponent; c++)
    CHECK(eq->component[c].name && eq->component[c].description && eq->component[c].axis >= -1 && eq->component[c].axis < 3 && (c || eq->component[c].axis == -1),
          "%s: component %" PetscInt_FMT " incomplete, or the first (what the misfit reads) not at the centres", eq->name, c);
  for (PetscInt d = 0; d < 2 && eq->gradient; d++) {
    const EquationGradientCost *c = &eq->gradient_cost[d];
    CHECK(c->step > 0 && c->store >= 0 && c->adjoint_core > 0 && c->adjoint_layer > 0 && c->reconstruct >= 0 && c->run_back >= 0 &&
            (c->reconstruct + c->run_back > 0) == (eq->keeps[GRADIENT_BOUNDARY] != NULL),
          "%s: the planner's %dD costs are incomplete", eq->name, (int)d + 2);
  }
  for (PetscInt k = 0; k < eq->nsource_kind; k++)
    CHECK(eq->source_kind[k].name && eq->source_kind[k].description && eq->source_kind[k].axis >= -1 && eq->source_kind[k].axis < 3 && (k || eq->source_kind[k].axis == -1),
          "%s: source kind %" PetscInt_FMT " incomplete, or the first (the default) not at the centres", eq->name, k);
  for (PetscInt i = 0; i < eq->nmodel_derived; i++)
    CHECK(eq->model_derived[i] >= 0 && eq->model_derived[i] < eq->nfield && eq->scheme->derive_model, "%s: derived model field %" PetscInt_FMT " without a field or derive_model", eq->name,
          eq->model_derived[i]);
  CHECK(eq->source_image >= -1 && eq->source_image < eq->nparameter, "%s: the source's image is parameter %" PetscInt_FMT " of %" PetscInt_FMT, eq->name, eq->source_image, eq->nparameter);
  CHECK(eq->kernels(BACKEND_CPU, &k) && k.backend && k.backend->host_memory && k.backend->mem_download, "%s: no CPU kernels", eq->name);
  for (PetscInt order = 4; order <= FWI_MAX_ORDER; order += 2)
    CHECK(eq->cells_per_wavelength(order) <= eq->cells_per_wavelength(order - 2), "%s: a higher order needs no more cells per wavelength", eq->name);
  PetscFunctionReturn(0);
}

/* One rank's whole 2D grid of nz x nx cells and 5-cell layers, a free
   surface on top: the members the equation's layout reads. */
static void OneRankGrid(PetscInt order, PetscInt nz, PetscInt nx, PetscReal d, Grid *g)
{
  PetscMemzero(g, sizeof(*g));
  g->dim    = 2;
  g->order  = order;
  g->radius = order / 2;
  for (PetscInt a = 0; a < 3; a++) {
    g->n[a]    = a == 0 ? nz : a == 1 ? nx : 1;
    g->d[a]    = d;
    g->pml[a][0] = a == 1 ? 5 : 0;
    g->pml[a][1] = a < 2 ? 5 : 0;
    g->N[a]    = g->n[a] + g->pml[a][0] + g->pml[a][1];
    g->size[a] = g->N[a];
    g->nbr[a][0] = g->nbr[a][1] = MPI_PROC_NULL;
  }
}

static PetscErrorCode CheckAcoustic(void)
{
  const Equation *eq = &EquationAcoustic;
  const PetscReal v = 2000, d = 10, dt = 1e-3, sym[2] = {4, 16.0 / 3};
  Grid            g;
  Fields          f;
  PetscInt        padded[3];

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 2; k++) {
    const PetscReal want = 2 / (v * PetscSqrtReal(sym[k] * 2 / (d * d)));
    OneRankGrid(2 * (k + 1), 30, 40, d, &g);
    CHECK(PetscAbsReal(eq->stable_step(&g, v) - want) <= 1e-12 * want, "order %d: stable step %.15g, expected %.15g", (int)(2 * (k + 1)), (double)eq->stable_step(&g, v), (double)want);
  }

  {
    const float  vp[3] = {1500, 2000, 4500};
    const float *in[1] = {vp};
    float        m[3], lo, hi;
    double       grad[3] = {1, -2, 0.5};
    eq->cell_model(3, in, dt, m);
    eq->gradient(3, in, (double *const[]){grad});
    for (PetscInt c = 0; c < 3; c++) {
      const float        h       = 0.5f, vl = vp[c] - h, vh = vp[c] + h;
      const float *const pl[1] = {&vl}, *const ph[1] = {&vh};
      const double       image = c == 0 ? 1 : c == 1 ? -2 : 0.5;
      CHECK(m[c] == (float)((double)vp[c] * vp[c] * dt * dt), "cell model at %g: %g, expected v^2 dt^2", (double)vp[c], (double)m[c]);
      eq->cell_model(1, pl, dt, &lo);
      eq->cell_model(1, ph, dt, &hi);
      {
        const double want = image * ((double)hi - lo) / (2 * h) / m[c];
        CHECK(fabs(grad[c] - want) <= 1e-3 * fabs(want), "chain rule at %g: %g, the cell model's relative derivative gives %g", (double)vp[c], grad[c], want);
      }
    }
  }

  OneRankGrid(8, 30, 40, d, &g);
  FieldsOfGrid(&g, &f);
  CHECK(f.ncells == GridPaddedCells(&g, padded), "the acoustic state's padded box (%zu cells) is not the grid's", f.ncells);
  {
    const PetscInt cell[3] = {3, 7, 0};
    CHECK(FieldsIndex(&f, cell) == GridPaddedIndex(&g, cell), "the acoustic state indexes cells as the grid does not");
  }
  {
    double all, layers, want_all, want_layers;
    eq->state_bytes(&g, &all, &layers);
    FieldsBytes(&f, &want_all, &want_layers);
    CHECK(all == want_all && layers == want_layers && layers > 0 && layers < all, "state bytes %g (layers %g), expected %g (%g)", all, layers, want_all, want_layers);
  }
  for (GradientMethod m = GRADIENT_FULL; m <= GRADIENT_BOUNDARY; m++) {
    size_t        n, want_n;
    WavefieldLive live, want_live;
    PetscInt nsteps, want_steps;
    eq->store_shape(&KernelOpsCPU, &g, m, 0, 100, &n, &nsteps, &live);
    GradientStoreShape(&KernelOpsCPU, &f, m, 100, &want_n, &want_steps, &want_live);
    CHECK(n == want_n && nsteps == want_steps && live.rows == want_live.rows && live.bytes == want_live.bytes && live.chunk == want_live.chunk, "%s: store %zu x %d, expected %zu x %d", GradientMethods[m], n, (int)nsteps, want_n, (int)want_steps);
    CHECK(m == GRADIENT_FULL ? n == f.ncells && nsteps == 100 : n > 0 && n < f.ncells && nsteps == 99, "%s: store %zu x %d of %zu cells", GradientMethods[m], n, (int)nsteps, f.ncells);
    CHECK(eq->method_bytes(&KernelOpsCPU, &g, m, 0) == GradientFieldBytes(&KernelOpsCPU, &f, m), "%s: bytes besides the store differ", GradientMethods[m]);
  }
  CHECK(EquationBoxFieldsExchanged(eq) == 1, "the acoustic step exchanges %d box fields, expected 1 (u)", (int)EquationBoxFieldsExchanged(eq));

  {
    const EquationStateSettings settings = {.vmax = 3000, .f_pml = 15, .dt = dt};
    EquationKernels             k;
    EquationState              *state;
    (void)eq->kernels(BACKEND_CPU, &k);
    PetscCall(eq->scheme->create(&g, &k, &settings, &state));
    const Fields *sf = &AcousticStateOf(state)->f;
    CHECK(sf->ncells == f.ncells, "the scheme's state is not laid out on the grid's block");
    CHECK(eq->scheme->field_data(state, eq->watch_field, 0, 0) == sf->u, "the watched field is not u");
    for (PetscInt i = 0; i < eq->stage[0].nadjoint; i++) {
      const PetscInt kf = eq->stage[0].adjoint[i];
      for (PetscInt a = 0; a < 2; a++)
        for (PetscInt s = 0; s < 2; s++) {
          float *p = eq->scheme->field_data(state, kf, a, s);
          if (eq->field[kf].kind == EQUATION_FIELD_SLAB) CHECK(p == sf->slab[a][s].psi || p == sf->slab[a][s].zeta, "slab field %s is not the slab's", eq->field[kf].name);
          else CHECK(p == sf->u || p == sf->fu, "box field %s is not the state's", eq->field[kf].name);
        }
    }
    PetscCall(eq->scheme->destroy(&state));
    CHECK(!state, "destroy leaves the handle set");
  }
  PetscFunctionReturn(0);
}

/* A staggered state's slabs of CPML memory (staggered.h) on g, with the
   CPU's profiles pb, hb: every owned cell where either profile of an axis
   is not 0 lies in the axis's slab, the slab's cells (owned along the
   axis, every padded cell along the others) map one to one onto its
   ncells, and ncells is the estimate's (StaggeredSlabCells). */
static PetscErrorCode CheckSlabs(const char *name, const Grid *g, const StaggeredSlab slab[3], float *const pb[3], float *const hb[3])
{
  PetscInt padded[3];

  PetscFunctionBeginUser;
  (void)GridPaddedCells(g, padded);
  for (PetscInt a = 0; a < g->dim; a++) {
    const StaggeredSlab *sl = &slab[a];
    char                *hit;
    size_t               held = 0;
    CHECK(sl->ncells == StaggeredSlabCells(g, a), "%s: axis %d's slab holds %zu cells, the estimate %g", name, (int)a, sl->ncells, StaggeredSlabCells(g, a));
    PetscCall(PetscCalloc1(sl->ncells + 1, &hit));
    for (PetscInt k = 0; k < padded[2]; k++)
      for (PetscInt j = 0; j < padded[1]; j++)
        for (PetscInt i = 0; i < padded[0]; i++) {
          const PetscInt q[3] = {i, j, k}, x = q[a];
          if (x < g->radius || x >= padded[a] - g->radius) continue;
          CHECK(StaggeredSlabHolds(sl, x) || (pb[a][x] == 0 && hb[a][x] == 0), "%s: axis %d's layer cell %d lies outside its slab", name, (int)a, (int)x);
          if (!StaggeredSlabHolds(sl, x)) continue;
          {
            const ptrdiff_t c = StaggeredSlabIndex(sl, q);
            CHECK(c >= 0 && (size_t)c < sl->ncells && !hit[c], "%s: axis %d's slab index %td of (%d, %d, %d) out of range or taken twice", name, (int)a, c, (int)i, (int)j, (int)k);
            hit[c] = 1;
            held++;
          }
        }
    CHECK(held == sl->ncells, "%s: axis %d's slab maps %zu cells, holds %zu", name, (int)a, held, sl->ncells);
    PetscCall(PetscFree(hit));
  }
  PetscFunctionReturn(0);
}

/* The adjoint's arrays for the gradients of the first k parameters alone
   (method_bytes with nimage k) on one rank's grid of dim axes: parameter
   k's images add more[k - 2] padded arrays to those of the parameters
   before it, and nimage 0 counts every parameter's. */
static PetscErrorCode CheckWantedArrays(const Equation *eq, PetscInt dim, const PetscInt more[])
{
  Grid     g;
  PetscInt padded[3];

  PetscFunctionBeginUser;
  OneRankGrid(8, 30, 40, 10, &g);
  if (dim == 3) g.dim = 3, g.n[2] = g.N[2] = g.size[2] = 20;
  const double array = EquationArrayBytes((double)GridPaddedCells(&g, padded));
  for (GradientMethod m = GRADIENT_FULL; m <= GRADIENT_BOUNDARY; m++) {
    for (PetscInt k = 2; k <= eq->nparameter; k++) {
      const double grows = (eq->method_bytes(&KernelOpsCPU, &g, m, k) - eq->method_bytes(&KernelOpsCPU, &g, m, k - 1)) / array;
      CHECK(grows == more[k - 2], "%dD %s, %s: parameter %d's images add %g padded arrays, expected %d", (int)dim, eq->name, GradientMethods[m], (int)k, grows, (int)more[k - 2]);
    }
    CHECK(eq->method_bytes(&KernelOpsCPU, &g, m, 0) == eq->method_bytes(&KernelOpsCPU, &g, m, eq->nparameter), "%dD %s, %s: nimage 0 is not every parameter's", (int)dim, eq->name, GradientMethods[m]);
  }
  PetscFunctionReturn(0);
}

/* The staggered weights meet the Taylor conditions of the derivative at
   x + 1/2 (sum_k c_k (2k - 1)^(2m + 1) / 2^(2m) = 1 for m = 0, 0 above, to
   the order's), and the variable-density step is the staggered leapfrog's
   limit 1 / (v sum |c_k| sqrt(sum_a 1 / d_a^2)): at order 2, d / (v sqrt 2)
   in 2D. */
static PetscErrorCode CheckVariableDensity(void)
{
  const Equation *eq = &EquationVariableDensity;
  const PetscReal v = 2000, d = 10;
  Grid            g;

  PetscFunctionBeginUser;
  for (PetscInt R = 1; R <= FWI_MAX_RADIUS; R++) {
    double c[FWI_MAX_RADIUS + 1];
    StaggeredWeights(R, c);
    for (PetscInt m = 0; m < R; m++) {
      double sum = 0, scale = 0;
      for (PetscInt k = 1; k <= R; k++) {
        sum += c[k] * pow(2.0 * k - 1, 2.0 * m + 1);
        scale += fabs(c[k]) * pow(2.0 * k - 1, 2.0 * m + 1);
      }
      CHECK(fabs(sum - (m ? 0 : 1)) <= 1e-12 * scale, "staggered weights of radius %d: moment %d is %.3e, expected %d", (int)R, (int)(2 * m + 1), sum, m ? 0 : 1);
    }
  }
  for (PetscInt dim = 2; dim <= 3; dim++) PetscCall(CheckWantedArrays(eq, dim, (const PetscInt[]){dim})); /* the faces' */
  OneRankGrid(2, 30, 40, d, &g);
  CHECK(PetscAbsReal(eq->stable_step(&g, v) - d / (v * PetscSqrtReal(2.0))) <= 1e-12 * d / v, "order 2: stable step %.15g, expected %.15g", (double)eq->stable_step(&g, v),
        (double)(d / (v * PetscSqrtReal(2.0))));
  {
    const EquationStateSettings settings = {.vmax = 3000, .f_pml = 15, .dt = 1e-3};
    EquationKernels             k;
    EquationState              *state;
    double                      all, layers;
    (void)eq->kernels(BACKEND_CPU, &k);
    PetscCall(eq->scheme->create(&g, &k, &settings, &state));
    {
      const VDState *s = (const VDState *)state;
      PetscCall(CheckSlabs("variable density", &g, s->slab, s->pb, s->hb));
      eq->state_bytes(&g, &all, &layers);
      CHECK(layers == 2.0 * (StaggeredSlabCells(&g, 0) + StaggeredSlabCells(&g, 1)) * sizeof(float) && all > layers, "variable-density state bytes %g (layers %g) off its layout", all, layers);
    }
    PetscCall(eq->scheme->destroy(&state));
  }
  PetscFunctionReturn(0);
}

/* The elastic equation: the staggered leapfrog's step at the P velocity,
   the P-wave modulus as its cell model, its bytes those of its layout
   (14 floats a cell in 2D, 21 in 3D, and the CPML memories along x and y
   in their slabs), and a state whose forward and model fields are its own
   arrays, with none along the axis a 2D grid lacks. */
static PetscErrorCode CheckElastic(void)
{
  const Equation *eq = &EquationElastic;
  const PetscReal v = 2000, d = 10, dt = 1e-3;
  Grid            g;
  double          all, layers;
  PetscInt        padded[3];

  PetscFunctionBeginUser;
  OneRankGrid(2, 30, 40, d, &g);
  CHECK(eq->stable_step(&g, v) == EquationVariableDensity.stable_step(&g, v), "the elastic step is not the staggered leapfrog's at vp");
  CHECK(ELStateFloats(2) == 14 && ELStateFloats(3) == 21 && eq->cell_floats == ELStateFloats(2), "elastic floats per cell %d, %d (table %d), expected 14, 21", (int)ELStateFloats(2),
        (int)ELStateFloats(3), (int)eq->cell_floats);
  eq->state_bytes(&g, &all, &layers);
  CHECK(StaggeredSlabCells(&g, 1) > 0 && StaggeredSlabCells(&g, 1) < GridPaddedCells(&g, padded), "the x slab's cells %g of %zu", StaggeredSlabCells(&g, 1), GridPaddedCells(&g, padded));
  CHECK(all >= 14.0 * GridPaddedCells(&g, padded) * sizeof(float) && layers == (4.0 * GridPaddedCells(&g, padded) + 4.0 * StaggeredSlabCells(&g, 1)) * sizeof(float),
        "elastic state bytes %g (layers %g) off its layout", all, layers);
  {
    const float  vp[2] = {1500, 3000}, vs[2] = {0, 1700}, rho[2] = {1000, 2200};
    const float *in[3] = {vp, vs, rho};
    float        m[2];
    eq->cell_model(2, in, dt, m);
    for (PetscInt c = 0; c < 2; c++) CHECK(m[c] == (float)((double)rho[c] * vp[c] * vp[c] * dt), "elastic cell model %g, expected rho vp^2 dt", (double)m[c]);
  }
  for (PetscInt dim = 2; dim <= 3; dim++) PetscCall(CheckWantedArrays(eq, dim, (const PetscInt[]){1 + ELPairs(dim), dim})); /* mu's at the centres and edges, the faces' */
  {
    const EquationStateSettings settings = {.vmax = 3000, .f_pml = 15, .dt = dt};
    EquationKernels             k;
    EquationState              *state;
    (void)eq->kernels(BACKEND_CPU, &k);
    PetscCall(eq->scheme->create(&g, &k, &settings, &state));
    {
      const ELState *s = (const ELState *)state;
      for (PetscInt f = 0; f < EL_OP; f++) { /* the adjoint's come with its first run */
        const float   *p   = eq->scheme->field_data(state, f, 0, 0);
        const PetscBool has = f != EL_VY && f != EL_SYY && f != EL_SZY && f != EL_SXY && f != EL_CSX;
        CHECK(!p == !has, "2D elastic field %s: %s", eq->field[f].name, has ? "missing" : "present without its axis");
      }
      CHECK(eq->scheme->field_data(state, EL_SZX, 0, 0) == s->t[0] && eq->scheme->field_data(state, EL_SXX, 0, 0) == s->s[1], "elastic fields are not the state's arrays");
      CHECK(ELMemoryCells(s, 0) == s->ncells && ELMemoryCells(s, 1) == s->slab[1].ncells, "elastic memories along z over %zu cells, along x %zu", ELMemoryCells(s, 0), ELMemoryCells(s, 1));
      PetscCall(CheckSlabs("elastic", &g, s->slab, s->pb, s->hb));
    }
    PetscCall(eq->scheme->destroy(&state));
  }
  PetscFunctionReturn(0);
}

/* The row pitch GridCreate gives 2D grids of nz cells (order 8, 20 layer
   cells a side: padded rows of nz + 48 floats), and the acoustic layout
   on a grid with that pitch; in 3D, the pitch that also keeps the planes'
   stride off a multiple of 4096 bytes. */
static PetscErrorCode CheckRowPitch(void)
{
  const PetscInt  nz[]    = {976, 1000, 900, 2000, 1968, 1900, 10}, want[] = {1088, 1088, 948, 2112, 2112, 1948, 58};
  const PetscInt  procs[] = {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}, pml[3][2] = {{20, 20}, {20, 20}, {0, 0}};
  const PetscReal d[3]    = {10, 10, 10};

  PetscFunctionBeginUser;
  for (size_t k = 0; k < sizeof nz / sizeof nz[0]; k++) {
    const PetscInt n[3] = {nz[k], 12, 1};
    Grid           g;
    Fields         f;
    PetscInt       padded[3];
    PetscCall(GridCreate(PETSC_COMM_SELF, 2, n, d, 8, pml, procs, &g));
    CHECK(g.pitch == want[k], "padded rows of %" PetscInt_FMT " floats: pitch %" PetscInt_FMT ", expected %" PetscInt_FMT, nz[k] + 48, g.pitch, want[k]);
    FieldsOfGrid(&g, &f);
    CHECK(f.ncells == GridPaddedCells(&g, padded) && f.ncells == (size_t)g.pitch * padded[1], "rows %" PetscInt_FMT " apart: the acoustic state takes %zu floats, the grid %zu", g.pitch, f.ncells, GridPaddedCells(&g, padded));
    {
      const PetscInt cell[3] = {nz[k] - 1, 30, 0};
      CHECK(FieldsIndex(&f, cell) == GridPaddedIndex(&g, cell), "rows %" PetscInt_FMT " apart: the acoustic state indexes cells as the grid does not", g.pitch);
    }
    CHECK(f.slab[1][0].stride[1] == f.stride[1] && f.slab[0][0].stride[1] == f.slab[0][0].hi - f.slab[0][0].lo, "rows %" PetscInt_FMT " apart: the x slab's rows are not the field's, or the z slab's not its own", g.pitch);
    PetscCall(GridDestroy(&g));
  }
  { /* 3D: the planes' stride too (n^3, padded n + 48 a side) */
    const PetscInt n3[] = {144, 128, 8}, want3[] = {193, 176, 56};
    for (size_t k = 0; k < sizeof n3 / sizeof n3[0]; k++) {
      const PetscInt n[3] = {n3[k], n3[k], n3[k]}, pml3[3][2] = {{20, 20}, {20, 20}, {20, 20}};
      Grid           g;
      PetscCall(GridCreate(PETSC_COMM_SELF, 3, n, d, 8, pml3, procs, &g));
      CHECK(g.pitch == want3[k], "3D padded box of %" PetscInt_FMT "^3: pitch %" PetscInt_FMT ", expected %" PetscInt_FMT, n3[k] + 48, g.pitch, want3[k]);
      PetscCall(GridDestroy(&g));
    }
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (size_t k = 0; k < sizeof(equations) / sizeof(equations[0]); k++) PetscCall(CheckTable(equations[k]));
  PetscCall(CheckAcoustic());
  PetscCall(CheckVariableDensity());
  PetscCall(CheckElastic());
  PetscCall(CheckRowPitch());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "equation tables: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
