/* A shot's traces between the ranks that hold its receivers and the first
   rank of the group, where they are whole gathers (receiver order). */
#pragma once
#include "grid/layout.h"
#include "data/rsf.h"
#include "shot/survey.h"

/* all[]: nrec x nt on group rank 0, unused elsewhere.  Gather: the traces
   of the receivers each rank records (sl->rec_id); scatter: to each rank
   those of the receivers that reach its cells (sl->reach_id). */
PetscErrorCode ShotGather(const Layout *l, PetscInt nt, const ShotLocal *sl, PetscInt shot, PetscInt nrec, const float *traces, float *all);
PetscErrorCode ShotScatter(const Layout *l, PetscInt nt, const ShotLocal *sl, PetscInt nrec, const float *all, float *traces);
/* The axes of a shot gather's RSF file: nt samples at dt (Time, s), then its
   nrec receivers in survey order. */
void GatherAxes(PetscInt nt, PetscReal dt, PetscInt nrec, RsfAxes *a);
