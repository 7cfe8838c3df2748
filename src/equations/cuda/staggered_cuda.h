/* What the staggered equations' CUDA kernels share (staggered.h on the
   GPU): a thread's cell, the staggered difference and a derivative's CPML
   memory, in the CPU's terms and order (staggered_cpu.h), and a launch of
   a thread per cell of a box. */
#pragma once
#include "equations/cuda/cuda.h"
#include "equations/staggered.h"

/* The padded index of owned cell i of a padded box (dim axes of radius R,
   strides stride), and its padded coordinates q. */
__device__ static inline ptrdiff_t StaggeredCellCUDA(PetscInt dim, PetscInt R, const ptrdiff_t stride[3], const PetscInt i[3], PetscInt q[3])
{
  ptrdiff_t c = 0;

  for (int a = 0; a < 3; a++) {
    q[a] = i[a] + (a < dim ? R : 0);
    c += q[a] * stride[a];
  }
  return c;
}

/* The staggered difference along st at f (StaggeredStencil): UP 1 for D+
   (at the node above the cell), 0 for D-. */
template <int R, int UP>
__device__ static inline float StaggeredStencilCUDA(const float *f, ptrdiff_t st, const float *c)
{
  float acc = 0;
#pragma unroll
  for (int m = 1; m <= R; m++) acc += c[m] * (f[(m - 1 + UP) * st] - f[-(m - UP) * st]);
  return acc;
}

/* The CPML memory psi = b psi + a t of a derivative t, t + psi
   (StaggeredCpml). */
__device__ static inline float StaggeredCpmlCUDA(float t, float a, float b, float *psi)
{
  *psi = b * *psi + a * t;
  return t + *psi;
}

/* A thread per cell of box b on the stream lane, none where it is empty. */
#define STAGGERED_LAUNCH_BOX(lane, b, kernel, ...) \
  do { \
    if (BoxCells(b)) { \
      CudaLaunch(kernel, BoxCellGridOf(b), dim3(CUDA_CELL_THREADS), lane, __VA_ARGS__); \
      CUDA_LAUNCHED(); \
    } \
  } while (0)
