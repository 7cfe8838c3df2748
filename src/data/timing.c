#include "data/timing.h"
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static PetscLogDouble Start, Last, Charged[TIME_PHASES];
static TimePhase      Current = TIME_OTHER;

/* Seconds the process had run before this call, from its start time in
   /proc/self/stat (clock ticks since boot); 0 where that cannot be read or
   makes no sense. */
static double BeforeMain(void)
{
  FILE              *fp = fopen("/proc/self/stat", "r");
  char               buf[1024], *p = NULL;
  unsigned long long ticks = 0;
  struct timespec    boot;
  double             ran = 0;

  if (!fp) return 0;
  if (fgets(buf, sizeof buf, fp)) p = strrchr(buf, ')'); /* the command name may hold spaces */
  fclose(fp);
  /* after ")": field 3 (state) ... field 22 (starttime), 19 fields on */
  if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &ticks) == 1 && !clock_gettime(CLOCK_BOOTTIME, &boot))
    ran = boot.tv_sec + 1e-9 * boot.tv_nsec - (double)ticks / sysconf(_SC_CLK_TCK);
  return ran > 0 && ran < 600 ? ran : 0;
}

void TimingStart(void)
{
  PetscLogDouble now;

  (void)PetscTime(&now);
  Last  = now;
  Start = now - BeforeMain();
  Charged[TIME_OTHER] = now - Start;
}

/* Charges the time since the last switch to the current phase. */
static PetscLogDouble Switch(TimePhase next)
{
  PetscLogDouble now;

  (void)PetscTime(&now);
  Charged[Current] += now - Last;
  Last    = now;
  Current = next;
  return now;
}

TimePhase TimingEnter(TimePhase phase)
{
  const TimePhase previous = Current;

  (void)Switch(phase);
  return previous;
}

void TimingLeave(TimePhase previous) { (void)Switch(previous); }

void TimingMark(TimeMark *m)
{
  m->now = Switch(Current) - Start;
  for (int k = 0; k < TIME_PHASES; k++) m->phase[k] = Charged[k];
}

PetscErrorCode TimingReport(MPI_Comm comm, const char *what, const TimeMark *since)
{
  TimeMark       m;
  PetscLogDouble part[TIME_PHASES];

  PetscFunctionBeginUser;
  TimingMark(&m);
  for (int k = 0; k < TIME_PHASES; k++) part[k] = m.phase[k] - since->phase[k];
  PetscCall(PetscPrintf(comm, "%srun time: %.2f s in all: set-up %.2f, allocation %.2f, forward %.2f, adjoint %.2f, I/O %.2f, other %.2f\n", what, m.now - since->now,
                        part[TIME_SETUP], part[TIME_ALLOCATION], part[TIME_FORWARD], part[TIME_ADJOINT], part[TIME_IO], part[TIME_OTHER]));
  PetscFunctionReturn(0);
}
