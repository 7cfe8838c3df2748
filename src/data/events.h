/* PETSc log events of halofwi, shown by -log_view; with CUDA each phase is
   also an NVTX range, so Nsight timelines name them. */
#pragma once
#include <petsclog.h>

extern PetscLogEvent FWI_STEP, FWI_ADJOINT_STEP, FWI_INTERIOR, FWI_SHELL, FWI_HALO, FWI_INJREC, FWI_RECONSTRUCT, FWI_REPLAY, FWI_CHECKPOINT, FWI_IO;

PetscErrorCode EventsRegister(void);
/* Whether the user asked for performance figures (-log_view): the run's
   own figures for developers print only then. */
PetscBool EventsDetail(void);
/* Host-side time of a phase: on a GPU that is the time to queue its work,
   and the waits (halo End, NaN checks, downloads) show where it is spent. */
PetscErrorCode PhaseBegin(PetscLogEvent e);
PetscErrorCode PhaseEnd(PetscLogEvent e);
