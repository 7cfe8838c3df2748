/* A test that needs a GPU says so and gives ctest's skip status
   (GPU_SKIPPED, the tests' SKIP_RETURN_CODE) where none is visible. */
#pragma once
#include "gpu_skipped.h"
#include "setup/device.h"

/* Whether no CUDA device is visible: then the reason is printed. */
static inline PetscErrorCode GpuMissing(PetscBool *missing)
{
  int  count;
  char why[256];

  PetscFunctionBeginUser;
  PetscCall(DeviceCount(&count, why, sizeof(why)));
  *missing = count ? PETSC_FALSE : PETSC_TRUE;
  if (*missing) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skipped: %s\n", why));
  PetscFunctionReturn(0);
}
