/* CPU backend: two reverse steps of the boundary gradient method in one
   sweep along x (KernelOps.adjoint_pair), for a 2D rank alone in its group.

   A reverse step reads and writes about 36 bytes a cell (the adjoint's and
   the forward field's leapfrogs, the model, the image), where a forward
   step moves 16.  Here step n - 1 follows step n a few rows behind, while
   those rows are still in cache, so each cell crosses memory once for
   both; what is left is the arithmetic of two stencils a cell.  Every cell sees the
   same operations in the same order as two separate steps, so the results
   are theirs bit for bit.

   Along x, row i of step n is complete (its leapfrog, the z and x layer
   terms, the injections, the free surface, the band, and the ghosts the
   next step reads) R rows after its leapfrog, once the x sweep's window
   holds the factors of every row its layer stencils read.  Step n - 1 then
   runs 2R rows behind step n, and is complete 3R behind.  Each thread takes
   a region of rows; step n - 1's rows within R of a seam between regions
   read step n's rows of both, and are done after a barrier. */
#include "equations/acoustic/cpu/kernels_cpu.h"
#include <omp.h>

/* Rows of an injection map by the x row of their cell: row[start[i]] ..
   row[start[i + 1] - 1]. */
typedef struct {
  PetscInt *start, *row;
} MapRows;

/* One step's fields and amplitudes. */
typedef struct {
  Fields       f; /* the adjoint, fu and fuprev at the forward field */
  Fields       r; /* the forward field as its own fields */
  const float *residual, *wav, *band;
} StepFields;

typedef struct {
  const AdjointPair *w;
  StepFields         step[2];
  MapRows            reach, src;
  XSlab              slab[2];
  PetscInt           nslab;
  SlabWindow         win[2][2]; /* per step and slab */
  CPUZRows           z;
  CPUQuietRows       quiet; /* both steps' */
} Pair;

/* The x row of padded cell c (2D). */
static inline PetscInt RowOf(const Fields *f, ptrdiff_t c) { return (PetscInt)(c / f->stride[1]) - f->radius; }

static PetscErrorCode MapRowsCreate(const Fields *f, const PointMap *m, MapRows *mr)
{
  PetscInt *next;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc2(f->n[1] + 1, &mr->start, PetscMax(m->nrows, 1), &mr->row));
  for (PetscInt i = 0; i < m->nrows; i++) mr->start[RowOf(f, m->cell[i]) + 1]++;
  for (PetscInt x = 0; x < f->n[1]; x++) mr->start[x + 1] += mr->start[x];
  PetscCall(PetscMalloc1(f->n[1], &next));
  PetscCall(PetscArraycpy(next, mr->start, f->n[1]));
  for (PetscInt i = 0; i < m->nrows; i++) mr->row[next[RowOf(f, m->cell[i])]++] = i;
  PetscCall(PetscFree(next));
  PetscFunctionReturn(0);
}

static PetscErrorCode MapRowsDestroy(MapRows *mr) { return PetscFree2(mr->start, mr->row); }

/* The first row of thread t's region of T. */
static inline PetscInt RegionStart(const Fields *f, PetscInt T, PetscInt t) { return t * f->n[1] / T; }

/* Whether T threads' regions fit: each of at least 4R rows, the low slab's
   rows (both steps') all in the first region and the high slab's in the
   last, clear of the seams' rows that wait for the barrier. */
static PetscBool RegionsFit(const Fields *f, const XSlab slab[], PetscInt nslab, PetscInt T)
{
  const PetscInt R = f->radius;

  if (T == 1) return PETSC_TRUE;
  for (PetscInt t = 0; t < T; t++)
    if (RegionStart(f, T, t + 1) - RegionStart(f, T, t) < 4 * R) return PETSC_FALSE;
  for (PetscInt j = 0; j < nslab; j++)
    if (slab[j].s ? slab[j].flo < RegionStart(f, T, T - 1) + R : slab[j].fhi > RegionStart(f, T, 1) - R) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* 2D, alone along both axes (no halo exchange between the steps), no free
   surface on an x face (its ghosts are mirrored from other rows), and a
   region for every thread: with fewer, the steps one by one, on every
   thread, would be faster. */
PetscBool CPUAdjointPairPlan(const Fields *f, size_t *scratch_bytes)
{
  XSlab          slab[2];
  const PetscInt nslab = CPUXSlabs(f, slab);

  *scratch_bytes = 2 * nslab * SlabWindowFloats((size_t)f->n[0]) * sizeof(float);
  if (f->dim != 2 || f->free_surface[1][0] || f->free_surface[1][1] || !CPUAxisAlone(f, 0) || !CPUAxisAlone(f, 1)) return PETSC_FALSE;
  return RegionsFit(f, slab, nslab, omp_get_max_threads());
}

/* Row x of step k: its leapfrog and z layer terms; the parts it left as
   they were. */
static inline PetscInt RowStep(Pair *P, int k, PetscInt x) { return CPUAdjointRow(&P->step[k].f, &P->z, &P->quiet, x, 0); }

/* Row x's factors of the x slabs of step k that form them there. */
static void RowFactors(Pair *P, int k, PetscInt x) { CPUXSlabsFactors(&P->step[k].f, P->slab, P->nslab, P->win[k], x, 0); }

/* The z faces' free-surface samples of row `row` (padded index of its
   first owned cell): zeroed in uprev, or the ghosts of u mirrored. */
static inline void SurfaceRow(const Fields *f, float *field, ptrdiff_t row, PetscBool mirror)
{
  for (PetscInt s = 0; s < 2; s++) {
    const ptrdiff_t cell = row + (s ? f->n[0] - 1 : 0);
    if (!f->free_surface[0][s]) continue;
    if (mirror) CPUMirrorCell(field, cell, s ? 1 : -1, f->radius);
    else field[cell] = 0.0f;
  }
}

/* Row x of step k made complete: the x slabs' terms, the injections and
   the surface of both fields, the forward field's band, and after step 0
   the ghosts step 1 reads. */
static void RowComplete(Pair *P, int k, PetscInt x)
{
  const StepFields  *s    = &P->step[k];
  const AdjointPair *w    = P->w;
  const Fields      *f    = &s->f, *r = &s->r;
  const PetscInt     i[3] = {0, x, 0};
  const ptrdiff_t    row  = FieldsIndex(f, i);
  const float       *band = s->band;

  CPUXSlabsFinish(f, P->slab, P->nslab, P->win[k], x, 0);
  for (PetscInt e = P->reach.start[x]; e < P->reach.start[x + 1]; e++) {
    CPUInjectRow(f, f->uprev, w->reach, s->residual, P->reach.row[e]);
    if (f->uprev_live) CPUMarkInjected(f, w->reach->cell[P->reach.row[e]]);
  }
  SurfaceRow(f, f->uprev, row, PETSC_FALSE);
  for (PetscInt e = P->src.start[x]; e < P->src.start[x + 1]; e++) CPUInjectRow(r, r->uprev, w->src, s->wav, P->src.row[e]);
  SurfaceRow(r, r->uprev, row, PETSC_FALSE);
  for (PetscInt b = 0; band && b < w->nband; b++) {
    const Box     *bx  = &w->bands[b];
    const PetscInt len = bx->hi[0] - bx->lo[0];
    if (x >= bx->lo[1] && x < bx->hi[1]) memcpy(r->uprev + FieldsIndex(r, (PetscInt[3]){bx->lo[0], x, 0}), band + (size_t)(x - bx->lo[1]) * len, len * sizeof(float));
    band += BoxCells(bx);
  }
  if (!k) {
    SurfaceRow(f, f->uprev, row, PETSC_TRUE);
    SurfaceRow(r, r->uprev, row, PETSC_TRUE);
  }
}

/* Thread t of T: step 0 over its rows [r0, r1), and step 1 2R rows
   behind over those of its rows that read step 0's rows of this region
   alone; returns the row parts left as they were. */
static PetscInt Region(Pair *P, PetscInt T, PetscInt t, PetscInt r0, PetscInt r1)
{
  const Fields  *f = &P->step[0].f;
  const PetscInt R = f->radius, first = !t, last = t == T - 1;
  const PetscInt b0 = first ? r0 : r0 + R, b1 = last ? r1 : r1 - R;   /* step 1's rows */
  const PetscInt e0 = first ? -R : r0, e1 = last ? f->n[1] + R : r1;  /* step 0's factor rows, ghosts included */
  const PetscInt g0 = first ? -R : b0, g1 = last ? f->n[1] + R : b1;  /* step 1's */
  PetscInt       left = 0;

  for (PetscInt i = e0; i < r1 + 3 * R; i++) {
    const PetscInt k = i - 2 * R;
    if (i >= r0 && i < r1) left += RowStep(P, 0, i);
    if (i >= e0 && i < e1) RowFactors(P, 0, i);
    if (i - R >= r0 && i - R < r1) RowComplete(P, 0, i - R);
    if (k >= b0 && k < b1) left += RowStep(P, 1, k);
    if (k >= g0 && k < g1) RowFactors(P, 1, k);
    if (k - R >= b0 && k - R < b1) RowComplete(P, 1, k - R);
  }
  return left;
}

PetscErrorCode CPUAdjointPair(Fields *f, const AdjointPair *w)
{
  const PetscInt T = omp_get_max_threads(), R = f->radius;
  Pair           P = {.w = w};
  float         *scratch = (float *)w->scratch;

  PetscFunctionBeginUser;
  P.nslab = CPUXSlabs(f, P.slab);
  CPUZRowsSetUp(f, &P.z);
  CPUQuietRowsOf(f, &P.quiet);
  PetscCheck(RegionsFit(f, P.slab, P.nslab, T), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Two reverse steps in one sweep do not fit %" PetscInt_FMT " threads' rows", T);
  for (int k = 0; k < 2; k++) {
    StepFields *s = &P.step[k];
    s->f          = *f;
    s->r          = *w->rec;
    s->residual   = w->residual[k];
    s->wav        = w->wav[k];
    s->band       = w->band[k];
    s->f.fu_support = w->support[k];
    if (k) { /* what the first step's FieldsSwap of both would leave */
      FieldsSwap(&s->f);
      FieldsSwap(&s->r);
      s->f.fu     = s->r.u;
      s->f.fuprev = s->r.uprev;
    }
    for (PetscInt j = 0; j < P.nslab; j++, scratch += SlabWindowFloats((size_t)f->n[0])) P.win[k][j] = SlabWindowAt(scratch, (size_t)f->n[0], P.slab[j].flo);
  }
  PetscCall(MapRowsCreate(f, w->reach, &P.reach));
  PetscCall(MapRowsCreate(f, w->src, &P.src));
  PetscCall(KernelOpsCPU.record(&P.step[0].f, w->src_cells, NULL, w->at_src[0]));
  PetscCall(KernelOpsCPU.mirror_ghosts(&P.step[0].f));
  _Pragma("omp parallel num_threads(T)")
  {
    const PetscInt t    = omp_get_thread_num();
    PetscInt       left = Region(&P, T, t, RegionStart(f, T, t), RegionStart(f, T, t + 1));
    _Pragma("omp barrier");
    /* step 1's rows within R of a seam, once step 0 is done on both sides */
    _Pragma("omp for schedule(static)") for (PetscInt q = 0; q < (T - 1) * 2 * R; q++)
    {
      const PetscInt x = RegionStart(f, T, 1 + q / (2 * R)) - R + q % (2 * R);
      left += RowStep(&P, 1, x);
      RowComplete(&P, 1, x);
    }
    _Pragma("omp atomic") f->parts_left[0] += (size_t)left;
  }
  if (f->uprev_live) f->parts_left[1] += 2 * (size_t)f->n[1] * (size_t)FieldsQuietParts(f);
  PetscCall(KernelOpsCPU.record(&P.step[1].f, w->src_cells, NULL, w->at_src[1]));
  PetscCall(MapRowsDestroy(&P.reach));
  PetscCall(MapRowsDestroy(&P.src));
  PetscFunctionReturn(0);
}
