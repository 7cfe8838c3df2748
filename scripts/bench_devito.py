#!/usr/bin/env python3
"""Times Devito's acoustic propagator (generated C with OpenMP) on a case of
scripts/bench-forward or scripts/bench-gradient, so both codes are measured
in one run on one machine.

usage: bench_devito.py forward|gradient DIM N NT THREADS PML
prints: forward: G model-cell updates/s; gradient: seconds

Same problem as halofwi's: homogeneous 2000 m/s, 10 m cells, N^DIM model
cells, 8th-order Laplacian, one Ricker shot near the top recorded along the
top, NT steps of 2 ms (within the stability limit of this leapfrog scheme,
as for halofwi).  The absorbing layer is Devito's usual damping sponge over
PML cells a side (scripts/devito_acoustic.py), a cheaper and less effective
absorber than a CPML (scripts/absorbing_devito.py measures it).  The
forward rate counts the model's cells, layers left out.  The gradient keeps
the whole forward wavefield (save=NT, as halofwi's full storage), runs the
adjoint with the recorded data as residual and sums u.dt2 * v.  Operators
are compiled before timing."""
import os
import sys
import time

import numpy as np

mode = sys.argv[1]
dim, n, nt, threads, pml = (int(a) for a in sys.argv[2:7])
os.environ.setdefault("DEVITO_LANGUAGE", "openmp")
os.environ.setdefault("DEVITO_LOGGING", "ERROR")
os.environ["OMP_NUM_THREADS"] = str(threads)
from devito import Eq, Function, Grid, Inc, Operator, SparseTimeFunction, TimeFunction, solve  # noqa: E402

from devito_acoustic import forward_operator, ricker_source, set_damp  # noqa: E402

dx, vel, dt, f0 = 10.0, 2000.0, 0.002, 10.0
shape = (n + 2 * pml,) * dim
grid = Grid(shape=shape, extent=tuple((s - 1) * dx for s in shape))
m = Function(name="m", grid=grid)
m.data[:] = 1.0 / vel ** 2
damp = Function(name="damp", grid=grid)
set_damp(damp, m, pml, vel, dx)
src = ricker_source(grid, nt, dt, f0, [(pml + 2) * dx] + [(pml + n // 2) * dx] * (dim - 1))
rec = SparseTimeFunction(name="rec", grid=grid, npoint=len(range(0, n, 4)), nt=nt)
rec.coordinates.data[:] = [[(pml + 2) * dx, (pml + x) * dx] + [(pml + n // 2) * dx] * (dim - 2) for x in range(0, n, 4)]
u = TimeFunction(name="u", grid=grid, time_order=2, space_order=8, save=nt if mode == "gradient" else None)
forward = forward_operator(u, m, damp, src, rec, dt)


def gradient_operator():
    v = TimeFunction(name="v", grid=grid, time_order=2, space_order=8)
    grad = Function(name="grad", grid=grid)
    return Operator([Eq(v.backward, solve(m * v.dt2 - v.laplace + damp * v.dt.T, v.backward))]
                    + rec.inject(field=v.backward, expr=rec * dt ** 2 / m) + [Inc(grad, -u.dt2 * v)])


adjoint = gradient_operator() if mode == "gradient" else None
forward.apply(time_M=2, dt=dt)  # compiles
if adjoint:
    adjoint.apply(time_m=1, time_M=2, dt=dt)
u.data[:] = 0
start = time.perf_counter()
forward.apply(time_M=nt - 2, dt=dt)
if adjoint:
    adjoint.apply(time_m=1, time_M=nt - 2, dt=dt)
seconds = time.perf_counter() - start
print(f"{seconds:.3f}" if mode == "gradient" else f"{n ** dim * (nt - 1) / seconds * 1e-9:.4f}")
