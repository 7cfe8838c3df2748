/* The output folder: created and checked before any work, so a run that
   cannot save its results fails at once and never overwrites without -overwrite. */
#pragma once
#include <petscsys.h>

/* Collective: rank 0 creates dir (and parents), checks it is writable and that
   none of the nshots gathers exists unless overwrite. */
PetscErrorCode OutputPrepare(MPI_Comm comm, const char *dir, PetscInt nshots, PetscBool overwrite);
PetscErrorCode OutputShotPath(const char *dir, PetscInt shot, char path[PETSC_MAX_PATH_LEN]);
/* Collective: an error, before any work, if dir/name exists and not overwrite. */
PetscErrorCode OutputRefuseExisting(MPI_Comm comm, const char *dir, const char *name, PetscBool overwrite);
