/* Support boxes of a forward run (support.h). */
#include "equations/support.h"

/* *b grown to hold cell i (owned indices). */
static void BoxAddCell(Box *b, const PetscInt i[3])
{
  const Box cell = {{i[0], i[1], i[2]}, {i[0] + 1, i[1] + 1, i[2] + 1}, 0};

  BoxJoin(b, &cell);
}

/* The cells a row is scanned by at once (a test of that many the compiler
   vectorises: most of a shell's rows are 0 throughout), and how many rows
   ahead BoxAddNonzero fetches a row's ends.  3D variable-density gradient
   128^3 x 200: the scan took 3.9% of the process one cell at a time, 0.9%
   so. */
#define SCAN_CELLS 32
#define SCAN_AHEAD 8

/* The first cell of row[lo, hi) that is not 0 (hi where none). */
static PetscInt FirstNonzero(const float *row, PetscInt lo, PetscInt hi)
{
  for (; lo + SCAN_CELLS <= hi; lo += SCAN_CELLS) {
    int any = 0;
    for (PetscInt i = 0; i < SCAN_CELLS; i++) any |= row[lo + i] != 0.0f;
    if (any) break;
  }
  while (lo < hi && row[lo] == 0.0f) lo++;
  return lo;
}

/* One past the last cell of row[lo, hi) that is not 0 (lo where none). */
static PetscInt EndNonzero(const float *row, PetscInt lo, PetscInt hi)
{
  for (; hi - SCAN_CELLS >= lo; hi -= SCAN_CELLS) {
    int any = 0;
    for (PetscInt i = 1; i <= SCAN_CELLS; i++) any |= row[hi - i] != 0.0f;
    if (any) break;
  }
  while (hi > lo && row[hi - 1] == 0.0f) hi--;
  return hi;
}

/* *b grown to hold every cell of box c that is not 0 in u: each row's
   first and last such cell, the rows shared out among the threads (a
   3D shell holds about as many cells as a step updates in a few planes,
   and the forward run waits for it). */
static void BoxAddNonzero(const Grid *g, const float *u, const Box *c, Box *b)
{
  ptrdiff_t stride[3];

  GridPaddedStrides(g, stride);
  _Pragma("omp parallel")
  {
    Box mine = {{0, 0, 0}, {0, 0, 0}, 0};
    _Pragma("omp for collapse(2) schedule(static)") for (PetscInt k = c->lo[2]; k < c->hi[2]; k++)
      for (PetscInt j = c->lo[1]; j < c->hi[1]; j++) {
        const float *row = u + GridPaddedIndex(g, (PetscInt[3]){0, j, k});
        /* the ends of a row SCAN_AHEAD on asked for now: a shell's slabs
           across axis 0 have rows of a few cells, each in lines of its
           own, and scanned one by one each waited for memory */
        if (j + SCAN_AHEAD < c->hi[1]) {
          __builtin_prefetch(row + SCAN_AHEAD * stride[1] + c->lo[0]);
          __builtin_prefetch(row + SCAN_AHEAD * stride[1] + c->hi[0] - 1);
        }
        const PetscInt lo = FirstNonzero(row, c->lo[0], c->hi[0]), hi = EndNonzero(row, lo, c->hi[0]);
        if (lo < hi) BoxJoin(&mine, &(Box){{lo, j, k}, {hi, j + 1, k + 1}, 0});
      }
    _Pragma("omp critical") BoxJoin(b, &mine);
  }
}

PetscErrorCode FieldSupportStart(FieldSupport *s, const Grid *g, PetscBool host, PetscInt every, PetscInt nsteps, const PointMap *src)
{
  const PetscInt nlevel = nsteps + 1;
  ptrdiff_t      stride[4];
  Box            b = {{0, 0, 0}, {0, 0, 0}, 0};

  PetscFunctionBeginUser;
  s->nlevel = 0;
  if (!host) PetscFunctionReturn(0);
  if (s->cap < nlevel) {
    PetscCall(PetscFree(s->box));
    PetscCall(PetscMalloc1(nlevel, &s->box));
    s->cap = nlevel;
  }
  s->grid   = g;
  s->nlevel = nlevel;
  s->last   = 0;
  s->every  = every;
  /* the source's cells, from their padded indices read backwards */
  GridPaddedStrides(g, stride);
  for (PetscInt r = 0; r < src->nrows; r++) {
    PetscInt i[3];
    for (PetscInt a = 0; a < 3; a++) i[a] = (PetscInt)((a < 2 ? src->cell[r] % stride[a + 1] : src->cell[r]) / stride[a]) - (a < g->dim ? g->radius : 0);
    BoxAddCell(&b, i);
  }
  s->box[0] = b;
  PetscFunctionReturn(0);
}

void FieldSupportGrow(FieldSupport *s, PetscInt m, PetscInt reach, PetscInt nfield, const float *const field[])
{
  const Grid *g = s->grid;
  Box         last, b, near, shell[6];
  PetscInt    nshell;

  if (!s->nlevel || (m % s->every && m < s->nlevel - 1)) return;
  reach *= m - s->last;
  last = b = near = s->box[s->last];
  /* the cells within reach of the last box but outside it */
  if (!BoxEmpty(&last)) {
    for (int a = 0; a < g->dim; a++) {
      near.lo[a] = PetscMax(0, last.lo[a] - reach);
      near.hi[a] = PetscMin(g->size[a], last.hi[a] + reach);
    }
    BoxShell(g->dim, &near, &last, shell, &nshell);
    for (PetscInt k = 0; k < nshell; k++)
      for (PetscInt f = 0; f < nfield; f++) BoxAddNonzero(g, field[f], &shell[k], &b);
  }
  /* and those within reach of a face a neighbour's waves come through */
  for (int a = 0; a < g->dim; a++)
    for (int side = 0; side < 2; side++) {
      Box strip = {{0, 0, 0}, {g->size[0], g->size[1], g->size[2]}, 0};
      if (g->nbr[a][side] == MPI_PROC_NULL) continue;
      if (side) strip.lo[a] = PetscMax(0, g->size[a] - reach);
      else strip.hi[a] = PetscMin(g->size[a], reach);
      for (PetscInt f = 0; f < nfield; f++) BoxAddNonzero(g, field[f], &strip, &b);
    }
  for (PetscInt l = s->last + 1; l <= m; l++) s->box[l] = b;
  s->last = m;
}

PetscErrorCode FieldSupportJoin(FieldSupport *s, const Grid *g)
{
  const PetscInt nhalf = 3 * s->nlevel;
  PetscInt      *ends;

  PetscFunctionBeginUser;
  if (!s->nlevel) PetscFunctionReturn(0);
  /* lo and -hi in the group's indices, an empty box as +-PETSC_MAX_INT: one MIN over the group */
  PetscCall(PetscMalloc1(2 * nhalf, &ends));
  for (PetscInt m = 0; m < s->nlevel; m++)
    for (int a = 0; a < 3; a++) {
      const Box *b = &s->box[m];
      ends[3 * m + a]         = BoxEmpty(b) ? PETSC_MAX_INT : b->lo[a] + g->start[a];
      ends[nhalf + 3 * m + a] = BoxEmpty(b) ? PETSC_MAX_INT : -(b->hi[a] + g->start[a]);
    }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, ends, (PetscMPIInt)(2 * nhalf), MPIU_INT, MPI_MIN, g->comm));
  for (PetscInt m = 0; m < s->nlevel; m++)
    for (int a = 0; a < 3; a++) {
      const PetscBool empty = ends[3 * m + a] == PETSC_MAX_INT;
      s->box[m].lo[a]       = empty ? 0 : ends[3 * m + a] - g->start[a];
      s->box[m].hi[a]       = empty ? 0 : -ends[nhalf + 3 * m + a] - g->start[a];
    }
  PetscCall(PetscFree(ends));
  PetscFunctionReturn(0);
}

PetscErrorCode FieldSupportFree(FieldSupport *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(s->box));
  s->cap = s->nlevel = s->last = 0;
  PetscFunctionReturn(0);
}

void FieldSupportStep(const FieldSupport *s, PetscInt n, Box *wide, Box *keep)
{
  const Box all = {{0, 0, 0}, {PETSC_MAX_INT, PETSC_MAX_INT, PETSC_MAX_INT}, 0};

  if (!s->nlevel) {
    *wide = *keep = all;
    return;
  }
  *keep = s->box[n];
  *wide = s->box[n + 1];
  if (BoxEmpty(wide)) return;
  for (int a = 0; a < s->grid->dim; a++) {
    wide->lo[a] = PetscMax(0, wide->lo[a] - s->grid->radius);
    wide->hi[a] = PetscMin(s->grid->size[a], wide->hi[a] + s->grid->radius);
  }
}
