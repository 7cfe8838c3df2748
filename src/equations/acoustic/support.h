/* The boundary method's support boxes: for every level u^m of a forward
   run, a box of cells outside which u^m is exactly 0.  Running the forward
   field backwards recomputes u^{m-1} = 2 u^m - u^{m+1} + v^2 dt^2 L u^m;
   where the forward run left u^{m-1} at 0 that sum is 0 only up to
   rounding, and the stencil work there is wasted.  With the boxes the
   adjoint steps and images the forward field inside them alone and writes
   its zeros elsewhere (Fields.fu_support), which is also the exact value.

   A step reaches at most `radius` cells further, so each forward step
   looks only at the cells within the radius of the last box, or of a face
   shared with a neighbour, and grows the box by those not 0; the boxes
   start at the source's cells.  The boxes of the ranks of a shot group are
   joined into one (in the group's indices) once the forward run ends, so
   that every decomposition images the same cells: the gradient stays the
   same bits whichever way the model is split.  Host-memory backends only;
   elsewhere the fields are stepped everywhere. */
#pragma once
#include "equations/acoustic/state.h"

/* Before a forward run of nsteps steps whose source injects into src. */
PetscErrorCode SupportBegin(AcousticState *st, const PointMap *src, PetscInt nsteps);
/* After forward step m - 1, u^m in st->f.u. */
void SupportGrow(AcousticState *st, PetscInt m);
/* After the forward run: the group's boxes. */
PetscErrorCode SupportEnd(AcousticState *st);
/* Reverse step n's Fields.fu_support (L u^n widened by the radius; u^{n-1}),
   or NULL where the boxes are not kept. */
const Box *SupportAt(AcousticState *st, PetscInt n, Box now[2]);
