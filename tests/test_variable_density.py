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
- bad input is refused before any work, naming the value: no -rho; -rho
  with -physics acoustic; -rho below 10 kg/m^3; a -rho file on another grid
  or holding a negative density; -mode gradient (no gradient yet).
"""
import os

import numpy as np

from common import Scratch, check, error_message, gather_path, main, read_gather, rel_l2, run, write_model, write_rsf

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


def bad_input(tmp):
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
        (["-physics", "variable_density", "-rho", "1000", "-mode", "gradient", "-observed_dir", tmp], "no gradient yet"),
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
        bad_input(tmp)


if __name__ == "__main__":
    main(test)
