#include "data/errors.h"
#include <stdio.h>
#include <time.h>

/* How long a rank that erred waits for the others to err too before it
   takes the error to be its own and aborts.  Errors about the input are
   raised on every rank at once (RootCheck, AnyCheck), so a few seconds is
   ample; it is the wait a rank's lone error costs. */
#define AGREE_SECONDS 3.0

static struct {
  PetscBool      installed;
  MPI_Comm       comm; /* a duplicate of the world, so the agreement matches nothing else */
  PetscErrorCode code; /* the user error being raised, 0 while none */
  char           msg[4096];
} E = {PETSC_FALSE, MPI_COMM_NULL, 0, ""};

/* The codes halofwi raises for what the user gave; anything else is a fault
   and keeps its traceback. */
static PetscBool UserCode(PetscErrorCode n)
{
  switch (n) {
  case PETSC_ERR_USER:
  case PETSC_ERR_USER_INPUT:
  case PETSC_ERR_ARG_OUTOFRANGE:
  case PETSC_ERR_ARG_INCOMP:
  case PETSC_ERR_ARG_SIZ:
  case PETSC_ERR_ARG_WRONG:
  case PETSC_ERR_SUP:
  case PETSC_ERR_FILE_OPEN:
  case PETSC_ERR_FILE_READ:
  case PETSC_ERR_FILE_WRITE:
  case PETSC_ERR_FILE_UNEXPECTED:
  case PETSC_ERR_MEM:
  case PETSC_ERR_INT_OVERFLOW:
  case PETSC_ERR_FP:
    return PETSC_TRUE;
  default:
    return PETSC_FALSE;
  }
}

PetscErrorCode ErrorsHandle(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (E.installed && p == PETSC_ERROR_INITIAL) {
    E.code = UserCode(n) && mess && mess[0] ? n : 0;
    if (E.code) snprintf(E.msg, sizeof E.msg, "%s", mess);
  }
  if (E.installed && E.code == n) return n;
  return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, ctx);
}

PetscErrorCode ErrorsInstall(MPI_Comm world)
{
  PetscBool trace = PETSC_FALSE, petsc_own = PETSC_FALSE;
  /* PETSc's own error options set their handler, which must stay */
  const char *const own[] = {"-on_error_abort", "-on_error_attach_debugger", "-on_error_emacs", "-start_in_debugger", "-stop_for_debugger"};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_dup(world, &E.comm));
  PetscOptionsBegin(world, NULL, "Errors", NULL);
  PetscCall(PetscOptionsBool("-error_trace", "PETSc's full report with its traceback for every error, not only for faults", NULL, trace, &trace, NULL));
  PetscOptionsEnd();
  for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, own[i], &set));
    petsc_own = petsc_own || set;
  }
  E.installed = !trace && !petsc_own;
  if (E.installed) PetscCall(PetscPushErrorHandler(ErrorsHandle, NULL));
  PetscFunctionReturn(0);
}

/* Whether every rank of E.comm reaches this within AGREE_SECONDS. */
static PetscBool EveryRankErred(void)
{
  MPI_Request     req;
  int             done = 0;
  struct timespec nap = {0, 1000000}, t0, t;

  if (E.comm == MPI_COMM_NULL || MPI_Ibarrier(E.comm, &req) != MPI_SUCCESS) return PETSC_FALSE;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return PETSC_FALSE;
    if (done) return PETSC_TRUE;
    clock_gettime(CLOCK_MONOTONIC, &t);
    if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > AGREE_SECONDS) return PETSC_FALSE;
    nanosleep(&nap, NULL);
  }
}

int ErrorsExit(PetscErrorCode err)
{
  int status = err > 0 && err < 256 ? (int)err : 1;
  int rank = 0, size = 1, speaker, mine;

  if (E.comm != MPI_COMM_NULL) {
    MPI_Comm_rank(E.comm, &rank);
    MPI_Comm_size(E.comm, &size);
  }
  if (!EveryRankErred()) {
    if (E.code) fprintf(stderr, "halofwi: error (rank %d): %s\n", rank, E.msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
  }
  /* the lowest rank holding a message speaks for all */
  mine = E.code ? rank : size;
  MPI_Allreduce(&mine, &speaker, 1, MPI_INT, MPI_MIN, E.comm);
  if (rank == speaker) fprintf(stderr, "halofwi: error: %s\n", E.msg);
  fflush(stderr);
  MPI_Comm_free(&E.comm);
  PetscFinalize();
  return status;
}
