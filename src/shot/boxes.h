/* The boxes a rank's owned cells are cut into for the kernels (see Box in
   grid/box.h): the interior that needs no ghost from a neighbour, the shell
   around it, and each of them cut at the absorbing layers' edges for a
   backend that wants it (KernelOps.split_boxes). */
#pragma once
#include "equations/acoustic/fields.h"

/* The most pieces BoxSplitAtLayers makes of one box: 3 along axes 1 and 2. */
#define BOX_MAX_PIECES 9

/* Appends to out[] the non-empty pieces of b: cut at the layer edges of
   axes 1 and 2 when split, else b whole; each with layer_axes set (bit a:
   some of its cells lie in a layer of axis a). */
void BoxSplitAtLayers(const Fields *f, const Box *b, PetscBool split, Box *out, PetscInt *nout);

/* The interior (owned cells whose stencil reads no ghost that a neighbour
   fills; neighbour[a][s]: a rank lies across face (a, s)) and the shell
   around it as up to 2 dim slabs that take the lower axes in full, so rows
   stay long.  layer_axes is left 0: BoxSplitAtLayers sets it. */
void BoxesInteriorShell(const Fields *f, const PetscBool neighbour[3][2], Box *interior, Box shell[6], PetscInt *nshell);
