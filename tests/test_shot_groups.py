#!/usr/bin/env python3
"""4 ranks, 4 shots (different receiver counts), -shot_groups 1, 2 and 4:
every shot's gather is bit-for-bit the same, and equal to a 1-rank run."""
import os

import numpy as np

import common as c

DX = 10.0


def main():
    scr = c.Scratch("shot_groups")
    with scr:
        nz, nx = 41, 66
        vp = c.smooth_random_model((nx, nz), seed=3)
        model = c.write_model(scr.sub("vp.rsf"), vp, DX)
        shots = []
        for s, xs in enumerate([5, 25, 44, 63]):
            recs = [(DX * i, DX * (2 + s)) for i in range(s, nx, 1 + s)]  # 66, 33, 22, 17 receivers
            recs.append((DX * xs, DX * (nz - 3)))
            shots.append(((DX * xs, DX * (3 + 5 * s)), recs))
        geo = c.write_geometry(scr.sub("geom.txt"), shots, comment="shot groups test")
        base = ["-mode", "forward", "-vp", model, "-geometry", geo, "-f0", 12, "-dt", 0.002, "-nt", 200]

        ref = scr.sub("g1_1rank")
        c.run(1, base, ref)
        for G in (1, 2, 4):
            d = scr.sub(f"g{G}")
            out = c.run(4, base + ["-shot_groups", G], d)
            names = sorted(f for f in os.listdir(d) if f.startswith("shot_") and f.endswith(".rsf"))
            c.check(names == ["shot_%04d.rsf" % s for s in range(4)],
                    f"-shot_groups {G}: output files {names}, expected shot_0000..0003.rsf")
            for s in range(4):
                # documented: shot s goes to group s mod G; one progress line per shot
                c.check(f"shot {s} of 4 (group {s % G})" in out,
                        f"-shot_groups {G}: no progress line 'shot {s} of 4 (group {s % G})'")
                c.check(out.count(f"shot {s} of 4 (group") == 1,
                        f"-shot_groups {G}: {out.count(f'shot {s} of 4 (group')} progress lines for shot {s}, expected 1")
            c.compare_bitwise(ref, d, 4, f"4 ranks, -shot_groups {G} vs 1 rank")
        for s in range(4):
            g = c.read_gather(ref, s)
            c.check(g.shape == (len(shots[s][1]), 200), f"shot {s}: gather shape {g.shape}")
            c.check(np.all(np.isfinite(g)) and np.abs(g).max() > 0, f"shot {s}: gather zero or not finite")


if __name__ == "__main__":
    c.main(main)
