/* Halo exchange for padded structured-grid fields split over MPI ranks.

   The library knows nothing about the physics: a field is a box of owned
   cells surrounded by `width` ghost cells on every side of every active axis,
   axis 0 fastest in memory.  Only faces are exchanged (star stencils need no
   edges or corners).  The exchange is split into Begin/End so that work that
   does not touch ghost cells can run while messages fly.

   Element type: every field of a halo holds elements of the layout's `elem`
   (HaloDataType), float unless set: a layout zeroed before it is filled in
   exchanges floats.  Ghosts receive the neighbour's bytes unchanged (no
   conversion); a code with fields of both precisions creates a halo for each.

   Backends: `host` (non-blocking MPI on host memory); with CUDA `staged`
   (device -> pinned host -> MPI -> device), `mpi-device` (CUDA-aware MPI on
   device buffers) and `nccl` (NCCL send/recv).  For the device backends
   HaloField.data is device memory with the same padded layout, and all
   device work is queued on the halo's stream (HaloSetStream): the caller
   orders the writes of the fields before HaloExchangeBegin on that stream,
   and reads ghosts after HaloExchangeEnd in that stream's order. */
#pragma once
#include <petscsys.h>

#define HALO_MAXDIM 3
#define HALO_MAXFIELDS 16

/* Face bits for HaloField.faces: axis a, side s (0 = low, 1 = high). */
#define HALO_FACE(a, s) (1u << (2 * (a) + (s)))
#define HALO_AXIS(a)    (HALO_FACE(a, 0) | HALO_FACE(a, 1))
#define HALO_ALL_FACES  0x3Fu

/* Element type of the fields; 0 is float. */
typedef enum { HALO_FLOAT, HALO_DOUBLE } HaloDataType;
/* Names for PetscOptionsEnum: "float", "double". */
extern const char *const HaloDataTypes[];
/* Bytes per element; 0 for a value that is no HaloDataType. */
size_t HaloDataTypeSize(HaloDataType elem);

typedef struct {
  PetscInt     dim;                         /* 1..3 active axes */
  PetscInt     n[HALO_MAXDIM];              /* owned cells per axis (1 beyond dim) */
  PetscInt     width;                       /* ghost cells per side */
  PetscInt     pitch;                       /* elements from one padded row (axis 0) to the next; 0: n[0] + 2 width */
  PetscMPIInt  neighbor[HALO_MAXDIM][2];    /* face neighbours, MPI_PROC_NULL at edges */
  int          tag;                         /* halos in flight at once on one comm need distinct tags */
  HaloDataType elem;                        /* element type of the fields, HALO_FLOAT (0) unless set */
} HaloLayout;

/* One field to exchange: its base pointer (first padded cell; elements of the
   layout's type) and the faces it sends and receives.  Both ranks of a face
   must agree on whether a field is exchanged across it. */
typedef struct {
  void    *data;
  unsigned faces;
} HaloField;

typedef struct _p_Halo *Halo;

typedef enum { HALO_HOST, HALO_STAGED, HALO_MPI_DEVICE, HALO_NCCL } HaloType;
/* Names for PetscOptionsEnum: "host", "staged", "mpi-device", "nccl". */
extern const char *const HaloTypes[];

/* Whether this build and this process can use the backend; why (when not
   NULL) gets a short reason when it cannot.  Not collective. */
PetscErrorCode HaloTypeAvailable(HaloType type, PetscBool *available, char why[], size_t len);
/* Collective: the same answer on every rank of comm, available only where
   every rank can use it; for nccl also that no two ranks share a GPU.  Use it
   to pick a default that every rank agrees on. */
PetscErrorCode HaloTypeAvailableOnComm(MPI_Comm comm, HaloType type, PetscBool *available, char why[], size_t len);

/* The halo uses comm as it is (no duplicate): keep it until HaloDestroy.
   Device backends use the current CUDA device.  The first nccl halo on a
   communicator is collective over it (it creates the NCCL communicator that
   later halos on the same communicator share). */
PetscErrorCode HaloCreate(MPI_Comm comm, const HaloLayout *layout, HaloType type, Halo *halo);
/* Device backends: the cudaStream_t (as void *) on which packing, copies,
   NCCL calls and unpacking are queued; default NULL, the legacy default
   stream.  Not between Begin and End.  Ignored by the host backend. */
PetscErrorCode HaloSetStream(Halo halo, void *stream);
PetscErrorCode HaloDestroy(Halo *halo);
/* Starts exchanging up to HALO_MAXFIELDS fields; they must stay untouched in
   their ghost and face-adjacent cells until HaloExchangeEnd (device: until the
   unpacking queued by End has run on the halo's stream).  Device backends:
   Begin only queues work, End waits for the messages and queues the
   unpacking without waiting for it. */
PetscErrorCode HaloExchangeBegin(Halo halo, PetscInt nfields, const HaloField fields[]);
PetscErrorCode HaloExchangeEnd(Halo halo);
/* Padded sizes and strides of the fields this halo serves. */
PetscErrorCode HaloGetPadded(Halo halo, PetscInt padded[HALO_MAXDIM], ptrdiff_t stride[HALO_MAXDIM]);
