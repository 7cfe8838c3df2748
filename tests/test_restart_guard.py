#!/usr/bin/env python3
"""-restart carries on only the run it was given, and nothing replaces results
without -overwrite.

(a) an inversion (-bands 3,5,8, -tao_max_it 2) interrupted by SIGTERM after
    its first iteration; restarted with -bands 3,6,8, with -vp_max 2600
    instead of 2500, with -gradient_method boundary where auto chose full,
    and with one sample of an observed gather changed: each
    is refused with a message naming the option and both values (the
    gather: its file), and leaves the output folder as it was;
(b) restarted with the same options it ends (vp.rsf written), having
    replayed every saved evaluation;
(c) -restart where vp.rsf exists, without -overwrite: refused, naming vp.rsf
    and -overwrite; nothing changes;
(d) a fresh run with -overwrite removes the longer earlier run's vp_NNNN.rsf
    and restart state and says so; a fresh run without -overwrite where only
    a vp_NNNN.rsf exists is refused, naming it; -mode gradient likewise for
    gradient.rsf;
(e) forward: a temporary of a dead process of this host (in the folder and in
    its restart/) is removed, and said so; one of another host and one of a
    running process are left, with a note; -overwrite removes the shot
    gathers of an earlier run with more shots;
(f) -overwrite where an input (-vp through a symbolic link, -wavelet a
    wavelet_1.rsf of the folder) is
    among the files it would remove: refused naming the file and the
    option, nothing removed;
(g) an inversion that fails before its first evaluation (a TAO type that
    takes no -gradient_smoothing) leaves a restart/ that blocks nothing:
    -restart there says there is nothing to carry on, and the corrected
    rerun without -restart removes it (saying so) and ends.

(h) -restart on 1 rank of an inversion run on 2, where -gradient_method
    auto chose otherwise for the memory per rank: refused naming both
    decompositions and the method, not as a plain change of options; with
    nothing chosen by the ranks, blmvm's -restart on 1 rank of a run on 2
    replays every evaluation (none computed) to the same vp.rsf bit for bit.

Also in (a): a saved gradient damaged by one bit is refused as damaged,
naming the file, not as a change of options; in (c), once vp.rsf is gone, a
TAO setting that run.txt does not record (-tao_ls_gtol) is refused at the
first replayed evaluation whose model differs, saying that something
unrecorded differs."""
import os
import socket
import subprocess

import numpy as np

import common as c
from test_inversion import check_resumed, file_state, run_interrupted, saved_evaluations

DX = 10.0
NZ, NX = 30, 40


def refused(tag, args, outdir, wants, unchanged=True):
    """The run fails, its message holds every string of wants, and (unchanged)
    the files in outdir and outdir/restart are as they were."""
    before = [file_state(d) for d in (outdir, os.path.join(outdir, "restart")) if os.path.isdir(d)]
    out = c.run(1, args, outdir, expect_fail=True)
    msg = c.error_message(out)
    missing = [w for w in wants if w not in msg]
    c.check(not missing, f"{tag}: the message does not name {missing}: {msg!r}")
    after = [file_state(d) for d in (outdir, os.path.join(outdir, "restart")) if os.path.isdir(d)]
    c.check(not unchanged or after == before, f"{tag}: the refused run changed the files in {outdir}")
    print(f"  {tag}: refused: " + msg.replace("\n", " | "), flush=True)
    return out


def said(out, *words):
    """Prints the output lines that hold one of words."""
    for line in out.splitlines():
        if any(w in line for w in words):
            print("    " + line, flush=True)


def vp_files(outdir):
    return sorted(f for f in os.listdir(outdir) if f.startswith("vp_") and f.endswith(".rsf"))


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def main():
    scr = c.Scratch("restart_guard")
    with scr:
        true = c.smooth_random_model((NX, NZ), seed=10, vmin=2000.0, vmax=2300.0, layer=False)
        true_path = c.write_model(scr.sub("true.rsf"), true, DX)
        start_path = c.write_model(scr.sub("start.rsf"), np.full((NX, NZ), 2000.0, np.float32), DX)
        acq = ["-nshots", 3, "-nrec", 20, "-source_depth", 20.0, "-receiver_depth", 250.0, "-nt", 200, "-dt", 0.002,
               "-f0", 10, "-pml_width", 10, "-progress_interval", 0]
        obs = scr.sub("obs")
        c.run(1, ["-mode", "forward", "-vp", true_path] + acq, obs)

        def inv(bands="3,5,8", vp_max=2500, its=2):
            return (["-mode", "invert", "-vp", start_path] + acq
                    + ["-observed_dir", obs, "-vp_max", vp_max, "-tao_max_it", its, "-bands", bands])
        bands = inv()

        # (a) interrupted, then restarted with other options
        part = scr.sub("part")
        rc, out = run_interrupted(bands, part, "[1 overall]")
        c.check(rc != 0 and not os.path.exists(os.path.join(part, "vp.rsf")),
                f"(a) the interrupted run exited {rc} or wrote vp.rsf")
        refused("(a) -bands 3,6,8", inv(bands="3,6,8") + ["-restart"], part, ["-bands", "3,5,8", "3,6,8"])
        refused("(a) -vp_max 2600", inv(vp_max=2600) + ["-restart"], part, ["-vp_max", "2500", "2600"])
        refused("(a) -gradient_method boundary", bands + ["-gradient_method", "boundary", "-restart"], part,
                ["-gradient_method", "full", "boundary"])
        gather = os.path.join(obs, "shot_0001.rsf@")
        original = open(gather, "rb").read()
        changed = np.frombuffer(original, dtype="<f4").copy()
        changed[123] += 1e-3
        changed.tofile(gather)
        refused("(a) changed observed gather", bands + ["-restart"], part, ["-observed_dir", "shot_0001.rsf"])
        with open(gather, "wb") as f:
            f.write(original)
        saved_gradient = os.path.join(part, "restart", "band01_eval0000_gradient.rsf@")
        original = open(saved_gradient, "rb").read()
        with open(saved_gradient, "r+b") as f:
            f.seek(40)
            f.write(bytes([original[40] ^ 1]))
        refused("(a) damaged saved gradient", bands + ["-restart"], part, [saved_gradient, "damaged", "checksum"])
        with open(saved_gradient, "wb") as f:
            f.write(original)

        # (b) the same options: carries on to the end, from the saved evaluations
        saved = saved_evaluations(part)
        check_resumed("(b)", c.run(1, bands + ["-restart"], part), saved)
        c.check(os.path.isfile(os.path.join(part, "vp.rsf")), "(b) -restart with the same options wrote no vp.rsf")
        print(f"  (b) -restart with the same options ended: {vp_files(part)} and vp.rsf", flush=True)

        # (c) a finished run is not replaced by -restart
        refused("(c) -restart over a finished run", bands + ["-restart"], part, [os.path.join(part, "vp.rsf"), "-overwrite"])

        # a TAO setting run.txt does not record: the replay asks for another model than a saved one.
        # Against the whole run's evaluations (as if stopped after its last iteration), not the
        # interrupted run's, whose count depends on when the signal landed: the line search
        # may ask for the first few saved models under either setting
        for f in ("vp.rsf", "vp.rsf@"):
            os.remove(os.path.join(part, f))
        refused("(c) -tao_ls_gtol 0.001", bands + ["-tao_ls_gtol", 0.001, "-restart"], part,
                ["asks for a model other than the saved one", "does not record differs"], unchanged=False)

        # (d) -overwrite clears the earlier, longer run; without it a lone vp_NNNN.rsf is refused
        longer = vp_files(part)
        c.check(len(longer) >= 3, f"(d) the earlier run wrote only {longer}")
        out = c.run(1, inv(bands="3", its=1) + ["-overwrite"], part)
        said(out, "-overwrite")
        c.check("-overwrite: removed" in out and longer[-1] in out, "(d) -overwrite did not say what it removed")
        c.check(vp_files(part) == ["vp_0001.rsf"], f"(d) after -overwrite: {vp_files(part)}, expected vp_0001.rsf only")
        saved = sorted(os.listdir(os.path.join(part, "restart")))
        c.check(not any(f.startswith("band02") for f in saved), f"(d) restart/ still holds the earlier run's band 2: {saved}")
        lone = scr.sub("lone")
        os.makedirs(lone)
        c.write_model(os.path.join(lone, "vp_0003.rsf"), true, DX)
        refused("(d) a lone vp_0003.rsf", bands, lone, [os.path.join(lone, "vp_0003.rsf"), "-overwrite"])
        grad = ["-mode", "gradient", "-vp", start_path] + acq + ["-observed_dir", obs, "-vp_max", 2500]
        gdir = scr.sub("gradient")
        c.run(1, grad, gdir)
        refused("(d) existing gradient.rsf", grad, gdir, [os.path.join(gdir, "gradient.rsf"), "-overwrite"])
        out = c.run(1, grad + ["-overwrite"], gdir)
        said(out, "-overwrite")
        c.check("-overwrite: removed" in out and "gradient.rsf" in out, "(d) gradient -overwrite did not say what it removed")

        # (e) stale temporaries, and -overwrite of a run with more shots
        fwd = scr.sub("forward")
        os.makedirs(os.path.join(fwd, "restart"))
        host, dead = socket.gethostname(), dead_pid()
        stale = [f"shot_0000.rsf@.tmp.{host}.{dead}", f"restart/evaluations.txt.tmp.{host}.{dead}"]
        kept = [f"shot_0001.rsf.tmp.other-host.example.{dead}", f"shot_0002.rsf@.tmp.{host}.{os.getpid()}"]
        for f in stale + kept:
            with open(os.path.join(fwd, f), "wb") as fp:
                fp.write(b"\0" * 100)
        out = c.run(1, ["-mode", "forward", "-vp", true_path] + acq, fwd)
        said(out, "removed", "note")
        for f in stale:
            c.check(not os.path.exists(os.path.join(fwd, f)), f"(e) the stale temporary {f} is still there")
            c.check(f"removed {os.path.join(fwd, f)}" in out, f"(e) no 'removed {f}' line")
        for f in kept:
            c.check(os.path.exists(os.path.join(fwd, f)), f"(e) {f} was removed")
        c.check("of other hosts left" in out and "being written by process" in out,
                "(e) no note on the temporaries of another host and of a running process")
        out = c.run(1, ["-mode", "forward", "-vp", true_path] + acq[:1] + [2] + acq[2:] + ["-overwrite"], fwd)
        said(out, "-overwrite")
        shots = sorted(f for f in os.listdir(fwd) if f.startswith("shot_") and f.endswith(".rsf"))
        c.check(shots == ["shot_0000.rsf", "shot_0001.rsf"], f"(e) after -overwrite with 2 shots: {shots}")
        print("  (e) stale temporaries removed, others left with a note; -overwrite removed shot_0002", flush=True)

        # (f) -overwrite never removes an input, whatever path names it
        alias = scr.sub("alias.rsf")
        os.symlink(os.path.join(part, "vp.rsf"), alias)
        again = ["-mode", "invert", "-vp", alias] + acq + ["-observed_dir", obs, "-vp_max", 2500, "-tao_max_it", 1]
        refused("(f) -vp names the vp.rsf -overwrite would remove", again + ["-overwrite"], part,
                [os.path.join(part, "vp.rsf"), "-vp", "nothing was removed"])
        wavelet = os.path.join(part, "wavelet_1.rsf")  # as an earlier -source_estimation run writes it
        c.write_rsf(wavelet, c.ricker(np.arange(200) * 0.002, 10).astype(np.float32), d=[0.002])
        refused("(f) -wavelet names a wavelet_1.rsf -overwrite would remove", inv(its=1) + ["-wavelet", wavelet, "-overwrite"], part,
                [wavelet, "-wavelet", "nothing was removed"])

        # (g) a start that failed before its first evaluation blocks nothing
        failed = scr.sub("failed")
        out = c.run(1, bands + ["-tao_type", "bncg", "-gradient_smoothing", "20,20"], failed, expect_fail=True)
        c.check(os.path.isdir(os.path.join(failed, "restart")), "(g) the failed start left no restart/: the case proves nothing")
        refused("(g) -restart with no evaluation saved", bands + ["-restart"], failed, ["lists no evaluation", "without -restart"])
        out = c.run(1, inv(bands="3", its=1), failed)
        said(out, "holds no evaluation")
        c.check("of a restart state that holds no evaluation" in out, "(g) the corrected rerun did not say it removed the empty restart state")
        c.check(os.path.isfile(os.path.join(failed, "vp.rsf")), "(g) the corrected rerun wrote no vp.rsf")

        # (h) another rank count: the whole forward field (full storage, named, as
        # auto weighs the two methods level on so small a run) fits -wavefield_memory 5
        # (MB per rank) on 2 ranks, not on 1 (6.5 MB), where -restart's auto takes the other
        ranks = scr.sub("ranks")
        fit = inv(bands="3", its=1) + ["-wavefield_memory", 5]
        c.run(2, fit + ["-da_processors_x", 2, "-gradient_method", "full"], ranks)
        for f in ("vp.rsf", "vp.rsf@"):  # as if stopped after the last iteration
            os.remove(os.path.join(ranks, f))
        refused("(h) -restart on 1 rank of a run on 2", fit + ["-restart"], ranks,
                ["ran on 2 ranks", "this one on 1 ranks", "-gradient_method was full, now boundary"], unchanged=False)
        # where nothing follows the ranks, blmvm replays on 1 rank a run made on 2, to the same model
        same = scr.sub("ranks_same")
        c.run(2, inv(bands="3", its=2) + ["-da_processors_x", 2], same)
        model = open(os.path.join(same, "vp.rsf@"), "rb").read()
        for f in ("vp.rsf", "vp.rsf@"):
            os.remove(os.path.join(same, f))
        saved = saved_evaluations(same)
        check_resumed("(h) -restart on 1 rank of a blmvm run on 2", c.run(1, inv(bands="3", its=2) + ["-restart"], same), saved, saved)
        c.check(open(os.path.join(same, "vp.rsf@"), "rb").read() == model, "(h) -restart on 1 rank: vp.rsf differs from the 2-rank run's")


if __name__ == "__main__":
    c.main(main)
