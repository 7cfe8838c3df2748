/* The layout of a rank's fields: see fields.h and LayerSlab in kernels.h. */
#include "fields.h"

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

void FieldsFromGrid(const Grid *g, Fields *f)
{
  PetscMemzero(f, sizeof(*f));
  f->dim    = g->dim;
  f->order  = g->order;
  f->radius = g->radius;
  f->ncells = 1;
  for (PetscInt a = 0; a < 3; a++) {
    f->n[a]      = g->size[a];
    f->padded[a] = a < g->dim ? g->size[a] + 2 * g->radius : 1;
    f->stride[a] = a ? f->stride[a - 1] * f->padded[a - 1] : 1;
    f->ncells *= (size_t)f->padded[a];
    f->core[a][0] = PetscMax(0, PetscMin(g->size[a], g->pml[a][0] - g->start[a]));
    f->core[a][1] = PetscMax(f->core[a][0], PetscMin(g->size[a], g->pml[a][0] + g->n[a] - g->start[a]));
    f->layer_edge[a][0] = g->pml[a][0] - g->start[a];
    f->layer_edge[a][1] = g->pml[a][0] + g->n[a] - g->start[a];
    for (PetscInt s = 0; s < 2; s++) {
      f->free_surface[a][s] = GridFreeSurface(g, a, s);
      f->layer[a][s]        = g->pml[a][s] > 0 ? PETSC_TRUE : PETSC_FALSE;
    }
    for (PetscInt k = 0; k <= g->radius; k++) {
      const double h = a < g->dim ? g->d[a] : 1;
      f->c2[a][k]    = (float)(fwi_d2_weight((int)g->order, (int)k) / (h * h));
      f->c1[a][k]    = (float)(fwi_d1_weight((int)g->order, (int)k) / h);
    }
  }
  FieldsDescribeSlabs(f);
}

void FieldsBytes(const Fields *f, double *all, double *layers)
{
  double total = 0;
#define FIELDS_COUNT(p, n) total += (double)(n) * sizeof(float)
  FIELDS_STATE_ARRAYS(f, FIELDS_COUNT);
  FIELDS_MODEL_ARRAYS(f, FIELDS_COUNT);
#undef FIELDS_COUNT
  *all    = total;
  *layers = 0;
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt s = 0; s < 2; s++) *layers += 2.0 * f->slab[a][s].ncells * sizeof(float);
}

double FieldsGridBytes(const Grid *g)
{
  Fields f;
  double all, layers;

  FieldsFromGrid(g, &f);
  FieldsBytes(&f, &all, &layers);
  return all;
}
