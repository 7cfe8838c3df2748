/* Private to the propagator: the pieces of a time step that the forward
   run (propagate.c) and its adjoint (adjoint.c) share. */
#pragma once
#include "equations/acoustic/kernels.h"
#include "shot/propagate.h"

/* A shot's points in backend memory, so a step needs no transfer beyond
   the values other ranks' receivers read: the maps of survey.h (src_cells:
   the source's cells alone, weight 1), and per internal step the source
   amplitude injected (wav), the field at the source's cells (at_src,
   adjoint), and the receivers' samples (traces; adjoint: the residuals
   injected, one per reached receiver). */
typedef struct {
  PointMap     src, src_cells, rec, reach, send;
  float       *wav, *at_src, *traces;
  float       *outgoing, *remote;           /* backend: values sent and received every step */
  float       *host_outgoing, *host_remote; /* their host copies, for MPI */
  MPI_Request *req;
} ShotPoints;

/* wavelet: at the internal step, before the source scaling. */
PetscErrorCode ShotPointsCreate(const Propagator *p, const TimeAxis *t, const ShotLocal *shot, const float *wavelet, ShotPoints *d);
PetscErrorCode ShotPointsDestroy(const Propagator *p, ShotPoints *d);
/* The part of a step between the free-surface ghosts and the shell: the
   interior (forward or adjoint) on the side lane while the halos travel,
   or after them without overlap; then the shell, and the lanes joined. */
PetscErrorCode StepRegions(Propagator *p, PetscBool adjoint);
/* A progress line from the group's first rank every progress_interval
   seconds (last: time and step of the previous one). */
PetscErrorCode ReportProgress(const Propagator *p, const TimeAxis *t, const char *what, PetscInt shot_id, PetscInt done, PetscLogDouble last[2]);
/* Every nan_check_interval steps and after the last: a clear error, on
   every rank of the group, once the field holds NaN or Inf. */
PetscErrorCode CheckFinite(Propagator *p, const TimeAxis *t, const char *what, PetscInt shot_id, PetscInt done);

/* The boundary method (reconstruct.c).  Save: the band of u^n into the
   store at forward step n (n < nsteps - 1).  Start: after the forward run,
   its last two levels become the reconstruction's.  At reverse step n,
   Begin mirrors the forward field's ghosts across free surfaces and hands
   the adjoint step (which exchanges its halos too) that field, u^n and
   u^{n+1}: over the core that step writes u^{n-1} =
   2 u^n - u^{n+1} + v^2 dt^2 L u^n and images with L u^n (within the
   forward run's support boxes where they are kept, support.h); End adds
   the source term, zeroes the free surface and puts the band of u^{n-1}
   back. */
PetscErrorCode ReconstructionSave(Propagator *p, WavefieldStore store, PetscInt n, PetscInt nsteps);
void           ReconstructionStart(Propagator *p);
PetscErrorCode ReconstructionBegin(Propagator *p, PetscInt n);
PetscErrorCode ReconstructionEnd(Propagator *p, const ShotPoints *d, WavefieldStore store, PetscInt n);
/* Reverse steps n and n - 1 at once, where rec.pair says the backend can
   (n >= 1): the same as Begin, the adjoint step and End twice. */
PetscErrorCode ReconstructionPair(Propagator *p, const ShotLocal *shot, const ShotPoints *d, WavefieldStore store, PetscInt n);
PetscErrorCode ReconstructionDestroy(Propagator *p);
