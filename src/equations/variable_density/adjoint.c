/* The exact adjoint of the variable-density scheme (state.c), run
   backwards with full storage.  A forward step is, per axis a,

     stage 0:  g_a = D+_a p (+ its CPML memory),  v_a -= B_a g_a
     stage 1:  h   = sum_a D-_a v_a (+ theirs),   p   -= K dt h

   (B_a: the face's dt / rho), then the source and the free surface.  Its
   transpose takes D+^T = -D- and D-^T = -D+; held in the variables
   u = K dt p~ and w_a = B_a v~_a (p~, v~: the adjoint fields), it is the
   same leapfrog again, each derivative's operand d formed first at the
   owned cells (the CPML memories stepped back there) so that only d's
   ghosts travel:

     stage 0:  d_a = u + a_a (u - m_a),  m_a = b_a (m_a - u);  w_a += B_a D+_a d_a
     stage 1:  d_a = w_a + a_a (w_a - n_a),  n_a = b_a (n_a - w_a);  u += K dt sum_a D-_a d_a

   (a, b: the CPML weights; m, n: the adjoint memories).  The images are
   dJ/dK = -sum p~ dt h and dJ/db on a face = -sum v~ dt g over the steps
   (b = 1 / rho): the forward run stores h and every g_a, and the adjoint
   sums u h and w_a g_a, divided by K dt and B_a once at the end.  A face's
   buoyancy is the mean of its two cells', so each cell takes half of each
   of its faces' images: the faces of its lower neighbour's too, whose
   images the shot layer brings across rank boundaries
   (Equation.image_field). */
#include "equations/variable_density/kernels.h"
#include "equations/store.h"
#include "data/util.h"

/* The adjoint's arrays, each over the padded box: the faces' images only
   where the density's gradient is wanted. */
#define VD_ADJOINT_ARRAYS(s, X) \
  do { \
    X((s)->image_k); \
    X((s)->image); \
    for (PetscInt a_ = 0; a_ < (s)->dim; a_++) { \
      X((s)->d[a_]); \
      if ((s)->density_image) X((s)->image_b[a_]); \
    } \
  } while (0)

/* Counted from the list, on a state of that shape. */
PetscInt VDAdjointArrays(PetscInt dim, PetscBool density)
{
  const VDState shape = {.dim = dim, .density_image = density};
  PetscInt      n;

  STAGGERED_COUNT_ARRAYS(VD_ADJOINT_ARRAYS, &shape, n);
  return n;
}

PetscErrorCode VDAdjointFree(VDState *s)
{
  PetscFunctionBeginUser;
#define VD_FREE(x) PetscCall(s->backend->mem_free((void **)&(x)))
  VD_ADJOINT_ARRAYS(s, VD_FREE);
#undef VD_FREE
  PetscFunctionReturn(0);
}

/* The adjoint's arrays at the first adjoint run, zeroed at every one (the
   ghosts of d where no neighbour lies stay 0: nodes and cells there do not
   exist in the forward run). */
PetscErrorCode VDAdjointRunBegin(VDState *s, WavefieldStore store)
{
  const size_t bytes = s->ncells * sizeof(float);

  PetscFunctionBeginUser;
  PetscCheck(store, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "The variable-density adjoint reads the forward run's terms from a store: expected one");
#define VD_ALLOC(x) MemoryCall(s->backend->mem_alloc((void **)&(x), bytes), "the adjoint's fields", (double)VDAdjointArrays(s->dim, s->density_image) * bytes)
#define VD_ZERO(x)  PetscCall(s->backend->mem_zero(s->lanes, (x), bytes))
  if (!s->image) VD_ADJOINT_ARRAYS(s, VD_ALLOC);
  VD_ADJOINT_ARRAYS(s, VD_ZERO);
#undef VD_ALLOC
#undef VD_ZERO
  PetscFunctionReturn(0);
}

PetscErrorCode VDAdjointStepBegin(VDState *s, WavefieldStore store, PetscInt n)
{
  PetscFunctionBeginUser;
  if (s->method == GRADIENT_BOUNDARY) {
    PetscCall(VDReconstructionRead(s, store, n));
    FieldSupportStep(&s->rec.support, n, &s->rec.wide[0], &s->rec.keep[0]);
  } else PetscCall(WavefieldStoreReadBegin(store, n, &s->keep));
  PetscFunctionReturn(0);
}

/* Stage 0's StageBegin besides its operands: the surface's zero and the
   sources' share of dJ/dK on u; the boundary method's unsourcing and
   mirror of the fields it runs back, which the operands (from u, into
   d) neither read nor write. */
static PetscErrorCode StageZeroBeforeOperands(VDState *s, const EquationStepPoints *points)
{
  float *const p[3] = {s->p, s->p, s->p};

  PetscFunctionBeginUser;
  PetscCall(s->ops->surface(s, STAGGERED_ZERO_SURFACE, p));
  PetscCall(s->ops->at_source(s, points->src, points->at_src));
  if (s->method == GRADIENT_BOUNDARY) {
    PetscCall(VDReconstructionUnsource(s, points));
    PetscCall(s->ops->surface(s, STAGGERED_MIRROR_NODES, s->rec.v));
  }
  PetscFunctionReturn(0);
}

/* Stage 0 undoes the step's end first: the surface's pressure was set to
   0 (its adjoint is 0), and the source's injection reads the adjoint
   pressure at its cells, times dt, for dJ/dK there (at_src).  A node past
   a surface (the last node of an axis ending on one, side 1) is a mirror
   in the forward run: the adjoint velocity there counts for nothing.
   The boundary method's fields follow the forward run's order backwards:
   p^(n+1) loses step n's injection before stage 0 runs p back (from v,
   mirrored as the forward stage 1 had it); v runs back in stage 1 from
   p^n, its band put back, zeroed and mirrored on free surfaces as the
   forward step began. */
PetscErrorCode VDAdjointStageBegin(VDState *s, PetscInt stage, const EquationStepPoints *points)
{
  const VDKernels *ops   = s->ops;
  float *const     fp[3] = {s->rec.p, s->rec.p, s->rec.p};

  PetscFunctionBeginUser;
  if (stage == 0) {
    PetscCall(StageZeroBeforeOperands(s, points));
    PetscCall(ops->adjoint_operands(s, 0));
    PetscCall(ops->surface(s, STAGGERED_MIRROR_CENTRES, s->d));
  } else {
    PetscCall(ops->surface(s, STAGGERED_ZERO_PAST_SURFACE, s->v));
    PetscCall(ops->adjoint_operands(s, 1));
    PetscCall(ops->surface(s, STAGGERED_MIRROR_NODES, s->d));
    if (s->method == GRADIENT_BOUNDARY) {
      PetscCall(VDReconstructionRestore(s, PETSC_TRUE));
      PetscCall(ops->surface(s, STAGGERED_ZERO_SURFACE, fp));
      PetscCall(ops->surface(s, STAGGERED_MIRROR_CENTRES, fp));
    }
  }
  PetscFunctionReturn(0);
}

/* Before an adjoint step's sweep (VDKernels.fused_adjoint), stage 0's
   StageBegin but its operands, and the pressure's band that stage 1's
   StageBegin puts back: stage 0 neither reads nor writes the band (it
   runs the pressure back in the core), and the band still follows the
   unsourcing, which it overwrites where a source lies in it. */
PetscErrorCode VDAdjointSweepBegin(VDState *s, const EquationStepPoints *points)
{
  PetscFunctionBeginUser;
  PetscCall(StageZeroBeforeOperands(s, points));
  if (s->method == GRADIENT_BOUNDARY) PetscCall(VDReconstructionRestore(s, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* Each component's residuals go in as the records took it out: u += K dt
   R^T r for the pressure, w_a += B_a R^T r for v_a (VDResidualRow). */
PetscErrorCode VDAdjointStepEnd(VDState *s, WavefieldStore store, PetscInt n, const EquationStepPoints *points)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < points->nresidual; i++) {
    const EquationResidual *r = &points->residual[i];
    PetscCall(s->ops->inject_residual(s, r->component, r->reach, r->residual));
  }
  if (s->method == GRADIENT_BOUNDARY) {
    PetscCall(VDReconstructionRestore(s, PETSC_FALSE));
    PetscCall(VDReconstructionDone(s, store, n));
  } else PetscCall(WavefieldStoreReadEnd(store, n));
  s->keep = NULL;
  PetscFunctionReturn(0);
}

/* Image 0: dJ/dK at the centres; image 1: dJ/db (b = 1 / rho), half of
   each face's image to each of its cells. */
PetscErrorCode VDAdjointImage(VDState *s, PetscInt k, const float **padded)
{
  PetscFunctionBeginUser;
  PetscCheck(k == 0 || (k == 1 && s->density_image), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "variable-density images: parameter 0 (vp) or 1 (rho, where its gradient is wanted), not %" PetscInt_FMT, k);
  PetscCall(s->ops->image(s, k));
  *padded = s->image;
  PetscFunctionReturn(0);
}

PetscErrorCode VDAdjointReversePairFree(VDState *s) { return StaggeredReverseDestroy(&s->rpair.r); }

/* What a velocity's residual adds to w_a per unit of its row's sum, as
   VDResidualRow forms it: the face's dt / rho along a. */
#define VD_FACE_BUOYANCY_AT(name, a) \
  static float name(const void *state, ptrdiff_t cell) \
  { \
    const VDState *s = (const VDState *)state; \
    return VDFaceBuoyancy(s->bdt, cell, s->stride[a]); \
  }
VD_FACE_BUOYANCY_AT(FaceBuoyancyZ, 0)
VD_FACE_BUOYANCY_AT(FaceBuoyancyX, 1)
VD_FACE_BUOYANCY_AT(FaceBuoyancyY, 2)

/* Reverse steps n and n - 1 in one sweep (VDReversePair), where the
   boundary method keeps the bands and StaggeredReverseBegin admits them;
   the rest as step n's StepBegin and SweepBegin before the sweep, step n
   - 1's StepEnd after it. */
PetscErrorCode VDAdjointReversePair(VDState *s, WavefieldStore store, PetscInt n, const EquationStepPoints points[2], PetscBool *done)
{
  static const StaggeredScale residual[EQUATION_MAX_COMPONENTS] = {VDKdtAt, FaceBuoyancyZ, FaceBuoyancyX, FaceBuoyancyY};
  VDReversePair              *pr                                = &s->rpair;

  PetscFunctionBeginUser;
  *done = PETSC_FALSE;
  if (s->method != GRADIENT_BOUNDARY) PetscFunctionReturn(0);
  PetscCall(StaggeredReverseBegin(&pr->r, s->grid, StaggeredLayersOf(s->dim, s->radius, s->n, s->stride), store, n, points, residual, VDKdtAt, s, done));
  if (!*done) PetscFunctionReturn(0);
  pr->at_src   = points[1].at_src;
  s->rec.saved = pr->r.saved[0];
  FieldSupportStep(&s->rec.support, n, &s->rec.wide[0], &s->rec.keep[0]);
  FieldSupportStep(&s->rec.support, n - 1, &s->rec.wide[1], &s->rec.keep[1]);
  PetscCall(VDAdjointSweepBegin(s, &points[0]));
  PetscCall(s->ops->fused_adjoint(s, pr));
  s->rec.saved = pr->r.saved[1];
  PetscCall(StaggeredReverseEnd(&pr->r, store, n));
  PetscCall(VDAdjointStepEnd(s, store, n - 1, &points[1]));
  PetscFunctionReturn(0);
}
