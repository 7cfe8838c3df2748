#!/usr/bin/env python3
"""The results do not depend on the number of OpenMP threads: forward
gathers and gradients (full storage and saved boundaries) of 1 and 3 ranks
(split along z) with 2 threads each are bit for bit those of 1 rank with 1
thread.  Every other test runs one thread a rank.

The adjoint's x and y layer sweeps cut each rank's rows along z into chunks
for the threads, more chunks the more threads and the fewer z cells.  The
splits below make ranks of 25 z cells (2D, 2 threads: 8 chunks asked for,
7 of 4 cells fit) and of 9 (2D, 1 and 2 threads), where the chunk length
rounded up leaves fewer chunks than asked for; a chunk past the row's end
once wrote into the row before.

A 2D rank alone takes the boundary method's reverse steps two at a time,
each thread a region of x rows (src/equations/acoustic/cpu/adjoint_pair_cpu.c); ranks split
take them one by one.  So 1 x 1 (one region), 1 x 2 and 1 x 3 (regions and
the seams between them) are held against each other and against 2 or 3
ranks: with a free surface, order 8, and an odd number of steps (the last
taken alone).

A rank alone steps the variable-density equation's two stages in one
sweep along its outermost axis (x in 2D, y in 3D), each thread a share of
its layers, the second stage R layers behind the first and at the shares'
seams after every thread has passed (StaggeredFusedSweep), and in 2D
where it stores nothing (the forward runs) or the boundary method's
bands two steps' four stages, the source, the surface, the second step's
receivers and its bands taken layer by layer on the way, 151 steps
ending with one alone; ranks split step them one
after the other.  So 1 x 1, 1 x 2 and 1 x 3 are held
against each other and against 2 or 3 ranks, with a free surface on top
(whose velocity mirror the sweep applies row by row) and in 3D with shares
of 7 y layers at order 4 (R = 2).  The elastic equation in 2D is swept
the same way (one step a sweep in full storage's forward runs, two in
the others); in 3D its stages go one after the other, each over rows
shared out among the threads; both are held the same way.

The variable-density adjoint's steps go in one such sweep too on a rank
alone (four stages: the operands, the velocities with the pressure run
back, the operands of the velocities with the velocities run back, the
pressure), and the elastic adjoint's in 2D (the stresses run back with
their band put back layer by layer), so every gradient file (dJ/dvp,
dJ/drho; the elastic equation's dJ/dvs and dJ/drho as well) is held the
same way.

A rank alone does the adjoint's x-slab terms in the step's own walk along
x when each slab's rows fit the first or the last thread's tile of rows,
else in a sweep after the step, as split ranks always do: in 3D (41 x rows,
slabs of 18 rows with their reach) 1 x 1 and 1 x 2 walk, 1 x 3 (tiles of
14 rows) and 3 x 2 sweep.
"""
import os

import numpy as np

import common as c

DX = 10.0
COMMON = ["-dt", 0.002, "-f0", 12, "-nshots", 2, "-progress_interval", 0]

VD = ["-physics", "variable_density", "-rho", 1800]
ELASTIC = ["-physics", "elastic", "-vs", 700, "-rho", 1800]

# name, model shape (.., x, z), options, [(ranks, threads) set against 1 x 1]
CASES = [
    ("2d", (61, 61), ["-nt", 150, "-order", 2, "-pml_width", 7], [(1, 2), (3, 2)]),
    ("2d_thin", (40, 13), ["-nt", 150, "-order", 2, "-pml_width", 7], [(3, 1), (3, 2)]),
    ("2d_surface", (70, 90), ["-nt", 151, "-order", 8, "-pml_width", 10, "-pml_top", 0], [(1, 2), (1, 3), (2, 1)]),
    ("3d", (21, 21, 21), ["-nt", 100, "-order", 8, "-pml_width", 10], [(1, 2), (1, 3), (3, 2)]),
    ("vd_2d_surface", (70, 90), ["-nt", 151, "-order", 8, "-pml_width", 10, "-pml_top", 0] + VD, [(1, 2), (1, 3), (2, 1)]),
    ("vd_3d", (21, 21, 21), ["-nt", 100, "-order", 4, "-pml_width", 6] + VD, [(1, 2), (1, 3), (3, 1)]),
    ("elastic_2d_surface", (70, 90), ["-nt", 151, "-order", 8, "-pml_width", 10, "-pml_top", 0] + ELASTIC, [(1, 2), (1, 3), (2, 1)]),
    ("elastic_3d", (21, 21, 21), ["-nt", 100, "-order", 4, "-pml_width", 6] + ELASTIC, [(1, 2), (1, 3), (3, 1)]),
]


def outputs(scr, tag, dim, nranks, threads, true, start, options):
    """The gathers and both methods' gradients of one layout."""
    split = ["-da_processors_z", nranks, "-da_processors_x", 1] + (["-da_processors_y", 1] if dim == 3 else [])
    obs = scr.sub(f"{tag}_obs_{nranks}x{threads}")
    c.run(nranks, ["-mode", "forward", "-vp", true] + options + split, obs, threads=threads)
    got = {"gathers": c.read_rsf(f"{obs}/shot_0001.rsf")[0]}
    for method in ("full", "boundary"):
        out = scr.sub(f"{tag}_{method}_{nranks}x{threads}")
        c.run(nranks, ["-mode", "gradient", "-vp", start, "-observed_dir", obs, "-gradient_method", method] + options + split, out,
              threads=threads)
        for name in sorted(f for f in os.listdir(out) if f.startswith("gradient") and f.endswith(".rsf")):  # dJ/drho, dJ/dvs too
            got[f"{method} {name}"] = c.read_rsf(f"{out}/{name}")[0]
    return got


def main():
    scr = c.Scratch("threads")
    with scr:
        for tag, shape, options, layouts in CASES:
            true = c.write_model(scr.sub(f"{tag}_true.rsf"), c.smooth_random_model(shape, seed=5), DX)
            start = c.write_model(scr.sub(f"{tag}_start.rsf"), np.full(shape, 2000, np.float32), DX)
            options = COMMON + options
            ref = outputs(scr, tag, len(shape), 1, 1, true, start, options)
            for name, a in ref.items():
                c.check(np.abs(a).max() > 0, f"{tag}: the 1 x 1 {name} is zero")
            for nranks, threads in layouts:
                got = outputs(scr, tag, len(shape), nranks, threads, true, start, options)
                for name, a in ref.items():
                    b = got[name]
                    c.check(np.array_equal(a, b), f"{tag}: {name} of {nranks} rank(s) x {threads} threads differ from 1 x 1: "
                            f"max |diff| {np.abs(a - b).max():.3g} of max {np.abs(a).max():.3g}")
                print(f"  {tag}: {nranks} rank(s) x {threads} threads: gathers and {len(ref) - 1} gradient files bit for bit 1 x 1")


if __name__ == "__main__":
    c.main(main)
