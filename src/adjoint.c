/* The adjoint of the propagator and the gradient it sums: see propagate.h. */
#include "propagate_impl.h"
#include "events.h"

PetscErrorCode PropagatorGradientReset(Propagator *p)
{
  PetscFunctionBeginUser;
  if (p->f.grad) PetscCall(p->ops->mem_free((void **)&p->f.grad));
  PetscCall(p->ops->mem_alloc((void **)&p->f.grad, p->f.ncells * sizeof(float)));
  p->nsrc_terms = 0;
  PetscFunctionReturn(0);
}

/* Keeps a source's gradient term: its cell from the padded index, and the sum. */
static PetscErrorCode KeepSourceTerm(Propagator *p, ptrdiff_t cell, double sum)
{
  const Fields *f = &p->f;
  PetscInt      i[3];

  PetscFunctionBeginUser;
  if (p->nsrc_terms == p->max_src_terms) {
    PetscInt  *owned;
    double    *sums;
    PetscInt   n = 2 * p->max_src_terms + 8;
    PetscCall(PetscMalloc2(n, &owned, n, &sums));
    PetscCall(PetscArraycpy(owned, p->src_owned, p->nsrc_terms));
    PetscCall(PetscArraycpy(sums, p->src_sums, p->nsrc_terms));
    PetscCall(PetscFree2(p->src_owned, p->src_sums));
    p->src_owned     = owned;
    p->src_sums      = sums;
    p->max_src_terms = n;
  }
  for (PetscInt a = 2; a >= 0; a--) i[a] = (PetscInt)((cell / f->stride[a]) % f->padded[a]) - (a < f->dim ? f->radius : 0);
  p->src_owned[p->nsrc_terms] = i[0] + f->n[0] * (i[1] + f->n[1] * i[2]);
  p->src_sums[p->nsrc_terms++] = sum;
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorGradient(Propagator *p, const float *vp, double *grad)
{
  const Fields *f = &p->f;
  float        *padded;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(f->ncells, &padded));
  PetscCall(p->ops->mem_download(padded, f->grad, f->ncells * sizeof(float)));
  for (PetscInt k = 0; k < f->n[2]; k++)
    for (PetscInt j = 0; j < f->n[1]; j++)
      for (PetscInt i = 0; i < f->n[0]; i++) {
        const PetscInt idx[3] = {i, j, k};
        grad[i + f->n[0] * (j + f->n[1] * k)] = padded[FieldsIndex(f, idx)];
      }
  PetscCall(PetscFree(padded));
  for (PetscInt k = 0; k < p->nsrc_terms; k++) grad[p->src_owned[k]] += p->src_sums[k];
  for (PetscInt c = 0; c < f->n[0] * f->n[1] * f->n[2]; c++) grad[c] *= 2.0 / vp[c];
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorAdjoint(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet,
                                 const float *residual, WavefieldStore store)
{
  const KernelOps *ops = p->ops;
  Fields          *f   = &p->f;
  ShotPoints       d;
  float           *host, *at_src;
  double           src_sum = 0;
  PetscLogDouble   last[2] = {0, 0};

  PetscFunctionBeginUser;
  PetscCheck(f->grad, PETSC_COMM_SELF, PETSC_ERR_ORDER, "PropagatorGradientReset() must precede PropagatorAdjoint()");
  PetscCall(PetscMalloc2((size_t)t->nsteps * PetscMax(shot->nrec, 1), &host, t->nsteps, &at_src));
  PetscCall(ShotPointsCreate(p, t, shot, wavelet, &d));
  for (PetscInt n = 0; n < t->nsteps; n++) DecimatorGather(&p->decimator, n, shot->nrec, residual, host + (size_t)n * shot->nrec);
  PetscCall(ops->mem_upload(d.rec, host, (size_t)t->nsteps * shot->nrec * sizeof(float)));
  PetscCall(ops->zero_state(f));
  PetscCall(PetscTime(&last[0]));
  /* reverse step n takes the adjoint of u^{n+1} (in u) and of u^{n+2} (in
     uprev) to that of u^n, and adds the gradient term of forward step n */
  for (PetscInt n = t->nsteps - 1; n >= 0; n--) {
    PetscCall(PhaseBegin(FWI_STEP));
    if (p->method == GRADIENT_BOUNDARY) PetscCall(ReconstructionBegin(p));
    else PetscCall(WavefieldStoreReadBegin(store, n, &f->lap));
    PetscCall(PhaseBegin(FWI_INJREC));
    if (shot->nsrc) PetscCall(ops->record(f, 1, d.src_cell, d.src + n));
    PetscCall(PhaseEnd(FWI_INJREC));
    PetscCall(ops->adjoint_layers_begin(f));
    PetscCall(ops->mirror_ghosts(f));
    PetscCall(StepRegions(p, PETSC_TRUE));
    PetscCall(PhaseBegin(FWI_SHELL));
    PetscCall(ops->adjoint_layers_end(f));
    PetscCall(PhaseEnd(FWI_SHELL));

    PetscCall(PhaseBegin(FWI_INJREC));
    PetscCall(ops->inject(f, shot->nrec, d.rec_cell, d.rec + (size_t)n * shot->nrec));
    PetscCall(ops->zero_surface(f));
    PetscCall(PhaseEnd(FWI_INJREC));
    if (p->method == GRADIENT_BOUNDARY) PetscCall(ReconstructionEnd(p, &d, store, n, shot->nsrc));
    else PetscCall(WavefieldStoreReadEnd(store, n));
    FieldsSwap(f);
    f->lap = NULL;
    PetscCall(PhaseEnd(FWI_STEP));

    PetscCall(ReportProgress(p, t, "adjoint", shot_id, t->nsteps - n, last));
    PetscCall(CheckFinite(p, t, "adjoint", shot_id, t->nsteps - n));
  }
  if (shot->nsrc) {
    /* the source amplitude is scaled by v^2 dt^2 too; summed from the last step back */
    PetscCall(ops->mem_download(at_src, d.src, t->nsteps * sizeof(float)));
    for (PetscInt n = t->nsteps - 1; n >= 0; n--) src_sum += (double)at_src[n] * wavelet[n] * shot->src_scale;
    PetscCall(KeepSourceTerm(p, shot->src_cell, src_sum));
  }
  PetscCall(ShotPointsDestroy(p, &d));
  PetscCall(PetscFree2(host, at_src));
  PetscFunctionReturn(0);
}
