/* Two forward steps of a staggered scheme in one sweep on a rank alone
   (StaggeredFusedSweep's four stages: step n's two, then step n + 1's):
   what the sweep does beside the stages, by layer of the outermost axis.
   Step n's injection: its cells and what each gains (amount[k], formed
   before the sweep, as the equation's injection forms it).  Step n + 1's
   records: each record's cells copied to value[] as the sweep passes them
   (once step n has left them as step n + 1's records read them), read
   after the sweep through a copy of the record's map whose entries index
   value[] (compact).  Built for one run's maps and kept until the next run
   begins.  Where the run keeps a boundary method's bands, step n + 1's
   start goes to its store layer by layer too (keep). */
#pragma once
#include "equations/equation.h"
#include "equations/staggered.h"

/* Cells grouped by the layer they lie on: layer l's are cell[k] for k in
   [at[l], at[l + 1]), ascending; row[k] the map row each came from. */
typedef struct {
  PetscInt  *at, *row;
  ptrdiff_t *cell;
} StaggeredLayerCells;

/* An injection by layer: the rows of map (each a cell of its own) and what
   each cell gains (amount[k] for cells.cell[k]), formed before a sweep as
   the equation's injection forms it. */
typedef struct {
  const PointMap     *map;
  StaggeredLayerCells cells;
  float              *amount;
  PetscBool           fits; /* every cell on an owned layer, none named twice */
} StaggeredInjection;

typedef struct StaggeredPair {
  PetscBool           fits; /* every cell on an owned layer, none another rank's */
  StaggeredInjection  inject;
  PetscInt            nrecord;
  struct {
    const PointMap     *map;
    PetscInt            component;
    StaggeredLayerCells cells;
    PointMap            compact; /* start and weight: map's own */
    float              *value;
  } record[EQUATION_MAX_COMPONENTS];
  /* Step n + 1's bands of fields f (buf: its slot of the store, laid out
     as StaggeredBandCopy saves them; NULL while the sweep keeps nothing). */
  struct {
    const Grid          *grid;
    PetscInt             nband;
    const StaggeredBand *band;
    float               *f[STAGGERED_BAND_FIELDS];
    float               *buf;
  } keep;
} StaggeredPair;

/* The sweep's layers: N owned along the outermost axis, of stride st, in
   a padded box of radius R. */
typedef struct {
  PetscInt  N, R;
  ptrdiff_t st;
} StaggeredLayers;

/* Those of a state of dim axes, radius R, n owned cells and strides
   stride per axis. */
static inline StaggeredLayers StaggeredLayersOf(PetscInt dim, PetscInt R, const PetscInt n[3], const ptrdiff_t stride[3]) { return (StaggeredLayers){n[dim - 1], R, stride[dim - 1]}; }

/* What an injection adds at a cell per unit of its row's sum (state: the
   equation's). */
typedef float (*StaggeredScale)(const void *state, ptrdiff_t cell);

/* Makes *in serve map (built anew where it served another), each cell
   gaining scale(state, cell) times its row's sum of amp; *ok false where
   a cell lies outside the owned layers or two rows name one.  Destroy
   frees it. */
PetscErrorCode StaggeredInjectionPrepare(StaggeredInjection *in, StaggeredLayers L, const PointMap *map, const float amp[], StaggeredScale scale, const void *state, PetscBool *ok);
PetscErrorCode StaggeredInjectionDestroy(StaggeredInjection *in);

/* Two reverse steps, n and n - 1, in one sweep (an equation's
   reverse_pair): step n's residuals (residual[k] those of component
   component[k], the k-th of its points) and step n - 1's source, each by
   layer, and the store's slots of both steps. */
typedef struct {
  PetscInt           nresidual, component[EQUATION_MAX_COMPONENTS];
  StaggeredInjection residual[EQUATION_MAX_COMPONENTS], source;
  float             *saved[2];
} StaggeredReverse;

/* Makes r serve reverse steps n and n - 1 of points on state's grid g
   (each residual's cell of component c gaining residual_scale[c](state,
   cell) times its row's sum, each source cell source_scale's) and opens
   both steps' slots of store; *ok false, nothing opened, where the rank
   has a neighbour or is not 2D, step n has residuals of a component whose
   residual_scale is NULL (the equation's turn cannot take them: they
   would go into fields that step n's last stages still read), or a cell
   lies off the owned layers.  End closes slot n after the sweep (step n -
   1's StepEnd closes its own); Destroy frees r. */
PetscErrorCode StaggeredReverseBegin(StaggeredReverse *r, const Grid *g, StaggeredLayers L, WavefieldStore store, PetscInt n, const EquationStepPoints points[2],
                                     const StaggeredScale residual_scale[EQUATION_MAX_COMPONENTS], StaggeredScale source_scale, const void *state, PetscBool *ok);
PetscErrorCode StaggeredReverseEnd(StaggeredReverse *r, WavefieldStore store, PetscInt n);
PetscErrorCode StaggeredReverseDestroy(StaggeredReverse *r);

/* Makes *pair serve step n's points and the records next[] (built anew
   where they differ from the ones it serves), each injected cell gaining
   scale(state, cell) times its row's sum of the wavelet; *ok false where
   a cell of theirs lies outside the owned layers (or a record reads
   another rank's values).  Destroy frees it, for the next run. */
PetscErrorCode StaggeredPairPrepare(StaggeredPair **pair, StaggeredLayers L, const EquationStepPoints *points, PetscInt nrecord, const EquationRecording next[],
                                    StaggeredScale scale, const void *state, PetscBool *ok);
PetscErrorCode StaggeredPairDestroy(StaggeredPair **pair);

/* After the sweep: next[k].out[i] = row i's sum over record k's values,
   as an equation's record takes it from its fields. */
void StaggeredPairRecords(const StaggeredPair *pr, const EquationRecording next[]);

/* Residual k of r (component r->component[k]) into field f on layer l. */
static inline void StaggeredReverseResidualLayer(const StaggeredReverse *r, PetscInt k, PetscInt l, float *f)
{
  const StaggeredInjection *in = &r->residual[k];

  for (PetscInt i = in->cells.at[l]; i < in->cells.at[l + 1]; i++) f[in->cells.cell[i]] = f[in->cells.cell[i]] + in->amount[i];
}

/* The values of pair's records of component c on layer l, at(state, c,
   cell) each. */
static inline void StaggeredPairRecordLayer(const StaggeredPair *pr, PetscInt c, PetscInt l, float (*at)(const void *state, PetscInt c, ptrdiff_t cell), const void *state)
{
  for (PetscInt k = 0; k < pr->nrecord; k++) {
    const StaggeredLayerCells *lc = &pr->record[k].cells;
    if (pr->record[k].component != c) continue;
    for (PetscInt i = lc->at[l]; i < lc->at[l + 1]; i++) pr->record[k].value[i] = at(state, c, lc->cell[i]);
  }
}

/* Before the sweep: keep step's start (the nband bands of the nf fields
   f) in store's slot step, layer by layer (store NULL: keep nothing);
   KeepEnd closes the slot after it. */
PetscErrorCode StaggeredPairKeepBegin(StaggeredPair *pr, WavefieldStore store, PetscInt step, const Grid *g, PetscInt nband, const StaggeredBand *band, PetscInt nf,
                                      float *const f[]);
PetscErrorCode StaggeredPairKeepEnd(StaggeredPair *pr, WavefieldStore store, PetscInt step);

/* Layer l's rows of the bands kept, once the sweep has left step n + 1's
   start there (after step n's end on the layer, before step n + 1's first
   stage writes it). */
static inline void StaggeredPairKeepLayer(const StaggeredPair *pr, PetscInt l)
{
  if (pr->keep.buf) StaggeredBandCopyLayer(pr->keep.grid, pr->keep.nband, pr->keep.band, pr->keep.f, PETSC_TRUE, 0, pr->keep.buf, l);
}
