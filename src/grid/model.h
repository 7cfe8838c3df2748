/* The model's parameters (-vp, -vs, -rho): their descriptions and each rank's
   block of them on the extended grid. */
#pragma once
#include "options/options.h"
#include "data/rsf.h"
#include "grid/segy_model.h"

typedef struct {
  char      name[PETSC_MAX_PATH_LEN]; /* for messages: the file, or the number */
  const char *option, *what, *unit; /* -vp, velocity, m/s */
  PetscReal min;     /* the least value accepted */
  PetscBool homogeneous;
  PetscBool gardner; /* density: Gardner's, from the velocity */
  PetscReal value;   /* homogeneous value */
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
/* Resolves a further parameter's option (-rho, -vs) on the grid of vp's
   description: a number, an RSF or SEG-Y file with vp's samples, spacing
   and origin, or (-rho) gardner; collective. */
PetscErrorCode ModelDescribeParameter(MPI_Comm comm, const Options *o, const char *option, const ModelInfo *vp, ModelInfo *m);
/* Gardner's density of n cells from their velocities: 310 vp^0.25 kg/m^3,
   and 1000 (water) below 1520 m/s. */
void ModelGardner(size_t n, const float *vp, float *rho);

/* The axes of a model-sized output (z, x, y in metres, the model's origin). */
void ModelAxes(const ModelInfo *m, RsfAxes *a);

struct Grid;
/* Fills value[] (the owned box of the extended grid, z fastest) on every
   rank of the grid's comm, extending edge values into the layers, and checks
   every value is finite and at least m->min.  Only the first group reads the
   file; the blocks reach the same subdomain of the other groups over the
   cross comm.  Returns the range of values over the group.  Not for
   Gardner's density (ModelGardner). */
PetscErrorCode ModelLoadBlock(const ModelInfo *m, const struct Grid *g, MPI_Comm cross, float *value, PetscReal *vmin, PetscReal *vmax);
