/* Halo exchange on hand-built 1D, 2D and 3D process grids: every owned cell
   holds a function of its global index, ghosts start as NaN; after the
   exchange every face ghost must hold the function at its global index where
   a neighbour exists and still be NaN at the global edges, and owned cells
   must be unchanged.  Uneven splits (13 cells over 3 ranks), widths 1, 2, 4,
   several fields in one call, one of them exchanged along one axis only.
   Run on 1, 2, 4 ranks; every rank count up to the world size is tried on a
   sub-communicator, so 4 ranks also cover 3. */
#include <halofwi/halo.h>
#include "unit_check.h"

#define NFIELDS 4

/* Distinct for every (field, cell) and exact in float for global extents below 100. */
static float Value(PetscInt field, const PetscInt g[3]) { return (float)(1000000 * (field + 1) + g[0] + 100 * g[1] + 10000 * g[2]); }

/* A rank's block of the global grid and its halo. */
typedef struct {
  PetscInt   dim, width;
  PetscInt   N[3], start[3];
  HaloLayout layout;
  PetscInt   padded[3];
  ptrdiff_t  stride[3];
  size_t     ncells;
  float     *field[NFIELDS];
} Block;

/* Owned cells take Value, everything else NaN. */
static void Fill(const Block *b, PetscInt k)
{
  const PetscInt w = b->width;
  for (size_t c = 0; c < b->ncells; c++) {
    PetscInt  g[3], rest = (PetscInt)c;
    PetscBool owned = PETSC_TRUE;
    for (PetscInt a = 0; a < 3; a++) {
      const PetscInt p = rest % b->padded[a], pad = a < b->dim ? w : 0;
      rest /= b->padded[a];
      g[a] = b->start[a] + p - pad;
      if (p < pad || p >= pad + b->layout.n[a]) owned = PETSC_FALSE;
    }
    b->field[k][c] = owned ? Value(k, g) : NAN;
  }
}

/* Field k exchanged through `faces`: counts the wrong cells, printing the first few. */
static PetscInt Check(const Block *b, PetscInt k, unsigned faces, const char *what)
{
  const PetscInt w   = b->width;
  PetscInt       bad = 0;
  PetscMPIInt    rank;

  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (size_t c = 0; c < b->ncells; c++) {
    PetscInt p[3], g[3], nout = 0, axis = -1, side = -1, rest = (PetscInt)c;
    float    want, got = b->field[k][c];
    for (PetscInt a = 0; a < 3; a++) {
      const PetscInt pad = a < b->dim ? w : 0;
      p[a]               = rest % b->padded[a];
      rest /= b->padded[a];
      g[a] = b->start[a] + p[a] - pad;
      if (p[a] < pad || p[a] >= pad + b->layout.n[a]) {
        nout++;
        axis = a;
        side = p[a] >= pad;
      }
    }
    if (nout > 1) continue; /* edges and corners: not exchanged, not checked */
    if (nout == 0 || (b->layout.neighbor[axis][side] != MPI_PROC_NULL && (faces & HALO_FACE(axis, side)))) want = Value(k, g);
    else want = NAN;
    if (isnan(want) ? !isnan(got) : got != want) {
      if (bad++ < 5)
        PetscFPrintf(PETSC_COMM_SELF, stderr, "[%d] %s: field %d at padded (%d, %d, %d), global (%d, %d, %d): %.9g, expected %.9g\n", rank, what, (int)k,
                     (int)p[0], (int)p[1], (int)p[2], (int)g[0], (int)g[1], (int)g[2], (double)got, (double)want);
    }
  }
  return bad;
}

/* Split N cells over P ranks, the first N % P ranks one cell more. */
static void Split(PetscInt N, PetscInt P, PetscInt c, PetscInt *start, PetscInt *n)
{
  *n     = N / P + (c < N % P);
  *start = c * (N / P) + PetscMin(c, N % P);
}

/* dims: ranks per axis (product = size of comm). */
static PetscErrorCode TestGrid(MPI_Comm comm, PetscInt dim, const PetscInt N[3], PetscInt width, const int dims[3])
{
  MPI_Comm    cart;
  int         cdims[3], periods[3] = {0, 0, 0}, coords[3];
  Block       b;
  Halo        halo;
  PetscInt    padded[3], bad = 0, allbad;
  ptrdiff_t   stride[3];
  char        what[160];
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&b, sizeof b));
  for (PetscInt a = 0; a < dim; a++) cdims[a] = dims[a];
  PetscCallMPI(MPI_Cart_create(comm, (int)dim, cdims, periods, 0, &cart));
  PetscCallMPI(MPI_Comm_rank(cart, &rank));
  PetscCallMPI(MPI_Cart_coords(cart, rank, (int)dim, coords));
  b.dim           = dim;
  b.width         = width;
  b.layout.dim    = dim;
  b.layout.width  = width;
  b.ncells        = 1;
  for (PetscInt a = 0; a < 3; a++) {
    b.layout.neighbor[a][0] = b.layout.neighbor[a][1] = MPI_PROC_NULL;
    if (a < dim) {
      PetscCallMPI(MPI_Cart_shift(cart, (int)a, 1, &b.layout.neighbor[a][0], &b.layout.neighbor[a][1]));
      Split(N[a], dims[a], coords[a], &b.start[a], &b.layout.n[a]);
    } else {
      b.start[a]    = 0;
      b.layout.n[a] = 1;
    }
    b.padded[a] = a < dim ? b.layout.n[a] + 2 * width : 1;
    b.stride[a] = a ? b.stride[a - 1] * b.padded[a - 1] : 1;
    b.ncells *= (size_t)b.padded[a];
  }
  PetscCall(HaloCreate(cart, &b.layout, HALO_HOST, &halo));
  PetscCall(HaloGetPadded(halo, padded, stride));
  for (PetscInt a = 0; a < 3; a++)
    PetscCheck(padded[a] == b.padded[a] && stride[a] == b.stride[a], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "HaloGetPadded axis %d: padded %d stride %d, expected %d and %d", (int)a, (int)padded[a], (int)stride[a], (int)b.padded[a],
               (int)b.stride[a]);
  for (PetscInt k = 0; k < NFIELDS; k++) PetscCall(PetscMalloc1(b.ncells, &b.field[k]));

  /* one field, every face */
  {
    const HaloField hf[1] = {{b.field[0], HALO_ALL_FACES}};
    PetscCall(PetscSNPrintf(what, sizeof what, "%dD N=(%d,%d,%d) ranks=(%d,%d,%d) width %d, one field", (int)dim, (int)N[0], (int)N[1], (int)N[2],
                            dims[0], dims[1], dims[2], (int)width));
    Fill(&b, 0);
    PetscCall(HaloExchangeBegin(halo, 1, hf));
    PetscCall(HaloExchangeEnd(halo));
    bad += Check(&b, 0, HALO_ALL_FACES, what);
  }
  /* four fields in one call: field 1 along axis e only, field 3 only across
     the faces between ranks 2j and 2j + 1 along axis e (both sides agree);
     twice, as buffers are reused */
  for (PetscInt e = 0; e < dim; e++)
    for (PetscInt rep = 0; rep < 2; rep++) {
      const unsigned  pair        = HALO_FACE(e, coords[e] % 2 ? 0 : 1);
      const HaloField hf[NFIELDS] = {{b.field[0], HALO_ALL_FACES}, {b.field[1], HALO_AXIS(e)}, {b.field[2], HALO_ALL_FACES}, {b.field[3], pair}};
      PetscCall(PetscSNPrintf(what, sizeof what, "%dD N=(%d,%d,%d) ranks=(%d,%d,%d) width %d, field 1 along axis %d only, field 3 in pairs", (int)dim, (int)N[0],
                              (int)N[1], (int)N[2], dims[0], dims[1], dims[2], (int)width, (int)e));
      for (PetscInt k = 0; k < NFIELDS; k++) Fill(&b, k);
      PetscCall(HaloExchangeBegin(halo, NFIELDS, hf));
      PetscCall(HaloExchangeEnd(halo));
      for (PetscInt k = 0; k < NFIELDS; k++) bad += Check(&b, k, hf[k].faces, what);
    }
  PetscCallMPI(MPI_Allreduce(&bad, &allbad, 1, MPIU_INT, MPI_SUM, comm));
  PetscCheck(!allbad, comm, PETSC_ERR_PLIB, "%" PetscInt_FMT " wrong cells after halo exchanges on the grid %s", allbad, what);
  for (PetscInt k = 0; k < NFIELDS; k++) PetscCall(PetscFree(b.field[k]));
  PetscCall(HaloDestroy(&halo));
  PetscCheck(!halo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "HaloDestroy did not clear the handle");
  PetscCallMPI(MPI_Comm_free(&cart));
  PetscFunctionReturn(0);
}

/* Every process grid of this dimension that MPI_Dims_create gives, and its
   rotations, with each width that fits. */
static PetscErrorCode TestDim(MPI_Comm comm, PetscInt dim, const PetscInt N[3])
{
  const PetscInt widths[3] = {1, 2, 4};
  int            dims0[3]  = {0, 0, 0};
  PetscMPIInt    size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Dims_create(size, (int)dim, dims0));
  for (PetscInt rot = 0; rot < dim; rot++) {
    int dims[3] = {1, 1, 1};
    for (PetscInt a = 0; a < dim; a++) dims[a] = dims0[(a + rot) % dim];
    for (PetscInt j = 0; j < 3; j++) {
      PetscBool fits = PETSC_TRUE;
      for (PetscInt a = 0; a < dim; a++)
        if (dims[a] > 1 && N[a] / dims[a] < widths[j]) fits = PETSC_FALSE;
      if (fits) PetscCall(TestGrid(comm, dim, N, widths[j], dims));
    }
  }
  PetscFunctionReturn(0);
}

/* Argument checks of HaloCreate. */
static PetscErrorCode TestErrors(void)
{
  HaloLayout L;
  Halo       halo = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&L, sizeof L));
  L.dim   = 2;
  L.width = 4;
  L.n[0]  = 10;
  L.n[1]  = 3;
  L.n[2]  = 1;
  for (PetscInt a = 0; a < 3; a++) L.neighbor[a][0] = L.neighbor[a][1] = MPI_PROC_NULL;
  L.neighbor[1][1] = 0;
  EXPECT_ERROR(HaloCreate(PETSC_COMM_SELF, &L, HALO_HOST, &halo), "3 owned cells along axis 1 is thinner than the halo width 4");
  /* no neighbour along that axis: a thin block is fine */
  L.neighbor[1][1] = MPI_PROC_NULL;
  PetscCall(HaloCreate(PETSC_COMM_SELF, &L, HALO_HOST, &halo));
  PetscCall(HaloDestroy(&halo));
  L.dim = 4;
  EXPECT_ERROR(HaloCreate(PETSC_COMM_SELF, &L, HALO_HOST, &halo), "Halo dimension 4 not in 1..3");
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  /* 13 = 4 + 4 + 5 over three ranks; every block at least 4 cells along a split axis */
  const PetscInt N1[3] = {13, 1, 1}, N2[3] = {13, 14, 1}, N3[3] = {13, 12, 14};
  PetscMPIInt    size, rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(TestErrors());
  for (PetscMPIInt p = 1; p <= size; p++) {
    MPI_Comm sub;
    PetscCallMPI(MPI_Comm_split(PETSC_COMM_WORLD, rank < p ? 0 : MPI_UNDEFINED, rank, &sub));
    if (sub == MPI_COMM_NULL) continue;
    PetscCall(TestDim(sub, 1, N1));
    PetscCall(TestDim(sub, 2, N2));
    PetscCall(TestDim(sub, 3, N3));
    PetscCallMPI(MPI_Comm_free(&sub));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_halo: all checks passed on %d rank(s)\n", size));
  PetscCall(PetscFinalize());
  return 0;
}
