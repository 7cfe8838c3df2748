/* SEG-Y files through segyio: opening (byte order and sample format found
   from the binary header), trace headers and samples as native floats, the
   coordinate scalars, and writing IEEE-float files under temporary names.
   Serial: callers choose the rank.  Every error names the file. */
#pragma once
#include <petscsys.h>
#include <segyio/segy.h>

typedef struct {
  char       path[PETSC_MAX_PATH_LEN];
  segy_file *fp;
  int        format;   /* SEGY_IBM_FLOAT_4_BYTE or SEGY_IEEE_FLOAT_4_BYTE */
  PetscBool  lsb;      /* little-endian */
  int        ns;       /* samples per trace (binary header) */
  int        ntraces;
  int        interval; /* sample interval (binary header, else the first trace's): us, or mm for depth; 0 = none */
  long       trace0;   /* byte offset of the first trace */
  int        bsize;    /* bytes of samples per trace */
} SegyFile;

/* Does the name end in .sgy or .segy (any case)? */
PetscBool SegyIsPath(const char *path);

/* Opens path for reading.  The byte order is the one under which the
   binary header's format code (bytes 3225-3226) is one segyio knows; the
   format must be IBM (1) or IEEE (5) floats; the file must hold whole
   traces of the header's sample count. */
PetscErrorCode SegyOpen(const char *path, SegyFile *f);
PetscErrorCode SegyClose(SegyFile *f);
/* Trace header of trace t (0-based), fields read with SegyField. */
PetscErrorCode SegyTraceHeader(const SegyFile *f, int t, char hdr[SEGY_TRACE_HEADER_SIZE]);
int32_t        SegyField(const char hdr[SEGY_TRACE_HEADER_SIZE], int field);
/* Samples [start, stop) of trace t as native floats. */
PetscErrorCode SegyReadSamples(const SegyFile *f, int t, int start, int stop, float *buf);

/* SEG-Y's scalar rule (bytes 69, 71): positive multiplies, negative
   divides, 0 is 1. */
PetscReal SegyScaled(int32_t value, int32_t scalar);
/* The scalar to write values up to |max| with: -1000 (millimetres) when
   they fit in 32 bits, else the finest of -100, -10, 1 that fits.  Writing
   value * |scalar| rounded and reading it back divided reproduces any
   decimal number with that many decimals exactly. */
int32_t SegyScalarFor(PetscReal max);
/* value in a header field under scalar (rounded). */
int32_t SegyUnscaled(PetscReal value, int32_t scalar);

/* Creates tmp (the temporary of path, which messages name) for ntraces
   traces of ns big-endian IEEE floats at the sample interval `interval`
   (us, or mm): text header, binary header (format 5, revision 1) and
   nothing else yet.  Leaves f open for writing. */
PetscErrorCode SegyCreate(const char *tmp, const char *path, int ns, int interval, int ntraces, SegyFile *f);
/* Opens an existing file (tmp, of path) made by SegyCreate for writing more. */
PetscErrorCode SegyOpenWrite(const char *tmp, const char *path, int ns, int ntraces, SegyFile *f);
PetscErrorCode SegyWriteHeader(SegyFile *f, int t, const char hdr[SEGY_TRACE_HEADER_SIZE]);
/* Samples [start, stop) of trace t from native floats. */
PetscErrorCode SegyWriteSamples(SegyFile *f, int t, int start, int stop, const float *buf);
/* Flushes, closes and syncs a file open for writing (tmp, its name on
   disk); the error names the final path. */
PetscErrorCode SegyFinish(SegyFile *f, const char *tmp);
/* A trace header with the sample count and interval set, the rest zero. */
void SegyHeaderInit(const SegyFile *f, char hdr[SEGY_TRACE_HEADER_SIZE]);
void SegySetField(char hdr[SEGY_TRACE_HEADER_SIZE], int field, int32_t value);
