/* The constant-density acoustic equation's arithmetic per cell, which
   every backend shares: the leapfrog update, the CPML terms of the
   second-order form and their adjoint (docs/numerics.md).  Valid C and
   CUDA (FWI_HD, grid/fd.h). */
#pragma once
#include "grid/fd.h"

/* Leapfrog: u^{n+1} = 2 u^n - u^{n-1} + v^2 dt^2 L u^n. */
FWI_HD static inline float fwi_leapfrog(float u, float uprev, float vdt2, float lap)
{
  return 2.0f * u - uprev + vdt2 * lap;
}

/* CPML term of one axis inside an absorbing layer (second-order form with
   memory variables psi, zeta; Pasalic & McGarry 2010).  The derivative of
   this step's psi, psi' = b psi + a du/dx, is taken as d(b psi)/dx (psi
   from the previous step, so neighbours read one time level) plus
   a d2u/dx2 + (da/dx) du/dx: the product rule with the compact second
   difference, so that the damping has no lag of one step:
     t      = (1 + a) d2u + da du + d(b psi)
     zeta  <- b zeta + a t
     term   = t + zeta
   psi is advanced afterwards by fwi_cpml_psi. */
FWI_HD static inline float fwi_cpml_term(float d2u, float du, float dbpsi, float a, float da, float b, float *zeta)
{
  const float t = (1.0f + a) * d2u + da * du + dbpsi;
  const float z = b * (*zeta) + a * t;
  *zeta         = z;
  return t + z;
}

/* First difference of w x along the axis: x at stride s, the weights w (an
   axis profile, at stride 1). */
FWI_HD static inline float fwi_d1_weighted(const float *x, ptrdiff_t s, const float *w, const float *c, int r)
{
  float acc = c[1] * (w[1] * x[s] - w[-1] * x[-s]);
  for (int k = 2; k <= r; k++) acc += c[k] * (w[k] * x[k * s] - w[-k] * x[-k * s]);
  return acc;
}

FWI_HD static inline float fwi_cpml_psi(float psi, float du, float a, float b) { return b * psi + a * du; }

/* Adjoint of the CPML terms of one axis (docs/numerics.md, "Adjoint").  At
   the start of an adjoint step a layer cell holds E = lambda + zeta (the
   adjoint field plus the adjoint zeta) in place of zeta, and psi holds the
   adjoint psi.  Pointers sit at the cell: E and psi in its slab (stride ss
   along the axis), u in the field (stride us), pa/pb/pda in the axis
   profiles.  Outside the layers pa = pb = pda = 0 and E = psi = 0.  T =
   u + pa E is the adjoint of the forward's t. */

/* What a cell gives its neighbours' adjoint CPML terms: T, then X to
   reach's d2, Y to its d1 (Z = chi T, fwi_where_nonzero(T, pb), to psi's
   step back).  A backend may form them once per cell (the CPU does). */
FWI_HD static inline float fwi_adj_cpml_t(float u, float pa, float E) { return u + pa * E; }
FWI_HD static inline float fwi_adj_cpml_x(float t, float pa, float E) { return pa * (E + t); }
FWI_HD static inline float fwi_adj_cpml_y(float t, float pda, float pa, float psi) { return pda * t + pa * psi; }

/* What the axis's layer cells within r of this cell add to the adjoint
   Laplacian: d2(pa (E + T)) - d1(pda T) - d1(pa psi). */
FWI_HD static inline float fwi_adj_cpml_reach(const float *E, const float *psi, ptrdiff_t ss, const float *u, ptrdiff_t us, const float *pa,
                                               const float *pda, const float *c2, const float *c1, int r)
{
  float d2 = c2[0] * fwi_adj_cpml_x(fwi_adj_cpml_t(u[0], pa[0], E[0]), pa[0], E[0]), d1 = 0.0f;
  for (int k = 1; k <= r; k++) {
    const float thi = fwi_adj_cpml_t(u[k * us], pa[k], E[k * ss]), tlo = fwi_adj_cpml_t(u[-k * us], pa[-k], E[-k * ss]);
    d2 += c2[k] * (fwi_adj_cpml_x(thi, pa[k], E[k * ss]) + fwi_adj_cpml_x(tlo, pa[-k], E[-k * ss]));
    d1 += c1[k] * (fwi_adj_cpml_y(thi, pda[k], pa[k], psi[k * ss]) - fwi_adj_cpml_y(tlo, pda[-k], pa[-k], psi[-k * ss]));
  }
  return d2 - d1;
}

/* The same from the factors X, Y of the cells at stride s. */
FWI_HD static inline float fwi_adj_cpml_reach_xy(const float *x, const float *y, ptrdiff_t s, const float *c2, const float *c1, int r)
{
  float d2 = c2[0] * x[0], d1 = 0.0f;
  for (int k = 1; k <= r; k++) {
    d2 += c2[k] * (x[k * s] + x[-k * s]);
    d1 += c1[k] * (y[k * s] - y[-k * s]);
  }
  return d2 - d1;
}

/* x where flag != 0, else +0: exactly the select `flag != 0 ? x : 0`, as a
   bit mask, so that the CPU loops vectorise it (a select of a computed value
   stays a branch there). */
FWI_HD static inline float fwi_where_nonzero(float x, float flag)
{
  union {
    float        f;
    unsigned int u;
  } v = {x};
  v.u &= flag != 0.0f ? 0xffffffffu : 0u;
  return v.f;
}

/* The adjoint psi one step back at a layer cell: pb (psi - d1(chi T)),
   chi = 1 in the layer (where pb != 0: b = exp(-(d + alpha) dt) > 0 there). */
FWI_HD static inline float fwi_adj_cpml_psi(float psi, const float *u, ptrdiff_t us, const float *E, ptrdiff_t ss, const float *pa,
                                             const float *pb, const float *c1, int r)
{
  float d1 = 0.0f;
  for (int k = 1; k <= r; k++) {
    const float hi = fwi_where_nonzero(fwi_adj_cpml_t(u[k * us], pa[k], E[k * ss]), pb[k]);
    const float lo = fwi_where_nonzero(fwi_adj_cpml_t(u[-k * us], pa[-k], E[-k * ss]), pb[-k]);
    d1 += c1[k] * (hi - lo);
  }
  return pb[0] * (psi - d1);
}

/* The same from the factors Z of the cells at stride s. */
FWI_HD static inline float fwi_adj_cpml_psi_z(float psi, const float *z, ptrdiff_t s, float pb, const float *c1, int r)
{
  float d1 = 0.0f;
  for (int k = 1; k <= r; k++) d1 += c1[k] * (z[k * s] - z[-k * s]);
  return pb * (psi - d1);
}
