#!/usr/bin/env python3
"""Bad input: each case must exit non-zero, print a message that names the
offending value (checked case-insensitively on a characteristic substring or
number), and leave no shot gather (shot_*) in the output directory; PETSc's
list of the options it had not read ("Option left: ...") must not follow.  Also:
no hang (every run has a timeout) and existing results are left untouched
without -overwrite.

Every error prints a short report (its message, once: no PETSc report with
a traceback, no MPI_ABORT banner), except under -error_trace.

Cases: a model whose binary does not match its header; a negative, a NaN and
a 1e-30 m/s velocity in a model file, and -vp 1e-30; a source and a receiver
outside the model; a malformed geometry line (1 and 2 ranks) and 0x64 as a
coordinate; a world size that is not a multiple of -shot_groups; process
grids that do not fit the group or name an axis a 2D model lacks;
subdomains thinner than the halo (also on a free surface); -order 7 and 18;
-backend cuda with no GPU visible, a halo type that does not go with the
backend, an unknown one; a missing -vp file; an output directory that cannot
be created; existing output without -overwrite; a blow-up; a -wavelet
sampled at another interval.  Options: a typo (-nshot, with -nshots
suggested; nothing created), -tao_max_iter in -mode invert (-tao_max_it
suggested), a TAO option in -mode forward; -nt 3000000000 (beyond PetscInt);
-nshots 100000 -nrec 100000 (10^10 receivers); one shot of 100000
receivers x 30000 samples; a grid of 10^13 cells; a negative -t0.

Options as typed, refused before PETSc starts (one line, no PETSc error
report, nothing created): an options file that includes itself (PETSc
crashed), two that include each other, nesting 10 deep, a binary options
file, a FIFO as options file; a stray word (nt 50), -mode and -nt given
twice on the command line, -f0 twice in one options file, two values on one
line of a file, -f0 twice in PETSC_OPTIONS; with -unused_options warn, -nt twice runs with the later
value and a warning.  The command line overriding a file runs.  Options without
effect, refused with their reason: -dx and -nx beside an RSF model that
says otherwise (restating it runs), -nshots -nrec -source_depth beside
-geometry, -dy in 2D, a third -gradient_smoothing value in 2D, -restart and -qc_shots in
-mode forward; with
-unused_options warn a warning.  Values named with their option: -bands
abc, -gradient_smoothing with 4 values, -progress_interval -1, -nx 1, a
-vp path of 4266 characters, -tao_max_it -1.  Under ulimit -v 3 GB: a grid
of about 4 GB refused by the memory check naming the limit; with the check
lifted, the failing allocation (the model as read) named with its size.  The same grid in a cgroup
limited to 3 GB, where the test can make one (root; skipped otherwise).

-mode gradient/invert: a missing or mis-sized observed gather
(named by its shot), -vp_min above -vp_max, a starting model outside the
bounds, -wavefield_memory too small, no -observed_dir; no gradient.rsf,
vp*.rsf or misfit.csv left behind.

Runs that must go ahead, with a warning: -unused_options warn with a typo
(the gather is written), -dt above the Nyquist interval of -f0, more shot
groups than shots."""
import os
import re
import resource
import subprocess
import time

import numpy as np

import common as c

DX = 10.0
SMALL = ["-mode", "forward", "-vp", 2000, "-nx", 30, "-nz", 20, "-dx", DX, "-nt", 20, "-f0", 10]
MAX_LINES = 2  # a user error's report: its message once (a line, or two where it quotes a file)
TIMEOUT = 120  # per run: a hang (e.g. one rank erroring alone) must not stall the suite

failures = []


def numbers(text):
    return [float(m) for m in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)", text,
                                          flags=re.I)
            if m.lower().lstrip("+-") not in ("nan", "inf")]


def names_number(text, value, rel=1e-5):
    return any(abs(x - value) <= rel * max(abs(value), 1e-30) for x in numbers(text))


def shot_files(outdir):
    if not os.path.isdir(outdir):
        return []
    return sorted(f for f in os.listdir(outdir) if "shot" in f.lower())


def error_report(out):
    """What a run printed from its first error line on: the lines before it
    are the run's account of its set-up and its warnings."""
    lines = c.program_lines(out)
    first = next((k for k, line in enumerate(lines) if re.search(r"error|petsc", line, re.I)), len(lines))
    return lines[first:]


def case(name, nranks, args, outdir, expect, no_output=True):
    """expect: list of (description, predicate(message_lowercase, message)),
    applied to the PETSc error message only (not the traceback, version or
    configure lines, whose numbers would match anything)."""
    print(f"--- {name}", flush=True)
    try:
        out = c.run(nranks, args, outdir, expect_fail=True, timeout=TIMEOUT)
    except c.TestFailure as e:
        failures.append(f"{name}: {e}")
        return None
    msg = c.error_message(out)
    print("    message: " + msg.replace("\n", "\n             "), flush=True)
    if not msg:
        failures.append(f"{name}: no PETSc error message in the output")
        print(out)
        return out
    low = msg.lower()
    missing = [d for d, pred in expect if not pred(low, msg)]
    if missing:
        failures.append(f"{name}: the message does not name {', '.join(missing)}; it says:\n      "
                        + msg.replace("\n", "\n      "))
    report = error_report(out)
    if "PETSC ERROR" in out or "MPI_ABORT" in out or len(report) > MAX_LINES:
        failures.append(f"{name}: an error report of {len(report)} lines, not a short message (at most {MAX_LINES}, no "
                        "PETSc report or MPI_ABORT banner):\n      " + out.replace("\n", "\n      "))
    if "Option left" in out:  # PETSc's list of options not yet read: noise after an error in another
        failures.append(f"{name}: PETSc's 'Option left' list follows the error:\n      " + out.replace("\n", "\n      "))
    if no_output:
        left = shot_files(outdir)
        if left:
            failures.append(f"{name}: output left in {outdir}: {left}")
    print(f"    ok: {name}" if not missing else f"    FAILED: {name}", flush=True)
    return out


def warn_case(name, nranks, args, outdir, expect):
    """A run that must succeed and print each string of expect (a warning)."""
    print(f"--- {name}", flush=True)
    try:
        out = c.run(nranks, args, outdir, timeout=TIMEOUT)
    except c.TestFailure as e:
        failures.append(f"{name}: {e}")
        return None
    missing = [w for w in expect if w not in out]
    if missing:
        failures.append(f"{name}: the output lacks {missing}; it says:\n      " + out.replace("\n", "\n      "))
    print(f"    ok: {name}" if not missing else f"    FAILED: {name}", flush=True)
    return out


def startup_case(name, args, outdir, expect, petsc_options=None):
    """An option source refused before PETSc starts (src/options/optfile.c): a non-zero
    exit that is not a crash, each text of expect in the output, no PETSc
    error report, and nothing created.  petsc_options: PETSC_OPTIONS for the
    run (common.run_status clears it)."""
    print(f"--- {name}", flush=True)
    try:
        if petsc_options is None:
            status, out = c.run_status(1, args, outdir, timeout=TIMEOUT)
        else:
            p = subprocess.run(c.command(1, args, outdir), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT,
                               env=dict(os.environ, PETSC_OPTIONS=petsc_options))
            status, out = p.returncode, p.stdout.decode(errors="replace")
    except (c.TestFailure, subprocess.TimeoutExpired) as e:
        failures.append(f"{name}: {e}")
        return
    problems = [f"exit status {status}"] if status == 0 or status >= 128 else []
    problems += [f"no '{e}'" for e in expect if e.lower() not in out.lower()]
    problems += ["a PETSc error report"] if "PETSC ERROR" in out else []
    problems += [f"{outdir} created"] if os.path.exists(outdir) else []
    if problems:
        failures.append(f"{name}: {', '.join(problems)}; the output:\n      " + out.replace("\n", "\n      "))
    print(f"    output: {out.strip()}\n    " + ("FAILED: " if problems else "ok: ") + name, flush=True)


def memory_case(name, args, outdir, limit, expect, refused=True):
    """A run under a memory limit (limit: run in the child before the
    program) that must fail, each text of expect in its PETSc message;
    refused: by the memory check, not in an allocation (PETSc's bare "Out of
    memory", a signal such as the cgroup's OOM kill)."""
    print(f"--- {name}", flush=True)
    p = subprocess.run(c.command(1, args, outdir), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=limit,
                       timeout=TIMEOUT, env=dict(os.environ, OMP_NUM_THREADS="1"))
    out = p.stdout.decode(errors="replace")
    msg = c.error_message(out)
    problems = [f"exit status {p.returncode}"] if p.returncode == 0 or p.returncode >= 128 else []
    problems += [f"no '{e}'" for e in expect if e.lower() not in msg.lower()]
    problems += ["a failed allocation"] if refused and re.search(r"DMSetUp|Out of memory|signal", out) else []
    if problems:
        failures.append(f"{name}: {', '.join(problems)}; the output:\n      " + out.replace("\n", "\n      "))
    print(f"    message: {msg}\n    " + ("FAILED: " if problems else "ok: ") + name, flush=True)


def address_space(size):
    """ulimit -v size, for memory_case."""
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (size, size))


def memory_cgroup(size):
    """A new cgroup whose memory limit is size (v1 memory.limit_in_bytes or
    v2 memory.max), or None where none can be made (not root, read-only)."""
    for root, limit_file in (("/sys/fs/cgroup/memory", "memory.limit_in_bytes"), ("/sys/fs/cgroup", "memory.max")):
        path = os.path.join(root, f"halofwi-test-{os.getpid()}")
        try:
            os.mkdir(path)
        except OSError:
            continue
        try:
            with open(os.path.join(path, limit_file), "w") as f:
                f.write(str(size))
            return path
        except OSError:
            os.rmdir(path)
    return None


def with_opt(args, opt, value):
    """args with the value of opt replaced (an option given twice is refused)."""
    args = list(args)
    args[args.index(opt) + 1] = value
    return args


def has(s):
    return (f"'{s}'", lambda low, out: s.lower() in low)


def num(v):
    return (f"the value {v!r}", lambda low, out: names_number(out, v))


def main():
    scr = c.Scratch("bad_input")
    with scr:
        geo_ok = c.write_geometry(scr.sub("ok.txt"), [((DX * 10, DX * 5), [(DX * 20, DX * 2)])])

        # model binary shorter than its header says
        nz, nx = 20, 30
        good = np.full((nx, nz), 2000.0, np.float32)
        p = c.write_model(scr.sub("badsize.rsf"), good, DX)
        good[:-1].tofile(p + "@")  # one trace (20 floats) missing: 2320 bytes instead of 2400
        case("model size does not match its header", 1, ["-mode", "forward", "-vp", p, "-nt", 20],
             scr.sub("o_badsize"), [has("badsize.rsf"), ("the size (2320 or 2400 bytes, or 580 or 600 floats)",
                                    lambda low, out: any(names_number(out, v) for v in (2320, 2400, 580, 600)))])

        # non-positive velocity
        v = good.copy()
        v[17, 11] = -1500.0
        p = c.write_model(scr.sub("negative.rsf"), v, DX)
        case("non-positive velocity", 1, ["-mode", "forward", "-vp", p, "-nt", 20],
             scr.sub("o_negative"), [num(-1500.0)])

        # a velocity far below 1 m/s (a unit mistake), named with its sample
        v = good.copy()
        v[17, 11] = 1e-30
        p = c.write_model(scr.sub("tiny.rsf"), v, DX)
        case("1e-30 m/s in a model file", 1, ["-mode", "forward", "-vp", p, "-nt", 20],
             scr.sub("o_tiny"), [num(1e-30), has("iz=11 ix=17"), has("at least 1 m/s")])
        case("-vp 1e-30", 1, SMALL[:2] + ["-vp", "1e-30"] + SMALL[4:], scr.sub("o_tiny_vp"),
             [has("-vp 1e-30"), has("at least 1 m/s")])

        # NaN velocity
        v = good.copy()
        v[5, 7] = np.nan
        p = c.write_model(scr.sub("nanvel.rsf"), v, DX)
        case("NaN velocity", 1, ["-mode", "forward", "-vp", p, "-nt", 20], scr.sub("o_nan"), [has("nan")])

        # source outside the model: shot 1, line 5
        g = scr.sub("src_out.txt")
        with open(g, "w") as f:
            f.write("# two shots\n"                # line 1
                    "S 100 50\n"                   # line 2
                    "R 150 20\n"                   # line 3
                    "\n"                           # line 4
                    "S 987.5 50\n"                 # line 5: x beyond (30-1)*10 = 290 m
                    "R 150 20\n")                  # line 6
        case("source outside the model", 1, SMALL + ["-geometry", g], scr.sub("o_src"),
             [has("line 5"), ("shot 1", lambda low, out: re.search(r"shot\s*#?\s*1\b", low) is not None),
              num(987.5)])

        # -error_trace: the same error with PETSc's full report and its traceback
        status, out = c.run_status(2, SMALL + ["-geometry", g, "-error_trace"], scr.sub("o_src_trace"), timeout=TIMEOUT)
        if status == 0 or not re.search(r"PETSC ERROR: #\d+ \w+\(\) at .*geometry\.c", out) or "line 5" not in out:
            failures.append("-error_trace: no PETSc report naming geometry.c in its traceback:\n      "
                            + out.replace("\n", "\n      "))

        # receiver outside the model: line 4, depth below the bottom
        g = scr.sub("rec_out.txt")
        with open(g, "w") as f:
            f.write("S 100 50\n"
                    "R 150 20\n"
                    "R 160 20   # fine\n"
                    "R 170 512.25\n"               # line 4: z beyond (20-1)*10 = 190 m
                    "R 180 20\n")
        case("receiver outside the model", 1, SMALL + ["-geometry", g], scr.sub("o_rec"),
             [has("line 4"), num(512.25)])

        # malformed geometry line
        g = scr.sub("malformed.txt")
        with open(g, "w") as f:
            f.write("S 100 50\n"
                    "R 150 20\n"
                    "R 160 abc\n"                  # line 3
                    "R 170 20\n")
        case("malformed geometry line", 1, SMALL + ["-geometry", g], scr.sub("o_malformed"),
             [has("line 3"), has("malformed.txt")])

        # hexadecimal is not a coordinate
        g_hex = scr.sub("hex.txt")
        with open(g_hex, "w") as f:
            f.write("S 100 50\n"
                    "R 0x64 20\n")                # line 2
        case("0x64 in a geometry file", 1, SMALL + ["-geometry", g_hex], scr.sub("o_hex"),
             [has("line 2"), has("'0x64' is not a finite decimal number")])

        # the same on 2 ranks: an error found on rank 0 must not hang the others
        case("malformed geometry line, 2 ranks", 2, SMALL + ["-geometry", g, "-da_processors_x", 2],
             scr.sub("o_malformed2"), [has("line 3")])

        # world size not a multiple of -shot_groups
        case("3 ranks, -shot_groups 2", 3, SMALL + ["-geometry", geo_ok, "-shot_groups", 2], scr.sub("o_groups"),
             [("shot_groups / shot groups", lambda low, out: re.search(r"shot.groups", low) is not None),
              num(3), num(2)])

        # a process grid that does not fit the shot group, or names an axis a 2D model lacks
        case("-da_processors_x 3 on 4 ranks", 4, SMALL + ["-geometry", geo_ok, "-da_processors_x", 3], scr.sub("o_grid"),
             [num(3), num(4)])
        case("-da_processors_x 2 -da_processors_z 1 on 4 ranks", 4,
             SMALL + ["-geometry", geo_ok, "-da_processors_x", 2, "-da_processors_z", 1], scr.sub("o_grid2"),
             [num(2), num(4)])
        case("-da_processors_y in 2D", 2, SMALL + ["-geometry", geo_ok, "-da_processors_y", 2], scr.sub("o_grid_y"),
             [("da_processors_y", lambda low, out: "da_processors_y" in low)])

        # a subdomain on a free surface must own the cells its ghosts mirror: 8 cells
        # over 2 ranks = 4, not more than the 4 halo cells of order 8
        case("free-surface subdomain thinner than halo + 1", 2,
             ["-mode", "forward", "-vp", 2000, "-nx", 30, "-nz", 8, "-dx", DX, "-nt", 20, "-order", 8,
              "-pml_top", 0, "-pml_bottom", 0, "-da_processors_z", 2, "-da_processors_x", 1,
              "-geometry", geo_ok], scr.sub("o_thin_fs"),
             [num(4), num(5), ("free surface", lambda low, out: "free surface" in low)])

        # subdomain thinner than the halo: 12 cells over 4 ranks = 3 < 4 (order 8)
        case("subdomain thinner than the halo", 4,
             ["-mode", "forward", "-vp", 2000, "-nx", 30, "-nz", 12, "-dx", DX, "-nt", 20, "-order", 8,
              "-pml_top", 0, "-pml_bottom", 0, "-da_processors_z", 4, "-da_processors_x", 1,
              "-geometry", geo_ok], scr.sub("o_thin"),
             [num(3), num(4)])

        # unsupported order
        case("-order 7", 1, SMALL + ["-order", 7], scr.sub("o_order"), [has("order"), num(7), has("even")])
        case("-order 18", 1, SMALL + ["-order", 18], scr.sub("o_order18"), [has("order"), num(18), num(16)])

        # options nothing reads: refused before any work (not even the output folder), with the
        # closest option named; on 2 ranks, so that no rank is left waiting
        typo_dir = scr.sub("o_typo")
        case("typo -nshot", 2, SMALL + ["-nshot", 5], typo_dir, [has("-nshot 5"), has("did you mean -nshots?")])
        if os.path.exists(typo_dir):
            failures.append(f"typo -nshot: {typo_dir} was created, so work began before the options were checked")
        case("-tao_max_it in -mode forward", 1, SMALL + ["-geometry", geo_ok, "-tao_max_it", 5], scr.sub("o_tao_fwd"),
             [has("-tao_max_it 5"), has("only -mode invert reads TAO options")])
        out = warn_case("typo with -unused_options warn", 1, SMALL + ["-geometry", geo_ok, "-nshot", 5, "-unused_options", "warn"],
                        scr.sub("o_typo_warn"), ["WARNING", "-nshot 5 (did you mean -nshots?)", "-unused_options warn"])
        if out is not None and not os.path.isfile(c.gather_path(scr.sub("o_typo_warn"), 0)):
            failures.append("typo with -unused_options warn: no shot_0000.rsf, so the run did not go ahead")

        # numbers beyond PetscInt (32-bit here) are refused, not wrapped round
        case("-nt 3000000000", 1, with_opt(SMALL, "-nt", 3000000000), scr.sub("o_nt_big"),
             [has("-nt 3000000000"), has("from 1 to 2147483647")])
        case("-nshots 100000 -nrec 100000", 1, SMALL + ["-nshots", 100000, "-nrec", 100000], scr.sub("o_survey_big"),
             [num(100000), num(10000000000), has("-nrec")])
        case("a gather of 100000 receivers x 30000 samples", 1, with_opt(SMALL, "-nt", 30000) + ["-nrec", 100000], scr.sub("o_gather_big"),
             [num(100000), num(30000), num(3000000000)])
        case("grid of 10^13 cells", 1, ["-mode", "forward", "-vp", 2000, "-nx", 100000, "-nz", 100000, "-ny", 1000, "-nt", 20],
             scr.sub("o_grid_big"), [num(100040), num(1040), has("32-bit"), has("absorbing layers included")])

        # an explicit negative delay is refused, not replaced by the default
        case("negative -t0", 1, SMALL + ["-geometry", geo_ok, "-t0", -0.1], scr.sub("o_t0"),
             [has("-t0 -0.1"), has("1.5/f0 = 0.15 s")])

        # runs that go ahead with a warning: -dt 0.03 s resolves 16.7 Hz, below 2.5 x 10 Hz
        warn_case("-dt above the Nyquist interval of -f0", 1, SMALL[:-4] + ["-nt", 20, "-dt", 0.03, "-f0", 10, "-geometry", geo_ok],
                  scr.sub("o_nyquist"), ["WARNING: -dt 0.03 s", "2.5 x -f0 10 Hz = 25 Hz"])
        warn_case("more shot groups than shots", 2, SMALL + ["-geometry", geo_ok, "-shot_groups", 2], scr.sub("o_idle"),
                  ["WARNING: 2 shot groups for 1 shots", "sit idle"])
        # every GPU hidden, so that the case holds on GPU machines too
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
        case("-backend cuda without a GPU", 1, SMALL + ["-geometry", geo_ok, "-backend", "cuda"], scr.sub("o_nogpu"),
             [has("-backend cuda"), has("no CUDA device"), has("-backend cpu")])
        del os.environ["CUDA_VISIBLE_DEVICES"]
        case("-halo_type nccl on the CPU", 1, SMALL + ["-geometry", geo_ok, "-backend", "cpu", "-halo_type", "nccl"],
             scr.sub("o_halo_cpu"), [has("-halo_type nccl"), has("-backend cpu")])
        case("unknown -halo_type", 1, SMALL + ["-geometry", geo_ok, "-halo_type", "pigeon"], scr.sub("o_halo_bad"),
             [has("pigeon"), has("halo_type")])
        case("-gpu_tile with one value", 1, SMALL + ["-geometry", geo_ok, "-gpu_tile", "8"], scr.sub("o_tile_one"),
             [has("-gpu_tile"), has("1 value given, expected 2")])
        case("-gpu_tile rows out of range", 1, SMALL + ["-geometry", geo_ok, "-gpu_tile", "17,16"], scr.sub("o_tile_rows"),
             [has("-gpu_tile 17,16"), has("ROWS from 1 to 16")])
        case("-gpu_tile run of 0", 1, SMALL + ["-geometry", geo_ok, "-gpu_tile", "8,0"], scr.sub("o_tile_run"),
             [has("-gpu_tile 8,0"), has("RUN of 1 cell or more")])

        # options files: one that includes itself, two that include each other, nesting deeper than 8,
        # a binary one; refused before PETSc reads them (PETSc itself recursed until it crashed)
        def opts_file(name, text):
            with open(scr.sub(name), "wb" if isinstance(text, bytes) else "w") as f:
                f.write(text)
            return scr.sub(name)
        loop = opts_file("loop.opts", f"-nt 20\n-options_file {scr.sub('loop.opts')}\n")
        startup_case("an options file that includes itself", SMALL + ["-options_file", loop], scr.sub("o_loop"),
                     ["include each other without end", f"({loop} -> {loop})"])
        a, b = scr.sub("a.opts"), scr.sub("b.opts")
        opts_file("a.opts", f"-options_file {b}\n")
        opts_file("b.opts", f"# back to the first\n-options_file {a}\n")
        startup_case("options files that include each other", SMALL + ["-options_file", a], scr.sub("o_loop2"),
                     [f"({a} -> {b} -> {a})"])
        for k in range(10):
            opts_file(f"deep{k}.opts", f"-options_file {scr.sub(f'deep{k + 1}.opts')}\n" if k < 9 else "-f0 10\n")
        startup_case("options files nested 10 deep", SMALL + ["-options_file", scr.sub("deep0.opts")], scr.sub("o_deep"),
                     ["nested more than 8 deep", f"deep7.opts -> {scr.sub('deep8.opts')})"])
        binary = opts_file("binary.opts", b"-nt 20\n" + bytes(range(256)))
        startup_case("a binary options file", SMALL + ["-options_file", binary], scr.sub("o_binary"),
                     [f"{binary} is not a text options file", "byte 0x00 at offset 7 (line 2)"])
        fifo = scr.sub("fifo.opts")
        os.mkfifo(fifo)
        startup_case("a FIFO as options file", SMALL + ["-options_file", fifo], scr.sub("o_fifo"),
                     [f"-options_file {fifo}: not a regular file"])

        # the command line: a stray word, an option given twice; within an options file the same
        startup_case("stray words 'nt 50'", SMALL + ["nt", 50], scr.sub("o_stray"),
                     ["the command line: 'nt' after 10 is neither an option nor the value of one"])
        startup_case("-mode given twice", SMALL + ["-mode", "gradient"], scr.sub("o_mode2"),
                     ["the command line gives -mode twice (-mode forward, then -mode gradient)"])
        startup_case("-nt given twice", SMALL + ["-nt", 50], scr.sub("o_nt2"),
                     ["the command line gives -nt twice (-nt 20, then -nt 50)"])
        startup_case("-f0 twice in PETSC_OPTIONS", SMALL[:-2], scr.sub("o_env2"),
                     ["PETSC_OPTIONS gives -f0 twice (-f0 10, then -f0 12)"], petsc_options="-f0 10 -f0 12")
        warn_case("-nt given twice with -unused_options warn", 1, SMALL + ["-nt", 30, "-geometry", geo_ok, "-unused_options", "warn"],
                  scr.sub("o_nt2_warn"), ["WARNING: the command line gives -nt twice (-nt 20, then -nt 30)", "time: 30 samples"])
        f2 = opts_file("twice.opts", "-f0 10\n-F0 12\n")
        startup_case("-f0 twice in one options file", ["-options_file", f2] + SMALL[:-2], scr.sub("o_file2"),
                     [f"options file {f2} gives -f0 twice"])
        f3 = opts_file("stray.opts", "-nt 50 100\n")
        startup_case("two values on one options-file line", ["-options_file", f3] + SMALL[:-4], scr.sub("o_file3"),
                     [f"options file {f3} line 1: '100' follows the value 50 of -nt"])
        # the command line overrides a file (PETSc's order), without a word
        over = opts_file("override.opts", "-nt 7\n-f0 12\n")
        out = warn_case("the command line overrides an options file", 1, ["-options_file", over] + SMALL + ["-geometry", geo_ok],
                        scr.sub("o_override"), ["20 samples"])

        # options that have no effect in the run: refused as the unused ones are, named with the reason
        rsf_model = c.write_model(scr.sub("model.rsf"), np.full((30, 20), 2000.0, np.float32), DX)
        case("-dx 5 beside an RSF model of 10 m", 1, ["-vp", rsf_model, "-dx", 5, "-nt", 20], scr.sub("o_dx"),
             [has("-dx 5 (the model"), has("has a spacing of 10 m along x"), has("-unused_options warn")])
        case("-nx 40 beside an RSF model of 30", 1, ["-vp", rsf_model, "-nx", 40, "-nt", 20], scr.sub("o_nx"),
             [has("-nx 40"), has("30 cells along x")])
        warn_case("-dx 10 -nx 30 restating an RSF model", 1, ["-vp", rsf_model, "-dx", DX, "-nx", 30, "-nt", 20,
                                                              "-geometry", geo_ok], scr.sub("o_restate"), ["20 samples"])
        case("-nshots -nrec -source_depth beside -geometry", 1,
             SMALL + ["-geometry", geo_ok, "-nshots", 3, "-nrec", 7, "-source_depth", 15], scr.sub("o_regular"),
             [has("-nshots 3 (the survey comes from"), has("-nrec 7"), has("-source_depth 15")])
        case("-dy in 2D", 1, SMALL + ["-dy", 5], scr.sub("o_dy"), [has("-dy 5 (the model is 2D")])
        case("-restart -qc_shots in -mode forward", 1, SMALL + ["-restart", "-qc_shots", 0], scr.sub("o_invert_only"),
             [has("-restart (only -mode invert reads it)"), has("-qc_shots 0 (only -mode invert reads it)")])
        case("-gradient_method -wavefield_* in -mode forward", 1,
             SMALL + ["-gradient_method", "full", "-checkpoints", 3, "-wavefield_storage", "disk", "-wavefield_dir", scr.sub(), "-wavefield_compression", "int8",
                      "-wavefield_memory", 100], scr.sub("o_gradient_only"),
             [has("-gradient_method full (a forward run takes no gradient"), has("-checkpoints 3"), has("-wavefield_storage disk"), has("-wavefield_dir"),
              has("-wavefield_compression int8"), has("-wavefield_memory 100")])
        case("-gradient_smoothing with 3 values in 2D", 1, SMALL + ["-gradient_smoothing", "10,20,30"], scr.sub("o_smooth3"),
             [has("-gradient_smoothing 10,20,30"), has("third value")])
        warn_case("-dx beside an RSF model with -unused_options warn", 1,
                  ["-vp", rsf_model, "-dx", 5, "-nt", 20, "-geometry", geo_ok, "-unused_options", "warn"], scr.sub("o_dx_warn"),
                  ["WARNING: option without effect in this run: -dx 5"])

        # values read as typed, named with their option
        case("-bands abc", 1, SMALL + ["-bands", "abc"], scr.sub("o_bands"),
             [has("-bands abc: 'abc' is not a finite decimal number"), has("cut-offs in Hz")])
        case("-gradient_smoothing with 4 values", 1, SMALL + ["-gradient_smoothing", "1,2,3,4"], scr.sub("o_smooth4"),
             [has("-gradient_smoothing 1,2,3,4: 4 values"), has("z,x,y in 3D")])
        case("-progress_interval -1", 1, SMALL + ["-progress_interval", -1], scr.sub("o_progress"),
             [has("-progress_interval -1"), has("0 (no progress lines) or more seconds")])
        case("-nx 1", 1, SMALL[:4] + ["-nx", 1] + SMALL[6:], scr.sub("o_nx1"), [has("-nx 1"), has("from 2 to")])
        long_path = "/" + "a" * 4265
        case("a -vp path of 4266 characters", 1, ["-mode", "forward", "-vp", long_path, "-nt", 20], scr.sub("o_long"),
             [has("-vp /aaaa"), has("a path of 4266 characters"), has("at most 4095")])

        # a limit on the address space (ulimit -v) is the host memory limit when it is the tightest:
        # a grid of about 3.6 GB (three padded fields and the model) under 3 GB is refused before
        # any work, naming both (without the limit it passed the check and died in PETSc's DMSetUp)
        memory_case("a grid beyond ulimit -v", ["-mode", "forward", "-vp", 2000, "-nx", 15000, "-nz", 15000, "-dx", DX,
                                                "-nt", 10, "-nrec", 1], scr.sub("o_ulimit"), address_space(3 * 1024 ** 3),
                    ["not enough memory", "ulimit -v", "3.0 GB", "wavefields"])
        # with the check lifted, the allocation that fails is named with its size: the model as read
        # (1.5 GB), beside the model kept (1.5 GB), passes the limit (PETSc said only "ModelLoadBlock"; a
        # grid of one rank keeps no PETSc DMDA maps, whose DMSetUp failed here before)
        memory_case("the model beyond ulimit -v, -memory_limit lifted",
                    ["-mode", "forward", "-vp", 2000, "-nx", 20000, "-nz", 20000, "-dx", DX, "-nt", 10, "-nrec", 1,
                     "-memory_limit", 100000], scr.sub("o_ulimit_grid"), address_space(3 * 1024 ** 3),
                    ["allocating the model as read (1.5 GB on this rank) failed"], refused=False)
        # the same grid in a cgroup limited to 3 GB (where the test may make one: root, cgroup v1 or v2)
        cgroup = memory_cgroup(3 * 1024 ** 3)
        if cgroup:
            def enter():
                with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                    f.write(str(os.getpid()))
            memory_case("a grid beyond a cgroup's memory limit", ["-mode", "forward", "-vp", 2000, "-nx", 15000, "-nz", 15000,
                                                                  "-dx", DX, "-nt", 10, "-nrec", 1], scr.sub("o_cgroup"), enter,
                        ["not enough memory", "the cgroup's memory limit, 3.0 GB", "wavefields"])
            for _ in range(50):  # until the run's last process (MPI's daemon) has left it
                try:
                    os.rmdir(cgroup)
                    break
                except OSError:
                    time.sleep(0.2)
        else:
            print("--- a grid beyond a cgroup's memory limit: skipped, no cgroup can be made here", flush=True)

        # missing -vp file
        missing = scr.sub("no_such_model.rsf")
        case("missing -vp file", 1, ["-mode", "forward", "-vp", missing, "-nt", 20], scr.sub("o_missing"),
             [has("no_such_model.rsf")])

        # output directory that cannot be created (under a regular file)
        blocker = scr.sub("regular_file")
        with open(blocker, "w") as f:
            f.write("not a directory\n")
        case("unwritable output directory", 1, SMALL + ["-geometry", geo_ok], os.path.join(blocker, "sub"),
             [has("regular_file")], no_output=False)

        # existing output without -overwrite: refused, existing file untouched
        outdir = scr.sub("o_existing")
        c.run(1, SMALL + ["-geometry", geo_ok], outdir)
        before = {f: open(os.path.join(outdir, f), "rb").read() for f in os.listdir(outdir)}
        mtimes = {f: os.stat(os.path.join(outdir, f)).st_mtime_ns for f in os.listdir(outdir)}
        geo2 = c.write_geometry(scr.sub("ok2.txt"), [((DX * 12, DX * 5), [(DX * 21, DX * 3)])])
        case("existing output without -overwrite", 1, SMALL + ["-geometry", geo2], outdir,
             [("the existing file shot_0000.rsf or -overwrite",
               lambda low, out: "shot_0000.rsf" in low or "overwrite" in low)], no_output=False)
        after = sorted(os.listdir(outdir))
        if after != sorted(before):
            failures.append(f"existing output without -overwrite: directory now holds {after}, "
                            f"before {sorted(before)}")
        for f, data in before.items():
            p = os.path.join(outdir, f)
            if not os.path.exists(p) or open(p, "rb").read() != data or os.stat(p).st_mtime_ns != mtimes[f]:
                failures.append(f"existing output without -overwrite: {f} was modified or removed")
        # and -overwrite does replace it
        c.run(1, SMALL + ["-geometry", geo2, "-overwrite"], outdir)
        if open(os.path.join(outdir, "shot_0000.rsf@"), "rb").read() == before["shot_0000.rsf@"]:
            failures.append("-overwrite: shot_0000.rsf@ was not replaced")

        # blow-up: -cfl 1.5 with -dt 0.004 s = 1.44 x the limit (2.77 ms), so m = 1 and the
        # internal step is 1.44 x the limit; the message names the step
        case("blow-up with -cfl 1.5", 1, SMALL[:-4] + ["-nt", 400, "-f0", 10, "-dt", 0.004, "-cfl", 1.5, "-geometry", geo_ok],
             scr.sub("o_blowup"), [has("step")])

        # -wavelet whose d1 is not -dt
        w = c.write_rsf(scr.sub("wavelet_dt.rsf"), c.ricker(np.arange(20) * 0.002, 10.0), d=[0.002])
        case("-wavelet sampled at another interval", 1, SMALL + ["-dt", 0.001, "-wavelet", w, "-geometry", geo_ok],
             scr.sub("o_wavelet"), [has("wavelet_dt.rsf"), num(0.002)])

        # -mode gradient / invert: observed data, bounds, memory
        grad_args = ["-mode", "gradient", "-vp", 2000, "-nx", 30, "-nz", 20, "-dx", DX, "-nt", 40, "-dt", 0.002,
                     "-f0", 10, "-nshots", 2, "-nrec", 10, "-vp_max", 2500]
        invert_args = ["-mode", "invert"] + grad_args[2:] + ["-tao_max_it", 1]
        fwd_args = ["-mode", "forward"] + grad_args[2:-2]

        obs = scr.sub("obs")
        c.run(1, fwd_args, obs)

        obs_missing = scr.sub("obs_missing")
        os.makedirs(obs_missing)
        for f in os.listdir(obs):
            if not f.startswith("shot_0001.rsf"):
                with open(os.path.join(obs, f), "rb") as src, open(os.path.join(obs_missing, f), "wb") as dst:
                    dst.write(src.read())
        shot1 = ("shot 1", lambda low, out: re.search(r"shot\s*#?\s*1\b", low) is not None or "shot_0001.rsf" in low)
        case("observed shot missing", 1, grad_args + ["-observed_dir", obs_missing], scr.sub("o_obs_missing"),
             [shot1])
        # shot 1 belongs to group 1: the error is found away from world rank 0 and must not hang
        case("observed shot missing, 2 shot groups", 2, grad_args + ["-observed_dir", obs_missing, "-shot_groups", 2],
             scr.sub("o_obs_missing2"), [shot1])

        shot0 = ("shot 0", lambda low, out: re.search(r"shot\s*#?\s*0\b", low) is not None or "shot_0000.rsf" in low)
        obs_nrec = scr.sub("obs_nrec")
        c.run(1, with_opt(fwd_args, "-nrec", 9), obs_nrec)
        case("observed gathers with another -nrec", 1, grad_args + ["-observed_dir", obs_nrec], scr.sub("o_obs_nrec"),
             [shot0, num(9), num(10)])
        obs_nt = scr.sub("obs_nt")
        c.run(1, with_opt(fwd_args, "-nt", 30), obs_nt)
        case("observed gathers with another -nt", 1, invert_args + ["-observed_dir", obs_nt], scr.sub("o_obs_nt"),
             [shot0, num(30), num(40)])

        case("-tao_max_it -1", 1, with_opt(invert_args, "-tao_max_it", -1) + ["-observed_dir", obs], scr.sub("o_tao_neg"),
             [has("-tao_max_it -1"), has("0 or more iterations")])
        case("-vp_min above -vp_max", 1, invert_args + ["-observed_dir", obs, "-vp_min", 2600], scr.sub("o_bounds"),
             [has("vp_min"), num(2600), num(2500)])
        case("starting model above -vp_max", 1, with_opt(invert_args, "-vp_max", 1900) + ["-observed_dir", obs],
             scr.sub("o_start_out"), [num(1900), num(2000)])
        case("starting model below -vp_min", 1, invert_args + ["-observed_dir", obs, "-vp_min", 2100],
             scr.sub("o_start_low"), [num(2100), num(2000)])
        case("-wavefield_memory too small", 1, grad_args + ["-observed_dir", obs, "-wavefield_memory", 0.001],
             scr.sub("o_memory"), [has("wavefield_memory")])
        case("-mode gradient without -observed_dir", 1, grad_args, scr.sub("o_no_obs"), [has("observed_dir")])
        case("-mode invert without -observed_dir", 1, invert_args, scr.sub("o_no_obs_inv"), [has("observed_dir")])
        case("-tao_max_iter in -mode invert", 1, invert_args + ["-observed_dir", obs, "-tao_max_iter", 10],
             scr.sub("o_tao_typo"), [has("-tao_max_iter 10"), has("did you mean -tao_max_it?")])
        for d in ("o_obs_missing", "o_obs_missing2", "o_obs_nrec", "o_obs_nt", "o_bounds", "o_start_out",
                  "o_start_low", "o_memory", "o_no_obs", "o_no_obs_inv", "o_tao_typo"):
            d = scr.sub(d)
            left = [f for f in (os.listdir(d) if os.path.isdir(d) else [])
                    if f.startswith(("gradient", "vp", "misfit"))]
            if left:
                failures.append(f"{os.path.basename(d)}: results left in {d}: {left}")

        if failures:
            c.fail(f"{len(failures)} bad-input case(s) failed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    c.main(main)
