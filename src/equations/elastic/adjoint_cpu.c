/* The elastic adjoint's operands on the CPU (adjoint.c): each cell's
   transposed CPML memories and its images, from the adjoint fields and
   the stored strain rates and divergences. */
#include "equations/elastic/kernels.h"
#include "equations/staggered_cpu.h"

/* The free surfaces (a bit per axis) the owned cell at padded q lies on. */
static unsigned SurfacesAt(const ELState *s, const PetscInt q[3])
{
  const PetscInt R    = s->radius;
  unsigned       surf = 0;

  for (PetscInt a = 0; a < s->dim; a++)
    if ((s->free_surface[a][0] && q[a] == R) || (s->free_surface[a][1] && q[a] == R + s->n[a] - 1)) surf |= 1u << a;
  return surf;
}

/* CPML weights of the derivative along b at cell i of a row from padded
   q (the centres', or the nodes' above along b where up): per cell along
   axis 0, one for the row along the others. */
#define EL_PROFILE(s, w, b, up, q, i) ((up) ? (s)->h##w : (s)->p##w)[b][(b) ? (q)[b] : (q)[0] + (i)]

/* The operand from x of the derivative along b at padded q (one cell, i =
   0), through its transposed CPML memory psi at cell c. */
#define EL_OPERAND_AT(s, axis, up, q, c, psi, x) StaggeredCpmlAdjoint(x, EL_PROFILE(s, a, axis, up, q, 0), EL_PROFILE(s, b, axis, up, q, 0), &(psi)[c])

/* Undoing the stress stage at cell c (padded q).  What the forward update
   s_a += lambda dt tr(e) + 2 mu dt e_a fed each strain rate e_b is
   sigma_b = lambda dt tr(s~) + 2 mu dt s~_b (s~: the adjoint stresses); on
   a free surface's cell the surface's lambda share over the axes off it,
   and 0 for an axis on it, whose rate the forward step did not use.  Each
   edge's t_ab += M g fed both of its rates M t~_ab.  The images: lambda
   dt's tr(s~) tr(e), mu dt's 2 s~ . e at the centres (with the surface
   share's derivatives on a surface cell), and the edge's M^2 t~ g, the
   harmonic mean's derivative being M^2 / (4 (mu dt)^2) for each cell. */
static void UndoStressCell(ELState *s, const PetscInt q[3], ptrdiff_t c)
{
  const PetscInt D = s->dim, P = ELPairs(D);
  const unsigned surf = SurfacesAt(s, q);
  const PetscInt k    = ELSurfaceCount(surf, D);
  const float    l = s->ldt[c], m2 = s->mdt[c] + s->mdt[c], ls = surf ? ELSurfaceLambda(l, m2, k) : l;
  float          tr = 0, e[3] = {0, 0, 0};

  for (PetscInt a = 0; a < D; a++)
    if (!(surf >> a & 1)) tr += s->s[a][c];
  if (s->keep) {
    float T = 0, se = 0;
    for (PetscInt b = 0; b < D; b++) {
      e[b] = ELKeep(s, EL_KEEP_NORMAL, b, c)[0];
      if (surf >> b & 1) continue;
      T += e[b];
      se += s->s[b][c] * e[b];
    }
    ELNormalImage(&s->img_l[c], &s->img_m[c], tr, T, se, l, m2, k);
  }
  for (PetscInt b = 0; b < D; b++) {
    const float sigma = surf >> b & 1 ? 0.0f : ls * tr + m2 * s->s[b][c];
    s->op[b][b][c]    = EL_OPERAND_AT(s, b, 0, q, c, s->psi_s[b][b], sigma);
  }
  for (PetscInt p = 0; p < P; p++) {
    const PetscInt a = p == 2 ? 1 : 0, b = p == 0 ? 1 : 2;
    const float    M = ELEdgeShear(s->csum[a], c, s->stride[b]), tau = M * s->t[p][c];
    if (s->keep) s->img_e[p][c] += M * tau * ELKeep(s, EL_KEEP_SHEAR, p, c)[0];
    s->op[a][b][c] = EL_OPERAND_AT(s, b, 1, q, c, s->psi_s[a][b], tau);
    s->op[b][a][c] = EL_OPERAND_AT(s, a, 1, q, c, s->psi_s[b][a], tau);
  }
}

/* UndoStressCell over cells [i0, i1) of a row off every free surface, as
   vector loops: the normal rates' operands, then each pair's. */
STAGGERED_INLINE void UndoStressRowR(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt i1, PetscBool K, PetscInt D)
{
  float *const *const sn = s->s;

#pragma GCC ivdep
  for (PetscInt i = i0; i < i1; i++) {
    const ptrdiff_t c  = row + i;
    const float     l  = s->ldt[c], m2 = s->mdt[c] + s->mdt[c];
    float           tr = 0;
    for (PetscInt a = 0; a < D; a++) tr += sn[a][c];
    if (K) {
      float T = 0, se = 0;
      for (PetscInt b = 0; b < D; b++) {
        const float e = s->keep[(size_t)ELKeepRow(D, EL_KEEP_NORMAL, b) * s->ncells + c];
        T += e;
        se += sn[b][c] * e;
      }
      ELNormalImage(&s->img_l[c], &s->img_m[c], tr, T, se, l, m2, 0);
    }
    for (PetscInt b = 0; b < D; b++) s->op[b][b][c] = StaggeredCpmlAdjoint(l * tr + m2 * sn[b][c], EL_PROFILE(s, a, b, 0, q, i), EL_PROFILE(s, b, b, 0, q, i), &s->psi_s[b][b][c]);
  }
  for (PetscInt p = 0; p < (D == 3 ? 3 : 1); p++) {
    const PetscInt  a = p == 2 ? 1 : 0, b = p == 0 ? 1 : 2;
    const ptrdiff_t sb = s->stride[b];
#pragma GCC ivdep
    for (PetscInt i = i0; i < i1; i++) {
      const ptrdiff_t c = row + i;
      const float     M = ELEdgeShear(s->csum[a], c, sb), tau = M * s->t[p][c];
      if (K) s->img_e[p][c] += M * tau * s->keep[(size_t)ELKeepRow(D, EL_KEEP_SHEAR, p) * s->ncells + c];
      s->op[a][b][c] = StaggeredCpmlAdjoint(tau, EL_PROFILE(s, a, b, 1, q, i), EL_PROFILE(s, b, b, 1, q, i), &s->psi_s[a][b][c]);
      s->op[b][a][c] = StaggeredCpmlAdjoint(tau, EL_PROFILE(s, a, a, 1, q, i), EL_PROFILE(s, b, a, 1, q, i), &s->psi_s[b][a][c]);
    }
  }
}

/* Undoing the velocity stage over a row's n cells: v_a += B_a g_a fed
   each of its derivatives B_a v~_a; the image of the face's dt / rho is
   v~_a g_a. */
STAGGERED_INLINE void UndoVelocityRowR(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt n, PetscBool K, PetscInt D)
{
  for (PetscInt a = 0; a < D; a++) {
    const ptrdiff_t sa = s->stride[a];
    const float    *v  = s->v[a];
#pragma GCC ivdep
    for (PetscInt i = 0; i < n; i++) {
      const ptrdiff_t c = row + i;
      const float     w = StaggeredFaceMean(s->bdt, c, sa) * v[c];
      if (K) s->img_b[a][c] += v[c] * s->keep[(size_t)ELKeepRow(D, EL_KEEP_DIVERGENCE, a) * s->ncells + c];
      for (PetscInt b = 0; b < D; b++) s->op[a][b][c] = StaggeredCpmlAdjoint(w, EL_PROFILE(s, a, b, b == a, q, i), EL_PROFILE(s, b, b, b == a, q, i), &s->psi_v[a][b][c]);
    }
  }
}

/* A row's cells on a free surface take UndoStressCell, the others the
   vector loops. */
PetscErrorCode ELAdjointOperandsCPU(ELState *s, PetscInt stage)
{
  const Box      all = {{0, 0, 0}, {s->n[0], s->n[1], s->n[2]}, 0};
  const PetscInt R   = s->radius;

  STAGGERED_EACH_ROW(s, &all, {
    if (stage) EL_WITH_KEEP(s, EL_WITH_DIM(s->dim, UndoVelocityRowR(s, row, q, n, K_, D_)));
    else {
      PetscInt lo = 0, hi = n;
      if (SurfacesAt(s, (const PetscInt[3]){R + 1, q[1], q[2]}) & ~1u) lo = hi; /* a row on a surface of another axis: every cell */
      else {
        if (s->free_surface[0][0] && q[0] == R) lo = 1;
        if (s->free_surface[0][1] && q[0] + n == R + s->n[0]) hi = n - 1;
      }
      for (PetscInt i = 0; i < n; i++)
        if (i < lo || i >= hi) UndoStressCell(s, (const PetscInt[3]){q[0] + i, q[1], q[2]}, row + i);
      if (hi > lo) EL_WITH_KEEP(s, EL_WITH_DIM(s->dim, UndoStressRowR(s, row, q, lo, hi, K_, D_)));
    }
  });
  return 0;
}
