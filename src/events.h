/* PETSc log events of halofwi, shown by -log_view. */
#pragma once
#include <petsclog.h>

extern PetscLogEvent FWI_STEP, FWI_INTERIOR, FWI_SHELL, FWI_HALO, FWI_INJREC, FWI_IO;

PetscErrorCode EventsRegister(void);
