#include "shot/hicks.h"
#include "data/kaiser.h"

/* The window's shape for HICKS_RADIUS 4, from Hicks' table for wavenumbers
   up to pi / 2 per cell (four cells a wavelength, beyond what an order-8
   stencil carries accurately): the response is flat there to about 1e-3
   (4e-3 with the value for 2 pi / 3, which doubles the error of a
   half-cell survey at 12 cells a wavelength). */
#define HICKS_BETA 6.31

PetscInt HicksWeights(double x, PetscBool snap, double w[2 * HICKS_RADIUS], PetscInt *count)
{
  const double   near  = round(x);
  const PetscInt first = (PetscInt)floor(x) - HICKS_RADIUS + 1;

  if (snap || fabs(x - near) < HICKS_ON_GRID) {
    w[0]   = 1;
    *count = 1;
    return (PetscInt)near;
  }
  for (PetscInt k = 0; k < 2 * HICKS_RADIUS; k++) {
    const double s = (double)(first + k) - x, q = s / HICKS_RADIUS;
    w[k] = sin(PETSC_PI * s) / (PETSC_PI * s) * BesselI0(HICKS_BETA * sqrt(1 - q * q)) / BesselI0(HICKS_BETA);
  }
  *count = 2 * HICKS_RADIUS;
  return first;
}
