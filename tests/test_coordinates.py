#!/usr/bin/env python3
"""Coordinates and formats, on a 2D model of 41 x 31 cells of 10 m placed at
depth 100 m, x 500,000 m, on the line y = 6,000,000 m (RSF o1, o2, o3).

(a) the model's origin: a survey in absolute coordinates (text file, and a
    regular survey's depths) on the placed model gives the gathers of the
    same survey relative to an unplaced model, bit for bit; the gradient
    likewise, and -fix_above is a depth in those coordinates.  Gathers,
    their coordinate files (read with scripts/rsf.py),
    snapshots and the gradient carry the origin, labels and units; a source
    outside is named with the model's extent in absolute coordinates.
(b) a model in xdr_float (big-endian) gives the native model's gathers bit
    for bit.
(c) -drop_outside: receivers outside the model are an error naming the
    option; with it they are dropped, counted per shot, and the gathers
    equal those of the survey without them; a shot left with no receiver,
    a source outside, and -observed_segy are still refused."""
import os
import sys

import numpy as np

import common as c

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import rsf  # noqa: E402  (the project's reader, as a user would use it)

DX = 10.0
NZ, NX = 31, 41
ORIGIN = (100.0, 500000.0, 6.0e6)  # z, x, y
NT, DT = 300, 0.001
TIME = ["-nt", NT, "-dt", DT, "-f0", 15.0, "-progress_interval", 0]
# x and depths relative to the model's first sample, exact in binary once shifted
SHOTS = [((100.25, 20.0), [(50.0, 10.0), (100.25, 12.5), (250.5, 10.0), (390.0, 7.75)]),
         ((205.5, 17.5), [(20.0, 10.0), (200.0, 10.0), (350.25, 12.5)]),
         ((310.0, 20.0), [(30.0, 8.0), (300.0, 10.0)])]
TIMEOUT = 120


def write_model(path, vp, origin, fmt="native_float"):
    """vp indexed [x, z]; origin (z, x, y); fmt native_float or xdr_float."""
    c.write_rsf(path, vp, d=[DX, DX], o=list(origin[:2]))
    with open(path, "a") as f:
        f.write(f"n3=1 d3={DX!r} o3={origin[2]!r}\n")
        if fmt == "xdr_float":
            f.write('data_format="xdr_float"\n')
    if fmt == "xdr_float":
        np.asarray(vp, dtype=">f4").tofile(path + "@")
    return path


def shifted(shots, dx, dz):
    return [((sx + dx, sz + dz), [(gx + dx, gz + dz) for gx, gz in recs]) for (sx, sz), recs in shots]


def absolute(shots):
    return shifted(shots, ORIGIN[1], ORIGIN[0])


def gathers(outdir, n):
    return [c.read_gather(outdir, s) for s in range(n)]


def same(ref, test, what):
    for s, (a, b) in enumerate(zip(ref, test)):
        c.check(a.shape == b.shape and a.tobytes() == b.tobytes(),
                f"{what}: shot {s}: not bit for bit equal (shapes {a.shape}, {b.shape})")
    print(f"  {what}: {len(ref)} gathers bit for bit equal", flush=True)


def check_header(path, want, what):
    h = c.read_rsf_header(path)
    bad = {k: (h.get(k), v) for k, v in want.items() if h.get(k) != v and not _same_number(h.get(k), v)}
    c.check(not bad, f"{what}: {path}: header values (found, expected): {bad}")


def _same_number(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False


def refused(args, outdir, what, needles):
    out = c.run(1, args, outdir, expect_fail=True, timeout=TIMEOUT)
    msg = c.error_message(out)
    for n in needles:
        c.check(n in msg, f"{what}: the message does not hold {n!r}: {msg!r}")
    print(f"  {what}: refused: {msg.splitlines()[-1] if msg else ''}", flush=True)


def part_a(scr, vp, zero_model, placed_model, ref):
    """The origin honoured (outputs' headers, coordinates, errors)."""
    geo_abs = c.write_geometry(scr.sub("abs.txt"), absolute(SHOTS))
    out = scr.sub("abs")
    c.run(1, ["-vp", placed_model, "-geometry", geo_abs, "-snapshot_interval", 100] + TIME, out, timeout=TIMEOUT)
    same(ref, gathers(out, len(SHOTS)), "(a) absolute survey on the placed model")

    check_header(c.gather_path(out, 0), {"o1": "0", "d1": repr(DT), "unit1": "s", "label1": "Time", "label2": "Receiver", "unit2": ""},
                 "(a) gather")
    for s, ((sx, sz), recs) in enumerate(absolute(SHOTS)):
        xyz, h = rsf.read(os.path.join(out, "coords_%04d.rsf" % s))
        want = np.array([[sx, ORIGIN[2], sz, gx, ORIGIN[2], gz] for gx, gz in recs]).T
        c.check(xyz.dtype == np.float64 and xyz.shape == want.shape and np.array_equal(xyz, want) and h["unit1"] == "m",
                f"(a) shot {s}: coords_{s:04d}.rsf holds {xyz.tolist()} ({xyz.dtype}), expected {want.tolist()}")
    snap = os.path.join(out, "snapshot_0000_00100.rsf")
    check_header(snap, {"o1": "100", "o2": "500000", "unit1": "m", "unit2": "m", "label1": "Depth", "label2": "X",
                        "n3": "1", "o3": "0.1", "unit3": "s", "label3": "Time"}, "(a) snapshot")
    print("  (a) gathers (time in s), coordinates (doubles, absolute), snapshot (origin, time in s) headers", flush=True)

    # a regular survey: depths in the survey's coordinates, sources spread over the placed model
    reg = ["-nshots", 2, "-nrec", 9] + TIME
    c.run(1, ["-vp", zero_model, "-source_depth", 20.0, "-receiver_depth", 10.0] + reg, scr.sub("reg0"), timeout=TIMEOUT)
    c.run(1, ["-vp", placed_model, "-source_depth", 120.0, "-receiver_depth", 110.0] + reg, scr.sub("reg1"), timeout=TIMEOUT)
    same(gathers(scr.sub("reg0"), 2), gathers(scr.sub("reg1"), 2), "(a) regular survey, depths below o1")
    xyz = rsf.read(os.path.join(scr.sub("reg1"), "coords_0001.rsf"))[0]
    c.check(xyz[0, 0] == ORIGIN[1] + 400 and xyz[2, 0] == 120.0 and xyz[3, -1] == ORIGIN[1] + 400,
            f"(a) regular survey: shot 1 source at x={xyz[0, 0]} depth {xyz[2, 0]}, last receiver x={xyz[3, -1]}: expected "
            f"{ORIGIN[1] + 400}, 120, {ORIGIN[1] + 400}")

    # the gradient: the same on both models, the placed one's header carries the origin
    start = np.full_like(vp, 2300.0)
    grads = []
    for name, origin, geo in (("g0", (0.0, 0.0, 0.0), c.write_geometry(scr.sub("rel.txt"), SHOTS)), ("g1", ORIGIN, geo_abs)):
        m = write_model(scr.sub(name + ".rsf"), start, origin)
        c.run(1, ["-mode", "gradient", "-vp", m, "-geometry", geo, "-observed_dir", out] + TIME, scr.sub(name), timeout=TIMEOUT)
        grads.append(c.read_rsf(os.path.join(scr.sub(name), "gradient.rsf"))[0])
    c.check(grads[0].tobytes() == grads[1].tobytes() and np.abs(grads[0]).max() > 0, "(a) the placed model's gradient differs")
    check_header(os.path.join(scr.sub("g1"), "gradient.rsf"), {"o1": "100", "o2": "500000", "unit1": "m", "unit2": "m", "label2": "X"},
                 "(a) gradient")
    print("  (a) gradient: bit for bit equal, its header placed", flush=True)

    # -fix_above is a depth in the same coordinates: 150 m keeps the 5 rows from 100 m
    c.run(1, ["-mode", "invert", "-vp", m, "-geometry", geo_abs, "-observed_dir", out, "-fix_above", 150.0, "-vp_max", 3500.0,
              "-tao_max_it", 1] + TIME, scr.sub("inv"), timeout=TIMEOUT)
    v = c.read_rsf(os.path.join(scr.sub("inv"), "vp.rsf"))[0]  # (nx, nz)
    kept, free = np.all(v[:, :5] == 2300.0), np.any(v[:, 5] != 2300.0)
    c.check(kept and free, f"(a) -fix_above 150 on a model from 100 m: rows 0-4 kept {kept}, row 5 changed {free}: expected both")
    print("  (a) -fix_above 150 m keeps the rows above 150 m of the placed model", flush=True)

    bad = absolute(SHOTS)
    bad[1] = ((ORIGIN[1] - 50.0, ORIGIN[0] + 20.0), bad[1][1])
    refused(["-vp", placed_model, "-geometry", c.write_geometry(scr.sub("bad_src.txt"), bad)] + TIME, scr.sub("e1"),
            "(a) a source outside the placed model", ["shot 1 source", "x=499950", "x in [500000, 500400]", "z in [100, 400]"])


def part_c(scr, placed_model):
    """-drop_outside."""
    hang = absolute([(SHOTS[0][0], [(-30.0, 10.0)] + SHOTS[0][1] + [(410.0, 10.0)]),
                     SHOTS[1],
                     (SHOTS[2][0], SHOTS[2][1] + [(455.0, 8.0)])])
    geo = c.write_geometry(scr.sub("hang.txt"), hang)
    run = ["-vp", placed_model, "-geometry", geo] + TIME
    refused(run, scr.sub("d0"), "(c) receivers outside without -drop_outside",
            ["shot 0 receiver 0", "x=499970", "x in [500000, 500400]", "-drop_outside"])
    out = c.run(1, run + ["-drop_outside"], scr.sub("d1"), timeout=TIMEOUT)
    line = "-drop_outside: 3 receivers outside the model dropped, from 2 of 3 shots (shot: receivers dropped) 0: 2, 2: 1"
    c.check(line in out, f"(c) no line {line!r} in the output")
    c.run(1, ["-vp", placed_model, "-geometry", c.write_geometry(scr.sub("kept.txt"), absolute(SHOTS))] + TIME, scr.sub("d2"),
          timeout=TIMEOUT)
    same(gathers(scr.sub("d2"), len(SHOTS)), gathers(scr.sub("d1"), len(SHOTS)), "(c) -drop_outside against the survey without them")
    xyz = rsf.read(os.path.join(scr.sub("d1"), "coords_0000.rsf"))[0]
    c.check(xyz.shape == (6, 4), f"(c) shot 0's coordinates hold {xyz.shape[1]} receivers, expected the 4 kept")

    none_left = absolute([SHOTS[0], (SHOTS[1][0], [(-5.0, 10.0), (401.0, 10.0)])])
    refused(["-vp", placed_model, "-geometry", c.write_geometry(scr.sub("none.txt"), none_left), "-drop_outside"] + TIME,
            scr.sub("d3"), "(c) a shot left without receivers", ["shot 1", "all its 2 receivers", "-drop_outside"])
    src_out = absolute([SHOTS[0], ((-1.0, 20.0), SHOTS[1][1])])
    refused(["-vp", placed_model, "-geometry", c.write_geometry(scr.sub("src.txt"), src_out), "-drop_outside"] + TIME,
            scr.sub("d4"), "(c) a source outside with -drop_outside", ["shot 1 source", "x=499999"])
    refused(["-mode", "gradient", "-vp", placed_model, "-observed_segy", scr.sub("obs.sgy"), "-drop_outside"] + TIME, scr.sub("d5"),
            "(c) -drop_outside with -observed_segy", ["-drop_outside", "-observed_segy"])


def main():
    scr = c.Scratch("coordinates")
    with scr:
        vp = c.smooth_random_model((NX, NZ), seed=3)
        zero_model = write_model(scr.sub("zero.rsf"), vp, (0.0, 0.0, 0.0))
        placed_model = write_model(scr.sub("placed.rsf"), vp, ORIGIN)
        geo = c.write_geometry(scr.sub("rel.txt"), SHOTS)
        c.run(1, ["-vp", zero_model, "-geometry", geo] + TIME, scr.sub("ref"), timeout=TIMEOUT)
        ref = gathers(scr.sub("ref"), len(SHOTS))

        part_a(scr, vp, zero_model, placed_model, ref)

        # (b) big-endian samples
        xdr = write_model(scr.sub("xdr.rsf"), vp, (0.0, 0.0, 0.0), fmt="xdr_float")
        c.check(np.array_equal(rsf.read(xdr)[0], vp.T), "(b) scripts/rsf.py reads the xdr_float model wrong")
        c.run(1, ["-vp", xdr, "-geometry", geo] + TIME, scr.sub("xdr"), timeout=TIMEOUT)
        same(ref, gathers(scr.sub("xdr"), len(SHOTS)), "(b) xdr_float model")

        part_c(scr, placed_model)


if __name__ == "__main__":
    c.main(main)
