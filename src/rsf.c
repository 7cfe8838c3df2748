/* RSF headers and binaries: see rsf.h. */
#define _POSIX_C_SOURCE 200809L /* getline, getpid */
#include "rsf.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  RsfHeader h;
  char      format[64];
  PetscInt  esize;
  PetscBool have_in;
} RsfParse;

static PetscErrorCode ParseInt(const char *path, const char *key, const char *val, PetscInt min, PetscInt *out)
{
  char *end;
  long  v;

  PetscFunctionBeginUser;
  errno = 0;
  v     = strtol(val, &end, 10);
  PetscCheck(end != val && !*end && !errno && v >= min && v <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "RSF header %s: %s=%s, expected an integer >= %d", path, key, val, (int)min);
  *out = (PetscInt)v;
  PetscFunctionReturn(0);
}

static PetscErrorCode ParseReal(const char *path, const char *key, const char *val, PetscBool positive, PetscReal *out)
{
  char  *end;
  double v;

  PetscFunctionBeginUser;
  v = strtod(val, &end);
  PetscCheck(end != val && !*end && isfinite(v) && (!positive || v > 0), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "RSF header %s: %s=%s, expected a %s number", path, key, val, positive ? "positive" : "finite");
  *out = v;
  PetscFunctionReturn(0);
}

/* in= is relative to the header's folder unless absolute. */
static PetscErrorCode ResolveData(const char *path, const char *in, char out[PETSC_MAX_PATH_LEN])
{
  const char *slash  = strrchr(path, '/');
  int         dirlen = (in[0] == '/' || !slash) ? 0 : (int)(slash - path + 1), len;

  PetscFunctionBeginUser;
  len = snprintf(out, PETSC_MAX_PATH_LEN, "%.*s%s", dirlen, path, in);
  PetscCheck(len < PETSC_MAX_PATH_LEN, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "RSF header %s: in=%s gives a path longer than %d characters", path,
             in, PETSC_MAX_PATH_LEN - 1);
  PetscFunctionReturn(0);
}

/* Later keys override earlier ones, as in Madagascar; unknown keys are ignored. */
static PetscErrorCode SetKey(const char *path, const char *key, const char *val, RsfParse *p)
{
  PetscFunctionBeginUser;
  if (key[0] && strchr("ndo", key[0]) && key[1] >= '1' && key[1] <= '9' && !key[2]) {
    int axis = key[1] - '1';

    if (axis >= RSF_MAXAXES) { /* higher axes are allowed only when trivial */
      PetscInt n = 1;
      if (key[0] == 'n') PetscCall(ParseInt(path, key, val, 1, &n));
      PetscCheck(n == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "RSF header %s: %s=%s, at most %d axes are supported", path, key, val, RSF_MAXAXES);
    } else if (key[0] == 'n') PetscCall(ParseInt(path, key, val, 1, &p->h.n[axis]));
    else if (key[0] == 'd') PetscCall(ParseReal(path, key, val, PETSC_TRUE, &p->h.d[axis]));
    else PetscCall(ParseReal(path, key, val, PETSC_FALSE, &p->h.o[axis]));
  } else if (!strcmp(key, "data_format")) {
    PetscCall(PetscStrncpy(p->format, val, sizeof p->format));
  } else if (!strcmp(key, "esize")) {
    PetscCall(ParseInt(path, key, val, 0, &p->esize));
  } else if (!strcmp(key, "in")) {
    PetscCall(ResolveData(path, val, p->h.data_path));
    p->have_in = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* Tokens key=value or key="value with spaces"; words without '=' (program
   names, history) are skipped. */
static PetscErrorCode ParseLine(const char *path, char *line, RsfParse *p)
{
  char *c = line;

  PetscFunctionBeginUser;
  line[strcspn(line, "\r\n")] = 0;
  while (*c) {
    char *key, *val;

    while (isspace((unsigned char)*c)) c++;
    key = c;
    while (*c && !isspace((unsigned char)*c) && *c != '=') c++;
    if (*c != '=') continue;
    *c++ = 0;
    if (*c == '"') {
      val = ++c;
      while (*c && *c != '"') c++;
    } else {
      val = c;
      while (*c && !isspace((unsigned char)*c)) c++;
    }
    if (*c) *c++ = 0;
    PetscCall(SetKey(path, key, val, p));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ParseHeader(const char *path, RsfHeader *h)
{
  RsfParse       p = {.format = "native_float", .esize = 4};
  FILE          *fp;
  char          *line = NULL;
  size_t         cap  = 0;
  PetscErrorCode ierr = 0;
  struct stat    st;
  long long      expect;

  PetscFunctionBeginUser;
  for (int i = 0; i < RSF_MAXAXES; i++) {
    p.h.n[i] = 1;
    p.h.d[i] = 1;
  }
  fp = fopen(path, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open RSF header %s: %s", path, strerror(errno));
  /* Madagascar ends a header with form feeds when the data follow in the same file. */
  while (!ierr && getline(&line, &cap, fp) != -1 && !strchr(line, '\f')) ierr = ParseLine(path, line, &p);
  free(line);
  fclose(fp);
  PetscCall(ierr);
  PetscCheck(!strcmp(p.format, "native_float"), PETSC_COMM_SELF, PETSC_ERR_SUP, "RSF header %s: data_format=\"%s\", expected \"native_float\"", path,
             p.format);
  PetscCheck(p.esize == 4, PETSC_COMM_SELF, PETSC_ERR_SUP, "RSF header %s: esize=%d, expected 4", path, (int)p.esize);
  PetscCheck(p.have_in, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "RSF header %s has no in= naming its binary", path);
  PetscCheck(!stat(p.h.data_path, &st), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "RSF header %s: binary %s: %s", path, p.h.data_path, strerror(errno));
  expect = 4LL * p.h.n[0] * p.h.n[1] * p.h.n[2];
  PetscCheck((long long)st.st_size == expect, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "RSF header %s: binary %s has %lld bytes, expected %lld (n1*n2*n3*4 = %d*%d*%d*4)", path, p.h.data_path, (long long)st.st_size, expect,
             (int)p.h.n[0], (int)p.h.n[1], (int)p.h.n[2]);
  p.h.naxes = 1;
  for (int i = 1; i < RSF_MAXAXES; i++)
    if (p.h.n[i] > 1) p.h.naxes = i + 1;
  *h = p.h;
  PetscFunctionReturn(0);
}

/* Rank 0 of comm ran a call under PetscReturnErrorHandler and got err (the
   other ranks pass 0); every rank raises the same error, so none is left
   waiting. */
static PetscErrorCode ShareRootError(MPI_Comm comm, PetscErrorCode err)
{
  struct {
    PetscErrorCode err;
    char           msg[1024];
  } r;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&r, sizeof r));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank && err) {
    char *msg;

    PetscCall(PetscErrorMessage(err, NULL, &msg));
    PetscCall(PetscStrncpy(r.msg, msg, sizeof r.msg));
    r.err = err;
  }
  PetscCallMPI(MPI_Bcast(&r, sizeof r, MPI_BYTE, 0, comm));
  PetscCheck(!r.err, comm, r.err, "%s", r.msg);
  PetscFunctionReturn(0);
}

PetscErrorCode RsfReadHeader(MPI_Comm comm, const char *path, RsfHeader *h)
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = ParseHeader(path, h);
    PetscCall(PetscPopErrorHandler());
  }
  PetscCall(ShareRootError(comm, ierr));
  PetscCallMPI(MPI_Bcast(h, sizeof *h, MPI_BYTE, 0, comm));
  PetscFunctionReturn(0);
}

PetscErrorCode RsfReadBlock(MPI_Comm comm, const RsfHeader *h, const PetscInt start[RSF_MAXAXES], const PetscInt count[RSF_MAXAXES], float *buf)
{
  PetscMPIInt  nd = (PetscMPIInt)h->naxes, sizes[RSF_MAXAXES], sub[RSF_MAXAXES], st[RSF_MAXAXES], zero[RSF_MAXAXES] = {0}, nread = 0;
  PetscMPIInt  bad = -1, anybad, got;
  PetscBool    empty = PETSC_FALSE;
  MPI_Datatype ftype = MPI_FLOAT, mtype = MPI_FLOAT;
  MPI_File     fh;
  MPI_Status   status;

  PetscFunctionBeginUser;
  /* Axes beyond naxes have n = 1 and are ignored. */
  for (int i = 0; i < nd; i++) {
    if (start[i] < 0 || count[i] < 0 || start[i] + count[i] > h->n[i]) bad = i;
    if (!count[i]) empty = PETSC_TRUE;
    sizes[i] = (PetscMPIInt)h->n[i];
    sub[i]   = (PetscMPIInt)count[i];
    st[i]    = (PetscMPIInt)start[i];
  }
  /* Agree before the collective open so that a bad block cannot hang the others. */
  PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm));
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: block start %d count %d on axis %d lies outside [0, %d)", h->data_path,
             (int)start[bad], (int)count[bad], bad + 1, (int)h->n[bad]);
  PetscCheck(anybad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: another rank asked for a block outside the array", h->data_path);
  if (!empty) {
    PetscCallMPI(MPI_Type_create_subarray(nd, sizes, sub, st, MPI_ORDER_FORTRAN, MPI_FLOAT, &ftype));
    PetscCallMPI(MPI_Type_create_subarray(nd, sub, sub, zero, MPI_ORDER_FORTRAN, MPI_FLOAT, &mtype));
    PetscCallMPI(MPI_Type_commit(&ftype));
    PetscCallMPI(MPI_Type_commit(&mtype));
    nread = 1;
  }
  PetscCallMPI(MPI_File_open(comm, h->data_path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  PetscCallMPI(MPI_File_set_view(fh, 0, MPI_FLOAT, ftype, "native", MPI_INFO_NULL));
  PetscCallMPI(MPI_File_read_all(fh, buf, nread, mtype, &status));
  PetscCallMPI(MPI_File_close(&fh));
  PetscCallMPI(MPI_Get_count(&status, mtype, &got));
  if (!empty) {
    PetscCallMPI(MPI_Type_free(&ftype));
    PetscCallMPI(MPI_Type_free(&mtype));
  }
  PetscCheck(got == nread, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "RSF %s: short read (file changed since its header was read?)", h->data_path);
  PetscFunctionReturn(0);
}

/* Closes fp; on any earlier (ok false) or closing failure removes path and raises. */
static PetscErrorCode CloseOrRemove(FILE *fp, const char *path, PetscBool ok)
{
  int err = ok ? 0 : errno;

  PetscFunctionBeginUser;
  if (fclose(fp) && ok) {
    ok  = PETSC_FALSE;
    err = errno;
  }
  if (!ok) remove(path);
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "writing %s failed: %s", path, strerror(err));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteHeader(const char *tmp, const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[], const PetscReal o[],
                                  const char *const label[])
{
  const char *slash = strrchr(path, '/');
  FILE       *fp;

  PetscFunctionBeginUser;
  fp = fopen(tmp, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create %s: %s", tmp, strerror(errno));
  for (int i = 0; i < naxes; i++) {
    fprintf(fp, "n%d=%d\nd%d=%.17g\no%d=%.17g\n", i + 1, (int)n[i], i + 1, (double)d[i], i + 1, (double)o[i]);
    if (label && label[i]) fprintf(fp, "label%d=\"%s\"\n", i + 1, label[i]);
  }
  fprintf(fp, "data_format=\"native_float\"\nesize=4\nin=\"%s@\"\n", slash ? slash + 1 : path);
  PetscCall(CloseOrRemove(fp, tmp, ferror(fp) ? PETSC_FALSE : PETSC_TRUE));
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

/* The binary's name and the temporary names (with this process's id) that
   header and binary are written under; refuses an existing path unless overwrite. */
static PetscErrorCode TempNames(const char *path, PetscBool overwrite, RsfNames *nm)
{
  int pid = (int)getpid(), len;

  PetscFunctionBeginUser;
  PetscCheck(overwrite || access(path, F_OK), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s exists; pass -overwrite to replace it", path);
  len = snprintf(nm->tmpbin, sizeof nm->tmpbin, "%s@.tmp.%d", path, pid); /* the longest name */
  PetscCheck(len < (int)sizeof nm->tmpbin, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "RSF path %s is too long", path);
  PetscCall(PetscSNPrintf(nm->bin, sizeof nm->bin, "%s@", path));
  PetscCall(PetscSNPrintf(nm->tmphdr, sizeof nm->tmphdr, "%s.tmp.%d", path, pid));
  PetscFunctionReturn(0);
}

/* Binary first, header last: a header never points at a missing or partial binary. */
static PetscErrorCode Publish(const RsfNames *nm, const char *path)
{
  PetscFunctionBeginUser;
  PetscCheck(!rename(nm->tmpbin, nm->bin), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot rename %s to %s: %s", nm->tmpbin, nm->bin, strerror(errno));
  PetscCheck(!rename(nm->tmphdr, path), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot rename %s to %s: %s", nm->tmphdr, path, strerror(errno));
  PetscFunctionReturn(0);
}

PetscErrorCode RsfWrite(const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[], const PetscReal o[], const char *const label[],
                        const float *data, PetscBool overwrite)
{
  RsfNames       nm;
  size_t         count;
  FILE          *fp;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(CheckShape(path, naxes, n, d, &count));
  PetscCall(TempNames(path, overwrite, &nm));
  fp = fopen(nm.tmpbin, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create %s: %s", nm.tmpbin, strerror(errno));
  PetscCall(CloseOrRemove(fp, nm.tmpbin, fwrite(data, sizeof(float), count, fp) == count ? PETSC_TRUE : PETSC_FALSE));
  ierr = WriteHeader(nm.tmphdr, path, naxes, n, d, o, label);
  if (ierr) remove(nm.tmpbin);
  PetscCall(ierr);
  PetscCall(Publish(&nm, path));
  PetscFunctionReturn(0);
}

/* Collective: every rank writes its block of the binary file.  Every rank
   makes every collective call even after a local failure, so that none is
   left waiting; all agree on the outcome afterwards. */
static PetscErrorCode WriteBinaryBlock(MPI_Comm comm, const char *file, PetscInt naxes, const PetscInt n[], const PetscInt start[],
                                       const PetscInt count[], const float *buf)
{
  PetscMPIInt  nd = (PetscMPIInt)naxes, sizes[RSF_MAXAXES], sub[RSF_MAXAXES], st[RSF_MAXAXES], zero[RSF_MAXAXES] = {0}, nwrite = 0, got = 0;
  PetscMPIInt  err[4], first = MPI_SUCCESS, failed, anyfailed, len;
  PetscBool    empty = PETSC_FALSE;
  MPI_Offset   bytes = sizeof(float);
  MPI_Datatype ftype = MPI_FLOAT, mtype = MPI_FLOAT;
  MPI_File     fh;
  MPI_Status   status;
  char         msg[MPI_MAX_ERROR_STRING] = "";

  PetscFunctionBeginUser;
  for (int i = 0; i < nd; i++) {
    if (!count[i]) empty = PETSC_TRUE;
    sizes[i] = (PetscMPIInt)n[i];
    sub[i]   = (PetscMPIInt)count[i];
    st[i]    = (PetscMPIInt)start[i];
    bytes *= n[i];
  }
  if (!empty) {
    PetscCallMPI(MPI_Type_create_subarray(nd, sizes, sub, st, MPI_ORDER_FORTRAN, MPI_FLOAT, &ftype));
    PetscCallMPI(MPI_Type_create_subarray(nd, sub, sub, zero, MPI_ORDER_FORTRAN, MPI_FLOAT, &mtype));
    PetscCallMPI(MPI_Type_commit(&ftype));
    PetscCallMPI(MPI_Type_commit(&mtype));
    nwrite = 1;
  }
  PetscCallMPI(MPI_File_open(comm, file, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
  err[0] = MPI_File_set_size(fh, bytes); /* a stale temporary of the same name may be longer */
  err[1] = MPI_File_set_view(fh, 0, MPI_FLOAT, ftype, "native", MPI_INFO_NULL);
  err[2] = MPI_File_write_all(fh, buf, nwrite, mtype, &status);
  err[3] = MPI_File_close(&fh);
  for (int i = 0; i < 4 && first == MPI_SUCCESS; i++) first = err[i];
  if (first == MPI_SUCCESS) PetscCallMPI(MPI_Get_count(&status, mtype, &got));
  else PetscCallMPI(MPI_Error_string(first, msg, &len));
  if (!empty) {
    PetscCallMPI(MPI_Type_free(&ftype));
    PetscCallMPI(MPI_Type_free(&mtype));
  }
  failed = first != MPI_SUCCESS || got != nwrite;
  PetscCallMPI(MPI_Allreduce(&failed, &anyfailed, 1, MPI_INT, MPI_MAX, comm));
  PetscCheck(first == MPI_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "writing %s failed: %s", file, msg);
  PetscCheck(got == nwrite, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "writing %s: short write", file);
  PetscCheck(!anyfailed, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "writing %s failed on another rank", file);
  PetscFunctionReturn(0);
}

PetscErrorCode RsfWriteBlock(MPI_Comm comm, const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[], const PetscReal o[],
                             const char *const label[], const PetscInt start[RSF_MAXAXES], const PetscInt count[RSF_MAXAXES], const float *buf,
                             PetscBool overwrite)
{
  RsfNames       nm;
  size_t         total;
  long long      mine = 1, all;
  PetscMPIInt    rank, bad = -1, anybad;
  PetscErrorCode ierr = 0;

  PetscFunctionBeginUser;
  PetscCall(CheckShape(path, naxes, n, d, &total)); /* the same arguments, so the same outcome, on every rank */
  for (int i = 0; i < naxes; i++) {
    if (start[i] < 0 || count[i] < 0 || start[i] + count[i] > n[i]) bad = i;
    mine *= count[i];
  }
  /* Agree before any file is made so that a bad block cannot hang the others. */
  PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm));
  PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, comm));
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: block start %d count %d on axis %d lies outside [0, %d)", path, (int)start[bad],
             (int)count[bad], bad + 1, (int)n[bad]);
  PetscCheck(anybad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: another rank gave a block outside the array", path);
  /* Catches blocks that leave part of the array out (unless others overlap). */
  PetscCheck(all == (long long)total, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "RSF %s: the blocks of all ranks hold %lld samples, expected the %lld of the array", path, all, (long long)total);

  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = TempNames(path, overwrite, &nm);
    if (!ierr) ierr = WriteHeader(nm.tmphdr, path, naxes, n, d, o, label);
    PetscCall(PetscPopErrorHandler());
  }
  PetscCall(ShareRootError(comm, ierr));
  PetscCallMPI(MPI_Bcast(&nm, sizeof nm, MPI_BYTE, 0, comm)); /* rank 0's process id names the temporaries */
  ierr = WriteBinaryBlock(comm, nm.tmpbin, naxes, n, start, count, buf);
  if (ierr && !rank) {
    remove(nm.tmpbin);
    remove(nm.tmphdr);
  }
  PetscCall(ierr);
  PetscCallMPI(MPI_Barrier(comm)); /* every rank has closed the binary */
  if (!rank) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = Publish(&nm, path);
    PetscCall(PetscPopErrorHandler());
  }
  PetscCall(ShareRootError(comm, ierr));
  PetscFunctionReturn(0);
}
