#!/usr/bin/env bash
# A field-like inversion on a Marmousi section (the set-up of scripts/demo,
# on 4 ranks): the observed data are modelled with a wavelet the program
# does not know (a Ricker rotated by 60 degrees, delayed and scaled), then
# every shot gets its own static amplitude factor, 5% of the traces die and
# noise is added at -20 dB.  It inverts them twice: with the defaults (l2,
# the Ricker), and with one wavelet estimated per shot and the
# trace-normalised misfit; and once the clean data (the program's own
# wavelet, no noise) for reference.  Prints the model errors and leaves
# everything, pictures included, in the folder given (default
# field-like-out in the current folder); a second run replaces its own
# results there (-overwrite).  Uses the program already built (build/, or
# HALOFWI_BUILD): build it first (README.md, "Quick start").
#   examples/field_like.sh [OUTPUT_FOLDER]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=../scripts/lib/setup.sh
source "$ROOT/scripts/lib/setup.sh"
halofwi_mpi_env
[ -x "$HALOFWI_BUILD/halofwi" ] || { echo "field_like.sh: no program at $HALOFWI_BUILD/halofwi: build it first (scripts/test, or cmake as README.md says)" >&2; exit 1; }

mkdir -p "${1:-field-like-out}"
OUT="$(cd "${1:-field-like-out}" && pwd)"
NT=700 DT=0.004 F0=6
cores=$(nproc)
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(( cores / 4 > 0 ? cores / 4 : 1 ))}"
/usr/bin/python3 "$ROOT/scripts/demo_models.py" "$OUT" 3000 7000 2000 20 250
/usr/bin/python3 "$ROOT/scripts/field_like.py" wavelet "$OUT/wavelet.rsf" "$NT" "$DT" "$F0"

common=(-shot_groups 2 -da_processors_x 2 -nshots 16 -source_depth 40 -receiver_depth 40
        -nt "$NT" -dt "$DT" -f0 "$F0" -pml_top 0 -vp_max 5000 -progress_interval 0 -overwrite)
invert=(-mode invert -vp "$OUT/start.rsf" -vp_min 1500 -bands 3,5,8 -tao_max_it 8 -fix_above 80 -source_taper 200)
run() { mpiexec -n 4 "$HALOFWI_BUILD/halofwi" "$@"; }

echo "== data: clean, and field-like"
run -mode forward -vp "$OUT/true.rsf" "${common[@]}" -output_dir "$OUT/clean"
run -mode forward -vp "$OUT/true.rsf" "${common[@]}" -wavelet "$OUT/wavelet.rsf" -output_dir "$OUT/raw"
/usr/bin/python3 "$ROOT/scripts/field_like.py" data "$OUT/raw" "$OUT/field" 1,1.6,0.7,1.3 0.05 20

echo "== inversions"
run "${invert[@]}" "${common[@]}" -observed_dir "$OUT/clean" -output_dir "$OUT/inv-clean" | grep -E "^band [0-9]+:"
run "${invert[@]}" "${common[@]}" -observed_dir "$OUT/field" -output_dir "$OUT/inv-field-defaults" | grep -E "^band [0-9]+:"
run "${invert[@]}" "${common[@]}" -observed_dir "$OUT/field" -output_dir "$OUT/inv-field" \
  -source_estimation shot -misfit trace_l2 | grep -E "^band [0-9]+:|source estimation"

vrange=(1500 4700)
for m in true start inv-clean/vp inv-field-defaults/vp inv-field/vp; do
  "$ROOT/scripts/plot" model "$OUT/$m.rsf" "$OUT/$(echo "$m" | tr / -).png" "${vrange[@]}" > /dev/null
done
"$ROOT/scripts/plot" gather "$OUT/field/shot_0008.rsf" "$OUT/field-gather.png" > /dev/null
"$ROOT/scripts/plot" wavelet "$OUT/inv-field/wavelet_3.rsf" "$OUT/estimated-wavelets.png" > /dev/null
/usr/bin/python3 - "$OUT" "$ROOT/scripts" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[2])
import numpy as np, rsf
out = sys.argv[1]
true, start = (rsf.read(os.path.join(out, p))[0] for p in ("true.rsf", "start.rsf"))
e0 = np.linalg.norm(start - true)
for name in ("inv-clean", "inv-field-defaults", "inv-field"):
    m = rsf.read(os.path.join(out, name, "vp.rsf"))[0]
    print("%-20s model error %.4f of the start's" % (name, np.linalg.norm(m - true) / e0))
PY
echo "pictures:"
ls -1 "$OUT"/*.png
