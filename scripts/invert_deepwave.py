#!/usr/bin/env python3
"""The inversion of scripts/demo with Deepwave and scipy's L-BFGS-B, for a
side-by-side comparison of the model error after each band.

usage: invert_deepwave.py DEMO_OUT THREADS
(DEMO_OUT: a folder scripts/demo left, with true.rsf and start.rsf)

The problem is the demo's: its models and survey (16 sources and a receiver
per x cell, 40 m deep, free surface on top, 20 absorbing cells elsewhere),
a 6 Hz Ricker delayed by 1.5/f0, 700 samples at 4 ms, the bands 3, 5 and 8
Hz (the wavelet and the data low-passed with halofwi's zero-phase Kaiser
filter), 8 iterations per band, velocities bounded to 1500..5000 m/s, cells
above 80 m fixed and the gradient tapered within 200 m of every source.
Each code inverts data it modelled itself, so neither meets the other's
modelling error.  Deepwave snaps sources and receivers to the nearest cell
(halofwi interpolates), and scipy's L-BFGS-B counts iterations as TAO's
blmvm does.  Prints the relative model error ||v - v_true|| / ||v_true||
of the start and after each band, and the evaluations taken."""
import os
import sys
import warnings

import deepwave
import numpy as np
import scipy.optimize
import torch

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import rsf  # noqa: E402

NSHOTS, DEPTH, NT, DT, F0 = 16, 40.0, 700, 0.004, 6.0
BANDS, ITERATIONS, PML = (3.0, 5.0, 8.0), 8, 20
VMIN, VMAX, FIX_ABOVE, TAPER = 1500.0, 5000.0, 80.0, 200.0


def low_pass(fcut, dt, data):
    """halofwi's LowPassZeroPhase (src/filter.c): a Kaiser-windowed ideal
    low-pass, 60 dB stop band, transition 0.5 fcut, applied along the last axis."""
    atten = 60.0
    beta, fc = 0.1102 * (atten - 8.7), fcut * dt
    m = int(np.ceil(np.ceil((atten - 7.95) / (2.285 * np.pi * fc)) / 2))
    j = np.arange(1, m + 1)
    h = np.concatenate(([2 * fc], np.sin(2 * np.pi * fc * j) / (np.pi * j) * np.i0(beta * np.sqrt(1 - (j / m) ** 2)) / np.i0(beta)))
    taps = np.concatenate((h[:0:-1], h))
    pad = np.pad(np.asarray(data, np.float64), [(0, 0)] * (np.ndim(data) - 1) + [(m, m)])
    return np.apply_along_axis(lambda x: np.convolve(x, taps, mode="valid"), -1, pad).astype(np.float32)


def main(argv):
    out, threads = argv[1], int(argv[2])
    torch.set_num_threads(threads)
    warnings.filterwarnings("ignore")
    true, hdr = rsf.read(os.path.join(out, "true.rsf"))
    start, _ = rsf.read(os.path.join(out, "start.rsf"))
    h = float(hdr["d1"])
    nz, nx = true.shape
    width = (nx - 1) * h
    cell = lambda x: int(round(x / h))  # noqa: E731
    src = torch.tensor([[[cell(DEPTH), cell(width * s / (NSHOTS - 1))]] for s in range(NSHOTS)])
    rec = torch.tensor([[[cell(DEPTH), x] for x in range(nx)]] * NSHOTS)
    t = np.arange(NT) * DT - 1.5 / F0
    ricker = ((1 - 2 * (np.pi * F0 * t) ** 2) * np.exp(-((np.pi * F0 * t) ** 2))).astype(np.float32)
    pml = [0, PML, PML, PML]

    def model(v, wavelet):
        amp = torch.from_numpy(np.tile(wavelet, (NSHOTS, 1, 1)))
        return deepwave.scalar(v, h, DT, source_amplitudes=amp, source_locations=src, receiver_locations=rec,
                               accuracy=8, pml_width=pml, pml_freq=F0, max_vel=VMAX)[-1]

    with torch.no_grad():
        observed = model(torch.from_numpy(true), ricker).numpy()
    z, x = np.meshgrid(np.arange(nz) * h, np.arange(nx) * h, indexing="ij")
    weight = (z >= FIX_ABOVE).astype(np.float64)
    for s in range(NSHOTS):
        r = np.hypot(z - DEPTH, x - width * s / (NSHOTS - 1))
        weight *= np.where(r < TAPER, 0.5 * (1 - np.cos(np.pi * r / TAPER)), 1.0)
    fixed = z < FIX_ABOVE
    lower = np.where(fixed, start, VMIN).ravel().astype(np.float64)
    upper = np.where(fixed, start, VMAX).ravel().astype(np.float64)
    v = start.astype(np.float64).ravel()
    err = lambda m: np.linalg.norm(m.reshape(true.shape) - true) / np.linalg.norm(true)  # noqa: E731
    print(f"deepwave {deepwave.__version__ if hasattr(deepwave, '__version__') else ''} + scipy {scipy.__version__} L-BFGS-B: "
          f"model error start {err(v):.4f}", flush=True)
    total = 0
    for band, fcut in enumerate(BANDS, 1):
        w = low_pass(fcut, DT, ricker)
        obs = torch.from_numpy(low_pass(fcut, DT, observed))

        def objective(m):
            vt = torch.tensor(m.reshape(true.shape), dtype=torch.float32, requires_grad=True)
            misfit = 0.5 * (model(vt, w) - obs).pow(2).sum()
            misfit.backward()
            return float(misfit), (vt.grad.numpy().astype(np.float64) * weight).ravel()

        res = scipy.optimize.minimize(objective, v, jac=True, method="L-BFGS-B", bounds=list(zip(lower, upper)),
                                      options={"maxiter": ITERATIONS, "maxfun": 10 * ITERATIONS})
        v, total = res.x, total + res.nfev
        print(f"band {band} (up to {fcut:g} Hz): {res.nit} iterations, {res.nfev} evaluations, misfit {res.fun:.6e}, "
              f"model error {err(v):.4f}", flush=True)
    print(f"evaluations in all: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
