#!/usr/bin/env python3
"""An inversion with Deepwave and scipy's L-BFGS-B, the peer halofwi's is
compared with: the same models, survey, bands and filter, bounds, mask and
tapers, iterations per band; each code inverts data it modelled itself, so
neither meets the other's modelling error.  2D or 3D.

usage: invert_deepwave.py CASE.json THREADS   (as scripts/bench-inversion writes it)
       invert_deepwave.py DEMO_OUT THREADS    (the inversion of scripts/demo)

CASE.json: true, start (RSF paths, depth first: z, x[, y]), sources and
receivers (metres, z, x[, y]; every shot records every receiver), nt, dt,
f0 (a Ricker delayed by 1.5/f0), bands (Hz; the wavelet and the data
low-passed with halofwi's zero-phase Kaiser filter), iterations (per band),
vp_min, vp_max, fix_above (m), source_taper, receiver_taper (radii, m: the
gradient times 0.5 (1 - cos(pi r / R)) of the distance r to the nearest
source and to the nearest receiver, as halofwi weights it), pml (cells; the
top is a free surface).

DEMO_OUT: a folder scripts/demo left (true.rsf, start.rsf): its survey (16
sources, a receiver per x cell, 40 m deep), 700 samples at 4 ms, a 6 Hz
Ricker, bands 3, 5 and 8 Hz, 8 iterations each, 1500..5000 m/s, cells
above 80 m fixed, a 200 m source taper and no receiver taper, 20 layer cells.

Deepwave snaps sources and receivers to the nearest cell (halofwi
interpolates; the bench puts them on cells), and scipy's L-BFGS-B counts
iterations as TAO's blmvm does.  Prints the model error ||v - v_true|| /
||v_true|| of the start and after every iteration ('iteration N (band B):
model error E'), then after each band."""
import json
import os
import sys
import warnings

import deepwave
import numpy as np
import scipy.optimize
import torch

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import rsf  # noqa: E402

SHOTS_AT_ONCE = 4  # the shots modelled together: their stored wavefields bound the memory (3D)


def low_pass(fcut, dt, data):
    """halofwi's LowPassZeroPhase (src/data/filter.c): a Kaiser-windowed ideal
    low-pass, 60 dB stop band, transition 0.5 fcut, applied along the last axis."""
    atten = 60.0
    beta, fc = 0.1102 * (atten - 8.7), fcut * dt
    m = int(np.ceil(np.ceil((atten - 7.95) / (2.285 * np.pi * fc)) / 2))
    j = np.arange(1, m + 1)
    h = np.concatenate(([2 * fc], np.sin(2 * np.pi * fc * j) / (np.pi * j) * np.i0(beta * np.sqrt(1 - (j / m) ** 2)) / np.i0(beta)))
    taps = np.concatenate((h[:0:-1], h))
    pad = np.pad(np.asarray(data, np.float64), [(0, 0)] * (np.ndim(data) - 1) + [(m, m)])
    return np.apply_along_axis(lambda x: np.convolve(x, taps, mode="valid"), -1, pad).astype(np.float32)


def demo_case(out):
    """The inversion of scripts/demo as a case."""
    true, hdr = rsf.read(os.path.join(out, "true.rsf"))
    h, (nz, nx) = float(hdr["d1"]), true.shape
    width = (nx - 1) * h
    return {"true": os.path.join(out, "true.rsf"), "start": os.path.join(out, "start.rsf"),
            "sources": [[40.0, h * round(width * s / 15 / h)] for s in range(16)], "receivers": [[40.0, x * h] for x in range(nx)],
            "nt": 700, "dt": 0.004, "f0": 6.0, "bands": [3.0, 5.0, 8.0], "iterations": 8, "vp_min": 1500.0, "vp_max": 5000.0,
            "fix_above": 80.0, "source_taper": 200.0, "receiver_taper": 0.0, "pml": 20}


def taper(points, R, coords):
    """halofwi's taper (src/program/invert.c, TaperAround): of the distance to the nearest point."""
    w = np.ones(coords[0].shape)
    for p in points if R > 0 else ():
        r = np.sqrt(sum((x - q) ** 2 for x, q in zip(coords, p)))
        w = np.minimum(w, np.where(r < R, 0.5 * (1 - np.cos(np.pi * r / R)), 1.0))
    return w


def main(argv):
    case = json.load(open(argv[1])) if argv[1].endswith(".json") else demo_case(argv[1])
    torch.set_num_threads(int(argv[2]))
    warnings.filterwarnings("ignore")
    true, hdr = rsf.read(case["true"])
    start, _ = rsf.read(case["start"])
    true, start = np.ascontiguousarray(true, np.float32), np.ascontiguousarray(start, np.float32)
    h, ndim, dt, f0, nt = float(hdr["d1"]), true.ndim, case["dt"], case["f0"], case["nt"]
    cell = lambda p: [int(round(x / h)) for x in p]  # noqa: E731
    nshots = len(case["sources"])
    src = torch.tensor([[cell(p)] for p in case["sources"]])
    rec = torch.tensor([[cell(p) for p in case["receivers"]]] * nshots)
    t = np.arange(nt) * dt - 1.5 / f0
    ricker = ((1 - 2 * (np.pi * f0 * t) ** 2) * np.exp(-((np.pi * f0 * t) ** 2))).astype(np.float32)
    pml = [0] + [case["pml"]] * (2 * ndim - 1)

    def model(v, wavelet, shots):
        amp = torch.from_numpy(np.tile(wavelet, (len(src[shots]), 1, 1)))
        return deepwave.scalar(v, h, dt, source_amplitudes=amp, source_locations=src[shots], receiver_locations=rec[shots],
                               accuracy=8, pml_width=pml, pml_freq=f0, max_vel=case["vp_max"])[-1]

    batches = [slice(b, b + SHOTS_AT_ONCE) for b in range(0, nshots, SHOTS_AT_ONCE)]
    with torch.no_grad():
        observed = np.concatenate([model(torch.from_numpy(true), ricker, b).numpy() for b in batches])
    coords = np.meshgrid(*(np.arange(n) * h for n in true.shape), indexing="ij")
    fixed = coords[0] < case["fix_above"]
    weight = np.where(fixed, 0.0, np.minimum(taper(case["sources"], case["source_taper"], coords), taper(case["receivers"], case["receiver_taper"], coords)))
    lower = np.where(fixed, start, case["vp_min"]).ravel().astype(np.float64)
    upper = np.where(fixed, start, case["vp_max"]).ravel().astype(np.float64)
    v = start.astype(np.float64).ravel()
    err = lambda m: np.linalg.norm(m.reshape(true.shape) - true) / np.linalg.norm(true)  # noqa: E731
    print(f"deepwave {getattr(deepwave, '__version__', '')} + scipy {scipy.__version__} L-BFGS-B: model error start {err(v):.6f}", flush=True)
    total, its = 0, [0]
    for band, fcut in enumerate(case["bands"], 1):
        w = low_pass(fcut, dt, ricker)
        obs = torch.from_numpy(low_pass(fcut, dt, observed))

        def objective(m):
            vt = torch.tensor(m.reshape(true.shape), dtype=torch.float32, requires_grad=True)
            misfit = 0.0
            for b in batches:  # the gradient accumulates in vt.grad
                part = 0.5 * (model(vt, w, b) - obs[b]).pow(2).sum()
                part.backward()
                misfit += float(part)
            return misfit, (vt.grad.numpy().astype(np.float64) * weight).ravel()

        def iterated(m, band=band):
            its[0] += 1
            print(f"iteration {its[0]} (band {band}): model error {err(m):.6f}", flush=True)

        res = scipy.optimize.minimize(objective, v, jac=True, method="L-BFGS-B", bounds=list(zip(lower, upper)), callback=iterated,
                                      options={"maxiter": case["iterations"], "maxfun": 10 * case["iterations"]})
        v, total = res.x, total + res.nfev
        print(f"band {band} (up to {fcut:g} Hz): {res.nit} iterations, {res.nfev} evaluations ({res.message}), misfit {res.fun:.6e}, "
              f"model error {err(v):.6f}", flush=True)
    print(f"evaluations in all: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
