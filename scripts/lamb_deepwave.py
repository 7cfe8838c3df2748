#!/usr/bin/env python3
"""Lamb's problem for a buried explosion (tests/test_lamb.py) run by
halofwi and by Deepwave's `elastic` side by side in one run, each against
Garvin's exact solution: the physics the two free surfaces are held to,
rather than each other.

usage: DEEPWAVE_PYTHON=<python with deepwave> scripts/lamb_deepwave.py [HALOFWI] [THREADS]
   or: <python with deepwave> scripts/lamb_deepwave.py [HALOFWI] [THREADS]

The case and the reference are test_lamb's: a line explosion 50 m deep
in a Poisson solid (vp 3000 m/s), 10 Hz, vz on its nodes half a cell
under the surface and vx on the surface row, 50 to 500 m away, on 10 m
and 5 m cells, order 8, each trace's window ending before a reflection
from the absorbing faces arrives.  Deepwave refuses a flat free face for
its elastic propagator, so its surface is a vacuum layer: its
parameter-modified method (`pm`) puts the surface on the centres of the
first solid row, where halofwi's stress image method puts it (its
default improved vacuum method, `ivm`, half a cell off).  Both take the
same explosion (compare_deepwave_elastic.py's units and timing) and
record each component on its own nodes.  Reported: the relative L2
error of each code's trace against Garvin's, per offset, and the largest
over the offsets.
"""
import os
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
BIN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "halofwi"))
THREADS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
os.environ.setdefault("HALOFWI_BIN", BIN)
os.environ["OMP_NUM_THREADS"] = str(THREADS)

import deepwave_side as side  # noqa: E402  (first: brings in deepwave, torch and numpy)
from deepwave_side import deepwave, np, torch  # noqa: E402
import common as c  # noqa: E402
import test_lamb as L  # noqa: E402

NVAC = 6  # Deepwave's vacuum rows above the surface (more than order / 2)
PML = 20


def deepwave_lamb(case):
    """Deepwave's vz and vx gathers (offsets x samples) for test_lamb's case."""
    dx, dt = case["dx"], case["dt"]
    a = dict(zip(case["args"][0::2], case["args"][1::2]))
    nz, nx, nt = int(a["-nz"]), int(a["-nx"]), int(a["-nt"])
    xs = int(round(case["src"][0] / dx))
    zs = int(round(case["src"][1] / dx))
    solid = [np.full((nz, nx), v, np.float32) for v in (L.VP, L.VS, L.RHO)]
    vp, vs, rho = (np.concatenate([np.zeros((NVAC, nx), np.float32), m]) for m in solid)
    torch.set_num_threads(THREADS)
    warnings.filterwarnings("ignore", category=deepwave.ZeroWidthFaceWarning)  # the vacuum's top face: nothing reaches it
    lamb, mu, buoyancy = deepwave.vpvsrho_to_lambmubuoyancy(*(torch.from_numpy(m) for m in (vp, vs, rho)))
    loc = (NVAC + zs, xs)
    bulk = float(lamb[loc]) + float(mu[loc])  # K = lambda + mu, plane strain
    wav = side.ricker(nt, dt, L.F0)
    cols = [xs + int(round(x / dx)) for x in L.OFFSETS]
    out = deepwave.elastic(lamb, mu, buoyancy, dx, dt, nt=nt, accuracy=8, pml_width=[0, PML, PML, PML], pml_freq=L.F0, surface_method="pm",
                           location_interpolation="none",
                           source_amplitudes_pressure_rate=torch.from_numpy(bulk * wav / dx ** 2)[None, None, :],
                           source_locations_pressure_rate=torch.tensor([[loc]], dtype=torch.long),
                           receiver_locations_y=torch.tensor([[(NVAC, j) for j in cols]], dtype=torch.long),   # vz half a cell under the surface
                           receiver_locations_x=torch.tensor([[(NVAC, j) for j in cols]], dtype=torch.long))   # vx on the surface row, half a cell along x
    return {"vz": out.receivers["y"][0].numpy(), "vx": out.receivers["x"][0].numpy()}, out.info


def halofwi_lamb(scr, case):
    """halofwi's vz and vx gathers for the same case, order 8."""
    out = scr.sub(f"halofwi{case['dx']:g}")
    c.run(1, case["args"] + ["-order", 8], out, threads=THREADS)
    g = {}
    n = len(L.OFFSETS)
    for j, comp in enumerate(("vz", "vx")):
        a, h = c.read_rsf(f"{out}/shot_0000{'' if j == 0 else '_vx'}.rsf")
        g[comp] = a.reshape((int(h["n2"]), int(h["n1"])))[j * n:(j + 1) * n]
    return g


def main():
    print(f"deepwave {deepwave.__version__}, torch {torch.__version__}, halofwi {BIN}, {THREADS} threads")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HALOFWI_TEST_TMP"] = tmp
        scr = c.Scratch("lamb_deepwave")
        for dx in (10.0, 5.0):
            case = L.surface_case(scr, dx)
            codes = {"halofwi (stress image, narrowed stencils)": halofwi_lamb(scr, case)}
            dw, info = deepwave_lamb(case)
            codes[f"Deepwave (vacuum, pm; step ratio {info.step_ratio})"] = dw
            print(f"{dx:g} m cells, order 8: relative L2 error against Garvin's solution, per offset {', '.join(f'{x:g}' for x in L.OFFSETS)} m, and the largest")
            for name, g in codes.items():
                for comp in ("vz", "vx"):
                    errs = [c.rel_l2(g[comp][k, :len(ref)], ref) for k, (_, _, ref) in enumerate(case["refs"][comp])]
                    print(f"  {name:45s} {comp}: {' '.join(f'{e:.4f}' for e in errs)}  largest {max(errs):.4f}")


if __name__ == "__main__":
    main()
