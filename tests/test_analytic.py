#!/usr/bin/env python3
"""Homogeneous 2D and 3D forward modelling at orders 2, 4 and 8 against the
analytic Green's function of (1/v^2) d_tt - lap convolved with the program's
Ricker wavelet (docs/options.md, "Source convention").

  3D: u(r, t) = w(t - r/v) / (4 pi r)
  2D: U(omega) = W(omega) (-i/4) H0^(2)(omega r / v)   (numpy rfft convention)

Every trace is compared over a window that ends before any wave reflected by
the absorbing layers (which start at the edge of the user's grid) can arrive.
The recording interval is a small fraction of the stability limit so that the
internal step equals -dt and time dispersion is small; what remains is the
spatial dispersion of each order, so the thresholds shrink with the order.
"""
import shutil

import numpy as np
from scipy.special import hankel2

import common as c

V = 2000.0     # m/s
DX = 10.0      # m
F0 = 16.0      # Hz: lambda = 125 m = 12.5 cells
T0 = 1.5 / F0  # program default
# One-sided support of the Ricker: |w(t0 +- 1.1/f0)| < 2e-4 max|w|.  A
# reflected wave cannot reach a receiver before r_image/v + t0 - 1.1/f0;
# keep a margin and stop the window at r_image/v + ONSET.
ONSET = T0 - 1.25 / F0

# FD second-derivative coefficients: the documented stability limit
# dt_stable = 2 / (v sqrt(K sum 1/d^2)), K = |c0| + 2 sum |c_k|.
COEF = {2: [-2.0, 1.0],
        4: [-5 / 2, 4 / 3, -1 / 12],
        8: [-205 / 72, 8 / 5, -1 / 5, 8 / 315, -1 / 560]}


def k_max(order):
    cf = COEF[order]
    return abs(cf[0]) + 2 * sum(abs(x) for x in cf[1:])


def dt_stable(order, dim):
    return 2.0 / (V * np.sqrt(k_max(order) * dim / DX ** 2))


# Relative L2 error thresholds (max over the receivers), per dimension and
# order, with modest headroom above the measured values (2D: 0.535, 0.0466,
# 0.00139; 3D: 0.180, 0.0146, 0.00263 for orders 2, 4, 8).  Order 2 at 12.5
# cells per wavelength is dispersive; its threshold still catches a wrong
# amplitude, delay or stencil.
THRESH = {
    2: {2: 0.60, 4: 0.055, 8: 0.0025},
    3: {2: 0.21, 4: 0.018, 8: 0.004},
}

# ---------------------------------------------------------------------------
# cases: grid size (cells per axis), source cell, receiver offsets (cells,
# in (x, z) or (x, y, z) order), dt as a fraction of the order-8 limit

CASES = {
    2: dict(n=201, src=100, frac=0.1, nranks=1, extra=[],
            recs=[(25, 0), (50, 0), (35, 35), (0, -60)]),
    3: dict(n=61, src=30, frac=0.25, nranks=1, extra=[],
            recs=[(10, 0, 0), (0, 0, 15), (-10, -10, 0), (10, 10, 10)]),
}


def ref_2d(w, dt, r):
    n = len(w)
    npad = 16 * n  # the 2D tail is long: pad well beyond the window
    W = np.fft.rfft(w, npad)
    om = 2 * np.pi * np.fft.rfftfreq(npad, dt)
    G = np.zeros_like(W)
    G[1:] = -0.25j * hankel2(0, om[1:] * r / V)  # DC zeroed (zero-mean wavelet)
    return np.fft.irfft(W * G, npad)[:n]


def ref_3d(t, r):
    return c.ricker(t - r / V, F0, T0) / (4 * np.pi * r)


def image_distance(dim, n, src, rec):
    """Shortest path source -> a face of the user grid -> receiver (metres)."""
    L = (n - 1)
    best = np.inf
    for ax in range(dim):
        for plane in (0, L):
            img = list(src)
            img[ax] = 2 * plane - src[ax]
            best = min(best, DX * np.sqrt(sum((a - b) ** 2 for a, b in zip(img, rec))))
    return best


def run_dim(scr, dim):
    case = CASES[dim]
    n, s = case["n"], case["src"]
    src = (s,) * dim
    recs = [tuple(s + o for o in off) for off in case["recs"]]
    dt = case["frac"] * dt_stable(8, dim)
    r = [DX * np.sqrt(sum((a - b) ** 2 for a, b in zip(src, rec))) for rec in recs]
    rimg = [image_distance(dim, n, src, rec) for rec in recs]
    tend = [ri / V + ONSET for ri in rimg]
    for ri, rr, te in zip(rimg, r, tend):
        c.check(te > rr / V + T0 + 1.1 / F0,
                f"test set-up: window end {te:.4f} s cuts the direct wave (r={rr} m, image {ri} m)")
    nwin = [int(np.floor(te / dt)) + 1 for te in tend]
    nt = max(nwin)
    t = np.arange(nt) * dt
    w = c.ricker(t, F0, T0)

    geo = c.write_geometry(scr.sub(f"geom{dim}d.txt"),
                           [(tuple(DX * x for x in src), [tuple(DX * x for x in rec) for rec in recs])],
                           comment=f"{dim}D analytic test")
    sizes = ["-nx", n, "-nz", n] + (["-ny", n] if dim == 3 else [])
    errs = {}
    for order in (2, 4, 8):
        outdir = scr.sub(f"out{dim}d_o{order}")
        args = ["-mode", "forward", "-vp", V] + sizes + ["-dx", DX, "-order", order,
                                                         "-f0", F0, "-dt", dt, "-nt", nt, "-geometry", geo] + case["extra"]
        out = c.run(case["nranks"], args, outdir)
        dti = c.internal_step(out)
        c.check(abs(dti - dt) <= 1e-6 * dt,
                f"{dim}D order {order}: internal step {dti!r} s, expected -dt = {dt!r} s "
                f"(dt is {dt / c.stability_limit(out):.3f} of the stability limit)")
        g = c.read_gather(outdir, 0)
        c.check(g.shape == (len(recs), nt), f"{dim}D order {order}: gather shape {g.shape}, expected {(len(recs), nt)}")
        c.check(np.all(np.isfinite(g)), f"{dim}D order {order}: non-finite samples in the gather")
        e = []
        for i in range(len(recs)):
            ref = ref_3d(t, r[i]) if dim == 3 else ref_2d(w, dt, r[i])
            k = nwin[i]
            e.append(c.rel_l2(g[i, :k], ref[:k]))
            print(f"  {dim}D order {order}: receiver {i} r = {r[i]:7.1f} m ({r[i] / (V / F0):.2f} wavelengths), "
                  f"window {k * dt:.3f} s, relative L2 error {e[-1]:.5f}", flush=True)
        errs[order] = max(e)
        shutil.rmtree(outdir, ignore_errors=True)
    for order in (2, 4, 8):
        print(f"{dim}D order {order}: max relative L2 error {errs[order]:.5f} (threshold {THRESH[dim][order]})")
    for order in (2, 4, 8):
        c.check(errs[order] <= THRESH[dim][order],
                f"{dim}D order {order}: relative L2 error {errs[order]:.5f} exceeds {THRESH[dim][order]}")
    c.check(errs[8] < errs[4] < errs[2],
            f"{dim}D: errors do not shrink with the order: "
            f"{errs[2]:.5f} (2), {errs[4]:.5f} (4), {errs[8]:.5f} (8)")


def main():
    scr = c.Scratch("analytic")
    with scr:
        run_dim(scr, 2)
        run_dim(scr, 3)


if __name__ == "__main__":
    c.main(main)
