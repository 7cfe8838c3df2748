/* The diagonal pseudo-Hessian (Shin et al. 2001, the source wavefield's
   energy): E(x) = sum over shots and recorded samples of u(x, t)^2, the
   amplitude the gradient's imaging condition weights each cell by.  Its
   stabilised inverse, 1 / (E + eps max E), preconditions the inversion
   (invert.c). */
#pragma once
#include "inversion/objective.h"

/* E of this rank's user cells (obj->ms layout) for model vp, summed over
   every group's shots exactly (the same for any number of groups); valid on
   group 0.  Runs every shot forward once.  Collective over the world. */
PetscErrorCode PseudoHessian(Objective *obj, const float *vp, double *energy);
/* -qc_illumination: energy (as PseudoHessian gives it, on group 0) written
   as the model-sized illumination_B.rsf (or .sgy, -output_format; B the
   band from 1) in -output_dir.  Collective over the world. */
PetscErrorCode PseudoHessianWrite(Objective *obj, const double *energy, PetscInt band);
/* illumination_B.rsf or .sgy: its file name in -output_dir (band 0-based). */
PetscErrorCode PseudoHessianName(FileFormat format, PetscInt band, char name[PETSC_MAX_PATH_LEN]);
