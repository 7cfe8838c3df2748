/* restart/run.txt: what defines an inversion's evaluations, as "key = value"
   lines named after the options (model, survey and observed data with
   checksums of their samples, bands, bounds, mask, taper, wavelet, grid,
   time axis, TAO type), so that -restart can refuse a changed run.  Both
   calls run on one rank (they read the inputs again for the checksums). */
#pragma once
#include "objective.h"

/* Writes this run's record into dir (under a temporary name, renamed). */
PetscErrorCode RunRecordWrite(const Objective *obj, const char *dir);
/* Refuses, naming every option with its saved and present value, when the
   record in dir differs from this run's. */
PetscErrorCode RunRecordCheck(const Objective *obj, const char *dir);
