/* The acoustic equation's state on one rank, behind EquationState: its
   fields and their operations on one backend, and what its gradient
   methods keep; and the pieces of its scheme (scheme.c) that the boundary
   method (reconstruct.c, support.c) provides. */
#pragma once
#include "equations/acoustic/kernels.h"
#include "equations/store.h"
#include "equations/support.h"

/* The boundary method's forward field, run backwards: its own u and uprev;
   the model and everything else the state's. */
typedef struct {
  Fields    f;
  PetscInt  nband;
  Box       band[6];
  PetscBool pair;    /* the backend takes two reverse steps at once (KernelOps.adjoint_pair) */
  void     *scratch; /* its scratch, backend memory */
  FieldSupport support; /* per forward level u^0 .. u^N, where known: the cells it may be nonzero on (support.h) */
  Box       now[2];  /* the reverse step's Fields.fu_support */
} Reconstruction;

/* The marks of the quiet parts (Fields.u_live) cost every row some work,
   about 8% of a 3D reverse step that leaves no part (2% in 2D); the
   adjoint's waves only spread as it runs back, so once a step leaves fewer
   than this share of its parts, the run drops them (the same gradient
   either way). */
#define ACOUSTIC_QUIET_SHARE_MIN 0.05

typedef struct {
  Fields           f;
  const KernelOps *ops;
  const Grid      *grid;
  float           *host_vdt2;  /* v^2 dt^2 padded on its way to a device (EquationModelTarget) */
  GradientMethod   method;
  PetscBool        skip_quiet; /* the adjoint keeps Fields.u_live where the backend can (KernelOps.adjoint_live) */
  PetscBool        quiet;      /* this adjoint run keeps it, still */
  size_t           quiet_seen[2];  /* Fields.parts_left at the last reverse step's end */
  PetscInt         quiet_steps[2]; /* reverse steps that kept Fields.u_live, and all that could have */
  PetscBool        in_step;    /* this reverse step's adjoint_step injects the residuals (KernelOps.adjoint_injects) */
  PetscBool        read[2];    /* full storage: this reverse step reads stored step n [0] and n + 1 [1] */
  Reconstruction   rec;        /* boundary method */
} AcousticState;

static inline AcousticState *AcousticStateOf(EquationState *s) { return (AcousticState *)s; }
static inline const AcousticState *AcousticStateOfConst(const EquationState *s) { return (const AcousticState *)s; }

/* The fields of the acoustic Equation table (acoustic.c), in its order. */
enum { ACOUSTIC_U, ACOUSTIC_PSI, ACOUSTIC_ZETA, ACOUSTIC_FU };

/* The scheme (scheme.c) and the hooks of it that make and read the state
   (state.c): see EquationScheme. */
extern const EquationScheme AcousticScheme;
PetscErrorCode AcousticStateCreate(const Grid *g, const EquationKernels *k, const EquationStateSettings *settings, EquationState **s);
PetscErrorCode AcousticStateDestroy(EquationState **s);
PetscErrorCode AcousticStateSetModel(EquationState *s, const float *const value[], PetscReal dt);
void          *AcousticStateLanes(const EquationState *s);
float         *AcousticStateField(const EquationState *s, PetscInt k, PetscInt ax, PetscInt side);
PetscErrorCode AcousticStateForward(const EquationState *s, PetscInt *n, float *data[], size_t count[]);
PetscBool      AcousticStateSplitBoxes(const EquationState *s, PetscBool adjoint);
PetscErrorCode AcousticStateSetMethod(EquationState *s, GradientMethod m);
PetscErrorCode AcousticStateRecord(EquationState *s, PetscInt c, const PointMap *map, const float remote[], float out[]);
PetscErrorCode AcousticStateAllFinite(EquationState *s, PetscBool *finite);
PetscErrorCode AcousticStateImage(EquationState *s, PetscInt k, const float **padded);
PetscErrorCode AcousticStateReport(const EquationState *s, MPI_Comm comm);

/* The boundary method (reconstruct.c).  Set up: the reconstruction's
   fields for method m (none but for the boundary method).  Save: the band
   of u^n into the store at forward step n (n < nsteps - 1).  Start: after
   the forward run, its last two levels become the reconstruction's.  At
   reverse step n, Begin mirrors the forward field's ghosts across free
   surfaces and hands the adjoint step (which exchanges its halos too) that
   field, u^n and u^{n+1}: over the core that step writes u^{n-1} =
   2 u^n - u^{n+1} + v^2 dt^2 L u^n and images with L u^n (within the
   forward run's support boxes where they are kept, support.h); End adds
   the source term, zeroes the free surface and puts the band of u^{n-1}
   back.  Pair: reverse steps n and n - 1 at once, where rec.pair says the
   backend can (n >= 1): the same as Begin, the adjoint step and End twice. */
PetscErrorCode ReconstructionSetUp(AcousticState *a, GradientMethod m);
PetscErrorCode ReconstructionSave(AcousticState *a, WavefieldStore store, PetscInt n, PetscInt nsteps);
void           ReconstructionStart(AcousticState *a);
PetscErrorCode ReconstructionBegin(AcousticState *a, PetscInt n);
PetscErrorCode ReconstructionEnd(AcousticState *a, const EquationStepPoints *points, WavefieldStore store, PetscInt n);
PetscErrorCode ReconstructionPair(AcousticState *a, WavefieldStore store, PetscInt n, const EquationStepPoints points[2]);
PetscErrorCode ReconstructionDestroy(AcousticState *a);
