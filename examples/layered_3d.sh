#!/usr/bin/env bash
# A small 3D example: a two-layer model written as RSF, one shot recorded by a
# cross of receivers, on 4 ranks (2 x 2 subdomains in x and y).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-layered3d-out}
mkdir -p "$out"

# 80 x 80 x 60 cells at 10 m: 2000 m/s above 300 m, 3000 m/s below.
/usr/bin/python3 - "$out" <<'PY'
import sys, numpy as np
out = sys.argv[1]
nz, nx, ny, d = 60, 80, 80, 10.0
v = np.full((ny, nx, nz), 2000.0, dtype="<f4")
v[:, :, 30:] = 3000.0
v.tofile(f"{out}/vp.bin")
with open(f"{out}/vp.rsf", "w") as f:
    f.write(f"n1={nz} d1={d} o1=0\nn2={nx} d2={d} o2=0\nn3={ny} d3={d} o3=0\n"
            'data_format="native_float" esize=4 in="vp.bin"\n')
with open(f"{out}/survey.txt", "w") as f:
    f.write("# one shot in the centre, 20 m deep; receivers along x and y, 10 m deep\n")
    f.write("S 400 400 20\n")
    for i in range(0, 80, 2):
        f.write(f"R {i * d} 400 10\n")
    for j in range(0, 80, 2):
        f.write(f"R 400 {j * d} 10\n")
PY

export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
mpiexec --oversubscribe -n 4 "$root/build/halofwi" -mode forward -vp "$out/vp.rsf" -geometry "$out/survey.txt" \
  -nt 500 -dt 0.002 -f0 10 -da_processors_x 2 -da_processors_y 2 -output_dir "$out" -overwrite
"$root/scripts/plot" gather "$out/shot_0000.rsf" "$out/shot_0000.png"
echo "gather: $out/shot_0000.rsf, picture: $out/shot_0000.png"
