/* The binomial checkpointing schedule (src/shot/revolve.h), run on paper:
   every reverse step's turn comes once, from nsteps - 1 down to 0, with
   the state at that step; restores read snapshots that hold the step they
   name; no more snapshots than asked are held; the actions before the
   first turn only advance from step 0 and take snapshots (the forward
   run's); and the forward steps taken are the least possible, against a
   search over every split for small runs and the closed form for large
   ones (40 snapshots for 5000 steps: about 2.8 forward runs of advances,
   Griewank and Walther's figure); windows of several steps, the same
   against the schedule of the windows. */
#include "shot/revolve.h"
#include <stdio.h>

/* The least forward steps by search over every first split (T(l, k) of
   revolve.c), for l <= LMAX and k <= KMAX. */
#define LMAX 70
#define KMAX 6
static PetscInt least[LMAX + 1][KMAX + 1];

static void Search(void)
{
  for (PetscInt k = 0; k <= KMAX; k++)
    for (PetscInt l = 1; l <= LMAX; l++) {
      if (l == 1) least[l][k] = 1;
      else if (k == 0) least[l][k] = l * (l + 1) / 2;
      else {
        least[l][k] = PETSC_MAX_INT;
        for (PetscInt j = 1; j < l; j++) least[l][k] = PetscMin(least[l][k], j + least[l - j][k - 1] + least[j][k]);
      }
    }
}

/* Runs schedule r on paper; returns the forward steps it took, or -1
   (with a line saying why) where it breaks a rule.  Besides the snapshots
   it follows the ring of window + 1 steps' terms the records keep: a turn
   finds its own step's there, and the next step's (the acoustic adjoint
   reads both). */
static PetscInt Play(const Revolve *r, PetscInt snapshots)
{
  const PetscInt slots = r->window + 1;
  PetscInt      *held, *kept, at = 0, steps = 0, next_turn = r->nsteps - 1, used = 0, kept_from = -1;

  PetscCallAbort(PETSC_COMM_SELF, PetscMalloc2(snapshots + 1, &held, slots, &kept));
  for (PetscInt k = 0; k <= snapshots; k++) held[k] = -1;
  for (PetscInt k = 0; k < slots; k++) kept[k] = -1;
  for (PetscInt i = 0; i < r->nactions; i++) {
    const RevolveAction *a     = &r->action[i];
    const PetscBool      first = i < r->first_turn ? PETSC_TRUE : PETSC_FALSE;
    if (first && (a->kind == REVOLVE_RESTORE || a->kind == REVOLVE_TURN || (a->kind == REVOLVE_RECORD) != (i == r->first_turn - 1))) {
      printf("  action %d before the first turn is not an advance, a snapshot or, last, a record\n", (int)i);
      return -1;
    }
    switch (a->kind) {
    case REVOLVE_ADVANCE:
    case REVOLVE_RECORD:
      if (a->step <= at) {
        printf("  action %d goes forward from step %d to %d\n", (int)i, (int)at, (int)a->step);
        return -1;
      }
      if (a->kind == REVOLVE_RECORD && first) kept_from = at;
      for (; at < a->step; at++, steps++)
        if (a->kind == REVOLVE_RECORD) kept[at % slots] = at;
      break;
    case REVOLVE_TAKE:
      if (a->slot < 0 || a->slot >= snapshots || a->step != at) {
        printf("  action %d takes slot %d at step %d, the state at %d, %d slots\n", (int)i, (int)a->slot, (int)a->step, (int)at, (int)snapshots);
        return -1;
      }
      held[a->slot] = at;
      used          = PetscMax(used, a->slot + 1);
      break;
    case REVOLVE_RESTORE:
      if (a->slot < 0 ? a->step != 0 : a->slot >= snapshots || held[a->slot] != a->step) {
        printf("  action %d restores step %d from slot %d, which holds %d\n", (int)i, (int)a->step, (int)a->slot, (int)(a->slot < 0 ? 0 : held[a->slot]));
        return -1;
      }
      at = a->step;
      break;
    case REVOLVE_TURN:
      if (a->step != next_turn || kept[a->step % slots] != a->step || (a->step + 1 < r->nsteps && kept[(a->step + 1) % slots] != a->step + 1) ||
          (i == r->first_turn) != (a->step == r->nsteps - 1)) {
        printf("  action %d turns at step %d, expected %d; the ring holds step %d there, %d next\n", (int)i, (int)a->step, (int)next_turn, (int)kept[a->step % slots],
               (int)kept[(a->step + 1) % slots]);
        return -1;
      }
      next_turn--;
      break;
    }
  }
  PetscCallAbort(PETSC_COMM_SELF, PetscFree2(held, kept));
  if (next_turn != -1 || used > snapshots || kept_from != r->kept_from) {
    printf("  the turns stop at step %d; %d slots used of %d; the forward run keeps from step %d, the schedule says %d\n", (int)next_turn + 1, (int)used, (int)snapshots,
           (int)kept_from, (int)r->kept_from);
    return -1;
  }
  return steps;
}

/* Plays the schedule; its forward steps must be expect (most: at most
   expect), the count it gives, and for windows of 1 the closed form. */
static PetscErrorCode Check(PetscInt nsteps, PetscInt snapshots, PetscInt window, PetscInt expect, PetscBool most, PetscInt *failed)
{
  Revolve  r;
  PetscInt steps;

  PetscFunctionBeginUser;
  PetscCall(RevolveCreate(nsteps, snapshots, window, &r));
  steps = Play(&r, r.snapshots);
  if ((most ? steps > expect : steps != expect) || steps < nsteps || steps != r.forward_steps || (window == 1 && steps != RevolveLeastSteps(nsteps, snapshots))) {
    printf("FAIL %d steps, %d snapshots, windows of %d: %d forward steps played, %d counted, %d closed form, %s%d expected\n", (int)nsteps, (int)snapshots, (int)window, (int)steps,
           (int)r.forward_steps, (int)RevolveLeastSteps(nsteps, snapshots), most ? "at most " : "", (int)expect);
    (*failed)++;
  }
  PetscCall(RevolveDestroy(&r));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt failed = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  Search();
  for (PetscInt k = 0; k <= KMAX; k++)
    for (PetscInt l = 1; l <= LMAX; l++) PetscCall(Check(l, k, 1, least[l][PetscMin(k, l - 1)], PETSC_FALSE, &failed));
  /* windows of w: w times the schedule of the windows where w divides the
     steps (every window w steps), at most that where the last is shorter */
  for (PetscInt w = 2; w <= 7; w++)
    for (PetscInt k = 0; k <= KMAX; k++)
      for (PetscInt l = 1; l <= LMAX; l++) {
        const PetscInt windows = (l + w - 1) / w;
        PetscCall(Check(l, k, w, w * least[windows][PetscMin(k, windows - 1)], l % w ? PETSC_TRUE : PETSC_FALSE, &failed));
      }
  /* more snapshots than steps: one each, the forward run and the turns */
  PetscCall(Check(50, 1000, 1, 99, PETSC_FALSE, &failed));
  /* a window as long as the run: full storage, one forward run */
  PetscCall(Check(50, 3, 1000, 50, PETSC_FALSE, &failed));
  {
    const PetscInt nsteps = 5000, snapshots = 40, steps = RevolveLeastSteps(nsteps, snapshots);
    const double   sweeps = (double)(steps - nsteps) / nsteps;
    Revolve        r, one;
    PetscCall(Check(nsteps, snapshots, 1, steps, PETSC_FALSE, &failed));
    printf("5000 steps, 40 snapshots: %d forward steps, %.3f runs of advances besides the turns\n", (int)steps, sweeps);
    if (sweeps < 2.7 || sweeps > 2.9) {
      printf("FAIL expected about 2.8 runs of advances\n");
      failed++;
    }
    /* windows of 24 steps: the same advances, and no forward step before each reverse step */
    PetscCall(RevolveCreate(nsteps, snapshots, 24, &r));
    PetscCall(RevolveCreate(nsteps, snapshots, 1, &one));
    PetscCall(Check(nsteps, snapshots, 24, 24 * RevolveLeastSteps(209, snapshots), PETSC_TRUE, &failed));
    printf("5000 steps, 40 snapshots, windows of 24: %d forward steps (%.3f runs), %d copies of a snapshot against %d\n", (int)r.forward_steps, (double)r.forward_steps / nsteps,
           (int)r.copies, (int)one.copies);
    if ((double)r.forward_steps / nsteps > 2.9 || 10 * r.copies > one.copies) {
      printf("FAIL expected at most 2.9 runs and a tenth of the copies\n");
      failed++;
    }
    PetscCall(RevolveDestroy(&r));
    PetscCall(RevolveDestroy(&one));
  }
  printf("%s\n", failed ? "unit_revolve: FAILED" : "unit_revolve: all passed");
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
