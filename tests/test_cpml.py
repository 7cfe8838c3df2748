#!/usr/bin/env python3
"""Absorbing layers (CPML, default width) and the free surface.

Absorption: a homogeneous model with one shot near each side (source and
receivers a few cells from it, offsets up to grazing angles).  The reference
is the same shots in a model padded so much (coordinates shifted) that no
reflection from its own boundaries reaches the receivers inside the window;
the window is long enough to contain the whole reflection from the tested
side, including what a rigid wall behind the absorbing layer would send back.
Per receiver: max |trace - ref| over the window < 4e-5 of max |ref| (measured
1.25e-5 in 2D, 7.3e-6 in 3D; the layer's target reflection, CPML_REFLECTION
in src/grid/grid.c, raised from 1e-5 to 1e-3 gives 8.8e-4).
2D: top, bottom, left, right (padded on every side).  3D (small): front and
back (padded in y only, so that the x and z sides cancel out).

Free surface (-pml_top 0): source and receivers below the top.  The discrete
free surface is an odd mirror about the first sample, so the free-surface run
minus the absorbing run is the ghost: minus the direct wave of the image
source, which in a homogeneous model is minus the absorbing run's trace at
the mirrored receiver position (same source, receiver moved down by 2 * source
depth).  Checked: the relative L2 misfit of the ghost, its (negative)
correlation with the direct wave, and that a receiver on the surface reads 0.
The ghost's misfit must stay below 6e-5 (measured 1.9e-5).
"""
import numpy as np

import common as c

V = 2000.0
DX = 10.0
W = 20           # default absorbing width (cells)
TOL = 4e-5       # reflection / direct-wave peak


def t0_of(f0):
    return 1.5 / f0


def window_ends(f0, src, recs, walls):
    """Per receiver, the time by which the wave reflected from the rigid wall
    behind the absorbing layer of the tested side (walls: list of (axis,
    plane) in cells) has passed."""
    ends = []
    for rec in recs:
        r = max(img_dist(src, rec, ax, pl) for ax, pl in walls)
        ends.append(r / V + t0_of(f0) + 1.2 / f0)
    return ends


def img_dist(src, rec, ax, plane):
    img = list(src)
    img[ax] = 2 * plane - src[ax]
    return DX * np.sqrt(sum((a - b) ** 2 for a, b in zip(img, rec)))


def earliest_reflection(f0, src, rec, planes):
    """Earliest time energy reflected at any of the planes can arrive."""
    r = min(img_dist(src, rec, ax, pl) for ax, pl in planes)
    return r / V + t0_of(f0) - 1.25 / f0


def to_metres(cell, dim):
    # cells are (z, x) or (z, x, y); the geometry file wants (x, z) / (x, y, z)
    if dim == 2:
        return (DX * cell[1], DX * cell[0])
    return (DX * cell[1], DX * cell[2], DX * cell[0])


def side_shot(n, axis, near, dim, offsets, depth=5):
    """Source `depth` cells inside the side (axis, 0 if near else n-1) at the
    middle of the other axes; receivers at the same distance with tangential
    offsets, two closer to the side, one further in."""
    mid = [(m - 1) // 2 for m in n]
    def at(nrm, tang):
        cell = list(mid)
        cell[axis] = nrm if near else n[axis] - 1 - nrm
        tax = [a for a in range(dim) if a != axis]
        for a, o in zip(tax, tang):
            cell[a] = mid[a] + o
        return tuple(cell)
    src = at(depth, [0] * (dim - 1))
    recs = []
    for o in offsets:
        for sgn in (1, -1):
            tang = [sgn * o] + [0] * (dim - 2)
            recs.append(at(depth, tang))
    recs.append(at(2, [offsets[1]] + [0] * (dim - 2)))
    recs.append(at(2, [-offsets[2]] + [0] * (dim - 2)))
    recs.append(at(depth + 12, [0] * (dim - 1)))
    if dim == 3:
        recs.append(at(depth, [0, offsets[1]]))
        recs.append(at(depth, [offsets[1], -offsets[1]]))
    return src, recs


def absorption(scr, dim, n, sides, pad_axes, f0, offsets, nranks, extra=()):
    """sides: list of (name, axis, near).  Returns the worst ratio."""
    shots = [side_shot(n, ax, near, dim, offsets) for _, ax, near in sides]
    walls = [[(ax, -W if near else n[ax] - 1 + W)] for _, ax, near in sides]
    ends = [window_ends(f0, s, r, w) for (s, r), w in zip(shots, walls)]
    nt_time = max(max(e) for e in ends)
    # padding: the reference's own boundaries (where its absorbing layers
    # start) must stay silent until every window has ended
    P = 10
    while True:
        planes = []
        for ax in range(dim):
            if ax in pad_axes:
                planes += [(ax, -P), (ax, n[ax] - 1 + P)]
        ok = all(earliest_reflection(f0, s, rec, planes) > e
                 for (s, r), es in zip(shots, ends) for rec, e in zip(r, es))
        if ok:
            break
        P += 5
    dt = 0.002
    nt = int(np.ceil(nt_time / dt)) + 1
    nref = [m + 2 * P if ax in pad_axes else m for ax, m in enumerate(n)]
    shift = [P if ax in pad_axes else 0 for ax in range(dim)]
    def shifted(cell):
        return tuple(a + s for a, s in zip(cell, shift))
    geo = c.write_geometry(scr.sub(f"geom{dim}d.txt"),
                           [(to_metres(s, dim), [to_metres(r, dim) for r in recs]) for s, recs in shots])
    geo_ref = c.write_geometry(scr.sub(f"geom{dim}d_ref.txt"),
                               [(to_metres(shifted(s), dim), [to_metres(shifted(r), dim) for r in recs])
                                for s, recs in shots])
    def sizes(m):
        return ["-nz", m[0], "-nx", m[1]] + (["-ny", m[2]] if dim == 3 else [])
    common_args = ["-mode", "forward", "-vp", V, "-dx", DX, "-f0", f0, "-dt", dt, "-nt", nt] + list(extra)
    if len(shots) % nranks == 0 and nranks > 1:
        common_args += ["-shot_groups", nranks]
    print(f"  {dim}D: model {n}, reference {nref} (padding {P} cells on axes {pad_axes}), "
          f"f0 {f0} Hz, {nt} samples", flush=True)
    test_dir, ref_dir = scr.sub(f"{dim}d_test"), scr.sub(f"{dim}d_ref")
    c.run(nranks, common_args + sizes(n) + ["-geometry", geo], test_dir)
    c.run(nranks, common_args + sizes(nref) + ["-geometry", geo_ref], ref_dir)
    worst = 0.0
    for k, (name, ax, near) in enumerate(sides):
        g = c.read_gather(test_dir, k).astype(float)
        r = c.read_gather(ref_dir, k).astype(float)
        src, recs = shots[k]
        side_worst = 0.0
        for i, rec in enumerate(recs):
            m = int(np.floor(ends[k][i] / dt)) + 1
            peak = np.abs(r[i, :m]).max()
            c.check(peak > 0, f"{name}: reference trace {i} is zero")
            ratio = np.abs(g[i, :m] - r[i, :m]).max() / peak
            side_worst = max(side_worst, ratio)
            if ratio > TOL:
                print(f"  {name}: receiver {i} at cell {rec} (source {src}): "
                      f"max |trace - ref| / peak |ref| = {ratio:.2e}")
        print(f"  {dim}D {name}: max |trace - ref| / peak |ref| over the receivers = {side_worst:.2e} "
              f"(threshold {TOL})", flush=True)
        worst = max(worst, side_worst)
        c.check(side_worst < TOL,
                f"{dim}D {name} side: reflection {side_worst:.2e} of the direct-wave peak exceeds {TOL}")
    return worst


def free_surface(scr, f0):
    nz, nx = 101, 201
    h = 10                   # source depth (cells)
    xs = 100
    depths = [5, 10]         # receiver depths (cells)
    offs = [0, 10, 20, 30]   # receiver offsets (cells)
    recs = [(zr, xs + a) for zr in depths for a in offs]
    recs = [r for r in recs if r != (h, xs)]          # not on the source cell
    mirror = [(2 * h + zr, x) for zr, x in recs]      # image-distance receivers
    surface = [(0, xs + 5), (0, xs + 25)]             # on the free surface
    src = (h, xs)
    allrecs = recs + mirror + surface
    geo = c.write_geometry(scr.sub("geom_fs.txt"),
                           [(to_metres(src, 2), [to_metres(r, 2) for r in allrecs])])
    # window: before any reflection from the bottom/left/right reaches the
    # receivers (their absorption is tested above; keep this test about the top)
    planes = [(0, nz - 1), (1, 0), (1, nx - 1)]
    ends = [earliest_reflection(f0, src, r, planes) for r in recs + mirror]
    tend = min(ends)
    dt = 0.002
    nt = int(np.floor(tend / dt)) + 1
    base = ["-mode", "forward", "-vp", V, "-dx", DX, "-nz", nz, "-nx", nx, "-f0", f0, "-dt", dt,
            "-nt", nt, "-geometry", geo]
    fs_dir, abs_dir = scr.sub("fs_free"), scr.sub("fs_absorbing")
    c.run(1, base + ["-pml_top", 0], fs_dir)
    c.run(1, base, abs_dir)
    gf = c.read_gather(fs_dir, 0).astype(float)
    ga = c.read_gather(abs_dir, 0).astype(float)
    nr = len(recs)
    worst_misfit, worst_corr = 0.0, 1.0
    for i, rec in enumerate(recs):
        ghost = gf[i] - ga[i]
        expected = -ga[nr + i]
        misfit = c.rel_l2(ghost, expected)
        # correlation of the ghost with the direct wave at the image distance
        corr = float(np.dot(ghost, ga[nr + i]) / (np.linalg.norm(ghost) * np.linalg.norm(ga[nr + i]) + 1e-300))
        t_img = DX * np.sqrt((rec[1] - xs) ** 2 + (rec[0] + h) ** 2) / V + t0_of(f0)
        t_peak = np.argmax(np.abs(ghost)) * dt
        print(f"  free surface: receiver {i} at cell {rec}: ghost vs -direct(image distance): "
              f"relative L2 {misfit:.2e}, correlation {corr:+.7f}; |ghost| peaks at {t_peak:.3f} s "
              f"(image traveltime + t0 = {t_img:.3f} s)")
        worst_misfit = max(worst_misfit, misfit)
        worst_corr = min(worst_corr, -corr)
    print(f"  free surface: worst ghost misfit {worst_misfit:.2e} (threshold {FS_MISFIT:.0e}), "
          f"weakest anti-correlation {worst_corr:.7f} (threshold {FS_CORR})", flush=True)
    c.check(worst_misfit < FS_MISFIT,
            f"free surface: ghost differs from minus the image-source direct wave by {worst_misfit:.2e} "
            f"(relative L2) > {FS_MISFIT}")
    c.check(worst_corr > FS_CORR,
            f"free surface: ghost correlation with the image-source direct wave is {-worst_corr:+.5f}, "
            f"expected below {-FS_CORR}")
    peak = np.abs(gf[:nr]).max()
    for j in range(len(surface)):
        s = np.abs(gf[2 * nr + j]).max()
        c.check(s <= 1e-6 * peak,
                f"free surface: receiver on the surface {surface[j]} records max |u| = {s:.3e} "
                f"(peak at depth {peak:.3e}); expected u = 0")


FS_MISFIT = 6e-5
FS_CORR = 0.99


def main():
    scr = c.Scratch("cpml")
    with scr:
        n2 = (101, 101)  # (z, x)
        sides2 = [("top", 0, True), ("bottom", 0, False), ("left", 1, True), ("right", 1, False)]
        absorption(scr, 2, n2, sides2, pad_axes=(0, 1), f0=10.0, offsets=[5, 10, 20, 30, 40], nranks=1)
        n3 = (25, 25, 41)  # (z, x, y)
        sides3 = [("front", 2, True), ("back", 2, False)]
        # padded in y only: the x and z sides are the same in both runs and cancel
        absorption(scr, 3, n3, sides3, pad_axes=(2,), f0=10.0, offsets=[5, 8, 10, 12], nranks=1)
        free_surface(scr, f0=10.0)


if __name__ == "__main__":
    c.main(main)
