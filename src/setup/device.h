/* Which GPU each rank uses: the ranks of a node take distinct GPUs in the
   order of their node-local rank (MPI_Comm_split_type, shared memory). */
#pragma once
#include <petscsys.h>

/* GPUs this process sees: 0 with the reason in why[] when there are none,
   no driver answers, or halofwi was built without CUDA. */
PetscErrorCode DeviceCount(int *count, char why[], size_t len);

/* The GPU of node-local rank `local` of `nlocal` ranks sharing `count` GPUs:
   one each, or round robin when `shared`; an error naming the figures when
   the node has more ranks than GPUs and sharing was not allowed. */
PetscErrorCode DeviceChoose(int local, int nlocal, int count, PetscBool shared, int *device);

/* Chooses, sets and describes (name[]) this rank's GPU, collectively over
   world; *shares says whether some GPU of the job serves several ranks. */
PetscErrorCode DeviceSelect(MPI_Comm world, PetscBool shared, int *device, PetscBool *shares, char name[], size_t len);
