#!/usr/bin/env python3
"""Times Deepwave's scalar propagator on the CPU on a case of
scripts/bench-forward or scripts/bench-gradient, so both codes are measured
in one run on one machine.

usage: bench_deepwave.py forward|gradient DIM N NT THREADS PML
prints: forward: G model-cell updates/s; gradient: seconds

Same problem as halofwi's: homogeneous 2000 m/s, 10 m cells, N^DIM model
cells, order 8, PML cells a side (a CPML, as halofwi's), one Ricker shot near
the top recorded along the top, NT samples at 2 ms.  Deepwave chooses its own
internal step from the CFL condition; the forward rate counts the steps it
really takes (NT times its step ratio) over the model's cells, layers left
out.  The gradient is that of 1/2 |d|^2 (data against zero observations:
the same work as any residual) by PyTorch's backward pass, which keeps the
forward wavefield as halofwi's full storage does."""
import sys
import time
import warnings

import deepwave
import torch
from deepwave.common import cfl_condition_n

warnings.filterwarnings("ignore")
mode = sys.argv[1]
dim, n, nt, threads, pml = (int(a) for a in sys.argv[2:7])
torch.set_num_threads(threads)
dx, vel, dt, f0 = 10.0, 2000.0, 0.002, 10.0
v = torch.full((n,) * dim, vel, requires_grad=mode == "gradient")
source = deepwave.wavelets.ricker(f0, nt, dt, 1.5 / f0).reshape(1, 1, -1)
where = torch.tensor([[[2] + [n // 2] * (dim - 1)]])
receivers = torch.tensor([[[2, x] + [n // 2] * (dim - 2) for x in range(0, n, 4)]])
_, step_ratio = cfl_condition_n([dx] * dim, dt, vel)


def run(steps):
    out = deepwave.scalar(v, dx, dt, source_amplitudes=source[..., :steps], source_locations=where,
                          receiver_locations=receivers, accuracy=8, pml_width=pml, pml_freq=f0)
    if mode == "gradient":
        (0.5 * out[-1].pow(2).sum()).backward()


run(5)  # warm-up: library load, allocation
start = time.perf_counter()
run(nt)
seconds = time.perf_counter() - start
print(f"{seconds:.3f}" if mode == "gradient" else f"{n ** dim * nt * step_ratio / seconds * 1e-9:.4f}")
