#!/usr/bin/env python3
"""What a run tells its user, read as a user reads it.

(a) A bare halofwi (no option from anywhere) prints its usage, exits 0 and
    writes nothing.
(b) The set-up account of a 2D forward run on 1 rank with -output_dir
    "DIR/": singulars for one rank, group, subdomain and thread; the 2D
    spacing as "dz x dx m"; where the sources and receivers are (in the
    survey's coordinates: for a model placed at x = 500000 m too); shot lines
    naming DIR/shot_NNNN.rsf (no "//"), the last of 3 shots "3 of 3 shots
    run"; -snapshot_interval 10 with -nt 50 writes samples 10..40, none at
    50 (one past the last sample, 49).
(c) The free surface's ghost: with -pml_top 0, 20 m cells, 1500 m/s and
    -f0 6 Hz, a source 6 m below the surface (within half a cell) and one
    20 m below it: each run notes the ghost it expects, 2 sin(2 pi f0 d / v),
    and the ratio of the two gathers' RMS (the same receivers) is within
    15% of the ratio of the two figures (measured: 0.315 against 0.311).
    No WARNING about the points.
(d) An inversion that stops at -tao_max_it 2 says so in words ("band 1, 2
    iterations: stopped at the iteration limit (-tao_max_it 2); ..."); with -tao_monitor it names the
    scale between TAO's objective and the misfit, and TAO's iteration-0
    function value is the misfit times that scale (to 1e-4).
(e) Developer figures (the stored term's live chunks, the adjoint's quiet
    rows) print under -log_view only."""
import math
import os
import re

import numpy as np

import common as c

DX = 20.0


def check_setup_account(scr):
    out_dir = scr.sub("fwd")
    out = c.run(1, ["-mode", "forward", "-vp", 2000, "-nx", 30, "-nz", 20, "-dx", 10, "-nt", 50, "-dt", 0.002, "-f0", 10,
                    "-t0", 0.05, "-nshots", 3, "-nrec", 10, "-snapshot_interval", 10, "-output_dir", out_dir + "/"])
    c.check("layout: 1 rank = 1 shot group x 1 subdomain" in out and "1 thread per rank" in out,
            "(b) the layout line is not in the singular for one rank, group, subdomain and thread:\n" + out)
    c.check(re.search(r"spacing 10 x 10 m \(z, x\)", out) is not None, "(b) no 2D spacing 'spacing 10 x 10 m (z, x)':\n" + out)
    c.check(re.search(r"sources at z 20 m, x 0 to 290 m; receivers at z 20 m, x 0 to 290 m", out) is not None,
            "(b) the survey line does not say where the sources and receivers are:\n" + out)
    c.check("//" not in out, "(b) a path with '//' in the output:\n" + out)
    c.check(re.search(r"shot 2: .* -> " + re.escape(out_dir) + r"/shot_0002\.rsf; 3 of 3 shots run, about \d+ s left", out),
            "(b) the last shot's line does not read '3 of 3 shots run, about N s left':\n" + out)
    snaps = sorted(f for f in os.listdir(out_dir) if f.startswith("snapshot_0000_") and f.endswith(".rsf"))
    c.check(snaps == [f"snapshot_0000_{k:05d}.rsf" for k in (10, 20, 30, 40)],
            f"(b) snapshots {snaps}, expected samples 10, 20, 30, 40 of -nt 50 (none past sample 49)")
    placed = c.write_rsf(scr.sub("placed.rsf"), np.full((30, 20), 2000, np.float32), d=[10, 10], o=[0, 500000])
    out = c.run(1, ["-mode", "forward", "-vp", placed, "-nt", 20, "-nshots", 1], scr.sub("placed"))
    c.check("first sample at z 0 x 500000 m" in out and "sources at z 20 m, x 500145 m; receivers at z 20 m, x 500000 to 500290 m" in out,
            "(b) a model placed at x = 500000 m: its origin and the survey's positions are not given in the survey's coordinates:\n" + out)
    print("  (b) set-up account, paths, shot lines and snapshots as expected", flush=True)


def ghost_run(scr, depth):
    out_dir = scr.sub(f"ghost{depth}")
    out = c.run(1, ["-mode", "forward", "-vp", 1500, "-nx", 200, "-nz", 100, "-dx", DX, "-nt", 1500, "-dt", 0.002, "-f0", 6,
                    "-pml_top", 0, "-nshots", 1, "-nrec", 50, "-source_depth", depth, "-receiver_depth", 300], out_dir)
    c.check("WARNING" not in out, f"(c) source at {depth} m: a warning:\n" + out)
    m = re.search(r"free surface: 1 source \(the shallowest ([\d.]+) m below it\).* = ([\d.eE+-]+) \(source\)", out)
    c.check(m is not None and abs(float(m.group(1)) - depth) < 1e-9, f"(c) source at {depth} m: no note of its ghost:\n" + out)
    expected = 2 * math.sin(2 * math.pi * 6 * depth / 1500)
    c.check(abs(float(m.group(2)) - expected) <= 2e-3 * expected, f"(c) source at {depth} m: ghost {m.group(2)}, expected {expected:.4f}")
    return float(m.group(2)), c.read_gather(out_dir, 0)


def check_ghost(scr):
    g6, d6 = ghost_run(scr, 6)
    g20, d20 = ghost_run(scr, 20)
    measured = float(np.sqrt(np.mean(d6.astype(float) ** 2) / np.mean(d20.astype(float) ** 2)))
    noted = g6 / g20
    print(f"  (c) RMS ratio of the gathers, source 6 m against 20 m: {measured:.4f}; the notes' ghosts: {noted:.4f}", flush=True)
    c.check(abs(measured - noted) <= 0.15 * noted, f"(c) RMS ratio {measured:.4f} against the noted ghosts' {noted:.4f}")


def check_inversion(scr):
    model = ["-vp", 2000, "-nx", 40, "-nz", 30, "-dx", 10, "-nt", 200, "-dt", 0.002, "-f0", 10, "-nshots", 2, "-nrec", 20,
             "-progress_interval", 0]
    obs = scr.sub("obs")
    c.run(1, ["-mode", "forward"] + model[:1] + [2100] + model[2:], obs)
    inv = scr.sub("inv")
    out = c.run(1, ["-mode", "invert"] + model + ["-vp_max", 2500, "-observed_dir", obs, "-tao_max_it", 2, "-tao_monitor"], inv)
    c.check(re.search(r"band 1, 2 iterations: stopped at the iteration limit \(-tao_max_it 2\); .* \[DIVERGED_MAXITS\]", out) is not None,
            "(d) the band's end is not said in words:\n" + out)
    scale = re.search(r"-tao_monitor shows TAO's objective, the misfit x ([\d.eE+-]+)", out)
    tao_f = re.search(r"0 TAO,\s+Function value:\s+([\d.eE+-]+)", out)
    misfit = re.search(r"iteration 0 \[0 overall\]: misfit ([\d.eE+-]+)", out)
    c.check(scale and tao_f and misfit, "(d) no scale line, TAO monitor line or iteration-0 misfit:\n" + out)
    got, want = float(tao_f.group(1)), float(scale.group(1)) * float(misfit.group(1))
    c.check(abs(got - want) <= 1e-4 * abs(want), f"(d) TAO's function value {got:.6e}, the misfit x the scale {want:.6e}")
    print(f"  (d) TAO's objective {got:.6e} = misfit x scale {want:.6e}; the band's end in words", flush=True)
    grad = ["-mode", "gradient"] + model + ["-observed_dir", obs, "-gradient_method", "full"]
    quiet = c.run(1, grad, scr.sub("grad"))
    loud = c.run(1, grad + ["-log_view"], scr.sub("grad_log"))
    c.check("stored term:" not in quiet and "row parts" not in quiet, "(e) developer figures without -log_view:\n" + quiet)
    c.check("stored term:" in loud, "(e) no 'stored term:' figure under -log_view")
    print("  (e) developer figures under -log_view only", flush=True)


def main():
    scr = c.Scratch("messages")
    with scr:
        bare = scr.sub("bare")
        os.makedirs(bare)
        status, out = c.run_status(1, [], cwd=bare)
        c.check(status == 0 and out.startswith("usage: ") and "-help" in out, f"(a) a bare halofwi: exit {status}, output:\n{out}")
        c.check(os.listdir(bare) == [], f"(a) a bare halofwi wrote {os.listdir(bare)}")
        print("  (a) a bare halofwi prints its usage and writes nothing", flush=True)
        check_setup_account(scr)
        check_ghost(scr)
        check_inversion(scr)


if __name__ == "__main__":
    c.main(main)
