/* Boxes of a rank's owned cells, the unit every kernel works on.  Valid C
   and CUDA. */
#pragma once
#include <petscsys.h>
#include "grid/fd.h"

/* A box of owned cells, local indices [lo, hi) (0 = first owned cell).
   layer_axes, bit a >= 1: every cell of the box lies in the CPML layer of
   axis a.  Bit 0: some cells lie in a layer of axis 0; boxes are not cut
   along axis 0 (the contiguous one) so rows stay long, and the kernels split
   each row at the core's edges along it instead. */
typedef struct {
  PetscInt lo[3], hi[3];
  unsigned layer_axes;
} Box;

/* The number of cells of a box (0 when empty). */
FWI_HD static inline size_t BoxCells(const Box *b)
{
  size_t n = 1;
  for (int a = 0; a < 3; a++) n *= (size_t)(b->hi[a] > b->lo[a] ? b->hi[a] - b->lo[a] : 0);
  return n;
}

/* The cells of box b within box core, in out (layer_axes 0); false where
   there are none. */
static inline PetscBool BoxWithin(const Box *b, const Box *core, Box *out)
{
  for (PetscInt a = 0; a < 3; a++) {
    out->lo[a] = PetscMax(b->lo[a], core->lo[a]);
    out->hi[a] = PetscMin(b->hi[a], core->hi[a]);
    if (out->hi[a] <= out->lo[a]) return PETSC_FALSE;
  }
  out->layer_axes = 0;
  return PETSC_TRUE;
}

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

#ifdef __cplusplus
extern "C" {
#endif

/* The most pieces BoxSplitAtLayers makes of one box: 3 along axes 1 and 2. */
#define BOX_MAX_PIECES 9

/* Appends to out[] the non-empty pieces of b: cut at the layer edges of
   axes 1 and 2 when split, else b whole; each with layer_axes set (bit a:
   some of its cells lie in a layer of axis a).  core[a]: the owned cells
   outside the layers along axis a (GridBlockCore). */
void BoxSplitAtLayers(const PetscInt core[3][2], const Box *b, PetscBool split, Box *out, PetscInt *nout);

/* The interior of a block of n[] owned cells (those whose stencil of the
   given radius reads no ghost a neighbour fills; neighbour[a][s]: a rank
   lies across face (a, s)) and the shell around it as up to 2 dim slabs
   that take the lower axes in full, so rows stay long.  layer_axes is left
   0: BoxSplitAtLayers sets it. */
void BoxesInteriorShell(PetscInt dim, PetscInt radius, const PetscInt n[3], const PetscBool neighbour[3][2], Box *interior, Box shell[6], PetscInt *nshell);

#ifdef __cplusplus
}
#endif
