/* The elastic adjoint's operands on the CPU (adjoint.c): each cell's
   transposed CPML memories and its images, from the adjoint fields and
   the stored strain rates and divergences. */
#include "equations/elastic/adjoint_cells.h"
#include "equations/elastic/kernels.h"
#include "equations/staggered_cpu.h"

/* CPML weights of the derivative along b at cell i of a row from padded
   q (adjoint_cells.h's EL_PROFILE along the row).  b and up are literals
   at every call (each pair's and each velocity's loop a pass of its own):
   with either an outer loop's variable the vectoriser gathered the
   weights one by one. */
#define EL_ROW_PROFILE(s, w, b, up, q, i) ((up) ? (s)->h##w : (s)->p##w)[b][(b) ? (q)[b] : (q)[0] + (i)]

/* The memory psi of a derivative along b from the row's first cell
   (padded q, index row), or where it holds none of the row's, a row of
   psi_none (StaggeredNoMemory: there the operand is x but perhaps for the
   sign of a zero, as ELOperandAt's). */
static inline float *RowMemory(const ELState *s, float *psi, PetscInt b, const PetscInt q[3], ptrdiff_t row)
{
  float *const m = ELMemoryAt(s, psi, b, q, row);

  return m ? m : StaggeredNoMemory(s->psi_none, s->padded[0], b);
}

/* The operand from x of the derivative along b at cell i of a row piece,
   through its transposed CPML memory m (m[i]: the row's, or psi_none's)
   with the profile weights A and B; along z only where the piece lies
   in z's layers (Z), along another axis b only where the row lies in b's
   slab (O: a bit each), x itself elsewhere (ELOperandAt: the weights
   are 0 there, and the two differ at most in the sign of a zero). */
#define EL_ROW_OPERAND(Z, O, b, x, A, B, m, i) (((b) ? (O) >> (b) & 1 : (Z)) ? StaggeredCpmlAdjoint((x), (A), (B), &(m)[i]) : (x))

/* The shear operands of the edges of axes a < b over cells [i0, i1) of a
   row (ELUndoStressCell's pairs; Z, O as UndoStressRowR's). */
STAGGERED_INLINE void ShearOperandsR(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt i1, PetscBool Z, unsigned O, int K, PetscInt D, PetscInt a, PetscInt b)
{
  const PetscInt  p  = ELPair(a, b);
  const ptrdiff_t sb = s->stride[b];
  float *const    mab = RowMemory(s, s->psi_s[a][b], b, q, row), *const mba = RowMemory(s, s->psi_s[b][a], a, q, row);
  const float    *kept = K == EL_KEEPS_RATES ? ELKeep(s, EL_KEEP_SHEAR, p, row) : NULL; /* the row's, so that no lane tests keep */

#pragma GCC ivdep
  for (PetscInt i = i0; i < i1; i++) {
    const ptrdiff_t c = row + i;
    const float     M = ELEdgeShear(s->csum[a], c, sb), tau = M * s->t[p][c];
    if (K == EL_KEEPS_RATES) s->img_e[p][c] += M * tau * kept[i];
    s->op[a][b][c] = EL_ROW_OPERAND(Z, O, b, tau, EL_ROW_PROFILE(s, a, b, 1, q, i), EL_ROW_PROFILE(s, b, b, 1, q, i), mab, i);
    s->op[b][a][c] = EL_ROW_OPERAND(Z, O, a, tau, EL_ROW_PROFILE(s, a, a, 1, q, i), EL_ROW_PROFILE(s, b, a, 1, q, i), mba, i);
  }
}

/* ELUndoStressCell over cells [i0, i1) of a row off every free surface, as
   vector loops: the normal rates' operands, then each pair's.  Z, O:
   whether the cells lie in z's layers, the axes but z whose slabs hold
   the row (a bit each). */
STAGGERED_INLINE void UndoStressRowR(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt i1, PetscBool Z, unsigned O, int K, PetscInt D)
{
  float *const *const sn = s->s;
  float              *mn[3]; /* the normal rates' memories from the row's first cell */

  const float        *ktr = K == EL_KEEPS_TRACE ? ELKeep(s, EL_KEEP_TRACE, 0, row) : NULL, *kn[3] = {NULL, NULL, NULL}; /* the kept rows, as ShearOperandsR's */

  for (PetscInt b = 0; b < D; b++) {
    mn[b] = RowMemory(s, s->psi_s[b][b], b, q, row);
    if (K == EL_KEEPS_RATES) kn[b] = ELKeep(s, EL_KEEP_NORMAL, b, row);
  }

#pragma GCC ivdep
  for (PetscInt i = i0; i < i1; i++) {
    const ptrdiff_t c  = row + i;
    const float     l  = s->ldt[c], m2 = s->mdt[c] + s->mdt[c];
    float           tr = 0;
    for (PetscInt a = 0; a < D; a++) tr += sn[a][c];
    if (K == EL_KEEPS_TRACE) s->img_l[c] += ELLambdaImage(tr, ktr[i], l, m2, 0);
    else if (K) {
      float T = 0, se = 0;
      for (PetscInt b = 0; b < D; b++) {
        const float e = kn[b][i];
        T += e;
        se += sn[b][c] * e;
      }
      ELNormalImage(&s->img_l[c], &s->img_m[c], tr, T, se, l, m2, 0);
    }
    for (PetscInt b = 0; b < D; b++) s->op[b][b][c] = EL_ROW_OPERAND(Z, O, b, l * tr + m2 * sn[b][c], EL_ROW_PROFILE(s, a, b, 0, q, i), EL_ROW_PROFILE(s, b, b, 0, q, i), mn[b], i);
  }
  ShearOperandsR(s, row, q, i0, i1, Z, O, K, D, 0, 1);
  if (D == 3) {
    ShearOperandsR(s, row, q, i0, i1, Z, O, K, D, 0, 2);
    ShearOperandsR(s, row, q, i0, i1, Z, O, K, D, 1, 2);
  }
}

/* ELUndoVelocityCell for axis a over cells [i0, i1) of a row, as a
   vector loop (Z, O as UndoStressRowR's). */
STAGGERED_INLINE void VelocityOperandsR(ELState *s, const PetscInt q[3], ptrdiff_t row, PetscInt i0, PetscInt i1, PetscBool Z, unsigned O, PetscBool K, PetscInt D, PetscInt a)
{
  const ptrdiff_t sa   = s->stride[a];
  const float    *kept = K ? ELKeep(s, EL_KEEP_DIVERGENCE, a, row) : NULL; /* as ShearOperandsR's */
  float          *m[3];

  for (PetscInt b = 0; b < D; b++) m[b] = RowMemory(s, s->psi_v[a][b], b, q, row);
#pragma GCC ivdep
  for (PetscInt i = i0; i < i1; i++) {
    const ptrdiff_t c = row + i;
    const float     v = s->v[a][c], w = StaggeredFaceMean(s->bdt, c, sa) * v;
    if (K) s->img_b[a][c] += v * kept[i];
    for (PetscInt b = 0; b < D; b++) s->op[a][b][c] = EL_ROW_OPERAND(Z, O, b, w, EL_ROW_PROFILE(s, a, b, b == a, q, i), EL_ROW_PROFILE(s, b, b, b == a, q, i), m[b], i);
  }
}

/* ELUndoVelocityCell over cells [i0, i1) of a row, an axis at a time. */
STAGGERED_INLINE void UndoVelocityRowR(ELState *s, const PetscInt q[3], ptrdiff_t row, PetscInt i0, PetscInt i1, PetscBool Z, unsigned O, PetscBool K, PetscInt D)
{
  VelocityOperandsR(s, q, row, i0, i1, Z, O, K, D, 0);
  VelocityOperandsR(s, q, row, i0, i1, Z, O, K, D, 1);
  if (D == 3) VelocityOperandsR(s, q, row, i0, i1, Z, O, K, D, 2);
}

/* Stage's vector loops over cells [lo, hi) of a row, in pieces by z's
   layers: the cells outside them (at the centres and the nodes alike)
   take no z memory, and a row outside another axis's slab none of its
   (in 3D a row in x's slab alone takes no y memory, about 40% of the
   rows of 96^3 with 20 layer cells lying in one of the two: the 3D
   gradient's adjoint steps 6% faster). */
static void OperandPieces(ELState *s, PetscInt stage, ptrdiff_t row, const PetscInt q[3], PetscInt lo, PetscInt hi)
{
  PetscInt at[4]  = {lo, 0, 0, hi}; /* the pieces' bounds: in z's layers, outside them, in them */
  unsigned others = 0;

  for (PetscInt b = 1; b < s->dim; b++)
    if (StaggeredSlabHolds(&s->slab[b], q[b])) others |= 1u << b;
  ELPlainCells(s, q, lo, hi, &at[1]);
  for (PetscInt k = 0; k < 3; k++) {
    if (at[k + 1] <= at[k]) continue;
    /* the slabs as literals, y's in 3D alone */
    EL_WITH_DIM(s->dim, STAGGERED_WITH_FLAG(k != 1, Z_, STAGGERED_WITH_FLAG(others >> 1 & 1, X_, STAGGERED_WITH_FLAG(D_ > 2 && others >> 2 & 1, Y_, {
      const unsigned O_ = (X_ ? 2u : 0u) | (Y_ ? 4u : 0u);
      if (stage) EL_WITH_VELOCITY_KEEP(s, UndoVelocityRowR(s, q, row, at[k], at[k + 1], Z_, O_, K_, D_));
      else EL_WITH_STRESS_KEEP(s, UndoStressRowR(s, row, q, at[k], at[k + 1], Z_, O_, K_, D_));
    }))));
  }
}

/* A row's cells on a free surface take ELUndoStressCell, the others the
   vector loops. */
void ELOperandsRow(ELState *s, PetscInt stage, ptrdiff_t row, const PetscInt q[3], PetscInt n)
{
  const PetscInt R  = s->radius;
  PetscInt       lo = 0, hi = n;

  if (stage) {
    OperandPieces(s, 1, row, q, 0, n);
    return;
  }
  if (ELSurfacesAt(s, (const PetscInt[3]){R + 1, q[1], q[2]}) & ~1u) lo = hi; /* a row on a surface of another axis: every cell */
  else {
    if (s->free_surface[0][0] && q[0] == R) lo = 1;
    if (s->free_surface[0][1] && q[0] + n == R + s->n[0]) hi = n - 1;
  }
  const PetscInt cells[2][2] = {{0, lo}, {hi, n}}; /* those cells alone: a test of every cell cost 5% of the gradient */
  for (PetscInt k = 0; k < 2; k++)
    for (PetscInt i = cells[k][0]; i < cells[k][1]; i++) ELUndoStressCell(s, (const PetscInt[3]){q[0] + i, q[1], q[2]}, row + i, ELStressKept(s));
  if (hi > lo) OperandPieces(s, 0, row, q, lo, hi);
}

PetscErrorCode ELAdjointOperandsCPU(ELState *s, PetscInt stage)
{
  const Box all = {{0, 0, 0}, {s->n[0], s->n[1], s->n[2]}, 0};

  STAGGERED_EACH_ROW(s, &all, ELOperandsRow(s, stage, row, q, n));
  return 0;
}
