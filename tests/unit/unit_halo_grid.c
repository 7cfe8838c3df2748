/* The grids and checks shared by unit_halo and unit_halo_device. */
#include "unit_halo_grid.h"
#include <math.h>

/* Distinct for every (field, cell), a whole number exact in float for global
   extents below 100; doubles add a third, which no float holds. */
static double Value(const Block *b, PetscInt field, const PetscInt g[3])
{
  const double v = 1000000 * (field + 1) + g[0] + 100 * g[1] + 10000 * g[2];
  return b->layout.elem == HALO_DOUBLE ? v + 1.0 / 3 : v;
}

static double Get(const Block *b, PetscInt k, size_t c) { return b->layout.elem == HALO_DOUBLE ? ((const double *)b->field[k])[c] : ((const float *)b->field[k])[c]; }

static void Set(const Block *b, PetscInt k, size_t c, double v)
{
  if (b->layout.elem == HALO_DOUBLE) ((double *)b->field[k])[c] = v;
  else ((float *)b->field[k])[c] = (float)v;
}

/* Padded and global index of cell c (wrapped where periodic); how many axes
   it lies outside the owned box along, and (for one) which axis and side. */
static PetscInt Locate(const Block *b, size_t c, PetscInt p[3], PetscInt g[3], PetscInt *axis, PetscInt *side)
{
  PetscInt nout = 0, rest = (PetscInt)c;

  for (PetscInt a = 0; a < 3; a++) {
    const PetscInt pad = a < b->dim ? b->width : 0;
    p[a]               = rest % b->padded[a];
    rest /= b->padded[a];
    g[a] = b->start[a] + p[a] - pad;
    if (b->periodic && a < b->dim) g[a] = (g[a] + b->N[a]) % b->N[a];
    if (p[a] < pad || p[a] >= pad + b->layout.n[a]) {
      nout++;
      *axis = a;
      *side = p[a] >= pad;
    }
  }
  return nout;
}

void BlockFill(const Block *b, PetscInt k)
{
  for (size_t c = 0; c < b->ncells; c++) {
    PetscInt p[3], g[3], axis, side;
    Set(b, k, c, Locate(b, c, p, g, &axis, &side) ? NAN : Value(b, k, g));
  }
}

PetscInt BlockCheck(const Block *b, PetscInt k, unsigned faces, const char *what)
{
  PetscInt    bad = 0;
  PetscMPIInt rank;

  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (size_t c = 0; c < b->ncells; c++) {
    PetscInt       p[3], g[3], axis = -1, side = -1;
    const PetscInt nout = Locate(b, c, p, g, &axis, &side);
    double         want, got = Get(b, k, c);
    if (nout > 1) continue; /* edges and corners: not exchanged, not checked */
    if (nout == 0 || (b->layout.neighbor[axis][side] != MPI_PROC_NULL && (faces & HALO_FACE(axis, side)))) want = Value(b, k, g);
    else want = NAN;
    if (isnan(want) ? !isnan(got) : got != want) {
      if (bad++ < 5)
        PetscFPrintf(PETSC_COMM_SELF, stderr, "[%d] %s %s: field %d at padded (%d, %d, %d), global (%d, %d, %d): %.17g, expected %.17g\n", rank, b->name, what, (int)k,
                     (int)p[0], (int)p[1], (int)p[2], (int)g[0], (int)g[1], (int)g[2], got, want);
    }
  }
  return bad;
}

PetscErrorCode BlockReport(const Block *b, PetscInt bad, const char *what)
{
  PetscInt allbad;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&bad, &allbad, 1, MPIU_INT, MPI_SUM, b->cart));
  PetscCheck(!allbad, b->cart, PETSC_ERR_PLIB, "%" PetscInt_FMT " wrong cells after halo exchanges on the grid %s, %s", allbad, b->name, what);
  PetscFunctionReturn(0);
}

PetscErrorCode BlockCheckPadded(const Block *b, Halo halo)
{
  PetscInt  padded[3];
  ptrdiff_t stride[3];

  PetscFunctionBeginUser;
  PetscCall(HaloGetPadded(halo, padded, stride));
  for (PetscInt a = 0; a < 3; a++)
    PetscCheck(padded[a] == b->padded[a] && stride[a] == b->stride[a], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "HaloGetPadded axis %d: padded %d stride %d, expected %d and %d", (int)a, (int)padded[a], (int)stride[a], (int)b->padded[a],
               (int)b->stride[a]);
  PetscFunctionReturn(0);
}

void BlockFieldSet(const Block *b, PetscInt e, void *const data[NFIELDS], HaloField hf[NFIELDS])
{
  const PetscBool paired         = !b->periodic || b->dims[e] % 2 == 0;
  const unsigned  faces[NFIELDS] = {HALO_ALL_FACES, HALO_AXIS(e), HALO_ALL_FACES, paired ? HALO_FACE(e, b->coords[e] % 2 ? 0 : 1) : 0};

  for (PetscInt k = 0; k < NFIELDS; k++) {
    hf[k].data  = data[k];
    hf[k].faces = faces[k];
  }
}

/* Split N cells over P ranks, the first N % P ranks one cell more. */
static void Split(PetscInt N, PetscInt P, PetscInt c, PetscInt *start, PetscInt *n)
{
  *n     = N / P + (c < N % P);
  *start = c * (N / P) + PetscMin(c, N % P);
}

/* dims: ranks per axis (product = size of comm). */
static PetscErrorCode BlockCreate(MPI_Comm comm, PetscInt dim, const PetscInt N[3], PetscInt width, const int dims[3], PetscBool periodic, HaloDataType elem, Block *b)
{
  const int   periods[3] = {periodic, periodic, periodic};
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(b, sizeof *b));
  b->periodic = periodic;
  for (PetscInt a = 0; a < 3; a++) b->dims[a] = dims[a];
  PetscCallMPI(MPI_Cart_create(comm, (int)dim, b->dims, periods, 0, &b->cart));
  PetscCallMPI(MPI_Comm_rank(b->cart, &rank));
  PetscCallMPI(MPI_Cart_coords(b->cart, rank, (int)dim, b->coords));
  b->dim          = dim;
  b->width        = width;
  b->layout.dim   = dim;
  b->layout.width = width;
  b->esize        = HaloDataTypeSize(elem);
  b->ncells       = 1;
  if (elem != HALO_FLOAT) b->layout.elem = elem; /* float: left zero, as callers that predate elem leave it */
  for (PetscInt a = 0; a < 3; a++) {
    b->N[a]                   = N[a];
    b->layout.neighbor[a][0] = b->layout.neighbor[a][1] = MPI_PROC_NULL;
    if (a < dim) {
      PetscCallMPI(MPI_Cart_shift(b->cart, (int)a, 1, &b->layout.neighbor[a][0], &b->layout.neighbor[a][1]));
      Split(N[a], dims[a], b->coords[a], &b->start[a], &b->layout.n[a]);
    } else {
      b->start[a]    = 0;
      b->layout.n[a] = 1;
    }
    b->padded[a] = a < dim ? b->layout.n[a] + 2 * width : 1;
    b->stride[a] = a ? b->stride[a - 1] * b->padded[a - 1] : 1;
    b->ncells *= (size_t)b->padded[a];
  }
  for (PetscInt k = 0; k < NFIELDS; k++) PetscCall(PetscMalloc(b->ncells * b->esize, &b->field[k]));
  PetscCall(PetscSNPrintf(b->name, sizeof b->name, "%s %dD N=(%d,%d,%d) ranks=(%d,%d,%d)%s width %d", HaloDataTypes[elem], (int)dim, (int)N[0], (int)N[1], (int)N[2],
                          dims[0], dims[1], dims[2], periodic ? " periodic" : "", (int)width));
  PetscFunctionReturn(0);
}

static PetscErrorCode BlockDestroy(Block *b)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < NFIELDS; k++) PetscCall(PetscFree(b->field[k]));
  PetscCallMPI(MPI_Comm_free(&b->cart));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestDim(MPI_Comm comm, PetscInt dim, const PetscInt N[3], GridTest test, void *ctx)
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
    for (PetscInt j = 0; j < 3; j++)
      for (int periodic = 0; periodic < 2; periodic++) {
        PetscBool fits = PETSC_TRUE;
        Block     b;
        for (PetscInt a = 0; a < dim; a++)
          if ((dims[a] > 1 || periodic) && N[a] / dims[a] < widths[j]) fits = PETSC_FALSE;
        if (!fits) continue;
        for (HaloDataType elem = HALO_FLOAT; elem <= HALO_DOUBLE; elem++) {
          PetscCall(BlockCreate(comm, dim, N, widths[j], dims, periodic ? PETSC_TRUE : PETSC_FALSE, elem, &b));
          PetscCall(test(&b, ctx));
          PetscCall(BlockDestroy(&b));
        }
      }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode HaloGridTestAll(MPI_Comm comm, GridTest test, void *ctx)
{
  /* 13 = 4 + 4 + 5 over three ranks; every block at least 4 cells along a split axis */
  const PetscInt N1[3] = {13, 1, 1}, N2[3] = {13, 14, 1}, N3[3] = {13, 12, 14};
  PetscMPIInt    size, rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  for (PetscMPIInt p = 1; p <= size; p++) {
    MPI_Comm sub;
    PetscCallMPI(MPI_Comm_split(comm, rank < p ? 0 : MPI_UNDEFINED, rank, &sub));
    if (sub == MPI_COMM_NULL) continue;
    PetscCall(TestDim(sub, 1, N1, test, ctx));
    PetscCall(TestDim(sub, 2, N2, test, ctx));
    PetscCall(TestDim(sub, 3, N3, test, ctx));
    PetscCallMPI(MPI_Comm_free(&sub));
  }
  PetscFunctionReturn(0);
}
