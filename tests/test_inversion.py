#!/usr/bin/env python3
"""-mode invert on a small 2D transmission problem: a +300 m/s Gaussian
anomaly in a 2000 m/s model, sources near the free surface, receivers near
the surface and along the bottom; the inversion starts from 2000 m/s.

(a) -tao_max_it 8 (blmvm): misfit.csv's misfit falls by at least 97 % and
    ||v - v_true|| by at least 60 % (measured: 99.8 % and 85 %); the misfit
    never rises; one row and one '[N overall]' line per iteration;
    vp_0001..vp_0008 written, vp.rsf equal to the last one, inside the bounds.
(b) the same on 2 ranks with -shot_groups 2 ends at the same vp.rsf, bit
    for bit (misfits and gradients are summed over shots exactly).
(c) restart: a single-process run (no mpiexec) with -bands 6,12,
    -gradient_method boundary and
    -tao_max_it 4 gets SIGTERM when '[2 overall]' is printed: non-zero exit,
    a message naming -restart, no vp.rsf; rerun with -restart: it replays
    every saved evaluation and computes only the uninterrupted run's others
    (the counts it prints), vp.rsf and every vp_NNNN.rsf equal an
    uninterrupted run's bit for bit, and so do misfit.csv's columns other
    than the timing.
(d) -fix_above 105: the cells at depths 0..100 m keep the starting values
    bit for bit, deeper cells change.
(e) -mode invert refuses to start where misfit.csv exists (without
    -overwrite or -restart) and leaves the results untouched; -restart
    where nothing was saved is refused too."""
import csv
import os
import re
import signal

import numpy as np

import common as c

DX = 10.0
NZ, NX = 40, 60
VP_MAX = 2500.0
MISFIT_DROP = 0.97    # measured 0.998
MODEL_DROP = 0.60     # measured 0.85
GROUPS_TOL = 0.0      # bit for bit
CSV_HEADER = ["band", "iteration", "misfit", "gradient_norm", "step", "seconds", "objective"]


def read_csv(path):
    c.check(os.path.isfile(path), f"missing output {path}")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    c.check(rows and rows[0] == CSV_HEADER, f"{path}: header {rows[0] if rows else None}, expected {CSV_HEADER}")
    return rows[1:]


def read_model(path):
    c.check(os.path.isfile(path), f"missing output {path}")
    v, _ = c.read_rsf(path)
    c.check(v.shape == (NX, NZ), f"{path}: shape {v.shape}, expected {(NX, NZ)}")
    return v


def vp_files(outdir):
    return sorted(f for f in os.listdir(outdir) if f.startswith("vp") and f.endswith(".rsf"))


def evaluations(out):
    """(replayed, computed): the counts a run prints at its end."""
    m = re.search(r"evaluations: (\d+) replayed from \S+, (\d+) computed", out)
    c.check(m is not None, "the run printed no 'evaluations: R replayed from DIR/restart, C computed' line")
    return int(m.group(1)), int(m.group(2))


def saved_evaluations(outdir):
    """How many evaluations outdir/restart lists."""
    with open(os.path.join(outdir, "restart", "evaluations.txt")) as f:
        return sum(1 for line in f if line.strip())


def check_resumed(tag, out, saved, total=None):
    """A -restart's output: it replayed the saved evaluations rather than
    computing them again, and (with total, the uninterrupted run's count)
    computed only the others."""
    replayed, computed = evaluations(out)
    c.check(saved > 0 and replayed == saved, f"{tag}: -restart replayed {replayed} of the {saved} saved evaluations")
    c.check(total is None or computed == total - saved,
            f"{tag}: -restart computed {computed} evaluations; the uninterrupted run computed {total}, of which {saved} were saved")
    print(f"  {tag}: -restart replayed the {saved} saved evaluations and computed {computed}", flush=True)


def file_state(outdir):
    return {f: (open(os.path.join(outdir, f), "rb").read(), os.stat(os.path.join(outdir, f)).st_mtime_ns)
            for f in os.listdir(outdir) if os.path.isfile(os.path.join(outdir, f))}


def run_interrupted(args, outdir, marker, timeout=c.DEFAULT_TIMEOUT):
    """Single process (singleton MPI, no mpiexec): SIGTERM when a line holding
    marker is printed.  Returns (exit status, output)."""
    rc, out, sent = c.run_acting(1, args, outdir, marker, lambda p: p.send_signal(signal.SIGTERM), timeout)
    print(f"  -> SIGTERM {'sent after ' + repr(marker) if sent else 'NOT sent'}, exit {rc}", flush=True)
    if not sent:
        print(out)
        c.fail(f"no line with {marker!r} in the output of the run to interrupt")
    return rc, out


def main():
    scr = c.Scratch("inversion")
    with scr:
        x = np.arange(NX)[:, None] * DX
        z = np.arange(NZ)[None, :] * DX
        true = (2000 + 300 * np.exp(-((x - 295) ** 2 + (z - 220) ** 2) / (2 * 60.0 ** 2))).astype(np.float32)
        start = np.full((NX, NZ), 2000.0, np.float32)
        true_path = c.write_model(scr.sub("true.rsf"), true, DX)
        start_path = c.write_model(scr.sub("start.rsf"), start, DX)
        recs = [(DX * i, DX * 34) for i in range(2, 58, 2)] + [(DX * i, DX * 6) for i in range(2, 58, 4)]
        geo = c.write_geometry(scr.sub("geom.txt"), [((xs, 50.0), recs) for xs in (50.0, 200.0, 390.0, 540.0)],
                               comment="inversion test: 4 shots, receivers near the top and along the bottom")
        acq = ["-geometry", geo, "-nt", 300, "-dt", 0.002, "-f0", 10, "-pml_width", 10, "-pml_top", 0,
               "-progress_interval", 0]
        obs = scr.sub("obs")
        c.run(1, ["-mode", "forward", "-vp", true_path] + acq, obs)
        # no tapers: receivers along the bottom too, and tapers a wavelength wide would damp the whole model
        base = ["-mode", "invert", "-vp", start_path] + acq + ["-vp_max", VP_MAX, "-observed_dir", obs, "-source_taper", 0, "-receiver_taper", 0]

        # (a) convergence
        inv1 = scr.sub("inv1")
        out = c.run(1, base + ["-tao_max_it", 8], inv1)
        rows = read_csv(os.path.join(inv1, "misfit.csv"))
        c.check([(r[0], r[1]) for r in rows] == [("1", str(i)) for i in range(9)],
                f"(a) misfit.csv (band, iteration) rows {[(r[0], r[1]) for r in rows]}, expected band 1, 0..8")
        J = [float(r[2]) for r in rows]
        for i in range(9):
            c.check(f"[{i} overall]" in out, f"(a) no '[{i} overall]' line in the output")
            # each says what the iteration took and what is left of the band (8 - i iterations at most)
            line = next(ln for ln in out.splitlines() if f"[{i} overall]" in ln)
            left = re.search(r"in (\d+) evaluations?,.*band: (\d+) s so far, at most about (\d+) s left \((\d+) iterations?\)", line)
            c.check(left is not None and int(left.group(1)) >= 1 and int(left.group(4)) == 8 - i,
                    f"(a) iteration {i}: expected its evaluations and '... s left ({8 - i} iterations)' in: {line}")
        c.check("[9 overall]" not in out, "(a) a '[9 overall]' line with -tao_max_it 8")
        for i in range(1, 9):
            c.check(J[i] <= J[i - 1], f"(a) misfit rose from {J[i - 1]:.9e} (iteration {i - 1}) to {J[i]:.9e} (iteration {i})")
        c.check(vp_files(inv1) == ["vp.rsf"] + ["vp_%04d.rsf" % i for i in range(1, 9)],
                f"(a) model files {vp_files(inv1)}, expected vp.rsf, vp_0001..vp_0008.rsf")
        v = read_model(os.path.join(inv1, "vp.rsf"))
        c.check(np.array_equal(v, read_model(os.path.join(inv1, "vp_0008.rsf"))),
                "(a) vp.rsf differs from the last iteration's vp_0008.rsf")
        c.check(v.min() >= 1600.0 - 1e-3 and v.max() <= VP_MAX + 1e-3,
                f"(a) vp.rsf spans {v.min():.3f} to {v.max():.3f} m/s, outside the bounds 1600 to {VP_MAX} m/s")
        drop = 1 - J[-1] / J[0]
        err0 = float(np.linalg.norm(start.astype(float) - true))
        err = float(np.linalg.norm(v.astype(float) - true))
        print(f"  (a) misfit {J[0]:.6e} -> {J[-1]:.6e}: down {drop:.2%} (required {MISFIT_DROP:.0%}); "
              f"||v - v_true|| {err0:.1f} -> {err:.1f} m/s: down {1 - err / err0:.2%} (required {MODEL_DROP:.0%})",
              flush=True)
        c.check(drop >= MISFIT_DROP, f"(a) misfit down by {drop:.2%} only, required {MISFIT_DROP:.0%}")
        c.check(1 - err / err0 >= MODEL_DROP,
                f"(a) model error down by {1 - err / err0:.2%} only (||v - v_true|| {err0:.1f} -> {err:.1f}), "
                f"required {MODEL_DROP:.0%}")

        # (b) 2 shot groups on 2 ranks
        inv2 = scr.sub("inv2")
        c.run(2, base + ["-tao_max_it", 8, "-shot_groups", 2], inv2)
        rows2 = read_csv(os.path.join(inv2, "misfit.csv"))
        c.check(len(rows2) == len(rows), f"(b) 2 groups: {len(rows2)} rows in misfit.csv, 1 group {len(rows)}")
        v2 = read_model(os.path.join(inv2, "vp.rsf"))
        dv = float(np.abs(v2.astype(float) - v).max() / np.abs(v).max())
        print(f"  (b) 2 groups vs 1: vp.rsf max |diff| {np.abs(v2.astype(float) - v).max():.3e} m/s, "
              f"/ max |v| = {dv:.2e} (limit {GROUPS_TOL:.0e})", flush=True)
        c.check(dv <= GROUPS_TOL, f"(b) 2 groups vs 1: vp.rsf max |diff| / max |v| {dv:.2e} > {GROUPS_TOL:.0e}")

        # (c) interrupt and restart
        bands = base + ["-bands", "6,12", "-tao_max_it", 4, "-gradient_method", "boundary"]
        ref = scr.sub("ref")
        replayed, total = evaluations(c.run(1, bands, ref))
        c.check(replayed == 0, f"(c) a fresh run replayed {replayed} evaluations")
        ref_rows = read_csv(os.path.join(ref, "misfit.csv"))
        c.check(len(ref_rows) == 10, f"(c) uninterrupted run: {len(ref_rows)} rows in misfit.csv, expected 2 bands x 5")
        part = scr.sub("part")
        rc, out = run_interrupted(bands, part, "[2 overall]")
        c.check(rc != 0, "(c) the interrupted run exited with status 0")
        c.check("-restart" in out, "(c) the interrupted run's output does not mention -restart")
        c.check("[8 overall]" not in out, "(c) the interrupted run went on to the end")
        c.check(not os.path.exists(os.path.join(part, "vp.rsf")), "(c) the interrupted run wrote vp.rsf")
        done = len(read_csv(os.path.join(part, "misfit.csv")))
        print(f"  (c) interrupted: exit {rc}, {done} rows in misfit.csv, models {vp_files(part)}", flush=True)
        saved = saved_evaluations(part)
        out = c.run(1, bands + ["-restart"], part)
        check_resumed("(c)", out, saved, total)
        for f in vp_files(ref):
            a = read_model(os.path.join(ref, f))
            p = os.path.join(part, f)
            c.check(os.path.isfile(p), f"(c) after -restart: no {f}")
            b = read_model(p)
            d = float(np.abs(a.astype(float) - b).max())
            c.check(d == 0, f"(c) after -restart: {f} differs from the uninterrupted run's: max |diff| {d:.3e} m/s, "
                            f"{int(np.count_nonzero(a != b))} cells")
        c.check(vp_files(part) == vp_files(ref), f"(c) after -restart: models {vp_files(part)}, uninterrupted {vp_files(ref)}")
        part_rows = read_csv(os.path.join(part, "misfit.csv"))
        c.check([r[:5] + r[6:] for r in part_rows] == [r[:5] + r[6:] for r in ref_rows],
                "(c) after -restart: misfit.csv differs from the uninterrupted run's:\n"
                + "\n".join(",".join(r) for r in part_rows) + "\nvs\n" + "\n".join(",".join(r) for r in ref_rows))
        print(f"  (c) after -restart: {len(vp_files(ref))} model files and misfit.csv equal the uninterrupted "
              f"run's bit for bit", flush=True)

        # (d) -fix_above: a starting model with a depth gradient, so that 'kept' is not just 'constant'
        start_d = (2000 + 0.3 * z + 0 * x).astype(np.float32)
        start_d_path = c.write_model(scr.sub("start_gradient.rsf"), start_d, DX)
        fix = scr.sub("fix")
        c.run(1, ["-mode", "invert", "-vp", start_d_path] + acq
              + ["-vp_max", VP_MAX, "-observed_dir", obs, "-tao_max_it", 3, "-fix_above", 105.0], fix)
        vf = read_model(os.path.join(fix, "vp.rsf"))
        top = slice(0, 11)  # depths 0..100 m
        nkept = int(np.count_nonzero(vf[:, top] != start_d[:, top]))
        below = float(np.abs(vf[:, 11:].astype(float) - start_d[:, 11:]).max())
        print(f"  (d) -fix_above 105: {nkept} of {vf[:, top].size} cells above 105 m changed; "
              f"max change below {below:.2f} m/s", flush=True)
        c.check(nkept == 0, f"(d) -fix_above 105: {nkept} cells at depths 0..100 m changed, max |change| "
                            f"{np.abs(vf[:, top].astype(float) - start_d[:, top]).max():.3e} m/s")
        c.check(below > 1.0, f"(d) -fix_above 105: the cells below changed by at most {below:.3e} m/s")

        # (e) existing results: refused without -overwrite/-restart, nothing touched
        before = file_state(inv1)
        out = c.run(1, base + ["-tao_max_it", 8], inv1, expect_fail=True)
        msg = c.error_message(out)
        c.check("misfit.csv" in msg, f"(e) the refusal does not name misfit.csv: {msg!r}")
        c.check(file_state(inv1) == before, "(e) the refused run changed the files in the output directory")
        empty = scr.sub("empty")
        out = c.run(1, base + ["-tao_max_it", 8, "-restart"], empty, expect_fail=True)
        msg = c.error_message(out)
        c.check("restart" in msg.lower(), f"(e) -restart with nothing saved: the message does not name -restart: {msg!r}")
        print("  (e) refused: existing misfit.csv, and -restart with nothing saved", flush=True)


if __name__ == "__main__":
    c.main(main)
