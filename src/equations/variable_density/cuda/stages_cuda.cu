/* The variable-density stages on the GPU, a thread per cell: the same
   terms, summed in the same order, as the CPU's (kernels_cpu.c), so that
   the two agree bit for bit; a cell takes a derivative's CPML memory (in
   its axis's slab) where the cell lies in that axis's layer (outside the
   plain range along axis 0, where the profile is not 0 along another). */
#include "equations/variable_density/cuda/vd_cuda.h"

/* Whether padded coordinate q along axis a lies in a layer of the profile
   b (nodes: the half nodes' plain range along axis 0). */
__device__ static inline bool InLayer(const VDState &s, int nodes, int a, PetscInt q, const float *b) { return a ? b[q] != 0 : q < s.plain[0][nodes][0] || q >= s.plain[0][nodes][1]; }

template <int R, bool ADJOINT>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) VelocityKernel(const VDState s, const Box b)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = VDCell(s, i, q);
  for (int a = 0; a < s.dim; a++) {
    const ptrdiff_t st = s.stride[a];
    float           g  = StaggeredStencilCUDA<R, 1>((ADJOINT ? s.d[a] : s.p) + c, st, s.w[a]);
    if (!ADJOINT) {
      if (InLayer(s, 1, a, q[a], s.hb[a])) g = StaggeredCpmlCUDA(g, s.ha[a][q[a]], s.hb[a][q[a]], s.psi_p[a] + StaggeredSlabIndex(&s.slab[a], q));
      if (s.keep && s.density_image) s.keep[(1 + a) * s.ncells + c] = g;
    }
    const float B = VDFaceBuoyancy(s.bdt, c, st);
    s.v[a][c]     = ADJOINT ? s.v[a][c] + B * g : s.v[a][c] - B * g;
  }
}

template <int R, bool ADJOINT>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) PressureKernel(const VDState s, const Box b)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c     = VDCell(s, i, q);
  bool            layer = false;
  if (!ADJOINT)
    for (int a = 0; a < s.dim; a++) layer = layer || InLayer(s, 0, a, q[a], s.pb[a]);
  float h = 0;
  for (int a = 0; a < s.dim; a++) {
    float t = StaggeredStencilCUDA<R, 0>((ADJOINT ? s.d[a] : s.v[a]) + c, s.stride[a], s.w[a]);
    if (layer && InLayer(s, 0, a, q[a], s.pb[a])) t = StaggeredCpmlCUDA(t, s.pa[a][q[a]], s.pb[a][q[a]], s.psi_v[a] + StaggeredSlabIndex(&s.slab[a], q));
    else if (layer) t = t + 0.0f; /* the CPU's memory of a derivative outside its layers: +0 (kernels_cpu.c, LayerOf) */
    h = a ? h + t : t;
  }
  if (!ADJOINT && s.keep) s.keep[c] = h;
  s.p[c] = ADJOINT ? s.p[c] + s.kdt[c] * h : s.p[c] - s.kdt[c] * h;
}

/* kernels_cpu.c's VDAdjointOperandsCPU, a cell at a time. */
__global__ void __launch_bounds__(CUDA_CELL_THREADS) OperandsKernel(const VDState s, const Box b, int stage)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = VDCell(s, i, q);
  if (stage == 0 && s.keep) s.image_k[c] += s.p[c] * s.keep[c];
  for (int a = 0; a < s.dim; a++) {
    const float  x  = stage ? s.v[a][c] : s.p[c];
    const float *pa = stage ? s.ha[a] : s.pa[a], *pb = stage ? s.hb[a] : s.pb[a];
    if (stage && s.keep && s.density_image) s.image_b[a][c] += x * s.keep[(1 + a) * s.ncells + c];
    if (!InLayer(s, stage, a, q[a], pb)) s.d[a][c] = x;
    else s.d[a][c] = StaggeredCpmlAdjoint(x, pa[q[a]], pb[q[a]], (stage ? s.psi_p[a] : s.psi_v[a]) + StaggeredSlabIndex(&s.slab[a], q));
  }
}

template <int R>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) ReconstructPressureKernel(const VDState s, const Box b)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = VDCell(s, i, q);
  float           h = 0;
  for (int a = 0; a < s.dim; a++) {
    const float t = StaggeredStencilCUDA<R, 0>(s.rec.v[a] + c, s.stride[a], s.w[a]);
    h             = a ? h + t : t;
  }
  s.image_k[c] += s.p[c] * h;
  s.rec.p[c] = s.rec.p[c] + s.kdt[c] * h;
}

template <int R>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) ReconstructVelocityKernel(const VDState s, const Box b, int a)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = VDCell(s, i, q), st = s.stride[a];
  const float     g = StaggeredStencilCUDA<R, 1>(s.rec.p + c, st, s.w[a]);
  if (s.density_image) s.image_b[a][c] += s.v[a][c] * g;
  s.rec.v[a][c] = s.rec.v[a][c] + VDFaceBuoyancy(s.bdt, c, st) * g;
}

PetscErrorCode VDVelocityCUDA(VDState *s, const Box *b, PetscBool adjoint)
{
  PetscFunctionBeginUser;
  if (adjoint) STAGGERED_WITH_RADIUS(s->radius, VD_LAUNCH_BOX(s, b, (VelocityKernel<R_, true>), *s, *b))
  else STAGGERED_WITH_RADIUS(s->radius, VD_LAUNCH_BOX(s, b, (VelocityKernel<R_, false>), *s, *b))
  PetscFunctionReturn(0);
}

PetscErrorCode VDPressureCUDA(VDState *s, const Box *b, PetscBool adjoint)
{
  PetscFunctionBeginUser;
  if (adjoint) STAGGERED_WITH_RADIUS(s->radius, VD_LAUNCH_BOX(s, b, (PressureKernel<R_, true>), *s, *b))
  else STAGGERED_WITH_RADIUS(s->radius, VD_LAUNCH_BOX(s, b, (PressureKernel<R_, false>), *s, *b))
  PetscFunctionReturn(0);
}

PetscErrorCode VDAdjointOperandsCUDA(VDState *s, PetscInt stage)
{
  const Box all = {{0, 0, 0}, {s->n[0], s->n[1], s->n[2]}, 0};

  PetscFunctionBeginUser;
  VD_LAUNCH_BOX(s, &all, OperandsKernel, *s, all, (int)stage);
  PetscFunctionReturn(0);
}

PetscErrorCode VDReconstructPressureCUDA(VDState *s, const Box *box)
{
  Box b;

  PetscFunctionBeginUser;
  if (BoxWithin(box, &s->rec.pcore, &b)) STAGGERED_WITH_RADIUS(s->radius, VD_LAUNCH_BOX(s, &b, ReconstructPressureKernel<R_>, *s, b))
  PetscFunctionReturn(0);
}

PetscErrorCode VDReconstructVelocityCUDA(VDState *s, const Box *box)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->dim; a++) {
    Box b;
    if (BoxWithin(box, &s->rec.vcore[a], &b)) STAGGERED_WITH_RADIUS(s->radius, VD_LAUNCH_BOX(s, &b, ReconstructVelocityKernel<R_>, *s, b, (int)a))
  }
  PetscFunctionReturn(0);
}
