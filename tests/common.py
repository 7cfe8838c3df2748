"""Shared helpers for the halofwi regression tests (run by ctest).

Environment (set by tests/CMakeLists.txt):
  HALOFWI_BIN       the halofwi executable
  MPIEXEC           mpiexec (OpenMPI); used for runs on more than one rank
  HALOFWI_TEST_TMP  folder for scratch directories (inside the build tree)
  HALOFWI_KEEP=1    keep scratch directories even when a test passes

Every test script uses `Scratch` as a context manager: the directory is
removed when the test passes and kept (its path printed) when it fails.
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

HALOFWI_BIN = os.environ.get("HALOFWI_BIN", "")
MPIEXEC = os.environ.get("MPIEXEC", "") or shutil.which("mpiexec") or "mpiexec"
MPI_FLAGS = ["--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]
DEFAULT_TIMEOUT = 300


class TestFailure(AssertionError):
    pass


def fail(msg):
    raise TestFailure(msg)


def check(cond, msg):
    """Assert with a message that states the measured figure and the threshold."""
    if not cond:
        fail(msg)


# --------------------------------------------------------------------------
# scratch directories

class Scratch:
    """A scratch directory under HALOFWI_TEST_TMP; removed when the block
    exits without an exception (unless HALOFWI_KEEP is set)."""

    def __init__(self, name):
        base = os.environ.get("HALOFWI_TEST_TMP") or os.path.join(os.getcwd(), "halofwi-test-tmp")
        os.makedirs(base, exist_ok=True)
        self.path = tempfile.mkdtemp(prefix=name + "-", dir=base)

    def __enter__(self):
        return self.path

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and not os.environ.get("HALOFWI_KEEP"):
            shutil.rmtree(self.path, ignore_errors=True)
        else:
            print(f"[scratch directory kept: {self.path}]", file=sys.stderr)
        return False

    def sub(self, *names):
        return os.path.join(self.path, *names)


# --------------------------------------------------------------------------
# running the program

def _fmt(a):
    if isinstance(a, float):
        return repr(float(a))  # full precision, round-trips (numpy 2's repr of its own floats names the type)
    return str(a)


def command(nranks, args, outdir=None):
    if not HALOFWI_BIN:
        fail("HALOFWI_BIN is not set (run the tests through ctest)")
    argv = [HALOFWI_BIN] + [_fmt(a) for a in args]
    if outdir is not None:
        argv += ["-output_dir", str(outdir)]
    if nranks > 1:
        argv = [MPIEXEC] + MPI_FLAGS + ["-n", str(nranks)] + argv
    return argv


def _cmdline(argv):
    return " ".join(shlex.quote(a) for a in argv)


def run_status(nranks, args, outdir=None, timeout=DEFAULT_TIMEOUT, cwd=None, threads=1):
    """Run halofwi as run() does, whatever its exit status: returns (exit
    status, stdout and stderr combined).  For runs that may be refused."""
    argv = command(nranks, args, outdir)
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(threads)
    if threads > 1:  # threads that spin at barriers crawl when ranks x threads exceed the cores
        env["OMP_WAIT_POLICY"] = "passive"
    env.pop("PETSC_OPTIONS", None)
    if cwd is None and outdir is not None:
        # run beside the output so that nothing lands in the caller's folder
        cwd = os.path.dirname(os.path.abspath(str(outdir)))
        while cwd and not os.path.isdir(cwd):
            cwd = os.path.dirname(cwd)
    t = time.time()
    # own process group, so that a timeout also ends the ranks under mpiexec
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                         start_new_session=True)
    try:
        raw, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        raw, _ = p.communicate()
        print(raw.decode(errors="replace"))
        fail(f"timed out after {timeout} s (hang?): {_cmdline(argv)}")
    out = raw.decode(errors="replace")
    elapsed = time.time() - t
    print(f"$ {_cmdline(argv)}\n  -> exit {p.returncode} in {elapsed:.1f} s", flush=True)
    return p.returncode, out


def run_acting(nranks, args, outdir, marker, action, timeout=DEFAULT_TIMEOUT):
    """Run halofwi (one thread a rank, without PETSC_OPTIONS) and call
    action(process) once, when a line holding marker is printed; the run is
    killed after timeout s.  Returns (exit status, output, whether action
    was called); the caller judges both."""
    argv = command(nranks, args, outdir)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("PETSC_OPTIONS", None)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True,
                         errors="replace", cwd=os.path.dirname(outdir), start_new_session=True)
    watchdog = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
    watchdog.start()
    lines, acted = [], False
    try:
        for line in p.stdout:
            lines.append(line)
            if not acted and marker in line:
                action(p)
                acted = True
        rc = p.wait()
    finally:
        watchdog.cancel()
    print(f"$ {' '.join(argv)}", flush=True)
    return rc, "".join(lines), acted


def run(nranks, args, outdir=None, expect_fail=False, timeout=DEFAULT_TIMEOUT, cwd=None, threads=1):
    """Run halofwi on nranks ranks of `threads` OpenMP threads each with the
    given arguments (list) and -output_dir outdir (when not None).  Returns
    stdout and stderr combined.  Raises TestFailure, with the command and its
    output, when the exit status is not what was expected (zero, or non-zero
    when expect_fail)."""
    status, out = run_status(nranks, args, outdir, timeout, cwd, threads)
    cmdline = _cmdline(command(nranks, args, outdir))
    if expect_fail and status == 0:
        print(out)
        fail(f"expected a non-zero exit status, got 0: {cmdline}")
    if not expect_fail and status != 0:
        print(out)
        fail(f"exit status {status}: {cmdline}")
    return out


def error_message(output):
    """The message of the error that ended a run: halofwi's own line(s)
    ("halofwi: error: ..."), or for a fault the message part of PETSc's
    report (the lines between 'Error Message' and the 'See https://petsc.org'
    footer: no traceback, version, host, date or configure options), from
    every rank."""
    lines = []
    for line in output.splitlines():
        m = (re.match(r"halofwi: error(?: \(rank \d+\))?: (.*)", line)
             or re.match(r"\s*\[\d+\]PETSC ERROR:\s?(.*)", line))
        if not m:
            continue
        text = m.group(1).rstrip()
        if (not text or text.startswith("-----") or text.startswith("#") or text.startswith("See ")
                or text.startswith("Petsc Release") or text.startswith("Configure options")
                or re.search(r" on a .* named ", text) or "Error Message" in text):
            continue
        if text not in lines:
            lines.append(text)
    return "\n".join(lines)


_MPIEXEC_NOTICE = re.compile(r"^-{20,}\n(?:(?!-{20,}).*\n)*?-{20,}\n", re.M)


def program_lines(output):
    """The lines a run printed, less mpiexec's own notices (the framed
    'process returned a non-zero exit code' blocks, which mpiexec -q hides)."""
    return [line for line in _MPIEXEC_NOTICE.sub("", output if output.endswith("\n") else output + "\n").splitlines()
            if line.strip()]


_FLOAT = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"


def seconds_after(output, label):
    """The figure printed as '<label> X s' at start-up."""
    m = re.search(re.escape(label) + r"\s+" + _FLOAT + r"\s*s", output)
    if not m:
        print(output)
        fail(f"no '{label} X s' in the program output")
    return float(m.group(1))


def stability_limit(output):
    return seconds_after(output, "stability limit")


def internal_step(output):
    return seconds_after(output, "internal step")


def check_layout(output, px, pz, py=1):
    """The layout the program prints, '(z P x P y P)', is the one asked for;
    a run that does not print it fails the check."""
    m = re.search(r"\(z (\d+) x (\d+) y (\d+)\)", output)
    check(m is not None, f"no layout line '(z P x P y P)' in the output, asked for (z, x, y) = {(pz, px, py)}")
    got = tuple(int(g) for g in m.groups())
    check(got == (pz, px, py), f"layout (z, x, y) = {got}, asked for {(pz, px, py)}")


def probe_stability_limit(args, scratch_dir, nranks=1):
    """Stability limit for a model/order given by args: a 1-sample run."""
    out = os.path.join(scratch_dir, "probe-%d" % time.monotonic_ns())
    o = run(nranks, list(args) + ["-nt", 1], out)
    shutil.rmtree(out, ignore_errors=True)
    return stability_limit(o)


# --------------------------------------------------------------------------
# RSF

def read_rsf_header(path):
    """key=value pairs of an RSF header (later values win); quotes stripped."""
    h = {}
    with open(path, "r", errors="replace") as f:
        text = f.read()
    for m in re.finditer(r'([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\'[^\']*\'|\S+)', text):
        v = m.group(2)
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
            v = v[1:-1]
        h[m.group(1)] = v
    return h


def rsf_data_path(path, h=None):
    if h is None:
        h = read_rsf_header(path)
    if "in" not in h:
        fail(f"{path}: no in= in the header")
    p = h["in"]
    if not os.path.isabs(p):
        p = os.path.join(os.path.dirname(os.path.abspath(path)), p)
    return p


def read_rsf(path):
    """Returns (array, header).  The array has the slowest axis first:
    shape (n3, n2, n1) trimmed of trailing unit axes (at least 1D)."""
    h = read_rsf_header(path)
    fmt = h.get("data_format", "native_float")
    check(fmt == "native_float", f"{path}: data_format={fmt}, expected native_float")
    n = [int(h.get("n%d" % i, 1)) for i in range(1, 10)]
    while len(n) > 1 and n[-1] == 1:
        n.pop()
    data_path = rsf_data_path(path, h)
    a = np.fromfile(data_path, dtype="<f4")
    check(a.size == int(np.prod(n)),
          f"{data_path}: {a.size} floats, header {path} says {n} = {int(np.prod(n))}")
    return a.reshape(tuple(reversed(n))), h


def write_rsf(path, array, d=None, o=None):
    """Writes path (header) and path@ (raw little-endian float32).  array's
    last axis is n1 (fastest): shape (n1,), (n2, n1) or (n3, n2, n1)."""
    a = np.ascontiguousarray(np.asarray(array, dtype="<f4"))
    shape = list(reversed(a.shape))  # n1 first
    d = list(d) if d is not None else [1.0] * len(shape)
    o = list(o) if o is not None else [0.0] * len(shape)
    lines = []
    for i, n in enumerate(shape):
        lines.append(f"n{i+1}={n} d{i+1}={d[i]!r} o{i+1}={o[i]!r}")
    lines.append('data_format="native_float"')
    lines.append("esize=4")
    lines.append(f'in="{os.path.basename(path)}@"')
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    a.tofile(path + "@")
    return path


def write_model(path, vp, d):
    """vp: 2D array indexed [x, z] (shape (nx, nz)) or 3D [y, x, z];
    written with n1 = z fastest, n2 = x, n3 = y.  d: spacing (m), same on
    every axis."""
    return write_rsf(path, vp, d=[float(d)] * np.ndim(vp))


def gather_path(outdir, shot):
    return os.path.join(outdir, "shot_%04d.rsf" % shot)


def read_gather(outdir, shot):
    """Shot gather as a float32 array of shape (nrec, nt)."""
    path = gather_path(outdir, shot)
    check(os.path.isfile(path), f"missing output {path}")
    a, h = read_rsf(path)
    n1 = int(h.get("n1", 1))
    n2 = int(h.get("n2", 1))
    return a.reshape((n2, n1))


def gather_bytes(outdir, shot):
    path = gather_path(outdir, shot)
    check(os.path.isfile(path), f"missing output {path}")
    with open(rsf_data_path(path), "rb") as f:
        return f.read()


def write_geometry(path, shots, comment=None):
    """shots: list of (source, [receivers]); positions are tuples (x, z) or
    (x, y, z) in metres."""
    lines = []
    if comment:
        lines.append("# " + comment)
    for src, recs in shots:
        lines.append("S " + " ".join(repr(float(c)) for c in src))
        for r in recs:
            lines.append("R " + " ".join(repr(float(c)) for c in r))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


# --------------------------------------------------------------------------
# numerics

def ricker(t, f0, t0=None):
    if t0 is None:
        t0 = 1.5 / f0
    a = (np.pi * f0 * (np.asarray(t, dtype=float) - t0)) ** 2
    return (1.0 - 2.0 * a) * np.exp(-a)


def smooth_random_model(shape, seed, vmin=1600.0, vmax=3200.0, sigma=4.0, layer=True):
    """Heterogeneous velocity (float32) of the given shape, axes (.., x, z)
    with z last: smooth random field + a depth gradient + (optionally) a
    sharp dipping interface.  Deterministic for a seed."""
    from scipy.ndimage import gaussian_filter
    rng = np.random.default_rng(seed)
    f = gaussian_filter(rng.standard_normal(shape), sigma, mode="wrap")
    f = (f - f.min()) / (f.max() - f.min() + 1e-30)
    nz = shape[-1]
    z = np.arange(nz) / max(nz - 1, 1)
    v = 0.55 + 0.25 * z + 0.2 * f  # in [0.55, 1]
    if layer:
        nx = shape[-2]
        x = np.arange(nx) / max(nx - 1, 1)
        iface = (0.55 + 0.15 * x)[:, None] * (nz - 1)  # dipping interface, (nx, 1)
        zz = np.arange(nz)[None, :]
        v = v + 0.15 * (zz > iface)
    v = (v - v.min()) / (v.max() - v.min())
    return (vmin + (vmax - vmin) * v).astype(np.float32)


def misfit_ratio(out_dir):
    """An inversion's last misfit over its first (out_dir/misfit.csv)."""
    rows = [line.split(",") for line in open(os.path.join(out_dir, "misfit.csv")).read().split("\n")[1:] if line]
    return float(rows[-1][2]) / float(rows[0][2])


def rel_l2(a, ref):
    a = np.asarray(a, dtype=float)
    ref = np.asarray(ref, dtype=float)
    return float(np.linalg.norm(a - ref) / np.linalg.norm(ref))


def compare_bitwise(dir_ref, dir_test, nshots, what):
    """Every shot's binary in dir_test equals dir_ref byte for byte."""
    for s in range(nshots):
        a = gather_bytes(dir_ref, s)
        b = gather_bytes(dir_test, s)
        if a != b:
            ga = read_gather(dir_ref, s)
            gb = read_gather(dir_test, s)
            if ga.shape != gb.shape:
                fail(f"{what}: shot {s}: gather shape {gb.shape}, reference {ga.shape}")
            d = np.abs(ga.astype(np.float64) - gb)
            nd = int(np.count_nonzero(ga != gb))
            i, k = np.unravel_index(np.argmax(d), d.shape)
            fail(f"{what}: shot {s} is not bit-for-bit equal to the reference: {nd} of {ga.size} samples "
                 f"differ, max |diff| {d.max():.3e} at receiver {i} sample {k} "
                 f"(reference value {ga[i, k]:.6e}, peak |reference| {np.abs(ga).max():.3e})")
        print(f"  {what}: shot {s} bit-for-bit equal ({len(a)} bytes)", flush=True)


def main(fn):
    """Run a test function; exit 0 on success, 1 with the message on failure."""
    t = time.time()
    try:
        fn()
    except TestFailure as e:
        print(f"FAIL: {e}", flush=True)
        sys.exit(1)
    print(f"PASS ({time.time() - t:.1f} s)", flush=True)
    sys.exit(0)
