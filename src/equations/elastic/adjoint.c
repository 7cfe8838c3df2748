/* The exact adjoint of the elastic scheme (state.c), run backwards with
   full storage.  A forward step is

     stage 0:  g_a = D+_a s_a + sum_(b != a) D-_b t_ab (each with its CPML memory),  v_a += B_a g_a
     stage 1:  e_b = D-_b v_b,  s_a += lambda dt tr(e) + 2 mu dt e_a,
               t_ab += M_ab (D+_b v_a + D+_a v_b)

   (B_a: the face's dt / rho; M_ab: the edge's mu dt), then the source and
   the free surface's zero stresses.  Its transpose, held in the adjoint
   fields themselves (v~, s~, t~ in v, s, t), takes D+^T = -D- and D-^T =
   -D+: each derivative's operand (op[a][b]) is formed first at the owned
   cells from what its term fed, through its CPML memory stepped back
   (StaggeredCpmlAdjoint), so that only the operands' ghosts travel:

     stage 0 (undoing stage 1):  op[b][b] = CPML^T(lambda dt tr(s~) + 2 mu dt s~_b),
                                 op[a][b] = CPML^T(M_ab t~_ab) (and op[b][a]);
                                 v~_a -= D+_a op[a][a] + sum_(b != a) D-_b op[a][b]
     stage 1 (undoing stage 0):  op[a][b] = CPML^T(B_a v~_a);
                                 s~_a -= D-_a op[a][a],  t~_ab -= D+_b op[a][b] + D+_a op[b][a]

   The forward run stores every e_b, each edge's D+_b v_a + D+_a v_b and
   every g_a, and the adjoint sums their products with the adjoint fields
   into the images of lambda dt, mu dt (at the centres and on the edges)
   and dt / rho (on the faces).  The free surface's mirrors are
   transposed by the operands' values beyond it (AdjointSurface in the
   backends), its zero stresses by zeroing their adjoints.  The boundary
   method stores none of those terms: the forward fields run backwards
   beside the adjoint (reconstruct.c) form them again, and its passes take
   the images as they go. */
#include "equations/elastic/kernels.h"
#include "equations/store.h"
#include "data/util.h"

/* The adjoint's arrays, each over the padded box, and their count: the
   images of the gradients wanted alone (nimage: lambda's always, mu's at
   the centres and on the edges for dJ/dvs, the faces' dt / rho for
   dJ/drho), the operands and the image handed out. */
#define EL_ADJOINT_ARRAYS(s, X) \
  do { \
    const PetscBool mu_ = ELImageWanted((s)->nimage, EL_IMAGE_MU), rho_ = ELImageWanted((s)->nimage, EL_IMAGE_BUOYANCY); \
    X((s)->img_l); \
    if (mu_) X((s)->img_m); \
    X((s)->image); \
    for (PetscInt a_ = 0; a_ < (s)->dim; a_++) { \
      if (rho_) X((s)->img_b[a_]); \
      for (PetscInt b_ = 0; b_ < (s)->dim; b_++) X((s)->op[a_][b_]); \
    } \
    for (PetscInt p_ = 0; mu_ && p_ < ELPairs((s)->dim); p_++) X((s)->img_e[p_]); \
  } while (0)

/* Counted from the list, on a state of that shape. */
PetscInt ELAdjointArrays(PetscInt dim, PetscInt nimage)
{
  const ELState shape = {.dim = dim, .nimage = nimage};
  PetscInt      n;

  STAGGERED_COUNT_ARRAYS(EL_ADJOINT_ARRAYS, &shape, n);
  return n;
}

PetscErrorCode ELAdjointFree(ELState *s)
{
  PetscFunctionBeginUser;
#define EL_FREE(x) PetscCall(s->backend->mem_free((void **)&(x)))
  EL_ADJOINT_ARRAYS(s, EL_FREE);
#undef EL_FREE
  PetscFunctionReturn(0);
}

/* The adjoint's arrays at the first adjoint run, zeroed at every one (the
   operands' ghosts where no neighbour lies stay 0 but beyond a free
   surface, where each stage writes them). */
PetscErrorCode ELAdjointRunBegin(ELState *s, WavefieldStore store)
{
  const size_t bytes = s->ncells * sizeof(float);

  PetscFunctionBeginUser;
  PetscCheck(store, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "The elastic adjoint reads the forward run's terms from a store: expected one");
#define EL_ALLOC(x) MemoryCall(s->backend->mem_alloc((void **)&(x), bytes), "the adjoint's fields", (double)ELAdjointArrays(s->dim, s->nimage) * bytes)
#define EL_ZERO(x)  PetscCall(s->backend->mem_zero(s->lanes, (x), bytes))
  if (!s->image) EL_ADJOINT_ARRAYS(s, EL_ALLOC);
  EL_ADJOINT_ARRAYS(s, EL_ZERO);
#undef EL_ALLOC
#undef EL_ZERO
  PetscFunctionReturn(0);
}

PetscErrorCode ELAdjointStepBegin(ELState *s, WavefieldStore store, PetscInt n)
{
  PetscFunctionBeginUser;
  if (s->rec) {
    PetscCall(ELReconstructionRead(s, store, n));
    FieldSupportStep(&s->rec->support, n, &s->rec->wide[0], &s->rec->keep[0]);
  } else PetscCall(WavefieldStoreReadBegin(store, n, &s->keep));
  PetscFunctionReturn(0);
}

/* Stage 0 undoes the step's end first: the surface's normal stresses were
   set to 0 (their adjoints are 0), the shear stresses' nodes past a
   surface are mirrors (their adjoints count for nothing), and the
   source's injection, scaled by the model, takes its share of the images.
   Stage 1 undoes the velocities' surface pass: each normal velocity's node
   past a surface was set again (to 0, or a mirror), so its adjoint counts
   for nothing.  The boundary method's fields follow the forward run's
   order backwards (reconstruct.c). */
static PetscErrorCode StageZeroBeforeOperands(ELState *s, const EquationStepPoints *points)
{
  const ELKernels *ops = s->ops;

  PetscFunctionBeginUser;
  PetscCall(ops->surface(s, STAGGERED_ZERO_SURFACE, s->s, PETSC_FALSE));
  PetscCall(ops->surface(s, STAGGERED_ZERO_PAST_SURFACE, NULL, PETSC_TRUE));
  PetscCall(ops->source_image(s, points->src, points->wav));
  PetscFunctionReturn(0);
}

PetscErrorCode ELAdjointStageBegin(ELState *s, PetscInt stage, const EquationStepPoints *points)
{
  const ELKernels *ops = s->ops;

  PetscFunctionBeginUser;
  if (stage == 0) PetscCall(StageZeroBeforeOperands(s, points));
  else PetscCall(ops->surface(s, STAGGERED_ZERO_PAST_SURFACE, s->v, PETSC_FALSE));
  PetscCall(ops->adjoint_operands(s, stage));
  PetscCall(ops->adjoint_surface(s, stage));
  if (stage == 0) PetscCall(ops->adjoint_narrowed(s));
  if (s->rec && stage == 0) PetscCall(ELReconstructionUndoStepEnd(s, points));
  if (s->rec && stage == 1) PetscCall(ELReconstructionStresses(s));
  PetscFunctionReturn(0);
}

/* What a reverse step's sweep (kernels.h: fused_adjoint) leaves to be
   done before it: stage 0's work before its operands, and in the
   boundary method the step's end undone on the fields run back (which
   moves ahead of stage 0's operands, as they touch only the adjoint's
   fields). */
PetscErrorCode ELAdjointSweepBegin(ELState *s, const EquationStepPoints *points)
{
  PetscFunctionBeginUser;
  PetscCall(StageZeroBeforeOperands(s, points));
  if (s->rec) PetscCall(ELReconstructionUndoStepEnd(s, points));
  PetscFunctionReturn(0);
}

PetscErrorCode ELAdjointReversePairFree(ELState *s) { return StaggeredReverseDestroy(&s->rpair.r); }

/* What a residual adds to its adjoint fields per unit of its row's sum,
   as ELResidualRow forms it: a pressure's -1 / dim to each normal stress
   (exactly so in 2D, where the pair runs), a velocity's 1 to its own. */
static float PressureResidualScale(const void *state, ptrdiff_t cell) { return -1.0f / (float)((const ELState *)state)->dim; }
static float VelocityResidualScale(const void *state, ptrdiff_t cell) { return 1.0f; }

/* Reverse steps n and n - 1 in one sweep (ELReversePair), where the
   boundary method keeps the bands and StaggeredReverseBegin admits them;
   the rest as step n's StepBegin and SweepBegin before the sweep, step n -
   1's StepEnd after it. */
PetscErrorCode ELAdjointReversePair(ELState *s, WavefieldStore store, PetscInt n, const EquationStepPoints points[2], PetscBool *done)
{
  static const StaggeredScale residual[EQUATION_MAX_COMPONENTS] = {PressureResidualScale, VelocityResidualScale, VelocityResidualScale, VelocityResidualScale};
  ELReversePair              *pr                                = &s->rpair;

  PetscFunctionBeginUser;
  *done = PETSC_FALSE;
  if (!s->rec) PetscFunctionReturn(0);
  PetscCall(StaggeredReverseBegin(&pr->r, s->grid, StaggeredLayersOf(s->dim, s->radius, s->n, s->stride), store, n, points, residual, ELInjectScaleAt, s, done));
  if (!*done) PetscFunctionReturn(0);
  pr->wav       = points[1].wav;
  s->rec->saved = pr->r.saved[0];
  FieldSupportStep(&s->rec->support, n, &s->rec->wide[0], &s->rec->keep[0]);
  FieldSupportStep(&s->rec->support, n - 1, &s->rec->wide[1], &s->rec->keep[1]);
  PetscCall(ELAdjointSweepBegin(s, &points[0]));
  PetscCall(s->ops->fused_adjoint(s, pr));
  s->rec->saved = pr->r.saved[1];
  PetscCall(StaggeredReverseEnd(&pr->r, store, n));
  PetscCall(ELAdjointStepEnd(s, store, n - 1, &points[1]));
  PetscFunctionReturn(0);
}

/* Each component's residuals go in as the records took it out. */
PetscErrorCode ELAdjointStepEnd(ELState *s, WavefieldStore store, PetscInt n, const EquationStepPoints *points)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < points->nresidual; i++) {
    const EquationResidual *r = &points->residual[i];
    PetscCall(s->ops->inject_residual(s, r->component, r->reach, r->residual));
  }
  if (s->rec) PetscCall(ELReconstructionDone(s, store, n));
  else PetscCall(WavefieldStoreReadEnd(store, n));
  s->keep = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode ELAdjointImage(ELState *s, PetscInt k, const float **padded)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < s->nimage, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "elastic images: parameter 0 (lambda), 1 (mu) or 2 (buoyancy), one of the %" PetscInt_FMT " formed, not %" PetscInt_FMT, s->nimage, k);
  PetscCall(s->ops->image(s, k));
  *padded = s->image;
  PetscFunctionReturn(0);
}
