#!/usr/bin/env bash
# The shared stencil arithmetic (src/equations/acoustic/stencil.h, fwi_*) must be inlined into
# the CPU kernels' row loops: one left out of line is a call per cell that
# costs a loop its vectorisation (it once made 3D runs 1.7x slower, with the
# same results, so no numerical test notices).  Fails, listing them, when the
# executable holds out-of-line fwi_* functions.
set -euo pipefail
bin=${1:?usage: check_inlined.sh EXECUTABLE}
left=$(nm "$bin" | awk '$2 ~ /^[tT]$/ && $3 ~ /^fwi_/ {print $3}')
if [ -n "$left" ]; then
  echo "stencil helpers compiled out of line in $bin (a call per cell in the kernels):"
  echo "$left"
  exit 1
fi
echo "no out-of-line stencil helpers in $bin"
