/* The 2D heat equation u_t = u_xx + u_yy on the N x N inner points of a
   square grid with u = 0 on its edges, stepped with the explicit 5-point
   scheme

     u' = u + r (u_W + u_E + u_S + u_N - 4 u),   r = dt / h^2 <= 1/4,

   on the grid split over the MPI ranks (MPI_Dims_create, MPI_Cart_create).
   Each rank keeps its block with one ghost cell around it; the halo library
   fills the ghosts from the neighbours before every step, and the ghosts at
   the grid's edges, which it leaves alone, hold the zero boundary.

   The run checks itself.  The starting field sin(pi i/(N+1)) sin(pi j/(N+1))
   is an eigenvector of the scheme: every step multiplies it by
   g = 1 - 8 r sin^2(pi / (2 (N+1))), so after S steps the field must be
   g^S times the start up to round-off.  It also prints a checksum of every
   cell's bits that does not depend on the decomposition: each cell is
   computed by the same operations however the grid is split, so runs on
   any number of ranks must print the same checksum.

     mpiexec -n 4 heat2d [-n N] [-steps S]        (defaults 63 and 400) */
#include <halofwi/halo.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

static const double r = 0.2;

/* This rank's block: owned cells per axis and the global index (from 1) of
   the first; halo fields are padded, axis 0 fastest. */
typedef struct {
  MPI_Comm  cart; /* the halo's communicator, kept while the halo lives */
  PetscInt  N, n[2], first[2], padded[HALO_MAXDIM];
  ptrdiff_t stride[HALO_MAXDIM];
} Block;

static double Mode(const Block *b, PetscInt i, PetscInt j) { return sin(PETSC_PI * i / (b->N + 1)) * sin(PETSC_PI * j / (b->N + 1)); }

/* A Cartesian process grid, this rank's share of N cells along each axis
   and the halo exchanging its faces with the neighbours. */
static PetscErrorCode Decompose(PetscInt N, Block *b, Halo *halo)
{
  int        size, rank, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  HaloLayout L;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Dims_create(size, 2, dims));
  PetscCallMPI(MPI_Cart_create(PETSC_COMM_WORLD, 2, dims, periods, 0, &b->cart));
  PetscCallMPI(MPI_Comm_rank(b->cart, &rank));
  PetscCallMPI(MPI_Cart_coords(b->cart, rank, 2, coords));
  PetscCall(PetscMemzero(&L, sizeof L));
  L.dim   = 2;
  L.width = 1;
  L.elem  = HALO_DOUBLE;
  L.n[2]  = 1;
  L.neighbor[2][0] = L.neighbor[2][1] = MPI_PROC_NULL;
  b->N = N;
  for (int a = 0; a < 2; a++) {
    const PetscInt base = N / dims[a], extra = N % dims[a];
    L.n[a] = b->n[a] = base + (coords[a] < extra);
    b->first[a]      = 1 + coords[a] * base + PetscMin(coords[a], extra);
    /* MPI_PROC_NULL beyond the grid's edges */
    PetscCallMPI(MPI_Cart_shift(b->cart, a, 1, &L.neighbor[a][0], &L.neighbor[a][1]));
  }
  PetscCall(HaloCreate(b->cart, &L, HALO_HOST, halo));
  PetscCall(HaloGetPadded(*halo, b->padded, b->stride));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "heat2d: %" PetscInt_FMT " x %" PetscInt_FMT " cells on %d x %d ranks\n", N, N, dims[0], dims[1]));
  PetscFunctionReturn(0);
}

/* One step from u to v; the exchange writes u's ghosts. */
static PetscErrorCode Step(Halo halo, const Block *b, double *u, double *v)
{
  const HaloField f  = {u, HALO_ALL_FACES};
  const ptrdiff_t sj = b->stride[1];

  PetscFunctionBeginUser;
  /* work that reads no ghost could run between Begin and End */
  PetscCall(HaloExchangeBegin(halo, 1, &f));
  PetscCall(HaloExchangeEnd(halo));
  for (PetscInt j = 1; j <= b->n[1]; j++)
    for (PetscInt i = 1; i <= b->n[0]; i++) {
      const ptrdiff_t c = i + j * sj;
      v[c]              = u[c] + r * ((u[c - 1] + u[c + 1]) + (u[c - sj] + u[c + sj]) - 4 * u[c]);
    }
  PetscFunctionReturn(0);
}

/* The largest error against g^S times the starting mode, and the checksum:
   the sum of every cell's bits times an odd weight of its global index,
   modulo 2^64, so the order of the sum does not matter. */
static PetscErrorCode Check(const Block *b, const double *u, PetscInt steps)
{
  const double g = 1 - 8 * r * pow(sin(PETSC_PI / (2.0 * (b->N + 1))), 2), amp = pow(g, (double)steps);
  double       err = 0, tol = 4 * steps * DBL_EPSILON * amp;
  uint64_t     sum = 0;

  PetscFunctionBeginUser;
  for (PetscInt j = 1; j <= b->n[1]; j++)
    for (PetscInt i = 1; i <= b->n[0]; i++) {
      const PetscInt gi = b->first[0] + i - 1, gj = b->first[1] + j - 1;
      const double   x  = u[i + j * b->stride[1]];
      uint64_t       bits;
      memcpy(&bits, &x, sizeof bits);
      err = fmax(err, fabs(x - amp * Mode(b, gi, gj)));
      sum += bits * (2 * (uint64_t)(gi + gj * (b->N + 2)) + 1);
    }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "heat2d: %" PetscInt_FMT " steps, amplitude %.6e, max error %.3e (tolerance %.3e), checksum %016" PRIx64 "\n", steps, amp,
                        err, tol, sum));
  PetscCheck(err <= tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the field is %.3e from the exact discrete solution, more than %.3e", err, tol);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt N = 63, steps = 400;
  Block    b;
  Halo     halo;
  double  *u, *v;

  /* the halo library reports errors and allocates through PETSc */
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &N, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(Decompose(N, &b, &halo));
  /* zeroed: the ghosts at the grid's edges are the boundary u = 0 */
  PetscCall(PetscCalloc2(b.padded[0] * b.padded[1], &u, b.padded[0] * b.padded[1], &v));
  for (PetscInt j = 1; j <= b.n[1]; j++)
    for (PetscInt i = 1; i <= b.n[0]; i++) u[i + j * b.stride[1]] = Mode(&b, b.first[0] + i - 1, b.first[1] + j - 1);
  for (PetscInt s = 0; s < steps; s++) {
    double *t = u;
    PetscCall(Step(halo, &b, u, v));
    u = v;
    v = t;
  }
  PetscCall(Check(&b, u, steps));
  PetscCall(PetscFree2(u, v));
  PetscCall(HaloDestroy(&halo));
  PetscCallMPI(MPI_Comm_free(&b.cart));
  PetscCall(PetscFinalize());
  return 0;
}
