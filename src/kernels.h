/* The wavefield state of one rank and the operations a backend (CPU, CUDA)
   performs on it.  Layout: the rank's owned box padded by `radius` ghost
   cells on every side of every active axis, axis 0 (z) fastest. */
#pragma once
#include <petscsys.h>
#include "stencil.h"

/* A box of owned cells, local indices [lo, hi) (0 = first owned cell).
   layer_axes, bit a >= 1: every cell of the box lies in the CPML layer of
   axis a.  Bit 0: some cells lie in a layer of axis 0; boxes are not cut
   along axis 0 (the contiguous one) so rows stay long, and the kernels split
   each row at Fields.core instead. */
typedef struct {
  PetscInt lo[3], hi[3];
  unsigned layer_axes;
} Box;

typedef struct {
  PetscInt  dim, order, radius;
  PetscInt  n[3];      /* owned cells (1 beyond dim) */
  PetscInt  padded[3]; /* n + 2 radius on active axes */
  ptrdiff_t stride[3];
  size_t    ncells;    /* padded cells */
  float     c2[3][FWI_MAX_RADIUS + 1], c1[3][FWI_MAX_RADIUS + 1]; /* weights / d^2 and / d per axis */
  PetscBool has_layer[3];       /* the owned box meets the layer of axis a */
  PetscInt  core[2];            /* local cells [core[0], core[1]) along axis 0 lie outside its layers */
  PetscBool free_surface[3][2]; /* face (axis, side) of the owned box is a free surface */
  /* backend memory (host or device) */
  float *u, *uprev;             /* u^n, u^{n-1}; a step writes u^{n+1} over uprev */
  float *vdt2;                  /* v^2 dt^2 */
  float *psi[3], *zeta[3];      /* CPML memory, allocated where has_layer[a] */
  float *pml_a[3], *pml_b[3];   /* 1D profiles over the padded index of axis a */
} Fields;

typedef struct {
  const char *name;
  PetscErrorCode (*alloc)(Fields *);  /* every array zeroed */
  PetscErrorCode (*free)(Fields *);
  PetscErrorCode (*upload)(Fields *, float *dst, const float *src, size_t n);
  PetscErrorCode (*zero_state)(Fields *); /* u, uprev, psi, zeta */
  PetscErrorCode (*step)(Fields *, const Box *);          /* uprev <- u^{n+1} over the box */
  PetscErrorCode (*advance_memory)(Fields *, const Box *); /* psi over a layer box */
  PetscErrorCode (*mirror_ghosts)(Fields *);               /* u's ghosts across free surfaces */
  PetscErrorCode (*zero_surface)(Fields *);                /* uprev = 0 on free-surface samples */
  PetscErrorCode (*inject)(Fields *, PetscInt n, const ptrdiff_t cell[], const float amp[]); /* uprev += vdt2 amp */
  PetscErrorCode (*record)(Fields *, PetscInt n, const ptrdiff_t cell[], float out[]);      /* out = u */
  PetscErrorCode (*all_finite)(Fields *, PetscBool *);
} KernelOps;

extern const KernelOps KernelOpsCPU;

/* Padded index of an owned cell. */
static inline ptrdiff_t FieldsIndex(const Fields *f, const PetscInt i[3])
{
  ptrdiff_t idx = 0;
  for (PetscInt a = 0; a < 3; a++) idx += (i[a] + (a < f->dim ? f->radius : 0)) * f->stride[a];
  return idx;
}

static inline void FieldsSwap(Fields *f)
{
  float *t = f->u;
  f->u     = f->uprev;
  f->uprev = t;
}
