/* Surveys and shot gathers in SEG-Y: see segy_survey.h. */
#include "data/segy_survey.h"
#include "data/segy.h"
#include "data/input.h"
#include "data/util.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int IsSegyEntry(const struct dirent *e) { return SegyIsPath(e->d_name); }

/* Whether a SEG-Y file's name (its extension after the last '.') ends in
   _part before the extension. */
static PetscBool NamedPart(const char *name, const char *part)
{
  const size_t stem = (size_t)(strrchr(name, '.') - name), n = strlen(part);

  return stem > n && name[stem - n - 1] == '_' && !strncmp(name + stem - n, part, n) ? PETSC_TRUE : PETSC_FALSE;
}

static PetscBool Selected(const char *name, const SegyPart *which)
{
  if (!which) return PETSC_TRUE;
  if (which->part) return NamedPart(name, which->part);
  for (PetscInt k = 0; k < which->nparts; k++)
    if (NamedPart(name, which->parts[k])) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The file beside path named for part: a/b.sgy -> a/b_part.sgy. */
static PetscErrorCode PartPath(const char *path, const char *part, char out[PETSC_MAX_PATH_LEN])
{
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  const int   stem = dot && (!slash || dot > slash) ? (int)(dot - path) : (int)strlen(path);

  PetscFunctionBeginUser;
  PetscCheck(snprintf(out, PETSC_MAX_PATH_LEN, "%.*s_%s%s", stem, path, part, path + stem) < PETSC_MAX_PATH_LEN, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "SEG-Y %s: the name of its %s file is longer than %d characters", path, part, PETSC_MAX_PATH_LEN - 1);
  PetscFunctionReturn(0);
}

/* The file names: path itself (or the file beside it named for which's
   part), or the SEG-Y entries of the folder path that which selects, in
   name order. */
static PetscErrorCode ListNames(const char *path, const SegyPart *which, SegyList *l)
{
  struct stat     st;
  struct dirent **entries;
  int             n;

  PetscFunctionBeginUser;
  if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
    l->nfiles = 1;
    PetscCall(PetscMalloc1(1, &l->name));
    if (which && which->part) PetscCall(PartPath(path, which->part, l->name[0]));
    else PetscCall(PetscStrncpy(l->name[0], path, PETSC_MAX_PATH_LEN));
    PetscFunctionReturn(0);
  }
  n = scandir(path, &entries, IsSegyEntry, alphasort);
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "SEG-Y folder %s cannot be read", path);
  PetscCall(PetscMalloc1(n + 1, &l->name));
  l->nfiles = 0;
  for (int k = 0; k < n; k++) {
    if (Selected(entries[k]->d_name, which)) snprintf(l->name[l->nfiles++], PETSC_MAX_PATH_LEN, "%s/%s", path, entries[k]->d_name);
    free(entries[k]);
  }
  free(entries);
  if (which && which->part)
    PetscCheck(l->nfiles > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "SEG-Y folder %s holds no *_%s.sgy or *_%s.segy files (the recorded component %s)", path, which->part,
               which->part, which->part);
  PetscCheck(l->nfiles > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "SEG-Y folder %s holds no .sgy or .segy files%s", path,
             which && which->nparts ? " besides those of further components (*_NAME.sgy)" : "");
  PetscFunctionReturn(0);
}

PetscErrorCode SegyListOpen(const char *path, const SegyPart *which, SegyList *l)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(l, sizeof *l));
  PetscCall(ListNames(path, which, l));
  PetscCall(PetscMalloc1(l->nfiles + 1, &l->first));
  l->first[0] = 0;
  for (PetscInt f = 0; f < l->nfiles; f++) {
    SegyFile file;

    PetscCall(SegyOpen(l->name[f], &file));
    PetscCall(SegyClose(&file));
    if (!f) {
      l->ns       = file.ns;
      l->interval = file.interval;
    }
    PetscCheck(file.ns == l->ns && file.interval == l->interval, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "SEG-Y %s: %d samples per trace at %d us, but %s has %d at %d us: expected every file of %s to agree", l->name[f], file.ns, file.interval, l->name[0], l->ns,
               l->interval, path);
    PetscCheck(l->first[f] + file.ntraces <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_INT_OVERFLOW, "SEG-Y %s: more than %" PetscInt_FMT " traces in all", path,
               PETSC_MAX_INT);
    l->first[f + 1] = l->first[f] + file.ntraces;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SegyListDestroy(SegyList *l)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(l->name));
  PetscCall(PetscFree(l->first));
  PetscFunctionReturn(0);
}

PetscErrorCode SegyListRead(const SegyList *l, PetscInt first, PetscInt count, float *buf)
{
  PetscInt f = 0;

  PetscFunctionBeginUser;
  for (PetscInt t = first; t < first + count;) {
    SegyFile       file;
    PetscErrorCode ierr = 0;
    while (l->first[f + 1] <= t) f++;
    const PetscInt t0 = t;
    PetscCall(SegyOpen(l->name[f], &file));
    for (; t < first + count && t < l->first[f + 1] && !ierr; t++) ierr = SegyReadSamples(&file, (int)(t - l->first[f]), 0, l->ns, buf + (size_t)(t - first) * l->ns);
    PetscCall(SegyClose(&file));
    PetscCall(ierr);
    PetscCall(InputCheckFinite("SEG-Y", l->name[f], l->ns, t0 - l->first[f], t - t0, 1, l->interval * 1e-6, buf + (size_t)(t0 - first) * l->ns));
  }
  PetscFunctionReturn(0);
}

typedef struct {
  const char     *path;
  const SegyPart *which;
  PetscBool       nt_set, dt_set;
  PetscInt       *nt;
  PetscReal      *dt;
} TimeJob;

static PetscErrorCode SurveyTime(void *ctx)
{
  TimeJob *job = (TimeJob *)ctx;
  SegyList l;
  char     name[PETSC_MAX_PATH_LEN]; /* the first file: every other agrees with it */

  PetscFunctionBeginUser;
  PetscCall(SegyListOpen(job->path, job->which, &l));
  PetscCall(PetscStrncpy(name, l.name[0], sizeof name));
  PetscCall(SegyListDestroy(&l));
  PetscCheck(!job->nt_set || *job->nt == l.ns, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "SEG-Y %s holds %d samples per trace, but -nt %" PetscInt_FMT ": expected them to agree (or no -nt)", name, l.ns, *job->nt);
  *job->nt = l.ns;
  PetscCheck(l.interval > 0 || job->dt_set, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "SEG-Y %s has no sample interval (binary header bytes 3217-3218 and the first trace's 117-118 are 0, or disagree): give -dt", name);
  PetscCheck(!job->dt_set || !l.interval || PetscAbsReal(*job->dt * 1e6 - l.interval) <= 1e-6 * l.interval, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "SEG-Y %s is sampled at %d us, but -dt %.9g s: expected them to agree (or no -dt)", name, l.interval, (double)*job->dt);
  /* a division, so that 1000 us is the double strtod gives for 0.001 */
  if (!job->dt_set) *job->dt = l.interval / 1e6;
  PetscFunctionReturn(0);
}

PetscErrorCode SegySurveyTime(MPI_Comm comm, const char *path, const SegyPart *which, PetscBool nt_set, PetscBool dt_set, PetscInt *nt, PetscReal *dt)
{
  TimeJob job = {path, which, nt_set, dt_set, nt, dt};

  PetscFunctionBeginUser;
  PetscCall(RootRun(comm, SurveyTime, &job));
  PetscCallMPI(MPI_Bcast(nt, 1, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(dt, 1, MPIU_REAL, 0, comm));
  PetscFunctionReturn(0);
}

/* The source and receiver of one trace header as read (depth below
   elevation 0; 0.0 - v: a zero elevation gives depth +0, as a text
   survey's 0 does). */
static void TracePoints(const char *hdr, Position *src, Position *rec)
{
  const int32_t c = SegyField(hdr, SEGY_TR_SOURCE_GROUP_SCALAR), e = SegyField(hdr, SEGY_TR_ELEV_SCALAR);

  src->c[0] = SegyScaled(SegyField(hdr, SEGY_TR_SOURCE_DEPTH), e);
  src->c[1] = SegyScaled(SegyField(hdr, SEGY_TR_SOURCE_X), c);
  src->c[2] = SegyScaled(SegyField(hdr, SEGY_TR_SOURCE_Y), c);
  rec->c[0] = 0.0 - SegyScaled(SegyField(hdr, SEGY_TR_RECV_GROUP_ELEV), e);
  rec->c[1] = SegyScaled(SegyField(hdr, SEGY_TR_GROUP_X), c);
  rec->c[2] = SegyScaled(SegyField(hdr, SEGY_TR_GROUP_Y), c);
}

/* A pass over every trace header: counts the shots, and fills g unless it
   is NULL (a first pass sizes it). */
typedef struct {
  PetscInt         dim;
  Geometry        *g;
  PetscInt         nshots, t; /* shots so far, traces so far */
  int32_t          ffid;
  PetscReal        y;         /* 2D: the line's y */
} Scan;

static PetscErrorCode ScanTrace(Scan *sc, const SegyFile *file, int k)
{
  char      hdr[SEGY_TRACE_HEADER_SIZE];
  Position  src, rec;
  int32_t   ffid;
  Geometry *g = sc->g;

  PetscFunctionBeginUser;
  PetscCall(SegyTraceHeader(file, k, hdr));
  ffid = SegyField(hdr, SEGY_TR_FIELD_RECORD);
  TracePoints(hdr, &src, &rec);
  if (!sc->t) sc->y = src.c[2];
  PetscCheck(sc->dim == 3 || (src.c[2] == sc->y && rec.c[2] == sc->y), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "SEG-Y %s trace %d: SourceY %.10g m, GroupY %.10g m, but the survey's first trace has %.10g m: a 2D model takes a straight line along x (one y)", file->path,
             k + 1, (double)src.c[2], (double)rec.c[2], (double)sc->y);
  if (!sc->t || ffid != sc->ffid) {
    for (PetscInt j = 0; g && j < sc->nshots; j++)
      PetscCheck(g->record[j] != ffid, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "SEG-Y %s trace %d: FFID %d again, after other records (it began at trace %" PetscInt_FMT " of the survey): expected each field record's traces together",
                 file->path, k + 1, (int)ffid, g->src_line[j]);
    if (g) {
      g->src[sc->nshots]       = src;
      g->src_line[sc->nshots]  = sc->t + 1;
      g->rec_start[sc->nshots] = sc->t;
      g->record[sc->nshots]    = ffid;
    }
    sc->nshots++;
    sc->ffid = ffid;
  } else if (g) {
    const Position *s0 = &g->src[sc->nshots - 1];
    PetscCheck(s0->c[0] == src.c[0] && s0->c[1] == src.c[1] && s0->c[2] == src.c[2], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "SEG-Y %s trace %d (FFID %d): source at x=%.10g y=%.10g depth=%.10g m, but the record's first trace (trace %" PetscInt_FMT
               " of the survey) has x=%.10g y=%.10g depth=%.10g m: expected one source per field record",
               file->path, k + 1, (int)ffid, (double)src.c[1], (double)src.c[2], (double)src.c[0], g->src_line[sc->nshots - 1], (double)s0->c[1], (double)s0->c[2],
               (double)s0->c[0]);
  }
  if (g) {
    g->rec[sc->t]      = rec;
    g->rec_line[sc->t] = sc->t + 1;
  }
  sc->t++;
  PetscFunctionReturn(0);
}

static PetscErrorCode ScanList(const SegyList *l, Scan *sc)
{
  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < l->nfiles; f++) {
    SegyFile       file;
    PetscErrorCode ierr = 0;
    PetscCall(SegyOpen(l->name[f], &file));
    for (int k = 0; k < file.ntraces && !ierr; k++) ierr = ScanTrace(sc, &file, k);
    PetscCall(SegyClose(&file));
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}

typedef struct {
  const char     *path;
  const SegyPart *which;
  PetscInt        dim;
} SurveyJob;

static PetscErrorCode ParseSurvey(void *ctx, Geometry *g)
{
  const SurveyJob *job = (const SurveyJob *)ctx;
  SegyList         l;
  Scan             count = {job->dim, NULL, 0, 0, 0, 0}, fill = count;
  PetscErrorCode   ierr;

  PetscFunctionBeginUser;
  PetscCall(SegyListOpen(job->path, job->which, &l));
  ierr = ScanList(&l, &count);
  if (!ierr) ierr = GeometryAlloc(count.nshots, l.first[l.nfiles], job->path, g);
  fill.g = g;
  if (!ierr) ierr = ScanList(&l, &fill);
  PetscCall(SegyListDestroy(&l));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SegySurveyRead(MPI_Comm comm, const char *path, const SegyPart *which, PetscInt dim, const PetscReal segy_origin[3], const PetscReal model[3], Geometry *g)
{
  SurveyJob job = {path, which, dim};
  PetscReal place[3];

  PetscFunctionBeginUser;
  PetscCall(GeometryShare(comm, path, ParseSurvey, &job, g));
  g->by_trace = PETSC_TRUE;
  for (PetscInt a = 0; a < 3; a++) place[a] = segy_origin[a] + model[a];
  if (dim == 2) place[2] = g->src[0].c[2]; /* the line's y, kept for writing back */
  GeometrySetOrigin(g, place);
  for (PetscInt a = 0; a < 3; a++) g->origin[a] -= segy_origin[a]; /* the survey's coordinates, as for every survey */
  PetscFunctionReturn(0);
}

/* The largest |x|, |y| and |depth| of p as written (origin added back). */
static void Extent(const Position *p, const PetscReal origin[3], PetscReal *xy, PetscReal *z)
{
  *xy = PetscMax(*xy, PetscMax(PetscAbsReal(p->c[1] + origin[1]), PetscAbsReal(p->c[2] + origin[2])));
  *z  = PetscMax(*z, PetscAbsReal(p->c[0] + origin[0]));
}

/* The scalars that hold the shot's x and y (coordinate) and depths (elevation). */
static void GatherScalars(const Geometry *g, PetscInt s, const PetscReal origin[3], int32_t *c, int32_t *e)
{
  PetscReal xy = 0, z = 0;

  Extent(&g->src[s], origin, &xy, &z);
  for (PetscInt r = g->rec_start[s]; r < g->rec_start[s + 1]; r++) Extent(&g->rec[r], origin, &xy, &z);
  *c = SegyScalarFor(xy);
  *e = SegyScalarFor(z);
}

/* origin: what to add to the positions to give the headers' coordinates. */
static PetscErrorCode WriteTraces(SegyFile *file, const Geometry *g, PetscInt s, const PetscReal origin[3], const float *data)
{
  const Position *src = &g->src[s];
  const PetscReal sy  = src->c[2]; /* 0 in 2D, the line's y in origin[2] */
  int32_t         c, e;

  PetscFunctionBeginUser;
  GatherScalars(g, s, origin, &c, &e);
  for (PetscInt r = g->rec_start[s]; r < g->rec_start[s + 1]; r++) {
    const Position *rec = &g->rec[r];
    const int       k   = (int)(r - g->rec_start[s]);
    const PetscReal ry = rec->c[2], dx = rec->c[1] - src->c[1], dy = ry - sy;
    char            hdr[SEGY_TRACE_HEADER_SIZE];

    SegyHeaderInit(file, hdr);
    SegySetField(hdr, SEGY_TR_SEQ_LINE, k + 1);
    SegySetField(hdr, SEGY_TR_SEQ_FILE, k + 1);
    SegySetField(hdr, SEGY_TR_FIELD_RECORD, (int32_t)g->record[s]);
    SegySetField(hdr, SEGY_TR_NUMBER_ORIG_FIELD, k + 1);
    /* offset: whole metres (no scalar applies), negative with the receiver at smaller x */
    SegySetField(hdr, SEGY_TR_OFFSET, (int32_t)llround((dx < 0 ? -1 : 1) * PetscSqrtReal(dx * dx + dy * dy)));
    SegySetField(hdr, SEGY_TR_ELEV_SCALAR, e);
    SegySetField(hdr, SEGY_TR_SOURCE_GROUP_SCALAR, c);
    SegySetField(hdr, SEGY_TR_SOURCE_DEPTH, SegyUnscaled(src->c[0] + origin[0], e));
    SegySetField(hdr, SEGY_TR_RECV_GROUP_ELEV, SegyUnscaled(-(rec->c[0] + origin[0]), e));
    SegySetField(hdr, SEGY_TR_SOURCE_X, SegyUnscaled(src->c[1] + origin[1], c));
    SegySetField(hdr, SEGY_TR_SOURCE_Y, SegyUnscaled(sy + origin[2], c));
    SegySetField(hdr, SEGY_TR_GROUP_X, SegyUnscaled(rec->c[1] + origin[1], c));
    SegySetField(hdr, SEGY_TR_GROUP_Y, SegyUnscaled(ry + origin[2], c));
    SegySetField(hdr, SEGY_TR_COORD_UNITS, 1); /* length (metres) */
    PetscCall(SegyWriteHeader(file, k, hdr));
    PetscCall(SegyWriteSamples(file, k, 0, file->ns, data + (size_t)k * file->ns));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SegyWriteGather(const char *path, const Geometry *g, PetscInt s, const PetscReal segy_origin[3], PetscInt nt, PetscReal dt, const float *data,
                               PetscBool overwrite)
{
  const double    us        = dt * 1e6;
  const PetscReal origin[3] = {g->origin[0] + segy_origin[0], g->origin[1] + segy_origin[1], g->origin[2] + segy_origin[2]};
  char           tmp[PETSC_MAX_PATH_LEN];
  SegyFile       file = {.fp = NULL};
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCheck(PetscAbsReal(us - round(us)) <= 1e-6 * us, PETSC_COMM_SELF, PETSC_ERR_SUP, "cannot write %s: -dt %.9g s is not a whole number of microseconds, as SEG-Y needs",
             path, (double)dt);
  PetscCheck(nt <= INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "cannot write %s: %" PetscInt_FMT " samples per trace", path, nt);
  PetscCall(FileTempNew(path, overwrite, tmp));
  ierr = SegyCreate(tmp, path, (int)nt, (int)round(us), (int)(g->rec_start[s + 1] - g->rec_start[s]), &file);
  if (!ierr) ierr = WriteTraces(&file, g, s, origin, data);
  if (!ierr) ierr = SegyFinish(&file, tmp);
  if (ierr) {
    PetscCall(SegyClose(&file));
    remove(tmp);
  }
  PetscCall(ierr);
  PetscCall(FilePublish(tmp, path, overwrite));
  PetscFunctionReturn(0);
}
