#include "util.h"

PetscErrorCode RootCheck(MPI_Comm comm, char msg[FWI_MSG_LEN])
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Bcast(msg, FWI_MSG_LEN, MPI_CHAR, 0, comm));
  msg[FWI_MSG_LEN - 1] = 0;
  PetscCheck(!msg[0], comm, PETSC_ERR_USER_INPUT, "%s", msg);
  PetscFunctionReturn(0);
}
