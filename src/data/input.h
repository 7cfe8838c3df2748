/* Input files opened for reading: only regular files (a FIFO would block
   every rank, a device such as /dev/zero reads without end, a folder reads
   nothing), and text read one bounded line at a time.  Errors name `what`
   (e.g. "geometry file") and the path. */
#pragma once
#include <petscsys.h>
#include <stdio.h>

/* The longest line a text input (geometry, -kill_traces) may hold. */
#define INPUT_MAX_LINE 4096

/* Refuses path unless it is a regular file (or a link to one), saying what
   it is instead; checked before any open, which would block on a FIFO. */
PetscErrorCode InputCheckRegular(const char *what, const char *path);
/* InputCheckRegular, then fopen(path, "r"). */
PetscErrorCode InputOpen(const char *what, const char *path, FILE **fp);
/* The next line of fp into buf (size INPUT_MAX_LINE + 2), without its end
   of line; *got false at the end of the file.  A longer line is refused
   naming lineno, a read error with the system's reason. */
PetscErrorCode InputReadLine(FILE *fp, const char *what, const char *path, PetscInt lineno, char *buf, PetscBool *got);

/* Refuses the first sample of buf (ntraces traces of n1 samples, the
   file's traces from first on) that is NaN or Inf, naming what, path, its
   trace and sample, numbered from base (0 or 1, as the file's format counts
   them), and its time at dt s. */
PetscErrorCode InputCheckFinite(const char *what, const char *path, PetscInt n1, PetscInt first, PetscInt ntraces, PetscInt base, PetscReal dt, const float *buf);
