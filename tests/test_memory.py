#!/usr/bin/env python3
"""The memory estimate made before any work (src/setup/memory.c).

- It is right: the peak resident memory of four forward runs (three
  dominated by the wavefields, acoustic and elastic, one of them with
  arrays of 2.2 MB, each of which takes two 2 MB pages; one by the traces
  kept at every internal step), less
  that of a tiny run (MPI, PETSc and the program itself), lies within 0.95 to
  1.2 times the figure printed as "memory per rank ... host X" (measured
  0.99 acoustic, 1.00 and 0.99 elastic, 1.05 traces; the elastic case of
  2.2 MB arrays measured 1.8 before the estimate counted whole pages); that of a
  gradient run with each method (-gradient_method full, boundary,
  checkpoint with 20 snapshots: measured 0.99; a full store packed with a
  live map maps only the pages its live chunks fill, and is held to the
  estimate less its dead chunks: measured 1.13, within 0.9 to 1.25, where
  mapping every page would give 6.5), for
  either physics (acoustic, variable_density), with the steps compressed
  (full as int8, boundary as bf16) or on disk (full), of the elastic equation's
  boundary method (measured 0.99), of a variable-density gradient of p and
  vz data whose traces and observed data dominate (measured 1.08: the
  allocator keeps some of the freed trace buffers), and of
  an inversion (one iteration, boundary, with the pseudo-Hessian: TAO's
  vectors dominate), within 0.9 to 1.1.
- It refuses before any work, naming the need and the limit, and leaves no
  output: a gradient for which no method fits (naming the least demanding
  one and the ranks that would fit); -nt 2000000000 with one receiver (traces and wavelet of 52 GB,
  forward, against -memory_limit 20000), a 3D model of 1200^3
  cells on 2 ranks (the refusal comes before the grid is decomposed), a
  gradient over -memory_limit, and a forward over -memory_limit on 2 shot
  groups x 2 subdomains (every rank agrees, none hangs).
- An allocation that fails all the same names what it was for and how much:
  traces of 7.5 GB with the check lifted (-memory_limit 1e9) under an
  address-space limit of 3 GB (RLIMIT_AS).
"""
import os
import re
import resource
import subprocess

import common as c

TIMEOUT = 300
FORWARD_WITHIN = (0.95, 1.2)  # the forward estimate against the measured peak (0.99 to 1.05 measured)
PLANNER_WITHIN = (0.9, 1.1)  # the gradient planner's figure against the measured peak
PACKED_UP_TO = 1.25  # a packed full store's: its live chunks and the partly written pages around them (1.13 measured; every page mapped: 6.5)
MB = 1048576.0
UNITS = {"MB": MB, "GB": 1024 * MB}


def peak_rss(args, outdir):
    """Runs halofwi on one rank (no mpiexec, so the child is the program):
    its output and its peak resident memory in bytes."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    os.makedirs(os.path.dirname(outdir), exist_ok=True)
    p = subprocess.Popen(c.command(1, args, outdir), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    out = p.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    c.check(p.returncode == 0, f"exit status {p.returncode}:\n{out}")
    return out, usage.ru_maxrss * 1024.0


def estimate(out):
    m = re.search(r"memory per rank \(the busiest\): host ([\d.]+) (MB|GB)", out)
    if not m:
        print(out)
        c.fail("no 'memory per rank (the busiest): host X MB' line in the output")
    return float(m.group(1)) * UNITS[m.group(2)]


def never_mapped(out):
    """The bytes of a full store's slots that no live chunk filled (the
    store's size times the share of its chunks left dead; -log_view prints
    the share): their pages are never mapped.  0 for other stores."""
    kept = re.search(r"forward wavefield kept for the adjoint: every step, ([\d.]+) MB .*only the live chunks", out)
    if not kept:
        return 0.0
    share = re.search(r"stored term: ([\d.]+)% of its", out)
    c.check(share is not None, f"a packed store, but no 'stored term: X% ...' line:\n{out}")
    return float(kept.group(1)) * MB * (1 - float(share.group(1)) / 100)


def check_estimate(name, args, outdir, base, within=FORWARD_WITHIN):
    out, rss = peak_rss(args, outdir)
    est = estimate(out)
    dead = never_mapped(out)
    if dead:  # each tile of rows packs its live cells from its own start: up to two partly written 4 kB pages a tile and step (32 MB here)
        within = (within[0], PACKED_UP_TO)
    ratio = (rss - base) / (est - dead)
    print(f"{name}: estimate {est / MB:.1f} MB ({dead / MB:.1f} MB of it the store's dead chunks, never mapped), "
          f"measured {(rss - base) / MB:.1f} MB above a tiny run's, ratio {ratio:.3f}")
    c.check(within[0] <= ratio <= within[1], f"{name}: measured / estimated memory = {ratio:.3f}, expected {within[0]} to {within[1]}")
    return out


def refused(name, nranks, args, outdir, expect, address_space=None):
    """A run that must fail, with every text of expect in its message."""
    if address_space:
        limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        p = subprocess.run(c.command(nranks, args, outdir), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           preexec_fn=limit, timeout=TIMEOUT, env=dict(os.environ, OMP_NUM_THREADS="1"))
        out = p.stdout.decode(errors="replace")
        c.check(p.returncode != 0, f"{name}: expected a non-zero exit status:\n{out}")
    else:
        out = c.run(nranks, args, outdir, expect_fail=True, timeout=TIMEOUT)
    msg = c.error_message(out)
    print(f"{name}: {msg}")
    for text in expect:
        c.check(text.lower() in msg.lower(), f"{name}: the message does not say '{text}':\n{msg}")
    left = os.listdir(outdir) if os.path.isdir(outdir) else []
    c.check(not [f for f in left if not f.startswith(".")], f"{name}: files left in {outdir}: {left}")


def main():
    scr = c.Scratch("memory")
    with scr:
        small = ["-vp", 2000, "-dx", 10, "-nrec", 10]
        _, base = peak_rss(["-mode", "forward", "-nx", 20, "-nz", 20, "-nt", 100] + small, scr.sub("base"))
        check_estimate("forward 2000 x 2000", ["-mode", "forward", "-nx", 2000, "-nz", 2000, "-nt", 100] + small,
                       scr.sub("fwd"), base)
        # arrays of 748^2 floats, 2.2 MB: each takes two 2 MB pages, which the estimate counts
        check_estimate("forward, elastic, 700 x 700 (arrays of 2.2 MB on 4 MB of pages)",
                       ["-mode", "forward", "-physics", "elastic", "-vs", 1000, "-rho", 2000, "-nx", 700, "-nz", 700, "-nt", 100] + small,
                       scr.sub("fwd_elastic_pages"), base)
        check_estimate("forward, elastic, 1200 x 1200 (18 floats a cell)", ["-mode", "forward", "-physics", "elastic", "-vs", 1000, "-rho", 2000, "-nx", 1200, "-nz", 1200,
                                                                          "-nt", 100] + small, scr.sub("fwd_elastic"), base)
        check_estimate("forward, 200 receivers x 20000 samples, 2 internal steps each",
                       ["-mode", "forward", "-nx", 200, "-nz", 200, "-nt", 20000, "-dt", 0.004, "-vp", 2000, "-dx", 10,
                        "-nrec", 200], scr.sub("fwd_traces"), base)
        obs = scr.sub("obs")
        grad = ["-nx", 600, "-nz", 600, "-nt", 1000, "-nshots", 1] + small
        c.run(1, ["-mode", "forward"] + grad, obs)
        for physics in ([], ["-physics", "variable_density", "-rho", 2000]):
            for method in ("full", "boundary", "checkpoint"):
                name = f"gradient 600 x 600, 1000 samples, {method}{', variable density' if physics else ''}"
                snapshots = ["-checkpoints", 20] if method == "checkpoint" else []
                out = check_estimate(name, ["-mode", "gradient", "-observed_dir", obs, "-gradient_method", method, "-log_view"] + snapshots + grad + physics,
                                     scr.sub(f"grad_{method}{len(physics)}"), base, PLANNER_WITHIN)
                c.check(f"gradient method: {method}" in out, f"the run does not say it uses -gradient_method {method}:\n{out}")
        # the store's tiers: encoded steps and their buffers; on disk only the buffers (and the live map) in memory
        wd = scr.sub("wavefield_dir")
        os.makedirs(wd)
        for method, tier, what in (("full", ["-wavefield_compression", "int8"], "int8"), ("boundary", ["-wavefield_compression", "bf16"], "bf16"),
                                   ("full", ["-wavefield_storage", "disk", "-wavefield_dir", wd], "on disk")):
            out = check_estimate(f"gradient 600 x 600, 1000 samples, {method}, {what}", ["-mode", "gradient", "-observed_dir", obs, "-gradient_method", method] + tier + grad,
                                 scr.sub(f"grad_{method}_{what.replace(' ', '_')}"), base, PLANNER_WITHIN)
            c.check(f"gradient method: {method}" in out, f"the run does not say it uses -gradient_method {method}:\n{out}")
        name = "gradient 600 x 600, 1000 samples, boundary, elastic"
        out = check_estimate(name, ["-mode", "gradient", "-observed_dir", obs, "-gradient_method", "boundary", "-physics", "elastic", "-vs", 1000, "-rho", 2000] + grad,
                             scr.sub("grad_boundary_elastic"), base, PLANNER_WITHIN)
        c.check("gradient method: boundary" in out, f"the run does not say it uses -gradient_method boundary:\n{out}")
        # a misfit of two components, whose observed data and traces dominate
        obs2 = scr.sub("obs_pvz")
        traces = ["-physics", "variable_density", "-rho", 2000, "-nx", 150, "-nz", 150, "-nt", 10000, "-dt", 0.004, "-vp", 2000, "-dx", 10, "-nrec", 300,
                  "-nshots", 1, "-record", "p,vz"]
        c.run(1, ["-mode", "forward"] + traces, obs2)
        check_estimate("gradient, variable density, p and vz: 300 receivers x 10000 samples each", ["-mode", "gradient", "-observed_dir", obs2,
                       "-gradient_method", "boundary"] + traces, scr.sub("grad_pvz"), base, PLANNER_WITHIN)
        check_estimate("inversion 600 x 600, 1000 samples, one iteration, boundary, pseudo-Hessian",
                       ["-mode", "invert", "-observed_dir", obs, "-gradient_method", "boundary", "-precondition", "pseudo_hessian",
                        "-tao_max_it", 1] + grad, scr.sub("inv"), base, PLANNER_WITHIN)

        refused("-nt 2000000000", 1, ["-mode", "forward", "-nx", 100, "-nz", 50, "-nt", 2000000000, "-vp", 2000, "-dx", 10,
                                      "-nrec", 1, "-memory_limit", 20000], scr.sub("o_nt"),
                ["not enough memory", "at least", "traces", "-nt", "may use 19.5 GB"])
        refused("3D 1200^3 on 2 ranks", 2, ["-mode", "forward", "-nx", 1200, "-nz", 1200, "-ny", 1200, "-nt", 10] + small,
                scr.sub("o_3d"), ["not enough memory", "wavefields", "more ranks per shot group"])
        refused("gradient over -memory_limit", 1,
                ["-mode", "gradient", "-observed_dir", obs, "-memory_limit", 20] + grad, scr.sub("o_grad"),
                ["not enough memory", "20.0 MB", "-memory_limit"])
        refused("no gradient method fits", 1,
                ["-mode", "gradient", "-observed_dir", obs, "-memory_limit", 60] + grad, scr.sub("o_plan"),
                ["no gradient method fits", "-gradient_method boundary", "host limit of 60.0 MB", "ranks per shot group"])
        refused("forward over -memory_limit, 2 groups x 2 subdomains", 4,
                ["-mode", "forward", "-nx", 400, "-nz", 400, "-nt", 100, "-nshots", 2, "-shot_groups", 2,
                 "-memory_limit", 0.5] + small, scr.sub("o_groups"), ["not enough memory", "0.5 MB"])

        refused("allocation beyond the address space", 1,
                ["-mode", "forward", "-nx", 100, "-nz", 50, "-nt", 200000000, "-memory_limit", 1e9] + small,
                scr.sub("o_alloc"), ["allocating the shot's traces", "7.5 GB on this rank", "out of memory"],
                address_space=3 * 1024 ** 3)

if __name__ == "__main__":
    c.main(main)
