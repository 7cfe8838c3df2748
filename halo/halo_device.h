/* Private: the device buffers and the packing steps shared by the device
   backends (staged, mpi-device, nccl). */
#pragma once
#include "halo_impl.h"
#include "halo_pack.h"

/* A failed CUDA call becomes a PETSc error naming the call and CUDA's reason. */
#define HaloCallCUDA(call) \
  do { \
    const cudaError_t cerr_ = (call); \
    PetscCheck(cerr_ == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "Halo: %s failed: %s (%s)", #call, cudaGetErrorString(cerr_), cudaGetErrorName(cerr_)); \
  } while (0)

typedef struct {
  char         *dsend, *drecv; /* device: the faces of one exchange back to back */
  char         *hsend, *hrecv; /* pinned host copies of them (staged only) */
  PetscBool     pinned;
  size_t        capacity;                                       /* elements in each buffer */
  size_t        off[HALO_MAXDIM][2], count[HALO_MAXDIM][2], total; /* this exchange's faces, in elements */
  HaloPackBatch pack, unpack;
  cudaEvent_t   packed; /* after the packing (and, staged, the copy to the host) */
  cudaEvent_t   idle;   /* after the unpacking, the last use of the buffers */
  cudaStream_t  last;   /* stream of the previous exchange */
  void         *backend;
} HaloDevice;

PetscErrorCode HaloDeviceCreate(Halo h, PetscBool pinned);
PetscErrorCode HaloDeviceDestroy(Halo h);
/* Begin's device work: lay the faces out in the buffers, grow them, queue the
   packing (staged: and the copy to the host), record `packed`. */
PetscErrorCode HaloDevicePack(Halo h, PetscInt nfields, const HaloField fields[]);
/* End's device work: (staged: the copy from the host and) the unpacking, then `idle`. */
PetscErrorCode HaloDeviceUnpack(Halo h);
