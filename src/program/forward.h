/* -mode forward: model every shot, shots spread over the groups, and write
   one gather per shot. */
#pragma once
#include "options/options.h"

PetscErrorCode RunForward(MPI_Comm world, const Options *o);
