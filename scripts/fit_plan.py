#!/usr/bin/env python3
"""Fits the gradient planner's costs (Equation.gradient_cost and the host
backend's first_use, src/setup/plan.c) to what scripts/bench-gradient
measured, and shows how well the fit, and the build's planner, predict
each case.

    fit_plan.py [--pml 20] [--step S] [--hold TERM=V2,V3]... TABLE...

Each TABLE is what `PHYSICS=... scripts/bench-gradient` printed; give the
tables of one equation per call.  Per dimension, in that equation's
forward runs of steps:

    cost = 1 + adjoint_core c + adjoint_layer (1 - c) + reconstruct c'
             + run_back b + store s + first_use m / step

cost: the gradient process's time beyond the forward process's, over the
forward run's steps, plus 1 (the start-up and output that both processes
take are left out; allocation and the first use of memory are in); c: the
core's share of the cells; c': c for the boundary method, 0 for full
storage; b: the share of the cells the boundary method runs the forward
field back in (the planner's "back" column, of the core, times c); s: the
floats stored a cell and step (from the table's stored MB); m: s times
the share of a full store whose pages are mapped (the planner's "mapped"
column; all of it where the table has none).  --hold fixes a term in 2D
and 3D (adjoint_layer=same: a layer cell's adjoint costs a core cell's);
--step is the equation's forward step against the constant-density
equation's, by which first_use (counted in the latter's forward runs) is
divided.  The rest are least squares over the tables' lines (each the
median round of its case); printed with each case's measured cost, the
fit's, the build's planner's ("plan") and the process ratio.
"""
import argparse
import re
import sys

import numpy as np


def share(v):
    """A table's percentage as a fraction, None for "-"."""
    return float(v.rstrip("%")) / 100 if v != "-" else None


def rows(path):
    """(dim, n, nt, method, cost, proc x, stored MB, plan, back, mapped) of each line of a bench-gradient table; cost: the gradient
    process's time beyond the forward process's, over the forward run's steps, plus 1 (what the planner expects: the fixed start-up and
    output of both processes left out, allocation and first use counted)."""
    out = []
    with open(path) as f:
        for line in f:
            m = re.match(r"([23])D (\d+)\^\d x (\d+)\s+(.*)", line)
            if not m or "refused" in line or "peers" in line:
                continue
            t = m.group(4).split()
            # fwd proc, forward s, G upd/s, method, grad proc, grad s, G upd/s, proc x, proc xs, ratio, ratios, fwd x, adj x, stored MB, peak MB, recons, live, plan, err, cos, back, mapped
            if len(t) < 22:
                sys.exit(f"{path}: a line without the planner's back and mapped columns (a bench-gradient of before 2026-12-07?):\n{line}")
            out.append(dict(dim=int(m.group(1)), n=int(m.group(2)), nt=int(m.group(3)), method=t[3], cost=1 + (float(t[4]) - float(t[0])) / float(t[1]), proc=float(t[7]),
                            stored=float(t[13]), plan=float(t[17]), back=share(t[20]), mapped=share(t[21])))
    return out


TERMS = ("adjoint_core", "adjoint_layer", "reconstruct", "run_back", "store", "first_use")


def features(r, pml, step):
    """The case's share of each term (TERMS), beyond the forward run's 1."""
    dim = r["dim"]
    cells = (r["n"] + 2 * pml) ** dim
    c = r["n"] ** dim / cells
    s = r["stored"] * 2**20 / (4 * cells * r["nt"])
    full = r["method"] == "full"
    mapped = (r["mapped"] if r["mapped"] is not None else 1.0) * s if full else 0.0
    back = 0.0 if full else r["back"] * c
    return dict(adjoint_core=c, adjoint_layer=1 - c, reconstruct=0.0 if full else c, run_back=back, store=s, first_use=mapped / step)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pml", type=int, default=20)
    ap.add_argument("--step", type=float, default=1.0, help="the equation's forward step over the constant-density equation's (Equation.gradient_cost.step)")
    ap.add_argument("--hold", action="append", default=[], metavar="TERM=V2,V3",
                    help="holds a term at these values in 2D and 3D (adjoint_layer=same: equal to adjoint_core)")
    ap.add_argument("outputs", nargs="+")
    a = ap.parse_args()
    held = {}
    for h in a.hold:
        name, _, values = h.partition("=")
        if name not in TERMS:
            sys.exit(f"--hold {h}: the terms are {', '.join(TERMS)}")
        held[name] = values.split(",") if values != "same" else ["same", "same"]
        if len(held[name]) != 2:
            sys.exit(f"--hold {h}: give the 2D and the 3D value, e.g. {name}=1.0,0.5")
    data = [r for p in a.outputs for r in rows(p)]
    for dim in (2, 3):
        cases = [r for r in data if r["dim"] == dim and r["method"] in ("full", "boundary")]
        if not cases:
            continue
        free = [t for t in TERMS if t not in held]
        X, y, known = [], [], []
        for r in cases:
            f = features(r, a.pml, a.step)
            k = 1.0
            for t, v in held.items():
                if v[dim - 2] == "same":  # adjoint_layer as adjoint_core: one term over every cell
                    f["adjoint_core"] += f[t]
                else:
                    k += float(v[dim - 2]) * f[t]
            X.append([f[t] for t in free])
            known.append(k)
            y.append(r["cost"] - k)
        X, y = np.array(X), np.array(y)
        coef, *_ = np.linalg.lstsq(X, y, rcond=None)
        fit = np.array(known) + X @ coef
        print(f"{dim}D: " + ", ".join(f"{t} {v:.3g}" for t, v in zip(free, coef)) + "".join(f", {t} {v[dim - 2]} (held)" for t, v in held.items()))
        print(f"  {'case':<18} {'method':<9} {'measured':>8} {'fit':>6} {'plan':>6}  proc x")
        for r, e in zip(cases, fit):
            print(f"  {dim}D {r['n']}^{dim} x {r['nt']:<6} {r['method']:<9} {r['cost']:8.2f} {e:6.2f} {r['plan']:6.2f}  {r['proc']:.2f}")
        res = np.array([r["cost"] for r in cases]) - fit
        for method in ("full", "boundary"):
            m = np.array([r["method"] == method for r in cases])
            if m.any():
                print(f"  residuals, {method}: largest {np.abs(res[m]).max():.2f}, rms {np.sqrt((res[m] ** 2).mean()):.2f}")


if __name__ == "__main__":
    main()
