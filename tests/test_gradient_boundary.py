#!/usr/bin/env python3
"""-gradient_method boundary: the forward field run backwards from the layer
band saved at every step (docs/numerics.md, "Gradient methods").

(a) finite-difference check, 2D with a free surface on top and 2D with
    absorbing layers all round, 3D with a free surface: on 1 rank (with a
    free surface also on 2 shot groups x 2 subdomains), along directions that vanish on the cells
    next to the absorbing layers (the layers take no gradient with this
    method, so those cells lack the part the layers would fold onto them):
    as test_gradient.py, to 1e-3 relative.
(b) decomposition invariance, with a free surface (2D and 3D): 2x2, uneven
    and 2 groups x 2 against 1 rank, as test_gradient.py (the gradient bit
    for bit, the misfit to 1e-12).
(c) against full storage: over the cells not next to the layers, the
    relative L2 difference is at most 1e-5 of the gradient's norm at 5000
    internal steps (float32 reversal error, printed), and the misfit is the
    same bit for bit; also with sources and receivers on the user cells next
    to the layers, 2D and 3D, decomposed.  (Next to the layers the two differ by what full
    storage's layers fold onto those cells; unit_adjoint checks that the
    layer cells take exactly no gradient with this method.)
"""
import os
import re

import numpy as np

import common as c
import test_gradient as tg

RECON_TOL = 1e-5


def without(args, names):
    """args less the options in names and their values."""
    out, it = [], iter(args)
    for a in it:
        if a in names:
            next(it)
        else:
            out.append(a)
    return out


def run_gradient(nranks, args, outdir, layout=None):
    """(misfit, gradient, output) of a gradient run."""
    out = c.run(nranks, args, outdir)
    if layout is not None:
        c.check_layout(out, *layout)
    g, _ = c.read_rsf(os.path.join(outdir, "gradient.rsf"))
    return tg.misfit_of(out), g.astype(np.float64), out


def edge_mask(shape, layered):
    """True on the cells next to a face with an absorbing layer; layered[ax]
    = (low side, high side) has a layer."""
    mask = np.zeros(shape, bool)
    for ax in range(len(shape)):
        for side, has in zip((0, -1), layered[ax]):
            if has:
                idx = [slice(None)] * len(shape)
                idx[ax] = side
                mask[tuple(idx)] = True
    return mask


def layered_faces(dim, free_surface):
    """Which faces have a layer, in the array order c.read_rsf gives (the
    depth axis last)."""
    depth = (not free_surface, True)
    return [(True, True)] * (dim - 1) + [depth]


def check_case(scr, dim, free_surface, failures):
    tag = f"{dim}D{'' if free_surface else ' no free surface'}"
    true, start, acq, layouts = tg.models(dim)
    if not free_surface:
        acq = acq[:acq.index("-pml_top")] + acq[acq.index("-pml_top") + 2:]
    key = f"{dim}{'f' if free_surface else 'a'}"
    obs = scr.sub(f"obs{key}")
    c.run(1, ["-mode", "forward", "-vp", c.write_model(scr.sub(f"true{key}.rsf"), true, tg.DX)] + acq, obs)
    m_path = c.write_model(scr.sub(f"m{key}.rsf"), start, tg.DX)
    m, _ = c.read_rsf(m_path)
    base = ["-mode", "gradient"] + acq + ["-vp_max", tg.VP_MAX, "-observed_dir", obs, "-vp", m_path]
    boundary = base + ["-gradient_method", "boundary"]
    edges = edge_mask(m.shape, layered_faces(dim, free_surface))

    J1, g1, out = run_gradient(1, boundary, scr.sub(f"g{key}_1"), (1, 1, 1))
    c.check("gradient method: boundary" in out, f"{tag}: the run does not say it uses the boundary method:\n{out}")
    Jf, gf, _ = run_gradient(1, base + ["-gradient_method", "full"], scr.sub(f"g{key}_full"))
    inner = ~edges
    rel = float(np.linalg.norm((g1 - gf)[inner]) / np.linalg.norm(gf[inner]))
    print(f"  (c) {tag}: boundary vs full, cells not next to the layers: relative L2 {rel:.2e}; misfit {J1!r} vs {Jf!r}", flush=True)
    if not rel <= RECON_TOL:
        failures.append(f"(c) {tag}: boundary vs full relative L2 {rel:.2e} > {RECON_TOL:.0e}")
    if J1 != Jf:
        failures.append(f"(c) {tag}: misfit {J1!r} with the boundary method, {Jf!r} with full storage")

    if free_surface:
        for name, (n, opts, lay) in layouts.items():
            J, g, _ = run_gradient(n, boundary + opts, scr.sub(f"g{key}_{name}"), lay)
            dg = float(np.abs(g - g1).max() / np.abs(g1).max())
            dJ = abs(J - J1) / J1
            print(f"  (b) {tag} {name:6s}: misfit rel diff {dJ:.2e}, gradient max|diff|/max|g| {dg:.2e}", flush=True)
            if not dJ <= tg.MISFIT_TOL:
                failures.append(f"(b) {tag} {name}: misfit {J:.17g} vs 1 rank {J1:.17g}")
            if not dg <= tg.GRAD_TOL:
                failures.append(f"(b) {tag} {name}: gradient max|diff|/max|g| {dg:.2e} > {tg.GRAD_TOL:.0e}")

    # directions chosen on the gradient where they are nonzero, then cut at the layers' neighbours
    n4, opts4, lay4 = layouts["groups"]
    runs = [("1 rank", 1, [], g1)]
    if free_surface:
        runs.append((f"{n4} ranks, 2 groups", n4, opts4, run_gradient(n4, boundary + opts4, scr.sub(f"g{key}_g4"), lay4)[1]))
    directions = [(seed, np.where(edges, 0.0, dm), rho) for seed, dm, rho in tg.choose_directions(np.where(edges, 0.0, g1), J1, m.shape)]
    tg.fd_along(scr, key, tag, boundary[:boundary.index("-vp")] + boundary[boundary.index("-vp") + 2:], m, directions, runs, failures)

def check_long(scr, failures):
    """(c) at 5000 internal steps, 2D, free surface."""
    true, start, acq, _ = tg.models(2)
    acq = acq[:acq.index("-nt")] + ["-nt", 5000] + acq[acq.index("-nt") + 2:]
    obs = scr.sub("obs_long")
    c.run(1, ["-mode", "forward", "-vp", c.write_model(scr.sub("true_long.rsf"), true, tg.DX)] + acq, obs)
    m_path = c.write_model(scr.sub("m_long.rsf"), start, tg.DX)
    base = ["-mode", "gradient"] + acq + ["-vp_max", tg.VP_MAX, "-observed_dir", obs, "-vp", m_path]
    Jb, gb, out = run_gradient(1, base + ["-gradient_method", "boundary"], scr.sub("long_b"))
    steps = int(re.search(r"(\d+) steps\n", out).group(1))
    Jf, gf, _ = run_gradient(1, base + ["-gradient_method", "full"], scr.sub("long_f"))
    inner = ~edge_mask(gb.shape, layered_faces(2, True))
    rel = float(np.linalg.norm((gb - gf)[inner]) / np.linalg.norm(gf[inner]))
    print(f"  (c) 2D, {steps} internal steps: boundary vs full relative L2 {rel:.2e} (limit {RECON_TOL:.0e}); "
          f"misfit {Jb!r} vs {Jf!r}", flush=True)
    c.check(steps >= 5000, f"expected at least 5000 internal steps, the run has {steps}")
    if not rel <= RECON_TOL or Jb != Jf:
        failures.append(f"(c) 2D {steps} steps: boundary vs full relative L2 {rel:.2e} (limit {RECON_TOL:.0e}), misfits {Jb!r} {Jf!r}")


def check_edges(scr, failures):
    """(c) sources and receivers on the user cells next to the layers (the
    band is the layer cells just beyond them), 2D and 3D: boundary against
    full storage as above, 2 shot groups x 2 subdomains."""
    for dim in (2, 3):
        true, start, acq, layouts = tg.models(dim)
        n4, opts4, lay4 = layouts["groups"]
        # the far corner of the horizontal axes, as the geometry file orders them: x (then y)
        far = [(n - 1) * tg.DX for n in reversed(start.shape[:-1])]
        near = [0.0] * (dim - 1)
        deep = (start.shape[-1] - 1) * tg.DX
        shots = [(tuple(far) + (30.0,), [tuple(near) + (20.0,), tuple(far) + (deep,)]),
                 (tuple(near) + (deep,), [tuple(far) + (40.0,), tuple(near) + (10.0,)])]
        geo = c.write_geometry(scr.sub(f"edges{dim}.txt"), shots, comment="sources and receivers next to the layers")
        acq_e = without(acq, ("-nshots", "-nrec", "-source_depth", "-receiver_depth")) + ["-geometry", geo]
        obs = scr.sub(f"obs_edges{dim}")
        c.run(1, ["-mode", "forward", "-vp", c.write_model(scr.sub(f"true_edges{dim}.rsf"), true, tg.DX)] + acq_e, obs)
        base = ["-mode", "gradient"] + acq_e + ["-vp_max", tg.VP_MAX, "-observed_dir", obs,
                                                "-vp", c.write_model(scr.sub(f"m_edges{dim}.rsf"), start, tg.DX)]
        Jb, gb, _ = run_gradient(n4, base + opts4 + ["-gradient_method", "boundary"], scr.sub(f"edges{dim}_b"), lay4)
        Jf, gf, _ = run_gradient(n4, base + opts4 + ["-gradient_method", "full"], scr.sub(f"edges{dim}_f"), lay4)
        inner = ~edge_mask(gb.shape, layered_faces(dim, True))
        rel = float(np.linalg.norm((gb - gf)[inner]) / np.linalg.norm(gf[inner]))
        print(f"  (c) {dim}D, sources and receivers next to the layers: boundary vs full relative L2 {rel:.2e}; "
              f"misfit {Jb!r} vs {Jf!r}", flush=True)
        if not rel <= RECON_TOL or Jb != Jf:
            failures.append(f"(c) {dim}D edges: boundary vs full relative L2 {rel:.2e}, misfits {Jb!r} {Jf!r}")


def main():
    scr = c.Scratch("gradient_boundary")
    failures = []
    with scr:
        check_case(scr, 2, True, failures)
        check_case(scr, 2, False, failures)
        check_case(scr, 3, True, failures)
        check_long(scr, failures)
        check_edges(scr, failures)
        if failures:
            c.fail(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    c.main(main)
