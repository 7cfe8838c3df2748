/* The acoustic equation's state on one rank, as every backend lays it
   out: the rank's owned box padded by `radius` ghost cells on every side of
   every active axis, axis 0 (z) fastest (the grid's padded box,
   GridPaddedCells); the CPML memory in slabs per layer.  Valid C and CUDA. */
#pragma once
#include <petscsys.h>
#include <stdint.h>
#include "equations/acoustic/stencil.h"
#include "grid/box.h"
#include "grid/grid.h"
#include "options/options.h"

struct PointMap; /* equations/equation.h */


#ifdef __cplusplus
extern "C" {
#endif


/* The CPML memory (psi, zeta) of one side's layer along one axis, stored
   over the padded index range [lo, hi) of that axis that the side's layer
   cells and their stencil reach (ghosts included), and the whole padded
   extent of the other axes.  Along its own axis its stride is the field's,
   so stencils along that axis read it as they read u. */
typedef struct {
  PetscInt  lo, hi;    /* padded range along the axis; hi == lo: no layer cells on this side */
  ptrdiff_t stride[3];
  size_t    ncells;
  float    *psi, *zeta;
} LayerSlab;


/* Address of padded cell p[] in a slab of axis a. */
FWI_HD static inline ptrdiff_t SlabIndex(const LayerSlab *s, PetscInt a, const PetscInt p[3])
{
  return (p[0] - (a == 0 ? s->lo : 0)) * s->stride[0] + (p[1] - (a == 1 ? s->lo : 0)) * s->stride[1] + (p[2] - (a == 2 ? s->lo : 0)) * s->stride[2];
}

typedef struct Fields {
  PetscInt  dim, order, radius;
  PetscInt  n[3];      /* owned cells (1 beyond dim) */
  PetscInt  padded[3]; /* n + 2 radius on active axes */
  ptrdiff_t stride[3]; /* rows stride[1] >= padded[0] apart (GridPaddedCells) */
  size_t    ncells;    /* floats of a padded array */
  float     c2[3][FWI_MAX_RADIUS + 1], c1[3][FWI_MAX_RADIUS + 1]; /* weights / d^2 and / d per axis */
  PetscInt  core[3][2];         /* owned cells [core[a][0], core[a][1]) along axis a lie outside its layers */
  PetscInt  layer_edge[3][2];   /* core[] before clipping to the owned cells (may lie beyond them) */
  PetscBool layer[3][2];        /* the grid has a layer on side s of axis a */
  PetscBool free_surface[3][2]; /* face (axis, side) of the owned box is a free surface */
  PetscBool neighbour[3][2];    /* a rank lies across face (axis, side) of the owned box */
  GpuTile   gpu_tile;           /* device backends: the core kernel's launch shape and reads */
  /* backend memory (host or device) */
  float *u, *uprev;             /* u^n, u^{n-1}; a step writes u^{n+1} over uprev */
  float *vdt2;                  /* v^2 dt^2 */
  LayerSlab slab[3][2];         /* CPML memory per axis and side (low, high) */
  float *pml_a[3], *pml_b[3];   /* 1D profiles over the padded index of axis a; b != 0 exactly in the layers */
  float *pml_da[3];             /* d pml_a / dx (the first difference of the global profile), in the layers; 0 elsewhere */
  float *lap;                   /* forward: when set, a step also stores here the term v^2 dt^2 multiplies;
                                   adjoint: that term of the matching forward step n */
  float *lap_next;              /* adjoint, with lap: the term of forward step n + 1, imaged with uprev (the
                                   adjoint of u^{n+2}) in the same pass, so that grad is read and written
                                   once per two steps; the pass before images nothing (lap NULL) */
  unsigned char *live;          /* with lap, where the backend keeps it (KernelOps.live_map): per row of the
                                   padded box and chunk of FIELDS_LIVE_CHUNK cells along it, 1 where the
                                   term has a value other than zero; the adjoint reads no chunk marked 0
                                   (see docs/numerics.md).  NULL: every chunk is read */
  uint32_t *live_start;         /* with live, per row: where its live chunks' cells lie in lap (cells from
                                   its start), one after the other in chunk order: lap holds only those
                                   cells, packed, so that the adjoint reads it as one stream */
  unsigned char *live_next;     /* the same for lap_next, and its rows' starts */
  uint32_t *live_next_start;
  uint64_t *u_live;             /* adjoint, where the backend keeps them (KernelOps.adjoint_live): per row of
                                   the padded box, FieldsLiveWords words of a bit per FIELDS_QUIET_CELLS
                                   cells, 0 where every owned cell of u there is +-0; a step leaves as they
                                   are cells whose stencil reads only such cells of u, and of uprev (see
                                   docs/numerics.md).  NULL: not kept */
  uint64_t *uprev_live;         /* the same for uprev, swapped with u_live by FieldsSwap */
  size_t         parts_left[2]; /* with u_live: the parts' steps left as they were, and all parts' steps */
  float *grad;                  /* adjoint: sum over steps of lap times the adjoint field */
  const struct PointMap *inject; /* adjoint, where the backend's adjoint_step takes it (KernelOps.adjoint_injects):
                                   the residuals this step adds to uprev, at inject_amp, each row's once the row
                                   is complete, while it is in cache; NULL: the caller injects after the step */
  const float *inject_amp;
  float *fu, *fuprev;           /* adjoint, boundary gradient method: the forward field u^n, u^{n+1}
                                   run backwards; when set the adjoint step also writes u^{n-1} over
                                   fuprev in the core and images with L u^n there (lap unused) */
  const Box *fu_support;        /* with fu, where known (owned indices): [0] the cells where L u^n may be
                                   nonzero, [1] those where u^{n-1} may be; outside [1] u^{n-1} is 0 and
                                   outside [0] the image term too.  NULL: anywhere */
  float *xwork;                 /* the CPU adjoint's x-slab sweep, every thread's share (CPUXSweepFloats each), kept
                                   from step to step: a block this size a step went to the system and back */
  size_t xwork_floats;
  void  *backend;               /* the backend's own state (streams, events) */
} Fields;


/* Padded index of an owned cell. */
FWI_HD static inline ptrdiff_t FieldsIndex(const Fields *f, const PetscInt i[3])
{
  ptrdiff_t idx = 0;
  for (PetscInt a = 0; a < 3; a++) idx += (i[a] + (a < f->dim ? f->radius : 0)) * f->stride[a];
  return idx;
}

/* The arrays a Fields owns, for a backend's alloc/free/zero: X(pointer, count)
   for the state (u, uprev, psi, zeta) and the model (vdt2, profiles). */
#define FIELDS_STATE_ARRAYS(f, X) \
  do { \
    X((f)->u, (f)->ncells); \
    X((f)->uprev, (f)->ncells); \
    for (PetscInt a_ = 0; a_ < (f)->dim; a_++) \
      for (PetscInt s_ = 0; s_ < 2; s_++) \
        if ((f)->slab[a_][s_].ncells) { \
          X((f)->slab[a_][s_].psi, (f)->slab[a_][s_].ncells); \
          X((f)->slab[a_][s_].zeta, (f)->slab[a_][s_].ncells); \
        } \
  } while (0)
#define FIELDS_MODEL_ARRAYS(f, X) \
  do { \
    X((f)->vdt2, (f)->ncells); \
    for (PetscInt a_ = 0; a_ < (f)->dim; a_++) { \
      X((f)->pml_a[a_], (size_t)(f)->padded[a_]); \
      X((f)->pml_b[a_], (size_t)(f)->padded[a_]); \
      X((f)->pml_da[a_], (size_t)(f)->padded[a_]); \
    } \
  } while (0)

/* The owned cells of slab (a, s) within `reach` cells of its layer (0: the
   layer cells themselves), as a box [lo, hi) of owned indices. */
static inline void FieldsSlabBox(const Fields *f, PetscInt a, PetscInt s, PetscInt reach, PetscInt lo[3], PetscInt hi[3])
{
  for (PetscInt b = 0; b < 3; b++) {
    lo[b] = 0;
    hi[b] = f->n[b];
  }
  if (s) lo[a] = PetscMax(0, PetscMin(f->n[a], f->layer_edge[a][1] - reach));
  else hi[a] = PetscMax(0, PetscMin(f->n[a], f->layer_edge[a][0] + reach));
}

/* The live map's chunks: FIELDS_LIVE_CHUNK cells of a row, from its first
   padded cell; per row, and in all. */
#define FIELDS_LIVE_CHUNK 64
static inline PetscInt FieldsLiveChunks(const Fields *f) { return (f->padded[0] + FIELDS_LIVE_CHUNK - 1) / FIELDS_LIVE_CHUNK; }
static inline size_t   FieldsLiveRows(const Fields *f) { return (size_t)f->padded[1] * f->padded[2]; }
/* The parts of a row Fields.u_live has a bit for: FIELDS_QUIET_CELLS
   cells, from its first padded cell (no fewer than the largest radius, so
   that a part's stencil reads its neighbours' cells alone); per row, and
   the words of their bits. */
#define FIELDS_QUIET_CELLS 16
static inline PetscInt FieldsQuietParts(const Fields *f) { return (f->padded[0] + FIELDS_QUIET_CELLS - 1) / FIELDS_QUIET_CELLS; }
static inline PetscInt FieldsLiveWords(const Fields *f) { return (FieldsQuietParts(f) + 63) / 64; }
/* A step's live map and its rows' starts (Fields.live, live_start). */
static inline size_t   FieldsLiveBytes(const Fields *f) { return FieldsLiveRows(f) * (FieldsLiveChunks(f) + sizeof(uint32_t)); }

/* Allocates, or frees, every array a Fields owns with a backend's mem_alloc or mem_free. */
static inline PetscErrorCode FieldsAllocArrays(Fields *f, PetscErrorCode (*alloc)(void **, size_t))
{
  PetscFunctionBeginUser;
#define FIELDS_ALLOC(p, n) PetscCall(alloc((void **)&(p), (n) * sizeof(float)))
  FIELDS_STATE_ARRAYS(f, FIELDS_ALLOC);
  FIELDS_MODEL_ARRAYS(f, FIELDS_ALLOC);
#undef FIELDS_ALLOC
  PetscFunctionReturn(0);
}

static inline PetscErrorCode FieldsFreeArrays(Fields *f, PetscErrorCode (*release)(void **))
{
  PetscFunctionBeginUser;
#define FIELDS_FREE(p, n) PetscCall(release((void **)&(p)))
  FIELDS_STATE_ARRAYS(f, FIELDS_FREE);
  FIELDS_MODEL_ARRAYS(f, FIELDS_FREE);
#undef FIELDS_FREE
  PetscFunctionReturn(0);
}

static inline void FieldsSwap(Fields *f)
{
  float    *t   = f->u;
  uint64_t *m   = f->u_live;
  f->u          = f->uprev;
  f->uprev      = t;
  f->u_live     = f->uprev_live;
  f->uprev_live = m;
}


/* Every descriptive member of f (sizes, strides, FD weights, core, layers,
   slabs), no memory. */
void FieldsDescribe(const GridBlock *b, Fields *f);
/* The same for this rank's block of g. */
void FieldsOfGrid(const Grid *g, Fields *f);
/* Bytes of the arrays a backend allocates for f (FieldsAllocArrays): all of
   them, and the CPML memory slabs' share. */
void FieldsBytes(const Fields *f, double *all, double *layers);
/* The layer cells the core's stencil reads: on each face of the core that
   meets a layer, the `radius` layer cells beyond it over the core's extent
   on the other axes; the owned part of each, up to 2 boxes per axis, none
   empty.  Returns their number of cells. */
size_t FieldsBandBoxes(const Fields *f, Box band[6], PetscInt *nband);
/* The core kernel's grid, blocks along x, y and z, over box extents e[3] in
   the launch shape rows, run: x along axis 0, FIELDS_GPU_TILE_WIDTH cells a
   block; y over thread rows (3D: one per index of axis 1; 2D: one per run
   along axis 1), rows a block; z over the runs along axis 2 (3D; 1 in 2D). */
void FieldsGpuTileGrid(PetscInt dim, PetscInt rows, PetscInt run, const PetscInt e[3], PetscInt64 grid[3]);
/* An error naming -gpu_tile where that grid over f's owned cells (its
   largest box) would pass FIELDS_GPU_TILE_GRID_LIMIT along y or z. */
PetscErrorCode FieldsGpuTileCheck(const Fields *f, PetscInt rows, PetscInt run);

#ifdef __cplusplus
}
#endif
