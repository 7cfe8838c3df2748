/* The staggered schemes' arithmetic of a cell on the CPU (staggered.h):
   the staggered difference and a derivative's CPML memory, inlined into
   the row loops so that they stay vector code. */
#pragma once
#include "equations/staggered.h"

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
