/* The elastic equation's operations on its state, one table per backend
   (the CPU's: kernels_cpu.c, cells_cpu.c).  The scheme's hooks (state.c)
   run every pass over the state's memory through them. */
#pragma once
#include "equations/elastic/state.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ELKernels {
  PetscErrorCode (*lanes_create)(ELState *s, const GpuTile *tile);
  PetscErrorCode (*lanes_destroy)(ELState *s);
  /* csum from cdt, over the owned cells (cdt's ghosts filled). */
  PetscErrorCode (*derive_model)(ELState *s);
  /* The stages over the owned cells of box b: the velocities from the
     stresses' divergence (stage 0), the stresses from the velocities'
     derivatives (stage 1; a cell on a free surface with the surface's
     normal strain from the condition that its normal stresses vanish). */
  PetscErrorCode (*velocity)(ELState *s, const Box *b);
  PetscErrorCode (*stress)(ELState *s, const Box *b);
  /* Pass op (staggered.h) on every free surface's rows, on f[a] along axis
     a, face by face in axis order, the low side first; with shear, on
     t[ELPair(a, b)] for every b != a instead. */
  PetscErrorCode (*surface)(ELState *s, StaggeredSurfaceOp op, float *const f[3], PetscBool shear);
  /* The normal velocity beyond every free surface (state.c, StageBegin). */
  PetscErrorCode (*surface_velocity)(ELState *s);
  /* The source's amplitudes through its map (PointMap: inject) into the
     fields its kind drives (state.h: EL_SOURCE_*). */
  PetscErrorCode (*inject)(ELState *s, const PointMap *m, const float amp[]);
  /* out[i] = row i's sum over component c (0 the pressure, 1 + a the
     velocity along a; PointMap: record). */
  PetscErrorCode (*record)(ELState *s, PetscInt c, const PointMap *m, const float remote[], float out[]);
  /* Whether the stresses are finite everywhere; waits for the queued work. */
  PetscErrorCode (*all_finite)(ELState *s, PetscBool *finite);
  const BackendOps *backend;
} ELKernels;

extern const ELKernels ELKernelsCPU;
extern const ELKernels ELKernelsCUDA; /* builds with CUDA; or, HALOFWI_CUDA_HOST, its kernels run on the host */

/* The CPU's stages (kernels_cpu.c). */
PetscErrorCode ELVelocityCPU(ELState *s, const Box *b);
PetscErrorCode ELStressCPU(ELState *s, const Box *b);

#ifdef __cplusplus
}
#endif
