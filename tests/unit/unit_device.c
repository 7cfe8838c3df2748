/* GPU choice per node-local rank: one GPU each, round robin when sharing is
   allowed, a clear error when a node has more ranks than GPUs otherwise; and
   the reason given when no GPU is visible. */
#include "setup/device.h"
#include "unit_check.h"

static PetscErrorCode Expect(int local, int nlocal, int count, PetscBool shared, int want)
{
  int device;

  PetscFunctionBeginUser;
  PetscCall(DeviceChoose(local, nlocal, count, shared, &device));
  PetscCheck(device == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "rank %d of %d on %d GPUs (shared %d): GPU %d, expected %d", local, nlocal, count, (int)shared, device, want);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  int  count, device;
  char why[256];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Expect(0, 1, 1, PETSC_FALSE, 0));
  PetscCall(Expect(3, 4, 4, PETSC_FALSE, 3));
  PetscCall(Expect(1, 2, 8, PETSC_FALSE, 1));
  PetscCall(Expect(3, 4, 2, PETSC_TRUE, 1));
  PetscCall(Expect(1, 2, 1, PETSC_TRUE, 0));
  EXPECT_ERROR(DeviceChoose(0, 2, 1, PETSC_FALSE, &device), "2 ranks on this node but 1 GPU: start one rank per GPU, or add -gpu_shared");
  EXPECT_ERROR(DeviceChoose(0, 1, 0, PETSC_TRUE, &device), "No GPU");
  PetscCall(DeviceCount(&count, why, sizeof(why)));
  PetscCheck(count > 0 || why[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "no GPU and no reason given");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "device choice checks passed; this machine: %d GPU%s%s%s\n", count, count == 1 ? "" : "s", count ? "" : ": ", why));
  PetscCall(PetscFinalize());
  return 0;
}
