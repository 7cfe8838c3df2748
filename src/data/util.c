#define _GNU_SOURCE /* renameat2 */
#include "data/util.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

PetscErrorCode RootCheckAs(MPI_Comm comm, char msg[FWI_MSG_LEN], PetscErrorCode code)
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Bcast(msg, FWI_MSG_LEN, MPI_CHAR, 0, comm));
  msg[FWI_MSG_LEN - 1] = 0;
  PetscCheck(!msg[0], comm, code, "%s", msg);
  PetscFunctionReturn(0);
}

PetscErrorCode RootCheck(MPI_Comm comm, char msg[FWI_MSG_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(RootCheckAs(comm, msg, PETSC_ERR_USER_INPUT));
  PetscFunctionReturn(0);
}

PetscErrorCode RootShareError(MPI_Comm comm, PetscErrorCode err)
{
  struct {
    PetscErrorCode err;
    char           msg[FWI_MSG_LEN];
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

PetscErrorCode RootRun(MPI_Comm comm, PetscErrorCode (*fn)(void *), void *ctx)
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = fn(ctx);
    PetscCall(PetscPopErrorHandler());
  }
  PetscCall(RootShareError(comm, ierr));
  PetscFunctionReturn(0);
}

PetscErrorCode LocalRun(PetscErrorCode (*fn)(void *), void *ctx, char msg[FWI_MSG_LEN])
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = fn(ctx);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    char *text;
    PetscCall(PetscErrorMessage(ierr, NULL, &text));
    PetscCall(PetscStrncpy(msg, text, FWI_MSG_LEN));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode FirstMessage(MPI_Comm comm, char msg[FWI_MSG_LEN])
{
  PetscMPIInt rank, size, mine, first;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  mine = msg[0] ? rank : size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first < size) PetscCallMPI(MPI_Bcast(msg, FWI_MSG_LEN, MPI_CHAR, first, comm));
  msg[FWI_MSG_LEN - 1] = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode AnyCheck(MPI_Comm comm, char msg[FWI_MSG_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(FirstMessage(comm, msg));
  PetscCheck(!msg[0], comm, PETSC_ERR_FILE_UNEXPECTED, "%s", msg);
  PetscFunctionReturn(0);
}

PetscErrorCode FileHostName(char host[256])
{
  PetscFunctionBeginUser;
  PetscCheck(!gethostname(host, 256), PETSC_COMM_SELF, PETSC_ERR_SYS, "gethostname failed: %s", strerror(errno));
  host[255] = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode FileTempName(const char *path, char tmp[PETSC_MAX_PATH_LEN])
{
  char host[256];
  int  len;

  PetscFunctionBeginUser;
  PetscCall(FileHostName(host));
  len = snprintf(tmp, PETSC_MAX_PATH_LEN, "%s.tmp.%s.%d", path, host, (int)getpid());
  PetscCheck(len < PETSC_MAX_PATH_LEN, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the path is too long for its temporary name (at most %d characters)", path,
             PETSC_MAX_PATH_LEN - 1);
  PetscFunctionReturn(0);
}

PetscErrorCode FileTempNew(const char *path, PetscBool overwrite, char tmp[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCheck(overwrite || access(path, F_OK), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s exists; pass -overwrite to replace it", path);
  PetscCall(FileTempName(path, tmp));
  PetscFunctionReturn(0);
}

PetscBool FileTempParse(const char *name, char host[256], int *pid)
{
  /* the endings of the names halofwi writes, each followed by .tmp. */
  static const char *const marks[] = {".rsf.tmp.", ".rsf@.tmp.", ".csv.tmp.", ".txt.tmp."};

  for (size_t m = 0; m < sizeof marks / sizeof marks[0]; m++) {
    const char *h = strstr(name, marks[m]), *dot;

    if (!h) continue;
    h += strlen(marks[m]);
    dot = strrchr(h, '.');
    if (!dot || dot == h || dot - h > 255 || !dot[1] || dot[1 + strspn(dot + 1, "0123456789")]) continue;
    snprintf(host, 256, "%.*s", (int)(dot - h), h);
    *pid = atoi(dot + 1);
    return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

PetscErrorCode FileWriteTemp(const char *tmp, const char *path, const void *data, size_t len)
{
  FILE       *fp = fopen(tmp, "wb");
  int         err = 0;
  struct stat st = {0};

  PetscFunctionBeginUser;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s: cannot create its temporary %s: %s", path, tmp, strerror(errno));
  if (len && fwrite(data, 1, len, fp) != len) err = errno ? errno : EIO;
  if (!err && fflush(fp)) err = errno;
  if (!err && fsync(fileno(fp))) err = errno; /* a full disk may show only here */
  if (fclose(fp) && !err) err = errno;
  if (!err && stat(tmp, &st)) err = errno;
  if (err || (size_t)st.st_size != len) remove(tmp);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %s", path, strerror(err));
  PetscCheck((size_t)st.st_size == len, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %lld of its %zu bytes reached the disk", path,
             (long long)st.st_size, len);
  PetscFunctionReturn(0);
}

/* rename(tmp, path) that fails with EEXIST where path exists: renameat2's
   RENAME_NOREPLACE, or where the file system lacks it, link and unlink
   (both atomic against another process publishing the same name). */
static int RenameNew(const char *tmp, const char *path)
{
  if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE)) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  if (link(tmp, path)) return -1;
  return unlink(tmp);
}

PetscErrorCode FilePublish(const char *tmp, const char *path, PetscBool replace)
{
  int err;

  PetscFunctionBeginUser;
  if (!(replace ? rename(tmp, path) : RenameNew(tmp, path))) PetscFunctionReturn(0);
  err = errno;
  remove(tmp);
  PetscCheck(err != EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE,
             "cannot write %s: it appeared while this run was writing it (another run writing to this folder?); left as it is, pass -overwrite to replace it", path);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot rename %s to %s: %s", tmp, path, strerror(err));
}

PetscErrorCode FileWrite(const char *path, const void *data, size_t len)
{
  char tmp[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(FileTempName(path, tmp));
  PetscCall(FileWriteTemp(tmp, path, data, len));
  PetscCall(FilePublish(tmp, path, PETSC_TRUE));
  PetscFunctionReturn(0);
}

uint64_t Fnv1a(uint64_t sum, const void *data, size_t len)
{
  const unsigned char *p = (const unsigned char *)data;

  for (size_t i = 0; i < len; i++) sum = (sum ^ p[i]) * 1099511628211ULL; /* FNV-1a 64 prime */
  return sum;
}

PetscErrorCode FileChecksum(const char *path, uint64_t *sum)
{
  FILE         *fp = fopen(path, "rb");
  unsigned char buf[65536];
  size_t        got;
  int           err;

  PetscFunctionBeginUser;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot read %s: %s", path, strerror(errno));
  *sum = FNV_START;
  while ((got = fread(buf, 1, sizeof buf, fp))) *sum = Fnv1a(*sum, buf, got);
  err = ferror(fp) ? errno : 0;
  fclose(fp);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot read %s: %s", path, strerror(err));
  PetscFunctionReturn(0);
}

/* Room for one more element in *array (n used of *max, elem bytes each). */
PetscErrorCode ArrayReserve(size_t elem, PetscInt n, PetscInt *max, void *array)
{
  PetscFunctionBeginUser;
  if (n < *max) PetscFunctionReturn(0);
  *max = 2 * *max + 16;
  PetscCall(PetscRealloc(elem * (size_t)*max, (void **)array));
  PetscFunctionReturn(0);
}

PetscErrorCode TextOpen(Text *t)
{
  PetscFunctionBeginUser;
  t->text = NULL;
  t->len  = 0;
  t->fp   = open_memstream(&t->text, &t->len);
  PetscCheck(t->fp, PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory for a text file: %s", strerror(errno));
  PetscFunctionReturn(0);
}

PetscErrorCode TextClose(Text *t)
{
  PetscFunctionBeginUser;
  PetscCheck(!fclose(t->fp), PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory for a text file: %s", strerror(errno));
  PetscFunctionReturn(0);
}

/* Closes t and writes it to dir/name. */
PetscErrorCode TextWrite(Text *t, const char *dir, const char *name)
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

void FormatBytes(double bytes, char *out, size_t len)
{
  if (bytes >= 1073741824.0) snprintf(out, len, "%.1f GB", bytes / 1073741824.0);
  else snprintf(out, len, "%.1f MB", bytes / 1048576.0);
}

PetscErrorCode MemoryExplain(PetscErrorCode ierr, const char *what, double bytes)
{
  char amount[32];

  PetscFunctionBeginUser;
  FormatBytes(bytes, amount, sizeof(amount));
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_MEM, "Allocating %s (%s on this rank) failed: out of memory", what, amount);
  PetscFunctionReturn(0);
}

char *TakeWord(char **cursor)
{
  char *p = *cursor, *start;

  if (*p == '"') {
    start = ++p;
    while (*p && *p != '"') p++;
  } else {
    start = p;
    while (*p && !isspace((unsigned char)*p)) p++;
  }
  if (*p) *p++ = 0;
  *cursor = p;
  return start;
}

PetscBool DecimalNumber(const char *s)
{
  size_t digits = 0;

  if (*s == '+' || *s == '-') s++;
  for (; isdigit((unsigned char)*s); s++) digits++;
  if (*s == '.')
    for (s++; isdigit((unsigned char)*s); s++) digits++;
  if (!digits) return PETSC_FALSE;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!isdigit((unsigned char)*s)) return PETSC_FALSE;
    while (isdigit((unsigned char)*s)) s++;
  }
  return *s ? PETSC_FALSE : PETSC_TRUE;
}
