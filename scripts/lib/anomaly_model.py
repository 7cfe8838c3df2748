"""Writes the benchmarks' true model: 2000 m/s with a Gaussian anomaly of
+200 m/s, width n/8 cells, in the middle of an n^dim grid of 10 m cells.
    anomaly_model.py OUT.rsf DIM N"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402
import rsf  # noqa: E402

out, dim, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r2 = sum((g - n / 2) ** 2 for g in np.meshgrid(*[np.arange(n)] * dim, indexing="ij"))
rsf.write(out, (2000 + 200 * np.exp(-r2 / (n / 8) ** 2)).astype(np.float32), d=[10] * dim)
