/* Shared by the kernel unit tests: deterministic random numbers and a
   Fields described by FieldsDescribe for one rank's block, without a Grid. */
#pragma once
#include "equations/acoustic/kernels.h"

/* Grid spacings per axis, all different so that mixed-up axes show. */
static const double spacing[3] = {1.0, 1.25, 1.5};

/* Deterministic uniform numbers in [lo, hi). */
static unsigned long long rng_state = 88172645463325252ULL;
static inline double Uniform(double lo, double hi)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static inline void FillRandom(float *x, size_t n, double lo, double hi)
{
  for (size_t i = 0; i < n; i++) x[i] = (float)Uniform(lo, hi);
}

/* Owned cells [core[a][0], core[a][1]) along axis a lie outside its layers. */
#define CORE(l0, h0, l1, h1, l2, h2) ((const PetscInt[3][2]){{(l0), (h0)}, {(l1), (h1)}, {(l2), (h2)}})

/* The descriptive members (no memory) of a block of n cells whose layers
   begin at edge[a][] (Fields.layer_edge: owned indices, which may lie beyond
   the block, as on a rank near a layer that a neighbour owns); layer[a][s]:
   the grid has a layer on that side, NULL: where the edges lie inside the
   block (a block that is the whole grid).  Edges ignored beyond dim. */
static inline PetscErrorCode FieldsDescribeBlock(PetscInt dim, PetscInt radius, const PetscInt n[3], const PetscInt edge[3][2], const PetscBool layer[3][2], Fields *f)
{
  GridBlock b = {.dim = dim, .order = 2 * radius};

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < dim; a++) {
    b.n[a] = n[a];
    b.d[a] = spacing[a];
    for (PetscInt s = 0; s < 2; s++) {
      b.layer_edge[a][s] = edge[a][s];
      b.layer[a][s]      = layer ? layer[a][s] : (s ? edge[a][1] < n[a] : edge[a][0] > 0) ? PETSC_TRUE : PETSC_FALSE;
    }
    PetscCheck(layer || (0 <= edge[a][0] && edge[a][0] <= edge[a][1] && edge[a][1] <= n[a]), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "test set-up: core [%d, %d) of axis %d outside [0, %d]", (int)edge[a][0], (int)edge[a][1], (int)a, (int)n[a]);
  }
  FieldsDescribe(&b, f);
  PetscFunctionReturn(0);
}

/* The descriptive members as FieldsDescribe sets them for a block that is
   the whole grid, then the CPU backend's alloc.  core: as
   Fields.core on the active axes (ignored beyond dim). */
static inline PetscErrorCode FieldsSetUp(PetscInt dim, PetscInt radius, const PetscInt n[3], const PetscInt core[3][2], Fields *f)
{
  PetscFunctionBeginUser;
  PetscCall(FieldsDescribeBlock(dim, radius, n, core, NULL, f));
  PetscCall(KernelOpsCPU.alloc(f));
  for (PetscInt a = 0; a < dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      const LayerSlab *sl = &f->slab[a][s];
      for (size_t k = 0; k < sl->ncells; k++)
        PetscCheck(sl->psi[k] == 0 && sl->zeta[k] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "alloc left slab (%d, %d) not zeroed", (int)a, (int)s);
    }
  PetscFunctionReturn(0);
}
