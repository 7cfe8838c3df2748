"""scripts/fit_plan.py against tables whose costs follow its model exactly:
it must read bench-gradient's columns as the script prints them and
recover the coefficients it was not told (to 1e-3), with the held ones as
given; and a table without the planner's columns is refused."""
import os
import re
import subprocess
import sys
import tempfile

import common as c

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIT = os.path.join(ROOT, "scripts", "fit_plan.py")
PML = 20
# the model's terms in 2D (fitted: adjoint_core, run_back, store; held: the rest)
TRUE = dict(adjoint_core=0.6, adjoint_layer=4.5, reconstruct=0.65, run_back=0.7, store=0.3, first_use=3.1)
CASES = [(512, 1000, 0.48, 0.50), (1024, 500, 0.06, 0.056), (2048, 500, 0.016, 0.014)]  # n, nt, mapped, back


def line(n, nt, method, cost, stored, back, mapped):
    """One line of a bench-gradient table, in its columns: the forward process 1 s with 0.5 s of steps."""
    fwd_proc, fwd_s = 1.0, 0.5
    grad_proc = fwd_proc + (cost - 1) * fwd_s
    return (f"2D {n}^2 x {nt}  {fwd_proc:.2f} {fwd_s:.3f} 1.0 {method} {grad_proc:.6f} 1.0 1.0 2.00 1.9-2.1 2.00 1.9-2.1 1.0 1.0 "
            f"{stored:.6f} 100.0 0% - 2.0 - - {back} {mapped}")


def table():
    rows = []
    for n, nt, mapped, back in CASES:
        cells = (n + 2 * PML) ** 2
        core = n * n / cells
        for method, s in (("full", 1.0), ("boundary", 0.02)):
            full = method == "full"
            cost = 1 + TRUE["adjoint_core"] * core + TRUE["adjoint_layer"] * (1 - core) + TRUE["store"] * s
            cost += TRUE["first_use"] * mapped * s if full else TRUE["reconstruct"] * core + TRUE["run_back"] * back * core
            stored = s * 4 * cells * nt / 2**20
            rows.append(line(n, nt, method, cost, stored, "-" if full else f"{100 * back:.4f}%", f"{100 * mapped:.4f}%" if full else "-"))
    return rows


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "table.txt")
        with open(path, "w") as f:
            f.write("case  fwd proc ...\n" + "\n".join(table()) + "\neach line: ...\n")
        held = ["--hold", "adjoint_layer=4.5,same", "--hold", "reconstruct=0.65,0", "--hold", "first_use=3.1,1.8"]
        out = subprocess.run([sys.executable, FIT, "--pml", str(PML)] + held + [path], capture_output=True, text=True)
        c.check(out.returncode == 0, f"fit_plan.py failed:\n{out.stdout}{out.stderr}")
        print(out.stdout, flush=True)
        head = re.search(r"^2D: (.*)$", out.stdout, re.M)
        c.check(head is not None, f"no 2D line in:\n{out.stdout}")
        got = dict((m.group(1), float(m.group(2))) for m in re.finditer(r"(\w+) ([-\d.e]+)(?! \(held\))(?=,|$)", head.group(1)))
        for term in ("adjoint_core", "run_back", "store"):
            c.check(term in got and abs(got[term] - TRUE[term]) < 1e-3, f"{term}: fitted {got.get(term)}, the table's {TRUE[term]}")
        res = re.findall(r"residuals, (full|boundary): largest ([\d.]+)", out.stdout)
        c.check(len(res) == 2 and all(float(r) < 1e-3 for _, r in res), f"residuals of an exact table: {res}")

        old = os.path.join(tmp, "old.txt")
        with open(old, "w") as f:
            f.write(" ".join(table()[0].split()[:-2]) + "\n")
        out = subprocess.run([sys.executable, FIT, old], capture_output=True, text=True)
        c.check(out.returncode != 0 and "back and mapped" in out.stderr, f"a table without the planner's columns was taken:\n{out.stdout}{out.stderr}")


if __name__ == "__main__":
    c.main(main)
