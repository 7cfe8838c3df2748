/* Where the forward run keeps, step by step, what the adjoint needs of it
   (the term v^2 dt^2 multiplies, over the padded cells).  One small
   interface so that checkpointing, compression or out-of-core storage can
   take the place of the in-memory store: a step is written between
   WriteBegin/End and read back, in reverse order, between ReadBegin/End.
   The buffer a Begin hands out is backend memory (see KernelOps). */
#pragma once
#include <petscsys.h>
#include "kernels.h"

typedef struct _p_WavefieldStore *WavefieldStore;

/* Where the steps are kept.  auto: a device backend keeps them in device
   memory when they fit there, else in page-locked host memory (copied
   asynchronously on a side lane); a host backend in host memory. */
typedef enum { STORAGE_AUTO, STORAGE_DEVICE, STORAGE_HOST } WavefieldStorage;
extern const char *const WavefieldStorages[];

/* Bytes the store needs for nsteps steps of n floats. */
double WavefieldStoreBytes(size_t n, PetscInt nsteps);

/* A store for nsteps steps of f's padded cells.  Refuses, collectively over
   comm, when a rank's share exceeds host_limit (host memory) or the free
   device memory (device memory), with the figures and what to change; says
   where the steps are kept. */
PetscErrorCode WavefieldStoreCreate(MPI_Comm comm, const KernelOps *ops, Fields *f, PetscInt nsteps, WavefieldStorage where, double host_limit,
                                    WavefieldStore *s);
PetscErrorCode WavefieldStoreDestroy(WavefieldStore *s);
PetscErrorCode WavefieldStoreWriteBegin(WavefieldStore s, PetscInt step, float **buf);
PetscErrorCode WavefieldStoreWriteEnd(WavefieldStore s, PetscInt step);
PetscErrorCode WavefieldStoreReadBegin(WavefieldStore s, PetscInt step, float **buf);
PetscErrorCode WavefieldStoreReadEnd(WavefieldStore s, PetscInt step);
