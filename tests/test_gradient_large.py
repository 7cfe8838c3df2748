#!/usr/bin/env python3
"""A 3D gradient whose full storage would need more than 10 GB per shot
group runs on 4 ranks with -wavefield_memory 300 (MB per rank): the planner
prints both methods, says full does not fit and takes the boundary method;
the gradient is finite and nonzero, and the misfit equals the one computed
here from a forward run's gathers at the same model (the same float32
residuals summed in double: 1e-9 relative)."""
import re

import numpy as np

import common as c

N = 120
ACQ = ["-nx", N, "-ny", N, "-nz", N, "-dx", 10, "-order", 4, "-pml_width", 10, "-nt", 1000, "-dt", 0.002,
       "-f0", 8, "-nshots", 1, "-nrec", 40, "-source_depth", 50.0, "-receiver_depth", 20.0, "-progress_interval", 0]
UNITS = {"MB": 1.0 / 1024, "GB": 1.0}


def main():
    scr = c.Scratch("gradient_large")
    with scr:
        obs = scr.sub("obs")
        c.run(4, ["-mode", "forward", "-vp", 2000] + ACQ, obs)
        model = ["-vp", 2100, "-vp_max", 2100]
        fwd = scr.sub("fwd")
        c.run(4, ["-mode", "forward"] + model + ACQ, fwd)
        out = c.run(4, ["-mode", "gradient", "-observed_dir", obs, "-wavefield_memory", 300] + model + ACQ, scr.sub("grad"))
        m = re.search(r"^\s+full\s+.*?\s([\d.]+) (MB|GB)\s+-\s+[\d.]+ forward runs \(does not fit\)", out, re.M)
        c.check(m is not None, f"the plan does not show full storage as not fitting:\n{out}")
        full_gb = float(m.group(1)) * UNITS[m.group(2)] * 4  # per rank (the busiest) x 4 ranks, about
        print(f"full storage: {m.group(1)} {m.group(2)} per rank, about {full_gb:.1f} GB for the group", flush=True)
        c.check(full_gb > 10, f"full storage would need {full_gb:.1f} GB, the test needs more than 10")
        c.check("gradient method: boundary" in out, f"the run does not take the boundary method:\n{out}")

        J = float(re.search(r"^misfit\s+(\S+)\s*$", out, re.M).group(1))
        d = c.read_gather(fwd, 0).astype(np.float32)
        o = c.read_gather(obs, 0).astype(np.float32)
        J_fwd = 0.5 * float(np.sum((d - o).astype(np.float64) ** 2))
        rel = abs(J - J_fwd) / J_fwd
        print(f"misfit {J!r}, from the forward run's gathers {J_fwd!r}: relative difference {rel:.2e}", flush=True)
        c.check(rel <= 1e-9, f"misfit {J!r} against {J_fwd!r} from the forward gathers (relative {rel:.2e})")
        g, _ = c.read_rsf(scr.sub("grad") + "/gradient.rsf")
        c.check(np.all(np.isfinite(g)) and np.abs(g).max() > 0, "gradient zero or not finite")


if __name__ == "__main__":
    c.main(main)
