/* Checks on what the user typed: options nobody reads, and numbers read
   strictly (decimal only, no silent wrap-around). */
#pragma once
#include "model.h"
#include "options.h"

/* Reads the options of the library the mode drives (TAO in -mode invert,
   through a Tao set up as InvertTaoCreate does, then dropped), then finds the
   options that nothing read.  Each is named with its value and the closest
   known option (or, for -tao_* outside -mode invert, that only -mode invert
   reads them); an error on every rank alike, or with -unused_options warn a
   warning on rank 0.  PETSc's own start-up and finish options never count. */
PetscErrorCode OptionsCheckUnused(MPI_Comm comm, const Options *o);

/* PETSc's error handler (traceback) while the options are read and
   checked (OptionsRead), after marking every option read: otherwise PETSc
   follows an option error with its list of the options not read yet
   ("WARNING! There are option(s) set that were not used! ... Option left:
   -output_dir"), which are not at fault. */
PetscErrorCode OptionsErrorHandler(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx);

/* Options given that have no effect with this model and survey: the grid
   (-nx, -ny, -nz) beside a model file and the spacing (-dx, -dy, -dz)
   beside an RSF one, unless they restate the file's; -dy in 2D; the
   regular survey's options (-nshots, -nrec, -source_depth,
   -receiver_depth) beside a survey file; a third -gradient_smoothing
   value in 2D.  Each is named with its value and why; an error on every
   rank alike, or with -unused_options warn a warning, as for the options
   nothing reads.  -gradient_smoothing z,x in 3D is an error either way (it
   would leave y unsmoothed).  Collective. */
PetscErrorCode OptionsCheckModel(MPI_Comm comm, const Options *o, const ModelInfo *m);

