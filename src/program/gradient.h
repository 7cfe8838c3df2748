/* -mode gradient: one misfit and gradient evaluation of the model -vp. */
#pragma once
#include "options/options.h"

PetscErrorCode RunGradient(MPI_Comm world, const Options *o);
