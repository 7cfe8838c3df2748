/* Input files: see input.h. */
#include "data/input.h"
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

static const char *Kind(mode_t mode)
{
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

PetscErrorCode InputCheckRegular(const char *what, const char *path)
{
  struct stat st;

  PetscFunctionBeginUser;
  PetscCheck(!stat(path, &st), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s %s: %s", what, path, strerror(errno));
  PetscCheck(S_ISREG(st.st_mode), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s %s is %s: expected a regular file", what, path, Kind(st.st_mode));
  PetscFunctionReturn(0);
}

PetscErrorCode InputOpen(const char *what, const char *path, FILE **fp)
{
  PetscFunctionBeginUser;
  PetscCall(InputCheckRegular(what, path));
  *fp = fopen(path, "r");
  PetscCheck(*fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s %s: %s", what, path, strerror(errno));
  PetscFunctionReturn(0);
}

PetscErrorCode InputReadLine(FILE *fp, const char *what, const char *path, PetscInt lineno, char *buf, PetscBool *got)
{
  size_t len;

  PetscFunctionBeginUser;
  *got = fgets(buf, INPUT_MAX_LINE + 2, fp) ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(*got || !ferror(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot read %s %s: %s", what, path, strerror(errno));
  if (!*got) PetscFunctionReturn(0);
  len = strlen(buf);
  PetscCheck(len <= INPUT_MAX_LINE || buf[INPUT_MAX_LINE] == '\n', PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s %s line %" PetscInt_FMT ": longer than %d characters: expected a text file of short lines", what, path, lineno, INPUT_MAX_LINE);
  buf[strcspn(buf, "\r\n")] = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode InputCheckFinite(const char *what, const char *path, PetscInt n1, PetscInt first, PetscInt ntraces, PetscInt base, PetscReal dt, const float *buf)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < ntraces; k++)
    for (PetscInt i = 0; i < n1; i++) {
      const float x = buf[(size_t)k * n1 + i];
      PetscCheck(isfinite(x), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s %s: sample %" PetscInt_FMT " of trace %" PetscInt_FMT " (counting from %" PetscInt_FMT ", t = %.6g s) is %s: expected finite samples", what, path,
                 i + base, first + k + base, base, (double)(i * dt), isnan(x) ? "NaN" : "Inf");
    }
  PetscFunctionReturn(0);
}
