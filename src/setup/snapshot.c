#include "setup/snapshot.h"
#include "grid/modelspace.h"
#include "data/rsf.h"
#include "data/vtk.h"

/* This rank's user cells (ModelSpaceBox): start and count for an array of
   the model's size (start 0 when there are none), local: their first cell
   in owned indices. */
static void UserBox(const Grid *g, PetscInt start[3], PetscInt count[3], PetscInt local[3])
{
  ModelSpaceBox(g, start, count);
  for (PetscInt a = 0; a < 3; a++) {
    local[a] = start[a] + (a < g->dim ? g->pml[a][0] : 0) - g->start[a];
    if (!count[a]) start[a] = 0;
  }
}

PetscErrorCode SnapshotUserCells(const Experiment *e, const float *field, PetscInt start[3], PetscInt count[3], float *block)
{
  const Grid *g = &e->g;
  PetscInt    local[3], np[3];
  void       *copy;
  const void *u;
  size_t      ncells = GridPaddedCells(g, np);

  PetscFunctionBeginUser;
  UserBox(g, start, count, local);
  PetscCall(EquationMemoryRead(e->backend.memory, field, ncells * sizeof(float), &copy, &u));
  const float *padded = (const float *)u;
  for (PetscInt k = 0; k < count[2]; k++)
    for (PetscInt j = 0; j < count[1]; j++) {
      const PetscInt cell[3] = {local[0], local[1] + j, local[2] + k}; /* a row's first cell: the row is contiguous */
      PetscArraycpy(&block[count[0] * (j + count[1] * k)], &padded[GridPaddedIndex(g, cell)], count[0]);
    }
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(0);
}

PetscErrorCode SnapshotWrite(void *ctx, PetscInt shot, PetscInt steps, const float *field)
{
  const Experiment *e         = (const Experiment *)ctx;
  RsfAxes           axes;
  PetscInt          start[3], count[3], local[3];
  char              path[PETSC_MAX_PATH_LEN];
  float            *block;

  PetscFunctionBeginUser;
  /* the field after the last step is one sample past the record's end */
  if (steps / e->t.m >= e->t.nt) PetscFunctionReturn(0);
  UserBox(&e->g, start, count, local);
  PetscCall(PetscMalloc1((size_t)count[0] * count[1] * count[2] + 1, &block));
  PetscCall(SnapshotUserCells(e, field, start, count, block));
  PetscCall(PetscSNPrintf(path, sizeof path, "%s/snapshot_%04" PetscInt_FMT "_%05" PetscInt_FMT ".rsf", e->o->output_dir, shot, steps / e->t.m));
  ModelAxes(&e->model[0], &axes);
  RsfAxesAdd(&axes, 1, e->t.dt, steps / e->t.m * e->t.dt, "Time", "s"); /* the snapshot's time, as a last axis of one sample */
  PetscCall(RsfWriteBlock(e->l.group, path, &axes, start, count, block, e->o->overwrite));
  if (e->o->vtk) PetscCall(VtkFromRsf(e->l.group, path, "u", e->o->overwrite));
  PetscCall(PetscFree(block));
  PetscFunctionReturn(0);
}
