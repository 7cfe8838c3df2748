#!/usr/bin/env python3
"""-record with -physics variable_density: receivers of the particle
velocity beside the pressure.

- each velocity component is recorded at its own staggered node: at order
  2 a vz receiver half a cell below a pressure receiver, and a vx one half
  a cell beyond it, obey the scheme's own velocity update,
  v(n + 1) - v(n) = -(dt / rho) (p_above(n) - p_below(n)) / d, between the
  pressure receivers on the cells either side, to float rounding (limit
  1e-5 of the velocity's range; the traces are the internal steps, -dt
  being the internal step);
- the first component named keeps shot_NNNN.rsf and the others go to
  shot_NNNN_<name>.rsf, the pressure trace equal bit for bit to a run
  without -record;
- 2D on 2 x 2 ranks and 3D on 2 x 2 x 1 ranks (vy too) give the bits of 1
  for every component, with receivers next to the rank boundaries;
- refused before any work, naming the value: a component the equation or
  the dimension lacks, a component twice, -mode gradient's misfit of a
  component whose gather is missing from -observed_dir; and a
  leftover shot_NNNN_vz.rsf is not overwritten without -overwrite.
"""
import os

import numpy as np

from common import Scratch, check, error_message, main, read_rsf, run, write_geometry

D, DT, RHO = 10.0, 1e-3, 1500.0


def traces(out_dir, name):
    a, h = read_rsf(os.path.join(out_dir, name))
    return a.reshape((int(h.get("n2", 1)), int(h["n1"])))


def velocity_update(tmp):
    """Receivers at a cell A (i, j), the cells below (B) and beyond (C) it,
    and the vz and vx nodes between (half a cell below and beyond A)."""
    i, j = 30, 40
    z, x = i * D, j * D
    recs = [(x, z), (x, z + D), (x + D, z), (x, z + D / 2), (x + D / 2, z)]
    geo = write_geometry(os.path.join(tmp, "updates.txt"), [((x - 100.0, z - 120.0), recs)])
    common = ["-physics", "variable_density", "-vp", 2000, "-rho", RHO, "-nx", 90, "-nz", 70, "-dx", D, "-geometry", geo, "-nt", 300, "-dt", DT, "-order", 2, "-f0", 15]
    out = os.path.join(tmp, "updates")
    run(1, common + ["-record", "p,vz,vx"], out)
    for name in ("shot_0000.rsf", "shot_0000_vz.rsf", "shot_0000_vx.rsf", "coords_0000.rsf"):
        check(os.path.exists(os.path.join(out, name)), f"-record p,vz,vx wrote no {name}")
    p, vz, vx = traces(out, "shot_0000.rsf"), traces(out, "shot_0000_vz.rsf"), traces(out, "shot_0000_vx.rsf")
    for name, v, k, other in (("vz", vz[3], 1, "below"), ("vx", vx[4], 2, "beyond")):
        predicted = -(DT / RHO) * (p[k, :-1] - p[0, :-1]) / D
        err = float(np.abs(np.diff(v) - predicted).max() / np.abs(v).max())
        print(f"{name} half a cell {other} a pressure receiver: its step against -(dt/rho) dp/d{name[1]} from the pressure receivers either side: {err:.2e} of its range")
        check(np.abs(v).max() > 0, f"{name}: the trace is all zero")
        check(err < 1e-5, f"{name} is not recorded at its node: its update differs from the scheme's by {err:.2e} of its range (limit 1e-5)")
    plain = os.path.join(tmp, "plain")
    run(1, common, plain)
    same = open(os.path.join(out, "shot_0000.rsf@"), "rb").read() == open(os.path.join(plain, "shot_0000.rsf@"), "rb").read()
    check(same, "the pressure gather differs from a run without -record")
    first = os.path.join(tmp, "vz_first")
    run(1, common + ["-record", "vz,p"], first)
    check(np.array_equal(traces(first, "shot_0000.rsf"), vz) and np.array_equal(traces(first, "shot_0000_p.rsf"), p),
          "-record vz,p: shot_0000.rsf is not vz or shot_0000_p.rsf not p")
    return common, out


def decomposition(tmp):
    """Receivers along lines that cross the rank boundaries of the splits."""
    for dim, procs, comps in ((2, [2, 2], "p,vz,vx"), (3, [2, 2, 1], "p,vz,vx,vy")):
        n = [60, 64] if dim == 2 else [24, 28, 26]  # z, x (, y)
        shots = []
        for s in range(2):
            if dim == 2:
                recs = [(k * 7.3 + 3.0, 296.0 + 1.7 * k) for k in range(60)]
                shots.append(((150.0 + 200 * s, 100.0), recs))
            else:
                recs = [(k * 9.1 + 4.0, 128.0 + 0.9 * k, 115.0 + 0.5 * k) for k in range(26)]
                shots.append(((90.0 + 60 * s, 130.0, 60.0), recs))
        geo = write_geometry(os.path.join(tmp, f"split{dim}.txt"), shots)
        grid = ["-nz", n[0], "-nx", n[1]] + (["-ny", n[2]] if dim == 3 else [])
        common = ["-physics", "variable_density", "-vp", 2000, "-rho", RHO, "-dx", D, "-geometry", geo, "-nt", 160, "-dt", DT, "-order", 4, "-f0", 15,
                  "-record", comps, "-pml_top", 0] + grid
        one, many = os.path.join(tmp, f"one{dim}"), os.path.join(tmp, f"many{dim}")
        run(1, common, one)
        split = ["-da_processors_z", procs[0], "-da_processors_x", procs[1]] + (["-da_processors_y", procs[2]] if dim == 3 else [])
        run(4, common + split, many)
        for s in range(2):
            for c in comps.split(",")[1:] + [""]:
                name = f"shot_{s:04d}{'_' + c if c else ''}.rsf"
                a, b = traces(one, name), traces(many, name)
                check(np.abs(a).max() > 0, f"{dim}D {name}: all zero")
                check(a.tobytes() == b.tobytes(), f"{dim}D {name}: {procs} ranks record other bits than 1 (largest difference {np.abs(a - b).max():.3g})")
        print(f"{dim}D, {comps}: {'x'.join(map(str, procs))} ranks give the bits of 1 for every component")


def bad_input(tmp, common, out):
    cases = [
        (common + ["-record", "p,vy"], "'vy' is not a component"),
        (common + ["-record", "p,vz,p"], "p is listed twice"),
        ([a for a in common if a not in ("-physics", "variable_density", "-rho", RHO)] + ["-record", "p,vz"], "'vz' is not a component the acoustic"),
        (common + ["-mode", "gradient", "-observed_dir", out, "-record", "vx,vz,p"], "shot_0000_p.rsf is missing"),
    ]
    for k, (args, want) in enumerate(cases):
        msg = error_message(run(1, args, os.path.join(tmp, f"bad{k}"), expect_fail=True))
        print(f"  {want}: {msg}")
        check(want in msg, f"the message does not say \"{want}\": {msg}")
        check(not os.path.exists(os.path.join(tmp, f"bad{k}", "shot_0000.rsf")), f"{args}: a shot was written")
    # a component's gather left from an earlier run blocks a new one
    again = os.path.join(tmp, "again")
    os.makedirs(again)
    open(os.path.join(again, "shot_0000_vz.rsf"), "w").write("earlier\n")
    msg = error_message(run(1, common + ["-record", "p,vz"], again, expect_fail=True))
    print(f"  a leftover component gather: {msg}")
    check("shot_0000_vz.rsf exists" in msg, f"a leftover shot_0000_vz.rsf was not named: {msg}")
    check(open(os.path.join(again, "shot_0000_vz.rsf")).read() == "earlier\n", "the leftover shot_0000_vz.rsf was changed")


def test():
    with Scratch("vd_components") as tmp:
        common, out = velocity_update(tmp)
        decomposition(tmp)
        bad_input(tmp, common, out)


if __name__ == "__main__":
    main(test)
