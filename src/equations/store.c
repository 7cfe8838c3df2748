/* The wavefield store: a slot per step, placed by its tier.  Directly in
   the backend's memory; or, for a device backend short of device memory,
   in page-locked host memory behind two device buffers that take turns: a
   step is written into one while the previous step's copy to the host runs,
   and read back from one while the next (earlier) step is fetched.  A host
   backend's compressed steps are encoded from, and decoded into, two such
   buffers; its steps on disk go out of them, and come back into them, on the
   file's own thread (store_file.h), in the same turns. */
#include "equations/store.h"
#include "equations/codec.h"
#include "equations/store_file.h"
#include "data/timing.h"
#include "data/util.h"

typedef enum {
  PLACE_BACKEND, /* floats in backend memory, a step's buffer its slot */
  PLACE_STAGED,  /* floats in page-locked host memory, through device buffers */
  PLACE_ENCODED, /* encoded in host memory, through host buffers */
  PLACE_DISK     /* in a file, encoded or not, through host buffers */
} Placement;

struct _p_WavefieldStore {
  const BackendOps *b;
  void             *lanes;
  size_t            n;
  PetscInt          nsteps;
  PetscBool         ring; /* step k in slot k % nsteps (WavefieldStoreSetRing) */
  Placement         place;
  WavefieldCodec    codec;
  size_t            packed;  /* bytes a step keeps */
  char             *data;    /* the slots, but on disk */
  float            *buf[2];  /* a step's buffer, step k in buf[k % 2], but PLACE_BACKEND */
  void             *io[2];   /* disk and encoded: a step's bytes as the file keeps them */
  StoreFile         file;
  unsigned char    *live;    /* map_bytes a step, host memory, or NULL */
  uint32_t         *start;   /* with live, rows a step: each row's start */
  size_t            map_bytes, rows;
  PetscInt          chunk;   /* with live: cells a chunk of the map stands for */
};

double WavefieldStoreBytes(size_t n, PetscInt nsteps, WavefieldCodec codec) { return (double)CodecBytes(codec, n) * (double)nsteps; }

double WavefieldStoreBufferBytes(const BackendOps *b, size_t n, const WavefieldTier *tier)
{
  if (tier->where == STORAGE_DISK) return 2.0 * n * sizeof(float) + (tier->codec != CODEC_NONE ? 2.0 * CodecBytes(tier->codec, n) : 0);
  return tier->codec != CODEC_NONE || b->device_free_memory ? 2.0 * n * sizeof(float) : 0;
}

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

/* The placement the tier asks for; disk and encodings on host backends only. */
static PetscErrorCode Choose(MPI_Comm comm, const BackendOps *b, double bytes, const WavefieldTier *tier, Placement *place)
{
  PetscBool staged;
  double    device_usable;

  PetscFunctionBeginUser;
  PetscCheck(b->host_memory || (tier->where != STORAGE_DISK && tier->codec == CODEC_NONE), comm, PETSC_ERR_SUP,
             "-wavefield_storage disk and -wavefield_compression: the %s backend keeps the forward wavefield in device or page-locked host memory, as floats; "
             "disk and compression are the CPU backend's, for now",
             b->name);
  if (tier->where == STORAGE_DISK) *place = PLACE_DISK;
  else if (tier->codec != CODEC_NONE) *place = PLACE_ENCODED;
  else {
    PetscCall(ChooseStaged(comm, b, bytes, tier->where, &staged, &device_usable));
    *place = staged ? PLACE_STAGED : PLACE_BACKEND;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Describe(const WavefieldStore s, const WavefieldTier *tier, char *place, size_t len)
{
  const char *as = s->codec == CODEC_BF16 ? " as bfloat16" : s->codec == CODEC_INT8 ? " as 8-bit blocks" : "";

  PetscFunctionBeginUser;
  switch (s->place) {
  case PLACE_BACKEND:
    PetscCall(PetscSNPrintf(place, len, "%s", s->b->device_free_memory ? "device memory" : "host memory"));
    break;
  case PLACE_STAGED:
    PetscCall(PetscSNPrintf(place, len, "page-locked host memory, copied asynchronously"));
    break;
  case PLACE_ENCODED:
    PetscCall(PetscSNPrintf(place, len, "host memory%s", as));
    break;
  case PLACE_DISK:
    PetscCall(PetscSNPrintf(place, len, "a file in %s%s (one a rank, unnamed: gone when the run ends), written and read ahead asynchronously", tier->dir, as));
    break;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreCreate(MPI_Comm comm, const BackendOps *b, void *lanes, size_t n, PetscInt nsteps, const WavefieldTier *tier, const WavefieldLive *live,
                                    const char *what, WavefieldStore *s)
{
  const double bytes = WavefieldStoreBytes(n, nsteps, tier->codec);
  double       most;
  Placement    place = PLACE_BACKEND;
  char         where[PETSC_MAX_PATH_LEN + 128];
  TimePhase    was;

  PetscFunctionBeginUser;
  PetscCall(Choose(comm, b, bytes, tier, &place));
  PetscCall(PetscNew(s));
  (*s)->b      = b;
  (*s)->lanes  = lanes;
  (*s)->n      = n;
  (*s)->nsteps = nsteps;
  (*s)->place  = place;
  (*s)->codec  = tier->codec;
  (*s)->packed = CodecBytes(tier->codec, n);
  PetscCall(Describe(*s, tier, where, sizeof where));
  PetscCallMPI(MPI_Allreduce(&bytes, &most, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(PetscPrintf(comm, "forward wavefield kept for the adjoint: %s, %.1f MB on the busiest rank (%" PetscInt_FMT " steps x %zu cells), in %s\n", what, most / 1048576.0,
                        nsteps, n, where));
  was = TimingEnter(TIME_ALLOCATION); /* the backend's mem_alloc maps every page now */
  if (place == PLACE_STAGED) MemoryCall(b->host_alloc((void **)&(*s)->data, bytes), "the forward wavefield store in page-locked host memory", bytes);
  else if (place == PLACE_DISK) PetscCall(StoreFileOpen(tier->dir, (size_t)bytes, &(*s)->file));
  else MemoryCall(b->mem_alloc((void **)&(*s)->data, bytes), "the forward wavefield store", bytes);
  if (place != PLACE_BACKEND)
    for (PetscInt k = 0; k < 2; k++) MemoryCall(b->mem_alloc((void **)&(*s)->buf[k], n * sizeof(float)), "the forward wavefield store's buffers", n * sizeof(float));
  if (place == PLACE_DISK && tier->codec != CODEC_NONE)
    for (PetscInt k = 0; k < 2; k++) MemoryCall(PetscMalloc((*s)->packed, &(*s)->io[k]), "the forward wavefield store's buffers", (double)(*s)->packed);
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
  PetscCall(StoreFileClose(&(*s)->file));
  if ((*s)->place == PLACE_STAGED) PetscCall((*s)->b->host_free((void **)&(*s)->data));
  else PetscCall((*s)->b->mem_free((void **)&(*s)->data));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall((*s)->b->mem_free((void **)&(*s)->buf[k]));
    PetscCall(PetscFree((*s)->io[k]));
  }
  PetscCall(PetscFree2((*s)->live, (*s)->start));
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(0);
}

/* The slot of a step: the step itself, or in a ring its remainder. */
static size_t SlotOf(WavefieldStore s, PetscInt step) { return (size_t)(s->ring ? step % s->nsteps : step); }

static void *Slot(WavefieldStore s, PetscInt step) { return s->data + s->packed * SlotOf(s, step); }

/* What the file moves for a step: its encoding, or its buffer itself. */
static void *FileSide(WavefieldStore s, PetscInt step) { return s->io[step % 2] ? s->io[step % 2] : (void *)s->buf[step % 2]; }

/* A written step goes to its slot: copied from its device buffer (staged,
   on the copy lane after the main lane's work so far), encoded, or written
   to the file. */
static PetscErrorCode Put(WavefieldStore s, PetscInt step)
{
  float *buf = s->buf[step % 2];

  PetscFunctionBeginUser;
  switch (s->place) {
  case PLACE_STAGED:
    PetscCall(s->b->copy_async(s->lanes, step % 2, Slot(s, step), buf, s->packed));
    break;
  case PLACE_ENCODED:
    CodecEncode(s->codec, buf, s->n, Slot(s, step));
    break;
  case PLACE_DISK:
    if (s->io[step % 2]) CodecEncode(s->codec, buf, s->n, s->io[step % 2]);
    PetscCall(StoreFilePost(s->file, step % 2, PETSC_TRUE, FileSide(s, step), s->packed, s->packed * (size_t)step));
    break;
  case PLACE_BACKEND:
    break;
  }
  PetscFunctionReturn(0);
}

/* A step to be read starts coming back: to its device buffer, or from the file. */
static PetscErrorCode Fetch(WavefieldStore s, PetscInt step)
{
  PetscFunctionBeginUser;
  if (s->place == PLACE_STAGED) PetscCall(s->b->copy_async(s->lanes, step % 2, s->buf[step % 2], Slot(s, step), s->packed));
  if (s->place == PLACE_DISK) PetscCall(StoreFilePost(s->file, step % 2, PETSC_FALSE, FileSide(s, step), s->packed, s->packed * (size_t)step));
  PetscFunctionReturn(0);
}

/* Step's buffer: its slot, or its buffer once that buffer's last transfer is done. */
static PetscErrorCode Buffer(WavefieldStore s, PetscInt step, float **buf)
{
  PetscFunctionBeginUser;
  PetscCheck(step >= 0 && (s->ring || step < s->nsteps), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "store step %" PetscInt_FMT " outside [0, %" PetscInt_FMT ")", step,
             s->nsteps);
  if (s->place == PLACE_BACKEND) {
    *buf = Slot(s, step);
    PetscFunctionReturn(0);
  }
  if (s->place == PLACE_STAGED) PetscCall(s->b->copy_wait(s->lanes, step % 2));
  if (s->place == PLACE_DISK) PetscCall(StoreFileWait(s->file, step % 2));
  *buf = s->buf[step % 2];
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreSetRing(WavefieldStore s)
{
  PetscFunctionBeginUser;
  PetscCheck(s->place == PLACE_BACKEND, PETSC_COMM_SELF, PETSC_ERR_SUP, "checkpointing keeps its last steps in memory, as floats: use -wavefield_storage auto and no -wavefield_compression");
  s->ring = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreWriteBegin(WavefieldStore s, PetscInt step, float **buf) { return Buffer(s, step, buf); }

PetscErrorCode WavefieldStoreWriteEnd(WavefieldStore s, PetscInt step) { return Put(s, step); }

PetscErrorCode WavefieldStoreReadBegin(WavefieldStore s, PetscInt step, float **buf)
{
  PetscFunctionBeginUser;
  /* the last step starts the fetching; each ReadEnd fetches two steps ahead */
  if (step == s->nsteps - 1) {
    PetscCall(Fetch(s, step));
    if (step > 0) PetscCall(Fetch(s, step - 1));
  }
  PetscCall(Buffer(s, step, buf));
  if (s->place == PLACE_ENCODED) CodecDecode(s->codec, Slot(s, step), s->n, *buf);
  if (s->place == PLACE_DISK && s->io[step % 2]) CodecDecode(s->codec, s->io[step % 2], s->n, *buf);
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreReadEnd(WavefieldStore s, PetscInt step)
{
  PetscFunctionBeginUser;
  if (step >= 2) PetscCall(Fetch(s, step - 2));
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
