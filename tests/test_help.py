#!/usr/bin/env python3
"""-help: exits 0 without running anything, and lists every option that
docs/options.md documents (so the reference and the program cannot drift)."""
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
