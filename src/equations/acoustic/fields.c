/* The layout of a rank's fields: see fields.h. */
#include "equations/acoustic/fields.h"
#include "equations/equation.h"

/* Slab (a, side)'s range (GridBlockLayerSlab), strides and size (no memory). */
static void SlabDescribe(const GridBlock *b, const Fields *f, PetscInt a, PetscInt side, LayerSlab *s)
{
  PetscMemzero(s, sizeof(*s));
  GridBlockLayerSlab(b, a, side, &s->lo, &s->hi);
  if (s->hi == s->lo) return;
  s->stride[0] = 1;
  s->stride[1] = a == 0 ? s->hi - s->lo : f->stride[1]; /* a row as the field's: along its own axis the slab steps as the field */
  s->stride[2] = s->stride[1] * (a == 1 ? s->hi - s->lo : f->padded[1]);
  s->ncells    = (size_t)s->stride[2] * (a == 2 ? s->hi - s->lo : f->padded[2]);
}

void FieldsDescribe(const GridBlock *b, Fields *f)
{
  const PetscInt r = b->order / 2;

  PetscMemzero(f, sizeof(*f));
  f->dim    = b->dim;
  f->order  = b->order;
  f->radius = r;
  for (PetscInt a = 0; a < 3; a++) {
    const PetscBool active = a < b->dim ? PETSC_TRUE : PETSC_FALSE;
    f->n[a]                = active ? b->n[a] : 1;
    f->padded[a]           = active ? f->n[a] + 2 * r : 1;
    f->stride[a]           = a ? f->stride[a - 1] * (a == 1 && b->pitch ? b->pitch : f->padded[a - 1]) : 1;
    f->layer_edge[a][0] = active ? b->layer_edge[a][0] : 0;
    f->layer_edge[a][1] = active ? b->layer_edge[a][1] : 1;
    for (PetscInt s = 0; s < 2; s++) {
      f->layer[a][s]        = active && b->layer[a][s] ? PETSC_TRUE : PETSC_FALSE;
      f->free_surface[a][s] = active && b->free_surface[a][s] ? PETSC_TRUE : PETSC_FALSE;
      f->neighbour[a][s]    = active && b->neighbour[a][s] ? PETSC_TRUE : PETSC_FALSE;
    }
    for (PetscInt k = 0; k <= r; k++) {
      const double h = active ? b->d[a] : 1;
      f->c2[a][k]    = (float)(fd_d2_weight((int)b->order, (int)k) / (h * h));
      f->c1[a][k]    = (float)(fd_d1_weight((int)b->order, (int)k) / h);
    }
  }
  f->ncells = (size_t)f->stride[2] * f->padded[2];
  GridBlockCore(b, f->core);
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt s = 0; s < 2; s++) SlabDescribe(b, f, a, s, &f->slab[a][s]);
}

void FieldsBytes(const Fields *f, double *all, double *layers)
{
  double total = 0;
#define FIELDS_COUNT(p, n) total += EquationArrayBytes((double)(n))
  FIELDS_STATE_ARRAYS(f, FIELDS_COUNT);
  FIELDS_MODEL_ARRAYS(f, FIELDS_COUNT);
#undef FIELDS_COUNT
  *all    = total;
  *layers = 0;
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt s = 0; s < 2; s++) *layers += 2.0 * EquationArrayBytes((double)f->slab[a][s].ncells);
}

size_t FieldsBandBoxes(const Fields *f, Box band[6], PetscInt *nband)
{
  const PetscInt r     = f->radius;
  size_t         total = 0;

  *nband = 0;
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      Box *b = &band[*nband];
      if (!f->layer[a][s]) continue;
      b->layer_axes = 1u << a;
      for (PetscInt c = 0; c < 3; c++) {
        PetscInt lo = f->layer_edge[c][0], hi = f->layer_edge[c][1];
        if (c == a) {
          lo = s ? f->layer_edge[a][1] : f->layer_edge[a][0] - r;
          hi = lo + r;
        }
        b->lo[c] = PetscMax(0, PetscMin(f->n[c], lo));
        b->hi[c] = PetscMax(b->lo[c], PetscMin(f->n[c], hi));
      }
      if (!BoxCells(b)) continue;
      total += BoxCells(b);
      (*nband)++;
    }
  return total;
}

void FieldsGpuTileGrid(PetscInt dim, PetscInt rows, PetscInt run, const PetscInt e[3], PetscInt64 grid[3])
{
  const PetscInt64 runs = (e[dim - 1] + run - 1) / run, threads_y = dim == 3 ? e[1] : runs;

  grid[0] = (e[0] + FIELDS_GPU_TILE_WIDTH - 1) / FIELDS_GPU_TILE_WIDTH;
  grid[1] = (threads_y + rows - 1) / rows;
  grid[2] = dim == 3 ? runs : 1;
}

PetscErrorCode FieldsGpuTileCheck(const Fields *f, PetscInt rows, PetscInt run)
{
  PetscInt64 grid[3];

  PetscFunctionBeginUser;
  FieldsGpuTileGrid(f->dim, rows, run, f->n, grid);
  PetscCheck(grid[1] <= FIELDS_GPU_TILE_GRID_LIMIT && grid[2] <= FIELDS_GPU_TILE_GRID_LIMIT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-gpu_tile %" PetscInt_FMT ",%" PetscInt_FMT ": the core kernel would take %" PetscInt64_FMT " x %" PetscInt64_FMT
             " blocks along y and z for this rank's %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells, at most %d each: give more ROWS or a longer RUN",
             rows, run, grid[1], grid[2], f->n[0], f->n[1], f->n[2], FIELDS_GPU_TILE_GRID_LIMIT);
  PetscFunctionReturn(0);
}

void FieldsOfGrid(const Grid *g, Fields *f)
{
  GridBlock b;

  GridBlockOf(g, &b);
  FieldsDescribe(&b, f);
}
