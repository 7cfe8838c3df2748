"""Prints a gradient's error against a reference gradient of the same run:
its relative L2 error and its cosine similarity.
    gradient_error.py GRADIENT.rsf REFERENCE.rsf"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402
import rsf  # noqa: E402

g, ref = (rsf.read(p)[0].ravel().astype(np.float64) for p in sys.argv[1:3])
print(f"{np.linalg.norm(g - ref) / np.linalg.norm(ref):.2e} {g @ ref / np.linalg.norm(g) / np.linalg.norm(ref):.7f}")
