/* The wavefield store: a slot per step, placed by its tier.  Directly in
   the backend's memory; or, for a device backend short of device memory,
   in page-locked host memory behind two device buffers that take turns: a
   step is written into one while the previous step's copy to the host runs,
   and read back from one while the next (earlier) step is fetched.
   Compressed steps are encoded from, and decoded into, two such buffers:
   into their slots, or where they cross a device's copy lane into two
   device buffers of their own first (the device encodes, and the encoded
   bytes are copied); steps on disk go out of them, and come back
   into them, on the file's own thread (store_file.h), in the same turns: a
   device backend's through two page-locked host buffers, a step written
   going down to one while the equation takes the next step and out to the
   file once the next step's copy is queued, a step read coming from the
   file into one and going up before its turn. */
#include "equations/store.h"
#include "equations/codec.h"
#include "equations/store_file.h"
#include "data/timing.h"
#include "data/util.h"

typedef enum {
  PLACE_BACKEND, /* floats in backend memory, a step's buffer its slot */
  PLACE_STAGED,  /* a device backend's, floats or encoded, in page-locked host memory, through device buffers */
  PLACE_ENCODED, /* encoded in backend memory, through backend buffers */
  PLACE_DISK     /* in a file, encoded or not, through backend buffers (and a device's page-locked host buffers) */
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
  void             *pack[2]; /* a device backend's encoded steps that cross its copy lane: step k encoded in pack[k % 2], device memory */
  void             *host[2]; /* a device backend's steps on disk: step k's bytes in host[k % 2], page-locked */
  void             *io[2];   /* a host backend's encoded steps on disk: step k's bytes as the file keeps them */
  PetscInt          landing; /* with host: the step written whose copy down is queued, not yet written out; or -1 */
  StoreFile         file;
  unsigned char    *live;    /* map_bytes a step, host memory, or NULL */
  uint32_t         *start;   /* with live, rows a step: each row's start */
  size_t            map_bytes, rows;
  PetscInt          chunk;   /* with live: cells a chunk of the map stands for */
};

double WavefieldStoreBytes(size_t n, PetscInt nsteps, WavefieldCodec codec) { return (double)CodecBytes(codec, n) * (double)nsteps; }

void WavefieldStoreBufferBytes(const BackendOps *b, size_t n, const WavefieldTier *tier, double bytes[2])
{
  const double    floats = 2.0 * n * sizeof(float), encoded = tier->codec != CODEC_NONE ? 2.0 * CodecBytes(tier->codec, n) : 0;
  const PetscBool disk   = tier->where == STORAGE_DISK ? PETSC_TRUE : PETSC_FALSE;

  if (!b->device_free_memory) { /* buf, and io */
    bytes[0] = disk || encoded ? floats + (disk ? encoded : 0) : 0;
    bytes[1] = 0;
  } else if (tier->where == STORAGE_DEVICE) { /* buf where the slots are encoded */
    bytes[0] = 0;
    bytes[1] = encoded ? floats : 0;
  } else { /* buf and pack on the device, host for a file */
    bytes[0] = disk ? 2.0 * CodecBytes(tier->codec, n) : 0;
    bytes[1] = floats + encoded;
  }
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

/* The placement the tier asks for: encoded steps, where they are not
   staged, in backend memory as the floats would be. */
static PetscErrorCode Choose(MPI_Comm comm, const BackendOps *b, double bytes, const WavefieldTier *tier, Placement *place)
{
  PetscBool staged;
  double    device_usable;

  PetscFunctionBeginUser;
  if (tier->where == STORAGE_DISK) *place = PLACE_DISK;
  else {
    PetscCall(ChooseStaged(comm, b, bytes, tier->where, &staged, &device_usable));
    *place = staged ? PLACE_STAGED : tier->codec != CODEC_NONE ? PLACE_ENCODED : PLACE_BACKEND;
  }
  PetscFunctionReturn(0);
}

/* Whether a device backend's steps pass through page-locked host buffers (on disk). */
static PetscBool Hosted(WavefieldStore s) { return !s->b->host_memory && s->place == PLACE_DISK ? PETSC_TRUE : PETSC_FALSE; }

/* Whether the steps cross a device's copy lane (staged, or on disk). */
static PetscBool Copied(WavefieldStore s) { return s->place == PLACE_STAGED || Hosted(s) ? PETSC_TRUE : PETSC_FALSE; }

/* Whether the steps' slots hold only their live chunks' cells, packed from
   the start of each tile of rows (the backend writes the slot in place):
   the rest of a slot is never written nor read, so its pages need never be
   mapped (BackendOps.mem_reserve). */
static PetscBool LiveOnly(const BackendOps *b, Placement place, const WavefieldLive *live)
{
  return place == PLACE_BACKEND && live->bytes && b->mem_reserve ? PETSC_TRUE : PETSC_FALSE;
}

static PetscErrorCode Describe(const WavefieldStore s, const WavefieldTier *tier, const WavefieldLive *live, char *place, size_t len)
{
  const char *as = s->codec == CODEC_BF16 ? " as bfloat16" : s->codec == CODEC_INT8 ? " as 8-bit blocks" : "";

  PetscFunctionBeginUser;
  switch (s->place) {
  case PLACE_BACKEND:
    PetscCall(PetscSNPrintf(place, len, "%s%s", s->b->device_free_memory ? "device memory" : "host memory",
                            LiveOnly(s->b, s->place, live) ? " (only the live chunks, packed: pages the waves never reach are never mapped)" : ""));
    break;
  case PLACE_STAGED:
    PetscCall(PetscSNPrintf(place, len, "page-locked host memory%s, copied asynchronously", s->codec ? (s->codec == CODEC_BF16 ? " as bfloat16 (encoded on the device)" : " as 8-bit blocks (encoded on the device)") : ""));
    break;
  case PLACE_ENCODED:
    PetscCall(PetscSNPrintf(place, len, "%s%s", s->b->device_free_memory ? "device memory" : "host memory", as));
    break;
  case PLACE_DISK:
    PetscCall(PetscSNPrintf(place, len, "a file in %s%s (one a rank, unnamed: gone when the run ends), written and read ahead asynchronously%s", tier->dir, as,
                            s->b->host_memory ? "" : " through page-locked host memory"));
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
  (*s)->landing = -1;
  PetscCall(Describe(*s, tier, live, where, sizeof where));
  PetscCallMPI(MPI_Allreduce(&bytes, &most, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(PetscPrintf(comm, "forward wavefield kept for the adjoint: %s, %.1f MB on the busiest rank (%" PetscInt_FMT " steps x %zu cells), in %s\n", what, most / 1048576.0,
                        nsteps, n, where));
  was = TimingEnter(TIME_ALLOCATION); /* the backend's mem_alloc maps every page now, mem_reserve none */
  if (place == PLACE_STAGED) MemoryCall(b->host_alloc((void **)&(*s)->data, bytes), "the forward wavefield store in page-locked host memory", bytes);
  else if (place == PLACE_DISK) PetscCall(StoreFileOpen(tier->dir, (size_t)bytes, &(*s)->file));
  else if (LiveOnly(b, place, live)) MemoryCall(b->mem_reserve((void **)&(*s)->data, bytes), "the forward wavefield store", bytes);
  else MemoryCall((b->mem_alloc_stream ? b->mem_alloc_stream : b->mem_alloc)((void **)&(*s)->data, bytes), "the forward wavefield store", bytes);
  for (PetscInt k = 0; k < 2; k++) {
    const double packed = (double)(*s)->packed;
    if (place != PLACE_BACKEND) MemoryCall(b->mem_alloc((void **)&(*s)->buf[k], n * sizeof(float)), "the forward wavefield store's buffers", n * sizeof(float));
    if (!b->host_memory && tier->codec != CODEC_NONE && place != PLACE_ENCODED) MemoryCall(b->mem_alloc(&(*s)->pack[k], (*s)->packed), "the forward wavefield store's encoding buffers", packed);
    if (Hosted(*s)) MemoryCall(b->host_alloc(&(*s)->host[k], (*s)->packed), "the forward wavefield store's page-locked buffers", packed);
    if (b->host_memory && place == PLACE_DISK && tier->codec != CODEC_NONE) MemoryCall(PetscMalloc((*s)->packed, &(*s)->io[k]), "the forward wavefield store's buffers", packed);
  }
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
  for (PetscInt k = 0; k < 2 && Copied(*s); k++) PetscCall((*s)->b->copy_sync((*s)->lanes, k)); /* no copy left to or from host memory */
  if ((*s)->place == PLACE_STAGED) PetscCall((*s)->b->host_free((void **)&(*s)->data));
  else PetscCall((*s)->b->mem_free((void **)&(*s)->data));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall((*s)->b->mem_free((void **)&(*s)->buf[k]));
    PetscCall((*s)->b->mem_free(&(*s)->pack[k]));
    if ((*s)->host[k]) PetscCall((*s)->b->host_free(&(*s)->host[k]));
    PetscCall(PetscFree((*s)->io[k]));
  }
  PetscCall(PetscFree2((*s)->live, (*s)->start));
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(0);
}

/* The slot of a step: the step itself, or in a ring its remainder. */
static size_t SlotOf(WavefieldStore s, PetscInt step) { return (size_t)(s->ring ? step % s->nsteps : step); }

static void *Slot(WavefieldStore s, PetscInt step) { return s->data + s->packed * SlotOf(s, step); }

/* Where step's encoding is formed and read: its slot (in backend
   memory), a device's encoding buffer (its copy lane's), or a host
   backend's file buffer. */
static void *Packed(WavefieldStore s, PetscInt step)
{
  if (s->place == PLACE_ENCODED) return Slot(s, step);
  return s->b->host_memory ? s->io[step % 2] : s->pack[step % 2];
}

/* What crosses a device's copy lane for step: its encoding, or its buffer. */
static void *DeviceSide(WavefieldStore s, PetscInt step) { return s->codec != CODEC_NONE ? s->pack[step % 2] : (void *)s->buf[step % 2]; }

/* What the file moves for step: a device's host buffer, or a host
   backend's encoding or buffer. */
static void *FileSide(WavefieldStore s, PetscInt step)
{
  if (s->host[step % 2]) return s->host[step % 2];
  return s->io[step % 2] ? s->io[step % 2] : (void *)s->buf[step % 2];
}

static PetscErrorCode Write(WavefieldStore s, PetscInt step) { return StoreFilePost(s->file, step % 2, PETSC_TRUE, FileSide(s, step), s->packed, s->packed * (size_t)step); }

/* A device backend's step whose copy down to its host buffer is queued:
   written out once it is in. */
static PetscErrorCode Land(WavefieldStore s)
{
  PetscFunctionBeginUser;
  if (s->landing < 0) PetscFunctionReturn(0);
  PetscCall(s->b->copy_sync(s->lanes, s->landing % 2));
  PetscCall(Write(s, s->landing));
  s->landing = -1;
  PetscFunctionReturn(0);
}

/* A written step goes to its slot: encoded (Packed: into its slot, or
   first into an encoding buffer), copied from the device (staged, on the
   copy lane after the main lane's work so far, to its slot; on disk to its
   host buffer once the file is done with that buffer, the previous step
   written out meanwhile), or written to the file. */
static PetscErrorCode Put(WavefieldStore s, PetscInt step)
{
  PetscFunctionBeginUser;
  if (s->place == PLACE_BACKEND) PetscFunctionReturn(0);
  if (s->codec != CODEC_NONE) PetscCall(s->b->encode(s->lanes, s->codec, s->buf[step % 2], s->n, Packed(s, step)));
  if (s->place == PLACE_STAGED) PetscCall(s->b->copy_async(s->lanes, step % 2, Slot(s, step), DeviceSide(s, step), s->packed));
  else if (Hosted(s)) {
    PetscCall(StoreFileWait(s->file, step % 2));
    PetscCall(s->b->copy_async(s->lanes, step % 2, s->host[step % 2], DeviceSide(s, step), s->packed));
    PetscCall(Land(s));
    s->landing = step;
  } else if (s->place == PLACE_DISK) PetscCall(Write(s, step));
  PetscFunctionReturn(0);
}

/* A step to be read starts coming back: to the device from its slot, or
   from the file (into a device backend's host buffer once that buffer's
   last copy up is done). */
static PetscErrorCode Fetch(WavefieldStore s, PetscInt step)
{
  PetscFunctionBeginUser;
  if (s->place == PLACE_STAGED) PetscCall(s->b->copy_async(s->lanes, step % 2, DeviceSide(s, step), Slot(s, step), s->packed));
  if (s->place != PLACE_DISK) PetscFunctionReturn(0);
  if (Hosted(s)) PetscCall(s->b->copy_sync(s->lanes, step % 2));
  PetscCall(StoreFilePost(s->file, step % 2, PETSC_FALSE, FileSide(s, step), s->packed, s->packed * (size_t)step));
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
  if (Copied(s)) PetscCall(s->b->copy_wait(s->lanes, step % 2));
  else if (s->place == PLACE_DISK) PetscCall(StoreFileWait(s->file, step % 2));
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
  PetscCall(Land(s)); /* a device backend's last step written */
  /* the last step starts the fetching; each ReadEnd fetches two steps ahead */
  if (step == s->nsteps - 1) {
    PetscCall(Fetch(s, step));
    if (step > 0) PetscCall(Fetch(s, step - 1));
  }
  if (Hosted(s)) { /* from the file up to the device */
    PetscCall(StoreFileWait(s->file, step % 2));
    PetscCall(s->b->copy_async(s->lanes, step % 2, DeviceSide(s, step), s->host[step % 2], s->packed));
  }
  PetscCall(Buffer(s, step, buf));
  if (s->codec != CODEC_NONE) PetscCall(s->b->decode(s->lanes, s->codec, Packed(s, step), s->n, *buf));
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
