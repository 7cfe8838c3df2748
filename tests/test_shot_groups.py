#!/usr/bin/env python3
"""4 ranks, 4 shots (different receiver counts), -shot_groups 1, 2 and 4:
every shot's gather is bit-for-bit the same, and equal to a 1-rank run; the
gradient and the misfit of those shots, 2D and 3D, are bit-for-bit those of
a 1-rank run too (the groups' sums are exact, so their order and grouping
do not matter; in 3D by the boundary method, named); so are the
variable-density equation's gradients (dJ/dvp and dJ/drho, each gradient
method) in 2D, and one shot's alone: with one
group its images are not summed (PropagatorGradientReset's single), with
-shot_groups 2 and 4 they are, beside idle groups, and the bits agree."""
import os
import re

import numpy as np

import common as c

DX = 10.0


def main():
    scr = c.Scratch("shot_groups")
    with scr:
        nz, nx = 41, 66
        vp = c.smooth_random_model((nx, nz), seed=3)
        model = c.write_model(scr.sub("vp.rsf"), vp, DX)
        shots = []
        for s, xs in enumerate([5, 25, 44, 63]):
            recs = [(DX * i, DX * (2 + s)) for i in range(s, nx, 1 + s)]  # 66, 33, 22, 17 receivers
            recs.append((DX * xs, DX * (nz - 3)))
            shots.append(((DX * xs, DX * (3 + 5 * s)), recs))
        geo = c.write_geometry(scr.sub("geom.txt"), shots, comment="shot groups test")
        base = ["-mode", "forward", "-vp", model, "-geometry", geo, "-f0", 12, "-dt", 0.002, "-nt", 200]

        ref = scr.sub("g1_1rank")
        c.run(1, base, ref)
        for G in (1, 2, 4):
            d = scr.sub(f"g{G}")
            out = c.run(4, base + ["-shot_groups", G], d)
            names = sorted(f for f in os.listdir(d) if f.startswith("shot_") and f.endswith(".rsf"))
            c.check(names == ["shot_%04d.rsf" % s for s in range(4)],
                    f"-shot_groups {G}: output files {names}, expected shot_0000..0003.rsf")
            for s in range(4):
                # documented: shot s goes to group s mod G, its (s // G + 1)-th of 4 / G; one progress line per shot
                group = f" (group {s % G})" if G > 1 else ""
                whose = "the group's " if G > 1 else ""
                line = re.compile(rf"^shot {s}{re.escape(group)}: .*; {whose}{s // G + 1} of {4 // G} shots run, about \d+ s left$", re.M)
                c.check(len(line.findall(out)) == 1,
                        f"-shot_groups {G}: {len(line.findall(out))} progress lines '{line.pattern}' for shot {s}, expected 1")
            c.compare_bitwise(ref, d, 4, f"4 ranks, -shot_groups {G} vs 1 rank")
        for s in range(4):
            g = c.read_gather(ref, s)
            c.check(g.shape == (len(shots[s][1]), 200), f"shot {s}: gather shape {g.shape}")
            c.check(np.all(np.isfinite(g)) and np.abs(g).max() > 0, f"shot {s}: gather zero or not finite")

        # gradients in a smoother, slower model against the gathers above
        start = c.write_model(scr.sub("start.rsf"), (0.97 * c.smooth_random_model((nx, nz), seed=3, sigma=8.0)), DX)
        grad2 = ["-mode", "gradient", "-vp", start, "-geometry", geo, "-f0", 12, "-dt", 0.002, "-nt", 200, "-vp_max", 3400, "-observed_dir", ref]
        gradients_bitwise(scr, "2D", grad2)
        rho = c.write_model(scr.sub("rho.rsf"), (1800 + 300 * c.smooth_random_model((nx, nz), seed=7) / 3000).astype(np.float32), DX)
        for method in ("full", "boundary"):
            gradients_bitwise(scr, f"2D variable density, {method}", grad2 + ["-physics", "variable_density", "-rho", rho, "-gradient_method", method])
        geo1 = c.write_geometry(scr.sub("geom1.txt"), shots[:1], comment="shot groups test, one shot")
        grad1 = [geo1 if a == geo else a for a in grad2]
        gradients_bitwise(scr, "2D variable density, one shot", grad1 + ["-physics", "variable_density", "-rho", rho])
        true3 = c.write_model(scr.sub("true3.rsf"), c.smooth_random_model((14, 18, 16), seed=5), DX)
        start3 = c.write_model(scr.sub("start3.rsf"), c.smooth_random_model((14, 18, 16), seed=5, sigma=8.0), DX)
        acq3 = ["-nshots", 4, "-nrec", 9, "-f0", 15, "-dt", 0.002, "-nt", 120, "-pml_width", 6, "-vp_max", 3400]
        obs3 = scr.sub("obs3")
        c.run(1, ["-mode", "forward", "-vp", true3] + acq3, obs3)
        # the method named: the planner weighs the store's first use over the shots a group runs, so
        # with 4 shots it may take full storage on 1 rank and the boundary method in 2 or 4 groups
        gradients_bitwise(scr, "3D", ["-mode", "gradient", "-vp", start3, "-observed_dir", obs3, "-gradient_method", "boundary"] + acq3)


def misfit_of(out):
    m = re.search(r"^misfit\s+(\S+)\s*$", out, re.M)
    c.check(m is not None, f"no misfit line in:\n{out}")
    return m.group(1)


def gradients_bitwise(scr, tag, args):
    """Every gradient file (gradient.rsf, and gradient_rho.rsf where the
    physics has a density) and the misfit with -shot_groups 1, 2, 4 on 4
    ranks, bit for bit those of 1 rank."""
    ref = scr.sub(f"grad{tag}_1rank".replace(" ", "_").replace(",", ""))
    J1 = misfit_of(c.run(1, args, ref))
    names = sorted(f for f in os.listdir(ref) if f.startswith("gradient") and f.endswith(".rsf"))
    for name in names:
        g1 = c.read_rsf(os.path.join(ref, name))[0]
        c.check(np.all(np.isfinite(g1)) and np.abs(g1).max() > 0, f"{tag}: 1-rank {name} zero or not finite")
    for G in (1, 2, 4):
        d = scr.sub(f"grad{tag}_g{G}".replace(" ", "_").replace(",", ""))
        J = misfit_of(c.run(4, args + ["-shot_groups", G], d))
        c.check(J == J1, f"{tag} -shot_groups {G}: misfit {J}, 1 rank {J1}: expected bit for bit")
        for name in names:
            g1 = c.read_rsf(os.path.join(ref, name))[0]
            g = c.read_rsf(os.path.join(d, name))[0]
            differ = int(np.count_nonzero(g.view(np.uint32) != g1.view(np.uint32)))
            print(f"  {tag} {name}, 4 ranks, -shot_groups {G}: misfit {J} (1 rank {J1}), "
                  f"{differ} of {g.size} cells differ from 1 rank", flush=True)
            c.check(differ == 0, f"{tag} -shot_groups {G}: {differ} of {g.size} cells of {name} differ from the 1-rank "
                                 f"run (max |diff| {np.abs(g.astype(float) - g1).max():.3e}): expected bit for bit")


if __name__ == "__main__":
    c.main(main)
