/* The elastic stages on the GPU, a thread per cell: the same terms,
   summed in the same order, as the CPU's (kernels_cpu.c), so that the two
   agree bit for bit; a cell takes every derivative's CPML memory where the
   CPU's row pieces give it that (outside the plain range along axis 0, in
   a row whose profile along another axis is not 0, or in a free
   surface's band), and the same narrowed stencils there (state.h:
   ELStencilRadius).  The adjoint's stages and the boundary method's
   backward passes likewise follow the CPU's pieces of them. */
#include "equations/elastic/adjoint_cells.h"
#include "equations/elastic/cuda/el_cuda.h"

/* The forward fields a pass reads and writes: the state's own, or in the
   boundary method's backward passes those run back (ELReconstruction.f). */
struct ELFields {
  float *v[3], *s[3], *t[3];
};

static ELFields FieldsOf(const ELState *s, bool back)
{
  ELFields f;

  for (int a = 0; a < 3; a++) {
    f.v[a] = back ? s->rec->f[EL_VZ + a] : s->v[a];
    f.s[a] = back ? s->rec->f[EL_SZZ + a] : s->s[a];
    f.t[a] = back ? s->rec->f[EL_SZX + a] : s->t[a];
  }
  return f;
}

/* Whether the cell at padded q lies in a layer of any axis, at the
   centres or the nodes (kernels_cpu.c's PlainCut). */
__device__ static inline bool InLayer(const ELState &s, const PetscInt q[3])
{
  for (int a = 1; a < s.dim; a++)
    if (s.pb[a][q[a]] != 0 || s.hb[a][q[a]] != 0) return true;
  return q[0] < PetscMax(s.plain[0][0][0], s.plain[0][1][0]) || q[0] >= PetscMin(s.plain[0][0][1], s.plain[0][1][1]);
}

/* The derivative along b of f at padded cell c, D+ (UP) or D-, with
   weights w, and its CPML memory psi where layer (the profile of its
   output's position). */
template <int R, int UP>
__device__ static inline float Derive(const ELState &s, int b, const float *w, const float *f, float *psi, ptrdiff_t c, const PetscInt q[3], bool layer)
{
  const float t = StaggeredStencilCUDA<R, UP>(f + c, s.stride[b], w);
  float      *m = layer ? ELMemoryAt(&s, psi, b, q, c) : NULL;

  if (!layer) return t;
  if (!m) return t + 0.0f; /* outside b's layers: the CPU's memory there is +0 (StaggeredNoMemory) */
  return StaggeredCpmlCUDA(t, (UP ? s.ha[b] : s.pa[b])[q[b]], (UP ? s.hb[b] : s.pb[b])[q[b]], m);
}

/* v_a from the stresses (kernels_cpu.c's VelocityPieceR): forward, with
   the CPML and the store's divergence; the adjoint from the operands (no
   CPML); backwards on the fields run back, imaging dt / rho on the face.
   only: the one axis a backward pass runs (its own core), or -1. */
template <int R, int P>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) VelocityKernel(const ELState s, const ELFields f, const Box b, int only)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c     = StaggeredCellCUDA(s.dim, s.radius, s.stride, i, q);
  const bool      layer = P == EL_PASS_FORWARD && InLayer(s, q);
  for (int a = 0; a < s.dim; a++) {
    if (only >= 0 && a != only) continue;
    float g = 0;
    for (int k = 0; k < s.dim; k++) {
      const float *x = P == EL_PASS_ADJOINT ? s.op[a][k] : k == a ? f.s[a] : f.t[ELPair(a, k)];
      const float  t = k == a ? Derive<R, 1>(s, k, s.w[k], x, s.psi_v[a][k], c, q, layer) : Derive<R, 0>(s, k, s.w[k], x, s.psi_v[a][k], c, q, layer);
      g              = k ? g + t : t;
    }
    if (P == EL_PASS_FORWARD && ELVelocityKept(&s)) ELKeep(&s, EL_KEEP_DIVERGENCE, a, c)[0] = g;
    if (P == EL_PASS_ADJOINT) s.v[a][c] = s.v[a][c] - g;
    else if (P == EL_PASS_BACK) {
      if (ELImageWanted(s.nimage, EL_IMAGE_BUOYANCY)) s.img_b[a][c] += s.v[a][c] * g;
      f.v[a][c] = f.v[a][c] - StaggeredFaceMean(s.bdt, c, s.stride[a]) * g;
    } else f.v[a][c] = f.v[a][c] + StaggeredFaceMean(s.bdt, c, s.stride[a]) * g;
  }
}

/* The normal strain rates at the cell at padded q (padded c) from the
   velocities v, each at its narrowed radius (ELStencilRadius), with the
   CPML where layer; and the free surfaces it lies on. */
template <int R>
__device__ static inline unsigned NormalRates(const ELState &s, float *const v[3], ptrdiff_t c, const PetscInt q[3], bool layer, float e[3])
{
  for (int k = 0; k < s.dim; k++) e[k] = Derive<R, 0>(s, k, ELWeights(&s, k, ELStencilRadius(&s, k, 0, q[k], c)), v[k], s.psi_s[k][k], c, q, layer);
  return ELSurfacesAt(&s, q);
}

/* The sum of the normal rates e over the axes off the surfaces surf, from
   the first term itself (as the CPU's). */
__device__ static inline float RatesOff(const ELState &s, unsigned surf, const float e[3])
{
  float sum   = 0;
  bool  first = true;
  for (int k = 0; k < s.dim; k++) {
    if (surf >> k & 1) continue;
    sum   = first ? e[k] : sum + e[k];
    first = false;
  }
  return sum;
}

/* Pair p's shear rate D+_b v_a + D+_a v_b at padded c, each at its
   narrowed radius, with the CPML where layer. */
template <int R>
__device__ static inline float ShearRate(const ELState &s, float *const v[3], int p, ptrdiff_t c, const PetscInt q[3], bool layer)
{
  const int a = p == 2 ? 1 : 0, k = p == 0 ? 1 : 2;
  return Derive<R, 1>(s, k, ELWeights(&s, k, ELStencilRadius(&s, k, 1, q[k], c)), v[a], s.psi_s[a][k], c, q, layer) +
         Derive<R, 1>(s, a, ELWeights(&s, a, ELStencilRadius(&s, a, 1, q[a], c)), v[k], s.psi_s[k][a], c, q, layer);
}

template <int R>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) StressKernel(const ELState s, const Box b)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c     = StaggeredCellCUDA(s.dim, s.radius, s.stride, i, q);
  const bool      layer = ELNearSurface(&s, q) || InLayer(s, q); /* a free surface's band: the CPU's layer pieces */
  const float     l = s.ldt[c], m2 = s.mdt[c] + s.mdt[c];
  float           e[3];
  const unsigned  surf = NormalRates<R>(s, s.v, c, q, layer, e);
  const float     sum  = RatesOff(s, surf, e);
  const int       kept = ELStressKept(&s);
  if (kept == EL_KEEPS_TRACE) ELKeep(&s, EL_KEEP_TRACE, 0, c)[0] = sum;
  else if (kept)
    for (int k = 0; k < s.dim; k++) ELKeep(&s, EL_KEEP_NORMAL, k, c)[0] = e[k];
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
    const float g = ShearRate<R>(s, s.v, p, c, q, layer);
    if (kept == EL_KEEPS_RATES) ELKeep(&s, EL_KEEP_SHEAR, p, c)[0] = g;
    s.t[p][c] = s.t[p][c] + ELEdgeShear(s.csum[a], c, s.stride[k]) * g;
  }
}

/* The stress stage's transpose from the operands (kernels_cpu.c's
   NormalAdjointPieceR and ShearPieceR's adjoint): s~_a -= D-_a op[a][a],
   t~_ab -= D+_b op[a][b] + D+_a op[b][a]. */
template <int R>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) AdjointStressKernel(const ELState s, const Box b)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = StaggeredCellCUDA(s.dim, s.radius, s.stride, i, q);
  for (int a = 0; a < s.dim; a++) s.s[a][c] = s.s[a][c] - StaggeredStencilCUDA<R, 0>(s.op[a][a] + c, s.stride[a], s.w[a]);
  for (int p = 0; p < ELPairs(s.dim); p++) {
    const int   a = p == 2 ? 1 : 0, k = p == 0 ? 1 : 2;
    const float g = StaggeredStencilCUDA<R, 1>(s.op[a][k] + c, s.stride[k], s.w[k]) + StaggeredStencilCUDA<R, 1>(s.op[k][a] + c, s.stride[a], s.w[a]);
    s.t[p][c]     = s.t[p][c] - g;
  }
}

/* The normal stresses backwards on the fields run back (NormalPieceR's
   backward pass): the update taken off, lambda dt's and (where wanted) mu
   dt's images taking their terms with the adjoint stresses. */
template <int R>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) BackNormalKernel(const ELState s, const ELFields f, const Box b)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = StaggeredCellCUDA(s.dim, s.radius, s.stride, i, q);
  const float     l = s.ldt[c], m2 = s.mdt[c] + s.mdt[c];
  float           e[3], tr = 0, se = 0;
  const unsigned  surf = NormalRates<R>(s, f.v, c, q, false, e);
  const PetscInt  k    = ELSurfaceCount(surf, s.dim);
  const float     sum  = RatesOff(s, surf, e);
  for (int a = 0; a < s.dim; a++)
    if (!(surf >> a & 1)) {
      tr += s.s[a][c];
      se += s.s[a][c] * e[a];
    }
  ELCentreImages(&s, c, ELImageWanted(s.nimage, EL_IMAGE_MU), tr, sum, se, l, m2, k);
  for (int a = 0; a < s.dim; a++)
    if (!(surf >> a & 1)) f.s[a][c] = f.s[a][c] - (surf ? ELSurfaceLambda(l, m2, k) : l) * sum - m2 * e[a];
}

/* Pair p's shear stress backwards (ShearPieceR's backward pass): t_ab -=
   M g, the edge's image taking M^2 t~_ab g. */
template <int R>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) BackShearKernel(const ELState s, const ELFields f, const Box b, int p)
{
  PetscInt i[3], q[3];
  if (!BoxCell(b, i)) return;
  const ptrdiff_t c = StaggeredCellCUDA(s.dim, s.radius, s.stride, i, q);
  const int       a = p == 2 ? 1 : 0, k = p == 0 ? 1 : 2;
  const float     g = ShearRate<R>(s, f.v, p, c, q, false), M = ELEdgeShear(s.csum[a], c, s.stride[k]);
  if (ELImageWanted(s.nimage, EL_IMAGE_MU)) s.img_e[p][c] += M * (M * s.t[p][c]) * g;
  f.t[p][c] = f.t[p][c] - M * g;
}

#define EL_LAUNCH_BOX(s, b, kernel, ...) STAGGERED_LAUNCH_BOX(ELLane(s), b, kernel, __VA_ARGS__)

/* v over box b in pass P (only: one axis's, or -1 for every axis's). */
static PetscErrorCode Velocity(ELState *s, const Box *b, ELPass P, int only)
{
  const ELFields f = FieldsOf(s, P == EL_PASS_BACK);

  PetscFunctionBeginUser;
  if (P == EL_PASS_FORWARD) STAGGERED_WITH_RADIUS(s->radius, EL_LAUNCH_BOX(s, b, (VelocityKernel<R_, EL_PASS_FORWARD>), *s, f, *b, only))
  else if (P == EL_PASS_ADJOINT) STAGGERED_WITH_RADIUS(s->radius, EL_LAUNCH_BOX(s, b, (VelocityKernel<R_, EL_PASS_ADJOINT>), *s, f, *b, only))
  else STAGGERED_WITH_RADIUS(s->radius, EL_LAUNCH_BOX(s, b, (VelocityKernel<R_, EL_PASS_BACK>), *s, f, *b, only))
  PetscFunctionReturn(0);
}

PetscErrorCode ELVelocityCUDA(ELState *s, const Box *b) { return Velocity(s, b, EL_PASS_FORWARD, -1); }
PetscErrorCode ELAdjointVelocityCUDA(ELState *s, const Box *b) { return Velocity(s, b, EL_PASS_ADJOINT, -1); }

/* The stresses over box b, forward or (adjoint) their transpose. */
static PetscErrorCode Stress(ELState *s, const Box *b, bool adjoint)
{
  PetscFunctionBeginUser;
  if (adjoint) STAGGERED_WITH_RADIUS(s->radius, EL_LAUNCH_BOX(s, b, AdjointStressKernel<R_>, *s, *b))
  else STAGGERED_WITH_RADIUS(s->radius, EL_LAUNCH_BOX(s, b, StressKernel<R_>, *s, *b))
  PetscFunctionReturn(0);
}

PetscErrorCode ELStressCUDA(ELState *s, const Box *b) { return Stress(s, b, false); }
PetscErrorCode ELAdjointStressCUDA(ELState *s, const Box *b) { return Stress(s, b, true); }

/* The boundary method's backward passes over each field's core in box
   (kernels_cpu.c's ELBackStressCPU, ELBackVelocityCPU). */
PetscErrorCode ELBackStressCUDA(ELState *s, const Box *box)
{
  const ELFields f = FieldsOf(s, true);
  Box            b;

  PetscFunctionBeginUser;
  if (BoxWithin(box, &s->rec->core[EL_SZZ], &b)) STAGGERED_WITH_RADIUS(s->radius, EL_LAUNCH_BOX(s, &b, BackNormalKernel<R_>, *s, f, b))
  for (int p = 0; p < ELPairs(s->dim); p++)
    if (BoxWithin(box, &s->rec->core[EL_SZX + p], &b)) STAGGERED_WITH_RADIUS(s->radius, EL_LAUNCH_BOX(s, &b, BackShearKernel<R_>, *s, f, b, p))
  PetscFunctionReturn(0);
}

PetscErrorCode ELBackVelocityCUDA(ELState *s, const Box *box)
{
  Box b;

  PetscFunctionBeginUser;
  for (int a = 0; a < s->dim; a++)
    if (BoxWithin(box, &s->rec->core[EL_VZ + a], &b)) PetscCall(Velocity(s, &b, EL_PASS_BACK, a));
  PetscFunctionReturn(0);
}
