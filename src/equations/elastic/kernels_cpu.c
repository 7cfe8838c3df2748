/* The elastic stages on the CPU (state.h): each cell's update reads its
   stencils alone, in a fixed order, so every decomposition gives the same
   bits.  A row goes in pieces: its cells outside every absorbing layer in
   one pass without CPML memory, those in a layer with the memory of the
   derivatives along the axes whose layers the piece may touch (exact
   outside a layer, where its weights are 0), and the cells
   on a free surface with the surface's condition.  The same passes run the
   adjoint (ELPass: on its operands) and, in the boundary method, the
   forward step backwards in the core. */
#include "equations/elastic/adjoint_cells.h"
#include "equations/elastic/kernels.h"
#include "equations/staggered_cpu.h"
#include <string.h>

/* A derivative along axis b over a row piece: its operand (at the piece's
   first cell), stride, and CPML weights (per cell along axis 0, one for
   the row along the others) and memory.  Its direction (D+, to the node
   above, or D-) is Derive's literal. */
typedef struct {
  const float *f, *la, *lb;
  float       *psi;
  ptrdiff_t    st;
} Derivative;

/* The stress stage's stencil radius along each axis over a piece (state.h:
   ELStencilRadius): the normal rates' (n, D- at the centres) and the shear
   rates' (e, D+ at the edges); R off the free surfaces' bands. */
typedef struct {
  PetscInt n[3], e[3];
} ELRadii;

/* Every stencil at its full radius R. */
static inline ELRadii FullRadii(PetscInt R) { return (ELRadii){{R, R, R}, {R, R, R}}; }

/* The derivative along b of field f for the cells from padded c (the
   row's padded coordinates q, first cell at q[0] + i0): at the node above
   along b (up) or at the centre, with the matching CPML profile and the
   memory psi (a row of psi_none where it holds none of the row's:
   StaggeredNoMemory). */
STAGGERED_INLINE Derivative DerivativeOf(const ELState *s, PetscInt b, const float *f, PetscInt up, float *psi, ptrdiff_t c, const PetscInt q[3], PetscInt i0)
{
  const PetscInt w     = q[b] + (b ? 0 : i0);
  const PetscInt at[3] = {q[0] + i0, q[1], q[2]};
  float *const   m     = ELMemoryAt(s, psi, b, at, c);

  return (Derivative){f + c, (up ? s->ha[b] : s->pa[b]) + w, (up ? s->hb[b] : s->pb[b]) + w, m ? m : StaggeredNoMemory(s->psi_none, s->padded[0], b) + i0, s->stride[b]};
}

/* The axes (a bit each) whose derivatives take their CPML memory in a
   piece: none (cells outside every layer), z alone (a row outside the
   other axes' layers, its cells in the z layers), the others (a row in
   another axis's layers, its cells outside the z layers: in 3D both x
   and y), or all.  A derivative left out has weights 0 over the piece:
   its memory would stay +0 and the derivative (a sum from +0, never -0)
   keeps its bits. */
enum { EL_CPML_NONE = 0, EL_CPML_Z = 1, EL_CPML_OTHERS = 6, EL_CPML_ALL = 7 };

/* Calls CALL with L_ the piece's axes L as a literal. */
#define EL_WITH_CPML(L, CALL) \
  switch (L) { \
  case EL_CPML_NONE: { const unsigned L_ = EL_CPML_NONE; CALL; } break; \
  case EL_CPML_Z: { const unsigned L_ = EL_CPML_Z; CALL; } break; \
  case EL_CPML_OTHERS: { const unsigned L_ = EL_CPML_OTHERS; CALL; } break; \
  default: { const unsigned L_ = EL_CPML_ALL; CALL; } break; \
  }

/* Derivative d along b at cell i of its piece, D+ where up, with its CPML
   memory where L holds b.  b and up are literals at every call: along
   axis 0 the taps are then offsets of one pointer, not a pointer each
   (with up read from memory, GCC kept eight pointers a derivative and
   spilled them). */
STAGGERED_INLINE float Derive(const Derivative *d, PetscInt b, PetscInt up, PetscInt i, const float *restrict w, PetscInt R, unsigned L)
{
  const float t = StaggeredStencil(d->f + i, b ? d->st : 1, up, w, R);

  return L >> b & 1 ? StaggeredCpml(t, d->la[b ? 0 : i], d->lb[b ? 0 : i], &d->psi[i]) : t;
}

/* The forward fields a pass reads and writes: the state's own, or in the
   boundary method's backward pass those run back. */
#define EL_V(s, P) ((P) == EL_PASS_BACK ? (s)->rec->f + EL_VZ : (s)->v)
#define EL_S(s, P) ((P) == EL_PASS_BACK ? (s)->rec->f + EL_SZZ : (s)->s)
#define EL_T(s, P) ((P) == EL_PASS_BACK ? (s)->rec->f + EL_SZX : (s)->t)

/* v_a for the NA axes a from a0 over cells [i0, i0 + m) of a row: g =
   D+_a s_a + sum_(b != a) D-_b t_ab, summed in axis order, v_a += (dt /
   rho on the face) g, g kept in the store's row where K (the run keeps
   one).  NA = D takes every velocity in one loop, sharing its loads of
   the stresses' rows and of dt / rho (the 2D plain cells: Velocity); the
   cells' arithmetic is the same either way.  The adjoint takes the same
   stencils of the operands op[a][b] (the transpose of the stress stage:
   D-^T = -D+, D+^T = -D-) and v_a -= g, without CPML (the operands carry
   it).  Backwards (in the core: no CPML), v_a -= (dt / rho) g, and where
   K the face's image of dt / rho takes v~_a g, as full storage's does
   from the store.  No cell's update reads another's (ivdep, as in the
   variable-density kernels). */
STAGGERED_INLINE void VelocityPieceR(ELState *s, PetscInt a0, PetscInt NA, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L, ELPass P, PetscBool K, PetscInt R, PetscInt D)
{
  const ptrdiff_t c = row + i0;
  Derivative      d[3][3];
  float           w[3][FWI_MAX_RADIUS + 1]; /* copies the stores cannot alias */
  float          *v[3], *keep[3], *img[3];
  const float    *adj[3];
  ptrdiff_t       sa[3];
  const float *restrict bdt = s->bdt + c;

  for (PetscInt b = 0; b < D; b++)
    for (PetscInt k = 1; k <= R; k++) w[b][k] = s->w[b][k];
  for (PetscInt j = 0; j < NA; j++) {
    const PetscInt a = a0 + j;
    v[j]             = EL_V(s, P)[a] + c;
    keep[j]          = K && P != EL_PASS_BACK ? ELKeep(s, EL_KEEP_DIVERGENCE, a, c) : NULL;
    img[j]           = K && P == EL_PASS_BACK ? s->img_b[a] + c : NULL;
    adj[j]           = P == EL_PASS_BACK ? s->v[a] + c : NULL;
    sa[j]            = s->stride[a];
    for (PetscInt b = 0; b < D; b++) d[j][b] = DerivativeOf(s, b, P == EL_PASS_ADJOINT ? s->op[a][b] : b == a ? EL_S(s, P)[a] : EL_T(s, P)[ELPair(a, b)], b == a, s->psi_v[a][b], c, q, i0);
  }
#pragma GCC ivdep
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < NA; j++) {
      float g = 0;
      for (PetscInt b = 0; b < D; b++) {
        const float t = Derive(&d[j][b], b, b == a0 + j, i, w[b], R, L);
        g             = b ? g + t : t;
      }
      if (K && P != EL_PASS_BACK) keep[j][i] = g;
      if (P == EL_PASS_ADJOINT) v[j][i] = v[j][i] - g;
      else if (P == EL_PASS_BACK) {
        if (K) img[j][i] += adj[j][i] * g;
        v[j][i] = v[j][i] - StaggeredFaceMean(bdt, i, sa[j]) * g;
      } else v[j][i] = v[j][i] + StaggeredFaceMean(bdt, i, sa[j]) * g;
    }
}

/* The normal stresses over cells [i0, i0 + m) of a row: e_b = D-_b v_b,
   s_a += lambda dt (sum_b e_b) + 2 mu dt e_a.  On a cell of the free
   surfaces of the axes in surf (a bit each) the normal stresses of those
   axes vanish, which fixes their strains: with k such axes and T the sum
   of the others' e_b, div = 2 mu T / (2 mu + k lambda), and s_a (a not in
   surf) += 2 lambda mu / (2 mu + k lambda) T + 2 mu e_a (Levander 1988 for
   one surface; s_a of an axis in surf is set to 0 after the step).
   P is the forward pass or the backward one (the adjoint's is
   NormalAdjointPieceR): backwards the same terms are taken off, and the
   images of lambda dt and, where K is EL_KEEPS_RATES (mu's gradient
   wanted), mu dt take theirs (ELCentreImages) with the adjoint stresses;
   K is what the forward run keeps otherwise. */
STAGGERED_INLINE void NormalPieceR(ELState *s, ptrdiff_t c, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L, unsigned surf, const ELRadii *rad, ELPass P, int K, PetscInt R, PetscInt D)
{
  const PetscInt k = ELSurfaceCount(surf, D);
  Derivative     dn[3];
  float          w[3][FWI_MAX_RADIUS + 1];
  float *const *const S  = EL_S(s, P);
  float *restrict     sz = S[0] + c, *restrict sx = S[1] + c, *restrict sy = D > 2 ? S[2] + c : NULL;
  const float *restrict ldt = s->ldt + c, *restrict mdt = s->mdt + c;

  const PetscBool rates = P != EL_PASS_BACK && K == EL_KEEPS_RATES, trace = P != EL_PASS_BACK && K == EL_KEEPS_TRACE; /* what the forward run keeps */
  float *restrict kz = rates ? ELKeep(s, EL_KEEP_NORMAL, 0, c) : NULL, *restrict kx = rates ? ELKeep(s, EL_KEEP_NORMAL, 1, c) : NULL, *restrict ky = rates && D > 2 ? ELKeep(s, EL_KEEP_NORMAL, 2, c) : NULL;
  float *restrict ktr = trace ? ELKeep(s, EL_KEEP_TRACE, 0, c) : NULL;

  for (PetscInt b = 0; b < D; b++) {
    const float *wb = ELWeights(s, b, rad->n[b]);
    dn[b]           = DerivativeOf(s, b, EL_V(s, P)[b], 0, s->psi_s[b][b], c, q, i0);
    for (PetscInt j = 1; j <= R; j++) w[b][j] = wb[j];
  }
#pragma GCC ivdep
  for (PetscInt i = 0; i < m; i++) {
    float *const sn[3] = {sz + i, sx + i, D > 2 ? sy + i : NULL};
    float        e[3], sum = 0;
    const float  l = ldt[i], m2 = mdt[i] + mdt[i];
    PetscBool    first = PETSC_TRUE; /* the first term itself, as the variable-density sum */
    for (PetscInt b = 0; b < D; b++) e[b] = Derive(&dn[b], b, 0, i, w[b], R, L);
    if (rates) {
      kz[i] = e[0];
      kx[i] = e[1];
      if (D > 2) ky[i] = e[2];
    }
    for (PetscInt b = 0; b < D; b++) {
      if (surf >> b & 1) continue;
      sum   = first ? e[b] : sum + e[b];
      first = PETSC_FALSE;
    }
    if (trace) ktr[i] = sum;
    if (P == EL_PASS_BACK) {
      float tr = 0, se = 0;
      for (PetscInt b = 0; b < D; b++)
        if (!(surf >> b & 1)) {
          tr += s->s[b][c + i];
          se += s->s[b][c + i] * e[b];
        }
      ELCentreImages(s, c + i, K == EL_KEEPS_RATES, tr, sum, se, l, m2, k);
      for (PetscInt a = 0; a < D; a++)
        if (!(surf >> a & 1)) *sn[a] = *sn[a] - (surf ? ELSurfaceLambda(l, m2, k) : l) * sum - m2 * e[a];
    } else if (!surf)
      for (PetscInt a = 0; a < D; a++) {
        *sn[a] = *sn[a] + l * sum;
        *sn[a] = *sn[a] + m2 * e[a];
      }
    else {
      const float ls = ELSurfaceLambda(l, m2, k);
      for (PetscInt a = 0; a < D; a++)
        if (!(surf >> a & 1)) {
          *sn[a] = *sn[a] + ls * sum;
          *sn[a] = *sn[a] + m2 * e[a];
        }
    }
  }
}

/* The shear stress of axes a < b over cells [i0, i0 + m) of a row: t_ab
   += (mu dt on the edge) g, g = D+_b v_a + D+_a v_b kept in the store's
   row where the run keeps one, a pass of its own, so that each pass's loop
   stays vector code.  The adjoint: the same stencils of op[a][b] and
   op[b][a], t_ab -= g, without CPML.  Backwards: t_ab -= M g (M: the
   edge's mu dt), where K the edge's image taking M^2 t~_ab g. */
STAGGERED_INLINE void ShearPieceR(ELState *s, PetscInt a, PetscInt b, ptrdiff_t c, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L, const ELRadii *rad, ELPass P, PetscBool K, PetscInt R)
{
  const PetscBool  A = P == EL_PASS_ADJOINT;
  float *const    *V = EL_V(s, P);
  const Derivative d0 = DerivativeOf(s, b, A ? s->op[a][b] : V[a], 1, s->psi_s[a][b], c, q, i0), d1 = DerivativeOf(s, a, A ? s->op[b][a] : V[b], 1, s->psi_s[b][a], c, q, i0);
  const ptrdiff_t  sb = s->stride[b];
  float            wa[FWI_MAX_RADIUS + 1], wb[FWI_MAX_RADIUS + 1];
  float *restrict t    = EL_T(s, P)[ELPair(a, b)] + c;
  float *restrict keep = K && P != EL_PASS_BACK ? ELKeep(s, EL_KEEP_SHEAR, ELPair(a, b), c) : NULL;
  float *restrict img  = K && P == EL_PASS_BACK ? s->img_e[ELPair(a, b)] + c : NULL;
  const float *restrict adj = P == EL_PASS_BACK ? s->t[ELPair(a, b)] + c : NULL;
  const float *restrict cs  = s->csum[a] + c;
  const float *ra = ELWeights(s, a, rad->e[a]), *rb = ELWeights(s, b, rad->e[b]);

  for (PetscInt j = 1; j <= R; j++) wa[j] = ra[j], wb[j] = rb[j];
#pragma GCC ivdep
  for (PetscInt i = 0; i < m; i++) {
    const float g = Derive(&d0, b, 1, i, wb, R, L) + Derive(&d1, a, 1, i, wa, R, L);
    if (K && P != EL_PASS_BACK) keep[i] = g;
    if (A) t[i] = t[i] - g;
    else if (P == EL_PASS_BACK) {
      const float M = ELEdgeShear(cs, i, sb);
      if (K) img[i] += M * (M * adj[i]) * g;
      t[i] = t[i] - M * g;
    } else t[i] = t[i] + ELEdgeShear(cs, i, sb) * g;
  }
}

/* The adjoint of the normal stresses' update over cells [i0, i0 + m) of a
   row: s_a -= D-_a op[a][a] (the transpose of the velocity stage's D+_a
   s_a; the normal stresses' coupling is in the operands). */
STAGGERED_INLINE void NormalAdjointPieceR(ELState *s, ptrdiff_t c, const PetscInt q[3], PetscInt i0, PetscInt m, PetscInt R, PetscInt D)
{
  for (PetscInt a = 0; a < D; a++) {
    const Derivative d = DerivativeOf(s, a, s->op[a][a], 0, s->psi_s[a][a], c, q, i0);
    float            w[FWI_MAX_RADIUS + 1];
    float *restrict  x = s->s[a] + c;
    for (PetscInt j = 1; j <= R; j++) w[j] = s->w[a][j];
    /* the axes as literals, as in StressPieceR */
    if (a == 0) {
#pragma GCC ivdep
      for (PetscInt i = 0; i < m; i++) x[i] = x[i] - Derive(&d, 0, 0, i, w, R, EL_CPML_NONE);
    } else {
#pragma GCC ivdep
      for (PetscInt i = 0; i < m; i++) x[i] = x[i] - Derive(&d, 1, 0, i, w, R, EL_CPML_NONE);
    }
  }
}

/* The stresses over cells [i0, i0 + m) of a row: the normal ones, then
   each shear stress (backwards the normal ones alone: each shear stress
   has a core of its own, ELBackStressCPU). */
STAGGERED_INLINE void StressPieceR(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L, unsigned surf, const ELRadii *rad, ELPass P, int K, PetscInt R, PetscInt D)
{
  const ptrdiff_t c = row + i0;

  if (P == EL_PASS_ADJOINT) NormalAdjointPieceR(s, c, q, i0, m, R, D);
  else NormalPieceR(s, c, q, i0, m, L, surf, rad, P, K, R, D);
  if (P == EL_PASS_BACK) return;
  /* the axes as literals: along axis 0 the CPML weights vary per cell */
  ShearPieceR(s, 0, 1, c, q, i0, m, L, rad, P, K == EL_KEEPS_RATES, R);
  if (D > 2) {
    ShearPieceR(s, 0, 2, c, q, i0, m, L, rad, P, K == EL_KEEPS_RATES, R);
    ShearPieceR(s, 1, 2, c, q, i0, m, L, rad, P, K == EL_KEEPS_RATES, R);
  }
}

/* A row's cells outside the layers go in a piece of their own only where
   there are this many: a piece's set-up (the tap pointers of up to nine
   derivatives) cost more than the CPML arithmetic it saved on 3D rows of
   128 such cells (3D 128^3 with 20 layer cells, 2 threads, 40 steps: 4.5 s
   as three pieces a row against 3.2 s as one layer piece), not on 2D rows
   of 1000 (1000^2, 300 steps: 1.26-1.52 s as three against 1.43-1.81 s). */
#define EL_PLAIN_MIN_CELLS 256

/* The cells [cut[0], cut[1]) of cells [lo, hi) of a row that lie outside
   the z layers, at the centres and the nodes alike (none where there are
   fewer than EL_PLAIN_MIN_CELLS); returns EL_CPML_OTHERS where the row
   lies in another axis's layers, else EL_CPML_NONE.  Those cells are a
   piece with that CPML, the rest pieces with z's too. */
static unsigned PlainCut(const ELState *s, const PetscInt q[3], PetscInt lo, PetscInt hi, PetscInt cut[2])
{
  unsigned others = EL_CPML_NONE;

  for (PetscInt a = 1; a < s->dim; a++)
    if (s->pb[a][q[a]] != 0 || s->hb[a][q[a]] != 0) others = EL_CPML_OTHERS;
  ELPlainCells(s, q, lo, hi, cut);
  if (cut[1] - cut[0] < EL_PLAIN_MIN_CELLS) cut[0] = cut[1] = hi;
  return others;
}

/* 2D's forward pieces on vectors of at most 256 bits where the build
   targets wider ones (CMakeLists.txt): their taps along the row are
   unaligned loads, on 512-bit vectors most split a cache line.  Same bits;
   2D 1000^2 6-10% faster on the AMD EPYC (Zen 5), where 3D's pieces lose
   11% (docs/performance.md, "Vector width"). */
#if defined(HALOFWI_NARROW_2D)
  #define EL_2D_VECTORS __attribute__((target("prefer-vector-width=256")))
#else
  #define EL_2D_VECTORS
#endif

/* Forward, v_a over a piece of a row with the CPML of the axes L, or (a
   < 0, the 2D plain cells) both velocities in one loop; D the dimension. */
STAGGERED_INLINE void VelocityPieceD(ELState *s, PetscInt a, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L, PetscInt D)
{
  if (a < 0) EL_WITH_VELOCITY_KEEP(s, STAGGERED_WITH_RADIUS(s->radius, VelocityPieceR(s, 0, 2, row, q, i0, m, EL_CPML_NONE, EL_PASS_FORWARD, K_, R_, 2)));
  else EL_WITH_VELOCITY_KEEP(s, EL_WITH_CPML(L, STAGGERED_WITH_RADIUS(s->radius, VelocityPieceR(s, a, 1, row, q, i0, m, L_, EL_PASS_FORWARD, K_, R_, D))));
}

static EL_2D_VECTORS void VelocityPiece2(ELState *s, PetscInt a, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L) { VelocityPieceD(s, a, row, q, i0, m, L, 2); }

static void VelocityPiece3(ELState *s, PetscInt a, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L) { VelocityPieceD(s, a, row, q, i0, m, L, 3); }

static void VelocityPiece(ELState *s, PetscInt a, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L)
{
  if (m) (s->dim == 2 ? VelocityPiece2 : VelocityPiece3)(s, a, row, q, i0, m, L);
}

/* A piece off the surfaces takes the literal 0 for surf, so that its pass
   is the plain formula; a piece on one is taken as a piece with every
   axis's CPML forward (backwards, in the core, none is in a layer). */
STAGGERED_INLINE void StressPieceD(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L, unsigned surf, const ELRadii *rad, ELPass P, PetscInt D)
{
  if (P == EL_PASS_BACK) EL_WITH_CENTRE_IMAGES(s, {
      if (surf) STAGGERED_WITH_RADIUS(s->radius, StressPieceR(s, row, q, i0, m, EL_CPML_NONE, surf, rad, EL_PASS_BACK, K_, R_, D))
      else STAGGERED_WITH_RADIUS(s->radius, StressPieceR(s, row, q, i0, m, EL_CPML_NONE, 0, rad, EL_PASS_BACK, K_, R_, D))
    });
  else EL_WITH_STRESS_KEEP(s, {
    if (surf) STAGGERED_WITH_RADIUS(s->radius, StressPieceR(s, row, q, i0, m, EL_CPML_ALL, surf, rad, EL_PASS_FORWARD, K_, R_, D))
    else EL_WITH_CPML(L, STAGGERED_WITH_RADIUS(s->radius, StressPieceR(s, row, q, i0, m, L_, 0, rad, EL_PASS_FORWARD, K_, R_, D)))
  });
}

static EL_2D_VECTORS void StressPiece2(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L, unsigned surf, const ELRadii *rad, ELPass P)
{
  StressPieceD(s, row, q, i0, m, L, surf, rad, P, 2);
}

static void StressPiece3(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L, unsigned surf, const ELRadii *rad, ELPass P)
{
  StressPieceD(s, row, q, i0, m, L, surf, rad, P, 3);
}

static void StressPiece(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, unsigned L, unsigned surf, const ELRadii *rad, ELPass P)
{
  if (m) (s->dim == 2 ? StressPiece2 : StressPiece3)(s, row, q, i0, m, L, surf, rad, P);
}

/* Pair p's shear stress backwards over cells [i0, i0 + m) of a row. */
static void BackShearPiece(ELState *s, PetscInt p, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, const ELRadii *rad)
{
  const PetscInt a = p == 2 ? 1 : 0, b = p == 0 ? 1 : 2;

  if (m) EL_WITH_IMAGE(s, EL_IMAGE_MU, STAGGERED_WITH_RADIUS(s->radius, ShearPieceR(s, a, b, row + i0, q, i0, m, EL_CPML_NONE, rad, EL_PASS_BACK, K_, R_)));
}

/* The free surfaces (a bit per axis) that cell i of the row from padded q
   lies on, and its stencils' radii (state.h: ELStencilRadius). */
static unsigned StencilsAt(const ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i, ELRadii *r)
{
  unsigned surf = 0;

  *r = FullRadii(s->radius);
  for (PetscInt a = 0; a < s->dim; a++) {
    const PetscInt qa = a ? q[a] : q[0] + i;
    r->n[a]           = ELStencilRadius(s, a, 0, qa, row + i);
    r->e[a]           = ELStencilRadius(s, a, 1, qa, row + i);
    if (ELSurfaceDistance(s, a, qa) == 0) surf |= 1u << a;
  }
  return surf;
}

/* The cells [lo, hi) of a row's n that lie outside every free surface's
   band (ELNearSurface): none of a row in the band of another axis. */
static void FullRange(const ELState *s, const PetscInt q[3], PetscInt n, PetscInt *lo, PetscInt *hi)
{
  const PetscInt R = s->radius;

  *lo = 0, *hi = n;
  for (PetscInt a = 1; a < s->dim; a++)
    if (ELSurfaceDistance(s, a, q[a]) < R) {
      *lo = *hi = n;
      return;
    }
  if (s->free_surface[0][0]) *lo = PetscMax(0, PetscMin(n, 2 * R - q[0]));
  if (s->free_surface[0][1]) *hi = PetscMax(*lo, PetscMin(n, s->n[0] - q[0]));
}

/* Cells [i0, i1) of a row in the surfaces' bands, in runs of the same
   surfaces and stencils, each a piece (forward with every axis's CPML,
   exact off the layers): of the stress stage (pair < 0), or of that pair's shear
   stress backwards. */
static void BandRuns(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt i1, ELPass P, PetscInt pair)
{
  for (PetscInt i = i0, e; i < i1; i = e) {
    ELRadii        r, x;
    const unsigned surf = StencilsAt(s, row, q, i, &r);
    for (e = i + 1; e < i1 && StencilsAt(s, row, q, e, &x) == surf && !memcmp(&x, &r, sizeof r); e++) {}
    if (pair < 0) StressPiece(s, row, q, i, e - i, EL_CPML_ALL, surf, &r, P);
    else BackShearPiece(s, pair, row, q, i, e - i, &r);
  }
}

/* Forward, a row's velocities: its plain cells (outside every layer) in a
   piece of their own, the rest with the CPML of their layers. */
static void VelocityRow(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt n)
{
  PetscInt        cut[2];
  const unsigned  others = PlainCut(s, q, 0, n, cut);
  const PetscBool both   = s->dim == 2 && !others; /* the plain cells' velocities in one loop */

  if (both) VelocityPiece(s, -1, row, q, cut[0], cut[1] - cut[0], EL_CPML_NONE);
  for (PetscInt a = 0; a < s->dim; a++) {
    if (!both) VelocityPiece(s, a, row, q, cut[0], cut[1] - cut[0], others);
    VelocityPiece(s, a, row, q, 0, cut[0], others | EL_CPML_Z);
    VelocityPiece(s, a, row, q, cut[1], n - cut[1], others | EL_CPML_Z);
  }
}

/* Forward and backwards, a row's stresses: its cells in a free surface's
   band (on it, or within reach of its narrowed stencils) in pieces of
   their own, the rest as VelocityRow's. */
static void StressRow(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt n, ELPass P)
{
  const ELRadii full = FullRadii(s->radius);
  PetscInt      lo, hi, cut[2];

  FullRange(s, q, n, &lo, &hi);
  BandRuns(s, row, q, 0, lo, P, -1);
  BandRuns(s, row, q, hi, n, P, -1);
  const unsigned others = PlainCut(s, q, lo, hi, cut);
  StressPiece(s, row, q, cut[0], cut[1] - cut[0], others, 0, &full, P);
  StressPiece(s, row, q, lo, cut[0] - lo, others | EL_CPML_Z, 0, &full, P);
  StressPiece(s, row, q, cut[1], hi - cut[1], others | EL_CPML_Z, 0, &full, P);
}

/* The adjoint's rows are one piece each: the layers and the free surfaces
   are in the operands (adjoint_cpu.c). */
static void AdjointVelocityRow(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt n)
{
  for (PetscInt a = 0; a < s->dim; a++) EL_WITH_DIM(s->dim, STAGGERED_WITH_RADIUS(s->radius, VelocityPieceR(s, a, 1, row, q, 0, n, EL_CPML_NONE, EL_PASS_ADJOINT, PETSC_FALSE, R_, D_)));
}

static void AdjointStressRow(ELState *s, ptrdiff_t row, const PetscInt q[3], PetscInt n)
{
  const ELRadii full = FullRadii(s->radius);

  EL_WITH_DIM(s->dim, STAGGERED_WITH_RADIUS(s->radius, StressPieceR(s, row, q, 0, n, EL_CPML_NONE, 0, &full, EL_PASS_ADJOINT, EL_KEEPS_NOTHING, R_, D_)));
}

/* The rows of box b: shared out among the threads (a pass of its own), or
   on the calling thread (a layer of a sweep). */
#define EL_ROWS(sweep, s, b, ...) \
  do { \
    if (sweep) { STAGGERED_ROWS_OF(s, b, __VA_ARGS__); } \
    else { STAGGERED_EACH_ROW(s, b, __VA_ARGS__); } \
  } while (0)

PetscErrorCode ELVelocityCPU(ELState *s, const Box *b)
{
  STAGGERED_EACH_ROW(s, b, VelocityRow(s, row, q, n));
  return 0;
}

PetscErrorCode ELStressCPU(ELState *s, const Box *b)
{
  STAGGERED_EACH_ROW(s, b, StressRow(s, row, q, n, EL_PASS_FORWARD));
  return 0;
}

PetscErrorCode ELAdjointVelocityCPU(ELState *s, const Box *b)
{
  STAGGERED_EACH_ROW(s, b, AdjointVelocityRow(s, row, q, n));
  return 0;
}

PetscErrorCode ELAdjointStressCPU(ELState *s, const Box *b)
{
  STAGGERED_EACH_ROW(s, b, AdjointStressRow(s, row, q, n));
  return 0;
}

/* The cells of box in field f's core that reverse step `step` (rec.wide,
   rec.keep: 1 the second of a pair) may change, in *b; false where there
   are none (support.h). */
static PetscBool BackCells(const ELState *s, PetscInt f, const Box *box, PetscInt step, Box *b)
{
  Box core;

  return BoxWithin(box, &s->rec->core[f], &core) && BoxWithin(&core, &s->rec->wide[step], b);
}

/* The boundary method's backward passes over each field's core in box b
   (reconstruct.c), where reverse step `step` may change it (BackCells),
   then 0 where its level's box leaves off: the normal stresses as the
   forward stage has them, the free surfaces' bands included; each shear
   stress and velocity in one piece a row (no cell of a core lies in a
   layer) but for the shear stresses' cells in a surface's band. */
static void BackStress(ELState *s, const Box *box, PetscInt step, PetscBool sweep)
{
  const ELRadii full = FullRadii(s->radius);
  const Box    *keep = &s->rec->keep[step];
  Box           b;

  if (BackCells(s, EL_SZZ, box, step, &b)) EL_ROWS(sweep, s, &b, {
      StressRow(s, row, q, n, EL_PASS_BACK);
      for (PetscInt a = 0; a < s->dim; a++) FieldSupportZeroRow(s->rec->f[EL_SZZ + a], row, b.lo[0], n, j, k, keep);
    });
  for (PetscInt p = 0; p < ELPairs(s->dim); p++) {
    if (!BackCells(s, EL_SZX + p, box, step, &b)) continue;
    EL_ROWS(sweep, s, &b, {
      PetscInt lo, hi;
      FullRange(s, q, n, &lo, &hi);
      BandRuns(s, row, q, 0, lo, EL_PASS_BACK, p);
      BandRuns(s, row, q, hi, n, EL_PASS_BACK, p);
      BackShearPiece(s, p, row, q, lo, hi - lo, &full);
      FieldSupportZeroRow(s->rec->f[EL_SZX + p], row, b.lo[0], n, j, k, keep);
    });
  }
}

static void BackVelocity(ELState *s, const Box *box, PetscInt step, PetscBool sweep)
{
  for (PetscInt a = 0; a < s->dim; a++) {
    Box b;
    if (!BackCells(s, EL_VZ + a, box, step, &b)) continue;
    EL_ROWS(sweep, s, &b, {
      EL_WITH_IMAGE(s, EL_IMAGE_BUOYANCY, EL_WITH_DIM(s->dim, STAGGERED_WITH_RADIUS(s->radius, VelocityPieceR(s, a, 1, row, q, 0, n, EL_CPML_NONE, EL_PASS_BACK, K_, R_, D_))));
      FieldSupportZeroRow(s->rec->f[EL_VZ + a], row, b.lo[0], n, j, k, &s->rec->keep[step]);
    });
  }
}

PetscErrorCode ELBackStressCPU(ELState *s, const Box *box)
{
  BackStress(s, box, 0, PETSC_FALSE);
  return 0;
}

PetscErrorCode ELBackVelocityCPU(ELState *s, const Box *box)
{
  BackVelocity(s, box, 0, PETSC_FALSE);
  return 0;
}

typedef struct {
  ELState             *s;
  const StaggeredPair *pair; /* NULL: one step */
} FusedSweep;

/* What a record of component c reads at cell (StaggeredPairRecordLayer). */
static float RecordAt(const void *state, PetscInt c, ptrdiff_t cell)
{
  const ELState *s = (const ELState *)state;

  return c ? s->v[c - 1][cell] : ELPressureAt(s, cell);
}

/* Once layer l's stresses of step n are stepped: step n's StepEnd there
   (an explosion's injection, the surface's normal stress zero), step n +
   1's pressure records and its stage 0's StageBegin (the stresses' images
   beyond the surface). */
static void StressTurnLayer(ELState *s, const StaggeredPair *pr, const Box *b, PetscInt l)
{
  if (s->source_kind == EL_SOURCE_PRESSURE)
    for (PetscInt i = pr->inject.cells.at[l]; i < pr->inject.cells.at[l + 1]; i++)
      for (PetscInt a = 0; a < s->dim; a++) s->s[a][pr->inject.cells.cell[i]] -= pr->inject.amount[i];
  STAGGERED_ROWS_OF(s, b, STAGGERED_SURFACE_ROW_Z(s, STAGGERED_ZERO_SURFACE, s->s[0], row, n));
  StaggeredPairRecordLayer(pr, 0, l, RecordAt, s);
  STAGGERED_ROWS_OF(s, b, {
    STAGGERED_SURFACE_ROW_Z(s, STAGGERED_MIRROR_CENTRES, s->s[0], row, n);
    for (PetscInt a = 1; a < s->dim; a++) STAGGERED_SURFACE_ROW_Z(s, STAGGERED_MIRROR_NODES_ODD, s->t[ELPair(0, a)], row, n);
  });
}

/* Before layer l's velocities of step n + 1, once every stress stencil of
   step n that reads them has: step n's force, if any, and step n + 1's
   velocity records. */
static void VelocityTurnLayer(ELState *s, const StaggeredPair *pr, PetscInt l)
{
  if (s->source_kind != EL_SOURCE_PRESSURE)
    for (PetscInt i = pr->inject.cells.at[l]; i < pr->inject.cells.at[l + 1]; i++) s->v[s->source_kind - EL_SOURCE_FORCE][pr->inject.cells.cell[i]] += pr->inject.amount[i];
  for (PetscInt c = 1; c <= s->dim; c++) StaggeredPairRecordLayer(pr, c, l, RecordAt, s);
}

/* Layer l of StaggeredFusedSweep: an even stage, each row's velocities,
   then its normal velocity past the free surfaces of axis 0 (the stress
   stage's StageBegin, row by row); an odd one, the stresses.  With a pair,
   step n's end and step n + 1's records, start and bands kept on the
   way. */
static void FusedLayer(void *ctx, PetscInt l, PetscInt stage)
{
  const FusedSweep *f = (const FusedSweep *)ctx;
  ELState          *s = f->s;
  const Box         b = StaggeredLayerBox(s->dim, s->n, l);

  if (f->pair && stage == 2) {
    VelocityTurnLayer(s, f->pair, l);
    StaggeredPairKeepLayer(f->pair, l);
  }
  STAGGERED_ROWS_OF(s, &b, {
    if (stage % 2) {
      StressRow(s, row, q, n, EL_PASS_FORWARD);
      continue;
    }
    VelocityRow(s, row, q, n);
    for (PetscInt side = 0; side < 2; side++)
      if (s->free_surface[0][side]) ELSurfaceVelocityRow(s, s->v[0], row, 1, n, side);
  });
  if (f->pair && stage == 1) StressTurnLayer(s, f->pair, &b, l);
}

PetscErrorCode ELFusedForwardCPU(ELState *s, const StaggeredPair *pair)
{
  FusedSweep f = {s, pair};

  StaggeredFusedSweep(s->n[s->dim - 1], s->radius, pair ? 4 : 2, FusedLayer, &f);
  return 0;
}

/* Layer l of a reverse step's sweep, in four stages, each R layers
   behind the one before, each row's passes in the stage loop's order
   (adjoint.c: its stage 0 undoes the stress stage, its stage 1 the
   velocity stage): (0) stage 0's operands and their values beyond the
   free surface; (1) the narrowed stencils' share and the velocities'
   adjoint, the boundary method's stresses run back, the layer's rows of
   their band put back (which begins on the core's last centre on the
   high side: after the stage) and their zero and images at the surface
   (ELReconstructionStresses, layer by layer); (2) stage 1's StageBegin: the
   normal velocity past the surface, its operands (over stage 0's, which
   (1) has read R layers on by then) and their values beyond it; (3) the
   stresses' adjoint and the boundary method's velocities run back.
   saved: the store's slot of the step (the stresses' band); step: 0, or
   1 for the second step of a pair (its support boxes). */
static void AdjointLayer(ELState *s, PetscInt l, PetscInt stage, float *saved, PetscInt step)
{
  const Box b = StaggeredLayerBox(s->dim, s->n, l);

  switch (stage) {
  case 0:
    STAGGERED_ROWS_OF(s, &b, {
      ELOperandsRow(s, 0, row, q, n);
      for (PetscInt side = 0; side < 2; side++)
        if (s->free_surface[0][side]) ELAdjointSurfaceRow(s, 0, 0, side, row, 1, n);
    });
    break;
  case 1:
    STAGGERED_ROWS_OF(s, &b, {
      for (PetscInt side = 0; side < 2; side++)
        if (s->free_surface[0][side] && s->radius > 1) ELNarrowedRow(s, 0, side, row, 1, n);
      AdjointVelocityRow(s, row, q, n);
    });
    if (s->rec) {
      BackStress(s, &b, step, PETSC_TRUE);
      ELReconstructionRestoreLayer(s, l, saved, PETSC_TRUE);
      STAGGERED_ROWS_OF(s, &b, {
        STAGGERED_SURFACE_ROW_Z(s, STAGGERED_ZERO_SURFACE, s->rec->f[EL_SZZ], row, n);
        STAGGERED_SURFACE_ROW_Z(s, STAGGERED_MIRROR_CENTRES, s->rec->f[EL_SZZ], row, n);
        for (PetscInt a = 1; a < s->dim; a++) STAGGERED_SURFACE_ROW_Z(s, STAGGERED_MIRROR_NODES_ODD, s->rec->f[EL_SZX + ELPair(0, a)], row, n);
      });
    }
    break;
  case 2:
    STAGGERED_ROWS_OF(s, &b, {
      STAGGERED_SURFACE_ROW_Z(s, STAGGERED_ZERO_PAST_SURFACE, s->v[0], row, n);
      ELOperandsRow(s, 1, row, q, n);
      for (PetscInt side = 0; side < 2; side++)
        if (s->free_surface[0][side]) ELAdjointSurfaceRow(s, 1, 0, side, row, 1, n);
    });
    break;
  default:
    STAGGERED_ROWS_OF(s, &b, AdjointStressRow(s, row, q, n));
    if (s->rec) BackVelocity(s, &b, step, PETSC_TRUE);
  }
}

typedef struct {
  ELState             *s;
  const ELReversePair *pair; /* NULL: one step */
} AdjointSweep;

/* Between two reverse steps on layer l, once step n's last stage has
   passed it (ELReversePair).  Nothing of step n reads what this writes on
   l any more: its operands are formed cell by cell R and 3R layers ahead
   (the velocities' from the adjoint velocities at their own cells), its
   adjoint stresses are written and not read, and its stages that run the
   fields back read the velocities 2R layers ahead, but for its last, which
   reads a velocity run back and its adjoint at their own cell alone (the
   stresses, which that stage still reads R layers on, are
   UnsourceLayer's).  So step n's residuals go into the adjoint fields
   here, a pressure's and a velocity's alike, and step n - 1's force comes
   out of the velocities run back, before their band's values beyond the
   surface, as ELReconstructionUndoStepEnd takes it out before them. */
static void ReverseTurnLayer(ELState *s, const ELReversePair *pr, const Box *b, PetscInt l)
{
  const StaggeredLayerCells *sc = &pr->r.source.cells;

  for (PetscInt k = 0; k < pr->r.nresidual; k++) {
    const PetscInt c = pr->r.component[k];
    if (c) StaggeredReverseResidualLayer(&pr->r, k, l, s->v[c - 1]);
    else
      for (PetscInt a = 0; a < s->dim; a++) StaggeredReverseResidualLayer(&pr->r, k, l, s->s[a]);
  }
  ELReconstructionRestoreLayer(s, l, pr->r.saved[0], PETSC_FALSE);
  STAGGERED_ROWS_OF(s, b, {
    STAGGERED_SURFACE_ROW_Z(s, STAGGERED_ZERO_SURFACE, s->s[0], row, n);
    STAGGERED_SURFACE_ROW_Z(s, STAGGERED_ZERO_PAST_SURFACE, s->t[ELPair(0, 1)], row, n);
  });
  for (PetscInt i = sc->at[l]; i < sc->at[l + 1]; i++) ELSourceImageRow(s, pr->r.source.map, sc->row[i], pr->wav);
  if (s->source_kind != EL_SOURCE_PRESSURE) {
    float *const v = s->rec->f[EL_VZ + s->source_kind - EL_SOURCE_FORCE];
    for (PetscInt i = sc->at[l]; i < sc->at[l + 1]; i++) v[sc->cell[i]] = v[sc->cell[i]] - pr->r.source.amount[i];
  }
  STAGGERED_ROWS_OF(s, b, {
    for (PetscInt side = 0; side < 2; side++)
      if (s->free_surface[0][side]) ELSurfaceVelocityRow(s, s->rec->f[EL_VZ], row, 1, n, side);
  });
}

/* Step n - 1's explosion out of the normal stresses run back on layer l,
   before its stresses are run back there: step n's velocities run back
   have read them by then (R layers on).  A force is ReverseTurnLayer's. */
static void UnsourceLayer(ELState *s, const ELReversePair *pr, PetscInt l)
{
  const StaggeredLayerCells *sc = &pr->r.source.cells;

  if (s->source_kind != EL_SOURCE_PRESSURE) return;
  for (PetscInt i = sc->at[l]; i < sc->at[l + 1]; i++)
    for (PetscInt a = 0; a < s->dim; a++) s->rec->f[EL_SZZ + a][sc->cell[i]] = s->rec->f[EL_SZZ + a][sc->cell[i]] + pr->r.source.amount[i];
}

/* Layer l of the sweep: AdjointLayer's four stages, with a pair step n's
   then step n - 1's, what comes between them on the way. */
static void AdjointSweepLayer(void *ctx, PetscInt l, PetscInt stage)
{
  const AdjointSweep  *a  = (const AdjointSweep *)ctx;
  const ELReversePair *pr = a->pair;
  ELState             *s  = a->s;

  if (pr && stage == 5) UnsourceLayer(s, pr, l);
  AdjointLayer(s, l, stage % 4, pr ? pr->r.saved[stage / 4] : s->rec ? s->rec->saved : NULL, stage / 4);
  if (pr && stage == 3) {
    const Box b = StaggeredLayerBox(s->dim, s->n, l);
    ReverseTurnLayer(s, pr, &b, l);
  }
}

PetscErrorCode ELFusedAdjointCPU(ELState *s, const ELReversePair *pair)
{
  AdjointSweep a = {s, pair};

  StaggeredFusedSweep(s->n[s->dim - 1], s->radius, pair ? 8 : 4, AdjointSweepLayer, &a);
  return 0;
}
