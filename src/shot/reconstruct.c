/* The boundary gradient method: the forward run saves, each step, the
   layer band of u that the core's stencil reads; the adjoint runs the
   forward field backwards from the last two time levels, the band put back
   each step, and images on the fly.  See propagate.h and docs/numerics.md. */
#include "shot/propagate_impl.h"
#include "data/events.h"
#include "shot/support.h"
#include "data/util.h"


PetscErrorCode ReconstructionDestroy(Propagator *p)
{
  Fields *r = &p->rec.f;

  PetscFunctionBeginUser;
  if (!p->ops) PetscFunctionReturn(0);
  PetscCall(p->ops->backend->mem_free((void **)&r->u));
  PetscCall(p->ops->backend->mem_free((void **)&r->uprev));
  if (p->rec.scratch) PetscCall(p->ops->backend->mem_free(&p->rec.scratch));
  PetscCall(PetscFree(p->rec.support));
  p->rec.nsupport = 0;
  p->rec.pair     = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorSetGradientMethod(Propagator *p, GradientMethod m)
{
  Reconstruction *rec = &p->rec;
  const double    bytes = p->f.ncells * sizeof(float);

  PetscFunctionBeginUser;
  PetscCheck(m == GRADIENT_FULL || m == GRADIENT_BOUNDARY, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Gradient method %s: expected full or boundary", GradientMethods[m]);
  PetscCall(ReconstructionDestroy(p));
  p->method = m;
  if (m != GRADIENT_BOUNDARY) PetscFunctionReturn(0);
  rec->f      = p->f;
  rec->f.grad = rec->f.lap = NULL;
  rec->f.live       = NULL;
  rec->f.live_start = NULL;
  MemoryCall(p->ops->backend->mem_alloc((void **)&rec->f.u, bytes), "the reconstructed forward field", bytes);
  MemoryCall(p->ops->backend->mem_alloc((void **)&rec->f.uprev, bytes), "the reconstructed forward field", bytes);
  (void)FieldsBandBoxes(&p->f, rec->band, &rec->nband);
  {
    size_t scratch;
    rec->pair = KernelOpsPairPlan(p->ops, &p->f, &scratch);
    if (rec->pair && scratch) MemoryCall(p->ops->backend->mem_alloc(&rec->scratch, scratch), "two reverse steps at once", (double)scratch);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ReconstructionSave(Propagator *p, WavefieldStore store, PetscInt n, PetscInt nsteps)
{
  float *buf;

  PetscFunctionBeginUser;
  if (n >= nsteps - 1) PetscFunctionReturn(0);
  PetscCall(WavefieldStoreWriteBegin(store, n, &buf));
  PetscCall(p->ops->pack_boxes(&p->f, p->f.u, p->rec.nband, p->rec.band, buf, PETSC_FALSE));
  PetscCall(WavefieldStoreWriteEnd(store, n));
  PetscFunctionReturn(0);
}

/* The last two levels change hands instead of being copied: the forward
   fields are zeroed before the adjoint uses them. */
void ReconstructionStart(Propagator *p)
{
  float *u = p->rec.f.u, *uprev = p->rec.f.uprev;

  p->rec.f.u     = p->f.uprev; /* u^{N-1} */
  p->rec.f.uprev = p->f.u;     /* u^N */
  p->f.u         = u;
  p->f.uprev     = uprev;
}

PetscErrorCode ReconstructionBegin(Propagator *p, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(p->ops->mirror_ghosts(&p->rec.f));
  p->f.fu         = p->rec.f.u;
  p->f.fuprev     = p->rec.f.uprev;
  p->f.fu_support = SupportAt(p, n, p->rec.now);
  PetscFunctionReturn(0);
}

PetscErrorCode ReconstructionEnd(Propagator *p, const ShotPoints *d, WavefieldStore store, PetscInt n)
{
  const KernelOps *ops = p->ops;
  Reconstruction  *rec = &p->rec;
  Fields          *r   = &rec->f;
  float           *buf;

  PetscFunctionBeginUser;
  PetscCall(PhaseBegin(FWI_RECONSTRUCT));
  p->f.fu = p->f.fuprev = NULL;
  p->f.fu_support       = NULL;
  /* the forward step read backwards: its source term, surface and band */
  PetscCall(ops->inject(r, &d->src, d->wav + n));
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

PetscErrorCode ReconstructionPair(Propagator *p, const ShotLocal *shot, const ShotPoints *d, WavefieldStore store, PetscInt n)
{
  AdjointPair w = {.rec = &p->rec.f, .reach = &d->reach, .src = &d->src, .src_cells = &d->src_cells, .nband = p->rec.nband, .bands = p->rec.band,
                   .scratch = p->rec.scratch};
  float      *band[2] = {NULL, NULL};
  Box         now[2]; /* step n - 1's support; step n's is Begin's */

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 2; k++) {
    w.residual[k] = d->traces + (size_t)(n - k) * shot->nreach;
    w.wav[k]      = d->wav + n - k;
    w.at_src[k]   = d->at_src + (size_t)(n - k) * shot->src.nrows;
    if (n - k >= 1) PetscCall(WavefieldStoreReadBegin(store, n - k - 1, &band[k]));
    w.band[k] = band[k];
  }
  PetscCall(ReconstructionBegin(p, n));
  w.support[0] = p->f.fu_support;
  w.support[1] = SupportAt(p, n - 1, now);
  PetscCall(p->ops->adjoint_pair(&p->f, &w));
  p->f.fu = p->f.fuprev = NULL;
  p->f.fu_support       = NULL;
  for (PetscInt k = 0; k < 2; k++)
    if (band[k]) PetscCall(WavefieldStoreReadEnd(store, n - k - 1));
  PetscFunctionReturn(0);
}
