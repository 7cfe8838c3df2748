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
