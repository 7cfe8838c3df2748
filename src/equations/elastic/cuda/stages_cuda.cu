/* The elastic stages on the GPU, a thread per cell: the same terms,
   summed in the same order, as the CPU's (kernels_cpu.c), so that the two
   agree bit for bit; a cell takes every derivative's CPML memory where the
   CPU's row pieces give it that (outside the plain range along axis 0, in
   a row whose profile along another axis is not 0, or in a free
   surface's band), and the same narrowed stencils there (state.h:
   ELStencilRadius). */
#include "equations/elastic/cuda/el_cuda.h"

/* Whether the cell at padded q lies in a layer of any axis, at the
   centres or the nodes (kernels_cpu.c's PlainCut). */
__device__ static inline bool InLayer(const ELState &s, const PetscInt q[3])
{
  for (int a = 1; a < s.dim; a++)
    if (s.pb[a][q[a]] != 0 || s.hb[a][q[a]] != 0) return true;
  return q[0] < PetscMax(s.plain[0][0], s.plain[1][0]) || q[0] >= PetscMin(s.plain[0][1], s.plain[1][1]);
}

/* The free surfaces the cell at padded q lies on, a bit per axis. */
__device__ static inline unsigned OnSurface(const ELState &s, const PetscInt q[3])
{
  unsigned surf = 0;

  for (int a = 0; a < s.dim; a++)
    if ((s.free_surface[a][0] && q[a] == s.radius) || (s.free_surface[a][1] && q[a] == s.radius + s.n[a] - 1)) surf |= 1u << a;
  return surf;
}

/* The derivative along b of f at padded cell c, D+ (UP) or D-, with
   weights w, and its CPML memory psi where layer (the profile of its
   output's position). */
template <int R, int UP>
__device__ static inline float Derive(const ELState &s, int b, const float *w, const float *f, float *psi, ptrdiff_t c, const PetscInt q[3], bool layer)
{
  const float t = StaggeredStencilCUDA<R, UP>(f + c, s.stride[b], w);

  if (!layer) return t;
  return StaggeredCpmlCUDA(t, (UP ? s.ha[b] : s.pa[b])[q[b]], (UP ? s.hb[b] : s.pb[b])[q[b]], psi + c);
}

template <int R>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) VelocityKernel(const ELState s, const Box b)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c     = StaggeredCellCUDA(s.dim, s.radius, s.stride, i, q);
  const bool      layer = InLayer(s, q);
  for (int a = 0; a < s.dim; a++) {
    float g = 0;
    for (int k = 0; k < s.dim; k++) {
      const float t = k == a ? Derive<R, 1>(s, k, s.w[k], s.s[a], s.psi_v[a][k], c, q, layer) : Derive<R, 0>(s, k, s.w[k], s.t[ELPair(a, k)], s.psi_v[a][k], c, q, layer);
      g             = k ? g + t : t;
    }
    s.v[a][c] = s.v[a][c] + StaggeredFaceMean(s.bdt, c, s.stride[a]) * g;
  }
}

template <int R>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) StressKernel(const ELState s, const Box b)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = StaggeredCellCUDA(s.dim, s.radius, s.stride, i, q);
  const unsigned  surf = OnSurface(s, q);
  const bool      layer = ELNearSurface(&s, q) || InLayer(s, q); /* a free surface's band: the CPU's layer pieces */
  const float     l = s.ldt[c], m2 = s.mdt[c] + s.mdt[c];
  float           e[3], sum = 0;
  bool            first = true;
  for (int k = 0; k < s.dim; k++) {
    e[k] = Derive<R, 0>(s, k, ELWeights(&s, k, ELStencilRadius(&s, k, 0, q[k], c)), s.v[k], s.psi_s[k][k], c, q, layer);
    if (surf >> k & 1) continue;
    sum   = first ? e[k] : sum + e[k];
    first = false;
  }
  if (!surf)
    for (int a = 0; a < s.dim; a++) {
      s.s[a][c] = s.s[a][c] + l * sum;
      s.s[a][c] = s.s[a][c] + m2 * e[a];
    }
  else {
    const float ls = ELSurfaceLambda(l, m2, ELSurfaceCount(surf, s.dim));
    for (int a = 0; a < s.dim; a++)
      if (!(surf >> a & 1)) {
        s.s[a][c] = s.s[a][c] + ls * sum;
        s.s[a][c] = s.s[a][c] + m2 * e[a];
      }
  }
  for (int p = 0; p < ELPairs(s.dim); p++) {
    const int   a = p == 2 ? 1 : 0, k = p == 0 ? 1 : 2;
    const float g = Derive<R, 1>(s, k, ELWeights(&s, k, ELStencilRadius(&s, k, 1, q[k], c)), s.v[a], s.psi_s[a][k], c, q, layer) +
                    Derive<R, 1>(s, a, ELWeights(&s, a, ELStencilRadius(&s, a, 1, q[a], c)), s.v[k], s.psi_s[k][a], c, q, layer);
    s.t[p][c]     = s.t[p][c] + ELEdgeShear(s.csum[a], c, s.stride[k]) * g;
  }
}

PetscErrorCode ELVelocityCUDA(ELState *s, const Box *b)
{
  PetscFunctionBeginUser;
  STAGGERED_WITH_RADIUS(s->radius, STAGGERED_LAUNCH_BOX(ELLane(s), b, VelocityKernel<R_>, *s, *b))
  PetscFunctionReturn(0);
}

PetscErrorCode ELStressCUDA(ELState *s, const Box *b)
{
  PetscFunctionBeginUser;
  STAGGERED_WITH_RADIUS(s->radius, STAGGERED_LAUNCH_BOX(ELLane(s), b, StressKernel<R_>, *s, *b))
  PetscFunctionReturn(0);
}
