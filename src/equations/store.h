/* Where the forward run keeps, step by step, what the adjoint needs of it
   (what the equation's gradient method stores: Equation.store_shape).  One small
   interface so that checkpointing, compression or out-of-core storage can
   take the place of the in-memory store: a step is written between
   WriteBegin/End and read back, in reverse order, between ReadBegin/End,
   at most two steps open at once (n + 1, then n).
   The buffer a Begin hands out is backend memory (see BackendOps). */
#pragma once
#include <petscsys.h>
#include "equations/equation.h"

/* Share of the available memory (host, and free device memory) a run may
   plan to use: the rest is for the system, MPI's buffers and what the
   estimates leave out. */
#define MEMORY_SHARE 0.9


/* Where and how the steps are kept: -wavefield_storage (disk: in the
   folder dir), -wavefield_compression. */
typedef struct {
  WavefieldStorage where;
  WavefieldCodec   codec;
  const char      *dir;
} WavefieldTier;

/* Bytes the store keeps for nsteps steps of n floats, encoded by codec. */
double WavefieldStoreBytes(size_t n, PetscInt nsteps, WavefieldCodec codec);
/* Bytes of memory a store for steps of n floats needs beside its steps,
   in host memory (bytes[0]) and in device memory (bytes[1]): the buffers
   the equation writes and reads a step in, where its steps are not in
   backend memory as floats (staged on a device, on disk, encoded), a
   device's encoding buffers where encoded steps cross its copy lane, and
   its page-locked host buffers for a file.  tier->where device: the steps
   kept in device memory. */
void WavefieldStoreBufferBytes(const BackendOps *b, size_t n, const WavefieldTier *tier, double bytes[2]);

/* A store for nsteps steps of n floats (what: how they are described),
   placed as the tier asks: with auto, a device backend keeps them in device
   memory when the busiest rank's share fits in 90% of the least free device
   memory of any rank, else in page-locked host memory; disk: an unnamed
   file in tier->dir (equations/store_file.h).  Says, collectively over
   comm, where they are kept; the budgets were checked before
   (GradientPlanChoose).  b and lanes: the backend's memory and the lanes
   the copies of a staged store queue on.  live: the live map beside each
   step, in host memory (Equation.store_shape says where the equation keeps
   one for the stored term; bytes 0: none).  Encoded steps lie where the
   floats would (a device's in device memory, or staged), or on disk,
   encoded and decoded by the backend (BackendOps.encode). */
PetscErrorCode WavefieldStoreCreate(MPI_Comm comm, const BackendOps *b, void *lanes, size_t n, PetscInt nsteps, const WavefieldTier *tier, const WavefieldLive *live,
                                    const char *what, WavefieldStore *s);
PetscErrorCode WavefieldStoreDestroy(WavefieldStore *s);
/* Makes the store a ring: step k (any k >= 0) lies in slot k % nsteps, a
   step overwriting the one nsteps before it (checkpointing keeps the last
   steps recomputed only).  Only for a store of floats in backend memory. */
PetscErrorCode WavefieldStoreSetRing(WavefieldStore s);
PetscErrorCode WavefieldStoreWriteBegin(WavefieldStore s, PetscInt step, float **buf);
PetscErrorCode WavefieldStoreWriteEnd(WavefieldStore s, PetscInt step);
PetscErrorCode WavefieldStoreReadBegin(WavefieldStore s, PetscInt step, float **buf);
PetscErrorCode WavefieldStoreReadEnd(WavefieldStore s, PetscInt step);
/* Step's live map (WavefieldLive) in host memory, and in *start its rows'
   starts; NULL, both, where the store keeps none
   (live_bytes 0 at its creation). */
unsigned char *WavefieldStoreLive(WavefieldStore s, PetscInt step, uint32_t **start);
/* Whether the store keeps a live map, and the share of its chunks marked
   live over every step (the last shot's; 1 without a map). */
PetscBool WavefieldStoreLiveShare(WavefieldStore s, double *share);
/* Collective: prints the busiest rank's share where any rank keeps a map. */
PetscErrorCode WavefieldStoreLiveReport(MPI_Comm comm, WavefieldStore s);
