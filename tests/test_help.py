#!/usr/bin/env python3
"""-help: exits 0 without running anything, and lists every option that
docs/options.md documents (so the reference and the program cannot drift).
Defaults are real values or "auto", never placeholders: -nrec, the depths,
the bounds, -wavefield_memory and -da_processors_* show auto, -t0 shows
1.5/f0 (0.15 s at the default -f0, 0.05 s with -f0 30).  With -mode invert it
also lists the TAO options (-tao_type, -tao_max_it with halofwi's 20).
-gpu_tile's text names both values of its default (PETSc shows the first)."""
import os
import re

import common as c

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "options.md")

scr = c.Scratch("help")
with scr:
    out = c.run(1, ["-help"], scr.sub("out"))
    c.check(not os.path.exists(scr.sub("out", "shot_0000.rsf")), "-help ran a job: shot_0000.rsf was written")
    documented = set()
    for line in open(DOC):
        if line.startswith("|"):
            first_cell = line.split("|")[1]
            documented.update(re.findall(r"`?(-[a-z_0-9]+)", first_cell))
    c.check(len(documented) > 20, f"only {len(documented)} options found in {DOC}: the table format changed?")
    listed = set(re.findall(r"^\s*(-[a-z_0-9]+)\b", out, flags=re.M))
    missing = sorted(documented - listed)
    c.check(not missing, f"documented in docs/options.md but not listed by -help: {missing}")
    print(f"{len(documented)} documented options, all listed by -help")

    def default_of(text, opt):
        """The default -help shows for opt: the first word after '<' (and 'now')."""
        m = re.search(r"^\s*" + re.escape(opt) + r"\s+<(?:now )?([^ :>]*)", text, flags=re.M)
        c.check(m, f"-help does not list {opt} with a default")
        return m.group(1)

    for opt in ("-nrec", "-source_depth", "-receiver_depth", "-vp_min", "-vp_max", "-wavefield_memory",
                "-da_processors_x", "-da_processors_y", "-da_processors_z"):
        got = default_of(out, opt)
        c.check(got == "auto", f"-help shows {opt} <{got}>, expected auto")
    t0 = default_of(out, "-t0")
    c.check(abs(float(t0) - 0.15) < 1e-12, f"-help shows -t0 <{t0}>, expected 1.5/f0 = 0.15 at the default -f0 10")
    t0 = default_of(c.run(1, ["-help", "-f0", 30], scr.sub("out_f0")), "-t0")
    c.check(abs(float(t0) - 0.05) < 1e-12, f"-help -f0 30 shows -t0 <{t0}>, expected 1.5/30 = 0.05")
    c.check(not re.search(r"^\s*-tao_", out, flags=re.M), "-help in -mode forward lists TAO options, which only -mode invert reads")
    # PETSc shows an array option's first value only: the text names the whole default
    tile = re.search(r"^\s*-gpu_tile <.*", out, flags=re.M)
    c.check(tile and re.search(r"default \d+,\d+", tile.group(0)), f"-help's -gpu_tile line names no whole default ROWS,RUN: {tile and tile.group(0)}")

    inv = c.run(1, ["-help", "-mode", "invert"], scr.sub("out_invert"))
    c.check(default_of(inv, "-tao_type") == "blmvm", f"-help -mode invert shows -tao_type <{default_of(inv, '-tao_type')}>, expected blmvm")
    c.check(default_of(inv, "-tao_max_it") == "20", f"-help -mode invert shows -tao_max_it <{default_of(inv, '-tao_max_it')}>, expected 20")
    c.check(not os.path.exists(scr.sub("out_invert", "vp.rsf")), "-help -mode invert ran an inversion: vp.rsf was written")
    print("defaults shown as auto or real values; -mode invert lists -tao_type and -tao_max_it")
