#include "setup/device.h"
#ifdef HALOFWI_HAVE_CUDA
  #include <cuda_runtime_api.h>
#endif

PetscErrorCode DeviceCount(int *count, char why[], size_t len)
{
  PetscFunctionBeginUser;
  *count = 0;
  why[0] = 0;
#ifdef HALOFWI_HAVE_CUDA
  const cudaError_t e = cudaGetDeviceCount(count);
  if (e != cudaSuccess) {
    *count = 0;
    PetscCall(PetscSNPrintf(why, len, "cudaGetDeviceCount: %s", cudaGetErrorString(e)));
  } else if (!*count) PetscCall(PetscSNPrintf(why, len, "cudaGetDeviceCount found none"));
#else
  PetscCall(PetscSNPrintf(why, len, "this halofwi was built without CUDA (configure where nvcc is found, or with -DHALOFWI_CUDA=ON)"));
#endif
  PetscFunctionReturn(0);
}

PetscErrorCode DeviceChoose(int local, int nlocal, int count, PetscBool shared, int *device)
{
  PetscFunctionBeginUser;
  PetscCheck(count > 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "No GPU to choose from");
  PetscCheck(shared || nlocal <= count, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "%d ranks on this node but %d GPU%s: start one rank per GPU, or add -gpu_shared to let ranks share GPUs (slower; for testing)", nlocal, count,
             count == 1 ? "" : "s");
  *device = local % count;
  PetscFunctionReturn(0);
}

PetscErrorCode DeviceSelect(MPI_Comm world, PetscBool shared, int *device, PetscBool *shares, char name[], size_t len)
{
  MPI_Comm    node;
  PetscMPIInt local, nlocal;
  int         count, over[2], most[2];
  char        why[256];

  PetscFunctionBeginUser;
  PetscCall(DeviceCount(&count, why, sizeof(why)));
  PetscCallMPI(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &local));
  PetscCallMPI(MPI_Comm_size(node, &nlocal));
  PetscCallMPI(MPI_Comm_free(&node));
  /* decided together, so that no rank waits alone in a collective */
  over[0] = nlocal - count;
  over[1] = -count;
  PetscCallMPI(MPI_Allreduce(over, most, 2, MPI_INT, MPI_MAX, world));
  PetscCheck(most[1] < 0, world, PETSC_ERR_SUP, "A rank sees no GPU (%s)", why);
  PetscCheck(most[0] <= 0 || shared, world, PETSC_ERR_ARG_INCOMP,
             "A node has %d rank%s more than GPUs: start one rank per GPU, or add -gpu_shared to let ranks share GPUs (slower; for testing)", most[0],
             most[0] == 1 ? "" : "s");
  PetscCall(DeviceChoose(local, nlocal, count, shared, device));
  *shares = most[0] > 0 ? PETSC_TRUE : PETSC_FALSE;
#ifdef HALOFWI_HAVE_CUDA
  {
    struct cudaDeviceProp prop;
    cudaError_t           e = cudaSetDevice(*device);
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, *device);
    PetscCheck(e == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "GPU %d: %s", *device, cudaGetErrorString(e));
    PetscCall(PetscSNPrintf(name, len, "%s, %.1f GiB", prop.name, prop.totalGlobalMem / 1073741824.0));
  }
#else
  (void)name;
  (void)len;
#endif
  PetscFunctionReturn(0);
}
