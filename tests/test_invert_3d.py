#!/usr/bin/env python3
"""-mode invert in 3D with the defaults (the blobs3d case of
scripts/bench-inversion, made small): a 28 x 28 x 20 model at 20 m, a slow
and a fast blob in a gradient; the inversion starts from the gradient; 4
sources on a 2 x 2 grid and receivers every 40 m, all 40 m deep, cells
above 60 m fixed, bands 5 and 9 Hz, 3 iterations each, 2 ranks in 2 shot
groups.

(a) the model error ||v - v_true|| is below the start's at every
    iteration's model (vp_0001..vp_0006), and at the end at most
    MODEL_KEPT of it (measured 0.917 with the first step of 0.2, 0.902
    with the 0.05 of before 2026-12-07; 0.968 without the tapers and the
    pseudo-Hessian, which this check then fails);
(b) no cell of the 100 m below the fixed layer moves by more than
    NEAR_SURFACE m/s (measured 56 m/s; without the tapers and the
    pseudo-Hessian, -precondition none -source_taper 0 -receiver_taper 0,
    306 m/s under the sources and receivers, the failure the tapers
    prevent)."""
import os

import numpy as np

import common as c

DX = 20.0
NZ, NX, NY = 20, 28, 28
MODEL_KEPT = 0.95     # measured 0.917
NEAR_SURFACE = 200.0  # m/s, measured 56 (306 without tapers and pseudo-Hessian)
FIX_ABOVE = 60.0


def models():
    """(true, start) indexed [y, x, z]."""
    y, x, z = np.meshgrid(np.arange(NY) * DX, np.arange(NX) * DX, np.arange(NZ) * DX, indexing="ij")
    start = 1800.0 + 0.75 * z
    slow = -400.0 * np.exp(-((z - 220) ** 2 + (x - 190) ** 2 + (y - 190) ** 2) / 80.0**2)
    fast = 400.0 * np.exp(-((z - 280) ** 2 + (x - 360) ** 2 + (y - 360) ** 2) / 90.0**2)
    return start + slow + fast, start


def survey(path):
    with open(path, "w") as f:
        for sx in (140.0, 400.0):
            for sy in (140.0, 400.0):
                f.write(f"S {sx} {sy} 40\n")
                f.writelines(f"R {rx} {ry} 40\n" for rx in np.arange(0, NX * DX, 40.0) for ry in np.arange(0, NY * DX, 40.0))


def main():
    scr = c.Scratch("invert_3d")
    with scr:
        true, start = models()
        geometry = scr.sub("survey.txt")
        survey(geometry)
        acq = ["-geometry", geometry, "-nt", 300, "-dt", 0.002, "-f0", 9.0, "-pml_width", 10, "-pml_top", 0, "-shot_groups", 2,
               "-vp_max", 3000.0, "-progress_interval", 0]
        obs = scr.sub("obs")
        c.run(2, ["-mode", "forward", "-vp", c.write_model(scr.sub("true.rsf"), true, DX)] + acq, obs)
        out = scr.sub("inv")
        c.run(2, ["-mode", "invert", "-vp", c.write_model(scr.sub("start.rsf"), start, DX), "-observed_dir", obs, "-vp_min", 1400.0,
                  "-fix_above", FIX_ABOVE, "-bands", "5,9", "-tao_max_it", 3] + acq, out, timeout=900)  # 18 s on 2 idle cores
        e0 = np.linalg.norm(start - true)
        errors = [np.linalg.norm(c.read_rsf(os.path.join(out, f"vp_{k:04d}.rsf"))[0] - true) / e0 for k in range(1, 7)]
        v = c.read_rsf(os.path.join(out, "vp.rsf"))[0]
        top = (np.arange(NZ) * DX >= FIX_ABOVE) & (np.arange(NZ) * DX < FIX_ABOVE + 100)
        near = float(np.abs(v[:, :, top] - start[:, :, top]).max())
        print(f"  (a) model error / the start's after each iteration: {' '.join(f'{e:.3f}' for e in errors)} (at most {MODEL_KEPT} at the end)")
        print(f"  (b) the 100 m below -fix_above: largest change {near:.1f} m/s (at most {NEAR_SURFACE})", flush=True)
        c.check(max(errors) < 1, f"(a) the model error rose above the start's: {max(errors):.3f} of it")
        c.check(errors[-1] <= MODEL_KEPT, f"(a) the model error ends at {errors[-1]:.3f} of the start's, above {MODEL_KEPT}")
        c.check(near <= NEAR_SURFACE, f"(b) a cell of the 100 m below -fix_above moved by {near:.1f} m/s, above {NEAR_SURFACE}")


if __name__ == "__main__":
    c.main(main)
