#!/usr/bin/env python3
"""-misfit trace_l2 and correlation (2D, the model and survey of
test_gradient.py, full storage):

(a) finite-difference check of each misfit's gradient (1 rank; (b) makes
    it hold on 4) along two smooth directions, to 1e-3 relative (central differences at h and 2h extrapolated, so that the
    normalised misfits' curvature does not count);
(b) decomposition: the gradient of 2 groups x 2 subdomains equals 1 rank's
    bit for bit, the misfit to 1e-12;
(c) what the misfits ignore: observed data scaled by 3 give the same misfit
    (to 1e-6) under both; one observed trace scaled by 3 changes the l2 and
    correlation misfits but not trace_l2; a dead (all-zero) observed trace
    lowers trace_l2 (it is left out, not counted as a misfit);
(d) data selection (-offset_min/-offset_max, -window_velocity with
    -window_start/-window_end/-window_taper): observed samples changed outside
    the selection leave the l2 misfit as it was, changed inside they do not;
    the gradient with a selection passes the finite-difference check;
(e) per band: with -bands 8,20 and -offset_min 100000,0 no trace is used in
    band 1 (misfit 0) and every one in band 2; a list that is neither one
    value nor one per band is refused, naming the option;
(f) -kill_traces FILE: observed traces the file names, changed, leave the
    misfit bit for bit as it was with the same file, and without the file
    they change it; dead observed traces are left out exactly as if listed,
    and only kept with -kill_dead_traces 0; a trace beyond the survey (named
    with its line), a shot beyond it (named) and a malformed line (its line
    number) are refused, naming the file."""
import os

import numpy as np

import common as c
import test_gradient as tg

DX = tg.DX


def scaled_observed(src, dst, scale):
    """A copy of the observed folder with every gather multiplied by
    scale(gather) (a function of the (nrec, nt) array)."""
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if name.startswith("shot_") and name.endswith(".rsf"):
            g, h = c.read_rsf(os.path.join(src, name))
            c.write_rsf(os.path.join(dst, name), scale(g.astype(np.float64)).astype(np.float32),
                        d=[float(h["d1"]), float(h.get("d2", 1))])
    return dst


def fd_check(scr, args, m, dm, tag):
    """Central differences of J along dm at h and 2h, extrapolated, and from
    the written float32 models (the dm they carry); returns (fd, that dm)."""
    J = {}
    for q in (1, 2):
        for sgn in (1, -1):
            p = c.write_model(scr.sub(f"m_{tag}_{q}_{sgn}.rsf"), (m + sgn * q * tg.H * dm).astype(np.float32), DX)
            J[q, sgn] = tg.misfit_of(c.run(1, args + ["-vp", p], scr.sub(f"r_{tag}_{q}_{sgn}")))
    fd = (4 * (J[1, 1] - J[1, -1]) / (2 * tg.H) - (J[2, 1] - J[2, -1]) / (4 * tg.H)) / 3
    dme = (c.read_rsf(scr.sub(f"m_{tag}_1_1.rsf"))[0].astype(np.float64) - c.read_rsf(scr.sub(f"m_{tag}_1_-1.rsf"))[0]) / (2 * tg.H)
    return fd, dme


def main():
    scr = c.Scratch("misfits")
    with scr:
        _, m_path, obs, acq, layouts = tg.survey_2d(scr)
        m, _ = c.read_rsf(m_path)
        base = ["-mode", "gradient", "-gradient_method", "full"] + acq + ["-vp_max", tg.VP_MAX]
        n4, opts4, lay4 = layouts["groups"]
        failures = []
        for kind in ("trace_l2", "correlation"):
            args = base + ["-misfit", kind, "-observed_dir", obs]
            J1, g1 = tg.gradient_run(1, args + ["-vp", m_path], scr.sub(f"g_{kind}_1"), (1, 1, 1))
            J4, g4 = tg.gradient_run(n4, args + ["-vp", m_path] + opts4, scr.sub(f"g_{kind}_4"), lay4)
            print(f"{kind}: misfit {J1:.12e}, max |g| {np.abs(g1).max():.4e}; 2 groups x 2: misfit rel diff "
                  f"{abs(J4 - J1) / J1:.1e}, gradient {'bit for bit' if np.array_equal(g1, g4) else 'differs'}", flush=True)
            if abs(J4 - J1) > 1e-12 * J1 or not np.array_equal(g1, g4):
                failures.append(f"(b) {kind}: 2 groups x 2 subdomains differ from 1 rank")
            for seed, dm, rho in tg.choose_directions(g1, J1, m.shape):
                fd, dme = fd_check(scr, args, m, dm, f"{kind}_{seed}")
                pred = float(np.sum(g1 * dme))
                rel = abs(fd - pred) / abs(pred)
                print(f"  (a) {kind}, direction {seed} (J changes by {rho:.2%}): FD {fd:.9e}, <g,dm> {pred:.9e}, rel diff {rel:.2e}", flush=True)
                if not rel < tg.FD_TOL:
                    failures.append(f"(a) {kind}, direction {seed}: FD {fd:.9e} vs <g,dm> {pred:.9e}, rel diff {rel:.2e}")

        # (c) what each misfit ignores
        def one_trace(f):
            def scale(g):
                g = g.copy()
                g[3] *= f
                return g
            return scale
        folders = {"x3": scaled_observed(obs, scr.sub("obs_x3"), lambda g: 3 * g),
                   "trace x3": scaled_observed(obs, scr.sub("obs_tr3"), one_trace(3.0)),
                   "dead trace": scaled_observed(obs, scr.sub("obs_dead"), one_trace(0.0))}
        J = {}
        for kind in ("l2", "trace_l2", "correlation"):
            for name, folder in [("as recorded", obs)] + list(folders.items()):
                J[kind, name] = tg.misfit_of(c.run(1, base + ["-misfit", kind, "-observed_dir", folder, "-vp", m_path],
                                                   scr.sub(f"c_{kind}_{name.replace(' ', '_')}")))
            print(f"  (c) {kind}: " + ", ".join(f"{n} {J[kind, n]:.9e}" for n in ["as recorded"] + list(folders)), flush=True)
        same = lambda a, b: abs(a - b) <= 1e-6 * abs(b)
        checks = [(same(J["trace_l2", "x3"], J["trace_l2", "as recorded"]), "trace_l2 changes when the data are scaled by 3"),
                  (same(J["correlation", "x3"], J["correlation", "as recorded"]), "correlation changes when the data are scaled by 3"),
                  (same(J["trace_l2", "trace x3"], J["trace_l2", "as recorded"]), "trace_l2 changes when one trace is scaled by 3"),
                  (not same(J["correlation", "trace x3"], J["correlation", "as recorded"]), "correlation ignores one trace scaled by 3"),
                  (not same(J["l2", "trace x3"], J["l2", "as recorded"]), "l2 ignores one trace scaled by 3"),
                  (not same(J["l2", "x3"], J["l2", "as recorded"]), "l2 ignores the data scaled by 3"),
                  (J["trace_l2", "dead trace"] < J["trace_l2", "as recorded"], "a dead trace does not lower trace_l2")]
        failures += [f"(c) {msg}" for ok, msg in checks if not ok]

        # (d) data selection: offsets 100 to 400 m, a window from 0.05 s before
        # to 0.25 s after the straight-ray arrival at 2000 m/s, 0.05 s tapers
        select = ["-offset_min", 100, "-offset_max", 400, "-window_velocity", 2000, "-window_start", -0.05, "-window_end", 0.25,
                  "-window_taper", 0.05]
        h = c.read_rsf(os.path.join(obs, "shot_0000.rsf"))[1]
        dt = float(h["d1"])
        def noise(where):
            def scale(g):
                g = g.copy()
                t = np.arange(g.shape[1]) * dt
                if where == "outside":  # the last 0.05 s of every trace: beyond every window here
                    g[:, t > t[-1] - 0.05] += 1.0
                else:  # near the arrival of a trace 250 m away, well inside its window
                    g[:, (t > 0.2) & (t < 0.25)] += 1.0
                return g
            return scale
        Js = {}
        for where, folder in (("as recorded", obs), ("outside", scaled_observed(obs, scr.sub("obs_out"), noise("outside"))),
                              ("inside", scaled_observed(obs, scr.sub("obs_in"), noise("inside")))):
            Js[where] = tg.misfit_of(c.run(1, base + select + ["-observed_dir", folder, "-vp", m_path], scr.sub(f"s_{where}")))
        print("  (d) selected l2 misfit: " + ", ".join(f"{k} {v:.9e}" for k, v in Js.items()), flush=True)
        if Js["outside"] != Js["as recorded"] or Js["inside"] == Js["as recorded"]:
            failures.append(f"(d) selection: misfits {Js}: changes outside the selection must not count, inside they must")
        args = base + select + ["-observed_dir", obs]
        J1, g1 = tg.gradient_run(1, args + ["-vp", m_path], scr.sub("g_select"), (1, 1, 1))
        seed, dm, rho = tg.choose_directions(g1, J1, m.shape)[0]
        fd, dme = fd_check(scr, args, m, dm, "sel")
        pred = float(np.sum(g1 * dme))
        rel = abs(fd - pred) / abs(pred)
        print(f"  (d) selected l2, direction {seed}: FD {fd:.9e}, <g,dm> {pred:.9e}, rel diff {rel:.2e}", flush=True)
        if not rel < tg.FD_TOL:
            failures.append(f"(d) selected l2: FD {fd:.9e} vs <g,dm> {pred:.9e}, rel diff {rel:.2e}")

        # (e) a selection per band
        inv = ["-mode", "invert", "-vp", m_path, "-observed_dir", obs, "-vp_max", tg.VP_MAX, "-bands", "8,20", "-tao_max_it", 2] + acq
        out = scr.sub("e_bands")
        c.run(1, inv + ["-offset_min", "100000,0"], out)
        rows = np.genfromtxt(os.path.join(out, "misfit.csv"), delimiter=",", names=True)
        first = {int(b): float(rows["misfit"][rows["band"] == b][0]) for b in np.unique(rows["band"])}
        print(f"  (e) first misfit of each band: {first}", flush=True)
        if not (first.get(1) == 0 and first.get(2, 0) > 0):
            failures.append(f"(e) per-band offsets: band misfits {first}, expected 0 in band 1 and more in band 2")
        bad = c.run(1, inv + ["-offset_max", "1,2,3"], scr.sub("e_bad"), expect_fail=True)
        if "-offset_max" not in c.error_message(bad) or "per band" not in c.error_message(bad):
            failures.append(f"(e) a 3-value -offset_max with 2 bands: unclear error: {c.error_message(bad)}")

        # (f) a list of traces not to use
        kill = scr.sub("kill.txt")
        with open(kill, "w") as f:
            f.write("# shot trace\n0 3\n1 3   # a dead geophone\n\n")
        changed = scaled_observed(obs, scr.sub("obs_killed"), lambda g: g + (np.arange(g.shape[0]) == 3)[:, None])
        dead = folders["dead trace"]  # trace 3 of every shot all zeros
        Jk = {name: tg.misfit_of(c.run(1, base + extra + ["-observed_dir", folder, "-vp", m_path], scr.sub(f"k_{name.replace(' ', '_').replace(',', '')}")))
              for name, folder, extra in (("listed", obs, ["-kill_traces", kill]), ("listed, changed", changed, ["-kill_traces", kill]),
                                          ("changed", changed, []), ("dead", dead, []), ("dead, kept", dead, ["-kill_dead_traces", "0"]))}
        print("  (f) -kill_traces: " + ", ".join(f"{k} {v:.9e}" for k, v in Jk.items()), flush=True)
        if Jk["listed, changed"] != Jk["listed"] or Jk["changed"] == Jk["listed"]:
            failures.append(f"(f) -kill_traces: misfits {Jk}: changes to listed traces must not count")
        # -kill_dead_traces (on by default) leaves out the same traces as listing them
        if Jk["dead"] != Jk["listed"] or Jk["dead, kept"] == Jk["dead"]:
            failures.append(f"(f) -kill_dead_traces: misfits {Jk}: the dead traces must count exactly as if listed, and only with -kill_dead_traces 0")
        for text, words in (("0 99999\n", ["line 1", "trace 99999"]), ("7 0\n", ["shot 7"]), ("0 3\n0 x\n", ["line 2", "expected SHOT TRACE"])):
            with open(kill, "w") as f:
                f.write(text)
            msg = c.error_message(c.run(1, base + ["-observed_dir", obs, "-vp", m_path, "-kill_traces", kill], scr.sub("k_bad"), expect_fail=True))
            if not all(w in msg for w in words + [kill]):
                failures.append(f"(f) -kill_traces with {text!r}: the error does not name {words}: {msg}")
        if failures:
            c.fail(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    c.main(main)
