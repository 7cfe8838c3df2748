/* Writing RSF files under temporary names: see rsf.h. */
#include "rsf_impl.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes the header under its temporary name. */
static PetscErrorCode WriteHeader(const char *tmp, const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[], const PetscReal o[],
                                  const char *const label[])
{
  const char    *slash = strrchr(path, '/');
  Text           t;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(TextOpen(&t));
  for (int i = 0; i < naxes; i++) {
    fprintf(t.fp, "n%d=%d\nd%d=%.17g\no%d=%.17g\n", i + 1, (int)n[i], i + 1, (double)d[i], i + 1, (double)o[i]);
    if (label && label[i]) fprintf(t.fp, "label%d=\"%s\"\n", i + 1, label[i]);
  }
  fprintf(t.fp, "data_format=\"native_float\"\nesize=4\nin=\"%s@\"\n", slash ? slash + 1 : path);
  ierr = TextClose(&t);
  if (!ierr) ierr = FileWriteTemp(tmp, path, t.text, t.len);
  free(t.text);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* Checks the array's shape; count = n1*n2*... */
static PetscErrorCode CheckShape(const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[], size_t *count)
{
  PetscFunctionBeginUser;
  PetscCheck(naxes >= 1 && naxes <= RSF_MAXAXES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: %d axes, expected 1 to %d", path, (int)naxes,
             RSF_MAXAXES);
  *count = 1;
  for (int i = 0; i < naxes; i++) {
    PetscCheck(n[i] >= 1 && d[i] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: n%d=%d d%d=%.6g, expected n >= 1 and d > 0", path, i + 1,
               (int)n[i], i + 1, (double)d[i]);
    *count *= (size_t)n[i];
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

PetscErrorCode RsfWrite(const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[], const PetscReal o[], const char *const label[],
                        const float *data, PetscBool overwrite)
{
  RsfNames       nm;
  size_t         count;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(CheckShape(path, naxes, n, d, &count));
  PetscCall(TempNames(path, overwrite, &nm));
  PetscCall(FileWriteTemp(nm.tmpbin, nm.bin, data, count * sizeof(float)));
  ierr = WriteHeader(nm.tmphdr, path, naxes, n, d, o, label);
  if (ierr) remove(nm.tmpbin);
  PetscCall(ierr);
  PetscCall(Publish(&nm, path, overwrite));
  PetscFunctionReturn(0);
}

/* What rank 0 does alone in RsfWriteBlock. */
typedef struct {
  const char       *path;
  PetscInt          naxes;
  const PetscInt   *n;
  const PetscReal  *d, *o;
  const char *const *label;
  PetscBool         overwrite;
  RsfNames          nm;
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
  PetscCall(WriteHeader(nm->tmphdr, w->path, w->naxes, w->n, w->d, w->o, w->label));
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

PetscErrorCode RsfWriteBlock(MPI_Comm comm, const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[], const PetscReal o[],
                             const char *const label[], const PetscInt start[RSF_MAXAXES], const PetscInt count[RSF_MAXAXES], const float *buf,
                             PetscBool overwrite)
{
  BlockWrite  w = {.path = path, .naxes = naxes, .n = n, .d = d, .o = o, .label = label, .overwrite = overwrite};
  RsfNames   *nm = &w.nm;
  RsfBlock    b;
  size_t      total;
  long long   mine = 1, all;
  PetscMPIInt rank;
  char        msg[FWI_MSG_LEN] = "";

  PetscFunctionBeginUser;
  PetscCall(CheckShape(path, naxes, n, d, &total)); /* the same arguments, so the same outcome, on every rank */
  PetscCall(RsfBlockCheck(comm, path, naxes, n, start, count));
  for (int i = 0; i < naxes; i++) mine *= count[i];
  PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, comm));
  /* Catches blocks that leave part of the array out (unless others overlap). */
  PetscCheck(all == (long long)total, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "RSF %s: the blocks of all ranks hold %lld samples, expected the %lld of the array", path, all, (long long)total);

  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(RootRun(comm, StartBlockWrite, &w));
  PetscCallMPI(MPI_Bcast(nm, sizeof *nm, MPI_BYTE, 0, comm)); /* rank 0's host and process name the temporaries */
  PetscCall(RsfBlockCreate(naxes, n, start, count, &b));
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
