/* The operations a backend (CPU, CUDA) performs on a rank's fields
   (fields.h). */
#pragma once
#include "equations/acoustic/fields.h"
#include "equations/equation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The (radius, dimension) pairs every backend instantiates its kernels for:
   X(R, DIM) for each; FWI_KERNEL_RADII(X, D) lists the radii alone. */
#define FWI_KERNEL_RADII(X, D) X(1, D) X(2, D) X(3, D) X(4, D) X(5, D) X(6, D) X(7, D) X(8, D)
#define FWI_KERNEL_VARIANTS(X) FWI_KERNEL_RADII(X, 2) FWI_KERNEL_RADII(X, 3)


/* Two reverse steps' worth of the boundary gradient method's points, for
   KernelOps.adjoint_pair: step 0 is reverse step n, step 1 is n - 1. */
typedef struct {
  Fields         *rec;                     /* the forward field run backwards */
  const PointMap *reach, *src, *src_cells; /* residuals into the adjoint, the source into rec, the adjoint at the source */
  const float    *residual[2], *wav[2];    /* their amplitudes per step */
  float          *at_src[2];               /* the adjoint at the source's cells, recorded before each step */
  const float    *band[2];                 /* rec's band after each step (packed as pack_boxes packs bands), or NULL */
  const Box      *support[2];              /* each step's Fields.fu_support */
  PetscInt        nband;
  const Box      *bands;
  void           *scratch;                 /* adjoint_pair_plan's scratch_bytes of backend memory */
} AdjointPair;

/* What a backend does to the acoustic state, queued on the lanes of the
   state (Fields.backend) as BackendOps says.  Arrays named "backend
   memory" are host memory for the CPU and device memory for CUDA. */
typedef struct KernelOps {
  PetscBool   split_boxes; /* the forward's boxes cut at the layer edges of axes 1, 2 (see Box; the adjoint's never are); else per-cell layer tests */
  PetscErrorCode (*alloc)(Fields *);  /* every array zeroed */
  PetscErrorCode (*free)(Fields *);
  PetscErrorCode (*zero_state)(Fields *); /* u, uprev, psi, zeta */
  /* A forward step is step over every box, then advance_memory over every
     box with a layer bit: together they set uprev <- u^{n+1} and advance psi
     in the layer cells.  How psi's update splits between the two is the
     backend's (the CPU advances axis 0's in the step of a box of whole
     rows, whose z-neighbours no other box reads); only the pair is
     specified. */
  PetscErrorCode (*step)(Fields *, const Box *);
  PetscErrorCode (*advance_memory)(Fields *, const Box *);
  PetscErrorCode (*mirror_ghosts)(Fields *);               /* u's ghosts across free surfaces */
  PetscErrorCode (*zero_surface)(Fields *);                /* uprev = 0 on free-surface samples */
  /* the map's arrays and amp[]/remote[]/out[]: backend memory */
  PetscErrorCode (*inject)(Fields *, const PointMap *, const float amp[]);
  PetscErrorCode (*record)(Fields *, const PointMap *, const float remote[], float out[]);
  PetscErrorCode (*all_finite)(Fields *, PetscBool *);     /* waits for the queued work */
  /* The cells of box[] (owned indices) of `field` (a padded array of f's
     layout) into buf, box after box, axis 0 fastest; or back (unpack). */
  PetscErrorCode (*pack_boxes)(Fields *, float *field, PetscInt nbox, const Box box[], float *buf, PetscBool unpack);
  /* The adjoint step (see docs/numerics.md) on u = the adjoint field:
       adjoint_step: uprev <- 2u - uprev + v^2 dt^2 lap(u) over the box, no
                     CPML, and grad += u * lap (nothing when lap is NULL;
                     grad = (grad + uprev * lap_next) + u * lap with lap_next);
       adjoint_layers_begin (before the halo exchange): zeta <- u + zeta in the layers;
       adjoint_layers_end (after every box): uprev += the CPML terms, then psi
                     and zeta step back.
     As in the forward, only the three together are specified: for an
     axis no rank lies across (Fields.neighbour), whose slabs no halo
     exchanges, the CPU adds u to their zeta in adjoint_layers_end where it
     first reads it, and for axis 0 (every box then holding whole rows)
     does the z slabs' terms in adjoint_step, row by row; a rank alone
     along every axis (its one adjoint box holding every cell) may do the
     x slabs' there too (CPUXSlabsInStep). */
  PetscErrorCode (*adjoint_step)(Fields *, const Box *);
  PetscErrorCode (*adjoint_layers_begin)(Fields *);
  PetscErrorCode (*adjoint_layers_end)(Fields *);
  /* Optional (NULL: steps one by one).  Reverse steps n and n - 1 of the
     boundary gradient method in one sweep, each as adjoint.c does one
     (record, ghosts, adjoint step, layers, injection, surface, the forward
     field's source, surface and band), the same bits; the fields end as
     two FieldsSwap of each would leave them.  adjoint_pair_plan says
     whether it applies to fields laid out as these (their descriptive
     members suffice) and the scratch it needs. */
  PetscBool (*adjoint_pair_plan)(const Fields *, size_t *scratch_bytes);
  PetscErrorCode (*adjoint_pair)(Fields *, const AdjointPair *);
  /* Optional (NULL: never).  Whether, for fields laid out as these, step
     marks Fields.live beside the term it stores and stores only the live
     cells, packed from each row's Fields.live_start, and adjoint_step reads
     lap and lap_next only where Fields.live and live_next say they are not
     all zero, from those starts. */
  PetscBool (*live_map)(const Fields *);
  /* Optional (NULL: never).  on: from the zero state, adjoint steps keep
     Fields.u_live and uprev_live and leave the row parts they mark quiet
     as they are (the same values; a zero may change sign), where the fields
     are laid out for it (else nothing is kept); off: no longer. */
  PetscErrorCode (*adjoint_live)(Fields *, PetscBool on);
  /* Optional (NULL: never).  Whether, for fields laid out as these,
     adjoint_step adds Fields.inject to uprev itself, as inject would after
     adjoint_layers_end (which then has nothing to add to uprev): each row's
     cells once the row is complete, while it is in cache. */
  PetscBool (*adjoint_injects)(const Fields *);
  const BackendOps *backend; /* the backend's memory and lanes (equations/equation.h) */
} KernelOps;

/* Whether a pass's boxes are cut at the layer edges (BoxSplitAtLayers): the
   forward's where the backend wants it, the adjoint's never (its layer
   terms come after the step, so nothing in it changes at a layer edge). */
static inline PetscBool KernelOpsSplitBoxes(const KernelOps *ops, PetscBool adjoint) { return !adjoint && ops->split_boxes ? PETSC_TRUE : PETSC_FALSE; }

/* Bytes of backend memory at dev, to read on the host (EquationMemoryRead). */
static inline PetscErrorCode KernelOpsRead(const KernelOps *ops, const void *dev, size_t bytes, void **copy, const void **host)
{
  return EquationMemoryRead(ops->backend, dev, bytes, copy, host);
}

/* Two reverse steps at once (KernelOps.adjoint_pair) where the backend can
   for fields laid out as f: whether, and its scratch. */
static inline PetscBool KernelOpsPairPlan(const KernelOps *ops, const Fields *f, size_t *scratch)
{
  *scratch = 0;
  return ops->adjoint_pair_plan && ops->adjoint_pair_plan(f, scratch) ? PETSC_TRUE : PETSC_FALSE;
}

extern const KernelOps KernelOpsCPU;
#if defined(HALOFWI_HAVE_CUDA) || defined(HALOFWI_CUDA_HOST)
extern const KernelOps KernelOpsCUDA; /* or, HALOFWI_CUDA_HOST, its kernels run on the host */
#endif

#ifdef __cplusplus
}
#endif
