# shellcheck shell=bash
# The benchmarks' whole-process figure: halofwi's own lines time its steps,
# while a user waits for the process, from launch to exit (MPI's start,
# set-up, allocation and output included).

# process_time CMD...: runs CMD, its output passing through, then prints
# "process_s S", S the seconds from CMD's launch to its exit; returns CMD's
# exit status.
process_time() {
  local t0 t1 rc=0
  t0=$(date +%s.%N)
  "$@" || rc=$?
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "process_s %.3f\n", b - a }'
  return "$rc"
}
