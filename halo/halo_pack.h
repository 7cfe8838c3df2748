/* Batched copies between face slabs of padded fields and one contiguous
   buffer, on the GPU: every (field, face) pair of an exchange in one kernel
   launch.  Plain C, shared by the library and the kernel file (which sees
   neither PETSc nor MPI). */
#pragma once
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* HALO_MAXFIELDS fields x 2 * HALO_MAXDIM faces (checked in halo_device.c). */
#define HALO_PACK_MAXCOPIES 96

/* One slab: count[0] x count[1] x count[2] cells from field + start, axis 0
   fastest, to/from buf + offset in the same order (in elements). */
typedef struct {
  void              *field;
  long long          start;      /* padded index of the slab's first cell */
  unsigned long long offset;     /* in the buffer */
  unsigned           count[3];
  unsigned           firstblock; /* set by HaloPackLaunch */
} HaloPackCopy;

/* Passed by value as the kernel's parameter (3.9 KiB: under the 4 KiB limit). */
typedef struct {
  void        *buf;
  long long    stride[3]; /* of the padded fields */
  unsigned     elemsize;  /* bytes per element: 4 or 8 */
  int          ncopies;
  HaloPackCopy copy[HALO_PACK_MAXCOPIES];
} HaloPackBatch;

typedef enum { HALO_PACK_GATHER, HALO_PACK_SCATTER } HaloPackDirection;

/* Queues one kernel on stream (nothing when there are no copies); returns
   the launch error, cudaErrorInvalidValue for an element size it cannot copy. */
cudaError_t HaloPackLaunch(HaloPackBatch *batch, HaloPackDirection dir, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
