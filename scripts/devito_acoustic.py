"""Devito's usual absorbing layer for the acoustic wave equation, as the
peer comparisons use it (scripts/bench_devito.py, scripts/absorbing_devito.py):
a damping sponge, the term damp * du/dt in m d2u/dt2 - laplace(u) + damp du/dt
= 0, with damp = m gamma: the damping rate gamma (1/s) rises as the square of
the depth into the layer to 1.5 vmax ln(1000) / (width * dx) at its outer
edge (Cerjan-like, as in Devito's examples)."""
import numpy as np


def sponge_rate(shape, width, vmax, dx):
    """gamma (1/s) over the grid's cells, `width` cells of sponge on every side."""
    rate = np.zeros(shape, dtype=np.float32)
    for axis, n in enumerate(shape):
        depth = np.arange(n)
        depth = np.maximum(np.maximum(width - depth, depth - (n - 1 - width)), 0) / max(width, 1)
        rate += (np.log(1.0 / 0.001) * 1.5 * vmax / max(width * dx, dx) * depth ** 2).reshape(
            [-1 if a == axis else 1 for a in range(len(shape))])
    return rate


def set_damp(damp, m, width, vmax, dx):
    """Fills the Devito Function damp with m gamma (m: squared slowness)."""
    damp.data[:] = sponge_rate(damp.data.shape, width, vmax, dx) * m.data
