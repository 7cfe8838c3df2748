/* Binomial checkpointing (Griewank 1992; Griewank and Walther 2000,
   "Revolve"): the order in which a run of nsteps steps is recomputed from
   snapshots of its state so that its adjoint can go backwards through it
   with the fewest forward steps for the snapshots it may keep.  The
   schedule depends on nsteps and the number of snapshots alone, so every
   rank of a group follows the same one without communicating. */
#pragma once
#include <petscsys.h>

/* One action of a schedule.  The state it acts on starts at step 0 (the
   run's first state, which needs no snapshot: every field is zero then).
   ADVANCE: forward steps from the current one up to step `step` (its
   state after step - 1), keeping nothing.  TAKE: the current state (at
   `step`) into snapshot `slot`.  RESTORE: the state from snapshot `slot`
   (taken at `step`); slot -1: the first state.  TURN: forward step `step`
   keeping what the adjoint needs of it, then the adjoint's reverse step
   `step`. */
typedef enum { REVOLVE_ADVANCE, REVOLVE_TAKE, REVOLVE_RESTORE, REVOLVE_TURN } RevolveKind;

typedef struct {
  RevolveKind kind;
  PetscInt    step, slot;
} RevolveAction;

typedef struct {
  PetscInt       nsteps, snapshots; /* as asked */
  PetscInt       nactions;
  RevolveAction *action;
  PetscInt       forward_steps; /* the forward steps it takes, TURN's included */
  PetscInt       copies;        /* the snapshots it takes and restores (a restore of the first state zeroes) */
  PetscInt       first_turn;    /* the actions before the first TURN (0 .. first_turn - 1) only advance from step 0 and take snapshots */
} Revolve;

/* The least forward steps (TURN's included) that reverse nsteps steps
   with `snapshots` snapshots besides the first state: (r + 1) nsteps -
   C(s + r, r - 1), where s = snapshots + 1 and r is the least with
   C(s + r, s) >= nsteps. */
PetscInt RevolveLeastSteps(PetscInt nsteps, PetscInt snapshots);

/* The schedule, at most `snapshots` (>= 0) snapshots held at once;
   Destroy frees it. */
PetscErrorCode RevolveCreate(PetscInt nsteps, PetscInt snapshots, Revolve *r);
PetscErrorCode RevolveDestroy(Revolve *r);
