/* RSF headers and binaries: see rsf.h. */
#define _POSIX_C_SOURCE 200809L /* getline, open_memstream, pwrite */
#include "rsf.h"
#include "util.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
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
             "RSF header %s: %s=%s, expected a decimal integer >= %d", path, key, val, (int)min);
  *out = (PetscInt)v;
  PetscFunctionReturn(0);
}

/* [sign] digits [. digits] [e [sign] digits]: strtod alone would also take
   hexadecimal (0x64), inf and nan. */
static PetscBool IsDecimal(const char *s)
{
  size_t digits, exp;

  if (*s == '+' || *s == '-') s++;
  digits = strspn(s, "0123456789");
  s += digits;
  if (*s == '.') {
    const size_t frac = strspn(s + 1, "0123456789");
    digits += frac;
    s += 1 + frac;
  }
  if (!digits) return PETSC_FALSE;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    exp = strspn(s, "0123456789");
    if (!exp) return PETSC_FALSE;
    s += exp;
  }
  return *s ? PETSC_FALSE : PETSC_TRUE;
}

static PetscErrorCode ParseReal(const char *path, const char *key, const char *val, PetscBool positive, PetscReal *out)
{
  double v;

  PetscFunctionBeginUser;
  v = strtod(val, NULL);
  PetscCheck(IsDecimal(val) && isfinite(v) && (!positive || v > 0), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "RSF header %s: %s=%s, expected a %s decimal number", path, key, val, positive ? "positive" : "finite");
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

/* n1*n2*n3*4, checked: huge axes must not wrap around to a plausible size. */
static PetscErrorCode DataBytes(const char *path, const PetscInt n[RSF_MAXAXES], long long *bytes)
{
  PetscBool over = PETSC_FALSE;

  PetscFunctionBeginUser;
  *bytes = sizeof(float);
  for (int i = 0; i < RSF_MAXAXES && !over; i++) over = __builtin_mul_overflow(*bytes, (long long)n[i], bytes) ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(!over, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "RSF header %s: n1=%d n2=%d n3=%d: n1*n2*n3*4 bytes overflows 64 bits", path, (int)n[0],
             (int)n[1], (int)n[2]);
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
  PetscCall(DataBytes(path, p.h.n, &expect));
  PetscCheck(!stat(p.h.data_path, &st), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "RSF header %s: binary %s: %s", path, p.h.data_path, strerror(errno));
  PetscCheck((long long)st.st_size == expect, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "RSF header %s: binary %s has %lld bytes, expected %lld (n1*n2*n3*4 = %d*%d*%d*4)", path, p.h.data_path, (long long)st.st_size, expect,
             (int)p.h.n[0], (int)p.h.n[1], (int)p.h.n[2]);
  p.h.naxes = 1;
  for (int i = 1; i < RSF_MAXAXES; i++)
    if (p.h.n[i] > 1) p.h.naxes = i + 1;
  *h = p.h;
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
  PetscCall(RootShareError(comm, ierr));
  PetscCallMPI(MPI_Bcast(h, sizeof *h, MPI_BYTE, 0, comm));
  PetscFunctionReturn(0);
}


/* One rank's box of an (up to 3D) array: its MPI-IO types and sizes. */
typedef struct {
  PetscInt64   n[RSF_MAXAXES], start[RSF_MAXAXES], count[RSF_MAXAXES]; /* axes beyond naxes: n = count = 1 */
  MPI_Datatype file, mem;   /* the box in the file, and packed in the buffer */
  PetscMPIInt  nitems;      /* 1, or 0 for an empty box */
  MPI_Offset   bytes, total; /* of the box, and of the whole array */
} Block;

/* Collective: every rank's box must lie inside the array; agreed before any
   file is opened, so that a bad box cannot hang the others. */
static PetscErrorCode CheckBlocks(MPI_Comm comm, const char *path, PetscInt naxes, const PetscInt n[], const PetscInt start[], const PetscInt count[])
{
  PetscMPIInt bad = -1, anybad;

  PetscFunctionBeginUser;
  for (int i = 0; i < naxes; i++)
    if (start[i] < 0 || count[i] < 0 || start[i] + count[i] > n[i]) bad = i;
  PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm));
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: block start %d count %d on axis %d lies outside [0, %d)", path, (int)start[bad],
             (int)count[bad], bad + 1, (int)n[bad]);
  PetscCheck(anybad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: another rank's block lies outside the array", path);
  PetscFunctionReturn(0);
}

static PetscErrorCode BlockCreate(PetscInt naxes, const PetscInt n[], const PetscInt start[], const PetscInt count[], Block *b)
{
  PetscMPIInt nd = (PetscMPIInt)naxes, sizes[RSF_MAXAXES], sub[RSF_MAXAXES], st[RSF_MAXAXES], zero[RSF_MAXAXES] = {0};

  PetscFunctionBeginUser;
  b->file = b->mem = MPI_FLOAT;
  b->nitems        = 1;
  b->bytes = b->total = sizeof(float);
  for (int i = 0; i < RSF_MAXAXES; i++) {
    b->n[i]     = i < naxes ? n[i] : 1;
    b->start[i] = i < naxes ? start[i] : 0;
    b->count[i] = i < naxes ? count[i] : 1;
    if (!b->count[i]) b->nitems = 0;
    b->bytes *= b->count[i];
    b->total *= b->n[i];
  }
  if (!b->nitems) PetscFunctionReturn(0);
  for (int i = 0; i < nd; i++) {
    sizes[i] = (PetscMPIInt)n[i];
    sub[i]   = (PetscMPIInt)count[i];
    st[i]    = (PetscMPIInt)start[i];
  }
  PetscCallMPI(MPI_Type_create_subarray(nd, sizes, sub, st, MPI_ORDER_FORTRAN, MPI_FLOAT, &b->file));
  PetscCallMPI(MPI_Type_create_subarray(nd, sub, sub, zero, MPI_ORDER_FORTRAN, MPI_FLOAT, &b->mem));
  PetscCallMPI(MPI_Type_commit(&b->file));
  PetscCallMPI(MPI_Type_commit(&b->mem));
  PetscFunctionReturn(0);
}

static PetscErrorCode BlockDestroy(Block *b)
{
  PetscFunctionBeginUser;
  if (!b->nitems) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Type_free(&b->file));
  PetscCallMPI(MPI_Type_free(&b->mem));
  PetscFunctionReturn(0);
}

/* msg = "cannot VERB PATH: MPI's reason (CALL)" for the first failed call of err[]. */
static PetscErrorCode MpiFailure(const int err[], const char *const call[], int ncalls, const char *verb, const char *path, char msg[FWI_MSG_LEN])
{
  char reason[MPI_MAX_ERROR_STRING];
  int  len;

  PetscFunctionBeginUser;
  for (int i = 0; i < ncalls && !msg[0]; i++) {
    if (err[i] == MPI_SUCCESS) continue;
    PetscCallMPI(MPI_Error_string(err[i], reason, &len));
    snprintf(msg, FWI_MSG_LEN, "cannot %s %s: %s (%s)", verb, path, reason, call[i]);
  }
  PetscFunctionReturn(0);
}

/* Collective open; *ok is false on every rank when it failed on any, so
   that none goes on to collective calls the others miss. */
static PetscErrorCode OpenAll(MPI_Comm comm, const char *file, int amode, const char *verb, const char *path, MPI_File *fh, PetscBool *ok, char msg[FWI_MSG_LEN])
{
  const char *const call[1] = {"MPI_File_open"};
  int               err[1];
  PetscMPIInt       bad, anybad;

  PetscFunctionBeginUser;
  err[0] = MPI_File_open(comm, file, amode, MPI_INFO_NULL, fh);
  bad    = err[0] != MPI_SUCCESS;
  PetscCall(MpiFailure(err, call, 1, verb, path, msg));
  PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm));
  if (anybad && !bad) snprintf(msg, FWI_MSG_LEN, "cannot %s %s: it could not be opened on another rank", verb, path);
  *ok = anybad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Collective: reads this rank's box of file into buf.  msg (empty = fine)
   gets an MPI error with MPI's reason, or a short read; *size is the file's
   size (-1 unknown). */
static PetscErrorCode ReadBlockFile(MPI_Comm comm, const char *file, const Block *b, void *buf, MPI_Offset *size, char msg[FWI_MSG_LEN])
{
  const char *const call[4] = {"MPI_File_set_view", "MPI_File_read_all", "MPI_File_get_size", "MPI_File_close"};
  int               err[4];
  MPI_File          fh;
  MPI_Status        status;
  MPI_Count         got = 0;
  PetscBool         ok;

  PetscFunctionBeginUser;
  *size = -1;
  PetscCall(OpenAll(comm, file, MPI_MODE_RDONLY, "read", file, &fh, &ok, msg));
  if (!ok) PetscFunctionReturn(0);
  err[0] = MPI_File_set_view(fh, 0, MPI_FLOAT, b->file, "native", MPI_INFO_NULL);
  err[1] = MPI_File_read_all(fh, buf, b->nitems, b->mem, &status);
  err[2] = MPI_File_get_size(fh, size);
  err[3] = MPI_File_close(&fh);
  PetscCall(MpiFailure(err, call, 4, "read", file, msg));
  if (!msg[0]) PetscCallMPI(MPI_Get_elements_x(&status, MPI_BYTE, &got));
  if (!msg[0] && got != b->bytes)
    snprintf(msg, FWI_MSG_LEN, "cannot read %s: %lld of the %lld bytes asked for were read", file, (long long)got, (long long)b->bytes);
  PetscFunctionReturn(0);
}

PetscErrorCode RsfReadBlock(MPI_Comm comm, const RsfHeader *h, const PetscInt start[RSF_MAXAXES], const PetscInt count[RSF_MAXAXES], float *buf)
{
  Block      b;
  MPI_Offset size;
  char       msg[FWI_MSG_LEN] = "";

  PetscFunctionBeginUser;
  PetscCall(CheckBlocks(comm, h->data_path, h->naxes, h->n, start, count));
  PetscCall(BlockCreate(h->naxes, h->n, start, count, &b));
  PetscCall(ReadBlockFile(comm, h->data_path, &b, buf, &size, msg));
  PetscCall(BlockDestroy(&b));
  /* ompio (Open MPI 4.1) reports a read past the end as complete: the size tells */
  if (!msg[0] && size != b.total)
    snprintf(msg, FWI_MSG_LEN, "cannot read %s: it holds %lld bytes, expected %lld (changed since its header was read?)", h->data_path, (long long)size,
             (long long)b.total);
  PetscCall(AnyCheck(comm, msg));
  PetscFunctionReturn(0);
}

/* The header's text; *text is malloc'ed. */
static PetscErrorCode HeaderText(const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[], const PetscReal o[], const char *const label[],
                                 char **text, size_t *len)
{
  const char *slash = strrchr(path, '/');
  FILE       *fp    = open_memstream(text, len);

  PetscFunctionBeginUser;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_MEM, "RSF %s: no memory for the header: %s", path, strerror(errno));
  for (int i = 0; i < naxes; i++) {
    fprintf(fp, "n%d=%d\nd%d=%.17g\no%d=%.17g\n", i + 1, (int)n[i], i + 1, (double)d[i], i + 1, (double)o[i]);
    if (label && label[i]) fprintf(fp, "label%d=\"%s\"\n", i + 1, label[i]);
  }
  fprintf(fp, "data_format=\"native_float\"\nesize=4\nin=\"%s@\"\n", slash ? slash + 1 : path);
  PetscCheck(!fclose(fp), PETSC_COMM_SELF, PETSC_ERR_MEM, "RSF %s: no memory for the header: %s", path, strerror(errno));
  PetscFunctionReturn(0);
}

/* Writes the header under its temporary name. */
static PetscErrorCode WriteHeader(const char *tmp, const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[], const PetscReal o[],
                                  const char *const label[])
{
  char          *text = NULL;
  size_t         len  = 0;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(HeaderText(path, naxes, n, d, o, label, &text, &len));
  ierr = FileWriteTemp(tmp, path, text, len);
  free(text);
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
  PetscCheck(overwrite || access(path, F_OK), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s exists; pass -overwrite to replace it", path);
  PetscCall(PetscSNPrintf(nm->bin, sizeof nm->bin, "%s@", path));
  PetscCall(FileTempName(nm->bin, nm->tmpbin));
  PetscCall(FileTempName(path, nm->tmphdr));
  PetscFunctionReturn(0);
}

/* Binary first, header last: a header never points at a missing or partial binary. */
static PetscErrorCode Publish(const RsfNames *nm, const char *path)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  ierr = FilePublish(nm->tmpbin, nm->bin);
  if (ierr) remove(nm->tmphdr);
  PetscCall(ierr);
  PetscCall(FilePublish(nm->tmphdr, path));
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
  PetscCall(Publish(&nm, path));
  PetscFunctionReturn(0);
}

/* The first sample of this rank's box that was not written: it differs in
   back (read from the file) from buf, or lies beyond the file's size.
   *first = -1 when all are there; else *offset is its byte offset in the
   file and *run the samples from it to the end of its contiguous run. */
static void FirstMissing(const Block *b, MPI_Offset size, const float *buf, const float *back, PetscInt64 *first, MPI_Offset *offset, PetscInt64 *run)
{
  PetscInt64 c = 0;

  *first = -1;
  for (PetscInt64 k = 0; k < b->count[2]; k++)
    for (PetscInt64 j = 0; j < b->count[1]; j++)
      for (PetscInt64 i = 0; i < b->count[0]; i++, c++) {
        const MPI_Offset at = (MPI_Offset)sizeof(float) * ((b->start[0] + i) + b->n[0] * ((b->start[1] + j) + b->n[1] * (b->start[2] + k)));
        if (at + (MPI_Offset)sizeof(float) <= size && !memcmp(&buf[c], &back[c], sizeof(float))) continue;
        *first  = c;
        *offset = at;
        *run    = b->count[0] - i;
        return;
      }
}

/* The system's reason why samples did not reach file: they are written
   again with pwrite(2), which reports what MPI-IO did not. */
static void MissingReason(const char *file, MPI_Offset offset, const float *data, PetscInt64 nsamples, char reason[256])
{
  const char *p    = (const char *)data;
  size_t      left = (size_t)nsamples * sizeof(float);
  int         fd   = open(file, O_WRONLY), err = fd < 0 ? errno : 0;

  while (!err && left) {
    const ssize_t w = pwrite(fd, p, left, (off_t)offset);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w ? errno : EIO;
      continue;
    }
    p += w;
    left -= (size_t)w;
    offset += w;
  }
  if (!err && fsync(fd)) err = errno;
  if (fd >= 0) close(fd);
  snprintf(reason, 256, "%s", err ? strerror(err) : "the data read back differ from those written, and no call reported an error");
}

/* Collective: writes this rank's box of the binary file through MPI-IO and
   checks it.  ompio (Open MPI 4.1) reports neither a failed nor a short
   pwrite (a full disk leaves holes or a short file, and MPI_SUCCESS), so the
   box is also read back and compared.  msg (empty = fine) says what failed
   on this rank, with the system's or MPI's reason. */
static PetscErrorCode WriteBlockFile(MPI_Comm comm, const char *file, const char *path, const Block *b, const float *buf, char msg[FWI_MSG_LEN])
{
  const char *const call[4] = {"MPI_File_set_view", "MPI_File_write_all", "MPI_File_sync", "MPI_File_close"};
  int               err[4];
  MPI_File          fh;
  MPI_Status        status;
  MPI_Count         put = 0;
  MPI_Offset        size, offset = 0;
  PetscInt64        first, run = 0;
  PetscBool         ok;
  float            *back;
  char              rmsg[FWI_MSG_LEN] = "", reason[256];

  PetscFunctionBeginUser;
  PetscCall(OpenAll(comm, file, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL, "write", path, &fh, &ok, msg));
  if (!ok) PetscFunctionReturn(0);
  err[0] = MPI_File_set_view(fh, 0, MPI_FLOAT, b->file, "native", MPI_INFO_NULL);
  err[1] = MPI_File_write_all(fh, buf, b->nitems, b->mem, &status);
  err[2] = MPI_File_sync(fh);
  err[3] = MPI_File_close(&fh);
  PetscCall(MpiFailure(err, call, 4, "write", path, msg));
  if (!msg[0]) PetscCallMPI(MPI_Get_elements_x(&status, MPI_BYTE, &put));
  if (!msg[0] && put != b->bytes) snprintf(msg, FWI_MSG_LEN, "cannot write %s: %lld of %lld bytes were written", path, (long long)put, (long long)b->bytes);

  PetscCall(PetscCalloc1(b->bytes / sizeof(float) + 1, &back));
  PetscCall(ReadBlockFile(comm, file, b, back, &size, rmsg));
  if (!msg[0] && rmsg[0]) PetscCall(PetscStrncpy(msg, rmsg, FWI_MSG_LEN));
  if (!msg[0]) FirstMissing(b, size, buf, back, &first, &offset, &run);
  if (!msg[0] && first >= 0) {
    MissingReason(file, offset, buf + first, run, reason);
    snprintf(msg, FWI_MSG_LEN, "cannot write %s: %s (byte %lld of %lld did not reach the file, though MPI-IO reported success)", path, reason,
             (long long)offset, (long long)b->total);
  }
  PetscCall(PetscFree(back));
  PetscFunctionReturn(0);
}

/* Rank 0: the header under its temporary name; a stale binary temporary of
   the same name goes, so that nothing of it can survive in the new one. */
static PetscErrorCode StartBlockWrite(const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[], const PetscReal o[], const char *const label[],
                                      PetscBool overwrite, RsfNames *nm)
{
  PetscFunctionBeginUser;
  PetscCall(TempNames(path, overwrite, nm));
  PetscCheck(!remove(nm->tmpbin) || errno == ENOENT, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: cannot remove the stale %s: %s", nm->bin,
             nm->tmpbin, strerror(errno));
  PetscCall(WriteHeader(nm->tmphdr, path, naxes, n, d, o, label));
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
  RsfNames       nm;
  Block          b;
  size_t         total;
  long long      mine = 1, all;
  PetscMPIInt    rank;
  PetscErrorCode ierr = 0;
  char           msg[FWI_MSG_LEN] = "";

  PetscFunctionBeginUser;
  PetscCall(CheckShape(path, naxes, n, d, &total)); /* the same arguments, so the same outcome, on every rank */
  PetscCall(CheckBlocks(comm, path, naxes, n, start, count));
  for (int i = 0; i < naxes; i++) mine *= count[i];
  PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, comm));
  /* Catches blocks that leave part of the array out (unless others overlap). */
  PetscCheck(all == (long long)total, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "RSF %s: the blocks of all ranks hold %lld samples, expected the %lld of the array", path, all, (long long)total);

  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = StartBlockWrite(path, naxes, n, d, o, label, overwrite, &nm);
    PetscCall(PetscPopErrorHandler());
  }
  PetscCall(RootShareError(comm, ierr));
  PetscCallMPI(MPI_Bcast(&nm, sizeof nm, MPI_BYTE, 0, comm)); /* rank 0's host and process name the temporaries */
  PetscCall(BlockCreate(naxes, n, start, count, &b));
  PetscCall(WriteBlockFile(comm, nm.tmpbin, nm.bin, &b, buf, msg));
  PetscCall(BlockDestroy(&b));
  PetscCall(FirstMessage(comm, msg));
  if (!rank && !msg[0]) CheckSize(&nm, b.total, msg);
  if (!rank && msg[0]) {
    remove(nm.tmpbin);
    remove(nm.tmphdr);
  }
  PetscCall(RootCheck(comm, msg)); /* after the removal: no rank ends the run before it */
  if (!rank) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = Publish(&nm, path);
    PetscCall(PetscPopErrorHandler());
  }
  PetscCall(RootShareError(comm, ierr));
  PetscFunctionReturn(0);
}
