/* The kernel backend and the halo exchange a run uses, from -backend,
   -halo_type, -halo_overlap, -gpu_shared and what the machine has. */
#pragma once
#include <halofwi/halo.h>
#include "equations/acoustic/kernels.h"
#include "grid/layout.h"
#include "options/options.h"

typedef struct {
  const KernelOps *ops;
  HaloType         halo_type;
  PetscBool        overlap;
  int              device; /* this rank's GPU, -1 on the CPU */
} Backend;

/* Collective over the world; prints the choice once. */
PetscErrorCode BackendSetUp(const Layout *l, const Options *o, Backend *b);
