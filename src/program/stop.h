/* Stopping a run on request (docs/options.md, "Stopping a run").  SIGINT or
   SIGTERM to a rank, or a file STOP in -output_dir, asks for a stop; the run
   looks at its boundaries (an inversion's iterations, a forward run's rounds
   of shots), all ranks together, so that every rank stops at the same one and
   none is left waiting in a collective.  A stop that cannot wait for the
   next boundary (a second signal; a SIGTERM from Open MPI's launcher, which
   kills the ranks a second after it passes a signal on; a run without
   boundaries) ends every rank at once, rank 0 saying what is kept: every
   file is written whole under a temporary name and renamed, so what was
   saved before is complete. */
#pragma once
#include <petscsys.h>

/* The exit status of a stopped run: EX_TEMPFAIL of sysexits.h, "try again
   later" (for an inversion, with -restart). */
#define STOP_EXIT_STATUS 75

/* Installs the handlers for the run writing to output_dir.  boundaries: the
   run calls StopCheck (else a signal stops it at once).  kept: what an
   immediate stop keeps and how to carry on, for the message of world's rank
   0. */
PetscErrorCode StopWatch(MPI_Comm world, const char *output_dir, PetscBool boundaries, const char *kept);
/* At a boundary, collective over world: *stop when any rank was signalled or
   world rank 0 sees output_dir/STOP, which it then removes. */
PetscErrorCode StopCheck(MPI_Comm world, PetscBool *stop);
/* After StopCheck stopped the run: what asked for it ("SIGTERM",
   "out/STOP (removed)"), for the run's message. */
const char *StopCause(void);
/* main's exit status: STOP_EXIT_STATUS once StopCheck has stopped the run,
   else 0. */
int StopExitStatus(void);
/* A run ending in an error: SIGINT and SIGTERM take their default action
   again, so that the SIGTERM Open MPI sends after an MPI_Abort brings no
   stop message. */
void StopDisarm(void);
