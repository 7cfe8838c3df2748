/* What the staggered first-order schemes share (the variable-density and
   the elastic equations): the staggered difference's weights, the mean of
   a cell-centred model across a face, the range of a row outside the
   absorbing layers, and the free surface's passes over the rows that end
   on it.  Valid C and CUDA (FWI_HD). */
#pragma once
#include "grid/fd.h"
#include "grid/grid.h"
#include "equations/equation.h"
#include <petscsys.h>

/* Calls CALL with R_ the radius r as a literal (a constant expression in
   C++ too, where kernels take it as a template argument). */
#define STAGGERED_WITH_RADIUS(r, CALL) \
  switch (r) { \
  case 1: { const PetscInt R_ = 1; CALL; } break; \
  case 2: { const PetscInt R_ = 2; CALL; } break; \
  case 3: { const PetscInt R_ = 3; CALL; } break; \
  case 4: { const PetscInt R_ = 4; CALL; } break; \
  case 5: { const PetscInt R_ = 5; CALL; } break; \
  case 6: { const PetscInt R_ = 6; CALL; } break; \
  case 7: { const PetscInt R_ = 7; CALL; } break; \
  case 8: { const PetscInt R_ = 8; CALL; } break; \
  }

/* count = the arrays that LIST(s, X), an X-macro over a state's arrays,
   names for state s: a count taken from the list never drifts from it. */
#define STAGGERED_COUNTED_(x) staggered_count_++
#define STAGGERED_COUNT_ARRAYS(LIST, s, count) \
  do { \
    PetscInt staggered_count_ = 0; \
    LIST(s, STAGGERED_COUNTED_); \
    (count) = staggered_count_; \
  } while (0)

/* Calls CALL with NAME the truth of flag as a literal PetscBool. */
#define STAGGERED_WITH_FLAG(flag, NAME, CALL) \
  do { \
    if (flag) { const PetscBool NAME = PETSC_TRUE; CALL; } \
    else { const PetscBool NAME = PETSC_FALSE; CALL; } \
  } while (0)

#ifdef __cplusplus
extern "C" {
#endif

/* The staggered first-derivative weights of order 2 radius for unit
   spacing: the derivative at x + 1/2 is sum_k c[k] (f(x + k) - f(x + 1 - k)),
   k = 1 .. radius (the closed form of the Taylor conditions). */
void StaggeredWeights(PetscInt radius, double c[]);

/* The padded range [r[0], r[1]) of the owned cells (padded R .. n - R)
   between the layers of a profile: its longest run of cells whose b is 0
   (the cells outside it the kernels take as layer cells, which is exact
   where b is 0 too: a node past the last cell has a b of 0 as well). */
void StaggeredPlainRange(PetscInt n, PetscInt R, const float *b, PetscInt r[2]);

/* The leapfrog's largest stable step on grid g where the fastest wave
   travels at vmax: vmax dt (sum_k |c_k|) sqrt(sum_a 1 / d_a^2) <= 1, the
   staggered difference's largest symbol being 2 sum_k |c_k| / d. */
PetscReal StaggeredStableStep(const Grid *g, PetscReal vmax);

/* What a staggered state keeps of its block of g: the owned cells n and
   the padded box (padded, stride, ncells) along each axis, which faces are
   free surfaces, and the staggered weights over the spacing, w[a][1..R]. */
void StaggeredBlockGeometry(const Grid *g, PetscInt n[3], PetscInt padded[3], ptrdiff_t stride[3], size_t *ncells, PetscBool free_surface[3][2], float w[3][FWI_MAX_RADIUS + 1]);

/* Where the CPML memory of the derivatives along one axis is kept: the
   owned cells whose padded coordinate along `axis` lies outside [lo, hi),
   the part of the block's owned range R .. padded - R where neither the
   centres' nor the nodes' profile of that axis has a layer (the
   intersection of their plain ranges), at every padded coordinate along
   the other axes; the memory's own strides, and ncells 0 where the block
   has no layer on the axis.  Over the padded box that memory took 2 dim
   (variable density) or 2 dim^2 (elastic) arrays of the block's size; in
   slabs, what the layers hold. */
typedef struct {
  PetscInt  axis, R, lo, hi, padded;
  ptrdiff_t stride[3];
  size_t    ncells;
} StaggeredSlab;

/* The cells of axis a's slab on g's block, for the estimates made before
   the profiles exist: the owned cells in the layers of a, as the grid lays
   them, and the core's last, whose node lies on the high layer's edge,
   times the padded box's other axes. */
double StaggeredSlabCells(const Grid *g, PetscInt a);

/* The CPML profiles of every axis of g's block in b's memory, for the
   fastest wave, frequency and step of settings: pa, pb at the centres and
   ha, hb half a cell above them (GridLayerProfile, GridLayerProfileHalf),
   with the padded ranges along each axis a outside the layers of each
   (plain[a][0]: the centres', plain[a][1]: the nodes') and each axis's slab of
   CPML memory; Destroy frees them. */
PetscErrorCode StaggeredProfilesCreate(const Grid *g, const BackendOps *b, const EquationStateSettings *settings, float *pa[3], float *pb[3], float *ha[3], float *hb[3],
                                       PetscInt plain[3][2][2], StaggeredSlab slab[3]);
PetscErrorCode StaggeredProfilesDestroy(PetscInt dim, const BackendOps *b, float *pa[3], float *pb[3], float *ha[3], float *hb[3]);

/* A box of owned cells of one field that a boundary method saves each
   step (field: the equation's own number of the fields it runs back, at
   most STAGGERED_BAND_FIELDS: the elastic equation's in 3D). */
#define STAGGERED_BAND_FIELDS 9
typedef struct {
  PetscInt field;
  Box      box;
} StaggeredBand;

/* Field `field`'s band beyond the core on side `side` of axis a, over
   the box core on the other axes (L and H: the owned indices where the
   core begins and ends along a): what a derivative along a of the core's
   cells reads there.  A field at the centres is run back at [L, H), one
   half a cell up along a (node; node i at i + 1/2) at [L, H - 1); D+_a
   from those nodes reads the centres [L + 1 - R, H - 1 + R), D-_a from
   those centres the nodes [L - R, H - 1 + R): R - 1 centres or R nodes a
   side.  False where this rank owns none of it. */
PetscBool StaggeredBandAcross(const Grid *g, const Box *core, PetscInt field, PetscInt a, PetscInt side, PetscInt node, PetscInt L, PetscInt H, StaggeredBand *band);

/* The nband bands of fields f[field] (host memory, over g's padded box)
   to buf (save), or back from it for the bands whose field is in mask (a
   bit per field); buf holds every band, box by box, each along axis 0,
   then 1, then 2. */
void StaggeredBandCopy(const Grid *g, PetscInt nband, const StaggeredBand *band, float *const f[], PetscBool save, unsigned mask, float *buf);
/* StaggeredBandCopy's rows of layer l along the outermost axis alone (a
   sweep's layer, on the CPU). */
void StaggeredBandCopyLayer(const Grid *g, PetscInt nband, const StaggeredBand *band, float *const f[], PetscBool save, unsigned mask, float *buf, PetscInt l);

/* K stages (a step's two, or two steps' four) over every owned cell in one
   sweep along the outermost axis, in its N layers (a row in 2D, a plane of
   rows in 3D): layer(ctx, j, k) steps stage k on layer j, which reads
   stage k - 1's fields on layers j - R to j + R (and stage k - 1 reads
   stage k - 2's, which stage k overwrites): stage k follows R layers behind
   stage k - 1, so that the layers between are read from cache rather than
   from memory again.  The threads each sweep a share of the layers; stage
   k on the k R layers at either end of a share, which read or are read by
   a neighbouring share's stages, waits until every thread has passed stage
   k - 1 (k - 1 barriers).  Each cell's arithmetic is the stages' own, so
   the bits are those of the stages run one after the other. */
void StaggeredFusedSweep(PetscInt N, PetscInt R, PetscInt K, void (*layer)(void *ctx, PetscInt j, PetscInt stage), void *ctx);

/* Whether a state of dim axes with these free surfaces can be swept so:
   every free surface lies on axis 0, along the rows, so that what the
   stage loop does at the surfaces between stages goes row by row. */
static inline PetscBool StaggeredSweepable(PetscInt dim, const PetscBool free_surface[3][2])
{
  if (dim < 2) return PETSC_FALSE;
  for (PetscInt a = 1; a < dim; a++)
    if (free_surface[a][0] || free_surface[a][1]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The cells [cut[0], cut[1]) of a row's cells [lo, hi) (counted from the
   row's first cell, at padded q0 along axis 0) that lie in the padded
   range [from, to) along axis 0 (an empty range where none do). */
static inline void StaggeredRowRange(PetscInt from, PetscInt to, PetscInt q0, PetscInt lo, PetscInt hi, PetscInt cut[2])
{
  cut[0] = PetscMax(lo, PetscMin(hi, from - q0));
  cut[1] = PetscMax(cut[0], PetscMin(hi, to - q0));
}

#ifdef __cplusplus
}
#endif

/* Whether padded coordinate x along the slab's axis lies in the slab. */
FWI_HD static inline int StaggeredSlabHolds(const StaggeredSlab *sl, PetscInt x) { return x >= sl->R && x < sl->padded - sl->R && (x < sl->lo || x >= sl->hi); }

/* The index in slab sl of the cell at padded coordinates q (in the slab). */
FWI_HD static inline ptrdiff_t StaggeredSlabIndex(const StaggeredSlab *sl, const PetscInt q[3])
{
  ptrdiff_t c = 0;

  for (int k = 0; k < 3; k++) c += (k == sl->axis ? q[k] - sl->R - (q[k] < sl->lo ? 0 : sl->hi - sl->lo) : q[k]) * sl->stride[k];
  return c;
}

/* A cell-centred model m on the face between cell c and cell c + st (the
   node of c along the axis of stride st): the mean of the two cells'. */
FWI_HD static inline float StaggeredFaceMean(const float *m, ptrdiff_t c, ptrdiff_t st) { return 0.5f * (m[c] + m[c + st]); }

/* The passes over the rows that end on a free surface, each on a field per
   axis: zero on the surface cell; zero on the node past it (side 1, the
   last node of its axis); the centres beyond the surface take minus those
   before it (odd about it); the nodes beyond it take those mirrored about
   it (even), or minus them (odd).  And for an adjoint's operands: the
   centres beyond take those before it with the surface centre counted
   twice (FOLD: the transpose of an odd mirror of the nodes, read back at
   the centres, where the surface centre is its own image); the centres,
   or the nodes, beyond the surface are 0 (what reads a field the forward
   run holds at 0 there). */
typedef enum {
  STAGGERED_ZERO_SURFACE,
  STAGGERED_ZERO_PAST_SURFACE,
  STAGGERED_MIRROR_CENTRES,
  STAGGERED_MIRROR_NODES,
  STAGGERED_MIRROR_NODES_ODD,
  STAGGERED_FOLD_CENTRES,
  STAGGERED_ZERO_BEYOND_CENTRES,
  STAGGERED_ZERO_BEYOND_NODES
} StaggeredSurfaceOp;

/* The transpose of a derivative's CPML memory (StaggeredCpml), run
   backwards in time: the operand d of the derivative's transpose from x,
   the adjoint of what the derivative fed (t + psi), with the adjoint
   memory m: d = x - a (m - x), m = b (m - x).  Outside the layers (a = b =
   0) d = x but perhaps for the sign of a zero, which no stencil's sum
   (from +0) can tell. */
FWI_HD static inline float StaggeredCpmlAdjoint(float x, float a, float b, float *m)
{
  const float e = *m - x;

  *m = b * e;
  return x - a * e;
}

/* Pass op on field x along the row at padded index row (its owned cell 0;
   n owned cells along the axis of stride st) that ends on the surface at
   side, R the radius.  The node at i + 1/2 mirrors that at -(i + 1/2)
   (side 0) or 2 (n - 1) - (i + 1/2) (side 1, from the node past the
   surface, n - 1). */
FWI_HD static inline void StaggeredSurfaceRow(StaggeredSurfaceOp op, float *x, ptrdiff_t row, ptrdiff_t st, PetscInt n, PetscInt side, PetscInt R)
{
  const ptrdiff_t c0 = row + (side ? (n - 1) * st : 0), out = side ? st : -st;

  switch (op) {
  case STAGGERED_ZERO_SURFACE:
    x[c0] = 0;
    break;
  case STAGGERED_ZERO_PAST_SURFACE:
    if (side) x[c0] = 0;
    break;
  case STAGGERED_MIRROR_CENTRES:
  case STAGGERED_FOLD_CENTRES:
  case STAGGERED_ZERO_BEYOND_CENTRES: {
    const float sign = op == STAGGERED_MIRROR_CENTRES ? -1.0f : op == STAGGERED_FOLD_CENTRES ? 1.0f : 0.0f;
    for (PetscInt m = 1; m <= R; m++) x[c0 + m * out] = sign * x[c0 - m * out];
    if (op == STAGGERED_FOLD_CENTRES) x[c0] = 2 * x[c0];
  } break;
  case STAGGERED_MIRROR_NODES:
  case STAGGERED_MIRROR_NODES_ODD:
  case STAGGERED_ZERO_BEYOND_NODES: {
    const float sign = op == STAGGERED_MIRROR_NODES ? 1.0f : op == STAGGERED_MIRROR_NODES_ODD ? -1.0f : 0.0f;
    for (PetscInt i = side ? n - 1 : -R; i < (side ? n - 1 + R : 0); i++) x[row + i * st] = sign * x[row + (side ? 2 * n - 3 - i : -1 - i) * st];
  } break;
  }
}

/* The padded index of owned cell 0 of the row along axis a through owned
   cell j of axis b1 and k of b2 (STAGGERED_EACH_SURFACE_ROW's), on a
   padded box of radius R and strides stride. */
FWI_HD static inline ptrdiff_t StaggeredSurfaceRowStart(PetscInt R, const ptrdiff_t stride[3], PetscInt dim, PetscInt a, PetscInt j, PetscInt k)
{
  const PetscInt b1 = a == 0 ? 1 : 0, b2 = a == 2 ? 1 : 2;

  return R * stride[a] + (j + R) * stride[b1] + (k + (dim > b2 ? R : 0)) * stride[b2];
}

/* Runs the statements given for every owned row of cells along axis a that
   ends on a free-surface face (a, side) of state s (its dim, radius, n,
   stride and free_surface): row is the padded index of its owned cell 0,
   n its owned cells, st its stride. */
#define STAGGERED_EACH_SURFACE_ROW(s, ...) \
  for (PetscInt a = 0; a < (s)->dim; a++) \
    for (PetscInt side = 0; side < 2; side++) { \
      const PetscInt  b1 = a == 0 ? 1 : 0, b2 = a == 2 ? 1 : 2, n = (s)->n[a]; \
      const ptrdiff_t st = (s)->stride[a]; \
      if (!(s)->free_surface[a][side]) continue; \
      for (PetscInt k = 0; k < ((s)->dim > b2 ? (s)->n[b2] : 1); k++) \
        for (PetscInt j = 0; j < (s)->n[b1]; j++) { \
          const ptrdiff_t row = StaggeredSurfaceRowStart((s)->radius, (s)->stride, (s)->dim, a, j, k); \
          __VA_ARGS__; \
        } \
    }

/* Runs the statements given for every cell of a padded box (padded cells
   along each axis, strides stride, radius R over dim axes) around a block
   of size[] owned cells, the cells shared out among the threads: q its
   padded coordinates, c its padded index, cell the index of the owned cell
   nearest it in the block (z fastest), owned whether it is that cell. */
#define STAGGERED_EACH_PADDED_CELL(padded, stride, R, dim, size, ...) \
  _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt k_ = 0; k_ < (padded)[2]; k_++) \
    for (PetscInt j_ = 0; j_ < (padded)[1]; j_++) \
      for (PetscInt i_ = 0; i_ < (padded)[0]; i_++) { \
        const PetscInt  q[3] = {i_, j_, k_}; \
        const ptrdiff_t c    = i_ + (stride)[1] * j_ + (stride)[2] * k_; \
        PetscInt        o_[3]; \
        PetscBool       owned = PETSC_TRUE; \
        for (PetscInt a_ = 0; a_ < 3; a_++) { \
          o_[a_] = q[a_] - (a_ < (dim) ? (R) : 0); \
          owned  = owned && o_[a_] >= 0 && o_[a_] < (size)[a_]; \
          o_[a_] = PetscMax(0, PetscMin((size)[a_] - 1, o_[a_])); \
        } \
        { \
          const ptrdiff_t cell = o_[0] + (ptrdiff_t)(size)[0] * (o_[1] + (ptrdiff_t)(size)[1] * o_[2]); \
          (void)owned; \
          (void)cell; \
          __VA_ARGS__; \
        } \
      }
