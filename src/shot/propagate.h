/* The time loop of one shot on one group:
     record u^n -> free-surface ghosts -> Begin halo(u, psi) -> interior (on
     the side lane) -> End halo -> boundary shell -> join -> advance CPML
     memory -> inject -> rotate;
   and its exact adjoint, run backwards in time, for the gradient. */
#pragma once
#include <halofwi/halo.h>
#include "data/exactsum.h"
#include "grid/grid.h"
#include "equations/acoustic/acoustic.h"
#include "shot/store.h"
#include "shot/survey.h"
#include "grid/timeaxis.h"

/* How a run exchanges halos, reports and guards itself. */
typedef struct {
  PetscReal f_pml;              /* frequency the CPML is tuned to (Hz) */
  PetscInt  nan_check_interval; /* steps between NaN/Inf checks */
  PetscReal progress_interval;  /* seconds between progress lines within a shot, 0 = none */
  HaloType  halo_type;          /* host for the CPU backend; a device type for CUDA */
  PetscBool overlap;            /* interior computed while the halos travel */
  PetscBool skip_quiet;         /* the adjoint keeps Fields.u_live where the backend can (KernelOps.adjoint_live) */
  GpuTile   gpu_tile;           /* Fields.gpu_tile */
  /* a look at the forward field (snapshots, the pseudo-Hessian): every
     watch_steps internal steps (0 = never), watch(ctx, shot, steps done,
     field) with the equation's watch_field at that time (backend memory,
     the rank's padded box, GridPaddedCells) */
  PetscInt watch_steps;
  PetscErrorCode (*watch)(void *ctx, PetscInt shot, PetscInt steps, const float *field);
  void *watch_ctx;
} PropagatorSettings;


/* The boundary method's forward field, run backwards: its own u and uprev;
   the model and everything else the propagator's. */
typedef struct {
  Fields    f;
  PetscInt  nband;
  Box       band[6];
  PetscBool pair;    /* the backend takes two reverse steps at once (KernelOps.adjoint_pair) */
  void     *scratch; /* its scratch, backend memory */
  Box      *support; /* per forward level u^0 .. u^N, where known: the cells it may be nonzero on (support.h) */
  PetscInt  nsupport;
  Box       now[2];  /* the reverse step's Fields.fu_support */
} Reconstruction;


typedef struct {
  const Equation  *eq;
  const KernelOps *ops;
  const Grid      *grid;
  Fields           f;
  Halo             halo;            /* u, across every face */
  Halo             slab_halo[3][2]; /* psi of each layer slab, across the faces of its axis that cut its layer */
  PetscInt         nbox[2][2]; /* [forward, adjoint][interior, shell] */
  Box             *box[2][2];
  PropagatorSettings settings;
  Decimator        decimator; /* receiver traces: internal step -> recording interval */
  ExactSum        *gsum;      /* the shots' gradient terms since the last reset, owned cells (z fastest) */
  float           *host_vdt2; /* v^2 dt^2 padded, in host memory on its way in: kept, as an inversion sets a model every evaluation */
  GradientMethod   method;  /* how PropagatorRun with a store and PropagatorAdjoint work */
  Reconstruction   rec;     /* boundary method */
} Propagator;

/* The equation eq on backend ops (one of eq->kernels()); vp: the owned
   box, z fastest. */
PetscErrorCode PropagatorCreate(const Grid *g, const Equation *eq, const KernelOps *ops, const float *vp, PetscReal vmax, const TimeAxis *t,
                                const PropagatorSettings *settings, Propagator *p);
PetscErrorCode PropagatorDestroy(Propagator *p);
/* Replaces the model (the owned box, z fastest); the time axis and the
   absorbing layers stay as created. */
PetscErrorCode PropagatorSetModel(Propagator *p, const TimeAxis *t, const float *vp);

/* Runs one shot: wavelet[] at the internal step (t->nsteps samples); traces[]
   receives the local receivers' traces at the recording interval, trace k at
   traces[k * nt].  With a store, every step also leaves there what the
   adjoint needs.  Collective over the group; shot names errors. */
PetscErrorCode PropagatorRun(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id,
                             const float *wavelet, float *traces, WavefieldStore store);

/* Sets how the store is used (GRADIENT_FULL, as created, or
   GRADIENT_BOUNDARY, which allocates the reconstruction's fields); the
   store given to PropagatorRun and PropagatorAdjoint must have the shape
   GradientStoreShape gives. */
PetscErrorCode PropagatorSetGradientMethod(Propagator *p, GradientMethod m);

/* The lanes the propagator's work queues on (BackendOps), for a store's
   copies. */
static inline void *PropagatorLanes(const Propagator *p) { return p->f.backend; }
/* Zeroes the gradient's sum over shots. */
PetscErrorCode PropagatorGradientReset(Propagator *p);
/* The adjoint of PropagatorRun for the same shot and store: residual[] as
   traces[] above, for the receivers that reach this rank's cells
   (shot->reach_id) rather than those it records.  The shot's image (f.grad: cell by cell, the sum over
   steps of the adjoint field times the stored term, in float) and its
   source's own term (its injection is scaled by v^2 dt^2 too) are added to
   the sum over shots exactly, so that the sum does not depend on the order
   or the grouping of the shots. */
PetscErrorCode PropagatorAdjoint(Propagator *p, const TimeAxis *t, const ShotLocal *shot, PetscInt shot_id, const float *wavelet,
                                 const float *residual, WavefieldStore store);
/* Prints the share of the adjoint's row parts' steps left as they were
   (PropagatorSettings.skip_quiet) over the ranks of comm, where any was kept. */
PetscErrorCode PropagatorQuietReport(MPI_Comm comm, const Propagator *p);
/* Adds every group's sum over shots into the sum of group 0 (cross's rank 0). */
PetscErrorCode PropagatorGradientReduce(Propagator *p, MPI_Comm cross);
/* dJ/dv of the owned cells (z fastest) since the last reset: the sum over
   shots through the equation's chain rule (Equation.gradient); vp as given
   to PropagatorSetModel. */
PetscErrorCode PropagatorGradient(Propagator *p, const float *vp, double *grad);
