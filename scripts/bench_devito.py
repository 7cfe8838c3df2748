#!/usr/bin/env python3
"""Times Devito's acoustic propagator (generated C with OpenMP) on a case of
scripts/bench-forward, so both codes are measured in one run on one machine.

usage: bench_devito.py DIM N NT THREADS PML
prints: G model-cell updates/s

Same problem as halofwi's: homogeneous 2000 m/s, 10 m cells, N^DIM model
cells, 8th-order Laplacian, one Ricker shot near the top, NT steps of 2 ms
(within the stability limit of this leapfrog scheme, as for halofwi).  The
absorbing layer is Devito's usual damping sponge over PML cells a side, a
cheaper and less effective absorber than a CPML.  The rate counts the
model's cells, layers left out; the operator is compiled before timing."""
import os
import sys
import time

import numpy as np

dim, n, nt, threads, pml = (int(a) for a in sys.argv[1:6])
os.environ.setdefault("DEVITO_LANGUAGE", "openmp")
os.environ.setdefault("DEVITO_LOGGING", "ERROR")
os.environ["OMP_NUM_THREADS"] = str(threads)
from devito import Eq, Function, Grid, Operator, SparseTimeFunction, TimeFunction, solve  # noqa: E402

dx, vel, dt, f0 = 10.0, 2000.0, 0.002, 10.0
shape = (n + 2 * pml,) * dim
grid = Grid(shape=shape, extent=tuple((s - 1) * dx for s in shape))
u = TimeFunction(name="u", grid=grid, time_order=2, space_order=8)
m = Function(name="m", grid=grid)
m.data[:] = 1.0 / vel ** 2
# damping sponge: quadratic ramp over the layer cells, as in Devito's examples
damp = Function(name="damp", grid=grid)
ramp = np.zeros(shape, dtype=np.float32)
for axis in range(dim):
    idx = np.arange(shape[axis])
    depth = np.maximum(np.maximum(pml - idx, idx - (shape[axis] - 1 - pml)), 0) / max(pml, 1)
    ramp += (np.log(1.0 / 0.001) * 1.5 * vel / (pml * dx + 1e-30) * depth ** 2).reshape(
        [-1 if a == axis else 1 for a in range(dim)])
damp.data[:] = ramp
t = np.arange(nt) * dt
a = (np.pi * f0 * (t - 1.5 / f0)) ** 2
src = SparseTimeFunction(name="src", grid=grid, npoint=1, nt=nt)
src.data[:, 0] = (1 - 2 * a) * np.exp(-a)
src.coordinates.data[0] = [(pml + 2) * dx] + [(pml + n // 2) * dx] * (dim - 1)
stencil = Eq(u.forward, solve(m * u.dt2 - u.laplace + damp * u.dt, u.forward))
op = Operator([stencil] + src.inject(field=u.forward, expr=src * dt ** 2 / m))
op.apply(time_M=2, dt=dt)  # compiles
u.data[:] = 0
start = time.perf_counter()
op.apply(time_M=nt - 2, dt=dt)
print(f"{n ** dim * (nt - 1) / (time.perf_counter() - start) * 1e-9:.4f}")
