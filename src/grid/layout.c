#include "grid/layout.h"
#include <omp.h>

PetscErrorCode LayoutNodeRanks(MPI_Comm world, PetscMPIInt *nranks)
{
  MPI_Comm node;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, nranks));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetThreads(MPI_Comm world, PetscInt *threads)
{
  PetscMPIInt local;

  PetscFunctionBeginUser;
  if (!getenv("OMP_NUM_THREADS")) {
    PetscCall(LayoutNodeRanks(world, &local));
    omp_set_num_threads(PetscMax(1, omp_get_num_procs() / local));
  }
  *threads = omp_get_max_threads();
  PetscFunctionReturn(0);
}

PetscErrorCode LayoutCreate(MPI_Comm world, PetscInt shot_groups, Layout *l)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(l, sizeof(*l)));
  l->world = world;
  PetscCallMPI(MPI_Comm_rank(world, &l->world_rank));
  PetscCallMPI(MPI_Comm_size(world, &l->world_size));
  PetscCheck(l->world_size % shot_groups == 0, world, PETSC_ERR_ARG_INCOMP,
             "-shot_groups %" PetscInt_FMT " does not divide the %d MPI ranks: the world size must be a multiple of the number of shot groups",
             shot_groups, l->world_size);
  l->ngroups    = (PetscMPIInt)shot_groups;
  l->group_size = l->world_size / l->ngroups;
  l->group_id   = l->world_rank / l->group_size;
  PetscCallMPI(MPI_Comm_split(world, l->group_id, l->world_rank, &l->group));
  PetscCallMPI(MPI_Comm_split(world, l->world_rank % l->group_size, l->world_rank, &l->cross));
  PetscCallMPI(MPI_Comm_rank(l->group, &l->group_rank));
  PetscCall(SetThreads(world, &l->threads));
  PetscFunctionReturn(0);
}

PetscErrorCode LayoutDestroy(Layout *l)
{
  PetscFunctionBeginUser;
  if (l->group != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&l->group));
  if (l->cross != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&l->cross));
  PetscFunctionReturn(0);
}
