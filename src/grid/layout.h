/* The parallel layout: the world split into shot groups of D ranks each.
   group comm: one copy of the model, decomposed; cross comm: the same
   subdomain in every group. */
#pragma once
#include <petscsys.h>

typedef struct {
  MPI_Comm    world, group, cross;
  PetscMPIInt world_rank, world_size;
  PetscMPIInt ngroups, group_id, group_rank, group_size;
  PetscInt    threads; /* OpenMP threads per rank */
} Layout;

/* Also sets the OpenMP threads per rank: OMP_NUM_THREADS when given, else
   the cores this rank may use shared among the ranks on its node, so ranks
   never fight over cores. */
PetscErrorCode LayoutCreate(MPI_Comm world, PetscInt shot_groups, Layout *l);
/* The ranks of world on this rank's node (they share its memory, cores and disks). */
PetscErrorCode LayoutNodeRanks(MPI_Comm world, PetscMPIInt *nranks);
PetscErrorCode LayoutDestroy(Layout *l);
