#!/usr/bin/env python3
"""Times Deepwave's scalar propagator on the CPU on a case of
scripts/bench-forward, so both codes are measured in one run on one machine.

usage: bench_deepwave.py DIM N NT THREADS PML
prints: G model-cell updates/s

Same problem as halofwi's: homogeneous 2000 m/s, 10 m cells, N^DIM model
cells, order 8, PML cells a side (a CPML, as halofwi's), one Ricker shot near
the top, NT samples at 2 ms.  Deepwave chooses its own internal step from the
CFL condition; the rate counts the steps it really takes (NT times its step
ratio) over the model's cells, layers left out."""
import sys
import time
import warnings

import deepwave
import torch
from deepwave.common import cfl_condition_n

warnings.filterwarnings("ignore")
dim, n, nt, threads, pml = (int(a) for a in sys.argv[1:6])
torch.set_num_threads(threads)
dx, vel, dt, f0 = 10.0, 2000.0, 0.002, 10.0
v = torch.full((n,) * dim, vel)
source = deepwave.wavelets.ricker(f0, nt, dt, 1.5 / f0).reshape(1, 1, -1)
where = torch.tensor([[[2] + [n // 2] * (dim - 1)]])
_, step_ratio = cfl_condition_n([dx] * dim, dt, vel)


def run(steps):
    deepwave.scalar(v, dx, dt, source_amplitudes=source[..., :steps], source_locations=where,
                    receiver_locations=where, accuracy=8, pml_width=pml, pml_freq=f0)


run(5)  # warm-up: library load, allocation
start = time.perf_counter()
run(nt)
print(f"{n ** dim * nt * step_ratio / (time.perf_counter() - start) * 1e-9:.4f}")
