/* The boxes a rank's owned cells are cut into for the kernels (see Box in
   fields.h): the interior that needs no ghost from a neighbour, the shell
   around it, and each of them cut at the absorbing layers' edges for a
   backend that wants it (KernelOps.split_boxes). */
#pragma once
#include "fields.h"

/* The most pieces BoxSplitAtLayers makes of one box: 3 along axes 1 and 2. */
#define BOX_MAX_PIECES 9

/* Appends to out[] the non-empty pieces of b: cut at the layer edges of
   axes 1 and 2 when split, else b whole; each with layer_axes set (bit a:
   some of its cells lie in a layer of axis a). */
void BoxSplitAtLayers(const Fields *f, const Box *b, PetscBool split, Box *out, PetscInt *nout);

/* The cells of box outer outside box inner (inner within outer) as up to
   2 dim slabs, low then high along each axis from axis 0 up: the slab of
   axis a takes outer's extent on the lower axes, so rows stay long, and
   inner's on the higher ones; a slab empty along its own axis is left
   out.  Valid C and CUDA host code. */
static inline void BoxShell(PetscInt dim, const Box *outer, const Box *inner, Box shell[6], PetscInt *nshell)
{
  *nshell = 0;
  for (PetscInt a = 0; a < dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      Box b = *inner;
      for (PetscInt c = 0; c < a; c++) {
        b.lo[c] = outer->lo[c];
        b.hi[c] = outer->hi[c];
      }
      b.lo[a] = s ? inner->hi[a] : outer->lo[a];
      b.hi[a] = s ? outer->hi[a] : inner->lo[a];
      if (b.hi[a] > b.lo[a]) shell[(*nshell)++] = b;
    }
}

/* The interior (owned cells whose stencil reads no ghost that a neighbour
   fills; neighbour[a][s]: a rank lies across face (a, s)) and the shell
   around it as up to 2 dim slabs that take the lower axes in full, so rows
   stay long.  layer_axes is left 0: BoxSplitAtLayers sets it. */
void BoxesInteriorShell(const Fields *f, const PetscBool neighbour[3][2], Box *interior, Box shell[6], PetscInt *nshell);
