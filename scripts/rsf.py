"""Minimal reader/writer for RSF (Madagascar) files as halofwi uses them.

A header is text of key=value pairs (values may be quoted); `in=` names the
raw data file, relative to the header's folder or absolute; the data are
float32 (native_float: little-endian, xdr_float: big-endian) or float64
(native_double: halofwi's coords_NNNN.rsf) with n1 fastest.  `read`
returns an array of shape (n1, n2[, n3 ...]) (trailing axes of length 1
dropped) and the header as a dict of strings.
"""
import os
import re

import numpy as np

_PAIR = re.compile(r"""([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)""")
_FORMATS = {"native_float": "<f4", "xdr_float": ">f4", "native_double": "<f8"}


def read_header(path):
    """Key=value pairs of an RSF header; later assignments win, quotes removed."""
    with open(path, "rb") as f:
        text = f.read().split(b"\x0c", 1)[0].decode("utf-8", "replace")
    hdr = {}
    for key, value in _PAIR.findall(text):
        if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 2:
            value = value[1:-1]
        hdr[key] = value
    return hdr


def _number(hdr, key, kind, default):
    """hdr[key] as int or float, or a ValueError naming the key and its value."""
    text = hdr.get(key, default)
    try:
        return kind(text)
    except ValueError:
        raise ValueError("%s=%s is not %s" % (key, text, "an integer" if kind is int else "a number")) from None


def shape(hdr):
    """(n1, n2, ...) without trailing axes of length 1 (at least one axis)."""
    dims = []
    for k in range(1, 10):
        if "n%d" % k not in hdr:
            break
        dims.append(_number(hdr, "n%d" % k, int, 1))
        if dims[-1] < 1:
            raise ValueError("n%d=%d: expected at least 1 sample" % (k, dims[-1]))
    while len(dims) > 1 and dims[-1] == 1:
        dims.pop()
    if not dims:
        raise ValueError("no n1= in the header: not an RSF file")
    return tuple(dims)


def axis(hdr, k):
    """(n, d, o) of axis k (1-based) as (int, float, float)."""
    return (_number(hdr, "n%d" % k, int, 1), _number(hdr, "d%d" % k, float, 1),
            _number(hdr, "o%d" % k, float, 0))


def data_path(path, hdr):
    """The raw data file named by `in=`, resolved against the header folder."""
    if "in" not in hdr or hdr["in"] == "stdin":
        raise ValueError("%s: no separate data file (in=%r)" % (path, hdr.get("in")))
    return os.path.join(os.path.dirname(os.path.abspath(path)), hdr["in"])


def read(path):
    """Return (data, header) of an RSF file; data is float32 (float64 for
    native_double), Fortran order.
    A file that is not such an RSF pair raises ValueError (or OSError) with
    a message that starts with the path."""
    hdr = read_header(path)
    try:
        fmt = hdr.get("data_format", "native_float")
        size = np.dtype(_FORMATS.get(fmt, "<f4")).itemsize
        if fmt not in _FORMATS or _number(hdr, "esize", int, size) != size:
            raise ValueError("unsupported data_format=%s esize=%s (want %s with its size)" % (fmt, hdr.get("esize"), ", ".join(_FORMATS)))
        dims = shape(hdr)
    except ValueError as e:
        raise ValueError("%s: %s" % (path, e)) from None
    raw = np.fromfile(data_path(path, hdr), dtype=_FORMATS[fmt])
    if raw.size != int(np.prod(dims)):
        raise ValueError("%s: %d samples in %s, header says %s"
                         % (path, raw.size, hdr["in"], "x".join(map(str, dims))))
    return raw.astype(np.float64 if size == 8 else np.float32).reshape(dims, order="F"), hdr


def write(path, data, d=None, o=None, **extra):
    """Write `data` (n1 fastest, i.e. Fortran order) as PATH + raw PATH@."""
    data = np.asarray(data, dtype="<f4")
    d = d or [1.0] * data.ndim
    o = o or [0.0] * data.ndim
    raw = path + "@"
    data.ravel(order="F").tofile(raw)
    lines = ["n%d=%d d%d=%g o%d=%g" % (k + 1, n, k + 1, d[k], k + 1, o[k])
             for k, n in enumerate(data.shape)]
    lines += ['%s="%s"' % kv for kv in extra.items()]
    lines += ['data_format="native_float" esize=4', 'in="%s"' % os.path.basename(raw)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
