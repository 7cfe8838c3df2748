/* Madagascar RSF files: a small text header (key=value) beside a raw
   float32 binary, little-endian (native_float) or big-endian (xdr_float)
   when read, native when written.  Axis 1 is the fastest. */
#pragma once
#include <petscsys.h>

#define RSF_MAXAXES 3

typedef struct {
  PetscInt  naxes;                   /* 1..3: highest axis given with n>1, at least 1 */
  PetscInt  n[RSF_MAXAXES];          /* missing axes are 1 */
  PetscReal d[RSF_MAXAXES], o[RSF_MAXAXES];
  PetscBool xdr;                     /* big-endian samples (data_format=xdr_float) */
  char      data_path[PETSC_MAX_PATH_LEN]; /* binary, resolved against the header's folder */
} RsfHeader;

/* The axes of a file to write: RSF_MAXAXES data axes at most, and one
   more of n=1 that places the whole (a snapshot's time).  label and unit
   may be NULL (not written); so may value_label and value_unit, what the
   samples are (RSF's label= and unit=: a model's quantity, which plots
   name). */
#define RSF_HEADER_AXES (RSF_MAXAXES + 1)
typedef struct {
  PetscInt    naxes;
  PetscInt    n[RSF_HEADER_AXES];
  PetscReal   d[RSF_HEADER_AXES], o[RSF_HEADER_AXES];
  const char *label[RSF_HEADER_AXES], *unit[RSF_HEADER_AXES];
  const char *value_label, *value_unit;
} RsfAxes;

/* Appends an axis to a. */
void RsfAxesAdd(RsfAxes *a, PetscInt n, PetscReal d, PetscReal o, const char *label, const char *unit);

/* Rank 0 of comm parses, the result is broadcast.  Errors (each naming the
   file and the offending value): missing header or binary, either of them
   not a regular file (a FIFO, a device, a directory), a header of more than
   1 MiB of text, data_format other than native_float or xdr_float, esize other than 4,
   n<1 or n>2^31-1, d<=0, a number that is not decimal (0x64, inf, nan),
   n1*n2*n3*4 beyond 64 bits, binary size not n1*n2*n3*4 bytes. */
PetscErrorCode RsfReadHeader(MPI_Comm comm, const char *path, RsfHeader *h);

/* Collective over comm: every rank reads the box [start, start+count) of the
   (up to 3D) array with MPI-IO into buf, axis 1 fastest, in native byte
   order (xdr_float samples are swapped). count may be zero.
   A failed or short read (or a binary whose size changed) is an error on
   every rank, with MPI's reason. */
PetscErrorCode RsfReadBlock(MPI_Comm comm, const RsfHeader *h, const PetscInt start[RSF_MAXAXES],
                            const PetscInt count[RSF_MAXAXES], float *buf);

/* Serial: writes path (header) and path@ (binary, "in=" holds its base name)
   under temporary names (util.h), each synced and its size checked, and
   renames both when complete; on failure removes them and the error names
   the file and the system's reason.  Refuses to replace an existing path
   unless overwrite.  Axes beyond the data's must have n=1. */
PetscErrorCode RsfWrite(const char *path, const RsfAxes *a, const float *data, PetscBool overwrite);
/* RsfWrite of doubles (data_format=native_double, esize=8): coordinates
   that float32 would round (6,000,000 m to half a metre). */
PetscErrorCode RsfWriteDouble(const char *path, const RsfAxes *a, const double *data, PetscBool overwrite);

/* Collective over comm: writes the (up to 3D) array of axes a with every rank
   giving the box [start, start+count) of it (boxes disjoint and covering the
   array; count may be zero) through MPI-IO, under temporary names renamed when
   complete, like RsfWrite.  The binary is synced, read back and compared, and
   its size checked, since MPI-IO may not report a full disk.  Refuses to
   replace an existing path unless overwrite (the same decision on every
   rank).  Errors reach every rank, with the system's or MPI's reason, after
   the temporaries are removed. */
PetscErrorCode RsfWriteBlock(MPI_Comm comm, const char *path, const RsfAxes *a, const PetscInt start[RSF_MAXAXES], const PetscInt count[RSF_MAXAXES],
                             const float *buf, PetscBool overwrite);
