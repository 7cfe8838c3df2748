/* Pieces of the CPU backend shared between its files. */
#pragma once
#include "kernels.h"

/* CALL(..., j, n) over [start, start + len), len >= 0 (a negative one would
   run pieces before start): whole 16-cell vectors, then
   pieces of 8, 4, 2 and 1 cells, each a constant length so the compiler
   vectorises it at its own width.  A plain loop leaves up to 15 cells to a
   scalar epilogue, and a z-layer segment is as short as the layer (20
   cells: 4 scalar). */
#define VECTOR_PIECES(start, len, CALL, ...) \
  do { \
    const PetscInt vp_len_ = (len); \
    PetscInt       vp_at_  = (start) + (vp_len_ & ~(PetscInt)15); \
    CALL(__VA_ARGS__, (start), vp_len_ & ~(PetscInt)15); \
    VECTOR_PIECE_(8, CALL, __VA_ARGS__); \
    VECTOR_PIECE_(4, CALL, __VA_ARGS__); \
    VECTOR_PIECE_(2, CALL, __VA_ARGS__); \
    VECTOR_PIECE_(1, CALL, __VA_ARGS__); \
  } while (0)
#define VECTOR_PIECE_(N, CALL, ...) \
  if (vp_len_ & N) { \
    CALL(__VA_ARGS__, vp_at_, N); \
    vp_at_ += N; \
  }

/* The weights as locals c2, c1 of a kernel: read through f, the compiler
   must assume the row's stores may change them and loads them again for
   every vector of cells (the 3D core step runs 7% faster with them local). */
#define LOCAL_WEIGHTS(R) \
  float c2[3][R + 1], c1[3][R + 1]; \
  for (int a_ = 0; a_ < 3; a_++) \
    for (int k_ = 0; k_ <= R; k_++) { \
      c2[a_][k_] = f->c2[a_][k_]; \
      c1[a_][k_] = f->c1[a_][k_]; \
    } \
  (void)c2; \
  (void)c1

/* Row i of an injection map (PointMap) into field uprev. */
static inline void CPUInjectRow(const Fields *f, float *uprev, const PointMap *m, const float amp[], PetscInt i)
{
  double sum = 0;
  for (PetscInt e = m->start[i]; e < m->start[i + 1]; e++) sum += (double)m->weight[e] * amp[m->index[e]];
  uprev[m->cell[i]] += f->vdt2[m->cell[i]] * (float)sum;
}

/* Odd reflection of u about free-surface sample `cell`, `out` the step
   across the face away from the model: u = 0 there to every order. */
static inline void CPUMirrorCell(float *u, ptrdiff_t cell, ptrdiff_t out, PetscInt radius)
{
  for (PetscInt k = 1; k <= radius; k++) u[cell + k * out] = -u[cell - k * out];
}

/* Asks for the cache lines of n floats from p, to be read (write 0) or
   written (1). */
static inline void CPUPrefetch(const float *p, PetscInt n, int write)
{
  for (PetscInt j = 0; j < n; j += 64 / sizeof(float)) {
    if (write) __builtin_prefetch(p + j, 1);
    else __builtin_prefetch(p + j);
  }
}

/* The factors (stencil.h's X, Y, Z) an x or y sweep of the adjoint layers
   keeps: a window of SLAB_PLANES planes of `stride` floats each, from plane
   `base` on.  More than 4 FWI_MAX_RADIUS planes, so that moving the last 2R
   to the start is rare: 20 layer cells and the stencils' reach fit without
   a move at order 8. */
#define SLAB_PLANES 40
_Static_assert(SLAB_PLANES > 2 * FWI_MAX_RADIUS, "an x or y sweep keeps the 2R planes its next stencils read and one more");
typedef struct {
  float   *X, *Y, *Z;
  size_t   stride;
  PetscInt base;
} SlabWindow;

/* A window over 3 SLAB_PLANES stride floats of scratch, from plane base. */
static inline SlabWindow SlabWindowAt(float *scratch, size_t stride, PetscInt base)
{
  return (SlabWindow){scratch, scratch + SLAB_PLANES * stride, scratch + 2 * SLAB_PLANES * stride, stride, base};
}

/* One plane of an x or y sweep of slab (a, s), cells i[0] .. i[0] + n of
   plane i[a]: its factors into the window (ADD: zeta still lacks u, see
   CPUAxisAlone), planes in increasing order from the window's base; then,
   R planes behind, its finish: uprev's share, and in a layer plane psi and
   zeta one step back. */
void CPUSlabPlaneFactors(const Fields *f, PetscInt a, PetscInt s, SlabWindow *win, const PetscInt i[3], PetscInt n, int add);
void CPUSlabPlaneFinish(const Fields *f, PetscInt a, PetscInt s, const SlabWindow *win, const PetscInt i[3], PetscInt n, PetscBool layer, int add);

PetscErrorCode CPUAdjointLayersBegin(Fields *f);
PetscBool      CPUAdjointPairPlan(const Fields *f, size_t *scratch_bytes);
PetscErrorCode CPUAdjointPair(Fields *f, const AdjointPair *w);
PetscErrorCode CPUAdjointLayersEnd(Fields *f);

/* No rank lies across either face of axis a, so nothing exchanges that
   axis's slabs: the adjoint then adds u to their E (adjoint_layers_begin's
   work) where its sweeps first read E, and for axis 0, every box then
   holding whole rows, does the z slabs' terms inside adjoint_step. */
static inline PetscBool CPUAxisAlone(const Fields *f, PetscInt a) { return !f->neighbour[a][0] && !f->neighbour[a][1] ? PETSC_TRUE : PETSC_FALSE; }

/* adjoint_step over the whole row (i1, i2) and, as it does there when
   axis 0 is alone (the caller's to know), the z slabs' terms. */
void CPUAdjointRow(const Fields *f, PetscInt i1, PetscInt i2);

/* The adjoint CPML terms of the z slabs for one row (i1, i2) of owned
   cells: uprev's share, then psi and E one step back.  A row's z-slab cells
   read nothing of other rows' slab cells, so when axis 0 is alone the
   adjoint step does each row's right after its leapfrog, while the row is
   in cache, and CPUAdjointLayersEnd leaves the z slabs out. */
#define CPU_DECLARE_ROW_Z(R, DIM) void CPUAdjointLayersRowZ_r##R(const Fields *f, PetscInt i1, PetscInt i2);
FWI_KERNEL_RADII(CPU_DECLARE_ROW_Z, 0)
#undef CPU_DECLARE_ROW_Z
