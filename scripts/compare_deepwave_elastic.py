#!/usr/bin/env python3
"""halofwi's isotropic elastic equation (-physics elastic) against
Deepwave's `elastic` propagator (the same velocity-stress system on the
staggered grid of Virieux), side by side in one run on the CPU: the
gathers' agreement, component by component, and each code's model-cell
rate.

usage: DEEPWAVE_PYTHON=<python with deepwave> scripts/compare_deepwave_elastic.py [HALOFWI] [THREADS]
   or: <python with deepwave> scripts/compare_deepwave_elastic.py [HALOFWI] [THREADS]
SPEED_RUNS=N runs each speed case N times and prints the ratios' median.

A layered solid of our own (vp/vs between 1.7 and 2.2, density steps that
the velocities do not follow, a lens of lower vs and density), 120 x 200
cells of 10 m, order 8, 20 layer cells, 1250 samples of 0.8 ms (one step
a sample in both codes: at 1 ms Deepwave's stability bound, which weighs
the water's density contrast, would take two), a 10 Hz Ricker.  Four
cases: (a) the solid, absorbing on every side; (b) a water layer (vs = 0,
200 m) over it, absorbing on every side; (c) a free surface on top of the
solid; (d) the water layer under a free surface.  Each with an explosion
and with a vertical force (fz) at a grid point, each gather recording p,
vz and vx along a line of receivers; reported: the relative L2 difference
of Deepwave's gather against halofwi's, per component.

Positions.  The grids are the same: a cell's centre carries the normal
stresses (the pressure), vz sits half a cell below it, vx half a cell
beyond it along x, the shear stress on the edge between four cells.
Neither code interpolates: Deepwave is given integer locations, which for
a velocity component name its own node (its 2D axes are (y, x), y the
slow one = our z; its vy of index i is at i + 1/2, its vx of index j at
j + 1/2); halofwi takes positions in metres and interpolates a field at a
point off that field's nodes (a vz receiver at a cell centre is a sinc
interpolation between two vz nodes), so its source is put on the node of
the field it drives (an fz source half a cell below the centre) and its
receivers, recording every component, three times over, each component's
gather taken from the copy on its own nodes.

Model on the nodes.  mu on an edge is the harmonic mean of the four
cells' in both codes; a velocity node's buoyancy is the mean of its two
cells' 1 / rho in halofwi and 1 over the mean of their rho in Deepwave.
They differ at density steps: on the seabed (1000 against 1900 kg/m^3)
the node's density is 1310 in halofwi and 1450 in Deepwave, most of case
(b)'s difference (with the water given the solid's density, the gathers
of (b) agree to below 1e-3).

Units and timing.  halofwi's explosion wavelet is a volume rate (m^3/s)
over the cell volume, which comes off each normal stress times
K = lambda + mu (2D plane strain; lambda + 2 mu / 3 in 3D); Deepwave's
`source_amplitudes_pressure_rate` is the rate of minus each normal stress
(Pa/s), so it is given K w / D^2 (D^3 in 3D), K of the source cell.
halofwi's force wavelet is in N over the cell volume; Deepwave's
`source_amplitudes_y` is a force per unit volume: w / D^2.  The pressures
of both are at t dt, the velocities at (t - 1/2) dt; both add pressure
sample t to the stresses of step t + 1, but a force sample t is added to
Deepwave's velocities before its stresses read them and to halofwi's
after (seen a step later): Deepwave is given the force wavelet delayed by
one sample (without it the difference is about 8e-2; a sample either way
of the pressure source, likewise).

Free surface.  Deepwave refuses its flat "free" face on the elastic
propagator (at every accuracy), so its surface is a vacuum layer above
the model (vp = vs = rho = 0, pml_width 0 on that face), with its
improved vacuum method (ivm) or, solid only (it refuses fluids), its
parameter-modified method (pm, Cao and Chen 2018).  halofwi's stress image
puts the surface on the centres of its first cell, as pm does on the
first material cell; ivm's surface lies on the vertical velocity half a
cell above the first material cell (there the node between vacuum and
material takes twice the material's buoyancy, which is what the odd image
of the normal stress about that node gives at second order), so no
placement of the model on Deepwave's grid puts the two surfaces together:
ivm is run with its surface half a cell above halofwi's (the same
material cells) and half a cell below (halofwi's first cell is vacuum
there).  Since these differences are large at 10 m, the free-surface cases
are run again on a grid 3 times finer (each cell 3 x 3 cells of the same
values, every point on the same node), where a difference that comes from
the surfaces' discretisation shrinks and one of convention would not.

Speed: a homogeneous solid (vp 3000, vs 1700, rho 2200), an explosion,
absorbing on every side, 1000 x 1000 cells, 500 steps (2D) and 128^3
cells, 200 steps (3D), 1 ms steps: model-cell updates per second of each
forward run (the model's cells, absorbing layers left out, times the
steps each code took: halofwi prints a rate over the cells with its
layers, converted here), timed inside each process around the propagation
alone (Deepwave after a short warm-up call), and halofwi's whole process,
launch to exit.
"""
import os
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import deepwave_side as side  # noqa: E402  (first: it re-executes under DEEPWAVE_PYTHON where needed)
import numpy as np  # noqa: E402
from deepwave_side import deepwave, rsf, torch  # noqa: E402

warnings.filterwarnings("ignore")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "halofwi")
THREADS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
D, F0, PML = 10.0, 10.0, 20
DT, NT = 0.0008, 1250  # the agreement cases
DT_SPEED = 0.001
NZ, NX, WATER = 120, 200, 20  # model cells; the water layer's
NVAC = 6  # Deepwave's vacuum cells above a free surface (more than order / 2)
FINE = 3  # the free-surface cases' refinement (odd: every node stays a node)
COMPONENTS = ("p", "vz", "vx")
DW_CHANNEL = {"p": "p", "vz": "y", "vx": "x"}  # Deepwave's 2D receiver channels
SOURCES = {"pressure": "explosion", "fz": "force fz"}
FIELD = {"pressure": "p", "fz": "vz"}  # the field each source drives


def model(water):
    """vp, vs, rho (NZ, NX): layers, a lens, and on top either a water
    layer (vs = 0) or a slow solid."""
    z = np.arange(NZ)[:, None] * D + 0 * np.arange(NX)[None, :]
    x = 0 * z + np.arange(NX)[None, :] * D
    vp = np.select([z < 200, z < 500, z < 800], [2000.0, 2200 + 0.8 * (z - 200), 2900.0], 3300.0)
    vs = np.select([z < 200, z < 500, z < 800], [1000.0, 1100 + 0.5 * (z - 200), 1450.0], 1800.0)
    rho = np.select([z < 200, z < 350, z < 800], [1900.0, 2050.0, 2300.0], 2250.0)
    lens = np.exp(-((x - 0.55 * NX * D) ** 2 + (z - 0.6 * NZ * D) ** 2) / 110.0 ** 2)
    vs, rho = vs * (1 - 0.2 * lens), rho - 250 * lens
    if water:
        top = z < WATER * D
        vp, vs, rho = np.where(top, 1500.0, vp), np.where(top, 0.0, vs), np.where(top, 1000.0, rho)
    return [a.astype(np.float32) for a in (vp, vs, rho)]


def refine(values, r):
    """The model on cells r times smaller: cell k of the fine grid (centre
    at k d / r) takes the value of the coarse cell it lies in."""
    for axis in (0, 1):
        n = values.shape[axis]
        values = np.take(values, np.minimum((np.arange(r * n) + r // 2) // r, n - 1), axis=axis)
    return values


def node(cell, field, r=1):
    """The (z, x) index, on the grid r times finer, of field's node of
    coarse cell `cell` (Deepwave's integer location of it)."""
    return (r * cell[0] + (r // 2 if field == "vz" else 0), r * cell[1] + (r // 2 if field == "vx" else 0))


def position(cell, field, r=1):
    """The same node's position in fine cells (halofwi's coordinate over d / r):
    the centre for p, half a cell beyond it along the velocity's axis."""
    z, x = node(cell, field, r)
    return (z + 0.5 * (field == "vz"), x + 0.5 * (field == "vx"))


def run_halofwi(tmp, vp, vs, rho, src, recs, kind, nt, dt, free, r=1):
    """halofwi's gathers {component: (nrec, nt)}, its model-cell rate and
    the process's seconds; the model on the grid r times finer than the
    cells that src and recs index."""
    d = D / r
    names = ("vp", "vs", "rho")
    for name, values in zip(names, (vp, vs, rho)):
        side.write_model(os.path.join(tmp, name + ".rsf"), values, d)
    side.write_wavelet(os.path.join(tmp, "w.rsf"), side.ricker(nt, dt, F0), dt)
    side.write_geometry(os.path.join(tmp, "geometry.txt"), position(src, FIELD[kind], r), [position(p, c, r) for c in COMPONENTS for p in recs], d)
    out = os.path.join(tmp, "out")
    cmd = ([BIN, "-physics", "elastic"] + [a for n in names for a in ("-" + n, os.path.join(tmp, n + ".rsf"))]
           + ["-geometry", os.path.join(tmp, "geometry.txt"), "-wavelet", os.path.join(tmp, "w.rsf"), "-source_type", kind, "-record", ",".join(COMPONENTS),
              "-nt", str(nt), "-dt", str(dt), "-order", "8", "-pml_width", str(PML), "-f0", str(F0), "-output_dir", out, "-overwrite", "-progress_interval", "0"]
           + (["-pml_top", "0"] if free else []))
    stdout, wall = side.halofwi(cmd, THREADS)
    n, gathers = len(recs), {}
    for i, c in enumerate(COMPONENTS):  # the copy of the receivers on c's nodes
        gathers[c] = rsf.read(os.path.join(out, "shot_0000.rsf" if i == 0 else f"shot_0000_{c}.rsf"))[0].T[i * n:(i + 1) * n]
    return gathers, side.model_rate(stdout, vp.shape, PML), wall


def dw_sources(kind, wavelet, lamb, mu, loc, ndim, d):
    """Deepwave's source keywords for halofwi's `kind` of source and its
    wavelet, at the integer location loc (of the field the source drives)."""
    volume, where = d ** ndim, torch.tensor([[loc]], dtype=torch.long)
    if kind == "pressure":
        bulk = float(lamb[loc]) + 2.0 * float(mu[loc]) / ndim
        return dict(source_amplitudes_pressure_rate=torch.from_numpy(bulk * wavelet / volume)[None, None, :], source_locations_pressure_rate=where)
    delayed = np.concatenate([[0.0], wavelet[:-1]]).astype(np.float32)  # halofwi's force reaches the stresses a step later
    return dict(source_amplitudes_y=torch.from_numpy(delayed / volume)[None, None, :], source_locations_y=where)


def run_deepwave(vp, vs, rho, src, recs, kind, nt, dt, vacuum=0, surface_method="ivm", r=1):
    """Deepwave's gathers {component: (nrec, nt)}, its run info and the
    seconds of the propagation (after a warm-up); the model on the grid r
    times finer than the cells src and recs index.  vacuum: the rows of
    vacuum the model starts with, a free surface under them (0: absorbing
    there too)."""
    torch.set_num_threads(THREADS)
    lamb, mu, buoyancy = deepwave.vpvsrho_to_lambmubuoyancy(*(torch.from_numpy(np.ascontiguousarray(a)) for a in (vp, vs, rho)))
    kw = dict(accuracy=8, pml_width=[0 if vacuum else PML, PML, PML, PML], pml_freq=F0, location_interpolation="none")  # z low, z high, x low, x high
    if vacuum:
        kw["surface_method"] = surface_method
    below = lambda i: (i[0] + vacuum, i[1])  # noqa: E731
    for c in COMPONENTS:
        kw[f"receiver_locations_{DW_CHANNEL[c]}"] = torch.tensor([[below(node(p, c, r)) for p in recs]], dtype=torch.long)
    srcs = dw_sources(kind, side.ricker(nt, dt, F0), lamb.double(), mu.double(), below(node(src, FIELD[kind], r)), 2, D / r)
    args = (lamb, mu, buoyancy, D / r, dt)
    deepwave.elastic(*args, **{k: v[..., :8] if k.startswith("source_amp") else v for k, v in srcs.items()}, nt=8, **kw)  # warm-up
    t0 = time.perf_counter()
    out = deepwave.elastic(*args, **srcs, **kw)
    seconds = time.perf_counter() - t0
    assert out.info.location_interpolation_used == "none"
    return {c: out.receivers[DW_CHANNEL[c]][0].numpy() for c in COMPONENTS}, out.info, seconds


def rel_l2(d, h):
    return np.linalg.norm(d - h) / np.linalg.norm(h)


def errors(d, h):
    return ", ".join(f"{c} {rel_l2(d[c], h[c]):.2e}" for c in COMPONENTS)


def with_vacuum(values, drop, rows):
    """`rows` rows of vacuum (0), then the model from its row `drop` on."""
    return np.concatenate([np.zeros((rows, values.shape[1]), values.dtype), values[drop:]])


def case(label, water, free, src_row, rec_row, r=1, variants=None):
    """One case: both sources, halofwi against Deepwave (each of its
    free-surface variants: (method, halofwi's first cells left out, what
    that does to the surfaces))."""
    vp, vs, rho = (refine(a, r) for a in model(water))
    src = (src_row, NX // 2)
    recs = [(rec_row, x) for x in range(4, NX - 4, 4)]
    what = f"water layer (vs = 0, {WATER * D:g} m) over the solid" if water else "solid"
    where = "free surface on top, absorbing elsewhere" if free else "absorbing on every side"
    print(f"({label}) {what}, {where}: {NZ * r} x {NX * r} cells of {D / r:.3g} m, {NT} samples of {DT * 1e3:g} ms; source at cell (z, x) {node(src, 'p', r)}, "
          f"{len(recs)} receivers at z cell {rec_row * r}, every {4 * r} cells (the velocities' on their nodes)")
    for kind, name in SOURCES.items():
        with tempfile.TemporaryDirectory() as tmp:
            h, _, _ = run_halofwi(tmp, vp, vs, rho, src, recs, kind, NT, DT, free, r)
        if not free:
            d, info, _ = run_deepwave(vp, vs, rho, src, recs, kind, NT, DT)
            print(f"  {name:9s} relative L2 {errors(d, h)}  (Deepwave: {'/'.join(info.boundary)}, step ratio {info.step_ratio})")
            continue
        for method, drop, note in variants:
            rows = NVAC - drop  # Deepwave's row of halofwi's first
            d, info, _ = run_deepwave(*(with_vacuum(a, drop, NVAC) for a in (vp, vs, rho)), src, recs, kind, NT, DT, rows, method, r)
            print(f"  {name:9s} relative L2 {errors(d, h)}  (Deepwave: {NVAC} vacuum rows, surface_method {info.surface_method}, {note}; step ratio {info.step_ratio})")


def speed_2d(n, nt):
    """Both codes on a homogeneous n x n solid, an explosion near its top,
    absorbing on every side: the agreement and the rates."""
    vp, vs, rho = (np.full((n, n), v, np.float32) for v in (3000.0, 1700.0, 2200.0))
    src, recs = (PML // 4 + 4, n // 2), [(6, x) for x in range(4, n - 4, 4)]
    with tempfile.TemporaryDirectory() as tmp:
        h, rate, wall = run_halofwi(tmp, vp, vs, rho, src, recs, "pressure", nt, DT_SPEED, False)
    d, info, seconds = run_deepwave(vp, vs, rho, src, recs, "pressure", nt, DT_SPEED)
    dw_rate = n * n * nt * info.step_ratio / seconds * 1e-9
    print(f"speed, 2D absorbing: {n} x {n} cells, {nt} steps, explosion; relative L2 {errors(d, h)}")
    print(f"  speed, {THREADS} threads: halofwi {rate:.3f} G model-cell updates/s (its steps; whole process {wall:.2f} s), "
          f"Deepwave {dw_rate:.3f} ({seconds:.2f} s, step ratio {info.step_ratio}): halofwi / Deepwave {rate / dw_rate:.2f}")
    return rate, dw_rate


def speed_3d(n, nt):
    """Both codes on a homogeneous n^3 solid, an explosion at its centre,
    absorbing on every side: rates only."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [BIN, "-physics", "elastic", "-vp", "3000", "-vs", "1700", "-rho", "2200", "-dx", str(D), "-nx", str(n), "-ny", str(n), "-nz", str(n), "-nshots", "1",
               "-nrec", "1", "-source_depth", str(n // 2 * D), "-receiver_depth", str(n // 2 * D), "-nt", str(nt), "-dt", str(DT_SPEED), "-order", "8",
               "-pml_width", str(PML), "-f0", str(F0), "-output_dir", os.path.join(tmp, "out"), "-progress_interval", "0"]
        stdout, wall = side.halofwi(cmd, THREADS)
        rate = side.model_rate(stdout, (n, n, n), PML)
    torch.set_num_threads(THREADS)
    lamb, mu, buoyancy = deepwave.vpvsrho_to_lambmubuoyancy(*(torch.full((n, n, n), v) for v in (3000.0, 1700.0, 2200.0)))
    loc = (n // 2,) * 3
    srcs = dw_sources("pressure", side.ricker(nt, DT_SPEED, F0), lamb.double(), mu.double(), loc, 3, D)
    kw = dict(accuracy=8, pml_width=PML, pml_freq=F0, receiver_locations_p=torch.tensor([[loc]], dtype=torch.long))
    deepwave.elastic(lamb, mu, buoyancy, D, DT_SPEED, **{k: v[..., :8] if k.startswith("source_amp") else v for k, v in srcs.items()}, nt=8, **kw)  # warm-up
    t0 = time.perf_counter()
    out = deepwave.elastic(lamb, mu, buoyancy, D, DT_SPEED, **srcs, **kw)
    seconds = time.perf_counter() - t0
    dw_rate = n ** 3 * nt * out.info.step_ratio / seconds * 1e-9
    print(f"speed, 3D absorbing: {n}^3 cells, {nt} steps, explosion, {THREADS} threads: halofwi {rate:.3f} G model-cell updates/s (its steps; whole process {wall:.2f} s), "
          f"Deepwave {dw_rate:.3f} ({seconds:.2f} s, step ratio {out.info.step_ratio}): halofwi / Deepwave {rate / dw_rate:.2f}")
    return rate, dw_rate


if __name__ == "__main__":
    print(f"deepwave {deepwave.__version__}, torch {torch.__version__}, halofwi {os.path.realpath(BIN)}")
    print("Deepwave's elastic free surface: a vacuum layer (its flat 'free' face is refused for elastic at every accuracy); "
          "ivm = its improved vacuum method, pm = its parameter-modified method (solid only)")
    print("alignment: every point on its component's node in both codes (no interpolation); Deepwave's force wavelet one sample later "
          "than halofwi's (halofwi adds a force after the stresses' update); no other shift; K w / D^2 and w / D^2 for Deepwave's amplitudes")
    ivm = [("ivm", 0, "surface half a cell above halofwi's"), ("ivm", 1, "surface half a cell below halofwi's")]
    pm = [("pm", 0, "surface on halofwi's")]
    case("a", water=False, free=False, src_row=40, rec_row=10)
    case("b", water=True, free=False, src_row=8, rec_row=26)
    case("c", water=False, free=True, src_row=6, rec_row=3, variants=ivm + pm)
    case("d", water=True, free=True, src_row=6, rec_row=26, variants=ivm)
    case(f"c, {FINE}x finer", water=False, free=True, src_row=6, rec_row=3, r=FINE, variants=ivm[:1] + pm)
    case(f"d, {FINE}x finer", water=True, free=True, src_row=6, rec_row=26, r=FINE, variants=ivm[:1])
    side.speed_runs("speed, 2D", speed_2d, 1000, 500)
    side.speed_runs("speed, 3D", speed_3d, 128, 200)
