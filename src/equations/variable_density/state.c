/* The variable-density state on one rank and its scheme (state.h): the
   leapfrog of the first-order pressure-velocity system,

     stage 0:  v_a^{n+1/2} = v_a^{n-1/2} - dt b_a d_a p^n     (halos of p)
     stage 1:  p^{n+1}     = p^n - K dt sum_a d_a v_a^{n+1/2}  (halos of v)

   then the source's volume injection into p and the free surface; the
   adjoint's parts in adjoint.c. */
#include "equations/variable_density/kernels.h"
#include "data/util.h"
#include "equations/subnormals.h"
#include "equations/store.h"
#include "equations/staggered_cpu.h"

#define VD_ARRAYS(s, X) \
  do { \
    X((s)->p); \
    X((s)->kdt); \
    X((s)->bdt); \
    for (PetscInt a_ = 0; a_ < (s)->dim; a_++) X((s)->v[a_]); \
  } while (0)
/* The CPML memories, each over its axis's slab. */
#define VD_MEMORIES(s, X) \
  for (PetscInt a_ = 0; a_ < (s)->dim; a_++) { \
    X((s)->psi_p[a_], (s)->slab[a_].ncells); \
    X((s)->psi_v[a_], (s)->slab[a_].ncells); \
  }

static PetscErrorCode Create(const Grid *g, const EquationKernels *k, const EquationStateSettings *settings, EquationState **out)
{
  VDState *s;

  PetscFunctionBeginUser;
  FlushSubnormals();
  PetscCall(PetscNew(&s));
  s->grid          = g;
  s->ops           = (const VDKernels *)k->ops;
  s->backend       = k->backend;
  s->dim           = g->dim;
  s->radius        = g->radius;
  s->dt            = settings->dt;
  s->density_image = EquationImages(&EquationVariableDensity, settings->nimage) > 1 ? PETSC_TRUE : PETSC_FALSE;
  StaggeredBlockGeometry(g, s->n, s->padded, s->stride, &s->ncells, s->free_surface, s->w);
  PetscCall(StaggeredProfilesCreate(g, s->backend, settings, s->pa, s->pb, s->ha, s->hb, s->plain, s->slab));
  /* a stencil reaches R cells: those R or more inside the plain range read only cells whose d would be the field */
  for (PetscInt k = 0; k < 2; k++)
    for (PetscInt a = 0; a < s->dim; a++) {
      const PetscInt *p = s->plain[a][k];
      s->direct[k][a][0] = p[0] + s->radius;
      s->direct[k][a][1] = PetscMax(p[0], p[1] - s->radius - s->radius) + s->radius;
    }
  {
    double all, layers;
    EquationVariableDensity.state_bytes(g, &all, &layers);
#define VD_ALLOC_N(x, n) MemoryCall(s->backend->mem_alloc((void **)&(x), (n) * sizeof(float)), "the wavefields", all)
#define VD_ALLOC(x)      VD_ALLOC_N(x, s->ncells)
    VD_ARRAYS(s, VD_ALLOC);
    VD_MEMORIES(s, VD_ALLOC_N);
#undef VD_ALLOC
#undef VD_ALLOC_N
  }
  PetscCall(PetscCalloc1(StaggeredNoMemoryFloats(s->padded[0]), &s->psi_none));
  PetscCall(s->ops->lanes_create(s, &settings->gpu_tile));
  *out = (EquationState *)s;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy(EquationState **state)
{
  VDState *s = VDStateOf(*state);

  PetscFunctionBeginUser;
  if (!s) PetscFunctionReturn(0);
#define VD_FREE(x)      PetscCall(s->backend->mem_free((void **)&(x)))
#define VD_FREE_N(x, n) VD_FREE(x)
  VD_ARRAYS(s, VD_FREE);
  VD_MEMORIES(s, VD_FREE_N);
#undef VD_FREE
#undef VD_FREE_N
  PetscCall(PetscFree(s->psi_none));
  PetscCall(StaggeredProfilesDestroy(s->dim, s->backend, s->pa, s->pb, s->ha, s->hb));
  for (PetscInt k = 0; k < 2; k++) PetscCall(PetscFree(s->host_model[k]));
  PetscCall(VDAdjointFree(s));
  PetscCall(VDReconstructionDestroy(s));
  PetscCall(StaggeredPairDestroy(&s->pair));
  PetscCall(VDAdjointReversePairFree(s));
  PetscCall(s->ops->lanes_destroy(s));
  PetscCall(PetscFree(s));
  *state = NULL;
  PetscFunctionReturn(0);
}

/* K dt = rho vp^2 dt and dt / rho at the centres; dt / rho also in every
   ghost, from the nearest owned cell, for the faces at the block's edge
   (where a neighbour lies the shot layer then puts its values there). */
static PetscErrorCode SetModel(EquationState *state, const float *const value[], PetscReal dt)
{
  VDState       *s = VDStateOf(state);
  const Grid    *g = s->grid;
  const PetscInt R = s->radius;
  float *const   dev[2] = {s->kdt, s->bdt};
  float         *h[2];

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 2; k++) PetscCall(EquationModelTarget(s->backend, dev[k], &s->host_model[k], s->ncells, &h[k]));
  STAGGERED_EACH_PADDED_CELL(s->padded, s->stride, R, s->dim, g->size, {
    const double vp = value[0][cell], rho = value[1][cell];
    h[0][c]         = owned ? (float)(rho * vp * vp * dt) : 0.0f;
    h[1][c]         = (float)(dt / rho);
  });
  for (PetscInt k = 0; k < 2; k++) PetscCall(EquationModelSend(s->backend, dev[k], h[k], s->ncells));
  PetscFunctionReturn(0);
}

static void *Lanes(const EquationState *s) { return ((const VDState *)s)->lanes; }

static float *FieldData(const EquationState *state, PetscInt k, PetscInt a, PetscInt side)
{
  const VDState *s = (const VDState *)state;

  switch (k) {
  case VD_P:
    return s->p;
  case VD_VZ:
  case VD_VX:
  case VD_VY:
    return k - VD_VZ < s->dim ? s->v[k - VD_VZ] : NULL;
  case VD_BDT:
    return s->bdt;
  case VD_DZ:
  case VD_DX:
  case VD_DY:
    return k - VD_DZ < s->dim ? s->d[k - VD_DZ] : NULL;
  case VD_IZ:
  case VD_IX:
  case VD_IY:
    return k - VD_IZ < s->dim ? s->image_b[k - VD_IZ] : NULL;
  case VD_FP:
    return s->rec.p;
  case VD_FVZ:
  case VD_FVX:
  case VD_FVY:
    return k - VD_FVZ < s->dim ? s->rec.v[k - VD_FVZ] : NULL;
  }
  return NULL;
}

/* The fields and the CPML memories. */
static PetscErrorCode ForwardState(const EquationState *state, PetscInt *n, float *data[], size_t count[])
{
  const VDState *s = (const VDState *)state;

  *n = 0;
  EquationStateArray(n, data, count, s->p, s->ncells);
  for (PetscInt a = 0; a < s->dim; a++) EquationStateArray(n, data, count, s->v[a], s->ncells);
#define VD_STATE_ARRAY(x, c) EquationStateArray(n, data, count, x, c)
  VD_MEMORIES(s, VD_STATE_ARRAY);
#undef VD_STATE_ARRAY
  return 0;
}

static PetscBool SplitBoxes(const EquationState *s, PetscBool adjoint) { return PETSC_FALSE; }

static PetscErrorCode SetMethod(EquationState *state, GradientMethod m)
{
  VDState *s = VDStateOf(state);

  PetscFunctionBeginUser;
  PetscCheck(m == GRADIENT_FULL || m == GRADIENT_BOUNDARY, PETSC_COMM_SELF, PETSC_ERR_SUP, "The variable-density equation's gradient methods are full and boundary, not %s", GradientMethods[m]);
  s->method = m;
  PetscCall(VDReconstructionSetUp(s, m));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunBegin(EquationState *state, PetscBool adjoint, WavefieldStore store, const EquationStepPoints *points, PetscInt nsteps)
{
  VDState *s = VDStateOf(state);

  PetscFunctionBeginUser;
  if (adjoint) PetscCall(VDAdjointRunBegin(s, store));
  if (adjoint && s->method == GRADIENT_BOUNDARY) VDReconstructionStart(s);
  if (!adjoint) PetscCall(FieldSupportStart(&s->rec.support, s->grid, store && s->method == GRADIENT_BOUNDARY && s->backend->host_memory, 2, nsteps, points->src));
  PetscCall(StaggeredPairDestroy(&s->pair)); /* built for the last run's maps */
  PetscCall(VDAdjointReversePairFree(s));
#define VD_ZERO_N(x, n) PetscCall(s->backend->mem_zero(s->lanes, (x), (n) * sizeof(float)))
#define VD_ZERO(x)      VD_ZERO_N(x, s->ncells)
  VD_ZERO(s->p);
  for (PetscInt a = 0; a < s->dim; a++) VD_ZERO(s->v[a]);
  VD_MEMORIES(s, VD_ZERO_N);
#undef VD_ZERO
#undef VD_ZERO_N
  PetscCall(PetscArrayzero(s->psi_none, StaggeredNoMemoryFloats(s->padded[0])));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunEnd(EquationState *state, PetscBool adjoint, WavefieldStore store)
{
  VDState *s = VDStateOf(state);

  PetscFunctionBeginUser;
  if (!adjoint && store && s->method == GRADIENT_BOUNDARY) PetscCall(FieldSupportJoin(&s->rec.support, s->grid));
  PetscFunctionReturn(0);
}

/* Forward step n writes its terms into the store's slot n (the boundary
   method: the band of the fields it starts from); reverse step n reads
   them. */
static PetscErrorCode StepBegin(EquationState *state, PetscBool adjoint, WavefieldStore store, PetscInt n, PetscInt nsteps)
{
  VDState *s = VDStateOf(state);

  PetscFunctionBeginUser;
  if (adjoint) PetscCall(VDAdjointStepBegin(s, store, n));
  else if (store && s->method == GRADIENT_BOUNDARY) PetscCall(VDReconstructionSave(s, store, n));
  else if (store) PetscCall(WavefieldStoreWriteBegin(store, n, &s->keep));
  PetscFunctionReturn(0);
}

/* The free surface lies on the first (side 0) or last (side 1) cell centre
   of its axis, where p = 0: p is odd about it, so the pressure's ghosts
   mirror it with the sign changed (before stage 0) and the normal velocity,
   odd p's derivative being even, mirrors without (before stage 1): the
   node at i + 1/2 takes that at -(i + 1/2) (side 0) or 2 (n - 1) - (i + 1/2)
   (side 1, from the node past the surface, n - 1: every node beyond the
   surface is a mirror, on both sides, which makes the adjoint's mirrors
   those of the forward). */
static PetscErrorCode StageBegin(EquationState *state, PetscInt stage, PetscBool adjoint, const EquationStepPoints *points)
{
  VDState     *s    = VDStateOf(state);
  float *const p[3] = {s->p, s->p, s->p};

  PetscFunctionBeginUser;
  if (adjoint) PetscCall(VDAdjointStageBegin(s, stage, points));
  else if (stage == 0) PetscCall(s->ops->surface(s, STAGGERED_MIRROR_CENTRES, p));
  else PetscCall(s->ops->surface(s, STAGGERED_MIRROR_NODES, s->v));
  PetscFunctionReturn(0);
}

static PetscErrorCode BoxStep(EquationState *state, PetscInt stage, PetscBool adjoint, const Box *box)
{
  VDState        *s    = VDStateOf(state);
  const PetscBool back = adjoint && s->method == GRADIENT_BOUNDARY;

  PetscFunctionBeginUser;
  if (stage == 0) PetscCall(s->ops->velocity(s, box, adjoint));
  else PetscCall(s->ops->pressure(s, box, adjoint));
  if (back && stage == 0) PetscCall(s->ops->reconstruct_pressure(s, box));
  if (back && stage == 1) PetscCall(s->ops->reconstruct_velocity(s, box));
  PetscFunctionReturn(0);
}

static PetscErrorCode StageEnd(EquationState *s, PetscInt stage, PetscBool adjoint, const EquationRegions *regions) { return 0; }

/* Whether the backend sweeps the forward stages at once here
   (StaggeredSweepable). */
static PetscBool Sweeps(const VDState *s) { return s->ops->fused_forward && StaggeredSweepable(s->dim, s->free_surface); }

/* Where the backend sweeps a step's stages at once: forward, stage 0's
   StageBegin, then the sweep; adjoint, what comes before the sweep, then
   the sweep. */
static PetscErrorCode FusedStages(EquationState *state, PetscBool adjoint, const EquationStepPoints *points, PetscBool *done)
{
  VDState *s = VDStateOf(state);

  PetscFunctionBeginUser;
  *done = PETSC_FALSE;
  if (!Sweeps(s) || (adjoint && !s->ops->fused_adjoint)) PetscFunctionReturn(0);
  if (adjoint) {
    PetscCall(VDAdjointSweepBegin(s, points));
    PetscCall(s->ops->fused_adjoint(s, NULL));
  } else {
    PetscCall(StageBegin(state, 0, PETSC_FALSE, points));
    PetscCall(s->ops->fused_forward(s, NULL));
  }
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Two forward steps in one sweep (staggered_pair.h): step n's stage 0
   StageBegin, the sweep, then step n + 1's records from the values it
   kept.  A store keeps the boundary method's bands of step n + 1's start,
   layer by layer; full storage's terms are formed stage by stage (one
   step a sweep). */
static PetscErrorCode FusedSteps(EquationState *state, WavefieldStore store, PetscInt n, const EquationStepPoints points[2], PetscInt nrecord, const EquationRecording next[],
                                 PetscBool *done)
{
  VDState *s = VDStateOf(state);

  PetscFunctionBeginUser;
  *done = PETSC_FALSE;
  if (!Sweeps(s) || s->dim != 2) PetscFunctionReturn(0); /* in 3D slower (docs/numerics.md) */
  if (store && s->method != GRADIENT_BOUNDARY) PetscFunctionReturn(0);
  if (store && s->rec.support.nlevel && n % 2) PetscFunctionReturn(0); /* the support boxes' levels (FieldSupportStart) */
  PetscCall(StaggeredPairPrepare(&s->pair, StaggeredLayersOf(s->dim, s->radius, s->n, s->stride), &points[0], nrecord, next, VDKdtAt, s, done));
  if (!*done) PetscFunctionReturn(0);
  if (store) PetscCall(VDReconstructionKeepBegin(s, s->pair, store, n + 1));
  PetscCall(StageBegin(state, 0, PETSC_FALSE, &points[0]));
  PetscCall(s->ops->fused_forward(s, s->pair));
  PetscCall(StaggeredPairKeepEnd(s->pair, store, n + 1));
  StaggeredPairRecords(s->pair, next);
  PetscFunctionReturn(0);
}

/* The source's volume injection, p += K dt q (q: the injected volume rate
   per unit volume, the wavelet times PointMap's weights over the cell
   volume), then p = 0 on free surfaces. */
static PetscErrorCode StepEnd(EquationState *state, PetscBool adjoint, WavefieldStore store, PetscInt n, const EquationStepPoints *points)
{
  VDState     *s    = VDStateOf(state);
  float *const p[3] = {s->p, s->p, s->p};

  PetscFunctionBeginUser;
  if (adjoint) PetscCall(VDAdjointStepEnd(s, store, n, points));
  else {
    PetscCall(s->ops->inject(s, s->p, PETSC_FALSE, points->src, points->wav));
    PetscCall(s->ops->surface(s, STAGGERED_ZERO_SURFACE, p));
    if (store && s->method == GRADIENT_BOUNDARY) VDSupportGrow(s, n);
    if (s->keep) PetscCall(WavefieldStoreWriteEnd(store, n));
    s->keep = NULL;
  }
  PetscFunctionReturn(0);
}

/* Two reverse steps in one sweep where the backend sweeps them
   (VDAdjointReversePair says where else). */
static PetscErrorCode ReversePair(EquationState *state, WavefieldStore store, PetscInt n, const EquationStepPoints points[2], PetscBool *done)
{
  VDState *s = VDStateOf(state);

  PetscFunctionBeginUser;
  *done = PETSC_FALSE;
  if (Sweeps(s) && s->ops->fused_adjoint) PetscCall(VDAdjointReversePair(s, store, n, points, done));
  PetscFunctionReturn(0);
}

/* Component 0, the pressure, or c = 1 + a, the velocity along axis a (the
   map placed at its nodes). */
static PetscErrorCode Record(EquationState *state, PetscInt c, const PointMap *m, const float remote[], float out[])
{
  VDState *s = VDStateOf(state);

  PetscFunctionBeginUser;
  PetscCheck(c >= 0 && c <= s->dim, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "variable-density receivers record components 0 (p) to %" PetscInt_FMT ", not %" PetscInt_FMT, s->dim, c);
  PetscCall(s->ops->record(s, c ? s->v[c - 1] : s->p, m, remote, out));
  PetscFunctionReturn(0);
}

static PetscErrorCode AllFinite(EquationState *state, PetscBool *finite) { return VDStateOf(state)->ops->all_finite(VDStateOf(state), finite); }

static PetscErrorCode Image(EquationState *s, PetscInt k, const float **padded) { return VDAdjointImage(VDStateOf(s), k, padded); }

const EquationScheme VariableDensityScheme = {
  .create      = Create,
  .destroy     = Destroy,
  .set_model   = SetModel,
  .lanes       = Lanes,
  .field_data  = FieldData,
  .forward_state = ForwardState,
  .split_boxes = SplitBoxes,
  .set_method  = SetMethod,
  .run_begin   = RunBegin,
  .run_end     = RunEnd,
  .step_begin  = StepBegin,
  .stage_begin = StageBegin,
  .box_step    = BoxStep,
  .stage_end   = StageEnd,
  .step_end    = StepEnd,
  .record      = Record,
  .all_finite  = AllFinite,
  .image       = Image,
  .fused_stages = FusedStages,
  .fused_steps  = FusedSteps,
  .reverse_pair = ReversePair,
};
