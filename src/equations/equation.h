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

/* The equation's operations on one backend, and what the planner and the
   memory estimate need to know of that backend's memory. */
typedef struct {
  const struct KernelOps *ops;
  PetscBool               host_memory;  /* backend memory is host memory */
  double                  first_use[2]; /* host backends: mapping a float per cell and step of fresh memory, in forward runs (2D, 3D) */
  PetscErrorCode (*device_free_memory)(size_t *bytes); /* device backends; NULL on host */
  PetscErrorCode (*download)(void *dst, const void *src, size_t bytes); /* backend memory to the host, after the queued work */
} EquationKernels;

/* Bytes of backend memory at dev, to read on the host: *host is dev itself
   where that is host memory, else a copy downloaded into *copy (PetscFree
   it; NULL where none was made). */
static inline PetscErrorCode EquationMemoryRead(PetscBool host_memory, PetscErrorCode (*download)(void *, const void *, size_t), const void *dev, size_t bytes, void **copy,
                                                const void **host)
{
  PetscFunctionBeginUser;
  *copy = NULL;
  *host = NULL;
  if (host_memory) {
    *host = dev;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc(bytes, copy));
  PetscCall(download(*copy, dev, bytes));
  *host = *copy;
  PetscFunctionReturn(0);
}

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
     steps, a live map of `live` bytes a step (0: none); and the backend
     bytes it needs besides (the reconstruction's fields, its scratch). */
  void (*store_shape)(const struct KernelOps *ops, const Grid *g, GradientMethod m, PetscInt steps, size_t *n, PetscInt *nsteps, size_t *live);
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
