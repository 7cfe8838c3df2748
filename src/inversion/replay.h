/* Restart of an interrupted inversion by replay.  Every evaluation's model,
   misfit and gradient are saved in -output_dir/restart; with -restart, TAO
   starts again from the beginning and each evaluation it asks for that was
   saved (the same model, bit for bit) is answered from disk, so the run
   carries on exactly where it stopped and ends at the model an
   uninterrupted run gives.  restart/run.txt records the options that define
   the evaluations (model, survey and observed data with checksums of their
   samples, bands, bounds, wavelet, grid, time axis, TAO type); -restart
   refuses, naming each difference, when they differ (runrecord.h).  The
   list of evaluations carries checksums of each one's saved files, so that
   a damaged file is named as such, and a replay that asks for another model
   than the saved one names the cause (runrecord.h).  Every file is written
   whole under a temporary name and renamed (util.h). */
#pragma once
#include "inversion/objective.h"
#include <stdint.h>

typedef struct {
  PetscInt band, eval;
  double   J, seconds;
  uint64_t sum[2]; /* FNV-1a 64 of the model's and the gradient's binary (rank 0) */
} ReplayEntry;

typedef struct {
  MPI_Comm     world;
  Objective   *obj;
  char         dir[PETSC_MAX_PATH_LEN]; /* -output_dir */
  PetscInt     nblock;                  /* the parameters inverted (the equation's first nblock), each a block of the model and the gradient: the first block's files have no suffix, the others' end _NAME */
  PetscBool    restart;
  PetscInt     nentries, maxentries;
  ReplayEntry *entries;
  PetscInt     nreplayed, ncomputed; /* evaluations answered from disk, and computed, by this run */
} Replay;

/* restart: check restart/run.txt against the options and read the saved
   evaluations (an error when there are none or the options differ);
   otherwise start a fresh record.  Collective. */
PetscErrorCode ReplayCreate(MPI_Comm world, Objective *obj, const char *dir, PetscBool restart, PetscInt nblock, Replay *r);
/* Prints how many evaluations were replayed and how many computed. */
PetscErrorCode ReplayDestroy(Replay *r);
/* Evaluation `eval` of band `band` at a model (every group; nblock blocks
   of the user cells, one per parameter inverted): *cached, and then J, grad
   (group 0, the same blocks) and the seconds it took first time.  A saved
   file whose checksum differs from the one listed, or a saved model other
   than the one asked for, is an error naming the cause. */
PetscErrorCode ReplayLookup(Replay *r, PetscInt band, PetscInt eval, const float *model, PetscBool *cached, double *J, double *grad, double *seconds);
PetscErrorCode ReplaySave(Replay *r, PetscInt band, PetscInt eval, const float *model, double J, const double *grad, double seconds);
