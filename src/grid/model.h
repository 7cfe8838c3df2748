/* The velocity model: its description (from -vp) and each rank's block of
   it on the extended grid. */
#pragma once
#include "options/options.h"
#include "data/rsf.h"
#include "grid/segy_model.h"

typedef struct {
  char      name[PETSC_MAX_PATH_LEN]; /* for messages: the file, or the number */
  PetscBool homogeneous;
  PetscReal value;   /* homogeneous velocity */
  FileFormat format; /* file models */
  RsfHeader rsf;
  SegyModelOrder segy_order;
  PetscInt  dim;
  PetscInt  n[3];    /* z, x, y; 1 beyond dim */
  PetscReal d[3];
  PetscReal o[3];    /* the first sample's position in the survey's coordinates (RSF o1..o3, SEG-Y CDP X/Y) */
} ModelInfo;

/* Resolves -vp (number, RSF or SEG-Y file, marmousi) into its grid; collective. */
PetscErrorCode ModelDescribe(MPI_Comm comm, const Options *o, ModelInfo *m);

/* The axes of a model-sized output (z, x, y in metres, the model's origin). */
void ModelAxes(const ModelInfo *m, RsfAxes *a);

struct Grid;
/* Fills vp[] (the owned box of the extended grid, z fastest) on every rank of
   the grid's comm, extending edge velocities into the layers, and checks every
   value is positive and finite.  Only the first group reads the file; the
   blocks reach the same subdomain of the other groups over the cross comm.
   Returns the range of velocities over the group. */
PetscErrorCode ModelLoadBlock(const ModelInfo *m, const struct Grid *g, MPI_Comm cross, float *vp, PetscReal *vmin, PetscReal *vmax);
