/* Where a shot's source and receivers act on this rank's cells.  A point
   between grid points spreads over the cells around it (hicks.h), which may
   belong to several ranks: every rank injects into its own cells, and the
   rank owning the cell nearest to a receiver records it, the other ranks
   sending it their cells' values every step.  All of it follows from the
   global geometry and the decomposition, so no set-up messages are needed,
   and every sum runs in an order the decomposition does not change. */
#pragma once
#include "data/geometry.h"
#include "grid/grid.h"
#include "equations/equation.h"

typedef struct {
  /* the source: this rank's cells of its support (inject map, point 0) */
  PointMap     src;
  float        src_scale; /* 1 / cell volume */
  /* the receivers this rank records (record map, rows = receivers) */
  PetscInt     nrec;
  PetscInt    *rec_id; /* index in the shot's receiver list */
  PointMap     rec;
  /* the receivers whose support reaches this rank's cells: the adjoint
     injects their residuals (inject map, entries index reach_id) */
  PetscInt     nreach;
  PetscInt    *reach_id;
  PointMap     reach;
  /* every step: this rank's values for receivers recorded elsewhere go out
     (send rows, weight 1, ranks' shares at send_start[]), and the values
     of other ranks' cells come in, nbr[r]'s at recv_start[r] */
  PetscInt     nnbr;
  PetscMPIInt *nbr; /* ranks of the group comm, ascending */
  PetscInt    *send_start, *recv_start;
  PointMap     send;
} ShotLocal;

/* snap: every point at its nearest grid point (-point_interpolation nearest). */
PetscErrorCode ShotLocalize(const Grid *g, const Geometry *geo, PetscInt shot, PetscBool snap, ShotLocal *s);
/* Where a shot's points act on the staggered grid: the source on the
   nodes half a cell above the centres along axis src_node, the receivers
   on those along rec_node (-1: the centres; Equation.source_kind's and
   Equation.component's axis); mirror: weights beyond a free surface fold
   onto their mirror images by the field's parity about it (odd at the
   centres, even on the nodes along the surface's axis), else they are
   dropped (fields with no parity there: Equation.surface_no_parity). */
typedef struct {
  PetscInt  src_node, rec_node;
  PetscBool mirror;
} ShotPlacement;

/* ShotLocalize with the points placed as at says. */
PetscErrorCode ShotLocalizeAt(const Grid *g, const Geometry *geo, PetscInt shot, PetscBool snap, const ShotPlacement *at, ShotLocal *s);
PetscErrorCode ShotLocalDestroy(ShotLocal *s);
/* ShotLocalize's nrec and nreach alone, without building the maps (the
   memory estimate of every shot before the run). */
PetscErrorCode ShotLocalCount(const Grid *g, const Geometry *geo, PetscInt shot, PetscBool snap, PetscInt *nrec, PetscInt *nreach);
/* A host record map reading cells one by one (weight 1), and a host map's release. */
PetscErrorCode PointMapOfCells(PetscInt n, const ptrdiff_t cell[], PointMap *m);
PetscErrorCode PointMapDestroy(PointMap *m);
/* A copy of host map h in ops' backend memory, and its release. */
PetscErrorCode PointMapUpload(const BackendOps *b, const PointMap *h, PointMap *d);
PetscErrorCode PointMapFree(const BackendOps *b, PointMap *d);
