/* Which of a shot's source and receivers this rank owns, and where. */
#pragma once
#include "geometry.h"
#include "propagate.h"

PetscErrorCode ShotLocalize(const Grid *g, const Fields *f, const Geometry *geo, PetscInt shot, ShotLocal *s);
PetscErrorCode ShotLocalDestroy(ShotLocal *s);
