/* The variable-density equation's operations on its state, one table per
   backend: the CPU's (kernels_cpu.c, cells_cpu.c) and CUDA's (cuda/).  The
   scheme's hooks (state.c, adjoint.c, reconstruct.c) run every pass over
   the state's memory through them, so that they are backend-blind; each
   operation queues on the state's lanes, in the same formulas and order on
   every backend (bit for bit). */
#pragma once
#include "equations/variable_density/state.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VDKernels {
  /* s->lanes for the core kernels' launch shape tile (NULL on the CPU). */
  PetscErrorCode (*lanes_create)(VDState *s, const GpuTile *tile);
  PetscErrorCode (*lanes_destroy)(VDState *s);
  /* The stages over the owned cells of box b (state.h: VDVelocity, ...). */
  PetscErrorCode (*velocity)(VDState *s, const Box *b, PetscBool adjoint);
  PetscErrorCode (*pressure)(VDState *s, const Box *b, PetscBool adjoint);
  PetscErrorCode (*adjoint_operands)(VDState *s, PetscInt stage);
  PetscErrorCode (*reconstruct_pressure)(VDState *s, const Box *b);
  PetscErrorCode (*reconstruct_velocity)(VDState *s, const Box *b);
  /* Pass op (state.h: StaggeredSurfaceOp) on every free surface's rows, on f[a]
     along axis a, face by face in axis order, the low side first. */
  PetscErrorCode (*surface)(VDState *s, StaggeredSurfaceOp op, float *const f[3]);
  /* p[cell] += K dt (row's sum over amp), or -= where subtract (PointMap:
     inject); out[i] = the adjoint's p at row i's cell times dt / K dt
     (dJ/dK's share of the source's own term); out[i] = row i's sum over
     field (PointMap: record). */
  PetscErrorCode (*inject)(VDState *s, float *p, PetscBool subtract, const PointMap *m, const float amp[]);
  PetscErrorCode (*at_source)(VDState *s, const PointMap *m, float out[]);
  /* The residuals of component comp into the adjoint run's variables
     (PointMap: inject, as the receivers read it; VDResidualRow). */
  PetscErrorCode (*inject_residual)(VDState *s, PetscInt comp, const PointMap *m, const float amp[]);
  PetscErrorCode (*record)(VDState *s, const float *field, const PointMap *m, const float remote[], float out[]);
  /* Whether p is finite everywhere; waits for the queued work. */
  PetscErrorCode (*all_finite)(VDState *s, PetscBool *finite);
  /* s->image = the adjoint run's image of parameter k (adjoint.c). */
  PetscErrorCode (*image)(VDState *s, PetscInt k);
  /* The boundary method's band (reconstruct.c) of the fields f (f[0] p,
     f[1 + a] v_a) to buf (save), or back from it where its field is the
     pressure (pressure) or a velocity (not); buf holds every band, box by
     box, each along axis 0, then 1, then 2. */
  PetscErrorCode (*band_copy)(VDState *s, float *const f[4], PetscBool save, PetscBool pressure, float *buf);
  /* Optional (NULL: none): both forward stages over every owned cell in
     one sweep (StaggeredFusedSweep), stage 1's StageBegin included; for a
     state whose free surfaces lie on axis 0 alone, and whose ghosts no
     neighbour fills.  With pair, two steps' four stages: step n's
     StepEnd, step n + 1's records (pair's values) and its stage 0's
     StageBegin on the way (staggered_pair.h). */
  PetscErrorCode (*fused_forward)(VDState *s, const StaggeredPair *pair);
  /* Optional (NULL: none), for the same states: an adjoint step's stages
     over every owned cell in one sweep, from stage 0's operands on
     (VDAdjointSweepBegin does what comes before them); with pair, two
     reverse steps' eight stages, what lies between them on the way
     (VDReversePair). */
  PetscErrorCode (*fused_adjoint)(VDState *s, const VDReversePair *pair);
  const BackendOps *backend;
} VDKernels;

extern const VDKernels VDKernelsCPU;
extern const VDKernels VDKernelsCUDA; /* builds with CUDA; or, HALOFWI_CUDA_HOST, its kernels run on the host */

/* The CPU's stages (kernels_cpu.c). */
PetscErrorCode VDVelocityCPU(VDState *s, const Box *b, PetscBool adjoint);
PetscErrorCode VDPressureCPU(VDState *s, const Box *b, PetscBool adjoint);
PetscErrorCode VDFusedForwardCPU(VDState *s, const StaggeredPair *pair);
PetscErrorCode VDFusedAdjointCPU(VDState *s, const VDReversePair *pair);
PetscErrorCode VDAdjointOperandsCPU(VDState *s, PetscInt stage);
PetscErrorCode VDReconstructPressureCPU(VDState *s, const Box *b);
PetscErrorCode VDReconstructVelocityCPU(VDState *s, const Box *b);

#ifdef __cplusplus
}
#endif
