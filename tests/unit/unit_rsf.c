/* RSF: write/read round trips, MPI-IO block reads and writes (also at 2
   ranks), header errors. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, getcwd, dirent */
#include "data/rsf.h"
#include "unit_check.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <unistd.h>

static char        dir[32]; /* fresh folder per run, so concurrent runs do not collide */
static PetscMPIInt rank, size;

static float Value(PetscInt i, PetscInt j, PetscInt k)
{
  return (float)(i + 100 * j + 10000 * k);
}

/* The temporary name of path for this process: PATH.tmp.HOST.PID. */
static PetscErrorCode TempPath(const char *path, char tmp[PETSC_MAX_PATH_LEN])
{
  char host[256];

  PetscFunctionBeginUser;
  PetscCheck(!gethostname(host, sizeof host), PETSC_COMM_SELF, PETSC_ERR_SYS, "gethostname failed");
  PetscCall(PetscSNPrintf(tmp, PETSC_MAX_PATH_LEN, "%s.tmp.%s.%d", path, host, (int)getpid()));
  PetscFunctionReturn(0);
}

static PetscErrorCode Path(const char *name, char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/%s", dir, name));
  PetscFunctionReturn(0);
}

/* Rank 0 writes a hand-made header; everyone waits for it. */
static PetscErrorCode WriteText(const char *name, const char *text)
{
  char  path[PETSC_MAX_PATH_LEN];
  FILE *fp;

  PetscFunctionBeginUser;
  PetscCall(Path(name, path));
  if (!rank) {
    fp = fopen(path, "w");
    PetscCheck(fp && fputs(text, fp) >= 0 && !fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s", path);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

/* Reads the block [s, s+c) of a test cube and compares it with Value(). */
static PetscErrorCode CheckBlock(const RsfHeader *h, const PetscInt s[3], const PetscInt c[3])
{
  float *buf;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(c[0] * c[1] * c[2] + 1, &buf));
  PetscCall(RsfReadBlock(PETSC_COMM_WORLD, h, s, c, buf));
  for (PetscInt k = 0; k < c[2]; k++)
    for (PetscInt j = 0; j < c[1]; j++)
      for (PetscInt i = 0; i < c[0]; i++) {
        float got = buf[i + c[0] * (j + c[1] * k)], want = Value(s[0] + i, s[1] + j, s[2] + k);
        PetscCheck(got == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "rank %d block at (%d,%d,%d): sample (%d,%d,%d) is %g, expected %g", rank, (int)s[0],
                   (int)s[1], (int)s[2], (int)i, (int)j, (int)k, (double)got, (double)want);
      }
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

/* The axes RsfWrite takes, from arrays. */
static RsfAxes Axes(PetscInt naxes, const PetscInt n[], const PetscReal d[], const PetscReal o[], const char *const label[])
{
  RsfAxes a = {0};

  for (PetscInt i = 0; i < naxes; i++) RsfAxesAdd(&a, n[i], d[i], o[i], label ? label[i] : NULL, NULL);
  return a;
}

static PetscErrorCode TestCube(void)
{
  const PetscInt    n[3] = {5, 4, 3}, zero[3] = {0, 0, 0};
  const PetscReal   d[3] = {0.004, 12.5, 20}, o[3] = {0, -5, 1.25};
  const char *const label[3] = {"Depth (m)", NULL, "y"};
  char              path[PETSC_MAX_PATH_LEN], bin[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN];
  float             data[60];
  RsfHeader         h;
  PetscInt          s[3] = {1 + rank % 2, 1, rank % 2}, c[3] = {3, 2, 2};

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < n[2]; k++)
    for (PetscInt j = 0; j < n[1]; j++)
      for (PetscInt i = 0; i < n[0]; i++) data[i + n[0] * (j + n[1] * k)] = Value(i, j, k);
  PetscCall(Path("cube.rsf", path));
  if (!rank) {
    PetscCall(RsfWrite(path, (const RsfAxes[]){Axes(3, n, d, o, label)}, data, PETSC_FALSE));
    PetscCall(PetscSNPrintf(bin, sizeof bin, "%s@", path));
    PetscCall(TempPath(bin, tmp));
    PetscCheck(access(tmp, F_OK), PETSC_COMM_SELF, PETSC_ERR_PLIB, "temporary %s left behind", tmp);
    EXPECT_ERROR(RsfWrite(path, (const RsfAxes[]){Axes(3, n, d, o, label)}, data, PETSC_FALSE), "-overwrite");
    PetscCall(RsfWrite(path, (const RsfAxes[]){Axes(3, n, d, o, NULL)}, data, PETSC_TRUE));
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));

  PetscCall(RsfReadHeader(PETSC_COMM_WORLD, path, &h));
  PetscCheck(h.naxes == 3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "naxes %d, expected 3", (int)h.naxes);
  for (int a = 0; a < 3; a++)
    PetscCheck(h.n[a] == n[a] && h.d[a] == d[a] && h.o[a] == o[a], PETSC_COMM_SELF, PETSC_ERR_PLIB, "axis %d: n=%d d=%g o=%g, expected %d %g %g", a + 1,
               (int)h.n[a], (double)h.d[a], (double)h.o[a], (int)n[a], (double)d[a], (double)o[a]);
  PetscCall(PetscStrcat(path, "@"));
  PetscCheck(!strcmp(h.data_path, path), PETSC_COMM_SELF, PETSC_ERR_PLIB, "data_path %s, expected %s", h.data_path, path);

  PetscCall(CheckBlock(&h, zero, n));
  PetscCall(CheckBlock(&h, s, c)); /* a different offset on odd ranks */
  c[1] = rank == size - 1 ? 0 : 2; /* an empty block on the last rank */
  PetscCall(CheckBlock(&h, s, c));
  c[1] = 2;
  s[1] = rank == size - 1 ? 3 : 1; /* 3 + 2 > n2 on the last rank */
  EXPECT_ERROR(RsfReadBlock(PETSC_COMM_WORLD, &h, s, c, data), rank == size - 1 ? "outside [0, 4)" : "another rank");
  PetscFunctionReturn(0);
}

/* A 7x5x4 cube written by blocks: the ranks split axis 2, so that blocks
   interleave in the file.  Then rewritten from rank 0 alone (empty blocks
   elsewhere), and bad block sets. */
static PetscErrorCode TestWriteBlock(void)
{
  const PetscInt    n[3] = {7, 5, 4}, zero[3] = {0, 0, 0};
  const PetscReal   d[3] = {0.5, 10, 12.5}, o[3] = {-1, 0, 2.5}, o2[3] = {3, 0, 2.5};
  const char *const label[3] = {"Time (s)", "Offset (m)", NULL};
  PetscInt          s[3] = {0, rank * n[1] / size, 0}, c[3] = {n[0], (rank + 1) * n[1] / size - s[1], n[2]};
  char              path[PETSC_MAX_PATH_LEN], bin[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN];
  float            *buf;
  RsfHeader         h;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n[0] * n[1] * n[2], &buf));
  for (PetscInt k = 0; k < c[2]; k++)
    for (PetscInt j = 0; j < c[1]; j++)
      for (PetscInt i = 0; i < c[0]; i++) buf[i + c[0] * (j + c[1] * k)] = Value(s[0] + i, s[1] + j, s[2] + k);
  PetscCall(Path("blocks.rsf", path));
  PetscCall(PetscSNPrintf(bin, sizeof bin, "%s@", path));
  PetscCall(TempPath(bin, tmp)); /* rank 0's host and process name the temporaries */
  PetscCallMPI(MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, PETSC_COMM_WORLD));
  if (!rank) { /* a stale temporary binary, longer than the new one, must not leave its tail */
    FILE *fp = fopen(tmp, "wb");

    PetscCheck(fp && !fseek(fp, 4096, SEEK_SET) && fputc(1, fp) != EOF && !fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s", tmp);
  }
  PetscCall(RsfWriteBlock(PETSC_COMM_WORLD, path, (const RsfAxes[]){Axes(3, n, d, o, label)}, s, c, buf, PETSC_FALSE));
  if (!rank) {
    PetscCheck(access(tmp, F_OK), PETSC_COMM_SELF, PETSC_ERR_PLIB, "temporary %s left behind", tmp);
    PetscCall(TempPath(path, tmp));
    PetscCheck(access(tmp, F_OK), PETSC_COMM_SELF, PETSC_ERR_PLIB, "temporary %s left behind", tmp);
  }
  EXPECT_ERROR(RsfWriteBlock(PETSC_COMM_WORLD, path, (const RsfAxes[]){Axes(3, n, d, o2, label)}, s, c, buf, PETSC_FALSE), "-overwrite");

  PetscCall(RsfReadHeader(PETSC_COMM_WORLD, path, &h));
  for (int a = 0; a < 3; a++)
    PetscCheck(h.n[a] == n[a] && h.d[a] == d[a] && h.o[a] == o[a], PETSC_COMM_SELF, PETSC_ERR_PLIB, "axis %d: n=%d d=%g o=%g, expected %d %g %g", a + 1,
               (int)h.n[a], (double)h.d[a], (double)h.o[a], (int)n[a], (double)d[a], (double)o[a]);
  PetscCall(CheckBlock(&h, zero, n));
  PetscCall(CheckBlock(&h, s, c));

  /* Rank 0 gives the whole cube, the others nothing (an empty box, which
     may start past the end, as that of a rank whose cells all lie in the absorbing
     layers does); o1 changes, so the header shows the replacement. */
  for (int a = 0; a < 3; a++) {
    s[a] = rank ? n[a] + 3 : 0;
    c[a] = rank ? 0 : n[a];
  }
  for (PetscInt k = 0; k < c[2]; k++)
    for (PetscInt j = 0; j < c[1]; j++)
      for (PetscInt i = 0; i < c[0]; i++) buf[i + c[0] * (j + c[1] * k)] = Value(i, j, k);
  PetscCall(RsfWriteBlock(PETSC_COMM_WORLD, path, (const RsfAxes[]){Axes(3, n, d, o2, NULL)}, s, c, buf, PETSC_TRUE));
  PetscCall(RsfReadHeader(PETSC_COMM_WORLD, path, &h));
  PetscCheck(h.o[0] == o2[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "o1=%g after overwriting, expected %g", (double)h.o[0], (double)o2[0]);
  PetscCall(CheckBlock(&h, zero, n));

  c[1] = rank ? 0 : n[1] - 1; /* row n2-1 is missing */
  EXPECT_ERROR(RsfWriteBlock(PETSC_COMM_WORLD, path, (const RsfAxes[]){Axes(3, n, d, o, NULL)}, s, c, buf, PETSC_TRUE), "hold 112 samples, expected the 140");
  c[1] = n[1];
  s[0] = s[1] = 0;
  s[2] = rank == size - 1 ? 1 : 0; /* 1 + 4 > n3 on the last rank, whose box is not empty */
  c[2] = n[2];
  if (rank == size - 1) c[0] = n[0];
  EXPECT_ERROR(RsfWriteBlock(PETSC_COMM_WORLD, path, (const RsfAxes[]){Axes(3, n, d, o, NULL)}, s, c, buf, PETSC_TRUE), rank == size - 1 ? "outside [0, 4)" : "another rank");
  PetscCall(CheckBlock(&h, zero, n)); /* the failed writes left the file alone */
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

/* A 1D file written with three axes (n2 = n3 = 1), and a Madagascar-style
   header: program line, tabs, quotes, a repeated key, an absolute in=, and
   form feeds ending the header. */
static PetscErrorCode TestTrace(void)
{
  const PetscInt  n[3] = {7, 1, 1}, s[3] = {2, 0, 0}, c[3] = {3, 1, 1};
  const PetscReal d[3] = {1, 1, 1}, o[3] = {0, 0, 0};
  char            path[PETSC_MAX_PATH_LEN], cwd[PETSC_MAX_PATH_LEN], text[3 * PETSC_MAX_PATH_LEN];
  float           data[7] = {0, 1, 2, 3, 4, 5, 6}, buf[3];
  RsfHeader       h;

  PetscFunctionBeginUser;
  PetscCall(Path("trace.rsf", path));
  if (!rank) PetscCall(RsfWrite(path, (const RsfAxes[]){Axes(3, n, d, o, NULL)}, data, PETSC_FALSE));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(RsfReadHeader(PETSC_COMM_WORLD, path, &h));
  PetscCheck(h.naxes == 1 && h.n[0] == 7, PETSC_COMM_SELF, PETSC_ERR_PLIB, "naxes %d n1 %d, expected 1 and 7", (int)h.naxes, (int)h.n[0]);
  PetscCall(RsfReadBlock(PETSC_COMM_WORLD, &h, s, c, buf));
  PetscCheck(buf[0] == 2 && buf[1] == 3 && buf[2] == 4, PETSC_COMM_SELF, PETSC_ERR_PLIB, "block read %g %g %g, expected 2 3 4", (double)buf[0],
             (double)buf[1], (double)buf[2]);

  /* the same binary read as xdr_float (big-endian): every sample's bytes reversed */
  PetscCall(WriteText("xdr.rsf", "n1=7 data_format=\"xdr_float\" esize=4 in=trace.rsf@\n"));
  PetscCall(Path("xdr.rsf", path));
  PetscCall(RsfReadHeader(PETSC_COMM_WORLD, path, &h));
  PetscCall(RsfReadBlock(PETSC_COMM_WORLD, &h, s, c, buf));
  for (int i = 0; i < 3; i++) {
    uint32_t want, got;
    memcpy(&want, &data[2 + i], sizeof want);
    memcpy(&got, &buf[i], sizeof got);
    PetscCheck(got == __builtin_bswap32(want), PETSC_COMM_SELF, PETSC_ERR_PLIB, "xdr_float sample %d: bytes %08x, expected %08x", 2 + i, got, __builtin_bswap32(want));
  }

  PetscCheck(getcwd(cwd, sizeof cwd), PETSC_COMM_SELF, PETSC_ERR_SYS, "getcwd failed");
  PetscCall(PetscSNPrintf(text, sizeof text,
                          "sfspike\trev 1.0:\t/home/me\tme@host\n\tn1=5 label1=\"Depth (m)\"\n\tn1=7\td1=0.25 o1=-1e-3\n"
                          "\tdata_format=\"native_float\" esize=4\n\tin=\"%s/%s/trace.rsf@\"\n\f\f\004n1=99\n",
                          cwd, dir));
  PetscCall(WriteText("mada.rsf", text));
  PetscCall(Path("mada.rsf", path));
  PetscCall(RsfReadHeader(PETSC_COMM_WORLD, path, &h));
  PetscCheck(h.n[0] == 7 && h.d[0] == 0.25 && h.o[0] == -1e-3 && h.data_path[0] == '/', PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Madagascar header: n1=%d d1=%g o1=%g in=%s, expected 7 0.25 -0.001 and an absolute path", (int)h.n[0], (double)h.d[0], (double)h.o[0],
             h.data_path);
  PetscFunctionReturn(0);
}

/* Every rank must get the error (none may hang); the message names the problem. */
static PetscErrorCode TestHeaderErrors(void)
{
  static const char *const cases[][2] = {
    {"n1=8 in=trace.rsf@\n", "has 28 bytes, expected 32"},
    {"n1=7 data_format=\"native_double\" in=trace.rsf@\n", "data_format=\"native_double\", expected \"native_float\" or \"xdr_float\""},
    {"n1=7 esize=8 in=trace.rsf@\n", "esize=8"},
    {"n1=7\n", "no in="},
    {"n1=7 in=missing.rsf@\n", "missing.rsf@"},
    {"n1=seven in=trace.rsf@\n", "n1=seven"},
    {"n1=0 in=trace.rsf@\n", "n1=0"},
    {"n1=7 d1=0 in=trace.rsf@\n", "d1=0"},
    {"n1=7 n4=2 in=trace.rsf@\n", "at most 3 axes"},
    {"n1=7 d1=0x64 in=trace.rsf@\n", "d1=0x64, expected a positive decimal number"},
    {"n1=7 o1=inf in=trace.rsf@\n", "o1=inf"},
    {"n1=7 o1=nan in=trace.rsf@\n", "o1=nan"},
    {"n1=7 d1=1e in=trace.rsf@\n", "d1=1e"},
    {"n1=0x64 in=trace.rsf@\n", "n1=0x64"},
    /* sizes beyond 64 bits: the product must not overflow or wrap around to 0 */
    {"n1=2147483647 n2=2147483647 n3=2147483647 in=trace.rsf@\n", "n1=2147483647 n2=2147483647 n3=2147483647: n1*n2*n3*4 bytes overflows 64 bits"},
    {"n1=2097152 n2=2097152 n3=1048576 in=trace.rsf@\n", "n1=2097152 n2=2097152 n3=1048576: n1*n2*n3*4 bytes overflows 64 bits"},
  };
  char      path[PETSC_MAX_PATH_LEN];
  RsfHeader h;

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    PetscCall(WriteText("bad.rsf", cases[i][0]));
    PetscCall(Path("bad.rsf", path));
    EXPECT_ERROR(RsfReadHeader(PETSC_COMM_WORLD, path, &h), cases[i][1]);
  }
  PetscCall(Path("none.rsf", path));
  EXPECT_ERROR(RsfReadHeader(PETSC_COMM_WORLD, path, &h), "none.rsf");
  PetscFunctionReturn(0);
}

static PetscErrorCode RemoveDir(void)
{
  DIR           *dp;
  struct dirent *e;
  char           path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  if (rank) PetscFunctionReturn(0);
  dp = opendir(dir);
  PetscCheck(dp, PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot open %s", dir);
  while ((e = readdir(dp)))
    if (e->d_name[0] != '.') {
      PetscCall(Path(e->d_name, path));
      remove(path);
    }
  closedir(dp);
  rmdir(dir);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (!rank) {
    PetscCall(PetscStrcpy(dir, "unit_rsf_XXXXXX"));
    PetscCheck(mkdtemp(dir), PETSC_COMM_SELF, PETSC_ERR_SYS, "mkdtemp failed");
  }
  PetscCallMPI(MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscCall(TestCube());
  PetscCall(TestWriteBlock());
  PetscCall(TestTrace());
  PetscCall(TestHeaderErrors());
  PetscCall(RemoveDir());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_rsf: all checks passed on %d rank(s)\n", size));
  PetscCall(PetscFinalize());
  return 0;
}
