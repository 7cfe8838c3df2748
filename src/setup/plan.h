/* The gradient's memory planner.  Before the first shot every rank knows
   what each way of giving the adjoint the forward field (GradientMethod)
   needs on the busiest rank; the run prints them as one table with the
   expected time, and takes the fastest that fits (or the one
   -gradient_method names), or refuses before any work, naming the budget
   or the number of ranks that would fit. */
#pragma once
#include "data/geometry.h"
#include "grid/grid.h"
#include "setup/backend.h"
#include "grid/layout.h"
#include "grid/model.h"
#include "options/options.h"
#include "shot/propagate.h"
#include "equations/store.h"

typedef struct {
  GradientMethod method;
  size_t         n;        /* the store: n floats per step */
  PetscInt       nsteps;   /* for nsteps steps */
  WavefieldLive  live;     /* and its live map (Equation.store_shape) */
  double         bytes[2]; /* this rank's host and device bytes for the method (MemoryCheck) */
  PetscInt       snapshots; /* checkpointing's */
  PetscInt       window;    /* checkpointing's steps recorded at once (a ring of nsteps = window + 1 steps) */
  WavefieldTier  tier;      /* where and how the store keeps its steps */
  double         expected;  /* the method's expected time, in forward runs, as the planner's table prints it */
} GradientPlan;

/* Collective over the world; g and t: the decomposed grid and the time axis,
   vfast the fastest velocity (how far the waves reach). */
PetscErrorCode GradientPlanChoose(const Options *o, const Layout *l, const Backend *backend, const ModelInfo *m, const Geometry *geo, const Grid *g,
                                  const TimeAxis *t, PetscReal vfast, PetscInt nimage, GradientPlan *plan);
