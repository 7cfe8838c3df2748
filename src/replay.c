#include "replay.h"
#include "output.h"
#include "rsf.h"
#include "util.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LOG_NAME    "restart/evaluations.txt"
#define RECORD_NAME "restart/run.txt"

static void EntryName(PetscInt band, PetscInt eval, const char *what, char name[PETSC_MAX_PATH_LEN])
{
  snprintf(name, PETSC_MAX_PATH_LEN, "restart/band%02d_eval%04d_%s.rsf", (int)band + 1, (int)eval, what);
}

/* Room for one more element in *array (n used of *max, elem bytes each). */
static PetscErrorCode Reserve(size_t elem, PetscInt n, PetscInt *max, void *array)
{
  PetscFunctionBeginUser;
  if (n < *max) PetscFunctionReturn(0);
  *max = 2 * *max + 16;
  PetscCall(PetscRealloc(elem * (size_t)*max, (void **)array));
  PetscFunctionReturn(0);
}

/* Text files are formatted in memory (open_memstream) and written whole
   through FileWrite: a temporary, synced, checked and renamed. */
typedef struct {
  FILE  *fp;
  char  *text;
  size_t len;
} Text;

static PetscErrorCode TextOpen(Text *t)
{
  PetscFunctionBeginUser;
  t->text = NULL;
  t->len  = 0;
  t->fp   = open_memstream(&t->text, &t->len);
  PetscCheck(t->fp, PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory for a text file: %s", strerror(errno));
  PetscFunctionReturn(0);
}

static PetscErrorCode TextClose(Text *t)
{
  PetscFunctionBeginUser;
  PetscCheck(!fclose(t->fp), PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory for a text file: %s", strerror(errno));
  PetscFunctionReturn(0);
}

/* Closes t and writes it to dir/name. */
static PetscErrorCode TextWrite(Text *t, const char *dir, const char *name)
{
  char           path[PETSC_MAX_PATH_LEN];
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(TextClose(t));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, name));
  ierr = FileWrite(path, t->text, t->len);
  free(t->text);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* ---- restart/run.txt: "key = value" lines, keys named after the options ---- */

static void Put(FILE *fp, const char *key, const char *fmt, ...)
{
  va_list ap;

  fprintf(fp, "%s = ", key);
  va_start(ap, fmt);
  vfprintf(fp, fmt, ap);
  va_end(ap);
  fputc('\n', fp);
}

/* Paths as absolute ones, so that a restart from another folder compares equal. */
static void PutPath(FILE *fp, const char *key, const char *path)
{
  char *full = realpath(path, NULL);

  Put(fp, key, "%s", full ? full : path);
  free(full);
}

static PetscErrorCode PutChecksum(FILE *fp, const char *key, const char *path)
{
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCall(FileChecksum(path, &sum));
  Put(fp, key, "fnv1a64 %016llx", (unsigned long long)sum);
  PetscFunctionReturn(0);
}

/* The samples of an RSF file (its binary). */
static PetscErrorCode PutRsfChecksum(FILE *fp, const char *key, const char *path)
{
  RsfHeader h;

  PetscFunctionBeginUser;
  PetscCall(RsfReadHeader(PETSC_COMM_SELF, path, &h));
  PetscCall(PutChecksum(fp, key, h.data_path));
  PetscFunctionReturn(0);
}

static PetscErrorCode PutModelAndSurvey(FILE *fp, const Objective *obj)
{
  const Options   *o = obj->o;
  const ModelInfo *m = &obj->m;

  PetscFunctionBeginUser;
  if (m->homogeneous) Put(fp, "-vp", "%.17g", (double)m->value);
  else {
    PutPath(fp, "-vp", m->name);
    PetscCall(PutChecksum(fp, "-vp samples", m->rsf.data_path));
  }
  Put(fp, "grid n (z x y)", "%d %d %d", (int)m->n[0], (int)m->n[1], (int)m->n[2]);
  Put(fp, "grid d (z x y)", "%.17g %.17g %.17g", (double)m->d[0], (double)m->d[1], (double)m->d[2]);
  Put(fp, "-pml_top -pml_bottom -pml_left -pml_right -pml_front -pml_back", "%d %d %d %d %d %d", (int)o->pml[0][0], (int)o->pml[0][1], (int)o->pml[1][0],
      (int)o->pml[1][1], (int)o->pml[2][0], (int)o->pml[2][1]);
  if (o->geometry[0]) {
    PutPath(fp, "-geometry", o->geometry);
    PetscCall(PutChecksum(fp, "-geometry content", o->geometry));
  } else {
    Put(fp, "-nshots", "%d", (int)o->nshots);
    Put(fp, "-nrec", "%d", (int)o->nrec);
    Put(fp, "-source_depth", "%.17g", (double)o->source_depth);
    Put(fp, "-receiver_depth", "%.17g", (double)o->receiver_depth);
  }
  PutPath(fp, "-observed_dir", o->observed_dir);
  for (PetscInt s = 0; s < obj->geo.nshots; s++) {
    char path[PETSC_MAX_PATH_LEN], key[64];
    PetscCall(OutputShotPath(o->observed_dir, s, path));
    PetscCall(PetscSNPrintf(key, sizeof(key), "-observed_dir shot_%04d.rsf samples", (int)s));
    PetscCall(PutRsfChecksum(fp, key, path));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PutInversion(FILE *fp, const Objective *obj)
{
  const Options *o = obj->o;
  char           type[256] = "blmvm"; /* invert.c's default */
  PetscBool      set;

  PetscFunctionBeginUser;
  fprintf(fp, "-bands = ");
  for (PetscInt b = 0; b < o->nbands; b++) fprintf(fp, "%s%.17g", b ? "," : "", (double)o->bands[b]);
  fprintf(fp, "%s\n", o->nbands ? "" : "none");
  Put(fp, "-vp_min", "%.17g", (double)obj->vp_lo);
  Put(fp, "-vp_max", "%.17g", (double)obj->vp_hi);
  Put(fp, "-fix_above", "%.17g", (double)o->fix_above);
  Put(fp, "-source_taper", "%.17g", (double)o->source_taper);
  Put(fp, "-f0", "%.17g", (double)o->f0);
  Put(fp, "-t0", "%.17g", (double)o->t0);
  if (o->wavelet[0]) {
    PutPath(fp, "-wavelet", o->wavelet);
    PetscCall(PutRsfChecksum(fp, "-wavelet samples", o->wavelet));
  } else Put(fp, "-wavelet", "none (Ricker)");
  Put(fp, "-order", "%d", (int)o->order);
  Put(fp, "-dt", "%.17g", (double)o->dt);
  Put(fp, "-nt", "%d", (int)o->nt);
  Put(fp, "-cfl", "%.17g", (double)o->cfl);
  PetscCall(PetscOptionsGetString(NULL, NULL, "-tao_type", type, sizeof(type), &set));
  Put(fp, "-tao_type", "%s", type);
  PetscFunctionReturn(0);
}

/* The record of this run's options in t, left open (its text flushed). */
static PetscErrorCode RunRecord(const Objective *obj, Text *t)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(TextOpen(t));
  fprintf(t->fp, "# halofwi -mode invert: the options that define the evaluations saved here; -restart refuses others\n");
  ierr = PutModelAndSurvey(t->fp, obj);
  if (!ierr) ierr = PutInversion(t->fp, obj);
  if (ierr) {
    fclose(t->fp);
    free(t->text);
  }
  PetscCall(ierr);
  PetscCheck(!fflush(t->fp), PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory for a text file: %s", strerror(errno));
  PetscFunctionReturn(0);
}

/* The value of key in a record, up to the line's end (*len), or NULL. */
static const char *Lookup(const char *text, const char *key, int *len)
{
  const size_t klen = strlen(key);

  for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
    if (!strncmp(line, key, klen) && !strncmp(line + klen, " = ", 3)) {
      const char *v = line + klen + 3;
      *len          = (int)strcspn(v, "\n");
      return v;
    }
  return NULL;
}

/* "KEY was A, now B" for every key whose value differs between the saved
   record and this run's, "(none)" where one has no such key. */
static void Differences(const char *saved, const char *now, char diff[FWI_MSG_LEN])
{
  const char *const records[2] = {saved, now};

  for (int pass = 0; pass < 2; pass++)
    for (const char *line = records[pass]; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
      const char  *eq = strstr(line, " = "), *was, *is;
      const int    klen = eq ? (int)(eq - line) : 0;
      const size_t used = strlen(diff);
      char         key[256];
      int          wlen = 6, ilen = 6;

      if (*line == '#' || !eq || klen >= (int)sizeof(key) || memchr(line, '\n', (size_t)klen)) continue;
      snprintf(key, sizeof(key), "%.*s", klen, line);
      was = Lookup(saved, key, &wlen);
      is  = Lookup(now, key, &ilen);
      if ((pass && was) || (was && is && wlen == ilen && !strncmp(was, is, (size_t)wlen))) continue; /* compared in the first pass, or equal */
      snprintf(diff + used, FWI_MSG_LEN - used, "%s%s was %.*s, now %.*s", used ? "; " : "", key, wlen, was ? was : "(none)", ilen, is ? is : "(none)");
    }
}

static PetscErrorCode ReadText(const char *path, char **text)
{
  FILE   *fp  = fopen(path, "rb");
  size_t  cap = 0;
  ssize_t got;
  int     err;

  PetscFunctionBeginUser;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-restart: cannot read %s: %s (it records the interrupted run's options; start again with -overwrite)", path,
             strerror(errno));
  *text = NULL;
  got   = getdelim(text, &cap, 0, fp); /* the whole file: it holds no NUL */
  err   = ferror(fp) ? errno : 0;
  fclose(fp);
  if (got < 0) {
    free(*text);
    *text = strdup("");
  }
  PetscCheck(!err && *text, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "-restart: cannot read %s: %s", path, strerror(err ? err : ENOMEM));
  PetscFunctionReturn(0);
}

/* -restart: the saved record must equal this run's. */
static PetscErrorCode CheckRecord(Replay *r)
{
  char           path[PETSC_MAX_PATH_LEN], diff[FWI_MSG_LEN] = "", *saved;
  Text           now;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", r->dir, RECORD_NAME));
  PetscCall(ReadText(path, &saved));
  PetscCall(RunRecord(r->obj, &now));
  Differences(saved, now.text, diff);
  free(saved);
  PetscCall(TextClose(&now));
  free(now.text);
  PetscCheck(!diff[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "-restart: the options differ from those of the interrupted run recorded in %s: %s. Rerun with that run's options, or start again with -overwrite", path,
             diff);
  PetscFunctionReturn(0);
}

static PetscErrorCode AddEntry(Replay *r, ReplayEntry e)
{
  PetscFunctionBeginUser;
  PetscCall(Reserve(sizeof(ReplayEntry), r->nentries, &r->maxentries, &r->entries));
  r->entries[r->nentries++] = e;
  PetscFunctionReturn(0);
}

/* Rank 0, -restart: the saved evaluations, one "band eval misfit seconds" line each. */
static PetscErrorCode ReadEntries(Replay *r)
{
  char           path[PETSC_MAX_PATH_LEN], *line = NULL;
  size_t         cap = 0;
  FILE          *fp;
  int            lineno = 0;
  PetscBool      bad    = PETSC_FALSE;
  PetscErrorCode ierr   = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", r->dir, LOG_NAME));
  fp = fopen(path, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-restart: %s not found: nothing to carry on in -output_dir %s", path, r->dir);
  while (!ierr && !bad && getline(&line, &cap, fp) != -1) {
    ReplayEntry e;
    int         band, eval;
    lineno++;
    bad = sscanf(line, "%d %d %lf %lf", &band, &eval, &e.J, &e.seconds) != 4 ? PETSC_TRUE : PETSC_FALSE;
    e.band = band;
    e.eval = eval;
    if (!bad) ierr = AddEntry(r, e);
  }
  free(line);
  fclose(fp);
  PetscCall(ierr);
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-restart: %s line %d: expected 'band evaluation misfit seconds'", path, lineno);
  PetscFunctionReturn(0);
}

/* Rank 0: every saved evaluation, rewritten whole. */
static PetscErrorCode WriteEntries(Replay *r)
{
  Text t;

  PetscFunctionBeginUser;
  PetscCall(TextOpen(&t));
  for (PetscInt k = 0; k < r->nentries; k++)
    fprintf(t.fp, "%d %d %.17g %.17g\n", (int)r->entries[k].band, (int)r->entries[k].eval, r->entries[k].J, r->entries[k].seconds);
  PetscCall(TextWrite(&t, r->dir, LOG_NAME));
  PetscFunctionReturn(0);
}

/* Rank 0, a fresh run: the restart folder, the record of the options and an empty list of evaluations. */
static PetscErrorCode StartState(Replay *r)
{
  char folder[PETSC_MAX_PATH_LEN];
  Text t;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(folder, sizeof(folder), "%s/restart", r->dir));
  PetscCheck(!mkdir(folder, 0777) || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create %s for the restart state: %s", folder, strerror(errno));
  PetscCall(RunRecord(r->obj, &t));
  PetscCall(TextWrite(&t, r->dir, RECORD_NAME));
  PetscCall(WriteEntries(r));
  PetscFunctionReturn(0);
}

/* Runs a rank-0 writer; its error, if any, is raised on every rank. */
static PetscErrorCode RootWrite(Replay *r, PetscErrorCode (*write)(Replay *))
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(r->world, &rank));
  if (!rank) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = write(r);
    PetscCall(PetscPopErrorHandler());
  }
  PetscCall(RootShareError(r->world, ierr));
  PetscFunctionReturn(0);
}

/* Rank 0: the fresh record, or -restart's check and saved evaluations. */
static PetscErrorCode BeginState(Replay *r, PetscBool restart)
{
  PetscFunctionBeginUser;
  if (!restart) PetscCall(StartState(r));
  else {
    PetscCall(ReadEntries(r));
    PetscCall(CheckRecord(r));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ReplayCreate(MPI_Comm world, Objective *obj, const char *dir, PetscBool restart, Replay *r)
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = 0;
  PetscInt       n;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->world = world;
  r->obj   = obj;
  PetscCall(PetscStrncpy(r->dir, dir, sizeof(r->dir)));
  PetscCallMPI(MPI_Comm_rank(world, &rank));
  if (!rank) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = BeginState(r, restart);
    PetscCall(PetscPopErrorHandler());
  }
  PetscCall(RootShareError(world, ierr));
  n = r->nentries;
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT, 0, world));
  r->maxentries = PetscMax(r->maxentries, n);
  if (rank) PetscCall(PetscMalloc1(n + 1, &r->entries));
  r->nentries = n;
  if (n) PetscCallMPI(MPI_Bcast(r->entries, (PetscMPIInt)(n * sizeof(ReplayEntry)), MPI_BYTE, 0, world));
  if (restart) PetscCall(PetscPrintf(world, "restart: %" PetscInt_FMT " saved evaluations in %s/restart are replayed before new work\n", n, dir));
  PetscFunctionReturn(0);
}

PetscErrorCode ReplayDestroy(Replay *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(r->entries));
  PetscCall(PetscFree(r->rows));
  PetscFunctionReturn(0);
}

/* This rank's user cells of a saved model-sized file. */
static PetscErrorCode ReadUser(Replay *r, const char *name, float *buf)
{
  char      path[PETSC_MAX_PATH_LEN];
  RsfHeader h;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", r->dir, name));
  PetscCall(RsfReadHeader(r->world, path, &h));
  PetscCall(RsfReadBlock(r->world, &h, r->obj->ms.lo, r->obj->ms.n, buf));
  PetscFunctionReturn(0);
}

PetscErrorCode ReplayLookup(Replay *r, PetscInt band, PetscInt eval, const float *vp, PetscBool *cached, double *J, double *grad, double *seconds)
{
  const PetscInt n = r->obj->ms.nlocal;
  char           name[PETSC_MAX_PATH_LEN];
  float         *buf;
  PetscInt       k, same, all;
  PetscBool      equal;

  PetscFunctionBeginUser;
  for (k = 0; k < r->nentries; k++)
    if (r->entries[k].band == band && r->entries[k].eval == eval) break;
  *cached = k < r->nentries ? PETSC_TRUE : PETSC_FALSE;
  if (!*cached) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n + 1, &buf));
  EntryName(band, eval, "model", name);
  PetscCall(ReadUser(r, name, buf));
  PetscCall(PetscMemcmp(buf, vp, sizeof(float) * n, &equal));
  same = equal ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&same, &all, 1, MPIU_INT, MPI_MIN, r->world));
  PetscCheck(all, r->world, PETSC_ERR_USER_INPUT,
             "-restart: evaluation %" PetscInt_FMT " of band %" PetscInt_FMT " asks for a model other than the saved one (%s/%s): the options differ from the interrupted run's",
             eval, band + 1, r->dir, name);
  EntryName(band, eval, "gradient", name);
  PetscCall(ReadUser(r, name, buf));
  for (PetscInt c = 0; c < n; c++) grad[c] = buf[c];
  *J       = r->entries[k].J;
  *seconds = r->entries[k].seconds;
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

PetscErrorCode ReplaySave(Replay *r, PetscInt band, PetscInt eval, const float *vp, double J, const double *grad, double seconds)
{
  const PetscInt    n = r->obj->ms.nlocal;
  const ReplayEntry e = {band, eval, J, seconds};
  char              name[PETSC_MAX_PATH_LEN];
  float            *buf;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + 1, &buf));
  for (PetscInt c = 0; c < n; c++) buf[c] = (float)grad[c];
  EntryName(band, eval, "model", name);
  PetscCall(ObjectiveWriteModel(r->obj, name, vp, PETSC_TRUE));
  EntryName(band, eval, "gradient", name);
  PetscCall(ObjectiveWriteModel(r->obj, name, buf, PETSC_TRUE));
  PetscCall(PetscFree(buf));
  /* the list last: an evaluation counts once both files are complete */
  PetscCall(AddEntry(r, e));
  PetscCall(RootWrite(r, WriteEntries));
  PetscFunctionReturn(0);
}

/* Rank 0: misfit.csv, rewritten whole. */
static PetscErrorCode WriteMisfit(Replay *r)
{
  Text t;

  PetscFunctionBeginUser;
  PetscCall(TextOpen(&t));
  fprintf(t.fp, "band,iteration,misfit,gradient_norm,step,seconds\n");
  for (PetscInt k = 0; k < r->nrows; k++)
    fprintf(t.fp, "%d,%d,%.9e,%.9e,%.9e,%.3f\n", (int)r->rows[k].band, (int)r->rows[k].iteration, r->rows[k].values[0], r->rows[k].values[1], r->rows[k].values[2],
            r->rows[k].values[3]);
  PetscCall(TextWrite(&t, r->dir, "misfit.csv"));
  PetscFunctionReturn(0);
}

PetscErrorCode ReplayLogIteration(Replay *r, PetscInt band, PetscInt iteration, double J, double gnorm, double step, double seconds)
{
  MisfitRow row = {{J, gnorm, step, seconds}, band, iteration};

  PetscFunctionBeginUser;
  PetscCall(Reserve(sizeof(MisfitRow), r->nrows, &r->maxrows, &r->rows));
  r->rows[r->nrows++] = row;
  PetscCall(RootWrite(r, WriteMisfit));
  PetscFunctionReturn(0);
}
