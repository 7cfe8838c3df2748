#!/usr/bin/env python3
"""-mode invert -physics variable_density for vp and density together
(-invert_for vp,rho):

- a density lens under a known velocity (vp, the start, is the true one):
  6 iterations for vp,rho bring the misfit lower than 6 for vp alone (limit:
  0.95 of it), move the density in the lens towards the truth and lower
  the density error; -parameterisation impedance (vp and rho vp) also fits
  below the start; rho_NNNN.rsf and rho.rsf beside vp's;
- 4 ranks (2 x 2) give the bits of 1 (vp.rsf and rho.rsf), with full
  storage and with -gradient_method boundary, whose misfit falls below 0.6
  of the start's too (0.406 against full storage's 0.494: its gradient
  lacks the cells next to the layers, where the sources and receivers lie,
  20 m deep, so TAO takes another path);
- the gradient TAO receives, in its own variables, against central
  differences of the objective TAO sees (PETSc's -tao_test_gradient, every
  variable of a small model), for vp,rho in each parameterisation
  (velocity, slowness, impedance): the chain rules of invert.c, the
  scaling of each block and the stacking of the blocks (limit 5e-3 of
  |G|; measured 5e-4 to 6e-4, and 0.37 for impedance with dJ/dv taken at
  fixed density), and for velocity data (-record vx; -record vz under a
  free surface: geophones), whose residuals the adjoint takes into the
  velocities, and for pressure and vz data together (-record p,vz: dual
  sensors, the misfits weighted by the data's energies);
- bad input is refused before any work, naming the value: -invert_for
  with an unknown name, without vp first, rho under -physics acoustic;
  -parameterisation impedance or -rho_min without rho inverted.

With a surface line alone the data see a density lens mostly as an
impedance contrast, which a vp lens can imitate at these angles;
tests/test_vd_density.py recovers one with a line of receivers below it.
"""
import os
import re

import numpy as np

from common import Scratch, check, error_message, main, misfit_ratio, read_rsf, run, write_model

D, NZ, NX = 10.0, 90, 160
SURVEY = ["-physics", "variable_density", "-nshots", 5, "-nrec", 60, "-nt", 800, "-dt", 0.001, "-source_depth", 20, "-receiver_depth", 20, "-order", 8, "-f0", 12]


def models(tmp):
    z = np.arange(NZ)[None, :] * D
    x = np.arange(NX)[:, None] * D
    vp = (2000 + 0.8 * z + 0 * x).astype(np.float32)
    rho0 = np.full((NX, NZ), 2000, np.float32)
    lens = np.exp(-((x - 800) ** 2 + (z - 450) ** 2) / 90.0 ** 2)
    rho_true = (rho0 + 300 * lens).astype(np.float32)
    paths = {name: write_model(os.path.join(tmp, name + ".rsf"), a, D) for name, a in (("vp", vp), ("rho0", rho0), ("rho_true", rho_true))}
    return paths, rho0, rho_true, lens > 0.5


def joint(tmp):
    paths, rho0, rho_true, lens = models(tmp)
    obs = os.path.join(tmp, "obs")
    run(1, ["-vp", paths["vp"], "-rho", paths["rho_true"]] + SURVEY, obs)
    base = ["-mode", "invert", "-vp", paths["vp"], "-rho", paths["rho0"], "-observed_dir", obs, "-tao_max_it", 6, "-first_step", 0.01] + SURVEY
    out = {}
    for tag, extra in (("vp", []), ("vp_rho", ["-invert_for", "vp,rho"]), ("impedance", ["-invert_for", "vp,rho", "-parameterisation", "impedance"])):
        out[tag] = os.path.join(tmp, tag)
        run(1, base + extra, out[tag])
    run(4, base + ["-invert_for", "vp,rho", "-da_processors_z", 2, "-da_processors_x", 2], os.path.join(tmp, "split"))
    ratio = {tag: misfit_ratio(d) for tag, d in out.items()}
    rho = read_rsf(os.path.join(out["vp_rho"], "rho.rsf"))[0]
    err = [float(np.linalg.norm(r - rho_true)) for r in (rho0, rho)]
    change = float((rho - rho0)[lens].mean())
    print(f"misfit after 6 iterations, of the start's: vp alone {ratio['vp']:.3f}, vp,rho {ratio['vp_rho']:.3f}, vp and impedance {ratio['impedance']:.3f}")
    print(f"density: error {err[1]:.5g} against {err[0]:.5g} at the start; the lens moved {change:.3g} kg/m^3 (true {float((rho_true - rho0)[lens].mean()):.4g})")
    check(ratio["vp_rho"] < 0.95 * ratio["vp"], f"vp,rho fits no better than vp alone: {ratio['vp_rho']:.3f} against {ratio['vp']:.3f}")
    check(ratio["impedance"] < 1, f"-parameterisation impedance: the misfit did not fall ({ratio['impedance']:.3f})")
    check(change > 0 and err[1] < err[0], f"the density moved away from the truth: lens {change:.3g} kg/m^3, error {err[1]:.5g} against {err[0]:.5g}")
    for name in ("rho_0001.rsf", "rho_0006.rsf", "vp_0006.rsf"):
        check(os.path.exists(os.path.join(out["vp_rho"], name)), f"{name} was not written")
    same = all(open(os.path.join(out["vp_rho"], f + "@"), "rb").read() == open(os.path.join(tmp, "split", f + "@"), "rb").read() for f in ("vp.rsf", "rho.rsf"))
    print(f"4 ranks against 1: {'the same bits' if same else 'different'}")
    check(same, "4 ranks (2 x 2) invert to another vp.rsf or rho.rsf than 1 rank")
    # the boundary method (the planner takes full storage for 6 iterations)
    bnd = ["-invert_for", "vp,rho", "-gradient_method", "boundary"]
    run(1, base + bnd, os.path.join(tmp, "boundary"))
    run(4, base + bnd + ["-da_processors_z", 2, "-da_processors_x", 2], os.path.join(tmp, "boundary_split"))
    ratio_b = misfit_ratio(os.path.join(tmp, "boundary"))
    same = all(open(os.path.join(tmp, "boundary", f + "@"), "rb").read() == open(os.path.join(tmp, "boundary_split", f + "@"), "rb").read() for f in ("vp.rsf", "rho.rsf"))
    print(f"-gradient_method boundary: misfit {ratio_b:.3f} of the start's (full storage {ratio['vp_rho']:.3f}); 4 ranks against 1: {'the same bits' if same else 'different'}")
    check(ratio_b < 0.6, f"-gradient_method boundary: the misfit fell only to {ratio_b:.3f} of the start's (full storage's to {ratio['vp_rho']:.3f})")
    check(same, "-gradient_method boundary: 4 ranks (2 x 2) invert to another vp.rsf or rho.rsf than 1 rank")
    return paths, obs


def bad_input(tmp, paths, obs):
    base = ["-mode", "invert", "-vp", paths["vp"], "-observed_dir", obs, "-tao_max_it", 1] + SURVEY
    vd = ["-rho", paths["rho0"]]
    cases = [
        (vd + ["-invert_for", "vp,foo"], "-invert_for vp,foo"),
        (vd + ["-invert_for", "rho"], "-invert_for rho"),
        (vd + ["-invert_for", "vp,rho,vp"], "-invert_for vp,rho,vp"),
        (vd + ["-parameterisation", "impedance"], "-parameterisation impedance"),
        (vd + ["-rho_min", 1500], "-rho_min"),
        (vd + ["-invert_for", "vp,rho", "-rho_min", 2100], "outside the bounds"),
    ]
    acoustic = [a for a in base if a not in ("-physics", "variable_density")] + ["-invert_for", "vp,rho"]
    for k, (args, want) in enumerate(cases + [(None, "-invert_for vp,rho")]):
        out_dir = os.path.join(tmp, f"bad{k}")
        out = run(1, (base + args) if args is not None else acoustic, out_dir, expect_fail=True)
        msg = error_message(out)
        print(f"  {want}: {msg}")
        check(want.lower() in msg.lower(), f"{args}: the message does not say '{want}': {msg}")
        check(not os.path.exists(os.path.join(out_dir, "misfit.csv")), f"{args}: the inversion started")


def tao_gradient(tmp):
    """-tao_test_gradient on a 16 x 12 model, a density step in the data;
    full storage, whose gradient is the objective's derivative in every
    cell (the boundary method's lacks the layers' terms, which TAO's
    differences of the user's edge cells see)."""
    small = ["-physics", "variable_density", "-vp", 2000, "-dx", D, "-nx", 16, "-nz", 12, "-pml_width", 6, "-nshots", 1, "-nrec", 6, "-nt", 250, "-dt", 0.001,
             "-source_depth", 30, "-receiver_depth", 30, "-order", 4, "-f0", 25]
    # each parameterisation on pressure data; velocity data (geophones),
    # recorded and read with -record, vz under a free surface
    cases = [("velocity", []), ("slowness", []), ("impedance", []), ("velocity", ["-record", "vx"]), ("velocity", ["-record", "vz", "-pml_top", 0]),
             ("velocity", ["-record", "p,vz", "-pml_top", 0])]
    for k, (par, data) in enumerate(cases):
        name = f"-parameterisation {par} {' '.join(map(str, data))}".strip()
        obs = os.path.join(tmp, f"small_obs{len(data)}{data[1].replace(',', '') if data else ''}")
        if not os.path.exists(obs):
            run(1, small + ["-rho", 2200] + data, obs)
        # TAO reads -tao_test_gradient and -tao_fd_delta where halofwi's
        # check of the options cannot see them: -unused_options warn
        out = run(1, small + ["-mode", "invert", "-rho", 2000, "-observed_dir", obs, "-invert_for", "vp,rho", "-parameterisation", par, "-tao_max_it", 0,
                              "-tao_test_gradient", "-tao_fd_delta", 1e-3, "-source_taper", 0, "-receiver_taper", 0, "-precondition", "none", "-unused_options", "warn",
                              "-gradient_method", "full"] + data,
                  os.path.join(tmp, f"small_{k}"))
        m = re.search(r"2-norm \|\|G - Gfd\|\|/\|\|G\|\| = ([0-9.eE+-]+)", out)
        check(m is not None, f"{name}: TAO printed no gradient test")
        err = float(m.group(1))
        print(f"{name}: TAO's gradient against central differences, |G - Gfd| / |G| = {err:.3g}")
        check(err < 5e-3, f"{name}: the gradient TAO receives is not the derivative of its objective (|G - Gfd| / |G| = {err:.3g}, limit 5e-3)")


def test():
    with Scratch("vd_inversion") as tmp:
        tao_gradient(tmp)
        paths, obs = joint(tmp)
        bad_input(tmp, paths, obs)


if __name__ == "__main__":
    main(test)
