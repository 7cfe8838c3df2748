/* Pieces of the CPU backend shared between its files. */
#pragma once
#include "equations/acoustic/kernels.h"
#include <omp.h>

/* CALL(..., j, n) over [start, start + len), len >= 0 (a negative one would
   run pieces before start), in pieces each of a constant length so the
   compiler vectorises it at its own width: whole 16-cell vectors and pieces
   of 8, 4, 2 and 1 cells.  A plain loop leaves up to 15 cells to a scalar
   epilogue, and a z-layer segment is as short as the layer (20 cells: 4
   scalar).  VECTOR_PIECES_ALIGNED(p, ...) first takes the pieces that
   bring cell `start` of p (a float pointer, indexed as the cells) to a
   64-byte line, so that the whole vectors' loads and stores of every array
   laid out as p (the fields share one layout) each touch one cache line
   rather than two: a 2D row's core starts R + 20 cells into its padded
   row, half a line off.  Every cell's arithmetic is the same in any piece.
   Runs shorter than VECTOR_ALIGN_MIN cells (a z layer's 20) take the whole
   vectors first, in fewer pieces. */
#define VECTOR_ALIGN_MIN 64
#define VECTOR_PIECES(start, len, CALL, ...) VECTOR_PIECES_ALIGNED((const float *)NULL, start, len, CALL, __VA_ARGS__)
#define VECTOR_PIECES_ALIGNED(p, start, len, CALL, ...) \
  do { \
    const PetscInt vp_end_ = (start) + (len); \
    PetscInt       vp_off_ = (len) >= VECTOR_ALIGN_MIN && (p) ? (PetscInt)(((uintptr_t)(p) / sizeof(float) + (uintptr_t)(start)) & 15) : 0; \
    for (PetscInt vp_at_ = (start); vp_at_ < vp_end_;) { \
      const PetscInt vp_left_ = vp_end_ - vp_at_; \
      PetscInt       vp_n_    = vp_off_ ? vp_off_ & -vp_off_ : 16; /* up to the next line, or whole vectors */ \
      while (vp_n_ > vp_left_) vp_n_ >>= 1; \
      switch (vp_n_) { \
      case 16: vp_n_ = vp_left_ & ~(PetscInt)15; CALL(__VA_ARGS__, vp_at_, vp_n_); break; \
      case 8: CALL(__VA_ARGS__, vp_at_, 8); break; \
      case 4: CALL(__VA_ARGS__, vp_at_, 4); break; \
      case 2: CALL(__VA_ARGS__, vp_at_, 2); break; \
      default: CALL(__VA_ARGS__, vp_at_, 1); break; \
      } \
      vp_at_ += vp_n_; \
      vp_off_ = (vp_off_ + vp_n_) & 15; \
    } \
  } while (0)

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

/* The kernels walk rows in tiles along axis 1 with axis 2 inside, so the
   2r+1 planes the y-stencil reads stay in cache: tiles of at most
   CPU_MAX_TILE rows, their number a multiple of the threads so every thread
   gets as many. */
#define CPU_MAX_TILE 64
static inline PetscInt CPUTileCount(PetscInt rows)
{
  const PetscInt threads = omp_get_max_threads(), want = (rows + CPU_MAX_TILE - 1) / CPU_MAX_TILE;
  return PetscMax(1, PetscMin(rows, (want + threads - 1) / threads * threads));
}

/* The float bits as integers, for the tests of cells for zero or NaN/Inf. */
typedef uint32_t __attribute__((may_alias)) FloatBits;

/* Whether the OR of floats' bits has any bit but the sign set: some float
   was other than +-0 (NaN and Inf included). */
static inline int FloatBitsNonzero(uint32_t any) { return (any & 0x7fffffffu) != 0; }

/* Row i of an injection map (PointMap) into field uprev. */
static inline void CPUInjectRow(const Fields *f, float *uprev, const PointMap *m, const float amp[], PetscInt i)
{
  uprev[m->cell[i]] += f->vdt2[m->cell[i]] * (float)PointMapRowSum(m, i, amp, NULL);
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

/* The floats of scratch a window of planes of `stride` floats takes. */
static inline size_t SlabWindowFloats(size_t stride) { return 3 * SLAB_PLANES * stride; }

/* A window over SlabWindowFloats(stride) floats of scratch, from plane base. */
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

/* An x slab's rows for a sweep along x beside the adjoint's rows, a rank
   alone along x: factors formed over [flo, fhi), finished over [lo, hi),
   its layer rows [llo, lhi). */
typedef struct {
  PetscInt s, flo, fhi, lo, hi, llo, lhi;
} XSlab;

/* The x slabs of f into slab[]; returns their number. */
PetscInt CPUXSlabs(const Fields *f, XSlab slab[2]);

/* Row x of plane i2 (whole rows) in such a sweep, windows win[] from the
   slabs' flo on: the factors of the slabs that form them there, or the
   finish of those that finish it (rows in increasing order, each finished
   R rows after its factors and after its adjoint step and z terms). */
void CPUXSlabsFactors(const Fields *f, const XSlab slab[], PetscInt nslab, SlabWindow win[], PetscInt x, PetscInt i2);
void CPUXSlabsFinish(const Fields *f, const XSlab slab[], PetscInt nslab, const SlabWindow win[], PetscInt x, PetscInt i2);

/* A thread's sweep of the x slabs along the rows of one plane i2 of the
   adjoint step (CPUXSlabsInStep): the slabs and their windows. */
typedef struct {
  XSlab      slab[2];
  PetscInt   nslab;
  SlabWindow win[2];
} XSweep;

/* Floats of scratch a thread's sweep takes. */
static inline size_t CPUXSweepFloats(const Fields *f) { return 2 * SlabWindowFloats((size_t)f->n[0]); }

/* The sweep of plane i2 starting at row t0, windows over scratch: in the
   first rows' tile also the factors of the ghost rows before it. */
void CPUXSweepBegin(const Fields *f, XSweep *x, float *scratch, PetscInt t0, PetscInt i2);
/* Row r's turn, after its adjoint step and z terms: its factors, and the
   finish of row r - R. */
void CPUXSweepRow(const Fields *f, XSweep *x, PetscInt r, PetscInt i2);
/* After row t1 - 1: in the last rows' tile, the ghost rows past it. */
void CPUXSweepEnd(const Fields *f, XSweep *x, PetscInt t1, PetscInt i2);

/* Whether the adjoint step does the x slabs' terms in its sweep over the
   rows (and CPUAdjointLayersEnd leaves them out): x slabs there, the
   rank alone along every axis, so its one adjoint box holds every cell,
   and each slab's rows, with their stencils' reach, within the first or
   the last of the step's tiles of rows (CPUTileCount). */
PetscBool CPUXSlabsInStep(const Fields *f);

PetscErrorCode CPUAdjointLayersBegin(Fields *f);
PetscBool      CPUAdjointPairPlan(const Fields *f, size_t *scratch_bytes);
PetscErrorCode CPUAdjointPair(Fields *f, const AdjointPair *w);
PetscErrorCode CPUAdjointLayersEnd(Fields *f);

/* No rank lies across either face of axis a, so nothing exchanges that
   axis's slabs: the adjoint then adds u to their E (adjoint_layers_begin's
   work) where its sweeps first read E, and for axis 0, every box then
   holding whole rows, does the z slabs' terms inside adjoint_step. */
static inline PetscBool CPUAxisAlone(const Fields *f, PetscInt a) { return !f->neighbour[a][0] && !f->neighbour[a][1] ? PETSC_TRUE : PETSC_FALSE; }

/* What the rows of a z slab (side 0 low, 1 high) share, formed once a
   pass: their cells from lo - R on, n of them within R of the layer, the
   layer cells [k0, k1) and the cells [f0, f1) beyond which the profile b
   is 0 (counted from lo - R), where the adjoint forms the factors. */
typedef struct {
  PetscInt lo, n, k0, k1, f0, f1;
} CPUZSide;
typedef struct {
  CPUZSide side[2];
} CPUZRows;
void CPUZRowsSetUp(const Fields *f, CPUZRows *z);

/* The rows [lo, hi) along axes 1 and 2 whose parts the adjoint may leave
   as they are (Fields.u_live).  The others are marked live whatever their
   values: the x and y slabs' CPML terms, and the ghosts a halo exchange
   fills, are written after the step marks them (the z slabs' cells are
   looked at again). */
typedef struct {
  PetscInt lo[3], hi[3];
} CPUQuietRows;
void CPUQuietRowsOf(const Fields *f, CPUQuietRows *q);

/* Whether row (i1, i2) is marked live whatever its values. */
static inline int CPUQuietRowFixed(const CPUQuietRows *q, PetscInt i1, PetscInt i2)
{
  return i1 < q->lo[1] || i1 >= q->hi[1] || i2 < q->lo[2] || i2 >= q->hi[2];
}

/* adjoint_step over the whole row (i1, i2) and, as it does there when
   axis 0 is alone (the caller's to know), the z slabs' terms (z:
   CPUZRowsSetUp); with Fields.u_live, the row's parts marked as there
   (quiet: CPUQuietRowsOf).  Returns the parts left as they were
   (Fields.parts_left). */
PetscInt CPUAdjointRow(const Fields *f, const CPUZRows *z, const CPUQuietRows *quiet, PetscInt i1, PetscInt i2);

/* Padded cell `cell` of uprev, just injected into: its row part marked
   live in Fields.uprev_live, where that is kept. */
void CPUMarkInjected(const Fields *f, ptrdiff_t cell);

/* The adjoint CPML terms of the z slabs for one row (i1, i2) of owned
   cells (z: CPUZRowsSetUp): uprev's share, then psi and E one step back.
   A row's z-slab cells read nothing of other rows' slab cells, so when
   axis 0 is alone the adjoint step does each row's right after its
   leapfrog, while the row is in cache, and CPUAdjointLayersEnd leaves the
   z slabs out. */
#define CPU_DECLARE_ROW_Z(R, DIM) unsigned CPUAdjointLayersRowZ_r##R(const Fields *f, const CPUZRows *z, PetscInt i1, PetscInt i2);
FWI_KERNEL_RADII(CPU_DECLARE_ROW_Z, 0)
#undef CPU_DECLARE_ROW_Z
