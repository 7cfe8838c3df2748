/* Binomial checkpointing: see revolve.h.

   Reversing steps [a, b) with the state at a restorable and k snapshots
   free costs T(l, k) forward steps, l = b - a: T(1, k) = 1 (the TURN);
   without a snapshot every step is reached from a again, l (l + 1) / 2;
   otherwise the best split j, advancing to a + j and keeping it, reverses
   [a + j, b) with k - 1 snapshots and then [a, a + j) with k:
   T(l, k) = min_j j + T(l - j, k - 1) + T(j, k), whose closed form is
   RevolveLeastSteps's.  j + T(l - j, k - 1) + T(j, k) is convex in j (each
   T is piecewise linear with growing slopes), so its least is found by
   bisection on its differences.  With windows of w steps the same
   recursion runs over windows (a window's "step" is its record, w forward
   steps, and its w turns), the last window being the short one. */
#include "shot/revolve.h"

/* C(n, m) as a double (exact while below 2^53), capped at cap. */
static double Binomial(PetscInt n, PetscInt m, double cap)
{
  double c = 1;

  if (m < 0 || m > n) return 0;
  m = PetscMin(m, n - m);
  for (PetscInt i = 1; i <= m && c < cap; i++) c = c * (double)(n - m + i) / (double)i;
  return PetscMin(c, cap);
}

/* T(l, k) in double, for the split's bisection. */
static double Least(PetscInt l, PetscInt k)
{
  const PetscInt s = k + 1;
  PetscInt       r = 0;

  if (l <= 1) return l;
  if (k == 0) return 0.5 * (double)l * (double)(l + 1);
  while (Binomial(s + r, s, 2.0 * l) < (double)l) r++;
  return (double)(r + 1) * (double)l - Binomial(s + r, r - 1, 1e300);
}

PetscInt RevolveLeastSteps(PetscInt nsteps, PetscInt snapshots) { return (PetscInt)Least(nsteps, snapshots); }

static double SplitCost(PetscInt l, PetscInt k, PetscInt j) { return (double)j + Least(l - j, k - 1) + Least(j, k); }

/* The best first advance j in [1, l - 1] for l >= 2 steps and k >= 1 free snapshots. */
static PetscInt BestSplit(PetscInt l, PetscInt k)
{
  PetscInt lo = 1, hi = l - 1; /* the least lies in [lo, hi] */

  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (SplitCost(l, k, mid + 1) < SplitCost(l, k, mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

typedef struct {
  Revolve *r;
  PetscInt capacity;
  PetscInt at;        /* the step the state is at now */
  PetscInt top;       /* snapshots in use */
} Builder;

/* The first step of window i (nsteps for i past the last). */
static PetscInt Step(const Builder *b, PetscInt i) { return PetscMin(i * b->r->window, b->r->nsteps); }

static PetscErrorCode Emit(Builder *b, RevolveKind kind, PetscInt step, PetscInt slot)
{
  Revolve *r = b->r;

  PetscFunctionBeginUser;
  if (r->nactions == b->capacity) {
    RevolveAction *more;
    b->capacity = 2 * b->capacity + 16;
    PetscCall(PetscMalloc1(b->capacity, &more));
    PetscCall(PetscArraycpy(more, r->action, r->nactions));
    PetscCall(PetscFree(r->action));
    r->action = more;
  }
  if (kind == REVOLVE_TURN && r->first_turn < 0) r->first_turn = r->nactions;
  if (kind == REVOLVE_RECORD && r->first_turn < 0) r->kept_from = b->at;
  r->action[r->nactions++] = (RevolveAction){kind, step, slot};
  if (kind == REVOLVE_ADVANCE || kind == REVOLVE_RECORD) {
    r->forward_steps += step - b->at;
    b->at = step;
  }
  if (kind == REVOLVE_RESTORE) b->at = step;
  if (kind == REVOLVE_TAKE || (kind == REVOLVE_RESTORE && slot >= 0)) r->copies++;
  PetscFunctionReturn(0);
}

/* The state at a, restorable from snapshot slot (-1: the first state). */
static PetscErrorCode From(Builder *b, PetscInt a, PetscInt slot)
{
  PetscFunctionBeginUser;
  if (b->at != a) PetscCall(Emit(b, REVOLVE_RESTORE, a, slot));
  PetscFunctionReturn(0);
}

/* Reverses windows [a, e) with k snapshots free, the state at window a's
   first step in slot. */
static PetscErrorCode Reverse(Builder *b, PetscInt a, PetscInt e, PetscInt k, PetscInt slot)
{
  const PetscInt l = e - a;

  PetscFunctionBeginUser;
  if (l == 1 || k == 0) {
    for (PetscInt i = e - 1; i >= a; i--) {
      PetscCall(From(b, Step(b, a), slot));
      if (i > a) PetscCall(Emit(b, REVOLVE_ADVANCE, Step(b, i), -1));
      PetscCall(Emit(b, REVOLVE_RECORD, Step(b, i + 1), -1));
      for (PetscInt n = Step(b, i + 1) - 1; n >= Step(b, i); n--) PetscCall(Emit(b, REVOLVE_TURN, n, -1));
    }
    PetscFunctionReturn(0);
  }
  {
    const PetscInt j = BestSplit(l, k), mine = b->top++;
    PetscCall(From(b, Step(b, a), slot));
    PetscCall(Emit(b, REVOLVE_ADVANCE, Step(b, a + j), -1));
    PetscCall(Emit(b, REVOLVE_TAKE, Step(b, a + j), mine));
    PetscCall(Reverse(b, a + j, e, k - 1, mine));
    b->top--;
    PetscCall(Reverse(b, a, a + j, k, slot));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode RevolveCreate(PetscInt nsteps, PetscInt snapshots, PetscInt window, Revolve *r)
{
  Builder  b;
  PetscInt windows;

  PetscFunctionBeginUser;
  PetscCheck(nsteps >= 1 && snapshots >= 0 && window >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "checkpointing %" PetscInt_FMT " steps with %" PetscInt_FMT " snapshots in windows of %" PetscInt_FMT ": expected at least 1 step, 0 snapshots and a window of 1", nsteps, snapshots, window);
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->nsteps     = nsteps;
  r->window     = PetscMin(window, nsteps);
  windows       = (nsteps + r->window - 1) / r->window;
  r->snapshots  = PetscMin(snapshots, windows - 1); /* more than one a window is never used */
  r->first_turn = -1;
  b             = (Builder){r, 0, 0, 0};
  PetscCall(Reverse(&b, 0, windows, r->snapshots, -1));
  PetscFunctionReturn(0);
}

PetscErrorCode RevolveDestroy(Revolve *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(r->action));
  PetscFunctionReturn(0);
}
