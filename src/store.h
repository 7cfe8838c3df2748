/* Where the forward run keeps, step by step, what the adjoint needs of it
   (the term v^2 dt^2 multiplies, over the padded cells).  One small
   interface so that checkpointing, compression or out-of-core storage can
   take the place of the in-memory store: a step is written between
   WriteBegin/End and read back, in reverse order, between ReadBegin/End. */
#pragma once
#include <petscsys.h>

typedef struct _p_WavefieldStore *WavefieldStore;

/* Bytes the in-memory store needs for nsteps steps of n floats. */
double WavefieldStoreBytes(size_t n, PetscInt nsteps);

/* In memory, allocated with alloc (host or device); refuses, collectively
   over comm, when a rank's share exceeds limit_bytes, with the figures and
   what to change. */
PetscErrorCode WavefieldStoreCreate(MPI_Comm comm, size_t n, PetscInt nsteps, double limit_bytes, PetscErrorCode (*alloc)(float **, size_t),
                                    PetscErrorCode (*release)(float **), WavefieldStore *s);
PetscErrorCode WavefieldStoreDestroy(WavefieldStore *s);
PetscErrorCode WavefieldStoreWriteBegin(WavefieldStore s, PetscInt step, float **buf);
PetscErrorCode WavefieldStoreWriteEnd(WavefieldStore s, PetscInt step);
PetscErrorCode WavefieldStoreReadBegin(WavefieldStore s, PetscInt step, float **buf);
PetscErrorCode WavefieldStoreReadEnd(WavefieldStore s, PetscInt step);
