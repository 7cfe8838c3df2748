/* Shared by the halo tests: a rank's block of a global grid on a hand-built
   Cartesian process grid, float or double fields, every owned cell holding a
   function of its global index and ghosts starting as NaN, and the checks
   after an exchange. */
#pragma once
#include <halofwi/halo.h>

#define NFIELDS 4

typedef struct {
  MPI_Comm   cart;
  int        dims[3], coords[3];
  PetscBool  periodic; /* along every axis: ghosts at the global edges hold the far side's cells */
  PetscInt   dim, width;
  PetscInt   N[3], start[3];
  HaloLayout layout;         /* layout.elem: the fields' element type */
  size_t     esize;          /* bytes per element */
  PetscInt   padded[3];
  ptrdiff_t  stride[3];
  size_t     ncells;
  void      *field[NFIELDS]; /* host copies */
  char       name[112];      /* element type, dimension, sizes, process grid, width */
} Block;

/* Runs on the block, collectively over b->cart. */
typedef PetscErrorCode (*GridTest)(Block *b, void *ctx);

/* Owned cells take their values, everything else NaN.  Doubles hold values
   no float can, so a ghost that went through a float is wrong. */
void BlockFill(const Block *b, PetscInt k);
/* Field k exchanged through `faces`: counts the wrong cells, printing the first few. */
PetscInt BlockCheck(const Block *b, PetscInt k, unsigned faces, const char *what);
/* Fails on every rank if any rank counted wrong cells. */
PetscErrorCode BlockReport(const Block *b, PetscInt bad, const char *what);
/* HaloGetPadded must agree with the block. */
PetscErrorCode BlockCheckPadded(const Block *b, Halo halo);
/* The four fields of one call: field 1 along axis e only, field 3 only across
   the faces between ranks 2j and 2j + 1 along axis e (both sides agree; not
   at all on a periodic axis of odd rank count, where they would not). */
void BlockFieldSet(const Block *b, PetscInt e, void *const data[NFIELDS], HaloField hf[NFIELDS]);
/* 1D, 2D and 3D grids with uneven splits, on every rank count up to the size
   of comm (a sub-communicator each), every process grid MPI_Dims_create gives
   and its rotations, widths 1, 2, 4 where they fit, bounded and periodic
   (where a rank is its own neighbour, or two ranks meet across two faces),
   float and double fields (float from a zeroed layout's elem). */
PetscErrorCode HaloGridTestAll(MPI_Comm comm, GridTest test, void *ctx);
