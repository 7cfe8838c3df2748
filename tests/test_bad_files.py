#!/usr/bin/env python3
"""Input files that are damaged, of the wrong kind, or hold nothing to
invert: each is refused with a clear error that names the file and the
value (or, where a run can still make sense, warned about), never read
without bound, hung on, or run to a misfit of 0 and "convergence".  A 2D
model of 30 x 20 cells, two shots.

(a) nothing to invert: observed data zero in every sample (gradient),
    -offset_min beyond every offset (gradient; in one band of two: warned),
    -fix_above below the model (invert), a -source_taper that covers every
    cell (warned), source estimation from modelled data that are zero
    (receivers on a free surface), a Ricker
    that never fires within the record (-t0 1000; refused) or hardly does
    (-dt 1e-30; warned);
(b) NaN and Inf in observed data (RSF, and SEG-Y through -observed_segy)
    and in a -wavelet file, and a -wavelet of zeros: the file, trace and
    sample are named, not the CFL;
(c) inputs that are not regular files: a FIFO as -geometry (on 2 ranks,
    which must not hang) and as -vp, /dev/zero as -vp and -geometry, an RSF
    binary (in=) that is a directory; an RSF header of more than 1 MiB and a
    geometry line of more than 4096 characters;
(d) messages: n1=2147483648 names the limit 2147483647; a SEG-Y sample
    format code 99 is reported as 99 with the valid codes; a SEG-Y sample
    interval of -1000 is named;
(e) SEG-Y models: a 3D volume with a repeated (inline, crossline) pair, one
    with a pair outside its grid, and a 2D section with a stray inline
    number are refused naming the trace; an extended textual header count
    of -1 (a variable number, ended by ((SEG: EndText)), in EBCDIC) is read
    as the standard means (the model's gathers equal the RSF model's bit for
    bit), and refused clearly when no EndText stanza ends them."""
import os
import shutil
import struct

import numpy as np
import segyio

import common as c
from test_segy import write_segy

DX, NZ, NX = 10.0, 20, 30
TIMEOUT = 60
FAILURES = []  # every case runs; the test fails at the end listing those that failed
GRID = ["-nz", NZ, "-nx", NX, "-dx", DX]
TIME = ["-nt", 150, "-dt", 0.001, "-pml_width", 6, "-progress_interval", 0]
ACQ = TIME + ["-nshots", 2, "-nrec", 10]  # a regular survey, for runs without -geometry


def case(what, fn):
    """Runs fn(); a failure is recorded and the next case runs."""
    try:
        fn()
    except c.TestFailure as e:
        print(f"  FAILED {what}: {e}", flush=True)
        FAILURES.append(f"{what}: {e}")


def refused(nranks, args, outdir, what, needles):
    def check():
        out = c.run(nranks, args, outdir, expect_fail=True, timeout=TIMEOUT)
        msg = c.error_message(out)
        for n in needles:
            c.check(n.lower() in msg.lower(), f"the error does not name {n!r}: {msg!r}")
        print(f"  {what}: refused: {msg.splitlines()[-1] if msg else ''}", flush=True)
    case(what, check)


def warned(nranks, args, outdir, what, needles):
    def check():
        out = c.run(nranks, args, outdir, timeout=TIMEOUT)
        lines = [l for l in out.splitlines() if l.startswith("WARNING")]
        c.check(any(all(n.lower() in l.lower() for n in needles) for l in lines), f"no warning naming {needles}: {lines}")
        print(f"  {what}: warned", flush=True)
    case(what, check)


def patch(path, offset, fmt, value):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(struct.pack(fmt, value))


def with_extended_headers(src, dst, end_text):
    """src with two extended textual headers after its binary header and a
    count of -1 (bytes 3505-3506); the second ends them with ((SEG: EndText))
    in EBCDIC when end_text."""
    with open(src, "rb") as f:
        raw = f.read()
    first = "C 1 an extended textual header".ljust(3200).encode("cp037")
    last = ("((SEG: EndText))" if end_text else "C 2 more text").ljust(3200).encode("cp037")
    with open(dst, "wb") as f:
        f.write(raw[:3504] + struct.pack(">h", -1) + raw[3506:3600] + first + last + raw[3600:])
    return dst


def nothing_to_invert(scr, model, obs):
    grad = ["-mode", "gradient", "-vp", model, "-dx", DX] + ACQ
    zeros = scr.sub("zeros")
    os.makedirs(zeros)
    for s in range(2):
        c.write_rsf(c.gather_path(zeros, s), np.zeros_like(c.read_gather(obs, s)), d=[0.001, 1.0])
    refused(1, grad + ["-observed_dir", zeros], scr.sub("a1"), "(a) observed data all zero", [zeros, "zero"])
    refused(2, grad + ["-observed_dir", obs, "-offset_min", 1e6], scr.sub("a2"), "(a) -offset_min beyond every offset",
            ["-offset_min", "1e+06", "keeps none"])
    inv = ["-mode", "invert", "-vp", model, "-dx", DX, "-observed_dir", obs, "-tao_max_it", 1] + ACQ
    warned(1, inv + ["-bands", "8,20", "-offset_min", "1e6,0"], scr.sub("a2b"), "(a) a band whose -offset_min is beyond every offset",
           ["band 1", "-offset_min 1e+06", "keeps none"])
    refused(1, inv + ["-fix_above", 500], scr.sub("a3"), "(a) -fix_above below the model", ["-fix_above 500", "190"])
    warned(1, inv + ["-source_taper", 1e5], scr.sub("a4"), "(a) -source_taper over every cell", ["-source_taper 100000"])
    refused(1, inv + ["-pml_top", 0, "-receiver_depth", 0, "-source_estimation", "survey"], scr.sub("a4b"),
            "(a) source estimation from receivers on a free surface", ["source estimation", "zero at every selected trace"])
    fwd = ["-vp", 2000] + GRID + ACQ
    refused(1, fwd + ["-t0", 1000], scr.sub("a5"), "(a) -t0 1000 beyond the record", ["-t0 1000", "zero at every sample"])
    warned(1, [a if a != 0.001 else 1e-30 for a in fwd], scr.sub("a6"), "(a) -dt 1e-30", ["-dt 1e-30", "hardly fires"])


def not_finite(scr, model, obs):
    grad = ["-mode", "gradient", "-vp", model, "-dx", DX] + ACQ
    bad = scr.sub("obs_nan")
    shutil.copytree(obs, bad)
    g = c.read_gather(bad, 1)
    g[3, 17] = np.nan
    c.write_rsf(c.gather_path(bad, 1), g, d=[0.001, 1.0])
    refused(1, grad + ["-observed_dir", bad], scr.sub("b1"), "(b) NaN in RSF observed data",
            [c.gather_path(bad, 1), "sample 17 of trace 3", "NaN"])
    sgy = scr.sub("obs_sgy")
    c.run(1, ["-vp", model, "-dx", DX] + ACQ + ["-output_format", "segy"], sgy, timeout=TIMEOUT)
    path = os.path.join(sgy, "shot_0001.sgy")
    with segyio.open(path, "r+", ignore_geometry=True) as f:
        t = f.trace[2].copy()
        t[4] = np.inf
        f.trace[2] = t
    refused(2, ["-mode", "gradient", "-vp", model, "-dx", DX, "-observed_segy", sgy, "-progress_interval", 0, "-pml_width", 6],
            scr.sub("b2"), "(b) Inf in SEG-Y observed data", [path, "sample 5 of trace 3", "Inf"])
    w = c.ricker(np.arange(150) * 0.001, 10.0).astype(np.float32)
    w[40] = np.nan
    wav = c.write_rsf(scr.sub("w_nan.rsf"), w, d=[0.001])
    refused(1, ["-vp", 2000] + GRID + ACQ + ["-wavelet", wav], scr.sub("b3"), "(b) NaN in a -wavelet file",
            [wav, "sample 40", "NaN"])
    wav0 = c.write_rsf(scr.sub("w_zero.rsf"), np.zeros(150, np.float32), d=[0.001])
    refused(1, ["-vp", 2000] + GRID + ACQ + ["-wavelet", wav0], scr.sub("b4"), "(b) a -wavelet of zeros", [wav0, "zero"])


def not_regular(scr, model):
    fifo = scr.sub("fifo")
    os.mkfifo(fifo)
    fwd = ["-vp", 2000] + GRID + TIME  # with -geometry
    refused(2, fwd + ["-geometry", fifo], scr.sub("c1"), "(c) a FIFO as -geometry", [fifo, "FIFO"])
    refused(1, ["-vp", fifo, "-dx", DX] + ACQ, scr.sub("c2"), "(c) a FIFO as -vp", [fifo, "FIFO"])
    refused(1, ["-vp", "/dev/zero", "-dx", DX] + ACQ, scr.sub("c3"), "(c) /dev/zero as -vp", ["/dev/zero", "device"])
    refused(1, fwd + ["-geometry", "/dev/zero"], scr.sub("c4"), "(c) /dev/zero as -geometry", ["/dev/zero", "device"])
    folder = scr.sub("in_dir.rsf")
    with open(folder, "w") as f:
        f.write(f"n1={NZ} n2={NX} d1={DX} d2={DX}\nin=\"{scr.sub('a_folder')}\"\n")
    os.makedirs(scr.sub("a_folder"))
    refused(1, ["-vp", folder] + ACQ, scr.sub("c5"), "(c) in= a directory", [scr.sub("a_folder"), "directory"])
    big = scr.sub("big.rsf")
    with open(big, "w") as f:
        f.write(f"n1={NZ} n2={NX} d1={DX} d2={DX} in=\"{os.path.basename(model)}@\"\n" + "x" * (2 << 20))
    refused(1, ["-vp", big] + ACQ, scr.sub("c6"), "(c) a 2 MiB RSF header", [big, "1048576 bytes"])
    geo = scr.sub("long.txt")
    with open(geo, "w") as f:
        f.write("S 100 20\nR " + " " * 5000 + "150 20\n")
    refused(1, fwd + ["-geometry", geo], scr.sub("c7"), "(c) a geometry line of 5009 characters", [geo, "line 2", "4096"])


def messages(scr, model):
    huge = scr.sub("huge.rsf")
    with open(huge, "w") as f:
        f.write(f"n1=2147483648 n2={NX} d1={DX} d2={DX} in=\"{os.path.basename(model)}@\"\n")
    refused(1, ["-vp", huge] + ACQ, scr.sub("d1"), "(d) n1=2147483648", [huge, "n1=2147483648", "2147483647"])
    T = segyio.TraceField
    hs = [{T.FieldRecord: 1, T.SourceX: 100, T.GroupX: 50 + 10 * k, T.SourceDepth: 20, T.ReceiverGroupElevation: -20}
          for k in range(4)]
    good = write_segy(scr.sub("survey.sgy"), np.zeros((4, 150)), hs, 1000)
    fmt99 = scr.sub("format99.sgy")
    shutil.copy(good, fmt99)
    patch(fmt99, 3224, ">h", 99)
    fwd = ["-vp", 2000] + GRID + ["-progress_interval", 0, "-pml_width", 6]
    refused(1, fwd + ["-geometry", fmt99], scr.sub("d2"), "(d) SEG-Y format code 99", [fmt99, "format code 99", "1 (IBM", "5 (IEEE"])
    neg = scr.sub("interval.sgy")
    shutil.copy(good, neg)
    patch(neg, 3216, ">h", -1000)
    for k in range(4):
        patch(neg, 3600 + k * (240 + 4 * 150) + 116, ">h", -1000)
    refused(1, fwd + ["-geometry", neg], scr.sub("d3"), "(d) SEG-Y sample interval -1000", [neg, "-1000"])


def segy_models(scr):
    T = segyio.TraceField
    ny, nx, nz = 3, 4, 8
    vol = np.full((ny * nx, nz), 2000.0, np.float32)
    pairs = [(11 + iy, 21 + ix) for iy in range(ny) for ix in range(nx)]
    run3 = ["-dx", DX, "-dy", DX, "-nt", 50, "-dt", 0.001, "-progress_interval", 0, "-pml_width", 4]

    def volume(name, pairs):
        return write_segy(scr.sub(name), vol, [{T.INLINE_3D: il, T.CROSSLINE_3D: xl} for il, xl in pairs], int(DX * 1000))

    twice = pairs.copy()
    twice[6] = twice[5]
    path = volume("pair_twice.sgy", twice)
    refused(1, ["-vp", path] + run3, scr.sub("e1"), "(e) a repeated (inline, crossline) pair", [path, "trace 7", "inline 12", "crossline 22"])
    outside = pairs.copy()
    outside[6] = (12, 99)
    path = volume("pair_outside.sgy", outside)
    refused(1, ["-vp", path] + run3, scr.sub("e2"), "(e) a pair outside the grid", [path, "trace 7", "crossline 99"])
    sec = np.full((NX, NZ), 2000.0, np.float32)
    hs = [{T.INLINE_3D: 1, T.CROSSLINE_3D: i + 1} for i in range(NX)]
    hs[12][T.INLINE_3D] = 7
    path = write_segy(scr.sub("stray_inline.sgy"), sec, hs, int(DX * 1000))
    refused(1, ["-vp", path, "-dx", DX] + ACQ, scr.sub("e3"), "(e) a stray inline number", [path, "trace 13", "inline 7"])

    vp = c.smooth_random_model((NX, NZ), seed=3)
    rsf = c.write_model(scr.sub("section.rsf"), vp, DX)
    plain = write_segy(scr.sub("section.sgy"), vp, [{T.INLINE_3D: 1, T.CROSSLINE_3D: i + 1} for i in range(NX)], int(DX * 1000))
    ext = with_extended_headers(plain, scr.sub("section_ext.sgy"), True)
    def same_gathers():
        c.run(1, ["-vp", rsf] + ACQ, scr.sub("e_rsf"), timeout=TIMEOUT)
        c.run(1, ["-vp", ext, "-dx", DX] + ACQ, scr.sub("e_ext"), timeout=TIMEOUT)
        c.compare_bitwise(scr.sub("e_rsf"), scr.sub("e_ext"), 2, "(e) a SEG-Y model with extended textual headers (count -1)")
    case("(e) extended textual headers, count -1", same_gathers)
    noend = with_extended_headers(plain, scr.sub("section_noend.sgy"), False)
    refused(1, ["-vp", noend, "-dx", DX] + ACQ, scr.sub("e4"), "(e) extended headers without ((SEG: EndText))", [noend, "EndText"])


def main():
    scr = c.Scratch("bad_files")
    with scr:
        vp = c.smooth_random_model((NX, NZ), seed=1, vmin=1800.0, vmax=2600.0)
        model = c.write_model(scr.sub("model.rsf"), vp, DX)
        obs = scr.sub("obs")
        c.run(1, ["-vp", model] + ACQ, obs, timeout=TIMEOUT)
        start = c.write_model(scr.sub("start.rsf"), np.full((NX, NZ), 2200.0, np.float32), DX)
        nothing_to_invert(scr, start, obs)
        not_finite(scr, start, obs)
        not_regular(scr, model)
        messages(scr, model)
        segy_models(scr)
        c.check(not FAILURES, f"{len(FAILURES)} cases failed:\n" + "\n".join(FAILURES))


if __name__ == "__main__":
    c.main(main)
