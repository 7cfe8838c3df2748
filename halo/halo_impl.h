/* Private: the Halo object and the operations a backend provides. */
#pragma once
#include <halofwi/halo.h>

typedef struct {
  PetscErrorCode (*begin)(Halo, PetscInt, const HaloField[]);
  PetscErrorCode (*end)(Halo);
  PetscErrorCode (*destroy)(Halo);
} HaloOps;

/* A face slab in padded index space: [lo, lo + count) per axis. */
typedef struct {
  PetscInt lo[HALO_MAXDIM], count[HALO_MAXDIM];
  size_t   cells;
} HaloSlab;

struct _p_Halo {
  MPI_Comm   comm;
  HaloLayout layout;
  PetscInt   padded[HALO_MAXDIM];
  ptrdiff_t  stride[HALO_MAXDIM];
  HaloSlab   send[HALO_MAXDIM][2], recv[HALO_MAXDIM][2]; /* owned cells sent / ghosts received */
  HaloOps    ops;
  void      *data; /* backend state */
};

PetscErrorCode HaloCreate_Host(Halo halo);

/* Copies between a field and a contiguous buffer, axis 0 fastest. */
void HaloPack(const Halo halo, const HaloSlab *slab, const float *field, float *buf);
void HaloUnpack(const Halo halo, const HaloSlab *slab, const float *buf, float *field);
