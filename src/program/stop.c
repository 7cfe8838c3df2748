#include "program/stop.h"
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* StopCheck's reasons, the largest winning: a signal's number, or this for
   the stop file (SIGINT and SIGTERM are larger). */
#define BY_FILE 1

/* the first signal's number; 0: none.  Atomic: a process-directed signal
   may be taken by any thread (MPI's and OpenMP's too), so two can arrive at
   once in two threads, and exactly one must be the first. */
static atomic_int signalled;
static volatile sig_atomic_t decided;   /* StopCheck has stopped the run, which is ending */

static struct {
  PetscBool boundaries;
  PetscBool speaker;  /* world rank 0: prints, looks for the stop file */
  PetscBool orte;     /* started by Open MPI's mpiexec or orted, the parent */
  char      file[PETSC_MAX_PATH_LEN];
  char      kept[1024];
  char      cause[2 * PETSC_MAX_PATH_LEN];
} watch;

/* write(2): the handler may use nothing that allocates or locks. */
static void Say(const char *s)
{
  for (size_t n = strlen(s); n;) {
    const ssize_t w = write(STDOUT_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

static void OnSignal(int sig, siginfo_t *info, void *context)
{
  /* Open MPI's mpiexec (and orted) answers SIGINT and SIGTERM by sending
     SIGTERM to the ranks it started a second later, and SIGKILL a second
     after that (odls_base_sigkill_timeout): too soon for any boundary */
  const int launcher = watch.orte && info && info->si_code == SI_USER && info->si_pid == getppid();

  (void)context;
  if (decided) return;
  if (watch.boundaries && !launcher) {
    int none = 0;
    if (atomic_compare_exchange_strong(&signalled, &none, sig)) return;
  }
  if (watch.speaker) {
    /* one write, so that no other thread's line lands inside it */
    static char line[sizeof watch.kept + 160];
    const char *const part[] = {sig == SIGINT ? "Stopped at once by SIGINT" : "Stopped at once by SIGTERM",
                                launcher ? " from Open MPI's mpiexec, which kills the ranks a second later" : watch.boundaries ? " (the second request)" : "", ": ", watch.kept, "\n"};
    size_t n = 0;
    for (size_t k = 0; k < sizeof part / sizeof part[0]; k++)
      for (const char *c = part[k]; *c && n + 1 < sizeof line; c++) line[n++] = *c;
    line[n] = 0;
    Say(line);
  }
  /* wait for the launcher's SIGKILL: mpiexec stops passing output on once
     every rank has ended, and may drop the message of one that ends at once */
  if (launcher) sleep(5);
  _exit(STOP_EXIT_STATUS);
}

PetscErrorCode StopWatch(MPI_Comm world, const char *output_dir, PetscBool boundaries, const char *kept)
{
  struct sigaction sa;
  PetscMPIInt      rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(world, &rank));
  watch.speaker    = rank ? PETSC_FALSE : PETSC_TRUE;
  watch.boundaries = boundaries;
  /* set by ORTE's local daemon (mpiexec or orted) for the processes it starts; not for a singleton */
  watch.orte = getenv("OMPI_MCA_orte_local_daemon_uri") ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscSNPrintf(watch.file, sizeof(watch.file), "%s/STOP", output_dir));
  PetscCall(PetscStrncpy(watch.kept, kept, sizeof(watch.kept)));
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = OnSignal;
  /* SA_RESTART: a read or write the signal interrupts carries on instead of failing with EINTR */
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  PetscCheck(!sigaction(SIGINT, &sa, NULL) && !sigaction(SIGTERM, &sa, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot handle SIGINT and SIGTERM: %s", strerror(errno));
  PetscFunctionReturn(0);
}

PetscErrorCode StopCheck(MPI_Comm world, PetscBool *stop)
{
  int mine = atomic_load(&signalled), any;

  PetscFunctionBeginUser;
  if (!mine && watch.speaker && !access(watch.file, F_OK)) mine = BY_FILE;
  PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, world));
  *stop = any ? PETSC_TRUE : PETSC_FALSE;
  if (!any) PetscFunctionReturn(0);
  decided = 1;
  if (any != BY_FILE) PetscCall(PetscStrncpy(watch.cause, any == SIGINT ? "SIGINT" : "SIGTERM", sizeof(watch.cause)));
  else if (!watch.speaker) PetscCall(PetscStrncpy(watch.cause, watch.file, sizeof(watch.cause)));
  /* a request for this run: the next one starts without it */
  else if (!remove(watch.file)) PetscCall(PetscSNPrintf(watch.cause, sizeof(watch.cause), "%s (removed)", watch.file));
  else PetscCall(PetscSNPrintf(watch.cause, sizeof(watch.cause), "%s (which could not be removed: %s; remove it before carrying on)", watch.file, strerror(errno)));
  PetscFunctionReturn(0);
}

const char *StopCause(void) { return watch.cause; }

int StopExitStatus(void) { return decided ? STOP_EXIT_STATUS : 0; }

void StopDisarm(void)
{
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}
