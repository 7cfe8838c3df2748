/* The staggered schemes' arithmetic of a cell on the CPU (staggered.h):
   the staggered difference and a derivative's CPML memory, inlined into
   the row loops so that they stay vector code. */
#pragma once
#include "equations/staggered.h"
#include <omp.h>

#define STAGGERED_INLINE static inline __attribute__((always_inline))

/* The staggered difference along stride st at f: sum_m c[m] (f[(m - 1 +
   up) st] - f[-(m - up) st]), m = 1 .. R, up = 1 for D+ (at the node above
   the cell), 0 for D-; summed from 0 and m = 1 up. */
STAGGERED_INLINE float StaggeredStencil(const float *restrict f, ptrdiff_t st, PetscInt up, const float *restrict c, PetscInt R)
{
  float acc = 0;
  for (PetscInt m = 1; m <= R; m++) acc += c[m] * (f[(m - 1 + up) * st] - f[-(m - up) * st]);
  return acc;
}

/* The CPML memory of a derivative t at one cell: psi = b psi + a t,
   t += psi.  Outside the layers a = b = 0 (GridLayerProfile), so psi stays
   0 there and t keeps its bits: a row in a layer of any axis takes every
   axis's memory, no cell needs a test. */
STAGGERED_INLINE float StaggeredCpml(float t, float a, float b, float *restrict psi)
{
  *psi = b * *psi + a * t;
  return t + *psi;
}

/* The calling thread's row of CPML memory for a derivative along axis a
   over cells outside a's layers, of a pass that takes every derivative's
   memory there (a piece in another axis's layer): where a's weights are 0
   the memory stays +0 and the derivative keeps its bits, as it did when
   the memory spanned the padded box.  A row per axis, so that no two
   derivatives of a pass share one; `none` holds StaggeredNoMemoryFloats,
   zeroed, rows of padded0 floats (the padded box's along axis 0). */
static inline size_t StaggeredNoMemoryFloats(PetscInt padded0) { return (size_t)omp_get_max_threads() * 3 * (size_t)padded0; }
static inline float *StaggeredNoMemory(float *none, PetscInt padded0, PetscInt a) { return none + ((size_t)omp_get_thread_num() * 3 + (size_t)a) * (size_t)padded0; }

/* The padded index of owned cell (0, j, k) of a padded box of radius R. */
static inline ptrdiff_t StaggeredRowStart(PetscInt R, PetscInt dim, const ptrdiff_t stride[3], PetscInt j, PetscInt k)
{
  return R + (j + (dim > 1 ? R : 0)) * stride[1] + (k + (dim > 2 ? R : 0)) * stride[2];
}

/* Runs the statements given for every row of box b of state s (its
   radius, dim and stride) on the calling thread: row is the padded index
   of its first cell, n its cells, q[a] the padded index of its coordinate
   along axes 1 and 2 (q[0] of its first cell). */
#define STAGGERED_ROWS_OF(s, b, ...) \
  for (PetscInt k = (b)->lo[2]; k < (b)->hi[2]; k++) \
    for (PetscInt j = (b)->lo[1]; j < (b)->hi[1]; j++) { \
      const ptrdiff_t row  = StaggeredRowStart((s)->radius, (s)->dim, (s)->stride, j, k) + (b)->lo[0]; \
      const PetscInt  n    = (b)->hi[0] - (b)->lo[0]; \
      const PetscInt  q[3] = {(b)->lo[0] + (s)->radius, j + (s)->radius, k + (s)->radius}; \
      (void)q; \
      __VA_ARGS__; \
    }

/* STAGGERED_ROWS_OF with the rows shared out among the threads. */
#define STAGGERED_EACH_ROW(s, b, ...) _Pragma("omp parallel for collapse(2) schedule(static)") STAGGERED_ROWS_OF(s, b, __VA_ARGS__)

/* STAGGERED_EACH_ROW where threads, else STAGGERED_ROWS_OF (a caller on
   one of a sweep's threads). */
#define STAGGERED_ROWS_THREADED(threads, s, b, ...) \
  do { \
    if (threads) { \
      STAGGERED_EACH_ROW(s, b, __VA_ARGS__); \
    } else STAGGERED_ROWS_OF(s, b, __VA_ARGS__); \
  } while (0)

/* Surface op on f along the row of axis 0 (unit stride, n cells) at
   padded index row, at each of that axis's free surfaces of state s (its
   free_surface and radius): what the stage loop's surface pass does to
   the row, for the sweeps (StaggeredSweepable: no surface on another
   axis). */
#define STAGGERED_SURFACE_ROW_Z(s, op, f, row, n) \
  for (PetscInt side_ = 0; side_ < 2; side_++) \
    if ((s)->free_surface[0][side_]) StaggeredSurfaceRow(op, f, row, 1, n, side_, (s)->radius)

/* The owned cells of layer l along the outermost axis of dim (2 or 3)
   with n owned cells per axis (StaggeredFusedSweep: a row in 2D, a plane
   of rows in 3D). */
static inline Box StaggeredLayerBox(PetscInt dim, const PetscInt n[3], PetscInt l)
{
  Box b = {{0, 0, 0}, {n[0], n[1], 1}, 0};

  b.lo[dim - 1] = l;
  b.hi[dim - 1] = l + 1;
  return b;
}
