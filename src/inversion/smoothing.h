/* Gaussian smoothing of a model-sized array (-gradient_smoothing): the heat
   equation run explicitly on the user grid, steps of u += sum_a alpha_a
   (u[+1] - 2u + u[-1]) along each axis, which spread a point into a
   Gaussian of variance 2 alpha_a steps (cells^2) per axis.  Mirrored
   (zero flux) at the model's edges; every cell's update reads the same
   neighbours on any decomposition, so the result is bit for bit the same. */
#pragma once
#include "grid/modelspace.h"

typedef struct {
  PetscInt steps;    /* 0: no smoothing */
  double   alpha[3]; /* per axis, sum below 1/2 (stability) */
  DM       da;       /* the grid's decomposition with a ghost cell a side (NULL: no smoothing) */
} Smoothing;

/* length: the Gaussian's standard deviation per axis (m; 0 = none along
   it).  Collective over the group. */
PetscErrorCode SmoothingSetUp(const Grid *g, const PetscReal length[3], Smoothing *s);
PetscErrorCode SmoothingDestroy(Smoothing *s);
/* x: this rank's user cells (ms layout), smoothed in place.  Collective over the group. */
PetscErrorCode SmoothingApply(const Smoothing *s, const ModelSpace *ms, const Grid *g, double *x);
