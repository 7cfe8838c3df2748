/* How an error reaches the user.  An error halofwi raises about what the
   user gave (a value, a file, the disk, the memory) prints its message once,
   as "halofwi: error: ...", from the lowest rank that has it, and every rank
   ends through PetscFinalize with the error's code as exit status.  Other
   errors (inside PETSc or MPI, or an error code halofwi does not raise for
   users) keep PETSc's report with its traceback, as -error_trace or
   PETSc's -on_error_* options give for every error.  A rank that errs while
   others do not (they wait in a collective) ends the run by MPI_Abort. */
#pragma once
#include <petscsys.h>

/* After PetscInitialize: reads -error_trace and installs the handler. */
PetscErrorCode ErrorsInstall(MPI_Comm world);
/* The handler: keeps a user error's message (its first frame's) and prints
   nothing; passes the rest to PETSc's traceback handler, as it does every
   error under -error_trace.  For handlers pushed over it to end in. */
PetscErrorCode ErrorsHandle(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx);
/* main's end after err (non-zero): prints the user's message or aborts;
   returns the exit status.  Finalizes PETSc where every rank erred. */
int ErrorsExit(PetscErrorCode err);
