/* The parallel layout: the world split into shot groups of D ranks each.
   group comm: one copy of the model, decomposed; cross comm: the same
   subdomain in every group. */
#pragma once
#include <petscsys.h>

typedef struct {
  MPI_Comm    world, group, cross;
  PetscMPIInt world_rank, world_size;
  PetscMPIInt ngroups, group_id, group_rank, group_size;
} Layout;

PetscErrorCode LayoutCreate(MPI_Comm world, PetscInt shot_groups, Layout *l);
PetscErrorCode LayoutDestroy(Layout *l);
