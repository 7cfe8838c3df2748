#!/usr/bin/env python3
"""-gradient_method checkpoint: binomial checkpointing around full storage
(docs/numerics.md, "Gradient methods").

(a) The gradient equals full storage's bit for bit, for every equation
    (acoustic, variable density, elastic) in 2D and 3D, with 0, 1 and 3
    snapshots and with as many as fit (one a step: `auto` on this size),
    in windows of 1 step, of 7 (the last window shorter) and of what the
    snapshots' memory gives, on one rank; decomposed (2 and 4 ranks, a
    free surface, 2 shot groups x 2 subdomains) against full storage on
    the same ranks.
(b) An inversion of two iterations ends with full storage's model bit for
    bit (the store reused over evaluations and line searches).
(c) The planner prints the schedule's forward steps, which are the closed
    form's in windows of one step and at most the window times the closed
    form's for the windows with longer ones (`unit_revolve` holds the
    schedule itself), and a
    -checkpoints that does not fit in -wavefield_memory is refused before
    any work, naming the method.
"""
import os
import re

import common as c

MODELS = {
    "acoustic": (["-vp", "2000"], ["-vp", "2100"]),
    "variable_density": (["-vp", "2000", "-rho", "1000"], ["-vp", "2100", "-rho", "1100"]),
    "elastic": (["-vp", "2000", "-vs", "1100", "-rho", "1000"], ["-vp", "2100", "-vs", "1150", "-rho", "1050"]),
}
GRIDS = {2: ["-nx", "48", "-nz", "32", "-nt", "160"], 3: ["-nx", "24", "-ny", "20", "-nz", "16", "-nt", "90"]}


def survey(physics, dim, free_surface=False):
    args = ["-physics", physics, "-dx", "10"] + GRIDS[dim] + ["-nshots", "2", "-nrec", "6", "-dt", "0.001", "-f0", "20", "-pml_width", "8"]
    return args + (["-pml_top", "0"] if free_surface else [])


def gradient_files(outdir):
    return sorted(f for f in os.listdir(outdir) if f.startswith("gradient") and f.endswith(".rsf@"))


def same_files(ref, test, names, what):
    c.check(names, f"{what}: no gradient written in {ref}")
    for f in names:
        with open(os.path.join(ref, f), "rb") as a, open(os.path.join(test, f), "rb") as b:
            c.check(a.read() == b.read(), f"{what}: {f} differs from full storage's")
    print(f"  {what}: {', '.join(names)} bit for bit", flush=True)


def gradients(scr, physics, dim, free_surface, nranks, runs, tag, extra=()):
    """Full storage and each checkpointed run (a list of (-checkpoints,
    -checkpoint_window) values, None for auto), the same ranks; returns the
    full run's output."""
    true, start = MODELS[physics]
    args = survey(physics, dim, free_surface)
    obs = scr.sub(f"obs_{physics}_{dim}{'f' if free_surface else ''}")
    if not os.path.isdir(obs):
        c.run(1, ["-mode", "forward"] + true + args, obs)
    base = ["-mode", "gradient", "-observed_dir", obs] + start + args + list(extra)
    full = scr.sub(f"full_{tag}_{nranks}")
    c.run(nranks, base + ["-gradient_method", "full"], full)
    for s, w in runs:
        out = scr.sub(f"ck_{tag}_{nranks}_{s}_{w}")
        args = ([] if s is None else ["-checkpoints", str(s)]) + ([] if w is None else ["-checkpoint_window", str(w)])
        text = c.run(nranks, base + ["-gradient_method", "checkpoint"] + args, out)
        c.check("gradient method: checkpoint" in text, f"{tag}: the run did not take -gradient_method checkpoint")
        m = re.search(r"checkpointing: \d+ snapshots and windows of (\d+) steps", text)
        c.check(m and (w is None or int(m.group(1)) == w), f"{tag}: the planner's line gives no window or not {w}")
        same_files(full, out, gradient_files(full), f"{tag}, {nranks} rank(s), {'auto' if s is None else s} snapshots, windows of {m.group(1)}")
    return full


def closed_form(nsteps, snapshots):
    """The least forward steps, turns included (src/shot/revolve.h)."""
    from math import comb
    s = snapshots + 1
    r = 0
    while comb(s + r, s) < nsteps:
        r += 1
    return (r + 1) * nsteps - comb(s + r, r - 1) if r > 0 else nsteps


def planner(scr):
    true, start = MODELS["acoustic"]
    args = survey("acoustic", 2)
    obs = scr.sub("obs_acoustic_2")
    for window in (1, 6):
        text = c.run(1, ["-mode", "gradient", "-observed_dir", obs, "-gradient_method", "checkpoint", "-checkpoints", "5", "-checkpoint_window", str(window)] + start + args,
                     scr.sub(f"plan{window}"))
        m = re.search(r"checkpointing: (\d+) snapshots and windows of (\d+) steps for (\d+) internal steps, (\d+) forward steps", text)
        c.check(m, "the planner printed no checkpointing line")
        snaps, w, nsteps, steps = (int(g) for g in m.groups())
        most = window * closed_form(-(-nsteps // window), 5)
        c.check(snaps == 5 and w == window and nsteps <= steps <= most and (window > 1 or steps == most),
                f"checkpointing line {m.group(0)!r}: expected 5 snapshots, windows of {window} and {'' if window == 1 else 'at most '}{most} forward steps")
    status, text = c.run_status(1, ["-mode", "gradient", "-observed_dir", obs, "-gradient_method", "checkpoint", "-checkpoints", "100000", "-wavefield_memory", "1"]
                                + start + args, scr.sub("refused"))
    msg = c.error_message(text)
    c.check(status != 0 and "-gradient_method checkpoint" in msg, f"100000 snapshots in 1 MB: exit {status}, message {msg!r}")
    c.check(not os.path.exists(scr.sub("refused", "gradient.rsf")), "a refused run wrote a gradient")
    print(f"  planner: {m.group(0)}; refused: {msg[:120]}...", flush=True)


def inversion(scr):
    true, start = MODELS["acoustic"]
    args = survey("acoustic", 2)
    obs = scr.sub("obs_acoustic_2")
    base = ["-mode", "invert", "-observed_dir", obs, "-tao_max_it", "2", "-vp_min", "1500", "-vp_max", "2600"] + start + args
    c.run(1, base + ["-gradient_method", "full"], scr.sub("inv_full"))
    c.run(1, base + ["-gradient_method", "checkpoint", "-checkpoints", "2", "-checkpoint_window", "3"], scr.sub("inv_ck"))
    same_files(scr.sub("inv_full"), scr.sub("inv_ck"), ["vp.rsf@"], "inversion, 2 iterations")


def test():
    scr = c.Scratch("checkpoint")
    with scr:
        for physics in MODELS:
            for dim in (2, 3):
                gradients(scr, physics, dim, False, 1, [(0, None), (1, 1), (3, 1), (3, 7), (None, None)], f"{physics}_{dim}")
            gradients(scr, physics, 2, True, 4, [(3, 5)], f"{physics}_2f")
            gradients(scr, physics, 3, True, 2, [(2, 1)], f"{physics}_3f")
        gradients(scr, "acoustic", 2, True, 4, [(1, 4)], "acoustic_2f_groups", extra=["-shot_groups", "2"])
        planner(scr)
        inversion(scr)


if __name__ == "__main__":
    c.main(test)
