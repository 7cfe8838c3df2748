#!/usr/bin/env python3
"""What the absorbing layers let through (scripts/absorbing.py): a shot and
its receivers near the top of a heterogeneous model, with 10, 20 and 40
cells of layer against the same shot with a much wider layer, 2D and 3D,
orders 4 and 8, with a layer or a free surface on top.  The relative L2
difference of the gathers must stay below 3e-4 at 20 cells and 3e-5 at 40
(twice as quiet as Deepwave's measured 6.5e-4 and 6.7e-5), and fall as the
layer widens.  The 3D model is smaller than the benchmark's, its reference
60 cells wide, to keep the test short."""
import os
import sys

import common as c

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import absorbing  # noqa: E402

WIDTHS = (10, 20, 40)
TARGET = {20: 3e-4, 40: 3e-5}
# dimension: reference width, model shape (z, x[, y]), samples
SETUPS = {2: (120, None, None), 3: (60, (30, 40, 30), 200)}


def main():
    scr = c.Scratch("absorbing")
    failures = []
    with scr:
        for dim, (ref, shape, nt) in SETUPS.items():
            for order in (4, 8):
                for surface in (0, 1):
                    name = absorbing.case_name(dim, order, surface)
                    errs = absorbing.errors(c.HALOFWI_BIN, scr.path, dim, order, surface, WIDTHS, ref, shape, nt, launch=())
                    print(f"  {name}: " + ", ".join(f"{w} cells {e:.2e}" for w, e in zip(WIDTHS, errs))
                          + f" (against {ref} cells; limits {TARGET[20]:.0e} at 20, {TARGET[40]:.0e} at 40)", flush=True)
                    for w, e in zip(WIDTHS, errs):
                        if w in TARGET and not e <= TARGET[w]:
                            failures.append(f"{name}: {e:.2e} at {w} cells, above {TARGET[w]:.0e}")
                    if not errs[0] > errs[1] > errs[2]:
                        failures.append(f"{name}: the difference does not fall as the layer widens: {errs}")
        if failures:
            c.fail(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    c.main(main)
