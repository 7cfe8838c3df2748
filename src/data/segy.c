/* SEG-Y through segyio: see segy.h. */
#include "data/segy.h"
#include "data/input.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* segyio's 16-bit header fields are read signed. */
#define SEGY_MAX_16 32767

static const char *SegyReason(int err)
{
  switch (err) {
  case SEGY_FSEEK_ERROR: return "seek failed";
  case SEGY_FREAD_ERROR: return "short read (truncated file?)";
  case SEGY_FWRITE_ERROR: return "write failed";
  case SEGY_TRACE_SIZE_MISMATCH: return "not a whole number of traces";
  default: return "segyio error";
  }
}

PetscBool SegyIsPath(const char *path)
{
  const char *dot = strrchr(path, '.');
  return dot && (!strcasecmp(dot, ".sgy") || !strcasecmp(dot, ".segy")) ? PETSC_TRUE : PETSC_FALSE;
}

static PetscBool KnownFormat(int format) { return format >= SEGY_IBM_FLOAT_4_BYTE && format <= SEGY_SIGNED_CHAR_1_BYTE ? PETSC_TRUE : PETSC_FALSE; }

/* The byte order and format from the binary header: big-endian unless only
   the little-endian reading of the format code is a known one. */
static PetscErrorCode FindByteOrder(SegyFile *f, char bin[SEGY_BINARY_HEADER_SIZE])
{
  int msb_format, err;

  PetscFunctionBeginUser;
  err = segy_binheader(f->fp, bin);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "SEG-Y %s: cannot read the binary header (bytes 3201-3600): %s", f->path, SegyReason(err));
  msb_format = segy_format(bin);
  f->lsb     = KnownFormat(msb_format) ? PETSC_FALSE : PETSC_TRUE;
  if (f->lsb) {
    PetscCheck(!segy_set_format(f->fp, SEGY_LSB) && !segy_binheader(f->fp, bin), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "SEG-Y %s: cannot read the binary header",
               f->path);
  }
  f->format = segy_format(bin);
  PetscCheck(KnownFormat(f->format), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "SEG-Y %s: sample format code %d (binary header bytes 3225-3226 read big-endian; %d read little-endian), neither a known code: expected 1 "
             "(IBM float) or 5 (IEEE float)",
             f->path, msb_format, f->format);
  PetscCheck(f->format == SEGY_IBM_FLOAT_4_BYTE || f->format == SEGY_IEEE_FLOAT_4_BYTE, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "SEG-Y %s: sample format code %d (binary header bytes 3225-3226, read %s-endian): expected 1 (IBM float) or 5 (IEEE float)", f->path, f->format,
             f->lsb ? "little" : "big");
  PetscCheck(!segy_set_format(f->fp, f->format | (f->lsb ? SEGY_LSB : SEGY_MSB)), PETSC_COMM_SELF, PETSC_ERR_LIB, "SEG-Y %s: segyio refuses format %d", f->path,
             f->format);
  PetscFunctionReturn(0);
}

/* Whether the 3200 bytes of block hold the stanza ((SEG: EndText)), in
   ASCII or EBCDIC. */
static PetscBool HasEndText(const unsigned char *block)
{
  static const unsigned char ascii[] = "((SEG: EndText))",
                             ebcdic[] = {0x4D, 0x4D, 0xE2, 0xC5, 0xC7, 0x7A, 0x40, 0xC5, 0x95, 0x84, 0xE3, 0x85, 0xA7, 0xA3, 0x5D, 0x5D};
  const size_t               n       = sizeof ebcdic;

  for (size_t i = 0; i + n <= SEGY_TEXT_HEADER_SIZE; i++)
    if (!memcmp(block + i, ascii, n) || !memcmp(block + i, ebcdic, n)) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* The extended textual headers (binary header bytes 3505-3506): a count,
   or -1 for a variable number whose last holds ((SEG: EndText)) (SEG-Y
   rev 1 and 2).  Sets the first trace's byte offset. */
static PetscErrorCode FindTrace0(SegyFile *f, const char bin[SEGY_BINARY_HEADER_SIZE])
{
  const long    first = SEGY_TEXT_HEADER_SIZE + SEGY_BINARY_HEADER_SIZE;
  int32_t       ext   = 0;
  unsigned char block[SEGY_TEXT_HEADER_SIZE];
  PetscBool     end = PETSC_FALSE;
  FILE         *fp;

  PetscFunctionBeginUser;
  segy_get_bfield(bin, SEGY_BIN_EXT_HEADERS, &ext);
  PetscCheck(ext >= -1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "SEG-Y %s: %d extended textual headers (binary header bytes 3505-3506): expected a count of 0 or more, or -1 (a variable number ending with "
             "((SEG: EndText)))",
             f->path, (int)ext);
  f->trace0 = first + (long)SEGY_TEXT_HEADER_SIZE * ext;
  if (ext >= 0) PetscFunctionReturn(0);
  fp = fopen(f->path, "rb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open SEG-Y %s: %s", f->path, strerror(errno));
  if (!fseek(fp, first, SEEK_SET))
    for (ext = 1; !end && fread(block, 1, sizeof block, fp) == sizeof block; ext++) end = HasEndText(block);
  fclose(fp);
  PetscCheck(end, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "SEG-Y %s: a variable number of extended textual headers (-1 in binary header bytes 3505-3506), but no ((SEG: EndText)) stanza ends them before the end "
             "of the file",
             f->path);
  f->trace0 = first + (long)SEGY_TEXT_HEADER_SIZE * (ext - 1);
  PetscFunctionReturn(0);
}

/* The sample interval: the binary header's, else the first trace's, 0
   when both are set and disagree (segyio's rule, kept here because
   segyio's own reading ignores extended textual headers counted -1); a
   negative value in either is refused. */
static PetscErrorCode FindInterval(SegyFile *f, const char bin[SEGY_BINARY_HEADER_SIZE])
{
  char    hdr[SEGY_TRACE_HEADER_SIZE];
  int32_t in_bin = 0, in_trace;

  PetscFunctionBeginUser;
  segy_get_bfield(bin, SEGY_BIN_INTERVAL, &in_bin);
  PetscCall(SegyTraceHeader(f, 0, hdr));
  in_trace = SegyField(hdr, SEGY_TR_SAMPLE_INTER);
  PetscCheck(in_bin >= 0 && in_trace >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "SEG-Y %s: sample interval %d in the binary header (bytes 3217-3218) and %d in the first trace's header (bytes 117-118): expected no negative value (us, or "
             "mm for a depth model; 0 for none)",
             f->path, (int)in_bin, (int)in_trace);
  f->interval = in_bin == in_trace || !in_trace ? in_bin : !in_bin ? in_trace : 0;
  PetscFunctionReturn(0);
}

/* Sample count, trace size and count; a truncated file is named with its sizes. */
static PetscErrorCode FindTraces(SegyFile *f, const char bin[SEGY_BINARY_HEADER_SIZE])
{
  struct stat st;
  int         err;

  PetscFunctionBeginUser;
  f->ns = segy_samples(bin);
  PetscCall(FindTrace0(f, bin));
  PetscCheck(f->ns > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "SEG-Y %s: %d samples per trace in the binary header (bytes 3221-3222): expected a positive count",
             f->path, f->ns);
  f->bsize = segy_trsize(f->format, f->ns);
  PetscCheck(!stat(f->path, &st), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "SEG-Y %s: %s", f->path, strerror(errno));
  err = segy_traces(f->fp, &f->ntraces, f->trace0, f->bsize);
  PetscCheck(!err && f->ntraces > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "SEG-Y %s: %lld bytes after the %ld of the headers, expected a positive whole number of traces of %d bytes (240-byte header + %d samples x 4): truncated, or "
             "the sample count %d is wrong",
             f->path, (long long)st.st_size - f->trace0, f->trace0, SEGY_TRACE_HEADER_SIZE + f->bsize, f->ns, f->ns);
  PetscCall(FindInterval(f, bin));
  PetscFunctionReturn(0);
}

PetscErrorCode SegyOpen(const char *path, SegyFile *f)
{
  char           bin[SEGY_BINARY_HEADER_SIZE];
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(f, sizeof *f));
  PetscCall(PetscStrncpy(f->path, path, sizeof f->path));
  PetscCall(InputCheckRegular("SEG-Y", path));
  f->fp = segy_open(path, "rb");
  PetscCheck(f->fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open SEG-Y %s: %s", path, strerror(errno));
  ierr = FindByteOrder(f, bin);
  if (!ierr) ierr = FindTraces(f, bin);
  if (ierr) PetscCall(SegyClose(f));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SegyClose(SegyFile *f)
{
  PetscFunctionBeginUser;
  if (f->fp) segy_close(f->fp);
  f->fp = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode SegyTraceHeader(const SegyFile *f, int t, char hdr[SEGY_TRACE_HEADER_SIZE])
{
  const int err = segy_traceheader(f->fp, t, hdr, f->trace0, f->bsize);

  PetscFunctionBeginUser;
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "SEG-Y %s: cannot read the header of trace %d: %s", f->path, t + 1, SegyReason(err));
  PetscFunctionReturn(0);
}

int32_t SegyField(const char hdr[SEGY_TRACE_HEADER_SIZE], int field)
{
  int32_t v = 0;
  segy_get_field(hdr, field, &v);
  return v;
}

PetscErrorCode SegyReadSamples(const SegyFile *f, int t, int start, int stop, float *buf)
{
  int err = segy_readsubtr(f->fp, t, start, stop, 1, buf, NULL, f->trace0, f->bsize);

  PetscFunctionBeginUser;
  if (!err) err = segy_to_native(f->format, stop - start, buf);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "SEG-Y %s: cannot read samples %d to %d of trace %d: %s", f->path, start + 1, stop, t + 1, SegyReason(err));
  PetscFunctionReturn(0);
}

PetscReal SegyScaled(int32_t value, int32_t scalar)
{
  if (scalar > 0) return (PetscReal)value * scalar;
  if (scalar < 0) return (PetscReal)value / -(PetscReal)scalar;
  return value;
}

int32_t SegyScalarFor(PetscReal max)
{
  for (int32_t div = 1000; div > 1; div /= 10)
    if (max * div < INT32_MAX) return -div;
  return 1;
}

int32_t SegyUnscaled(PetscReal value, int32_t scalar)
{
  return (int32_t)llround(scalar < 0 ? value * -scalar : value / scalar);
}

static PetscErrorCode WriteHeaders(SegyFile *f, int interval)
{
  char text[SEGY_TEXT_HEADER_SIZE + 1], bin[SEGY_BINARY_HEADER_SIZE] = {0};
  int  err;

  PetscFunctionBeginUser;
  memset(text, ' ', SEGY_TEXT_HEADER_SIZE);
  text[SEGY_TEXT_HEADER_SIZE] = 0;
  memcpy(text, "C 1 written by halofwi", 22);
  memcpy(text + 80, "C 2 IEEE floats; coordinates in m under the scalar of byte 71", 61);
  segy_set_bfield(bin, SEGY_BIN_INTERVAL, interval);
  segy_set_bfield(bin, SEGY_BIN_SAMPLES, f->ns);
  segy_set_bfield(bin, SEGY_BIN_FORMAT, SEGY_IEEE_FLOAT_4_BYTE);
  segy_set_bfield(bin, SEGY_BIN_SEGY_REVISION, 0x0100); /* rev 1: IEEE floats are standard */
  segy_set_bfield(bin, SEGY_BIN_TRACE_FLAG, 1);          /* every trace has ns samples */
  err = segy_write_textheader(f->fp, 0, text);
  if (!err) err = segy_write_binheader(f->fp, bin);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %s", f->path, SegyReason(err));
  PetscFunctionReturn(0);
}

/* Opens tmp in mode for ns IEEE samples per trace, messages naming path. */
static PetscErrorCode OpenForWriting(const char *tmp, const char *path, const char *mode, int ns, int ntraces, SegyFile *f)
{
  PetscFunctionBeginUser;
  PetscCheck(ns >= 1 && ns <= SEGY_MAX_16, PETSC_COMM_SELF, PETSC_ERR_SUP, "cannot write %s: %d samples per trace, SEG-Y (through segyio) holds 1 to %d", path, ns,
             SEGY_MAX_16);
  PetscCall(PetscMemzero(f, sizeof *f));
  PetscCall(PetscStrncpy(f->path, path, sizeof f->path));
  f->fp = segy_open(tmp, mode);
  PetscCheck(f->fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s: %s", path, strerror(errno));
  segy_set_format(f->fp, SEGY_IEEE_FLOAT_4_BYTE | SEGY_MSB);
  f->format  = SEGY_IEEE_FLOAT_4_BYTE;
  f->ns      = ns;
  f->ntraces = ntraces;
  f->trace0  = SEGY_TEXT_HEADER_SIZE + SEGY_BINARY_HEADER_SIZE;
  f->bsize   = segy_trsize(f->format, ns);
  PetscFunctionReturn(0);
}

PetscErrorCode SegyCreate(const char *tmp, const char *path, int ns, int interval, int ntraces, SegyFile *f)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCheck(interval >= 1 && interval <= SEGY_MAX_16, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "cannot write %s: sample interval %d (us, or mm for depth): SEG-Y holds a whole number from 1 to %d", path, interval, SEGY_MAX_16);
  PetscCall(OpenForWriting(tmp, path, "w+b", ns, ntraces, f));
  f->interval = interval;
  ierr        = WriteHeaders(f, interval);
  if (ierr) PetscCall(SegyClose(f));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SegyOpenWrite(const char *tmp, const char *path, int ns, int ntraces, SegyFile *f)
{
  PetscFunctionBeginUser;
  PetscCall(OpenForWriting(tmp, path, "r+b", ns, ntraces, f));
  PetscFunctionReturn(0);
}

void SegyHeaderInit(const SegyFile *f, char hdr[SEGY_TRACE_HEADER_SIZE])
{
  memset(hdr, 0, SEGY_TRACE_HEADER_SIZE);
  segy_set_field(hdr, SEGY_TR_SAMPLE_COUNT, f->ns);
  segy_set_field(hdr, SEGY_TR_SAMPLE_INTER, f->interval);
  segy_set_field(hdr, SEGY_TR_TRACE_ID, 1); /* seismic data */
}

void SegySetField(char hdr[SEGY_TRACE_HEADER_SIZE], int field, int32_t value) { segy_set_field(hdr, field, value); }

PetscErrorCode SegyWriteHeader(SegyFile *f, int t, const char hdr[SEGY_TRACE_HEADER_SIZE])
{
  const int err = segy_write_traceheader(f->fp, t, hdr, f->trace0, f->bsize);

  PetscFunctionBeginUser;
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: trace header %d: %s (%s)", f->path, t + 1, SegyReason(err), strerror(errno));
  PetscFunctionReturn(0);
}

PetscErrorCode SegyWriteSamples(SegyFile *f, int t, int start, int stop, const float *buf)
{
  float *big;
  int    err;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(stop - start + 1, &big));
  PetscCall(PetscArraycpy(big, buf, stop - start));
  err = segy_from_native(f->format, stop - start, big);
  if (!err) err = segy_writesubtr(f->fp, t, start, stop, 1, big, NULL, f->trace0, f->bsize);
  PetscCall(PetscFree(big));
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: samples of trace %d: %s (%s)", f->path, t + 1, SegyReason(err), strerror(errno));
  PetscFunctionReturn(0);
}

PetscErrorCode SegyFinish(SegyFile *f, const char *tmp)
{
  int err = segy_close(f->fp), fd;

  PetscFunctionBeginUser;
  f->fp = NULL;
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %s", f->path, strerror(errno));
  /* segyio writes through stdio: sync as the other results are */
  fd = open(tmp, O_RDWR);
  PetscCheck(fd >= 0 && !fsync(fd) && !close(fd), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %s", f->path, strerror(errno));
  PetscFunctionReturn(0);
}
