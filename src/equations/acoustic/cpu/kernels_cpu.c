/* CPU backend: OpenMP across rows, vectorised along z (axis 0, contiguous). */
#include "equations/acoustic/kernels.h"
#include "equations/acoustic/cpu/kernels_cpu.h"
#include "equations/subnormals.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX__)
  #include <immintrin.h>
#endif

/* One segment of a row (fixed i1, i2) of cells along z: pointers at its first
   cell, indexed by j = 0, 1, ...  Every kernel below is instantiated per
   stencil radius R and dimension DIM so the stencil loops unroll and the
   loop along the row vectorises; L says which axes' CPML terms apply (bit a:
   axis a).  Profiles vary along the row for axis 0 and are constant along it
   for axes 1 and 2. */
typedef struct {
  const float *u, *v, *fu;
  const float *pa[3], *pb[3], *pda[3]; /* each axis's profiles at the row's first cell */
  const float *lapn;
  float       *up, *psi[3], *zeta[3], *lap, *grad, *fup;
  float       *psi0_next; /* where a fused z-layer step writes axis 0's new psi (psi[0] then reads a copy of the old) */
} Row;

/* A step over a z-layer segment of a whole row (Step_ knows the box)
   also advances axis 0's psi there (see SegmentStepFused). */
#define FUSE_Z 8u

/* Cells of a z-layer segment a fused step copies psi for at a time. */
#define Z_CHUNK 64

/* What a pass over a box computes. */
typedef enum {
  PASS_STEP,    /* forward leapfrog, storing lap when Fields.lap is set */
  PASS_MEMORY,  /* CPML psi */
  PASS_ADJOINT  /* adjoint leapfrog without CPML, and the gradient */
} Pass;

/* zside: which z layer (0 low, 1 high) the segment lies in, when L has bit 0. */
static inline void RowSetUp(const Fields *f, PetscInt i1, PetscInt i2, PetscInt lo, unsigned L, PetscInt zside, Row *w)
{
  const PetscInt  r = f->radius, p[3] = {lo + r, i1 + r, i2 + (f->dim > 2 ? r : 0)};
  const ptrdiff_t cell = p[0] + p[1] * f->stride[1] + p[2] * f->stride[2];

  w->u   = f->u + cell;
  w->up  = f->uprev + cell;
  w->v   = f->vdt2 + cell;
  w->lap  = f->lap ? f->lap + cell : NULL;
  w->lapn = f->lap_next ? f->lap_next + cell : NULL;
  w->grad = f->grad ? f->grad + cell : NULL;
  w->fu   = f->fu ? f->fu + cell : NULL;
  w->fup  = f->fu ? f->fuprev + cell : NULL;
  w->psi0_next = NULL;
  for (PetscInt a = 0; a < 3; a++) {
    const PetscInt   side = a ? (p[a] - r < f->core[a][0] ? 0 : 1) : zside;
    const LayerSlab *slab = &f->slab[a][side];
    const PetscBool  on   = (L & (1u << a)) ? PETSC_TRUE : PETSC_FALSE;
    w->psi[a]             = on ? slab->psi + SlabIndex(slab, a, p) : NULL;
    w->zeta[a]            = on ? slab->zeta + SlabIndex(slab, a, p) : NULL;
    w->pa[a]              = on || !a ? f->pml_a[a] + p[a] : NULL;
    w->pb[a]              = on || !a ? f->pml_b[a] + p[a] : NULL;
    w->pda[a]             = on || !a ? f->pml_da[a] + p[a] : NULL;
  }
}

/* Asks for row (i1, i2)'s pieces of the z slabs (psi and zeta, both sides)
   ahead of use: read a few cache lines per row, they miss otherwise, and a
   z-layer cell's step waits on them. */
static inline void PrefetchZSlabs(const Fields *f, PetscInt i1, PetscInt i2)
{
  const PetscInt p[3] = {0, i1 + f->radius, i2 + (f->dim > 2 ? f->radius : 0)};

  for (PetscInt s = 0; s < 2; s++) {
    const LayerSlab *slab = &f->slab[0][s];
    const ptrdiff_t  off  = SlabIndex(slab, 0, (PetscInt[3]){slab->lo, p[1], p[2]});
    CPUPrefetch(slab->psi + off, slab->hi - slab->lo, 0);
    CPUPrefetch(slab->zeta + off, slab->hi - slab->lo, 0);
  }
}

/* Row (i1, i2)'s index among the padded box's rows (Fields.live_start). */
static inline size_t LiveRowIndex(const Fields *f, PetscInt i1, PetscInt i2)
{
  return (size_t)(i1 + f->radius + (i2 + (f->dim > 2 ? f->radius : 0)) * f->padded[1]);
}

/* Row (i1, i2)'s first chunk in Fields.live. */
static inline size_t LiveRow(const Fields *f, PetscInt i1, PetscInt i2) { return LiveRowIndex(f, i1, i2) * FieldsLiveChunks(f); }

/* Pieces [k0, k1) of `size` cells' padded cells within [lo, hi) of a row:
   [*j0, *j1), empty when *j0 >= *j1. */
static inline void PieceCells(PetscInt k0, PetscInt k1, PetscInt size, PetscInt lo, PetscInt hi, PetscInt *j0, PetscInt *j1)
{
  *j0 = PetscMax(lo, k0 * size);
  *j1 = PetscMin(hi, k1 * size);
}

/* Bit k of a row's bits (Fields.u_live); and setting it where `on`. */
static inline int  LiveBit(const uint64_t *bits, PetscInt k) { return (int)(bits[k / 64] >> (k % 64) & 1); }
static inline void LiveBitSet(uint64_t *bits, PetscInt k, int on) { bits[k / 64] |= (uint64_t)(on != 0) << (k % 64); }

/* The image variant (SegmentAdjoint's IMAGE) of chunk k of a row's live
   maps now and next (NULL: no term of step n + 1). */
static inline int LiveImage(const unsigned char *now, const unsigned char *next, PetscInt k)
{
  const int a = now[k], b = next && next[k];
  return a && b ? 3 : a ? 1 : b ? 4 : 0;
}

/* The end of the run of chunks from k0 (below k1) that take chunk k0's
   image variant. */
static inline PetscInt LiveRunEnd(const unsigned char *now, const unsigned char *next, PetscInt k0, PetscInt k1)
{
  const int image = LiveImage(now, next, k0);
  PetscInt  k     = k0 + 1;
  while (k < k1 && LiveImage(now, next, k) == image) k++;
  return k;
}

_Static_assert(FIELDS_LIVE_CHUNK % FIELDS_QUIET_CELLS == 0 && FIELDS_QUIET_CELLS >= FWI_MAX_RADIUS, "a quiet part: a piece of a chunk, no shorter than a radius");

/* The most words of a row's bits in Fields.u_live (512 parts: rows of
   8192 cells) for which the CPU keeps them: the adjoint holds a row's on
   its stack. */
#define LIVE_WORDS_MAX 8

/* The bits [lo, hi) of a word, 0 <= lo <= hi <= 64. */
static inline uint64_t BitsBetween(PetscInt lo, PetscInt hi)
{
  if (lo >= hi) return 0;
  return (hi == 64 ? ~(uint64_t)0 : ((uint64_t)1 << hi) - 1) & ~(((uint64_t)1 << lo) - 1);
}

/* Bits [p0, p1) of a row's bits set. */
static inline void MarkParts(uint64_t *bits, PetscInt p0, PetscInt p1)
{
  for (PetscInt v = p0 / 64; p0 < p1 && v <= (p1 - 1) / 64; v++) bits[v] |= BitsBetween(PetscMax(p0 - 64 * v, 0), PetscMin(p1 - 64 * v, 64));
}

/* Row (i1, i2)'s first word in Fields.u_live and uprev_live. */
static inline size_t LiveBitsRow(const Fields *f, PetscInt i1, PetscInt i2) { return LiveRowIndex(f, i1, i2) * FieldsLiveWords(f); }

void CPUQuietRowsOf(const Fields *f, CPUQuietRows *q)
{
  PetscInt *lo = q->lo, *hi = q->hi;

  for (PetscInt a = 0; a < 3; a++) {
    lo[a] = 0;
    hi[a] = f->n[a];
  }
  for (PetscInt a = 1; a < f->dim; a++) {
    PetscInt blo[3], bhi[3];
    if (f->slab[a][0].ncells) {
      FieldsSlabBox(f, a, 0, f->radius, blo, bhi);
      lo[a] = PetscMax(lo[a], bhi[a]);
    }
    if (f->slab[a][1].ncells) {
      FieldsSlabBox(f, a, 1, f->radius, blo, bhi);
      hi[a] = PetscMin(hi[a], blo[a]);
    }
    if (f->neighbour[a][0]) lo[a] = PetscMax(lo[a], f->radius);
    if (f->neighbour[a][1]) hi[a] = PetscMin(hi[a], f->n[a] - f->radius);
  }
}

/* The parts of adjoint row (i1, i2) that stay +-0 in this step, as bits:
   those +-0 in uprev whose stencil reads only cells of u that are +-0 (the
   rows within the radius, the part and its neighbours along the row: a
   part is no shorter than the radius).  Ghost rows are never marked: across
   a free surface they mirror rows within the radius, which are looked at
   too; across a neighbour, the rows that read them are not quiet rows. */
static inline void PartsQuiet(const Fields *f, PetscInt i1, PetscInt i2, uint64_t quiet[])
{
  const PetscInt  R = f->radius, y = f->dim > 2 ? R : 0, nw = FieldsLiveWords(f);
  const uint64_t *up = f->uprev_live + LiveBitsRow(f, i1, i2);
  uint64_t        m[LIVE_WORDS_MAX];

  for (PetscInt w = 0; w < nw; w++) {
    uint64_t any = 0;
    for (PetscInt q2 = i2 - y; q2 <= i2 + y; q2++)
      for (PetscInt q1 = i1 - R; q1 <= i1 + R; q1++) any |= f->u_live[LiveBitsRow(f, q1, q2) + w];
    m[w] = any;
  }
  for (PetscInt w = 0; w < nw; w++) {
    const uint64_t below = w ? m[w - 1] >> 63 : 0, above = w + 1 < nw ? m[w + 1] << 63 : 0;
    quiet[w] = ~(m[w] | m[w] << 1 | m[w] >> 1 | below | above | up[w]);
  }
}

/* Whether any of cells [0, n) of p is other than +-0 (cells just written:
   their lines are in the L1 cache).  Vectorised as it is (omp simd spilled
   the OR to the stack). */
static inline int CellsNonzero(const float *p, PetscInt n)
{
  const FloatBits *b   = (const FloatBits *)p;
  uint32_t         any = 0;

  for (PetscInt j = 0; j < n; j++) any |= b[j];
  return FloatBitsNonzero(any);
}

/* The same for a piece of n cells that is most often `whole` long (a
   constant): then the test takes its length as a constant, the OR
   unrolled and without a loop's tail, half the cost of the test of any
   length. */
static inline int PieceNonzero(const float *p, PetscInt n, PetscInt whole) { return n == whole ? CellsNonzero(p, whole) : CellsNonzero(p, n); }

/* After the terms of the z slabs `sides` (bits) of row (i1, i2): their
   parts marked live where those terms left a value other than +-0. */
static void MarkZSlabs(const Fields *f, const CPUZRows *z, unsigned sides, PetscInt i1, PetscInt i2)
{
  uint64_t    *mark = f->uprev_live + LiveBitsRow(f, i1, i2);
  const float *row  = f->uprev + LiveRowIndex(f, i1, i2) * f->stride[1];

  for (PetscInt s = 0; s < 2; s++) {
    if (!(sides >> s & 1)) continue;
    const PetscInt lo = z->side[s].lo + f->radius, hi = lo + z->side[s].n; /* padded */
    for (PetscInt j = lo; j < hi;) {
      const PetscInt k = j / FIELDS_QUIET_CELLS, end = PetscMin(hi, (k + 1) * FIELDS_QUIET_CELLS);
      LiveBitSet(mark, k, PieceNonzero(row + j, end - j, FIELDS_QUIET_CELLS));
      j = end;
    }
  }
}

/* An injected cell, at `offset` along padded row `row` (LiveRowIndex):
   its part marked live in uprev_live, where it is kept. */
static inline void MarkInjected(const Fields *f, size_t row, ptrdiff_t offset)
{
  if (f->uprev_live) LiveBitSet(f->uprev_live + row * FieldsLiveWords(f), (PetscInt)(offset / FIELDS_QUIET_CELLS), 1);
}

void CPUMarkInjected(const Fields *f, ptrdiff_t cell) { MarkInjected(f, (size_t)(cell / f->stride[1]), cell % f->stride[1]); }

/* The adjoint step's injection (Fields.inject, its cells ascending, as
   rows of the field are): the first of its cells at or after row (i1,
   i2)'s start. */
static PetscInt InjectFirst(const Fields *f, PetscInt i1, PetscInt i2)
{
  const ptrdiff_t start = (ptrdiff_t)LiveRowIndex(f, i1, i2) * f->stride[1];
  PetscInt        lo = 0, hi = f->inject->nrows;

  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (f->inject->cell[mid] < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Its cells in complete row (i1, i2), from its cell *k on (InjectFirst,
   then the rows in order). */
static void InjectRow(const Fields *f, PetscInt *k, PetscInt i1, PetscInt i2)
{
  const PointMap *m     = f->inject;
  const size_t    row   = LiveRowIndex(f, i1, i2);
  const ptrdiff_t start = (ptrdiff_t)row * f->stride[1], end = start + f->stride[1];

  for (; *k < m->nrows && m->cell[*k] < end; (*k)++) {
    CPUInjectRow(f, f->uprev, m, f->inject_amp, *k);
    MarkInjected(f, row, m->cell[*k] - start);
  }
}

/* The axes 1 and 2 (bits) in whose layers row (i1, i2) lies. */
static inline unsigned RowLayers(const Fields *f, PetscInt i1, PetscInt i2)
{
  const PetscInt i[3] = {0, i1, i2};
  unsigned       L    = 0;

  for (PetscInt a = 1; a < f->dim; a++)
    if (i[a] < f->core[a][0] || i[a] >= f->core[a][1]) L |= 1u << a;
  return L;
}

/* Streaming stores: the stored term is read back only by the adjoint, long
   after, so its lines go straight to memory instead of being read in first
   and then evicting the fields from cache.  STREAM_FLOATS floats a store,
   at addresses aligned to that many floats, from any address. */
#if defined(__AVX512F__)
  #define STREAM_FLOATS       16
  #define STREAM_STORE(d, s)  _mm512_stream_ps(d, _mm512_loadu_ps(s))
  #define STREAM_FENCE()      _mm_sfence()
#elif defined(__AVX__)
  #define STREAM_FLOATS       8
  #define STREAM_STORE(d, s)  _mm256_stream_ps(d, _mm256_loadu_ps(s))
  #define STREAM_FENCE()      _mm_sfence()
#else
  #define STREAM_FLOATS       1
  #define STREAM_STORE(d, s)  (*(d) = *(s))
  #define STREAM_FENCE()      ((void)0)
#endif
#define STREAM_BYTES (STREAM_FLOATS * sizeof(float))

/* Cells appended to the store one after the other, from Fields.lap + at
   on: whole aligned lines go out as streaming stores, the cells of a line
   not yet whole are held back; the partial first and last lines of a run
   (LiveStreamEnd) are stored cell by cell, as other threads' cells may
   share them. */
typedef struct {
  size_t   at;   /* where the next cell goes */
  PetscInt held; /* cells [at - held, at), held in `line` */
  float    line[STREAM_FLOATS];
} LiveStream;

static void LiveStreamAppend(const Fields *f, LiveStream *s, const float *src, PetscInt n)
{
  float   *lap = f->lap;
  PetscInt j   = 0;

  if (!s->held)
    for (; j < n && (uintptr_t)(lap + s->at) % STREAM_BYTES; j++) lap[s->at++] = src[j];
  while (j < n) {
    if (!s->held && n - j >= STREAM_FLOATS) {
      STREAM_STORE(lap + s->at, src + j);
      s->at += STREAM_FLOATS;
      j += STREAM_FLOATS;
      continue;
    }
    const PetscInt take = PetscMin(STREAM_FLOATS - s->held, n - j);
    PetscArraycpy(s->line + s->held, src + j, take);
    s->held += take;
    s->at += (size_t)take;
    j += take;
    if (s->held == STREAM_FLOATS) {
      STREAM_STORE(lap + s->at - STREAM_FLOATS, s->line);
      s->held = 0;
    }
  }
}

static void LiveStreamEnd(const Fields *f, LiveStream *s)
{
  for (PetscInt j = 0; j < s->held; j++) f->lap[s->at - s->held + j] = s->line[j];
  s->held = 0;
}

/* A forward step's row (i1, i2) of the stored term, formed in a row
   buffer `row` (padded indices): its chunks of the live map, 1 where a
   cell's term is other than +-0 (any bit but the sign set; NaN included),
   and only those chunks' cells appended to the store's stream s (the
   row's start: where s stands).
   Ahead of the first arrivals, and in the dead zones behind them, the term
   is exactly zero (the fields flush subnormals to zero): the adjoint skips
   it, and the forward need not write it.  Packed, the live cells of a step
   are read back as one stream: with gaps between them the hardware
   prefetcher falls behind. */
static void LiveRowStore(const Fields *f, const float *row, LiveStream *s, PetscInt i1, PetscInt i2)
{
  const PetscInt r    = f->radius, nc = FieldsLiveChunks(f);
  unsigned char *live = f->live + LiveRow(f, i1, i2);

  f->live_start[LiveRowIndex(f, i1, i2)] = (uint32_t)s->at;
  for (PetscInt k = 0; k < nc; k++) {
    PetscInt j0, j1;
    PieceCells(k, k + 1, FIELDS_LIVE_CHUNK, r, r + f->n[0], &j0, &j1);
    live[k] = (unsigned char)PieceNonzero(row + j0, j1 - j0, FIELDS_LIVE_CHUNK);
  }
  /* each run of live chunks in one copy */
  for (PetscInt k = 0, e; k < nc; k = e) {
    PetscInt j0, j1;
    e = LiveRunEnd(live, NULL, k, nc);
    if (!live[k]) continue;
    PieceCells(k, e, FIELDS_LIVE_CHUNK, r, r + f->n[0], &j0, &j1);
    LiveStreamAppend(f, s, row + j0, j1 - j0);
  }
}

/* A row buffer in `space` (a padded row and STREAM_FLOATS floats more),
   aligned for the step's vector stores. */
static inline float *LiveRowBuffer(float *space) { return (float *)(((uintptr_t)space + STREAM_BYTES - 1) / STREAM_BYTES * STREAM_BYTES); }

/* The same row d cells further along z. */
static inline void RowAdvance(Row *w, PetscInt d)
{
#define ADVANCE(p) \
  if (p) p += d
  ADVANCE(w->u);
  ADVANCE(w->v);
  ADVANCE(w->fu);
  ADVANCE(w->lapn);
  ADVANCE(w->up);
  ADVANCE(w->lap);
  ADVANCE(w->grad);
  ADVANCE(w->fup);
  ADVANCE(w->psi0_next);
  ADVANCE(w->pa[0]);
  ADVANCE(w->pb[0]);
  ADVANCE(w->pda[0]);
  for (PetscInt a = 0; a < 3; a++) {
    ADVANCE(w->psi[a]);
    ADVANCE(w->zeta[a]);
  }
#undef ADVANCE
}

/* A profile of axis A at j: it varies along the row for axis 0 only. */
#define PROFILE_AT(P, A) (A ? w->P[A] : w->P[0] + j)

/* The Laplacian term of axis A at j, with its CPML memory where L says so
   (DU: the first difference of u along the axis there). */
#define AXIS_TERM(A, R, S, DU) \
  ((L & (1u << A)) ? fwi_cpml_term(fwi_d2(w->u + j, S, c2[A], R), DU, \
                                   fwi_d1_weighted(w->psi[A] + j, S, PROFILE_AT(pb, A), c1[A], R), PROFILE_AT(pa, A)[0], \
                                   PROFILE_AT(pda, A)[0], PROFILE_AT(pb, A)[0], &w->zeta[A][j]) \
                   : fwi_d2(w->u + j, S, c2[A], R))

/* Calls fn(..., L) with L a literal, so each CPML combination gets its own
   vectorised loop without per-cell branches. */
#define WITH_LITERAL_L(L, CALL) \
  switch (L) { \
  case 0: { const unsigned L_ = 0; CALL; } break; \
  case 1: { const unsigned L_ = 1; CALL; } break; \
  case 2: { const unsigned L_ = 2; CALL; } break; \
  case 3: { const unsigned L_ = 3; CALL; } break; \
  case 4: { const unsigned L_ = 4; CALL; } break; \
  case 5: { const unsigned L_ = 5; CALL; } break; \
  case 6: { const unsigned L_ = 6; CALL; } break; \
  default: { const unsigned L_ = 7; CALL; } break; \
  }

/* The same for the L with bit 0 (a z-layer segment). */
#define WITH_LITERAL_ODD_L(L, CALL) \
  switch (L) { \
  case 1: { const unsigned L_ = 1; CALL; } break; \
  case 3: { const unsigned L_ = 3; CALL; } break; \
  case 5: { const unsigned L_ = 5; CALL; } break; \
  default: { const unsigned L_ = 7; CALL; } break; \
  }

/* In Step_: the z slabs' pieces of the row after (i1, i2) in a tile
   [t0, t1) of box b. */
#define PREFETCH_NEXT_ROW \
  do { \
    if (i1 + 1 < t1) PrefetchZSlabs(f, i1 + 1, i2); \
    else if (i2 + 1 < b->hi[2]) PrefetchZSlabs(f, t0, i2 + 1); \
  } while (0)

/* psi <- b psi + a du/dx over cells [j0, j0 + n) of a row: the profiles
   pa, pb along the row when PS is 1, constant along it when 0. */
#define PSI_CELLS_AT(psi, u, s, c1, R, pa, pb, PS, j0, n) \
  _Pragma("omp simd") for (PetscInt j = (j0); j < (j0) + (n); j++)(psi)[j] = fwi_cpml_psi((psi)[j], fwi_d1((u) + j, s, c1, R), (pa)[PS * j], (pb)[PS * j])

/* The cells [*s0, *s1) of [lo, hi) on row (i1, i2) that box b holds: an
   empty span at lo where the row misses b. */
static inline void SupportSpan(const Fields *f, const Box *b, PetscInt i1, PetscInt i2, PetscInt lo, PetscInt hi, PetscInt *s0, PetscInt *s1)
{
  const int in = i1 >= b->lo[1] && i1 < b->hi[1] && (f->dim < 3 || (i2 >= b->lo[2] && i2 < b->hi[2]));

  *s0 = in ? PetscMax(lo, PetscMin(hi, b->lo[0])) : lo;
  *s1 = in ? PetscMax(*s0, PetscMin(hi, b->hi[0])) : lo;
}

#define DEFINE_ROW_KERNELS(R, DIM) \
  /* leapfrog over cells [j0, j0 + n) with the CPML terms of the axes in L; \
     the sum is (term_z + term_x) + term_y in every variant; with fuse, also \
     psi of axis 0 <- b psi + a du/dz, into psi0_next */ \
  static inline __attribute__((always_inline)) void SegmentStepCells_##DIM##d_r##R(const Fields *f, const Row *w, const unsigned L, const int store, \
                                                                                  const int fuse, PetscInt j0, PetscInt n) \
  { \
    const ptrdiff_t s1 = f->stride[1], s2 = f->stride[2]; \
    LOCAL_WEIGHTS(R); \
    _Pragma("omp simd") for (PetscInt j = j0; j < j0 + n; j++) \
    { \
      const float du0 = fwi_d1(w->u + j, 1, c1[0], R); \
      float       lap = AXIS_TERM(0, R, 1, du0) + AXIS_TERM(1, R, s1, fwi_d1(w->u + j, s1, c1[1], R)); \
      if (DIM == 3) lap += AXIS_TERM(2, R, s2, fwi_d1(w->u + j, s2, c1[2], R)); \
      if (fuse) w->psi0_next[j] = fwi_cpml_psi(w->psi[0][j], du0, w->pa[0][j], w->pb[0][j]); \
      if (store) w->lap[j] = lap; \
      w->up[j] = fwi_leapfrog(w->u[j], w->up[j], w->v[j], lap); \
    } \
  } \
  static inline __attribute__((always_inline)) void SegmentStepL_##DIM##d_r##R(const Fields *f, const Row *w, const unsigned L, const int store, \
                                                                              const int fuse, PetscInt len) \
  { \
    VECTOR_PIECES_ALIGNED(w->u, 0, len, SegmentStepCells_##DIM##d_r##R, f, w, L, store, fuse); \
  } \
  /* A z-layer segment of a whole row, its psi of axis 0 advanced in place: \
     no other box reads it, and the step reads the old values from a copy \
     taken a chunk at a time (with R cells either side) before the chunk is \
     written.  The separate memory pass would read u back from memory. */ \
  static void SegmentStepFused_##DIM##d_r##R(const Fields *f, const Row *w, unsigned L, PetscInt len) \
  { \
    float old[Z_CHUNK + 2 * R]; \
    for (PetscInt j0 = 0; j0 < len; j0 += Z_CHUNK) { \
      const PetscInt n = PetscMin(Z_CHUNK, len - j0); \
      Row            c = *w; \
      /* cells j0 - R .. j0 - 1: the last chunk's copy, or the slab before the segment */ \
      if (j0) memmove(old, old + Z_CHUNK, R * sizeof(float)); \
      else memcpy(old, w->psi[0] - R, R * sizeof(float)); \
      /* a vector loop: GCC made a memcpy of this size a rep movs, whose \
         start-up took 9% of a 3D z-layer segment's time */ \
      _Pragma("omp simd") for (PetscInt k = 0; k < n + R; k++) old[R + k] = w->psi[0][j0 + k]; \
      RowAdvance(&c, j0); \
      c.psi0_next = c.psi[0]; \
      c.psi[0]    = old + R; \
      if (w->lap) { \
        WITH_LITERAL_ODD_L(L, SegmentStepL_##DIM##d_r##R(f, &c, L_, 1, 1, n)) \
      } else { \
        WITH_LITERAL_ODD_L(L, SegmentStepL_##DIM##d_r##R(f, &c, L_, 0, 1, n)) \
      } \
    } \
  } \
  static void SegmentStep_##DIM##d_r##R(const Fields *f, const Row *w, unsigned L, PetscInt len) \
  { \
    if (L & FUSE_Z) { \
      SegmentStepFused_##DIM##d_r##R(f, w, L & ~FUSE_Z, len); \
    } else if (w->lap) { \
      WITH_LITERAL_L(L, SegmentStepL_##DIM##d_r##R(f, w, L_, 1, 0, len)) \
    } else { \
      WITH_LITERAL_L(L, SegmentStepL_##DIM##d_r##R(f, w, L_, 0, 0, len)) \
    } \
  } \
  /* adjoint leapfrog without CPML (the layers are corrected afterwards) and \
     the gradient term of this step: IMAGE 0 none, 1 with the stored lap, 2 \
     with the forward field's Laplacian as it steps back (boundary method), \
     3 with the stored lap and lap_next: the terms of two steps added in the \
     order two passes would add them, 4 with lap_next alone (where lap is \
     zero: the gradient is never -0, so adding u * 0 changes nothing), 5 as \
     2 where the forward field is 0 a step back (Fields.fu_support) */ \
  static inline __attribute__((always_inline)) void SegmentAdjointCells_##DIM##d_r##R(const Fields *f, const Row *w, const int image, PetscInt j0, \
                                                                                     PetscInt n) \
  { \
    const ptrdiff_t s1 = f->stride[1], s2 = f->stride[2]; \
    LOCAL_WEIGHTS(R); \
    _Pragma("omp simd") for (PetscInt j = j0; j < j0 + n; j++) \
    { \
      float lap = fwi_d2(w->u + j, 1, c2[0], R) + fwi_d2(w->u + j, s1, c2[1], R); \
      if (DIM == 3) lap += fwi_d2(w->u + j, s2, c2[2], R); \
      if (image == 1) w->grad[j] += w->u[j] * w->lap[j]; \
      if (image == 3) w->grad[j] = (w->grad[j] + w->up[j] * w->lapn[j]) + w->u[j] * w->lap[j]; \
      if (image == 4) w->grad[j] += w->up[j] * w->lapn[j]; \
      if (image == 2 || image == 5) { \
        float lapf = fwi_d2(w->fu + j, 1, c2[0], R) + fwi_d2(w->fu + j, s1, c2[1], R); \
        if (DIM == 3) lapf += fwi_d2(w->fu + j, s2, c2[2], R); \
        w->fup[j] = image == 2 ? fwi_leapfrog(w->fu[j], w->fup[j], w->v[j], lapf) : 0.0f; \
        w->grad[j] += w->u[j] * lapf; \
      } \
      w->up[j] = fwi_leapfrog(w->u[j], w->up[j], w->v[j], lap); \
    } \
  } \
  static inline __attribute__((always_inline)) void SegmentAdjointI_##DIM##d_r##R(const Fields *f, const Row *w, const int image, PetscInt len) \
  { \
    VECTOR_PIECES_ALIGNED(w->u, 0, len, SegmentAdjointCells_##DIM##d_r##R, f, w, image); \
  } \
  /* L: as IMAGE (0 also for layer cells under the boundary method) */ \
  static void SegmentAdjoint_##DIM##d_r##R(const Fields *f, const Row *w, unsigned L, PetscInt len) \
  { \
    if (L == 5) SegmentAdjointI_##DIM##d_r##R(f, w, 5, len); \
    else if (L == 4) SegmentAdjointI_##DIM##d_r##R(f, w, 4, len); \
    else if (L == 3) SegmentAdjointI_##DIM##d_r##R(f, w, 3, len); \
    else if (L == 2) SegmentAdjointI_##DIM##d_r##R(f, w, 2, len); \
    else if (L == 1) SegmentAdjointI_##DIM##d_r##R(f, w, 1, len); \
    else SegmentAdjointI_##DIM##d_r##R(f, w, 0, len); \
  } \
  /* psi <- b psi + a du/dx on the axes in L, after every read of the old psi */ \
  static void SegmentMemory_##DIM##d_r##R(const Fields *f, const Row *w, unsigned L, PetscInt len) \
  { \
    LOCAL_WEIGHTS(R); \
    for (int a = 0; a < DIM; a++) { \
      if (!(L & (1u << a))) continue; \
      float *restrict       psi = w->psi[a]; \
      const float *restrict u   = w->u; \
      const ptrdiff_t       s   = f->stride[a]; \
      if (a) { \
        const float pa = w->pa[a][0], pb = w->pb[a][0]; \
        VECTOR_PIECES_ALIGNED(u, 0, len, PSI_CELLS_AT, psi, u, s, c1[a], R, &pa, &pb, 0); \
      } else { \
        VECTOR_PIECES_ALIGNED(psi, 0, len, PSI_CELLS_AT, psi, u, 1, c1[0], R, w->pa[0], w->pb[0], 1); \
      } \
    } \
  } \
  /* a run of cells [j0, j1) (padded) of row (i1, i2) that take one image, \
     less the parts at either end that `quiet` marks (a wave's front crosses \
     a row once or twice), which are left as they are; the image's terms \
     from lap and lapn where given (packed: their cell j0), else where \
     RowSetUp puts them; the parts it steps marked in `mark`, without a \
     look where they were live in u or uprev (a wave leaves no part all \
     zero behind it), else from their cells; returns the parts left */ \
  static inline PetscInt AdjointRun_##DIM##d_r##R(const Fields *f, PetscInt i1, PetscInt i2, PetscInt j0, PetscInt j1, unsigned image, float *lap, \
                                                  const float *lapn, const uint64_t *quiet, int fixed, uint64_t *mark) \
  { \
    const PetscInt  r = f->radius, p0 = j0 / FIELDS_QUIET_CELLS, p1 = (j1 - 1) / FIELDS_QUIET_CELLS + 1; \
    const uint64_t *was   = f->u_live ? f->u_live + LiveBitsRow(f, i1, i2) : NULL; \
    const uint64_t *marks = f->uprev_live ? f->uprev_live + LiveBitsRow(f, i1, i2) : NULL; \
    PetscInt        q0 = p0, q1 = p1, s0, s1; \
    Row             w; \
    while (q0 < q1 && LiveBit(quiet, q0)) q0++; \
    while (q1 > q0 && LiveBit(quiet, q1 - 1)) q1--; \
    PieceCells(q0, q1, FIELDS_QUIET_CELLS, j0, j1, &s0, &s1); \
    if (s0 >= s1) return p1 - p0; \
    RowSetUp(f, i1, i2, s0 - r, 0, 0, &w); \
    if (lap) w.lap = lap + (s0 - j0); \
    if (lapn) w.lapn = lapn + (s0 - j0); \
    SegmentAdjoint_##DIM##d_r##R(f, &w, image, s1 - s0); \
    for (PetscInt v = q0 / 64; marks && v <= (q1 - 1) / 64; v++) { \
      const uint64_t range = BitsBetween(PetscMax(q0 - 64 * v, 0), PetscMin(q1 - 64 * v, 64)), seen = fixed ? range : range & (was[v] | marks[v]); \
      mark[v] |= seen; \
      for (uint64_t look = range & ~seen; look; look &= look - 1) { \
        const PetscInt q = 64 * v + __builtin_ctzll(look); \
        PetscInt       a0, a1; \
        PieceCells(q, q + 1, FIELDS_QUIET_CELLS, s0, s1, &a0, &a1); \
        LiveBitSet(mark, q, PieceNonzero(w.up + (a0 - s0), a1 - a0, FIELDS_QUIET_CELLS)); \
      } \
    } \
    return (p1 - p0) - (q1 - q0); \
  } \
  /* the adjoint step over cells [lo0, hi0) of row (i1, i2), whose z core \
     is [c0, c1), in a box of layer bits L; with Fields.u_live, the parts \
     that stay quiet left as they are and the row marked (all live where \
     `fixed`, see CPUQuietRows); returns the parts left as they were.  With a \
     live map, imaging with the terms that are not all zero, a run of \
     chunks that agree at a time (the terms' live cells are packed, from \
     the row's start on).  Under the boundary method the core's cells \
     where the forward field is nonzero a step back or now \
     (Fields.fu_support, else the whole core; none in a box of x or y \
     layers) image as they step it back, and are marked live; the cells \
     either side of them are runs without an image. */ \
  static inline PetscInt AdjointRow_##DIM##d_r##R(const Fields *f, unsigned L, PetscInt lo0, PetscInt hi0, PetscInt c0, PetscInt c1, PetscInt i1, PetscInt i2, \
                                                  int fixed) \
  { \
    const PetscInt r = f->radius; \
    uint64_t *const marks = f->uprev_live ? f->uprev_live + LiveBitsRow(f, i1, i2) : NULL; \
    uint64_t        quiet[LIVE_WORDS_MAX] = {0}, mark[LIVE_WORDS_MAX] = {0}; \
    PetscInt        left = 0; \
    if (marks && !fixed) PartsQuiet(f, i1, i2, quiet); \
    if (!f->fu) { \
      const size_t         row = LiveRowIndex(f, i1, i2); \
      const unsigned char *now = f->live ? f->live + LiveRow(f, i1, i2) : NULL, *next = f->live_next ? f->live_next + LiveRow(f, i1, i2) : NULL; \
      const PetscInt       k1 = (hi0 + r - 1) / FIELDS_LIVE_CHUNK + 1; \
      const unsigned       plain = !f->lap ? 0 : f->lap_next ? 3 : 1; /* the image without a live map */ \
      size_t               at_now = now ? f->live_start[row] : 0, at_next = next ? f->live_next_start[row] : 0; \
      for (PetscInt k = (lo0 + r) / FIELDS_LIVE_CHUNK, e; k < k1; k = e) { \
        PetscInt j0, j1; \
        e = now ? LiveRunEnd(now, next, k, k1) : k1; \
        PieceCells(k, e, FIELDS_LIVE_CHUNK, lo0 + r, hi0 + r, &j0, &j1); \
        left += AdjointRun_##DIM##d_r##R(f, i1, i2, j0, j1, now ? (unsigned)LiveImage(now, next, k) : plain, now && now[k] ? f->lap + at_now : NULL, \
                                         next && next[k] ? f->lap_next + at_next : NULL, quiet, fixed, mark); \
        if (now && now[k]) at_now += (size_t)(j1 - j0); \
        if (next && next[k]) at_next += (size_t)(j1 - j0); \
      } \
    } else { \
      /* e[1], e[4]: the cells that step the forward field back; within them \
         e[2], e[3]: those where it is nonzero a step back (image 2 there, \
         5 beside) */ \
      PetscInt       e[6] = {lo0, c0, c0, c0, c0, hi0}; \
      const unsigned image[3] = {5, 2, 5}; \
      if (!L && c1 > c0) { \
        e[3] = e[4] = c1; \
        if (f->fu_support) { \
          SupportSpan(f, &f->fu_support[0], i1, i2, c0, c1, &e[1], &e[4]); \
          SupportSpan(f, &f->fu_support[1], i1, i2, e[1], e[4], &e[2], &e[3]); \
        } \
      } \
      if (e[4] == e[1]) e[1] = e[2] = e[3] = e[4] = hi0; \
      if (e[1] > lo0) left += AdjointRun_##DIM##d_r##R(f, i1, i2, lo0 + r, e[1] + r, 0, NULL, NULL, quiet, fixed, mark); \
      for (int k = 1; k < 4; k++) { \
        Row w; \
        if (e[k + 1] == e[k]) continue; \
        RowSetUp(f, i1, i2, e[k], 0, 0, &w); \
        SegmentAdjoint_##DIM##d_r##R(f, &w, image[k - 1], e[k + 1] - e[k]); \
      } \
      if (marks && e[4] > e[1]) MarkParts(mark, (e[1] + r) / FIELDS_QUIET_CELLS, (e[4] + r - 1) / FIELDS_QUIET_CELLS + 1); \
      if (hi0 > e[4]) left += AdjointRun_##DIM##d_r##R(f, i1, i2, e[4] + r, hi0 + r, 0, NULL, NULL, quiet, fixed, mark); \
    } \
    for (PetscInt q = 0; marks && q < FieldsLiveWords(f); q++) marks[q] = mark[q]; \
    return left; \
  } \
  /* A box, row by row; each row in up to three segments: z layer, z core, z \
     layer (the adjoint, which has no CPML terms: one segment, or three under \
     the boundary method, which images in the core only; its boxes are not \
     cut at the layers, so it finds each row's).  A box of whole rows \
     advances axis 0's psi in its step (FUSE_Z), and its memory pass, left \
     with axes 1 and 2, takes each row as one segment.  xwork: the threads' \
     scratch for the x slabs' sweep (CPUXSlabsInStep), or NULL. */ \
  static void Step_##DIM##d_r##R(Fields *f, const Box *b, Pass pass, float *xwork) \
  { \
    const unsigned  L     = b->layer_axes & ~1u; /* axis 0 is split along each row */ \
    const PetscBool whole = b->lo[0] == 0 && b->hi[0] == f->n[0]; \
    const unsigned  zbits = whole && pass == PASS_STEP ? 1u | FUSE_Z : 1u; \
    const PetscInt c0 = PetscMax(b->lo[0], PetscMin(b->hi[0], f->core[0][0])); \
    const PetscInt c1 = PetscMax(c0, PetscMin(b->hi[0], f->core[0][1])); \
    const PetscInt ntile = CPUTileCount(b->hi[1] - b->lo[1]), tile = (b->hi[1] - b->lo[1] + ntile - 1) / ntile; \
    void (*segment)(const Fields *, const Row *, unsigned, PetscInt) = pass == PASS_MEMORY ? SegmentMemory_##DIM##d_r##R : SegmentStep_##DIM##d_r##R; \
    /* the adjoint CPML terms of the z slabs, row by row (see CPUAxisAlone) */ \
    const PetscBool zrows = pass == PASS_ADJOINT && CPUAxisAlone(f, 0) && (f->slab[0][0].ncells || f->slab[0][1].ncells); \
    CPUZRows        z; \
    if (zrows) CPUZRowsSetUp(f, &z); \
    /* with a live map (whole rows), the term of a row is formed in a buffer \
       and its live chunks' cells packed into the store: those of a tile's \
       rows in a plane from the first row's start on (its rows are \
       contiguous in the store, and each packs into fewer cells than it \
       spans) */ \
    const PetscBool live = pass == PASS_STEP && f->live; \
    const PetscBool inject = pass == PASS_ADJOINT && f->inject; /* each row's R rows on, once its x slabs' finish is done */ \
    CPUQuietRows    quiet; \
    if (pass == PASS_MEMORY && whole && !L) return; \
    CPUQuietRowsOf(f, &quiet); \
    _Pragma("omp parallel for schedule(static)") for (PetscInt t = 0; t < ntile; t++) \
    { \
      const PetscInt t0 = b->lo[1] + t * tile, t1 = PetscMin(t0 + tile, b->hi[1]); \
      float          space[live ? f->padded[0] + STREAM_FLOATS : 1]; \
      float *const   row = live ? LiveRowBuffer(space) : NULL; \
      XSweep         xs; \
      PetscInt       left = 0; /* parts the adjoint left as they were */ \
      for (PetscInt i2 = b->lo[2]; i2 < b->hi[2]; i2++) { \
        LiveStream ls = {live ? (size_t)FieldsIndex(f, (const PetscInt[3]){-f->radius, t0, i2}) : 0, 0, {0}}; /* the next row's live cells go at ls.at */ \
        PetscInt       inj = inject ? InjectFirst(f, t0, i2) : 0; \
        if (xwork) CPUXSweepBegin(f, &xs, xwork + omp_get_thread_num() * CPUXSweepFloats(f), t0, i2); \
        for (PetscInt i1 = t0; i1 < t1; i1++) { \
          Row w; \
          if (pass == PASS_ADJOINT) { \
            left += AdjointRow_##DIM##d_r##R(f, RowLayers(f, i1, i2), b->lo[0], b->hi[0], c0, c1, i1, i2, CPUQuietRowFixed(&quiet, i1, i2)); \
            if (zrows) { \
              PREFETCH_NEXT_ROW; \
              const unsigned sides = CPUAdjointLayersRowZ_r##R(f, &z, i1, i2); \
              if (f->uprev_live) MarkZSlabs(f, &z, sides, i1, i2); \
            } \
            if (xwork) CPUXSweepRow(f, &xs, i1, i2); \
            if (inject && i1 - f->radius >= t0) InjectRow(f, &inj, i1 - f->radius, i2); \
            continue; \
          } \
          if (pass == PASS_MEMORY && whole) { \
            RowSetUp(f, i1, i2, b->lo[0], L, 0, &w); \
            segment(f, &w, L, b->hi[0] - b->lo[0]); \
            continue; \
          } \
          if (c0 > b->lo[0] || b->hi[0] > c1) PREFETCH_NEXT_ROW; \
          /* z layer, z core, z layer */ \
          const PetscInt edge[4] = {b->lo[0], c0, c1, b->hi[0]}; \
          for (PetscInt k = 0; k < 3; k++) { \
            if (edge[k + 1] == edge[k]) continue; \
            RowSetUp(f, i1, i2, edge[k], k == 1 ? L : L | 1u, k / 2, &w); \
            if (row) w.lap = row + f->radius + edge[k]; \
            segment(f, &w, k == 1 ? L : L | zbits, edge[k + 1] - edge[k]); \
          } \
          if (row) LiveRowStore(f, row, &ls, i1, i2); \
        } \
        if (live) LiveStreamEnd(f, &ls); \
        if (xwork) CPUXSweepEnd(f, &xs, t1, i2); \
        for (PetscInt r = PetscMax(t0, t1 - f->radius); inject && r < t1; r++) InjectRow(f, &inj, r, i2); \
      } \
      if (live) STREAM_FENCE(); /* the stores seen by every thread once the loop ends */ \
      if (left) { \
        _Pragma("omp atomic") f->parts_left[0] += (size_t)left; \
      } \
    } \
    if (pass == PASS_ADJOINT && f->uprev_live) f->parts_left[1] += BoxCells(b) / f->n[0] * (size_t)FieldsQuietParts(f); \
  }

FWI_KERNEL_VARIANTS(DEFINE_ROW_KERNELS)

PetscInt CPUAdjointRow(const Fields *f, const CPUZRows *z, const CPUQuietRows *quiet, PetscInt i1, PetscInt i2)
{
  const unsigned L    = RowLayers(f, i1, i2);
  PetscInt       left = 0;

#define ROW_CASE(R, DIM) \
  case 10 * R + DIM: \
    left = AdjointRow_##DIM##d_r##R(f, L, 0, f->n[0], f->core[0][0], f->core[0][1], i1, i2, CPUQuietRowFixed(quiet, i1, i2)); \
    if (f->slab[0][0].ncells || f->slab[0][1].ncells) { \
      if (i1 + 1 < f->n[1]) PrefetchZSlabs(f, i1 + 1, i2); \
      const unsigned sides = CPUAdjointLayersRowZ_r##R(f, z, i1, i2); \
      if (f->uprev_live) MarkZSlabs(f, z, sides, i1, i2); \
    } \
    break;
  switch (f->radius * 10 + f->dim) {
    FWI_KERNEL_VARIANTS(ROW_CASE)
  }
#undef ROW_CASE
  return left;
}

/* Whether box b holds every owned cell. */
static PetscBool BoxWhole(const Fields *f, const Box *b)
{
  for (PetscInt a = 0; a < 3; a++)
    if (b->lo[a] || b->hi[a] != f->n[a]) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscErrorCode BoxPass(Fields *f, const Box *b, Pass pass)
{
  const PetscBool xsweep = pass == PASS_ADJOINT && CPUXSlabsInStep(f);
  const size_t    need   = xsweep ? omp_get_max_threads() * CPUXSweepFloats(f) : 0; /* the scratch's floats */

  PetscFunctionBeginUser;
  PetscCheck(pass != PASS_ADJOINT || !CPUAxisAlone(f, 0) || (b->lo[0] == 0 && b->hi[0] == f->n[0]), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Adjoint box [%" PetscInt_FMT ", %" PetscInt_FMT ") cuts rows along z where no rank lies across a z face: expected whole rows",
             b->lo[0], b->hi[0]);
  PetscCheck(!(xsweep || (pass == PASS_ADJOINT && f->inject)) || BoxWhole(f, b), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Adjoint box of a rank alone along every axis: expected every owned cell");
  if (need > f->xwork_floats) {
    PetscCall(PetscFree(f->xwork));
    f->xwork_floats = need;
    PetscCall(PetscMalloc1(need, &f->xwork));
  }
#define STEP_CASE(R, DIM) \
  case 10 * R + DIM: Step_##DIM##d_r##R(f, b, pass, xsweep ? f->xwork : NULL); break;
  switch (f->radius * 10 + f->dim) {
    FWI_KERNEL_VARIANTS(STEP_CASE)
  default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No CPU kernel for radius %" PetscInt_FMT " in %" PetscInt_FMT "D", f->radius, f->dim);
  }
#undef STEP_CASE
  PetscFunctionReturn(0);
}

static PetscErrorCode Step(Fields *f, const Box *b) { return BoxPass(f, b, PASS_STEP); }
static PetscErrorCode AdvanceMemory(Fields *f, const Box *b) { return BoxPass(f, b, PASS_MEMORY); }
static PetscErrorCode AdjointStep(Fields *f, const Box *b) { return BoxPass(f, b, PASS_ADJOINT); }

/* Every box holds whole rows where no rank lies across a z face; the rows'
   starts (32 bits, Fields.live_start) reach every cell of a step's slot. */
static PetscBool LiveMap(const Fields *f) { return CPUAxisAlone(f, 0) && f->ncells <= UINT32_MAX; }

/* The adjoint step is then all the adjoint does to uprev (but for a free
   surface's zeros, which follow the injection): a rank alone along every
   axis (one box, no halo exchange), no y slabs (adjoint_layers_end's), and
   the x slabs, if any, in the step's sweep. */
static PetscBool AdjointInjects(const Fields *f)
{
  for (PetscInt a = 0; a < f->dim; a++)
    if (!CPUAxisAlone(f, a)) return PETSC_FALSE;
  if (f->slab[2][0].ncells || f->slab[2][1].ncells) return PETSC_FALSE;
  return !(f->slab[1][0].ncells || f->slab[1][1].ncells) || CPUXSlabsInStep(f) ? PETSC_TRUE : PETSC_FALSE;
}

/* Fields.u_live and uprev_live in one block, zeroed with the state they
   describe; where the rows are whole (LiveMap). */
static PetscErrorCode AdjointLive(Fields *f, PetscBool on)
{
  const size_t n     = FieldsLiveRows(f) * (size_t)FieldsLiveWords(f);
  uint64_t    *block = f->u_live < f->uprev_live ? f->u_live : f->uprev_live;

  PetscFunctionBeginUser;
  if (on && LiveMap(f) && FieldsLiveWords(f) <= LIVE_WORDS_MAX) {
    if (!block) PetscCall(PetscMalloc1(2 * n, &block));
    PetscCall(PetscArrayzero(block, 2 * n));
    f->u_live     = block;
    f->uprev_live = block + n;
  } else {
    PetscCall(PetscFree(block));
    f->u_live = f->uprev_live = NULL;
  }
  PetscFunctionReturn(0);
}

/* Runs BODY for every cell of every free-surface face: `cell` is its padded
   index, `out` the step across the face away from the model. */
#define FOR_EACH_SURFACE_CELL(f, BODY) \
  for (PetscInt a = 0; a < (f)->dim; a++) \
    for (PetscInt s = 0; s < 2; s++) { \
      if (!(f)->free_surface[a][s]) continue; \
      const PetscInt  p = a ? 0 : 1, q = a == 2 ? 1 : 2; /* the lower axis innermost */ \
      const ptrdiff_t out = (s ? 1 : -1) * (f)->stride[a]; \
      _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt jq = 0; jq < (f)->n[q]; jq++) \
      { \
        for (PetscInt jp = 0; jp < (f)->n[p]; jp++) { \
          PetscInt i[3]; \
          i[a] = s ? (f)->n[a] - 1 : 0; \
          i[p] = jp; \
          i[q] = jq; \
          const ptrdiff_t cell = FieldsIndex((f), i); \
          BODY; \
        } \
      } \
    }

/* Odd reflection about the surface sample, so u = 0 there to every order. */
static PetscErrorCode MirrorGhosts(Fields *f)
{
  PetscFunctionBeginUser;
  FOR_EACH_SURFACE_CELL(f, CPUMirrorCell(f->u, cell, out, f->radius));
  PetscFunctionReturn(0);
}

static PetscErrorCode ZeroSurface(Fields *f)
{
  PetscFunctionBeginUser;
  FOR_EACH_SURFACE_CELL(f, (void)out; f->uprev[cell] = 0.0f);
  PetscFunctionReturn(0);
}

/* Rows are independent (inject: distinct cells): threads split them when
   there are enough, without changing a row's sum. */
static PetscErrorCode Inject(Fields *f, const PointMap *m, const float amp[])
{
  PetscFunctionBeginUser;
  _Pragma("omp parallel for schedule(static) if (m->nrows > 256)") for (PetscInt i = 0; i < m->nrows; i++) CPUInjectRow(f, f->uprev, m, amp, i);
  for (PetscInt i = 0; f->uprev_live && i < m->nrows; i++) CPUMarkInjected(f, m->cell[i]);
  PetscFunctionReturn(0);
}

static PetscErrorCode Record(Fields *f, const PointMap *m, const float remote[], float out[])
{
  PetscFunctionBeginUser;
  _Pragma("omp parallel for schedule(static) if (m->nrows > 256)") for (PetscInt i = 0; i < m->nrows; i++) out[i] = (float)PointMapRowSum(m, i, f->u, remote);
  PetscFunctionReturn(0);
}

static PetscErrorCode PackBoxes(Fields *f, float *field, PetscInt nbox, const Box box[], float *buf, PetscBool unpack)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < nbox; k++) {
    const Box     *b   = &box[k];
    const PetscInt len = b->hi[0] - b->lo[0], rows = (b->hi[1] - b->lo[1]) * (b->hi[2] - b->lo[2]);
    _Pragma("omp parallel for schedule(static)") for (PetscInt row = 0; row < rows; row++)
    {
      const PetscInt i[3] = {b->lo[0], b->lo[1] + row % (b->hi[1] - b->lo[1]), b->lo[2] + row / (b->hi[1] - b->lo[1])};
      float         *cell = field + FieldsIndex(f, i), *packed = buf + (size_t)row * len;
      if (unpack) memcpy(cell, packed, len * sizeof(float));
      else memcpy(packed, cell, len * sizeof(float));
    }
    buf += (size_t)rows * len;
  }
  PetscFunctionReturn(0);
}

/* A float is NaN or infinite where its exponent bits are all set: tested on
   the bits, without a branch, so the loop runs as vector code. */
static PetscErrorCode AllFinite(Fields *f, PetscBool *finite)
{
  const FloatBits *bits = (const FloatBits *)f->u;
  uint32_t         bad  = 0;

  PetscFunctionBeginUser;
  _Pragma("omp parallel for reduction(| : bad) schedule(static)") for (size_t i = 0; i < f->ncells; i++) bad |= (bits[i] & 0x7f800000u) == 0x7f800000u;
  *finite = bad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode Alloc(Fields *f)
{
  PetscFunctionBeginUser;
  FlushSubnormals();
  PetscCall(FieldsAllocArrays(f, BackendOpsCPU.mem_alloc));
  PetscFunctionReturn(0);
}

static PetscErrorCode Free(Fields *f)
{
  PetscFunctionBeginUser;
  PetscCall(FieldsFreeArrays(f, BackendOpsCPU.mem_free));
  PetscCall(AdjointLive(f, PETSC_FALSE));
  PetscCall(PetscFree(f->xwork));
  f->xwork_floats = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode ZeroState(Fields *f)
{
  PetscFunctionBeginUser;
#define ZERO(p, n) PetscCall(PetscArrayzero((p), (n)))
  FIELDS_STATE_ARRAYS(f, ZERO);
#undef ZERO
  PetscFunctionReturn(0);
}

const KernelOps KernelOpsCPU = {
  .split_boxes    = PETSC_TRUE,
  .alloc          = Alloc,
  .free           = Free,
  .zero_state     = ZeroState,
  .step           = Step,
  .advance_memory = AdvanceMemory,
  .mirror_ghosts  = MirrorGhosts,
  .zero_surface   = ZeroSurface,
  .inject         = Inject,
  .record         = Record,
  .all_finite     = AllFinite,
  .pack_boxes     = PackBoxes,
  .adjoint_step         = AdjointStep,
  .adjoint_layers_begin = CPUAdjointLayersBegin,
  .adjoint_layers_end   = CPUAdjointLayersEnd,
  .adjoint_pair_plan    = CPUAdjointPairPlan,
  .adjoint_pair         = CPUAdjointPair,
  .live_map             = LiveMap,
  .adjoint_live         = AdjointLive,
  .adjoint_injects      = AdjointInjects,
  .backend              = &BackendOpsCPU,
};
