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

/* The padded index of owned cell 0 of the row along axis a this thread
   takes, a thread per owned row of a face (STAGGERED_SURFACE_LAUNCH), on a
   padded box of dim axes, radius R, strides stride, n owned cells; false
   past the face's rows. */
__device__ static inline bool StaggeredSurfaceThreadRow(PetscInt dim, PetscInt R, const ptrdiff_t stride[3], const PetscInt n[3], int a, ptrdiff_t *row)
{
  const int      b1 = a == 0 ? 1 : 0, b2 = a == 2 ? 1 : 2;
  const PetscInt nj = n[b1], nk = dim > b2 ? n[b2] : 1, t = (PetscInt)(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= nj * nk) return false;
  *row = StaggeredSurfaceRowStart(R, stride, dim, a, t % nj, t / nj);
  return true;
}

/* StaggeredBandCopy on the device: the bands of the fields f (by the
   band's field) into buf (save), or back from it for the fields in mask
   (a bit each), box by box on lanes l; R, dim and stride those of the
   padded box. */
static inline PetscErrorCode StaggeredBandCopyCUDA(const CudaLanes *l, PetscInt R, PetscInt dim, const ptrdiff_t stride[3], PetscInt nband, const StaggeredBand *band, float *const f[],
                                                   PetscBool save, unsigned mask, float *buf)
{
  ptrdiff_t origin = 0; /* owned cell 0's padded index */
  size_t    at     = 0;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < dim; a++) origin += R * stride[a];
  for (PetscInt k = 0; k < nband; k++) {
    if (save || (mask >> band[k].field & 1)) PetscCall(CudaBoxesPack(l, f[band[k].field], stride, origin, 1, &band[k].box, buf + at, save ? PETSC_FALSE : PETSC_TRUE));
    at += BoxCells(&band[k].box);
  }
  PetscFunctionReturn(0);
}

/* A field per axis, by value for a kernel (the one of a face's axis). */
struct StaggeredAxisFields {
  float *x[3];
};

static inline StaggeredAxisFields StaggeredAxisFieldsOf(float *const f[3])
{
  StaggeredAxisFields a = {{NULL, NULL, NULL}};
  for (int k = 0; f && k < 3; k++) a.x[k] = f[k];
  return a;
}

/* Launches kernel(state, a, side, ...) with a thread per owned row of
   every free face (a, side) of state s (its dim, n and free_surface), face
   by face in the CPU's order (STAGGERED_EACH_SURFACE_ROW), so that the
   cells where faces meet take their terms in that order. */
#define STAGGERED_SURFACE_LAUNCH(s, lane, kernel, ...) \
  do { \
    for (int a_ = 0; a_ < (s)->dim; a_++) \
      for (int side_ = 0; side_ < 2; side_++) { \
        const int      b1_ = a_ == 0 ? 1 : 0, b2_ = a_ == 2 ? 1 : 2; \
        const PetscInt rows_ = (s)->n[b1_] * ((s)->dim > b2_ ? (s)->n[b2_] : 1); \
        if (!(s)->free_surface[a_][side_]) continue; \
        CudaLaunch(kernel, dim3((unsigned)((rows_ + 127) / 128)), dim3(128), lane, *(s), a_, side_, __VA_ARGS__); \
        CUDA_LAUNCHED(); \
      } \
  } while (0)
