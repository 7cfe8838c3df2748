/* Sums whose result does not depend on the order or grouping of their
   terms: each term is rounded once onto a fixed-point grid of 2^-149 (the
   least float subnormal) and summed as a 320-bit two's-complement integer.
   Integer addition is exact, so the gradient summed over shots comes out
   bit for bit the same however the shots are spread over groups. */
#pragma once
#include <petscsys.h>
#include <stdint.h>

#define EXACT_SUM_LIMBS 5

typedef struct {
  uint64_t limb[EXACT_SUM_LIMBS]; /* least significant first */
} ExactSum;

/* Adds x (any finite float; a double below 2^-149 is rounded to that grid,
   to nearest) and returns 0, or returns 1 and adds nothing when x is not
   finite or |x| >= 2^128. */
int ExactSumAdd(ExactSum *s, double x);

/* The sum as a double, within one unit in the last place. */
double ExactSumValue(const ExactSum *s);

/* An MPI datatype for one ExactSum and the operation that adds them, for
   MPI_Reduce; created on first use, freed at PetscFinalize. */
PetscErrorCode ExactSumMPI(MPI_Datatype *type, MPI_Op *op);
