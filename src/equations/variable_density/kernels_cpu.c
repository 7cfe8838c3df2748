/* The variable-density stages on the CPU (state.h): each cell's update
   reads its stencil alone, in a fixed order, so every decomposition gives
   the same bits.  A row's cells outside every absorbing layer take one
   fused pass (the stencil's sum in registers, the radius a literal so that
   it unrolls and the loop along the row is vector code); cells in a layer
   take the derivative, its CPML memory and the update as passes of their
   own.  Both paths sum each cell's terms in the same order. */
#include "equations/variable_density/kernels.h"
#include "equations/staggered_cpu.h"

/* A derivative's CPML weights and memory along a row: the weights per
   cell along axis 0, one value for the whole row along the others. */
typedef struct {
  const float *a, *b;
  float       *psi;
} RowLayer;

/* The velocity update from g: forward v -= B g, adjoint v += B g (B: the
   face's dt / rho). */
STAGGERED_INLINE float VelocityUpdate(float v, float B, float g, PetscBool adjoint) { return adjoint ? v + B * g : v - B * g; }

/* What a pass does with the term it forms besides the update: keep[i] =
   t (the store's row; a literal NULL where not wanted), and where image
   (a literal, so that no loop tests it: a test of img in the loop kept
   GCC from vectorising it) img[i] += x[i] t (the boundary method's
   image). */
typedef struct {
  float *keep, *img;
  const float *x;
  PetscBool image;
} RowTerm;

/* One pass of the velocity along st over n cells: g = D+ f (with its CPML
   memory where layer is given, a literal NULL elsewhere; its weights per
   cell where lstep is 1, one for the row where 0), taken by term, v
   updated.  No cell's update reads another's: without ivdep GCC checks
   the pointers at run time and, unable to prove them apart, runs scalar
   code. */
STAGGERED_INLINE void RowVelocityR(PetscInt n, PetscInt R, const float *restrict c, ptrdiff_t st, const float *restrict f, const float *restrict bdt, float *restrict v,
                            RowTerm term, PetscBool adjoint, const RowLayer *layer, PetscInt lstep)
{
  float *restrict keep = term.keep, *restrict img = term.img;
  const float *restrict x = term.x;
  float w[FWI_MAX_RADIUS + 1]; /* a copy the stores cannot alias */
  for (PetscInt m = 1; m <= R; m++) w[m] = c[m];
#pragma GCC ivdep
  for (PetscInt i = 0; i < n; i++) {
    float g = StaggeredStencil(f + i, st, 1, w, R);
    if (layer) g = StaggeredCpml(g, layer->a[i * lstep], layer->b[i * lstep], &layer->psi[i]);
    if (keep) keep[i] = g;
    if (term.image) img[i] += x[i] * g;
    v[i] = VelocityUpdate(v[i], VDFaceBuoyancy(bdt, i, st), g, adjoint);
  }
}

/* The velocities along both axes of n cells of a 2D row in one pass,
   each as RowVelocityR's without CPML: the two stencils share the loads of
   p's row and of the buoyancy, and the loop.  Forward (back a literal
   PETSC_FALSE) outside every layer, keep (a literal NULL where the run
   keeps nothing) taking each axis's gradient; or with the adjoint's sign
   (back PETSC_TRUE): the adjoint's velocities from u where their operands
   are u itself, and the boundary method's backward pass in the core, each
   axis imaging its term with x[a], img[a] += x[a] g (img a literal NULL
   where nothing is imaged). */
STAGGERED_INLINE void RowVelocities2R(PetscInt n, PetscInt R, const float c[3][FWI_MAX_RADIUS + 1], ptrdiff_t st, const float *restrict f, const float *restrict bdt,
                                      float *const v[2], float *const *keep, PetscBool back, float *const img[2], const float *const x[2])
{
  float w[2][FWI_MAX_RADIUS + 1]; /* a copy the stores cannot alias */
  for (PetscInt a = 0; a < 2; a++)
    for (PetscInt m = 1; m <= R; m++) w[a][m] = c[a][m];
#pragma GCC ivdep /* as in RowVelocityR */
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt a = 0; a < 2; a++) {
      const ptrdiff_t sa = a ? st : 1; /* a literal unit stride: offsets, not pointers */
      const float     g  = StaggeredStencil(f + i, sa, 1, w[a], R);
      if (keep) keep[a][i] = g;
      if (img) img[a][i] += x[a][i] * g;
      v[a][i] = VelocityUpdate(v[a][i], VDFaceBuoyancy(bdt, i, sa), g, back);
    }
}

/* One pass of the pressure over n cells: h = sum_a D-_a f[a] (with every
   axis's CPML memory where layer is given, a literal NULL elsewhere),
   taken by term, forward p -= kdt h, adjoint p += kdt h. */
STAGGERED_INLINE void RowPressureR(PetscInt n, PetscInt R, PetscInt dim, const float c[3][FWI_MAX_RADIUS + 1], const ptrdiff_t st[3], const float *const f[3],
                            const float *restrict kdt, float *restrict p, RowTerm term, PetscBool adjoint, const RowLayer *layer)
{
  float *restrict keep = term.keep, *restrict img = term.img;
  const float *restrict x = term.x;
  float w[3][FWI_MAX_RADIUS + 1]; /* a copy the stores cannot alias */
  for (PetscInt a = 0; a < dim; a++)
    for (PetscInt m = 1; m <= R; m++) w[a][m] = c[a][m];
#pragma GCC ivdep /* as in RowVelocityR */
  for (PetscInt i = 0; i < n; i++) {
    float h = 0;
    for (PetscInt a = 0; a < dim; a++) {
      float t = StaggeredStencil(f[a] + i, a ? st[a] : 1, 0, w[a], R); /* a literal unit stride: offsets, not pointers */
      if (layer) t = StaggeredCpml(t, layer[a].a[a ? 0 : i], layer[a].b[a ? 0 : i], &layer[a].psi[i]);
      h = a ? h + t : t; /* = 0 + t: a sum from 0 is never -0 */
    }
    if (keep) keep[i] = h;
    if (term.image) img[i] += x[i] * h;
    p[i] = adjoint ? p[i] + kdt[i] * h : p[i] - kdt[i] * h;
  }
}

/* Calls CALL with D_ the dimension as a literal; VD_DIM_ADJOINT also with
   A_ the adjoint flag as one. */
#define VD_WITH_DIM(dim, CALL) \
  do { \
    if ((dim) == 2) { const PetscInt D_ = 2; CALL; } \
    else if ((dim) == 3) { const PetscInt D_ = 3; CALL; } \
    else { const PetscInt D_ = 1; CALL; } \
  } while (0)
#define VD_DIM_ADJOINT(dim, adjoint, CALL) \
  do { \
    if (adjoint) { const PetscBool A_ = PETSC_TRUE; VD_WITH_DIM(dim, CALL); } \
    else { const PetscBool A_ = PETSC_FALSE; VD_WITH_DIM(dim, CALL); } \
  } while (0)

/* The cells [cut[0], cut[1]) of a row (first cell at padded q[0], n cells)
   that lie outside the layers of every axis in axes (a bit each) of the
   profile nodes (0: centres, 1: the half nodes); the row's other cells lie
   in a layer of one of them.  Along axis 0 the layer-free cells are the
   padded range plain[nodes]; along the others a row lies in a layer or
   not. */
static void PlainCut(const VDState *s, PetscInt nodes, unsigned axes, const PetscInt q[3], PetscInt n, PetscInt cut[2])
{
  cut[0] = 0;
  cut[1] = n;
  for (PetscInt a = 1; a < s->dim; a++)
    if (axes >> a & 1 && (nodes ? s->hb : s->pb)[a][q[a]] != 0) cut[0] = cut[1] = n;
  if (axes & 1 && cut[0] < n) StaggeredRowRange(s->plain[0][nodes][0], s->plain[0][nodes][1], q[0], 0, n, cut);
}

/* The cells [cut[0], cut[1]) of a row (first cell at padded q[0], n
   cells) that lie shrink cells or more inside the range along axis a
   where the adjoint derivatives of stage's operands read the field itself
   (VDState.direct): with shrink 0 the cells that read it, with shrink R
   those whose d nothing reads. */
static void DirectCut(const VDState *s, PetscInt stage, PetscInt a, const PetscInt q[3], PetscInt n, PetscInt shrink, PetscInt cut[2])
{
  const PetscInt lo = s->direct[stage][a][0] + shrink, hi = s->direct[stage][a][1] - shrink;

  if (a) { /* a row lies in the range or not */
    cut[0] = 0;
    cut[1] = q[a] >= lo && q[a] < hi ? n : 0;
    return;
  }
  StaggeredRowRange(lo, hi, q[0], 0, n, cut);
}

/* The CPML weights and memory of cells [i0, ...) of a row along axis a
   (q: the row's padded coordinates) at the centres or the half nodes: the
   memory in a's slab where the cells lie in a's layers (along axis 0 a
   piece lies on one side of the plain range, and the slab holds both
   sides' cells of either profile), else a row of psi_none
   (StaggeredNoMemory). */
static RowLayer LayerOf(const VDState *s, PetscInt nodes, PetscInt a, const PetscInt q[3], PetscInt i0)
{
  const PetscInt w     = q[a] + (a ? 0 : i0);
  const PetscInt at[3] = {q[0] + i0, q[1], q[2]};
  const int      in    = StaggeredSlabHolds(&s->slab[a], w) && (a || w < s->plain[0][nodes][0] || w >= s->plain[0][nodes][1]);
  float *const   psi   = nodes ? s->psi_p[a] : s->psi_v[a];

  return (RowLayer){nodes ? &s->ha[a][w] : &s->pa[a][w], nodes ? &s->hb[a][w] : &s->pb[a][w],
                    in ? psi + StaggeredSlabIndex(&s->slab[a], at) : StaggeredNoMemory(s->psi_none, s->padded[0], a) + i0};
}

/* The velocity along axis a of cells [i0, i0 + m) of a row: forward from
   p, with the CPML memory where layer (the pieces of the row in a layer),
   the gradient kept in the store's row where the run keeps one; adjoint
   from d, or where direct from u (p) itself (DirectCut). */
static void VelocityPiece(VDState *s, PetscInt a, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, PetscBool adjoint, PetscBool layer, PetscBool direct)
{
  const ptrdiff_t c    = row + i0, st = s->stride[a];
  const float    *f    = (adjoint && !direct ? s->d[a] : s->p) + c;
  float          *keep = adjoint || !s->keep || !s->density_image ? NULL : s->keep + (1 + a) * s->ncells + c; /* kept for dJ/drho alone */
  RowLayer        l = {NULL, NULL, NULL};

  if (!m) return;
  if (layer) l = LayerOf(s, 1, a, q, i0); /* a few dozen instructions a piece: 2% of a 2D 1000^2 forward when taken for every piece */
  /* each a pass of its own, with literals for what varies: along axis 0
     the stride 1 (offsets, not pointers) and the weights per cell; the
     adjoint neither keeps nor has layers */
#define VD_VELOCITY(ST, KEEP, ADJOINT, LAYER, LSTEP) \
  STAGGERED_WITH_RADIUS(s->radius, RowVelocityR(m, R_, s->w[a], ST, f, s->bdt + c, s->v[a] + c, (RowTerm){KEEP, NULL, NULL, PETSC_FALSE}, ADJOINT, LAYER, LSTEP))
  if (adjoint && !a) VD_VELOCITY(1, NULL, PETSC_TRUE, NULL, 0)
  else if (adjoint) VD_VELOCITY(st, NULL, PETSC_TRUE, NULL, 0)
  else if (!layer && !a) VD_VELOCITY(1, keep, PETSC_FALSE, NULL, 0)
  else if (!layer) VD_VELOCITY(st, keep, PETSC_FALSE, NULL, 0)
  else if (a) VD_VELOCITY(st, keep, PETSC_FALSE, &l, 0)
  else VD_VELOCITY(1, keep, PETSC_FALSE, &l, 1)
#undef VD_VELOCITY
}

/* The velocities of cells [i0, i0 + m) of a 2D row in one pass
   (RowVelocities2R): forward outside every layer, the gradients kept in
   the store's rows where the run keeps them; adjoint from u where both
   axes' operands are u itself. */
static void VelocitiesPlain2(VDState *s, ptrdiff_t row, PetscInt i0, PetscInt m, PetscBool adjoint)
{
  const ptrdiff_t c = row + i0;
  float          *v[2], *keep[2];

  for (PetscInt a = 0; a < 2; a++) {
    v[a]    = s->v[a] + c;
    keep[a] = s->keep && s->density_image ? s->keep + (1 + a) * s->ncells + c : NULL; /* as VelocityPiece's */
  }

  /* keep and the sign literals, so that no loop tests them */
  STAGGERED_WITH_RADIUS(s->radius, if (adjoint) RowVelocities2R(m, R_, s->w, s->stride[1], s->p + c, s->bdt + c, v, NULL, PETSC_TRUE, NULL, NULL);
                        else if (keep[0]) RowVelocities2R(m, R_, s->w, s->stride[1], s->p + c, s->bdt + c, v, keep, PETSC_FALSE, NULL, NULL);
                        else RowVelocities2R(m, R_, s->w, s->stride[1], s->p + c, s->bdt + c, v, NULL, PETSC_FALSE, NULL, NULL));
}

/* The pressure of cells [i0, i0 + m) of a row, as VelocityPiece; the
   adjoint reads w_a (v[a]) itself along the axes a of direct (a bit
   each). */
static void PressurePiece(VDState *s, ptrdiff_t row, const PetscInt q[3], PetscInt i0, PetscInt m, PetscBool adjoint, PetscBool layer, unsigned direct)
{
  const ptrdiff_t c = row + i0;
  const float    *f[3];
  float          *keep = adjoint || !s->keep ? NULL : s->keep + c;
  RowLayer        l[3];

  if (!m) return;
  for (PetscInt a = 0; a < s->dim; a++) {
    f[a] = (adjoint && !(direct >> a & 1) ? s->d[a] : s->v[a]) + c;
    if (layer && !adjoint) l[a] = LayerOf(s, 0, a, q, i0); /* as in VelocityPiece */
  }
  VD_DIM_ADJOINT(s->dim, adjoint, {
    if (A_ || !layer) STAGGERED_WITH_RADIUS(s->radius, RowPressureR(m, R_, D_, s->w, s->stride, f, s->kdt + c, s->p + c, (RowTerm){keep, NULL, NULL, PETSC_FALSE}, A_, NULL))
    else STAGGERED_WITH_RADIUS(s->radius, RowPressureR(m, R_, D_, s->w, s->stride, f, s->kdt + c, s->p + c, (RowTerm){keep, NULL, NULL, PETSC_FALSE}, A_, l))
  });
}

/* Forward, the derivatives of p (stage 0) or v (stage 1) with their CPML
   memory, the terms written to the store where the run keeps them;
   adjoint, the derivatives of d alone, added with the other sign.  A row
   goes in pieces: in 2D the cells outside every axis's layers first, both
   axes in one pass; then each axis's other cells outside its layers, then
   those in them. */
static void VelocityRow(VDState *s, ptrdiff_t row, const PetscInt q[3], PetscInt n, PetscBool adjoint)
{
  PetscInt cut[3][2], all[2] = {0, n}; /* all: the cells in every axis's middle piece */

  /* the middle pieces: forward the cells outside the axis's layers, the
     adjoint those whose operand is u itself (DirectCut) */
  for (PetscInt a = 0; a < s->dim; a++) {
    if (adjoint) DirectCut(s, 0, a, q, n, 0, cut[a]);
    else PlainCut(s, 1, 1u << a, q, n, cut[a]);
    all[0] = PetscMax(all[0], cut[a][0]);
    all[1] = PetscMin(all[1], cut[a][1]);
  }
  /* in 3D, whose rows are short, the further pieces' set-up costs more
     than the shared loads save (docs/numerics.md) */
  const PetscBool together = s->dim == 2 && all[0] < all[1];

  if (together) VelocitiesPlain2(s, row, all[0], all[1] - all[0], adjoint);
  for (PetscInt a = 0; a < s->dim; a++) {
    /* the axis's middle cells on either side of those, then its others:
       forward in its layers, the adjoint from d */
    const PetscInt lo = together ? all[0] : cut[a][1], hi = together ? all[1] : cut[a][1];
    VelocityPiece(s, a, row, q, cut[a][0], lo - cut[a][0], adjoint, PETSC_FALSE, adjoint);
    VelocityPiece(s, a, row, q, hi, cut[a][1] - hi, adjoint, PETSC_FALSE, adjoint);
    VelocityPiece(s, a, row, q, 0, cut[a][0], adjoint, !adjoint, PETSC_FALSE);
    VelocityPiece(s, a, row, q, cut[a][1], n - cut[a][1], adjoint, !adjoint, PETSC_FALSE);
  }
}

/* The pressure's pieces lie each on one side of axis 0's plain range
   (LayerOf), the middle one in a layer where the row lies in another
   axis's. */
static void PressureRow(VDState *s, ptrdiff_t row, const PetscInt q[3], PetscInt n, PetscBool adjoint)
{
  PetscInt cut[2], across[2];

  if (adjoint) { /* from d, from w_a itself where DirectCut: along axis 0 the middle piece, along the others the row or not */
    unsigned rows = 0;
    for (PetscInt a = 1; a < s->dim; a++) {
      DirectCut(s, 1, a, q, n, 0, across);
      if (across[1] > across[0]) rows |= 1u << a;
    }
    DirectCut(s, 1, 0, q, n, 0, cut);
    PressurePiece(s, row, q, 0, cut[0], PETSC_TRUE, PETSC_FALSE, rows);
    PressurePiece(s, row, q, cut[0], cut[1] - cut[0], PETSC_TRUE, PETSC_FALSE, rows | 1u);
    PressurePiece(s, row, q, cut[1], n - cut[1], PETSC_TRUE, PETSC_FALSE, rows);
    return;
  }
  PlainCut(s, 0, 1u, q, n, cut);
  PlainCut(s, 0, ((1u << s->dim) - 1) & ~1u, q, n, across);
  PressurePiece(s, row, q, cut[0], cut[1] - cut[0], PETSC_FALSE, across[0] == across[1] ? PETSC_TRUE : PETSC_FALSE, 0);
  PressurePiece(s, row, q, 0, cut[0], PETSC_FALSE, PETSC_TRUE, 0);
  PressurePiece(s, row, q, cut[1], n - cut[1], PETSC_FALSE, PETSC_TRUE, 0);
}

PetscErrorCode VDVelocityCPU(VDState *s, const Box *b, PetscBool adjoint)
{
  STAGGERED_EACH_ROW(s, b, VelocityRow(s, row, q, n, adjoint));
  return 0;
}

PetscErrorCode VDPressureCPU(VDState *s, const Box *b, PetscBool adjoint)
{
  STAGGERED_EACH_ROW(s, b, PressureRow(s, row, q, n, adjoint));
  return 0;
}

typedef struct {
  VDState             *s;
  const StaggeredPair *pair; /* NULL: one step */
} FusedSweep;

/* What a record of component c reads at cell (StaggeredPairRecordLayer). */
static float RecordAt(const void *state, PetscInt c, ptrdiff_t cell)
{
  const VDState *s = (const VDState *)state;

  return c ? s->v[c - 1][cell] : s->p[cell];
}

/* Step n's StepEnd on layer l, step n + 1's pressure records and its
   stage 0's StageBegin, once the layer's pressure is stepped. */
static void StepTurnLayer(VDState *s, const StaggeredPair *pr, const Box *b, PetscInt l)
{
  for (PetscInt i = pr->inject.cells.at[l]; i < pr->inject.cells.at[l + 1]; i++) s->p[pr->inject.cells.cell[i]] += pr->inject.amount[i];
  STAGGERED_ROWS_OF(s, b, STAGGERED_SURFACE_ROW_Z(s, STAGGERED_ZERO_SURFACE, s->p, row, n));
  StaggeredPairRecordLayer(pr, 0, l, RecordAt, s);
  STAGGERED_ROWS_OF(s, b, STAGGERED_SURFACE_ROW_Z(s, STAGGERED_MIRROR_CENTRES, s->p, row, n));
}

/* Layer l of StaggeredFusedSweep: an even stage, each row's velocities,
   the normal one then mirrored beyond the free surfaces of axis 0 (the
   pressure stage's StageBegin, row by row); an odd one, the pressure.
   With a pair, step n's end and step n + 1's records and bands kept on
   the way. */
static void FusedLayer(void *ctx, PetscInt l, PetscInt stage)
{
  const FusedSweep *f = (const FusedSweep *)ctx;
  VDState          *s = f->s;
  const Box         b = StaggeredLayerBox(s->dim, s->n, l);

  if (f->pair && stage == 2) StaggeredPairKeepLayer(f->pair, l);
  STAGGERED_ROWS_OF(s, &b, {
    if (stage % 2) {
      PressureRow(s, row, q, n, PETSC_FALSE);
      continue;
    }
    VelocityRow(s, row, q, n, PETSC_FALSE);
    STAGGERED_SURFACE_ROW_Z(s, STAGGERED_MIRROR_NODES, s->v[0], row, n);
  });
  if (!f->pair) return;
  if (stage == 0)
    for (PetscInt c = 1; c <= s->dim; c++) StaggeredPairRecordLayer(f->pair, c, l, RecordAt, s);
  if (stage == 1) StepTurnLayer(s, f->pair, &b, l);
}

PetscErrorCode VDFusedForwardCPU(VDState *s, const StaggeredPair *pair)
{
  FusedSweep f = {s, pair};

  StaggeredFusedSweep(s->n[s->dim - 1], s->radius, pair ? 4 : 2, FusedLayer, &f);
  return 0;
}

/* The adjoint CPML memory (l.psi) of n cells of a row in a layer, and
   the operand d of the derivative along the layer's axis, from x
   (StaggeredCpmlAdjoint; l's weights per cell where bstep is 1, one for
   the row where 0). */
static void OperandLayer(PetscInt n, const float *restrict x, RowLayer l, PetscInt bstep, float *restrict d)
{
  const float *restrict ca = l.a, *restrict cb = l.b;
  float *restrict       m = l.psi;

#pragma GCC ivdep
  for (PetscInt i = 0; i < n; i++) d[i] = StaggeredCpmlAdjoint(x[i], ca[i * bstep], cb[i * bstep], &m[i]);
}

/* img += x y over n cells. */
static void ImageSum(PetscInt n, const float *restrict x, const float *restrict y, float *restrict img)
{
#pragma GCC ivdep
  for (PetscInt i = 0; i < n; i++) img[i] += x[i] * y[i];
}

/* Stage 0 at the centres (x: u, the CPML memory psi_v, the image of K from
   the stored divergence), stage 1 on the nodes (x: w_a, psi_p, the image
   of each face's buoyancy from the stored gradient; the boundary method
   stores none, and images as it runs the fields back): d = x outside the
   layers of a, and in them d = x - a (m - x), m = b (m - x). */
static void OperandsRow(VDState *s, PetscInt stage, ptrdiff_t row, const PetscInt q[3], PetscInt n)
{
  if (stage == 0 && s->keep) ImageSum(n, s->p + row, s->keep + row, s->image_k + row);
  for (PetscInt a = 0; a < s->dim; a++) {
    const float *const x = (stage ? s->v[a] : s->p) + row;
    float *const       d = s->d[a] + row;
    PetscInt           cut[2], skip[2];
    if (stage && s->keep && s->density_image) ImageSum(n, x, s->keep + (1 + a) * s->ncells + row, s->image_b[a] + row);
    PlainCut(s, stage, 1u << a, q, n, cut);
    DirectCut(s, stage, a, q, n, s->radius, skip); /* within cut, or empty */
    skip[0] = PetscMax(cut[0], PetscMin(cut[1], skip[0]));
    skip[1] = PetscMax(skip[0], PetscMin(cut[1], skip[1]));
    PetscArraycpy(d + cut[0], x + cut[0], skip[0] - cut[0]);
    PetscArraycpy(d + skip[1], x + skip[1], cut[1] - skip[1]);
    /* LayerOf only where a piece has cells: most rows lie outside the
       layers of the axes other than 0 */
    if (cut[0]) OperandLayer(cut[0], x, LayerOf(s, stage, a, q, 0), a ? 0 : 1, d);
    if (cut[1] < n) OperandLayer(n - cut[1], x + cut[1], LayerOf(s, stage, a, q, cut[1]), a ? 0 : 1, d + cut[1]);
  }
}

PetscErrorCode VDAdjointOperandsCPU(VDState *s, PetscInt stage)
{
  const Box all = {{0, 0, 0}, {s->n[0], s->n[1], s->n[2]}, 0};

  STAGGERED_EACH_ROW(s, &all, OperandsRow(s, stage, row, q, n));
  return 0;
}

/* The forward scheme's passes with the adjoint's sign, on the fields run
   backwards, each imaging its term with the adjoint field (u = K dt p~ at
   the centres, w_a = B_a v~_a on the nodes), which the stage leaves as it
   is: a row of the pressure's core, or of axis a's velocity's (imaged
   only where the density's gradient is wanted). */
static void ReconstructPressureRow(VDState *s, ptrdiff_t row, PetscInt n)
{
  const float *f[3] = {NULL, NULL, NULL};

  for (PetscInt a = 0; a < s->dim; a++) f[a] = s->rec.v[a] + row;
  VD_WITH_DIM(s->dim, STAGGERED_WITH_RADIUS(s->radius, RowPressureR(n, R_, D_, s->w, s->stride, f, s->kdt + row, s->rec.p + row, (RowTerm){NULL, s->image_k + row, s->p + row, PETSC_TRUE},
                                                             PETSC_TRUE, NULL)));
}

static void ReconstructVelocityRow(VDState *s, PetscInt a, ptrdiff_t row, PetscInt n)
{
  const float *const f = s->rec.p + row, *const bdt = s->bdt + row;
  float *const       v = s->rec.v[a] + row;

  /* the image flag and axis 0's unit stride as literals */
#define VD_BACK_VELOCITY(ST, TERM) STAGGERED_WITH_RADIUS(s->radius, RowVelocityR(n, R_, s->w[a], ST, f, bdt, v, TERM, PETSC_TRUE, NULL, 0))
  if (s->density_image) {
    const RowTerm term = {NULL, s->image_b[a] + row, s->v[a] + row, PETSC_TRUE};
    if (a) VD_BACK_VELOCITY(s->stride[a], term)
    else VD_BACK_VELOCITY(1, term)
  } else if (a) VD_BACK_VELOCITY(s->stride[a], ((RowTerm){NULL, NULL, NULL, PETSC_FALSE}))
  else VD_BACK_VELOCITY(1, ((RowTerm){NULL, NULL, NULL, PETSC_FALSE}))
#undef VD_BACK_VELOCITY
}

/* The pressure run back over the cells of box in the core that reverse
   step `step` (rec.wide, rec.keep: 1 the second of a pair) may change,
   then 0 where its level's box leaves off (support.h). */
static void ReconstructPressure(VDState *s, const Box *box, PetscInt step, PetscBool threads)
{
  Box core, b;

  if (!BoxWithin(box, &s->rec.pcore, &core) || !BoxWithin(&core, &s->rec.wide[step], &b)) return;
  STAGGERED_ROWS_THREADED(threads, s, &b, {
    ReconstructPressureRow(s, row, n);
    FieldSupportZeroRow(s->rec.p, row, b.lo[0], n, j, k, &s->rec.keep[step]);
  });
}

PetscErrorCode VDReconstructPressureCPU(VDState *s, const Box *box)
{
  ReconstructPressure(s, box, 0, PETSC_TRUE);
  return 0;
}

/* The first m cells of a 2D row of both velocities' cores (from padded
   index c), both run back in one pass (RowVelocities2R). */
static void ReconstructVelocitiesRow2(VDState *s, ptrdiff_t c, PetscInt m)
{
  float *const v[2] = {s->rec.v[0] + c, s->rec.v[1] + c};
  const float *x[2] = {s->v[0] + c, s->v[1] + c};

  if (s->density_image) {
    float *const img[2] = {s->image_b[0] + c, s->image_b[1] + c};
    STAGGERED_WITH_RADIUS(s->radius, RowVelocities2R(m, R_, s->w, s->stride[1], s->rec.p + c, s->bdt + c, v, NULL, PETSC_TRUE, img, x))
  } else STAGGERED_WITH_RADIUS(s->radius, RowVelocities2R(m, R_, s->w, s->stride[1], s->rec.p + c, s->bdt + c, v, NULL, PETSC_TRUE, NULL, NULL));
}

/* The velocities run back over box: in 2D, where the box holds the same
   layers (along axis 1) of both axes' cores, as a layer of the sweep
   does, each row in one pass over the cells the cores share (along axis 0
   both begin at the same cell, axis 0's ending one short: reconstruct.c),
   axis 1's last cell on its own; otherwise (the stage loop's whole core,
   whose axis 1 ends a layer short, and 3D) an axis at a time.  Each cell's
   arithmetic is the same either way.  Only the cells reverse step `step`
   may change, then 0 where its level's box leaves off, as
   ReconstructPressure. */
static void ReconstructVelocities(VDState *s, const Box *box, PetscInt step, PetscBool threads)
{
  const Box *keep = &s->rec.keep[step];
  Box        core[3];
  PetscBool  in[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};

  for (PetscInt a = 0; a < s->dim; a++) {
    Box c;
    in[a] = BoxWithin(box, &s->rec.vcore[a], &c) && BoxWithin(&c, &s->rec.wide[step], &core[a]); /* as ReconstructPressure's */
  }
  if (s->dim == 2 && in[0] && in[1] && core[0].lo[0] == core[1].lo[0] && core[0].hi[0] <= core[1].hi[0] && core[0].lo[1] == core[1].lo[1] && core[0].hi[1] == core[1].hi[1]) {
    const PetscInt both = core[0].hi[0] - core[0].lo[0];
    STAGGERED_ROWS_THREADED(threads, s, &core[1], {
      ReconstructVelocitiesRow2(s, row, both);
      if (n > both) ReconstructVelocityRow(s, 1, row + both, n - both);
      FieldSupportZeroRow(s->rec.v[0], row, core[1].lo[0], both, j, k, keep);
      FieldSupportZeroRow(s->rec.v[1], row, core[1].lo[0], n, j, k, keep);
    });
    return;
  }
  for (PetscInt a = 0; a < s->dim; a++) {
    if (in[a]) STAGGERED_ROWS_THREADED(threads, s, &core[a], {
        ReconstructVelocityRow(s, a, row, n);
        FieldSupportZeroRow(s->rec.v[a], row, core[a].lo[0], n, j, k, keep);
      });
  }
}

PetscErrorCode VDReconstructVelocityCPU(VDState *s, const Box *box)
{
  ReconstructVelocities(s, box, 0, PETSC_TRUE);
  return 0;
}

/* Layer l of the adjoint step's sweep (VDFusedAdjointCPU): what the stage
   loop does there (VDAdjointStageBegin, the boxes), in four stages, each
   reading the one before at its own layer and the R on either side and
   writing nothing the one before still reads there (the sweep runs stage
   k R layers behind stage k - 1):
     0: stage 0's operands, mirrored beyond the surfaces;
     1: the velocities' adjoint; the boundary method's pressure run back,
        then zeroed and mirrored at the surfaces (stage 1's StageBegin);
     2: the velocities zeroed past the surfaces and stage 1's operands
        from them, mirrored (d's stage 0 values are read no more); the
        boundary method's velocities run back from the pressure;
     3: the pressure's adjoint from stage 1's operands.
   Only the last writes u, which stages 0 and 1 read at their own cells.
   step: 0, or 1 for the second step of a pair (its support boxes). */
static void AdjointLayer(VDState *s, PetscInt l, PetscInt stage, PetscInt step)
{
  const Box       b    = StaggeredLayerBox(s->dim, s->n, l);
  const PetscBool back = s->method == GRADIENT_BOUNDARY;

  switch (stage) {
  case 0:
    STAGGERED_ROWS_OF(s, &b, {
      OperandsRow(s, 0, row, q, n);
      STAGGERED_SURFACE_ROW_Z(s, STAGGERED_MIRROR_CENTRES, s->d[0], row, n);
    });
    break;
  case 1:
    STAGGERED_ROWS_OF(s, &b, VelocityRow(s, row, q, n, PETSC_TRUE));
    if (!back) break;
    ReconstructPressure(s, &b, step, PETSC_FALSE);
    STAGGERED_ROWS_OF(s, &b, {
      STAGGERED_SURFACE_ROW_Z(s, STAGGERED_ZERO_SURFACE, s->rec.p, row, n);
      STAGGERED_SURFACE_ROW_Z(s, STAGGERED_MIRROR_CENTRES, s->rec.p, row, n);
    });
    break;
  case 2:
    STAGGERED_ROWS_OF(s, &b, {
      STAGGERED_SURFACE_ROW_Z(s, STAGGERED_ZERO_PAST_SURFACE, s->v[0], row, n);
      OperandsRow(s, 1, row, q, n);
      STAGGERED_SURFACE_ROW_Z(s, STAGGERED_MIRROR_NODES, s->d[0], row, n);
    });
    if (back) ReconstructVelocities(s, &b, step, PETSC_FALSE);
    break;
  default:
    STAGGERED_ROWS_OF(s, &b, PressureRow(s, row, q, n, PETSC_TRUE));
  }
}

typedef struct {
  VDState             *s;
  const VDReversePair *pair; /* NULL: one step */
} AdjointSweep;

/* Between two reverse steps on layer l, once step n's pressure adjoint
   has passed it (VDReversePair): step n's StepEnd there (the pressure's
   residuals into u, the velocities' band back), then step n - 1's
   SweepBegin (VDAdjointSweepBegin: u zeroed at the surface and read at
   the source's cells, the injection out of the pressure run back, the
   normal velocity mirrored, the pressure's band back).  Nothing of step n
   reads these values on l any more: its pressure adjoint reads w, not u,
   and its stages that read the fields run back lie R and 2R layers
   ahead. */
static void ReverseTurnLayer(VDState *s, const VDReversePair *pr, const Box *b, PetscInt l)
{
  float *const            f[4] = {s->rec.p, s->rec.v[0], s->rec.v[1], s->rec.v[2]};
  const StaggeredLayerCells *sc = &pr->r.source.cells;

  for (PetscInt k = 0; k < pr->r.nresidual; k++)
    if (!pr->r.component[k]) StaggeredReverseResidualLayer(&pr->r, k, l, s->p); /* a velocity's: VelocityResidualLayer */
  StaggeredBandCopyLayer(s->grid, s->rec.nband, s->rec.band, f, PETSC_FALSE, ~1u, pr->r.saved[0], l);
  STAGGERED_ROWS_OF(s, b, STAGGERED_SURFACE_ROW_Z(s, STAGGERED_ZERO_SURFACE, s->p, row, n));
  for (PetscInt i = sc->at[l]; i < sc->at[l + 1]; i++) {
    pr->at_src[sc->row[i]] = VDAtSource(s, sc->cell[i]);
    s->rec.p[sc->cell[i]] -= pr->r.source.amount[i];
  }
  STAGGERED_ROWS_OF(s, b, STAGGERED_SURFACE_ROW_Z(s, STAGGERED_MIRROR_NODES, s->rec.v[0], row, n));
  StaggeredBandCopyLayer(s->grid, s->rec.nband, s->rec.band, f, PETSC_FALSE, 1u, pr->r.saved[1], l);
}

/* Step n's velocity residuals into w on layer l, just before step n - 1's
   velocities' adjoint writes w there (stage 5): step n's pressure adjoint
   reads w R layers on (DirectCut), and has passed l by 2R by then; its
   velocities run back have read w at their own cells. */
static void VelocityResidualLayer(VDState *s, const VDReversePair *pr, PetscInt l)
{
  for (PetscInt k = 0; k < pr->r.nresidual; k++) {
    const PetscInt c = pr->r.component[k];
    if (c) StaggeredReverseResidualLayer(&pr->r, k, l, s->v[c - 1]);
  }
}

/* Layer l of the sweep: AdjointLayer's four stages, with a pair step n's
   then step n - 1's, the turn between them after step n's last and step
   n's velocity residuals before step n - 1's velocities. */
static void AdjointSweepLayer(void *ctx, PetscInt l, PetscInt stage)
{
  const AdjointSweep *a = (const AdjointSweep *)ctx;

  if (a->pair && stage == 5) VelocityResidualLayer(a->s, a->pair, l);
  AdjointLayer(a->s, l, stage % 4, stage / 4);
  if (a->pair && stage == 3) {
    const Box b = StaggeredLayerBox(a->s->dim, a->s->n, l);
    ReverseTurnLayer(a->s, a->pair, &b, l);
  }
}

PetscErrorCode VDFusedAdjointCPU(VDState *s, const VDReversePair *pair)
{
  AdjointSweep a = {s, pair};

  StaggeredFusedSweep(s->n[s->dim - 1], s->radius, pair ? 8 : 4, AdjointSweepLayer, &a);
  return 0;
}
