#!/usr/bin/env python3
"""Lamb's problem for a buried explosion: -physics elastic under a free
surface (-pml_top 0, the stress image method) against Garvin's exact
solution (Garvin 1956, "Exact transient solution of the buried line source
problem", Proc. R. Soc. Lond. A 234, 528-541).

A line source of dilatation (-source_type pressure) at depth h in a
homogeneous Poisson solid (vp = sqrt 3 vs) under a stress-free plane; the
particle velocities vz and vx a few cells from the surface, at offsets of 1
to 10 source depths, where the direct P, the P to S conversions and the
Rayleigh pulse arrive.

The reference is computed here by the Cagniard-de Hoop method.  With
the P potential phi of the explosion, (1/vp^2) phi_tt - lap phi = F(t)
delta(x) delta(z - h), z down, u = grad phi + curl (0, psi, 0) (u_x =
phi_x - psi_z, u_z = phi_z + psi_x), and a Laplace transform in time (s)
and plane waves exp(-s p x) along the surface, the incident wave
1/(2 eta_a) exp(-s (p x + eta_a |z - h|)) meets the surface z = 0 and
leaves a reflected P wave (b) and an S wave (c),

    b = (4 p^2 eta_a eta_b - g^2) / (2 eta_a D),  c = -2 p g / D,
    g = 1/vs^2 - 2 p^2,  D = g^2 + 4 p^2 eta_a eta_b (Rayleigh's function),
    eta_a = sqrt(1/vp^2 - p^2),  eta_b = sqrt(1/vs^2 - p^2),

that zero sigma_zz and sigma_xz there (checked below by finite
differences).  A velocity component is then s^2 F(s) (1/(2 pi i)) times
the integral over p of K(p) exp(-s (p x + eta_a h)) on the surface, K the
amplitudes times the derivatives' factors (vz: eta_a a - eta_a b - p c;
vx: -p a - p b + eta_b c).  Cagniard's path p(t) = (t x + i h sqrt(t^2 -
R^2/vp^2)) / R^2, R^2 = x^2 + h^2, makes the exponent -s t, so that the
integral is the Laplace transform of (1/pi) Im[K dp/dt], zero before t =
R / vp, and the velocity that convolved with F''.  The singularity of
dp/dt at the P arrival goes with t = R/vp + sigma^2.  At depth z the
three terms carry exp(+s eta_a z), exp(-s eta_a z) and exp(-s eta_b z)
besides: on the same path these are complex delays of the wavelet, exact
for an entire wavelet such as the Ricker (the Laplace transforms agree),
and accurate in floating point for the few metres of the velocities'
nodes below the surface.

The program's explosion: p = rho (K_D / (lambda + 2 mu))^2 G * dq/dt
(tests/test_elastic.py, K_D = lambda + mu in 2D plane strain) makes
phi_t = -K_D / (lambda + 2 mu) G * q, q the wavelet.  Its velocities are
recorded at the start of a step, before the step's stages, so a velocity
sample n is the field of time (n - 1) dt (the stresses, half a step
later, are those of (n - 1/2) dt, which the explosion's backward
difference of the wavelet matches in tests/test_elastic.py): the
reference is delayed by one step.  Checked before use: the incident term
alone against the full space's P wave (Hankel functions), the vertical
incidence far from the source (twice the incident wave), the surface's
tractions, and the Rayleigh pulse's speed.

Each component is compared on its own nodes, where the program records a
point alone: vz half a cell below the surface, vx on the surface row half a
cell along x; relative L2 over a window that ends before the absorbing
layers' reflections arrive (P from the image of the source in the nearest
face of the grid); on 10 m and 5 m cells (the finer on 2 ranks), at
orders 2 and 8: within thresholds on the finer cells, and the errors
falling at least 3 times as the cells halve (4 for a second-order error),
so that a mismatch that does not fall with the cells fails whatever its
size.  No stress stencil reads a velocity beyond the surface: at order 8
those of the three rows under it are narrowed (docs/numerics.md,
"Elastic"), which this test holds to the exact solution.

The orders to check are the arguments (default 2); ctest runs order 8
as lamb_order8.
"""
import shutil
import sys

import numpy as np
from scipy.signal import hilbert
from scipy.special import hankel2

import common as c
from test_elastic import staggered_weights

VP, RHO = 3000.0, 2200.0
VS = VP / np.sqrt(3.0)  # a Poisson solid, Garvin's and Lamb's case
MU = RHO * VS ** 2
LAM = RHO * VP ** 2 - 2 * MU
AMP = (LAM + MU) / (LAM + 2 * MU)  # K_D / (lambda + 2 mu), plane strain
F0 = 10.0  # Hz: the S wavelength at the peak is 173 m, the Rayleigh 159 m
T0 = 1.5 / F0
ONSET = T0 - 1.25 / F0
DEPTH = 50.0  # m, the source's
OFFSETS = (50.0, 100.0, 200.0, 300.0, 500.0)  # m: 1 to 10 source depths
WINDOW = 0.6  # s: the Rayleigh pulse has passed the farthest receiver

# measured, the largest relative L2 error over the offsets on 10 m / 5 m
# cells: order 2, vz 0.0891 / 0.0201 and vx 0.0597 / 0.0144 (4.4 and 4.1
# times less; a reference a step late: 0.0275 and 0.0284 on 5 m, falling
# 2.1 and 2.2 times; vs 2% high: 0.32 and 0.16; the source a cell deeper:
# 0.22 and 0.11).  Order 8 (2026-12-02), with the
# stress stencils under the surface narrowed: vz 0.0942 / 0.0271, vx
# 0.0469 / 0.0135 (3.5 times less each), the traces 0.986-1.000 of
# Garvin's (before, reading velocities held at 0 beyond the surface:
# 0.119 / 0.070 and 0.080 / 0.062, the traces 0.93-0.94 of Garvin's
# whatever the cells, which these thresholds fail).
THRESH = {"order 2 vz": 0.028, "order 2 vx": 0.02, "order 8 vz": 0.04, "order 8 vx": 0.025}
FALL = 3.0


def rayleigh_root(vp, vs):
    """The Rayleigh speed over vs: the root of (2 - x^2)^2 = 4 sqrt(1 - x^2) sqrt(1 - (vs/vp)^2 x^2)."""
    from scipy.optimize import brentq
    a2 = (vs / vp) ** 2
    return brentq(lambda x: (2 - x * x) ** 2 - 4 * np.sqrt(1 - x * x) * np.sqrt(1 - a2 * x * x), 0.5, 0.999)


def ricker_rate(t):
    """d/dt of the Ricker wavelet (F0, T0), for complex t too."""
    tt = t - T0
    a = (np.pi * F0 * tt) ** 2
    return 2 * np.pi ** 2 * F0 ** 2 * tt * (2 * a - 3) * np.exp(-a)


def coefficients(p, vp, vs):
    """eta_a, eta_b, and the incident, reflected P and S potentials'
    amplitudes (a, b, c) of plane wave p (module docstring)."""
    ea = np.sqrt(1 / vp ** 2 - p ** 2 + 0j)
    eb = np.sqrt(1 / vs ** 2 - p ** 2 + 0j)
    g = 1 / vs ** 2 - 2 * p ** 2
    d = g ** 2 + 4 * p ** 2 * ea * eb
    a = 1 / (2 * ea)
    return ea, eb, a, a * (4 * p ** 2 * ea * eb - g ** 2) / d, -2 * p * g / d


def garvin(t, x, z, h, vp=VP, vs=VS, terms="irs", nsig=4000):
    """Particle velocity (vz, vx) at offset x > 0 and depth z >= 0 (a few
    metres at most) from the line source (1/vp^2) phi_tt - lap phi = F
    delta at depth h with F'' = the Ricker's rate (F' the Ricker), times t;
    terms: i the incident wave, r the reflected P, s the S."""
    R = np.hypot(x, h)
    tp = R / vp
    sig = np.linspace(0.0, np.sqrt(max(np.max(t) - tp, 0.0)) + 1e-9, nsig)
    q = np.sqrt(2 * tp + sig ** 2)
    tau = tp + sig ** 2
    p = (tau * x + 1j * h * sig * q) / R ** 2  # Cagniard's path, Im p >= 0
    dp = (2 * sig * x + 1j * h * (q + sig ** 2 / q)) / R ** 2  # dp/dsigma
    ea = (tau - p * x) / h  # on the path, the branch of Re >= 0
    _, eb, a, b, cs = coefficients(p, vp, vs)
    parts = {"i": (ea * a, -p * a, ea * z), "r": (-ea * b, -p * b, -ea * z), "s": (-p * cs, eb * cs, -eb * z)}
    wq = np.full(nsig, sig[1] - sig[0])  # the trapezoidal rule in sigma
    wq[0] *= 0.5
    wq[-1] *= 0.5
    vz, vx = np.zeros(len(t)), np.zeros(len(t))
    for k0 in range(0, len(t), 128):
        tk = np.asarray(t[k0:k0 + 128], dtype=float)[:, None]
        sz = np.zeros((tk.shape[0], nsig), complex)
        sx = np.zeros_like(sz)
        for key in terms:
            kz, kx, shift = parts[key]
            w = ricker_rate(tk - tau[None, :] + shift[None, :])
            sz += (kz * dp)[None, :] * w
            sx += (kx * dp)[None, :] * w
        vz[k0:k0 + 128] = np.imag(sz) @ wq / np.pi
        vx[k0:k0 + 128] = np.imag(sx) @ wq / np.pi
    return vz, vx


def full_space(t, x, dz):
    """The same source's velocity in a full space, (vz, vx) at offset (x,
    dz) from it: grad (G * F'), G = -(i/4) H0^(2)(omega r / vp) (numpy's
    e^{+i omega t}), by FFT; t from 0 on a uniform axis."""
    n, dt = len(t), t[1] - t[0]
    npad = 16 * n
    r = np.hypot(x, dz)
    om = 2 * np.pi * np.fft.rfftfreq(npad, dt)
    k = om[1:] / VP
    dg = np.zeros(len(om), complex)
    dg[1:] = 0.25j * k * hankel2(1, k * r)  # d/dr of G
    s = np.fft.irfft(np.fft.rfft(c.ricker(np.arange(npad) * dt, F0, T0)) * dg, npad)[:n]
    return s * dz / r, s * x / r


def check_reference():
    """Garvin's solution as computed here, before the program meets it."""
    t = np.arange(1200) * 5e-4
    # the incident term alone is the full space's P wave, on the surface and 5 m under it
    worst = 0.0
    for x, z in ((50.0, 0.0), (300.0, 0.0), (100.0, 5.0)):
        gz, gx = garvin(t, x, z, DEPTH, terms="i")
        fz, fx = full_space(t, x, z - DEPTH)
        worst = max(worst, c.rel_l2(gz, fz), c.rel_l2(gx, fx))
    print(f"reference: the incident term against the full space's P wave (Hankel functions): relative L2 {worst:.1e}")
    c.check(worst < 1e-5, f"the Cagniard path's incident term differs from the full space's P wave by {worst:.2e}")
    # the surface's tractions vanish: finite differences of the potentials' plane waves
    worst = 0.0
    s, e, x0 = 7.0, 1e-3, 13.0
    for p in (1e-4 + 2e-4j, 3e-4 + 1e-5j, 5.5e-4 + 2e-5j, 7e-4 + 3e-5j):
        ea, eb, a, b, cs = coefficients(p, VP, VS)
        phi = lambda x, z: a * np.exp(-s * (p * x + ea * (DEPTH - z))) + b * np.exp(-s * (p * x + ea * (DEPTH + z)))
        psi = lambda x, z: cs * np.exp(-s * (p * x + ea * DEPTH + eb * z))
        dx_ = lambda f: lambda x, z: (f(x + e, z) - f(x - e, z)) / (2 * e)
        dz_ = lambda f: lambda x, z: (f(x, z + e) - f(x, z - e)) / (2 * e)
        ux = lambda x, z: dx_(phi)(x, z) - dz_(psi)(x, z)
        uz = lambda x, z: dz_(phi)(x, z) + dx_(psi)(x, z)
        szz = LAM * dx_(ux)(x0, 0) + (LAM + 2 * MU) * dz_(uz)(x0, 0)
        sxz = MU * (dz_(ux)(x0, 0) + dx_(uz)(x0, 0))
        scale = (LAM + 2 * MU) * abs(dz_(dz_(phi))(x0, 0))  # the incident wave's own stress
        worst = max(worst, abs(szz) / scale, abs(sxz) / scale)
    print(f"reference: tractions on the surface by finite differences, at most {worst:.1e} of the incident wave's")
    c.check(worst < 1e-4, f"the reflection coefficients leave a traction of {worst:.2e} on the surface")
    # vertical incidence far from the source: the surface moves twice as much as the incident wave
    h = 1500.0
    tv = T0 + h / VP + np.arange(-120, 240) * 1e-3
    gz, _ = garvin(tv, 1e-3, 0.0, h)
    fz, _ = full_space(np.arange(len(tv) + 2000) * 1e-3, 1e-3, -h)
    fz = fz[int(round(tv[0] / 1e-3)):][:len(tv)]
    ratio = gz @ fz / (fz @ fz)
    print(f"reference: vertical incidence from {h:.0f} m: the surface's vz {ratio:.4f} times the incident wave's (plane waves: 2)")
    c.check(abs(ratio - 2) < 0.005, f"vertical incidence: the surface moves {ratio:.4f} times the incident wave, not 2")
    # the Rayleigh pulse: its envelope's peak moves at the Rayleigh speed
    c_r = rayleigh_root(VP, VS) * VS
    offs = (1500.0, 2500.0)
    tr = np.arange(int((offs[1] / c_r + 2 * T0) / 1e-3)) * 1e-3
    peaks = [tr[np.argmax(np.abs(hilbert(garvin(tr, x, 0.0, DEPTH)[0])))] for x in offs]
    speed = (offs[1] - offs[0]) / (peaks[1] - peaks[0])
    print(f"reference: the Rayleigh pulse's envelope moves at {speed:.1f} m/s between {offs[0]:.0f} and {offs[1]:.0f} m; Rayleigh's root {c_r:.1f} m/s")
    c.check(abs(speed / c_r - 1) < 0.005, f"the reference's Rayleigh pulse moves at {speed:.1f} m/s, the Rayleigh root is {c_r:.1f}")


def dt_of(dx, order):
    """0.4 of the stability limit (test_elastic.dt_of's)."""
    return 0.4 / (VP * np.sum(np.abs(staggered_weights(order // 2))) * np.sqrt(2) / dx)


def surface_case(scr, dx):
    """The grid, the survey and Garvin's traces on cells of dx metres: a
    Rayleigh pulse that has passed the farthest receiver when the window
    ends, and each trace's window ending before the P reflection from the
    bottom, left or right face (that of the source's image in it) arrives.
    The step is order 8's, for both orders."""
    margin = (VP * WINDOW - OFFSETS[-1]) / 2
    xs = int(np.ceil(margin / dx))  # the source's column
    nx = xs + int(np.ceil((OFFSETS[-1] + margin) / dx)) + 1
    nz = int(np.ceil((VP * WINDOW + DEPTH) / 2 / dx)) + 1
    src = (xs * dx, round(DEPTH / dx) * dx)
    dt = dt_of(dx, 8)
    nt = int(WINDOW / dt) + 1
    # each component on its own nodes: vz at (i, 1/2) cells, vx at (i + 1/2, 0)
    pos = {"vz": [(src[0] + x, dx / 2) for x in OFFSETS], "vx": [(src[0] + x + dx / 2, 0.0) for x in OFFSETS]}
    geo = c.write_geometry(scr.sub(f"lamb{dx:g}.txt"), [(src, pos["vz"] + pos["vx"])], comment=f"Lamb's problem, {dx:g} m cells")
    t = np.arange(nt) * dt
    refs = {}
    for j, comp in enumerate(("vz", "vx")):
        refs[comp] = []
        for x, z in pos[comp]:
            faces = (np.hypot(x - src[0], 2 * (nz - 1) * dx - src[1] - z), np.hypot(x + src[0], z - src[1]),
                     np.hypot(2 * (nx - 1) * dx - src[0] - x, z - src[1]))
            m = min(nt, int(np.floor((min(faces) / VP + ONSET) / dt)) + 1)
            # a velocity sample n is the field of (n - 1) dt
            refs[comp].append((x - src[0], z, -AMP * garvin(t[:m] - dt, x - src[0], z, src[1])[j]))
    args = ["-physics", "elastic", "-vp", VP, "-vs", VS, "-rho", RHO, "-nz", nz, "-nx", nx, "-dx", dx, "-f0", F0, "-dt", dt, "-nt", nt,
            "-pml_top", 0, "-geometry", geo, "-record", "vz,vx"]
    return {"dx": dx, "dt": dt, "args": args, "refs": refs, "src": src}


def lamb(scr, case, order, nranks=1):
    """The program against Garvin: each component's largest relative L2
    error over the offsets, and the mean of the scales of Garvin's traces
    that fit the program's best."""
    dx = case["dx"]
    out = scr.sub(f"lamb{dx:g}_{order}")
    c.run(nranks, case["args"] + ["-order", order], out)
    errs, scales = {}, {}
    for j, comp in enumerate(("vz", "vx")):
        a, h = c.read_rsf(f"{out}/shot_0000{'' if j == 0 else '_vx'}.rsf")
        n = len(OFFSETS)
        g = a.reshape((int(h["n2"]), int(h["n1"])))[j * n:(j + 1) * n]
        errs[comp], scales[comp] = [], []
        for k, (x, z, ref) in enumerate(case["refs"][comp]):
            trace = g[k, :len(ref)]
            errs[comp].append(c.rel_l2(trace, ref))
            scales[comp].append(trace @ ref / (ref @ ref))
            print(f"  {dx:g} m cells, order {order}: {comp} at {x:.1f} m, {z:g} m deep, to {len(ref) * case['dt']:.3f} s: relative L2 error "
                  f"{errs[comp][-1]:.4f} (Garvin's trace scaled by {scales[comp][-1]:.4f} fits it best)")
    shutil.rmtree(out, ignore_errors=True)
    return {comp: max(e) for comp, e in errs.items()}, {comp: float(np.mean(v)) for comp, v in scales.items()}


def main():
    check_reference()
    scr = c.Scratch("lamb")
    with scr:
        cases = [surface_case(scr, dx) for dx in (10.0, 5.0)]
        failures = []
        for order in [int(a) for a in sys.argv[1:]] or [2]:
            (coarse, sc), (fine, sf) = lamb(scr, cases[0], order), lamb(scr, cases[1], order, nranks=2)
            for comp in ("vz", "vx"):
                limit = THRESH[f"order {order} {comp}"]
                print(f"Lamb's problem, order {order}, {comp}: the largest relative L2 error {coarse[comp]:.4f} on 10 m cells, {fine[comp]:.4f} on 5 m "
                      f"({coarse[comp] / fine[comp]:.2f} times less; threshold {limit} on 5 m, at least {FALL} times less); "
                      f"the traces {sc[comp]:.4f} and {sf[comp]:.4f} of Garvin's on the mean")
                if fine[comp] > limit:
                    failures.append(f"order {order}: {comp}'s relative L2 error {fine[comp]:.4f} on 5 m cells exceeds {limit} "
                                    f"(the traces {sf[comp]:.4f} of Garvin's on the mean)")
                if coarse[comp] < FALL * fine[comp]:
                    failures.append(f"order {order}: {comp}'s error falls from {coarse[comp]:.4f} to {fine[comp]:.4f} as the cells halve, "
                                    f"less than {FALL} times (the traces {sc[comp]:.4f} and {sf[comp]:.4f} of Garvin's on the mean)")
        c.check(not failures, "; ".join(failures))


if __name__ == "__main__":
    c.main(main)
