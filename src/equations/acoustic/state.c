/* The acoustic state on one rank (state.h): making it, its model, and what
   the shot layer reads of it (the EquationScheme hooks other than the
   step's, which are scheme.c's). */
#include "equations/acoustic/state.h"
#include "data/util.h"

PetscErrorCode AcousticStateCreate(const Grid *g, const EquationKernels *k, const EquationStateSettings *settings, EquationState **out)
{
  AcousticState *a;
  Fields        *f;
  float         *host;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&a));
  f             = &a->f;
  a->ops        = k->ops;
  a->grid       = g;
  a->method     = GRADIENT_FULL;
  a->skip_quiet = settings->skip_quiet;
  FieldsOfGrid(g, f);
  f->gpu_tile = settings->gpu_tile;
  {
    double bytes, layers;
    FieldsBytes(f, &bytes, &layers);
    MemoryCall(a->ops->alloc(f), "the wavefields", bytes);
  }
  PetscCall(PetscMalloc1(3 * (size_t)PetscMax(f->padded[0], PetscMax(f->padded[1], f->padded[2])), &host));
  for (PetscInt ax = 0; ax < g->dim; ax++) {
    float *pa = host, *pb = host + f->padded[ax], *pda = host + 2 * f->padded[ax];
    PetscCall(GridLayerProfile(g, ax, settings->vmax, settings->f_pml, settings->dt, pa, pb, pda));
    PetscCall(a->ops->backend->mem_upload(f->pml_a[ax], pa, f->padded[ax] * sizeof(float)));
    PetscCall(a->ops->backend->mem_upload(f->pml_b[ax], pb, f->padded[ax] * sizeof(float)));
    PetscCall(a->ops->backend->mem_upload(f->pml_da[ax], pda, f->padded[ax] * sizeof(float)));
  }
  PetscCall(PetscFree(host));
  *out = (EquationState *)a;
  PetscFunctionReturn(0);
}

PetscErrorCode AcousticStateDestroy(EquationState **s)
{
  AcousticState *a = AcousticStateOf(*s);

  PetscFunctionBeginUser;
  if (!a) PetscFunctionReturn(0);
  PetscCall(a->ops->free(&a->f));
  if (a->f.grad) PetscCall(a->ops->backend->mem_free((void **)&a->f.grad));
  PetscCall(ReconstructionDestroy(a));
  PetscCall(PetscFree(a->host_vdt2));
  PetscCall(PetscFree(a));
  *s = NULL;
  PetscFunctionReturn(0);
}

/* v^2 dt^2 (EquationAcoustic.cell_model) in the padded layout, its padding 0. */
PetscErrorCode AcousticStateSetModel(EquationState *s, const float *const value[], PetscReal dt)
{
  AcousticState *a = AcousticStateOf(s);
  Fields        *f = &a->f;
  float         *to;

  PetscFunctionBeginUser;
  PetscCall(EquationModelTarget(a->ops->backend, f->vdt2, &a->host_vdt2, f->ncells, &to));
#pragma omp parallel for collapse(2) schedule(static)
  for (PetscInt k = 0; k < f->n[2]; k++)
    for (PetscInt j = 0; j < f->n[1]; j++) {
      const PetscInt     row[3] = {0, j, k};
      const float *const rows[1] = {&value[0][f->n[0] * (j + f->n[1] * k)]};
      EquationAcoustic.cell_model(f->n[0], rows, dt, &to[FieldsIndex(f, row)]);
    }
  PetscCall(EquationModelSend(a->ops->backend, f->vdt2, to, f->ncells));
  PetscFunctionReturn(0);
}

void *AcousticStateLanes(const EquationState *s) { return AcousticStateOfConst(s)->f.backend; }

float *AcousticStateField(const EquationState *s, PetscInt k, PetscInt ax, PetscInt side)
{
  const Fields *f = &AcousticStateOfConst(s)->f;

  switch (k) {
  case ACOUSTIC_U:
    return f->u;
  case ACOUSTIC_FU:
    return f->fu;
  case ACOUSTIC_PSI:
    return f->slab[ax][side].psi;
  case ACOUSTIC_ZETA:
    return f->slab[ax][side].zeta;
  }
  return NULL;
}

PetscErrorCode AcousticStateForward(const EquationState *s, PetscInt *n, float *data[], size_t count[])
{
  const Fields *f = &AcousticStateOfConst(s)->f;

  *n = 0;
#define ACOUSTIC_STATE_ARRAY(x, c) EquationStateArray(n, data, count, x, c)
  FIELDS_STATE_ARRAYS(f, ACOUSTIC_STATE_ARRAY);
#undef ACOUSTIC_STATE_ARRAY
  return 0;
}

PetscBool AcousticStateSplitBoxes(const EquationState *s, PetscBool adjoint) { return KernelOpsSplitBoxes(AcousticStateOfConst(s)->ops, adjoint); }

PetscErrorCode AcousticStateSetMethod(EquationState *s, GradientMethod m)
{
  AcousticState *a = AcousticStateOf(s);

  PetscFunctionBeginUser;
  PetscCheck(m == GRADIENT_FULL || m == GRADIENT_BOUNDARY, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Gradient method %s: expected full or boundary", GradientMethods[m]);
  a->method = m;
  PetscCall(ReconstructionSetUp(a, m));
  PetscFunctionReturn(0);
}

/* One component, the pressure u. */
PetscErrorCode AcousticStateRecord(EquationState *s, PetscInt c, const PointMap *map, const float remote[], float out[])
{
  AcousticState *a = AcousticStateOf(s);

  PetscFunctionBeginUser;
  PetscCheck(c == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "acoustic receivers record component 0 (p), not %" PetscInt_FMT, c);
  PetscCall(a->ops->record(&a->f, map, remote, out));
  PetscFunctionReturn(0);
}

PetscErrorCode AcousticStateAllFinite(EquationState *s, PetscBool *finite)
{
  AcousticState *a = AcousticStateOf(s);

  return a->ops->all_finite(&a->f, finite);
}

PetscErrorCode AcousticStateImage(EquationState *s, PetscInt k, const float **padded)
{
  AcousticState *a = AcousticStateOf(s);

  PetscFunctionBeginUser;
  PetscCheck(k == 0 && a->f.grad, PETSC_COMM_SELF, PETSC_ERR_ORDER, "the acoustic image of parameter %" PetscInt_FMT ": only vp's (0), after an adjoint run", k);
  *padded = a->f.grad;
  PetscFunctionReturn(0);
}

PetscErrorCode AcousticStateReport(const EquationState *s, MPI_Comm comm)
{
  const AcousticState *a       = AcousticStateOfConst(s);
  const Fields        *f       = &a->f;
  double               mine[4] = {(double)f->parts_left[0], (double)f->parts_left[1], (double)a->quiet_steps[0], (double)a->quiet_steps[1]}, all[4];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(mine, all, 4, MPI_DOUBLE, MPI_SUM, comm));
  if (all[1] > 0)
    PetscCall(PetscPrintf(comm,
                          "adjoint: %.1f%% of its steps of %d-cell row parts left as they were, their stencils reading only zeros (-adjoint_skip_quiet), "
                          "over the %.0f%% of its steps that looked for them (from the run's last step back, until a step left under %.0f%%)\n",
                          100 * all[0] / all[1], FIELDS_QUIET_CELLS, 100 * all[2] / PetscMax(all[3], 1), 100 * ACOUSTIC_QUIET_SHARE_MIN));
  PetscFunctionReturn(0);
}

