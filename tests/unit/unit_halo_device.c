/* Device halo exchanges: the grids and checks of unit_halo (unit_halo_grid.h,
   float and double fields) with the fields in device memory, for every device backend available on
   every rank, queued on a non-blocking stream (HaloSetStream) while other
   work runs on a second stream, several exchanges back to back with nothing
   waited for in between.  nccl runs only where every rank has a GPU of its
   own; where ranks share one, HaloCreate must refuse it with a clear error.
   Ranks use GPU (node rank % GPU count).  Without a GPU: exit GPU_SKIPPED (skipped). */
#include "unit_halo_grid.h"
#include "gpu_skipped.h"
#include "unit_check.h"
#include <cuda_runtime_api.h>

#define CHECK_CUDA(call) \
  do { \
    const cudaError_t e_ = (call); \
    PetscCheck(e_ == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s failed: %s", #call, cudaGetErrorString(e_)); \
  } while (0)

typedef struct {
  HaloType     type;
  cudaStream_t stream; /* the halo's */
  cudaStream_t other;  /* stands for the interior update's */
  void        *scratch;
  size_t       nscratch; /* bytes */
} Device;

/* Copies in stream order, as the caller's kernels would be ordered. */
static PetscErrorCode Upload(const Device *dev, const Block *b, void *const d[], PetscInt k)
{
  PetscFunctionBeginUser;
  BlockFill(b, k);
  CHECK_CUDA(cudaMemcpyAsync(d[k], b->field[k], b->ncells * b->esize, cudaMemcpyHostToDevice, dev->stream));
  PetscFunctionReturn(0);
}

static PetscErrorCode Download(const Device *dev, const Block *b, void *const d[], PetscInt k)
{
  PetscFunctionBeginUser;
  CHECK_CUDA(cudaMemcpyAsync(b->field[k], d[k], b->ncells * b->esize, cudaMemcpyDeviceToHost, dev->stream));
  CHECK_CUDA(cudaStreamSynchronize(dev->stream));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestGrid(Block *b, void *ctx)
{
  const Device *dev = (const Device *)ctx;
  Halo          halo;
  void         *d[NFIELDS];
  PetscInt      bad = 0;

  PetscFunctionBeginUser;
  PetscCall(HaloCreate(b->cart, &b->layout, dev->type, &halo));
  PetscCall(HaloSetStream(halo, dev->stream));
  PetscCall(BlockCheckPadded(b, halo));
  for (PetscInt k = 0; k < NFIELDS; k++) CHECK_CUDA(cudaMalloc(&d[k], b->ncells * b->esize));
  /* one field, every face */
  {
    const HaloField hf[1] = {{d[0], HALO_ALL_FACES}};
    PetscCall(Upload(dev, b, d, 0));
    PetscCall(HaloExchangeBegin(halo, 1, hf));
    PetscCall(HaloExchangeEnd(halo));
    PetscCall(Download(dev, b, d, 0));
    bad += BlockCheck(b, 0, HALO_ALL_FACES, "one field");
  }
  /* Three exchanges back to back, nothing waited for in between: field 1
     off axis e and field 0; then all four in one call, field 1 along axis e
     only and field 3 in pairs (the buffers grow while the first unpacking
     may still be queued), other work on the other stream meanwhile; then
     fields 2 and 0.  The fields' order changes from one exchange to the
     next, so receive buffers refilled (or freed) before the previous
     unpacking has run would put wrong values in ghosts that no later
     exchange rewrites.  Twice, as the buffers are reused. */
  for (PetscInt e = 0; e < b->dim; e++)
    for (PetscInt rep = 0; rep < 2; rep++) {
      const HaloField first[2] = {{d[1], HALO_ALL_FACES & ~HALO_AXIS(e)}, {d[0], HALO_ALL_FACES}};
      const HaloField last[2]  = {{d[2], HALO_ALL_FACES}, {d[0], HALO_ALL_FACES}};
      HaloField       hf[NFIELDS];
      char            what[64];
      BlockFieldSet(b, e, d, hf);
      PetscCall(PetscSNPrintf(what, sizeof what, "three exchanges, field 1 split at axis %d", (int)e));
      for (PetscInt k = 0; k < NFIELDS; k++) PetscCall(Upload(dev, b, d, k));
      PetscCall(HaloExchangeBegin(halo, 2, first));
      PetscCall(HaloExchangeEnd(halo));
      PetscCall(HaloExchangeBegin(halo, NFIELDS, hf));
      CHECK_CUDA(cudaMemsetAsync(dev->scratch, 0, dev->nscratch, dev->other));
      PetscCall(HaloExchangeEnd(halo));
      PetscCall(HaloExchangeBegin(halo, 2, last));
      PetscCall(HaloExchangeEnd(halo));
      for (PetscInt k = 0; k < NFIELDS; k++) PetscCall(Download(dev, b, d, k));
      for (PetscInt k = 0; k < NFIELDS; k++) bad += BlockCheck(b, k, k == 3 ? hf[3].faces : HALO_ALL_FACES, what);
    }
  PetscCall(BlockReport(b, bad, HaloTypes[dev->type]));
  PetscCall(HaloDestroy(&halo));
  for (PetscInt k = 0; k < NFIELDS; k++) CHECK_CUDA(cudaFree(d[k]));
  CHECK_CUDA(cudaStreamSynchronize(dev->other));
  PetscFunctionReturn(0);
}

/* Ranks that share a GPU (every rank can use nccl, yet not all together):
   HaloCreate must say so and point to the other halo types. */
static PetscErrorCode TestSharedGPU(void)
{
  HaloLayout L;
  Halo       halo = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&L, sizeof L));
  L.dim  = 1;
  L.n[0] = 13;
  L.n[1] = L.n[2] = 1;
  L.width         = 1;
  for (PetscInt a = 0; a < 3; a++) L.neighbor[a][0] = L.neighbor[a][1] = MPI_PROC_NULL;
  EXPECT_ERROR(HaloCreate(PETSC_COMM_WORLD, &L, HALO_NCCL, &halo), "use the staged or mpi-device halo type");
  PetscFunctionReturn(0);
}

/* Node rank % GPU count. */
static PetscErrorCode SelectDevice(int ndevices, int *device)
{
  MPI_Comm    node;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &rank));
  PetscCallMPI(MPI_Comm_free(&node));
  *device = rank % ndevices;
  CHECK_CUDA(cudaSetDevice(*device));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Device      dev;
  int         ndevices = 0, fewest, device = -1;
  cudaError_t err;
  PetscMPIInt size, rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  err = cudaGetDeviceCount(&ndevices);
  if (err != cudaSuccess) ndevices = 0;
  PetscCallMPI(MPI_Allreduce(&ndevices, &fewest, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  if (!fewest) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_halo_device: no CUDA device on some rank (cudaGetDeviceCount here: %s, %d devices): skipped\n",
                          cudaGetErrorString(err), ndevices));
    PetscCall(PetscFinalize());
    return GPU_SKIPPED;
  }
  PetscCall(SelectDevice(ndevices, &device));
  PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "unit_halo_device: rank %d on GPU %d of %d\n", rank, device, ndevices));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  PetscCall(PetscMemzero(&dev, sizeof dev));
  dev.nscratch = (size_t)1 << 26;
  CHECK_CUDA(cudaStreamCreateWithFlags(&dev.stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&dev.other, cudaStreamNonBlocking));
  CHECK_CUDA(cudaMalloc(&dev.scratch, dev.nscratch));

  for (HaloType t = HALO_STAGED; t <= HALO_NCCL; t++) {
    PetscBool everywhere, here, all_here;
    char      why[256];
    PetscCall(HaloTypeAvailableOnComm(PETSC_COMM_WORLD, t, &everywhere, why, sizeof why));
    if (everywhere) {
      dev.type = t;
      PetscCall(HaloGridTestAll(PETSC_COMM_WORLD, TestGrid, &dev));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_halo_device: %s: all checks passed on %d rank(s)\n", HaloTypes[t], size));
      continue;
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_halo_device: %s: skipped, %s\n", HaloTypes[t], why));
    PetscCall(HaloTypeAvailable(t, &here, NULL, 0));
    PetscCallMPI(MPI_Allreduce(&here, &all_here, 1, MPIU_BOOL, MPI_LAND, PETSC_COMM_WORLD));
    if (t == HALO_NCCL && all_here) {
      PetscCall(TestSharedGPU());
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_halo_device: nccl: HaloCreate refuses ranks that share a GPU, as it should\n"));
    }
  }
  CHECK_CUDA(cudaFree(dev.scratch));
  CHECK_CUDA(cudaStreamDestroy(dev.stream));
  CHECK_CUDA(cudaStreamDestroy(dev.other));
  PetscCall(PetscFinalize());
  return 0;
}
