/* Options marked read, so that PETSc's reports do not list them as left
   over, and the error handler while the options are read. */
#pragma once
#include <petscsys.h>

/* Marks every option given as read ("Option left: ..." would follow an
   error otherwise, naming options that are not at fault). */
void OptionsMarkAllRead(void);

/* PETSc's error handler (traceback) while the options are read and
   checked (OptionsRead), after marking every option read: otherwise PETSc
   follows an option error with its list of the options not read yet
   ("WARNING! There are option(s) set that were not used! ... Option left:
   -output_dir"), which are not at fault. */
PetscErrorCode OptionsErrorHandler(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx);
