/* staged and mpi-device backends: the faces are packed on the device, then
   sent with non-blocking MPI from pinned host copies (staged) or straight
   from the device buffers (mpi-device, CUDA-aware MPI). */
#include "halo_device.h"

static PetscErrorCode HaloBegin_MPIDevice(Halo h, PetscInt nfields, const HaloField fields[])
{
  PetscFunctionBeginUser;
  PetscCall(HaloDevicePack(h, nfields, fields));
  PetscFunctionReturn(0);
}

/* The receives are posted here rather than in Begin: until this exchange's
   packing has run, the previous exchange's unpacking (queued by its End, not
   waited for) may still read the receive buffers. */
static PetscErrorCode HaloEnd_MPIDevice(Halo h)
{
  HaloDevice *d    = (HaloDevice *)h->data;
  char       *send = d->pinned ? d->hsend : d->dsend, *recv = d->pinned ? d->hrecv : d->drecv;
  MPI_Request req[4 * HALO_MAXDIM];
  int         nreq = 0;

  PetscFunctionBeginUser;
  HaloCallCUDA(cudaEventSynchronize(d->packed));
  for (PetscInt a = 0; a < h->layout.dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      const PetscMPIInt nbr = h->layout.neighbor[a][s];
      if (!d->count[a][s]) continue;
      PetscCallMPI(MPI_Irecv(recv + d->off[a][s] * h->esize, (int)d->count[a][s], h->mpitype, nbr, HaloFaceTag(h, a, 1 - s), h->comm, &req[nreq++]));
      PetscCallMPI(MPI_Isend(send + d->off[a][s] * h->esize, (int)d->count[a][s], h->mpitype, nbr, HaloFaceTag(h, a, s), h->comm, &req[nreq++]));
    }
  PetscCallMPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  PetscCall(HaloDeviceUnpack(h));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloCreate_MPIDevice(Halo h, PetscBool staged)
{
  PetscFunctionBeginUser;
  PetscCall(HaloDeviceCreate(h, staged));
  h->ops.begin   = HaloBegin_MPIDevice;
  h->ops.end     = HaloEnd_MPIDevice;
  h->ops.destroy = HaloDeviceDestroy;
  PetscFunctionReturn(0);
}
