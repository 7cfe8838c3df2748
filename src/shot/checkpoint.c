/* Checkpointing around full storage (propagate.h: PropagatorSetCheckpoints).

   The forward run of a gradient takes the snapshots of the schedule's
   first advance (revolve.h: its actions before the first TURN go from
   step 0 forwards) and keeps the terms of its last window's steps in the
   store.  Before reverse step n, a second state of the equation on the
   same grid, the replay, runs the schedule's actions up to step n's TURN:
   restores, advances (halos exchanged as in the forward run), snapshots,
   and the record of step n's window, whose steps write their terms into
   the store; the window's later turns need no action.  The store is a
   ring of window + 1 steps: a reverse step reads step n, and the acoustic
   adjoint steps n and n + 1 at once.  Every forward step is the forward
   run's own arithmetic from the same state, so the gradient is full
   storage's bit for bit.
   The snapshots lie in host memory, a device backend's coming down and
   going back up; or, where the planner finds them faster there, in the
   device's own memory, copied within it; or on disk.
   With a folder (-wavefield_storage disk) the snapshots lie in a file
   there (equations/store_file.h), through two host buffers: a snapshot
   taken is gathered into the first and written while the steps go on; the
   one a reverse step restores is read into the second while the previous
   reverse step runs (the schedule names it: the action after each turn). */
#include "shot/propagate_impl.h"
#include "shot/revolve.h"
#include "equations/store_file.h"
#include "data/events.h"
#include "data/util.h"
#include <omp.h>
#include <string.h>

struct Checkpoints {
  EquationState *replay;
  Revolve        schedule;
  PetscInt       next;   /* the schedule's next action */
  PetscInt       at;     /* the replay's step (its state after that many steps) */
  float        **snap;   /* one per snapshot slot, in host memory or (in_backend) the backend's; NULL with a file */
  PetscBool      in_backend;
  size_t         floats; /* of a snapshot */
  StoreFile      file;   /* the snapshots' slots, one after the other, or NULL */
  float         *stage[2]; /* with a file: a snapshot written, one read */
  PetscInt       fetched;  /* with a file: the slot stage[1] holds or is being read into, or -1 */
};

enum { LANE_TAKE, LANE_RESTORE }; /* the file's lanes, the stage buffers */

/* The forward state's arrays of state s (EquationScheme.forward_state). */
typedef struct {
  PetscInt n;
  float   *data[EQUATION_MAX_STATE_ARRAYS];
  size_t   count[EQUATION_MAX_STATE_ARRAYS];
} StateArrays;

static PetscErrorCode ArraysOf(const Propagator *p, const EquationState *s, StateArrays *a)
{
  PetscFunctionBeginUser;
  PetscCall(p->eq->scheme->forward_state(s, &a->n, a->data, a->count));
  PetscFunctionReturn(0);
}

/* State s's forward arrays into the snapshot at snap (save), or back
   from it.  A device backend's arrays go one by one (its copies wait for
   the queued work): within its memory where the snapshot lies there
   (in_backend), else down and up; host arrays are copied in one parallel
   region, each thread its share of every array (their arrays can be
   small). */
static PetscErrorCode ArraysCopy(Propagator *p, EquationState *s, float *snap, PetscBool save, PetscBool in_backend)
{
  StateArrays a;
  size_t      start[EQUATION_MAX_STATE_ARRAYS + 1] = {0};

  PetscFunctionBeginUser;
  PetscCall(ArraysOf(p, s, &a));
  for (PetscInt i = 0; i < a.n; i++) start[i + 1] = start[i] + a.count[i];
  if (!p->backend->host_memory) {
    for (PetscInt i = 0; i < a.n; i++) {
      const size_t bytes = a.count[i] * sizeof(float);
      if (in_backend) PetscCall(p->backend->mem_copy(save ? snap + start[i] : a.data[i], save ? a.data[i] : snap + start[i], bytes));
      else if (save) PetscCall(p->backend->mem_download(snap + start[i], a.data[i], bytes));
      else PetscCall(p->backend->mem_upload(a.data[i], snap + start[i], bytes));
    }
    PetscFunctionReturn(0);
  }
#pragma omp parallel
  {
    const size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
    for (PetscInt i = 0; i < a.n; i++) {
      const size_t lo = a.count[i] * t / nt, n = a.count[i] * (t + 1) / nt - lo;
      float *const at = snap + start[i] + lo, *const field = a.data[i] + lo;
      memcpy(save ? at : field, save ? field : at, n * sizeof(float));
    }
  }
  PetscFunctionReturn(0);
}

/* Starts reading snapshot slot into the restore buffer (a file's). */
static PetscErrorCode Fetch(Checkpoints *ck, PetscInt slot)
{
  const size_t bytes = ck->floats * sizeof(float);

  PetscFunctionBeginUser;
  PetscCall(StoreFilePost(ck->file, LANE_RESTORE, PETSC_FALSE, ck->stage[LANE_RESTORE], bytes, bytes * (size_t)slot));
  ck->fetched = slot;
  PetscFunctionReturn(0);
}

/* State s's forward state into snapshot slot (save), or back from it. */
static PetscErrorCode SnapshotCopy(Propagator *p, EquationState *s, PetscInt slot, PetscBool save)
{
  Checkpoints *ck = p->ck;

  PetscFunctionBeginUser;
  PetscCall(PhaseBegin(FWI_CHECKPOINT));
  if (!ck->file) PetscCall(ArraysCopy(p, s, ck->snap[slot], save, ck->in_backend));
  else if (save) {
    const size_t bytes = ck->floats * sizeof(float);
    PetscCall(StoreFileWait(ck->file, LANE_TAKE)); /* the buffer's last snapshot is out */
    PetscCall(ArraysCopy(p, s, ck->stage[LANE_TAKE], PETSC_TRUE, PETSC_FALSE));
    PetscCall(StoreFilePost(ck->file, LANE_TAKE, PETSC_TRUE, ck->stage[LANE_TAKE], bytes, bytes * (size_t)slot));
  } else {
    if (ck->fetched != slot) PetscCall(Fetch(ck, slot)); /* read after any write posted before it */
    PetscCall(StoreFileWait(ck->file, LANE_RESTORE));
    PetscCall(ArraysCopy(p, s, ck->stage[LANE_RESTORE], PETSC_FALSE, PETSC_FALSE));
    ck->fetched = -1;
  }
  PetscCall(PhaseEnd(FWI_CHECKPOINT));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorSetCheckpoints(Propagator *p, const TimeAxis *t, const float *const model[], PetscInt snapshots, PetscInt window, WavefieldStorage where,
                                        const char *dir)
{
  Checkpoints *ck;
  StateArrays  a;

  PetscFunctionBeginUser;
  PetscCheck(p->eq->scheme->forward_state, PETSC_COMM_SELF, PETSC_ERR_SUP, "-gradient_method checkpoint: the %s equation does not list its forward state", p->eq->name);
  PetscCall(PetscNew(&ck));
  p->ck = ck;
  PetscCall(PropagatorSetGradientMethod(p, GRADIENT_FULL));
  PetscCall(p->eq->scheme->create(p->grid, &p->kernels, &p->state_settings, &ck->replay));
  PetscCall(p->eq->scheme->set_method(ck->replay, GRADIENT_FULL));
  PetscCall(PropagatorCheckpointsSetModel(p, t, model));
  PetscCall(RevolveCreate(t->nsteps, snapshots, window, &ck->schedule));
  PetscCall(ArraysOf(p, p->state, &a));
  for (PetscInt i = 0; i < a.n; i++) ck->floats += a.count[i];
  ck->fetched = -1;
  if (where == STORAGE_DISK && ck->schedule.snapshots) { /* no file for no snapshots (a window as long as the run) */
    PetscCall(StoreFileOpen(dir, ck->floats * sizeof(float) * (size_t)ck->schedule.snapshots, &ck->file));
    for (PetscInt k = 0; k < 2; k++) MemoryCall(PetscMalloc1(ck->floats, &ck->stage[k]), "the checkpoints' buffers", (double)ck->floats * sizeof(float));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscCalloc1(ck->schedule.snapshots + 1, &ck->snap));
  ck->in_backend = where == STORAGE_DEVICE && !p->backend->host_memory ? PETSC_TRUE : PETSC_FALSE;
  for (PetscInt k = 0; k < ck->schedule.snapshots; k++)
    MemoryCall(ck->in_backend ? p->backend->mem_alloc((void **)&ck->snap[k], ck->floats * sizeof(float)) : PetscMalloc1(ck->floats, &ck->snap[k]), "the checkpoints' snapshots",
               (double)ck->floats * sizeof(float) * ck->schedule.snapshots);
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorCheckpointsDestroy(Propagator *p)
{
  Checkpoints *ck = p->ck;

  PetscFunctionBeginUser;
  if (!ck) PetscFunctionReturn(0);
  for (PetscInt k = 0; ck->snap && k < ck->schedule.snapshots; k++) {
    if (ck->in_backend) PetscCall(p->backend->mem_free((void **)&ck->snap[k]));
    else PetscCall(PetscFree(ck->snap[k]));
  }
  PetscCall(PetscFree(ck->snap));
  PetscCall(StoreFileClose(&ck->file));
  for (PetscInt k = 0; k < 2; k++) PetscCall(PetscFree(ck->stage[k]));
  PetscCall(RevolveDestroy(&ck->schedule));
  if (ck->replay) PetscCall(p->eq->scheme->destroy(&ck->replay));
  PetscCall(PetscFree(p->ck));
  PetscFunctionReturn(0);
}

PetscErrorCode PropagatorCheckpointsSetModel(Propagator *p, const TimeAxis *t, const float *const model[])
{
  EquationState *was = p->state;

  PetscFunctionBeginUser;
  p->state = p->ck->replay; /* the shot layer's exchanges read p->state's fields */
  PetscCall(PropagatorSetStateModel(p, t, model));
  p->state = was;
  PetscFunctionReturn(0);
}

/* Before the forward run's step n: the first advance's snapshots of the
   state at n; whether the step keeps its terms (the first record's). */
PetscErrorCode CheckpointsForwardStep(Propagator *p, PetscInt n, PetscBool *keep)
{
  Checkpoints   *ck = p->ck;
  const Revolve *r  = &ck->schedule;

  PetscFunctionBeginUser;
  if (!n) ck->next = 0;
  for (; ck->next < r->first_turn && (r->action[ck->next].kind != REVOLVE_TAKE || r->action[ck->next].step <= n); ck->next++)
    if (r->action[ck->next].kind == REVOLVE_TAKE) PetscCall(SnapshotCopy(p, p->state, r->action[ck->next].slot, PETSC_TRUE));
  *keep = n >= r->kept_from ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Forward steps [from, to) of the replay, keeping their terms in store where given. */
static PetscErrorCode ReplaySteps(Propagator *p, const ShotPoints *d, WavefieldStore store, PetscInt from, PetscInt to, PetscInt nsteps)
{
  const EquationScheme *sc  = p->eq->scheme;
  EquationState        *was = p->state;

  PetscFunctionBeginUser;
  PetscCall(PhaseBegin(FWI_REPLAY));
  p->state = p->ck->replay;
  for (PetscInt n = from; n < to; n++) {
    EquationStepPoints pts = ShotPointsAt(d, n);
    pts.nresidual          = 0; /* the forward step's points: the source alone */
    PetscCall(sc->step_begin(p->state, PETSC_FALSE, store, n, nsteps));
    PetscCall(StepStages(p, PETSC_FALSE, &pts));
    PetscCall(sc->step_end(p->state, PETSC_FALSE, store, n, &pts));
  }
  p->state = was;
  PetscCall(PhaseEnd(FWI_REPLAY));
  PetscFunctionReturn(0);
}

/* The replay's state that of step 0, every field zero. */
static PetscErrorCode ReplayBegin(Propagator *p, const ShotPoints *d, PetscInt nsteps)
{
  const EquationStepPoints first = ShotPointsAt(d, 0);

  PetscFunctionBeginUser;
  PetscCall(p->eq->scheme->run_begin(p->ck->replay, PETSC_FALSE, NULL, &first, nsteps));
  p->ck->at = 0;
  PetscFunctionReturn(0);
}

/* The adjoint begins where the forward run left the schedule: at its first turn. */
PetscErrorCode CheckpointsAdjointBegin(Propagator *p, const ShotPoints *d, PetscInt nsteps)
{
  PetscFunctionBeginUser;
  PetscCall(ReplayBegin(p, d, nsteps));
  p->ck->next = p->ck->schedule.first_turn;
  PetscFunctionReturn(0);
}

PetscErrorCode CheckpointsTurn(Propagator *p, const ShotPoints *d, WavefieldStore store, PetscInt n, PetscInt nsteps)
{
  Checkpoints   *ck = p->ck;
  const Revolve *r  = &ck->schedule;

  PetscFunctionBeginUser;
  while (ck->next < r->nactions) {
    const RevolveAction *a = &r->action[ck->next++];
    switch (a->kind) {
    case REVOLVE_RESTORE:
      if (a->slot < 0) PetscCall(ReplayBegin(p, d, nsteps));
      else PetscCall(SnapshotCopy(p, ck->replay, a->slot, PETSC_FALSE));
      ck->at = a->step;
      break;
    case REVOLVE_ADVANCE:
    case REVOLVE_RECORD:
      PetscCheck(ck->at <= a->step, PETSC_COMM_SELF, PETSC_ERR_PLIB, "checkpoint schedule: forward to step %" PetscInt_FMT " from step %" PetscInt_FMT, a->step, ck->at);
      PetscCall(ReplaySteps(p, d, a->kind == REVOLVE_RECORD ? store : NULL, ck->at, a->step, nsteps));
      ck->at = a->step;
      break;
    case REVOLVE_TAKE:
      PetscCall(SnapshotCopy(p, ck->replay, a->slot, PETSC_TRUE));
      break;
    case REVOLVE_TURN:
      PetscCheck(a->step == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "checkpoint schedule: turn at step %" PetscInt_FMT ", the adjoint at %" PetscInt_FMT, a->step, n);
      /* a file's next restore comes in while reverse step n runs */
      if (ck->file && ck->next < r->nactions && r->action[ck->next].kind == REVOLVE_RESTORE && r->action[ck->next].slot >= 0) PetscCall(Fetch(ck, r->action[ck->next].slot));
      PetscFunctionReturn(0);
    }
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "checkpoint schedule: no turn at step %" PetscInt_FMT, n);
}
