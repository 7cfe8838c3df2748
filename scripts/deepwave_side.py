"""What the scripts that run halofwi beside Deepwave share
(compare_deepwave_vd.py, compare_deepwave_elastic.py), so that importing
this module is their first step: it brings in deepwave, torch and numpy,
re-executing the script under DEEPWAVE_PYTHON when this python lacks any
of them; then the Ricker wavelet both codes are given, halofwi's inputs
as files (models and wavelet as RSF via rsf.py, n1 = z fastest; the
geometry as text in metres), running halofwi as a process timed from
launch to exit, and its printed shot rate as model-cell updates per
second.

Points are (z, x) positions in cells: cell centres at integer values, as
Deepwave's integer locations of its pressure are.
"""
import os
import statistics
import subprocess
import sys
import time

try:  # numpy too: a python without it re-executes before failing on it
    import deepwave
    import numpy as np
    import torch
except ImportError:
    _py = os.environ.get("DEEPWAVE_PYTHON")
    if _py and not os.environ.get("DEEPWAVE_SIDE_REEXEC"):  # once: a venv's python may be a link to this one
        os.execve(_py, [_py] + sys.argv, dict(os.environ, DEEPWAVE_SIDE_REEXEC="1"))
    sys.exit(f"{os.path.basename(sys.argv[0])}: deepwave is not importable here; set DEEPWAVE_PYTHON to a python with deepwave and torch")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rsf  # noqa: E402


def ricker(nt, dt, f0):
    """A Ricker wavelet of peak frequency f0, its peak at 1.5 / f0, float32."""
    t = np.arange(nt) * dt - 1.5 / f0
    a = (np.pi * f0 * t) ** 2
    return ((1 - 2 * a) * np.exp(-a)).astype(np.float32)


def write_model(path, values, d):
    """A model (nz, nx[, ny]) as RSF, n1 = z fastest, spacing d on every axis."""
    rsf.write(path, values, d=[d] * np.ndim(values))


def write_wavelet(path, wavelet, dt):
    rsf.write(path, wavelet, d=[dt])


def write_geometry(path, src, recs, d):
    """halofwi's -geometry text: `S x z` and `R x z` in metres for the source
    and each receiver, given as (z, x) positions in cells."""
    with open(path, "w") as f:
        f.write("".join(f"{k} {float(p[1] * d)!r} {float(p[0] * d)!r}\n" for k, p in [("S", src)] + [("R", r) for r in recs]))


def halofwi(cmd, threads):
    """Runs halofwi: its output and the process's seconds, launch to exit."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode:
        sys.exit(f"halofwi failed ({p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p.stdout, wall


def model_rate(stdout, shape, pml):
    """halofwi's shot rate (over the cells with the absorbing layers, pml
    cells on each side of every axis) as model-cell updates per second."""
    for line in stdout.splitlines():
        if line.startswith("shot ") and "G cell-updates/s" in line:
            rate = float(line.split("G cell-updates/s")[0].split()[-1])
            return rate * np.prod([n / (n + 2.0 * pml) for n in shape])
    sys.exit("halofwi printed no shot rate")


def speed_runs(label, run, *args):
    """Runs a speed case (run returns halofwi's rate and Deepwave's)
    SPEED_RUNS times in a row (default 1), the two codes alternating, each
    run printing its own line, then, where there are several, the median
    of the runs' ratios and the ratio of each code's highest rate: single
    runs on this shared virtual machine move by up to 1.5x, and a slow
    spell only ever lowers a rate."""
    n = int(os.environ.get("SPEED_RUNS", "1"))
    rates = [run(*args) for _ in range(n)]
    ratios = [h / d for h, d in rates]
    if n > 1:
        best = [max(r[k] for r in rates) for k in (0, 1)]
        print(f"{label}: halofwi / Deepwave over {n} runs, median {statistics.median(ratios):.2f} (lowest {min(ratios):.2f}, highest {max(ratios):.2f}); "
              f"each code's highest rate: halofwi {best[0]:.3f}, Deepwave {best[1]:.3f} G model-cell updates/s, {best[0] / best[1]:.2f}")
