"""Shot gathers as a person reads them: where each trace lies, the gain and
the clip.  numpy only (scripts/plot draws; the tests check these alone).

A gather is RSF, time fastest: data[t, trace], with d1/o1 the time axis in
seconds.
"""
import os
import re

import numpy as np

import rsf


def coordinates_path(path):
    """The coordinate file of gather PATH (.../shot_NNNN.rsf): coords_NNNN.rsf
    beside it, or None where the run wrote none."""
    m = re.search(r"shot_(\d+)\.rsf$", os.path.basename(path))
    candidate = m and os.path.join(os.path.dirname(path), "coords_%s.rsf" % m.group(1))
    return candidate if candidate and os.path.exists(candidate) else None


COORDINATE_ROWS = ("sx", "sy", "sz", "gx", "gy", "gz")


def read_coordinates(path, cpath=None):
    """Source and receiver positions of gather PATH as a dict of arrays, one
    value per trace: sx, sy, sz, gx, gy, gz (m, the survey's coordinates);
    None without a coordinate file.  The file (cpath, default the one beside
    the gather) is the RSF halofwi writes: n1 = 6 rows, source x, y, depth
    and receiver x, y, depth, by n2 = traces (native_double)."""
    cpath = cpath or coordinates_path(path)
    if cpath is None:
        return None
    table, _ = rsf.read(cpath)
    table = table.reshape(table.shape[0], -1)
    if table.shape[0] != len(COORDINATE_ROWS):
        raise ValueError("%s: n1=%d, expected %d rows (source x, y, depth, receiver x, y, depth)" % (cpath, table.shape[0], len(COORDINATE_ROWS)))
    return {k: table[i].astype(np.float64) for i, k in enumerate(COORDINATE_ROWS)}


def trace_positions(coords, ntraces, axis="offset"):
    """(x, label, note) for the horizontal axis: the signed horizontal
    offset (the sign of the receiver's x minus the source's, or of y where
    x is the same) or the receiver x, in metres; the trace index where there
    are no coordinates or they do not run one way (an areal 3D spread), with
    note saying why."""
    index = np.arange(ntraces, dtype=np.float64)
    if coords is None:
        return index, "receiver index", "no coordinate file beside the gather: receiver index on the horizontal axis"
    if len(coords["gx"]) != ntraces:
        raise ValueError("the coordinate file has %d traces, the gather %d" % (len(coords["gx"]), ntraces))
    if axis == "receiver_x":
        x, label = coords["gx"], "receiver x (m)"
    else:
        dx, dy = coords["gx"] - coords["sx"], coords["gy"] - coords["sy"]
        sign = np.where(dx != 0, np.sign(dx), np.sign(dy))
        x, label = sign * np.hypot(dx, dy), "offset (m)"
    step = np.diff(x)
    if ntraces > 1 and not (np.all(step > 0) or np.all(step < 0)):
        return index, "receiver index", "the traces' %s do not run one way: receiver index on the horizontal axis" % label.split(" (")[0]
    return x, label, None


def time_axis(hdr):
    """Sample times (s) of a gather's first axis."""
    nt, dt, t0 = rsf.axis(hdr, 1)
    return t0 + dt * np.arange(nt)


def gain(data, t, agc=None, tpow=None):
    """Gain factors of data[t, trace], to multiply it (and any gather to be
    compared with it) by: t^tpow, or automatic gain control, 1 / the RMS
    amplitude over a window of agc seconds centred on each sample (held
    off zero at 1e-6 of the gather's RMS); ones without either."""
    if agc is not None and tpow is not None:
        raise ValueError("--agc and --tpow: give one gain, not both")
    if tpow is not None:
        return np.repeat((np.abs(t) ** tpow)[:, None], data.shape[1], axis=1)
    if agc is None:
        return np.ones_like(data, dtype=np.float64)
    if not agc > 0:
        raise ValueError("--agc %g: expected a window of more than 0 s" % agc)
    dt = t[1] - t[0] if len(t) > 1 else 1.0
    half = max(1, int(round(agc / dt / 2)))
    power = np.concatenate([np.zeros((1, data.shape[1])), np.cumsum(np.square(data, dtype=np.float64), axis=0)])
    lo = np.clip(np.arange(len(t)) - half, 0, len(t))
    hi = np.clip(np.arange(len(t)) + half + 1, 0, len(t))
    rms = np.sqrt((power[hi] - power[lo]) / (hi - lo)[:, None])
    floor = 1e-6 * (np.sqrt(np.mean(np.square(data, dtype=np.float64))) or 1.0)
    return 1.0 / np.maximum(rms, floor)


def clip_value(data, percentile):
    """The amplitude at the given percentile of |data| (1 where all zero)."""
    if not 0 < percentile <= 100:
        raise ValueError("--clip %g: expected a percentile above 0, at most 100" % percentile)
    return float(np.percentile(np.abs(data), percentile)) or 1.0


_SNAPSHOT = re.compile(r"snapshot_(\d+)_(\d+)\.rsf$")


def snapshot_time(path, hdr):
    """The time (s) of wavefield snapshot PATH, or None: o of the header's
    axis of one sample labelled Time where it has one, else its recorded
    sample (snapshot_SHOT_SAMPLE.rsf) times the interval of the run's shot
    gather beside it."""
    for k in range(1, 10):
        if hdr.get("label%d" % k) == "Time" and rsf.axis(hdr, k)[0] == 1:
            return rsf.axis(hdr, k)[2]
    m = _SNAPSHOT.search(os.path.basename(path))
    if not m:
        return None
    gather = os.path.join(os.path.dirname(os.path.abspath(path)), "shot_%s.rsf" % m.group(1))
    if not os.path.exists(gather):
        return None
    return int(m.group(2)) * rsf.axis(rsf.read_header(gather), 1)[1]
