/* The elastic state on one rank and its scheme (state.h): the leapfrog of
   the velocity-stress system,

     stage 0:  v_a^{n+1/2} = v_a^{n-1/2} + dt b_a sum_b d_b sigma_ab^n          (halos of the stresses)
     stage 1:  sigma^{n+1} = sigma^n + dt (lambda tr(eps) I + 2 mu eps)(v^{n+1/2})  (halos of v)

   then the source's injection and the free surface; the adjoint's parts
   in adjoint.c. */
#include "equations/elastic/kernels.h"
#include "data/util.h"
#include "equations/store.h"
#include "equations/subnormals.h"
#include "equations/staggered_cpu.h"
#include <math.h>

/* Every array of the padded box the state holds, what the memory check
   names them by and their count. */
#define EL_ARRAYS(s, X) \
  do { \
    X((s)->bdt); \
    X((s)->ldt); \
    X((s)->mdt); \
    X((s)->cdt); \
    for (PetscInt a_ = 0; a_ < (s)->dim; a_++) { \
      X((s)->v[a_]); \
      X((s)->s[a_]); \
    } \
    for (PetscInt p_ = 0; p_ < ELPairs((s)->dim); p_++) X((s)->t[p_]); \
    for (PetscInt a_ = 0; a_ + 1 < (s)->dim; a_++) X((s)->csum[a_]); \
  } while (0)

/* The CPML memories, each over ELMemoryCells. */
#define EL_MEMORIES(s, X) \
  for (PetscInt a_ = 0; a_ < (s)->dim; a_++) \
    for (PetscInt b_ = 0; b_ < (s)->dim; b_++) { \
      X((s)->psi_v[a_][b_], ELMemoryCells(s, b_)); \
      X((s)->psi_s[a_][b_], ELMemoryCells(s, b_)); \
    }

/* The free surface's narrowed stencils' weights (state.h: ELWeights), and
   the surface rank's 2 R cells along the axis that they and their
   transposes reach. */
static PetscErrorCode NarrowedWeights(const Grid *g, ELState *s)
{
  const PetscInt R = g->radius;
  double         c[FWI_MAX_RADIUS + 1];

  PetscFunctionBeginUser;
  PetscCall(GridCheckSurfaceDepth(g, 2 * R, "-physics elastic: the stress stencils narrow under the surface, and their transposes reach twice the stencil radius into it"));
  for (PetscInt a = 0; a < g->dim; a++)
    for (PetscInt r = 1; r < R; r++) {
      StaggeredWeights(r, c);
      for (PetscInt m = 1; m <= FWI_MAX_RADIUS; m++) s->wn[a][r][m] = m <= r ? (float)(c[m] / g->d[a]) : 0.0f;
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode Create(const Grid *g, const EquationKernels *k, const EquationStateSettings *settings, EquationState **out)
{
  ELState *s;

  PetscFunctionBeginUser;
  FlushSubnormals();
  PetscCall(PetscNew(&s));
  s->grid        = g;
  s->ops         = (const ELKernels *)k->ops;
  s->backend     = k->backend;
  s->dim         = g->dim;
  s->radius      = g->radius;
  s->dt          = settings->dt;
  s->source_kind = settings->source_kind;
  s->nimage      = EquationImages(&EquationElastic, settings->nimage);
  for (PetscInt a = 0; a < 3; a++) s->last[a] = a < g->dim && g->start[a] + g->size[a] == g->N[a];
  StaggeredBlockGeometry(g, s->n, s->padded, s->stride, &s->ncells, s->free_surface, s->w);
  PetscCall(NarrowedWeights(g, s));
  PetscCall(StaggeredProfilesCreate(g, s->backend, settings, s->pa, s->pb, s->ha, s->hb, s->plain, s->slab));
  {
    double all, layers;
    EquationElastic.state_bytes(g, &all, &layers);
#define EL_ALLOC_N(x, n) MemoryCall(s->backend->mem_alloc((void **)&(x), (n) * sizeof(float)), "the wavefields", all)
#define EL_ALLOC(x)      EL_ALLOC_N(x, s->ncells)
    EL_ARRAYS(s, EL_ALLOC);
    EL_MEMORIES(s, EL_ALLOC_N);
#undef EL_ALLOC
#undef EL_ALLOC_N
  }
  PetscCall(PetscCalloc1(StaggeredNoMemoryFloats(s->padded[0]), &s->psi_none));
  PetscCall(s->ops->lanes_create(s, &settings->gpu_tile));
  *out = (EquationState *)s;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy(EquationState **state)
{
  ELState *s = ELStateOf(*state);

  PetscFunctionBeginUser;
  if (!s) PetscFunctionReturn(0);
#define EL_FREE(x)      PetscCall(s->backend->mem_free((void **)&(x)))
#define EL_FREE_N(x, n) EL_FREE(x)
  EL_ARRAYS(s, EL_FREE);
  EL_MEMORIES(s, EL_FREE_N);
#undef EL_FREE
#undef EL_FREE_N
  PetscCall(PetscFree(s->psi_none));
  PetscCall(StaggeredProfilesDestroy(s->dim, s->backend, s->pa, s->pb, s->ha, s->hb));
  for (PetscInt k = 0; k < 4; k++) PetscCall(PetscFree(s->host_model[k]));
  PetscCall(ELAdjointFree(s));
  PetscCall(ELReconstructionDestroy(s));
  PetscCall(StaggeredPairDestroy(&s->pair));
  PetscCall(ELAdjointReversePairFree(s));
  PetscCall(s->ops->lanes_destroy(s));
  PetscCall(PetscFree(s));
  *state = NULL;
  PetscFunctionReturn(0);
}

/* dt / rho, lambda dt, mu dt and 1 / (mu dt) at the centres (lambda = rho
   (vp^2 - 2 vs^2), mu = rho vs^2), over the padded box: each ghost takes
   its nearest owned cell's, for the faces and edges at the block's edge
   (where a neighbour lies the shot layer then puts its values there). */
static PetscErrorCode SetModel(EquationState *state, const float *const value[], PetscReal dt)
{
  ELState       *s = ELStateOf(state);
  const Grid    *g = s->grid;
  const PetscInt R = s->radius;
  float *const   dev[4] = {s->bdt, s->ldt, s->mdt, s->cdt};
  float         *h[4];

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 4; k++) PetscCall(EquationModelTarget(s->backend, dev[k], &s->host_model[k], s->ncells, &h[k])); /* the rows' ends past the padded box stay 0 */
  STAGGERED_EACH_PADDED_CELL(s->padded, s->stride, R, s->dim, g->size, {
    const double vp = value[0][cell], vs = value[1][cell], rho = value[2][cell], mu = rho * vs * vs;
    h[0][c]         = (float)(dt / rho);
    h[1][c]         = (float)((rho * vp * vp - 2 * mu) * dt);
    h[2][c]         = (float)(mu * dt);
    h[3][c]         = mu > 0 ? (float)(1.0 / (mu * dt)) : INFINITY;
  });
  for (PetscInt k = 0; k < 4; k++) PetscCall(EquationModelSend(s->backend, dev[k], h[k], s->ncells));
  PetscFunctionReturn(0);
}

static PetscErrorCode DeriveModel(EquationState *s) { return ELStateOf(s)->ops->derive_model(ELStateOf(s)); }

static void *Lanes(const EquationState *s) { return ((const ELState *)s)->lanes; }

static float *FieldData(const EquationState *state, PetscInt k, PetscInt a, PetscInt side)
{
  const ELState *s = (const ELState *)state;

  if (k >= EL_VZ && k <= EL_VY) return k - EL_VZ < s->dim ? s->v[k - EL_VZ] : NULL;
  if (k >= EL_SZZ && k <= EL_SYY) return k - EL_SZZ < s->dim ? s->s[k - EL_SZZ] : NULL;
  if (k >= EL_SZX && k <= EL_SXY) return k - EL_SZX < ELPairs(s->dim) ? s->t[k - EL_SZX] : NULL;
  if (k >= EL_CSZ && k <= EL_CSX) return k - EL_CSZ + 1 < s->dim ? s->csum[k - EL_CSZ] : NULL;
  if (k == EL_BDT) return s->bdt;
  if (k == EL_CDT) return s->cdt;
  if (k >= EL_OP && k < EL_IB) return (k - EL_OP) / 3 < s->dim && (k - EL_OP) % 3 < s->dim ? s->op[(k - EL_OP) / 3][(k - EL_OP) % 3] : NULL;
  if (k >= EL_IB && k < EL_IE) return k - EL_IB < s->dim ? s->img_b[k - EL_IB] : NULL;
  if (k >= EL_IE && k < EL_FR) return k - EL_IE < ELPairs(s->dim) ? s->img_e[k - EL_IE] : NULL;
  if (k >= EL_FR && k < EL_NFIELD) return s->rec ? s->rec->f[k - EL_FR] : NULL;
  return NULL;
}

/* The fields and the CPML memories. */
static PetscErrorCode ForwardState(const EquationState *state, PetscInt *n, float *data[], size_t count[])
{
  const ELState *s = (const ELState *)state;

  *n = 0;
  for (PetscInt a = 0; a < s->dim; a++) {
    EquationStateArray(n, data, count, s->v[a], s->ncells);
    EquationStateArray(n, data, count, s->s[a], s->ncells);
  }
  for (PetscInt k = 0; k < ELPairs(s->dim); k++) EquationStateArray(n, data, count, s->t[k], s->ncells);
#define EL_STATE_ARRAY(x, c) EquationStateArray(n, data, count, x, c)
  EL_MEMORIES(s, EL_STATE_ARRAY);
#undef EL_STATE_ARRAY
  return 0;
}

static PetscBool SplitBoxes(const EquationState *s, PetscBool adjoint) { return PETSC_FALSE; }

static PetscErrorCode SetMethod(EquationState *state, GradientMethod m)
{
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  PetscCheck(m == GRADIENT_FULL || m == GRADIENT_BOUNDARY, PETSC_COMM_SELF, PETSC_ERR_SUP, "The elastic equation's gradient methods are full and boundary, not %s", GradientMethods[m]);
  PetscCall(ELReconstructionSetUp(s, m));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunBegin(EquationState *state, PetscBool adjoint, WavefieldStore store, const EquationStepPoints *points, PetscInt nsteps)
{
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  if (adjoint) PetscCall(ELAdjointRunBegin(s, store));
  if (adjoint && s->rec) ELReconstructionStart(s);
  if (!adjoint && s->rec) PetscCall(FieldSupportStart(&s->rec->support, s->grid, store && s->backend->host_memory, 2, nsteps, points->src));
  PetscCall(StaggeredPairDestroy(&s->pair)); /* built for the last run's maps */
  PetscCall(ELAdjointReversePairFree(s));
#define EL_ZERO_N(x, n) PetscCall(s->backend->mem_zero(s->lanes, (x), (n) * sizeof(float)))
#define EL_ZERO(x)      EL_ZERO_N(x, s->ncells)
  for (PetscInt a = 0; a < s->dim; a++) {
    EL_ZERO(s->v[a]);
    EL_ZERO(s->s[a]);
  }
  for (PetscInt p = 0; p < ELPairs(s->dim); p++) EL_ZERO(s->t[p]);
  EL_MEMORIES(s, EL_ZERO_N);
#undef EL_ZERO
#undef EL_ZERO_N
  PetscCall(PetscArrayzero(s->psi_none, StaggeredNoMemoryFloats(s->padded[0])));
  PetscFunctionReturn(0);
}

static PetscErrorCode RunEnd(EquationState *state, PetscBool adjoint, WavefieldStore store)
{
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  if (!adjoint && store && s->rec) PetscCall(FieldSupportJoin(&s->rec->support, s->grid));
  PetscFunctionReturn(0);
}

/* Forward step n writes its terms into the store's slot n (the boundary
   method: the band of the fields it starts from); reverse step n reads
   them. */
static PetscErrorCode StepBegin(EquationState *state, PetscBool adjoint, WavefieldStore store, PetscInt n, PetscInt nsteps)
{
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  if (adjoint) PetscCall(ELAdjointStepBegin(s, store, n));
  else if (store && s->rec) PetscCall(ELReconstructionSave(s, store, n));
  else if (store) PetscCall(WavefieldStoreWriteBegin(store, n, &s->keep));
  PetscFunctionReturn(0);
}

/* The stress image method at a free surface on the cell centres of its
   axis a (Levander 1988; Robertsson 1996): s_a vanishes on the surface and
   is odd about it, so its ghosts beyond it mirror it with the sign
   changed, and so is each shear stress t_ab, whose nodes beyond it mirror
   those below with the sign changed (before stage 0); the velocities
   beyond the surface are 0 (the node of v_a past a surface on the high
   side, owned, set so before stage 1).  Under a fluid's surface cell the
   normal velocity is even about the surface instead, as the
   variable-density equation has it: the fluid's exact image (p odd, so
   its normal derivative even), which the solid's stresses lack. */
static PetscErrorCode StageBegin(EquationState *state, PetscInt stage, PetscBool adjoint, const EquationStepPoints *points)
{
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  if (adjoint) PetscCall(ELAdjointStageBegin(s, stage, points));
  else if (stage == 0) {
    PetscCall(s->ops->surface(s, STAGGERED_MIRROR_CENTRES, s->s, PETSC_FALSE));
    PetscCall(s->ops->surface(s, STAGGERED_MIRROR_NODES_ODD, NULL, PETSC_TRUE));
  } else PetscCall(s->ops->surface_velocity(s));
  PetscFunctionReturn(0);
}

/* The boundary method runs the forward stage that the adjoint stage
   undoes backwards beside it. */
static PetscErrorCode BoxStep(EquationState *state, PetscInt stage, PetscBool adjoint, const Box *box)
{
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  if (!adjoint) PetscCall(stage == 0 ? s->ops->velocity(s, box) : s->ops->stress(s, box));
  else {
    PetscCall(stage == 0 ? s->ops->adjoint_velocity(s, box) : s->ops->adjoint_stress(s, box));
    if (s->rec) PetscCall(stage == 0 ? s->ops->back_stress(s, box) : s->ops->back_velocity(s, box));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode StageEnd(EquationState *s, PetscInt stage, PetscBool adjoint, const EquationRegions *regions) { return 0; }

/* Whether the backend sweeps a step's stages at once here
   (StaggeredSweepable): in 2D, where a layer is a row; in 3D a plane of
   the fields' 15 arrays, whose layers between the stages outgrow the
   caches, and the sweep was slower (docs/numerics.md). */
static PetscBool Sweeps(const ELState *s) { return s->ops->fused_forward && s->dim == 2 && StaggeredSweepable(s->dim, s->free_surface); }

/* Where it does: forward, stage 0's StageBegin, then the sweep; adjoint,
   what comes before the sweep, then the sweep. */
static PetscErrorCode FusedStages(EquationState *state, PetscBool adjoint, const EquationStepPoints *points, PetscBool *done)
{
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  *done = PETSC_FALSE;
  if (!Sweeps(s) || (adjoint && !s->ops->fused_adjoint)) PetscFunctionReturn(0);
  if (adjoint) {
    PetscCall(ELAdjointSweepBegin(s, points));
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
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  *done = PETSC_FALSE;
  if (!Sweeps(s) || (store && !s->rec)) PetscFunctionReturn(0);
  if (store && s->rec->support.nlevel && n % 2) PetscFunctionReturn(0); /* the support boxes' levels (FieldSupportStart) */
  PetscCall(StaggeredPairPrepare(&s->pair, StaggeredLayersOf(s->dim, s->radius, s->n, s->stride), &points[0], nrecord, next, ELInjectScaleAt, s, done));
  if (!*done) PetscFunctionReturn(0);
  if (store) PetscCall(ELReconstructionKeepBegin(s, s->pair, store, n + 1));
  PetscCall(StageBegin(state, 0, PETSC_FALSE, &points[0]));
  PetscCall(s->ops->fused_forward(s, s->pair));
  PetscCall(StaggeredPairKeepEnd(s->pair, store, n + 1));
  StaggeredPairRecords(s->pair, next);
  PetscFunctionReturn(0);
}

/* Two reverse steps in one sweep where the backend sweeps them
   (ELAdjointReversePair says where else). */
static PetscErrorCode ReversePair(EquationState *state, WavefieldStore store, PetscInt n, const EquationStepPoints points[2], PetscBool *done)
{
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  *done = PETSC_FALSE;
  if (Sweeps(s) && s->ops->fused_adjoint) PetscCall(ELAdjointReversePair(s, store, n, points, done));
  PetscFunctionReturn(0);
}

/* The source's injection, then sigma_aa = 0 on each free surface of axis
   a. */
static PetscErrorCode StepEnd(EquationState *state, PetscBool adjoint, WavefieldStore store, PetscInt n, const EquationStepPoints *points)
{
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  if (adjoint) PetscCall(ELAdjointStepEnd(s, store, n, points));
  else {
    PetscCall(s->ops->inject(s, points->src, points->wav, PETSC_FALSE));
    PetscCall(s->ops->surface(s, STAGGERED_ZERO_SURFACE, s->s, PETSC_FALSE));
    if (store && s->rec) ELSupportGrow(s, n);
    if (s->keep) PetscCall(WavefieldStoreWriteEnd(store, n));
    s->keep = NULL;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Record(EquationState *state, PetscInt c, const PointMap *m, const float remote[], float out[])
{
  ELState *s = ELStateOf(state);

  PetscFunctionBeginUser;
  PetscCheck(c >= 0 && c <= s->dim, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "elastic receivers record components 0 (p) to %" PetscInt_FMT ", not %" PetscInt_FMT, s->dim, c);
  PetscCall(s->ops->record(s, c, m, remote, out));
  PetscFunctionReturn(0);
}

static PetscErrorCode AllFinite(EquationState *state, PetscBool *finite) { return ELStateOf(state)->ops->all_finite(ELStateOf(state), finite); }

static PetscErrorCode Image(EquationState *s, PetscInt k, const float **padded) { return ELAdjointImage(ELStateOf(s), k, padded); }

/* The edges' images are there only for dJ/dvs. */
static PetscErrorCode DeriveImage(EquationState *s) { return ELImageWanted(ELStateOf(s)->nimage, EL_IMAGE_MU) ? ELStateOf(s)->ops->derive_image(ELStateOf(s)) : 0; }

const EquationScheme ElasticScheme = {
  .create       = Create,
  .destroy      = Destroy,
  .set_model    = SetModel,
  .derive_model = DeriveModel,
  .lanes        = Lanes,
  .field_data   = FieldData,
  .forward_state  = ForwardState,
  .split_boxes  = SplitBoxes,
  .set_method   = SetMethod,
  .run_begin    = RunBegin,
  .run_end      = RunEnd,
  .step_begin   = StepBegin,
  .stage_begin  = StageBegin,
  .box_step     = BoxStep,
  .stage_end    = StageEnd,
  .step_end     = StepEnd,
  .fused_stages = FusedStages,
  .fused_steps  = FusedSteps,
  .reverse_pair = ReversePair,
  .record       = Record,
  .all_finite   = AllFinite,
  .derive_image = DeriveImage,
  .image        = Image,
};
