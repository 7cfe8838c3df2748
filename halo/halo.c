/* Backend-independent part of the halo exchange: face geometry, packing,
   which backends this build and this process can use. */
#include "halo_impl.h"

const char *const HaloTypes[]     = {"host", "staged", "mpi-device", "nccl", "HaloType", "HALO_", NULL};
const char *const HaloDataTypes[] = {"float", "double", "HaloDataType", "HALO_", NULL};

size_t HaloDataTypeSize(HaloDataType elem)
{
  switch (elem) {
  case HALO_FLOAT:
    return sizeof(float);
  case HALO_DOUBLE:
    return sizeof(double);
  }
  return 0;
}

#if defined(HALO_HAVE_CUDA)
  #if defined(__has_include)
    #if __has_include(<mpi-ext.h>)
      #include <mpi-ext.h> /* Open MPI: MPIX_Query_cuda_support */
    #endif
  #endif

/* The header tells what the MPI headers were built with; the query asks the
   library actually loaded (Debian's Open MPI 4.1 has it and answers no). */
static PetscErrorCode MPICudaAware(PetscBool *aware, char why[], size_t len)
{
  PetscFunctionBeginUser;
  #if defined(MPIX_CUDA_AWARE_SUPPORT)
  *aware = MPIX_Query_cuda_support() ? PETSC_TRUE : PETSC_FALSE;
  if (!*aware) PetscCall(PetscSNPrintf(why, len, "the MPI library is not CUDA-aware (MPIX_Query_cuda_support() returns 0)"));
  #else
  *aware = PETSC_FALSE;
  PetscCall(PetscSNPrintf(why, len, "the MPI library cannot tell whether it is CUDA-aware (no MPIX_Query_cuda_support() in <mpi-ext.h>)"));
  #endif
  PetscFunctionReturn(0);
}
#endif

PetscErrorCode HaloTypeAvailable(HaloType type, PetscBool *available, char why[], size_t len)
{
  char reason[256] = "";

  PetscFunctionBeginUser;
  PetscCheck(type >= HALO_HOST && type <= HALO_NCCL, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Halo type %d, expected 0..%d (host, staged, mpi-device, nccl)",
             (int)type, (int)HALO_NCCL);
  *available = PETSC_TRUE;
  /* what the build and the MPI library lack first, then what this process lacks */
#if !defined(HALO_HAVE_CUDA)
  if (type != HALO_HOST) {
    *available = PETSC_FALSE;
    PetscCall(PetscSNPrintf(reason, sizeof reason, "built without CUDA"));
  }
#else
  #if !defined(HALO_HAVE_NCCL)
  if (type == HALO_NCCL) {
    *available = PETSC_FALSE;
    PetscCall(PetscSNPrintf(reason, sizeof reason, "built without NCCL"));
  }
  #endif
  if (type == HALO_MPI_DEVICE) PetscCall(MPICudaAware(available, reason, sizeof reason));
  if (*available && type != HALO_HOST) PetscCall(HaloDeviceVisible(available, reason, sizeof reason));
#endif
  if (why && len) PetscCall(PetscSNPrintf(why, len, "%s", reason));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloTypeAvailableOnComm(MPI_Comm comm, HaloType type, PetscBool *available, char why[], size_t len)
{
  char        reason[256];
  PetscMPIInt rank, size, mine, first;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(HaloTypeAvailable(type, available, reason, sizeof reason));
  /* the lowest rank that cannot use it tells why */
  mine = *available ? size : rank;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  *available = first == size ? PETSC_TRUE : PETSC_FALSE;
  if (!*available) {
    PetscCallMPI(MPI_Bcast(reason, sizeof reason, MPI_CHAR, first, comm));
    if (why && len) PetscCall(PetscSNPrintf(why, len, "rank %d: %s", first, reason));
    PetscFunctionReturn(0);
  }
#if defined(HALO_HAVE_NCCL)
  if (type == HALO_NCCL) PetscCall(HaloDevicesDistinct(comm, available, reason, sizeof reason));
#endif
  if (why && len) PetscCall(PetscSNPrintf(why, len, "%s", *available ? "" : reason));
  PetscFunctionReturn(0);
}

static void SlabSetup(const HaloLayout *L, PetscInt axis, PetscInt side, PetscBool ghost, HaloSlab *slab)
{
  const PetscInt w = L->width;
  slab->cells      = 1;
  for (PetscInt a = 0; a < HALO_MAXDIM; a++) {
    const PetscInt pad = a < L->dim ? w : 0;
    if (a == axis) {
      slab->count[a] = w;
      /* ghosts lie outside the owned range; the cells sent are its first/last w */
      if (ghost) slab->lo[a] = side ? pad + L->n[a] : 0;
      else slab->lo[a] = side ? L->n[a] : pad;
    } else {
      slab->lo[a]    = pad;
      slab->count[a] = L->n[a];
    }
    slab->cells *= (size_t)slab->count[a];
  }
}

PetscErrorCode HaloCreate(MPI_Comm comm, const HaloLayout *layout, HaloType type, Halo *halo)
{
  Halo           h;
  PetscBool      available;
  char           why[256];
  PetscErrorCode ierr = 0;

  PetscFunctionBeginUser;
  PetscCall(HaloTypeAvailable(type, &available, why, sizeof why));
  PetscCheck(available, PETSC_COMM_SELF, PETSC_ERR_SUP, "Halo type %s is not available: %s", HaloTypes[type], why);
  PetscCheck(HaloDataTypeSize(layout->elem), comm, PETSC_ERR_ARG_OUTOFRANGE, "Halo: element type %d, expected 0..%d (float, double)", (int)layout->elem,
             (int)HALO_DOUBLE);
  PetscCheck(layout->tag >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Halo: tag %d, expected 0 or more", layout->tag);
  PetscCheck(layout->dim >= 1 && layout->dim <= HALO_MAXDIM, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Halo dimension %" PetscInt_FMT " not in 1..%d", layout->dim, HALO_MAXDIM);
  for (PetscInt a = layout->dim; a < HALO_MAXDIM; a++)
    PetscCheck(layout->n[a] == 1, comm, PETSC_ERR_ARG_SIZ, "Halo: axis %" PetscInt_FMT " is beyond the dimension %" PetscInt_FMT " and must have size 1, not %" PetscInt_FMT, a,
               layout->dim, layout->n[a]);
  for (PetscInt a = 0; a < layout->dim; a++) {
    const PetscBool has_nbr = layout->neighbor[a][0] != MPI_PROC_NULL || layout->neighbor[a][1] != MPI_PROC_NULL;
    PetscCheck(!has_nbr || layout->n[a] >= layout->width, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "Halo: %" PetscInt_FMT " owned cells along axis %" PetscInt_FMT " is thinner than the halo width %" PetscInt_FMT,
               layout->n[a], a, layout->width);
  }
  PetscCheck(!layout->pitch || layout->pitch >= layout->n[0] + 2 * layout->width, comm, PETSC_ERR_ARG_SIZ,
             "Halo: row pitch %" PetscInt_FMT " is shorter than the padded row of %" PetscInt_FMT, layout->pitch, layout->n[0] + 2 * layout->width);
  PetscCall(PetscNew(&h));
  h->comm    = comm;
  h->layout  = *layout;
  h->esize   = HaloDataTypeSize(layout->elem);
  h->mpitype = layout->elem == HALO_DOUBLE ? MPI_DOUBLE : MPI_FLOAT;
  for (PetscInt a = 0; a < HALO_MAXDIM; a++) {
    h->padded[a] = a < layout->dim ? layout->n[a] + 2 * layout->width : 1;
    h->stride[a] = a ? h->stride[a - 1] * (a == 1 && layout->pitch ? layout->pitch : h->padded[a - 1]) : 1;
  }
  for (PetscInt a = 0; a < layout->dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      SlabSetup(layout, a, s, PETSC_FALSE, &h->send[a][s]);
      SlabSetup(layout, a, s, PETSC_TRUE, &h->recv[a][s]);
    }
  switch (type) {
  case HALO_HOST:
    ierr = HaloCreate_Host(h);
    break;
#if defined(HALO_HAVE_CUDA)
  case HALO_STAGED:
  case HALO_MPI_DEVICE:
    ierr = HaloCreate_MPIDevice(h, type == HALO_STAGED ? PETSC_TRUE : PETSC_FALSE);
    break;
#endif
#if defined(HALO_HAVE_NCCL)
  case HALO_NCCL:
    ierr = HaloCreate_NCCL(h);
    break;
#endif
  default: /* HaloTypeAvailable said no above */
    break;
  }
  if (ierr) PetscCall(PetscFree(h)); /* a backend that fails frees its own state */
  PetscCall(ierr);
  *halo = h;
  PetscFunctionReturn(0);
}

PetscErrorCode HaloDestroy(Halo *halo)
{
  PetscFunctionBeginUser;
  if (!*halo) PetscFunctionReturn(0);
  PetscCall((*halo)->ops.destroy(*halo));
  PetscCall(PetscFree(*halo));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloExchangeBegin(Halo halo, PetscInt nfields, const HaloField fields[])
{
  PetscFunctionBeginUser;
  PetscCheck(nfields >= 0 && nfields <= HALO_MAXFIELDS, halo->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Halo: %" PetscInt_FMT " fields, at most %d", nfields, HALO_MAXFIELDS);
  PetscCheck(!halo->in_flight, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Halo: HaloExchangeBegin called twice without HaloExchangeEnd");
  PetscCall(halo->ops.begin(halo, nfields, fields));
  halo->in_flight = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode HaloExchangeEnd(Halo halo)
{
  PetscFunctionBeginUser;
  PetscCheck(halo->in_flight, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Halo: HaloExchangeEnd called without HaloExchangeBegin");
  PetscCall(halo->ops.end(halo));
  halo->in_flight = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode HaloSetStream(Halo halo, void *stream)
{
  PetscFunctionBeginUser;
  PetscCheck(!halo->in_flight, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Halo: HaloSetStream between HaloExchangeBegin and HaloExchangeEnd");
  halo->stream = stream;
  PetscFunctionReturn(0);
}

PetscErrorCode HaloGetPadded(Halo halo, PetscInt padded[HALO_MAXDIM], ptrdiff_t stride[HALO_MAXDIM])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < HALO_MAXDIM; a++) {
    if (padded) padded[a] = halo->padded[a];
    if (stride) stride[a] = halo->stride[a];
  }
  PetscFunctionReturn(0);
}

/* The slab's rows along axis 0 are contiguous in the field: copy row by row. */
#define HALO_SLAB_ROWS(halo, slab, ROW_COPY) \
  do { \
    size_t k = 0; \
    for (PetscInt i2 = 0; i2 < (slab)->count[2]; i2++) \
      for (PetscInt i1 = 0; i1 < (slab)->count[1]; i1++, k += (size_t)(slab)->count[0]) { \
        const ptrdiff_t off = (slab)->lo[0] + ((slab)->lo[1] + i1) * (halo)->stride[1] + ((slab)->lo[2] + i2) * (halo)->stride[2]; \
        ROW_COPY; \
      } \
  } while (0)

void HaloPack(const Halo halo, const HaloSlab *slab, const void *field, void *buf)
{
  const size_t e = halo->esize;
  HALO_SLAB_ROWS(halo, slab, memcpy((char *)buf + k * e, (const char *)field + (size_t)off * e, e * (size_t)slab->count[0]));
}

void HaloUnpack(const Halo halo, const HaloSlab *slab, const void *buf, void *field)
{
  const size_t e = halo->esize;
  HALO_SLAB_ROWS(halo, slab, memcpy((char *)field + (size_t)off * e, (const char *)buf + k * e, e * (size_t)slab->count[0]));
}
