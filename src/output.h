/* The output folder: created and checked before any work, so a run that
   cannot save its results fails at once and never overwrites without
   -overwrite.  Also clears what dead runs left: temporaries (util.h) of
   processes of this host that no longer run. */
#pragma once
#include <petscsys.h>

typedef enum {
  OUTPUT_SHOTS,    /* -mode forward: shot_NNNN.rsf */
  OUTPUT_GRADIENT, /* gradient.rsf */
  OUTPUT_INVERSION /* vp_NNNN.rsf, vp.rsf, misfit.csv, restart/ */
} OutputKind;

/* Collective: rank 0 creates dir (and parents), checks it is writable and
   removes stale temporaries in it and in its restart/ (printing each; those
   of other hosts are left, with a note).  Then, with overwrite (and not
   restart), removes the earlier results of the kind, printing them;
   otherwise refuses results that would be replaced: the first nshots shot
   gathers, gradient.rsf, or for an inversion misfit.csv, vp.rsf, vp_NNNN.rsf
   and a saved restart state (with restart only vp.rsf: a finished run).
   Also lets writes past a file-size limit fail with EFBIG instead of ending
   the process (SIGXFSZ ignored), so that they are reported. */
PetscErrorCode OutputPrepareKind(MPI_Comm comm, const char *dir, OutputKind kind, PetscInt nshots, PetscBool overwrite, PetscBool restart);
/* -mode forward: OutputPrepareKind for nshots shot gathers. */
PetscErrorCode OutputPrepare(MPI_Comm comm, const char *dir, PetscInt nshots, PetscBool overwrite);
PetscErrorCode OutputShotPath(const char *dir, PetscInt shot, char path[PETSC_MAX_PATH_LEN]);
