/* Host backend: pack faces into host buffers, non-blocking MPI, unpack. */
#include "halo_impl.h"

typedef struct {
  char       *sendbuf[HALO_MAXDIM][2], *recvbuf[HALO_MAXDIM][2];
  size_t      capacity[HALO_MAXDIM][2]; /* elements per buffer */
  MPI_Request req[4 * HALO_MAXDIM];
  PetscInt    nreq;
  /* what End must unpack */
  PetscInt    nfields;
  HaloField   fields[HALO_MAXFIELDS];
} HaloHost;

static PetscErrorCode EnsureCapacity(HaloHost *hh, PetscInt a, PetscInt s, size_t need, size_t esize)
{
  PetscFunctionBeginUser;
  if (need <= hh->capacity[a][s]) PetscFunctionReturn(0);
  PetscCall(PetscFree(hh->sendbuf[a][s]));
  PetscCall(PetscFree(hh->recvbuf[a][s]));
  PetscCall(PetscMalloc1(need * esize, &hh->sendbuf[a][s]));
  PetscCall(PetscMalloc1(need * esize, &hh->recvbuf[a][s]));
  hh->capacity[a][s] = need;
  PetscFunctionReturn(0);
}

static PetscErrorCode HaloBegin_Host(Halo h, PetscInt nfields, const HaloField fields[])
{
  HaloHost *hh = (HaloHost *)h->data;

  PetscFunctionBeginUser;
  hh->nreq    = 0;
  hh->nfields = nfields;
  for (PetscInt f = 0; f < nfields; f++) hh->fields[f] = fields[f];
  for (PetscInt a = 0; a < h->layout.dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      const PetscMPIInt nbr   = h->layout.neighbor[a][s];
      const size_t      cells = h->send[a][s].cells;
      size_t            count = 0;
      if (nbr == MPI_PROC_NULL) continue;
      for (PetscInt f = 0; f < nfields; f++)
        if (fields[f].faces & HALO_FACE(a, s)) count += cells;
      if (!count) continue;
      PetscCall(EnsureCapacity(hh, a, s, count, h->esize));
      PetscCallMPI(MPI_Irecv(hh->recvbuf[a][s], (int)count, h->mpitype, nbr, HaloFaceTag(h, a, 1 - s), h->comm, &hh->req[hh->nreq++]));
      count = 0;
      for (PetscInt f = 0; f < nfields; f++)
        if (fields[f].faces & HALO_FACE(a, s)) {
          HaloPack(h, &h->send[a][s], fields[f].data, hh->sendbuf[a][s] + count * h->esize);
          count += cells;
        }
      PetscCallMPI(MPI_Isend(hh->sendbuf[a][s], (int)count, h->mpitype, nbr, HaloFaceTag(h, a, s), h->comm, &hh->req[hh->nreq++]));
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode HaloEnd_Host(Halo h)
{
  HaloHost *hh = (HaloHost *)h->data;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Waitall((int)hh->nreq, hh->req, MPI_STATUSES_IGNORE));
  for (PetscInt a = 0; a < h->layout.dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      size_t off = 0;
      if (h->layout.neighbor[a][s] == MPI_PROC_NULL) continue;
      for (PetscInt f = 0; f < hh->nfields; f++)
        if (hh->fields[f].faces & HALO_FACE(a, s)) {
          HaloUnpack(h, &h->recv[a][s], hh->recvbuf[a][s] + off * h->esize, hh->fields[f].data);
          off += h->recv[a][s].cells;
        }
    }
  hh->nreq    = 0;
  hh->nfields = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode HaloDestroy_Host(Halo h)
{
  HaloHost *hh = (HaloHost *)h->data;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < HALO_MAXDIM; a++)
    for (PetscInt s = 0; s < 2; s++) {
      PetscCall(PetscFree(hh->sendbuf[a][s]));
      PetscCall(PetscFree(hh->recvbuf[a][s]));
    }
  PetscCall(PetscFree(h->data));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloCreate_Host(Halo h)
{
  HaloHost *hh;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&hh));
  h->data        = hh;
  h->ops.begin   = HaloBegin_Host;
  h->ops.end     = HaloEnd_Host;
  h->ops.destroy = HaloDestroy_Host;
  PetscFunctionReturn(0);
}
