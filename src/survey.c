#include "survey.h"

/* Padded index of a user-grid position if this rank owns its cell, else -1. */
static ptrdiff_t OwnedCell(const Grid *g, const Fields *f, const Position *pos)
{
  PetscInt cell[3] = {0, 0, 0}, local[3];

  GeometryCell(pos, g->dim, g->d, cell);
  for (PetscInt a = 0; a < 3; a++) {
    local[a] = cell[a] + g->pml[a][0] - g->start[a];
    if (local[a] < 0 || local[a] >= g->size[a]) return -1;
  }
  return FieldsIndex(f, local);
}

PetscErrorCode ShotLocalize(const Grid *g, const Fields *f, const Geometry *geo, PetscInt shot, ShotLocal *s)
{
  const PetscInt r0 = geo->rec_start[shot], nr = geo->rec_start[shot + 1] - r0;
  ptrdiff_t      c;
  double         volume = 1;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  for (PetscInt a = 0; a < g->dim; a++) volume *= g->d[a];
  c = OwnedCell(g, f, &geo->src[shot]);
  if (c >= 0) {
    s->nsrc      = 1;
    s->src_cell  = c;
    s->src_scale = (float)(1.0 / volume);
  }
  PetscCall(PetscMalloc2(nr, &s->rec_cell, nr, &s->rec_id));
  for (PetscInt k = 0; k < nr; k++) {
    c = OwnedCell(g, f, &geo->rec[r0 + k]);
    if (c < 0) continue;
    s->rec_cell[s->nrec] = c;
    s->rec_id[s->nrec]   = k;
    s->nrec++;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ShotLocalDestroy(ShotLocal *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(s->rec_cell, s->rec_id));
  PetscFunctionReturn(0);
}
