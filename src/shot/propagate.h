/* The time loop of one shot on one group, whatever the equation: the
   equation's scheme (EquationScheme) steps its state, and this layer
   around it records the receivers, carries the halos of each stage while
   the interior is stepped, checks, reports and sums the gradient over the
   shots; and its exact adjoint, run backwards in time, for the gradient. */
#pragma once
#include <halofwi/halo.h>
#include "data/exactsum.h"
#include "equations/equation.h"
#include "equations/store.h"
#include "grid/grid.h"
#include "grid/timeaxis.h"
#include "shot/survey.h"

/* How a run exchanges halos, reports and guards itself. */
typedef struct {
  PetscReal f_pml;              /* frequency the CPML is tuned to (Hz) */
  PetscInt  nan_check_interval; /* steps between NaN/Inf checks */
  PetscReal progress_interval;  /* seconds between progress lines within a shot, 0 = none */
  HaloType  halo_type;          /* host for the CPU backend; a device type for CUDA */
  PetscBool overlap;            /* interior computed while the halos travel */
  PetscBool skip_quiet;         /* the adjoint leaves work it can prove is nothing undone, where the equation's backend can (-adjoint_skip_quiet) */
  GpuTile   gpu_tile;           /* device backends: the core kernel's launch shape (-gpu_tile) */
  PetscInt  source_kind;        /* what the sources are (Equation.source_kind; 0 where it offers one kind) */
  PetscInt  component;          /* what PropagatorRun records and PropagatorAdjoint takes the residuals of (Equation.component) */
  /* the parameters whose gradients are wanted, the equation's first
     nimage (0: all): parameter k's reads the images of parameters 0 .. k
     alone (Equation.gradient), so the adjoint forms no others and the
     sums over shots of those stay 0 */
  PetscInt  nimage;
  /* a look at the forward field (snapshots, the pseudo-Hessian): every
     watch_steps internal steps (0 = never), watch(ctx, shot, steps done,
     field) with the equation's watch_field at that time (backend memory,
     the rank's padded box, GridPaddedCells) */
  PetscInt watch_steps;
  PetscErrorCode (*watch)(void *ctx, PetscInt shot, PetscInt steps, const float *field);
  void *watch_ctx;
} PropagatorSettings;

/* Checkpointing's replay state, snapshots and schedule (checkpoint.c). */
typedef struct Checkpoints Checkpoints;

typedef struct {
  const Equation   *eq;
  const BackendOps *backend;
  EquationKernels   kernels;        /* as created, for a second state */
  EquationStateSettings state_settings;
  const Grid       *grid;
  EquationState    *state;
  Halo              halo;            /* the padded box's fields, across every face */
  Halo              slab_halo[3][2]; /* each layer slab's fields, across the faces of its axis that cut its layer */
  PetscInt          nbox[2][2];      /* [forward, adjoint][interior, shell] */
  Box              *box[2][2];
  PetscBool         alone;     /* no neighbour across any face: the halos carry nothing */
  PropagatorSettings settings;
  Decimator         decimator; /* receiver traces: internal step -> recording interval */
  size_t            owned;     /* owned cells */
  ExactSum         *gsum;      /* per parameter, the shots' images since the last reset, owned cells (z fastest): gsum[k * owned + c] */
  PetscBool         single;    /* one image since the reset and no other group's: no sum (PropagatorGradientReset) */
  PetscInt          runs;      /* the state's runs so far, forward and adjoint */
  struct {
    PetscInt runs; /* the adjoint run that left its images in the state (-1: none yet) */
    PetscInt n;
    size_t  *cell; /* its source's term at owned cell[i]: sum[i] */
    double  *sum;
  } lone; /* single's image */
  Checkpoints      *ck;        /* -gradient_method checkpoint, or NULL */
} Propagator;

/* The equation eq on backend k (one of eq->kernels()); model[k]: parameter
   k over the owned box, z fastest; vmax: the fastest wave (m/s), which
   the absorbing layers are tuned to. */
PetscErrorCode PropagatorCreate(const Grid *g, const Equation *eq, const EquationKernels *k, const float *const model[], PetscReal vmax, const TimeAxis *t,
                                const PropagatorSettings *settings, Propagator *p);
PetscErrorCode PropagatorDestroy(Propagator *p);
/* Replaces the model (as PropagatorCreate takes it); the time axis and the
   absorbing layers stay as created. */
PetscErrorCode PropagatorSetModel(Propagator *p, const TimeAxis *t, const float *const model[]);

/* Runs one shot: wavelet[] at the internal step (t->nsteps samples); traces[]
   receives the local receivers' traces of the settings' component (shot
   localized at its nodes) at the recording interval, trace k at traces[k * nt].  With a store,
   every step also leaves there what the adjoint needs.  Collective over
   the group; shot names errors. */
PetscErrorCode PropagatorRun(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id,
                             const float *wavelet, float *traces, WavefieldStore store);

/* What receivers record besides: component (Equation.component) at the
   receivers `at` localizes (ShotLocalizeAt, at that component's nodes),
   into traces as above. */
typedef struct {
  PetscInt         component;
  const ShotLocal *at;
  float           *traces;
} ShotRecord;
/* PropagatorRun recording each of the nrecord records (the shot's source
   from `shot`). */
PetscErrorCode PropagatorRunRecords(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet, PetscInt nrecord,
                                    const ShotRecord record[], WavefieldStore store);

/* Sets how the store is used (GRADIENT_FULL, as created, or
   GRADIENT_BOUNDARY, which allocates what the equation needs to run its
   forward field backwards); the store given to PropagatorRun and
   PropagatorAdjoint must have the shape Equation.store_shape gives. */
PetscErrorCode PropagatorSetGradientMethod(Propagator *p, GradientMethod m);

/* Checkpointing (-gradient_method checkpoint): full storage's gradient,
   bit for bit, from `snapshots` snapshots of the forward state (fields and
   layer memory) and a store that is a ring of window + 1
   steps (WavefieldStoreSetRing), the forward steps run again, in windows
   of `window` steps, as the binomial schedule (revolve.h) says; a second
   state of the equation runs them, which PropagatorSetModel keeps on the
   same model.  The snapshots lie where `where` says: STORAGE_DISK, a file
   per rank in dir; STORAGE_DEVICE, the backend's memory (a device's,
   copied within it); else host memory (a device backend's come down and
   go back up). */
PetscErrorCode PropagatorSetCheckpoints(Propagator *p, const TimeAxis *t, const float *const model[], PetscInt snapshots, PetscInt window, WavefieldStorage where,
                                        const char *dir);

/* The lanes the propagator's work queues on (BackendOps), for a store's
   copies. */
static inline void *PropagatorLanes(const Propagator *p) { return p->eq->scheme->lanes(p->state); }
/* Zeroes the gradient's sum over shots; single: this rank takes one
   shot's images before PropagatorGradient and no other group adds its
   own, so none is summed: PropagatorGradient reads them from the state
   (the same bits as the exact sum of one image), and 40 bytes a cell and
   parameter are neither allocated nor written. */
PetscErrorCode PropagatorGradientReset(Propagator *p, PetscBool single);
/* The adjoint of PropagatorRun for the same shot and store: residual[] as
   traces[] above, for the receivers that reach this rank's cells
   (shot->reach_id) rather than those it records.  The shot's images
   (EquationScheme.image: per parameter, cell by cell, the sum over steps
   in float) and its source's own term (Equation.source_image) are added
   to the sums over shots exactly, so that they do not depend on the order
   or the grouping of the shots. */
PetscErrorCode PropagatorAdjoint(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet,
                                 const float *residual, WavefieldStore store);
/* The residuals of one component (Equation.component) for the receivers
   that reach this rank's cells as `at` localizes them (ShotLocalizeAt, at
   that component's nodes: at->reach_id), as PropagatorAdjoint takes them. */
typedef struct {
  PetscInt         component;
  const ShotLocal *at;
  const float     *residual;
} ShotResidual;
/* PropagatorAdjoint for a misfit of several components, the adjoint of
   PropagatorRunRecords: each of the nresidual components' residuals go in
   at every step (the shot's source from `shot`). */
PetscErrorCode PropagatorAdjointResiduals(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet, PetscInt nresidual,
                                          const ShotResidual residual[], WavefieldStore store);
/* Collective over comm: the equation's line on the work its adjoint left
   undone (PropagatorSettings.skip_quiet), where it left any. */
PetscErrorCode PropagatorQuietReport(MPI_Comm comm, const Propagator *p);
/* Adds every group's sum over shots into the sum of group 0 (cross's rank 0). */
PetscErrorCode PropagatorGradientReduce(Propagator *p, MPI_Comm cross);
/* dJ with respect to each parameter, grad[k] over the owned cells (z
   fastest), since the last reset: the sums over shots through the
   equation's chain rule (Equation.gradient); model as given to
   PropagatorSetModel. */
PetscErrorCode PropagatorGradient(Propagator *p, const float *const model[], double *const grad[]);
