/* The model the user sees (the user grid, no absorbing layers) against the
   extended grid the propagator runs on.  Each rank holds the user cells of
   its owned box; the layers take the velocity of the nearest user cell. */
#pragma once
#include <petscsf.h>
#include "grid/grid.h"

typedef struct {
  PetscInt lo[3], n[3]; /* this rank's user cells: user indices [lo, lo + n), z fastest */
  PetscInt nlocal;
  PetscInt off[3];      /* the owned extended index of user cell lo along each axis */
  PetscInt block[3];    /* the owned extended block's size (Grid.size) */
  PetscSF  sf;          /* roots: the user cells of the group's ranks; leaves: the owned extended cells outside the user grid (the layers) */
} ModelSpace;

/* This rank's user cells, as ModelSpaceCreate sets lo and n (no PetscSF). */
void           ModelSpaceBox(const Grid *g, PetscInt lo[3], PetscInt n[3]);
PetscErrorCode ModelSpaceCreate(const Grid *g, ModelSpace *ms);
PetscErrorCode ModelSpaceDestroy(ModelSpace *ms);
/* Owned extended cells from the group's user cells (each
   takes its nearest user cell); unit: MPI_FLOAT or MPI_DOUBLE.  Collective
   over the group. */
PetscErrorCode ModelSpaceExtend(const ModelSpace *ms, MPI_Datatype unit, const void *user, void *ext);
/* The transpose: user cells (overwritten) receive the sum over the extended
   cells that copy them, so a gradient over the extended grid becomes the
   gradient of the user's model: each its own extended cell's value, plus
   the layer cells' that copy it.  Collective over the group. */
PetscErrorCode ModelSpaceFold(const ModelSpace *ms, MPI_Datatype unit, const void *ext, void *user);
/* The user cells of this rank from its owned extended block (z fastest). */
void ModelSpaceRestrict(const ModelSpace *ms, const float *ext, float *user);
