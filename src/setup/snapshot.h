/* Wavefield snapshots of the forward run (-snapshot_interval): u over the
   user's grid (no absorbing layers) as snapshot_SHOT_SAMPLE.rsf in
   -output_dir, and .vti beside it with -vtk. */
#pragma once
#include "setup/experiment.h"

/* A PropagatorSettings.watch hook; ctx is the Experiment.  Collective
   over the shot's group. */
PetscErrorCode SnapshotWrite(void *ctx, PetscInt shot, PetscInt steps, const float *field);
/* u over this rank's user cells (z fastest; the ModelSpace's block, count
   cells per axis from user index start) into block, from backend fields f. */
PetscErrorCode SnapshotUserCells(const Experiment *e, const float *field, PetscInt start[3], PetscInt count[3], float *block);
