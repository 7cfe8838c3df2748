/* What two forward steps in one sweep need beside the stages
   (staggered_pair.h): step n's injection and step n + 1's records, by
   layer. */
#include "equations/staggered_pair.h"
#include "equations/store.h"
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

static PetscErrorCode LayerCellsDestroy(StaggeredLayerCells *lc)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(lc->at, lc->row, lc->cell));
  PetscFunctionReturn(0);
}

/* The n cells cr[] (sorted here) by layer, repeated cells once (the first
   row that named it); *ok false where one lies outside the owned layers. */
static PetscErrorCode LayerCellsCreate(StaggeredLayers L, PetscInt n, CellRow cr[], StaggeredLayerCells *lc, PetscBool *ok)
{
  const PetscInt  N = L.N, R = L.R;
  const ptrdiff_t st = L.st;
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

/* The injection's cells: the map's rows, each a cell of its own (*ok
   false where two name one). */
static PetscErrorCode InjectCells(StaggeredLayers L, const PointMap *m, StaggeredLayerCells *lc, PetscBool *ok)
{
  CellRow *cr;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m->nrows, &cr));
  for (PetscInt i = 0; i < m->nrows; i++) cr[i] = (CellRow){m->cell[i], i};
  PetscCall(LayerCellsCreate(L, m->nrows, cr, lc, ok));
  for (PetscInt k = 1; k < m->nrows; k++)
    if (cr[k].cell == cr[k - 1].cell) *ok = PETSC_FALSE; /* sorted: a cell named twice lies beside itself */
  PetscCall(PetscFree(cr));
  PetscFunctionReturn(0);
}

PetscErrorCode StaggeredInjectionDestroy(StaggeredInjection *in)
{
  PetscFunctionBeginUser;
  if (in->map) PetscCall(LayerCellsDestroy(&in->cells));
  PetscCall(PetscFree(in->amount));
  in->map = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode StaggeredInjectionPrepare(StaggeredInjection *in, StaggeredLayers L, const PointMap *map, const float amp[], StaggeredScale scale, const void *state, PetscBool *ok)
{
  PetscFunctionBeginUser;
  if (in->map != map) {
    PetscCall(StaggeredInjectionDestroy(in));
    in->map = map;
    PetscCall(InjectCells(L, map, &in->cells, &in->fits));
    PetscCall(PetscMalloc1(map->nrows, &in->amount));
  }
  *ok = in->fits;
  if (!*ok) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < map->nrows; k++)
    in->amount[k] = scale(state, in->cells.cell[k]) * (float)PointMapRowSum(map, in->cells.row[k], amp, NULL); /* as the injection forms it */
  PetscFunctionReturn(0);
}

PetscErrorCode StaggeredReverseBegin(StaggeredReverse *r, const Grid *g, StaggeredLayers L, WavefieldStore store, PetscInt n, const EquationStepPoints points[2],
                                     const StaggeredScale residual_scale[EQUATION_MAX_COMPONENTS], StaggeredScale source_scale, const void *state, PetscBool *ok)
{
  const EquationStepPoints *p = &points[0];
  PetscBool                 fits;
  GridBlock                 b;

  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  GridBlockOf(g, &b);
  if (g->dim != 2 || !store || !GridBlockAlone(&b)) PetscFunctionReturn(0);
  r->nresidual = p->nresidual;
  for (PetscInt k = 0; k < p->nresidual; k++) {
    const EquationResidual *e = &p->residual[k];
    if (!residual_scale[e->component]) PetscFunctionReturn(0);
    r->component[k] = e->component;
    PetscCall(StaggeredInjectionPrepare(&r->residual[k], L, e->reach, e->residual, residual_scale[e->component], state, &fits));
    if (!fits) PetscFunctionReturn(0);
  }
  PetscCall(StaggeredInjectionPrepare(&r->source, L, points[1].src, points[1].wav, source_scale, state, &fits));
  if (!fits) PetscFunctionReturn(0);
  PetscCall(WavefieldStoreReadBegin(store, n, &r->saved[0]));
  PetscCall(WavefieldStoreReadBegin(store, n - 1, &r->saved[1]));
  *ok = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode StaggeredReverseEnd(StaggeredReverse *r, WavefieldStore store, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(WavefieldStoreReadEnd(store, n));
  r->saved[0] = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode StaggeredReverseDestroy(StaggeredReverse *r)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < EQUATION_MAX_COMPONENTS; k++) PetscCall(StaggeredInjectionDestroy(&r->residual[k]));
  PetscCall(StaggeredInjectionDestroy(&r->source));
  PetscFunctionReturn(0);
}

/* A record's cells, and its map with each entry pointing at its cell's
   place among them. */
static PetscErrorCode RecordCells(StaggeredLayers L, const PointMap *m, StaggeredLayerCells *lc, PointMap *compact, PetscBool *ok)
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
  if (*ok) PetscCall(LayerCellsCreate(L, n, cr, lc, ok));
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

PetscErrorCode StaggeredPairDestroy(StaggeredPair **pair)
{
  StaggeredPair *pr = *pair;

  PetscFunctionBeginUser;
  if (!pr) PetscFunctionReturn(0);
  PetscCall(StaggeredInjectionDestroy(&pr->inject));
  for (PetscInt k = 0; k < pr->nrecord; k++) {
    PetscCall(LayerCellsDestroy(&pr->record[k].cells));
    PetscCall(PetscFree(pr->record[k].compact.index));
    PetscCall(PetscFree(pr->record[k].value));
  }
  PetscCall(PetscFree(*pair));
  PetscFunctionReturn(0);
}

/* Whether pr was built for these maps. */
static PetscBool Serves(const StaggeredPair *pr, const PointMap *src, PetscInt nrecord, const EquationRecording next[])
{
  if (!pr || pr->inject.map != src || pr->nrecord != nrecord) return PETSC_FALSE;
  for (PetscInt k = 0; k < nrecord; k++)
    if (pr->record[k].map != next[k].map || pr->record[k].component != next[k].component) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The records' cells (the injection's are StaggeredInjectionPrepare's). */
static PetscErrorCode Build(StaggeredPair **pair, StaggeredLayers L, PetscInt nrecord, const EquationRecording next[])
{
  StaggeredPair *pr;
  PetscBool      fits;

  PetscFunctionBeginUser;
  PetscCall(StaggeredPairDestroy(pair));
  PetscCall(PetscNew(pair));
  pr       = *pair;
  pr->fits = PETSC_TRUE;
  for (PetscInt k = 0; k < nrecord; k++) {
    const PetscInt n = next[k].map->start[next[k].map->nrows];
    pr->record[k].map       = next[k].map;
    pr->record[k].component = next[k].component;
    pr->nrecord             = k + 1;
    PetscCall(RecordCells(L, next[k].map, &pr->record[k].cells, &pr->record[k].compact, &fits));
    PetscCall(PetscMalloc1(n, &pr->record[k].value));
    pr->fits = pr->fits && fits;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode StaggeredPairPrepare(StaggeredPair **pair, StaggeredLayers L, const EquationStepPoints *points, PetscInt nrecord, const EquationRecording next[],
                                    StaggeredScale scale, const void *state, PetscBool *ok)
{
  StaggeredPair *pr;

  PetscFunctionBeginUser;
  if (!Serves(*pair, points->src, nrecord, next)) PetscCall(Build(pair, L, nrecord, next));
  pr = *pair;
  PetscCall(StaggeredInjectionPrepare(&pr->inject, L, points->src, points->wav, scale, state, ok));
  *ok = *ok && pr->fits;
  PetscFunctionReturn(0);
}

void StaggeredPairRecords(const StaggeredPair *pr, const EquationRecording next[])
{
  for (PetscInt k = 0; k < pr->nrecord; k++)
    for (PetscInt i = 0; i < pr->record[k].compact.nrows; i++) next[k].out[i] = (float)PointMapRowSum(&pr->record[k].compact, i, pr->record[k].value, NULL);
}

PetscErrorCode StaggeredPairKeepBegin(StaggeredPair *pr, WavefieldStore store, PetscInt step, const Grid *g, PetscInt nband, const StaggeredBand *band, PetscInt nf,
                                      float *const f[])
{
  PetscFunctionBeginUser;
  pr->keep.buf = NULL;
  if (!store) PetscFunctionReturn(0);
  PetscCheck(nf <= STAGGERED_BAND_FIELDS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "a sweep keeps the bands of at most %d fields, not %" PetscInt_FMT, STAGGERED_BAND_FIELDS, nf);
  pr->keep.grid  = g;
  pr->keep.nband = nband;
  pr->keep.band  = band;
  for (PetscInt k = 0; k < nf; k++) pr->keep.f[k] = f[k];
  PetscCall(WavefieldStoreWriteBegin(store, step, &pr->keep.buf));
  PetscFunctionReturn(0);
}

PetscErrorCode StaggeredPairKeepEnd(StaggeredPair *pr, WavefieldStore store, PetscInt step)
{
  PetscFunctionBeginUser;
  if (pr->keep.buf) PetscCall(WavefieldStoreWriteEnd(store, step));
  pr->keep.buf = NULL;
  PetscFunctionReturn(0);
}
