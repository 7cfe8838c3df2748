#!/usr/bin/env python3
"""The time line: where a run's wall time went (docs/options.md, "Outputs").

- -mode forward (1 rank), -mode gradient (2 ranks) and -mode invert with two
  bands (1 rank) end with "run time: T s in all: set-up S, allocation A,
  forward F, adjoint B, I/O I, other O"; the inversion also prints a
  "band N run time: ..." line at the end of each band.
- In each line the parts are non-negative and sum to T (within the 0.01 s
  rounding of the printed figures).
- A whole-run T is not more than the process's wall time measured here
  from launch to exit, and not less than the step times the run prints
  (a gradient's "gradient: X s", a forward run's shot times): those are
  spans inside the process.  Forward and adjoint together are not more than
  the gradient's X, which holds them; the forward run's forward part is not
  more than its shots' times, which hold it.
- The inversion's band lines add up to no more than its whole-run T.
Consistency only: no figure is compared with a speed.
"""
import re
import time

import numpy as np

import common as c

DX = 10.0
PARTS = ["set-up", "allocation", "forward", "adjoint", "I/O", "other"]
LINE = re.compile(r"^(band (\d+) )?run time: ([0-9.]+) s in all: " + ", ".join(re.escape(p) + r" ([0-9.]+)" for p in PARTS) + "$", re.M)
ROUND = 0.005  # half the last printed digit


def time_lines(out, what):
    """[(band or None, total, {part: seconds})] of the output's time lines, checked for consistency."""
    lines = []
    for m in LINE.finditer(out):
        total, parts = float(m.group(3)), dict(zip(PARTS, map(float, m.groups()[3:])))
        c.check(all(v >= 0 for v in parts.values()), f"{what}: a negative part in {m.group(0)!r}")
        c.check(abs(sum(parts.values()) - total) <= ROUND * (len(PARTS) + 1) + 1e-9,
                f"{what}: the parts sum to {sum(parts.values()):.3f} s, not the {total} s in all, in {m.group(0)!r}")
        lines.append((int(m.group(2)) if m.group(2) else None, total, parts))
    return lines


def whole_run(args, outdir, nranks, what):
    """Runs halofwi; returns (output, its whole-run time line's total and parts), checked against the wall time measured here."""
    t = time.time()
    out = c.run(nranks, args, outdir)
    wall = time.time() - t
    whole = [(total, parts) for band, total, parts in time_lines(out, what) if band is None]
    if len(whole) != 1:
        print(out)
        c.fail(f"{what}: {len(whole)} whole-run time lines ('run time: ... s in all: ...'), expected 1 at the end")
    total, parts = whole[0]
    c.check(0 < total <= wall + ROUND, f"{what}: {total} s in all, the process took {wall:.3f} s from launch to exit")
    print(f"  {what}: {total} s in all ({parts}), process {wall:.2f} s")
    return out, total, parts


def test():
    scr = c.Scratch("timing")
    with scr:
        nz, nx = 80, 120
        true = c.write_model(scr.sub("true.rsf"), c.smooth_random_model((nx, nz), seed=7), DX)
        start = c.write_model(scr.sub("start.rsf"), np.full((nx, nz), 2200.0, dtype=np.float32), DX)
        survey = ["-nshots", 2, "-nrec", 30, "-f0", 12, "-dt", 0.002, "-nt", 500, "-pml_width", 10]
        obs = scr.sub("obs")

        out, total, parts = whole_run(["-mode", "forward", "-vp", true] + survey, obs, 1, "forward")
        shots = [float(s) for s in re.findall(r"^shot \d+(?: \(group \d+\))?: ([0-9.]+) s", out, re.M)]
        c.check(len(shots) == 2, f"forward: {len(shots)} shot lines, expected 2")
        c.check(total >= sum(shots) - ROUND, f"forward: {total} s in all, less than the shots' {sum(shots):.3f} s")
        c.check(parts["forward"] <= sum(shots) + ROUND + 0.001, f"forward: forward {parts['forward']} s, more than the shots' {sum(shots):.3f} s that hold it")
        c.check(parts["forward"] > 0 and parts["adjoint"] == 0, f"forward: forward {parts['forward']} s, adjoint {parts['adjoint']} s")

        out, total, parts = whole_run(["-mode", "gradient", "-vp", start, "-observed_dir", obs] + survey, scr.sub("grad"), 2, "gradient")
        step = float(re.search(r"^gradient: ([0-9.]+) s", out, re.M).group(1))
        c.check(total >= step - ROUND, f"gradient: {total} s in all, less than the printed gradient time {step} s")
        c.check(parts["forward"] + parts["adjoint"] <= step + 2 * ROUND + 0.001,
                f"gradient: forward {parts['forward']} + adjoint {parts['adjoint']} s, more than the {step} s of the evaluation that holds them")
        c.check(min(parts["forward"], parts["adjoint"]) > 0, f"gradient: a part of the run counted as none: {parts}")

        inv = ["-mode", "invert", "-vp", start, "-vp_max", 3300, "-observed_dir", obs, "-bands", "6,12", "-tao_max_it", 1] + survey
        out, total, parts = whole_run(inv, scr.sub("inv"), 1, "invert")
        bands = [(band, t) for band, t, _ in time_lines(out, "invert") if band is not None]
        c.check([b for b, _ in bands] == [1, 2], f"invert: band time lines for bands {[b for b, _ in bands]}, expected 1 and 2")
        c.check(sum(t for _, t in bands) <= total + 3 * ROUND, f"invert: the bands' {[t for _, t in bands]} s add up to more than the run's {total} s")


if __name__ == "__main__":
    c.main(test)
