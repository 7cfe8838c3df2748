/* The boundary method's support boxes (support.h). */
#include "equations/acoustic/support.h"
#include "grid/box.h"

static PetscBool BoxEmpty(const Box *b)
{
  for (int a = 0; a < 3; a++)
    if (b->hi[a] <= b->lo[a]) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* *b grown to hold box c. */
static void BoxJoin(Box *b, const Box *c)
{
  const PetscBool empty = BoxEmpty(b);

  if (BoxEmpty(c)) return;
  for (int a = 0; a < 3; a++) {
    b->lo[a] = empty ? c->lo[a] : PetscMin(b->lo[a], c->lo[a]);
    b->hi[a] = empty ? c->hi[a] : PetscMax(b->hi[a], c->hi[a]);
  }
}

/* *b grown to hold cell i (owned indices). */
static void BoxAddCell(Box *b, const PetscInt i[3])
{
  const Box cell = {{i[0], i[1], i[2]}, {i[0] + 1, i[1] + 1, i[2] + 1}, 0};

  BoxJoin(b, &cell);
}

/* *b grown to hold every cell of box c that is not 0 in u. */
static void BoxAddNonzero(const Fields *f, const float *u, const Box *c, Box *b)
{
  PetscInt i[3];

  for (i[2] = c->lo[2]; i[2] < c->hi[2]; i[2]++)
    for (i[1] = c->lo[1]; i[1] < c->hi[1]; i[1]++) {
      const float *row = u + FieldsIndex(f, (PetscInt[3]){0, i[1], i[2]});
      for (i[0] = c->lo[0]; i[0] < c->hi[0]; i[0]++)
        if (row[i[0]] != 0.0f) BoxAddCell(b, i);
    }
}

PetscErrorCode SupportBegin(AcousticState *st, const PointMap *src, PetscInt nsteps)
{
  Reconstruction *rec = &st->rec;
  const Fields   *f   = &st->f;
  Box             b   = {{0, 0, 0}, {0, 0, 0}, 0};

  PetscFunctionBeginUser;
  if (!st->ops->backend->host_memory) PetscFunctionReturn(0);
  if (rec->nsupport < nsteps + 1) {
    PetscCall(PetscFree(rec->support));
    PetscCall(PetscMalloc1(nsteps + 1, &rec->support));
  }
  rec->nsupport = nsteps + 1;
  /* the source's cells, from their padded indices (FieldsIndex read backwards) */
  for (PetscInt r = 0; r < src->nrows; r++) {
    const ptrdiff_t c    = src->cell[r];
    const PetscInt  R    = f->radius;
    const PetscInt  i[3] = {(PetscInt)(c % f->stride[1]) - R, (PetscInt)(c / f->stride[1] % f->padded[1]) - R,
                            (PetscInt)(c / f->stride[2]) - (f->dim == 3 ? R : 0)};
    BoxAddCell(&b, i);
  }
  rec->support[0] = b;
  PetscFunctionReturn(0);
}

void SupportGrow(AcousticState *st, PetscInt m)
{
  Reconstruction *rec = &st->rec;
  const Fields   *f   = &st->f;
  /* a step reaches 2 radii: the CPML terms read psi, itself a first difference of u */
  const PetscInt reach = 2 * f->radius;
  Box            last, b, near, shell[6];
  PetscInt       nshell;

  if (!rec->nsupport) return; /* not kept on this backend */
  last = b = near = rec->support[m - 1];
  /* the cells within reach of the last box but outside it */
  if (!BoxEmpty(&last)) {
    for (int a = 0; a < f->dim; a++) {
      near.lo[a] = PetscMax(0, last.lo[a] - reach);
      near.hi[a] = PetscMin(f->n[a], last.hi[a] + reach);
    }
    BoxShell(f->dim, &near, &last, shell, &nshell);
    for (PetscInt k = 0; k < nshell; k++) BoxAddNonzero(f, f->u, &shell[k], &b);
  }
  /* and those within reach of a face a neighbour's waves come through */
  for (int a = 0; a < f->dim; a++)
    for (int s = 0; s < 2; s++) {
      Box strip = {{0, 0, 0}, {f->n[0], f->n[1], f->n[2]}, 0};
      if (!f->neighbour[a][s]) continue;
      if (s) strip.lo[a] = PetscMax(0, f->n[a] - reach);
      else strip.hi[a] = PetscMin(f->n[a], reach);
      BoxAddNonzero(f, f->u, &strip, &b);
    }
  rec->support[m] = b;
}

PetscErrorCode SupportEnd(AcousticState *st)
{
  Reconstruction *rec   = &st->rec;
  const Grid     *g     = st->grid;
  const PetscInt  nhalf = 3 * rec->nsupport;
  PetscInt       *ends;

  PetscFunctionBeginUser;
  if (!rec->nsupport) PetscFunctionReturn(0);
  /* lo and -hi in the group's indices, an empty box as +-PETSC_MAX_INT: one MIN over the group */
  PetscCall(PetscMalloc1(2 * nhalf, &ends));
  for (PetscInt m = 0; m < rec->nsupport; m++)
    for (int a = 0; a < 3; a++) {
      const Box *b = &rec->support[m];
      ends[3 * m + a]         = BoxEmpty(b) ? PETSC_MAX_INT : b->lo[a] + g->start[a];
      ends[nhalf + 3 * m + a] = BoxEmpty(b) ? PETSC_MAX_INT : -(b->hi[a] + g->start[a]);
    }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, ends, (PetscMPIInt)(2 * nhalf), MPIU_INT, MPI_MIN, g->comm));
  for (PetscInt m = 0; m < rec->nsupport; m++)
    for (int a = 0; a < 3; a++) {
      const PetscBool empty     = ends[3 * m + a] == PETSC_MAX_INT;
      rec->support[m].lo[a] = empty ? 0 : ends[3 * m + a] - g->start[a];
      rec->support[m].hi[a] = empty ? 0 : -ends[nhalf + 3 * m + a] - g->start[a];
    }
  PetscCall(PetscFree(ends));
  PetscFunctionReturn(0);
}

const Box *SupportAt(AcousticState *st, PetscInt n, Box now[2])
{
  const Reconstruction *rec = &st->rec;
  const PetscInt        R   = st->f.radius;

  if (!rec->nsupport) return NULL;
  /* [0]: L u^n is 0 beyond a radius of u^n's box; u^{n+1}, which the step
     overwrites where u^{n-1} is 0, lies in its own box */
  now[0] = rec->support[n];
  for (int a = 0; a < st->f.dim && !BoxEmpty(&now[0]); a++) {
    now[0].lo[a] -= R;
    now[0].hi[a] += R;
  }
  BoxJoin(&now[0], &rec->support[n + 1]);
  if (n >= 1) now[1] = rec->support[n - 1];
  else now[1] = (Box){{0, 0, 0}, {0, 0, 0}, 0};
  return now;
}
