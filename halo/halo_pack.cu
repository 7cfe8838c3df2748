// The batched pack/unpack kernel of the device halo exchanges.  Each copy
// gets its own run of blocks (firstblock), so a launch costs no idle blocks
// for the small faces; the index math is that of HaloPack in halo.c.  It
// moves elements as opaque words of the element's size (bits unchanged),
// one instance per size rather than per type.
#include "halo_pack.h"
#include <cstdint>

namespace {

constexpr unsigned kThreads   = 256;
constexpr unsigned kMaxBlocks = 1024; // per copy; larger slabs are strided over

static_assert(sizeof(HaloPackBatch) <= 4096, "the batch must fit in the kernel parameter space of every CUDA version");

// __grid_constant__: the batch is read in place from parameter space, not
// copied per thread, although the copy is chosen by a run-time index.
template <typename Word>
__global__ void __launch_bounds__(kThreads) PackKernel(const __grid_constant__ HaloPackBatch b, HaloPackDirection dir)
{
  int c = 0;
  while (c + 1 < b.ncopies && b.copy[c + 1].firstblock <= blockIdx.x) c++;
  const HaloPackCopy &p     = b.copy[c];
  const unsigned      n0    = p.count[0], n1 = p.count[1];
  const unsigned      cells = n0 * n1 * p.count[2];
  const unsigned      nblk  = (c + 1 < b.ncopies ? b.copy[c + 1].firstblock : gridDim.x) - p.firstblock;
  Word *const         field = static_cast<Word *>(p.field);
  Word *const         buf   = static_cast<Word *>(b.buf) + p.offset;
  for (unsigned k = (blockIdx.x - p.firstblock) * kThreads + threadIdx.x; k < cells; k += nblk * kThreads) {
    const unsigned  i0 = k % n0, r = k / n0, i1 = r % n1, i2 = r / n1;
    const long long at = p.start + i0 + i1 * b.stride[1] + i2 * b.stride[2];
    if (dir == HALO_PACK_GATHER) buf[k] = field[at];
    else field[at] = buf[k];
  }
}

} // namespace

extern "C" cudaError_t HaloPackLaunch(HaloPackBatch *batch, HaloPackDirection dir, cudaStream_t stream)
{
  unsigned blocks = 0;
  for (int c = 0; c < batch->ncopies; c++) {
    const HaloPackCopy      *p     = &batch->copy[c];
    const unsigned long long cells = (unsigned long long)p->count[0] * p->count[1] * p->count[2];
    const unsigned long long need  = (cells + kThreads - 1) / kThreads;
    batch->copy[c].firstblock      = blocks;
    blocks += (unsigned)(need < kMaxBlocks ? (need ? need : 1) : kMaxBlocks);
  }
  if (!blocks) return cudaSuccess;
  switch (batch->elemsize) {
  case sizeof(std::uint32_t):
    PackKernel<std::uint32_t><<<blocks, kThreads, 0, stream>>>(*batch, dir);
    break;
  case sizeof(std::uint64_t):
    PackKernel<std::uint64_t><<<blocks, kThreads, 0, stream>>>(*batch, dir);
    break;
  default:
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}
