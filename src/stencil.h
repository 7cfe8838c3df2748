/* The arithmetic every backend shares: finite-difference coefficients, the
   per-cell update and the CPML profiles.  Valid C and CUDA: FWI_HD marks
   functions for both host and device, so CPU and GPU round the same way.
   The per-cell helpers are fwi_* (tests/check_inlined.sh holds them
   inlined); fd_* are set-up work, called once per run. */
#pragma once
#include <math.h>
#include <stddef.h>

#ifdef __CUDACC__
  #define FWI_HD __host__ __device__
#else
  /* Forced: a helper the compiler leaves out of line is a call per cell
     that costs the CPU kernels' row loops their vectorisation, and GCC's
     inliner drops one when the file around it grows (3D ran 1.7x slower). */
  #define FWI_HD __attribute__((always_inline))
#endif

#define FWI_MAX_ORDER  16
#define FWI_MAX_RADIUS (FWI_MAX_ORDER / 2)

/* Weights of the central difference of derivative `deriv` (1 or 2) and
   even order `order` for unit spacing, by Fornberg's recursion (Math. Comp.
   51, 1988) over the nodes 0, 1, -1, 2, -2, ...: w[k] for the node at +k,
   k = 0 .. order/2 (the node at -k has w[k] for the second derivative and
   -w[k] for the first).  Host only: the kernels take the weights scaled by
   the spacing from Fields. */
static inline void fd_weights(int order, int deriv, double w[FWI_MAX_RADIUS + 1])
{
  const int n = order + 1;
  /* in long double, so that the weights round correctly to double */
  long double x[FWI_MAX_ORDER + 1], c[FWI_MAX_ORDER + 1][3] = {{0}}, c1 = 1, c4 = 0;

  for (int i = 0; i < n; i++) x[i] = (i % 2 ? 1 : -1) * (long double)((i + 1) / 2);
  c[0][0] = 1;
  for (int i = 1; i < n; i++) {
    const int   mn = i < deriv ? i : deriv;
    long double c2 = 1, c5 = c4;
    c4 = x[i];
    for (int j = 0; j < i; j++) {
      const long double c3 = x[i] - x[j];
      c2 *= c3;
      if (j == i - 1) {
        for (int k = mn; k >= 1; k--) c[i][k] = c1 * (k * c[i - 1][k - 1] - c5 * c[i - 1][k]) / c2;
        c[i][0] = -c1 * c5 * c[i - 1][0] / c2;
      }
      for (int k = mn; k >= 1; k--) c[j][k] = (c4 * c[j][k] - k * c[j][k - 1]) / c3;
      c[j][0] = c4 * c[j][0] / c3;
    }
    c1 = c2;
  }
  w[0] = (double)c[0][deriv];
  for (int k = 1; k <= order / 2; k++) w[k] = (double)c[2 * k - 1][deriv]; /* node 2k - 1 is at +k */
}

/* Central second-derivative weights for unit spacing: c[0] at the cell,
   c[k] for the pair at distance k. */
static inline double fd_d2_weight(int order, int k)
{
  double w[FWI_MAX_RADIUS + 1];
  fd_weights(order, 2, w);
  return w[k];
}

/* Central first-derivative weights for unit spacing: c[k] multiplies
   u[+k] - u[-k]; c[0] is zero. */
static inline double fd_d1_weight(int order, int k)
{
  double w[FWI_MAX_RADIUS + 1];
  fd_weights(order, 1, w);
  return k ? w[k] : 0.0;
}

/* Largest magnitude of the 1D second-difference symbol (at the Nyquist
   wavenumber): the leapfrog scheme is stable for
   v dt sqrt(K sum_i 1/d_i^2) <= 2. */
static inline double fd_d2_symbol_max(int order)
{
  double K = -fd_d2_weight(order, 0);
  for (int k = 1; k <= order / 2; k++) K -= 2 * fd_d2_weight(order, k) * ((k % 2) ? -1 : 1);
  return K;
}

/* Second derivative along the axis of stride s; c[] scaled by 1/d^2.
   The pairs are summed from the cell outwards, in this order everywhere. */
FWI_HD static inline float fwi_d2(const float *u, ptrdiff_t s, const float *c, int r)
{
  float acc = c[0] * u[0];
  for (int k = 1; k <= r; k++) acc += c[k] * (u[k * s] + u[-k * s]);
  return acc;
}

/* First derivative along the axis of stride s; c[] scaled by 1/d. */
FWI_HD static inline float fwi_d1(const float *u, ptrdiff_t s, const float *c, int r)
{
  float acc = c[1] * (u[s] - u[-s]);
  for (int k = 2; k <= r; k++) acc += c[k] * (u[k * s] - u[-k * s]);
  return acc;
}

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

/* CPML profile at normalised depth x in (0, 1] into a layer of thickness L
   (m): damping d = d0 x^p with d0 = -(p + 1) vmax ln(R) / (2 L), frequency
   shift alpha = max(pi f (1 - x), kappa d); recursive-convolution weights
   b = exp(-(d+alpha) dt), a = d (b - 1) / (d + alpha).  The floor kappa d
   keeps alpha / (d + alpha), what is left of a layer cell's restoring term
   for a static field, away from zero: with alpha -> 0 where d is largest a
   smooth, almost static field grew without bound after a few seconds in
   thin layers and at high orders (docs/numerics.md, "Late-time growth"). */
static inline void fd_cpml_profile(double x, double L, double vmax, double f, double R, double p, double kappa, double dt, float *a,
                                    float *b)
{
  const double d0    = -(p + 1.0) * vmax * log(R) / (2.0 * L);
  const double d     = d0 * pow(x, p);
  const double alpha = fmax(3.14159265358979323846 * f * (1.0 - x), kappa * d);
  const double bb    = exp(-(d + alpha) * dt);
  *b                 = (float)bb;
  *a                 = (d + alpha) > 0 ? (float)(d * (bb - 1.0) / (d + alpha)) : 0.0f;
}

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
