/* Pieces of the elastic equation's CUDA backend shared between its files:
   the state's lane and its cells.  The state is handed to every kernel by
   value (its arrays are device memory). */
#pragma once
#include "equations/cuda/staggered_cuda.h"
#include "equations/elastic/kernels.h"

/* Kernel parameters are limited to 4 kB on older toolkits. */
static_assert(sizeof(ELState) <= 4096, "the kernels take the state by value: at most 4 kB of parameters");

static inline CudaLanes   *ELLanes(const ELState *s) { return (CudaLanes *)s->lanes; }
static inline cudaStream_t ELLane(const ELState *s) { return CudaLanesStream(ELLanes(s)); }

/* stages_cuda.cu */
PetscErrorCode ELVelocityCUDA(ELState *s, const Box *b);
PetscErrorCode ELStressCUDA(ELState *s, const Box *b);
PetscErrorCode ELAdjointVelocityCUDA(ELState *s, const Box *b);
PetscErrorCode ELAdjointStressCUDA(ELState *s, const Box *b);
PetscErrorCode ELBackStressCUDA(ELState *s, const Box *b);
PetscErrorCode ELBackVelocityCUDA(ELState *s, const Box *b);

/* adjoint_cuda.cu */
PetscErrorCode ELAdjointOperandsCUDA(ELState *s, PetscInt stage);
PetscErrorCode ELAdjointSurfaceCUDA(ELState *s, PetscInt stage);
PetscErrorCode ELAdjointNarrowedCUDA(ELState *s);
PetscErrorCode ELSourceImageCUDA(ELState *s, const PointMap *m, const float amp[]);
PetscErrorCode ELInjectResidualCUDA(ELState *s, PetscInt comp, const PointMap *m, const float amp[]);
PetscErrorCode ELDeriveImageCUDA(ELState *s);
PetscErrorCode ELImageCUDA(ELState *s, PetscInt k);
PetscErrorCode ELBandCopyCUDA(ELState *s, float *const f[], PetscBool save, unsigned mask, float *buf);
