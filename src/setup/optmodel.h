/* Options that have no effect with the model and survey a run reads. */
#pragma once
#include "equations/equation.h"
#include "grid/model.h"
#include "options/options.h"

/* Options given that have no effect with this model and survey: the grid
   (-nx, -ny, -nz) beside a model file and the spacing (-dx, -dy, -dz)
   beside an RSF one, unless they restate the file's; -dy in 2D; the
   regular survey's options (-nshots, -nrec, -source_depth,
   -receiver_depth) beside a survey file; a third -gradient_smoothing
   value in 2D; the CUDA launch shape (-gpu_tile, -gpu_tile_shared) with an
   equation eq whose kernels take none.  Each is named with its value and why; an error on every
   rank alike, or with -unused_options warn a warning, as for the options
   nothing reads.  -gradient_smoothing z,x in 3D is an error either way (it
   would leave y unsmoothed).  Collective. */
PetscErrorCode OptionsCheckModel(MPI_Comm comm, const Options *o, const Equation *eq, const ModelInfo *m);
