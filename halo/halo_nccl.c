/* nccl backend: packing, ncclSend/ncclRecv and unpacking all queued on the
   halo's stream; the host never waits.  One NCCL communicator per MPI
   communicator, cached as an attribute of it and shared, reference-counted,
   by every halo on that communicator. */
#include "halo_device.h"
#include <nccl.h>

#define HaloCallNCCL(call) \
  do { \
    const ncclResult_t nerr_ = (call); \
    PetscCheck(nerr_ == ncclSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "Halo: %s failed: %s", #call, ncclGetErrorString(nerr_)); \
  } while (0)

typedef struct {
  ncclComm_t comm;
  PetscInt   refs;
} HaloNccl;

static PetscMPIInt keyval = MPI_KEYVAL_INVALID;

static ncclDataType_t NcclType(HaloDataType elem) { return elem == HALO_DOUBLE ? ncclFloat64 : ncclFloat32; }

static PetscErrorCode FreeKeyval(void)
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_free_keyval(&keyval));
  PetscFunctionReturn(0);
}

/* Collective over comm when it has no NCCL communicator yet. */
static PetscErrorCode NcclAcquire(MPI_Comm comm, HaloNccl **nccl)
{
  HaloNccl   *nc;
  PetscMPIInt found, rank, size;

  PetscFunctionBeginUser;
  if (keyval == MPI_KEYVAL_INVALID) {
    PetscCallMPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
    PetscCall(PetscRegisterFinalize(FreeKeyval));
  }
  PetscCallMPI(MPI_Comm_get_attr(comm, keyval, &nc, &found));
  if (!found) {
    struct {
      ncclResult_t result;
      ncclUniqueId id;
    } root;
    PetscBool distinct;
    char      why[256];

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    PetscCallMPI(MPI_Comm_size(comm, &size));
    /* NCCL cannot put two ranks on one GPU: it would hang or fail obscurely */
    PetscCall(HaloDevicesDistinct(comm, &distinct, why, sizeof why));
    PetscCheck(distinct, comm, PETSC_ERR_SUP, "Halo type nccl needs one GPU per rank, but %s: use the staged or mpi-device halo type, or give every rank its own GPU", why);
    /* every rank learns whether rank 0 could make the id, so none waits forever */
    if (!rank) root.result = ncclGetUniqueId(&root.id);
    PetscCallMPI(MPI_Bcast(&root, sizeof root, MPI_BYTE, 0, comm));
    PetscCheck(root.result == ncclSuccess, comm, PETSC_ERR_LIB, "Halo: ncclGetUniqueId failed on rank 0: %s", ncclGetErrorString(root.result));
    PetscCall(PetscNew(&nc));
    HaloCallNCCL(ncclCommInitRank(&nc->comm, size, root.id, rank)); /* same rank numbering as comm */
    PetscCallMPI(MPI_Comm_set_attr(comm, keyval, nc));
  }
  nc->refs++;
  *nccl = nc;
  PetscFunctionReturn(0);
}

static PetscErrorCode NcclRelease(MPI_Comm comm, HaloNccl *nc)
{
  PetscFunctionBeginUser;
  if (--nc->refs) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_delete_attr(comm, keyval));
  HaloCallNCCL(ncclCommDestroy(nc->comm));
  PetscCall(PetscFree(nc));
  PetscFunctionReturn(0);
}

static PetscErrorCode HaloBegin_NCCL(Halo h, PetscInt nfields, const HaloField fields[])
{
  HaloDevice          *d      = (HaloDevice *)h->data;
  const HaloNccl      *nc     = (const HaloNccl *)d->backend;
  const cudaStream_t   stream = (cudaStream_t)h->stream;
  const ncclDataType_t type   = NcclType(h->layout.elem);
  const size_t         e      = h->esize;

  PetscFunctionBeginUser;
  PetscCall(HaloDevicePack(h, nfields, fields));
  if (!d->total) PetscFunctionReturn(0);
  /* NCCL pairs the sends and receives between two ranks in the order they
     are issued, where MPI has tags: receives go in the order of the sender's
     face (a, 1 - s), so two faces towards one peer (periodic, two ranks)
     still pair up. */
  HaloCallNCCL(ncclGroupStart());
  for (PetscInt a = 0; a < h->layout.dim; a++)
    for (PetscInt s = 0; s < 2; s++)
      if (d->count[a][s]) HaloCallNCCL(ncclSend(d->dsend + d->off[a][s] * e, d->count[a][s], type, h->layout.neighbor[a][s], nc->comm, stream));
  for (PetscInt a = 0; a < h->layout.dim; a++)
    for (PetscInt t = 1; t >= 0; t--)
      if (d->count[a][t]) HaloCallNCCL(ncclRecv(d->drecv + d->off[a][t] * e, d->count[a][t], type, h->layout.neighbor[a][t], nc->comm, stream));
  HaloCallNCCL(ncclGroupEnd());
  PetscFunctionReturn(0);
}

static PetscErrorCode HaloEnd_NCCL(Halo h)
{
  PetscFunctionBeginUser;
  PetscCall(HaloDeviceUnpack(h));
  PetscFunctionReturn(0);
}

static PetscErrorCode HaloDestroy_NCCL(Halo h)
{
  HaloNccl *nc = (HaloNccl *)((HaloDevice *)h->data)->backend;

  PetscFunctionBeginUser;
  PetscCall(HaloDeviceDestroy(h)); /* waits for the last exchange */
  PetscCall(NcclRelease(h->comm, nc));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloCreate_NCCL(Halo h)
{
  HaloNccl *nc;

  PetscFunctionBeginUser;
  PetscCall(NcclAcquire(h->comm, &nc)); /* first: its errors leave nothing to free */
  PetscCall(HaloDeviceCreate(h, PETSC_FALSE));
  ((HaloDevice *)h->data)->backend = nc;
  h->ops.begin                     = HaloBegin_NCCL;
  h->ops.end                       = HaloEnd_NCCL;
  h->ops.destroy                   = HaloDestroy_NCCL;
  PetscFunctionReturn(0);
}
