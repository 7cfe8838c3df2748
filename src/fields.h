/* A rank's fields described from its subdomain of the grid: sizes, FD
   weights, layers and free surfaces, without any memory. */
#pragma once
#include "grid.h"
#include "kernels.h"

void FieldsFromGrid(const Grid *g, Fields *f);

/* Bytes of the arrays a backend allocates for f (FieldsAllocArrays): all of
   them, and the CPML memory slabs' share. */
void FieldsBytes(const Fields *f, double *all, double *layers);

/* Bytes of every array of the fields of this rank's subdomain of g. */
double FieldsGridBytes(const Grid *g);
