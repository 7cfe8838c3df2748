/* What two forward steps in one sweep need beside the stages (state.h:
   VDPair): step n's injection and step n + 1's records, by layer. */
#include "equations/variable_density/kernels.h"
#include <stdlib.h>

typedef struct {
  ptrdiff_t cell;
  PetscInt  row;
} CellRow;

static int ByCell(const void *a, const void *b)
{
  const CellRow *x = (const CellRow *)a, *y = (const CellRow *)b;
  return x->cell < y->cell ? -1 : x->cell > y->cell ? 1 : x->row < y->row ? -1 : x->row > y->row;
}

static PetscErrorCode LayerCellsDestroy(VDLayerCells *lc)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(lc->at, lc->row, lc->cell));
  PetscFunctionReturn(0);
}

/* The n cells cr[] (sorted here) by layer, repeated cells once (the first
   row that named it); *ok false where one lies outside the owned layers. */
static PetscErrorCode LayerCellsCreate(const VDState *s, PetscInt n, CellRow cr[], VDLayerCells *lc, PetscBool *ok)
{
  const PetscInt  N = s->n[s->dim - 1], R = s->radius;
  const ptrdiff_t st = s->stride[s->dim - 1];
  PetscInt        m  = 0;

  PetscFunctionBeginUser;
  qsort(cr, (size_t)n, sizeof(*cr), ByCell);
  PetscCall(PetscCalloc3(N + 1, &lc->at, n, &lc->row, n, &lc->cell));
  *ok = PETSC_TRUE;
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt l = (PetscInt)(cr[k].cell / st) - R;
    if (m && lc->cell[m - 1] == cr[k].cell) continue;
    if (l < 0 || l >= N) *ok = PETSC_FALSE;
    else lc->at[l + 1]++;
    lc->cell[m]  = cr[k].cell;
    lc->row[m++] = cr[k].row;
  }
  for (PetscInt l = 0; l < N; l++) lc->at[l + 1] += lc->at[l];
  PetscFunctionReturn(0);
}

/* The injection's cells: the map's rows, each a cell of its own. */
static PetscErrorCode InjectCells(const VDState *s, const PointMap *m, VDLayerCells *lc, PetscBool *ok)
{
  CellRow *cr;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m->nrows, &cr));
  for (PetscInt i = 0; i < m->nrows; i++) cr[i] = (CellRow){m->cell[i], i};
  PetscCall(LayerCellsCreate(s, m->nrows, cr, lc, ok));
  PetscCall(PetscFree(cr));
  PetscFunctionReturn(0);
}

/* A record's cells, and its map with each entry pointing at its cell's
   place among them. */
static PetscErrorCode RecordCells(const VDState *s, const PointMap *m, VDLayerCells *lc, PointMap *compact, PetscBool *ok)
{
  const PetscInt n = m->start[m->nrows];
  CellRow       *cr;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n, &cr));
  *ok = PETSC_TRUE;
  for (PetscInt e = 0; e < n; e++) {
    cr[e] = (CellRow){m->index[e], e};
    if (m->index[e] < 0) *ok = PETSC_FALSE; /* another rank's value */
  }
  if (*ok) PetscCall(LayerCellsCreate(s, n, cr, lc, ok));
  *compact = (PointMap){m->nrows, NULL, m->start, NULL, m->weight};
  if (*ok) {
    PetscCall(PetscMalloc1(n, &compact->index));
    /* the sorted cells, each with every entry that reads it */
    for (PetscInt e = 0, k = -1; e < n; e++) {
      if (!e || cr[e].cell != cr[e - 1].cell) k++;
      compact->index[cr[e].row] = k;
    }
  }
  PetscCall(PetscFree(cr));
  PetscFunctionReturn(0);
}

PetscErrorCode VDPairDestroy(VDState *s)
{
  VDPair *pr = s->pair;

  PetscFunctionBeginUser;
  if (!pr) PetscFunctionReturn(0);
  PetscCall(LayerCellsDestroy(&pr->inject));
  PetscCall(PetscFree(pr->amount));
  for (PetscInt k = 0; k < pr->nrecord; k++) {
    PetscCall(LayerCellsDestroy(&pr->record[k].cells));
    PetscCall(PetscFree(pr->record[k].compact.index));
    PetscCall(PetscFree(pr->record[k].value));
  }
  PetscCall(PetscFree(s->pair));
  PetscFunctionReturn(0);
}

/* Whether pr was built for these maps. */
static PetscBool Serves(const VDPair *pr, const PointMap *src, PetscInt nrecord, const EquationRecording next[])
{
  if (!pr || pr->src != src || pr->nrecord != nrecord) return PETSC_FALSE;
  for (PetscInt k = 0; k < nrecord; k++)
    if (pr->record[k].map != next[k].map || pr->record[k].component != next[k].component) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscErrorCode Build(VDState *s, const PointMap *src, PetscInt nrecord, const EquationRecording next[])
{
  VDPair   *pr;
  PetscBool fits;

  PetscFunctionBeginUser;
  PetscCall(VDPairDestroy(s));
  PetscCall(PetscNew(&s->pair));
  pr      = s->pair;
  pr->src = src;
  PetscCall(InjectCells(s, src, &pr->inject, &pr->fits));
  PetscCall(PetscMalloc1(src->nrows, &pr->amount));
  for (PetscInt k = 0; k < nrecord; k++) {
    const PetscInt n = next[k].map->start[next[k].map->nrows];
    pr->record[k].map       = next[k].map;
    pr->record[k].component = next[k].component;
    pr->nrecord             = k + 1;
    PetscCall(RecordCells(s, next[k].map, &pr->record[k].cells, &pr->record[k].compact, &fits));
    PetscCall(PetscMalloc1(n, &pr->record[k].value));
    pr->fits = pr->fits && fits;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode VDPairPrepare(VDState *s, const EquationStepPoints *points, PetscInt nrecord, const EquationRecording next[], PetscBool *ok)
{
  const PointMap *m = points->src;
  VDPair         *pr;

  PetscFunctionBeginUser;
  if (!Serves(s->pair, m, nrecord, next)) PetscCall(Build(s, m, nrecord, next));
  pr  = s->pair;
  *ok = pr->fits;
  if (!*ok) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < m->nrows; k++) {
    const PetscInt i = pr->inject.row[k];
    pr->amount[k]    = s->kdt[pr->inject.cell[k]] * (float)PointMapRowSum(m, i, points->wav, NULL); /* as Inject forms it */
  }
  PetscFunctionReturn(0);
}
