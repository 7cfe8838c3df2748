/* Layout of the CPML memory slabs: see LayerSlab in kernels.h. */
#include "kernels.h"

/* The slab of axis a's low (side 0) or high (side 1) layer: the padded range
   its layer cells and their stencil reach, and at least `radius` owned cells
   so that it can be exchanged as a field of its own (the cells beyond the
   layer are core cells, where psi stays zero). */
static void SlabDescribe(const Fields *f, PetscInt a, PetscInt side, LayerSlab *s)
{
  const PetscInt r = f->radius, n = f->n[a], P = f->padded[a], cl = f->core[a][0], ch = f->core[a][1];

  PetscMemzero(s, sizeof(*s));
  if (side == 0 && cl > 0) s->hi = PetscMin(P, PetscMax(cl, r) + 2 * r);
  if (side == 1 && ch < n) {
    s->lo = PetscMax(0, PetscMin(ch, n - r));
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
