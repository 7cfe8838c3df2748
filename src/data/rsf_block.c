/* MPI-IO reads and writes of one rank's box of an RSF binary: see rsf_impl.h. */
#define _POSIX_C_SOURCE 200809L /* pwrite */
#include "data/rsf_impl.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Collective: every rank's box must lie inside the array; agreed before any
   file is opened, so that a bad box cannot hang the others.  An empty box
   (a count of 0) may start anywhere: a rank whose cells all lie in the
   absorbing layers owns no model cell, and its box starts past the end. */
PetscErrorCode RsfBlockCheck(MPI_Comm comm, const char *path, PetscInt naxes, const PetscInt n[], const PetscInt start[], const PetscInt count[])
{
  PetscMPIInt bad = -1, anybad;
  PetscBool   empty = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (int i = 0; i < naxes; i++)
    if (!count[i]) empty = PETSC_TRUE;
  for (int i = 0; i < naxes; i++)
    if (count[i] < 0 || (!empty && (start[i] < 0 || start[i] + count[i] > n[i]))) bad = i;
  PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm));
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: block start %d count %d on axis %d lies outside [0, %d)", path, (int)start[bad],
             (int)count[bad], bad + 1, (int)n[bad]);
  PetscCheck(anybad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "RSF %s: another rank's block lies outside the array", path);
  PetscFunctionReturn(0);
}

PetscErrorCode RsfBlockCreate(PetscInt naxes, const PetscInt n[], const PetscInt start[], const PetscInt count[], RsfBlock *b)
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

PetscErrorCode RsfBlockDestroy(RsfBlock *b)
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
static PetscErrorCode ReadBlockFile(MPI_Comm comm, const char *file, const RsfBlock *b, void *buf, MPI_Offset *size, char msg[FWI_MSG_LEN])
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

/* xdr_float samples, read as they lie, in native (little-endian) order. */
static void SwapBytes(float *buf, MPI_Offset nbytes)
{
  for (MPI_Offset i = 0; i < nbytes / (MPI_Offset)sizeof(float); i++) {
    uint32_t u;
    memcpy(&u, &buf[i], sizeof u);
    u = __builtin_bswap32(u);
    memcpy(&buf[i], &u, sizeof u);
  }
}

PetscErrorCode RsfReadBlock(MPI_Comm comm, const RsfHeader *h, const PetscInt start[RSF_MAXAXES], const PetscInt count[RSF_MAXAXES], float *buf)
{
  RsfBlock      b;
  MPI_Offset size;
  char       msg[FWI_MSG_LEN] = "";

  PetscFunctionBeginUser;
  PetscCall(RsfBlockCheck(comm, h->data_path, h->naxes, h->n, start, count));
  PetscCall(RsfBlockCreate(h->naxes, h->n, start, count, &b));
  PetscCall(ReadBlockFile(comm, h->data_path, &b, buf, &size, msg));
  PetscCall(RsfBlockDestroy(&b));
  /* ompio (Open MPI 4.1) reports a read past the end as complete: the size tells */
  if (!msg[0] && size != b.total)
    snprintf(msg, FWI_MSG_LEN, "cannot read %s: it holds %lld bytes, expected %lld (changed since its header was read?)", h->data_path, (long long)size,
             (long long)b.total);
  PetscCall(AnyCheck(comm, msg));
  if (h->xdr && b.nitems) SwapBytes(buf, b.bytes);
  PetscFunctionReturn(0);
}

/* The first sample of this rank's box that was not written: it differs in
   back (read from the file) from buf, or lies beyond the file's size.
   *first = -1 when all are there; else *offset is its byte offset in the
   file and *run the samples from it to the end of its contiguous run. */
static void FirstMissing(const RsfBlock *b, MPI_Offset size, const float *buf, const float *back, PetscInt64 *first, MPI_Offset *offset, PetscInt64 *run)
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
PetscErrorCode RsfBlockWrite(MPI_Comm comm, const char *file, const char *path, const RsfBlock *b, const float *buf, char msg[FWI_MSG_LEN])
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
