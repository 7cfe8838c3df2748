#include "events.h"

PetscLogEvent FWI_STEP, FWI_INTERIOR, FWI_SHELL, FWI_HALO, FWI_INJREC, FWI_IO;

PetscErrorCode EventsRegister(void)
{
  PetscClassId id;

  PetscFunctionBeginUser;
  PetscCall(PetscClassIdRegister("halofwi", &id));
  PetscCall(PetscLogEventRegister("fwiStep", id, &FWI_STEP));         /* one whole time step */
  PetscCall(PetscLogEventRegister("fwiInterior", id, &FWI_INTERIOR)); /* cells that need no ghosts */
  PetscCall(PetscLogEventRegister("fwiShell", id, &FWI_SHELL));       /* boundary shell + CPML memory */
  PetscCall(PetscLogEventRegister("fwiHaloExch", id, &FWI_HALO));     /* Begin and End (waiting) */
  PetscCall(PetscLogEventRegister("fwiInjRec", id, &FWI_INJREC));     /* source injection, recording */
  PetscCall(PetscLogEventRegister("fwiIO", id, &FWI_IO));             /* models, gathers */
  PetscFunctionReturn(0);
}
