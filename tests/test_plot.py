#!/usr/bin/env python3
"""scripts/plot as a person reads its pictures (matplotlib's Agg backend;
exits 77, skipped, without matplotlib):

- gather: time in seconds down the side (0 at the top); offset across where
  the gather has a coordinate file (coords_NNNN.rsf: the traces placed
  at their offsets, or at the receivers' x with --x receiver_x), the
  receiver index without one, with a note saying so; --clip PERCENTILE in
  the title; --agc and --tpow gains (t^P exactly; AGC evens a trace whose
  amplitude grows 1000 times to within 2 times between its first and last
  quarters); a bad gain option refused;
- qc: observed | modelled | residual side by side, one colour scale,
  placed by qc/coords_NNNN.rsf; --coords names a coordinate file;
- snapshot: titled with its time (recorded sample x the run's interval);
- 3D model: the depth slice with y increasing upward, as maps are read,
  at the header's origin (o2, o3)."""
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys

import numpy as np

import common as c

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLOT = os.path.join(ROOT, "scripts", "plot")

try:
    import matplotlib  # noqa: F401
except ImportError:
    print("matplotlib missing (python3-matplotlib): skipped")
    sys.exit(77)


def load_plot():
    loader = importlib.machinery.SourceFileLoader("halofwi_plot", PLOT)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def near(a, b, tol=1e-6):
    return all(abs(x - y) <= tol * max(1.0, abs(y)) for x, y in zip(a, b))


def main():
    plot = load_plot()
    import gathers  # beside scripts/plot, on the path it set
    import rsf
    scr = c.Scratch("plot")
    with scr:
        nt, dt, nrec = 200, 0.002, 20
        model = c.write_model(scr.sub("vp.rsf"), np.full((60, 40), 2000.0), 10.0)
        run = scr.sub("run")
        c.run(1, ["-vp", model, "-nt", nt, "-dt", dt, "-f0", 10, "-nshots", 1, "-nrec", nrec, "-snapshot_interval", 50,
                  "-progress_interval", 0], run)
        shot = os.path.join(run, "shot_0000.rsf")

        # the run's gather: time down, and offsets where it has coordinates
        fig = plot.plot_gather(shot, scr.sub("g.png"))
        ax = fig.axes[0]
        c.check(ax.get_ylabel() == "time (s)" and near(ax.get_ylim(), ((nt - 0.5) * dt, -0.5 * dt)),
                f"gather: y axis '{ax.get_ylabel()}' over {ax.get_ylim()}, expected time (s) from {-0.5 * dt} at the top to {(nt - 0.5) * dt}")
        r = subprocess.run([sys.executable, PLOT, "gather", shot, scr.sub("g.png")], capture_output=True, text=True)
        own = gathers.coordinates_path(shot)
        expected = "offset (m)" if own else "receiver index"
        c.check(ax.get_xlabel() == expected, f"gather: x axis '{ax.get_xlabel()}', expected '{expected}' (coordinate file: {own})")
        c.check(own or "receiver index" in r.stderr, f"a gather without coordinates is drawn without a word: {r.stderr!r}")
        print(f"  run's gather: '{ax.get_xlabel()}' across, time down; coordinate file: {own}")

        # a gather with coordinates: the source at x = 300 m, receivers every 30 m from 0
        placed = scr.sub("placed")
        os.makedirs(placed)
        data = rsf.read(shot)[0]
        rsf.write(os.path.join(placed, "shot_0000.rsf"), data, d=[dt, 1])
        gx = 30.0 * np.arange(nrec)
        # rows: source x, y, depth, receiver x, y, depth (float32 here: scripts/rsf.py writes no doubles)
        table = np.stack([np.full(nrec, 300.0), np.zeros(nrec), np.full(nrec, 20.0), gx, np.zeros(nrec), np.full(nrec, 10.0)])
        rsf.write(os.path.join(placed, "coords_0000.rsf"), table)
        for axis, label, lim in (("offset", "offset (m)", (-315.0, 285.0)), ("receiver_x", "receiver x (m)", (-15.0, 585.0))):
            ax = plot.plot_gather(os.path.join(placed, "shot_0000.rsf"), scr.sub("p.png"), clip=90.0, axis=axis).axes[0]
            c.check(ax.get_xlabel() == label and near(ax.get_xlim(), lim), f"--x {axis}: '{ax.get_xlabel()}' over {ax.get_xlim()}, expected '{label}' over {lim}")
        c.check("clip 90%" in ax.get_title(), f"--clip 90 is not in the title '{ax.get_title()}'")
        ax = plot.plot_gather(shot, scr.sub("p.png"), coords=os.path.join(placed, "coords_0000.rsf")).axes[0]
        c.check(ax.get_xlabel() == "offset (m)", f"--coords: x axis '{ax.get_xlabel()}'")
        # unevenly spaced receivers (some dropped): cells between the midpoints, time still down
        rsf.write(os.path.join(placed, "shot_0001.rsf"), data[:, :5], d=[dt, 1])
        rsf.write(os.path.join(placed, "coords_0001.rsf"), np.stack([np.full(5, 100.0), np.zeros(5), np.zeros(5), [0.0, 10, 30, 70, 150], np.zeros(5), np.zeros(5)]))
        ax = plot.plot_gather(os.path.join(placed, "shot_0001.rsf"), scr.sub("u.png")).axes[0]
        c.check(near(ax.get_xlim(), (-105.0, 90.0)) and near(ax.get_ylim(), ((nt - 0.5) * dt, -0.5 * dt)),
                f"uneven receivers: x over {ax.get_xlim()}, time over {ax.get_ylim()}")

        # qc: observed | modelled | residual on one scale, placed by qc/coords_NNNN.rsf
        for part, scale in (("observed", 1.0), ("modelled", 0.5), ("residual", -0.5)):
            rsf.write(os.path.join(placed, "band_1_shot_0000_%s.rsf" % part), scale * data, d=[dt, 1])
        fig = plot.plot_qc(os.path.join(placed, "band_1_shot_0000_modelled.rsf"), scr.sub("q.png"))
        panels = [a for a in fig.axes if a.get_title() in ("observed", "modelled", "residual")]
        limits = {a.images[0].get_clim() for a in panels}
        c.check(len(panels) == 3 and all(a.get_xlabel() == "offset (m)" for a in panels) and len(limits) == 1,
                f"plot qc: panels {[a.get_title() for a in panels]}, x axes {[a.get_xlabel() for a in panels]}, colour limits {limits}")

        # gains
        t = np.arange(nt) * dt
        trace = (np.sin(2 * np.pi * 25 * t) * 10 ** (3 * t / t[-1]))[:, None]
        c.check(np.allclose(gathers.gain(trace, t, tpow=2.0)[:, 0], t ** 2), "--tpow 2 is not t^2")
        even = trace * gathers.gain(trace, t, agc=0.1)
        q = nt // 4
        ratio = np.sqrt((even[-q:] ** 2).mean() / (even[:q] ** 2).mean())
        print(f"  AGC 0.1 s: last/first quarter RMS {ratio:.3f} (before {np.sqrt((trace[-q:] ** 2).mean() / (trace[:q] ** 2).mean()):.0f})")
        c.check(0.5 < ratio < 2, f"AGC leaves the last quarter {ratio:.3g} times the first")
        for bad in (["--agc", "0.1", "--tpow", "2"], ["--agc", "0"], ["--clip", "0"]):
            r = subprocess.run([sys.executable, PLOT, "gather", shot, scr.sub("b.png")] + bad, capture_output=True, text=True)
            c.check(r.returncode != 0 and r.stderr.strip(), f"plot gather {' '.join(bad)}: exit {r.returncode}, {r.stderr!r}")

        # a snapshot's time: sample 50 at 2 ms
        snap = os.path.join(run, "snapshot_0000_00050.rsf")
        title = plot.plot_snapshot(snap, scr.sub("s.png")).axes[0].get_title()
        c.check("t = 0.1 s" in title, f"snapshot title '{title}' does not give t = 0.1 s")
        timed = scr.sub("timed.rsf")  # a header that gives the time itself: an axis of one sample labelled Time
        rsf.write(timed, rsf.read(snap)[0][:, :, None], d=[10.0, 10.0, dt], o=[0.0, 0.0, 0.25], label3="Time")
        title = plot.plot_snapshot(timed, scr.sub("s.png")).axes[0].get_title()
        c.check("t = 0.25 s" in title, f"snapshot title '{title}' does not give the header's t = 0.25 s")

        # 3D: the depth slice as a map, y up; the velocity grows with y
        ny, nx, nz = 8, 12, 10
        vp3 = np.broadcast_to(2000.0 + 50.0 * np.arange(ny)[:, None, None], (ny, nx, nz))
        vp3_path = c.write_rsf(scr.sub("vp3.rsf"), vp3, d=[10.0] * 3, o=[0.0, 500000.0, 6000000.0])
        axes = plot.plot_model(vp3_path, scr.sub("m.png")).axes
        depth = [a for a in axes if a.get_ylabel() == "y (m)"]
        c.check(len(depth) == 1, f"no depth slice with y up the side: {[a.get_ylabel() for a in axes]}")
        lo, hi = depth[0].get_ylim()
        im = depth[0].images[0]
        top_row = np.asarray(im.get_array())[-1 if im.origin == "lower" else 0]
        c.check(near((lo, hi), (6000000.0 - 5, 6000000.0 + 75)) and np.allclose(top_row, vp3[-1, 0, 0]),
                f"depth slice: y from {lo} to {hi} up the side, top row {top_row.mean():.0f} m/s (the largest y holds {vp3[-1, 0, 0]:.0f})")
        shutil.rmtree(placed)


if __name__ == "__main__":
    c.main(main)
