#!/usr/bin/env python3
"""The absorbing layers stay quiet over long runs.  One shot near the top of a
small heterogeneous 2D model, 20 s of recording: at order 16 with the default
20 cells of layer, and at order 8 with 10, the largest |sample| of the gather
in its last 2 s must be below 1e-4 of the direct wave's.  With the CPML's
frequency shift falling to zero at the layer's outer edge, a smooth, almost
static field grew there without bound (to 1e12 of the direct wave by 20 s at
order 16; docs/numerics.md, "Late-time growth")."""
import numpy as np

import common as c

DX = 10.0
SECONDS, DT = 20.0, 0.002
LIMIT = 1e-4
CASES = ((16, 20), (8, 10))  # order, layer width (cells)


def main():
    with c.Scratch("cpml_stability") as tmp:
        vp = c.smooth_random_model((100, 60), seed=5)  # (x, z)
        model = tmp + "/vp.rsf"
        c.write_model(model, vp, DX)
        nt = int(round(SECONDS / DT))
        tail = int(round(2.0 / DT))
        failures = []
        for order, width in CASES:
            out = f"{tmp}/o{order}"
            c.run(1, ["-mode", "forward", "-vp", model, "-nt", nt, "-dt", DT, "-f0", 10, "-order", order,
                      "-pml_width", width, "-nshots", 1, "-nrec", 100, "-source_depth", 2 * DX,
                      "-receiver_depth", 2 * DX, "-progress_interval", 0], out)
            g = np.abs(c.read_gather(out, 0).astype(np.float64))
            late = g[:, -tail:].max() / g.max()
            print(f"  order {order}, {width} cells of layer: last 2 s of {SECONDS:g} s at {late:.2e} of the direct wave "
                  f"(limit {LIMIT:.0e})", flush=True)
            if not late < LIMIT:
                failures.append(f"order {order}, {width} cells: {late:.2e} of the direct wave in the last 2 s")
        if failures:
            c.fail("the field grows late in the run:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    c.main(main)
