/* RSF headers: see rsf.h. */
#include "data/rsf.h"
#include "data/input.h"
#include "data/util.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most text a header may hold: real ones are a few hundred bytes. */
#define RSF_MAX_HEADER (1 << 20)

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
             "RSF header %s: %s=%s, expected a decimal integer from %d to %" PetscInt_FMT, path, key, val, (int)min, PETSC_MAX_INT);
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
    val = TakeWord(&c);
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

/* The header's text, up to the form feed with which Madagascar ends a
   header whose data follow in the same file: at most RSF_MAX_HEADER bytes. */
static PetscErrorCode ReadText(const char *path, char **text)
{
  FILE  *fp;
  char  *buf, *end;
  size_t got;
  int    err;

  PetscFunctionBeginUser;
  PetscCall(InputOpen("RSF header", path, &fp));
  PetscCall(PetscMalloc1(RSF_MAX_HEADER + 2, &buf));
  got = fread(buf, 1, RSF_MAX_HEADER + 1, fp);
  err = ferror(fp) ? errno : 0;
  fclose(fp);
  buf[got] = 0;
  end      = memchr(buf, '\f', got);
  if (end) *end = 0;
  if (err || (!end && got > RSF_MAX_HEADER)) PetscCall(PetscFree(buf));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot read RSF header %s: %s", path, strerror(err));
  PetscCheck(end || got <= RSF_MAX_HEADER, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "RSF header %s: more than %d bytes of text (without a form feed that ends it): expected a short text of key=value words", path, RSF_MAX_HEADER);
  *text = buf;
  PetscFunctionReturn(0);
}

/* The text's lines, each through ParseLine. */
static PetscErrorCode ParseText(const char *path, char *text, RsfParse *p)
{
  PetscFunctionBeginUser;
  for (char *line = text, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    PetscCall(ParseLine(path, line, p));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ParseHeader(const char *path, RsfHeader *h)
{
  RsfParse       p = {.format = "native_float", .esize = 4};
  char          *text, what[PETSC_MAX_PATH_LEN + 32];
  PetscErrorCode ierr;
  struct stat    st;
  long long      expect;

  PetscFunctionBeginUser;
  for (int i = 0; i < RSF_MAXAXES; i++) {
    p.h.n[i] = 1;
    p.h.d[i] = 1;
  }
  PetscCall(ReadText(path, &text));
  ierr = ParseText(path, text, &p);
  PetscCall(PetscFree(text));
  PetscCall(ierr);
  p.h.xdr = !strcmp(p.format, "xdr_float") ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(p.h.xdr || !strcmp(p.format, "native_float"), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "RSF header %s: data_format=\"%s\", expected \"native_float\" or \"xdr_float\"", path, p.format);
  PetscCheck(p.esize == 4, PETSC_COMM_SELF, PETSC_ERR_SUP, "RSF header %s: esize=%d, expected 4", path, (int)p.esize);
  PetscCheck(p.have_in, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "RSF header %s has no in= naming its binary", path);
  PetscCall(DataBytes(path, p.h.n, &expect));
  PetscCall(PetscSNPrintf(what, sizeof what, "RSF header %s: binary", path));
  PetscCall(InputCheckRegular(what, p.h.data_path));
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

typedef struct {
  const char *path;
  RsfHeader  *h;
} ParseJob;

static PetscErrorCode RunParse(void *ctx)
{
  ParseJob *job = (ParseJob *)ctx;
  return ParseHeader(job->path, job->h);
}

PetscErrorCode RsfReadHeader(MPI_Comm comm, const char *path, RsfHeader *h)
{
  ParseJob job = {path, h};

  PetscFunctionBeginUser;
  PetscCall(RootRun(comm, RunParse, &job));
  PetscCallMPI(MPI_Bcast(h, sizeof *h, MPI_BYTE, 0, comm));
  PetscFunctionReturn(0);
}
