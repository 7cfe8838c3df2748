#!/usr/bin/env python3
"""The growth of the CPML scheme, from the eigenvalues of one time step of
its 1D form: a homogeneous line of N cells between two layers, zero beyond
them, the state (u, u_prev, psi, zeta) stepped exactly as the kernels step
it (docs/numerics.md, "CPML").  A spectral radius above 1 is a mode that
grows by that factor every step: what "Late-time growth" in
docs/numerics.md measured in 2D runs.

  cpml_modes.py [--kappa K] [--form product|conservative] ORDER:WIDTH ...
  e.g. cpml_modes.py --kappa 0.03 8:8 8:10 16:20

--form product: the kernels' t = (1 + a) d2u + da du + d(b psi);
--form conservative: t = d2u + d(b psi + a du), the derivative of this
step's psi itself (not what the kernels do: shown for comparison).
Defaults: kappa 0.03 (CPML_ALPHA_FLOOR), 60 cells, 3300 m/s, 10 m, 1 ms,
f0 10 Hz, R 1e-5, power 3 (as src/grid/grid.c)."""
import argparse
import math

import numpy as np


def weights(order, deriv):
    """Central weights w[k] for the node at +k, k = 0 .. order/2 (unit spacing)."""
    r = order // 2
    x = np.array([0] + [s * k for k in range(1, r + 1) for s in (1, -1)], dtype=float)
    b = np.zeros(len(x))
    b[deriv] = math.factorial(deriv)
    w = np.linalg.solve(np.vander(x, len(x), increasing=True).T, b)
    return np.array([w[0]] + [w[2 * k - 1] for k in range(1, r + 1)])


def profile(x, L, vmax, f, R, p, dt, kappa):
    d = -(p + 1) * vmax * np.log(R) / (2 * L) * x ** p
    alpha = np.maximum(np.pi * f * (1 - x), kappa * d)
    b = np.exp(-(d + alpha) * dt)
    return np.where(d + alpha > 0, d * (b - 1) / (d + alpha), 0.0), b


def step_matrix(order, width, kappa, form, n=60, v=3300.0, dx=10.0, dt=1e-3, f=10.0):
    r, N = order // 2, n + 2 * width
    c2, c1 = weights(order, 2) / dx ** 2, weights(order, 1) / dx
    pa, pb = np.zeros(N + 2 * r), np.zeros(N + 2 * r)  # r zero ghosts either side
    for i in range(N):
        depth = max(width - i, i - (n + width - 1), 0)
        if depth:
            pa[i + r], pb[i + r] = profile(depth / width, width * dx, v, f, 1e-5, 3.0, dt, kappa)
    pda = np.zeros_like(pa)
    for i in range(r, N + r):
        if pb[i]:
            pda[i] = sum(c1[k] * (pa[i + k] - pa[i - k]) for k in range(1, r + 1))
    inner, layer = slice(r, N + r), pb[r:N + r] != 0

    def d1(x):  # first difference of a padded array, at the cells
        return sum(c1[k] * (x[r + k:N + r + k] - x[r - k:N + r - k]) for k in range(1, r + 1))

    def step(u, up, psi, zeta):
        U = np.pad(u, r)
        d2 = c2[0] * u + sum(c2[k] * (U[r + k:N + r + k] + U[r - k:N + r - k]) for k in range(1, r + 1))
        du = d1(U)
        a, b = pa[inner], pb[inner]
        if form == "product":
            t = (1 + a) * d2 + pda[inner] * du + d1(pb * np.pad(psi, r))
        else:
            t = d2 + d1(np.pad(b * psi + a * du, r))
        zn = np.where(layer, b * zeta + a * t, 0.0)
        un = 2 * u - up + (v * dt) ** 2 * np.where(layer, t + zn, d2)
        return un, u, np.where(layer, b * psi + a * du, 0.0), zn

    M = np.zeros((4 * N, 4 * N))
    for j in range(4 * N):
        e = np.zeros(4 * N)
        e[j] = 1
        M[:, j] = np.concatenate(step(*np.split(e, 4)))
    return M, dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kappa", type=float, default=0.03)
    ap.add_argument("--form", choices=("product", "conservative"), default="product")
    ap.add_argument("cases", nargs="+", metavar="ORDER:WIDTH")
    args = ap.parse_args()
    for case in args.cases:
        order, width = (int(x) for x in case.split(":"))
        M, dt = step_matrix(order, width, args.kappa, args.form)
        ev = np.linalg.eigvals(M)
        e = ev[np.argmax(abs(ev))]
        print(f"order {order:2d}, {width:2d} cells, {args.form}, kappa {args.kappa:g}: spectral radius {abs(e):.9f}, "
              f"x{abs(e) ** (1 / dt):.3g} per second ({'grows' if abs(e) > 1 + 1e-12 else 'stable'}; eigenvalue {e:.6f})")


if __name__ == "__main__":
    main()
