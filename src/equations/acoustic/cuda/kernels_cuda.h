/* Pieces of the acoustic equation's CUDA backend shared between its files:
   the lane a Fields works on, and the kernel launchers (equations/cuda/cuda.h
   has what every equation's kernels share). */
#pragma once
#include "equations/cuda/cuda.h"
#include "equations/acoustic/kernels.h"

static inline cudaStream_t CudaLane(const Fields *f) { return CudaLanesStream((const CudaLanes *)f->backend); }

/* step_cuda.cu */
PetscErrorCode CudaStep(Fields *f, const Box *b);
PetscErrorCode CudaAdvanceMemory(Fields *f, const Box *b);
PetscErrorCode CudaAdjointStep(Fields *f, const Box *b);
/* cells_cuda.cu */
PetscErrorCode CudaAdjointLayersBegin(Fields *f);
PetscErrorCode CudaAdjointLayersEnd(Fields *f);
PetscErrorCode CudaMirrorGhosts(Fields *f);
PetscErrorCode CudaZeroSurface(Fields *f);
PetscErrorCode CudaInject(Fields *f, const PointMap *m, const float amp[]);
PetscErrorCode CudaRecord(Fields *f, const PointMap *m, const float remote[], float out[]);
PetscErrorCode CudaAllFinite(Fields *f, PetscBool *finite);
PetscErrorCode CudaPackBoxes(Fields *f, float *field, PetscInt nbox, const Box box[], float *buf, PetscBool unpack);
