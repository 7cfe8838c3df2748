#!/usr/bin/env python3
"""Field-like data for testing an inversion against what field data bring.

  scripts/field_like.py wavelet OUT.rsf NT DT F0
      a source wavelet the program does not assume: a Ricker of peak F0 Hz
      rotated by 60 degrees in phase, delayed by 0.02 s and scaled by 2.5
      (NT samples at DT s, for -wavelet)
  scripts/field_like.py data RAW_DIR OUT_DIR SCALES DEAD SNR_DB [SEED]
      RAW_DIR's gathers (shot_NNNN.rsf as -mode forward writes them), each
      shot scaled by its own static factor (SCALES: comma separated,
      repeated over the shots), a share DEAD of the traces zeroed (at least
      one per shot) and white noise added SNR_DB below each shot's power

Used by tests/test_field_like.py, tests/test_source_estimation.py and
examples/field_like.sh.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import numpy as np  # noqa: E402

import rsf  # noqa: E402
from scipy.signal import hilbert  # noqa: E402


def ricker(t, f0, t0):
    a = (np.pi * f0 * (t - t0)) ** 2
    return (1.0 - 2.0 * a) * np.exp(-a)


def foreign_wavelet(nt, dt, f0):
    r = ricker(np.arange(nt) * dt - 0.02, f0, 1.5 / f0)
    phi = np.deg2rad(60.0)
    return (2.5 * (np.cos(phi) * r - np.sin(phi) * np.imag(hilbert(r)))).astype(np.float32)


def corrupt(raw, out, scales, dead, snr_db, seed=7):
    rng = np.random.default_rng(seed)
    os.makedirs(out)
    shots = sorted(f for f in os.listdir(raw) if f.startswith("shot_") and f.endswith(".rsf"))
    if not shots:
        raise SystemExit("%s: no shot_NNNN.rsf gathers" % raw)
    for k, name in enumerate(shots):
        g, hdr = rsf.read(os.path.join(raw, name))  # time x receiver
        g = g.astype(np.float64) * scales[k % len(scales)]
        g += rng.normal(0.0, np.sqrt(np.mean(g ** 2)) * 10 ** (-snr_db / 20), g.shape)
        gone = rng.random(g.shape[1]) < dead
        gone[rng.integers(g.shape[1])] = True
        g[:, gone] = 0
        rsf.write(os.path.join(out, name), g.astype(np.float32), [float(hdr["d1"]), 1.0])


def main(argv):
    if len(argv) == 6 and argv[1] == "wavelet":
        rsf.write(argv[2], foreign_wavelet(int(argv[3]), float(argv[4]), float(argv[5])), [float(argv[4])])
    elif len(argv) in (7, 8) and argv[1] == "data":
        corrupt(argv[2], argv[3], [float(s) for s in argv[4].split(",")], float(argv[5]), float(argv[6]), int(argv[7]) if len(argv) == 8 else 7)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
