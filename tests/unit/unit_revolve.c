/* The binomial checkpointing schedule (src/shot/revolve.h), run on paper:
   every reverse step's turn comes once, from nsteps - 1 down to 0, with
   the state at that step; restores read snapshots that hold the step they
   name; no more snapshots than asked are held; the actions before the
   first turn only advance from step 0 and take snapshots (the forward
   run's); and the forward steps taken are the least possible, against a
   search over every split for small runs and the closed form for large
   ones (40 snapshots for 5000 steps: about 2.8 forward runs of advances,
   Griewank and Walther's figure). */
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
   (with a line saying why) where it breaks a rule. */
static PetscInt Play(const Revolve *r, PetscInt snapshots)
{
  PetscInt *held, at = 0, steps = 0, next_turn = r->nsteps - 1, used = 0;

  PetscCallAbort(PETSC_COMM_SELF, PetscMalloc1(snapshots + 1, &held));
  for (PetscInt k = 0; k <= snapshots; k++) held[k] = -1;
  for (PetscInt i = 0; i < r->nactions; i++) {
    const RevolveAction *a     = &r->action[i];
    const PetscBool      first = i < r->first_turn ? PETSC_TRUE : PETSC_FALSE;
    if (first && a->kind != REVOLVE_ADVANCE && a->kind != REVOLVE_TAKE) {
      printf("  action %d before the first turn is neither an advance nor a snapshot\n", (int)i);
      return -1;
    }
    switch (a->kind) {
    case REVOLVE_ADVANCE:
      if (a->step <= at) {
        printf("  action %d advances from step %d to %d\n", (int)i, (int)at, (int)a->step);
        return -1;
      }
      steps += a->step - at;
      at = a->step;
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
      if (first || (a->slot < 0 ? a->step != 0 : a->slot >= snapshots || held[a->slot] != a->step)) {
        printf("  action %d restores step %d from slot %d, which holds %d\n", (int)i, (int)a->step, (int)a->slot, (int)(a->slot < 0 ? 0 : held[a->slot]));
        return -1;
      }
      at = a->step;
      break;
    case REVOLVE_TURN:
      if (a->step != next_turn || at != a->step || (i == r->first_turn) != (a->step == r->nsteps - 1)) {
        printf("  action %d turns at step %d from step %d, expected %d\n", (int)i, (int)a->step, (int)at, (int)next_turn);
        return -1;
      }
      steps++;
      at = a->step + 1;
      next_turn--;
      break;
    }
  }
  PetscCallAbort(PETSC_COMM_SELF, PetscFree(held));
  if (next_turn != -1 || used > snapshots) {
    printf("  the turns stop at step %d; %d slots used of %d\n", (int)next_turn + 1, (int)used, (int)snapshots);
    return -1;
  }
  return steps;
}

static PetscErrorCode Check(PetscInt nsteps, PetscInt snapshots, PetscInt expect, PetscInt *failed)
{
  Revolve  r;
  PetscInt steps;

  PetscFunctionBeginUser;
  PetscCall(RevolveCreate(nsteps, snapshots, &r));
  steps = Play(&r, PetscMin(snapshots, nsteps - 1));
  if (steps != expect || steps != r.forward_steps || steps != RevolveLeastSteps(nsteps, snapshots)) {
    printf("FAIL %d steps, %d snapshots: %d forward steps played, %d counted, %d closed form, %d expected\n", (int)nsteps, (int)snapshots, (int)steps, (int)r.forward_steps,
           (int)RevolveLeastSteps(nsteps, snapshots), (int)expect);
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
    for (PetscInt l = 1; l <= LMAX; l++) PetscCall(Check(l, k, least[l][PetscMin(k, l - 1)], &failed));
  /* more snapshots than steps: one each, the forward run and the turns */
  PetscCall(Check(50, 1000, 99, &failed));
  {
    const PetscInt nsteps = 5000, snapshots = 40, steps = RevolveLeastSteps(nsteps, snapshots);
    const double   sweeps = (double)(steps - nsteps) / nsteps;
    PetscCall(Check(nsteps, snapshots, steps, &failed));
    printf("5000 steps, 40 snapshots: %d forward steps, %.3f runs of advances besides the turns\n", (int)steps, sweeps);
    if (sweeps < 2.7 || sweeps > 2.9) {
      printf("FAIL expected about 2.8 runs of advances\n");
      failed++;
    }
  }
  printf("%s\n", failed ? "unit_revolve: FAILED" : "unit_revolve: all passed");
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
