/* Writing RSF files under temporary names: see rsf.h. */
#include "data/rsf_impl.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void RsfAxesAdd(RsfAxes *a, PetscInt n, PetscReal d, PetscReal o, const char *label, const char *unit)
{
  const PetscInt k = a->naxes++;

  a->n[k]     = n;
  a->d[k]     = d;
  a->o[k]     = o;
  a->label[k] = label;
  a->unit[k]  = unit;
}

/* The samples' format in a header, and their size. */
typedef struct {
  const char *name;
  size_t      size;
} Format;

static const Format FLOATS = {"native_float", sizeof(float)}, DOUBLES = {"native_double", sizeof(double)};

/* Writes the header under its temporary name. */
static PetscErrorCode WriteHeader(const char *tmp, const char *path, const RsfAxes *a, Format f)
{
  const char    *slash = strrchr(path, '/');
  Text           t;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(TextOpen(&t));
  for (int i = 0; i < a->naxes; i++) {
    fprintf(t.fp, "n%d=%d\nd%d=%.17g\no%d=%.17g\n", i + 1, (int)a->n[i], i + 1, (double)a->d[i], i + 1, (double)a->o[i]);
    if (a->label[i]) fprintf(t.fp, "label%d=\"%s\"\n", i + 1, a->label[i]);
    if (a->unit[i]) fprintf(t.fp, "unit%d=\"%s\"\n", i + 1, a->unit[i]);
  }
  if (a->value_label) fprintf(t.fp, "label=\"%s\"\n", a->value_label);
  if (a->value_unit) fprintf(t.fp, "unit=\"%s\"\n", a->value_unit);
  fprintf(t.fp, "data_format=\"%s\"\nesize=%d\nin=\"%s@\"\n", f.name, (int)f.size, slash ? slash + 1 : path);
  ierr = TextClose(&t);
  if (!ierr) ierr = FileWriteTemp(tmp, path, t.text, t.len);
  free(t.text);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* Checks the array's shape; count = n1*n2*... */
static PetscErrorCode CheckShape(const char *path, const RsfAxes *a, size_t *count)
{
  PetscFunctionBeginUser;
  PetscCheck(a->naxes >= 1 && a->naxes <= RSF_HEADER_AXES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: %d axes, expected 1 to %d", path, (int)a->naxes,
             RSF_HEADER_AXES);
  *count = 1;
  for (int i = 0; i < a->naxes; i++) {
    PetscCheck(a->n[i] >= 1 && a->d[i] > 0 && (i < RSF_MAXAXES || a->n[i] == 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "RSF %s: n%d=%d d%d=%.6g, expected n >= 1 (1 beyond axis %d) and d > 0", path, i + 1, (int)a->n[i], i + 1, (double)a->d[i], RSF_MAXAXES);
    *count *= (size_t)a->n[i];
  }
  PetscFunctionReturn(0);
}

typedef struct {
  char bin[PETSC_MAX_PATH_LEN], tmpbin[PETSC_MAX_PATH_LEN], tmphdr[PETSC_MAX_PATH_LEN];
} RsfNames;

/* The binary's name and the temporary names header and binary are written
   under; refuses an existing path unless overwrite. */
static PetscErrorCode TempNames(const char *path, PetscBool overwrite, RsfNames *nm)
{
  PetscFunctionBeginUser;
  PetscCall(FileTempNew(path, overwrite, nm->tmphdr));
  PetscCall(PetscSNPrintf(nm->bin, sizeof nm->bin, "%s@", path));
  PetscCall(FileTempName(nm->bin, nm->tmpbin));
  PetscFunctionReturn(0);
}

/* Binary first, header last: a header never points at a missing or partial
   binary.  Neither replaces a file unless overwrite. */
static PetscErrorCode Publish(const RsfNames *nm, const char *path, PetscBool overwrite)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  ierr = FilePublish(nm->tmpbin, nm->bin, overwrite);
  if (ierr) remove(nm->tmphdr);
  PetscCall(ierr);
  PetscCall(FilePublish(nm->tmphdr, path, overwrite));
  PetscFunctionReturn(0);
}

/* RsfWrite of samples of format f. */
static PetscErrorCode WriteSerial(const char *path, const RsfAxes *a, const void *data, Format f, PetscBool overwrite)
{
  RsfNames       nm;
  size_t         count;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(CheckShape(path, a, &count));
  PetscCall(TempNames(path, overwrite, &nm));
  PetscCall(FileWriteTemp(nm.tmpbin, nm.bin, data, count * f.size));
  ierr = WriteHeader(nm.tmphdr, path, a, f);
  if (ierr) remove(nm.tmpbin);
  PetscCall(ierr);
  PetscCall(Publish(&nm, path, overwrite));
  PetscFunctionReturn(0);
}

PetscErrorCode RsfWrite(const char *path, const RsfAxes *a, const float *data, PetscBool overwrite)
{
  PetscFunctionBeginUser;
  PetscCall(WriteSerial(path, a, data, FLOATS, overwrite));
  PetscFunctionReturn(0);
}

PetscErrorCode RsfWriteDouble(const char *path, const RsfAxes *a, const double *data, PetscBool overwrite)
{
  PetscFunctionBeginUser;
  PetscCall(WriteSerial(path, a, data, DOUBLES, overwrite));
  PetscFunctionReturn(0);
}

/* What rank 0 does alone in RsfWriteBlock. */
typedef struct {
  const char    *path;
  const RsfAxes *a;
  PetscBool      overwrite;
  RsfNames       nm;
} BlockWrite;

/* Rank 0: the header under its temporary name; a stale binary temporary of
   the same name goes, so that nothing of it can survive in the new one. */
static PetscErrorCode StartBlockWrite(void *ctx)
{
  BlockWrite *w  = (BlockWrite *)ctx;
  RsfNames   *nm = &w->nm;

  PetscFunctionBeginUser;
  PetscCall(TempNames(w->path, w->overwrite, nm));
  PetscCheck(!remove(nm->tmpbin) || errno == ENOENT, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: cannot remove the stale %s: %s", nm->bin,
             nm->tmpbin, strerror(errno));
  PetscCall(WriteHeader(nm->tmphdr, w->path, w->a, FLOATS));
  PetscFunctionReturn(0);
}

/* Rank 0, every rank's part written and checked. */
static PetscErrorCode FinishBlockWrite(void *ctx)
{
  const BlockWrite *w = (const BlockWrite *)ctx;

  PetscFunctionBeginUser;
  PetscCall(Publish(&w->nm, w->path, w->overwrite));
  PetscFunctionReturn(0);
}

/* Rank 0, after every rank wrote: the binary's size on disk. */
static void CheckSize(const RsfNames *nm, MPI_Offset total, char msg[FWI_MSG_LEN])
{
  struct stat st;

  if (stat(nm->tmpbin, &st)) snprintf(msg, FWI_MSG_LEN, "cannot write %s: %s", nm->bin, strerror(errno));
  else if ((MPI_Offset)st.st_size != total)
    snprintf(msg, FWI_MSG_LEN, "cannot write %s: %lld of its %lld bytes reached the disk", nm->bin, (long long)st.st_size, (long long)total);
}

PetscErrorCode RsfWriteBlock(MPI_Comm comm, const char *path, const RsfAxes *a, const PetscInt start[RSF_MAXAXES], const PetscInt count[RSF_MAXAXES],
                             const float *buf, PetscBool overwrite)
{
  const PetscInt naxes = PetscMin(a->naxes, RSF_MAXAXES); /* the data's: any further axis has n=1 */
  BlockWrite     w     = {.path = path, .a = a, .overwrite = overwrite};
  RsfNames      *nm    = &w.nm;
  RsfBlock       b;
  size_t         total;
  long long      mine = 1, all;
  PetscMPIInt    rank;
  char           msg[FWI_MSG_LEN] = "";

  PetscFunctionBeginUser;
  PetscCall(CheckShape(path, a, &total)); /* the same arguments, so the same outcome, on every rank */
  PetscCall(RsfBlockCheck(comm, path, naxes, a->n, start, count));
  for (int i = 0; i < naxes; i++) mine *= count[i];
  PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, comm));
  /* Catches blocks that leave part of the array out (unless others overlap). */
  PetscCheck(all == (long long)total, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "RSF %s: the blocks of all ranks hold %lld samples, expected the %lld of the array", path, all, (long long)total);

  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(RootRun(comm, StartBlockWrite, &w));
  PetscCallMPI(MPI_Bcast(nm, sizeof *nm, MPI_BYTE, 0, comm)); /* rank 0's host and process name the temporaries */
  PetscCall(RsfBlockCreate(naxes, a->n, start, count, &b));
  PetscCall(RsfBlockWrite(comm, nm->tmpbin, nm->bin, &b, buf, msg));
  PetscCall(RsfBlockDestroy(&b));
  PetscCall(FirstMessage(comm, msg));
  if (!rank && !msg[0]) CheckSize(nm, b.total, msg);
  if (!rank && msg[0]) {
    remove(nm->tmpbin);
    remove(nm->tmphdr);
  }
  PetscCall(RootCheckAs(comm, msg, PETSC_ERR_FILE_WRITE)); /* after the removal: no rank ends the run before it */
  PetscCall(RootRun(comm, FinishBlockWrite, &w));
  PetscFunctionReturn(0);
}
