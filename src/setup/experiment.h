/* What every mode sets up before its first shot, as PETSc tutorials keep an
   AppCtx: the parallel layout and backend, the model and the survey, the
   decomposed grid with this rank's block of the model, the time axis, the
   propagator, this group's shots and the source wavelet.  In three steps,
   so that a mode can check what it needs in between (the output folder
   before anything large is read; the inversion's bounds and the observed
   data before anything large is allocated). */
#pragma once
#include "setup/backend.h"
#include "data/geometry.h"
#include "data/segy_survey.h"
#include "grid/grid.h"
#include "grid/layout.h"
#include "grid/model.h"
#include "options/options.h"
#include "setup/plan.h"
#include "shot/propagate.h"

typedef struct {
  const Options *o;
  Layout         l;
  Backend        backend;
  /* Each parameter of the equation (Equation.parameter[k]): its
     description (model[0], -vp's, gives the grid), this rank's owned
     extended block of it, and its range over the model. */
  ModelInfo      model[EQUATION_MAX_PARAMETERS];
  Geometry       geo;
  Grid           g;
  TimeAxis       t;
  Propagator     p;
  float         *ext[EQUATION_MAX_PARAMETERS];
  PetscReal      range[EQUATION_MAX_PARAMETERS][2];
  PetscReal      vslow;      /* the slowest wave the model carries (m/s) */
  PetscInt       source_kind; /* the sources' kind (-source_type: an index into Equation.source_kind, 0 where it offers none) */
  PetscInt       ncomponent;  /* what the receivers record (-record: indices into Equation.component), and the misfit reads */
  PetscInt       component[EQUATION_MAX_COMPONENTS];
  PetscInt       ngradient;   /* the parameters whose gradients the run takes, the equation's first ngradient (-invert_for; -mode gradient without it: all) */
  PetscInt       nshots;     /* this group's shots (round robin): shot[k], k < nshots */
  PetscInt      *shot;
  float         *w_raw;      /* source wavelet at the recording interval */
  float         *wint;       /* and at the internal step */
  double         cells;      /* extended grid cells */
  GradientPlan   plan;       /* gradient and invert modes */
} Experiment;

/* Layout, backend, model description and survey, and the memory's lower
   bound: nothing large is read or allocated. */
PetscErrorCode ExperimentCreate(MPI_Comm world, const Options *o, Experiment *e);
/* The decomposed grid and this rank's block of each parameter, with its
   range and the slowest wave. */
PetscErrorCode ExperimentLoadModel(Experiment *e);
/* The time axis for the fastest velocity the run will meet (vfast; it also
   tunes the absorbing layers), the printed set-up, the gradient's plan
   (modes other than forward; the propagator set to its method), the memory
   check, the
   dispersion warning for the slowest (vslow), the propagator, this group's
   shots and the wavelet. */
PetscErrorCode ExperimentSetUp(Experiment *e, PetscReal vfast, PetscReal vslow);
/* Where the group's shot k (shot[k]) acts on this rank's cells: built per
   shot, as off-grid points spread over many cells. */
PetscErrorCode ExperimentShotLocalize(const Experiment *e, PetscInt k, ShotLocal *sl);
/* The same with the receivers on the nodes along axis node (-1: the
   centres), where a staggered component lives (Equation.component). */
PetscErrorCode ExperimentShotLocalizeAt(const Experiment *e, PetscInt k, PetscInt node, ShotLocal *sl);
/* The same with the receivers on the nodes of recorded component j
   (component[j]). */
PetscErrorCode ExperimentShotLocalizeRecorded(const Experiment *e, PetscInt k, PetscInt j, ShotLocal *sl);
/* The name of recorded component j (component[j]: Equation.component's). */
const char *ExperimentComponentName(const Experiment *e, PetscInt j);
/* The SEG-Y files that hold recorded component j where the components lie
   side by side (SegyPart: j > 0 those named for it, the first those named
   for none of the equation's components); names[] backs *which. */
void ExperimentSegyPart(const Experiment *e, PetscInt j, const char *names[EQUATION_MAX_COMPONENTS], SegyPart *which);
PetscErrorCode ExperimentDestroy(Experiment *e);
/* What -invert_for may name for equation eq, in words ("vp, vp,vs or
   vp,vs,rho"), for messages. */
void ExperimentInvertedChoices(const Equation *eq, char *out, size_t len);
/* The index of the equation's density among its parameters, or -1. */
PetscInt ExperimentDensity(const Experiment *e);
