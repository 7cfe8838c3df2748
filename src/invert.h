/* -mode invert: TAO on the world, band after band. */
#pragma once
#include <petsctao.h>
#include "options.h"

PetscErrorCode RunInvert(MPI_Comm world, const Options *o);
/* The Tao every band starts from before its options: BLMVM, at most 20
   iterations. */
PetscErrorCode InvertTaoCreate(MPI_Comm comm, Tao *tao);
