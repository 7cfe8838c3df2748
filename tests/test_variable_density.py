#!/usr/bin/env python3
"""-physics variable_density from the command line:

- at constant density its gathers are rho times the constant-density
  equation's for the wavelet's backward difference over dt (the two
  leapfrogs are then one recursion up to the spatial operator: see
  docs/numerics.md), within 5e-3 (relative L2) at order 8 and about 13
  cells a wavelength;
- -rho gardner gives the bits of -rho given as a file holding Gardner's
  densities of the same velocities (310 vp^0.25, 1000 below 1520 m/s);
- 4 ranks (2 x 2) give the bits of 1, with a density contrast and the
  free surface on top;
- -mode gradient writes gradient.rsf (dJ/dvp) and gradient_rho.rsf
  (dJ/drho) on the user's grid, with a free surface on top: each matches a
  central difference of the printed misfit along a smooth direction
  within 1e-2, and 4 ranks (2 x 2) give the bits of 1;
- -gradient_method boundary (the forward fields run backwards in the core,
  the layers' cells taking no gradient): within 1e-5 (relative L2) of full
  storage's gradients on the cells two or more from the layers; along a
  direction zero on the cells next to the layers (which the layers copy) it
  matches the central difference within 1e-2, as full storage does; 4 ranks
  (2 x 2) and 5 (5 x 1: the core's lower edge on a rank boundary, the band
  beyond it on the rank below) give the bits of 1;
- -mode gradient -invert_for vp (the density's image not formed) writes
  gradient.rsf alone, the bits of the run that takes both, by each
  method;
- -mode invert (vp, the density held): from a smoothed start, 3
  iterations bring the misfit below 0.2 of the start's and vp closer to
  the true model; 4 ranks (2 x 2) give the bits of 1, the planner
  expecting the same times of each gradient method on both; the run record,
  which -restart holds a rerun against, names the physics and the density;
- bad input is refused before any work, naming the value: no -rho; -rho
  with -physics acoustic; -rho below 10 kg/m^3; a -rho file on another grid
  or holding a negative density; -gpu_tile, a launch shape this equation's
  CUDA kernels do not take.
"""
import os
import re

import numpy as np

from common import Scratch, check, error_message, gather_path, main, misfit_ratio, read_gather, read_rsf, rel_l2, run, write_model, write_rsf

DT, NT, D = 1e-3, 400, 10.0
NZ, NX = 80, 120
SURVEY = ["-nshots", 1, "-nrec", 24, "-nt", NT, "-dt", DT, "-source_depth", 200, "-receiver_depth", 60, "-order", 8]


def ricker(f0=15.0):
    t = np.arange(NT) * DT - 1.2 / f0
    a = (np.pi * f0 * t) ** 2
    return ((1 - 2 * a) * np.exp(-a)).astype(np.float32)


def constant_density(tmp):
    w = ricker()
    dw = ((w - np.concatenate(([0.0], w[:-1]))) / DT).astype(np.float32)
    write_rsf(os.path.join(tmp, "w.rsf"), w, d=[DT])
    write_rsf(os.path.join(tmp, "dw.rsf"), dw, d=[DT])
    grid = ["-vp", 2000, "-nz", NZ, "-nx", NX, "-dx", D] + SURVEY
    out = run(1, grid + ["-physics", "variable_density", "-rho", 1800, "-wavelet", os.path.join(tmp, "w.rsf")], os.path.join(tmp, "vd"))
    check("physics variable_density" in out and "1800 to 1800 kg/m^3" in out, "the set-up names the physics and the density range")
    run(1, grid + ["-wavelet", os.path.join(tmp, "dw.rsf")], os.path.join(tmp, "ac"))
    p, u = read_gather(os.path.join(tmp, "vd"), 0), read_gather(os.path.join(tmp, "ac"), 0)
    err = rel_l2(p, 1800 * u)
    print(f"constant density: relative L2 {err:.2e} against 1800 x the constant-density gather (limit 5e-3)")
    check(err < 5e-3, f"variable density at constant density differs from the constant-density equation by {err:.2e} (limit 5e-3)")


def layered(tmp):
    """A water layer over a gradient with a dense lens; returns the vp file."""
    z = np.arange(NZ)[None, :] * D
    x = np.arange(NX)[:, None] * D
    vp = np.where(z < 150, 1500.0, 1900.0 + 1.5 * (z - 150)) + 0 * x
    vp += 250 * np.exp(-((x - 600) ** 2 + (z - 500) ** 2) / 100.0 ** 2)
    path = os.path.join(tmp, "vp.rsf")
    write_model(path, vp.astype(np.float32), D)
    return path, vp.astype(np.float32)


def gardner_and_decomposition(tmp):
    vp_path, vp = layered(tmp)
    rho = np.where(vp < 1520, np.float32(1000), (310.0 * vp.astype(np.float64) ** 0.25).astype(np.float32))
    rho_path = os.path.join(tmp, "rho.rsf")
    write_model(rho_path, rho, D)
    base = ["-vp", vp_path, "-physics", "variable_density", "-pml_top", 0] + SURVEY
    run(1, base + ["-rho", "gardner"], os.path.join(tmp, "gardner"))
    run(1, base + ["-rho", rho_path], os.path.join(tmp, "file"))
    run(4, base + ["-rho", rho_path, "-da_processors_z", 2, "-da_processors_x", 2], os.path.join(tmp, "split"))
    g = [read_gather(os.path.join(tmp, d), 0) for d in ("gardner", "file", "split")]
    check(np.abs(g[0]).max() > 0, "the gather is not all zero")
    ga, gb, gc = (np.ascontiguousarray(x).tobytes() for x in g)
    print(f"gardner against the file: {'the same bits' if ga == gb else 'different'}; 4 ranks against 1: {'the same bits' if gb == gc else 'different'}")
    check(ga == gb, "-rho gardner differs from a file of Gardner's densities")
    check(gb == gc, "4 ranks (2 x 2) differ from 1 rank")


def misfit_of(out):
    m = re.search(r"^misfit\s+(\S+)\s*$", out, re.M)
    check(m is not None, "no 'misfit <value>' line in the output")
    return float(m.group(1))


def gradient_check(tmp):
    """Observed data from the layered model with a dense lens; the
    gradient at a smooth start (no lens, flat density) against central
    differences of the misfit, and on 2 x 2 ranks."""
    vp_path, vp = layered(tmp)
    x = np.arange(NX)[:, None] * D
    z = np.arange(NZ)[None, :] * D
    rho_true = np.where(z < 150, 1000.0, 2100.0 + 0 * x) + 300 * np.exp(-((x - 500) ** 2 + (z - 350) ** 2) / 80.0 ** 2)
    rho0 = np.where(z < 150, 1000.0, 2100.0 + 0 * x)
    paths = {}
    for name, a in (("rho_true", rho_true), ("rho0", rho0)):
        paths[name] = write_model(os.path.join(tmp, name + ".rsf"), a.astype(np.float32), D)
    base = ["-physics", "variable_density", "-pml_top", 0] + SURVEY
    obs = os.path.join(tmp, "obs")
    run(1, ["-vp", vp_path, "-rho", paths["rho_true"]] + base, obs)
    grad = base + ["-mode", "gradient", "-observed_dir", obs]

    def misfit(vp_a, rho_a, tag, ranks=1, extra=(), method="full"):
        v = write_model(os.path.join(tmp, f"vp_{tag}.rsf"), vp_a.astype(np.float32), D)
        r = write_model(os.path.join(tmp, f"rho_{tag}.rsf"), rho_a.astype(np.float32), D)
        out_dir = os.path.join(tmp, f"g_{tag}")
        return misfit_of(run(ranks, ["-vp", v, "-rho", r] + grad + ["-gradient_method", method] + list(extra), out_dir)), out_dir

    def gradients(out_dir):
        return [read_rsf(os.path.join(out_dir, f))[0] for f in ("gradient.rsf", "gradient_rho.rsf")]

    def same_bits(a, b):
        return all(open(os.path.join(a, f + "@"), "rb").read() == open(os.path.join(b, f + "@"), "rb").read() for f in ("gradient.rsf", "gradient_rho.rsf"))

    def fd_check(method, grads, direction, tag):
        for name, g, h in (("vp", grads[0], 8.0), ("rho", grads[1], 8.0)):
            dv, dr = (h * direction, 0) if name == "vp" else (0, h * direction)
            Jp, _ = misfit(vp + dv, rho0 + dr, f"{tag}{name}_plus")
            Jm, _ = misfit(vp - dv, rho0 - dr, f"{tag}{name}_minus")
            fd = (Jp - Jm) / (2 * h)
            adj = float(np.sum(g.astype(np.float64) * direction))
            err = abs(adj - fd) / abs(fd)
            print(f"{method}: dJ/d{name} along a smooth direction: gradient {adj:.6e}, central difference {fd:.6e}, relative difference {err:.2e} (limit 1e-2)")
            check(err < 1e-2, f"{method}: gradient_{name}: {adj:.6e} against the central difference {fd:.6e} ({err:.2e})")

    J0, g0 = misfit(vp, rho0, "start")
    full = gradients(g0)
    check(np.all(np.isfinite(full[0])) and np.all(np.isfinite(full[1])) and np.abs(full[1]).max() > 0, "the gradients are finite and not all zero")
    direction = np.cos(0.013 * x + 0.3) * np.sin(0.017 * z + 0.2) + 0 * x * z
    fd_check("full", full, direction, "")
    J4, g4 = misfit(vp, rho0, "split", 4, ["-da_processors_z", 2, "-da_processors_x", 2])
    same = same_bits(g0, g4)
    print(f"4 ranks against 1: misfit {J4:.17g} against {J0:.17g}; gradients {'the same bits' if same else 'different'}")
    check(J4 == J0 and same, "4 ranks (2 x 2) give another misfit or gradient than 1 rank")

    # the boundary method; layers on every side but the top
    _, b0 = misfit(vp, rho0, "boundary", method="boundary")
    bnd = gradients(b0)
    inner = (slice(2, -2), slice(0, -2))  # (x, z): two cells from the layers
    for name, f, b in zip(("vp", "rho"), full, bnd):
        err = rel_l2(b[inner], f[inner])
        print(f"boundary against full: dJ/d{name} relative L2 {err:.2e} on the cells two or more from the layers (limit 1e-5)")
        check(err < 1e-5, f"boundary: dJ/d{name} differs from full storage's by {err:.2e} away from the layers (limit 1e-5)")
    away = np.zeros_like(direction)
    away[1:-1, :-1] = direction[1:-1, :-1]
    fd_check("boundary", bnd, away, "b_")
    for ranks, split in ((4, ["-da_processors_z", 2, "-da_processors_x", 2]), (5, ["-da_processors_z", 5, "-da_processors_x", 1])):
        _, bk = misfit(vp, rho0, f"boundary{ranks}", ranks, split, "boundary")
        same = same_bits(b0, bk)
        print(f"boundary, {ranks} ranks against 1: gradients {'the same bits' if same else 'different'}")
        check(same, f"boundary: {ranks} ranks give another gradient than 1 rank")
    for method, ref in (("full", g0), ("boundary", b0)):
        _, alone = misfit(vp, rho0, f"{method}_vp", extra=["-invert_for", "vp"], method=method)
        same = open(os.path.join(ref, "gradient.rsf@"), "rb").read() == open(os.path.join(alone, "gradient.rsf@"), "rb").read()
        print(f"{method}, -invert_for vp: dJ/dvp {'the same bits' if same else 'different'} as with dJ/drho")
        check(same, f"{method}: -invert_for vp gives another dJ/dvp than the run taking dJ/drho too")
        check(not os.path.exists(os.path.join(alone, "gradient_rho.rsf")), f"{method}: -invert_for vp wrote gradient_rho.rsf")


def smoothed(a, passes=3, half=4):
    k = np.ones(2 * half + 1) / (2 * half + 1)
    s = a.astype(np.float64)
    for _ in range(passes):
        for axis in (0, 1):
            s = np.apply_along_axis(lambda r: np.convolve(np.pad(r, half, mode="edge"), k, "valid"), axis, s)
    return s.astype(np.float32)


def inversion(tmp):
    """After gradient_check, whose observed data and rho0 it reads."""
    _, vp = layered(tmp)
    start = write_model(os.path.join(tmp, "vp_smooth.rsf"), smoothed(vp), D)
    rho0 = os.path.join(tmp, "rho0.rsf")
    args = ["-mode", "invert", "-vp", start, "-rho", rho0, "-physics", "variable_density", "-pml_top", 0] + SURVEY
    args += ["-observed_dir", os.path.join(tmp, "obs"), "-tao_max_it", 3]
    one, four = os.path.join(tmp, "inv1"), os.path.join(tmp, "inv4")
    plans = [re.findall(r"([\d.]+) forward runs", run(n, args + extra, out))
             for n, extra, out in ((1, [], one), (4, ["-da_processors_z", 2, "-da_processors_x", 2], four))]
    print(f"the planner's expected times: {plans[0]} on 1 rank, {plans[1]} on 4")
    check(plans[0] and plans[0] == plans[1], "the planner expects other times on 4 ranks than on 1 (it must not follow the decomposition)")
    ratio = misfit_ratio(one)
    final = read_rsf(os.path.join(one, "vp.rsf"))[0]
    err = [float(np.linalg.norm(m - vp)) for m in (smoothed(vp), final)]
    same = open(os.path.join(one, "vp.rsf@"), "rb").read() == open(os.path.join(four, "vp.rsf@"), "rb").read()
    print(f"inversion for vp, density held: misfit {ratio:.3f} of the start's after 3 iterations (limit 0.2); vp error {err[1]:.4g} against {err[0]:.4g} at the start; "
          f"4 ranks against 1: {'the same bits' if same else 'different'}")
    check(ratio < 0.2, f"the misfit fell only to {ratio:.3f} of the start's")
    check(err[1] < err[0], f"vp moved away from the true model: error {err[1]:.4g} against {err[0]:.4g}")
    check(same, "4 ranks (2 x 2) invert to another vp.rsf than 1 rank")
    record = open(os.path.join(one, "restart", "run.txt")).read()
    check("-physics" in record and "variable_density" in record and "-rho samples" in record,
          "the run record (restart/run.txt) lacks the physics or the density, so a -restart with another -rho would not be refused")


def bad_input(tmp):
    """After gradient_check, whose observed data it reads."""
    vp_path, _ = layered(tmp)
    small = os.path.join(tmp, "small.rsf")
    write_model(small, np.full((NX, NZ - 1), 1000, np.float32), D)
    negative = os.path.join(tmp, "negative.rsf")
    rho = np.full((NX, NZ), 1000, np.float32)
    rho[7, 11] = -3
    write_model(negative, rho, D)
    base = ["-vp", vp_path] + SURVEY
    cases = [
        (["-physics", "variable_density"], "needs -rho"),
        (["-rho", "1000"], "-rho 1000 with -physics acoustic"),
        (["-physics", "variable_density", "-rho", "0.5"], "-rho 0.5"),
        (["-physics", "variable_density", "-rho", small], "expected the same grid"),
        (["-physics", "variable_density", "-rho", negative], "density -3"),
        (["-physics", "variable_density", "-rho", "1000", "-gpu_tile", "8,16"], "-gpu_tile 8,16 (the variable_density equation's CUDA kernels take a thread per cell"),
    ]
    for k, (args, want) in enumerate(cases):
        out_dir = os.path.join(tmp, f"bad{k}")
        out = run(1, base + args, out_dir, expect_fail=True)
        msg = error_message(out)
        print(f"  {' '.join(map(str, args[-2:]))}: {msg}")
        check(want.lower() in msg.lower(), f"{args}: the message does not say '{want}': {msg}")
        check(not os.path.exists(gather_path(out_dir, 0)), f"{args}: a gather was written")


def test():
    with Scratch("variable_density") as tmp:
        constant_density(tmp)
        gardner_and_decomposition(tmp)
        gradient_check(tmp)
        inversion(tmp)
        bad_input(tmp)


if __name__ == "__main__":
    main(test)
