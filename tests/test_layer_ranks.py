#!/usr/bin/env python3
"""A rank whose subdomain lies entirely in the absorbing layers owns no model
cell: its box of every model-sized output (gradient, model) is empty and
starts past the model's end.  2D 27 x 27 cells, free surface on top and 20
layer cells below => 47 extended cells in z, split in 3 along z (16/16/15):
the deepest rank holds layer cells only.  Its gradient run must complete and
write, bit for bit, the single-rank gradient (before the fix every rank
refused the write: "block start 32 count 0 on axis 1 lies outside [0, 27)").
"""
import numpy as np

import common as c

DX = 10.0
N = 27


def main():
    scr = c.Scratch("layer_ranks")
    with scr:
        true = c.write_model(scr.sub("true.rsf"), c.smooth_random_model((N, N), seed=3), DX)
        start = c.write_model(scr.sub("start.rsf"), np.full((N, N), 2000, np.float32), DX)
        common = ["-nt", 150, "-dt", 0.002, "-f0", 12, "-nshots", 2, "-pml_width", 20, "-pml_top", 0, "-progress_interval", 0]
        c.run(1, ["-mode", "forward", "-vp", true] + common, scr.sub("obs"))
        grads = {}
        for nranks in (1, 3):
            out = c.run(nranks, ["-mode", "gradient", "-vp", start, "-observed_dir", scr.sub("obs"), "-da_processors_z", nranks,
                                 "-da_processors_x", 1] + common, scr.sub(f"g{nranks}"))
            c.check_layout(out, 1, nranks)
            grads[nranks] = c.read_rsf(scr.sub(f"g{nranks}/gradient.rsf"))[0]
        g1, g3 = grads[1], grads[3]
        c.check(g1.shape == g3.shape, f"gradient shapes differ: {g1.shape} on 1 rank, {g3.shape} on 3")
        c.check(np.abs(g1).max() > 0, "the single-rank gradient is zero")
        c.check(np.array_equal(g1, g3), f"3 ranks (the deepest all layer) differ from 1 rank: max |diff| {np.abs(g1 - g3).max():.3g}")
        print(f"  3 ranks, the deepest in the layer only: gradient bit for bit the single-rank one (max |g| {np.abs(g1).max():.3g})")


if __name__ == "__main__":
    c.main(main)
