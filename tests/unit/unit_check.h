/* Shared by the unit tests: run a call that must fail and check its message. */
#pragma once
#include <petscsys.h>
#include <string.h>

/* ierr must be nonzero and the error's message must contain want. */
static inline PetscErrorCode ExpectFailure(PetscErrorCode ierr, const char *call, const char *want)
{
  char *msg;

  PetscFunctionBeginUser;
  PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s succeeded, expected an error mentioning '%s'", call, want);
  PetscCall(PetscErrorMessage(ierr, NULL, &msg));
  PetscCheck(strstr(msg, want), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s failed with '%s', expected it to mention '%s'", call, msg, want);
  PetscFunctionReturn(0);
}

/* The error handler is swapped so that the expected error is returned, not printed. */
#define EXPECT_ERROR(call, want) \
  do { \
    PetscErrorCode ierr_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    ierr_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCall(ExpectFailure(ierr_, #call, want)); \
  } while (0)
