# shellcheck shell=bash
# Shared set-up for scripts/test, scripts/demo and scripts/bench-forward.
# Source it, then call halofwi_setup: it installs the missing Debian 12
# packages, configures build/ (Release) and builds everything on all cores.
# Afterwards HALOFWI_ROOT is the repository root and HALOFWI_BUILD the build
# folder (override with HALOFWI_BUILD=... before calling).  With
# HALOFWI_PREBUILT=1 it installs and builds nothing and takes HALOFWI_BUILD
# as it is: a build of another commit, timed beside this one's, or a
# bundle's on a GPU machine (scripts/gpu-run).

HALOFWI_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HALOFWI_BUILD="${HALOFWI_BUILD:-$HALOFWI_ROOT/build}"
HALOFWI_PACKAGES=(cmake gcc g++ pkg-config petsc-dev libfftw3-dev libopenmpi-dev openmpi-bin libsegyio-dev
                  python3-numpy python3-scipy python3-matplotlib python3-segyio)

# Install only what dpkg does not already know, so a ready machine stays offline.
halofwi_install_deps() {
  local missing=() p
  for p in "${HALOFWI_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}

halofwi_build() {
  cmake -S "$HALOFWI_ROOT" -B "$HALOFWI_BUILD" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$HALOFWI_BUILD" -j "$(nproc)"
}

# Open MPI refuses root and more ranks than cores unless told otherwise.
halofwi_mpi_env() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_rmaps_base_oversubscribe=1
}

halofwi_setup() {
  if [ "${HALOFWI_PREBUILT:-0}" = 1 ]; then
    [ -x "$HALOFWI_BUILD/halofwi" ] || { echo "HALOFWI_PREBUILT=1: no halofwi in $HALOFWI_BUILD" >&2; exit 1; }
    halofwi_mpi_env
    return 0
  fi
  halofwi_install_deps
  halofwi_mpi_env
  halofwi_build
}
