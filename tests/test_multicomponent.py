#!/usr/bin/env python3
"""A misfit of several components: -record p,vz (and more) with -mode
gradient or invert reads shot_NNNN.rsf as the first component's data and
shot_NNNN_<component>.rsf as each further one's, and sums their misfits.

- Variable density, 2D, two shots: J and the gradient of a p,vz misfit are
  those of p alone plus w times those of vz alone, w being the observed
  pressure's energy over the vertical velocity's (computed here from the
  files, the rule docs/options.md states): J to 1e-9, the gradients to
  1e-5 (relative L2; the two adjoint runs round differently from the one
  that takes both residuals at once), vz's share of each above 0.01.  With -misfit trace_l2, blind to
  scale, the weights are 1: J is the sum.  -record_weights 2,3 and 1,0
  multiply the balanced weights (J to 1e-9, the gradients to 1e-5).
- Elastic, 2D, p,vz,vx (full storage), and variable density vz,p (the
  boundary method, whose one rank takes two reverse steps a sweep): 2
  ranks (split along x) and 2 shot groups give the gradients and misfit
  of 1 rank bit for bit.
- -qc_shots writes each component's observed, modelled and residual
  gathers (the further ones' names end _NAME).
- SEG-Y: -observed_segy on the folder -mode forward -output_format segy
  -record p,vz wrote (shot_NNNN.sgy, shot_NNNN_vz.sgy) gives the misfit and
  gradient of the RSF gathers bit for bit, with -record p,vz and with
  -record p (which reads the p files alone: the folder's vz files are not
  taken for more shots or receivers); a single file x.sgy takes its
  further components from x_vz.sgy beside it.
- Refused before any work, naming the value: a further component's file
  missing (RSF, and SEG-Y files named for it), SEG-Y files of a further
  component that hold another survey, a further component zero in every
  sample, -record_weights of another count than the components, a
  negative weight, every weight 0; -restart of an inversion of p and vz
  with -record p.
"""
import shutil
import os
import re

import numpy as np

from common import Scratch, check, error_message, main, read_rsf, run, write_rsf

GRID = ["-dx", 10, "-nx", 48, "-nz", 36, "-pml_width", 8, "-order", 4, "-f0", 15, "-rho", 2000]
SURVEY = ["-nshots", 2, "-nrec", 12, "-nt", 400, "-dt", 0.001, "-source_depth", 60, "-receiver_depth", 40]
VD = ["-physics", "variable_density"] + GRID + SURVEY
EL = ["-physics", "elastic", "-vs", 1100, "-pml_top", 0] + GRID + SURVEY


def misfit(out):
    m = re.search(r"^misfit ([0-9.eE+-]+)$", out, re.M)
    check(m is not None, "the gradient run printed no misfit")
    return float(m.group(1))


def gradient(tmp, tag, args):
    out_dir = os.path.join(tmp, tag)
    out = run(1, args + ["-mode", "gradient"], out_dir)
    return misfit(out), read_rsf(os.path.join(out_dir, "gradient.rsf"))[0].astype(np.float64), out


def energy(obs, name):
    return sum(float(np.sum(read_rsf(os.path.join(obs, f"shot_{s:04d}{name}.rsf"))[0].astype(np.float64) ** 2)) for s in range(2))


def sums(tmp):
    both, vz_only = os.path.join(tmp, "obs"), os.path.join(tmp, "obs_vz")
    run(1, VD + ["-vp", 2000, "-record", "p,vz"], both)
    run(1, VD + ["-vp", 2000, "-record", "vz"], vz_only)
    start = VD + ["-vp", 2080, "-gradient_method", "full"]
    w = energy(both, "") / energy(both, "_vz")
    for kind, weight in (("l2", w), ("trace_l2", 1.0)):
        J, G, out = gradient(tmp, f"pvz_{kind}", start + ["-observed_dir", both, "-record", "p,vz", "-misfit", kind])
        Jp, Gp, _ = gradient(tmp, f"p_{kind}", start + ["-observed_dir", both, "-record", "p", "-misfit", kind])
        Jz, Gz, _ = gradient(tmp, f"vz_{kind}", start + ["-observed_dir", vz_only, "-record", "vz", "-misfit", kind])
        want_J, want_G = Jp + weight * Jz, Gp + weight * Gz
        errJ = abs(J - want_J) / abs(want_J)
        errG = float(np.linalg.norm(G - want_G) / np.linalg.norm(want_G))
        share = (weight * Jz / want_J, float(np.linalg.norm(weight * Gz) / np.linalg.norm(want_G)))
        print(f"-misfit {kind}: vz weighted {weight:.6g}, its share of J {share[0]:.3f} and of |G| {share[1]:.3f}; J against p's + w vz's {errJ:.2e}, the gradient {errG:.2e} (relative L2)")
        check(min(share) > 0.01 and share[0] < 0.99, f"-misfit {kind}: vz's shares of J and |G| are {share[0]:.3f} and {share[1]:.3f}, so the test shows little of the sum")
        check(errJ < 1e-9, f"-misfit {kind}: J of p,vz {J:.17g} is not J(p) + {weight:.6g} J(vz) = {want_J:.17g}")
        check(errG < 1e-5, f"-misfit {kind}: the p,vz gradient differs from p's + {weight:.6g} vz's by {errG:.2e} (limit 1e-5)")
        if kind == "l2":
            m = re.search(r"misfit weighs its components p 1, vz ([0-9.eE+-]+)", out)
            check(m is not None and abs(float(m.group(1)) - w) <= 1e-3 * w, f"the run did not print vz's weight {w:.4g}: {m.group(0) if m else 'no line'}")
            # -record_weights multiply the balance: 2 and 3, and vz left out (0)
            for weights, a, b in (("2,3", 2.0, 3.0), ("1,0", 1.0, 0.0)):
                Jw, Gw, _ = gradient(tmp, f"pvz_w{weights.replace(',', '_')}", start + ["-observed_dir", both, "-record", "p,vz", "-record_weights", weights])
                want_J, want_G = a * Jp + b * w * Jz, a * Gp + b * w * Gz
                errJ, errG = abs(Jw - want_J) / want_J, float(np.linalg.norm(Gw - want_G) / np.linalg.norm(want_G))
                print(f"-record_weights {weights}: J against {a:g} J(p) + {b:g} w J(vz) {errJ:.2e}, the gradient {errG:.2e}")
                check(errJ < 1e-9 and errG < 1e-5, f"-record_weights {weights}: J {Jw:.17g} against {want_J:.17g}, gradient {errG:.2e} (limits 1e-9, 1e-5)")
    return both


def decomposition(tmp):
    """Elastic p,vz,vx by full storage, and variable density vz,p by the
    boundary method (one rank takes two reverse steps a sweep, the
    velocity residuals between them; 2 ranks one): 2 ranks and 2 shot
    groups give the misfit and gradients of 1 rank bit for bit."""
    cases = (("elastic p,vz,vx", EL, "p,vz,vx", ["-gradient_method", "full"], ("gradient.rsf", "gradient_vs.rsf", "gradient_rho.rsf")),
             ("variable density vz,p", VD + ["-pml_top", 0], "vz,p", ["-gradient_method", "boundary", "-invert_for", "vp,rho"], ("gradient.rsf", "gradient_rho.rsf")))
    for k, (name, model, comps, method, files) in enumerate(cases):
        obs = os.path.join(tmp, f"dec{k}_obs")
        run(1, model + ["-vp", 2000, "-record", comps], obs)
        args = model + ["-vp", 2080, "-observed_dir", obs, "-record", comps, "-mode", "gradient"] + method
        ref = os.path.join(tmp, f"dec{k}_one")
        J1 = misfit(run(1, args, ref))
        for tag, n, extra in (("split", 2, ["-da_processors_x", 2]), ("groups", 2, ["-shot_groups", 2])):
            out_dir = os.path.join(tmp, f"dec{k}_{tag}")
            J = misfit(run(n, args + extra, out_dir))
            same = all(open(os.path.join(ref, f + "@"), "rb").read() == open(os.path.join(out_dir, f + "@"), "rb").read() for f in files)
            print(f"{name}, {tag} ({n} ranks): J {J:.17g} against {J1:.17g} on 1; gradients {'the same bits' if same else 'differ'}")
            check(J == J1 and same, f"{name}: {tag} on {n} ranks gives another misfit or gradient than 1 rank")


def segy_components(tmp):
    """The folder of SEG-Y gathers of p and vz against the RSF gathers, on a
    survey whose positions SEG-Y headers hold exactly."""
    geometry = os.path.join(tmp, "survey.txt")
    with open(geometry, "w") as f:
        for sx in (100, 380):
            f.write(f"S {sx} 60\n" + "".join(f"R {rx} 40\n" for rx in range(20, 470, 40)))
    model = ["-physics", "variable_density"] + GRID + ["-nt", 400, "-dt", 0.001]
    rsf_dir, segy_dir = os.path.join(tmp, "obs_rsf"), os.path.join(tmp, "obs_segy")
    run(1, model + ["-vp", 2000, "-geometry", geometry, "-record", "p,vz"], rsf_dir)
    run(1, model + ["-vp", 2000, "-geometry", geometry, "-record", "p,vz", "-output_format", "segy"], segy_dir)
    start = model + ["-vp", 2080, "-gradient_method", "full"]
    for record in ("p,vz", "p"):
        J, G, _ = gradient(tmp, f"rsf_{record}", start + ["-geometry", geometry, "-observed_dir", rsf_dir, "-record", record])
        Js, Gs, out = gradient(tmp, f"segy_{record}", start + ["-observed_segy", segy_dir, "-record", record])
        survey = re.search(r"^survey .*$", out, re.M)
        print(f"-observed_segy of p and vz files, -record {record}: J {Js:.17g} against the RSF gathers' {J:.17g}; gradients {'the same bits' if Gs.tobytes() == G.tobytes() else 'differ'}; {survey.group(0) if survey else ''}")
        check(J == Js and G.tobytes() == Gs.tobytes(), f"-observed_segy with -record {record}: another misfit or gradient than the RSF gathers")
    one = os.path.join(tmp, "segy_one")
    os.makedirs(one)
    shutil.copy(os.path.join(segy_dir, "shot_0000.sgy"), os.path.join(one, "x.sgy"))
    shutil.copy(os.path.join(segy_dir, "shot_0000_vz.sgy"), os.path.join(one, "x_vz.sgy"))
    J1, _, _ = gradient(tmp, "segy_file", start + ["-observed_segy", os.path.join(one, "x.sgy"), "-record", "p,vz"])
    check(J1 > 0, "-observed_segy x.sgy -record p,vz: no misfit")
    print(f"  -observed_segy x.sgy -record p,vz (x_vz.sgy beside it): J {J1:.6g}")
    shutil.copy(os.path.join(segy_dir, "shot_0001_vz.sgy"), os.path.join(one, "y_vz.sgy"))
    shutil.copy(os.path.join(segy_dir, "shot_0000.sgy"), os.path.join(one, "y.sgy"))
    return segy_dir, os.path.join(one, "y.sgy"), start


def bad_input(tmp, both, segy):
    zero = os.path.join(tmp, "obs_zero")
    os.makedirs(zero)
    for s in range(2):
        for name in ("", "_vz"):
            a, h = read_rsf(os.path.join(both, f"shot_{s:04d}{name}.rsf"))
            a = a.reshape(int(h["n2"]), int(h["n1"]))
            write_rsf(os.path.join(zero, f"shot_{s:04d}{name}.rsf"), a * 0 if name else a, d=(float(h["d1"]), 1.0))
    segy_dir, other_survey, segy_start = segy
    base = VD + ["-vp", 2080, "-mode", "gradient"]
    cases = [
        (base + ["-observed_dir", both, "-record", "p,vz,vx"], "shot_0000_vx.rsf is missing"),
        (base + ["-observed_dir", zero, "-record", "p,vz"], "the observed vz data are zero in every sample"),
        (segy_start + ["-mode", "gradient", "-observed_segy", segy_dir, "-record", "p,vx"], "holds no *_vx.sgy or *_vx.segy files (the recorded component vx)"),
        (segy_start + ["-mode", "gradient", "-observed_segy", other_survey, "-record", "p,vz"], "the vz traces (files named *_vz) hold another survey than the p traces"),
        (base + ["-observed_dir", both, "-record", "p,vz", "-record_weights", 1], "-record_weights: 1 weight for the 2 components"),
        (base + ["-observed_dir", both, "-record", "p,vz", "-record_weights", "1,-2"], "-record_weights: -2 for vz; expected a weight of 0 or more"),
        (base + ["-observed_dir", both, "-record", "p,vz", "-record_weights", "0,0"], "every weight is 0"),
    ]
    for k, (args, want) in enumerate(cases):
        out_dir = os.path.join(tmp, f"bad{k}")
        msg = error_message(run(1, args, out_dir, expect_fail=True))
        print(f"  {want}: {msg}")
        check(want in msg, f"the message does not say \"{want}\": {msg}")
        check(not os.path.exists(os.path.join(out_dir, "gradient.rsf")), f"{args}: a gradient was written")
    # an inversion of p and vz, its result removed as if it had been stopped,
    # is not carried on with -record p: restart/run.txt records -record
    inv = os.path.join(tmp, "inv_pvz")
    invert = VD + ["-vp", 2080, "-mode", "invert", "-observed_dir", both, "-tao_max_it", 1]
    run(1, invert + ["-record", "p,vz", "-qc_shots", 0], inv)
    # the QC gathers of both components (one band: the data as given)
    qc = {part: read_rsf(os.path.join(inv, "qc", f"band_1_shot_0000_{part}_vz.rsf"))[0] for part in ("observed", "modelled", "residual")}
    same = qc["observed"].tobytes() == read_rsf(os.path.join(both, "shot_0000_vz.rsf"))[0].tobytes()
    check(same and np.abs(qc["residual"] - (qc["modelled"] - qc["observed"])).max() <= 1e-6 * np.abs(qc["residual"]).max() and os.path.exists(os.path.join(inv, "qc", "band_1_shot_0000_observed.rsf")),
          "-qc_shots 0 with -record p,vz: the vz QC gathers are not vz's data, modelled and residual (or p's are missing)")
    print("  -qc_shots 0: band_1_shot_0000_{observed,modelled,residual}_vz.rsf beside p's, the observed vz's bits, residual = modelled - observed (to 1e-6 of its peak: the program flushes subnormals)")
    for name in ("vp.rsf", "vp.rsf@"):
        os.remove(os.path.join(inv, name))
    msg = error_message(run(1, invert + ["-record", "p", "-restart"], inv, expect_fail=True))
    print(f"  -restart with another -record: {msg[:120]}...")
    check("-record was p,vz, now p" in msg, f"-restart with -record p after p,vz does not name -record: {msg}")


def test():
    with Scratch("multicomponent") as tmp:
        both = sums(tmp)
        decomposition(tmp)
        bad_input(tmp, both, segy_components(tmp))


if __name__ == "__main__":
    main(test)
