/* User grid <-> extended grid: a PetscSF from the owned extended cells to the
   user cells they copy. */
#include "grid/modelspace.h"

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

PetscErrorCode ModelSpaceCreate(const Grid *g, ModelSpace *ms)
{
  const PetscInt nleaves = g->size[0] * g->size[1] * g->size[2];
  PetscSFNode   *remote;
  MPI_Comm       comm;

  PetscFunctionBeginUser;
  comm = g->comm;
  ModelSpaceBox(g, ms->lo, ms->n);
  ms->nlocal = ms->n[0] * ms->n[1] * ms->n[2];
  PetscCall(PetscMalloc1(nleaves, &remote));
  for (PetscInt k = 0; k < g->size[2]; k++)
    for (PetscInt j = 0; j < g->size[1]; j++)
      for (PetscInt i = 0; i < g->size[0]; i++) {
        const PetscInt ext[3] = {g->start[0] + i, g->start[1] + j, g->start[2] + k};
        PetscInt       rank = 0, index = 0, stride = 1, pstride = 1;
        for (PetscInt a = 0; a < 3; a++) {
          /* the nearest user cell, then the process owning it and its place there */
          const PetscInt u = a < g->dim ? PetscMin(PetscMax(ext[a] - g->pml[a][0], 0), g->n[a] - 1) : 0;
          PetscInt       p = 0, lo = 0, hi = 1;
          if (a < g->dim)
            for (p = 0;; p++) {
              UserRange(g, a, p, &lo, &hi);
              if (u < hi) break;
            }
          rank += p * pstride;
          index += (u - lo) * stride;
          pstride *= g->nproc[a];
          stride *= hi - lo;
        }
        remote[i + g->size[0] * (j + g->size[1] * k)].rank  = rank;
        remote[i + g->size[0] * (j + g->size[1] * k)].index = index;
      }
  PetscCall(PetscSFCreate(comm, &ms->sf));
  PetscCall(PetscSFSetGraph(ms->sf, ms->nlocal, nleaves, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(ms->sf));
  PetscFunctionReturn(0);
}

PetscErrorCode ModelSpaceDestroy(ModelSpace *ms)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSFDestroy(&ms->sf));
  PetscFunctionReturn(0);
}

PetscErrorCode ModelSpaceExtend(const ModelSpace *ms, MPI_Datatype unit, const void *user, void *ext)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSFBcastBegin(ms->sf, unit, user, ext, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(ms->sf, unit, user, ext, MPI_REPLACE));
  PetscFunctionReturn(0);
}

PetscErrorCode ModelSpaceFold(const ModelSpace *ms, MPI_Datatype unit, const void *ext, void *user)
{
  int size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Type_size(unit, &size));
  PetscCall(PetscMemzero(user, (size_t)size * ms->nlocal));
  PetscCall(PetscSFReduceBegin(ms->sf, unit, ext, user, MPI_SUM));
  PetscCall(PetscSFReduceEnd(ms->sf, unit, ext, user, MPI_SUM));
  PetscFunctionReturn(0);
}

void ModelSpaceRestrict(const ModelSpace *ms, const Grid *g, const float *ext, float *user)
{
  for (PetscInt k = 0; k < ms->n[2]; k++)
    for (PetscInt j = 0; j < ms->n[1]; j++)
      for (PetscInt i = 0; i < ms->n[0]; i++) {
        const PetscInt e[3] = {ms->lo[0] + i + g->pml[0][0] - g->start[0], ms->lo[1] + j + g->pml[1][0] - g->start[1], ms->lo[2] + k + g->pml[2][0] - g->start[2]};
        user[i + ms->n[0] * (j + ms->n[1] * k)] = ext[e[0] + g->size[0] * (e[1] + g->size[1] * e[2])];
      }
}
