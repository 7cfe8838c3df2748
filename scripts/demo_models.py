#!/usr/bin/env python3
"""Models for scripts/demo: a Marmousi section resampled to SPACING metres
(the true model) and a smoothed copy with the water layer kept (the start).

  scripts/demo_models.py OUTDIR X0 X1 ZMAX SPACING SMOOTH
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import numpy as np  # noqa: E402
from scipy.ndimage import gaussian_filter  # noqa: E402

import rsf  # noqa: E402

WATER = 1500.0


def main(argv):
    out, x0, x1, zmax, h, smooth = argv[1], *map(float, argv[2:7])
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    vp, hdr = rsf.read(os.path.join(root, "data", "marmousi_vp.rsf"))
    d = float(hdr.get("d1", 4))
    step = int(round(h / d))
    true = vp[: int(zmax / d) + 1 : step, int(x0 / d) : int(x1 / d) + 1 : step].astype(np.float32)
    water = true <= WATER + 1e-3
    start = gaussian_filter(true.astype(np.float64), smooth / h, mode="nearest")
    start[water] = WATER
    start = np.maximum(start, WATER).astype(np.float32)
    os.makedirs(out, exist_ok=True)
    rsf.write(os.path.join(out, "true.rsf"), true, d=[h, h])
    rsf.write(os.path.join(out, "start.rsf"), start, d=[h, h])
    print("true and starting models: %d x %d cells at %g m" % (true.shape[0], true.shape[1], h))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
