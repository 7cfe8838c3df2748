/* Which of a shot's source and receivers this rank owns, and where. */
#pragma once
#include "geometry.h"
#include "grid.h"

/* One shot's sources and receivers that fall in this rank's owned box. */
typedef struct {
  PetscInt   nsrc;
  ptrdiff_t  src_cell;
  float      src_scale; /* 1 / cell volume */
  PetscInt   nrec;      /* local receivers */
  ptrdiff_t *rec_cell;
  PetscInt  *rec_id;    /* index in the shot's receiver list */
} ShotLocal;

PetscErrorCode ShotLocalize(const Grid *g, const Fields *f, const Geometry *geo, PetscInt shot, ShotLocal *s);
PetscErrorCode ShotLocalDestroy(ShotLocal *s);
