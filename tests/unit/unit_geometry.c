/* Geometry: parsing (comments, blank lines, 2D and 3D, decimal numbers
   only), malformed files, regular surveys (and their receiver count beyond
   PetscInt), validation and cell snapping. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include "data/geometry.h"
#include "data/util.h"
#include "unit_check.h"
#include <stdio.h>
#include <unistd.h>

static const PetscReal zero[3] = {0, 0, 0}; /* the model's origin */

static char path[64]; /* per process, so concurrent runs do not collide */

static PetscErrorCode WriteText(const char *text)
{
  FILE *fp = fopen(path, "w");

  PetscFunctionBeginUser;
  PetscCheck(fp && fputs(text, fp) >= 0 && !fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s", path);
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckPos(const char *what, const Position *p, PetscReal z, PetscReal x, PetscReal y)
{
  PetscFunctionBeginUser;
  PetscCheck(p->c[0] == z && p->c[1] == x && p->c[2] == y, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s at (z,x,y) = (%g,%g,%g), expected (%g,%g,%g)", what,
             (double)p->c[0], (double)p->c[1], (double)p->c[2], (double)z, (double)x, (double)y);
  PetscFunctionReturn(0);
}

static PetscErrorCode TestParse(void)
{
  Geometry g;

  PetscFunctionBeginUser;
  PetscCall(WriteText("# survey\nS 10 5   # first shot\n\n  R 0 2\nR\t+20.5 2\nS 30 5\nR 1e1 .3e+1\n"));
  PetscCall(GeometryRead(PETSC_COMM_WORLD, path, 2, zero, &g));
  PetscCheck(g.nshots == 2 && g.rec_start[0] == 0 && g.rec_start[1] == 2 && g.rec_start[2] == 3, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%d shots, rec_start %d %d %d, expected 2 shots and 0 2 3", (int)g.nshots, (int)g.rec_start[0], (int)g.rec_start[1], (int)g.rec_start[2]);
  PetscCall(CheckPos("source 0", &g.src[0], 5, 10, 0));
  PetscCall(CheckPos("source 1", &g.src[1], 5, 30, 0));
  PetscCall(CheckPos("receiver 1", &g.rec[1], 2, 20.5, 0));
  PetscCall(CheckPos("receiver 2", &g.rec[2], 3, 10, 0));
  PetscCheck(g.src_line[0] == 2 && g.src_line[1] == 6 && g.rec_line[0] == 4 && g.rec_line[1] == 5 && g.rec_line[2] == 7, PETSC_COMM_SELF,
             PETSC_ERR_PLIB, "line numbers %d %d / %d %d %d, expected 2 6 / 4 5 7", (int)g.src_line[0], (int)g.src_line[1], (int)g.rec_line[0],
             (int)g.rec_line[1], (int)g.rec_line[2]);
  PetscCheck(!strcmp(g.source, path), PETSC_COMM_SELF, PETSC_ERR_PLIB, "source '%s', expected '%s'", g.source, path);
  PetscCall(GeometryDestroy(&g));

  PetscCall(WriteText("S 1 2 3\nR 4 5 6\n"));
  PetscCall(GeometryRead(PETSC_COMM_WORLD, path, 3, zero, &g));
  PetscCall(CheckPos("3D source", &g.src[0], 3, 1, 2));
  PetscCall(CheckPos("3D receiver", &g.rec[0], 6, 4, 5));
  PetscCall(GeometryDestroy(&g));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestMalformed(void)
{
  static const char *const cases[][2] = {
    {"S 1 2\nR 1\n", "line 2: expected 'S x z' or 'R x z', got 'R 1'"},
    {"S 1 2\nR 1 2 3\n", "line 2"},
    {"# c\nS 1 2\nR 1 abc\n", "line 3: 'abc' is not a finite decimal number"},
    {"S 1 nan\nR 1 1\n", "line 1: 'nan'"},
    {"S 1 inf\nR 1 1\n", "line 1: 'inf'"},
    {"S 0x64 2\nR 1 1\n", "line 1: '0x64' is not a finite decimal number"},
    {"S 1 2\nR 1e999 1\n", "line 2: '1e999'"},
    {"S 1 2\nR 1. 1e\n", "line 2: '1e'"},
    {"S 1 2\nR . 1\n", "line 2: '.'"},
    {"R 1 2\n", "line 1: receiver before the first 'S'"},
    {"S 1 2\nS 3 4\nR 1 1\n", "line 1: shot 0 has no receivers"},
    {"S 1 2\nR 1 2\n\nS 3 4 # no receivers\n", "line 4: shot 1 has no receivers"},
    {"S 1 2\nX 1 2\n", "line 2"},
    {"# nothing\n", "no shots"},
  };
  Geometry g;

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    PetscCall(WriteText(cases[i][0]));
    EXPECT_ERROR(GeometryRead(PETSC_COMM_WORLD, path, 2, zero, &g), cases[i][1]);
  }
  PetscCall(WriteText("S 1 2\nR 1 2\n"));
  EXPECT_ERROR(GeometryRead(PETSC_COMM_WORLD, path, 3, zero, &g), "line 1: expected 'S x y z'");
  EXPECT_ERROR(GeometryRead(PETSC_COMM_WORLD, "no/such/geometry.txt", 2, zero, &g), "no/such/geometry.txt");
  PetscFunctionReturn(0);
}

static PetscErrorCode TestDecimal(void)
{
  static const char *const good[] = {"0", "-1", "+2.5", ".5", "5.", "1e3", "1E-3", "-.5e+2"};
  static const char *const bad[]  = {"", "+", ".", "e3", "1e", "0x64", "inf", "nan", "1 ", " 1", "1,5", "1e3.5", "--1"};

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    PetscCheck(DecimalNumber(good[i]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "'%s' refused, expected a decimal number", good[i]);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    PetscCheck(!DecimalNumber(bad[i]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "'%s' taken for a decimal number", bad[i]);
  PetscFunctionReturn(0);
}

static PetscErrorCode TestRegular(void)
{
  const PetscInt  n[3] = {11, 21, 5};
  const PetscReal d[3] = {5, 10, 4};
  Geometry        g;
  PetscInt        cell[3];

  PetscFunctionBeginUser;
  PetscCall(GeometryRegular(2, n, d, zero, 3, 21, 10, 7.5, &g));
  PetscCheck(g.nshots == 3 && g.rec_start[3] == 63, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%d shots %d receivers, expected 3 and 63", (int)g.nshots,
             (int)g.rec_start[3]);
  for (PetscInt s = 0; s < 3; s++) {
    PetscCall(CheckPos("regular source", &g.src[s], 10, 100.0 * s, 0));
    for (PetscInt r = 0; r < 21; r++) PetscCall(CheckPos("regular receiver", &g.rec[g.rec_start[s] + r], 7.5, 10.0 * r, 0));
  }
  PetscCall(GeometryValidate(PETSC_COMM_WORLD, &g, 2, n, d, PETSC_FALSE));
  g.rec[5].c[1] = 200 * (1 + 1e-12); /* within the slack */
  PetscCall(GeometryValidate(PETSC_COMM_WORLD, &g, 2, n, d, PETSC_FALSE));
  g.rec[25].c[1] = 201;
  EXPECT_ERROR(GeometryValidate(PETSC_COMM_WORLD, &g, 2, n, d, PETSC_FALSE), "shot 1 receiver 4 (regular survey) at x=201 z=7.5 m lies outside the model (x in [0, 200], z in [0, 50])");
  g.rec[25].c[1] = 0;
  g.src[2].c[0]  = -1;
  EXPECT_ERROR(GeometryValidate(PETSC_COMM_WORLD, &g, 2, n, d, PETSC_FALSE), "shot 2 source");
  PetscCall(GeometryDestroy(&g));

  /* 10^10 receivers in all: beyond a 32-bit PetscInt, refused rather than wrapped */
  if (sizeof(PetscInt) == 4) EXPECT_ERROR(GeometryRegular(2, n, d, zero, 100000, 100000, 10, 7.5, &g), "100000 shots x 100000 receivers = 10000000000 receivers");

  PetscCall(GeometryRegular(3, n, d, zero, 1, 1, 0, 50, &g));
  PetscCall(CheckPos("centred 3D source", &g.src[0], 0, 100, 8));
  PetscCall(CheckPos("centred 3D receiver", &g.rec[0], 50, 100, 8));
  PetscCall(GeometryValidate(PETSC_COMM_WORLD, &g, 3, n, d, PETSC_FALSE));
  g.rec[0].c[2] = 17;
  EXPECT_ERROR(GeometryValidate(PETSC_COMM_WORLD, &g, 3, n, d, PETSC_FALSE), "x=100 y=17 z=50 m");

  g.rec[0] = (Position){{7.4, 14.9, 6.1}};
  GeometryCell(&g.rec[0], 3, d, cell);
  PetscCheck(cell[0] == 1 && cell[1] == 1 && cell[2] == 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cell %d %d %d, expected 1 1 2", (int)cell[0], (int)cell[1],
             (int)cell[2]);
  g.rec[0] = (Position){{7.6, 15.1, 0}};
  GeometryCell(&g.rec[0], 2, d, cell);
  PetscCheck(cell[0] == 2 && cell[1] == 2 && cell[2] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cell %d %d %d, expected 2 2 0", (int)cell[0], (int)cell[1],
             (int)cell[2]);
  PetscCall(GeometryDestroy(&g));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_WRONG_MPI_SIZE, "unit_geometry runs on one rank, not %d", size);
  PetscCall(PetscSNPrintf(path, sizeof path, "unit_geometry_%d.txt", (int)getpid()));
  PetscCall(TestParse());
  PetscCall(TestMalformed());
  PetscCall(TestDecimal());
  PetscCall(TestRegular());
  remove(path);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_geometry: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
