#!/usr/bin/env python3
"""-physics elastic as users run it:

- decomposed runs and shot groups against one rank, bit for bit, on a
  model with a water layer (vs = 0) over a solid with a dipping contrast,
  under a free surface: 2D on 2 x 2 ranks, 3 x 1 (rank boundaries near the
  water bottom) and 4 ranks in 2 shot groups, every component, an
  explosion and a vertical force (in 2D a horizontal one too: a rank
  alone takes two steps a sweep along x, and adds a force along x to its
  node between the stress stencils that read it and the velocity stage
  that steps it); 3D on 2 x 2 x 1 with vy;
- bad input refused before any work, naming the value: -vs missing or
  negative, vs >= vp, -vs with another physics, an unknown -source_type,
  a force with the variable-density equation, a -vs file on another grid,
  a gradient for vp and rho without vs; and a model with vp / vs below sqrt 2 runs with a warning.
"""
import os

import numpy as np

import common as c

DX = 10.0


def models(scr, dim, n):
    """vp, vs, rho files: water (1500 m/s, vs 0, 1000 kg/m^3) in the top
    quarter, then a solid whose speeds rise with depth, with a dipping
    faster layer."""
    shape = tuple(n[1:][::-1]) + (n[0],)  # [y,] x, z
    z = np.arange(n[0]) * DX
    x = np.arange(n[1]) * DX
    zz = np.broadcast_to(z, shape)
    xx = np.broadcast_to(x[:, None], shape[-2:]) if dim == 2 else np.broadcast_to(x[None, :, None], shape)
    water = zz < n[0] * DX / 4
    dip = zz > n[0] * DX / 2 + 0.2 * xx
    vp = np.where(water, 1500.0, 2200.0 + 2 * zz + 600 * dip)
    vs = np.where(water, 0.0, vp / 1.8)
    rho = np.where(water, 1000.0, 1900.0 + 0.2 * zz)
    paths = []
    for name, m in (("vp", vp), ("vs", vs), ("rho", rho)):
        paths.append(c.write_model(scr.sub(f"{name}{dim}.rsf"), m.astype(np.float32), DX))
    return paths


def gathers(outdir, comps, nshots):
    out = {}
    for s in range(nshots):
        for k, comp in enumerate(comps):
            a, h = c.read_rsf(f"{outdir}/shot_{s:04d}{'' if k == 0 else '_' + comp}.rsf")
            out[(s, comp)] = a.reshape((int(h.get("n2", 1)), int(h["n1"])))
    return out


def decomposition(scr):
    for dim, n, splits, comps in ((2, (60, 80), [(4, ["-da_processors_z", 2, "-da_processors_x", 2]), (3, ["-da_processors_z", 3, "-da_processors_x", 1]),
                                                (4, ["-shot_groups", 2])], "p,vz,vx"),
                                  (3, (28, 30, 26), [(4, ["-da_processors_z", 2, "-da_processors_x", 2, "-da_processors_y", 1])], "p,vz,vx,vy")):
        vp, vs, rho = models(scr, dim, n)
        for kind in ("pressure", "fz") + (("fx",) if dim == 2 else ()):
            args = ["-physics", "elastic", "-vp", vp, "-vs", vs, "-rho", rho, "-nt", 300 if dim == 2 else 200, "-dt", 1e-3, "-f0", 15, "-nshots", 2, "-pml_width", 8,
                    "-pml_top", 0, "-source_depth", n[0] * DX / 2, "-receiver_depth", 30, "-record", comps, "-source_type", kind]
            ref = scr.sub(f"ref{dim}{kind}")
            out = c.run(1, args, ref)
            c.check("nan" not in out.lower(), f"{dim}D {kind}: the run reports a NaN")
            want = gathers(ref, comps.split(","), 2)
            c.check(all(np.all(np.isfinite(g)) and np.abs(g).max() > 0 for g in want.values()), f"{dim}D {kind}: a gather is empty or not finite")
            for nranks, extra in splits:
                outdir = scr.sub(f"run{dim}{kind}{nranks}{len(extra)}")
                c.run(nranks, args + extra, outdir)
                got = gathers(outdir, comps.split(","), 2)
                for key, g in want.items():
                    diff = int(np.sum(got[key] != g))
                    c.check(diff == 0, f"{dim}D {kind} on {nranks} ranks {extra}: shot {key[0]} {key[1]} differs from one rank in {diff} samples")
                print(f"{dim}D {kind} on {nranks} ranks {' '.join(map(str, extra))}: every gather the bits of one rank", flush=True)


def gradient_runs(scr):
    """-mode gradient, by each method (full storage, and the forward fields
    run backwards): the three gradients (dJ/dvp, dJ/dvs, dJ/drho) finite
    and not all zero, and the same bits on 4 ranks (2 x 2) and in 2 shot
    groups as on one rank, water over solid under a free surface; with
    -invert_for vp and vp,vs (the images of the others not formed) the
    same bits of the gradients named, and no others written; a vertical
    and a horizontal force's gradients and velocity data's, boundary
    method, on 2 x 2 ranks the bits of one rank; and -mode invert for vp,
    vs and rho held."""
    n = (60, 80)
    vp, vs, rho = models(scr, 2, n)
    true_vs = c.write_model(scr.sub("vs_true.rsf"), (c.read_rsf(vs)[0] * 1.05).astype(np.float32), DX)
    common = ["-physics", "elastic", "-vp", vp, "-rho", rho, "-nt", 300, "-dt", 1e-3, "-f0", 12, "-nshots", 2, "-pml_width", 10, "-pml_top", 0,
              "-source_depth", 100, "-receiver_depth", 30]
    obs = scr.sub("obs")
    c.run(1, common + ["-vs", true_vs], obs)
    files = ("gradient.rsf", "gradient_vs.rsf", "gradient_rho.rsf")
    for method in ("full", "boundary"):
        grad = common + ["-vs", vs, "-mode", "gradient", "-observed_dir", obs, "-gradient_method", method]
        ref = scr.sub(f"grad1_{method}")
        c.run(1, grad, ref)
        for f in files:
            g = c.read_rsf(f"{ref}/{f}")[0]
            c.check(np.all(np.isfinite(g)) and np.abs(g).max() > 0, f"{method} {f}: not finite, or all 0")
        for nranks, extra in ((4, ["-da_processors_z", 2, "-da_processors_x", 2]), (2, ["-shot_groups", 2])):
            out = scr.sub(f"grad{nranks}_{method}")
            c.run(nranks, grad + extra, out)
            for f in files:
                same = open(f"{ref}/{f}@", "rb").read() == open(f"{out}/{f}@", "rb").read()
                c.check(same, f"{method} {f} on {nranks} ranks {extra}: differs from one rank's")
            print(f"{method} gradient on {nranks} ranks {' '.join(map(str, extra))}: dJ/dvp, dJ/dvs and dJ/drho the bits of one rank", flush=True)
        for k, wanted in ((1, "vp"), (2, "vp,vs")):
            out = scr.sub(f"grad_{method}_{k}")
            c.run(1, grad + ["-invert_for", wanted], out)
            for i, f in enumerate(files):
                if i < k:
                    c.check(open(f"{ref}/{f}@", "rb").read() == open(f"{out}/{f}@", "rb").read(), f"{method} -invert_for {wanted}: {f} differs from the run taking all three")
                else:
                    c.check(not os.path.exists(f"{out}/{f}"), f"{method} -invert_for {wanted}: wrote {f}")
            print(f"{method} gradient, -invert_for {wanted}: {', '.join(files[:k])} the bits of the run taking all three, no others written", flush=True)
    # A force's gradient and velocity data's, boundary method: one rank
    # takes two reverse steps a sweep, between them the earlier step's
    # force out of the velocities run back and the later step's velocity
    # residuals into the adjoint velocities; 2 x 2 ranks take one step a
    # sweep.
    for kind, record in (("fz", "p"), ("fx", "p"), ("pressure", "vz,vx"), ("fz", "vx,p")):
        case = common + ["-source_type", kind, "-record", record]
        name = f"{kind}_{record.replace(',', '')}"
        fobs = scr.sub(f"obs_{name}")
        c.run(1, case + ["-vs", true_vs], fobs)
        grad = case + ["-vs", vs, "-mode", "gradient", "-observed_dir", fobs, "-gradient_method", "boundary"]
        ref, out = scr.sub(f"grad1_{name}"), scr.sub(f"grad4_{name}")
        c.run(1, grad, ref)
        c.run(4, grad + ["-da_processors_z", 2, "-da_processors_x", 2], out)
        for f in files:
            g = c.read_rsf(f"{ref}/{f}")[0]
            c.check(np.all(np.isfinite(g)) and np.abs(g).max() > 0, f"{kind} source, -record {record}: {f} not finite, or all 0")
            c.check(open(f"{ref}/{f}@", "rb").read() == open(f"{out}/{f}@", "rb").read(), f"{kind} source, -record {record}: {f} on 2 x 2 ranks differs from one rank's")
        print(f"{kind} source, -record {record}, boundary gradient on 2 x 2 ranks: dJ/dvp, dJ/dvs and dJ/drho the bits of one rank", flush=True)
    # vp alone inverted (vs and rho held at the data's): from a vp 3% slow
    # the misfit falls
    slow = c.write_model(scr.sub("vp_slow.rsf"), (c.read_rsf(vp)[0] * 0.97).astype(np.float32), DX)
    inv = scr.sub("inv")
    start = [a if a != vp else slow for a in common]
    c.run(1, start + ["-vs", true_vs, "-mode", "invert", "-tao_max_it", 3, "-observed_dir", obs], inv)
    ratio = c.misfit_ratio(inv)
    c.check(ratio < 0.5, f"vp inversion: the misfit fell to {ratio:.3f} of its start in 3 iterations, expected below 0.5")
    print(f"vp inverted with vs and rho held: misfit {ratio:.3f} of its start after 3 iterations", flush=True)


def refused(scr, name, args, *words):
    out = c.run(1, args, scr.sub("bad"), expect_fail=True)
    msg = c.error_message(out)
    for w in words:
        c.check(w in msg, f"{name}: the error '{msg}' does not name '{w}'")
    c.check("shot " not in out, f"{name}: refused after work began")
    print(f"refused, {name}: {msg}")


def bad_input(scr):
    base = ["-vp", 2500, "-rho", 2000, "-nz", 30, "-nx", 30, "-dx", DX, "-nt", 50, "-dt", 1e-3, "-f0", 15, "-nshots", 1]
    el = ["-physics", "elastic"]
    refused(scr, "no -vs", el + base, "-vs")
    refused(scr, "negative vs", el + base + ["-vs", -100], "-vs", "-100")
    refused(scr, "vs = vp", el + base + ["-vs", 2500], "vs >= vp", "2500")
    refused(scr, "-vs with acoustic", base[:2] + base[4:] + ["-vs", 1000], "-vs", "elastic")
    refused(scr, "-vs with variable density", ["-physics", "variable_density", "-vs", 1000] + base, "-vs", "elastic")
    refused(scr, "unknown source", el + base + ["-vs", 1000, "-source_type", "moment"], "-source_type", "moment", "fz")
    refused(scr, "force with variable density", ["-physics", "variable_density", "-source_type", "fz"] + base, "-source_type", "fz", "pressure")
    refused(scr, "fy in 2D", el + base + ["-vs", 1000, "-source_type", "fy"], "fy")
    refused(scr, "-invert_for vp,rho", el + base + ["-vs", 1000, "-mode", "gradient", "-observed_dir", scr.sub("none"), "-invert_for", "vp,rho"], "-invert_for vp,rho", "vp,vs,rho")
    small = c.write_model(scr.sub("vs_small.rsf"), np.full((20, 30), 1000.0, np.float32), DX)
    refused(scr, "-vs on another grid", el + base + ["-vs", small], "-vs", "same grid")
    out = c.run(1, el + base + ["-vs", 2000], scr.sub("low"))
    c.check("sqrt 2" in out, "vp / vs below sqrt 2 runs without the warning")
    print("vp / vs = 1.25 runs, with the warning")


def main():
    scr = c.Scratch("elastic_runs")
    with scr:
        bad_input(scr)
        gradient_runs(scr)
        decomposition(scr)


if __name__ == "__main__":
    c.main(main)
