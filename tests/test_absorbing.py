#!/usr/bin/env python3
"""What the absorbing layers let through (scripts/absorbing.py): a shot and
its receivers near the top of a heterogeneous model, with 10, 20 and 40
cells of layer, 2D and 3D, orders 4 and 8, with a layer or a free surface on
top, against the same shot in the model padded with its edge velocities so
far that no wave reaches the padded model's edges and comes back within the
record: a reflection where the layers start counts (against a wider layer,
which starts at the same place, it would cancel).  The relative L2
difference of the gathers must stay below 3e-4 at 20 cells and 3e-5 at 40
(twice as quiet as Deepwave's measured 6.5e-4 and 6.7e-5), within 3 times
what each case measures at every width (MEASURED, the same with 1 and 2
threads; no limit below 1e-6, where the gathers' float32 rounding counts),
and fall as the layer widens.  Velocities 0.2% off in the layer cells give 3.3e-4 to 1.2e-2 at
40 cells in 2D and 2e-5 to 5e-4 in 3D.  The 3D model is smaller than the
benchmark's, to keep the test short."""
import os
import sys

import common as c

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import absorbing  # noqa: E402

WIDTHS = (10, 20, 40)
TARGET = {20: 3e-4, 40: 3e-5}
WITHIN = 3.0  # times MEASURED
FLOOR = 1e-6  # the least limit: rounding
# (dimension, order, free surface): relative L2 at 10, 20 and 40 cells
MEASURED = {
    (2, 4, 0): (3.51e-3, 2.09e-4, 1.01e-5),
    (2, 4, 1): (4.59e-4, 1.44e-5, 9.21e-7),
    (2, 8, 0): (2.37e-3, 6.44e-5, 8.23e-6),
    (2, 8, 1): (1.03e-4, 3.91e-6, 6.70e-7),
    (3, 4, 0): (4.82e-4, 1.85e-5, 1.04e-6),
    (3, 4, 1): (1.90e-5, 7.54e-7, 1.58e-7),
    (3, 8, 0): (1.00e-4, 6.36e-6, 4.53e-7),
    (3, 8, 1): (4.47e-6, 3.47e-7, 1.96e-7),
}
# dimension: model shape (z, x[, y]), samples (None: scripts/absorbing.py's)
SETUPS = {2: (None, None), 3: ((30, 40, 30), 200)}


def main():
    scr = c.Scratch("absorbing")
    failures = []
    with scr:
        for dim, (shape, nt) in SETUPS.items():
            for order in (4, 8):
                for surface in (0, 1):
                    name = absorbing.case_name(dim, order, surface)
                    limits = [max(WITHIN * m, FLOOR) for m in MEASURED[dim, order, surface]]
                    errs = absorbing.errors(c.HALOFWI_BIN, scr.path, dim, order, surface, WIDTHS, None, shape, nt, launch=())
                    print(f"  {name}: " + ", ".join(f"{w} cells {e:.2e} (limit {lim:.1e})" for w, e, lim in zip(WIDTHS, errs, limits))
                          + f" (against the padded model; limits {TARGET[20]:.0e} at 20, {TARGET[40]:.0e} at 40)", flush=True)
                    for w, e, lim in zip(WIDTHS, errs, limits):
                        if w in TARGET and not e <= TARGET[w]:
                            failures.append(f"{name}: {e:.2e} at {w} cells, above {TARGET[w]:.0e}")
                        if not e <= lim:
                            failures.append(f"{name}: {e:.2e} at {w} cells, above its limit {lim:.1e} ({WITHIN:g} x measured, at least {FLOOR:.0e})")
                    if not errs[0] > errs[1] > errs[2]:
                        failures.append(f"{name}: the difference does not fall as the layer widens: {errs}")
        if failures:
            c.fail(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    c.main(main)
