#!/usr/bin/env python3
"""Times Deepwave's scalar propagator (or, for PHYSICS variable_density,
its acoustic one: pressure and particle velocity, 1000 kg/m^3, a volume
source, pressure receivers; for PHYSICS elastic, its elastic one: vs 1150
m/s, 2000 kg/m^3, an explosive source, pressure receivers) on the CPU on a
case of scripts/bench-forward or scripts/bench-gradient, so both codes are
measured in one run on one machine.

usage: bench_deepwave.py forward|gradient DIM N NT THREADS PML [PHYSICS]
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
physics = sys.argv[7] if len(sys.argv) > 7 else "acoustic"
if physics not in ("acoustic", "variable_density", "elastic"):
    sys.exit(f"bench_deepwave.py: PHYSICS is acoustic, variable_density or elastic, not {physics!r}")
torch.set_num_threads(threads)
dx, vel, dt, f0 = 10.0, 2000.0, 0.002, 10.0
v = torch.full((n,) * dim, vel, requires_grad=mode == "gradient")
source = deepwave.wavelets.ricker(f0, nt, dt, 1.5 / f0).reshape(1, 1, -1)
where = torch.tensor([[[2] + [n // 2] * (dim - 1)]])
receivers = torch.tensor([[[2, x] + [n // 2] * (dim - 2) for x in range(0, n, 4)]])
rho = torch.full((n,) * dim, 2000.0 if physics == "elastic" else 1000.0)
vs = torch.full((n,) * dim, 1150.0)


def run(steps):
    """One propagation of `steps` samples: Deepwave's internal steps per sample."""
    kw = dict(accuracy=8, pml_width=pml, pml_freq=f0)
    if physics == "acoustic":
        out = deepwave.scalar(v, dx, dt, source_amplitudes=source[..., :steps], source_locations=where, receiver_locations=receivers, **kw)[-1]
        ratio = cfl_condition_n([dx] * dim, dt, vel)[1]
    elif physics == "elastic":
        result = deepwave.elastic(*deepwave.vpvsrho_to_lambmubuoyancy(v, vs, rho), dx, dt, source_amplitudes_pressure_rate=source[..., :steps], source_locations_pressure_rate=where,
                                  receiver_locations_p=receivers, **kw)
        out, ratio = result.receivers["p"], result.info.step_ratio
    else:
        result = deepwave.acoustic(v, rho, dx, dt, source_amplitudes_volume_rate=source[..., :steps], source_locations_volume_rate=where, receiver_locations_p=receivers, **kw)
        out, ratio = result.receivers["p"], result.info.step_ratio
    if mode == "gradient":
        (0.5 * out.pow(2).sum()).backward()
    return ratio


run(5)  # warm-up: library load, allocation
start = time.perf_counter()
step_ratio = run(nt)
seconds = time.perf_counter() - start
print(f"{seconds:.3f}" if mode == "gradient" else f"{n ** dim * nt * step_ratio / seconds * 1e-9:.4f}")
