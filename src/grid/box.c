/* Cutting a rank's owned cells into boxes: see box.h. */
#include "grid/box.h"

void BoxSplitAtLayers(const PetscInt core[3][2], const Box *b, PetscBool split, Box *out, PetscInt *nout)
{
  PetscInt cut[3][4], ncut[3];

  for (PetscInt a = 0; a < 3; a++) {
    const PetscInt core_lo = core[a][0], core_hi = core[a][1];
    cut[a][0] = b->lo[a];
    ncut[a]   = 1;
    /* never along axis 0: its rows stay whole and the kernels split them */
    if (split && a && core_lo > b->lo[a] && core_lo < b->hi[a]) cut[a][ncut[a]++] = core_lo;
    if (split && a && core_hi > b->lo[a] && core_hi < b->hi[a]) cut[a][ncut[a]++] = core_hi;
    cut[a][ncut[a]] = b->hi[a];
  }
  for (PetscInt k = 0; k < ncut[2]; k++)
    for (PetscInt j = 0; j < ncut[1]; j++)
      for (PetscInt i = 0; i < ncut[0]; i++) {
        Box            p;
        const PetscInt idx[3] = {i, j, k};
        p.layer_axes          = 0;
        for (PetscInt a = 0; a < 3; a++) {
          p.lo[a] = cut[a][idx[a]];
          p.hi[a] = cut[a][idx[a] + 1];
          if (p.lo[a] < core[a][0] || p.hi[a] > core[a][1]) p.layer_axes |= 1u << a;
        }
        if (p.hi[0] > p.lo[0] && p.hi[1] > p.lo[1] && p.hi[2] > p.lo[2]) out[(*nout)++] = p;
      }
}

void BoxesInteriorShell(PetscInt dim, PetscInt radius, const PetscInt n[3], const PetscBool neighbour[3][2], Box *interior, Box shell[6], PetscInt *nshell)
{
  Box inner, owned;

  inner.layer_axes = owned.layer_axes = 0;
  for (PetscInt a = 0; a < 3; a++) {
    const PetscInt w = a < dim ? radius : 0;
    owned.lo[a]      = 0;
    owned.hi[a]      = n[a];
    inner.lo[a]      = neighbour[a][0] ? w : 0;
    inner.hi[a]      = PetscMax(inner.lo[a], n[a] - (neighbour[a][1] ? w : 0));
  }
  BoxShell(dim, &owned, &inner, shell, nshell);
  *interior = inner;
}
