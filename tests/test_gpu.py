#!/usr/bin/env python3
"""The CUDA backend end to end (skipped, exit 77, where halofwi has no CUDA
device or no CUDA build):

(a) forward gathers, -backend cuda vs -backend cpu, 2D (120 z x 160 x) and
    3D (40^3), orders 2, 4 and 8, CPML layers of different widths and a free
    surface on top: relative L2 difference <= 1e-5 (both backends share the
    arithmetic of stencil.h and the GPU is built without fused multiply-adds,
    so bit-identical gathers are expected; only 1e-5 is required).
(b) gradient (-mode gradient, the models of test_gradient.py, full storage
    named, as are the other gradients below), GPU vs CPU:
    relative L2 difference <= 1e-4, misfit relative difference <= 1e-5; and
    -wavefield_storage host vs device on the GPU: identical, bit for bit;
    -gradient_method boundary with the band in device and in host memory
    against the CPU's boundary gradient, the same tolerances.
(c) decomposed GPU runs, 2 and 4 ranks sharing the one GPU (-gpu_shared),
    -halo_type staged with -halo_overlap 1 and 0: gathers and gradients bit
    for bit those of the 1-rank GPU run; the same with -halo_type mpi-device
    where MPI is CUDA-aware (where the program refuses it because MPI is not
    CUDA-aware, "mpi-device: skipped (...)" is printed).
(d) NCCL: 2 shot groups x 1 rank (-shot_groups 2 -halo_type nccl
    -gpu_shared; one rank per group, so no NCCL peers): gathers bit for bit
    the 1-rank GPU run's, the gradient within the shot-group tolerance of
    test_gradient.py (the groups' gradients are summed in another order, as
    on the CPU); 2 ranks in one group sharing the GPU with -halo_type nccl
    must fail with an error saying the ranks share a GPU.  Where halofwi was
    built without NCCL, "nccl: skipped (...)" is printed.
(e) the core kernel's shared-memory tile (-gpu_tile_shared), in the default
    launch shape and in 16,16: order-8 gathers of (a), the full gradient of
    (b) and the 4-rank decomposed gradient of (c), bit for bit those of the
    kernel that reads through the L1 cache.
(f) -physics variable_density -rho gardner, recording p, vz and vx: order-8
    gathers of (a)'s models and the gradient of (b) by both methods, GPU vs
    CPU bit for bit (the kernels take the CPU's terms in its order), and on
    2 ranks sharing the GPU (-halo_type staged) bit for bit the 1-rank GPU
    run's.
(g) the same for -physics elastic (vs 900 m/s, rho 2000 kg/m^3): the
    pressure's gathers and the vp gradient by both methods.
    For each, a 2D gradient of a misfit of p, vz and vx (-record p,vz,vx),
    GPU vs CPU bit for bit.
(h) where the GPU's full storage keeps its steps, 2D and 3D: on disk
    (-wavefield_dir, through page-locked host buffers) bit for bit the
    device store's gradient; as 8-bit blocks in device memory bit for bit
    the same in host memory and on disk, within 2% (relative L2) of the exact gradient and
    within 1e-4 of the CPU's 8-bit gradient; -gradient_method checkpoint
    (3 snapshots) with its snapshots where the planner puts them (device
    memory) and in host memory, bit for bit the device store's gradient.

Every figure is printed; every check runs, and the failures are listed at
the end."""
import os
import re
import sys

import numpy as np

import common as c
import test_gradient as tg

SKIPPED = 77
DX = 10.0
FWD_TOL = 1e-5      # relative L2, GPU vs CPU gathers
GRAD_TOL = 1e-4     # relative L2, GPU vs CPU gradients
MISFIT_TOL = 1e-5   # relative, GPU vs CPU misfits

# A tiny forward run that needs a working CUDA backend.
PROBE = ["-mode", "forward", "-vp", 2000.0, "-nz", 16, "-nx", 20, "-nt", 4, "-dt", 0.002, "-pml_width", 4,
         "-progress_interval", 0]

# The model of (a) and (c) per dimension: (shape, seed, layer and survey options).
FORWARD_MODELS = {
    2: ((160, 120), 11, ["-pml_top", 0, "-pml_bottom", 11, "-pml_left", 8, "-pml_right", 13,
                         "-nt", 200, "-dt", 0.002, "-f0", 15, "-nshots", 2,
                         "-source_depth", 30.0, "-receiver_depth", 20.0]),
    3: ((40, 40, 40), 12, ["-pml_top", 0, "-pml_bottom", 5, "-pml_left", 4, "-pml_right", 7, "-pml_front", 6,
                           "-pml_back", 3, "-nt", 100, "-dt", 0.002, "-f0", 20, "-nshots", 2,
                           "-source_depth", 50.0, "-receiver_depth", 20.0]),
}

# (c): (ranks, options, layout (px, pz, py)) per dimension.
DECOMPOSITIONS = {
    2: [(2, ["-da_processors_x", 2, "-da_processors_z", 1], (2, 1, 1)),
        (4, ["-da_processors_x", 2, "-da_processors_z", 2], (2, 2, 1))],
    3: [(2, ["-da_processors_x", 1, "-da_processors_y", 1, "-da_processors_z", 2], (1, 2, 1)),
        (4, ["-da_processors_x", 2, "-da_processors_y", 2, "-da_processors_z", 1], (2, 1, 2))],
}


def probe():
    """None where the CUDA backend runs, else why the test is skipped.

    Besides the program's own refusals ("no CUDA device", "built without
    CUDA"), this accepts, while probing only, a halofwi from before the CUDA
    backend: it does not know -backend, which PETSc then lists as an unused
    option under -options_left (or, were it to reject unknown options, names
    in its error).  Every later run must succeed or fail as the check says."""
    scr = c.Scratch("gpu-probe")
    with scr:
        status, out = c.run_status(1, PROBE + ["-backend", "cuda", "-options_left"], scr.sub("out"))
    low = out.lower()
    if status != 0:
        msg = c.error_message(out) or out.strip()[-500:]
        if "no cuda device" in low or "built without cuda" in low:
            return msg
        if "-backend" in out and re.search(r"unknown|unrecogni[sz]ed|not used|option left", low):
            return f"this halofwi does not know -backend: {msg}"
        print(out)
        c.fail(f"the probe run with -backend cuda failed (exit {status}): {msg}")
    if re.search(r"Option left: name:-backend\b", out):
        return "this halofwi does not know -backend (PETSc lists it as unused): a build from before the CUDA backend"
    for line in out.splitlines():
        if re.search(r"\bbackend\b|\bhalo", line, re.I) and not line.startswith("-"):
            print(f"  probe: {line.strip()}")
    return None


# --------------------------------------------------------------------------
# comparisons: each returns a failure message or None, after printing its figures

def gathers(outdir, nshots):
    return [c.read_gather(outdir, s).astype(np.float64) for s in range(nshots)]


def compare_gathers(ref_dir, test_dir, nshots, what, tol):
    ref = gathers(ref_dir, nshots)
    got = gathers(test_dir, nshots)
    for s, (r, g) in enumerate(zip(ref, got)):
        if r.shape != g.shape:
            return f"{what}: shot {s} gather shape {g.shape}, reference {r.shape}"
        if not (np.all(np.isfinite(g)) and np.abs(r).max() > 0):
            return f"{what}: shot {s}: gather not finite, or the reference is zero"
    r, g = np.concatenate([a.ravel() for a in ref]), np.concatenate([a.ravel() for a in got])
    rel = c.rel_l2(g, r)
    same = all(c.gather_bytes(ref_dir, s) == c.gather_bytes(test_dir, s) for s in range(nshots))
    print(f"  {what}: relative L2 difference {rel:.3e} (limit {tol:.0e}), max |diff| {np.abs(g - r).max():.3e} "
          f"of peak {np.abs(r).max():.3e}, {'bit-identical' if same else 'NOT bit-identical'}", flush=True)
    if not rel <= tol:
        return f"{what}: relative L2 difference {rel:.3e} > {tol:.0e}"
    return None


def bitwise_gathers(ref_dir, test_dir, nshots, what):
    try:
        c.compare_bitwise(ref_dir, test_dir, nshots, what)
    except c.TestFailure as e:
        return str(e)
    return None


def gradient_bits(outdir):
    with open(c.rsf_data_path(f"{outdir}/gradient.rsf"), "rb") as f:
        return f.read()


def bitwise_gradient(ref, test, what):
    """ref, test: (misfit, gradient, output dir)."""
    (J0, g0, d0), (J1, g1, d1) = ref, test
    same = gradient_bits(d0) == gradient_bits(d1)
    dg = float(np.abs(g1 - g0).max() / np.abs(g0).max()) if g1.shape == g0.shape else float("inf")
    print(f"  {what}: misfit {J1!r} vs {J0!r}, gradient {'bit-identical' if same else 'differs'} "
          f"(max |diff| / max |g| {dg:.2e})", flush=True)
    if not same:
        return f"{what}: gradient not bit-for-bit equal to the reference, max |diff| / max |g| {dg:.2e}"
    if J1 != J0:
        return f"{what}: misfit {J1!r}, reference {J0!r}"
    return None


def gradient_within(ref, got, what, measure, grad_tol, misfit_tol):
    """ref, got: (misfit, gradient, output dir).  measure: "relative L2" or
    "max |diff| / max |g|".  Returns the failure messages."""
    (J0, g0, _), (J, g, _) = ref, got
    dg = c.rel_l2(g, g0) if measure == "relative L2" else float(np.abs(g - g0).max() / np.abs(g0).max())
    dJ = abs(J - J0) / J0
    print(f"  {what}: gradient {measure} {dg:.3e} (limit {grad_tol:.0e}); misfit {J!r} vs {J0!r}, "
          f"relative difference {dJ:.3e} (limit {misfit_tol:.0e})", flush=True)
    return [f"{what}: gradient {measure} {dg:.3e} > {grad_tol:.0e}" if not dg <= grad_tol else None,
            f"{what}: misfit relative difference {dJ:.3e} > {misfit_tol:.0e}" if not dJ <= misfit_tol else None]


def gradient(nranks, args, outdir, layout=None):
    J, g = tg.gradient_run(nranks, args, outdir, layout)
    return J, g, outdir


def check_halo_line(out, halo, what):
    """The program names its halo exchange at start-up."""
    lines = [line.strip() for line in out.splitlines() if re.search(r"halo", line, re.I) and not line.startswith("-")]
    print(f"  {what}: {lines[0] if lines else '(no line about the halo exchange)'}")
    if not any(re.search(r"(?<![\w-])" + re.escape(halo) + r"(?![\w-])", line) for line in lines):
        return f"{what}: no start-up line names the halo exchange '{halo}' (lines: {lines})"
    return None


def mentions_shared_gpu(msg):
    low = msg.lower()
    return bool(re.search(r"shar\w*\b.*\b(gpu|device)|\b(gpu|device)s?\b.*\bshar\w*", low)
                or re.search(r"same (gpu|device)|ranks? on (one|a single|the same) (gpu|device)", low))


def refused(status, out, pattern):
    """The run failed with an error message matching pattern: the message, else None."""
    msg = c.error_message(out) or out.strip()[-500:]
    return msg if status != 0 and re.search(pattern, msg, re.I) else None


# --------------------------------------------------------------------------
# the parts

def forward_args(scr, dim, order, backend):
    shape, seed, opts = FORWARD_MODELS[dim]
    path = scr.sub(f"vp{dim}d.rsf")
    if not os.path.exists(path):
        c.write_model(path, c.smooth_random_model(shape, seed=seed, sigma=4.0 if dim == 2 else 3.0), DX)
    return ["-mode", "forward", "-vp", path, "-order", order, "-progress_interval", 0] + opts + ["-backend", backend]


def part_a(scr, failures):
    """GPU vs CPU gathers; returns the 1-rank GPU output dirs of order 8 per dimension."""
    ref = {}
    for dim in (2, 3):
        for order in (2, 4, 8):
            cpu, gpu = scr.sub(f"a{dim}d_o{order}_cpu"), scr.sub(f"a{dim}d_o{order}_cuda")
            c.run(1, forward_args(scr, dim, order, "cpu"), cpu)
            c.run(1, forward_args(scr, dim, order, "cuda"), gpu)
            failures.append(compare_gathers(cpu, gpu, 2, f"(a) {dim}D order {order} cuda vs cpu", FWD_TOL))
        ref[dim] = scr.sub(f"a{dim}d_o8_cuda")
    return ref


def gradient_setup(scr, dim):
    true, start, acq, _ = tg.models(dim)
    obs = scr.sub(f"obs{dim}")
    if not os.path.exists(obs):  # the parts share one set of observed data per dimension
        c.run(1, ["-mode", "forward", "-vp", c.write_model(scr.sub(f"true{dim}.rsf"), true, DX), "-backend", "cpu"] + acq, obs)
    m_path = c.write_model(scr.sub(f"m{dim}.rsf"), start, DX)
    return ["-mode", "gradient"] + acq + ["-vp_max", tg.VP_MAX, "-observed_dir", obs, "-vp", m_path]


def part_b(scr, failures):
    """GPU vs CPU gradients, host vs device storage; returns per dimension the
    gradient arguments and the 1-rank GPU result."""
    out = {}
    for dim in (2, 3):
        base = gradient_setup(scr, dim)
        # named: the planner takes the boundary method where the store is on the host
        full = ["-gradient_method", "full"]
        cpu = gradient(1, base + full + ["-backend", "cpu"], scr.sub(f"b{dim}_cpu"))
        dev = gradient(1, base + full + ["-backend", "cuda", "-wavefield_storage", "device"], scr.sub(f"b{dim}_device"))
        host = gradient(1, base + full + ["-backend", "cuda", "-wavefield_storage", "host"], scr.sub(f"b{dim}_host"))
        failures += gradient_within(cpu, dev, f"(b) {dim}D cuda vs cpu", "relative L2", GRAD_TOL, MISFIT_TOL)
        failures.append(bitwise_gradient(dev, host, f"(b) {dim}D -wavefield_storage host vs device"))
        boundary = ["-gradient_method", "boundary"]
        cpu_b = gradient(1, base + boundary + ["-backend", "cpu"], scr.sub(f"b{dim}_cpu_boundary"))
        for where in ("device", "host"):
            got = gradient(1, base + boundary + ["-backend", "cuda", "-wavefield_storage", where], scr.sub(f"b{dim}_{where}_boundary"))
            failures += gradient_within(cpu_b, got, f"(b) {dim}D -gradient_method boundary, band in {where} memory, cuda vs cpu",
                                        "relative L2", GRAD_TOL, MISFIT_TOL)
        out[dim] = (base + full + ["-backend", "cuda"], dev)
    return out


def part_h(scr, failures, grad_ref, backend="cuda"):
    """The stored steps' tiers on the GPU (backend: "cpu" to try the part
    itself on a machine without one)."""
    for dim in (2, 3):
        args, dev = grad_ref[dim]
        args = [backend if a == "cuda" else a for a in args]
        folder = scr.sub(f"h{dim}_dir")
        os.makedirs(folder, exist_ok=True)
        disk = gradient(1, args + ["-wavefield_storage", "disk", "-wavefield_dir", folder], scr.sub(f"h{dim}_disk"))
        failures.append(bitwise_gradient(dev, disk, f"(h) {dim}D -wavefield_storage disk vs device"))
        int8 = ["-wavefield_compression", "int8"]
        dev8 = gradient(1, args + int8, scr.sub(f"h{dim}_int8"))
        host8 = gradient(1, args + int8 + ["-wavefield_storage", "host"], scr.sub(f"h{dim}_int8_host"))
        disk8 = gradient(1, args + int8 + ["-wavefield_storage", "disk", "-wavefield_dir", folder], scr.sub(f"h{dim}_int8_disk"))
        cpu8 = gradient(1, [a if a != backend else "cpu" for a in args] + int8, scr.sub(f"h{dim}_int8_cpu"))
        failures.append(bitwise_gradient(dev8, host8, f"(h) {dim}D int8 in host memory vs in device memory"))
        failures.append(bitwise_gradient(dev8, disk8, f"(h) {dim}D int8 on disk vs in device memory"))
        failures += gradient_within(dev, host8, f"(h) {dim}D int8 vs exact", "relative L2", 2e-2, MISFIT_TOL)
        failures += gradient_within(cpu8, host8, f"(h) {dim}D int8, {backend} vs cpu", "relative L2", GRAD_TOL, MISFIT_TOL)
        if os.listdir(folder):
            failures.append(f"(h) {dim}D: the disk tier left files in {folder}: {os.listdir(folder)}")
        ck = ["-gradient_method", "checkpoint", "-checkpoints", 3]
        for where in ([], ["-wavefield_storage", "host"]):
            got = gradient(1, [a for a in args if a not in ("-gradient_method", "full")] + ck + where, scr.sub(f"h{dim}_ck{len(where)}"))
            failures.append(bitwise_gradient(dev, got, f"(h) {dim}D checkpointing, snapshots {'in host memory' if where else 'where the planner puts them'}, vs full"))


def decomposed(scr, failures, halo, fwd_ref, grad_ref):
    """(c) for one halo type.  Returns None, or why the type was refused."""
    for dim in (2, 3):
        for n, opts, layout in DECOMPOSITIONS[dim]:
            for overlap in (1, 0):
                tag = f"(c) {dim}D {n} ranks, {halo}, overlap {overlap}"
                extra = opts + ["-gpu_shared", "-halo_type", halo, "-halo_overlap", overlap]
                d = scr.sub(f"c{dim}d_{halo}_{n}_ov{overlap}")
                status, out = c.run_status(n, forward_args(scr, dim, 8, "cuda") + extra, d)
                if halo == "mpi-device" and refused(status, out, r"cuda.?aware"):
                    return refused(status, out, r"cuda.?aware")
                if status != 0:
                    print(out)
                    failures.append(f"{tag}: forward run failed (exit {status}): {c.error_message(out)}")
                    continue
                c.check_layout(out, *layout)
                failures.append(check_halo_line(out, halo, tag))
                failures.append(bitwise_gathers(fwd_ref[dim], d, 2, f"{tag} gathers vs 1 rank"))
                base, ref = grad_ref[dim]
                try:
                    got = gradient(n, base + extra, scr.sub(f"c{dim}g_{halo}_{n}_ov{overlap}"), layout)
                except c.TestFailure as e:
                    failures.append(f"{tag}: gradient run: {e}")
                    continue
                failures.append(bitwise_gradient(ref, got, f"{tag} gradient vs 1 rank"))
    return None


def part_c(scr, failures, fwd_ref, grad_ref):
    why = decomposed(scr, failures, "staged", fwd_ref, grad_ref)
    if why:
        failures.append(f"(c) staged refused: {why}")
    why = decomposed(scr, failures, "mpi-device", fwd_ref, grad_ref)
    if why:
        print(f"mpi-device: skipped ({why})", flush=True)


def part_d(scr, failures, fwd_ref, grad_ref):
    nccl = ["-halo_type", "nccl", "-gpu_shared"]
    d = scr.sub("d_groups")
    status, out = c.run_status(2, forward_args(scr, 2, 8, "cuda") + nccl + ["-shot_groups", 2], d)
    # a build without NCCL only; a refusal because the ranks share the GPU is a failure here
    why = refused(status, out, r"without nccl|not built with nccl|nccl (support )?(is )?not (built|compiled)")
    if why and not mentions_shared_gpu(why):
        print(f"nccl: skipped ({why})", flush=True)
        return
    if status != 0:
        print(out)
        failures.append(f"(d) 2 shot groups x 1 rank, nccl: forward run failed (exit {status}): {c.error_message(out)}")
    else:
        failures.append(check_halo_line(out, "nccl", "(d) 2 shot groups x 1 rank"))
        failures.append(bitwise_gathers(fwd_ref[2], d, 2, "(d) 2 shot groups x 1 rank, nccl, gathers vs 1 rank"))
    base, ref = grad_ref[2]
    try:
        got = gradient(2, base + nccl + ["-shot_groups", 2], scr.sub("d_groups_grad"))
        failures += gradient_within(ref, got, "(d) 2 shot groups x 1 rank, nccl, vs 1 rank", "max |diff| / max |g|",
                                    tg.GRAD_TOL, tg.MISFIT_TOL)
    except c.TestFailure as e:
        failures.append(f"(d) 2 shot groups x 1 rank, nccl: gradient run: {e}")

    # two ranks of one group on one GPU: NCCL cannot serve them
    status, out = c.run_status(2, forward_args(scr, 2, 8, "cuda") + nccl + ["-da_processors_x", 2, "-da_processors_z", 1],
                               scr.sub("d_shared"))
    msg = c.error_message(out) or out.strip()[-500:]
    print(f"  (d) 2 ranks of one group sharing the GPU, nccl: exit {status}: {msg}", flush=True)
    if status == 0:
        failures.append("(d) 2 ranks of one group sharing the GPU with -halo_type nccl: the run succeeded, expected a refusal")
    elif not mentions_shared_gpu(msg):
        print(out)
        failures.append(f"(d) 2 ranks of one group sharing the GPU with -halo_type nccl: the error does not say that "
                        f"ranks share a GPU: {msg}")


def part_e(scr, failures, fwd_ref, grad_ref):
    for shape in ([], ["-gpu_tile", "16,16"]):
        tile = ["-gpu_tile_shared"] + shape
        name = " ".join(tile)
        for dim in (2, 3):
            d = scr.sub(f"e{dim}_{len(shape)}")
            c.run(1, forward_args(scr, dim, 8, "cuda") + tile, d)
            failures.append(bitwise_gathers(fwd_ref[dim], d, 2, f"(e) {dim}D {name}, gathers vs the cached reads"))
            base, ref = grad_ref[dim]
            got = gradient(1, base + tile, scr.sub(f"e{dim}_{len(shape)}_grad"))
            failures.append(bitwise_gradient(ref, got, f"(e) {dim}D {name}, gradient vs the cached reads"))
            n, opts, layout = DECOMPOSITIONS[dim][-1]
            got = gradient(n, base + tile + opts + ["-gpu_shared", "-halo_type", "staged"], scr.sub(f"e{dim}_{len(shape)}_grad{n}"), layout)
            failures.append(bitwise_gradient(ref, got, f"(e) {dim}D {name}, {n} ranks, gradient vs 1 rank's cached reads"))


# The staggered equations' parts: (f) variable density, (g) elastic.
STAGGERED = {
    "f": ("variable density", ["-physics", "variable_density", "-rho", "gardner"]),
    "g": ("elastic", ["-physics", "elastic", "-vs", 900, "-rho", 2000]),
}


def part_staggered(scr, failures, part):
    name, physics = STAGGERED[part]
    for dim in (2, 3):
        n, opts, layout = DECOMPOSITIONS[dim][0]
        shared = opts + ["-gpu_shared", "-halo_type", "staged"]
        fwd = {}
        for backend, ranks, extra in (("cpu", 1, []), ("cuda", 1, []), ("cuda", n, shared)):
            d = fwd[(backend, ranks)] = scr.sub(f"{part}{dim}d_{backend}{ranks}")
            c.run(ranks, forward_args(scr, dim, 8, backend) + physics + ["-record", "p,vz,vx"] + extra, d)
        failures.append(bitwise_gathers(fwd[("cpu", 1)], fwd[("cuda", 1)], 2, f"({part}) {dim}D {name}, cuda vs cpu gathers (p)"))
        failures.append(bitwise_gathers(fwd[("cuda", 1)], fwd[("cuda", n)], 2, f"({part}) {dim}D {name}, {n} ranks vs 1, gathers (p)"))
        base = gradient_setup(scr, dim) + physics
        for method in ("full", "boundary"):
            args = base + ["-gradient_method", method]
            cpu = gradient(1, args + ["-backend", "cpu"], scr.sub(f"{part}{dim}g_{method}_cpu"))
            gpu = gradient(1, args + ["-backend", "cuda"], scr.sub(f"{part}{dim}g_{method}_cuda"))
            failures.append(bitwise_gradient(cpu, gpu, f"({part}) {dim}D {name}, {method}, cuda vs cpu"))
            got = gradient(n, args + ["-backend", "cuda"] + shared, scr.sub(f"{part}{dim}g_{method}_cuda{n}"), layout)
            failures.append(bitwise_gradient(gpu, got, f"({part}) {dim}D {name}, {method}, {n} ranks vs 1 on the GPU"))
    # a misfit of p, vz and vx at once, 2D: every component's residuals on the GPU
    true, _, acq, _ = tg.models(2)
    obs = scr.sub(f"{part}_obs_pvzvx")
    c.run(1, ["-mode", "forward", "-vp", c.write_model(scr.sub(f"{part}_true_pvzvx.rsf"), true, DX), "-backend", "cpu", "-record", "p,vz,vx"] + acq + physics, obs)
    setup = gradient_setup(scr, 2)
    k = setup.index("-observed_dir")  # the components' data in place of the set-up's
    args = setup[:k] + setup[k + 2:] + physics + ["-observed_dir", obs, "-record", "p,vz,vx", "-gradient_method", "full"]
    cpu, gpu = (gradient(1, args + ["-backend", b], scr.sub(f"{part}_pvzvx_{b}")) for b in ("cpu", "cuda"))
    failures.append(bitwise_gradient(cpu, gpu, f"({part}) 2D {name}, a misfit of p, vz and vx, cuda vs cpu"))


def main():
    why = probe()
    if why:
        print(f"SKIP: the CUDA backend cannot run here: {why}", flush=True)
        sys.exit(SKIPPED)
    scr = c.Scratch("gpu")
    failures = []
    with scr:
        fwd_ref = part_a(scr, failures)
        grad_ref = part_b(scr, failures)
        part_c(scr, failures, fwd_ref, grad_ref)
        part_d(scr, failures, fwd_ref, grad_ref)
        part_e(scr, failures, fwd_ref, grad_ref)
        part_h(scr, failures, grad_ref)
        part_staggered(scr, failures, "f")
        part_staggered(scr, failures, "g")
        failures = [f for f in failures if f]
        if failures:
            c.fail(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    c.main(main)
