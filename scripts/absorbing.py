#!/usr/bin/env python3
"""What the absorbing layers let through: one shot near the top of a smooth
heterogeneous model, receivers at the same depth, with layers of each width
against the same shot with a much wider layer; the relative L2 difference of
the gathers.  Used by scripts/bench-absorbing and tests/test_absorbing.py.

  absorbing.py HALOFWI WORK_DIR DIMS ORDERS WIDTHS SURFACES REF_2D REF_3D
"""
import os
import subprocess
import sys

import numpy as np
from scipy.ndimage import gaussian_filter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsf  # noqa: E402

DX = 10.0
# (z, x[, y]) cells and samples at 2 ms: 2D 1.5 s; 3D 0.6 s, smaller, as its reference is costly
CASES = {2: ((150, 300), 750), 3: ((50, 80, 60), 300)}


def model(shape):
    """Smooth random velocities increasing with depth (axis 0, n1), 1600 to 3200 m/s."""
    rng = np.random.default_rng(11)
    f = gaussian_filter(rng.standard_normal(shape), 4.0, mode="wrap")
    z = (np.arange(shape[0]) / (shape[0] - 1)).reshape((-1,) + (1,) * (len(shape) - 1))
    v = 0.25 * z + 0.2 * (f - f.min()) / (f.max() - f.min())
    return (1600 + 1600 * (v - v.min()) / (v.max() - v.min())).astype(np.float32)


LAUNCH = ("mpiexec", "-n", "1", "--bind-to", "none")


def gather(exe, work, args, width, surface, launch=LAUNCH):
    out = os.path.join(work, "out")
    cmd = list(launch) + [exe] + [str(a) for a in args] + ["-pml_width", str(width), "-output_dir", out, "-overwrite"]
    cmd += ["-pml_top", "0"] if surface else []
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"halofwi failed: {' '.join(cmd)}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return rsf.read(os.path.join(out, "shot_0000.rsf"))[0].astype(np.float64)


def errors(exe, work, dim, order, surface, widths, ref_width, shape=None, nt=None, launch=LAUNCH):
    """Relative L2 of the gather at each width against ref_width, for a shot
    one cell below a free surface or two below a layer on top (the model's
    shape and the samples: CASES unless given)."""
    shape = shape or CASES[dim][0]
    nt = nt or CASES[dim][1]
    path = os.path.join(work, f"vp{dim}_{'x'.join(map(str, shape))}.rsf")
    if not os.path.exists(path):
        rsf.write(path, model(shape), d=[DX] * dim)
    depth = DX if surface else 2 * DX
    args = ["-mode", "forward", "-vp", path, "-nt", nt, "-dt", 0.002, "-f0", 10, "-order", order, "-nshots", 1,
            "-nrec", shape[1], "-source_depth", depth, "-receiver_depth", depth, "-vp_max", 3300, "-progress_interval", 0]
    ref = gather(exe, work, args, ref_width, surface, launch)
    return [np.linalg.norm(gather(exe, work, args, w, surface, launch) - ref) / np.linalg.norm(ref) for w in widths]


def case_name(dim, order, surface):
    return f"{dim}D order {order}, " + ("free surface" if surface else "layer on top")


def main():
    exe, work = sys.argv[1], sys.argv[2]
    dims, orders, widths, surfaces = ([int(x) for x in a.split()] for a in sys.argv[3:7])
    ref_width = {2: int(sys.argv[7]), 3: int(sys.argv[8])}
    print(f"{'case':34s}" + "".join(f"{'width ' + str(w):>12s}" for w in widths)
          + f"   (against {'/'.join(str(ref_width[d]) for d in dims)} cells)")
    for dim in dims:
        for order in orders:
            for surface in surfaces:
                errs = errors(exe, work, dim, order, surface, widths, ref_width[dim])
                print(f"{case_name(dim, order, surface):34s}" + "".join(f"{e:12.2e}" for e in errs), flush=True)


if __name__ == "__main__":
    main()
