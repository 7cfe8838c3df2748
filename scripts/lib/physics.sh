# Sourced by the benchmarks: the equation PHYSICS names (acoustic, the
# default, variable_density or elastic), its options beyond the model
# (PHYSICS_ARGS: a constant density; for elastic also an S velocity, vp/vs
# about 1.74) and bytes_per_update DIM: the bytes a cell update moves at
# least, float32.  The constant-density step reads u, u_prev, v^2 and
# writes u_next.  The pressure-velocity step reads p, dt/rho and the DIM
# velocities and writes the velocities, then reads them, K dt and p and
# writes p.  The velocity-stress step reads the stresses and the buoyancy
# and updates the velocities, then reads the velocities, lambda, mu and the
# shear nodes' mu and updates the stresses: each of its F = DIM + DIM
# (DIM + 1) / 2 fields read and written once and read once more by the
# other stage, and 2 + DIM (DIM - 1) / 2 + 1 model arrays.
# shellcheck shell=bash
PHYSICS=${PHYSICS:-acoustic}
case $PHYSICS in
  acoustic)
    PHYSICS_ARGS=(-physics acoustic)
    bytes_per_update() { echo 16; } ;;
  variable_density)
    PHYSICS_ARGS=(-physics variable_density -rho 1000)
    bytes_per_update() { echo $(( 4 * (5 + 3 * $1) )); } ;;
  elastic)
    PHYSICS_ARGS=(-physics elastic -vs 1150 -rho 2000)
    bytes_per_update() { echo $(( 12 * ($1 + $1 * ($1 + 1) / 2) + 4 * (3 + $1 * ($1 - 1) / 2) )); } ;;
  *) echo "PHYSICS is acoustic, variable_density or elastic, not '$PHYSICS'" >&2; exit 2 ;;
esac
