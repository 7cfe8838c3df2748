/* Source estimation (-source_estimation survey|shot, Pratt 1999): the
   wavelet that best fits the observed data for the current model, by
   stabilised frequency-domain deconvolution.  With S_r the modelled and O_r
   the observed spectra of the selected traces (selection.h) and W the
   band's starting wavelet,
       W_new(f) = W(f) sum_r conj(S_r) O_r / (sum_r |S_r|^2 + eps max_f sum_r |S_r|^2),
   summed over every shot's traces (survey) or each shot's own (shot), in
   double and, for the survey, exactly over the groups (the estimate does
   not depend on how shots were spread). */
#pragma once
#include "inversion/objective.h"

/* Estimates the wavelets for model vp (set with ObjectiveSetModel) and the
   band's data, sets obj->wint_shot, and writes them to
   -output_dir/wavelet_BAND.rsf (band 1-based: nt samples at -dt, one trace,
   or one per shot).  Collective over the world.  Refused when every
   estimated wavelet is zero (modelled data zero at every selected trace). */
PetscErrorCode SourceEstimate(Objective *obj, const float *vp, PetscInt band);
