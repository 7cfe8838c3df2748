/* Support boxes of a forward run, for the boundary gradient method of any
   equation: for level m of the run (the fields after m steps) a box of
   owned cells outside which every field of that level is exactly 0 (the
   waves have not reached those cells).  Running the forward fields
   backwards there would only turn the forward run's exact zeros into
   rounding, at the cost of a stencil: with the boxes a reverse step runs
   them back inside the box it starts from, widened by a radius, and writes
   0 where the box it ends at leaves off (FieldSupportStep).

   The boxes start at the source's cells.  A step reaches at most `reach`
   cells further, so growing level m's box looks only at the cells within
   that reach of the last box grown, or of a face shared with a neighbour;
   levels in between take the box of the level grown after them (they lie
   inside it up to values too small to stand as floats).  Once the forward
   run ends the boxes of a shot group's ranks are joined into one, in the
   group's indices, so that every decomposition runs back the same cells:
   the gradient stays the same bits however the model is split.  Kept on
   host-memory backends only. */
#pragma once
#include "grid/box.h"
#include "grid/grid.h"
#include "equations/equation.h"

/* Every equation lays its fields out on its grid's padded box
   (GridPaddedStrides, GridPaddedIndex). */
typedef struct {
  const Grid   *grid;
  Box          *box;    /* box[m], levels 0 .. nlevel - 1 */
  PetscInt      nlevel; /* 0: no boxes kept (the fields run back everywhere) */
  PetscInt      cap;    /* levels allocated */
  PetscInt      last;   /* the last level grown */
  PetscInt      every;  /* boxes are grown at the multiples of every and the last level */
} FieldSupport;

/* Before a forward run of nsteps steps on grid g whose source injects into
   src's cells, where the backend's memory is the host's (host; no boxes
   elsewhere): its boxes to be grown at every level (every 1) or at the
   multiples of every and the last one (the staggered equations, every 2:
   a rank that takes two steps a sweep sees the even levels alone, so
   every decomposition must grow those alone). */
PetscErrorCode FieldSupportStart(FieldSupport *s, const Grid *g, PetscBool host, PetscInt every, PetscInt nsteps, const PointMap *src);
/* Level m's box, from the fields of level m (nfield arrays on the grid)
   and the last box grown, `reach` cells a step further at most; nothing
   at the levels every skips. */
void FieldSupportGrow(FieldSupport *s, PetscInt m, PetscInt reach, PetscInt nfield, const float *const field[]);
/* After the forward run, on every rank of the group (g's communicator):
   the group's boxes. */
PetscErrorCode FieldSupportJoin(FieldSupport *s, const Grid *g);
/* No boxes kept from here on; their memory freed. */
PetscErrorCode FieldSupportFree(FieldSupport *s);
/* Reverse step n, from level n + 1 to level n: *wide the cells its
   stencils may change (level n + 1's box widened by the radius), *keep
   those that may be nonzero after it (level n's box); without boxes
   both boxes hold every cell. */
void FieldSupportStep(const FieldSupport *s, PetscInt n, Box *wide, Box *keep);

/* The empty box, and whether a box is. */
static inline PetscBool BoxEmpty(const Box *b)
{
  for (int a = 0; a < 3; a++)
    if (b->hi[a] <= b->lo[a]) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* *b grown to hold box c. */
static inline void BoxJoin(Box *b, const Box *c)
{
  const PetscBool empty = BoxEmpty(b);

  if (BoxEmpty(c)) return;
  for (int a = 0; a < 3; a++) {
    b->lo[a] = empty ? c->lo[a] : PetscMin(b->lo[a], c->lo[a]);
    b->hi[a] = empty ? c->hi[a] : PetscMax(b->hi[a], c->hi[a]);
  }
}

/* Writes 0 to the cells of f on a row of n cells from owned cell
   (i0, j, k), at padded index row, that lie outside box keep. */
static inline void FieldSupportZeroRow(float *f, ptrdiff_t row, PetscInt i0, PetscInt n, PetscInt j, PetscInt k, const Box *keep)
{
  PetscInt lo = i0 + n, hi = i0 + n; /* the cells kept: none where the row lies outside keep */

  if (j >= keep->lo[1] && j < keep->hi[1] && k >= keep->lo[2] && k < keep->hi[2]) {
    lo = PetscMax(i0, PetscMin(keep->lo[0], i0 + n));
    hi = PetscMax(lo, PetscMin(keep->hi[0], i0 + n));
  }
  for (PetscInt i = i0; i < lo; i++) f[row + i - i0] = 0;
  for (PetscInt i = hi; i < i0 + n; i++) f[row + i - i0] = 0;
}
