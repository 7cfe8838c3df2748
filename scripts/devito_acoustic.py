"""Devito's acoustic forward problem as the peer comparisons set it up
(scripts/bench_devito.py times it, scripts/absorbing_devito.py measures its
absorbing layer): the wave equation m d2u/dt2 - laplace(u) + damp du/dt = 0
with Devito's usual absorbing layer, a damping sponge, a Ricker source
injected and receivers interpolated.  damp = m gamma: the damping rate gamma
(1/s) rises as the square of the depth into the layer to 1.5 vmax ln(1000) /
(width * dx) at its outer edge (Cerjan-like, as in Devito's examples)."""
import numpy as np
from devito import Eq, Operator, SparseTimeFunction, solve


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


def ricker_source(grid, nt, dt, f0, position):
    """One Ricker source of peak frequency f0, delayed 1.5 / f0, at position (m)."""
    a = (np.pi * f0 * (np.arange(nt) * dt - 1.5 / f0)) ** 2
    src = SparseTimeFunction(name="src", grid=grid, npoint=1, nt=nt)
    src.data[:, 0] = (1 - 2 * a) * np.exp(-a)
    src.coordinates.data[0] = position
    return src


def forward_operator(u, m, damp, src, rec, dt):
    """A step of u, the source injected into it, the receivers read from it."""
    return Operator([Eq(u.forward, solve(m * u.dt2 - u.laplace + damp * u.dt, u.forward))]
                    + src.inject(field=u.forward, expr=src * dt ** 2 / m) + rec.interpolate(expr=u))
