#include "data/events.h"
#ifdef HALOFWI_HAVE_CUDA
  #include <nvtx3/nvToolsExt.h>
#endif

PetscLogEvent FWI_STEP, FWI_ADJOINT_STEP, FWI_INTERIOR, FWI_SHELL, FWI_HALO, FWI_INJREC, FWI_RECONSTRUCT, FWI_REPLAY, FWI_CHECKPOINT, FWI_IO;

static const struct {
  PetscLogEvent *event;
  const char    *name;
} Events[] = {
  {&FWI_STEP,     "fwiStep"    }, /* one whole time step */
  {&FWI_ADJOINT_STEP, "fwiAdjStep"}, /* one whole adjoint step, imaging and reconstruction included */
  {&FWI_INTERIOR, "fwiInterior"}, /* cells that need no ghosts */
  {&FWI_SHELL,    "fwiShell"   }, /* boundary shell + CPML memory */
  {&FWI_HALO,     "fwiHaloExch"}, /* Begin and End (waiting) */
  {&FWI_INJREC,   "fwiInjRec"  }, /* source injection, recording */
  {&FWI_RECONSTRUCT, "fwiRecons"}, /* the forward field run backwards (boundary gradient) */
  {&FWI_REPLAY,   "fwiReplay"  }, /* checkpointing: the forward steps run again from snapshots */
  {&FWI_CHECKPOINT, "fwiSnapshot"}, /* checkpointing: snapshots of the state taken and restored */
  {&FWI_IO,       "fwiIO"      }, /* models, gathers */
};

PetscErrorCode EventsRegister(void)
{
  PetscClassId id;

  PetscFunctionBeginUser;
  PetscCall(PetscClassIdRegister("halofwi", &id));
  for (size_t k = 0; k < sizeof(Events) / sizeof(Events[0]); k++) PetscCall(PetscLogEventRegister(Events[k].name, id, Events[k].event));
  PetscFunctionReturn(0);
}

PetscBool EventsDetail(void)
{
  PetscBool set = PETSC_FALSE;

  (void)PetscOptionsHasName(NULL, NULL, "-log_view", &set);
  return set;
}

#ifdef HALOFWI_HAVE_CUDA
static const char *EventName(PetscLogEvent e)
{
  for (size_t k = 0; k < sizeof(Events) / sizeof(Events[0]); k++)
    if (*Events[k].event == e) return Events[k].name;
  return "halofwi";
}
#endif

PetscErrorCode PhaseBegin(PetscLogEvent e)
{
  PetscFunctionBeginUser;
#ifdef HALOFWI_HAVE_CUDA
  nvtxRangePushA(EventName(e));
#endif
  PetscCall(PetscLogEventBegin(e, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode PhaseEnd(PetscLogEvent e)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventEnd(e, 0, 0, 0, 0));
#ifdef HALOFWI_HAVE_CUDA
  nvtxRangePop();
#endif
  PetscFunctionReturn(0);
}
