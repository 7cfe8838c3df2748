/* Wavefield snapshots of the forward run (-snapshot_interval): u over the
   user's grid (no absorbing layers) as snapshot_SHOT_SAMPLE.rsf in
   -output_dir, and .vti beside it with -vtk. */
#pragma once
#include "experiment.h"

/* A PropagatorSettings.snapshot hook; ctx is the Experiment.  Collective
   over the shot's group. */
PetscErrorCode SnapshotWrite(void *ctx, PetscInt shot, PetscInt steps, const Fields *f);
