#!/usr/bin/env python3
"""SEG-Y (read and written through segyio; test files written with
python3-segyio) on a 2D model of 41 x 31 cells and a 3D one of 14 x 12 x 16.

(a) -output_format segy: the gathers hold the RSF gathers' samples bit for
    bit, IEEE floats (format 5), FFID = shot number, trace sequence numbers,
    source and group x and depth under their scalars, offset, sample count
    and interval.
(b) a survey read from SEG-Y trace headers (-geometry survey.sgy, FFIDs
    101-103, coordinates in cm with -segy_origin_x 5000, big-endian IBM
    floats, -nt and -dt taken from the file) gives the text survey's
    gathers bit for bit; written as SEG-Y it keeps the FFIDs.
(c) models: -vp model.sgy (2D, little-endian IEEE) and 3D volumes sorted by
    inline and by crossline (read on 2 ranks split in y) model the RSF
    model's gathers bit for bit.
(d) round trips: gathers RSF -> SEG-Y -> observed data (-observed_segy on the
    folder of SEG-Y gathers) give the misfit of the RSF gathers (0 at the
    true model, the same value elsewhere); gradient.sgy and an inverted
    vp.sgy (written on 2 ranks split in x) equal gradient.rsf and vp.rsf bit
    for bit, and vp.sgy read back as -vp gives vp.rsf's misfit.
(e) observed data in big- and little-endian files of IBM and IEEE floats
    (values k / 4096, exact in both) give the misfit of the same values in
    RSF, to the last bit.
(f) clear errors, non-zero exit, naming the file and the value: a
    truncated file, -nt and -dt against the file's, -dz against a model's
    sample interval, -geometry with -observed_segy, an FFID that comes back,
    two sources in one record, a 2D line whose y varies, an integer sample
    format.
(g) coordinates kept: a 2D line at y = 6,000,000 m and a model placed by
    its CDP X, Y (x from 5000 m, y 6,000,000 m) without -segy_origin:
    forward gathers written as SEG-Y keep every SourceX/Y and GroupX/Y,
    the gradient equals the unplaced RSF run's and gradient.sgy keeps the
    model's CDP X, Y; -help gives -segy_origin_x/_y their own text."""
import os
import re
import shutil

import numpy as np
import segyio

import common as c

DX = 10.0
NZ, NX = 31, 41
NT, DT, F0 = 300, 0.001, 15.0
ORIGIN_X = 5000.0
# x and depths exact in binary and in centimetres: SEG-Y positions read back bit for bit
SHOTS = [((100.25, 20.0), [(50.0, 10.0), (100.25, 12.5), (250.5, 10.0), (390.0, 7.75)]),
         ((205.5, 17.5), [(20.0, 10.0), (200.0, 10.0), (350.25, 12.5)]),
         ((310.0, 20.0), [(30.0, 8.0), (300.0, 10.0)])]
TIME = ["-f0", F0, "-progress_interval", 0]
TIMEOUT = 120


def write_segy(path, data, headers, interval, fmt=5, endian="big"):
    """data: (ntraces, ns); headers: one dict of TraceField -> value per trace;
    interval: us (or mm for models)."""
    spec = segyio.spec()
    spec.format = fmt
    spec.endian = endian
    spec.samples = np.arange(data.shape[1]) * interval / 1000.0
    spec.tracecount = data.shape[0]
    with segyio.create(path, spec) as f:
        for i, h in enumerate(headers):
            f.header[i] = {**h, segyio.TraceField.TRACE_SAMPLE_COUNT: data.shape[1],
                           segyio.TraceField.TRACE_SAMPLE_INTERVAL: interval}
            f.trace[i] = np.ascontiguousarray(data[i], dtype=np.float32)
    return path


def survey_headers(shots, ffid0=101, y=0.0):
    """Trace headers of a survey in cm (scalar -100), x shifted by ORIGIN_X."""
    T = segyio.TraceField
    hs = []
    for s, ((sx, sz), recs) in enumerate(shots):
        for k, (gx, gz) in enumerate(recs):
            hs.append({T.FieldRecord: ffid0 + s, T.TRACE_SEQUENCE_LINE: k + 1,
                       T.SourceGroupScalar: -100, T.ElevationScalar: -100,
                       T.SourceX: round((sx + ORIGIN_X) * 100), T.GroupX: round((gx + ORIGIN_X) * 100),
                       T.SourceY: round(y * 100), T.GroupY: round(y * 100),
                       T.SourceDepth: round(sz * 100), T.ReceiverGroupElevation: -round(gz * 100)})
    return hs


def read_segy(path):
    """(samples (ntraces, ns), headers, format code, interval)"""
    with segyio.open(path, ignore_geometry=True) as f:
        return (segyio.tools.collect(f.trace[:]), [dict(h) for h in f.header], int(f.format),
                int(f.bin[segyio.BinField.Interval]))


def gathers(outdir, n, ext):
    return [c.read_gather(outdir, s) if ext == "rsf" else read_segy(os.path.join(outdir, "shot_%04d.sgy" % s))[0]
            for s in range(n)]


def same_gathers(ref, test, what):
    for s, (a, b) in enumerate(zip(ref, test)):
        c.check(a.shape == b.shape and a.tobytes() == b.tobytes(),
                f"{what}: shot {s}: not bit for bit equal ({int(np.count_nonzero(a != b)) if a.shape == b.shape else 'shape'}"
                f" samples differ; shapes {a.shape}, {b.shape})")
    print(f"  {what}: {len(ref)} gathers bit for bit equal", flush=True)


def misfit(out):
    m = re.search(r"^misfit (\S+)$", out, flags=re.M)
    c.check(m, "no 'misfit J' line in the output")
    return float(m.group(1))


def refused(args, outdir, what, needles):
    out = c.run(1, args, outdir, expect_fail=True, timeout=TIMEOUT)
    msg = c.error_message(out)
    for n in needles:
        c.check(n.lower() in msg.lower(), f"(f) {what}: the message does not name {n!r}: {msg!r}")
    print(f"  (f) {what}: refused: {msg.splitlines()[-1] if msg else ''}", flush=True)


def check_gather_headers(path, shot, shots):
    data, hs, fmt, interval = read_segy(path)
    (sx, sz), recs = shots[shot]
    c.check(fmt == 5 and interval == round(DT * 1e6), f"(a) {path}: format {fmt}, interval {interval}: expected 5, 1000")
    T = segyio.TraceField
    for k, h in enumerate(hs):
        scale = -h[T.SourceGroupScalar] if h[T.SourceGroupScalar] < 0 else 1.0 / max(h[T.SourceGroupScalar], 1)
        escale = -h[T.ElevationScalar] if h[T.ElevationScalar] < 0 else 1.0 / max(h[T.ElevationScalar], 1)
        gx, gz = recs[k]
        got = (h[T.FieldRecord], h[T.TRACE_SEQUENCE_LINE], h[T.TRACE_SEQUENCE_FILE], h[T.SourceX] / scale,
               h[T.GroupX] / scale, h[T.SourceDepth] / escale, -h[T.ReceiverGroupElevation] / escale,
               h[T.offset], h[T.TRACE_SAMPLE_COUNT], h[T.TRACE_SAMPLE_INTERVAL])
        want = (shot, k + 1, k + 1, sx, gx, sz, gz, round(gx - sx) if gx >= sx else -round(sx - gx), NT, 1000)
        c.check(got == want, f"(a) {path} trace {k + 1}: headers (FFID, seq, seq, sx, gx, sdepth, depth, offset, ns, dt) "
                             f"{got}, expected {want}")


def scaled(h, field):
    """A coordinate field of header h under its scalar (bytes 71)."""
    k = h[segyio.TraceField.SourceGroupScalar]
    return h[field] / -k if k < 0 else h[field] * max(k, 1)


def kept_coordinates(scr, ref, Jr, g_rsf):
    """(g): the survey at y = Y, the model's columns at CDP X = ORIGIN_X + ix*DX, CDP Y = Y."""
    T = segyio.TraceField
    Y = 6.0e6
    xy = (T.SourceX, T.SourceY, T.GroupX, T.GroupY)
    hs = survey_headers(SHOTS, y=Y)
    obs = write_segy(scr.sub("obs_utm.sgy"), np.concatenate(ref), hs, 1000)
    cdp = [{T.INLINE_3D: 1, T.CROSSLINE_3D: ix + 1, T.SourceGroupScalar: -100, T.CDP_X: round((ORIGIN_X + ix * DX) * 100),
            T.CDP_Y: round(Y * 100)} for ix in range(NX)]
    start = write_segy(scr.sub("start_utm.sgy"), np.full((NX, NZ), 2300.0), cdp, int(DX * 1000))
    c.run(1, ["-vp", start, "-dx", DX, "-geometry", obs, "-output_format", "segy"] + TIME, scr.sub("utm_fwd"), timeout=TIMEOUT)
    k = 0
    for s in range(len(SHOTS)):
        for h in read_segy(os.path.join(scr.sub("utm_fwd"), "shot_%04d.sgy" % s))[1]:
            got, want = [scaled(h, f) for f in xy], [scaled(hs[k], f) for f in xy]
            c.check(got == want, f"(g) shot {s} trace {h[T.TRACE_SEQUENCE_LINE]}: SourceX/Y, GroupX/Y {got}, expected the survey's {want}")
            k += 1
    print(f"  (g) gathers as SEG-Y: the {k} traces keep SourceX/Y, GroupX/Y (y = {Y:.0f} m)", flush=True)
    J = misfit(c.run(1, ["-mode", "gradient", "-vp", start, "-dx", DX, "-observed_segy", obs, "-output_format", "segy"] + TIME,
                     scr.sub("utm"), timeout=TIMEOUT))
    g, hg = read_segy(os.path.join(scr.sub("utm"), "gradient.sgy"))[:2]
    c.check(J == Jr and g.tobytes() == g_rsf.tobytes(), f"(g) the placed model's misfit {J!r} or gradient differs from the RSF run's ({Jr!r})")
    for ix, h in enumerate(hg):
        got, want = (scaled(h, T.CDP_X), scaled(h, T.CDP_Y)), (ORIGIN_X + ix * DX, Y)
        c.check(got == want, f"(g) gradient.sgy trace {ix + 1}: CDP X, Y {got}, expected the model's {want}")
    print(f"  (g) gradient.sgy: equal to the RSF run's, CDP X, Y kept ({ORIGIN_X:.0f} + ix*{DX:g}, {Y:.0f})", flush=True)
    out = c.run(1, ["-help"], timeout=TIMEOUT)
    for axis, field in (("x", "SourceX"), ("y", "SourceY")):
        line = next((ln for ln in out.splitlines() if f"-segy_origin_{axis} " in ln), "")
        c.check(field in line, f"(g) -help: -segy_origin_{axis} reads {line.strip()!r}, expected it to name {field}")
    print("  (g) -help: -segy_origin_x/_y name the fields they shift", flush=True)


def main():
    rng = np.random.default_rng(7)
    scr = c.Scratch("segy")
    with scr:
        vp = c.smooth_random_model((NX, NZ), seed=3)
        model = c.write_model(scr.sub("model.rsf"), vp, DX)
        geo = scr.sub("survey.txt")
        c.write_geometry(geo, SHOTS)
        grid = ["-vp", model, "-dx", DX]
        text = grid + ["-geometry", geo, "-nt", NT, "-dt", DT] + TIME

        # (a) gathers as SEG-Y
        rsf_out, sgy_out = scr.sub("rsf"), scr.sub("sgy")
        c.run(1, text, rsf_out, timeout=TIMEOUT)
        c.run(1, text + ["-output_format", "segy"], sgy_out, timeout=TIMEOUT)
        ref = gathers(rsf_out, len(SHOTS), "rsf")
        same_gathers(ref, gathers(sgy_out, len(SHOTS), "sgy"), "(a) -output_format segy")
        for s in range(len(SHOTS)):
            check_gather_headers(os.path.join(sgy_out, "shot_%04d.sgy" % s), s, SHOTS)
        print("  (a) headers: FFID, sequence numbers, coordinates, depths, offset, count, interval", flush=True)

        # (b) the survey from trace headers, big-endian IBM, no -nt/-dt
        ntr = sum(len(r) for _, r in SHOTS)
        survey = write_segy(scr.sub("survey.sgy"), np.zeros((ntr, NT)), survey_headers(SHOTS), 1000, fmt=1)
        from_headers = grid + ["-geometry", survey, "-segy_origin_x", ORIGIN_X] + TIME
        out = c.run(1, from_headers, scr.sub("hdr"), timeout=TIMEOUT)
        c.check(f"time: {NT} samples at {DT:g} s" in out, "(b) -nt/-dt not taken from the SEG-Y survey")
        same_gathers(ref, gathers(scr.sub("hdr"), len(SHOTS), "rsf"), "(b) survey from SEG-Y headers")
        c.run(1, from_headers + ["-output_format", "segy"], scr.sub("hdr_sgy"), timeout=TIMEOUT)
        ffids = [read_segy(os.path.join(scr.sub("hdr_sgy"), "shot_%04d.sgy" % s))[1][0][segyio.TraceField.FieldRecord]
                 for s in range(len(SHOTS))]
        c.check(ffids == [101, 102, 103], f"(b) FFIDs written {ffids}, expected the survey's [101, 102, 103]")

        # (c) models from SEG-Y: 2D little-endian IEEE; 3D by inline and by crossline
        T = segyio.TraceField
        model_sgy = write_segy(scr.sub("model.sgy"), vp, [{T.INLINE_3D: 1, T.CROSSLINE_3D: i + 1} for i in range(NX)],
                               int(DX * 1000), endian="little")
        c.run(1, ["-vp", model_sgy, "-dx", DX, "-geometry", geo, "-nt", NT, "-dt", DT] + TIME, scr.sub("m2"), timeout=TIMEOUT)
        same_gathers(ref, gathers(scr.sub("m2"), len(SHOTS), "rsf"), "(c) 2D model from SEG-Y")
        ny, nx, nz = 12, 14, 16
        vp3 = c.smooth_random_model((ny, nx, nz), seed=5, sigma=2.0)
        model3 = c.write_model(scr.sub("model3.rsf"), vp3, DX)
        geo3 = c.write_geometry(scr.sub("survey3.txt"), [((60.0, 50.0, 30.0), [(20.0, 90.0, 20.0), (120.0, 40.0, 20.0)])])
        acq3 = ["-dx", DX, "-geometry", geo3, "-nt", 120, "-dt", DT, "-pml_width", 8] + TIME
        c.run(1, ["-vp", model3] + acq3, scr.sub("r3"), timeout=TIMEOUT)
        ref3 = gathers(scr.sub("r3"), 1, "rsf")
        inl = [(iy, ix) for iy in range(ny) for ix in range(nx)]
        xl = [(iy, ix) for ix in range(nx) for iy in range(ny)]
        for name, order, ranks in (("inline", inl, 1), ("crossline", xl, 2)):
            path = write_segy(scr.sub(f"model3_{name}.sgy"), np.array([vp3[iy, ix] for iy, ix in order]),
                              [{T.INLINE_3D: 11 + iy, T.CROSSLINE_3D: 21 + ix} for iy, ix in order], int(DX * 1000))
            c.run(ranks, ["-vp", path, "-da_processors_y", ranks] + acq3, scr.sub("s3" + name), timeout=TIMEOUT)
            same_gathers(ref3, gathers(scr.sub("s3" + name), 1, "rsf"), f"(c) 3D model sorted by {name}")

        # (d) round trips through -observed_segy and SEG-Y models
        inv = ["-mode", "gradient"] + TIME  # the time step of the model's top speed, as the forward run took
        J0 = misfit(c.run(1, grid + inv + ["-observed_segy", sgy_out], scr.sub("g0"), timeout=TIMEOUT))
        c.check(J0 == 0.0, f"(d) misfit {J0!r} against SEG-Y gathers of the same model: expected 0 exactly")
        start = c.write_model(scr.sub("start.rsf"), np.full((NX, NZ), 2300.0, np.float32), DX)
        Jr = misfit(c.run(1, ["-vp", start, "-dx", DX, "-observed_dir", rsf_out, "-geometry", geo, "-nt", NT, "-dt", DT] + inv,
                          scr.sub("gr"), timeout=TIMEOUT))
        Js = misfit(c.run(1, ["-vp", start, "-dx", DX, "-observed_segy", sgy_out, "-output_format", "segy"] + inv,
                          scr.sub("gs"), timeout=TIMEOUT))
        c.check(Jr == Js and Jr > 0, f"(d) misfit {Js!r} with -observed_segy, {Jr!r} with -observed_dir: expected equal, positive")
        g_rsf = c.read_rsf(os.path.join(scr.sub("gr"), "gradient.rsf"))[0]
        g_sgy = read_segy(os.path.join(scr.sub("gs"), "gradient.sgy"))[0]
        c.check(g_rsf.tobytes() == g_sgy.tobytes(), "(d) gradient.sgy differs from gradient.rsf")
        invert = ["-mode", "invert", "-vp", start, "-dx", DX, "-observed_segy", sgy_out, "-vp_max", 3500.0, "-tao_max_it", 2] + TIME
        c.run(1, invert, scr.sub("ir"), timeout=TIMEOUT)
        c.run(2, invert + ["-output_format", "segy", "-da_processors_x", 2], scr.sub("is"), timeout=TIMEOUT)  # each rank writes its box
        v_rsf = c.read_rsf(os.path.join(scr.sub("ir"), "vp.rsf"))[0]
        v_sgy, _, _, dz_mm = read_segy(os.path.join(scr.sub("is"), "vp.sgy"))
        c.check(v_rsf.tobytes() == v_sgy.tobytes() and dz_mm == DX * 1000 and os.path.isfile(os.path.join(scr.sub("is"), "vp_0002.sgy")),
                f"(d) vp.sgy (interval {dz_mm} mm) differs from vp.rsf, or vp_0002.sgy is missing")
        back = [misfit(c.run(1, ["-vp", v, "-dx", DX, "-observed_segy", sgy_out] + inv, scr.sub("b" + str(k)), timeout=TIMEOUT))
                for k, v in enumerate((os.path.join(scr.sub("ir"), "vp.rsf"), os.path.join(scr.sub("is"), "vp.sgy")))]
        c.check(back[0] == back[1], f"(d) misfit of vp.sgy read back {back[1]!r}, of vp.rsf {back[0]!r}")
        print(f"  (d) misfits: {J0} at the true model, {Jr} from RSF and SEG-Y data; gradient.sgy, vp.sgy equal, "
              f"read back alike ({back[0]})", flush=True)

        # (e) endianness and sample formats: values k / 4096 are exact in IBM and IEEE floats
        obs = [np.round(g * 4096 + rng.integers(-50, 50, g.shape)) / 4096 for g in ref]
        obs_dir = scr.sub("obs_rsf")
        os.makedirs(obs_dir)
        for s, g in enumerate(obs):
            c.write_rsf(c.gather_path(obs_dir, s), g.astype(np.float32), d=[DT, 1.0])
        Jq = misfit(c.run(1, ["-vp", start, "-dx", DX, "-observed_dir", obs_dir, "-geometry", geo, "-nt", NT, "-dt", DT] + inv,
                          scr.sub("eq"), timeout=TIMEOUT))
        for endian in ("big", "little"):
            for fmt in (1, 5):
                path = write_segy(scr.sub(f"obs_{endian}_{fmt}.sgy"), np.concatenate(obs), survey_headers(SHOTS), 1000,
                                  fmt=fmt, endian=endian)
                J = misfit(c.run(1, ["-vp", start, "-dx", DX, "-observed_segy", path, "-segy_origin_x", ORIGIN_X] + inv,
                                 scr.sub(f"e_{endian}_{fmt}"), timeout=TIMEOUT))
                c.check(J == Jq, f"(e) {endian}-endian format {fmt}: misfit {J!r}, expected the RSF data's {Jq!r}")
        print(f"  (e) big/little-endian IBM/IEEE observed data: misfit {Jq!r} as from RSF", flush=True)

        # (f) clear errors
        hdr_run = grid + ["-geometry", survey, "-segy_origin_x", ORIGIN_X] + TIME
        truncated = scr.sub("truncated.sgy")
        shutil.copy(survey, truncated)
        os.truncate(truncated, os.path.getsize(survey) - 100)
        refused(grid + ["-geometry", truncated] + TIME, scr.sub("f1"), "a truncated file", [truncated, "truncated"])
        refused(hdr_run + ["-nt", 299], scr.sub("f2"), "-nt 299 against 300 samples", [survey, "299", "300"])
        refused(hdr_run + ["-dt", 0.002], scr.sub("f3"), "-dt 0.002 against 1000 us", [survey, "0.002", "1000 us"])
        refused(["-vp", model_sgy, "-dz", 5.0, "-geometry", geo, "-nt", NT] + TIME, scr.sub("f4"), "-dz 5 against 10000 mm",
                [model_sgy, "10000 mm", "-dz 5"])
        refused(grid + ["-mode", "gradient", "-geometry", geo, "-observed_segy", sgy_out] + TIME, scr.sub("f5"),
                "-geometry with -observed_segy", ["-geometry", "-observed_segy"])
        hs = survey_headers(SHOTS)
        hs[-1][T.FieldRecord] = 101
        bad = write_segy(scr.sub("ffid_again.sgy"), np.zeros((ntr, NT)), hs, 1000)
        refused(grid + ["-geometry", bad] + TIME, scr.sub("f6"), "an FFID that comes back", [bad, "FFID 101", "trace 9"])
        hs = survey_headers(SHOTS)
        hs[1][T.SourceX] += 100
        bad = write_segy(scr.sub("two_sources.sgy"), np.zeros((ntr, NT)), hs, 1000)
        refused(grid + ["-geometry", bad] + TIME, scr.sub("f7"), "two sources in one record", [bad, "trace 2", "one source"])
        hs = survey_headers(SHOTS)
        hs[4][T.GroupY] = 250
        bad = write_segy(scr.sub("crooked.sgy"), np.zeros((ntr, NT)), hs, 1000)
        refused(grid + ["-geometry", bad] + TIME, scr.sub("f8"), "a 2D line whose y varies", [bad, "trace 5", "2.5"])
        bad = write_segy(scr.sub("int16.sgy"), np.zeros((ntr, NT)), survey_headers(SHOTS), 1000, fmt=3)
        refused(grid + ["-geometry", bad] + TIME, scr.sub("f9"), "16-bit integer samples", [bad, "format code 3"])

        # (g) every coordinate kept, in and out
        kept_coordinates(scr, ref, Jr, g_rsf)


if __name__ == "__main__":
    c.main(main)
