/* A run's end after an error (src/data/errors.c), driven by tests/test_errors.py:
   -erring all|last (which ranks raise; the others wait in a barrier, as in a
   collective) and -kind user|fault (PETSC_ERR_USER_INPUT or PETSC_ERR_PLIB),
   the message "bad value 42" raised two calls deep. */
#include "data/errors.h"

static PetscErrorCode Inner(PetscErrorCode code)
{
  PetscFunctionBeginUser;
  SETERRQ(PETSC_COMM_SELF, code, "bad value %d", 42);
}

static PetscErrorCode Raise(void)
{
  char        erring[16] = "all", kind[16] = "user";
  PetscMPIInt rank, size;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-erring", erring, sizeof erring, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-kind", kind, sizeof kind, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (!strcmp(erring, "all") || rank == size - 1) PetscCall(Inner(!strcmp(kind, "user") ? PETSC_ERR_USER_INPUT : PETSC_ERR_PLIB));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  ierr = ErrorsInstall(PETSC_COMM_WORLD);
  if (!ierr) ierr = Raise();
  if (ierr) return ErrorsExit(ierr);
  PetscCall(PetscFinalize());
  return 0;
}
