/* What the layers above know of a wave equation: one Equation table per
   equation (equations/NAME/).  The set-up (the time step, the planner, the
   memory estimate, snapshots), the inversion and the shot layer's time
   loop, halo exchanges and chain rule read an equation through this table
   alone, and hold its state on a rank only as an EquationState handle
   (docs/architecture.md, "Adding an equation"). */
#pragma once
#include "grid/box.h"
#include "grid/grid.h"
#include "options/options.h"
#include <math.h>

struct KernelOps; /* the equation's operations on its state, per backend (its own) */
/* One rank's state of an equation: its fields, model, absorbing layers and
   what its gradient methods keep; each equation's own type behind this
   handle. */
typedef struct EquationState EquationState;
/* Where the forward run keeps what the adjoint needs (store.h). */
typedef struct _p_WavefieldStore *WavefieldStore;

#define EQUATION_MAX_FIELDS     16
#define EQUATION_MAX_STATE_ARRAYS 32
#define EQUATION_MAX_PARAMETERS 4

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

/* Row i's sum over its entries in double, entry order: values[index] for
   index >= 0, remote[-1 - index] else (inject maps index the amplitudes,
   never remote).  Valid C and CUDA (FWI_HD): the backends sum alike. */
FWI_HD static inline double PointMapRowSum(const PointMap *m, PetscInt i, const float *values, const float *remote)
{
  double sum = 0;

  for (PetscInt e = m->start[i]; e < m->start[i + 1]; e++) {
    const ptrdiff_t k = m->index[e];
    sum += (double)m->weight[e] * (k >= 0 ? values[k] : remote[-1 - k]);
  }
  return sum;
}

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
  /* Host backends (NULL on a device backend): an array whose pages are
     mapped as they are first written, for one that is read only where it
     was written (the full store's live chunks): pages never written take
     no memory and no time. */
  PetscErrorCode (*mem_reserve)(void **, size_t bytes);
  /* Host backends (NULL elsewhere: mem_alloc): mem_alloc for an array
     written and read in order, a store's steps: on 4 kB pages, which a
     virtual machine whose host takes back free 2 MB blocks maps several
     times faster than 2 MB ones (docs/performance.md), and which a
     stream's reads do not outrun in the TLB as a stencil's do. */
  PetscErrorCode (*mem_alloc_stream)(void **, size_t bytes);
  PetscErrorCode (*mem_free)(void **);
  PetscErrorCode (*mem_zero)(void *lanes, void *, size_t bytes); /* queued on the current lane */
  PetscErrorCode (*mem_upload)(void *dst, const void *src, size_t bytes);
  PetscErrorCode (*mem_download)(void *dst, const void *src, size_t bytes);
  PetscErrorCode (*mem_copy)(void *dst, const void *src, size_t bytes); /* backend memory to backend memory */
  /* Host backends (0 on a device backend): what mapping one float per
     cell and step of fresh host memory costs, in forward runs (2D, 3D);
     the gradient planner weighs a store's bytes with it: mem_alloc's
     (mapped at allocation), and first_use_reserved for mem_reserve's
     (mapped as the steps first write each page). */
  double first_use[2], first_use_reserved[2];
  /* Device backends only (NULL on host): free device memory, and host
     memory the device copies to and from asynchronously on a copy lane.
     copy_async starts once the main lane's work so far is done; copy_wait
     makes the main lane wait for the last copy of that slot (0 or 1),
     copy_sync the caller (the host) itself. */
  PetscErrorCode (*device_free_memory)(size_t *bytes);
  PetscErrorCode (*host_alloc)(void **, size_t bytes);
  PetscErrorCode (*host_free)(void **);
  PetscErrorCode (*copy_async)(void *lanes, PetscInt slot, void *dst, const void *src, size_t bytes);
  PetscErrorCode (*copy_wait)(void *lanes, PetscInt slot);
  PetscErrorCode (*copy_sync)(void *lanes, PetscInt slot);
  /* A step's n floats at x (backend memory) encoded into packed (backend
     memory, codec.h's layout) or back, queued on the current lane: on a
     device its bytes cross the host link encoded. */
  PetscErrorCode (*encode)(void *lanes, WavefieldCodec codec, const float *x, size_t n, void *packed);
  PetscErrorCode (*decode)(void *lanes, WavefieldCodec codec, const void *packed, size_t n, float *x);
} BackendOps;

/* The CPU's (equations/backend_cpu.c), every equation's on the host. */
extern const BackendOps BackendOpsCPU;

/* Arrays of this many bytes or more take whole pages of it in backend
   memory: the CPU backend maps them on 2 MB pages, each page mapped in
   full (backend_cpu.c), and CUDA's allocator rounds large arrays up alike. */
#define EQUATION_HUGE_PAGE ((size_t)2 << 20)

/* The CPU backend starts each array up to this many bytes past its
   alignment (backend_cpu.c: Stagger). */
#define EQUATION_STAGGER_MAX ((size_t)4096)

/* The bytes an array of n floats takes in backend memory, for the memory
   estimates (state_bytes, method_bytes): 2 MB more at most a box-sized
   array, which counts where a rank's arrays are small. */
static inline double EquationArrayBytes(double n)
{
  const double bytes = n * sizeof(float), page = (double)EQUATION_HUGE_PAGE;

  return bytes < page ? bytes : ceil((bytes + (double)EQUATION_STAGGER_MAX) / page) * page;
}

/* The equation's operations on one backend, and that backend's memory and
   lanes. */
typedef struct {
  const struct KernelOps *ops; /* NULL for an equation whose scheme works the backend's memory itself */
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

/* Where a state writes n floats of its model bound for backend array dev:
   dev itself where that is host memory, else a zeroed host buffer kept in
   *keep (an inversion sets a model every evaluation) and sent up by
   EquationModelSend.  Cells the state never writes stay as they were: 0
   from the allocation. */
static inline PetscErrorCode EquationModelTarget(const BackendOps *b, float *dev, float **keep, size_t n, float **out)
{
  PetscFunctionBeginUser;
  if (b->host_memory) *out = dev;
  else {
    if (!*keep) PetscCall(PetscCalloc1(n, keep));
    *out = *keep;
  }
  PetscFunctionReturn(0);
}

/* The model written at `from` (EquationModelTarget) into backend array dev. */
static inline PetscErrorCode EquationModelSend(const BackendOps *b, float *dev, const float *from, size_t n)
{
  PetscFunctionBeginUser;
  if (from != dev) PetscCall(b->mem_upload(dev, from, n * sizeof(float)));
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

#define EQUATION_MAX_COMPONENTS 8

/* What a gradient costs the planner expects, in this equation's forward
   runs, for one dimension: the adjoint run per core cell and per layer
   cell (weighed by their shares of the extended grid's cells), what the
   boundary method adds per core cell (reconstruct) and per cell it runs
   the forward field back in (run_back: on a host backend only the cells
   the waves reach, FieldSupport), writing and reading
   back each float a method stores per cell and step (store: what the
   store's size, which follows the gradients wanted, adds), and the cost
   of this equation's forward step per cell against the constant-density
   equation's (1 for it), by which the backend's costs counted in the
   latter's forward runs (BackendOps.first_use, the host link) are divided. */
typedef struct {
  double adjoint_core, adjoint_layer, reconstruct, run_back, store, step;
} EquationGradientCost;

/* What receivers can record: a field as -record and the output files name
   it, in words with its units, and where it lives: half a cell further
   along axis `axis` than the cell centres (-1: at the centres; a component
   along an axis the grid lacks does not exist there). */
typedef struct {
  const char *name;
  const char *description;
  PetscInt    axis;
} EquationComponent;

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
  /* Box fields of the model (Equation.field) whose ghosts the shot layer
     fills, from the neighbours, each time set_model has written the owned
     cells: a staggered scheme averages a parameter across a face. */
  PetscInt nmodel_field, model_field[EQUATION_MAX_FIELDS];
  /* And the box fields EquationScheme.derive_model then forms from those
     ghosts (a mean over cells across an edge: its diagonal neighbour is no
     face's ghost), whose own ghosts the shot layer fills after it. */
  PetscInt nmodel_derived, model_derived[EQUATION_MAX_FIELDS];
  /* The field (a box field) snapshots and the pseudo-Hessian look at. */
  PetscInt watch_field;

  const char *source;                    /* what a source injects, in words and units */
  PetscInt    source_image;              /* the parameter whose image takes the source's own term (the injection is scaled by its cell model), or -1 */
  /* What a source can be (-source_type: EquationComponent's name,
     description and where it acts), the first the default; none: one
     kind, `source`, at the centres. */
  PetscInt                 nsource_kind;
  const EquationComponent *source_kind;
  /* Whether its fields have no parity about a free surface (the elastic
     stress image method's, beyond which the velocities are 0): points near
     one then drop their weights beyond it rather than fold them onto the
     mirror images (ShotPlacement). */
  PetscBool                surface_no_parity;
  PetscInt                 ncomponent;   /* what receivers can record */
  const EquationComponent *component;    /* the first is recorded by default, and is what the misfit reads unless -record names another (the adjoint takes every component's residuals) */

  /* What the state keeps of the model along a row of n cells, out[i],
     from the parameters' values there (value[k][i]: parameter k) and the
     internal step dt. */
  void (*cell_model)(PetscInt n, const float *const value[], PetscReal dt, float *out);
  /* Optional (NULL: none): collective over comm, refuses a model whose
     parameters (value[k] over n cells on each rank) the equation cannot
     take together, naming the first such value and what was expected,
     and warns of what it takes with a cost; the slowest wave over n cells
     (m/s; NULL: the velocity vp, parameter 0, is the only one). */
  PetscErrorCode (*check_model)(MPI_Comm comm, size_t n, const float *const value[]);
  float (*slowest_wave)(size_t n, const float *const value[]);

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
  /* The padded-box arrays the state keeps of the model in host memory on
     its way to a device backend (EquationScheme.set_model,
     EquationModelTarget); none on a host backend. */
  PetscInt host_model_arrays;
  /* The padded-box arrays of the forward state (EquationScheme.forward_state,
     beside the layers' memory, state_bytes' `layers`), 2D then 3D: a
     checkpoint's snapshot. */
  PetscInt forward_fields[2];
  /* The gradient: store_shape, method_bytes and gradient are set together,
     or all NULL for an equation that models forward only. */
  /* What gradient method m keeps of the forward run of `steps` steps on
     this rank with `ops` (one of kernels()'s), for the images of
     parameters 0 .. nimage - 1 (EquationStateSettings.nimage; 0: all): n
     floats a step for nsteps steps, and its live map; and the backend
     bytes it needs besides (the reconstruction's fields, its scratch). */
  void (*store_shape)(const struct KernelOps *ops, const Grid *g, GradientMethod m, PetscInt nimage, PetscInt steps, size_t *n, PetscInt *nsteps, WavefieldLive *live);
  double (*method_bytes)(const struct KernelOps *ops, const Grid *g, GradientMethod m, PetscInt nimage);
  /* What each gradient method (GradientMethod: index 1 full, 2 boundary)
     keeps, in words; NULL for a method the equation does not offer. */
  const char *keeps[3];
  /* The planner's costs, 2D then 3D (fits to scripts/bench-gradient). */
  EquationGradientCost gradient_cost[2];
  /* Box fields of the adjoint's image whose ghosts the shot layer fills,
     from the neighbours, after each adjoint run and before image(): an
     image kept on the faces between cells is shared by both cells. */
  PetscInt nimage_field, image_field[EQUATION_MAX_FIELDS];
  /* And the box fields EquationScheme.derive_image then forms from those
     ghosts (a partial sum of an edge's image towards its cells: the edge's
     diagonal cell is no face's ghost), whose own ghosts the shot layer
     fills after it. */
  PetscInt nimage_derived, image_derived[EQUATION_MAX_FIELDS];

  /* The imaging condition's chain rule: grad[k] holds, cell by cell, the
     sum over shots of the adjoint's image of parameter k; on return, dJ
     with respect to each parameter at the model's values model[k] (n
     cells). */
  void (*gradient)(PetscInt n, const float *const model[], double *const grad[]);

  /* The operations for a backend (BACKEND_CPU, BACKEND_CUDA); false where
     this build has none. */
  PetscBool (*kernels)(BackendChoice backend, EquationKernels *k);

  /* Whether its CUDA kernels take -gpu_tile's launch shape (and
     -gpu_tile_shared): otherwise those options are refused as without
     effect. */
  PetscBool gpu_launch_shape;

  /* Its time-stepping scheme (EquationScheme, below). */
  const struct EquationScheme *scheme;
} Equation;

/* An equation's lists in its table, from its static arrays: parameters,
   fields, stages and components. */
#define EQUATION_COUNT(a) ((PetscInt)(sizeof(a) / sizeof((a)[0])))
#define EQUATION_LISTS(parameters, fields, stages, components) \
  .nparameter = EQUATION_COUNT(parameters), .parameter = parameters, .nfield = EQUATION_COUNT(fields), .field = fields, .nstage = EQUATION_COUNT(stages), \
  .stage = stages, .ncomponent = EQUATION_COUNT(components), .component = components

/* The images a run forms, those of parameters 0 .. n - 1: nimage as
   EquationStateSettings and store_shape take it, 0 meaning all. */
static inline PetscInt EquationImages(const Equation *eq, PetscInt nimage) { return nimage ? nimage : eq->nparameter; }

/* The fields of the padded box (EQUATION_FIELD_BOX) the forward's halo
   exchanges carry in one step, over its stages. */
static inline PetscInt EquationBoxFieldsExchanged(const Equation *eq)
{
  PetscInt n = 0;

  for (PetscInt s = 0; s < eq->nstage; s++)
    for (PetscInt k = 0; k < eq->stage[s].nforward; k++) n += eq->field[eq->stage[s].forward[k]].kind == EQUATION_FIELD_BOX;
  return n;
}

/* What a state is made with (EquationScheme.create): the absorbing
   layers' profiles tuned to the fastest wave vmax (m/s) and frequency
   f_pml (Hz) at the internal step dt; skip_quiet, gpu_tile, the sources'
   kind and the images as PropagatorSettings has them. */
typedef struct {
  PetscReal vmax, f_pml, dt;
  PetscBool skip_quiet;
  GpuTile   gpu_tile;
  PetscInt  source_kind; /* Equation.source_kind's index (0 where it has none) */
  PetscInt  nimage;      /* the adjoint forms the images of parameters 0 .. nimage - 1 (0: all), image() gives 0 for the others */
} EquationStateSettings;

/* One recorded component's residuals in an adjoint step, in backend
   memory: the receivers that reach this rank (reach), reading component
   `component` (Equation.component), and their residuals at that step
   (residual, one per reached receiver). */
typedef struct {
  const PointMap *reach;
  const float    *residual;
  PetscInt        component;
} EquationResidual;

/* What one step of a shot injects and records besides the receivers, in
   backend memory, at that step: the source's map (src), its cells alone
   with weight 1 (src_cells) and its amplitude (wav, one value); where the
   adjoint field at the source's cells goes (at_src, one per source cell);
   and in the adjoint the residuals of each component the misfit reads
   (nresidual of them: 0 in a forward run, at most one per component). */
typedef struct {
  const PointMap  *src, *src_cells;
  const float     *wav;
  float           *at_src;
  PetscInt         nresidual;
  EquationResidual residual[EQUATION_MAX_COMPONENTS];
} EquationStepPoints;

/* What one record reads at a step, for a hook that records on its own
   (fused_steps): out[i] = row i of map over component c, as record does. */
typedef struct {
  PetscInt        component;
  const PointMap *map;
  float          *out;
} EquationRecording;

/* The boxes a pass (forward or adjoint) steps, interior [0] and shell [1]. */
typedef struct {
  PetscInt   n[2];
  const Box *box[2];
} EquationRegions;

/* The time-stepping scheme behind the shot layer's loop (shot/propagate.c).
   A forward run is, after run_begin:

     for each step n:  step_begin; the receivers record (record);
                       for each stage:  stage_begin; box_step over the
                         interior while the stage's halos travel
                         (Equation.stage), then over the shell; stage_end;
                       step_end
     then run_end.

   An adjoint run is the same, backwards in n (reverse step n undoes
   forward step n), with adjoint set and no receivers; where reverse_pair
   takes two reverse steps at once it replaces them.  A state's work queues
   on its lanes (BackendOps); the hooks themselves are backend-blind, the
   backend's operations being in the state.  store NULL: the gradient
   method keeps nothing this run. */
typedef struct EquationScheme {
  PetscErrorCode (*create)(const Grid *g, const EquationKernels *k, const EquationStateSettings *settings, EquationState **s);
  PetscErrorCode (*destroy)(EquationState **s);
  /* The model: value[k] parameter k over the owned cells (z fastest), at
     the internal step dt; the ghosts of Equation.model_field the shot
     layer then fills where neighbours lie, the rest are set_model's. */
  PetscErrorCode (*set_model)(EquationState *s, const float *const value[], PetscReal dt);
  /* Optional: forms Equation.model_derived's owned cells once the ghosts
     of Equation.model_field are in. */
  PetscErrorCode (*derive_model)(EquationState *s);
  void *(*lanes)(const EquationState *s);
  /* Field k of the state (Equation.field; backend memory over the padded
     box, GridPaddedCells): for a slab field, that of the layer on side s of
     axis a, over GridBlockLayerSlab's range; NULL where there is none, or
     where the state holds no such field now. */
  float *(*field_data)(const EquationState *s, PetscInt k, PetscInt a, PetscInt side);
  /* The arrays that carry a forward run from one step to the next (the
     fields and the layers' memory, not the model), backend memory: *n of
     them (at most EQUATION_MAX_STATE_ARRAYS), array i of count[i] floats.
     Copied out and back in, they restart the run at that step
     (checkpointing, shot/checkpoint.c). */
  PetscErrorCode (*forward_state)(const EquationState *s, PetscInt *n, float *data[], size_t count[]);
  /* Whether a pass's boxes are cut at the layer edges (BoxSplitAtLayers). */
  PetscBool (*split_boxes)(const EquationState *s, PetscBool adjoint);
  /* How the store passed to the runs is used, as the equation's
     store_shape and method_bytes describe it. */
  PetscErrorCode (*set_method)(EquationState *s, GradientMethod m);

  PetscErrorCode (*run_begin)(EquationState *s, PetscBool adjoint, WavefieldStore store, const EquationStepPoints *points, PetscInt nsteps);
  PetscErrorCode (*run_end)(EquationState *s, PetscBool adjoint, WavefieldStore store);
  PetscErrorCode (*step_begin)(EquationState *s, PetscBool adjoint, WavefieldStore store, PetscInt n, PetscInt nsteps);
  PetscErrorCode (*stage_begin)(EquationState *s, PetscInt stage, PetscBool adjoint, const EquationStepPoints *points);
  PetscErrorCode (*box_step)(EquationState *s, PetscInt stage, PetscBool adjoint, const Box *box);
  PetscErrorCode (*stage_end)(EquationState *s, PetscInt stage, PetscBool adjoint, const EquationRegions *regions);
  PetscErrorCode (*step_end)(EquationState *s, PetscBool adjoint, WavefieldStore store, PetscInt n, const EquationStepPoints *points);
  /* Optional (NULL: never): reverse steps n and n - 1 (n >= 1) at once,
     points[k] those of step n - k; *done false where it took none. */
  PetscErrorCode (*reverse_pair)(EquationState *s, WavefieldStore store, PetscInt n, const EquationStepPoints points[2], PetscBool *done);
  /* Optional (NULL: never): a step's stages, stage_begin of the first to
     stage_end of the last, over every owned cell in one sweep, where the
     rank has no neighbour (its halos carry nothing, so no stage waits for
     another's cells); *done false where it took none. */
  PetscErrorCode (*fused_stages)(EquationState *s, PetscBool adjoint, const EquationStepPoints *points, PetscBool *done);
  /* Optional (NULL: never): forward steps n and n + 1 in one sweep where
     the rank has no neighbour: from stage_begin of step n's first stage
     to stage_end of step n + 1's last, step n's step_end, step n + 1's
     step_begin with store (NULL: the run keeps nothing) and its records
     (next[], what record would take before step n + 1's stages) on the
     way; points[k] those of step n + k; *done false where it took none
     (also where it cannot keep what step_begin would in store). */
  PetscErrorCode (*fused_steps)(EquationState *s, WavefieldStore store, PetscInt n, const EquationStepPoints points[2], PetscInt nrecord, const EquationRecording next[],
                                PetscBool *done);

  /* out[i] = what row i of the map reads of component c (Equation.component)
     now (PointMap: record); the map's arrays, remote[] and out[] backend
     memory. */
  PetscErrorCode (*record)(EquationState *s, PetscInt c, const PointMap *map, const float remote[], float out[]);
  /* Whether every field is finite; waits for the queued work. */
  PetscErrorCode (*all_finite)(EquationState *s, PetscBool *finite);
  /* Optional: forms Equation.image_derived's owned cells once the ghosts
     of Equation.image_field are in. */
  PetscErrorCode (*derive_image)(EquationState *s);
  /* The adjoint run's image of parameter k (the sum over its steps),
     backend memory over the padded box. */
  PetscErrorCode (*image)(EquationState *s, PetscInt k, const float **padded);
  /* Optional: collective over comm, a line on the work the adjoint left
     undone, where it left any. */
  PetscErrorCode (*adjoint_report)(const EquationState *s, MPI_Comm comm);
} EquationScheme;

/* Appends array x of c floats to a forward_state list (none where c is 0). */
static inline void EquationStateArray(PetscInt *n, float *data[], size_t count[], float *x, size_t c)
{
  if (!c) return;
  data[*n]  = x;
  count[*n] = c;
  ++*n;
}

/* The equations halofwi solves. */
extern const Equation EquationAcoustic;
extern const Equation EquationVariableDensity;
extern const Equation EquationElastic;

/* The index of parameter `name` among eq's (Equation.parameter), or -1. */
PetscInt EquationParameterIndex(const Equation *eq, const char *name);
