/* Binomial checkpointing (Griewank 1992; Griewank and Walther 2000,
   "Revolve"): the order in which a run of nsteps steps is recomputed from
   snapshots of its state so that its adjoint can go backwards through it
   with the fewest forward steps for the snapshots it may keep.  The steps
   go in windows of `window` steps (the last may be shorter): a window is
   run forwards once, keeping the terms of each of its steps, and then
   reversed step by step, so that binomial checkpointing schedules windows
   rather than steps (window 1: the classical schedule, one forward step
   before each reverse step).  The schedule depends on nsteps, the number
   of snapshots and the window alone, so every rank of a group follows the
   same one without communicating. */
#pragma once
#include <petscsys.h>

/* One action of a schedule.  The state it acts on starts at step 0 (the
   run's first state, which needs no snapshot: every field is zero then).
   ADVANCE: forward steps from the current one up to step `step` (its
   state after step - 1), keeping nothing.  TAKE: the current state (at
   `step`) into snapshot `slot`.  RESTORE: the state from snapshot `slot`
   (taken at `step`); slot -1: the first state.  RECORD: forward steps from
   the current one up to `step`, each keeping what the adjoint needs of it
   (a window's).  TURN: the adjoint's reverse step `step`, whose terms the
   last RECORD kept; the window's turns follow it, from its last step down,
   and a ring of window + 1 steps' terms still holds step + 1's. */
typedef enum { REVOLVE_ADVANCE, REVOLVE_TAKE, REVOLVE_RESTORE, REVOLVE_RECORD, REVOLVE_TURN } RevolveKind;

typedef struct {
  RevolveKind kind;
  PetscInt    step, slot;
} RevolveAction;

typedef struct {
  PetscInt       nsteps, snapshots, window; /* as asked */
  PetscInt       nactions;
  RevolveAction *action;
  PetscInt       forward_steps; /* the forward steps it takes, RECORD's included */
  PetscInt       copies;        /* the snapshots it takes and restores (a restore of the first state zeroes) */
  PetscInt       first_turn;    /* the actions before the first TURN (0 .. first_turn - 1) only advance from step 0, take snapshots and, last, record from step kept_from (the forward run's) */
  PetscInt       kept_from;
} Revolve;

/* The least forward steps (the recorded ones included) that reverse
   nsteps steps in windows of one with `snapshots` snapshots besides the
   first state: (r + 1) nsteps - C(s + r, r - 1), where s = snapshots + 1
   and r is the least with C(s + r, s) >= nsteps.  With windows of w steps
   the schedule takes at most w times this for ceil(nsteps / w) steps. */
PetscInt RevolveLeastSteps(PetscInt nsteps, PetscInt snapshots);

/* The schedule, at most `snapshots` (>= 0) snapshots held at once, windows
   of `window` (>= 1) steps; Destroy frees it. */
PetscErrorCode RevolveCreate(PetscInt nsteps, PetscInt snapshots, PetscInt window, Revolve *r);
PetscErrorCode RevolveDestroy(Revolve *r);
