/* The diagonal pseudo-Hessian (Shin et al. 2001, the source wavefield's
   energy): E(x) = sum over shots and recorded samples of u(x, t)^2, the
   amplitude the gradient's imaging condition weights each cell by.  Its
   stabilised inverse, 1 / (E + eps max E), preconditions the inversion
   (invert.c). */
#pragma once
#include "objective.h"

/* E of this rank's user cells (obj->ms layout) for model vp, summed over
   every group's shots exactly (the same for any number of groups); valid on
   group 0.  Runs every shot forward once.  Collective over the world. */
PetscErrorCode PseudoHessian(Objective *obj, const float *vp, double *energy);

/* energy *= the receivers' illumination of this rank's user cells: the sum
   over the survey's distinct receivers of a point source's |G|^2 in a
   uniform medium, 1/r^(dim-1), with r^2 + (2 cells)^2 for r^2.  With E the
   source side, E x this approximates the Gauss-Newton Hessian's diagonal,
   sum over s, r of |G(x,s)|^2 |G(x,r)|^2 (Plessix and Mulder 2004), so that
   the cells under dense receivers are no longer the first to move. */
PetscErrorCode PseudoHessianReceivers(const Objective *obj, double *energy);
