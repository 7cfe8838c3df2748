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
  MPI_Comm     comm;
  HaloLayout   layout;
  size_t       esize;   /* bytes per element */
  MPI_Datatype mpitype; /* of one element */
  PetscInt     padded[HALO_MAXDIM];
  ptrdiff_t    stride[HALO_MAXDIM];
  HaloSlab     send[HALO_MAXDIM][2], recv[HALO_MAXDIM][2]; /* owned cells sent / ghosts received */
  HaloOps      ops;
  void        *stream;    /* cudaStream_t of the device backends */
  PetscBool    in_flight; /* between Begin and End */
  void        *data;      /* backend state */
};

PetscErrorCode HaloCreate_Host(Halo halo);
#if defined(HALO_HAVE_CUDA)
PetscErrorCode HaloCreate_MPIDevice(Halo halo, PetscBool staged);
/* Whether this process sees a CUDA device; whether the ranks of comm use distinct GPUs (collective). */
PetscErrorCode HaloDeviceVisible(PetscBool *visible, char why[], size_t len);
PetscErrorCode HaloDevicesDistinct(MPI_Comm comm, PetscBool *distinct, char why[], size_t len);
#endif
#if defined(HALO_HAVE_NCCL)
PetscErrorCode HaloCreate_NCCL(Halo halo);
#endif

/* Tag of a message travelling through face (a, s) of the sender. */
static inline int HaloFaceTag(const Halo h, PetscInt a, PetscInt s) { return h->layout.tag * 2 * HALO_MAXDIM + (int)(2 * a + s); }

/* Copies between a field and a contiguous buffer of the halo's elements, axis 0 fastest. */
void HaloPack(const Halo halo, const HaloSlab *slab, const void *field, void *buf);
void HaloUnpack(const Halo halo, const HaloSlab *slab, const void *buf, void *field);
