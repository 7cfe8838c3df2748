/* Pieces of the variable-density equation's CUDA backend shared between
   its files: the state's lane and its cells' indices.  The state is handed
   to every kernel by value (its arrays are device memory). */
#pragma once
#include "equations/cuda/staggered_cuda.h"
#include "equations/variable_density/kernels.h"

/* Kernel parameters are limited to 4 kB on older toolkits. */
static_assert(sizeof(VDState) <= 4096, "the kernels take the state by value: at most 4 kB of parameters");

static inline CudaLanes   *VDLanes(const VDState *s) { return (CudaLanes *)s->lanes; }
static inline cudaStream_t VDLane(const VDState *s) { return CudaLanesStream(VDLanes(s)); }

/* The padded index of owned cell i, and its padded coordinates q. */
__device__ static inline ptrdiff_t VDCell(const VDState &s, const PetscInt i[3], PetscInt q[3]) { return StaggeredCellCUDA(s.dim, s.radius, s.stride, i, q); }

/* A thread per cell of box b, none where it is empty. */
#define VD_LAUNCH_BOX(s, b, kernel, ...) STAGGERED_LAUNCH_BOX(VDLane(s), b, kernel, __VA_ARGS__)

/* stages_cuda.cu */
PetscErrorCode VDVelocityCUDA(VDState *s, const Box *b, PetscBool adjoint);
PetscErrorCode VDPressureCUDA(VDState *s, const Box *b, PetscBool adjoint);
PetscErrorCode VDAdjointOperandsCUDA(VDState *s, PetscInt stage);
PetscErrorCode VDReconstructPressureCUDA(VDState *s, const Box *b);
PetscErrorCode VDReconstructVelocityCUDA(VDState *s, const Box *b);
