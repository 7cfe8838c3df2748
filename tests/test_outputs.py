#!/usr/bin/env python3
"""Results for ParaView and for the eye: -vtk and -snapshot_interval.

- 3D forward on 1 and on 4 ranks (2 x 2 in x, y) with -snapshot_interval 30
  -vtk: snapshots at samples 30, 60, 90 and none other; each .vti holds
  the RSF snapshot's samples bit for bit, with the grid's extent, spacing
  (dz, dx, dy), origin 0 and the direction that points depth down; the
  decomposed snapshots equal the single-rank ones bit for bit, and the
  wavefield in them is not zero.
- A second run into the same folder (its gathers gone) without -overwrite
  is refused before any work, naming a snapshot.
- 2D gradient with -vtk, the model placed at x = 500000 m, 100 m down:
  gradient.vti holds gradient.rsf's samples and places them there.
- scripts/plot draws a 3D model and a snapshot (three slices) to PNG.
"""
import os
import re
import subprocess
import sys

import numpy as np

import common as c

DX = 10.0
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_vti(path):
    """(attributes of ImageData, array name, raw float32 samples) of an
    appended-raw .vti as halofwi writes it."""
    with open(path, "rb") as f:
        data = f.read()
    mark = data.index(b'<AppendedData encoding="raw">')
    head = data[:mark].decode()
    start = data.index(b"_", mark) + 1
    nbytes = int(np.frombuffer(data[start:start + 8], dtype="<u8")[0])
    samples = np.frombuffer(data[start + 8:start + 8 + nbytes], dtype="<f4")
    tail = data[start + 8 + nbytes:].decode()
    c.check("</VTKFile>" in tail, f"{path}: no closing tags after the samples")
    c.check('header_type="UInt64"' in head and 'byte_order="LittleEndian"' in head, f"{path}: unexpected VTKFile header: {head[:200]}")
    attrs = dict(re.findall(r'(\w+)="([^"]*)"', re.search(r"<ImageData ([^>]*)>", head).group(1)))
    name = re.search(r'<DataArray [^>]*Name="([^"]*)"', head).group(1)
    return attrs, name, samples


def check_vti(rsf_path, name):
    vti = rsf_path[:-4] + ".vti"
    attrs, arr, samples = read_vti(vti)
    a, h = c.read_rsf(rsf_path)
    n = [int(h.get(f"n{i}", 1)) for i in (1, 2, 3)]
    d = [float(h.get(f"d{i}", 1)) if int(h.get(f"n{i}", 1)) > 1 or i == 1 else 1.0 for i in (1, 2, 3)]
    c.check(arr == name, f"{vti}: array {arr!r}, expected {name!r}")
    c.check(attrs["WholeExtent"].split() == [str(x) for k in n for x in (0, k - 1)], f"{vti}: WholeExtent {attrs['WholeExtent']}, expected from n = {n}")
    c.check([float(x) for x in attrs["Spacing"].split()] == d, f"{vti}: Spacing {attrs['Spacing']}, expected {d}")
    o = [float(h.get(f"o{i}", 0)) for i in (1, 2, 3)]
    origin = [o[1] if n[1] > 1 else 0.0, o[2] if n[2] > 1 else 0.0, -o[0]]  # x, y, elevation
    c.check([float(x) for x in attrs["Origin"].split()] == origin, f"{vti}: Origin {attrs['Origin']}, expected {origin} from the RSF origin")
    c.check(attrs["Direction"].split() == "0 1 0 0 0 1 -1 0 0".split(), f"{vti}: Direction {attrs['Direction']}")
    c.check(samples.tobytes() == np.ascontiguousarray(a, dtype="<f4").tobytes(), f"{vti}: samples differ from {rsf_path}")
    return a


def snapshots(outdir):
    return sorted(f for f in os.listdir(outdir) if f.startswith("snapshot_") and f.endswith(".rsf"))


def main():
    scr = c.Scratch("outputs")
    with scr:
        # ---------------- 3D forward with snapshots
        nz, nx, ny = 20, 26, 22
        vp3 = c.smooth_random_model((ny, nx, nz), seed=3, sigma=3.0)
        model3 = c.write_model(scr.sub("vp3d.rsf"), vp3, DX)
        base = ["-mode", "forward", "-vp", model3, "-pml_width", 8, "-f0", 15, "-dt", 0.002, "-nt", 100,
                "-nshots", 1, "-nrec", 5, "-snapshot_interval", 30, "-vtk", "-progress_interval", 0]
        one = scr.sub("fwd_1")
        c.run(1, base, one)
        four = scr.sub("fwd_4")
        c.run(4, base + ["-da_processors_x", 2, "-da_processors_y", 2], four)
        names = snapshots(one)
        c.check(names == [f"snapshot_0000_{k:05d}.rsf" for k in (30, 60, 90)], f"snapshots {names}, expected samples 30, 60 and 90 of shot 0")
        c.check(snapshots(four) == names, f"4 ranks wrote {snapshots(four)}, 1 rank {names}")
        for name in names:
            a = check_vti(os.path.join(one, name), "u")
            b = check_vti(os.path.join(four, name), "u")
            c.check(a.shape == (ny, nx, nz), f"{name}: shape {a.shape}, expected the model's {(ny, nx, nz)}")
            c.check(np.abs(a).max() > 0 and np.all(np.isfinite(a)), f"{name}: zero or not finite")
            c.check(a.tobytes() == b.tobytes(), f"{name}: 4 ranks differ from 1 rank")
        print(f"  3D snapshots {', '.join(names)}: .vti equal to the RSF, 4 ranks equal to 1")

        for f in ("shot_0000.rsf", "shot_0000.rsf@"):  # the snapshots alone stand in the way
            os.remove(os.path.join(one, f))
        out = c.run(1, base, one, expect_fail=True)
        c.check("snapshot_0000_00030" in c.error_message(out) or "snapshot_0000_00030" in out,
                f"a run over existing snapshots must be refused naming one; got: {c.error_message(out)}")

        # ---------------- pictures
        for kind, path in (("model", model3), ("snapshot", os.path.join(one, names[1]))):
            png = scr.sub(f"{kind}.png")
            r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot"), kind, path, png], capture_output=True, text=True)
            c.check(r.returncode == 0 and os.path.getsize(png) > 10000, f"scripts/plot {kind} {path}: exit {r.returncode}: {r.stderr}")

        # ---------------- 2D gradient
        nz, nx = 30, 40
        true = c.write_model(scr.sub("true2d.rsf"), c.smooth_random_model((nx, nz), seed=4), DX)
        # placed in the survey's coordinates: the .vti carries the origin
        start = c.write_rsf(scr.sub("start2d.rsf"), np.full((nx, nz), 2200.0, dtype=np.float32), d=[DX, DX], o=[100.0, 500000.0])
        obs = scr.sub("obs")
        survey = ["-nshots", 2, "-nrec", 20, "-f0", 12, "-dt", 0.002, "-nt", 200, "-pml_width", 10, "-progress_interval", 0]
        c.run(1, ["-mode", "forward", "-vp", true] + survey, obs)
        grad = scr.sub("grad")
        c.run(2, ["-mode", "gradient", "-vp", start, "-observed_dir", obs, "-vtk"] + survey, grad)
        g = check_vti(os.path.join(grad, "gradient.rsf"), "gradient")
        c.check(np.abs(g).max() > 0, "gradient.rsf is zero")
        print("  2D gradient.vti equal to gradient.rsf")


if __name__ == "__main__":
    c.main(main)
