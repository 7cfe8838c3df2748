/* Stencil arithmetic: finite-difference weights exact on polynomials up to
   their order (and not beyond), the second-difference symbol maximum used
   by the CFL limit, the CPML profile, and the adjoint CPML stencils' two
   forms. */
#include "equations/acoustic/stencil.h"
#include "unit_check.h"

static const int orders[] = {2, 4, 6, 8, 10, 12, 14, 16};

/* The d2 weights at unit spacing applied to (x0 + k)^p, against p (p-1) x0^(p-2);
   err and scale (sum of the terms' magnitudes) returned. */
static void D2OnPower(int order, int p, double x0, double *err, double *scale)
{
  const double want = p >= 2 ? p * (p - 1) * pow(x0, p - 2) : 0;
  double       got  = fd_d2_weight(order, 0) * pow(x0, p);

  *scale = PetscAbsReal(got) + PetscAbsReal(want);
  for (int k = 1; k <= order / 2; k++) {
    const double t = fd_d2_weight(order, k) * (pow(x0 + k, p) + pow(x0 - k, p));
    got += t;
    *scale += PetscAbsReal(t);
  }
  *err = PetscAbsReal(got - want);
}

static void D1OnPower(int order, int p, double x0, double *err, double *scale)
{
  const double want = p >= 1 ? p * pow(x0, p - 1) : 0;
  double       got  = 0;

  *scale = PetscAbsReal(want);
  for (int k = 1; k <= order / 2; k++) {
    const double t = fd_d1_weight(order, k) * (pow(x0 + k, p) - pow(x0 - k, p));
    got += t;
    *scale += PetscAbsReal(t);
  }
  *err = PetscAbsReal(got - want);
}

/* Order M: d2 exact for degree <= M + 1, d1 for degree <= M; the next degree
   is not exact (so the weights are not of a different order). */
static PetscErrorCode TestWeights(void)
{
  const double x0s[] = {0.0, 0.375};

  PetscFunctionBeginUser;
  for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
    const int M = orders[o];
    PetscCheck(fd_d1_weight(M, 0) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "order %d: d1 weight c[0] = %g, expected 0", M, fd_d1_weight(M, 0));
    for (size_t j = 0; j < 2; j++) {
      const double x0 = x0s[j];
      double       err, scale;
      for (int p = 0; p <= M + 2; p++) {
        const PetscBool exact = p <= M + 1;
        D2OnPower(M, p, x0, &err, &scale);
        PetscCheck(exact ? err <= 1e-12 * scale : err > 1e-6 * scale, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                   "order %d: d2 weights on x^%d at x=%g: error %.3g (scale %.3g), expected %s", M, p, x0, err, scale, exact ? "exact" : "inexact");
      }
      for (int p = 0; p <= M + 1; p++) {
        const PetscBool exact = p <= M;
        D1OnPower(M, p, x0, &err, &scale);
        PetscCheck(exact ? err <= 1e-12 * scale : err > 1e-6 * scale, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                   "order %d: d1 weights on x^%d at x=%g: error %.3g (scale %.3g), expected %s", M, p, x0, err, scale, exact ? "exact" : "inexact");
      }
    }
  }
  PetscFunctionReturn(0);
}

static double Symbol(int order, double theta)
{
  double s = fd_d2_weight(order, 0);
  for (int k = 1; k <= order / 2; k++) s += 2 * fd_d2_weight(order, k) * cos(k * theta);
  return PetscAbsReal(s);
}

/* max over [0, pi] of |c0 + 2 sum c_k cos(k theta)|: a fine scan, then a
   ternary search around the best sample (the maximum may be interior). */
static PetscErrorCode TestSymbolMax(void)
{
  const int nscan = 20000;

  PetscFunctionBeginUser;
  for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
    const int    M = orders[o];
    const double h = PETSC_PI / nscan;
    double       best = -1, lo, hi, want;
    int          ibest = 0;
    for (int i = 0; i <= nscan; i++) {
      const double s = Symbol(M, i * h);
      if (s > best) {
        best  = s;
        ibest = i;
      }
    }
    lo = PetscMax(0, (ibest - 1) * h);
    hi = PetscMin(PETSC_PI, (ibest + 1) * h);
    for (int it = 0; it < 200; it++) {
      const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
      if (Symbol(M, m1) < Symbol(M, m2)) lo = m1;
      else hi = m2;
    }
    want = PetscMax(best, PetscMax(Symbol(M, lo), Symbol(M, hi)));
    PetscCheck(PetscAbsReal(fd_d2_symbol_max(M) - want) <= 1e-12 * want, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "order %d: fd_d2_symbol_max = %.17g, but the symbol's maximum over [0, pi] is %.17g (at theta = %.6f)", M, fd_d2_symbol_max(M), want,
               0.5 * (lo + hi));
  }
  /* the textbook values of the second-order scheme: 4, and 16/3 at fourth order */
  PetscCheck(fd_d2_symbol_max(2) == 4 && PetscAbsReal(fd_d2_symbol_max(4) - 16.0 / 3) < 1e-14, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "fd_d2_symbol_max(2, 4) = %.17g, %.17g, expected 4, 16/3", fd_d2_symbol_max(2), fd_d2_symbol_max(4));
  PetscFunctionReturn(0);
}

/* CPML weights: b = exp(-(d + alpha) dt) in (0, 1], a = d (b - 1) / (d + alpha)
   in [b - 1, 0]; d = d0 x^P grows with depth and integrates to the target
   reflection coefficient; a = 0 and b = exp(-alpha dt) where d = 0. */
static PetscErrorCode TestCpmlProfile(void)
{
  const double L = 200, vmax = 3000, f = 10, R = 1e-5, P = 3, K = 0.03, dt = 1e-3;
  const double d0 = -(P + 1) * vmax * log(R) / (2 * L);
  const int    nx = 200;
  double       dprev = -1, integral = 0;
  float        a, b;

  PetscFunctionBeginUser;
  /* surface of the layer (x = 0): no damping */
  fd_cpml_profile(0, L, vmax, f, R, P, K, dt, &a, &b);
  PetscCheck(a == 0 && PetscAbsReal(b - exp(-PETSC_PI * f * dt)) <= 1e-7, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "CPML at x = 0: a = %g, b = %.9g, expected 0 and exp(-pi f dt) = %.9g", (double)a, (double)b, exp(-PETSC_PI * f * dt));
  fd_cpml_profile(0, L, vmax, 0, R, P, K, dt, &a, &b);
  PetscCheck(a == 0 && b == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CPML at x = 0 with f = 0: a = %g, b = %g, expected 0 and 1", (double)a, (double)b);
  for (int i = 1; i <= nx; i++) {
    const double x = (double)i / nx;
    double       s, d, dwant, alpha;
    fd_cpml_profile(x, L, vmax, f, R, P, K, dt, &a, &b);
    PetscCheck(b > 0 && b <= 1 && a <= 0 && a >= b - 1 - 1e-7 && isfinite(a), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "CPML at x = %g: a = %g, b = %g, expected 0 < b <= 1 and b - 1 <= a <= 0", x, (double)a, (double)b);
    /* recover d from the weights: d + alpha = -ln(b) / dt, d = a (d + alpha) / (b - 1) */
    s     = -log((double)b) / dt;
    d     = a * s / ((double)b - 1);
    dwant = d0 * pow(x, P);
    alpha = PetscMax(PETSC_PI * f * (1 - x), K * dwant);
    PetscCheck(PetscAbsReal(d - dwant) <= 1e-4 * d0 && PetscAbsReal(s - (dwant + alpha)) <= 1e-4 * (d0 + PETSC_PI * f), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "CPML at x = %g: d = %g, d + alpha = %g, expected %g, %g", x, d, s, dwant, dwant + alpha);
    PetscCheck(d > dprev, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CPML damping does not grow with depth: d = %g at x = %g after %g", d, x, dprev);
    integral += (i == nx ? 0.5 : 1.0) * d * L / nx; /* trapezoid, d(0) = 0 */
    dprev = d;
  }
  fd_cpml_profile(1, L, vmax, f, R, P, K, dt, &a, &b);
  PetscCheck(PetscAbsReal(b - exp(-(1 + K) * d0 * dt)) <= 1e-7 && PetscAbsReal(a - (b - 1) / (1 + K)) <= 1e-7, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "CPML at x = 1 (alpha = kappa d0): a = %g, b = %g, expected b = exp(-(1 + kappa) d0 dt) = %g and a = (b - 1) / (1 + kappa)", (double)a,
             (double)b, exp(-(1 + K) * d0 * dt));
  /* normal-incidence reflection exp(-2 int d / v) is the target R */
  PetscCheck(PetscAbsReal(exp(-2 * integral / vmax) - R) <= 1e-3 * R, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "CPML profile gives a reflection coefficient %g, expected %g", exp(-2 * integral / vmax), R);
  PetscFunctionReturn(0);
}

/* The adjoint CPML stencils from per-cell factors (the CPU's form) against
   the per-neighbour form (CUDA's), bit for bit, every radius, over cells
   inside and outside a layer (pa = pb = pda = 0, E = psi = 0 there) and
   with exact zeros in u: the two must round alike for CPU and GPU
   gradients to agree bit for bit. */
static PetscErrorCode TestAdjointFactors(void)
{
  enum { N = 2 * FWI_MAX_RADIUS + 1, SS = 3, US = 5 };
  float     u[N * US], E[N * SS], psi[N * SS], pa[N], pb[N], pda[N], x[N], y[N], z[N], c1[FWI_MAX_RADIUS + 1], c2[FWI_MAX_RADIUS + 1];
  PetscInt  bad = 0;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  for (int trial = 0; trial < 200; trial++) {
    for (int r = 1; r <= FWI_MAX_RADIUS; r++) {
      const int c = r; /* the cell; neighbours at c +- k */
      PetscReal v;
      for (int k = 0; k <= r; k++) {
        PetscCall(PetscRandomGetValueReal(rnd, &v));
        c2[k] = (float)v;
        PetscCall(PetscRandomGetValueReal(rnd, &v));
        c1[k] = (float)v;
      }
      for (int i = 0; i < 2 * r + 1; i++) {
        const PetscBool in = (trial + i) % 3 != 0; /* a layer cell */
        PetscCall(PetscRandomGetValueReal(rnd, &v));
        u[i * US] = i % 4 == 1 ? 0.0f : (float)v;
        PetscCall(PetscRandomGetValueReal(rnd, &v));
        E[i * SS] = in ? (float)v : 0.0f;
        PetscCall(PetscRandomGetValueReal(rnd, &v));
        psi[i * SS] = in ? (float)v : 0.0f;
        PetscCall(PetscRandomGetValueReal(rnd, &v));
        pa[i] = in ? (float)(-0.5 + 0.4 * v) : 0.0f;
        pb[i] = in ? (float)(0.75 + 0.2 * v) : 0.0f;
        PetscCall(PetscRandomGetValueReal(rnd, &v));
        pda[i] = in ? (float)(0.1 * v) : 0.0f;
        const float t = fwi_adj_cpml_t(u[i * US], pa[i], E[i * SS]);
        x[i]          = fwi_adj_cpml_x(t, pa[i], E[i * SS]);
        y[i]          = fwi_adj_cpml_y(t, pda[i], pa[i], psi[i * SS]);
        z[i]          = fwi_where_nonzero(t, pb[i]);
      }
      const float reach = fwi_adj_cpml_reach(E + c * SS, psi + c * SS, SS, u + c * US, US, pa + c, pda + c, c2, c1, r);
      const float back  = fwi_adj_cpml_psi(psi[c * SS], u + c * US, US, E + c * SS, SS, pa + c, pb + c, c1, r);
      const float rf    = fwi_adj_cpml_reach_xy(x + c, y + c, 1, c2, c1, r);
      const float bf    = fwi_adj_cpml_psi_z(psi[c * SS], z + c, 1, pb[c], c1, r);
      if (memcmp(&reach, &rf, sizeof rf) || memcmp(&back, &bf, sizeof bf)) {
        if (!bad) PetscCall(PetscPrintf(PETSC_COMM_SELF, "radius %d: reach %.9g against %.9g from factors, psi %.9g against %.9g\n", r, (double)reach, (double)rf, (double)back, (double)bf));
        bad++;
      }
    }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " adjoint CPML stencils differ between the factor and per-neighbour forms", bad);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestWeights());
  PetscCall(TestSymbolMax());
  PetscCall(TestCpmlProfile());
  PetscCall(TestAdjointFactors());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_stencil: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
