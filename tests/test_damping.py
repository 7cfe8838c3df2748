#!/usr/bin/env python3
"""-damping W, Tikhonov damping towards the starting model (2D, the model
and survey of test_gradient.py, blmvm from a smooth start, no tapers but where said):

- the objective is the data misfit plus W x the band's first misfit x the
  mean over the cells of ((v - v_start) / (0.01 v_start))^2: after the
  first iteration misfit.csv's misfit is, within 1e-5, -mode gradient's
  misfit at that iteration's model, and its objective that plus the term
  computed here from the model files;
- the term's gradient leads TAO down: with W = 10 every iteration lowers
  the objective, and the model moves at least 3 times less (rms change
  from the start) than without damping, whose misfit then ends lower;
- with tapers, each cell's term is divided by its taper weight (TAO's
  gradient, the weight times the objective's, then holds tapered cells
  as firmly as the others): misfit.csv's objective less its misfit after
  iteration 1 is that sum computed here from the positions in the
  gathers' coords files, and differs from the undivided sum by over 1%;
- -damping -1 is refused with an error naming the value."""
import os
import sys

import numpy as np

import common as c
import test_gradient as tg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import rsf  # noqa: E402  (the project's reader)

VP_MIN, VP_MAX = 1800, 2600
TAPERS = (150.0, 100.0)  # -source_taper, -receiver_taper (m)


def taper_weights(shape, obs):
    """The tapers' weight of each cell (x, z) at tg.DX from the origin: the
    least over the sources and receivers of 0.5 (1 - cos(pi r / R)) within R."""
    x = np.arange(shape[0])[:, None] * tg.DX
    z = np.arange(shape[1])[None, :] * tg.DX
    w = np.ones(shape)
    for name in sorted(os.listdir(obs)):
        if name.startswith("coords_") and name.endswith(".rsf"):
            xyz = rsf.read(os.path.join(obs, name))[0].T  # a row per receiver: source x y z, receiver x y z
            for points, radius in ((xyz[:1, 0:3], TAPERS[0]), (xyz[:, 3:6], TAPERS[1])):
                for px, _, pz in points:
                    r = np.hypot(x - px, z - pz)
                    w = np.minimum(w, np.where(r < radius, 0.5 * (1 - np.cos(np.pi * r / radius)), 1))
    return w


def history(out, column="objective"):
    return np.genfromtxt(os.path.join(out, "misfit.csv"), delimiter=",", names=True)[column]


def main():
    scr = c.Scratch("damping")
    with scr:
        _, start_path, obs, acq, _ = tg.survey_2d(scr)
        start = c.read_rsf(start_path)[0].astype(np.float64)
        untapered = ["-mode", "invert", "-vp", start_path, "-observed_dir", obs, "-vp_min", VP_MIN, "-vp_max", VP_MAX] + acq
        inv = untapered + ["-source_taper", 0, "-receiver_taper", 0]

        # the objective's value after one iteration
        weight = 0.3
        out = scr.sub("value")
        c.run(1, inv + ["-tao_max_it", 1, "-damping", weight], out)
        f, misfit = history(out), history(out, "misfit")
        v1_path = os.path.join(out, "vp_0001.rsf")
        v1 = c.read_rsf(v1_path)[0].astype(np.float64)
        term = weight * f[0] * np.mean(((v1 - start) / (0.01 * start)) ** 2)
        data, _ = tg.gradient_run(1, ["-mode", "gradient", "-vp", v1_path, "-observed_dir", obs, "-vp_max", VP_MAX] + acq, scr.sub("at_v1"), (1, 1, 1))
        print(f"  iteration 1: objective {f[1]:.9e}, data misfit {data:.9e} + damping {term:.9e} = {data + term:.9e}", flush=True)
        c.check(term > 0.05 * f[1], f"the damping term {term:.3e} is too small beside the objective {f[1]:.3e} to test it")
        c.check(abs(misfit[1] - data) <= 1e-5 * data, f"misfit.csv's misfit {misfit[1]:.9e} is not -mode gradient's {data:.9e}")
        c.check(abs(f[1] - (data + term)) <= 1e-5 * f[1], f"objective {f[1]:.9e} is not the data misfit {data:.9e} plus the damping term {term:.9e}")

        # with tapers: each cell's term over its weight
        out = scr.sub("tapered")
        c.run(1, untapered + ["-source_taper", TAPERS[0], "-receiver_taper", TAPERS[1], "-tao_max_it", 1, "-damping", weight], out)
        f, misfit = history(out), history(out, "misfit")
        v1 = c.read_rsf(os.path.join(out, "vp_0001.rsf"))[0].astype(np.float64)
        w = taper_weights(start.shape, obs)
        r2 = np.where(w > 0, ((v1 - start) / (0.01 * start)) ** 2, 0)
        divided = weight * f[0] * np.sum(r2 / np.where(w > 0, w, 1)) / start.size
        undivided = weight * f[0] * np.mean(r2)
        print(f"  tapered, iteration 1: objective - misfit {f[1] - misfit[1]:.9e}, the term over the weights {divided:.9e}, "
              f"undivided {undivided:.9e} (weights {w.min():.3f} to {w.max():.3f})", flush=True)
        c.check(divided > 1.01 * undivided, f"the tapers' weights change the term by under 1% ({divided:.6e}, {undivided:.6e}): no test of the division")
        c.check(abs((f[1] - misfit[1]) - divided) <= 1e-5 * divided, f"objective - misfit {f[1] - misfit[1]:.9e} is not the term over the taper weights {divided:.9e}")

        # the term's pull towards the start
        runs = {}
        for name, extra in (("none", ["-damping", 0]), ("damped", ["-damping", 10])):
            out = scr.sub(name)
            c.run(1, inv + ["-tao_max_it", 4] + extra, out)
            h = history(out)
            moved = float(np.sqrt(np.mean((c.read_rsf(os.path.join(out, "vp.rsf"))[0] - start) ** 2)))
            runs[name] = (h, moved)
            print(f"  -damping {extra[1]}: objective {' '.join(f'{x:.4e}' for x in h)}, rms change {moved:.2f} m/s", flush=True)
        (h0, m0), (h1, m1) = runs["none"], runs["damped"]
        c.check(all(b < a for a, b in zip(h1, h1[1:])), f"a damped iteration raised the objective: {h1}")
        c.check(m1 * 3 <= m0, f"damping moved the model by {m1:.2f} m/s rms, not 3 times less than the {m0:.2f} m/s without")
        c.check(h0[-1] < h1[-1], f"without damping the misfit ends at {h0[-1]:.4e}, not below the damped objective {h1[-1]:.4e}")

        out = c.run(1, inv + ["-damping", -1], scr.sub("bad"), expect_fail=True)
        msg = c.error_message(out)
        c.check("-damping" in msg and "-1" in msg, f"-damping -1: unclear error: {msg}")


if __name__ == "__main__":
    c.main(main)
