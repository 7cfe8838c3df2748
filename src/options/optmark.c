/* Options marked read, and the error handler while they are read: see
   optmark.h. */
#include "options/optmark.h"
#include "data/errors.h"
#include <stdio.h>

#define NAME_LEN 64 /* option names are compared up to this length */

/* Marks every option read, so that PETSc's error report does not list
   them as left ("Option left: ..."). */
void OptionsMarkAllRead(void)
{
  PetscInt n;
  char   **names, **values;

  if (PetscOptionsLeftGet(NULL, &n, &names, &values)) return;
  for (PetscInt k = 0; k < n; k++) {
    char      name[NAME_LEN + 2];
    PetscBool set;
    snprintf(name, sizeof name, "-%s", names[k]);
    (void)PetscOptionsHasName(NULL, NULL, name, &set);
  }
  (void)PetscOptionsLeftRestore(NULL, &n, &names, &values);
}

PetscErrorCode OptionsErrorHandler(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL) OptionsMarkAllRead();
  return ErrorsHandle(comm, line, func, file, n, p, mess, ctx);
}
