#!/usr/bin/env python3
"""Models for scripts/demo: the true model and a smoothed copy with the
water layer kept (the start), at SPACING metres over X0..X1 and depths to
ZMAX.  MODEL (default marmousi) is a section of the embedded Marmousi model,
or folded: halofwi's own folded and faulted layers (no test tunes on it).

  scripts/demo_models.py OUTDIR X0 X1 ZMAX SPACING SMOOTH [MODEL]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import numpy as np  # noqa: E402
from scipy.ndimage import gaussian_filter  # noqa: E402

import rsf  # noqa: E402

WATER = 1500.0


def marmousi(x0, x1, zmax, h):
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    vp, hdr = rsf.read(os.path.join(root, "data", "marmousi_vp.rsf"))
    d = float(hdr.get("d1", 4))
    step = int(round(h / d))
    return vp[: int(zmax / d) + 1 : step, int(x0 / d) : int(x1 / d) + 1 : step].astype(np.float32)


def folded(x0, x1, zmax, h):
    """Twelve layers, 1700 to 4300 m/s, below 100 m of water, folded into an
    anticline and a syncline whose amplitude grows with depth, cut by a
    normal fault dipping 60 degrees (the hanging wall 180 m down), with a
    4600 m/s lens and a 1900 m/s gas pocket under the anticline's crest."""
    z = np.arange(0, zmax + h / 2, h)[:, None]
    x = np.arange(x0, x1 + h / 2, h)[None, :]
    xi = (x - x0) / (x1 - x0)  # 0..1 across the section
    tops = np.linspace(100, zmax * 0.95, 13)[:-1]
    speeds = np.linspace(1700, 4300, tops.size)
    fault = x > x0 + 0.62 * (x1 - x0) + (z - zmax / 2) / np.tan(np.radians(60))
    zz = z - 180.0 * fault  # depth in the hanging wall, measured before the throw
    fold = (zz / zmax) * (220 * np.sin(2 * np.pi * (xi - 0.05)) + 60 * np.sin(6 * np.pi * xi))
    vp = np.where(z >= 100, speeds[0], WATER) * np.ones_like(x)
    for top, v in zip(tops[1:], speeds[1:]):
        vp = np.where((zz + fold >= top) & (z >= 100), v, vp)
    crest = (x - (x0 + 0.3 * (x1 - x0))) ** 2
    vp = np.where(crest / 500.0**2 + (z - 0.45 * zmax) ** 2 / 90.0**2 <= 1, 4600.0, vp)
    vp = np.where(crest / 300.0**2 + (z - 0.3 * zmax) ** 2 / 50.0**2 <= 1, 1900.0, vp)
    return vp.astype(np.float32)


def main(argv):
    out, x0, x1, zmax, h, smooth = argv[1], *map(float, argv[2:7])
    kind = argv[7] if len(argv) > 7 else "marmousi"
    if kind not in ("marmousi", "folded"):
        print("MODEL %r: expected marmousi or folded" % kind, file=sys.stderr)
        return 2
    true = (marmousi if kind == "marmousi" else folded)(x0, x1, zmax, h)
    water = true <= WATER + 1e-3
    start = gaussian_filter(true.astype(np.float64), smooth / h, mode="nearest")
    start[water] = WATER
    start = np.maximum(start, WATER).astype(np.float32)
    os.makedirs(out, exist_ok=True)
    rsf.write(os.path.join(out, "true.rsf"), true, d=[h, h])
    rsf.write(os.path.join(out, "start.rsf"), start, d=[h, h])
    print("%s true and starting models: %d x %d cells at %g m" % (kind, true.shape[0], true.shape[1], h))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
