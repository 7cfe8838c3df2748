/* -mode invert: TAO on the world, band after band. */
#pragma once
#include "options/options.h"

PetscErrorCode RunInvert(MPI_Comm world, const Options *o);
