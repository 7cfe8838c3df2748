/* restart/run.txt: what defines an inversion's evaluations, as "key = value"
   lines named after the options (model, survey and observed data with
   checksums of their samples, bands, bounds, mask, taper, wavelet, grid,
   time axis, TAO type), so that -restart can refuse a changed run.  It
   also records how the run is split over its ranks, which -restart does not
   compare (blmvm's replay does not depend on it) but names when a replay
   asks for a model other than the one saved.  The calls run on one rank
   (they read the inputs again for the checksums). */
#pragma once
#include "inversion/objective.h"
#include "data/util.h"

/* Writes this run's record into dir (under a temporary name, renamed). */
PetscErrorCode RunRecordWrite(const Objective *obj, const char *dir);
/* Refuses, naming every option with its saved and present value, when the
   record in dir differs from this run's. */
PetscErrorCode RunRecordCheck(const Objective *obj, const char *dir);
/* Why a replay asked for another model than the saved one, the record in
   dir being equal and the saved files intact: the decomposition, when it
   changed, or something the record does not hold. */
PetscErrorCode RunRecordReplayCause(const Objective *obj, const char *dir, char cause[FWI_MSG_LEN]);
