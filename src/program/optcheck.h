/* Checks on what the user typed: the options nothing read. */
#pragma once
#include "options/options.h"

/* Reads the options of the library the mode drives (TAO in -mode invert,
   through a Tao set up as InvertTaoCreate does, then dropped), then finds the
   options that nothing read.  Each is named with its value and the closest
   known option (or, for -tao_* outside -mode invert, that only -mode invert
   reads them); an error on every rank alike, or with -unused_options warn a
   warning on rank 0.  PETSc's own start-up and finish options never count. */
PetscErrorCode OptionsCheckUnused(MPI_Comm comm, const Options *o);
