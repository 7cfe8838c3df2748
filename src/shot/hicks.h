/* Points between grid points: Kaiser-windowed sinc weights (Hicks 2002,
   Geophysics 67(1), 156-165), one axis at a time; a point's weights in 2D
   and 3D are products of its axes'. */
#pragma once
#include <petscsys.h>

#define HICKS_RADIUS 4 /* 2 HICKS_RADIUS grid points per axis */

/* A point this close to a grid point (in cells) lies on it: its weight
   there is one, elsewhere zero (as the windowed sinc gives it exactly). */
#define HICKS_ON_GRID 1e-4

/* The weights w[0..*count) of grid points first, first+1, ... around x
   (a position in cells): one point, weight 1, when x lies on a grid point
   or snap is set (the nearest point); else the 2 HICKS_RADIUS points
   within HICKS_RADIUS of x.  Returns first. */
PetscInt HicksWeights(double x, PetscBool snap, double w[2 * HICKS_RADIUS], PetscInt *count);
