/* halofwi: domain-decomposed acoustic modelling, gradients and inversion. */
#include "data/errors.h"
#include "data/events.h"
#include "program/forward.h"
#include "program/gradient.h"
#include "program/invert.h"
#include "program/optcheck.h"
#include "options/optfile.h"
#include "options/options.h"
#include "setup/output.h"
#include "program/stop.h"
#include "data/timing.h"
#include <malloc.h>
#include <string.h>

static const char help[] = "halofwi: full-waveform modelling and inversion on domain-decomposed grids.\n"
                           "Options are listed below; see docs/options.md.\n";

static const char usage[] = "usage: [mpiexec -n RANKS] halofwi -mode forward|gradient|invert -vp MODEL [-option value ...]\n"
                            "  halofwi -help lists every option with its default; docs/options.md describes them.\n"
                            "  e.g. halofwi -mode forward -vp marmousi -nshots 8 -output_dir out   (2D Marmousi, 8 shots into out/)\n";

/* No option from the command line, PETSC_OPTIONS or an options file. */
static PetscErrorCode NothingAsked(PetscBool *nothing)
{
  char *all;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  *nothing = all[strspn(all, " ")] ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Options        o;
  PetscErrorCode ierr;
  PetscBool      show_help = PETSC_FALSE, nothing = PETSC_FALSE;

  TimingStart();
  /* A library PETSc brings in (Debian's SuperLU_DIST, in its constructor)
     turns off glibc's mapping of large blocks, so that memory once freed
     (the model as read, a band's data) stays resident for the whole run.
     halofwi uses none of that library: large blocks are mapped again, at
     a fixed threshold, and go back to the system when freed, as the
     memory estimate counts them. */
  mallopt(M_MMAP_MAX, 65536);
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  if (OptionSourcesCheck(argc, argv)) return PETSC_ERR_USER_INPUT; /* before PETSc reads them */
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(NothingAsked(&nothing));
  if (nothing) { /* a bare halofwi asks what it does: it runs nothing */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", usage));
    PetscCall(PetscFinalize());
    return 0;
  }
  ierr = ErrorsInstall(PETSC_COMM_WORLD);
  if (!ierr) ierr = EventsRegister();
  if (!ierr) ierr = OptionsRead(PETSC_COMM_WORLD, &o);
  /* before any work, so that a typo costs nothing */
  if (!ierr) ierr = OptionsCheckUnused(PETSC_COMM_WORLD, &o);
  if (!ierr) ierr = PetscOptionsHasHelp(NULL, &show_help);
  if (!ierr && !show_help) switch (o.mode) {
    case MODE_FORWARD:
      ierr = RunForward(PETSC_COMM_WORLD, &o);
      break;
    case MODE_GRADIENT:
      ierr = RunGradient(PETSC_COMM_WORLD, &o);
      break;
    case MODE_INVERT:
      ierr = RunInvert(PETSC_COMM_WORLD, &o);
      break;
    }
  if (ierr) {
    OutputRelease(); /* an MPI_Abort runs no atexit handler */
    StopDisarm();
    return ErrorsExit(ierr);
  }
  PetscCall(PetscFinalize());
  return StopExitStatus();
}
