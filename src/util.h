/* Small helpers shared by the I/O and set-up code. */
#pragma once
#include <petscsys.h>

#define FWI_MSG_LEN 1024

/* Rank 0 of comm has filled msg (empty = fine); every rank of comm raises
   the same error if it is not empty, so no rank is left waiting. */
PetscErrorCode RootCheck(MPI_Comm comm, char msg[FWI_MSG_LEN]);
