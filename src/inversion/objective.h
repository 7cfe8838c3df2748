/* The misfit J (by default 1/2 sum over shots, receivers and recorded
   samples of (modelled - observed)^2; -misfit, misfit.h; with -record
   naming several components, their weighted sum, ObjectiveSetBand) and its exact gradient with respect to the user's
   velocity model.  Every group models its shots; J is summed over the world
   and the gradient reduced over the cross comm into group 0 (see
   docs/architecture.md). */
#pragma once
#include "setup/experiment.h"
#include "grid/modelspace.h"
#include "equations/store.h"
#include <stdint.h>

typedef struct {
  const Options *o;
  Experiment     e;
  ModelSpace     ms;
  WavefieldStore store;
  PetscReal      vp_lo, vp_hi;   /* bounds; vp_hi also set the time step and the layers */
  PetscReal      damping;        /* -damping, "auto" resolved by the model's dimension */
  float        **obs_raw, **obs; /* group rank 0: this group's gathers as read, and low-passed for the band (each shot's components, e.ncomponent, one after the other) */
  double         weight[EQUATION_MAX_COMPONENTS]; /* each component's weight in the band's misfit (ObjectiveSetBand) */
  uint64_t      *obs_sum;        /* every shot's observed samples, FNV-1a 64 (Fnv1a), on every rank */
  PetscBool     *killed;         /* -kill_traces: a flag per trace of the survey (NULL: no list) */
  float         *vp_start;       /* the starting model's user cells on this rank */
  /* The equation's parameters after vp, k = 1 .. nparameter - 1 ([0]
     unused): the starting model's user cells on this rank; NULL, or the
     model ObjectiveSetModel takes with vp (user cells, every group), else
     it stays as loaded; and the bounds of an inverted one (ParameterBounds). */
  float         *start[EQUATION_MAX_PARAMETERS];
  float         *rest[EQUATION_MAX_PARAMETERS];
  PetscReal      lo[EQUATION_MAX_PARAMETERS], hi[EQUATION_MAX_PARAMETERS];
  PetscInt       band;           /* the band being inverted (0-based), for the data selection */
  float         *w_band;         /* the band's wavelet at the recording interval (e.wint: at the internal step) */
  float        **wint_shot;      /* estimated wavelets at the internal step, one per group shot (NULL: the band's, e.wint) */
  double        *grad_ext[EQUATION_MAX_PARAMETERS]; /* each parameter's gradient on the owned extended cells, made at the first evaluation and kept */
  double       **grad_rest;      /* NULL, or one array per parameter after vp (Equation.parameter; NULL for one not wanted), this rank's user cells: their gradient, from every evaluation that makes one (group 0) */
} Objective;

/* Reads the model, survey and observed data; checks bounds and memory.
   Observed data zero in every sample, or a data selection that keeps no
   trace in any band, are refused: there is nothing to fit (a band that
   keeps none while others keep some is warned about). */
PetscErrorCode ObjectiveCreate(MPI_Comm world, const Options *o, Objective *obj);
PetscErrorCode ObjectiveDestroy(Objective *obj);
/* Collective: the inversion's gradient weights (weight: this rank's user
   cells, read on group 0; 0 = fixed) must leave some cell free: -fix_above
   below the model, or tapers (radius: the source and receiver tapers', m)
   that zero every cell, are refused, and tapers that damp every cell are
   warned about. */
PetscErrorCode ObjectiveCheckFreeCells(const Objective *obj, const double *weight, const PetscReal radius[2]);
/* Band `band` (0-based): low-passes the wavelet and the observed data at
   fcut Hz (0: as given), selects the band's data selection, and sets each
   component's weight in the misfit: the first's 1, a further one's, with
   -misfit l2, the first's observed energy in the band over its own. */
PetscErrorCode ObjectiveSetBand(Objective *obj, PetscInt band, PetscReal fcut);
/* The propagators' model: vp, this rank's user cells, the same on every
   group, with obj->rest[k] where set; refused (on every rank) outside (0,
   vp_hi], with a density not above 0, or a model the equation refuses
   (Equation.check_model: 0 <= vs < vp). */
PetscErrorCode ObjectiveSetModel(Objective *obj, const float *vp);
/* The group's shot k modelled with the model set and its wavelet: the
   gathers (nrec x nt) of the first nc components the misfit reads, one
   after the other, in *all on the group's first rank, to free; NULL
   elsewhere.  Collective over the group. */
PetscErrorCode ObjectiveModelShot(Objective *obj, PetscInt k, PetscInt nc, float **all);
/* vp: this rank's user cells, the same model on every group.  J on every
   rank; grad (this rank's user cells, may be NULL) complete on group 0. */
PetscErrorCode ObjectiveEvaluate(Objective *obj, const float *vp, double *J, double *grad);
/* Writes a model-sized array held by group 0 (its ranks' user cells), as
   SEG-Y when name ends in .sgy or .segy, else as RSF, and then with -vtk and
   a vtk_name (the array's name there) as .vti beside it. */
PetscErrorCode ObjectiveWriteModel(Objective *obj, const char *name, const char *vtk_name, const char *label, const char *unit, const float *user, PetscBool overwrite);
