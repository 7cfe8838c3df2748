/* Where a run's wall time went: an account, always on, of a few phases
   (set-up, allocation, forward, adjoint, I/O), the rest being "other".
   Time is charged to the innermost phase entered, so phases may nest (an
   allocation inside the set-up counts as allocation, once) and the parts
   sum to the whole.  The whole runs from the process's start, as the
   kernel records it, so that the loader and MPI's start-up count too.  A
   few clock reads per shot, never per step: unlike the -log_view events
   (events.h) it costs nothing worth switching off. */
#pragma once
#include <petscsys.h>

typedef enum { TIME_SETUP, TIME_ALLOCATION, TIME_FORWARD, TIME_ADJOINT, TIME_IO, TIME_OTHER, TIME_PHASES } TimePhase;

/* The account's state at an instant: seconds since the process started,
   and the seconds charged to each phase by then. */
typedef struct {
  PetscLogDouble now, phase[TIME_PHASES];
} TimeMark;

/* First thing in main: the account starts, all in "other". */
void      TimingStart(void);
/* Charges the time from now to `phase`, until TimingLeave; returns the
   phase to give back to it. */
TimePhase TimingEnter(TimePhase phase);
void      TimingLeave(TimePhase previous);
/* The account now; a zeroed mark is the process's start. */
void      TimingMark(TimeMark *m);
/* Prints, on comm's rank 0 and for rank 0's account, the time from `since`
   to now and its parts:
   "<what>run time: T s in all: set-up S, allocation A, forward F, adjoint B, I/O I, other O". */
PetscErrorCode TimingReport(MPI_Comm comm, const char *what, const TimeMark *since);
