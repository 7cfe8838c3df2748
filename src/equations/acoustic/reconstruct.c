/* The boundary gradient method: the forward run saves, each step, the
   layer band of u that the core's stencil reads; the adjoint runs the
   forward field backwards from the last two time levels, the band put back
   each step, and images on the fly.  See state.h and docs/numerics.md. */
#include "equations/acoustic/state.h"
#include "equations/acoustic/support.h"
#include "data/events.h"
#include "data/util.h"

PetscErrorCode ReconstructionDestroy(AcousticState *a)
{
  Fields *r = &a->rec.f;

  PetscFunctionBeginUser;
  PetscCall(a->ops->backend->mem_free((void **)&r->u));
  PetscCall(a->ops->backend->mem_free((void **)&r->uprev));
  if (a->rec.scratch) PetscCall(a->ops->backend->mem_free(&a->rec.scratch));
  PetscCall(FieldSupportFree(&a->rec.support));
  a->rec.pair     = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode ReconstructionSetUp(AcousticState *a, GradientMethod m)
{
  Reconstruction *rec   = &a->rec;
  const double    bytes = a->f.ncells * sizeof(float);

  PetscFunctionBeginUser;
  PetscCall(ReconstructionDestroy(a));
  if (m != GRADIENT_BOUNDARY) PetscFunctionReturn(0);
  rec->f      = a->f;
  rec->f.grad = rec->f.lap = NULL;
  rec->f.live       = NULL;
  rec->f.live_start = NULL;
  MemoryCall(a->ops->backend->mem_alloc((void **)&rec->f.u, bytes), "the reconstructed forward field", bytes);
  MemoryCall(a->ops->backend->mem_alloc((void **)&rec->f.uprev, bytes), "the reconstructed forward field", bytes);
  (void)FieldsBandBoxes(&a->f, rec->band, &rec->nband);
  {
    size_t scratch;
    rec->pair = KernelOpsPairPlan(a->ops, &a->f, &scratch);
    if (rec->pair && scratch) MemoryCall(a->ops->backend->mem_alloc(&rec->scratch, scratch), "two reverse steps at once", (double)scratch);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ReconstructionSave(AcousticState *a, WavefieldStore store, PetscInt n, PetscInt nsteps)
{
  float *buf;

  PetscFunctionBeginUser;
  if (n >= nsteps - 1) PetscFunctionReturn(0);
  PetscCall(WavefieldStoreWriteBegin(store, n, &buf));
  PetscCall(a->ops->pack_boxes(&a->f, a->f.u, a->rec.nband, a->rec.band, buf, PETSC_FALSE));
  PetscCall(WavefieldStoreWriteEnd(store, n));
  PetscFunctionReturn(0);
}

/* The last two levels change hands instead of being copied: the forward
   fields are zeroed before the adjoint uses them. */
void ReconstructionStart(AcousticState *a)
{
  float *u = a->rec.f.u, *uprev = a->rec.f.uprev;

  a->rec.f.u     = a->f.uprev; /* u^{N-1} */
  a->rec.f.uprev = a->f.u;     /* u^N */
  a->f.u         = u;
  a->f.uprev     = uprev;
}

PetscErrorCode ReconstructionBegin(AcousticState *a, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(a->ops->mirror_ghosts(&a->rec.f));
  a->f.fu         = a->rec.f.u;
  a->f.fuprev     = a->rec.f.uprev;
  a->f.fu_support = SupportAt(a, n, a->rec.now);
  PetscFunctionReturn(0);
}

PetscErrorCode ReconstructionEnd(AcousticState *a, const EquationStepPoints *points, WavefieldStore store, PetscInt n)
{
  const KernelOps *ops = a->ops;
  Reconstruction  *rec = &a->rec;
  Fields          *r   = &rec->f;
  float           *buf;

  PetscFunctionBeginUser;
  PetscCall(PhaseBegin(FWI_RECONSTRUCT));
  a->f.fu = a->f.fuprev = NULL;
  a->f.fu_support       = NULL;
  /* the forward step read backwards: its source term, surface and band */
  PetscCall(ops->inject(r, points->src, points->wav));
  PetscCall(ops->zero_surface(r));
  if (n >= 1) {
    PetscCall(WavefieldStoreReadBegin(store, n - 1, &buf));
    PetscCall(ops->pack_boxes(r, r->uprev, rec->nband, rec->band, buf, PETSC_TRUE));
    PetscCall(WavefieldStoreReadEnd(store, n - 1));
  }
  FieldsSwap(r);
  PetscCall(PhaseEnd(FWI_RECONSTRUCT));
  PetscFunctionReturn(0);
}

PetscErrorCode ReconstructionPair(AcousticState *a, WavefieldStore store, PetscInt n, const EquationStepPoints points[2])
{
  AdjointPair w = {.rec = &a->rec.f, .reach = points[0].residual[0].reach, .src = points[0].src, .src_cells = points[0].src_cells, .nband = a->rec.nband, .bands = a->rec.band,
                   .scratch = a->rec.scratch};
  float      *band[2] = {NULL, NULL};
  Box         now[2]; /* step n - 1's support; step n's is Begin's */

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 2; k++) {
    w.residual[k] = points[k].residual[0].residual;
    w.wav[k]      = points[k].wav;
    w.at_src[k]   = points[k].at_src;
    if (n - k >= 1) PetscCall(WavefieldStoreReadBegin(store, n - k - 1, &band[k]));
    w.band[k] = band[k];
  }
  PetscCall(ReconstructionBegin(a, n));
  w.support[0] = a->f.fu_support;
  w.support[1] = SupportAt(a, n - 1, now);
  PetscCall(a->ops->adjoint_pair(&a->f, &w));
  a->f.fu = a->f.fuprev = NULL;
  a->f.fu_support       = NULL;
  for (PetscInt k = 0; k < 2; k++)
    if (band[k]) PetscCall(WavefieldStoreReadEnd(store, n - k - 1));
  PetscFunctionReturn(0);
}
