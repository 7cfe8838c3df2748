/* The kernel backend and the halo exchange a run uses, from -backend,
   -halo_type, -halo_overlap, -gpu_shared and what the machine has. */
#pragma once
#include <halofwi/halo.h>
#include "equations/equation.h"
#include "grid/layout.h"
#include "options/options.h"

/* The equation's operations on the chosen backend, and what the planner
   and the memory estimate need to know of that backend's memory. */
typedef struct {
  const Equation         *eq;
  const struct KernelOps *ops;    /* eq->kernels() of this backend */
  const BackendOps       *memory; /* its memory and lanes */
  HaloType                halo_type;
  PetscBool               overlap;
  int                     device; /* this rank's GPU, -1 on the CPU */
} Backend;

/* Collective over the world; prints the choice once. */
PetscErrorCode BackendSetUp(const Layout *l, const Options *o, const Equation *eq, Backend *b);
