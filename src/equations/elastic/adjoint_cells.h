/* The elastic adjoint's arithmetic of one cell or one surface row
   (adjoint.c), shared by the backends: the CPU's row loops and CUDA's
   kernels call the same functions, so that they agree bit for bit.  Valid
   C and CUDA (FWI_HD). */
#pragma once
#include "equations/elastic/state.h"

/* The free surfaces (a bit per axis) the owned cell at padded q lies on. */
FWI_HD static inline unsigned ELSurfacesAt(const ELState *s, const PetscInt q[3])
{
  const PetscInt R    = s->radius;
  unsigned       surf = 0;

  for (PetscInt a = 0; a < s->dim; a++)
    if ((s->free_surface[a][0] && q[a] == R) || (s->free_surface[a][1] && q[a] == R + s->n[a] - 1)) surf |= 1u << a;
  return surf;
}

/* CPML weights of the derivative along b at the cell at padded q (the
   centres', or the nodes' above along b where up). */
#define EL_PROFILE(s, w, b, up, q) ((up) ? (s)->h##w : (s)->p##w)[b][(q)[b]]

/* The operand from x of the derivative along axis at padded q, through its
   transposed CPML memory psi at cell c (x itself outside axis's layers,
   where psi holds no cell: there the weights are 0, and the two differ at
   most in the sign of a zero, which no stencil's sum can tell). */
FWI_HD static inline float ELOperandAt(const ELState *s, PetscInt axis, PetscInt up, const PetscInt q[3], ptrdiff_t c, float *psi, float x)
{
  float *const m = ELMemoryAt(s, psi, axis, q, c);

  return m ? StaggeredCpmlAdjoint(x, EL_PROFILE(s, a, axis, up, q), EL_PROFILE(s, b, axis, up, q), m) : x;
}

/* Undoing the stress stage at cell c (padded q).  What the forward update
   s_a += lambda dt tr(e) + 2 mu dt e_a fed each strain rate e_b is
   sigma_b = lambda dt tr(s~) + 2 mu dt s~_b (s~: the adjoint stresses); on
   a free surface's cell the surface's lambda share over the axes off it,
   and 0 for an axis on it, whose rate the forward step did not use.  Each
   edge's t_ab += M g fed both of its rates M t~_ab.  The images: lambda
   dt's tr(s~) tr(e), mu dt's 2 s~ . e at the centres (with the surface
   share's derivatives on a surface cell), and the edge's M^2 t~ g, the
   harmonic mean's derivative being M^2 / (4 (mu dt)^2) for each cell.
   K: what the run keeps of the forward terms (full storage: ELStressKept). */
FWI_HD static inline void ELUndoStressCell(const ELState *s, const PetscInt q[3], ptrdiff_t c, int K)
{
  const PetscInt D = s->dim, P = ELPairs(D);
  const unsigned surf = ELSurfacesAt(s, q);
  const PetscInt k    = ELSurfaceCount(surf, D);
  const float    l = s->ldt[c], m2 = s->mdt[c] + s->mdt[c], ls = surf ? ELSurfaceLambda(l, m2, k) : l;
  float          tr = 0;

  for (PetscInt a = 0; a < D; a++)
    if (!(surf >> a & 1)) tr += s->s[a][c];
  if (K == EL_KEEPS_TRACE) s->img_l[c] += ELLambdaImage(tr, ELKeep(s, EL_KEEP_TRACE, 0, c)[0], l, m2, k);
  else if (K) {
    float T = 0, se = 0;
    for (PetscInt b = 0; b < D; b++) {
      const float e = ELKeep(s, EL_KEEP_NORMAL, b, c)[0];
      if (surf >> b & 1) continue;
      T += e;
      se += s->s[b][c] * e;
    }
    ELNormalImage(&s->img_l[c], &s->img_m[c], tr, T, se, l, m2, k);
  }
  for (PetscInt b = 0; b < D; b++) {
    const float sigma = surf >> b & 1 ? 0.0f : ls * tr + m2 * s->s[b][c];
    s->op[b][b][c]    = ELOperandAt(s, b, 0, q, c, s->psi_s[b][b], sigma);
  }
  for (PetscInt p = 0; p < P; p++) {
    const PetscInt a = p == 2 ? 1 : 0, b = p == 0 ? 1 : 2;
    const float    M = ELEdgeShear(s->csum[a], c, s->stride[b]), tau = M * s->t[p][c];
    if (K == EL_KEEPS_RATES) s->img_e[p][c] += M * tau * ELKeep(s, EL_KEEP_SHEAR, p, c)[0];
    s->op[a][b][c] = ELOperandAt(s, b, 1, q, c, s->psi_s[a][b], tau);
    s->op[b][a][c] = ELOperandAt(s, a, 1, q, c, s->psi_s[b][a], tau);
  }
}

/* Undoing v_a's update at cell c (padded q): v_a += B_a g_a fed each of
   its derivatives B_a v~_a; the image of the face's dt / rho is v~_a g_a,
   where the run keeps g_a (K: ELVelocityKept). */
FWI_HD static inline void ELUndoVelocityCell(const ELState *s, PetscInt a, const PetscInt q[3], ptrdiff_t c, PetscBool K, PetscInt D)
{
  const float v = s->v[a][c], w = StaggeredFaceMean(s->bdt, c, s->stride[a]) * v;

  if (K) s->img_b[a][c] += v * ELKeep(s, EL_KEEP_DIVERGENCE, a, c)[0];
  for (PetscInt b = 0; b < D; b++) s->op[a][b][c] = ELOperandAt(s, b, b == a, q, c, s->psi_v[a][b], w);
}

/* The operands beyond the free surface at side of the row along a from
   padded index row (stride st, n owned cells), for the stage's transposed
   stencils to read.  Stage 0 (undoing the stress stage, read by the
   velocities): the forward run holds the velocities beyond a surface at 0,
   so nothing there takes a share, but for a fluid's normal velocity,
   mirrored even, whose rate's operand is odd.  Stage 1 (undoing the
   velocity stage, read by the stresses): s_a and t_ab are odd beyond it,
   so the operands of their derivatives are even, t_ab's folded at the
   surface centre. */
FWI_HD static inline void ELAdjointSurfaceRow(const ELState *s, PetscInt stage, PetscInt a, PetscInt side, ptrdiff_t row, ptrdiff_t st, PetscInt n)
{
  const StaggeredSurfaceOp normal = stage ? STAGGERED_MIRROR_NODES : ELSurfaceFluid(s, row, st, n, side) ? STAGGERED_MIRROR_CENTRES : STAGGERED_ZERO_BEYOND_CENTRES;

  StaggeredSurfaceRow(normal, s->op[a][a], row, st, n, side, s->radius);
  for (PetscInt b = 0; b < s->dim; b++)
    if (b != a) StaggeredSurfaceRow(stage ? STAGGERED_FOLD_CENTRES : STAGGERED_ZERO_BEYOND_NODES, s->op[b][a], row, st, n, side, s->radius);
}

/* Contribution of the narrowed stencils (state.h: ELStencilRadius) to
   the transposed derivative along a at owned index j of a row (stride st,
   owned cells [lo, hi) in the band of one surface): stage 0's uniform
   transpose took each output's full weights w, so each output c in the
   band adds what its own weights W_c differ by, (W_c - w)[m] x[c] at the
   inputs its stencil reads (c + m - 1 + up, and c - m + up with the other
   sign). */
FWI_HD static inline float ELNarrowedTransposeAt(const ELState *s, PetscInt a, PetscInt up, const float *x, ptrdiff_t row, ptrdiff_t st, PetscInt lo, PetscInt hi, PetscInt j)
{
  const PetscInt R   = s->radius;
  float          acc = 0;

  for (PetscInt m = 1; m <= R; m++)
    for (PetscInt k = 0; k < 2; k++) {
      const PetscInt c = k ? j + 1 - up - m : j + m - up; /* the output whose input m (or -m) is j */
      if (c < lo || c >= hi) continue;
      const float *W = ELWeights(s, a, ELStencilRadius(s, a, up, R + c, row + c * st));
      const float  d = W[m] - s->w[a][m];
      acc            = k ? acc - d * x[row + c * st] : acc + d * x[row + c * st];
    }
  return acc;
}

/* The narrowed stencils' transposes on the row along a that ends on the
   surface at side, after stage 0's operands: each velocity within reach
   of the surface's band (2 R cells) takes from the band's normal rates'
   operands (op[a][a], the normal velocity v_a) and shear rates' (op[b][a],
   the tangential v_b) what their narrowed weights differ by from the
   uniform transpose's. */
FWI_HD static inline void ELNarrowedRow(const ELState *s, PetscInt a, PetscInt side, ptrdiff_t row, ptrdiff_t st, PetscInt n)
{
  const PetscInt R = s->radius, lo = side ? n - R : 0, hi = side ? n : R; /* the band's outputs, owned indices along a */

  for (PetscInt b = 0; b < s->dim; b++) {
    const PetscInt up = b == a ? 0 : 1;
    float         *v  = s->v[b];
    const float   *x  = s->op[b][a];
    for (PetscInt i = side ? n - 2 * R : 0; i < (side ? n : 2 * R); i++) v[row + i * st] = v[row + i * st] - ELNarrowedTransposeAt(s, a, up, x, row, st, lo, hi, i);
  }
}
