/* The in-memory wavefield store: one array, a slot per step.  Directly in
   the backend's memory, or, for a device backend short of device memory,
   in page-locked host memory behind two device buffers that take turns: a
   step is written into one while the previous step's copy to the host runs,
   and read back from one while the next (earlier) step is fetched. */
#include "equations/store.h"
#include "data/timing.h"
#include "data/util.h"



struct _p_WavefieldStore {
  const BackendOps *b;
  void            *lanes;
  size_t           n;
  PetscInt         nsteps;
  PetscBool        ring;   /* step k in slot k % nsteps (WavefieldStoreSetRing) */
  PetscBool        staged; /* data in page-locked host memory, through buf[] */
  float           *data;
  float           *buf[2]; /* staged: device buffers, step k in buf[k % 2] */
  unsigned char   *live;   /* map_bytes a step, host memory, or NULL */
  uint32_t        *start;  /* with live, rows a step: each row's start */
  size_t           map_bytes, rows;
  PetscInt         chunk;  /* with live: cells a chunk of the map stands for */
};

double WavefieldStoreBytes(size_t n, PetscInt nsteps) { return (double)n * (double)nsteps * sizeof(float); }

/* Staged unless device memory is asked for, or auto and the busiest rank's
   share fits in the least usable device memory of any rank. */
static PetscErrorCode ChooseStaged(MPI_Comm comm, const BackendOps *b, double bytes, WavefieldStorage where, PetscBool *staged, double *device_usable)
{
  size_t    avail;
  double    mine[2], most[2]; /* bytes needed, minus the usable device memory */
  PetscBool fits;

  PetscFunctionBeginUser;
  *staged = PETSC_FALSE;
  if (!b->device_free_memory) {
    PetscCheck(where != STORAGE_DEVICE, comm, PETSC_ERR_ARG_WRONG, "-wavefield_storage device: the %s backend has no device memory; use auto or host", b->name);
    PetscFunctionReturn(0);
  }
  PetscCall(b->device_free_memory(&avail));
  mine[0] = bytes;
  mine[1] = -MEMORY_SHARE * (double)avail;
  PetscCallMPI(MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, comm));
  *device_usable = -most[1];
  fits           = most[0] <= *device_usable ? PETSC_TRUE : PETSC_FALSE;
  if (where == STORAGE_HOST || (where == STORAGE_AUTO && !fits)) *staged = PETSC_TRUE;
  PetscCheck(where != STORAGE_DEVICE || fits, comm, PETSC_ERR_ARG_INCOMP,
             "-wavefield_storage device: the forward wavefield needs %.1f MB on the busiest rank but a rank can use only %.1f MB of device memory (%.0f%% of what is free); "
             "use -wavefield_storage auto or host, or more ranks per shot group",
             most[0] / 1048576.0, *device_usable / 1048576.0, 100 * MEMORY_SHARE);
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreCreate(MPI_Comm comm, const BackendOps *b, void *lanes, size_t n, PetscInt nsteps, WavefieldStorage where, const WavefieldLive *live,
                                    const char *what, WavefieldStore *s)
{
  const double bytes = WavefieldStoreBytes(n, nsteps);
  double       most, device_usable = 0;
  PetscBool    staged;
  const char  *place;
  TimePhase    was;

  PetscFunctionBeginUser;
  PetscCall(ChooseStaged(comm, b, bytes, where, &staged, &device_usable));
  place = !b->device_free_memory ? "host memory" : staged ? "page-locked host memory, copied asynchronously" : "device memory";
  PetscCallMPI(MPI_Allreduce(&bytes, &most, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(PetscPrintf(comm, "forward wavefield kept for the adjoint: %s, %.1f MB on the busiest rank (%" PetscInt_FMT " steps x %zu cells), in %s\n", what,
                        most / 1048576.0, nsteps, n, place));
  was = TimingEnter(TIME_ALLOCATION); /* the backend's mem_alloc maps every page now */
  PetscCall(PetscNew(s));
  (*s)->b      = b;
  (*s)->lanes  = lanes;
  (*s)->n      = n;
  (*s)->nsteps = nsteps;
  (*s)->staged = staged;
  if (staged) {
    MemoryCall(b->host_alloc((void **)&(*s)->data, bytes), "the forward wavefield store in page-locked host memory", bytes);
    for (PetscInt k = 0; k < 2; k++) MemoryCall(b->mem_alloc((void **)&(*s)->buf[k], n * sizeof(float)), "the forward wavefield store's device buffers", n * sizeof(float));
  } else MemoryCall(b->mem_alloc((void **)&(*s)->data, bytes), "the forward wavefield store", bytes);
  if (live->bytes) {
    const double map = (double)live->bytes * nsteps;
    PetscCheck(live->rows && live->chunk > 0 && live->bytes > live->rows * sizeof(uint32_t), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "live map of %zu bytes a step over %zu rows: no room for the rows' starts", live->bytes, live->rows);
    (*s)->rows      = live->rows;
    (*s)->chunk     = live->chunk;
    (*s)->map_bytes = live->bytes - live->rows * sizeof(uint32_t);
    MemoryCall(PetscCalloc2((*s)->map_bytes * nsteps, &(*s)->live, (*s)->rows * nsteps, &(*s)->start), "the forward wavefield store's live map", map);
  }
  TimingLeave(was);
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreDestroy(WavefieldStore *s)
{
  PetscFunctionBeginUser;
  if (!*s) PetscFunctionReturn(0);
  if ((*s)->staged) {
    PetscCall((*s)->b->host_free((void **)&(*s)->data));
    for (PetscInt k = 0; k < 2; k++) PetscCall((*s)->b->mem_free((void **)&(*s)->buf[k]));
  } else PetscCall((*s)->b->mem_free((void **)&(*s)->data));
  PetscCall(PetscFree2((*s)->live, (*s)->start));
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(0);
}

/* The slot of a step: the step itself, or in a ring its remainder. */
static size_t SlotOf(WavefieldStore s, PetscInt step) { return (size_t)(s->ring ? step % s->nsteps : step); }

static float *Slot(WavefieldStore s, PetscInt step) { return s->data + s->n * SlotOf(s, step); }

/* Staged: host slot <-> device buffer on the copy lane, after the main lane's work so far. */
static PetscErrorCode Copy(WavefieldStore s, PetscInt step, PetscBool to_host)
{
  const size_t bytes = s->n * sizeof(float);
  float       *buf   = s->buf[step % 2];

  PetscFunctionBeginUser;
  if (to_host) PetscCall(s->b->copy_async(s->lanes, step % 2, Slot(s, step), buf, bytes));
  else PetscCall(s->b->copy_async(s->lanes, step % 2, buf, Slot(s, step), bytes));
  PetscFunctionReturn(0);
}

/* Step's buffer: its slot, or (staged) its device buffer once that buffer's
   last copy is done. */
static PetscErrorCode Buffer(WavefieldStore s, PetscInt step, float **buf)
{
  PetscFunctionBeginUser;
  PetscCheck(step >= 0 && (s->ring || step < s->nsteps), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "store step %" PetscInt_FMT " outside [0, %" PetscInt_FMT ")", step,
             s->nsteps);
  if (!s->staged) {
    *buf = Slot(s, step);
    PetscFunctionReturn(0);
  }
  PetscCall(s->b->copy_wait(s->lanes, step % 2));
  *buf = s->buf[step % 2];
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreSetRing(WavefieldStore s)
{
  PetscFunctionBeginUser;
  PetscCheck(!s->staged, PETSC_COMM_SELF, PETSC_ERR_SUP, "a store in page-locked host memory cannot be a ring: use -wavefield_storage auto or device");
  s->ring = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreWriteBegin(WavefieldStore s, PetscInt step, float **buf) { return Buffer(s, step, buf); }

PetscErrorCode WavefieldStoreWriteEnd(WavefieldStore s, PetscInt step)
{
  PetscFunctionBeginUser;
  if (s->staged) PetscCall(Copy(s, step, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreReadBegin(WavefieldStore s, PetscInt step, float **buf)
{
  PetscFunctionBeginUser;
  /* the last step starts the fetching; each ReadEnd fetches two steps ahead */
  if (s->staged && step == s->nsteps - 1) {
    PetscCall(Copy(s, step, PETSC_FALSE));
    if (step > 0) PetscCall(Copy(s, step - 1, PETSC_FALSE));
  }
  PetscCall(Buffer(s, step, buf));
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreReadEnd(WavefieldStore s, PetscInt step)
{
  PetscFunctionBeginUser;
  if (s->staged && step >= 2) PetscCall(Copy(s, step - 2, PETSC_FALSE));
  PetscFunctionReturn(0);
}

unsigned char *WavefieldStoreLive(WavefieldStore s, PetscInt step, uint32_t **start)
{
  *start = s->live ? s->start + s->rows * SlotOf(s, step) : NULL;
  return s->live ? s->live + s->map_bytes * SlotOf(s, step) : NULL;
}

PetscBool WavefieldStoreLiveShare(WavefieldStore s, double *share)
{
  const size_t n    = s->map_bytes * (size_t)s->nsteps;
  size_t       live = 0;

  *share = 1;
  if (!s->live) return PETSC_FALSE;
#pragma omp parallel for reduction(+ : live) schedule(static)
  for (size_t i = 0; i < n; i++) live += s->live[i];
  if (n) *share = (double)live / (double)n;
  return PETSC_TRUE;
}

PetscErrorCode WavefieldStoreLiveReport(MPI_Comm comm, WavefieldStore s)
{
  double mine[2], most[2];

  PetscFunctionBeginUser;
  mine[0] = WavefieldStoreLiveShare(s, &mine[1]) ? s->chunk : 0;
  PetscCallMPI(MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, comm));
  if (most[0] > 0)
    PetscCall(PetscPrintf(comm, "stored term: %.1f%% of its %d-cell chunks not all zero on the busiest rank, the only ones the adjoint reads\n", 100 * most[1],
                          (int)most[0]));
  PetscFunctionReturn(0);
}
