/* The isotropic elastic equation's state on one rank, behind
   EquationState: the velocity-stress system on a staggered grid (Virieux
   1986 in 2D, its 3D form), over the grid's padded box:
   - the normal stresses s_a (sigma_aa) at the cell centres;
   - each particle velocity v_a half a cell further along axis a (stored at
     the index of the cell below it, as in the variable-density equation);
   - each shear stress t_ab (sigma_ab, a < b) half a cell further along
     both a and b (an edge between four cells);
   - the model as dt / rho, lambda dt and mu dt at the centres, with the
     compliance 1 / (mu dt) (infinite in a fluid) and its sums across
     faces, from which each edge takes the harmonic mean of its four cells'
     mu (0 where one is a fluid: the fluid-solid contact carries no shear);
   - the CPML memory of every derivative in the layers of its axis
     (ELMemoryCells). */
#pragma once
#include "equations/equation.h"
#include "equations/staggered.h"
#include "equations/staggered_pair.h"
#include "equations/support.h"

/* Its fields, in the order of the Equation table (elastic.c): the
   forward's, the model's, then the adjoint's operands (EL_OP + 3 a + b:
   of the derivative along b in v_a's equation or of v_a) and its images
   on the faces (EL_IB + a) and the edges (EL_IE + ELPair); last the
   boundary method's forward fields run backwards (EL_FR + the forward
   field's own, EL_VZ to EL_SXY). */
enum { EL_VZ, EL_VX, EL_VY, EL_SZZ, EL_SXX, EL_SYY, EL_SZX, EL_SZY, EL_SXY, EL_BDT, EL_CDT, EL_CSZ, EL_CSX, EL_OP, EL_IB = EL_OP + 9, EL_IE = EL_IB + 3, EL_FR = EL_IE + 3, EL_NFIELD = EL_FR + 9 };

/* The forward fields by that number (EL_VZ .. EL_SXY): v, s, t. */
#define EL_FORWARD_FIELDS 9

/* The boundary method (reconstruct.c): the forward run saves, each step,
   a band of every forward field beyond the core (the cells outside every
   absorbing layer), as far as the core's stencils read; the adjoint runs
   the forward fields backwards in the core beside the adjoint fields, the
   band put back each step.  core[f]: the owned cells where field f is run
   back (the centres' core, less the last node of an axis along which f
   lies half a cell up, which lies in the layer or past a free surface);
   f[k]: the fields run backwards, by the forward field's number. */
typedef struct {
  Box           core[EL_FORWARD_FIELDS];
  PetscInt      nband;
  StaggeredBand band[3 * 2 * EL_FORWARD_FIELDS];
  size_t        floats; /* the band's floats, a step */
  float        *f[EL_FORWARD_FIELDS];
  float        *saved;  /* the store's slot of the reverse step being run */
  FieldSupport  support; /* per level, the cells the forward fields may be nonzero on (host memory; support.h) */
  Box           wide[2], keep[2]; /* the reverse step's FieldSupportStep (the second step of a pair in [1]) */
} ELReconstruction;

/* The sources (Equation.source_kind): an explosion, or a force along an
   axis (EL_SOURCE_FORCE + a). */
enum { EL_SOURCE_PRESSURE, EL_SOURCE_FORCE };

/* Two reverse steps, n and n - 1, in one sweep (the boundary method, 2D,
   a rank alone; adjoint.c): what it does between them, by layer.  Once
   step n's last stage has passed a layer: step n's residuals (a
   pressure's into every adjoint normal stress, a velocity's into its
   own), its velocities' band put back, then step n - 1's start but for an
   explosion (the adjoint normal stresses zero on the surface and the
   shear ones past it, the source's image, a force out of the velocities
   run back, the normal velocity run back past the surface); an explosion
   comes out of the stresses run back just before step n - 1's stresses
   are run back on the layer, as step n's velocities run back read those
   stresses R layers on. */
typedef struct {
  StaggeredReverse r;   /* step n's residuals, each cell's share of the adjoint fields of its component; step n - 1's source, out of the fields run back */
  const float     *wav; /* step n - 1's wavelet (its source image) */
} ELReversePair;

typedef struct ELState {
  const Grid             *grid;
  const struct ELKernels *ops;     /* the backend's operations on this state (kernels.h) */
  const BackendOps       *backend;
  void                   *lanes;   /* the backend's lanes (NULL on the CPU) */
  PetscInt                dim, radius, n[3], padded[3]; /* n: the owned cells along each axis */
  ptrdiff_t               stride[3];
  size_t                  ncells;
  PetscBool               free_surface[3][2];
  PetscBool               last[3];                     /* whether the block ends the grid on the high side of axis a (its ghosts there copy the last cells) */
  PetscReal               dt;
  PetscInt                source_kind;                 /* Equation.source_kind's index */
  float                   w[3][FWI_MAX_RADIUS + 1];    /* staggered first-derivative weights / d, per axis */
  float                   wn[3][FWI_MAX_RADIUS][FWI_MAX_RADIUS + 1]; /* and those of radius r = 1 .. R - 1, 0 beyond r (ELWeights) */
  float                  *v[3], *s[3], *t[3];          /* t[ELPair(a, b)] */
  float                  *bdt, *ldt, *mdt, *cdt;       /* dt / rho, lambda dt, mu dt, 1 / (mu dt) at the centres */
  float                  *csum[2];                     /* csum[a][c] = cdt[c] + cdt[c + stride a], a = 0, 1 */
  float                  *psi_v[3][3];                 /* CPML memory of the velocity stage's derivatives: v_a's stress along b */
  float                  *psi_s[3][3];                 /* and the stress stage's: of v_a along b; along b = 0 over the padded box, along the others over slab[b] (ELMemoryCells) */
  StaggeredSlab           slab[3];
  float                  *psi_none;                    /* the CPU's rows of memory for derivatives outside their layers (StaggeredNoMemory) */
  float                  *pa[3], *pb[3];               /* CPML weights at the centres, over the padded index of axis a (backend memory) */
  float                  *ha[3], *hb[3];               /* and half a cell above them */
  PetscInt                plain[3][2][2];              /* the padded range along each axis outside its layers: centres, nodes */
  float                  *host_model[4];               /* the model on its way to a device (EquationModelTarget) */
  /* The gradient (full storage, adjoint.c).  keep: the store's slot of
     the step being run (ELKeep).  The adjoint run holds the adjoint fields
     in v, s and t, the adjoint CPML memories in psi_v and psi_s; op[a][b]
     are the operands of the derivatives' transposes, whose ghosts travel;
     img_l and img_m sum the images of lambda dt and mu dt at the centres,
     img_b[a] that of dt / rho on the faces of axis a, img_e[p] that of mu
     dt on the edges of pair p times the edge's mu dt squared; image is the
     image handed out.  img_m and img_e exist only where the S velocity's
     gradient is wanted (nimage 2 or more: EquationStateSettings), img_b
     only where the density's is (3): the passes form no other. */
  float                  *keep;
  float                  *op[3][3];
  float                  *img_l, *img_m, *img_b[3], *img_e[3], *image;
  PetscInt                nimage;
  ELReconstruction       *rec; /* the boundary method's (host memory; NULL with full storage) */
  StaggeredPair          *pair; /* NULL until two steps are swept at once in a run */
  ELReversePair           rpair;
} ELState;

static inline ELState *ELStateOf(EquationState *s) { return (ELState *)s; }

/* The images the adjoint forms, in the order of the parameters whose
   gradients read them: parameter k's gradient (vp, vs, rho; or lambda, mu,
   rho) reads images 0 .. k, and the first nimage parameters' gradients
   are wanted (EquationStateSettings), so image k is formed where
   nimage > k. */
enum { EL_IMAGE_LAMBDA, EL_IMAGE_MU, EL_IMAGE_BUOYANCY };
FWI_HD static inline PetscBool ELImageWanted(PetscInt nimage, PetscInt k) { return nimage > k ? PETSC_TRUE : PETSC_FALSE; }

/* The shear stresses of dim axes: 1 in 2D, 3 in 3D. */
FWI_HD static inline PetscInt ELPairs(PetscInt dim) { return dim == 3 ? 3 : 1; }

/* What full storage keeps of a forward step, rows of the store's slot of
   ncells floats each: what the images of the gradients wanted (nimage)
   read.  dJ/dvp alone reads lambda's image alone: the normal strain
   rates' sum T over the axes off the cell's free surfaces, at the centres
   (EL_KEEP_TRACE, one row).  With dJ/dvs besides: the normal strain rates
   D-_a v_a (CPML included) at the centres, a = 0 .. dim - 1, then the
   shear strain rates D+_b v_a + D+_a v_b on each pair's edges; with dJ/drho
   besides, then the stress divergences that update each v_a. */
typedef enum { EL_KEEP_TRACE, EL_KEEP_NORMAL, EL_KEEP_SHEAR, EL_KEEP_DIVERGENCE } ELKeepKind;

static inline PetscInt ELKeepRows(PetscInt dim, PetscInt nimage)
{
  return !ELImageWanted(nimage, EL_IMAGE_MU) ? 1 : (ELImageWanted(nimage, EL_IMAGE_BUOYANCY) ? 2 * dim : dim) + ELPairs(dim);
}

FWI_HD static inline PetscInt ELKeepRow(PetscInt dim, ELKeepKind kind, PetscInt k) { return kind == EL_KEEP_TRACE ? 0 : kind == EL_KEEP_NORMAL ? k : kind == EL_KEEP_SHEAR ? dim + k : dim + ELPairs(dim) + k; }

/* Row k of kind of the store's slot the state keeps, at padded cell c;
   NULL where the run keeps none. */
FWI_HD static inline float *ELKeep(const ELState *s, ELKeepKind kind, PetscInt k, ptrdiff_t c) { return s->keep ? s->keep + (size_t)ELKeepRow(s->dim, kind, k) * s->ncells + c : NULL; }

/* What the stress stage keeps of a step, and reads back undone: nothing
   (no store's slot open), T alone, or every rate (ELKeepKind); the
   velocity stage keeps its divergences where dJ/drho is wanted. */
typedef enum { EL_KEEPS_NOTHING, EL_KEEPS_TRACE, EL_KEEPS_RATES } ELStressKeeps;

FWI_HD static inline int ELStressKept(const ELState *s) { return !s->keep ? EL_KEEPS_NOTHING : ELImageWanted(s->nimage, EL_IMAGE_MU) ? EL_KEEPS_RATES : EL_KEEPS_TRACE; }
FWI_HD static inline PetscBool ELVelocityKept(const ELState *s) { return s->keep && ELImageWanted(s->nimage, EL_IMAGE_BUOYANCY) ? PETSC_TRUE : PETSC_FALSE; }

extern const EquationScheme ElasticScheme;

/* The adjoint's parts of the scheme's hooks (adjoint.c), and the arrays
   over the padded box it allocates. */
PetscInt       ELAdjointArrays(PetscInt dim, PetscInt nimage);
PetscErrorCode ELAdjointRunBegin(ELState *s, WavefieldStore store);
PetscErrorCode ELAdjointStepBegin(ELState *s, WavefieldStore store, PetscInt n);
PetscErrorCode ELAdjointStageBegin(ELState *s, PetscInt stage, const EquationStepPoints *points);
PetscErrorCode ELAdjointSweepBegin(ELState *s, const EquationStepPoints *points);
PetscErrorCode ELAdjointStepEnd(ELState *s, WavefieldStore store, PetscInt n, const EquationStepPoints *points);
PetscErrorCode ELAdjointReversePair(ELState *s, WavefieldStore store, PetscInt n, const EquationStepPoints points[2], PetscBool *done);
PetscErrorCode ELAdjointReversePairFree(ELState *s);
PetscErrorCode ELAdjointImage(ELState *s, PetscInt k, const float **padded);
PetscErrorCode ELAdjointFree(ELState *s);

/* The boundary method (reconstruct.c).  Geometry: its cores and band on
   g's block.  SetUp allocates the fields run backwards (Destroy frees
   them); Save writes the band of v^(n-1/2), s^n and t^n to the store's
   slot n; Start takes the forward run's last fields as those to run back
   (the adjoint's own are zeroed after); the rest are reverse step n's
   parts, as adjoint.c calls them. */
void           ELReconstructionGeometry(const Grid *g, ELReconstruction *rec);
PetscErrorCode ELReconstructionSetUp(ELState *s, GradientMethod m);
PetscErrorCode ELReconstructionDestroy(ELState *s);
PetscErrorCode ELReconstructionSave(ELState *s, WavefieldStore store, PetscInt n);
/* ELReconstructionSave's, by layer of a sweep of two steps: pr keeps the
   start of step n there (StaggeredPairKeepBegin). */
PetscErrorCode ELReconstructionKeepBegin(ELState *s, StaggeredPair *pr, WavefieldStore store, PetscInt n);
void           ELReconstructionStart(ELState *s);
PetscErrorCode ELReconstructionRead(ELState *s, WavefieldStore store, PetscInt n);
PetscErrorCode ELReconstructionDone(ELState *s, WavefieldStore store, PetscInt n);
PetscErrorCode ELReconstructionUndoStepEnd(ELState *s, const EquationStepPoints *points);
PetscErrorCode ELReconstructionStresses(ELState *s);
void           ELReconstructionRestoreLayer(ELState *s, PetscInt l, float *saved, PetscBool stresses);
/* The support boxes (support.h) after forward step n. */
void           ELSupportGrow(ELState *s, PetscInt n);

/* The shear stress of axes a != b: t[ELPair(a, b)] ((0, 1), (0, 2), (1, 2)). */
FWI_HD static inline PetscInt ELPair(PetscInt a, PetscInt b) { return a + b - 1; }

/* mu dt on the edge of pair a < b at cell c (half a cell further along a
   and b): the harmonic mean of the four cells' around it, from cs, the
   compliances' sums across the faces of a (csum[a]), at c and at c + st,
   st the stride of b. */
FWI_HD static inline float ELEdgeShear(const float *cs, ptrdiff_t c, ptrdiff_t st) { return 4.0f / (cs[c] + cs[c + st]); }

/* The free surface's narrowed stencils.  The stress images beyond a
   surface are exact, but the velocities have none there: so within R - 1
   cells of a solid's surface the stress stage's derivatives across it
   take the highest order whose stencil reads nothing beyond it, the
   normal rate D-_a v_a at a centre d cells from the surface radius d,
   each shear rate D+_a v_b at the edge d + 1/2 from it radius d + 1 (the
   full R from there on, and on the surface cell, whose normal rate along
   a the condition replaces).  A fluid's column keeps the full stencil:
   its normal velocity's even mirror beyond the surface is exact, the
   pressure being odd about it.  The surface rank holds at least 2 R
   cells along the axis (state.c), so that every stencil and transpose
   these touch is its own.

   ELSurfaceDistance: the distance, in cells, of the centre at padded
   index qa along axis a from the nearest free surface of the block
   (R or more where none is nearer than that, negative beyond it). */
FWI_HD static inline PetscInt ELSurfaceDistance(const ELState *s, PetscInt a, PetscInt qa)
{
  const PetscInt R = s->radius, last = R + s->n[a] - 1;
  PetscInt       d = R;

  if (s->free_surface[a][0] && qa - R < d) d = qa - R;
  if (s->free_surface[a][1] && last - qa < d) d = last - qa;
  return d;
}

/* Whether the centre at padded q lies within R - 1 cells of a free
   surface along any axis, or on one. */
FWI_HD static inline PetscBool ELNearSurface(const ELState *s, const PetscInt q[3])
{
  for (PetscInt a = 0; a < s->dim; a++)
    if (ELSurfaceDistance(s, a, q[a]) < s->radius) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* The radius of the stress stage's derivative along a at padded index qa
   of that axis, of padded cell c: the normal rate's at the centre (up 0)
   or a shear rate's at the edge half a cell further (up 1). */
FWI_HD static inline PetscInt ELStencilRadius(const ELState *s, PetscInt a, PetscInt up, PetscInt qa, ptrdiff_t c)
{
  const PetscInt R = s->radius, last = R + s->n[a] - 1;

  for (PetscInt side = 0; side < 2; side++) {
    const PetscInt d = side ? last - qa - up : qa - R, r = up ? d + 1 : d;
    if (s->free_surface[a][side] && d >= 0 && r >= 1 && r < R && (up || s->mdt[c + ((side ? last : R) - qa) * s->stride[a]] > 0)) return r;
  }
  return R;
}

/* The weights / d along a of a stencil of radius r (the full ones at R). */
FWI_HD static inline const float *ELWeights(const ELState *s, PetscInt a, PetscInt r) { return r < s->radius ? s->wn[a][r] : s->w[a]; }

/* lambda dt's share of a surface cell's tangential normal stresses, with k
   of its axes' normal stresses held at 0 (l = lambda dt, m2 = 2 mu dt):
   2 lambda mu / (2 mu + k lambda), times dt. */
FWI_HD static inline float ELSurfaceLambda(float l, float m2, PetscInt k) { return l * m2 / (m2 + (float)k * l); }

/* The pressure at padded cell c, minus the mean normal stress: -(s_z +
   s_x) / 2 in 2D (the plane-strain mean of the in-plane stresses),
   -(s_z + s_x + s_y) / 3 in 3D, in double, rounded once. */
FWI_HD static inline float ELPressureAt(const ELState *s, ptrdiff_t c)
{
  double sum = 0;

  for (PetscInt a = 0; a < s->dim; a++) sum += s->s[a][c];
  return (float)(-sum / s->dim);
}

/* The bulk modulus of the dimension times dt at padded cell c, lambda dt +
   2 mu dt / dim: an explosion's volume injection into each normal stress
   (lambda dt alone in a fluid, as the variable-density equation's K dt). */
FWI_HD static inline float ELBulkDt(const ELState *s, ptrdiff_t c) { return s->ldt[c] + s->mdt[c] * (2.0f / (float)s->dim); }

/* The floats per padded cell of the state: v and s per axis, the shear
   stresses, the model (dt / rho, lambda dt, mu dt, 1 / (mu dt)) and its
   face sums, and the CPML memories of the derivatives along axis 0, two
   per axis (14 in 2D, 21 in 3D); those along the other axes lie in their
   slabs (ELMemoryCells). */
static inline PetscInt ELStateFloats(PetscInt dim) { return 2 * dim + ELPairs(dim) + 4 + (dim - 1) + 2 * dim; }

/* The cells of the CPML memory of a derivative along axis b: along axis 0
   the padded box, as the CPU's layer pieces run across the layers' edges
   along it (a row's plain cells go in a piece of their own only where
   there are EL_PLAIN_MIN_CELLS of them, and the surfaces' pieces lie
   anywhere), along the others b's slab, as a row lies in b's layers or
   not. */
static inline size_t ELMemoryCells(const ELState *s, PetscInt b) { return b ? s->slab[b].ncells : s->ncells; }

/* Where the memory psi of a derivative along b holds the cell at padded q
   (index c in the padded box); NULL where it holds none, which lies
   outside b's layers, where the derivative's weights are 0. */
FWI_HD static inline float *ELMemoryAt(const ELState *s, float *psi, PetscInt b, const PetscInt q[3], ptrdiff_t c)
{
  return !b ? psi + c : StaggeredSlabHolds(&s->slab[b], q[b]) ? psi + StaggeredSlabIndex(&s->slab[b], q) : NULL;
}

/* Whether the surface cell of the row at padded index row (n cells along
   stride st, the surface at side) is a fluid's (mu = 0). */
FWI_HD static inline PetscBool ELSurfaceFluid(const ELState *s, ptrdiff_t row, ptrdiff_t st, PetscInt n, PetscInt side)
{
  return s->mdt[row + (side ? (n - 1) * st : 0)] == 0 ? PETSC_TRUE : PETSC_FALSE;
}

/* Stage 1's StageBegin (state.c) on the row of axis a at padded index row
   (n cells along stride st) that ends on a free surface at side: the
   normal velocity past the surface zero, or mirrored even under a fluid's
   surface cell; v the velocity along the row's axis (the state's, or the
   one run back). */
FWI_HD static inline void ELSurfaceVelocityRow(const ELState *s, float *v, ptrdiff_t row, ptrdiff_t st, PetscInt n, PetscInt side)
{
  StaggeredSurfaceRow(ELSurfaceFluid(s, row, st, n, side) ? STAGGERED_MIRROR_NODES : STAGGERED_ZERO_PAST_SURFACE, v, row, st, n, side, s->radius);
}

/* Row i of the source's map (PointMap: inject) into the fields its kind
   drives: an explosion, every normal stress -= (the bulk modulus dt) q,
   q the injected volume rate over the cell volume (the pressure rises by
   it); a force along a, v_a += (dt / rho on the face) f, f the force over
   the cell volume; with subtract, taken out again (the boundary method's
   reverse step); a row's sum q or f scaled by ELInjectScale at its cell. */
FWI_HD static inline float ELInjectScale(const ELState *s, ptrdiff_t c)
{
  return s->source_kind == EL_SOURCE_PRESSURE ? ELBulkDt(s, c) : StaggeredFaceMean(s->bdt, c, s->stride[s->source_kind - EL_SOURCE_FORCE]);
}

/* ELInjectScale for the sweeps' injections by layer (StaggeredInjection;
   state: an ELState). */
static inline float ELInjectScaleAt(const void *state, ptrdiff_t cell) { return ELInjectScale((const ELState *)state, cell); }

FWI_HD static inline void ELInjectRow(const ELState *s, const PointMap *m, PetscInt i, const float amp[], PetscBool subtract)
{
  const ptrdiff_t c = m->cell[i];
  const float     t = ELInjectScale(s, c) * (float)PointMapRowSum(m, i, amp, NULL);

  if (s->source_kind == EL_SOURCE_PRESSURE)
    for (PetscInt a = 0; a < s->dim; a++) s->s[a][c] = subtract ? s->s[a][c] + t : s->s[a][c] - t;
  else {
    const PetscInt a = s->source_kind - EL_SOURCE_FORCE;
    s->v[a][c]       = subtract ? s->v[a][c] - t : s->v[a][c] + t;
  }
}

/* Row i's sum of component c (0 the pressure, 1 + a the velocity along a;
   PointMap: record), as PointMapRowSum's, each entry's pressure rounded to
   float as a neighbour sends it. */
FWI_HD static inline float ELRecordRow(const ELState *s, PetscInt comp, const PointMap *m, PetscInt i, const float remote[])
{
  double sum = 0;

  if (comp) return (float)PointMapRowSum(m, i, s->v[comp - 1], remote);
  for (PetscInt e = m->start[i]; e < m->start[i + 1]; e++) {
    const ptrdiff_t k = m->index[e];
    sum += (double)m->weight[e] * (k >= 0 ? ELPressureAt(s, k) : remote[-1 - k]);
  }
  return (float)sum;
}

/* csum[a] at padded cell q (derive_model): along a the cell's own sum, from
   cdt's ghosts; a ghost along another axis takes the nearest owned cell's
   (what the edges at a block's edge read beyond it where no neighbour
   lies; the shot layer then puts a neighbour's own sums where one does),
   so that the sums never read cdt's corner ghosts, which no exchange
   fills; nothing for a cell outside the owned range along a. */
FWI_HD static inline void ELDeriveCell(const ELState *s, PetscInt a, const PetscInt q[3])
{
  const PetscInt R = s->radius;
  ptrdiff_t      c = 0, from = 0;

  if (q[a] < R || q[a] >= R + s->n[a]) return;
  for (PetscInt b = 0; b < 3; b++) {
    const PetscInt o = b < s->dim && b != a ? PetscMax(R, PetscMin(R + s->n[b] - 1, q[b])) : q[b];
    c += q[b] * s->stride[b];
    from += o * s->stride[b];
  }
  s->csum[a][c] = s->cdt[from] + s->cdt[from + s->stride[a]];
}

/* The free surfaces in surf (a bit per axis) among dim axes. */
FWI_HD static inline PetscInt ELSurfaceCount(unsigned surf, PetscInt dim)
{
  PetscInt k = 0;

  for (PetscInt a = 0; a < dim; a++) k += surf >> a & 1;
  return k;
}

/* The images of lambda dt and mu dt of one cell's normal stress update
   (adjoint.c): tr the adjoint normal stresses' sum and T the strain
   rates' over the axes off the cell's k free surfaces, se the sum of
   their products, l lambda dt, m2 2 mu dt.  Off a surface the update's
   derivatives are tr T and 2 se; on one, through the surface's lambda
   share (ELSurfaceLambda) and its derivatives.  ELLambdaImage: lambda
   dt's term alone, which is all dJ/dvp reads. */
FWI_HD static inline float ELLambdaImage(float tr, float T, float l, float m2, PetscInt k)
{
  const float den = m2 + (float)k * l;

  return k ? tr * T * (m2 * m2 / (den * den)) : tr * T;
}

FWI_HD static inline void ELNormalImage(float *img_l, float *img_m, float tr, float T, float se, float l, float m2, PetscInt k)
{
  *img_l += ELLambdaImage(tr, T, l, m2, k);
  if (k) {
    const float den = m2 + (float)k * l;
    *img_m += tr * T * (2 * (float)k * l * l / (den * den)) + 2 * se;
  } else *img_m += 2 * se;
}

/* Cell c's centre images as ELNormalImage's where mu's is wanted (mu),
   lambda's term alone where not (img_m is not there). */
FWI_HD static inline void ELCentreImages(const ELState *s, ptrdiff_t c, PetscBool mu, float tr, float T, float se, float l, float m2, PetscInt k)
{
  if (mu) ELNormalImage(&s->img_l[c], &s->img_m[c], tr, T, se, l, m2, k);
  else s->img_l[c] += ELLambdaImage(tr, T, l, m2, k);
}

/* The source's own term in the images at row i of its map (PointMap:
   inject; ELInjectRow's transpose with respect to the model): an
   explosion's injection is scaled by the bulk modulus dt (lambda dt + 2 mu
   dt / dim), a force's by the face's dt / rho. */
FWI_HD static inline void ELSourceImageRow(const ELState *s, const PointMap *m, PetscInt i, const float amp[])
{
  const ptrdiff_t c = m->cell[i];
  const float     q = (float)PointMapRowSum(m, i, amp, NULL);

  if (s->source_kind == EL_SOURCE_PRESSURE) {
    float tr = 0;
    for (PetscInt a = 0; a < s->dim; a++) tr += s->s[a][c];
    s->img_l[c] -= q * tr;
    if (ELImageWanted(s->nimage, EL_IMAGE_MU)) s->img_m[c] -= q * tr * (2.0f / (float)s->dim);
  } else if (ELImageWanted(s->nimage, EL_IMAGE_BUOYANCY)) {
    const PetscInt a = s->source_kind - EL_SOURCE_FORCE;
    s->img_b[a][c] += q * s->v[a][c];
  }
}

/* The residuals at row i of the reach map into the adjoint fields, as
   the receivers took component comp out (ELRecordRow): p = -(sum_a s_a) /
   dim into every adjoint normal stress, a velocity into its own. */
FWI_HD static inline void ELResidualRow(const ELState *s, PetscInt comp, const PointMap *m, PetscInt i, const float amp[])
{
  const ptrdiff_t c = m->cell[i];
  const double    r = PointMapRowSum(m, i, amp, NULL);

  if (comp) s->v[comp - 1][c] = s->v[comp - 1][c] + (float)r;
  else
    for (PetscInt a = 0; a < s->dim; a++) s->s[a][c] = s->s[a][c] + (float)(-r / s->dim);
}

/* Whether owned cell o (owned coordinates) is the last of the grid along
   axis a: its ghost beyond holds a copy of its model (SetModel), so the
   faces and edges there take their whole mean from it. */
FWI_HD static inline PetscInt ELLastAlong(const ELState *s, PetscInt a, const PetscInt o[3]) { return s->last[a] && o[a] == s->n[a] - 1; }

/* derive_image at owned cell o (padded c) for pair p (a < b): the edge
   image plus its lower neighbour's along a (the cells' loop runs down
   along a), the edge's own twice where the ghost beyond is a copy of the
   cell. */
FWI_HD static inline void ELDeriveImageCell(const ELState *s, PetscInt p, ptrdiff_t c, const PetscInt o[3])
{
  const PetscInt a = p == 2 ? 1 : 0;

  s->img_e[p][c] = (ELLastAlong(s, a, o) ? 2 * s->img_e[p][c] : s->img_e[p][c]) + s->img_e[p][c - s->stride[a]];
}

/* The adjoint run's image of parameter k at owned cell o (padded c;
   adjoint.c): 0, dJ/dlambda; 1, dJ/dmu, with the four edges' share around
   the cell (each the partial sums' of the edges at c and c - stride b, the
   harmonic mean's derivative M^2 / (4 (mu dt)^2); a fluid's cell takes
   none: its mu is 0, and so are the S velocity's and the density's
   factors of it); 2, dJ/db (b = 1 / rho), half of each face's image to
   each of its cells.  Where the ghost beyond is a copy of the cell
   (ELLastAlong) the cell takes the copy's share too. */
FWI_HD static inline float ELImageAt(const ELState *s, PetscInt k, ptrdiff_t c, const PetscInt o[3])
{
  double v = 0;

  if (k == 0) v = s->img_l[c];
  else if (k == 1) {
    const double m = s->mdt[c];
    v              = s->img_m[c];
    if (m > 0)
      for (PetscInt p = 0; p < ELPairs(s->dim); p++) {
        const PetscInt b = p == 0 ? 1 : 2;
        v += ((ELLastAlong(s, b, o) ? 2.0 : 1.0) * s->img_e[p][c] + s->img_e[p][c - s->stride[b]]) / (4 * m * m);
      }
  } else
    for (PetscInt a = 0; a < s->dim; a++) v += 0.5 * ((ELLastAlong(s, a, o) ? 2.0 : 1.0) * s->img_b[a][c] + s->img_b[a][c - s->stride[a]]);
  return (float)(v * s->dt);
}
