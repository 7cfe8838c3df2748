#!/usr/bin/env python3
"""Recording interval above the stability limit: the solver steps at dt/m,
upsamples the wavelet and decimates the traces (Kaiser-windowed sinc).

X = stability limit, read from the program (and checked against the
documented formula).  Run A: -dt 3.4 X (m = 4 at the default -cfl 0.9), nt
samples.  Run B: -dt 3.4 X / 4 (m = 1, no resampling), 4 (nt - 1) + 1
samples: the same internal step.  A's traces equal every 4th sample of B's.
The Ricker (10 Hz) is far below A's Nyquist (~53 Hz).

Also: -wavelet FILE.rsf holding the same Ricker sampled at -dt gives A's
traces to float rounding; the internal step follows -cfl.
"""
import numpy as np

import common as c

DX = 10.0
F0 = 10.0
K8 = 205 / 72 + 2 * (8 / 5 + 1 / 5 + 8 / 315 + 1 / 560)  # order-8 stencil, |eigenvalue| max
TOL_RESAMPLE = 3e-4   # relative L2, A vs B[::4] (measured 3.3e-5)
TOL_FILE = 1e-5       # relative max, -wavelet file vs built-in Ricker


def main():
    scr = c.Scratch("resampling")
    with scr:
        nz, nx = 61, 81
        vp = c.smooth_random_model((nx, nz), seed=4)
        model = c.write_model(scr.sub("vp.rsf"), vp, DX)
        shots = [((DX * 40, DX * 10), [(DX * i, DX * 3) for i in range(0, nx, 4)] +
                  [(DX * 60, DX * k) for k in range(0, nz, 6)])]
        geo = c.write_geometry(scr.sub("geom.txt"), shots, comment="resampling test")
        base = ["-mode", "forward", "-vp", model, "-geometry", geo, "-order", 8, "-f0", F0]

        # stability limit from a 1-sample run, and the documented formula
        out = c.run(1, base + ["-dt", 0.001, "-nt", 1], scr.sub("probe"))
        X = c.stability_limit(out)
        vmax = float(np.max(vp))
        X_doc = 2.0 / (vmax * np.sqrt(K8 * 2 / DX ** 2))
        print(f"  stability limit {X!r} s (documented formula: {X_doc!r} s)")
        c.check(abs(X - X_doc) <= 1e-6 * X_doc,
                f"stability limit {X!r} s differs from 2/(vmax sqrt(K sum 1/d^2)) = {X_doc!r} s "
                f"(relative {abs(X - X_doc) / X_doc:.2e} > 1e-6)")

        dtA = 3.4 * X
        dtB = dtA / 4
        ntA = 200
        ntB = 4 * (ntA - 1) + 1
        dirA, dirB = scr.sub("A"), scr.sub("B")
        outA = c.run(1, base + ["-dt", dtA, "-nt", ntA], dirA)
        outB = c.run(1, base + ["-dt", dtB, "-nt", ntB], dirB)
        iA, iB = c.internal_step(outA), c.internal_step(outB)
        c.check(abs(iA - dtA / 4) <= 1e-8 * dtA,
                f"run A: internal step {iA!r} s, expected -dt/4 = {dtA / 4!r} s (cfl 0.9, limit {X!r} s)")
        c.check(abs(iB - dtB) <= 1e-8 * dtB, f"run B: internal step {iB!r} s, expected -dt = {dtB!r} s")
        gA = c.read_gather(dirA, 0).astype(float)
        gB = c.read_gather(dirB, 0).astype(float)
        c.check(gA.shape[1] == ntA and gB.shape[1] == ntB,
                f"trace lengths {gA.shape[1]} and {gB.shape[1]}, expected {ntA} and {ntB}")
        c.check(np.all(np.isfinite(gA)) and np.abs(gA).max() > 0, "run A: gather zero or not finite")
        sub = gB[:, ::4]
        err = c.rel_l2(gA, sub)
        per_trace = max(c.rel_l2(gA[i], sub[i]) for i in range(gA.shape[0]) if np.any(sub[i]))
        print(f"  A (dt {dtA:.6g} s, m=4) vs B (dt {dtB:.6g} s, m=1) every 4th sample: relative L2 "
              f"{err:.3e} over the gather, worst trace {per_trace:.3e} (threshold {TOL_RESAMPLE})", flush=True)
        c.check(err < TOL_RESAMPLE,
                f"resampled run differs from the fine run by {err:.3e} (relative L2) > {TOL_RESAMPLE}")
        c.check(per_trace < 2 * TOL_RESAMPLE,
                f"worst trace of the resampled run differs by {per_trace:.3e} (relative L2) > {2 * TOL_RESAMPLE}")

        # the same Ricker from a file, sampled at -dt
        t = np.arange(ntA) * dtA
        w = c.ricker(t, F0)
        wfile = c.write_rsf(scr.sub("ricker.rsf"), w.astype(np.float32), d=[dtA])
        dirF = scr.sub("F")
        c.run(1, base + ["-dt", dtA, "-nt", ntA, "-wavelet", wfile], dirF)
        gF = c.read_gather(dirF, 0).astype(float)
        e = np.abs(gF - gA).max() / np.abs(gA).max()
        print(f"  -wavelet file vs built-in Ricker: max |diff| / max |trace| = {e:.3e} (threshold {TOL_FILE})")
        c.check(e < TOL_FILE, f"-wavelet {wfile} run differs from the Ricker run by {e:.3e} > {TOL_FILE}")

        # -cfl sets m: the smallest integer with dt/m <= cfl * X
        for cfl in (0.5, 0.3):
            o = c.run(1, base + ["-dt", dtA, "-nt", 1, "-cfl", cfl], scr.sub(f"cfl{cfl}"))
            m = int(np.ceil(dtA / (cfl * X) - 1e-9))
            got = c.internal_step(o)
            c.check(abs(got - dtA / m) <= 1e-8 * dtA,
                    f"-cfl {cfl}: internal step {got!r} s, expected dt/{m} = {dtA / m!r} s")


if __name__ == "__main__":
    c.main(main)
