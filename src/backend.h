/* The kernel backend and the halo exchange a run uses, from -backend,
   -halo_type, -halo_overlap, -gpu_shared and what the machine has. */
#pragma once
#include <halofwi/halo.h>
#include "kernels.h"
#include "layout.h"
#include "options.h"

typedef struct {
  const KernelOps *ops;
  HaloType         halo_type;
  PetscBool        overlap;
  int              device; /* this rank's GPU, -1 on the CPU */
} Backend;

/* Collective over the world; prints the choice once. */
PetscErrorCode BackendSetUp(const Layout *l, const Options *o, Backend *b);

/* Bytes of backend memory at dev, to read on the host: *host is dev itself
   where that is host memory (KernelOps.host_memory), else a copy
   downloaded into *copy (PetscFree it; NULL where none was made). */
PetscErrorCode BackendRead(const KernelOps *ops, const void *dev, size_t bytes, void **copy, const void **host);
