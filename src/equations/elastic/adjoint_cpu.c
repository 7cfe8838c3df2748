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

/* The transposed CPML memory of the derivative along b at padded q (its
   output at the node above along b where up, else at the centre), memory
   psi at cell c: the operand from x. */
static inline float OperandAt(const ELState *s, PetscInt b, PetscInt up, const PetscInt q[3], ptrdiff_t c, float *psi, float x)
{
  const PetscInt w = q[b];

  return StaggeredCpmlAdjoint(x, (up ? s->ha : s->pa)[b][w], (up ? s->hb : s->pb)[b][w], &psi[c]);
}

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
    if (surf) {
      const float den = m2 + (float)k * l;
      s->img_l[c] += tr * T * (m2 * m2 / (den * den));
      s->img_m[c] += tr * T * (2 * (float)k * l * l / (den * den)) + 2 * se;
    } else {
      s->img_l[c] += tr * T;
      s->img_m[c] += 2 * se;
    }
  }
  for (PetscInt b = 0; b < D; b++) {
    const float sigma = surf >> b & 1 ? 0.0f : ls * tr + m2 * s->s[b][c];
    s->op[b][b][c]    = OperandAt(s, b, 0, q, c, s->psi_s[b][b], sigma);
  }
  for (PetscInt p = 0; p < P; p++) {
    const PetscInt a = p == 2 ? 1 : 0, b = p == 0 ? 1 : 2;
    const float    M = ELEdgeShear(s->csum[a], c, s->stride[b]), tau = M * s->t[p][c];
    if (s->keep) s->img_e[p][c] += M * tau * ELKeep(s, EL_KEEP_SHEAR, p, c)[0];
    s->op[a][b][c] = OperandAt(s, b, 1, q, c, s->psi_s[a][b], tau);
    s->op[b][a][c] = OperandAt(s, a, 1, q, c, s->psi_s[b][a], tau);
  }
}

/* Undoing the velocity stage at cell c: v_a += B_a g_a fed each of its
   derivatives B_a v~_a; the image of the face's dt / rho is v~_a g_a. */
static void UndoVelocityCell(ELState *s, const PetscInt q[3], ptrdiff_t c)
{
  for (PetscInt a = 0; a < s->dim; a++) {
    const float w = StaggeredFaceMean(s->bdt, c, s->stride[a]) * s->v[a][c];
    if (s->keep) s->img_b[a][c] += s->v[a][c] * ELKeep(s, EL_KEEP_DIVERGENCE, a, c)[0];
    for (PetscInt b = 0; b < s->dim; b++) s->op[a][b][c] = OperandAt(s, b, b == a, q, c, s->psi_v[a][b], w);
  }
}

PetscErrorCode ELAdjointOperandsCPU(ELState *s, PetscInt stage)
{
  const Box all = {{0, 0, 0}, {s->n[0], s->n[1], s->n[2]}, 0};

  STAGGERED_EACH_ROW(s, &all, {
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt at[3] = {q[0] + i, q[1], q[2]};
      if (stage == 0) UndoStressCell(s, at, row + i);
      else UndoVelocityCell(s, at, row + i);
    }
  });
  return 0;
}
