/* Device buffers and batched packing shared by the device backends; which
   devices this process and its communicator use. */
#include "halo_device.h"

_Static_assert(HALO_PACK_MAXCOPIES == HALO_MAXFIELDS * 2 * HALO_MAXDIM, "one packing copy per (field, face)");

PetscErrorCode HaloDeviceVisible(PetscBool *visible, char why[], size_t len)
{
  int         n = 0;
  cudaError_t err;

  PetscFunctionBeginUser;
  err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) (void)cudaGetLastError(); /* not ours to keep: later launches would report it */
  *visible = err == cudaSuccess && n > 0 ? PETSC_TRUE : PETSC_FALSE;
  if (err != cudaSuccess) PetscCall(PetscSNPrintf(why, len, "no usable CUDA device (cudaGetDeviceCount: %s)", cudaGetErrorString(err)));
  else if (!n) PetscCall(PetscSNPrintf(why, len, "no CUDA device visible"));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloDevicesDistinct(MPI_Comm comm, PetscBool *distinct, char why[], size_t len)
{
  struct cudaDeviceProp prop;
  unsigned char        *all;
  int                   dev;
  PetscMPIInt           size;

  PetscFunctionBeginUser;
  HaloCallCUDA(cudaGetDevice(&dev));
  HaloCallCUDA(cudaGetDeviceProperties(&prop, dev));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc1(16 * (size_t)size, &all));
  PetscCallMPI(MPI_Allgather(prop.uuid.bytes, 16, MPI_BYTE, all, 16, MPI_BYTE, comm));
  *distinct = PETSC_TRUE;
  for (PetscMPIInt i = 1; i < size && *distinct; i++)
    for (PetscMPIInt j = 0; j < i && *distinct; j++)
      if (!memcmp(all + 16 * i, all + 16 * j, 16)) {
        const unsigned char *u = all + 16 * i;
        *distinct              = PETSC_FALSE;
        PetscCall(PetscSNPrintf(why, len, "ranks %d and %d share the GPU GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", j, i, u[0], u[1], u[2],
                                u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]));
      }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloDeviceCreate(Halo h, PetscBool pinned)
{
  HaloDevice *d;

  PetscFunctionBeginUser;
  /* the kernel indexes a slab with 32 bits and strides over it */
  for (PetscInt a = 0; a < h->layout.dim; a++)
    PetscCheck(h->send[a][0].cells < (1u << 31), PETSC_COMM_SELF, PETSC_ERR_SUP, "Halo: a face of %zu cells along axis %" PetscInt_FMT ", at most 2^31 on a device",
               h->send[a][0].cells, a);
  PetscCall(PetscNew(&d));
  d->pinned = pinned;
  for (PetscInt a = 0; a < HALO_MAXDIM; a++) d->pack.stride[a] = d->unpack.stride[a] = h->stride[a];
  d->pack.elemsize = d->unpack.elemsize = (unsigned)h->esize;
  HaloCallCUDA(cudaEventCreateWithFlags(&d->packed, cudaEventDisableTiming));
  HaloCallCUDA(cudaEventCreateWithFlags(&d->idle, cudaEventDisableTiming));
  h->data = d;
  PetscFunctionReturn(0);
}

static PetscErrorCode FreeBuffers(HaloDevice *d)
{
  PetscFunctionBeginUser;
  HaloCallCUDA(cudaEventSynchronize(d->idle)); /* the last exchange's unpacking has read them */
  HaloCallCUDA(cudaFree(d->dsend));
  HaloCallCUDA(cudaFree(d->drecv));
  HaloCallCUDA(cudaFreeHost(d->hsend));
  HaloCallCUDA(cudaFreeHost(d->hrecv));
  d->dsend = d->drecv = d->hsend = d->hrecv = NULL;
  d->capacity                               = 0;
  PetscFunctionReturn(0);
}

/* Grown to the largest exchange seen, never shrunk: a halo's exchanges are alike. */
static PetscErrorCode EnsureCapacity(HaloDevice *d, size_t need, size_t esize)
{
  const size_t bytes = need * esize;

  PetscFunctionBeginUser;
  if (need <= d->capacity) PetscFunctionReturn(0);
  PetscCall(FreeBuffers(d));
  HaloCallCUDA(cudaMalloc((void **)&d->dsend, bytes));
  HaloCallCUDA(cudaMalloc((void **)&d->drecv, bytes));
  if (d->pinned) {
    HaloCallCUDA(cudaHostAlloc((void **)&d->hsend, bytes, cudaHostAllocDefault));
    HaloCallCUDA(cudaHostAlloc((void **)&d->hrecv, bytes, cudaHostAllocDefault));
  }
  d->capacity   = need;
  d->pack.buf   = d->dsend;
  d->unpack.buf = d->drecv;
  PetscFunctionReturn(0);
}

static void AddCopy(const Halo h, const HaloSlab *slab, void *field, size_t offset, HaloPackBatch *b)
{
  HaloPackCopy *c = &b->copy[b->ncopies++];

  c->field  = field;
  c->offset = offset;
  c->start  = 0;
  for (PetscInt a = 0; a < HALO_MAXDIM; a++) {
    c->start += (long long)slab->lo[a] * h->stride[a];
    c->count[a] = (unsigned)slab->count[a];
  }
}

/* Faces in the order (axis, side), the fields of a face back to back in the
   caller's order, as in the host backend. */
static void DeviceBuffersLayout(const Halo h, HaloDevice *d, PetscInt nfields, const HaloField fields[])
{
  memset(d->off, 0, sizeof d->off);
  memset(d->count, 0, sizeof d->count);
  d->total        = 0;
  d->pack.ncopies = d->unpack.ncopies = 0;
  for (PetscInt a = 0; a < h->layout.dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      d->off[a][s] = d->total;
      if (h->layout.neighbor[a][s] == MPI_PROC_NULL) continue;
      for (PetscInt f = 0; f < nfields; f++)
        if (fields[f].faces & HALO_FACE(a, s)) {
          AddCopy(h, &h->send[a][s], fields[f].data, d->total, &d->pack);
          AddCopy(h, &h->recv[a][s], fields[f].data, d->total, &d->unpack);
          d->count[a][s] += h->send[a][s].cells;
          d->total += h->send[a][s].cells;
        }
    }
}

PetscErrorCode HaloDevicePack(Halo h, PetscInt nfields, const HaloField fields[])
{
  HaloDevice        *d      = (HaloDevice *)h->data;
  const cudaStream_t stream = (cudaStream_t)h->stream;

  PetscFunctionBeginUser;
  /* on a new stream, wait for the previous exchange's unpacking on the old
     one: it still reads the receive buffers this exchange will fill */
  if (stream != d->last) HaloCallCUDA(cudaStreamWaitEvent(stream, d->idle, 0));
  d->last = stream;
  DeviceBuffersLayout(h, d, nfields, fields);
  PetscCall(EnsureCapacity(d, d->total, h->esize));
  HaloCallCUDA(HaloPackLaunch(&d->pack, HALO_PACK_GATHER, stream));
  if (d->pinned && d->total) HaloCallCUDA(cudaMemcpyAsync(d->hsend, d->dsend, d->total * h->esize, cudaMemcpyDeviceToHost, stream));
  HaloCallCUDA(cudaEventRecord(d->packed, stream));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloDeviceUnpack(Halo h)
{
  HaloDevice        *d      = (HaloDevice *)h->data;
  const cudaStream_t stream = (cudaStream_t)h->stream;

  PetscFunctionBeginUser;
  if (d->pinned && d->total) HaloCallCUDA(cudaMemcpyAsync(d->drecv, d->hrecv, d->total * h->esize, cudaMemcpyHostToDevice, stream));
  HaloCallCUDA(HaloPackLaunch(&d->unpack, HALO_PACK_SCATTER, stream));
  HaloCallCUDA(cudaEventRecord(d->idle, stream));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloDeviceDestroy(Halo h)
{
  HaloDevice *d = (HaloDevice *)h->data;

  PetscFunctionBeginUser;
  PetscCall(FreeBuffers(d));
  HaloCallCUDA(cudaEventDestroy(d->packed));
  HaloCallCUDA(cudaEventDestroy(d->idle));
  PetscCall(PetscFree(h->data));
  PetscFunctionReturn(0);
}
