#!/usr/bin/env python3
"""Rows lengthened against cache aliasing (grid.h: GridPaddedCells) give the
same bits as rows that are not.  2D, 976 z x 6 x cells, 20 layer cells a
side, order 8: a rank that owns every z cell has padded rows of
976 + 40 + 8 = 1024 floats, 4096 bytes, which the grid lengthens to 1088;
split in two along z, each rank's rows (516 floats) stay as they are; split
in two along x, both ranks' rows are lengthened.  For each equation
(acoustic, variable density, elastic) the gathers of 1 rank, 2 along z and
2 along x are bit for bit the same, and so are the gradients (full storage
and the boundary method) of the acoustic and variable-density equations.
3D, 8^3 cells, 8 layer cells a side: padded planes of 32 x 32 floats,
4096 bytes, which the grid moves off the page by rows of 34 floats; split
in two along x the planes are 32 x 20 and stay as they are, along y they
are lengthened again; the gathers of the three equations bit for bit.
"""
import os

import numpy as np

import common as c

DX = 10.0
NZ, NX = 976, 6
PHYSICS = {
    "acoustic": [],
    "variable_density": ["-physics", "variable_density", "-rho", 1900],
    "elastic": ["-physics", "elastic", "-vs", 1100, "-rho", 1900],
}
SPLITS = {"1": ["-da_processors_z", 1, "-da_processors_x", 1],
          "z2": ["-da_processors_z", 2, "-da_processors_x", 1],
          "x2": ["-da_processors_z", 1, "-da_processors_x", 2]}


def check_3d(scr):
    n = 8
    vp = c.smooth_random_model((n, n, n), seed=6, vmin=1800.0, vmax=2600.0, sigma=2.0)
    true = c.write_model(scr.sub("true3d.rsf"), vp, DX)
    shots = [((DX * 3.5, DX * 4, DX * 2), [(DX * i, DX * 6, DX * 1) for i in range(n)] + [(DX * 2, DX * j, DX * 6.5) for j in range(n)])]
    geo = c.write_geometry(scr.sub("geom3d.txt"), shots, comment="row pitch test, 3D")
    common = ["-mode", "forward", "-vp", true, "-geometry", geo, "-order", 8, "-pml_width", 8, "-f0", 25, "-dt", 0.001,
              "-nt", 120, "-progress_interval", 0]
    splits = {"1": [], "x2": ["-da_processors_x", 2, "-da_processors_y", 1, "-da_processors_z", 1],
              "y2": ["-da_processors_x", 1, "-da_processors_y", 2, "-da_processors_z", 1]}
    for name, extra in PHYSICS.items():
        ref = scr.sub(f"3d_{name}_1")
        for split, procs in splits.items():
            out = scr.sub(f"3d_{name}_{split}")
            c.run(2 if split != "1" else 1, common + extra + procs, out)
            if split != "1":
                c.compare_bitwise(ref, out, 1, f"3D {name}, 2 ranks ({split}) vs 1 rank")
        g = c.read_gather(ref, 0)
        c.check(np.abs(g).max() > 0 and np.all(np.isfinite(g)), f"3D {name}: the gather is zero or not finite")


def main():
    scr = c.Scratch("row_pitch")
    with scr:
        vp = c.smooth_random_model((NX, NZ), seed=5, vmin=1800.0, vmax=2600.0)
        true = c.write_model(scr.sub("true.rsf"), vp, DX)
        start = c.write_model(scr.sub("start.rsf"), np.full((NX, NZ), 2150, np.float32), DX)
        shots = [((DX * 2.5, DX * 30), [(DX * i, DX * 12) for i in range(NX)]),
                 ((DX * 1, DX * 900.5), [(DX * 4.3, DX * k) for k in range(850, NZ)])]
        geo = c.write_geometry(scr.sub("geom.txt"), shots, comment="row pitch test")
        common = ["-geometry", geo, "-order", 8, "-pml_width", 20, "-f0", 15, "-dt", 0.001, "-nt", 220,
                  "-progress_interval", 0]
        for name, extra in PHYSICS.items():
            args = ["-mode", "forward", "-vp", true] + common + extra
            ref = scr.sub(f"{name}_1")
            for split, procs in SPLITS.items():
                out = scr.sub(f"{name}_{split}")
                c.run(2 if split != "1" else 1, args + procs, out)
                if split != "1":
                    c.compare_bitwise(ref, out, 2, f"{name}, 2 ranks ({split}) vs 1 rank")
            g = c.read_gather(ref, 1)
            c.check(np.abs(g).max() > 0 and np.all(np.isfinite(g)), f"{name}: the deep shot's gather is zero or not finite")
            if name == "elastic":
                continue
            for method in ("full", "boundary"):
                grads = {}
                for split, procs in SPLITS.items():
                    out = scr.sub(f"{name}_{method}_{split}")
                    c.run(2 if split != "1" else 1, ["-mode", "gradient", "-vp", start, "-observed_dir", ref,
                                                     "-gradient_method", method] + common + extra + procs, out)
                    grads[split] = c.read_rsf(os.path.join(out, "gradient.rsf"))[0]
                c.check(np.abs(grads["1"]).max() > 0, f"{name} {method}: the single-rank gradient is zero")
                for split in ("z2", "x2"):
                    d = np.abs(grads[split].astype(np.float64) - grads["1"]).max()
                    c.check(np.array_equal(grads[split], grads["1"]), f"{name} {method}: 2 ranks ({split}) differ from 1 rank: max |diff| {d:.3g}")
                print(f"  {name} {method} gradient: 2 ranks along z and along x bit for bit the single-rank one", flush=True)
        check_3d(scr)


if __name__ == "__main__":
    c.main(main)
