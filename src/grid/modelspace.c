/* User grid <-> extended grid.  An owned extended cell inside the user grid
   is a user cell of the same rank (ModelSpaceBox is the owned box cut to
   the user grid): those are copied row by row.  The layer cells copy their
   nearest user cell, which may lie on another rank: a PetscSF over them
   alone (2D 2048^2 with 20 layer cells: 4% of the cells; a graph over
   every cell took 0.15 s to build and set up, longer than the gradient's
   I/O). */
#include "grid/modelspace.h"
#include <string.h>

/* User range [lo, hi) of process coordinate p along axis a. */
static void UserRange(const Grid *g, PetscInt a, PetscInt p, PetscInt *lo, PetscInt *hi)
{
  PetscInt start = 0;

  for (PetscInt q = 0; q < p; q++) start += g->ranges[a][q];
  *lo = PetscMax(start, g->pml[a][0]) - g->pml[a][0];
  *hi = PetscMin(start + g->ranges[a][p], g->pml[a][0] + g->n[a]) - g->pml[a][0];
  *hi = PetscMax(*hi, *lo);
}

void ModelSpaceBox(const Grid *g, PetscInt lo[3], PetscInt n[3])
{
  for (PetscInt a = 0; a < 3; a++) {
    PetscInt hi;
    if (a < g->dim) UserRange(g, a, g->proc[a], &lo[a], &hi);
    else lo[a] = 0, hi = 1;
    n[a] = hi - lo[a];
  }
}

/* The nearest user cell of each owned extended index along one axis: the
   process coordinate owning it, its place among that process's user
   cells, and their number there. */
typedef struct {
  PetscInt *proc, *place, *extent;
} AxisOwners;

static PetscErrorCode AxisOwnersCreate(const Grid *g, PetscInt a, AxisOwners *m)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(g->size[a], &m->proc, g->size[a], &m->place, g->size[a], &m->extent));
  for (PetscInt i = 0; i < g->size[a]; i++) {
    PetscInt p = 0, lo = 0, hi = 1, u = 0;
    if (a < g->dim) {
      u = PetscMin(PetscMax(g->start[a] + i - g->pml[a][0], 0), g->n[a] - 1);
      for (p = 0;; p++) {
        UserRange(g, a, p, &lo, &hi);
        if (u < hi) break;
      }
    }
    m->proc[i]   = p;
    m->place[i]  = u - lo;
    m->extent[i] = hi - lo;
  }
  PetscFunctionReturn(0);
}

/* Whether owned extended cell (i, j, k) lies in the user grid. */
static PetscBool Inside(const ModelSpace *ms, PetscInt i, PetscInt j, PetscInt k)
{
  const PetscInt e[3] = {i, j, k};

  for (PetscInt a = 0; a < 3; a++)
    if (e[a] < ms->off[a] || e[a] >= ms->off[a] + ms->n[a]) return PETSC_FALSE;
  return PETSC_TRUE;
}

PetscErrorCode ModelSpaceCreate(const Grid *g, ModelSpace *ms)
{
  AxisOwners   own[3];
  PetscInt     nleaves = 0, *leaf;
  PetscSFNode *remote;

  PetscFunctionBeginUser;
  ModelSpaceBox(g, ms->lo, ms->n);
  ms->nlocal = ms->n[0] * ms->n[1] * ms->n[2];
  for (PetscInt a = 0; a < 3; a++) {
    ms->block[a] = g->size[a];
    ms->off[a]   = a < g->dim ? ms->lo[a] + g->pml[a][0] - g->start[a] : 0;
    PetscCall(AxisOwnersCreate(g, a, &own[a]));
  }
  /* the layer cells: every owned cell less the user box, in which n[a] may be 0 */
  nleaves = g->size[0] * g->size[1] * g->size[2] - ms->nlocal;
  PetscCall(PetscMalloc1(nleaves, &leaf));
  PetscCall(PetscMalloc1(nleaves, &remote));
  nleaves = 0;
  for (PetscInt k = 0; k < g->size[2]; k++)
    for (PetscInt j = 0; j < g->size[1]; j++)
      for (PetscInt i = 0; i < g->size[0]; i++) {
        if (Inside(ms, i, j, k)) continue;
        leaf[nleaves]         = i + g->size[0] * (j + g->size[1] * k);
        remote[nleaves].rank  = own[0].proc[i] + g->nproc[0] * (own[1].proc[j] + g->nproc[1] * own[2].proc[k]);
        remote[nleaves].index = own[0].place[i] + own[0].extent[i] * (own[1].place[j] + own[1].extent[j] * own[2].place[k]);
        nleaves++;
      }
  for (PetscInt a = 0; a < 3; a++) PetscCall(PetscFree3(own[a].proc, own[a].place, own[a].extent));
  PetscCall(PetscSFCreate(g->comm, &ms->sf));
  PetscCall(PetscSFSetGraph(ms->sf, ms->nlocal, nleaves, leaf, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(ms->sf));
  PetscFunctionReturn(0);
}

PetscErrorCode ModelSpaceDestroy(ModelSpace *ms)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSFDestroy(&ms->sf));
  PetscFunctionReturn(0);
}

/* Copies the user box's rows between the user cells and the owned
   extended cells (to_ext: which way), elements of bytes each. */
static void CopyBox(const ModelSpace *ms, size_t bytes, PetscBool to_ext, const void *from, void *to)
{
  const size_t row = bytes * ms->n[0];

  for (PetscInt k = 0; k < ms->n[2]; k++)
    for (PetscInt j = 0; j < ms->n[1]; j++) {
      const size_t u = bytes * ms->n[0] * (j + ms->n[1] * k);
      const size_t e = bytes * (ms->off[0] + ms->block[0] * (ms->off[1] + j + ms->block[1] * (ms->off[2] + k)));
      if (row) memcpy((char *)to + (to_ext ? e : u), (const char *)from + (to_ext ? u : e), row);
    }
}

PetscErrorCode ModelSpaceExtend(const ModelSpace *ms, MPI_Datatype unit, const void *user, void *ext)
{
  int size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Type_size(unit, &size));
  PetscCall(PetscSFBcastBegin(ms->sf, unit, user, ext, MPI_REPLACE));
  CopyBox(ms, (size_t)size, PETSC_TRUE, user, ext);
  PetscCall(PetscSFBcastEnd(ms->sf, unit, user, ext, MPI_REPLACE));
  PetscFunctionReturn(0);
}

PetscErrorCode ModelSpaceFold(const ModelSpace *ms, MPI_Datatype unit, const void *ext, void *user)
{
  int size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Type_size(unit, &size));
  CopyBox(ms, (size_t)size, PETSC_FALSE, ext, user);
  PetscCall(PetscSFReduceBegin(ms->sf, unit, ext, user, MPI_SUM));
  PetscCall(PetscSFReduceEnd(ms->sf, unit, ext, user, MPI_SUM));
  PetscFunctionReturn(0);
}

void ModelSpaceRestrict(const ModelSpace *ms, const float *ext, float *user) { CopyBox(ms, sizeof(float), PETSC_FALSE, ext, user); }
