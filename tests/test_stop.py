#!/usr/bin/env python3
"""Stopping a run (docs/options.md, "Stopping a run"): every way gives one
plain message, no PETSc error report, no MPI_ABORT or ORTE_ERROR_LOG banner,
the documented exit status, and a state that -restart carries on to the
uninterrupted run's result byte for byte.

An inversion (2 ranks, -tao_max_it 5, 8 shots: each evaluation takes a
few tenths of a second, so that more than a second of the run is left) is
stopped when its '[0 overall]' line is printed:
(a) SIGINT to mpiexec (Ctrl-C) and (b) SIGTERM to mpiexec: a second later
    Open MPI passes SIGTERM on, and kills the ranks a second after that,
    so they stop at once:
    'Stopped at once by SIGTERM from Open MPI's mpiexec', exit status 1
    (mpiexec's, after a signal, whatever the ranks return);
(c) SIGTERM to the ranks (as Slurm sends it): 'Stopped by SIGTERM after
    iteration N', misfit.csv and vp_NNNN.rsf up to N, exit 75;
(c') the same with SIGTERM to rank 1 alone: rank 0, never signalled, stops
    with it and prints the message (the ranks decide together);
(d) the file OUT/STOP: 'Stopped by OUT/STOP (removed) after iteration N',
    the file gone, exit 75;
(e) a single process (no mpiexec), SIGINT and then SIGTERM (sent while it
    is paused, so that no boundary comes between): whichever it takes
    second stops it at once ('(the second request)'), exit 75.
Each: no vp.rsf; then -restart ends with vp.rsf, every vp_NNNN.rsf and
misfit.csv (timings aside) equal to the uninterrupted run's.
(f) -mode forward on 2 shot groups with OUT/STOP there from the start: it
    stops after the first round (shots 0 and 1 of 8), which equal an
    uninterrupted run's byte for byte, says which shots are written and
    which not, removes STOP, exit 75.
(g) -mode gradient, SIGTERM to the ranks as it starts: 'Stopped at once by
    SIGTERM',
    no gradient.rsf, exit 75.
Where mpiexec's ranks return 75, Open MPI adds its note on a non-zero exit
status (naming 75); that note is allowed, nothing else."""
import os
import signal

import numpy as np

import common as c
from test_inversion import read_csv, vp_files

DX = 10.0
NZ, NX = 30, 40
ITS = 5
SHOTS = 8
STOPPED = 75
MPIEXEC_SIGNALLED = 1
OPEN_MPI_NOTE = "exited with non-zero status"
HANG = 120  # s: a run here takes 1 to 20 s (a loaded machine)
MARK = "[0 overall]"  # the first evaluation is saved: a stop from here on leaves something to restart from


def ranks_of(pid):
    """{rank: process id} of the halofwi processes whose parent is pid
    (mpiexec's ranks)."""
    found = {}
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/stat") as f:
                comm, rest = f.read().rsplit(")", 1)
            if int(rest.split()[1]) == pid and comm.endswith("(halofwi"):
                with open(f"/proc/{d}/environ", "rb") as f:
                    env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
                found[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(d)
        except (OSError, ValueError, KeyError):
            continue
    return found


def run_stopped(nranks, args, outdir, marker, action, what):
    """Run halofwi and call action(process, {rank: process id}) when a line
    holding marker is printed.  Returns (exit status, output)."""
    def act(p):
        ranks = ranks_of(p.pid) if nranks > 1 else {0: p.pid}
        c.check(sorted(ranks) == list(range(nranks)), f"{what}: found ranks {sorted(ranks)}, expected {nranks}")
        action(p, ranks)

    rc, out, done = c.run_acting(nranks, args, outdir, marker, act, HANG)
    print(f"  -> {what} after {marker!r}: exit {rc}", flush=True)
    if rc == -signal.SIGKILL:
        print(out)
        c.fail(f"{what}: killed after {HANG} s: a rank waits for another that stopped?")
    if not done:
        print(out)
        c.fail(f"{what}: no line with {marker!r} in the output")
    return rc, out


def check_stop(tag, rc, out, status, message, note):
    """Exit status, exactly one 'Stopped' line holding message, no error
    report or abort banner; Open MPI's non-zero-status note only where
    note."""
    stops = [ln for ln in out.splitlines() if ln.startswith("Stopped")]
    bad = [w for w in ("PETSC ERROR", "MPI_ABORT", "ORTE_ERROR_LOG", "Caught signal") if w in out]
    if rc != status or len(stops) != 1 or message not in stops[0] or bad or (OPEN_MPI_NOTE in out) != note:
        print(out)
    c.check(rc == status, f"{tag}: exit status {rc}, expected {status}")
    c.check(len(stops) == 1, f"{tag}: {len(stops)} 'Stopped' lines, expected 1: {stops}")
    c.check(message in stops[0], f"{tag}: the message {stops[0]!r} does not hold {message!r}")
    c.check(not bad, f"{tag}: the output holds {bad}")
    c.check((OPEN_MPI_NOTE in out) == note, f"{tag}: Open MPI's note on a non-zero status {'missing' if note else 'present'}")
    if note:
        c.check("Exit code:    75" in out, f"{tag}: Open MPI's note does not name exit code 75")
    print(f"  {tag}: exit {rc}; {stops[0]}", flush=True)
    return stops[0]


def check_restart(tag, args, part, ref, nranks=2):
    """-restart in part ends at ref's models and misfit.csv."""
    c.check(not os.path.exists(os.path.join(part, "vp.rsf")), f"{tag}: the stopped run wrote vp.rsf")
    c.run(nranks, args + ["-restart"], part)
    c.check(vp_files(part) == vp_files(ref), f"{tag}: after -restart: models {vp_files(part)}, uninterrupted {vp_files(ref)}")
    for f in vp_files(ref):
        a, _ = c.read_rsf(os.path.join(ref, f))
        b, _ = c.read_rsf(os.path.join(part, f))
        c.check(a.tobytes() == b.tobytes(), f"{tag}: after -restart: {f} differs from the uninterrupted run's "
                                            f"in {int(np.count_nonzero(a != b))} cells")
    rows, ref_rows = read_csv(os.path.join(part, "misfit.csv")), read_csv(os.path.join(ref, "misfit.csv"))
    c.check([r[:5] + r[6:] for r in rows] == [r[:5] + r[6:] for r in ref_rows], f"{tag}: after -restart: misfit.csv differs from the uninterrupted run's")
    print(f"  {tag}: -restart ends at the uninterrupted run's {len(vp_files(ref))} models and misfit.csv", flush=True)


def problem(scr):
    """A +300 m/s Gaussian anomaly in 2000 m/s, SHOTS shots near the top,
    receivers near the top and the bottom: the true and starting models, the
    acquisition options and the observed data's folder."""
    x, z = np.meshgrid(np.arange(NX) * DX, np.arange(NZ) * DX, indexing="ij")
    anomaly = 2000 + 300 * np.exp(-((x - 200) ** 2 + (z - 150) ** 2) / 5000)
    true, start = (c.write_model(scr.sub(f"{name}.rsf"), v.astype(np.float32), DX)
                   for name, v in (("true", anomaly), ("start", np.full_like(anomaly, 2000))))
    recs = [(DX * i, DX * depth) for depth, every in ((26, 2), (4, 4)) for i in range(2, 38, every)]
    geo = c.write_geometry(scr.sub("geom.txt"), [((xs, 40.0), recs) for xs in np.linspace(40.0, 360.0, SHOTS)])
    acq = ["-geometry", geo, "-nt", 500, "-dt", 0.002, "-f0", 10, "-pml_width", 10, "-pml_top", 0, "-progress_interval", 0]
    obs = scr.sub("obs")
    c.run(1, ["-mode", "forward", "-vp", true] + acq, obs)
    return true, start, acq, obs


def main():
    scr = c.Scratch("stop")
    with scr:
        true, start, acq, obs = problem(scr)
        inv = ["-mode", "invert", "-vp", start] + acq + ["-vp_max", 2500, "-observed_dir", obs, "-tao_max_it", ITS]
        ref = scr.sub("ref")
        c.run(2, inv, ref)

        def signal_mpiexec(sig):
            return lambda p, ranks: p.send_signal(sig)

        def signal_ranks(sig, *which):
            return lambda p, ranks: [os.kill(ranks[r], sig) for r in which]

        def two_signals(p, ranks):
            """SIGINT and SIGTERM to a paused process: both are taken as soon
            as it runs again, in either order (two of its threads may take
            one each, at once)."""
            os.kill(ranks[0], signal.SIGSTOP)
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCONT):
                os.kill(ranks[0], sig)

        def after_iteration(tag, line, part):
            n = int(line.split("after iteration ")[1].split(":")[0])
            c.check(n <= ITS, f"{tag}: stopped after iteration {n}, of {ITS}")
            c.check(len(read_csv(os.path.join(part, "misfit.csv"))) == n + 1, f"{tag}: misfit.csv does not end at iteration {n}")
            c.check(vp_files(part) == ["vp_%04d.rsf" % i for i in range(1, n + 1)],
                    f"{tag}: models {vp_files(part)}, expected vp_0001 to vp_{n:04d}.rsf")

        for tag, sig in (("(a) SIGINT to mpiexec", signal.SIGINT), ("(b) SIGTERM to mpiexec", signal.SIGTERM)):
            part = scr.sub(tag[1])
            rc, out = run_stopped(2, inv, part, MARK, signal_mpiexec(sig), tag)
            c.check("inverted model" not in out, f"{tag}: the run ended within the second mpiexec waits before it passes "
                                                 "the signal on: this machine needs slower evaluations (more shots or samples)")
            check_stop(tag, rc, out, MPIEXEC_SIGNALLED, "Stopped at once by SIGTERM from Open MPI's mpiexec", False)
            check_restart(tag, inv, part, ref)

        for tag, name, which in (("(c) SIGTERM to the ranks", "c", (0, 1)), ("(c') SIGTERM to rank 1 alone", "c1", (1,))):
            part = scr.sub(name)
            rc, out = run_stopped(2, inv, part, MARK, signal_ranks(signal.SIGTERM, *which), tag)
            after_iteration(tag, check_stop(tag, rc, out, STOPPED, "Stopped by SIGTERM after iteration", True), part)
            check_restart(tag, inv, part, ref)

        tag, part = "(d) STOP file", scr.sub("d")
        stop_file = os.path.join(part, "STOP")
        rc, out = run_stopped(2, inv, part, MARK, lambda p, ranks: open(stop_file, "w").close(), tag)
        line = check_stop(tag, rc, out, STOPPED, f"Stopped by {stop_file} (removed) after iteration", True)
        after_iteration(tag, line, part)
        c.check(not os.path.exists(stop_file), f"{tag}: {stop_file} is still there")
        check_restart(tag, inv, part, ref)

        tag, part = "(e) SIGINT then SIGTERM, one process", scr.sub("e")
        rc, out = run_stopped(1, inv, part, MARK, two_signals, tag)
        check_stop(tag, rc, out, STOPPED, "(the second request)", False)
        check_restart(tag, inv, part, ref, nranks=1)

        tag, part = "(f) forward, STOP file", scr.sub("f")
        os.makedirs(part)
        open(os.path.join(part, "STOP"), "w").close()
        rc, out = c.run_status(2, ["-mode", "forward", "-vp", true, "-shot_groups", 2] + acq, part)
        check_stop(tag, rc, out, STOPPED, f"Stopped by {part}/STOP (removed) after 2 of {SHOTS} shots: shots 0 to 1 are written "
                                          f"in {part}, shots 2 to {SHOTS - 1} were not run; rerun with -overwrite", True)
        c.check(sorted(f for f in os.listdir(part) if f.startswith("shot_") and not f.endswith("@")) == ["shot_0000.rsf", "shot_0001.rsf"],
                f"{tag}: files {sorted(os.listdir(part))}, expected shot_0000.rsf and shot_0001.rsf")
        c.compare_bitwise(obs, part, 2, tag)

        tag, part = "(g) gradient, SIGTERM to the ranks", scr.sub("g")
        rc, out = run_stopped(2, ["-mode", "gradient", "-vp", start] + acq + ["-observed_dir", obs], part, "backend ",
                              signal_ranks(signal.SIGTERM, 0, 1), tag)
        check_stop(tag, rc, out, STOPPED, "Stopped at once by SIGTERM: an unfinished gradient is not written", True)
        c.check(not os.path.exists(os.path.join(part, "gradient.rsf")), f"{tag}: gradient.rsf written")


if __name__ == "__main__":
    c.main(main)
