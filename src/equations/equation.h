/* What the layers above know of a wave equation: one Equation table per
   equation (equations/NAME/).  The set-up (the time step, the planner, the
   memory estimate, snapshots), the inversion and the shot layer's halo
   exchanges and chain rule read an equation through this table alone; the
   shot layer's time loop still steps the acoustic state itself
   (docs/architecture.md: what is left, and "Adding an equation"). */
#pragma once
#include "grid/grid.h"
#include "options/options.h"

struct Fields;    /* the equation's state on one rank (its fields.h) */
struct KernelOps; /* the equation's operations on that state, per backend (its kernels.h) */

#define EQUATION_MAX_FIELDS 8

/* A sparse map between a shot's points (sources, receivers) and the grid,
   row by row: row i has the entries [start[i], start[i+1]), each an index
   and a weight.  Sums run in double in entry order, products of floats being
   exact there, so a row's value depends neither on the backend nor on the
   decomposition.
   - inject: rows are distinct cells (cell[i]), entries index the amplitudes:
       uprev[cell[i]] += vdt2 * (float) sum w amp[index];
   - record: rows are points, entries index padded cells (index >= 0) or
       values another rank sent (remote[-1 - index]):
       out[i] = (float) sum w u[index]. */
typedef struct PointMap {
  PetscInt   nrows;
  ptrdiff_t *cell; /* inject only */
  PetscInt  *start;
  ptrdiff_t *index;
  float     *weight;
} PointMap;

/* A backend's memory and lanes, whatever the equation.  Work is queued in
   order on the main lane; between side_begin and side_end it goes to a
   second lane that runs alongside (on a GPU: the interior on the compute
   stream while the shell and the halo traffic use a high-priority stream).
   A host backend runs everything at once and its lane calls do nothing.
   `lanes` is the lane state an equation's state keeps (its kernels create
   it with the state). */
typedef struct BackendOps {
  const char *name;
  PetscBool   host_memory; /* backend memory is host memory, and work is done when its call returns: the caller reads and writes it in place */
  PetscErrorCode (*side_begin)(void *lanes); /* following work on the side lane, after the main lane's work so far */
  PetscErrorCode (*side_end)(void *lanes);   /* following work on the main lane again */
  PetscErrorCode (*join)(void *lanes);       /* the main lane waits for the side lane's work so far */
  PetscErrorCode (*main_stream)(void *lanes, void **stream); /* the main lane's CUDA stream: device halos queue there, whatever the lane; NULL on host */
  /* backend memory; uploads and downloads wait for all queued work */
  PetscErrorCode (*mem_alloc)(void **, size_t bytes); /* zeroed, every page mapped */
  PetscErrorCode (*mem_free)(void **);
  PetscErrorCode (*mem_zero)(void *lanes, void *, size_t bytes); /* queued on the current lane */
  PetscErrorCode (*mem_upload)(void *dst, const void *src, size_t bytes);
  PetscErrorCode (*mem_download)(void *dst, const void *src, size_t bytes);
  /* Host backends (0 on a device backend): what mapping one float per
     cell and step of fresh host memory costs, in forward runs (2D, 3D); the
     gradient planner weighs a store's bytes with it. */
  double first_use[2];
  /* Device backends only (NULL on host): free device memory, and host
     memory the device copies to and from asynchronously on a copy lane.
     copy_async starts once the main lane's work so far is done; copy_wait
     makes the main lane wait for the last copy of that slot (0 or 1). */
  PetscErrorCode (*device_free_memory)(size_t *bytes);
  PetscErrorCode (*host_alloc)(void **, size_t bytes);
  PetscErrorCode (*host_free)(void **);
  PetscErrorCode (*copy_async)(void *lanes, PetscInt slot, void *dst, const void *src, size_t bytes);
  PetscErrorCode (*copy_wait)(void *lanes, PetscInt slot);
} BackendOps;

/* The equation's operations on one backend, and that backend's memory and
   lanes. */
typedef struct {
  const struct KernelOps *ops;
  const BackendOps       *backend;
} EquationKernels;

/* Bytes of backend memory at dev, to read on the host: *host is dev itself
   where that is host memory, else a copy downloaded into *copy (PetscFree
   it; NULL where none was made). */
static inline PetscErrorCode EquationMemoryRead(const BackendOps *b, const void *dev, size_t bytes, void **copy, const void **host)
{
  PetscFunctionBeginUser;
  *copy = NULL;
  *host = NULL;
  if (b->host_memory) {
    *host = dev;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc(bytes, copy));
  PetscCall(b->mem_download(*copy, dev, bytes));
  *host = *copy;
  PetscFunctionReturn(0);
}

/* A live map a gradient method's store keeps beside each step (full
   storage on the CPU): which chunks of `chunk` cells of each of its `rows`
   rows are not all zero, with each row's start, `bytes` a step; all 0: no
   map. */
typedef struct {
  size_t   rows, bytes;
  PetscInt chunk;
} WavefieldLive;

/* A parameter of the model: how a user gives it and how results name it. */
typedef struct {
  const char *name;   /* in file names: NAME.rsf, NAME_0003.rsf, gradient's */
  const char *option; /* the option that gives it, -vp */
  const char *unit;   /* SI, as files hold it */
  const char *label;  /* the RSF label of a model of it */
} EquationParameter;

/* Where a wavefield lives, which says how a halo exchange carries it: over
   the rank's padded box, across every face; or one CPML slab per absorbing
   layer, across the faces of the layer's axis near that layer. */
typedef enum { EQUATION_FIELD_BOX, EQUATION_FIELD_SLAB } EquationFieldKind;

typedef struct {
  const char       *name;
  const char       *what;
  EquationFieldKind kind;
} EquationField;

/* One stage of a time step (the second-order scheme has one; a staggered
   first-order scheme two: particle velocities, then stresses or pressure):
   the fields (indices into Equation.field) whose ghosts a halo exchange
   fills before the stage's kernels run, forward and in the adjoint, in the
   order they travel.  A field the state lacks at the time (field() gives
   NULL) is left out. */
typedef struct {
  const char *name;
  PetscInt    nforward, forward[EQUATION_MAX_FIELDS];
  PetscInt    nadjoint, adjoint[EQUATION_MAX_FIELDS];
} EquationStage;

typedef struct Equation {
  const char *name; /* as the user names it */
  const char *summary;

  PetscInt                 nparameter;
  const EquationParameter *parameter;

  PetscInt             nfield;
  const EquationField *field;
  PetscInt             nstage;
  const EquationStage *stage;
  /* Field k of the state: for a slab field, that of the layer on side s of
     axis a (NULL where there is none, or where the state holds no such
     field now). */
  float *(*field_data)(const struct Fields *f, PetscInt k, PetscInt a, PetscInt s);
  /* The field (a box field) snapshots and the pseudo-Hessian look at. */
  PetscInt watch_field;

  const char *source;                    /* what a source injects, in words and units */
  PetscInt           ncomponent;         /* what receivers can record */
  const char *const *component;          /* the first is recorded by default */

  /* What the state keeps of the model along a row of n cells, out[i],
     from the parameters' values there (value[k][i]: parameter k) and the
     internal step dt. */
  void (*cell_model)(PetscInt n, const float *const value[], PetscReal dt, float *out);

  /* Numerics: the largest stable internal step on grid g where the fastest
     wave travels at vmax (m/s); the cells per wavelength at the peak
     frequency below which the scheme of order `order` is dispersive. */
  PetscReal (*stable_step)(const Grid *g, PetscReal vmax);
  PetscReal (*cells_per_wavelength)(PetscInt order);

  /* Memory of this rank's block of g: bytes of the state a backend
     allocates (fields, model, CPML), and the CPML slabs' share of it; and
     the floats per padded cell of that state outside the layers, for the
     lower bound made before the grid exists. */
  void (*state_bytes)(const Grid *g, double *all, double *layers);
  PetscInt cell_floats;
  /* What gradient method m keeps of the forward run of `steps` steps on
     this rank with `ops` (one of kernels()'s): n floats a step for nsteps
     steps, and its live map; and the backend bytes it needs besides (the
     reconstruction's fields, its scratch). */
  void (*store_shape)(const struct KernelOps *ops, const Grid *g, GradientMethod m, PetscInt steps, size_t *n, PetscInt *nsteps, WavefieldLive *live);
  double (*method_bytes)(const struct KernelOps *ops, const Grid *g, GradientMethod m);

  /* The imaging condition's chain rule: grad[] holds, cell by cell, the
     sum over shots of the adjoint's image of parameter k; on return, dJ
     with respect to it at the model's values model[] (n cells). */
  void (*gradient)(PetscInt k, PetscInt n, const float *model, double *grad);

  /* The operations for a backend (BACKEND_CPU, BACKEND_CUDA); false where
     this build has none. */
  PetscBool (*kernels)(BackendChoice backend, EquationKernels *k);
} Equation;

/* The fields of the padded box (EQUATION_FIELD_BOX) the forward's halo
   exchanges carry in one step, over its stages. */
static inline PetscInt EquationBoxFieldsExchanged(const Equation *eq)
{
  PetscInt n = 0;

  for (PetscInt s = 0; s < eq->nstage; s++)
    for (PetscInt k = 0; k < eq->stage[s].nforward; k++) n += eq->field[eq->stage[s].forward[k]].kind == EQUATION_FIELD_BOX;
  return n;
}

/* The equations halofwi solves. */
extern const Equation EquationAcoustic;
