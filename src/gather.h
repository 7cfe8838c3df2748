/* A shot's traces between the ranks that hold its receivers and the first
   rank of the group, where they are whole gathers (receiver order). */
#pragma once
#include "layout.h"
#include "survey.h"

/* all[]: nrec x nt on group rank 0, unused elsewhere. */
PetscErrorCode ShotGather(const Layout *l, PetscInt nt, const ShotLocal *sl, PetscInt shot, PetscInt nrec, const float *traces, float *all);
PetscErrorCode ShotScatter(const Layout *l, PetscInt nt, const ShotLocal *sl, PetscInt nrec, const float *all, float *traces);
