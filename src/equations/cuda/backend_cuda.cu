/* The CUDA backend's memory and lanes (cuda.h), whatever the equation:
   BackendOps over device memory, page-locked host memory and streams. */
#include "equations/cuda/cuda.h"

PetscErrorCode CudaLanesCreate(const GpuTile *tile, CudaLanes **lanes)
{
  CudaLanes *l;
  int        least, greatest;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&l));
  /* the shell and the halos first: they are on the critical path, the interior fills the gaps */
  CUDA_CALL(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CUDA_CALL(cudaStreamCreateWithPriority(&l->main, cudaStreamNonBlocking, greatest));
  CUDA_CALL(cudaStreamCreateWithPriority(&l->side, cudaStreamNonBlocking, least));
  CUDA_CALL(cudaStreamCreateWithPriority(&l->copy, cudaStreamNonBlocking, least));
  CUDA_CALL(cudaEventCreateWithFlags(&l->main_mark, cudaEventDisableTiming));
  CUDA_CALL(cudaEventCreateWithFlags(&l->side_mark, cudaEventDisableTiming));
  for (int k = 0; k < 2; k++) CUDA_CALL(cudaEventCreateWithFlags(&l->copied[k], cudaEventDisableTiming));
  CUDA_CALL(cudaMalloc((void **)&l->flag, sizeof(int)));
  l->rows = (unsigned)(tile->rows ? tile->rows : FIELDS_GPU_TILE_ROWS);
  l->run  = (unsigned)(tile->run ? tile->run : FIELDS_GPU_TILE_RUN);
  l->tile = tile->shared ? true : false;
  PetscCheck(l->rows <= CUDA_MAX_ROWS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-gpu_tile: %u thread rows, expected at most %d", l->rows, CUDA_MAX_ROWS);
  *lanes = l;
  PetscFunctionReturn(0);
}

PetscErrorCode CudaLanesDestroy(CudaLanes **lanes)
{
  CudaLanes *l = *lanes;

  PetscFunctionBeginUser;
  if (!l) PetscFunctionReturn(0);
  CUDA_CALL(cudaDeviceSynchronize());
  CUDA_CALL(cudaStreamDestroy(l->main));
  CUDA_CALL(cudaStreamDestroy(l->side));
  CUDA_CALL(cudaStreamDestroy(l->copy));
  CUDA_CALL(cudaEventDestroy(l->main_mark));
  CUDA_CALL(cudaEventDestroy(l->side_mark));
  for (int k = 0; k < 2; k++) CUDA_CALL(cudaEventDestroy(l->copied[k]));
  CUDA_CALL(cudaFree(l->flag));
  PetscCall(PetscFree(*lanes));
  PetscFunctionReturn(0);
}

static PetscErrorCode MemAlloc(void **p, size_t bytes)
{
  PetscFunctionBeginUser;
  *p = NULL;
  if (!bytes) PetscFunctionReturn(0);
  CUDA_CALL(cudaMalloc(p, bytes));
  CUDA_CALL(cudaMemset(*p, 0, bytes));
  CUDA_CALL(cudaDeviceSynchronize());
  PetscFunctionReturn(0);
}

static PetscErrorCode MemZero(void *lanes, void *p, size_t bytes)
{
  PetscFunctionBeginUser;
  CUDA_CALL(cudaMemsetAsync(p, 0, bytes, CudaLanesStream((const CudaLanes *)lanes)));
  PetscFunctionReturn(0);
}

static PetscErrorCode MemFree(void **p)
{
  PetscFunctionBeginUser;
  if (*p) CUDA_CALL(cudaFree(*p));
  *p = NULL;
  PetscFunctionReturn(0);
}

/* The lanes are non-blocking streams, which a plain cudaMemcpy does not
   wait for; and a copy from pageable memory may return before it lands. */
static PetscErrorCode MemCopy(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBeginUser;
  if (!bytes) PetscFunctionReturn(0);
  CUDA_CALL(cudaDeviceSynchronize());
  CUDA_CALL(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
  CUDA_CALL(cudaDeviceSynchronize());
  PetscFunctionReturn(0);
}

static PetscErrorCode SideBegin(void *lanes)
{
  CudaLanes *l = (CudaLanes *)lanes;

  PetscFunctionBeginUser;
  CUDA_CALL(cudaEventRecord(l->main_mark, l->main));
  CUDA_CALL(cudaStreamWaitEvent(l->side, l->main_mark, 0));
  l->on_side = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode SideEnd(void *lanes)
{
  ((CudaLanes *)lanes)->on_side = PETSC_FALSE;
  return 0;
}

static PetscErrorCode Join(void *lanes)
{
  CudaLanes *l = (CudaLanes *)lanes;

  PetscFunctionBeginUser;
  CUDA_CALL(cudaEventRecord(l->side_mark, l->side));
  CUDA_CALL(cudaStreamWaitEvent(l->main, l->side_mark, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode MainStream(void *lanes, void **stream)
{
  *stream = (void *)((CudaLanes *)lanes)->main;
  return 0;
}

static PetscErrorCode DeviceFreeMemory(size_t *bytes)
{
  size_t total;

  PetscFunctionBeginUser;
  CUDA_CALL(cudaMemGetInfo(bytes, &total));
  PetscFunctionReturn(0);
}

/* Page-locked, so copies to and from it run asynchronously; not zeroed. */
static PetscErrorCode HostAlloc(void **p, size_t bytes)
{
  PetscFunctionBeginUser;
  CUDA_CALL(cudaHostAlloc(p, PetscMax(bytes, 1), cudaHostAllocDefault));
  PetscFunctionReturn(0);
}

static PetscErrorCode HostFree(void **p)
{
  PetscFunctionBeginUser;
  if (*p) CUDA_CALL(cudaFreeHost(*p));
  *p = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode CopyAsync(void *lanes, PetscInt slot, void *dst, const void *src, size_t bytes)
{
  CudaLanes *l = (CudaLanes *)lanes;

  PetscFunctionBeginUser;
  CUDA_CALL(cudaEventRecord(l->main_mark, l->main));
  CUDA_CALL(cudaStreamWaitEvent(l->copy, l->main_mark, 0));
  CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, l->copy));
  CUDA_CALL(cudaEventRecord(l->copied[slot], l->copy));
  PetscFunctionReturn(0);
}

static PetscErrorCode CopyWait(void *lanes, PetscInt slot)
{
  CudaLanes *l = (CudaLanes *)lanes;

  PetscFunctionBeginUser;
  CUDA_CALL(cudaStreamWaitEvent(l->main, l->copied[slot], 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode CopySync(void *lanes, PetscInt slot)
{
  PetscFunctionBeginUser;
  CUDA_CALL(cudaEventSynchronize(((CudaLanes *)lanes)->copied[slot]));
  PetscFunctionReturn(0);
}

static PetscErrorCode Encode(void *lanes, WavefieldCodec codec, const float *x, size_t n, void *packed) { return CudaCodecEncode((const CudaLanes *)lanes, codec, x, n, packed); }

static PetscErrorCode Decode(void *lanes, WavefieldCodec codec, const void *packed, size_t n, float *x) { return CudaCodecDecode((const CudaLanes *)lanes, codec, packed, n, x); }

extern "C" const BackendOps BackendOpsCUDA = {
  .name               = CUDA_BACKEND_NAME,
  .side_begin         = SideBegin,
  .side_end           = SideEnd,
  .join               = Join,
  .main_stream        = MainStream,
  .mem_alloc          = MemAlloc,
  .mem_free           = MemFree,
  .mem_zero           = MemZero,
  .mem_upload         = MemCopy,
  .mem_download       = MemCopy,
  .mem_copy           = MemCopy,
  .device_free_memory = DeviceFreeMemory,
  .host_alloc         = HostAlloc,
  .host_free          = HostFree,
  .copy_async         = CopyAsync,
  .copy_wait          = CopyWait,
  .copy_sync          = CopySync,
  .encode             = Encode,
  .decode             = Decode,
};

