/* The acoustic equation's time step behind the shot layer's loop
   (EquationScheme): one stage, leapfrog,

     forward:  record u^n -> free-surface ghosts -> step (halos of u and
               psi) -> advance the CPML memory -> inject -> surface ->
               rotate;
     adjoint:  the same backwards, the gradient method's forward term
               (stored, or the forward field run backwards) imaged on the
               way.

   The backend's operations (KernelOps) do the work; this file says in
   which order, and what the gradient methods keep. */
#include "equations/acoustic/state.h"
#include "equations/acoustic/support.h"
#include "data/events.h"

static PetscErrorCode RunBegin(EquationState *s, PetscBool adjoint, WavefieldStore store, const EquationStepPoints *points, PetscInt nsteps)
{
  AcousticState   *a   = AcousticStateOf(s);
  const KernelOps *ops = a->ops;
  Fields          *f   = &a->f;

  PetscFunctionBeginUser;
  if (!adjoint) {
    PetscCall(ops->zero_state(f));
    if (store && a->method == GRADIENT_BOUNDARY) PetscCall(SupportBegin(a, points->src, nsteps));
    PetscFunctionReturn(0);
  }
  /* the shot's image starts from zero, in an array allocated for the first
     shot: a new one every shot would map every page again (and cudaFree
     waits for the whole device) */
  if (!f->grad) PetscCall(ops->backend->mem_alloc((void **)&f->grad, f->ncells * sizeof(float)));
  else PetscCall(ops->backend->mem_zero(f->backend, f->grad, f->ncells * sizeof(float)));
  PetscCall(ops->zero_state(f));
  /* row parts that stay quiet left as they are */
  a->quiet = a->skip_quiet && ops->adjoint_live ? PETSC_TRUE : PETSC_FALSE;
  if (a->quiet) PetscCall(ops->adjoint_live(f, PETSC_TRUE));
  a->quiet_seen[0] = f->parts_left[0];
  a->quiet_seen[1] = f->parts_left[1];
  PetscFunctionReturn(0);
}

/* Once a reverse step leaves fewer than ACOUSTIC_QUIET_SHARE_MIN of its
   parts, the rest of the run steps every part without the marks. */
static PetscErrorCode QuietStepsTaken(AcousticState *a, PetscInt steps)
{
  Fields      *f    = &a->f;
  const size_t left = f->parts_left[0] - a->quiet_seen[0], all = f->parts_left[1] - a->quiet_seen[1];

  PetscFunctionBeginUser;
  if (!(a->skip_quiet && a->ops->adjoint_live)) PetscFunctionReturn(0); /* no run keeps them */
  a->quiet_steps[1] += steps;
  if (!a->quiet) PetscFunctionReturn(0);
  a->quiet_steps[0] += steps;
  a->quiet_seen[0] = f->parts_left[0];
  a->quiet_seen[1] = f->parts_left[1];
  if (all && (double)left < ACOUSTIC_QUIET_SHARE_MIN * (double)all) {
    PetscCall(a->ops->adjoint_live(f, PETSC_FALSE));
    a->quiet = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode RunEnd(EquationState *s, PetscBool adjoint, WavefieldStore store)
{
  AcousticState *a = AcousticStateOf(s);

  PetscFunctionBeginUser;
  if (adjoint) {
    if (a->quiet) PetscCall(a->ops->adjoint_live(&a->f, PETSC_FALSE));
    a->quiet = PETSC_FALSE;
  } else if (store && a->method == GRADIENT_BOUNDARY) {
    PetscCall(SupportEnd(a));
    ReconstructionStart(a);
  }
  PetscFunctionReturn(0);
}

/* Forward step n: what the gradient method keeps of it (full storage: the
   step itself writes the term v^2 dt^2 multiplies, and its live map).
   Reverse step n: it takes the adjoint of u^{n+1} (in u) and of u^{n+2}
   (in uprev) to that of u^n, and adds the gradient term of forward step
   n; from storage, every other step (read[1]) adds those of steps n and
   n + 1. */
static PetscErrorCode StepBegin(EquationState *s, PetscBool adjoint, WavefieldStore store, PetscInt n, PetscInt nsteps)
{
  AcousticState *a = AcousticStateOf(s);
  Fields        *f = &a->f;

  PetscFunctionBeginUser;
  if (!store) PetscFunctionReturn(0);
  if (a->method == GRADIENT_BOUNDARY) {
    if (adjoint) PetscCall(ReconstructionBegin(a, n));
    else PetscCall(ReconstructionSave(a, store, n, nsteps));
    PetscFunctionReturn(0);
  }
  if (!adjoint) {
    PetscCall(WavefieldStoreWriteBegin(store, n, &f->lap));
    f->live = WavefieldStoreLive(store, n, &f->live_start);
    PetscFunctionReturn(0);
  }
  a->read[1] = (nsteps - 1 - n) % 2 ? PETSC_TRUE : PETSC_FALSE;
  a->read[0] = a->read[1] || !n ? PETSC_TRUE : PETSC_FALSE;
  if (a->read[1]) {
    PetscCall(WavefieldStoreReadBegin(store, n + 1, &f->lap_next));
    f->live_next = WavefieldStoreLive(store, n + 1, &f->live_next_start);
  }
  if (a->read[0]) {
    PetscCall(WavefieldStoreReadBegin(store, n, &f->lap));
    f->live = WavefieldStoreLive(store, n, &f->live_start);
  }
  PetscFunctionReturn(0);
}

/* Ghosts across free surfaces; in the adjoint first the field at the
   source's cells (for the source's own gradient term), the layers' zeta,
   and the residuals handed to the step where the backend injects them
   there. */
static PetscErrorCode StageBegin(EquationState *s, PetscInt stage, PetscBool adjoint, const EquationStepPoints *points)
{
  AcousticState   *a   = AcousticStateOf(s);
  const KernelOps *ops = a->ops;
  Fields          *f   = &a->f;

  PetscFunctionBeginUser;
  if (adjoint) {
    PetscCall(PhaseBegin(FWI_INJREC));
    PetscCall(ops->record(f, points->src_cells, NULL, points->at_src));
    PetscCall(PhaseEnd(FWI_INJREC));
    PetscCall(ops->adjoint_layers_begin(f));
  }
  PetscCall(ops->mirror_ghosts(f));
  a->in_step = adjoint && ops->adjoint_injects && ops->adjoint_injects(f) ? PETSC_TRUE : PETSC_FALSE;
  if (a->in_step) {
    f->inject     = points->residual[0].reach; /* the pressure, the one component */
    f->inject_amp = points->residual[0].residual;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode BoxStep(EquationState *s, PetscInt stage, PetscBool adjoint, const Box *box)
{
  AcousticState *a = AcousticStateOf(s);

  return adjoint ? a->ops->adjoint_step(&a->f, box) : a->ops->step(&a->f, box);
}

/* The CPML memory: forward, psi steps once every box has read the old one;
   adjoint, the layer terms and psi and zeta stepping back. */
static PetscErrorCode StageEnd(EquationState *s, PetscInt stage, PetscBool adjoint, const EquationRegions *regions)
{
  AcousticState *a = AcousticStateOf(s);

  PetscFunctionBeginUser;
  a->f.inject = NULL;
  PetscCall(PhaseBegin(FWI_SHELL));
  if (adjoint) PetscCall(a->ops->adjoint_layers_end(&a->f));
  else
    for (PetscInt w = 0; w < 2; w++)
      for (PetscInt k = 0; k < regions->n[w]; k++)
        if (regions->box[w][k].layer_axes) PetscCall(a->ops->advance_memory(&a->f, &regions->box[w][k]));
  PetscCall(PhaseEnd(FWI_SHELL));
  PetscFunctionReturn(0);
}

/* The source (forward) or the residuals (adjoint) injected, the free
   surface zeroed, the levels rotated; what the gradient method kept of
   the step released. */
static PetscErrorCode StepEnd(EquationState *s, PetscBool adjoint, WavefieldStore store, PetscInt n, const EquationStepPoints *points)
{
  AcousticState   *a   = AcousticStateOf(s);
  const KernelOps *ops = a->ops;
  Fields          *f   = &a->f;

  PetscFunctionBeginUser;
  PetscCall(PhaseBegin(FWI_INJREC));
  if (!adjoint) PetscCall(ops->inject(f, points->src, points->wav));
  else if (!a->in_step) PetscCall(ops->inject(f, points->residual[0].reach, points->residual[0].residual));
  PetscCall(ops->zero_surface(f));
  PetscCall(PhaseEnd(FWI_INJREC));
  if (adjoint && store && a->method == GRADIENT_BOUNDARY) PetscCall(ReconstructionEnd(a, points, store, n));
  else if (adjoint && store) {
    if (a->read[1]) PetscCall(WavefieldStoreReadEnd(store, n + 1));
    if (a->read[0]) PetscCall(WavefieldStoreReadEnd(store, n));
  }
  FieldsSwap(f);
  if (!adjoint && store && a->method == GRADIENT_BOUNDARY) SupportGrow(a, n + 1);
  if (!adjoint && f->lap) PetscCall(WavefieldStoreWriteEnd(store, n));
  f->lap = f->lap_next = NULL;
  f->live = f->live_next = NULL;
  f->live_start = f->live_next_start = NULL;
  a->read[0] = a->read[1] = PETSC_FALSE;
  if (adjoint) PetscCall(QuietStepsTaken(a, 1));
  PetscFunctionReturn(0);
}

/* The boundary method, where the backend takes two reverse steps at once. */
static PetscErrorCode ReversePair(EquationState *s, WavefieldStore store, PetscInt n, const EquationStepPoints points[2], PetscBool *done)
{
  AcousticState *a = AcousticStateOf(s);

  PetscFunctionBeginUser;
  *done = store && a->method == GRADIENT_BOUNDARY && a->rec.pair && n >= 1 ? PETSC_TRUE : PETSC_FALSE;
  if (*done) PetscCall(ReconstructionPair(a, store, n, points));
  if (*done) PetscCall(QuietStepsTaken(a, 2));
  PetscFunctionReturn(0);
}

const EquationScheme AcousticScheme = {
  .create         = AcousticStateCreate,
  .destroy        = AcousticStateDestroy,
  .set_model      = AcousticStateSetModel,
  .lanes          = AcousticStateLanes,
  .field_data     = AcousticStateField,
  .forward_state  = AcousticStateForward,
  .split_boxes    = AcousticStateSplitBoxes,
  .set_method     = AcousticStateSetMethod,
  .run_begin      = RunBegin,
  .run_end        = RunEnd,
  .step_begin     = StepBegin,
  .stage_begin    = StageBegin,
  .box_step       = BoxStep,
  .stage_end      = StageEnd,
  .step_end       = StepEnd,
  .reverse_pair   = ReversePair,
  .record         = AcousticStateRecord,
  .all_finite     = AcousticStateAllFinite,
  .image          = AcousticStateImage,
  .adjoint_report = AcousticStateReport,
};
