/* Backend-independent part of the halo exchange: face geometry, packing. */
#include "halo_impl.h"

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
  Halo h;

  PetscFunctionBeginUser;
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
  PetscCall(PetscNew(&h));
  h->comm   = comm;
  h->layout = *layout;
  for (PetscInt a = 0; a < HALO_MAXDIM; a++) {
    h->padded[a] = a < layout->dim ? layout->n[a] + 2 * layout->width : 1;
    h->stride[a] = a ? h->stride[a - 1] * h->padded[a - 1] : 1;
  }
  for (PetscInt a = 0; a < layout->dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      SlabSetup(layout, a, s, PETSC_FALSE, &h->send[a][s]);
      SlabSetup(layout, a, s, PETSC_TRUE, &h->recv[a][s]);
    }
  switch (type) {
  case HALO_HOST:
    PetscCall(HaloCreate_Host(h));
    break;
  }
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
  PetscCall(halo->ops.begin(halo, nfields, fields));
  PetscFunctionReturn(0);
}

PetscErrorCode HaloExchangeEnd(Halo halo)
{
  PetscFunctionBeginUser;
  PetscCall(halo->ops.end(halo));
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

void HaloPack(const Halo halo, const HaloSlab *slab, const float *field, float *buf)
{
  HALO_SLAB_ROWS(halo, slab, memcpy(buf + k, field + off, sizeof(float) * (size_t)slab->count[0]));
}

void HaloUnpack(const Halo halo, const HaloSlab *slab, const float *buf, float *field)
{
  HALO_SLAB_ROWS(halo, slab, memcpy(field + off, buf + k, sizeof(float) * (size_t)slab->count[0]));
}
