#!/usr/bin/env bash
# The installed project as an outside user gets it: `cmake --install` into a
# scratch prefix, then
#   - examples/heat2d configured with find_package(halofwi COMPONENTS halo)
#     against the prefix, built, and run on 1 and 4 ranks: each run checks
#     itself against the exact discrete solution, and both must print the
#     same checksum (bit for bit);
#   - the same source compiled with the flags of `pkg-config halofwi-halo`,
#     run on 2 ranks, the same checksum again;
#   - find_package(halofwi COMPONENTS nosuch) refused, naming the component;
#   - the installed halofwi modelling a small shot and halofwi-plot drawing it.
#
#   test_install.sh SOURCE_DIR BUILD_DIR SCRATCH_DIR
#
# Environment (tests/CMakeLists.txt sets it): CMAKE, PKG_CONFIG, CC, MPIEXEC,
# LIBDIR (the install's library folder); HALOFWI_KEEP=1 keeps the scratch.
set -euo pipefail
src=$1 build=$2 work=$3
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"
trap 'rc=$?; if [ $rc -eq 0 ] && [ -z "${HALOFWI_KEEP:-}" ]; then rm -rf "$work"; else echo "scratch kept: $work"; fi' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# run RANKS PROGRAM ARGS...: the program's checksum line, its output echoed
checksum() { "$MPIEXEC" -n "$@" | tee /dev/stderr | grep -o 'checksum [0-9a-f]*'; }

"$CMAKE" --install "$build" --prefix "$prefix"

echo "== examples/heat2d through find_package"
"$CMAKE" -S "$src/examples/heat2d" -B "$work/heat2d" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$CC"
"$CMAKE" --build "$work/heat2d"
one=$(checksum 1 "$work/heat2d/heat2d" -n 61)
four=$(checksum 4 "$work/heat2d/heat2d" -n 61)
[ "$one" = "$four" ] || fail "1 rank gives $one, 4 ranks $four"

echo "== examples/heat2d through pkg-config"
export PKG_CONFIG_PATH="$prefix/$LIBDIR/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
read -r -a flags <<<"$("$PKG_CONFIG" --cflags --libs halofwi-halo)"
"$CC" -std=c11 -O2 -ffp-contract=off "$src/examples/heat2d/heat2d.c" "${flags[@]}" -lm -o "$work/heat2d-pc"
two=$(checksum 2 "$work/heat2d-pc" -n 61)
[ "$one" = "$two" ] || fail "with pkg-config's flags, 2 ranks give $two, not $one"

echo "== an unknown component"
mkdir -p "$work/unknown"
printf 'cmake_minimum_required(VERSION 3.22)\nproject(unknown LANGUAGES C)\nfind_package(halofwi REQUIRED COMPONENTS halo nosuch)\n' >"$work/unknown/CMakeLists.txt"
if "$CMAKE" -S "$work/unknown" -B "$work/unknown/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/unknown.log" 2>&1; then
  fail "find_package(halofwi COMPONENTS nosuch) succeeded"
fi
grep -q 'halofwi has no component "nosuch"' "$work/unknown.log" || { cat "$work/unknown.log"; fail "the refusal does not name the component"; }

echo "== the installed program and halofwi-plot"
"$MPIEXEC" -n 1 "$prefix/bin/halofwi" -vp 2000 -nx 40 -nz 30 -dx 10 -nt 100 -dt 0.002 -nshots 1 -progress_interval 0 -output_dir "$work/fwd"
"$prefix/bin/halofwi-plot" gather "$work/fwd/shot_0000.rsf" "$work/gather.png"
[ -s "$work/gather.png" ] || fail "halofwi-plot wrote no picture"
echo "install: all checks passed"
