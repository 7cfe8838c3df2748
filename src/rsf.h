/* Madagascar RSF files: a small text header (key=value) beside a raw
   little-endian float32 binary.  Axis 1 is the fastest. */
#pragma once
#include <petscsys.h>

#define RSF_MAXAXES 3

typedef struct {
  PetscInt  naxes;                   /* 1..3: highest axis given with n>1, at least 1 */
  PetscInt  n[RSF_MAXAXES];          /* missing axes are 1 */
  PetscReal d[RSF_MAXAXES], o[RSF_MAXAXES];
  char      data_path[PETSC_MAX_PATH_LEN]; /* binary, resolved against the header's folder */
} RsfHeader;

/* Rank 0 of comm parses, the result is broadcast.  Errors (each naming the
   file and the offending value): missing header or binary, either of them
   not a regular file (a FIFO, a device, a directory), a header of more than
   1 MiB of text, data_format other than native_float, esize other than 4,
   n<1 or n>2^31-1, d<=0, a number that is not decimal (0x64, inf, nan),
   n1*n2*n3*4 beyond 64 bits, binary size not n1*n2*n3*4 bytes. */
PetscErrorCode RsfReadHeader(MPI_Comm comm, const char *path, RsfHeader *h);

/* Collective over comm: every rank reads the box [start, start+count) of the
   (up to 3D) array with MPI-IO into buf, axis 1 fastest. count may be zero.
   A failed or short read (or a binary whose size changed) is an error on
   every rank, with MPI's reason. */
PetscErrorCode RsfReadBlock(MPI_Comm comm, const RsfHeader *h, const PetscInt start[RSF_MAXAXES],
                            const PetscInt count[RSF_MAXAXES], float *buf);

/* Serial: writes path (header) and path@ (binary, "in=" holds its base name)
   under temporary names (util.h), each synced and its size checked, and
   renames both when complete; on failure removes them and the error names
   the file and the system's reason.  Refuses to replace an existing path
   unless overwrite.  label (one per axis) may be NULL. */
PetscErrorCode RsfWrite(const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[],
                        const PetscReal o[], const char *const label[], const float *data, PetscBool overwrite);

/* Collective over comm: writes the (up to 3D) array of size n[] with every rank
   giving the box [start, start+count) of it (boxes disjoint and covering the
   array; count may be zero) through MPI-IO, under temporary names renamed when
   complete, like RsfWrite.  The binary is synced, read back and compared, and
   its size checked, since MPI-IO may not report a full disk.  Refuses to
   replace an existing path unless overwrite (the same decision on every
   rank).  Errors reach every rank, with the system's or MPI's reason, after
   the temporaries are removed. */
PetscErrorCode RsfWriteBlock(MPI_Comm comm, const char *path, PetscInt naxes, const PetscInt n[], const PetscReal d[],
                             const PetscReal o[], const char *const label[], const PetscInt start[RSF_MAXAXES],
                             const PetscInt count[RSF_MAXAXES], const float *buf, PetscBool overwrite);
