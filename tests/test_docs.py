#!/usr/bin/env python3
"""The documents and examples say what the program and scripts do:

- docs/cluster.md's worked example: halofwi's memory estimate for its
  set-up, on 1 rank and on 32 (with -memory_limit 900 -wavefield_memory
  870, and with -gradient_method full, so that each stops after the
  estimate), gives every figure the text quotes: the methods' host memory
  and expected times, what a rank may give the store, the ranks per group
  it advises, and the rest of the run's memory;
- README.md's package list is the one scripts/lib/setup.sh installs;
- docs/options.md describes -vp marmousi as the file of this source tree it
  reads, not as embedded;
- examples/marmousi_forward.opts runs (shortened) and records every shot
  with the 2301 receivers its comment and README.md's fixed spread say;
- examples/field_like.sh without a built program stops at once, naming it,
  and neither builds nor writes into the source tree."""
import os
import re
import subprocess

import numpy as np

import common as c

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZE = r"([\d.]+ [MG]B)"
TABLE = {"full": r"full\s+the Laplacian term of every step and cell\s+" + SIZE + r"\s+-\s+([\d.]+) forward runs",
         "boundary": r"boundary\s+the layer band of every step, 2 fields\s+" + SIZE + r"\s+-\s+([\d.]+) forward runs"}
MAY_GIVE = r"may give it " + SIZE + " of host memory"
ADVICE = r"about (\d+) ranks per shot group"


def text(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def flat(s):
    return " ".join(s.split())


def find(pattern, s, what):
    """The figure(s) pattern finds in s; a document that lacks them gives
    None (compared, and reported, with the others); a run, a failure."""
    m = re.search(pattern, flat(s))
    if not m and what.startswith("docs/"):
        return None
    if not m:
        print(s)
        c.fail(f"{what}: no match for {pattern!r}")
    return m.groups() if len(m.groups()) > 1 else m.group(1)


def mb(size):
    value, unit = size.split()
    return float(value) * (1024.0 if unit == "GB" else 1.0)


def estimate(scr, nranks, extra):
    example = ["-mode", "gradient", "-vp", 2500, "-nx", 300, "-ny", 300, "-nz", 150, "-dx", 10, "-nshots", 2, "-nrec", 50,
               "-nt", 2000, "-dt", 0.002, "-f0", 8, "-observed_dir", scr.sub("obs")]
    status, out = c.run_status(nranks, example + extra, scr.sub("out"), timeout=600)
    c.check(status != 0, f"the worked example on {nranks} ranks with {extra} did not stop after the estimate")
    return out


def check_cluster(scr):
    os.makedirs(scr.sub("obs"))
    for s in range(2):
        c.write_rsf(scr.sub("obs", "shot_%04d.rsf" % s), np.ones((50, 2000)), d=[0.002, 1.0])
    doc = text("docs/cluster.md")
    one_doc, many_doc = doc.split("On 32 ranks", 1)
    one = estimate(scr, 1, ["-memory_limit", 3600])
    runs = {"1 rank": (one, one_doc)}
    for method in TABLE:
        runs[method] = find(TABLE[method], one, "1 rank"), find(TABLE[method], one_doc, "docs/cluster.md, 1 rank")
    may1, ranks1 = find(MAY_GIVE, one, "1 rank"), find(ADVICE, one, "1 rank")
    figures = [("1 rank: " + m, *runs[m]) for m in TABLE]
    figures += [("1 rank: a rank may give", may1, find(MAY_GIVE, one_doc, "docs/cluster.md")),
                ("1 rank: ranks advised", ranks1, find(ADVICE, one_doc, "docs/cluster.md")),
                ("1 rank: the guide", ranks1, find(r'so "about (\d+)" is a guide', doc, "docs/cluster.md")),
                ("1 rank: the rest of the run", "%.1f" % ((3600 - mb(may1)) / 1024), find(r"and about ([\d.]+) GB for the rest", doc, "docs/cluster.md"))]

    many = estimate(scr, 32, ["-memory_limit", 900, "-wavefield_memory", 870])
    full = estimate(scr, 32, ["-memory_limit", 3600, "-gradient_method", "full"])
    table = {m: find(TABLE[m], many, "32 ranks") for m in TABLE}
    for m in TABLE:
        figures.append(("32 ranks: " + m, table[m], find(TABLE[m], many_doc, "docs/cluster.md, 32 ranks")))
    store, rest = mb(table["boundary"][0]), 900 - mb(find(MAY_GIVE, many, "32 ranks"))
    figures.append(("32 ranks: the busiest rank's need", ("%.1f MB" % (store + rest), table["boundary"][0], "%.1f MB" % rest),
                    find(r"The busiest rank then needs " + SIZE + r" of its 3.5 GB: the band's " + SIZE + " and " + SIZE, many_doc, "docs/cluster.md")))
    figures.append(("32 ranks: the times compared", (table["full"][1], table["boundary"][1]),
                    find(r"\(([\d.]+) against ([\d.]+) forward runs\)", many_doc, "docs/cluster.md")))
    figures.append(("32 ranks, full storage: ranks advised and what a rank may give", (find(ADVICE, full, "full"), find(MAY_GIVE, full, "full")),
                    find(r"needs about (\d+) ranks per group \(`-gradient_method full` says so, each rank giving it " + SIZE + r"\)", many_doc, "docs/cluster.md")))
    drifted = []
    for what, program, doc_says in figures:
        print(f"  {what}: program {program}, docs/cluster.md {doc_says or '(not said)'}")
        if program != doc_says:
            drifted.append(f"{what} is {doc_says or '(not said)'}, the program now says {program}")
    c.check(not drifted, "docs/cluster.md: " + "; ".join(drifted))


def check_texts():
    setup = text("scripts/lib/setup.sh")
    installed = set(re.search(r"HALOFWI_PACKAGES=\(([^)]*)\)", setup).group(1).split())
    readme = flat(text("README.md"))
    listed = set(re.findall(r"`([^`]+)`", re.search(r"install what is missing on Debian 12 \((.*?)\) with `apt-get`", readme).group(1)))
    c.check(listed == installed, f"README.md lists {sorted(listed)}, scripts/lib/setup.sh installs {sorted(installed)}")
    row = find(r"(\| `-vp V` \|[^\n]*)", text("docs/options.md").replace("\n", " \n"), "docs/options.md")
    c.check("embedded" not in row and "data/marmousi_vp.rsf" in row, f"docs/options.md, -vp: {row}")


def check_marmousi_opts(scr):
    opts = text("examples/marmousi_forward.opts")
    comment = flat(" ".join(line.lstrip("# ") for line in opts.splitlines() if line.startswith("#")))
    options = [line.split()[0] for line in opts.splitlines() if line.strip() and not line.startswith("#")]
    c.check("-geometry" not in options and "fixed spread" in comment and "2301 receivers" in comment,
            f"examples/marmousi_forward.opts: a regular survey (every shot all receivers) not called a fixed spread of 2301 receivers: {comment}")
    c.check("fixed-spread survey over Marmousi" in flat(text("README.md")), "README.md does not call examples/marmousi_forward.opts a fixed spread")
    out = scr.sub("marmousi")
    c.run(1, ["-options_file", os.path.join(ROOT, "examples", "marmousi_forward.opts"), "-nt", 20, "-nshots", 1, "-shot_groups", 1,
              "-progress_interval", 0], out)
    h = c.read_rsf_header(os.path.join(out, "shot_0000.rsf"))
    c.check(int(h["n2"]) == 2301, f"examples/marmousi_forward.opts: a shot of {h['n2']} traces, its comment says 2301 receivers")


def check_field_like(scr):
    before = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--ignored"], capture_output=True, text=True).stdout
    empty, out = scr.sub("no-build"), scr.sub("field-like")
    os.makedirs(empty)
    env = dict(os.environ, HALOFWI_BUILD=empty)
    try:
        r = subprocess.run([os.path.join(ROOT, "examples", "field_like.sh"), out], capture_output=True, text=True, env=env, cwd=scr.path, timeout=60)
    except subprocess.TimeoutExpired:
        c.fail("examples/field_like.sh without a built program ran for a minute (building?)")
    after = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--ignored"], capture_output=True, text=True).stdout
    c.check(r.returncode != 0 and os.path.join(empty, "halofwi") in r.stderr, f"field_like.sh without a program: exit {r.returncode}, {r.stderr!r}")
    c.check(os.listdir(empty) == [], f"field_like.sh wrote {os.listdir(empty)} into the build folder it was given")
    c.check(before == after, "field_like.sh changed the source tree:\n" + after)


def main():
    scr = c.Scratch("docs")
    with scr:
        check_texts()
        check_marmousi_opts(scr)
        check_field_like(scr)
        check_cluster(scr)


if __name__ == "__main__":
    c.main(main)
