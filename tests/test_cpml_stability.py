#!/usr/bin/env python3
"""The absorbing layers stay quiet over long runs.  One shot near the top of a
small heterogeneous model, 20 s of recording in 2D, 6 to 8 s in 3D: at order 16
with the default 20 cells of layer, and at order 8 with 10, the largest
|sample| of the gather in its last 2 s must be below 1e-4 of the direct
wave's.  With the CPML's
frequency shift falling to zero at the layer's outer edge, a smooth, almost
static field grew there without bound (to 1e12 of the direct wave by 20 s at
order 16; docs/numerics.md, "Late-time growth")."""
import numpy as np

import common as c

DX = 10.0
DT = 0.002
LIMIT = 1e-4
# model shape ([y,] x, z), seconds, order, layer width (cells)
CASES = (((100, 60), 20.0, 16, 20), ((100, 60), 20.0, 8, 10), ((16, 16, 16), 6.0, 16, 20), ((20, 20, 20), 8.0, 8, 10))


def main():
    with c.Scratch("cpml_stability") as tmp:
        failures = []
        for shape, seconds, order, width in CASES:
            dim = len(shape)
            model = f"{tmp}/vp{dim}.rsf"
            c.write_model(model, c.smooth_random_model(shape, seed=5), DX)
            out = f"{tmp}/o{dim}_{order}"
            c.run(1, ["-mode", "forward", "-vp", model, "-nt", int(round(seconds / DT)), "-dt", DT, "-f0", 10, "-order", order,
                      "-pml_width", width, "-nshots", 1, "-nrec", shape[-2], "-source_depth", 2 * DX,
                      "-receiver_depth", 2 * DX, "-progress_interval", 0], out)
            g = np.abs(c.read_gather(out, 0).astype(np.float64))
            late = g[:, -int(round(2.0 / DT)):].max() / g.max()
            name = f"{dim}D order {order}, {width} cells of layer"
            print(f"  {name}: last 2 s of {seconds:g} s at {late:.2e} of the direct wave (limit {LIMIT:.0e})", flush=True)
            if not late < LIMIT:
                failures.append(f"{name}: {late:.2e} of the direct wave in the last 2 s")
        if failures:
            c.fail("the field grows late in the run:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    c.main(main)
