/* Layout of the CPML memory slabs: see LayerSlab in kernels.h. */
#include "kernels.h"

/* The slab of axis a's low (side 0) or high (side 1) layer.  The adjoint
   updates cells up to `radius` past the layer, reading `radius` further, so
   the slab covers those cells and their stencil (ghosts included) and exists
   on every rank that owns such a cell.  It also keeps at least `radius` owned
   cells, so that it can be exchanged as a field of its own.  Beyond the layer
   psi and zeta stay zero. */
static void SlabDescribe(const Fields *f, PetscInt a, PetscInt side, LayerSlab *s)
{
  const PetscInt r = f->radius, n = f->n[a], P = f->padded[a], lo = f->layer_edge[a][0], hi = f->layer_edge[a][1];

  PetscMemzero(s, sizeof(*s));
  if (!f->layer[a][side]) return;
  if (side == 0 && lo + r > 0) s->hi = PetscMin(P, PetscMax(lo, 0) + 3 * r);
  if (side == 1 && hi - r < n) {
    s->lo = PetscMin(PetscMax(0, hi - r), n - r);
    s->hi = P;
  }
  if (s->hi == s->lo) return;
  s->ncells = 1;
  for (PetscInt b = 0; b < 3; b++) {
    const PetscInt extent = b == a ? s->hi - s->lo : f->padded[b];
    s->stride[b]          = b ? s->stride[b - 1] * (b - 1 == a ? s->hi - s->lo : f->padded[b - 1]) : 1;
    s->ncells *= (size_t)extent;
  }
}

void FieldsDescribeSlabs(Fields *f)
{
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt s = 0; s < 2; s++) SlabDescribe(f, a, s, &f->slab[a][s]);
}

