#!/usr/bin/env python3
"""-mode gradient with full storage (test_gradient_boundary.py checks the
boundary method), 2D and 3D (order 8, free surface on top, CPML elsewhere):

(a) finite-difference check: on 1 rank and on 4 ranks (2 shot groups x 2
    subdomains), the central difference (J(m + h dm) - J(m - h dm)) / 2h along
    two random smooth directions dm agrees with <g, dm> to 1e-3 relative.
    h dm peaks at 1 m/s: measured on these models the O(h^2) truncation is
    ~1e-5 there (~2.5e-4 at 4 m/s), and the float32 rounding noise of J, a
    few 1e-6 of J, gives an error of about that divided by the relative change
    of J along h dm.  A direction that happens to be nearly orthogonal to the
    gradient (J changes by < 0.1 %) would therefore measure rounding, not the
    gradient: the directions are drawn in a fixed sequence (fixed seeds) and
    the first two that change J by at least RHO_MIN, are not nearly parallel
    and are nonzero up to the model's faces are used (the choice depends on
    g only, never on a finite difference).  dm is taken from the
    float32 files actually written, dm = (m+ - m-) / 2h, so the rounding of
    the written models does not count.  -vp_max is the same in every run
    (it fixes the time step and the absorbing layers).
(b) decomposition invariance: gradient.rsf on 1 rank, 4 ranks as 2x2
    subdomains, 2 shot groups x 2 subdomains and 3 ranks along x (uneven
    split) is the same bit for bit, each in the layout asked for (printed);
    the misfits agree to 1e-12 relative."""
import os
import re

import numpy as np

import common as c

DX = 10.0
VP_MAX = 2500.0
H = 1.0                # largest model perturbation (m/s)
RHO_MIN = 0.02         # a direction must change J by at least this fraction of J (at h = H)
FD_TOL = 1e-3
GRAD_TOL = 0.0         # max |diff| / max |g| between decompositions: bit for bit
MISFIT_TOL = 1e-12


def misfit_of(out):
    m = re.search(r"^misfit\s+(\S+)\s*$", out, re.M)
    if not m:
        print(out)
        c.fail("no 'misfit <value>' line in the output")
    return float(m.group(1))


def gradient_run(nranks, args, outdir, layout=None):
    out = c.run(nranks, args, outdir)
    if layout is not None:
        c.check_layout(out, *layout)
    path = os.path.join(outdir, "gradient.rsf")
    c.check(os.path.isfile(path), f"missing output {path}")
    g, _ = c.read_rsf(path)
    J = misfit_of(out)
    c.check(np.isfinite(J) and J > 0, f"{outdir}: misfit {J}")
    c.check(np.all(np.isfinite(g)) and np.abs(g).max() > 0, f"{outdir}: gradient zero or not finite")
    return J, g.astype(np.float64)


def direction(shape, seed):
    """Sum of 3 sines of the lowest wavenumbers (1 or 2 half-waves across
    the model on each axis) with random phases; max |dm| = 1.  Nonzero up
    to the model edges (checked)."""
    rng = np.random.default_rng(seed)
    axes = np.meshgrid(*[np.arange(n) / n for n in shape], indexing="ij")
    dm = np.zeros(shape)
    for _ in range(3):
        k = rng.integers(1, 3, size=len(shape)) * np.pi
        phase = rng.uniform(0.0, 2.0 * np.pi)
        dm += rng.uniform(0.5, 1.0) * np.sin(sum(ki * a for ki, a in zip(k, axes)) + phase)
    return dm / np.abs(dm).max()


def edge_mean(a):
    """Mean |a| over the cells on the faces of the model."""
    mask = np.zeros(a.shape, bool)
    for ax in range(a.ndim):
        idx = [slice(None)] * a.ndim
        idx[ax] = 0
        mask[tuple(idx)] = True
        idx[ax] = -1
        mask[tuple(idx)] = True
    return float(np.abs(a[mask]).mean())


def choose_directions(g, J, shape):
    """The first two directions of the fixed sequence (seeds 1, 2, ...) that
    change J by at least RHO_MIN at h = H, and are not nearly parallel."""
    chosen = []
    for seed in range(1, 201):
        dm = direction(shape, seed)
        rho = H * abs(float(np.sum(g * dm))) / J
        if rho < RHO_MIN:
            continue
        if any(abs(np.sum(dm * d)) / (np.linalg.norm(dm) * np.linalg.norm(d)) > 0.9 for _, d, _ in chosen):
            continue
        chosen.append((seed, dm, rho))
        if len(chosen) == 2:
            break
    c.check(len(chosen) == 2, f"only {len(chosen)} of the first 200 directions change J by {RHO_MIN:.0%} "
                              f"(J = {J:.6e}, max |g| = {np.abs(g).max():.3e}): is the gradient nearly zero?")
    for seed, dm, rho in chosen:
        c.check(edge_mean(dm) > 0.1, f"direction {seed}: mean |dm| on the model faces {edge_mean(dm):.3f} "
                                     f"(the test needs directions nonzero up to the edges)")
    return chosen


def models(dim):
    if dim == 2:
        nz, nx = 40, 60
        x = np.arange(nx)[:, None] * DX
        z = np.arange(nz)[None, :] * DX
        true = 2000 + 1.0 * z + 300 * np.exp(-((x - 300) ** 2 + (z - 220) ** 2) / (2 * 60.0 ** 2))
        start = 2000 + 1.0 * z + 100 * np.exp(-((x - 250) ** 2 + (z - 200) ** 2) / (2 * 120.0 ** 2))
        acq = ["-nt", 300, "-dt", 0.002, "-f0", 10, "-nshots", 2, "-nrec", 20, "-pml_width", 10, "-pml_top", 0,
               "-source_depth", 50.0, "-receiver_depth", 60.0, "-progress_interval", 0, "-order", 8]
        # (label, ranks, options, layout (px, pz, py) per group)
        layouts = {
            "groups": (4, ["-shot_groups", 2, "-da_processors_x", 1, "-da_processors_z", 2], (1, 2, 1)),
            "2x2": (4, ["-da_processors_x", 2, "-da_processors_z", 2], (2, 2, 1)),
            "uneven": (3, ["-da_processors_x", 3, "-da_processors_z", 1], (3, 1, 1)),
        }
    else:
        nz, nx, ny = 16, 20, 14
        y = np.arange(ny)[:, None, None] * DX
        x = np.arange(nx)[None, :, None] * DX
        z = np.arange(nz)[None, None, :] * DX
        true = 2000 + 2.0 * z + 300 * np.exp(-((x - 100) ** 2 + (y - 70) ** 2 + (z - 100) ** 2) / (2 * 30.0 ** 2))
        start = 2000 + 2.0 * z + 80 * np.exp(-((x - 90) ** 2 + (y - 60) ** 2 + (z - 90) ** 2) / (2 * 50.0 ** 2))
        acq = ["-nt", 150, "-dt", 0.002, "-f0", 20, "-nshots", 2, "-nrec", 10, "-pml_width", 6, "-pml_top", 0,
               "-source_depth", 30.0, "-receiver_depth", 40.0, "-progress_interval", 0, "-order", 8]
        layouts = {
            "groups": (4, ["-shot_groups", 2, "-da_processors_x", 1, "-da_processors_y", 2, "-da_processors_z", 1],
                       (1, 1, 2)),
            "2x2": (4, ["-da_processors_x", 2, "-da_processors_y", 1, "-da_processors_z", 2], (2, 2, 1)),
            "uneven": (3, ["-da_processors_x", 3, "-da_processors_y", 1, "-da_processors_z", 1], (3, 1, 1)),
        }
    return true.astype(np.float32), start.astype(np.float32), acq, layouts


def survey_2d(scr, extra=()):
    """The 2D case written to scr: (true model path, starting model path,
    observed folder modelled in the true one with extra options, acquisition
    options, layouts)."""
    true, start, acq, layouts = models(2)
    true_path = c.write_model(scr.sub("true.rsf"), true, DX)
    obs = scr.sub("obs")
    c.run(1, ["-mode", "forward", "-vp", true_path] + list(extra) + acq, obs)
    return true_path, c.write_model(scr.sub("start.rsf"), start, DX), obs, acq, layouts


def check_dim(scr, dim, failures):
    tag = f"{dim}D"
    true, start, acq, layouts = models(dim)
    shape = start.shape
    obs = scr.sub(f"obs{dim}")
    c.run(1, ["-mode", "forward", "-vp", c.write_model(scr.sub(f"true{dim}.rsf"), true, DX)] + acq, obs)
    m_path = c.write_model(scr.sub(f"m{dim}.rsf"), start, DX)
    m, _ = c.read_rsf(m_path)
    base = ["-mode", "gradient", "-gradient_method", "full"] + acq + ["-vp_max", VP_MAX, "-observed_dir", obs]

    # gradients at m: 1 rank and the three decompositions
    J1, g1 = gradient_run(1, base + ["-vp", m_path], scr.sub(f"g{dim}_1"), (1, 1, 1))
    c.check(g1.shape == m.shape, f"{tag}: gradient.rsf shape {g1.shape}, model {m.shape}")
    print(f"{tag}: misfit {J1:.17g}, max |g| {np.abs(g1).max():.6e}", flush=True)
    grads = {}
    for name, (n, opts, lay) in layouts.items():
        J, g = gradient_run(n, base + ["-vp", m_path] + opts, scr.sub(f"g{dim}_{name}"), lay)
        grads[name] = (J, g)
        dg = float(np.abs(g - g1).max() / np.abs(g1).max())
        dJ = abs(J - J1) / J1
        print(f"  (b) {tag} {name:6s} ({n} ranks {' '.join(map(str, opts))}): misfit rel diff {dJ:.2e} "
              f"(limit {MISFIT_TOL:.0e}), gradient max|diff|/max|g| {dg:.2e} (limit {GRAD_TOL:.0e})", flush=True)
        if not dJ <= MISFIT_TOL:
            failures.append(f"(b) {tag} {name}: misfit {J:.17g} vs 1 rank {J1:.17g}, rel diff {dJ:.2e} > {MISFIT_TOL:.0e}")
        if not dg <= GRAD_TOL:
            failures.append(f"(b) {tag} {name}: gradient max|diff|/max|g| {dg:.2e} > {GRAD_TOL:.0e}")

    # finite differences along two directions, 1 rank and 2 groups x 2 subdomains
    n4, opts4, _ = layouts["groups"]
    fd_along(scr, str(dim), tag, base, m, choose_directions(g1, J1, shape),
             [("1 rank", 1, [], g1), (f"{n4} ranks, 2 groups", n4, opts4, grads["groups"][1])], failures)


def fd_along(scr, key, tag, args, m, directions, runs, failures):
    """Central differences of the misfit along each (seed, dm, rho) of
    directions, against <g, dm> for every (label, nranks, opts, g) of runs;
    args: the run's options but -vp, m: the model.  The models are written
    as float32, so the perturbation actually written counts."""
    for seed, dm, rho in directions:
        plus = c.write_model(scr.sub(f"m{key}_plus{seed}.rsf"), (m + H * dm).astype(np.float32), DX)
        minus = c.write_model(scr.sub(f"m{key}_minus{seed}.rsf"), (m - H * dm).astype(np.float32), DX)
        mp, _ = c.read_rsf(plus)
        mm, _ = c.read_rsf(minus)
        dme = (mp.astype(np.float64) - mm) / (2 * H)
        big = float(np.abs(mp.astype(np.float64) - m).max())
        for label, n, opts, g in runs:
            Jp = misfit_of(c.run(n, args + opts + ["-vp", plus], scr.sub(f"p{key}_{seed}_{n}")))
            Jm = misfit_of(c.run(n, args + opts + ["-vp", minus], scr.sub(f"q{key}_{seed}_{n}")))
            fd = (Jp - Jm) / (2 * H)
            pred = float(np.sum(g * dme))
            rel = abs(fd - pred) / abs(pred)
            print(f"  (a) {tag} {label}, direction {seed} (max |h dm| {big:.3f} m/s, J changes by {rho:.2%}): "
                  f"FD {fd:.9e}, <g,dm> {pred:.9e}, rel diff {rel:.2e} (limit {FD_TOL:.0e})", flush=True)
            if not rel < FD_TOL:
                failures.append(f"(a) {tag} {label}, direction {seed}: finite difference {fd:.9e} vs <g,dm> {pred:.9e}, "
                                f"rel diff {rel:.2e} >= {FD_TOL:.0e} (J(m+) {Jp:.17g}, J(m-) {Jm:.17g})")

def main():
    scr = c.Scratch("gradient")
    failures = []
    with scr:
        for dim in (2, 3):
            check_dim(scr, dim, failures)
        if failures:
            c.fail(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    c.main(main)
