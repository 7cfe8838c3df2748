/* CUDA backend of the acoustic equation: its state's arrays and the
   operations table.  The kernels are in step_cuda.cu (the stencil
   updates) and cells_cuda.cu (layers, faces, points); the backend's memory
   and lanes in equations/cuda/backend_cuda.cu. */
#include "equations/acoustic/cuda/kernels_cuda.h"
#include "equations/subnormals.h"

static PetscErrorCode Alloc(Fields *f)
{
  PetscFunctionBeginUser;
  FlushSubnormalsHere();
  PetscCall(CudaLanesCreate(&f->gpu_tile, (CudaLanes **)&f->backend));
  PetscCall(FieldsGpuTileCheck(f, (PetscInt)((CudaLanes *)f->backend)->rows, (PetscInt)((CudaLanes *)f->backend)->run));
  PetscCall(FieldsAllocArrays(f, BackendOpsCUDA.mem_alloc));
  PetscFunctionReturn(0);
}

static PetscErrorCode Free(Fields *f)
{
  PetscFunctionBeginUser;
  PetscCall(CudaLanesDestroy((CudaLanes **)&f->backend));
  PetscCall(FieldsFreeArrays(f, BackendOpsCUDA.mem_free));
  PetscFunctionReturn(0);
}

static PetscErrorCode ZeroState(Fields *f)
{
  PetscFunctionBeginUser;
#define ZERO(p, n) CUDA_CALL(cudaMemsetAsync((p), 0, (n) * sizeof(float), CudaLane(f)))
  FIELDS_STATE_ARRAYS(f, ZERO);
#undef ZERO
  PetscFunctionReturn(0);
}

extern "C" const KernelOps KernelOpsCUDA = {
  .split_boxes          = PETSC_FALSE,
  .alloc                = Alloc,
  .free                 = Free,
  .zero_state           = ZeroState,
  .step                 = CudaStep,
  .advance_memory       = CudaAdvanceMemory,
  .mirror_ghosts        = CudaMirrorGhosts,
  .zero_surface         = CudaZeroSurface,
  .inject               = CudaInject,
  .record               = CudaRecord,
  .all_finite           = CudaAllFinite,
  .pack_boxes           = CudaPackBoxes,
  .adjoint_step         = CudaAdjointStep,
  .adjoint_layers_begin = CudaAdjointLayersBegin,
  .adjoint_layers_end   = CudaAdjointLayersEnd,
  .backend              = &BackendOpsCUDA,
};
