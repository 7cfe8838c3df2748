#!/usr/bin/env python3
"""What the absorbing layers let through: one shot near the top of a smooth
heterogeneous model, receivers at the same depth, with layers of each width
against a reference; the relative L2 difference of the gathers.  The
reference is the same shot with a much wider layer (scripts/bench-absorbing),
or in the model padded with its edge velocities (what the layers copy) so far
that no wave reaches the padded model's edges and comes back within the
record (tests/test_absorbing.py): a reflection where the layers start is then
in the difference, not in both gathers.

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


def survey(shape, surface, shift):
    """The source and its receivers (cells, (z, x[, y])): one cell below a free
    surface or two below a layer on top, the source in the middle of x (and
    y), a receiver on every x cell; moved by shift cells along each axis."""
    depth = 1 if surface else 2
    y = [(shape[2] - 1) / 2] if len(shape) == 3 else []
    src = [depth, (shape[1] - 1) / 2] + y
    recs = [[depth, i] + y for i in range(shape[1])]
    return [[a + s for a, s in zip(p, shift)] for p in [src] + recs]


def write_geometry(path, points):
    """points[0] the source, the rest its receivers; the file lists x (y) z in metres."""
    def line(kind, p):
        return kind + " " + " ".join(repr(DX * a) for a in p[1:] + p[:1])
    with open(path, "w") as f:
        f.write("\n".join([line("S", points[0])] + [line("R", p) for p in points[1:]]) + "\n")
    return path


def padding(shape, surface, seconds, vmax):
    """Cells to add before and after each axis so that the straight path from
    the source to the padded model's edge and back to any receiver, at vmax,
    takes longer than the record (the Ricker is 1e-8 of its peak at t = 0);
    none on top under a free surface."""
    points = np.array(survey(shape, surface, [0] * len(shape)))
    src, recs = points[0], points[1:]
    reach = vmax * seconds / DX
    pad = []
    for ax, n in enumerate(shape):
        # to the plane p cells beyond the edge and back: the image of the source in it
        def silent(plane):
            img = src.copy()
            img[ax] = 2 * plane - src[ax]
            return np.sqrt(((recs - img) ** 2).sum(axis=1)).min() > reach
        lo = 0 if (ax == 0 and surface) else next(p for p in range(1, 10 ** 6) if silent(-p))
        hi = next(p for p in range(1, 10 ** 6) if silent(n - 1 + p))
        pad.append((lo, hi))
    return pad


def errors(exe, work, dim, order, surface, widths, ref_width=None, shape=None, nt=None, launch=LAUNCH):
    """Relative L2 of the gather at each width against the reference: the
    same shot with ref_width cells of layer, or (None) in the padded model
    (the model's shape and the samples: CASES unless given)."""
    shape = shape or CASES[dim][0]
    nt = nt or CASES[dim][1]
    vp = model(shape)
    tag = f"{dim}_{'x'.join(map(str, shape))}_{surface}"
    path = os.path.join(work, f"vp{tag}.rsf")
    rsf.write(path, vp, d=[DX] * dim)
    geo = write_geometry(os.path.join(work, f"geom{tag}.txt"), survey(shape, surface, [0] * dim))
    dt = 0.002
    args = ["-mode", "forward", "-nt", nt, "-dt", dt, "-f0", 10, "-order", order, "-vp_max", 3300, "-progress_interval", 0]
    tested = args + ["-vp", path, "-geometry", geo]
    if ref_width is None:
        pad = padding(shape, surface, (nt - 1) * dt, float(vp.max()))
        ref_path = os.path.join(work, f"vp{tag}_padded.rsf")
        rsf.write(ref_path, np.pad(vp, pad, mode="edge"), d=[DX] * dim)
        ref_geo = write_geometry(os.path.join(work, f"geom{tag}_padded.txt"), survey(shape, surface, [lo for lo, _ in pad]))
        # no wave reaches the padded model's layers: their width does not matter
        ref = gather(exe, work, args + ["-vp", ref_path, "-geometry", ref_geo], 10, surface, launch)
    else:
        ref = gather(exe, work, tested, ref_width, surface, launch)
    return [np.linalg.norm(gather(exe, work, tested, w, surface, launch) - ref) / np.linalg.norm(ref) for w in widths]


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
