/* The output folder: created and checked before any work, so a run that
   cannot save its results fails at once and never overwrites without
   -overwrite.  Also clears what dead runs left: temporaries (util.h) of
   processes of this host that no longer run. */
#pragma once
#include "options/options.h"

typedef enum {
  OUTPUT_SHOTS,    /* -mode forward: shot_NNNN.rsf or .sgy */
  OUTPUT_GRADIENT, /* gradient.rsf or .sgy */
  OUTPUT_INVERSION /* vp_NNNN.rsf, vp.rsf (or .sgy), misfit.csv, restart/ */
} OutputKind;

/* Collective: rank 0 creates o->output_dir (and parents), checks it is
   writable and takes its lock (.halofwi.lock, held until the process ends:
   one run per folder; a folder in use is refused naming the other run's
   host and process), and removes stale temporaries in it and in its
   restart/ (printing each; those of other hosts are left, with a note).
   An inversion's restart state that holds no evaluation is removed (it
   blocks nothing).  Then, with -overwrite (and not -restart), removes the
   earlier results of the kind, printing them, unless one of them is an
   input of the run (refused, nothing removed); otherwise refuses results
   that would be replaced: the first nshots shot gathers, gradient.rsf, or
   for an inversion misfit.csv, vp.rsf, vp_NNNN.rsf and a saved restart
   state (with -restart only vp.rsf: a finished run).  Also lets writes past
   a file-size limit fail with EFBIG instead of ending the process (SIGXFSZ
   ignored), so that they are reported. */
PetscErrorCode OutputPrepareKind(MPI_Comm comm, const Options *o, OutputKind kind, PetscInt nshots);
/* Releases the output folder's lock (and removes its file) if this process
   holds it; also run at exit. */
void OutputRelease(void);
/* -mode forward: OutputPrepareKind for nshots shot gathers. */
PetscErrorCode OutputPrepare(MPI_Comm comm, const Options *o, PetscInt nshots);
/* dir/shot_NNNN.rsf or .sgy */
PetscErrorCode OutputShotPath(const char *dir, PetscInt shot, FileFormat format, char path[PETSC_MAX_PATH_LEN]);
/* A component's gather beside it, DIR/shot_NNNN_COMPONENT.rsf (.sgy): the
   components recorded besides the first (component NULL: OutputShotPath). */
PetscErrorCode OutputComponentPath(const char *dir, PetscInt shot, const char *component, FileFormat format, char path[PETSC_MAX_PATH_LEN]);
/* dir/coords_NNNN.rsf: the positions of the gather dir/shot_NNNN.rsf
   (GeometryWriteCoords); not shot_*, which a loop over gathers takes */
PetscErrorCode OutputCoordsPath(const char *dir, PetscInt shot, char path[PETSC_MAX_PATH_LEN]);
/* stem.rsf or stem.sgy: a model-sized result's file name */
PetscErrorCode OutputName(const char *stem, FileFormat format, char name[PETSC_MAX_PATH_LEN]);
