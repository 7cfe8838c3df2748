/* Velocity models in SEG-Y: one trace per (x, y) column, samples along
   depth.  A file whose first and last traces share an inline number
   (bytes 189-192) is a 2D section, one trace per x in file order; otherwise
   a 3D volume sorted by inline then crossline (193-196) or the reverse
   (segyio's segy_sorting), x along crosslines and y along inlines.  The
   depth spacing is the sample interval read as millimetres; x and y
   spacings are -dx and -dy.  The first trace's CDP X and Y (bytes 181,
   185, under the coordinate scalar, 71) place the model: its origin. */
#pragma once
#include "options/options.h"

/* Trace order of a model file */
typedef enum { SEGY_MODEL_SECTION, SEGY_MODEL_INLINES, SEGY_MODEL_CROSSLINES } SegyModelOrder;

/* Collective: rank 0 reads the headers of path, every rank gets the grid
   (z, x, y), its origin (depth 0) and the trace order.  A -dz that
   contradicts the sample interval is an error naming both. */
PetscErrorCode SegyModelDescribe(MPI_Comm comm, const char *path, const Options *o, PetscInt n[3], PetscReal d[3], PetscReal origin[3], SegyModelOrder *order);
/* Collective over comm: every rank reads its box [start, start + count)
   (z fastest) of the model. */
PetscErrorCode SegyModelReadBlock(MPI_Comm comm, const char *path, SegyModelOrder order, const PetscInt n[3], const PetscInt start[3], const PetscInt count[3],
                                  float *buf);
/* Collective over comm, like RsfWriteBlock: rank 0 writes the headers
   (inline-sorted, inline iy+1, crossline ix+1, CDP X/Y at ox + ix*dx,
   oy + iy*dy from the origin o),
   every rank the samples of its box, then the file is synced, its size
   checked and renamed into place.  dz must be a whole number of mm. */
PetscErrorCode SegyModelWrite(MPI_Comm comm, const char *path, const PetscInt n[3], const PetscReal d[3], const PetscReal origin[3], const PetscInt start[3],
                              const PetscInt count[3], const float *buf, PetscBool overwrite);
