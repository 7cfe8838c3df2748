#!/usr/bin/env python3
"""Where and how the gradient keeps the forward wavefield: -wavefield_storage
disk with -wavefield_dir, and -wavefield_compression (docs/options.md).

(a) The disk tier gives memory's gradient bit for bit: every equation with
    full storage and the boundary method, 2D and 3D, 1 rank and decomposed
    (2 and 4 ranks, 2 shot groups x 2), with and without a free surface,
    and checkpointing with its snapshots on disk (full storage's gradient,
    1 and 2 ranks, 2D and 3D; snapshots named, as many as the disk holds
    beside a 1 MB -wavefield_memory, one fewer than its windows with the
    shape left to the planner, none with -checkpoints 0: one window as long
    as the run, no file); the folder is empty afterwards.
(b) The planner: with -wavefield_memory too small for any method's steps
    and a -wavefield_dir, auto takes the cheapest row that fits, on disk,
    and says so; its gradient, and full storage's named there, equal the
    same methods' in memory bit for bit; without -wavefield_dir the run is
    refused, naming -wavefield_dir.
(c) Compression: on Marmousi (resampled to 32 m) and on a 3D model, int8
    and bf16 keep 0.27 and 0.5 of the bytes, and the gradient's cosine
    similarity to the uncompressed one is at least 0.999 (int8) and 0.99999
    (bf16), its relative L2 error at most 2% and 0.2%.
(d) Bad input, before any work and leaving nothing in the folder:
    -wavefield_storage disk without -wavefield_dir; a folder that does not
    exist, a file, a read-only file system; a disk too small for the plan;
    a file-size limit (the space reserved up front fails: 'File too
    large'); compression with -gradient_method checkpoint.
(e) A run killed part way leaves no file in the folder (the file has no
    name from the start) for a later run to read.
"""
import os
import re
import signal
import subprocess

import numpy as np

import common as c
from test_checkpoint import MODELS, gradient_files, survey
from test_disk_full import run_limited, small_disk


def same_gradients(ref, test, what):
    names = gradient_files(ref)
    c.check(names, f"{what}: no gradient written in {ref}")
    for f in names:
        with open(os.path.join(ref, f), "rb") as a, open(os.path.join(test, f), "rb") as b:
            c.check(a.read() == b.read(), f"{what}: {f} differs from the gradient kept in memory")
    print(f"  {what}: {', '.join(names)} bit for bit", flush=True)


def empty(folder, what):
    left = os.listdir(folder)
    c.check(not left, f"{what}: files left in -wavefield_dir: {left}")


def observed(scr, physics, dim, free_surface=False):
    obs = scr.sub(f"obs_{physics}_{dim}{'f' if free_surface else ''}")
    if not os.path.isdir(obs):
        c.run(1, ["-mode", "forward"] + MODELS[physics][0] + survey(physics, dim, free_surface), obs)
    return obs


def disk_equals_memory(scr, wd):
    cases = [("acoustic", 2, False, 1, "full", []), ("acoustic", 2, False, 1, "boundary", []),
             ("variable_density", 2, True, 1, "full", []), ("elastic", 2, False, 1, "boundary", []),
             ("acoustic", 3, False, 2, "full", []), ("elastic", 3, True, 2, "full", []),
             ("variable_density", 2, False, 4, "boundary", ["-shot_groups", "2"]), ("acoustic", 2, True, 4, "full", [])]
    for physics, dim, free, nranks, method, extra in cases:
        tag = f"{physics} {dim}D{' free surface' if free else ''}, {method}, {nranks} rank(s){' ' + ' '.join(extra) if extra else ''}"
        base = ["-mode", "gradient", "-observed_dir", observed(scr, physics, dim, free), "-gradient_method", method] + MODELS[physics][1] + survey(physics, dim, free) + extra
        name = f"{physics}_{dim}{'f' if free else ''}_{method}_{nranks}"
        mem = scr.sub("mem_" + name)
        c.run(nranks, base, mem)
        out = scr.sub("disk_" + name)
        text = c.run(nranks, base + ["-wavefield_storage", "disk", "-wavefield_dir", wd], out)
        c.check(f"in a file in {wd}" in text, f"{tag}: the run does not say its steps are on disk")
        same_gradients(mem, out, tag + ", on disk")
        empty(wd, tag)
    # snapshots named; as many as the disk holds with the ring in what
    # -wavefield_memory leaves (one a window), and with the shape left to
    # the planner one a window but the first (which of its shapes it takes
    # follows the backend's first-use cost of the ring's memory); none with
    # -checkpoints 0, whose one window is the run (no file then)
    for i, (physics, dim, nranks, args) in enumerate((("acoustic", 2, 1, ["-checkpoints", 3]), ("elastic", 3, 2, ["-checkpoints", 2]), ("variable_density", 2, 2, ["-checkpoints", 5]),
                                                      ("acoustic", 2, 1, ["-wavefield_memory", 1]), ("acoustic", 2, 1, []), ("acoustic", 2, 1, ["-checkpoints", 0]))):
        tag = f"{physics} {dim}D, checkpoint {' '.join(map(str, args)) or 'auto'} on disk, {nranks} rank(s)"
        base = ["-mode", "gradient", "-observed_dir", observed(scr, physics, dim)] + MODELS[physics][1] + survey(physics, dim)
        mem = scr.sub(f"ckfull_{physics}_{dim}_{nranks}")
        if not os.path.isdir(mem):
            c.run(nranks, base + ["-gradient_method", "full"], mem)
        out = scr.sub(f"ckdisk_{i}")
        text = c.run(nranks, base + ["-gradient_method", "checkpoint", "-wavefield_storage", "disk", "-wavefield_dir", wd] + args, out)
        m = re.search(r"checkpointing: (\d+) snapshots and windows of (\d+) steps for (\d+) internal steps", text)
        c.check(m and "on disk" in text, f"{tag}: the run does not say its snapshots are on disk")
        snaps, window, nsteps = (int(g) for g in m.groups())
        windows = -(-nsteps // window)
        expect = args[1] if args and args[0] == "-checkpoints" else windows - 1
        c.check(snaps == expect and (expect or window == nsteps), f"{tag}: {m.group(0)!r}, expected {expect} snapshots" + ("" if expect else " and one window"))
        same_gradients(mem, out, tag + f" ({snaps} snapshots, windows of {window})")
        empty(wd, tag)


def table(text):
    """The planner's rows: method -> (disk column, expected forward runs, fits)."""
    rows = {}
    for m in re.finditer(r"^  (full|boundary|checkpoint)\s+.*?\s(\S+ [kMGT]?B|-)\s+([\d.]+) forward runs( \(does not fit\))?$", text, re.M):
        rows[m.group(1)] = (m.group(2), float(m.group(3)), not m.group(4))
    return rows


def planner(scr, wd):
    obs = observed(scr, "acoustic", 2)
    base = ["-mode", "gradient", "-observed_dir", obs] + MODELS["acoustic"][1] + survey("acoustic", 2)
    mem = scr.sub("plan_mem")
    c.run(1, base + ["-gradient_method", "full"], mem)
    # 0.3 MB: no method's steps fit in memory beside its fields (full about 2.6 MB, boundary 0.5)
    out = scr.sub("plan_disk")
    text = c.run(1, base + ["-wavefield_memory", "0.3", "-wavefield_dir", wd], out)
    rows = table(text)
    c.check(set(rows) >= {"full", "boundary"}, f"planner table not found: {rows}")
    fitting = {k: v for k, v in rows.items() if v[2] and k != "checkpoint"}
    best = min(fitting, key=lambda k: fitting[k][1])
    c.check(f"gradient method: {best} (the fastest that fits), its steps on disk" in text,
            f"expected the planner to take {best} on disk (rows {rows}); it printed: {[l for l in text.splitlines() if l.startswith('gradient method')]}")
    c.check(rows[best][0] not in ("-",), f"{best}: no bytes in the disk column ({rows[best]})")
    ref = mem if best == "full" else scr.sub("plan_mem_" + best)
    if best != "full":
        c.run(1, base + ["-gradient_method", best], ref)
    same_gradients(ref, out, f"auto ({best}) on disk under -wavefield_memory 0.3")
    # full storage larger than the memory budget, named: on disk, memory's gradient
    out = scr.sub("plan_full_disk")
    text = c.run(1, base + ["-gradient_method", "full", "-wavefield_memory", "0.3", "-wavefield_dir", wd], out)
    c.check("gradient method: full (-gradient_method), its steps on disk" in text, "-gradient_method full under -wavefield_memory 0.3: not on disk")
    same_gradients(mem, out, "full on disk under -wavefield_memory 0.3")
    empty(wd, "planner")
    status, text = c.run_status(1, base + ["-wavefield_memory", "0.3"], scr.sub("plan_nodir"))
    c.check(status != 0 and "-wavefield_dir" in c.error_message(text), f"without -wavefield_dir a plan that does not fit in memory should be refused naming -wavefield_dir:\n{text[-800:]}")
    print(f"  planner: {best} on disk ({rows}); refused without -wavefield_dir", flush=True)


def marmousi(scr):
    """Marmousi every 8th sample (32 m), and a start smoothed over 400 m."""
    here = os.path.dirname(os.path.abspath(__file__))
    vp = np.fromfile(os.path.join(here, "..", "data", "marmousi_vp.bin"), dtype="<f4").reshape(2301, 751)[::8, ::8].copy()
    smooth = vp.copy()
    for axis in (0, 1):
        k = np.ones(13) / 13
        pad = np.pad(smooth, [(6, 6) if a == axis else (0, 0) for a in (0, 1)], mode="edge")
        smooth = np.apply_along_axis(lambda r: np.convolve(r, k, mode="valid"), axis, pad)
    smooth[:, :1] = vp[:, :1]
    true, start = scr.sub("marmousi_true.rsf"), scr.sub("marmousi_start.rsf")
    c.write_model(true, vp.astype(np.float32), 32.0)
    c.write_model(start, smooth.astype(np.float32), 32.0)
    args = ["-nshots", "4", "-nrec", "96", "-nt", "900", "-dt", "0.003", "-f0", "6", "-source_depth", "8", "-receiver_depth", "8"]
    return ["-vp", true], ["-vp", start], args


def blob3d(scr):
    nz, nx, ny = 24, 32, 28
    z = np.arange(nz)[:, None, None]
    vp = (2000 + 25 * z + 0 * np.zeros((nz, nx, ny))).astype(np.float32)
    vp[8:16, 10:20, 10:18] += 300
    start = (2000 + 25 * z + 0 * np.zeros((nz, nx, ny))).astype(np.float32)
    true_p, start_p = scr.sub("blob_true.rsf"), scr.sub("blob_start.rsf")
    c.write_model(true_p, np.ascontiguousarray(vp.transpose(2, 1, 0)), 20.0)
    c.write_model(start_p, np.ascontiguousarray(start.transpose(2, 1, 0)), 20.0)
    return ["-vp", true_p], ["-vp", start_p], ["-nshots", "2", "-nrec", "8", "-nt", "300", "-dt", "0.002", "-f0", "10", "-pml_width", "8"]


def compression(scr):
    for name, model in (("Marmousi", marmousi), ("3D", blob3d)):
        true, start, args = model(scr)
        obs = scr.sub(f"obs_{name}")
        c.run(2, ["-mode", "forward"] + true + args, obs)
        base = ["-mode", "gradient", "-observed_dir", obs, "-gradient_method", "full"] + start + args
        ref = scr.sub(f"cmp_{name}_none")
        text = c.run(2, base, ref)
        raw = float(re.search(r"kept for the adjoint: .*?, ([\d.]+) MB", text).group(1))
        g0 = c.read_rsf(os.path.join(ref, "gradient.rsf"))[0].ravel().astype(np.float64)
        for codec, share, cos_min, l2_max in (("int8", 0.27, 0.999, 0.02), ("bf16", 0.5, 0.99999, 0.002)):
            out = scr.sub(f"cmp_{name}_{codec}")
            text = c.run(2, base + ["-wavefield_compression", codec], out)
            kept = float(re.search(r"kept for the adjoint: .*?, ([\d.]+) MB", text).group(1))
            g = c.read_rsf(os.path.join(out, "gradient.rsf"))[0].ravel().astype(np.float64)
            cos = g @ g0 / np.linalg.norm(g) / np.linalg.norm(g0)
            l2 = np.linalg.norm(g - g0) / np.linalg.norm(g0)
            print(f"  {name}, {codec}: {kept:.1f} of {raw:.1f} MB ({kept / raw:.3f}), gradient cosine {cos:.7f}, relative L2 {l2:.2e}", flush=True)
            c.check(abs(kept / raw - share) < 0.02, f"{name}, {codec}: kept {kept / raw:.3f} of the bytes, expected about {share}")
            c.check(cos >= cos_min and l2 <= l2_max, f"{name}, {codec}: cosine {cos:.7f} (at least {cos_min}), relative L2 {l2:.3g} (at most {l2_max})")


def refused(scr, args, outdir, expect, what, wd=None):
    status, text = c.run_status(1, args, outdir)
    msg = c.error_message(text)
    c.check(status != 0 and expect in msg, f"{what}: expected an error naming '{expect}', got exit {status}: {msg or text[-600:]}")
    c.check("forward run" not in text.split("gradient method")[-1] or "shot 1" not in text, f"{what}: work started before the error")
    if wd:
        empty(wd, what)
    print(f"  {what}: refused ({msg.splitlines()[0][:140] if msg else ''})", flush=True)


def bad_input(scr, wd):
    obs = observed(scr, "acoustic", 2)
    base = ["-mode", "gradient", "-observed_dir", obs] + MODELS["acoustic"][1] + survey("acoustic", 2)
    refused(scr, base + ["-wavefield_storage", "disk"], scr.sub("bad1"), "-wavefield_dir", "disk without a folder")
    refused(scr, base + ["-wavefield_dir", scr.sub("nowhere")], scr.sub("bad2"), "No such file or directory", "a folder that does not exist")
    afile = scr.sub("afile")
    open(afile, "w").close()
    refused(scr, base + ["-wavefield_dir", afile], scr.sub("bad3"), "not a folder", "a file for a folder")
    ro = scr.sub("readonly")
    os.makedirs(ro)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", ro], capture_output=True).returncode == 0:
        try:
            refused(scr, base + ["-wavefield_storage", "disk", "-wavefield_dir", ro], scr.sub("bad4"), "Read-only file system", "a read-only file system")
        finally:
            subprocess.run(["umount", ro], check=True)
        with small_disk(scr.sub("tiny"), 64) as tiny:
            refused(scr, base + ["-wavefield_storage", "disk", "-wavefield_dir", tiny, "-gradient_method", "full"], scr.sub("bad5"), "-wavefield_dir", "a disk too small", tiny)
    else:
        print("  (mount failed: the read-only and small-disk cases are skipped)", flush=True)
    rc, text = run_limited(base + ["-wavefield_storage", "disk", "-wavefield_dir", wd, "-gradient_method", "full"], scr.sub("bad6"), 65536)
    msg = c.error_message(text)
    c.check(rc != 0 and "File too large" in msg and wd in msg, f"a file-size limit: expected 'File too large' naming {wd}, got exit {rc}: {msg or text[-600:]}")
    empty(wd, "a file-size limit")
    print(f"  a file-size limit: refused ({msg.splitlines()[0][:140]})", flush=True)
    refused(scr, base + ["-gradient_method", "checkpoint", "-wavefield_compression", "int8"], scr.sub("bad7"), "checkpoint", "compression with checkpointing")


def interrupted(scr, wd):
    # long enough shots (about 0.3 s each) to look at the run between them
    args = ["-physics", "acoustic", "-dx", "10", "-nx", "200", "-nz", "150", "-nt", "600", "-nshots", "4", "-nrec", "6", "-dt", "0.001", "-f0", "20", "-pml_width", "8"]
    obs = scr.sub("obs_long")
    c.run(1, ["-mode", "forward"] + MODELS["acoustic"][0] + args, obs)
    base = ["-mode", "gradient", "-observed_dir", obs] + MODELS["acoustic"][1] + args
    seen = {}

    def kill(p):
        seen["fds"] = [os.readlink(f"/proc/{p.pid}/fd/{f}") for f in os.listdir(f"/proc/{p.pid}/fd")]
        os.killpg(p.pid, signal.SIGKILL)

    rc, text, acted = c.run_acting(1, base + ["-wavefield_storage", "disk", "-wavefield_dir", wd, "-gradient_method", "full"], scr.sub("killed"), "shot 0 (group 0)", kill)
    c.check(acted and rc != 0, f"the run was not killed part way (exit {rc})")
    mine = [f for f in seen["fds"] if f.startswith(os.path.realpath(wd))]
    c.check(mine and all(f.endswith("(deleted)") for f in mine), f"while it ran, the store's file should be open and unnamed in {wd}: {mine}")
    empty(wd, "a killed run")
    print(f"  killed part way: its file was {mine[0]}; nothing left", flush=True)


def test():
    scr = c.Scratch("storage_tiers")
    with scr:
        wd = scr.sub("wavefield_dir")
        os.makedirs(wd)
        interrupted(scr, wd)
        bad_input(scr, wd)
        disk_equals_memory(scr, wd)
        planner(scr, wd)
        compression(scr)


if __name__ == "__main__":
    c.main(test)
