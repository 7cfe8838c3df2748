/* Small helpers shared by the I/O and set-up code. */
#pragma once
#include <petscsys.h>
#include <stdint.h>

#define FWI_MSG_LEN 1024

/* Rank 0 of comm has filled msg (empty = fine); every rank of comm raises
   the same error if it is not empty, so no rank is left waiting. */
PetscErrorCode RootCheck(MPI_Comm comm, char msg[FWI_MSG_LEN]);
/* RootCheck raising code (PETSC_ERR_FILE_WRITE for a failed write: one exit
   status for a full disk on every path) in place of PETSC_ERR_USER_INPUT. */
PetscErrorCode RootCheckAs(MPI_Comm comm, char msg[FWI_MSG_LEN], PetscErrorCode code);
/* Rank 0 of comm ran a call under PetscReturnErrorHandler and got err (the
   other ranks pass 0); every rank raises the same error. */
PetscErrorCode RootShareError(MPI_Comm comm, PetscErrorCode err);
/* Runs fn(ctx) on rank 0 of comm; its error, if any, is raised on every rank. */
PetscErrorCode RootRun(MPI_Comm comm, PetscErrorCode (*fn)(void *), void *ctx);
/* Every rank's msg (empty = fine) becomes, on every rank, the message of the
   lowest rank that has one.  Raises nothing, so that the caller can clean up
   before RootCheck raises it everywhere. */
PetscErrorCode FirstMessage(MPI_Comm comm, char msg[FWI_MSG_LEN]);
/* Runs fn(ctx) on this rank alone; its error, if any, becomes msg (left
   as it is otherwise), for FirstMessage or AnyCheck. */
PetscErrorCode LocalRun(PetscErrorCode (*fn)(void *), void *ctx, char msg[FWI_MSG_LEN]);
/* FirstMessage, then every rank raises it. */
PetscErrorCode AnyCheck(MPI_Comm comm, char msg[FWI_MSG_LEN]);

/* Results are written under a temporary name, PATH.tmp.HOST.PID, and renamed
   when complete, so that a file under its final name is always whole.  A
   temporary names its writer, so that a later run can tell a dead writer's
   leftovers (removed) from a running one's. */
PetscErrorCode FileTempName(const char *path, char tmp[PETSC_MAX_PATH_LEN]);
/* FileTempName for a result that refuses to replace an existing path
   unless overwrite. */
PetscErrorCode FileTempNew(const char *path, PetscBool overwrite, char tmp[PETSC_MAX_PATH_LEN]);
/* Whether name (a folder entry) is a halofwi temporary: then its writer's
   host and process id. */
PetscBool FileTempParse(const char *name, char host[256], int *pid);
/* This machine's name as temporaries carry it. */
PetscErrorCode FileHostName(char host[256]);
/* Writes len bytes to tmp (a stale file of that name is truncated), flushes,
   syncs, closes and checks the size on disk.  On failure tmp is removed and
   the error names path (the final name) and the system's reason. */
PetscErrorCode FileWriteTemp(const char *tmp, const char *path, const void *data, size_t len);
/* Renames tmp to path; on failure removes tmp.  Without replace an existing
   path is never replaced (the check and the rename are one atomic step):
   results the run did not decide to replace (-overwrite, -restart) stay
   whatever another process does meanwhile. */
PetscErrorCode FilePublish(const char *tmp, const char *path, PetscBool replace);
/* FileWriteTemp and FilePublish, replacing: path is replaced only by a
   complete file.  For the records a run rewrites as it goes (misfit.csv,
   restart/), whose earlier versions the output folder's checks at the start
   refused or removed. */
PetscErrorCode FileWrite(const char *path, const void *data, size_t len);
/* 64-bit FNV-1a of a file's bytes (for records that must notice a change). */
PetscErrorCode FileChecksum(const char *path, uint64_t *sum);
/* FNV-1a 64 of len more bytes, carried on from sum (FNV_START to begin):
   the same value FileChecksum gives a file of those bytes. */
#define FNV_START 14695981039346656037ULL
uint64_t Fnv1a(uint64_t sum, const void *data, size_t len);

/* Room for one more element in *array (n used of *max, elem bytes each). */
PetscErrorCode ArrayReserve(size_t elem, PetscInt n, PetscInt *max, void *array);

/* Text files are formatted in memory (open_memstream) and written whole
   through FileWrite: a temporary, synced, checked and renamed. */
typedef struct {
  FILE  *fp;
  char  *text;
  size_t len;
} Text;

PetscErrorCode TextOpen(Text *t);
PetscErrorCode TextClose(Text *t);
/* Closes t and writes it to dir/name (FileWrite); frees its text. */
PetscErrorCode TextWrite(Text *t, const char *dir, const char *name);

/* The word at *cursor (a double-quoted one without its quotes, as PetscToken
   takes it), cut in place; *cursor moves past it.  Uses nothing of PETSc. */
char *TakeWord(char **cursor);
/* bytes as "12.3 MB" or "4.5 GB". */
void FormatBytes(double bytes, char *out, size_t len);

/* A call that only allocates: its failure becomes one error naming what
   was being allocated and how many bytes, in place of PETSc's bare
   "MemAlloc". */
PetscErrorCode MemoryExplain(PetscErrorCode ierr, const char *what, double bytes);
#define MemoryCall(call, what, bytes) \
  do { \
    PetscErrorCode memory_ierr_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    memory_ierr_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCall(MemoryExplain(memory_ierr_, (what), (bytes))); \
  } while (0)

/* Is s a decimal number: sign, digits, point, exponent, nothing else (no
   hexadecimal, inf or nan)?  For numbers typed in options and files. */
PetscBool DecimalNumber(const char *s);
