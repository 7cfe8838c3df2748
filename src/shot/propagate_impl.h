/* Private to the propagator: the pieces of a time step that the forward
   run (propagate.c) and its adjoint (adjoint.c) share. */
#pragma once
#include "shot/propagate.h"

/* A shot's points in backend memory, so a step needs no transfer beyond
   the values other ranks' receivers read: the maps of survey.h (src_cells:
   the source's cells alone, weight 1), and per internal step the source
   amplitude injected (wav), the field at the source's cells (at_src,
   adjoint), and in the adjoint each residual component's receivers that
   reach this rank (reach[i], nreach[i] of them) and their residuals
   (traces[i], one per reached receiver; the forward's samples are its
   ShotReceivers'). */
typedef struct {
  PointMap src, src_cells;
  float   *wav, *at_src;
  PetscInt nsrc; /* the source's rows */
  PetscInt nresidual;
  PetscInt component[EQUATION_MAX_COMPONENTS], nreach[EQUATION_MAX_COMPONENTS];
  PointMap reach[EQUATION_MAX_COMPONENTS];
  float   *traces[EQUATION_MAX_COMPONENTS];
} ShotPoints;

/* wavelet: at the internal step, before the source scaling; the adjoint's
   nresidual residual components (ShotResidual: their component and the
   localization whose reach they use), with room for their residuals
   (traces), none in a forward run. */
PetscErrorCode ShotPointsCreate(const Propagator *p, const TimeAxis *t, const ShotLocal *shot, const float *wavelet, PetscInt nresidual, const ShotResidual residual[],
                                ShotPoints *d);
PetscErrorCode ShotPointsDestroy(const Propagator *p, ShotPoints *d);
/* What step n injects and records besides the receivers (EquationStepPoints). */
EquationStepPoints ShotPointsAt(const ShotPoints *d, PetscInt n);
/* The stages of a step between the equation's step_begin and step_end:
   for each, its stage_begin, its boxes over the interior (on the side lane)
   while the stage's halos travel, or after them without overlap, then over
   the shell, the lanes joined, and its stage_end; on a rank alone, the
   equation's fused_stages where it takes the step. */
PetscErrorCode StepStages(Propagator *p, PetscBool adjoint, const EquationStepPoints *points);
/* A progress line from the group's first rank every progress_interval
   seconds (last: time and step of the previous one), done the steps done
   so far, steps of them since the last call. */
PetscErrorCode ReportProgress(const Propagator *p, const TimeAxis *t, const char *what, PetscInt shot_id, PetscInt done, PetscInt steps, PetscLogDouble last[2]);
/* Every nan_check_interval steps (one of the last steps of them) and after
   the last: a clear error, on every rank of the group, once the field
   holds NaN or Inf. */
PetscErrorCode CheckFinite(Propagator *p, const TimeAxis *t, const char *what, PetscInt shot_id, PetscInt done, PetscInt steps);
/* Fills the ghosts of the box fields listed (Equation.field indices) that
   the state holds now from the neighbours, at once. */
PetscErrorCode PropagatorExchangeBoxFields(Propagator *p, PetscInt n, const PetscInt list[]);

/* The model into p->state alone, its ghosts from the neighbours. */
PetscErrorCode PropagatorSetStateModel(Propagator *p, const TimeAxis *t, const float *const model[]);

/* Checkpointing's parts of a run (checkpoint.c): the replay state's model
   (PropagatorSetModel); the forward run's snapshots, before its step n
   (from step 0 on), and whether that step keeps its terms in the store;
   before the adjoint, and before its reverse step n, the schedule's
   actions up to step n's terms in the store. */
PetscErrorCode PropagatorCheckpointsSetModel(Propagator *p, const TimeAxis *t, const float *const model[]);
PetscErrorCode PropagatorCheckpointsDestroy(Propagator *p);
PetscErrorCode CheckpointsForwardStep(Propagator *p, PetscInt n, PetscBool *keep);
PetscErrorCode CheckpointsAdjointBegin(Propagator *p, const ShotPoints *d, PetscInt nsteps);
/* Runs the schedule up to reverse step n's turn. */
PetscErrorCode CheckpointsTurn(Propagator *p, const ShotPoints *d, WavefieldStore store, PetscInt n, PetscInt nsteps);
