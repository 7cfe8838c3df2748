#!/usr/bin/env python3
"""Full disks: a failed write ends the run with an error that names the file
and the system's reason, and leaves no file that looks complete but is not.

The outputs go to a small tmpfs (as root: mount -t tmpfs -o size=Nk).  Its
size is a share of the pages a reference run's outputs take (tmpfs counts
whole 4 KiB pages), so that the first files fit and a later one does not;
several shares hit different files (plus a page for the output folder's
lock file, which the reference's pages do not count).  Where mounting fails (not root), or
with HALOFWI_TEST_NO_MOUNT=1, single-rank runs get a file-size limit instead
(RLIMIT_FSIZE, set on the running process once it has printed its first
line: MPI's start-up writes larger files), so that writes past it fail with
'File too large'.

Every failed run must: exit with status 67 (a failed write, whichever path
wrote: MPI-IO, stdio); print an error that names a file in
the output folder and the reason, 'No space left on device' or 'File too
large'; leave no temporary (*.tmp.*); and leave every result under its final
name whole: an RSF header whose binary has the right size and equals the
reference run's byte for byte, misfit.csv and restart/evaluations.txt rows
that begin the reference's (timings aside), restart/run.txt equal to it.

(a) forward, 4 shots of 8..20 receivers, 1 rank at 4 sizes and 2 ranks (one
    group in two subdomains) at one;
(b) gradient, 1 rank (2 sizes) and 2 ranks (MPI-IO from both ranks, whose
    failed writes Open MPI's ompio does not report);
(c) invert (2 bands), 1 rank at 6 sizes and 2 ranks at one;
(d) -restart into the same full disk fails the same way (where the failed
    run saved no evaluation, -restart is refused as having nothing to carry
    on, and a new run into the folder fails the same way);
(e) the outputs copied to a roomy disk: -restart replays every saved
    evaluation (the counts it prints) and ends with vp.rsf, every
    vp_NNNN.rsf and misfit.csv (timings aside) equal to the uninterrupted
    run's, bit for bit."""
import contextlib
import csv
import os
import re
import resource
import shutil
import signal
import subprocess
import threading

import numpy as np

import common as c
from test_inversion import check_resumed, saved_evaluations

DX = 10.0
NZ, NX = 30, 50
NRECS = (8, 12, 16, 20)          # receivers per shot: the gathers grow, so a size limit can fall between them
MODEL_BYTES = 4 * NZ * NX
REASONS = ("No space left on device", "File too large")
FORWARD_SHARES = (0.2, 0.45, 0.7, 0.95)
INVERT_SHARES = (0.1, 0.25, 0.4, 0.55, 0.7, 0.9)
PAGE = 4096
WRITE_FAILED = 67                # the exit status of a failed write (PETSC_ERR_FILE_WRITE)
LOCK_PAGES = 1                   # the output folder's lock file, held while a run writes (removed at its end)


# --------------------------------------------------------------------------
# a small disk, or a file-size limit

def can_mount(base):
    if os.environ.get("HALOFWI_TEST_NO_MOUNT"):
        return False
    probe = os.path.join(base, "mount-probe")
    os.makedirs(probe, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", probe], capture_output=True, text=True)
    if r.returncode == 0:
        subprocess.run(["umount", probe], check=True)
    else:
        print(f"  mount -t tmpfs failed ({r.stderr.strip()}): file-size limits instead", flush=True)
    os.rmdir(probe)
    return r.returncode == 0


@contextlib.contextmanager
def small_disk(path, kib):
    """A tmpfs of kib KiB at path, always unmounted; on failure its content is
    copied beside it (path + '-kept') for a look."""
    os.makedirs(path)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", path], check=True)
    try:
        yield path
    except BaseException:
        shutil.copytree(path, path + "-kept", dirs_exist_ok=True)
        raise
    finally:
        subprocess.run(["umount", path], check=True)


def run_limited(args, outdir, limit, timeout=c.DEFAULT_TIMEOUT):
    """One rank (no mpiexec) whose files may not exceed limit bytes."""
    argv = c.command(1, args, outdir)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("PETSC_OPTIONS", None)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True, errors="replace",
                         cwd=os.path.dirname(outdir), start_new_session=True)
    watchdog = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
    watchdog.start()
    lines = []
    try:
        for line in p.stdout:
            if not lines:
                resource.prlimit(p.pid, resource.RLIMIT_FSIZE, (limit, limit))
            lines.append(line)
        rc = p.wait()
    finally:
        watchdog.cancel()
    print(f"$ {' '.join(argv)}   (files limited to {limit} bytes)\n  -> exit {rc}", flush=True)
    return rc, "".join(lines)


# --------------------------------------------------------------------------
# what a failed run leaves

def pages(folder):
    n = 0
    for root, _, files in os.walk(folder):
        n += sum(-(-os.path.getsize(os.path.join(root, f)) // PAGE) or 1 for f in files)
    return n


def csv_rows(path, ncols):
    with open(path, newline="") as f:
        return [r[:ncols] for r in csv.reader(f)]


def eval_rows(path):
    with open(path) as f:
        return [line.split()[:3] for line in f]


def check_prefix(name, got, ref):
    c.check(got == ref[:len(got)], f"{name}: rows {got} do not begin the reference's {ref}")


def check_rsf(path, ref_path):
    """path's binary has the size its header gives and equals ref_path's."""
    h = c.read_rsf_header(path)
    n = [int(h.get(f"n{i}", 1)) for i in (1, 2, 3)]
    data = c.rsf_data_path(path, h)
    c.check(os.path.isfile(data), f"{path}: header without its binary {data}")
    size = os.path.getsize(data)
    esize = int(h.get("esize", 4))  # 8: a gather's coordinates
    c.check(size == esize * int(np.prod(n)), f"{path}: binary of {size} bytes, its header says {n} x {esize} = {esize * int(np.prod(n))}")
    c.check(os.path.isfile(ref_path), f"{path}: the reference run has no {ref_path}")
    c.check(open(data, "rb").read() == open(c.rsf_data_path(ref_path), "rb").read(),
            f"{path}: its samples differ from the reference run's {ref_path}")


def check_left(outdir, refdir):
    """Every file under a final name in outdir is whole: the checks of the
    module docstring.  Returns the names found."""
    found = []
    for root, _, files in os.walk(outdir):
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(root, f), outdir)
            p, ref = os.path.join(outdir, rel), os.path.join(refdir, rel)
            found.append(rel)
            c.check(".tmp." not in f, f"temporary {rel} left in {outdir}")
            if f.endswith(".rsf"):
                check_rsf(p, ref)
            elif f.endswith(".rsf@"):
                c.check(os.path.isfile(p[:-1]) or open(p, "rb").read() == open(ref, "rb").read(),
                        f"{rel}: a binary without its header, unlike the reference's")
            elif f == "misfit.csv":
                check_prefix(rel, csv_rows(p, 5), csv_rows(ref, 5))
            elif f == "evaluations.txt":
                check_prefix(rel, eval_rows(p), eval_rows(ref))
            elif f == "run.txt":
                c.check(open(p).read() == open(ref).read(), f"{rel} differs from the reference run's")
            else:
                c.fail(f"unexpected file {rel} in {outdir}")
    return found


def check_failed(tag, rc, out, outdir, refdir):
    """The run failed, said which file and why, and left only whole files."""
    msg = c.error_message(out)
    if rc != WRITE_FAILED:
        print(out)
        c.fail(f"{tag}: exit status {rc} on a full disk, expected {WRITE_FAILED} (a failed write, on every path)")
    named = re.search(re.escape(outdir.rstrip("/") + "/") + r"[^\s:]+", msg)
    reason = [r for r in REASONS if r in msg]
    if not named or not reason:
        print(out)
        c.fail(f"{tag}: the message does not name a file in {outdir} and the reason ({' or '.join(REASONS)}): {msg!r}")
    left = check_left(outdir, refdir)
    print(f"  {tag}: exit {rc}, {named.group(0)}: {reason[0]}; {len(left)} whole files left", flush=True)
    return os.path.basename(named.group(0))


# --------------------------------------------------------------------------

class Cases:
    def __init__(self, scr, mount):
        self.scr, self.mount, self.hit = scr, mount, {}

    def failing(self, tag, nranks, args, refdir, share=None, limit=None, then=None):
        """Runs args into a disk with share of refdir's pages (or, without
        mounting, 1 rank under limit bytes), checks the failure, then calls
        then(outdir) while the disk is still there."""
        if not self.mount:
            if nranks > 1 or limit is None:
                print(f"  {tag}: skipped (file-size limits: single-rank runs, one limit per kind of file)", flush=True)
                return
            outdir = self.scr.sub(tag)
            rc, out = run_limited(args, outdir, limit)
            self.hit[tag] = check_failed(tag, rc, out, outdir, refdir)
            if then:
                then(outdir)
            return
        kib = (max(1, int(share * pages(refdir))) + LOCK_PAGES) * PAGE // 1024
        with small_disk(self.scr.sub(tag + "-disk"), kib) as disk:
            outdir = os.path.join(disk, "out")
            rc, out = c.run_status(nranks, args, outdir)
            self.hit[tag] = check_failed(f"{tag} ({kib} KiB)", rc, out, outdir, refdir)
            if then:
                then(outdir)


def main():
    scr = c.Scratch("disk_full")
    with scr:
        mount = can_mount(scr.path)
        cases = Cases(scr, mount)
        x = np.arange(NX)[:, None] * DX
        z = np.arange(NZ)[None, :] * DX
        true = (2000 + 300 * np.exp(-((x - 245) ** 2 + (z - 160) ** 2) / (2 * 50.0 ** 2))).astype(np.float32)
        true_path = c.write_model(scr.sub("true.rsf"), true, DX)
        start_path = c.write_model(scr.sub("start.rsf"), np.full((NX, NZ), 2000.0, np.float32), DX)
        shots = [((DX * (6 + 12 * s), 20.0), [(DX * (2 + 45 * i // (n - 1)), DX * 26) for i in range(n)])
                 for s, n in enumerate(NRECS)]
        geo = c.write_geometry(scr.sub("geom.txt"), shots, comment="disk-full test: 4 shots, 8 to 20 receivers")
        acq = ["-geometry", geo, "-nt", 250, "-dt", 0.002, "-f0", 10, "-pml_width", 10, "-pml_top", 0,
               "-progress_interval", 0]
        split = ["-da_processors_x", 2]

        # (a) forward: a gather of shot s has 250 x NRECS[s] floats
        fwd = ["-mode", "forward", "-vp", true_path] + acq
        ref = scr.sub("ref_forward")
        c.run(1, fwd, ref)
        for k, share in enumerate(FORWARD_SHARES):
            cases.failing(f"forward{k}", 1, fwd, ref, share=share, limit=250 * 4 * NRECS[k] - 1)
        ref2 = scr.sub("ref_forward2")
        c.run(2, fwd + split, ref2)
        cases.failing("forward-2ranks", 2, fwd + split, ref2, share=0.6)
        obs = ref

        # (b) gradient: one model-sized file, 6000 bytes (2 pages) and a header (1 page)
        grad = ["-mode", "gradient", "-vp", start_path] + acq + ["-observed_dir", obs, "-vp_max", 2500]
        ref = scr.sub("ref_gradient")
        c.run(1, grad, ref)
        cases.failing("gradient0", 1, grad, ref, share=0.34, limit=MODEL_BYTES - 1)
        cases.failing("gradient1", 1, grad, ref, share=0.67)
        ref2 = scr.sub("ref_gradient2")
        c.run(2, grad + split, ref2)
        cases.failing("gradient-2ranks", 2, grad + split, ref2, share=0.67)

        # (c) invert; (d) and (e) on two of the fills
        inv = ["-mode", "invert", "-vp", start_path] + acq + ["-observed_dir", obs, "-vp_max", 2500,
                                                              "-bands", "6,12", "-tao_max_it", 3]
        ref = scr.sub("ref_invert")
        c.run(1, inv, ref)
        ref_models = sorted(f for f in os.listdir(ref) if f.startswith("vp") and f.endswith(".rsf"))

        def restarts(tag):
            def then(outdir):
                # (d) the same full disk; a fill that ended the run before its first
                # evaluation left nothing to carry on, which -restart says (a run
                # without it may use the folder)
                saved = saved_evaluations(outdir)
                again = inv + (["-restart"] if saved else [])
                if not saved:
                    rc, out = c.run_status(1, inv + ["-restart"], outdir)
                    c.check(rc not in (0, WRITE_FAILED) and "lists no evaluation" in c.error_message(out),
                            f"{tag}: -restart with no evaluation saved: exit {rc}, {c.error_message(out)!r}")
                rc, out = (c.run_status(1, again, outdir) if mount else run_limited(again, outdir, MODEL_BYTES - 1))
                cases.hit[tag + "-restart"] = check_failed(f"{tag}: {'-restart' if saved else 'a new run'} on the full disk", rc, out, outdir, ref)
                # (e) a roomy one
                roomy = scr.sub(tag + "-roomy")
                shutil.copytree(outdir, roomy)
                out = c.run(1, again, roomy)
                if saved:
                    check_resumed(tag, out, saved)
                for f in ref_models:
                    check_rsf(os.path.join(roomy, f), os.path.join(ref, f))
                models = sorted(f for f in os.listdir(roomy) if f.startswith("vp") and f.endswith(".rsf"))
                c.check(models == ref_models, f"{tag}: after -restart: models {models}, uninterrupted {ref_models}")
                c.check(csv_rows(os.path.join(roomy, "misfit.csv"), 5) == csv_rows(os.path.join(ref, "misfit.csv"), 5),
                        f"{tag}: after -restart: misfit.csv differs from the uninterrupted run's")
                print(f"  {tag}: -restart on a roomy disk: vp.rsf and {len(ref_models) - 1} vp_NNNN.rsf equal the "
                      f"uninterrupted run's bit for bit", flush=True)
            return then

        for k, share in enumerate(INVERT_SHARES):
            cases.failing(f"invert{k}", 1, inv, ref, share=share, limit=MODEL_BYTES - 1 if k == 0 else None,
                          then=restarts(f"invert{k}") if k in (0, 3) else None)
        ref2 = scr.sub("ref_invert2")
        c.run(2, inv + split, ref2)
        cases.failing("invert-2ranks", 2, inv + split, ref2, share=0.5)

        print("files the failures named: " + ", ".join(f"{t}: {f}" for t, f in cases.hit.items()), flush=True)
        invert_hits = {f for t, f in cases.hit.items() if t.startswith("invert") and "restart" not in t}
        c.check(not mount or len(invert_hits) >= 3,
                f"the invert fills hit only {sorted(invert_hits)}: expected at least 3 different files")


if __name__ == "__main__":
    c.main(main)
