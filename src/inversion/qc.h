/* What an inversion user looks at besides the model (docs/options.md,
   "Quality control"): per band, the observed, modelled and residual gathers
   of the shots -qc_shots names, and with -qc_illumination the
   pseudo-Hessian's diagonal (pseudohessian.h) as a model-sized file. */
#pragma once
#include "inversion/objective.h"

typedef struct {
  PetscBool *chosen;  /* per survey shot: its gathers are written */
  PetscInt   nchosen;
} Qc;

/* Parses -qc_shots against the survey (each a shot number from 0 to
   nshots - 1; an error names the value), and on rank 0 creates
   -output_dir/qc and refuses QC files of an earlier run that this one would
   replace, unless -overwrite or -restart.  Collective over the world. */
PetscErrorCode QcCreate(const Objective *obj, Qc *qc);
PetscErrorCode QcDestroy(Qc *qc);
/* Band `band` (0-based) ends with model vp (this rank's user cells, every
   group): each chosen shot's gathers, the observed as the band fits them
   (low-passed), the modelled and modelled - observed, written by the group
   rank 0 that holds the shot to qc/band_B_shot_NNNN_{observed,modelled,
   residual}.rsf, and those of each further component the misfit reads to
   ..._{observed,modelled,residual}_NAME.rsf.  Nothing without -qc_shots.
   Collective over the world. */
PetscErrorCode QcWriteBand(Objective *obj, const Qc *qc, const float *vp, PetscInt band);
/* -qc_illumination where the inversion computes no pseudo-Hessian
   (-precondition none): computes it for model vp and writes it as
   PseudoHessianWrite does.  Collective over the world. */
PetscErrorCode QcIllumination(Objective *obj, const float *vp, PetscInt band);
