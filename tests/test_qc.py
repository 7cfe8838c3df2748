#!/usr/bin/env python3
"""-qc_shots and -qc_illumination (-mode invert; the 2D model and survey of
test_gradient.py, two bands):

- per band, observed, modelled and residual gathers of the chosen shots,
  and of no other, under -output_dir/qc, written by the group that holds
  each shot (2 shot groups); residual = modelled - observed, and
  1/2 sum(residual^2) over the shots is the band's last misfit in
  misfit.csv (within 1e-5): the modelled gathers are the band's final
  model's and the observed ones the data as the band fits them;
- illumination_B.rsf per band, model-sized, finite, not negative and
  largest at the sources' depth; the same
  (within 1e-6) whether the preconditioner computed it or, with
  -precondition none, the QC did;
- -qc_shots naming a shot the survey lacks, or not a number, is refused
  naming the value; a QC file of an earlier run in the folder is refused
  without -overwrite.
- scripts/plot qc draws the three side by side (where matplotlib is)."""
import os
import subprocess
import sys

import numpy as np

import common as c
import test_gradient as tg

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARTS = ("observed", "modelled", "residual")


def qc_path(out, band, shot, part):
    return os.path.join(out, "qc", "band_%d_shot_%04d_%s.rsf" % (band, shot, part))


def last_misfit(out):
    rows = np.genfromtxt(os.path.join(out, "misfit.csv"), delimiter=",", names=True)
    return {int(b): float(rows["misfit"][rows["band"] == b][-1]) for b in np.unique(rows["band"])}


def main():
    scr = c.Scratch("qc")
    with scr:
        _, start, obs, acq, _ = tg.survey_2d(scr)
        shape = c.read_rsf(start)[0].shape
        inv = ["-mode", "invert", "-vp", start, "-observed_dir", obs, "-vp_min", 1800, "-vp_max", 2600, "-source_taper", 0,
               "-receiver_taper", 0, "-bands", "5,8", "-qc_illumination"] + acq

        out = scr.sub("groups")
        c.run(2, inv + ["-tao_max_it", 2, "-shot_groups", 2, "-qc_shots", "1,0"], out)
        J = last_misfit(out)
        for band in (1, 2):
            half_sum = 0.0
            for shot in (0, 1):
                g = {p: c.read_rsf(qc_path(out, band, shot, p))[0].astype(np.float64) for p in PARTS}
                c.check(g["observed"].shape == (20, 300), f"band {band} shot {shot}: observed gather {g['observed'].shape}, expected 20 traces of 300 samples")
                err = np.abs(g["residual"] - (g["modelled"] - g["observed"])).max() / np.abs(g["observed"]).max()
                c.check(err < 1e-6, f"band {band} shot {shot}: residual differs from modelled - observed by {err:.3g} of the observed peak")
                half_sum += 0.5 * (g["residual"] ** 2).sum()
            rel = abs(half_sum - J[band]) / J[band]
            print(f"  band {band}: 1/2 sum(residual^2) {half_sum:.9e}, misfit.csv {J[band]:.9e} (relative difference {rel:.2e})", flush=True)
            c.check(rel < 1e-5, f"band {band}: the QC residuals give a misfit {half_sum:.9e}, misfit.csv {J[band]:.9e}")
            e = c.read_rsf(os.path.join(out, "illumination_%d.rsf" % band))[0]
            peak_depth = np.unravel_index(np.argmax(e), e.shape)[-1] * tg.DX
            c.check(e.shape == shape and np.all(np.isfinite(e)) and e.min() >= 0 and abs(peak_depth - 50) <= 20,
                    f"illumination_{band}.rsf: shape {e.shape} (model {shape}), range {e.min()} to {e.max()}, peak at {peak_depth} m deep (the sources: 50 m)")
        first = c.read_rsf(os.path.join(out, "qc", "band_1_shot_0000_observed.rsf"))[0]
        second = c.read_rsf(os.path.join(out, "qc", "band_2_shot_0000_observed.rsf"))[0]
        c.check(np.abs(first - second).max() > 1e-3 * np.abs(second).max(), "band 1's observed gather is band 2's: not low-passed for the band")

        plain = scr.sub("plain")
        c.run(1, inv + ["-tao_max_it", 1, "-precondition", "none", "-qc_shots", 1], plain)
        written = sorted(os.listdir(os.path.join(plain, "qc")))
        c.check([w for w in written if w.endswith(".rsf")] == ["band_%d_shot_0001_%s.rsf" % (b, p) for b in (1, 2) for p in ("modelled", "observed", "residual")]
                + ["coords_0001.rsf"], f"-qc_shots 1 wrote {written}: expected shot 1's three gathers per band and its coordinates only")
        a = c.read_rsf(os.path.join(out, "illumination_1.rsf"))[0].astype(np.float64)
        b = c.read_rsf(os.path.join(plain, "illumination_1.rsf"))[0].astype(np.float64)  # the same starting model
        c.check(np.abs(a - b).max() <= 1e-6 * a.max(), f"illumination_1.rsf: -precondition none gives another ({np.abs(a - b).max() / a.max():.3g} of the peak)")
        c.check(os.path.exists(os.path.join(plain, "illumination_2.rsf")), "-precondition none wrote no illumination_2.rsf")

        for bad, word in (("0,2", "'2'"), ("a", "'a'")):
            log = c.run(1, inv + ["-qc_shots", bad], scr.sub("bad"), expect_fail=True)
            msg = c.error_message(log) or log
            c.check(word in msg and "0 to 1" in msg, f"-qc_shots {bad}: unclear error: {msg}")
        stale = scr.sub("stale")
        os.makedirs(os.path.join(stale, "qc"))
        open(qc_path(stale, 2, 1, "modelled"), "w").close()
        log = c.run(1, inv + ["-qc_shots", 1], stale, expect_fail=True)
        c.check("band_2_shot_0001_modelled.rsf exists" in (c.error_message(log) or log), f"an earlier run's QC file is not refused: {c.error_message(log)}")
        lit = scr.sub("lit")
        os.makedirs(lit)
        open(os.path.join(lit, "illumination_2.rsf"), "w").close()
        log = c.run(1, inv, lit, expect_fail=True)
        c.check("illumination_2.rsf exists" in (c.error_message(log) or log), f"an earlier run's illumination is not refused: {c.error_message(log)}")

        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("  matplotlib missing: scripts/plot qc not tried")
            return
        png = scr.sub("qc.png")
        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot"), "qc", qc_path(out, 2, 1, "residual"), png, "--agc", "0.1"],
                           capture_output=True, text=True)
        c.check(r.returncode == 0 and os.path.getsize(png) > 10000, f"scripts/plot qc: exit {r.returncode}: {r.stderr}")


if __name__ == "__main__":
    c.main(main)
