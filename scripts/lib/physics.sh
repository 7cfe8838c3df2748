# Sourced by the benchmarks: the equation PHYSICS names (acoustic, the
# default, or variable_density), its options beyond the model (PHYSICS_ARGS:
# a constant density for variable_density) and bytes_per_update DIM: the
# bytes a cell update moves at least, float32.  The constant-density step
# reads u, u_prev, v^2 and writes u_next; the pressure-velocity step reads
# p, dt/rho and the DIM velocities and writes the velocities, then reads
# them, K dt and p and writes p.
# shellcheck shell=bash
PHYSICS=${PHYSICS:-acoustic}
case $PHYSICS in
  acoustic)
    PHYSICS_ARGS=(-physics acoustic)
    bytes_per_update() { echo 16; } ;;
  variable_density)
    PHYSICS_ARGS=(-physics variable_density -rho 1000)
    bytes_per_update() { echo $(( 4 * (5 + 3 * $1) )); } ;;
  *) echo "PHYSICS is acoustic or variable_density, not '$PHYSICS'" >&2; exit 2 ;;
esac
