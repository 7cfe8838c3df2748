/* The CUDA core kernel's grid (FieldsGpuTileGrid) and its check against
   CUDA's grid limits (FieldsGpuTileCheck), without a GPU.  The grid puts
   every cell of a box in some block and no block wholly outside it, in 2D
   and 3D, for launch shapes that divide the extents and shapes that do
   not.  A -gpu_tile too small for a rank's cells, past the limit along y
   (2D: runs along axis 1; 3D: indices of axis 1) or z (3D: runs along
   axis 2), is refused with an error, at the limit's first cell past it and
   not at the limit itself. */
#include "equations/acoustic/fields.h"

static PetscInt nfailed, nchecked;

#define EXPECT(cond, ...) \
  do { \
    nchecked++; \
    if (!(cond)) { \
      nfailed++; \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL " __VA_ARGS__)); \
    } \
  } while (0)

/* blocks of `per` cells cover n cells exactly: enough, and not one too many */
static PetscBool Covers(PetscInt64 blocks, PetscInt64 per, PetscInt64 n) { return blocks * per >= n && (blocks - 1) * per < n ? PETSC_TRUE : PETSC_FALSE; }

static PetscErrorCode CheckGrid(PetscInt dim, PetscInt rows, PetscInt run, const PetscInt e[3])
{
  PetscInt64 g[3];

  PetscFunctionBeginUser;
  FieldsGpuTileGrid(dim, rows, run, e, g);
  EXPECT(Covers(g[0], FIELDS_GPU_TILE_WIDTH, e[0]), "%dD %d,%d, extents %d %d %d: %lld blocks along x\n", (int)dim, (int)rows, (int)run, (int)e[0], (int)e[1],
         (int)e[2], (long long)g[0]);
  if (dim == 2)
    EXPECT(Covers(g[1], (PetscInt64)rows * run, e[1]) && g[2] == 1, "2D %d,%d, extents %d %d: %lld x %lld blocks along y, z\n", (int)rows, (int)run, (int)e[0],
           (int)e[1], (long long)g[1], (long long)g[2]);
  else
    EXPECT(Covers(g[1], rows, e[1]) && Covers(g[2], run, e[2]), "3D %d,%d, extents %d %d %d: %lld x %lld blocks along y, z\n", (int)rows, (int)run, (int)e[0],
           (int)e[1], (int)e[2], (long long)g[1], (long long)g[2]);
  PetscFunctionReturn(0);
}

/* FieldsGpuTileCheck on owned cells n: refused (an error) or not, as expected. */
static PetscErrorCode CheckLimit(PetscInt dim, PetscInt n0, PetscInt n1, PetscInt n2, PetscInt rows, PetscInt run, PetscBool refuse)
{
  Fields         f;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&f, sizeof f));
  f.dim  = dim;
  f.n[0] = n0;
  f.n[1] = n1;
  f.n[2] = n2;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FieldsGpuTileCheck(&f, rows, run);
  PetscCall(PetscPopErrorHandler());
  EXPECT((ierr != 0) == (refuse == PETSC_TRUE), "%dD cells %d x %d x %d, -gpu_tile %d,%d: %s, expected %s\n", (int)dim, (int)n0, (int)n1, (int)n2, (int)rows, (int)run,
         ierr ? "refused" : "accepted", refuse ? "a refusal" : "acceptance");
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const PetscInt extents[][3] = {
    {1,   1,     1 },
    {31,  5,     3 },
    {32,  64,    16},
    {33,  65,    17},
    {200, 1000,  77},
    {7,   65535, 9 }
  };
  const PetscInt shapes[][2] = {
    {1,  1 },
    {3,  5 },
    {8,  16},
    {16, 64}
  };
  const PetscInt L = FIELDS_GPU_TILE_GRID_LIMIT;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (size_t e = 0; e < sizeof extents / sizeof extents[0]; e++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (PetscInt dim = 2; dim <= 3; dim++) PetscCall(CheckGrid(dim, shapes[s][0], shapes[s][1], extents[e]));
  /* 2D: thread rows are runs along axis 1 */
  PetscCall(CheckLimit(2, 50, L, 1, 1, 1, PETSC_FALSE));
  PetscCall(CheckLimit(2, 50, L + 1, 1, 1, 1, PETSC_TRUE));
  PetscCall(CheckLimit(2, 50, L + 1, 1, 2, 1, PETSC_FALSE));
  PetscCall(CheckLimit(2, 50, L + 1, 1, 1, 2, PETSC_FALSE));
  PetscCall(CheckLimit(2, 50, 100 * L, 1, FIELDS_GPU_TILE_ROWS, FIELDS_GPU_TILE_RUN, PETSC_FALSE));
  /* 3D: a thread row per index of axis 1; runs along axis 2 by grid z */
  PetscCall(CheckLimit(3, 10, L + 1, 10, 1, 16, PETSC_TRUE));
  PetscCall(CheckLimit(3, 10, L + 1, 10, 2, 16, PETSC_FALSE));
  PetscCall(CheckLimit(3, 10, 10, L, 8, 1, PETSC_FALSE));
  PetscCall(CheckLimit(3, 10, 10, L + 1, 8, 1, PETSC_TRUE));
  PetscCall(CheckLimit(3, 10, 10, L + 1, 8, 2, PETSC_FALSE));
  if (nfailed) PetscCall(PetscPrintf(PETSC_COMM_SELF, "unit_gpu_tile: %d of %d checks failed\n", (int)nfailed, (int)nchecked));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "unit_gpu_tile: all %d checks pass\n", (int)nchecked));
  PetscCall(PetscFinalize());
  return nfailed ? 1 : 0;
}
