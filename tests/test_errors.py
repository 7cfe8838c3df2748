#!/usr/bin/env python3
"""How a run ends after an error (src/data/errors.c), on 2 ranks of
tests/unit/unit_errors, which raises "bad value 42" two calls deep:

(a) a user error on every rank: "halofwi: error: bad value 42" printed
    once, exit status 95 (PETSC_ERR_USER_INPUT), no PETSc report, no
    MPI_ABORT banner (mpiexec -q hides mpiexec's own note);
(b) a user error on the last rank alone, the other waiting in a barrier:
    the rank names itself, "halofwi: error (rank 1): bad value 42", and the
    run ends (MPI_Abort) within 60 s, non-zero;
(c) -error_trace: (a)'s error with PETSc's report and its traceback
    (Inner, Raise);
(d) a fault (PETSC_ERR_PLIB) keeps PETSc's report, exit non-zero."""
import os
import subprocess

import common as c

BIN = os.environ.get("UNIT_ERRORS", "")


def run(*args):
    argv = [c.MPIEXEC] + c.MPI_FLAGS + ["-q", "-n", "2", BIN] + list(args)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    out = p.stdout.decode(errors="replace")
    print(f"$ {' '.join(argv)}\n  -> exit {p.returncode}\n" + "".join("  | " + line + "\n" for line in out.splitlines()), flush=True)
    return p.returncode, out


def main():
    c.check(os.path.isfile(BIN), f"UNIT_ERRORS={BIN!r}: no unit_errors program")
    rc, out = run("-erring", "all")
    lines = c.program_lines(out)
    c.check(rc == 95 and lines == ["halofwi: error: bad value 42"],
            f"(a) exit {rc} and {lines}, expected 95 and the one line 'halofwi: error: bad value 42'")
    rc, out = run("-erring", "last")
    c.check(rc != 0 and "halofwi: error (rank 1): bad value 42" in out and "PETSC ERROR" not in out,
            f"(b) exit {rc}; expected non-zero and 'halofwi: error (rank 1): bad value 42' without a PETSc report")
    rc, out = run("-erring", "all", "-error_trace")
    c.check(rc != 0 and "bad value 42" in out and "Inner() at" in out and "Raise() at" in out,
            f"(c) exit {rc}; expected PETSc's report naming Inner() and Raise()")
    rc, out = run("-erring", "all", "-kind", "fault")
    c.check(rc != 0 and "PETSC ERROR" in out and "Inner() at" in out, f"(d) exit {rc}; expected PETSc's report for a fault")
    print("user errors: one line, once; a lone rank's named; -error_trace and faults keep PETSc's report")


if __name__ == "__main__":
    c.main(main)
