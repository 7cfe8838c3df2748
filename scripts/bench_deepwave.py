#!/usr/bin/env python3
"""Times Deepwave's scalar propagator on the CPU on a case of
scripts/bench-forward, so both codes are measured in one run on one machine.

usage: bench_deepwave.py DIM N NT THREADS
prints: G cell-updates/s

Same problem as halofwi's: homogeneous 2000 m/s, 10 m cells, N^DIM cells,
order 8, 20-cell PML, one Ricker shot near the top, dt 2 ms (one internal
step per sample for both codes); cells counted over the padded (N+40)^DIM
grid, as halofwi counts them."""
import sys
import time
import warnings

import deepwave
import torch

dim, n, nt, threads = (int(a) for a in sys.argv[1:5])
warnings.filterwarnings("ignore")
torch.set_num_threads(threads)
v = torch.full((n,) * dim, 2000.0)
dt, f0, pml = 0.002, 10.0, 20
source = deepwave.wavelets.ricker(f0, nt, dt, 1.5 / f0).reshape(1, 1, -1)
where = torch.tensor([[[2] + [n // 2] * (dim - 1)]])


def run(steps):
    deepwave.scalar(v, 10.0, dt, source_amplitudes=source[..., :steps], source_locations=where,
                    receiver_locations=where, accuracy=8, pml_width=pml, pml_freq=f0)


run(5)  # warm-up: library load, allocation
start = time.perf_counter()
run(nt)
print(f"{(n + 2 * pml) ** dim * nt / (time.perf_counter() - start) * 1e-9:.4f}")
