/* Finite differences every equation shares: central-difference weights,
   the derivative stencils and the CPML profile.  Valid C and CUDA: FWI_HD
   marks functions for both host and device, so CPU and GPU round the same
   way.  fwi_* run per cell (tests/check_inlined.sh holds them inlined);
   fd_* are set-up work, called once per run. */
#pragma once
#include <math.h>
#include <stddef.h>
#include "options/options.h" /* FWI_MAX_ORDER */

#ifdef __CUDACC__
  #define FWI_HD __host__ __device__
#else
  /* Forced: a helper the compiler leaves out of line is a call per cell
     that costs the CPU kernels' row loops their vectorisation, and GCC's
     inliner drops one when the file around it grows (3D ran 1.7x slower). */
  #define FWI_HD __attribute__((always_inline))
#endif

#define FWI_MAX_RADIUS (FWI_MAX_ORDER / 2)

/* Weights of the central difference of derivative `deriv` (1 or 2) and
   even order `order` for unit spacing, by Fornberg's recursion (Math. Comp.
   51, 1988) over the nodes 0, 1, -1, 2, -2, ...: w[k] for the node at +k,
   k = 0 .. order/2 (the node at -k has w[k] for the second derivative and
   -w[k] for the first).  Host only: the kernels take the weights scaled by
   the spacing from the equation's state. */
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
