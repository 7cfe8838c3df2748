#!/usr/bin/env python3
"""Every domain decomposition gives bit-for-bit the gathers of a single-rank
run (heterogeneous models, sources and receivers on subdomain boundaries,
internal step below -dt so the resampling is exercised too).  One shot in
2D and one in 3D has its source and receivers between grid points, near the
cuts and their corners, so that their interpolation supports span two to
four subdomains (and, in 3D, reach across the free surface).

2D (61 z x 85 x cells, absorbing layers 20 => 101 x 125 extended cells, so
PETSc's splits are uneven: z 51/50, x 63/62 and 42/42/41):
  order 8: 1 rank vs 2x1, 1x2, 2x2 and 3x1 (-da_processors_x x -da_processors_z),
    and 2x2 with -halo_overlap 0;
  orders 2 and 4: 1 rank vs 3x1 and 2x2;
  free surface on top: 1 rank vs 2x2.
3D (25 z x 27 x x 23 y, layers 8, free surface on top => 33 x 43 x 39):
  1 rank vs 2x2x1 (x, y) and 1x1x2 (z).
"""
import numpy as np

import common as c

DX = 10.0


def geometry_2d(nx, nz):
    # user cell -> subdomain boundaries: x 42|43 (2 ranks), 21|22 and 63|64
    # (3 ranks); z 30|31 (2 ranks).  Sources sit on them, receivers cross
    # all of them.
    recs_line = [(DX * i, DX * 5) for i in range(nx)]
    recs_vert = [(DX * 22, DX * k) for k in range(0, nz, 2)]
    recs_deep = [(DX * 43, DX * 31), (DX * 63, DX * 30), (DX * (nx - 1), DX * (nz - 1)), (0.0, 0.0)]
    recs_off = [(DX * (i + 0.37), DX * 5.3) for i in range(nx - 1)]
    recs_off += [(DX * 21.6, DX * (k + 0.5)) for k in range(0, nz - 1, 3)]
    recs_off += [(DX * (42 + 0.25 * k), DX * (29 + 0.5 * k)) for k in range(8)]
    return [((DX * 42, DX * 30), recs_line + recs_deep),
            ((DX * 64, DX * 31), recs_vert + recs_line[::3]),
            ((DX * 42.5, DX * 30.5), recs_off)]


def geometry_3d(nx, ny, nz):
    recs = [(DX * i, DX * 11, DX * 3) for i in range(nx)]
    recs += [(DX * 13, DX * j, DX * 12) for j in range(ny)]
    recs += [(DX * 14, DX * 12, DX * k) for k in range(nz)]
    recs_off = [(DX * (i + 0.4), DX * 11.5, DX * 2.6) for i in range(nx - 1)]
    recs_off += [(DX * 13.6, DX * (j + 0.3), DX * 16.3) for j in range(ny - 1)]
    recs_off += [(DX * 14.2, DX * 11.7, DX * (k + 0.5)) for k in range(nz - 1)]
    return [((DX * 13, DX * 11, DX * 12), recs),
            ((DX * 20, DX * 5, DX * 16), recs[::2]),
            ((DX * 13.5, DX * 11.5, DX * 16.5), recs_off)]


def main():
    scr = c.Scratch("decomposition")
    with scr:
        # ---------------- 2D
        nz, nx = 61, 85
        vp = c.smooth_random_model((nx, nz), seed=1)
        model = c.write_model(scr.sub("vp2d.rsf"), vp, DX)
        geo = c.write_geometry(scr.sub("geom2d.txt"), geometry_2d(nx, nz), comment="2D decomposition test")
        def args2d(order):
            return ["-mode", "forward", "-vp", model, "-geometry", geo, "-order", order,
                    "-f0", 15, "-dt", 0.002, "-nt", 250]
        base = args2d(8)
        ref = scr.sub("2d_1")
        out = c.run(1, base, ref)
        m = c.stability_limit(out)
        print(f"  2D: stability limit {m} s, internal step {c.internal_step(out)} s")
        for px, pz in [(2, 1), (1, 2), (2, 2), (3, 1)]:
            d = scr.sub(f"2d_{px}x{pz}")
            o = c.run(px * pz, base + ["-da_processors_x", px, "-da_processors_z", pz], d)
            c.check_layout(o, px, pz)
            c.compare_bitwise(ref, d, 3, f"2D {px}x{pz} (x by z) vs 1 rank")
        # the halos exchanged before the interior instead of during it
        d = scr.sub("2d_2x2_no_overlap")
        c.run(4, base + ["-da_processors_x", 2, "-da_processors_z", 2, "-halo_overlap", 0], d)
        c.compare_bitwise(ref, d, 3, "2D 2x2 without overlap vs 1 rank")

        # lower orders: narrower halos (1 and 2 cells)
        for order in (2, 4):
            b = args2d(order)
            r = scr.sub(f"2d_o{order}_1")
            c.run(1, b, r)
            for px, pz in [(3, 1), (2, 2)]:
                d = scr.sub(f"2d_o{order}_{px}x{pz}")
                o = c.run(px * pz, b + ["-da_processors_x", px, "-da_processors_z", pz], d)
                c.check_layout(o, px, pz)
                c.compare_bitwise(r, d, 3, f"2D order {order} {px}x{pz} (x by z) vs 1 rank")

        fs = base + ["-pml_top", 0]
        ref_fs = scr.sub("2d_fs_1")
        c.run(1, fs, ref_fs)
        d = scr.sub("2d_fs_2x2")
        o = c.run(4, fs + ["-da_processors_x", 2, "-da_processors_z", 2], d)
        c.check_layout(o, 2, 2)
        c.compare_bitwise(ref_fs, d, 3, "2D free surface 2x2 vs 1 rank")

        # ---------------- 3D
        nz, nx, ny = 25, 27, 23
        vp3 = c.smooth_random_model((ny, nx, nz), seed=2, sigma=3.0)
        model3 = c.write_model(scr.sub("vp3d.rsf"), vp3, DX)
        geo3 = c.write_geometry(scr.sub("geom3d.txt"), geometry_3d(nx, ny, nz), comment="3D decomposition test")
        base3 = ["-mode", "forward", "-vp", model3, "-geometry", geo3, "-order", 8,
                 "-pml_width", 8, "-pml_top", 0, "-f0", 15, "-dt", 0.002, "-nt", 120]
        ref3 = scr.sub("3d_1")
        c.run(1, base3, ref3)
        for px, py, pz in [(2, 2, 1), (1, 1, 2)]:
            d = scr.sub(f"3d_{px}x{py}x{pz}")
            o = c.run(px * py * pz, base3 + ["-da_processors_x", px, "-da_processors_y", py,
                                             "-da_processors_z", pz], d)
            c.check_layout(o, px, pz, py)
            c.compare_bitwise(ref3, d, 3, f"3D {px}x{py}x{pz} (x by y by z) vs 1 rank")

        # the comparison must not be vacuous: the waves reached the receivers
        g = c.read_gather(ref, 0)
        c.check(np.abs(g).max() > 0 and np.all(np.isfinite(g)), "2D reference gather is zero or not finite")
        g3 = c.read_gather(ref3, 0)
        c.check(np.abs(g3).max() > 0 and np.all(np.isfinite(g3)), "3D reference gather is zero or not finite")


if __name__ == "__main__":
    c.main(main)
