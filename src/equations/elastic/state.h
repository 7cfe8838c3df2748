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
   - the CPML memory of every derivative over the padded box. */
#pragma once
#include "equations/equation.h"
#include "equations/staggered.h"

/* Its fields, in the order of the Equation table (elastic.c). */
enum { EL_VZ, EL_VX, EL_VY, EL_SZZ, EL_SXX, EL_SYY, EL_SZX, EL_SZY, EL_SXY, EL_BDT, EL_CDT, EL_CSZ, EL_CSX, EL_NFIELD };

/* The sources (Equation.source_kind): an explosion, or a force along an
   axis (EL_SOURCE_FORCE + a). */
enum { EL_SOURCE_PRESSURE, EL_SOURCE_FORCE };

typedef struct ELState {
  const Grid             *grid;
  const struct ELKernels *ops;     /* the backend's operations on this state (kernels.h) */
  const BackendOps       *backend;
  void                   *lanes;   /* the backend's lanes (NULL on the CPU) */
  PetscInt                dim, radius, n[3], padded[3]; /* n: the owned cells along each axis */
  ptrdiff_t               stride[3];
  size_t                  ncells;
  PetscBool               free_surface[3][2];
  PetscReal               dt;
  PetscInt                source_kind;                 /* Equation.source_kind's index */
  float                   w[3][FWI_MAX_RADIUS + 1];    /* staggered first-derivative weights / d, per axis */
  float                  *v[3], *s[3], *t[3];          /* t[ELPair(a, b)] */
  float                  *bdt, *ldt, *mdt, *cdt;       /* dt / rho, lambda dt, mu dt, 1 / (mu dt) at the centres */
  float                  *csum[2];                     /* csum[a][c] = cdt[c] + cdt[c + stride a], a = 0, 1 */
  float                  *psi_v[3][3];                 /* CPML memory of the velocity stage's derivatives: v_a's stress along b */
  float                  *psi_s[3][3];                 /* and the stress stage's: of v_a along b */
  float                  *pa[3], *pb[3];               /* CPML weights at the centres, over the padded index of axis a (backend memory) */
  float                  *ha[3], *hb[3];               /* and half a cell above them */
  PetscInt                plain[2][2];                 /* the padded range along axis 0 outside the layers: centres, nodes */
  float                  *host_model[4];               /* the model on its way in */
} ELState;

static inline ELState *ELStateOf(EquationState *s) { return (ELState *)s; }

extern const EquationScheme ElasticScheme;

/* The shear stress of axes a != b: t[ELPair(a, b)] ((0, 1), (0, 2), (1, 2)). */
FWI_HD static inline PetscInt ELPair(PetscInt a, PetscInt b) { return a + b - 1; }

/* mu dt on the edge of pair a < b at cell c (half a cell further along a
   and b): the harmonic mean of the four cells' around it, from cs, the
   compliances' sums across the faces of a (csum[a]), at c and at c + st,
   st the stride of b. */
FWI_HD static inline float ELEdgeShear(const float *cs, ptrdiff_t c, ptrdiff_t st) { return 4.0f / (cs[c] + cs[c + st]); }

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

/* The shear stresses of dim axes: 1 in 2D, 3 in 3D. */
FWI_HD static inline PetscInt ELPairs(PetscInt dim) { return dim == 3 ? 3 : 1; }

/* The floats per padded cell of the state: v and s per axis, the shear
   stresses, the model (dt / rho, lambda dt, mu dt, 1 / (mu dt)) and its
   face sums, and two CPML memories per pair of axes (18 in 2D, 33 in
   3D). */
static inline PetscInt ELStateFloats(PetscInt dim) { return 2 * dim + ELPairs(dim) + 4 + (dim - 1) + 2 * dim * dim; }

/* Whether the surface cell of the row at padded index row (n cells along
   stride st, the surface at side) is a fluid's (mu = 0). */
FWI_HD static inline PetscBool ELSurfaceFluid(const ELState *s, ptrdiff_t row, ptrdiff_t st, PetscInt n, PetscInt side)
{
  return s->mdt[row + (side ? (n - 1) * st : 0)] == 0 ? PETSC_TRUE : PETSC_FALSE;
}

/* Row i of the source's map (PointMap: inject) into the fields its kind
   drives: an explosion, every normal stress -= (the bulk modulus dt) q,
   q the injected volume rate over the cell volume (the pressure rises by
   it); a force along a, v_a += (dt / rho on the face) f, f the force over
   the cell volume. */
FWI_HD static inline void ELInjectRow(const ELState *s, const PointMap *m, PetscInt i, const float amp[])
{
  const ptrdiff_t c = m->cell[i];
  const float     q = (float)PointMapRowSum(m, i, amp, NULL);

  if (s->source_kind == EL_SOURCE_PRESSURE) {
    const float t = ELBulkDt(s, c) * q;
    for (PetscInt a = 0; a < s->dim; a++) s->s[a][c] = s->s[a][c] - t;
  } else {
    const PetscInt a = s->source_kind - EL_SOURCE_FORCE;
    s->v[a][c]       = s->v[a][c] + StaggeredFaceMean(s->bdt, c, s->stride[a]) * q;
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
