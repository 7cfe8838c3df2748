/* The shot layer's time loop (PropagatorRun, PropagatorAdjoint) knows an
   equation through its table alone (equations/equation.h), whatever the
   number of its stages.  A mock equation of two stages, built here from
   the seam and the CPU backend's memory alone, logs every hook call and
   writes, before each stage's exchange, a value that names the cell, the
   step and the stage into the field that stage's kernels read across the
   block's faces; then:
   - the hooks come in the order the seam promises, forward and in the
     adjoint (steps backwards, no receivers), every box of a pass stepped
     between its stage's stage_begin and stage_end;
   - every ghost cell a box's stencil reaches on a neighbour holds what
     that neighbour wrote this stage: the loop exchanged the field the
     table names for the stage, before the shell was stepped (the grid cut
     along x on more than one rank; with and without overlap);
   - the adjoint's image goes through the sum over shots and the table's
     chain rule to the gradient unchanged but for that rule;
   - the receivers' samples reach the traces at their steps (m = 1, so
     the decimation is a copy).
   Stage 0 reads field A across the faces, stage 1 field B; the adjoint
   runs the stages' transposes, stage 0 reading B and stage 1 A. */
#include "data/events.h"
#include "data/geometry.h"
#include "grid/grid.h"
#include "grid/timeaxis.h"
#include "shot/propagate.h"
#include "shot/survey.h"

enum { FIELD_A, FIELD_B, IMAGE }; /* the mock's arrays */

typedef enum { HOOK_RUN_BEGIN, HOOK_STEP_BEGIN, HOOK_RECORD, HOOK_STAGE_BEGIN, HOOK_BOX_STEP, HOOK_STAGE_END, HOOK_STEP_END, HOOK_RUN_END } Hook;
static const char *const hook_names[] = {"run_begin", "step_begin", "record", "stage_begin", "box_step", "stage_end", "step_end", "run_end"};

/* One hook call: stage and step -1 where the hook has none. */
typedef struct {
  Hook      hook;
  PetscInt  stage, n;
  PetscBool adjoint;
} Event;

#define MOCK_MAX_EVENTS 1024

/* The mock's state on a rank: its two fields and image over the padded
   box, the step under way, the boxes stepped in the stage under way, and
   the log of the run under way. */
typedef struct {
  const Grid *g;
  float      *array[3];
  PetscInt    n, boxes, nevent;
  Event       event[MOCK_MAX_EVENTS];
  PetscInt    calls, ghosts; /* over every run: hook calls, neighbours' ghost cells checked */
} Mock;

static Mock *MockOf(const EquationState *s) { return (Mock *)s; }

/* The field stage `stage` reads across the block's faces. */
static PetscInt StageField(PetscInt stage, PetscBool adjoint) { return adjoint ? 1 - stage : stage; }

/* What a stage writes at a cell, less the cell's global index: exact in
   float for these grids (below 2^24). */
static PetscInt Offset(PetscInt n, PetscInt stage, PetscBool adjoint) { return 1000 * (1 + stage + 2 * n) + 100000 * adjoint; }

/* The global index (z fastest) of cell i, in owned indices (a ghost is a
   neighbour's cell). */
static PetscInt Global(const Grid *g, const PetscInt i[3]) { return g->start[0] + i[0] + g->N[0] * (g->start[1] + i[1] + g->N[1] * (g->start[2] + i[2])); }

/* f = global index + offset on every owned cell. */
static void FillOwned(const Grid *g, float *f, PetscInt offset)
{
  PetscInt i[3];

  for (i[2] = 0; i[2] < g->size[2]; i[2]++)
    for (i[1] = 0; i[1] < g->size[1]; i[1]++)
      for (i[0] = 0; i[0] < g->size[0]; i[0]++) f[GridPaddedIndex(g, i)] = (float)(Global(g, i) + offset);
}

/* Logs a hook call: run_begin starts the run's log, step_begin sets the
   step under way, stage_begin zeroes the stage's box count, box_step adds
   to it. */
static PetscErrorCode Log(EquationState *s, Hook hook, PetscInt stage, PetscBool adjoint, PetscInt n)
{
  Mock *m = MockOf(s);

  PetscFunctionBeginUser;
  if (hook == HOOK_RUN_BEGIN) m->nevent = 0;
  if (hook == HOOK_STEP_BEGIN) m->n = n;
  if (hook == HOOK_STAGE_BEGIN) m->boxes = 0;
  m->boxes += hook == HOOK_BOX_STEP;
  PetscCheck(m->nevent < MOCK_MAX_EVENTS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "more than %d hook calls in one run, expected a few per step", MOCK_MAX_EVENTS);
  m->event[m->nevent++] = (Event){hook, stage, n, adjoint};
  m->calls++;
  PetscFunctionReturn(0);
}

/* The ghost cells of the stage's field that the box's stencil reaches
   along each axis and that a neighbour owns: each must hold what the
   neighbour wrote this stage.  An interior box reaches none. */
static PetscErrorCode MockBoxStep(EquationState *s, PetscInt stage, PetscBool adjoint, const Box *box)
{
  Mock          *m     = MockOf(s);
  const Grid    *g     = m->g;
  const PetscInt field = StageField(stage, adjoint);
  const float   *f     = m->array[field];

  PetscFunctionBeginUser;
  PetscCall(Log(s, HOOK_BOX_STEP, stage, adjoint, m->n));
  for (PetscInt a = 0; a < g->dim && BoxCells(box); a++)
    for (PetscInt d = -g->radius; d <= g->radius; d++) {
      Box      sheet = *box; /* the cells d away from the box along a */
      PetscInt i[3];
      sheet.lo[a] = d < 0 ? box->lo[a] + d : box->hi[a] - 1 + d;
      sheet.hi[a] = sheet.lo[a] + 1;
      if (!d || (sheet.lo[a] >= 0 && sheet.lo[a] < g->size[a]) || g->start[a] + sheet.lo[a] < 0 || g->start[a] + sheet.lo[a] >= g->N[a]) continue;
      for (i[2] = sheet.lo[2]; i[2] < sheet.hi[2]; i[2]++)
        for (i[1] = sheet.lo[1]; i[1] < sheet.hi[1]; i[1]++)
          for (i[0] = sheet.lo[0]; i[0] < sheet.hi[0]; i[0]++) {
            const float want = (float)(Global(g, i) + Offset(m->n, stage, adjoint)), got = f[GridPaddedIndex(g, i)];
            PetscCheck(got == want, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                       "%s stage %" PetscInt_FMT " of step %" PetscInt_FMT ": ghost (%" PetscInt_FMT ", %" PetscInt_FMT
                       ") of field %s holds %.0f, expected %.0f, what its owner wrote this stage",
                       adjoint ? "adjoint" : "forward", stage, m->n, i[0], i[1], field == FIELD_A ? "A" : "B", (double)got, (double)want);
            m->ghosts++;
          }
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode MockCreate(const Grid *g, const EquationKernels *k, const EquationStateSettings *settings, EquationState **s)
{
  PetscInt     padded[3];
  const size_t cells = GridPaddedCells(g, padded);
  Mock        *m;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&m));
  m->g = g;
  for (PetscInt a = 0; a < 3; a++) PetscCall(PetscCalloc1(cells, &m->array[a]));
  *s = (EquationState *)m;
  PetscFunctionReturn(0);
}

static PetscErrorCode MockDestroy(EquationState **s)
{
  Mock *m = MockOf(*s);

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 3; a++) PetscCall(PetscFree(m->array[a]));
  PetscCall(PetscFree(m));
  *s = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode MockSetModel(EquationState *s, const float *const value[], PetscReal dt) { return 0; }
static void          *MockLanes(const EquationState *s) { return NULL; }
static float         *MockFieldData(const EquationState *s, PetscInt k, PetscInt a, PetscInt side) { return MockOf(s)->array[k]; }
static PetscBool      MockSplitBoxes(const EquationState *s, PetscBool adjoint) { return PETSC_FALSE; }

static PetscErrorCode MockSetMethod(EquationState *s, GradientMethod method)
{
  PetscFunctionBeginUser;
  PetscCheck(method == GRADIENT_FULL, PETSC_COMM_SELF, PETSC_ERR_SUP, "the mock keeps nothing of the forward run: expected full storage");
  PetscFunctionReturn(0);
}

static PetscErrorCode MockRunBegin(EquationState *s, PetscBool adjoint, WavefieldStore store, const EquationStepPoints *points, PetscInt nsteps)
{
  return Log(s, HOOK_RUN_BEGIN, -1, adjoint, -1);
}
static PetscErrorCode MockStepBegin(EquationState *s, PetscBool adjoint, WavefieldStore store, PetscInt n, PetscInt nsteps) { return Log(s, HOOK_STEP_BEGIN, -1, adjoint, n); }
static PetscErrorCode MockStepEnd(EquationState *s, PetscBool adjoint, WavefieldStore store, PetscInt n, const EquationStepPoints *points)
{
  return Log(s, HOOK_STEP_END, -1, adjoint, n);
}

/* The adjoint's image of parameter 0: 1 + the global index. */
static PetscErrorCode MockRunEnd(EquationState *s, PetscBool adjoint, WavefieldStore store)
{
  PetscFunctionBeginUser;
  PetscCall(Log(s, HOOK_RUN_END, -1, adjoint, -1));
  if (adjoint) FillOwned(MockOf(s)->g, MockOf(s)->array[IMAGE], 1);
  PetscFunctionReturn(0);
}

/* Marks the field the stage reads across the faces, before its exchange. */
static PetscErrorCode MockStageBegin(EquationState *s, PetscInt stage, PetscBool adjoint, const EquationStepPoints *points)
{
  Mock *m = MockOf(s);

  PetscFunctionBeginUser;
  PetscCall(Log(s, HOOK_STAGE_BEGIN, stage, adjoint, m->n));
  FillOwned(m->g, m->array[StageField(stage, adjoint)], Offset(m->n, stage, adjoint));
  PetscFunctionReturn(0);
}

/* The stage stepped every box of its regions. */
static PetscErrorCode MockStageEnd(EquationState *s, PetscInt stage, PetscBool adjoint, const EquationRegions *regions)
{
  Mock *m = MockOf(s);

  PetscFunctionBeginUser;
  PetscCall(Log(s, HOOK_STAGE_END, stage, adjoint, m->n));
  PetscCheck(m->boxes == regions->n[0] + regions->n[1], PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "stage %" PetscInt_FMT ": %" PetscInt_FMT " boxes stepped, expected the regions' %" PetscInt_FMT, stage, m->boxes, regions->n[0] + regions->n[1]);
  PetscFunctionReturn(0);
}

/* Row i reads 100 n + i at step n. */
static PetscErrorCode MockRecord(EquationState *s, PetscInt c, const PointMap *map, const float remote[], float out[])
{
  const PetscInt n = MockOf(s)->n;

  PetscFunctionBeginUser;
  PetscCall(Log(s, HOOK_RECORD, -1, PETSC_FALSE, n));
  PetscCheck(c == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "record of component %" PetscInt_FMT ", expected 0", c);
  for (PetscInt i = 0; i < map->nrows; i++) out[i] = (float)(100 * n + i);
  PetscFunctionReturn(0);
}

static PetscErrorCode MockAllFinite(EquationState *s, PetscBool *finite)
{
  *finite = PETSC_TRUE;
  return 0;
}

static PetscErrorCode MockImage(EquationState *s, PetscInt k, const float **padded)
{
  PetscFunctionBeginUser;
  PetscCheck(k == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "image of parameter %" PetscInt_FMT ", expected 0 (one parameter)", k);
  *padded = MockOf(s)->array[IMAGE];
  PetscFunctionReturn(0);
}

static const EquationScheme MockScheme = {
  .create      = MockCreate,
  .destroy     = MockDestroy,
  .set_model   = MockSetModel,
  .lanes       = MockLanes,
  .field_data  = MockFieldData,
  .split_boxes = MockSplitBoxes,
  .set_method  = MockSetMethod,
  .run_begin   = MockRunBegin,
  .run_end     = MockRunEnd,
  .step_begin  = MockStepBegin,
  .stage_begin = MockStageBegin,
  .box_step    = MockBoxStep,
  .stage_end   = MockStageEnd,
  .step_end    = MockStepEnd,
  .record      = MockRecord,
  .all_finite  = MockAllFinite,
  .image       = MockImage,
};

/* Stubs where the shot layer reads nothing of the table. */
static void CellModel(PetscInt n, const float *const value[], PetscReal dt, float *out)
{
  for (PetscInt i = 0; i < n; i++) out[i] = value[0][i];
}
static PetscReal StableStep(const Grid *g, PetscReal vmax) { return g->d[0] / vmax; }
static PetscReal CellsPerWavelength(PetscInt order) { return 4; }
static void      StateBytes(const Grid *g, double *all, double *layers)
{
  PetscInt padded[3];
  *all    = 3.0 * sizeof(float) * GridPaddedCells(g, padded);
  *layers = 0;
}
static void StoreShape(const struct KernelOps *ops, const Grid *g, GradientMethod m, PetscInt nimage, PetscInt steps, size_t *n, PetscInt *nsteps, WavefieldLive *live)
{
  *n      = 0;
  *nsteps = 0;
  *live   = (WavefieldLive){0, 0, 0};
}
static double MethodBytes(const struct KernelOps *ops, const Grid *g, GradientMethod m, PetscInt nimage) { return 0; }

/* The chain rule: twice the image. */
static void Gradient(PetscInt n, const float *const model[], double *const grad[])
{
  for (PetscInt c = 0; c < n; c++) grad[0][c] *= 2;
}

/* The CPU backend's memory; the acoustic operations ride along unread. */
static PetscBool Kernels(BackendChoice backend, EquationKernels *k) { return backend == BACKEND_CPU && EquationAcoustic.kernels(BACKEND_CPU, k); }

static const EquationParameter mock_parameters[] = {{"m", "-m", "1", "mock"}};
static const EquationField     mock_fields[]     = {{"a", "read across the faces by the first stage", EQUATION_FIELD_BOX}, {"b", "read by the second", EQUATION_FIELD_BOX}};
/* As StageField: forward A then B, the adjoint B then A. */
static const EquationStage mock_stages[]     = {{"first", 1, {FIELD_A}, 1, {FIELD_B}}, {"second", 1, {FIELD_B}, 1, {FIELD_A}}};
static const EquationComponent mock_components[] = {{"p", "the mock field", -1}};

static const Equation EquationMock = {
  .name                 = "mock",
  .summary              = "two stages that mark their fields, for the shot layer's tests",
  .nparameter           = 1,
  .parameter            = mock_parameters,
  .nfield               = 2,
  .field                = mock_fields,
  .nstage               = 2,
  .stage                = mock_stages,
  .watch_field          = FIELD_A,
  .source               = "nothing",
  .source_image         = -1,
  .ncomponent           = 1,
  .component            = mock_components,
  .cell_model           = CellModel,
  .stable_step          = StableStep,
  .cells_per_wavelength = CellsPerWavelength,
  .state_bytes          = StateBytes,
  .cell_floats          = 3,
  .host_model_arrays    = 1,
  .store_shape          = StoreShape,
  .method_bytes         = MethodBytes,
  .gradient             = Gradient,
  .kernels              = Kernels,
  .scheme               = &MockScheme,
};

/* Takes the events of hook at (stage, n) from the log at *e: one, or as
   many as follow where `many` (boxes; the receivers' values for other
   ranks, then this rank's). */
static PetscErrorCode Expect(const Mock *m, PetscInt *e, Hook hook, PetscInt stage, PetscBool adjoint, PetscInt n, PetscBool many)
{
  const Event *got = *e < m->nevent ? &m->event[*e] : NULL;
  PetscInt     k   = *e;

  PetscFunctionBeginUser;
  while (k < m->nevent && (many || k == *e) && m->event[k].hook == hook && m->event[k].stage == stage && m->event[k].adjoint == adjoint && m->event[k].n == n) k++;
  PetscCheck(k > *e, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%s run, call %" PetscInt_FMT ": expected %s (stage %" PetscInt_FMT ", step %" PetscInt_FMT "), got %s (stage %" PetscInt_FMT ", step %" PetscInt_FMT ", adjoint %d)",
             adjoint ? "adjoint" : "forward", *e, hook_names[hook], stage, n, got ? hook_names[got->hook] : "the end of the run", got ? got->stage : -1, got ? got->n : -1,
             got ? (int)got->adjoint : -1);
  *e = k;
  PetscFunctionReturn(0);
}

/* The hooks of the last run in the seam's order, steps backwards in the
   adjoint, which records nothing. */
static PetscErrorCode CheckOrder(const Mock *m, PetscBool adjoint, PetscInt nsteps)
{
  PetscInt e = 0;

  PetscFunctionBeginUser;
  PetscCall(Expect(m, &e, HOOK_RUN_BEGIN, -1, adjoint, -1, PETSC_FALSE));
  for (PetscInt k = 0; k < nsteps; k++) {
    const PetscInt n = adjoint ? nsteps - 1 - k : k;
    PetscCall(Expect(m, &e, HOOK_STEP_BEGIN, -1, adjoint, n, PETSC_FALSE));
    if (!adjoint) PetscCall(Expect(m, &e, HOOK_RECORD, -1, PETSC_FALSE, n, PETSC_TRUE));
    for (PetscInt s = 0; s < EquationMock.nstage; s++) {
      PetscCall(Expect(m, &e, HOOK_STAGE_BEGIN, s, adjoint, n, PETSC_FALSE));
      PetscCall(Expect(m, &e, HOOK_BOX_STEP, s, adjoint, n, PETSC_TRUE));
      PetscCall(Expect(m, &e, HOOK_STAGE_END, s, adjoint, n, PETSC_FALSE));
    }
    PetscCall(Expect(m, &e, HOOK_STEP_END, -1, adjoint, n, PETSC_FALSE));
  }
  PetscCall(Expect(m, &e, HOOK_RUN_END, -1, adjoint, -1, PETSC_FALSE));
  PetscCheck(e == m->nevent, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s run: %" PetscInt_FMT " hook calls after run_end, expected none", adjoint ? "adjoint" : "forward", m->nevent - e);
  PetscFunctionReturn(0);
}

/* A forward run and its adjoint of one shot on a 12 x 16 grid cut along x
   over the ranks, without absorbing layers; totals[] adds the hook calls
   and the ghost cells checked. */
static PetscErrorCode CheckCase(PetscInt order, PetscBool overlap, PetscInt totals[2])
{
  const PetscInt           n[3] = {12, 16, 1}, pml[3][2] = {{0, 0}, {0, 0}, {0, 0}}, nt = 3, nrec = 5;
  const PetscReal          d[3]     = {10, 10, 10};
  const PropagatorSettings settings = {.f_pml = 15, .nan_check_interval = 50, .halo_type = HALO_HOST, .overlap = overlap};
  PetscInt                 procs[3] = {1, 1, 1}, recorded, ghosts, i[3], c;
  PetscMPIInt              size;
  EquationKernels          k;
  Grid                     g;
  Geometry                 geo;
  ShotLocal                sl;
  TimeAxis                 t;
  Propagator               p;
  float                   *model, *wavelet, *traces, *residual;
  double                  *grad;
  Mock                    *m;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  procs[1] = size;
  PetscCall(GridCreate(PETSC_COMM_WORLD, 2, n, d, order, pml, procs, &g));
  /* a stable step above dt / cfl: one internal step a sample */
  PetscCall(TimeAxisSetUp(&g, 1.0, nt, 1e-3, 0.9, &t));
  PetscCheck(t.m == 1 && t.nsteps == nt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "test set-up: expected %" PetscInt_FMT " steps without resampling", nt);
  PetscCall(GeometryRegular(2, n, d, (const PetscReal[3]){0, 0, 0}, 1, nrec, 30, 20, &geo));
  PetscCall(ShotLocalize(&g, &geo, 0, PETSC_TRUE, &sl));
  PetscCheck(EquationMock.kernels(BACKEND_CPU, &k), PETSC_COMM_SELF, PETSC_ERR_PLIB, "no CPU backend, expected one in every build");
  PetscCall(PetscCalloc5(g.size[0] * g.size[1], &model, t.nsteps, &wavelet, sl.nrec * nt + 1, &traces, sl.nreach * nt + 1, &residual, g.size[0] * g.size[1], &grad));
  PetscCall(PropagatorCreate(&g, &EquationMock, &k, (const float *const[]){model}, 2000, &t, &settings, &p));
  m = MockOf(p.state);

  PetscCall(PropagatorRun(&p, &t, &sl, 0, wavelet, traces, NULL));
  PetscCall(CheckOrder(m, PETSC_FALSE, t.nsteps));
  for (PetscInt r = 0; r < sl.nrec; r++)
    for (PetscInt s = 0; s < nt; s++)
      PetscCheck(traces[r * nt + s] == 100 * s + r, PETSC_COMM_SELF, PETSC_ERR_PLIB, "trace %" PetscInt_FMT " sample %" PetscInt_FMT ": %g, expected %" PetscInt_FMT, r, s,
                 (double)traces[r * nt + s], 100 * s + r);
  PetscCallMPI(MPI_Allreduce(&sl.nrec, &recorded, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCheck(recorded == nrec, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " receivers recorded over the ranks, expected %" PetscInt_FMT, recorded, nrec);

  for (PetscInt single = 0; single < 2; single++) { /* the image summed exactly, and alone (PropagatorGradientReset) */
    PetscCall(PropagatorGradientReset(&p, single ? PETSC_TRUE : PETSC_FALSE));
    PetscCall(PropagatorAdjoint(&p, &t, &sl, 0, wavelet, residual, NULL));
    PetscCall(CheckOrder(m, PETSC_TRUE, t.nsteps));
    PetscCall(PropagatorGradientReduce(&p, PETSC_COMM_SELF)); /* one group */
    PetscCall(PropagatorGradient(&p, (const float *const[]){model}, (double *const[]){grad}));
    c = 0;
    for (i[2] = 0; i[2] < g.size[2]; i[2]++)
      for (i[1] = 0; i[1] < g.size[1]; i[1]++)
        for (i[0] = 0; i[0] < g.size[0]; i[0]++, c++)
          PetscCheck(grad[c] == 2.0 * (1 + Global(&g, i)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: gradient at global cell %" PetscInt_FMT ": %g, expected twice the image, %g",
                     single ? "one image alone" : "the exact sum", Global(&g, i), grad[c], 2.0 * (1 + Global(&g, i)));
  }

  PetscCallMPI(MPI_Allreduce(&m->ghosts, &ghosts, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCheck(size == 1 || ghosts > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "order %" PetscInt_FMT ": no neighbour's ghost cell checked on %d ranks, expected some", order, (int)size);
  totals[0] += m->calls;
  totals[1] += ghosts;
  PetscCall(PropagatorDestroy(&p));
  PetscCall(ShotLocalDestroy(&sl));
  PetscCall(GeometryDestroy(&geo));
  PetscCall(GridDestroy(&g));
  PetscCall(PetscFree5(model, wavelet, traces, residual, grad));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt totals[2] = {0, 0};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(EventsRegister());
  for (PetscInt order = 2; order <= 4; order += 2)
    for (PetscInt overlap = 0; overlap < 2; overlap++) PetscCall(CheckCase(order, overlap ? PETSC_TRUE : PETSC_FALSE, totals));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &totals[0], 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_scheme: %" PetscInt_FMT " hook calls, %" PetscInt_FMT " ghost cells checked, all checks passed\n", totals[0], totals[1]));
  PetscCall(PetscFinalize());
  return 0;
}
