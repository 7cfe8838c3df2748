/* Velocity models in SEG-Y: see segy_model.h. */
#include "grid/segy_model.h"
#include "data/segy.h"
#include "data/util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

typedef struct {
  const char     *path;
  const Options  *o;
  PetscInt       *n;
  PetscReal      *d, *origin;
  SegyModelOrder *order;
} DescribeJob;

typedef struct {
  int32_t value;
  int     trace;
} Numbered;

static int CompareNumbered(const void *a, const void *b)
{
  const Numbered *x = (const Numbered *)a, *y = (const Numbered *)b;
  return x->value != y->value ? (x->value < y->value ? -1 : 1) : x->trace - y->trace;
}

/* The n line numbers of field `name` at traces first, first + stride, ...
   (v[i].value, trace i) must differ; an error names the first two traces
   that share one. */
static PetscErrorCode CheckDistinct(const SegyFile *f, const char *name, Numbered *v, int n)
{
  PetscFunctionBeginUser;
  qsort(v, (size_t)n, sizeof *v, CompareNumbered);
  for (int i = 1; i < n; i++)
    PetscCheck(v[i].value != v[i - 1].value, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "SEG-Y model %s: traces %d and %d both have %s %d: expected each (inline, crossline) pair (bytes 189-192, 193-196) once", f->path, v[i - 1].trace + 1,
               v[i].trace + 1, name, (int)v[i].value);
  PetscFunctionReturn(0);
}

/* Every trace's (inline, crossline) must be the one the grid puts there:
   nslow lines of nfast traces, the slow field constant along a line and
   the fast one repeating the first line's numbers, with no number twice.
   A section (nslow 1) may leave its crosslines unnumbered (all alike). */
static PetscErrorCode CheckGrid(const SegyFile *f, SegyModelOrder order, const PetscInt n[3])
{
  const PetscBool inl   = order == SEGY_MODEL_CROSSLINES ? PETSC_FALSE : PETSC_TRUE; /* the slow field is the inline */
  const int       nfast = order == SEGY_MODEL_SECTION ? f->ntraces : (int)(inl ? n[1] : n[2]), nslow = f->ntraces / nfast;
  const char     *slow  = inl ? "inline" : "crossline", *fast = inl ? "crossline" : "inline";
  int32_t        *il, *xl, *S, *F, want[2] = {0, 0};
  Numbered       *v;
  PetscBool       numbered = PETSC_FALSE;
  PetscErrorCode  ierr     = 0;
  int             bad      = -1, got[2] = {0, 0};

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(f->ntraces, &il, f->ntraces, &xl, PetscMax(nfast, nslow), &v));
  S = inl ? il : xl;
  F = inl ? xl : il;
  for (int t = 0; t < f->ntraces && !ierr; t++) {
    char hdr[SEGY_TRACE_HEADER_SIZE];
    ierr  = SegyTraceHeader(f, t, hdr);
    il[t] = SegyField(hdr, SEGY_TR_INLINE);
    xl[t] = SegyField(hdr, SEGY_TR_CROSSLINE);
  }
  for (int t = 0; t < f->ntraces && !ierr && bad < 0; t++) {
    numbered = numbered || F[t % nfast] != F[0];
    if (S[t] == S[t / nfast * nfast] && F[t] == F[t % nfast]) continue;
    bad     = t;
    got[0]  = il[t];
    got[1]  = xl[t];
    want[0] = S[t / nfast * nfast];
    want[1] = F[t % nfast];
  }
  if (!ierr && bad < 0 && (numbered || order != SEGY_MODEL_SECTION)) {
    for (int b = 0; b < nfast; b++) v[b] = (Numbered){F[b], b};
    ierr = CheckDistinct(f, fast, v, nfast);
  }
  if (!ierr && bad < 0) {
    for (int a = 0; a < nslow; a++) v[a] = (Numbered){S[a * nfast], a * nfast};
    ierr = CheckDistinct(f, slow, v, nslow);
  }
  PetscCall(PetscFree3(il, xl, v));
  PetscCall(ierr);
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "SEG-Y model %s: trace %d has inline %d, crossline %d, where a regular grid of %d %ss x %d %ss (numbered by its first traces) has %s %d, %s %d: expected "
             "each (inline, crossline) pair (bytes 189-192, 193-196) once, in order",
             f->path, bad + 1, got[0], got[1], nslow, slow, nfast, fast, slow, (int)want[0], fast, (int)want[1]);
  PetscFunctionReturn(0);
}

/* The grid and the first trace's CDP X, Y (the origin). */
static PetscErrorCode FindOrder(const SegyFile *f, PetscInt n[3], PetscReal origin[3], SegyModelOrder *order)
{
  char    first[SEGY_TRACE_HEADER_SIZE], last[SEGY_TRACE_HEADER_SIZE];
  int     sorting, il, xl, err;

  PetscFunctionBeginUser;
  PetscCall(SegyTraceHeader(f, 0, first));
  origin[0] = 0;
  origin[1] = SegyScaled(SegyField(first, SEGY_TR_CDP_X), SegyField(first, SEGY_TR_SOURCE_GROUP_SCALAR));
  origin[2] = SegyScaled(SegyField(first, SEGY_TR_CDP_Y), SegyField(first, SEGY_TR_SOURCE_GROUP_SCALAR));
  PetscCall(SegyTraceHeader(f, f->ntraces - 1, last));
  n[1] = f->ntraces;
  n[2] = 1;
  *order = SEGY_MODEL_SECTION;
  if (SegyField(first, SEGY_TR_INLINE) == SegyField(last, SEGY_TR_INLINE)) {
    PetscCall(CheckGrid(f, *order, n));
    PetscFunctionReturn(0);
  }
  err = segy_sorting(f->fp, SEGY_TR_INLINE, SEGY_TR_CROSSLINE, SEGY_TR_OFFSET, &sorting, f->trace0, f->bsize);
  PetscCheck(!err && sorting != SEGY_UNKNOWN_SORTING, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "SEG-Y model %s: traces sorted neither by inline (bytes 189-192) then crossline (193-196) nor the reverse: expected a 2D section (one inline number) or a "
             "regular 3D volume",
             f->path);
  err = segy_lines_count(f->fp, SEGY_TR_INLINE, SEGY_TR_CROSSLINE, sorting, 1, &il, &xl, f->trace0, f->bsize);
  PetscCheck(!err && (long long)il * xl == f->ntraces, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "SEG-Y model %s: %d traces, not a full grid of inlines x crosslines (%d x %d): expected a regular 3D volume", f->path, f->ntraces, il, xl);
  n[1]   = xl;
  n[2]   = il;
  *order = sorting == SEGY_INLINE_SORTING ? SEGY_MODEL_INLINES : SEGY_MODEL_CROSSLINES;
  PetscCall(CheckGrid(f, *order, n));
  PetscFunctionReturn(0);
}

static PetscErrorCode Describe(void *ctx)
{
  DescribeJob   *job = (DescribeJob *)ctx;
  SegyFile       f;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(SegyOpen(job->path, &f));
  ierr = FindOrder(&f, job->n, job->origin, job->order);
  PetscCall(SegyClose(&f));
  PetscCall(ierr);
  job->n[0] = f.ns;
  job->d[0] = f.interval / 1000.0;
  job->d[1] = job->o->d[1];
  job->d[2] = job->o->d[2];
  PetscCheck(f.interval > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "SEG-Y model %s has no sample interval (binary header bytes 3217-3218, trace bytes 117-118): expected the depth spacing in millimetres", job->path);
  PetscCheck(!job->o->dz_set || PetscAbsReal(job->o->d[0] - job->d[0]) <= 1e-9 * job->d[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "SEG-Y model %s: sample interval %d mm (depth spacing %.9g m), but -dz %.9g m: expected them to agree (or no -dz)", job->path, f.interval, (double)job->d[0],
             (double)job->o->d[0]);
  PetscFunctionReturn(0);
}

PetscErrorCode SegyModelDescribe(MPI_Comm comm, const char *path, const Options *o, PetscInt n[3], PetscReal d[3], PetscReal origin[3], SegyModelOrder *order)
{
  DescribeJob job = {path, o, n, d, origin, order};
  int         ord;

  PetscFunctionBeginUser;
  PetscCall(RootRun(comm, Describe, &job));
  PetscCallMPI(MPI_Bcast(n, 3, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(d, 3, MPIU_REAL, 0, comm));
  PetscCallMPI(MPI_Bcast(origin, 3, MPIU_REAL, 0, comm));
  ord = (int)*order;
  PetscCallMPI(MPI_Bcast(&ord, 1, MPI_INT, 0, comm));
  *order = (SegyModelOrder)ord;
  PetscFunctionReturn(0);
}

/* The trace of column (ix, iy) */
static int TraceOf(SegyModelOrder order, const PetscInt n[3], PetscInt ix, PetscInt iy)
{
  return (int)(order == SEGY_MODEL_CROSSLINES ? ix * n[2] + iy : iy * n[1] + ix);
}

/* One rank's box of a model file, read or written. */
typedef struct {
  const char     *path, *tmp; /* tmp: the file on disk when writing */
  SegyModelOrder  order;
  const PetscInt *n, *start, *count;
  float          *out;      /* read into */
  const float    *in;       /* written from */
} BoxJob;

static PetscErrorCode ReadBox(void *ctx)
{
  const BoxJob  *b = (const BoxJob *)ctx;
  SegyFile       f;
  PetscErrorCode ierr = 0;

  PetscFunctionBeginUser;
  PetscCall(SegyOpen(b->path, &f));
  for (PetscInt k = 0; k < b->count[2] && !ierr; k++)
    for (PetscInt j = 0; j < b->count[1] && !ierr; j++)
      ierr = SegyReadSamples(&f, TraceOf(b->order, b->n, b->start[1] + j, b->start[2] + k), (int)b->start[0], (int)(b->start[0] + b->count[0]),
                             b->out + (size_t)b->count[0] * (j + b->count[1] * k));
  PetscCall(SegyClose(&f));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SegyModelReadBlock(MPI_Comm comm, const char *path, SegyModelOrder order, const PetscInt n[3], const PetscInt start[3], const PetscInt count[3],
                                  float *buf)
{
  BoxJob b                = {path, NULL, order, n, start, count, buf, NULL};
  char   msg[FWI_MSG_LEN] = "";

  PetscFunctionBeginUser;
  if (count[0] * count[1] * count[2] > 0) PetscCall(LocalRun(ReadBox, &b, msg));
  PetscCall(AnyCheck(comm, msg));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteBox(void *ctx)
{
  const BoxJob  *b = (const BoxJob *)ctx;
  SegyFile       f;
  PetscErrorCode ierr = 0;

  PetscFunctionBeginUser;
  PetscCall(SegyOpenWrite(b->tmp, b->path, (int)b->n[0], (int)(b->n[1] * b->n[2]), &f));
  for (PetscInt k = 0; k < b->count[2] && !ierr; k++)
    for (PetscInt j = 0; j < b->count[1] && !ierr; j++)
      ierr = SegyWriteSamples(&f, TraceOf(b->order, b->n, b->start[1] + j, b->start[2] + k), (int)b->start[0], (int)(b->start[0] + b->count[0]),
                              b->in + (size_t)b->count[0] * (j + b->count[1] * k));
  if (!ierr) ierr = SegyFinish(&f, b->tmp);
  PetscCall(SegyClose(&f));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* What rank 0 does alone in SegyModelWrite. */
typedef struct {
  const char      *path;
  const PetscInt  *n;
  const PetscReal *d, *origin;
  PetscBool        overwrite;
  char             tmp[PETSC_MAX_PATH_LEN];
} HeaderJob;

/* The largest |coordinate| of axis a, at either end. */
static PetscReal Farthest(const PetscInt n[3], const PetscReal d[3], const PetscReal origin[3], int a)
{
  return PetscMax(PetscAbsReal(origin[a]), PetscAbsReal(origin[a] + (n[a] - 1) * d[a]));
}

static PetscErrorCode WriteColumnHeaders(SegyFile *f, const PetscInt n[3], const PetscReal d[3], const PetscReal origin[3])
{
  const int32_t c = SegyScalarFor(PetscMax(Farthest(n, d, origin, 1), Farthest(n, d, origin, 2)));

  PetscFunctionBeginUser;
  for (PetscInt iy = 0; iy < n[2]; iy++)
    for (PetscInt ix = 0; ix < n[1]; ix++) {
      const int t = TraceOf(SEGY_MODEL_INLINES, n, ix, iy);
      char      hdr[SEGY_TRACE_HEADER_SIZE];

      SegyHeaderInit(f, hdr);
      SegySetField(hdr, SEGY_TR_SEQ_FILE, t + 1);
      SegySetField(hdr, SEGY_TR_INLINE, (int32_t)iy + 1);
      SegySetField(hdr, SEGY_TR_CROSSLINE, (int32_t)ix + 1);
      SegySetField(hdr, SEGY_TR_SOURCE_GROUP_SCALAR, c);
      SegySetField(hdr, SEGY_TR_CDP_X, SegyUnscaled(origin[1] + ix * d[1], c));
      SegySetField(hdr, SEGY_TR_CDP_Y, SegyUnscaled(origin[2] + iy * d[2], c));
      PetscCall(SegyWriteHeader(f, t, hdr));
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode StartModel(void *ctx)
{
  HeaderJob     *h  = (HeaderJob *)ctx;
  const double   mm = h->d[0] * 1000;
  SegyFile       f  = {.fp = NULL};
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCheck(PetscAbsReal(mm - round(mm)) <= 1e-9 * mm, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "cannot write %s: depth spacing %.9g m is not a whole number of millimetres, which a SEG-Y model's sample interval holds", h->path, (double)h->d[0]);
  PetscCheck(h->n[1] * h->n[2] <= INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "cannot write %s: %" PetscInt_FMT " x %" PetscInt_FMT " traces", h->path, h->n[1], h->n[2]);
  PetscCall(FileTempNew(h->path, h->overwrite, h->tmp));
  ierr = SegyCreate(h->tmp, h->path, (int)h->n[0], (int)round(mm), (int)(h->n[1] * h->n[2]), &f);
  if (!ierr) ierr = WriteColumnHeaders(&f, h->n, h->d, h->origin);
  if (!ierr) ierr = SegyFinish(&f, h->tmp);
  if (ierr) {
    PetscCall(SegyClose(&f));
    remove(h->tmp);
  }
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* Rank 0, every rank's samples written: the size on disk, then the rename. */
static PetscErrorCode FinishModel(void *ctx)
{
  const HeaderJob *h     = (const HeaderJob *)ctx;
  const long long  total = SEGY_TEXT_HEADER_SIZE + SEGY_BINARY_HEADER_SIZE + h->n[1] * h->n[2] * (SEGY_TRACE_HEADER_SIZE + 4LL * h->n[0]);
  struct stat      st;

  PetscFunctionBeginUser;
  if (stat(h->tmp, &st) || st.st_size != total) {
    remove(h->tmp);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %lld of its %lld bytes reached the disk", h->path, (long long)st.st_size, total);
  }
  PetscCall(FilePublish(h->tmp, h->path, h->overwrite));
  PetscFunctionReturn(0);
}

PetscErrorCode SegyModelWrite(MPI_Comm comm, const char *path, const PetscInt n[3], const PetscReal d[3], const PetscReal origin[3], const PetscInt start[3],
                              const PetscInt count[3], const float *buf, PetscBool overwrite)
{
  HeaderJob   h = {.path = path, .n = n, .d = d, .origin = origin, .overwrite = overwrite};
  BoxJob      b = {path, h.tmp, SEGY_MODEL_INLINES, n, start, count, NULL, buf};
  char        msg[FWI_MSG_LEN] = "";
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(RootRun(comm, StartModel, &h));
  PetscCallMPI(MPI_Bcast(h.tmp, sizeof h.tmp, MPI_CHAR, 0, comm));
  if (count[0] * count[1] * count[2] > 0) PetscCall(LocalRun(WriteBox, &b, msg));
  PetscCall(FirstMessage(comm, msg));
  if (!rank && msg[0]) remove(h.tmp);
  PetscCall(RootCheckAs(comm, msg, PETSC_ERR_FILE_WRITE));
  PetscCall(RootRun(comm, FinishModel, &h));
  PetscFunctionReturn(0);
}
