/* halofwi: domain-decomposed acoustic modelling, gradients and inversion. */
#include "events.h"
#include "forward.h"
#include "gradient.h"
#include "invert.h"
#include "optcheck.h"
#include "optfile.h"
#include "options.h"
#include "output.h"
#include "stop.h"
#include "timing.h"

static const char help[] = "halofwi: full-waveform modelling and inversion on domain-decomposed grids.\n"
                           "Options are listed below; see docs/options.md.\n";

int main(int argc, char **argv)
{
  Options        o;
  PetscErrorCode ierr;
  PetscBool      show_help = PETSC_FALSE;

  TimingStart();
  if (OptionSourcesCheck(argc, argv)) return PETSC_ERR_USER_INPUT; /* before PETSc reads them */
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  ierr = EventsRegister();
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
  /* PETSc has printed the error; end every rank so none waits in a collective. */
  if (ierr) {
    OutputRelease(); /* MPI_Abort runs no atexit handler */
    StopDisarm();
    MPI_Abort(PETSC_COMM_WORLD, (int)ierr);
  }
  PetscCall(PetscFinalize());
  return StopExitStatus();
}
