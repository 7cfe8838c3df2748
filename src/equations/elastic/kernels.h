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
     fields its kind drives (state.h: EL_SOURCE_*), or out of them
     (subtract). */
  PetscErrorCode (*inject)(ELState *s, const PointMap *m, const float amp[], PetscBool subtract);
  /* out[i] = row i's sum over component c (0 the pressure, 1 + a the
     velocity along a; PointMap: record). */
  PetscErrorCode (*record)(ELState *s, PetscInt c, const PointMap *m, const float remote[], float out[]);
  /* Whether the stresses are finite everywhere; waits for the queued work. */
  PetscErrorCode (*all_finite)(ELState *s, PetscBool *finite);
  /* The adjoint (adjoint.c): the
     transposed stages over the owned cells of box b, from the operands
     (stage 0 the velocities, undoing the stress stage; stage 1 the
     stresses, undoing the velocity stage); the operands of a stage over
     every owned cell, with its images; their values beyond the free
     surfaces; the narrowed stencils' share of stage 0 (state.h:
     ELStencilRadius), into the velocities near the surfaces; the source's own term in the images, and the residuals
     of component comp into the adjoint fields (PointMap: inject, as the
     receivers read it); the images' partial sums, and image k. */
  PetscErrorCode (*adjoint_velocity)(ELState *s, const Box *b);
  PetscErrorCode (*adjoint_stress)(ELState *s, const Box *b);
  PetscErrorCode (*adjoint_operands)(ELState *s, PetscInt stage);
  PetscErrorCode (*adjoint_surface)(ELState *s, PetscInt stage);
  PetscErrorCode (*adjoint_narrowed)(ELState *s);
  PetscErrorCode (*source_image)(ELState *s, const PointMap *m, const float amp[]);
  PetscErrorCode (*inject_residual)(ELState *s, PetscInt comp, const PointMap *m, const float amp[]);
  PetscErrorCode (*derive_image)(ELState *s);
  PetscErrorCode (*image)(ELState *s, PetscInt k);
  /* The boundary method (reconstruct.c):
     the forward stages run backwards over the cells of box b in the cores
     (rec->core), on the fields run back (rec->f), each imaging its terms with
     the adjoint fields as full storage's operands do from the store: the
     stresses from the velocities (in adjoint stage 0), the velocities from
     the stresses (in adjoint stage 1). */
  PetscErrorCode (*back_stress)(ELState *s, const Box *b);
  PetscErrorCode (*back_velocity)(ELState *s, const Box *b);
  /* The band (s->rec) of the fields f, by the forward field's number,
     into buf (save), or back from it for the fields in mask (a bit each);
     buf holds every band, in turn (StaggeredBandCopy). */
  PetscErrorCode (*band_copy)(ELState *s, float *const f[], PetscBool save, unsigned mask, float *buf);
  /* Optional (NULL: none): both forward stages over every owned cell in
     one sweep (StaggeredFusedSweep), stage 1's StageBegin included; for a
     state that StaggeredSweepable admits and whose ghosts no neighbour
     fills.  With pair, two steps' four stages: step n's StepEnd, step n +
     1's records (pair's values) and its stage 0's StageBegin on the way
     (staggered_pair.h). */
  PetscErrorCode (*fused_forward)(ELState *s, const StaggeredPair *pair);
  /* Optional (NULL: none), for the same states: a reverse step's stages
     over every owned cell in one sweep, from stage 0's operands on
     (ELAdjointSweepBegin does what comes before them); with pair, two
     reverse steps' eight stages, n's then n - 1's, and what comes between
     them by layer (ELReversePair). */
  PetscErrorCode (*fused_adjoint)(ELState *s, const ELReversePair *pair);
  const BackendOps *backend;
} ELKernels;

extern const ELKernels ELKernelsCPU;
extern const ELKernels ELKernelsCUDA; /* builds with CUDA; or, HALOFWI_CUDA_HOST, its kernels run on the host */

/* Calls CALL with D_ the dimension (2 or 3) as a literal; EL_WITH_STRESS_KEEP
   with K_ what the stress stage keeps (ELStressKept), EL_WITH_VELOCITY_KEEP
   with K_ whether the velocity stage keeps its divergences, as one, so
   that a forward pass without a store has no test in its loop. */
#define EL_WITH_DIM(dim, CALL) \
  do { \
    if ((dim) == 3) { const PetscInt D_ = 3; CALL; } \
    else { const PetscInt D_ = 2; CALL; } \
  } while (0)
#define EL_WITH_STRESS_KEEP(s, CALL) \
  do { \
    const int kept_ = ELStressKept(s); \
    if (kept_ == EL_KEEPS_RATES) { const int K_ = EL_KEEPS_RATES; CALL; } \
    else if (kept_ == EL_KEEPS_TRACE) { const int K_ = EL_KEEPS_TRACE; CALL; } \
    else { const int K_ = EL_KEEPS_NOTHING; CALL; } \
  } while (0)
#define EL_WITH_VELOCITY_KEEP(s, CALL) STAGGERED_WITH_FLAG(ELVelocityKept(s), K_, CALL)
/* The boundary method's backward passes take their term into the image
   instead (K_: whether image k, EL_IMAGE_*, is wanted). */
#define EL_WITH_IMAGE(s, k, CALL) STAGGERED_WITH_FLAG(ELImageWanted((s)->nimage, k), K_, CALL)
/* The normal stresses' backward pass, K_ as full storage's keeps would be
   for the images wanted: the rates where mu's is, their trace for
   lambda's alone. */
#define EL_WITH_CENTRE_IMAGES(s, CALL) \
  do { \
    if (ELImageWanted((s)->nimage, EL_IMAGE_MU)) { const int K_ = EL_KEEPS_RATES; CALL; } \
    else { const int K_ = EL_KEEPS_TRACE; CALL; } \
  } while (0)

/* Which pass a CPU stage runs: the forward step, its adjoint, or the
   forward step backwards on the fields run back, imaging its terms
   (reconstruct.c). */
typedef enum { EL_PASS_FORWARD, EL_PASS_ADJOINT, EL_PASS_BACK } ELPass;

/* The CPU's stages (kernels_cpu.c). */
PetscErrorCode ELVelocityCPU(ELState *s, const Box *b);
PetscErrorCode ELStressCPU(ELState *s, const Box *b);
PetscErrorCode ELFusedForwardCPU(ELState *s, const StaggeredPair *pair);
PetscErrorCode ELAdjointVelocityCPU(ELState *s, const Box *b);
PetscErrorCode ELAdjointStressCPU(ELState *s, const Box *b);
PetscErrorCode ELAdjointOperandsCPU(ELState *s, PetscInt stage);
PetscErrorCode ELFusedAdjointCPU(ELState *s, const ELReversePair *pair);
/* A row's operands of stage `stage` (ELAdjointOperandsCPU's; adjoint_cpu.c). */
void ELOperandsRow(ELState *s, PetscInt stage, ptrdiff_t row, const PetscInt q[3], PetscInt n);
PetscErrorCode ELBackStressCPU(ELState *s, const Box *b);
PetscErrorCode ELBackVelocityCPU(ELState *s, const Box *b);

/* The cells [cut[0], cut[1]) of cells [lo, hi) of the row from padded q
   that lie outside the z layers, at the centres and the nodes alike
   (state.h: plain); the rest lie in them. */
static inline void ELPlainCells(const ELState *s, const PetscInt q[3], PetscInt lo, PetscInt hi, PetscInt cut[2])
{
  StaggeredRowRange(PetscMax(s->plain[0][0][0], s->plain[0][1][0]), PetscMin(s->plain[0][0][1], s->plain[0][1][1]), q[0], lo, hi, cut);
}

#ifdef __cplusplus
}
#endif
