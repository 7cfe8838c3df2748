#!/usr/bin/env python3
"""halofwi's variable-density acoustic equation against Deepwave's
`acoustic` propagator (the same first-order pressure-velocity system on a
staggered grid), side by side in one run on the CPU: the gathers' agreement
and each code's model-cell rate.

usage: DEEPWAVE_PYTHON=<python with deepwave> scripts/compare_deepwave_vd.py [HALOFWI] [THREADS]
   or: <python with deepwave> scripts/compare_deepwave_vd.py [HALOFWI] [THREADS]
SPEED_RUNS=N runs each speed case N times and prints the ratios' median.

A layered model of our own (a water layer, sediments with density steps
that vp does not follow, a dense lens), 10 m cells, order 8, 20 layer
cells, one Ricker volume source and a line of receivers on grid points (so
neither code interpolates), with absorbing layers on every side and again
with a free surface on top.  halofwi's wavelet is a volume rate (m^3/s)
over the cell volume; Deepwave's `source_amplitudes_volume_rate` is the
rate per unit volume (1/s): the same number once divided by the cell area
(2D).  Both inject a sample half a step after the pressure of the same
index is recorded.  Reported per case: the relative L2 difference of the
pressure gathers (halofwi as reference) and, for the speed cases (2D and a
homogeneous 3D cube), model-cell updates per second of each forward run
(the model's cells, absorbing layers left out, times the steps each code
took: halofwi prints a rate over the cells with its layers, converted
here), timed inside each process around the propagation alone, and
halofwi's whole process.
"""
import os
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import deepwave_side as side  # noqa: E402  (first: it re-executes under DEEPWAVE_PYTHON where needed)
import numpy as np  # noqa: E402
from deepwave_side import deepwave, rsf, torch  # noqa: E402

warnings.filterwarnings("ignore")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "halofwi")
THREADS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
D, DT, F0, PML = 10.0, 0.001, 12.0, 20


def model(nz, nx):
    z = np.arange(nz)[:, None] * D
    x = np.arange(nx)[None, :] * D
    vp = np.where(z < 200, 1500.0, np.minimum(1800.0 + 0.9 * (z - 200), 3000.0)) + 0 * x
    rho = np.where(z < 200, 1000.0, np.where(z < 400, 1900.0, np.where(z < 550, 2300.0, 2050.0))) + 0 * x
    rho = rho + 350 * np.exp(-((x - 0.5 * nx * D) ** 2 + (z - 0.7 * nz * D) ** 2) / 120.0 ** 2)
    return vp.astype(np.float32), rho.astype(np.float32)


def run_halofwi(tmp, vp, rho, src, recs, nt, free):
    """The gather (nrec x nt) and the step rate and process time halofwi reports."""
    side.write_model(os.path.join(tmp, "vp.rsf"), vp, D)  # (n1, n2) = (z, x)
    side.write_model(os.path.join(tmp, "rho.rsf"), rho, D)
    side.write_wavelet(os.path.join(tmp, "w.rsf"), side.ricker(nt, DT, F0), DT)
    side.write_geometry(os.path.join(tmp, "geometry.txt"), src, recs, D)
    out = os.path.join(tmp, "out")
    cmd = [BIN, "-physics", "variable_density", "-vp", os.path.join(tmp, "vp.rsf"), "-rho", os.path.join(tmp, "rho.rsf"), "-geometry", os.path.join(tmp, "geometry.txt"),
           "-wavelet", os.path.join(tmp, "w.rsf"), "-nt", str(nt), "-dt", str(DT), "-order", "8", "-pml_width", str(PML), "-f0", str(F0), "-output_dir", out, "-overwrite",
           "-progress_interval", "0"] + (["-pml_top", "0"] if free else [])
    stdout, wall = side.halofwi(cmd, THREADS)
    gather, _ = rsf.read(os.path.join(out, "shot_0000.rsf"))
    return gather.T, side.model_rate(stdout, vp.shape, PML), wall  # (nrec, nt)


def run_deepwave(vp, rho, src, recs, nt, free):
    torch.set_num_threads(THREADS)
    area = D * D
    kw = dict(accuracy=8, pml_width=PML, pml_freq=F0)
    if free:
        kw.update(boundary=["free", "pml", "pml", "pml"], pml_width=[0, PML, PML, PML])  # z low, z high, x low, x high
    args = (torch.from_numpy(vp), torch.from_numpy(rho), D, DT)
    amp = torch.from_numpy(side.ricker(nt, DT, F0) / area)[None, None, :]
    sl = torch.tensor([[[float(src[0]), float(src[1])]]])
    rl = torch.tensor([[[float(r[0]), float(r[1])] for r in recs]])
    deepwave.acoustic(*args, source_amplitudes_volume_rate=amp[..., :8], source_locations_volume_rate=sl, receiver_locations_p=rl, nt=8, **kw)  # warm-up
    t0 = time.perf_counter()
    out = deepwave.acoustic(*args, source_amplitudes_volume_rate=amp, source_locations_volume_rate=sl, receiver_locations_p=rl, **kw)
    seconds = time.perf_counter() - t0
    return out.receivers["p"][0].numpy(), out.info, seconds


def case(name, nz, nx, nt, free, timed=False):
    vp, rho = model(nz, nx)
    src = (2 if free else PML // 4 + 4, nx // 2)
    recs = [(3 if free else 6, x) for x in range(4, nx - 4, 4)]
    with tempfile.TemporaryDirectory() as tmp:
        h, rate, wall = run_halofwi(tmp, vp, rho, src, recs, nt, free)
    d, info, seconds = run_deepwave(vp, rho, src, recs, nt, free)
    err = np.linalg.norm(d - h) / np.linalg.norm(h)
    print(f"{name}: {nz} x {nx} cells, {nt} steps; relative L2 of Deepwave's gather against halofwi's {err:.2e} (Deepwave: {info.boundary}, step ratio {info.step_ratio})")
    if timed:
        dw_rate = nz * nx * nt * info.step_ratio / seconds * 1e-9
        print(f"  speed, {THREADS} threads: halofwi {rate:.3f} G model-cell updates/s (its steps; whole process {wall:.2f} s), Deepwave {dw_rate:.3f} ({seconds:.2f} s): "
              f"halofwi / Deepwave {rate / dw_rate:.2f}")
        return rate, dw_rate


def speed_3d(n, nt):
    """Both codes on a homogeneous n^3 cube (2000 m/s, 1000 kg/m^3), one
    source at its centre, absorbing layers on every side: rates only."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [BIN, "-physics", "variable_density", "-vp", "2000", "-rho", "1000", "-dx", str(D), "-nx", str(n), "-ny", str(n), "-nz", str(n), "-nshots", "1", "-nrec", "1",
               "-source_depth", str(n // 2 * D), "-receiver_depth", str(n // 2 * D), "-nt", str(nt), "-dt", str(DT), "-order", "8", "-pml_width", str(PML), "-f0", str(F0),
               "-output_dir", os.path.join(tmp, "out"), "-progress_interval", "0"]
        stdout, wall = side.halofwi(cmd, THREADS)
        rate = side.model_rate(stdout, (n, n, n), PML)
    torch.set_num_threads(THREADS)
    v, rho = torch.full((n, n, n), 2000.0), torch.full((n, n, n), 1000.0)
    amp = torch.from_numpy(side.ricker(nt, DT, F0) / D ** 3)[None, None, :]
    loc = torch.tensor([[[n // 2] * 3]])
    kw = dict(accuracy=8, pml_width=PML, pml_freq=F0, source_locations_volume_rate=loc, receiver_locations_p=loc)
    deepwave.acoustic(v, rho, D, DT, source_amplitudes_volume_rate=amp[..., :8], nt=8, **kw)  # warm-up
    t0 = time.perf_counter()
    out = deepwave.acoustic(v, rho, D, DT, source_amplitudes_volume_rate=amp, **kw)
    seconds = time.perf_counter() - t0
    dw_rate = n ** 3 * nt * out.info.step_ratio / seconds * 1e-9
    print(f"speed, 3D absorbing: {n}^3 cells, {nt} steps, {THREADS} threads: halofwi {rate:.3f} G model-cell updates/s (its steps; whole process {wall:.2f} s), "
          f"Deepwave {dw_rate:.3f} ({seconds:.2f} s, step ratio {out.info.step_ratio}): halofwi / Deepwave {rate / dw_rate:.2f}")
    return rate, dw_rate


if __name__ == "__main__":
    print(f"deepwave {deepwave.__version__}, torch {torch.__version__}, halofwi {os.path.realpath(BIN)}")
    case("absorbing on every side", 100, 160, 900, False)
    case("free surface on top", 100, 160, 900, True)
    side.speed_runs("speed, 2D", case, "speed, absorbing", 1000, 1000, 500, False, True)
    side.speed_runs("speed, 3D", speed_3d, 128, 200)
