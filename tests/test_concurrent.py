#!/usr/bin/env python3
"""One run per output folder, and a publish never replaces what the run did
not decide to replace.

(a) while a forward run A writes into a folder, a second run there is
    refused at start-up, in each mode (forward with -overwrite, gradient,
    invert), with a message naming A's host and process id, and leaves no
    file behind; A's shot gathers then equal those of the same run made
    alone, byte for byte, and A's lock file is gone once it has ended;
(b) a file that appears in the folder while A runs under a name A then
    publishes (a shot gather's binary, written by the test) is not replaced:
    A fails naming it, the file is as it was, and no header points at it;
(c) a lock file left by a process of this host that no longer runs (a
    crashed run) is taken over with a note naming it; a refused run (an
    error exit) and a finished one leave no lock file."""
import os
import signal
import socket
import subprocess
import time

import numpy as np

import common as c

LOCK = ".halofwi.lock"
DX = 10.0
NZ, NX = 60, 120
# long enough that A still runs while the second runs start and are refused
# (about 6 s on an idle core; the three refusals take about 0.4 s each)
SLOW = ["-nshots", 4, "-nrec", 30, "-nt", 24000, "-dt", 0.001, "-f0", 10, "-pml_width", 10, "-progress_interval", 0]
QUICK = ["-nshots", 2, "-nrec", 10, "-nt", 100, "-dt", 0.001, "-f0", 10, "-pml_width", 10, "-progress_interval", 0]


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def start(args, outdir):
    """Starts one halofwi process (singleton MPI: its pid is the run's) and
    waits until it holds the folder's lock."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("PETSC_OPTIONS", None)
    argv = c.command(1, args, outdir)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True,
                         errors="replace", cwd=os.path.dirname(outdir), start_new_session=True)
    lock = os.path.join(outdir, LOCK)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        if os.path.isfile(lock) and open(lock).read().split()[1:] == [str(p.pid)]:
            return p
        time.sleep(0.05)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    out, _ = p.communicate()
    c.fail(f"run A (process {p.pid}, exit {p.returncode}) never held a lock file {lock} naming it:\n{out}")


def finish(p, tag):
    try:
        out, _ = p.communicate(timeout=c.DEFAULT_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        c.fail(f"{tag}: run A hung")
    print(f"  {tag}: run A exited {p.returncode}", flush=True)
    return p.returncode, out


def listing(outdir):
    return sorted(os.listdir(outdir))


def main():
    scr = c.Scratch("concurrent")
    with scr:
        host = socket.gethostname()
        model = c.write_model(scr.sub("model.rsf"), np.full((NX, NZ), 2000.0, np.float32), DX)
        fwd = ["-mode", "forward", "-vp", model]
        obs = scr.sub("obs")
        c.run(1, fwd + QUICK, obs)
        grad = ["-mode", "gradient", "-vp", 2100, "-nx", NX, "-nz", NZ, "-dx", DX] + QUICK + ["-observed_dir", obs]
        inv = ["-mode", "invert", "-vp", 2100, "-nx", NX, "-nz", NZ, "-dx", DX] + QUICK + ["-observed_dir", obs, "-tao_max_it", 1]
        alone = scr.sub("alone")
        c.run(1, fwd + SLOW, alone)

        # (a) a second run into a folder in use is refused, in each mode
        same = scr.sub("same")
        a = start(fwd + SLOW, same)
        for tag, args in (("forward -overwrite", fwd + QUICK + ["-overwrite"]), ("gradient", grad), ("invert", inv)):
            before = listing(same)
            rc, out = c.run_status(1, args, same)
            msg = c.error_message(out)
            c.check(a.poll() is None, f"(a) {tag}: run A ended before the second run was refused: the test proves nothing")
            c.check(rc != 0, f"(a) {tag}: the second run exited 0 while run A held {same}")
            c.check("in use by another run" in msg and f"process {a.pid}" in msg and f"host {host}" in msg,
                    f"(a) {tag}: the refusal does not name run A (process {a.pid} on host {host}): {msg!r}")
            new = sorted(set(listing(same)) - set(before))
            c.check(not [f for f in new if not f.startswith(("shot_", "coords_"))], f"(a) {tag}: the refused run left {new}")
            print(f"  (a) {tag}: refused: {msg}", flush=True)
        rc, out = finish(a, "(a)")
        c.check(rc == 0, f"(a) run A failed:\n{out}")
        c.compare_bitwise(alone, same, 4, "(a) run A's gathers beside the refused runs, against the same run alone")
        c.check(not os.path.exists(os.path.join(same, LOCK)), "(a) run A's lock file is left after it ended")

        # (b) a file that appears meanwhile under a name A publishes is not
        # replaced: here the binary of shot 3 (A checks the header's name at
        # start-up and before writing; the rename that publishes each file
        # is what must not replace)
        appear = scr.sub("appear")
        a = start(fwd + SLOW, appear)
        theirs = os.path.join(appear, "shot_0003.rsf@")
        with open(theirs, "wb") as f:
            f.write(b"not A's\n")
        rc, out = finish(a, "(b)")
        msg = c.error_message(out)
        c.check(rc != 0 and theirs in msg and "appeared while this run was writing it" in msg,
                f"(b) run A did not refuse to replace {theirs} (exit {rc}): {msg!r}")
        c.check(open(theirs, "rb").read() == b"not A's\n", f"(b) {theirs}, written while run A ran, was replaced")
        c.check(not os.path.exists(os.path.join(appear, "shot_0003.rsf")), "(b) run A published a header for a binary it did not write")
        print(f"  (b) {msg}", flush=True)

        # (c) a dead run's lock is taken over; error and normal exits leave none
        stale = scr.sub("stale")
        os.makedirs(stale)
        dead = dead_pid()
        with open(os.path.join(stale, LOCK), "w") as f:
            f.write(f"{host} {dead}\n")
        out = c.run(1, fwd + QUICK, stale)
        c.check(f"took over the lock file {os.path.join(stale, LOCK)} of process {dead} on host {host}" in out,
                f"(c) no note on taking over the lock of the dead process {dead}:\n{out}")
        c.check(not os.path.exists(os.path.join(stale, LOCK)), "(c) the finished run left its lock file")
        out = c.run(1, fwd + QUICK, stale, expect_fail=True)
        c.check("exists" in c.error_message(out), f"(c) the rerun without -overwrite was not refused: {out}")
        c.check(not os.path.exists(os.path.join(stale, LOCK)), "(c) the refused run (an error exit) left its lock file")
        print("  (c) the dead run's lock was taken over with a note; finished and refused runs left none", flush=True)


if __name__ == "__main__":
    c.main(main)
