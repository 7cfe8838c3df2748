/* The memory a run needs, estimated per rank before any work and checked
   against what the machine can give each rank, so that a run too large
   stops at once with the figures instead of failing, or being killed, part
   way through.  Allocations that can fail all the same name what they were
   for (MemoryCall, util.h). */
#pragma once
#include "data/geometry.h"
#include "grid/grid.h"
#include "setup/backend.h"
#include "grid/layout.h"
#include "grid/model.h"
#include "options/options.h"
#include "shot/propagate.h"


/* Bytes a rank may use in host memory: -memory_limit MB, else 90% of the
   node's available memory (MemAvailable) shared by the node's ranks; why
   says which.  Collective over world. */
PetscErrorCode MemoryHostLimit(MPI_Comm world, PetscReal limit_mb, double *bytes, char why[], size_t len);

/* Bytes a rank may write to the folder dir: 90% of its file system's free
   space, shared by the node's ranks (they write beside each other), the
   least over the world.  Refuses, collectively, a dir that is not a folder
   this process can create files in. */
PetscErrorCode MemoryDiskLimit(MPI_Comm world, const char *dir, double *bytes);

/* Estimates the run's memory on every rank and refuses, collectively over
   the world, when the busiest rank's exceeds the host limit or (device
   backends) 90% of the free device memory.  Twice per run: before the grid
   is decomposed (g and t NULL) the grid's size is checked against what
   PETSc can index and a lower bound of the memory, from an even split
   of the cells without ghosts, no absorbing layer memory, no receivers of a
   rank's own, one internal step per sample and no gradient store; afterwards
   (g and t given) the figures are exact up to small buffers, and printed.
   store: this rank's bytes for the gradient's forward wavefield in host and
   device memory (GradientPlan), or NULL. */
PetscErrorCode MemoryCheck(const Options *o, const Layout *l, const Backend *backend, const ModelInfo *m, const Geometry *geo, const Grid *g,
                           const TimeAxis *t, const double store[2]);
/* This rank's estimate without the gradient's forward wavefield: host and
   device bytes (g and t given). */
PetscErrorCode MemoryRest(const Options *o, const Layout *l, const Backend *backend, const ModelInfo *m, const Geometry *geo, const Grid *g, const TimeAxis *t,
                          double rest[2]);
