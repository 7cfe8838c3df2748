#!/usr/bin/env python3
"""What Devito's damping sponge (scripts/devito_acoustic.py) lets through, by
the measure scripts/absorbing.py takes of halofwi's CPML: its cases' model,
one shot and a line of receivers 2 cells below the top layer, the gather
with each sponge width against the same shot with a much wider sponge
(relative L2).  Order 8, 1 ms steps (the sponge's own reference sets the
scale, so the step need not match halofwi's).  Used by scripts/bench-absorbing.

  absorbing_devito.py DIM WIDTHS REF      e.g. 2 "10 20 40" 120
prints one line: the relative L2 at each width
"""
import os
import sys

import numpy as np

os.environ.setdefault("DEVITO_LANGUAGE", "openmp")
os.environ.setdefault("DEVITO_LOGGING", "ERROR")
from devito import Function, Grid, SparseTimeFunction, TimeFunction  # noqa: E402

import absorbing  # noqa: E402
from devito_acoustic import forward_operator, ricker_source, set_damp  # noqa: E402

DT = 0.001
VMAX = 3300.0  # as absorbing.py's -vp_max


def gather(vp, width, nt):
    dim, dx = vp.ndim, absorbing.DX
    shape = tuple(s + 2 * width for s in vp.shape)
    grid = Grid(shape=shape, extent=tuple((s - 1) * dx for s in shape))
    m = Function(name="m", grid=grid, space_order=8)
    m.data[:] = 1.0 / np.pad(vp, width, mode="edge") ** 2  # the layer takes the edge's velocity, as halofwi's
    damp = Function(name="damp", grid=grid)
    set_damp(damp, m, width, VMAX, dx)
    depth = (width + 2) * dx
    centre = [(width + (s - 1) / 2) * dx for s in vp.shape[1:]]
    src = ricker_source(grid, nt, DT, 10.0, [depth] + centre)
    rec = SparseTimeFunction(name="rec", grid=grid, npoint=vp.shape[1], nt=nt)
    rec.coordinates.data[:] = [[depth, (width + x) * dx] + centre[1:] for x in range(vp.shape[1])]
    u = TimeFunction(name="u", grid=grid, time_order=2, space_order=8)
    forward_operator(u, m, damp, src, rec, DT).apply(time_M=nt - 2, dt=DT)
    return rec.data.astype(np.float64).copy()


def main():
    dim, widths, ref_width = int(sys.argv[1]), [int(w) for w in sys.argv[2].split()], int(sys.argv[3])
    shape, samples = absorbing.CASES[dim]
    vp = absorbing.model(shape)
    nt = int(round(samples * 0.002 / DT))
    ref = gather(vp, ref_width, nt)
    print(" ".join(f"{np.linalg.norm(gather(vp, w, nt) - ref) / np.linalg.norm(ref):.2e}" for w in widths), flush=True)


if __name__ == "__main__":
    main()
