/* Set-up shared by every mode. */
#pragma once
#include "data/geometry.h"
#include "data/segy_survey.h"
#include "grid/grid.h"
#include "grid/layout.h"
#include "grid/model.h"
#include "options/options.h"
#include "shot/propagate.h"

/* -geometry (text or SEG-Y), -observed_segy's headers (of the files
   `which` selects: the first recorded component's) or the regular survey,
   in the model's frame (its origin subtracted), validated against the model
   (receivers outside it dropped under -drop_outside) and against PetscInt (a
   shot's receivers x -nt samples). */
PetscErrorCode SurveyRead(MPI_Comm comm, const Options *o, const ModelInfo *m, const SegyPart *which, Geometry *geo);
/* Notes the sources and receivers so near a free surface that its ghost
   weakens them at -f0 (vslow: the slowest velocity, taken for the water or
   weathering under the surface). */
PetscErrorCode NoteGhosts(MPI_Comm comm, const Options *o, const ModelInfo *m, const Geometry *geo, PetscReal vslow);
/* Warns when the grid has too few cells per wavelength at -f0 for -order. */
PetscErrorCode WarnOnDispersion(MPI_Comm comm, const Options *o, const Equation *eq, const ModelInfo *m, PetscReal vmin);
/* The recording-rate wavelet (Ricker or -wavelet file) into w[nt]; a
   Ricker that never fires within the record is refused. */
PetscErrorCode SourceWavelet(MPI_Comm comm, const Options *o, const TimeAxis *t, float *w);
/* The run's set-up, on rank 0; warns when shot groups outnumber the shots. */
PetscErrorCode PrintSetUp(MPI_Comm world, const Layout *l, const ModelInfo *m, const Grid *g, const Geometry *geo, const TimeAxis *t, PetscReal vmin,
                          PetscReal vmax);
