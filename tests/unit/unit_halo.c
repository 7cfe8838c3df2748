/* Halo exchange on hand-built 1D, 2D and 3D process grids (unit_halo_grid.h):
   every owned cell holds a function of its global index, ghosts start as
   NaN; after the exchange every face ghost must hold the function at its
   global index where a neighbour exists and still be NaN at the global
   edges, and owned cells must be unchanged.  Uneven splits (13 cells over 3
   ranks), widths 1, 2, 4, several fields in one call, one of them exchanged
   along one axis only, float and double fields (the doubles hold values no
   float can).  Run on 1, 2, 4 ranks; every rank count up to the world size
   is tried on a sub-communicator, so 4 ranks also cover 3.  Also the backend
   and element type names, and which backends say they are available. */
#include "unit_halo_grid.h"
#include "unit_check.h"

static PetscErrorCode TestGrid(Block *b, void *ctx)
{
  Halo     halo;
  PetscInt bad = 0;

  PetscFunctionBeginUser;
  PetscCall(HaloCreate(b->cart, &b->layout, HALO_HOST, &halo));
  PetscCall(BlockCheckPadded(b, halo));
  /* one field, every face */
  {
    const HaloField hf[1] = {{b->field[0], HALO_ALL_FACES}};
    BlockFill(b, 0);
    PetscCall(HaloExchangeBegin(halo, 1, hf));
    PetscCall(HaloExchangeEnd(halo));
    bad += BlockCheck(b, 0, HALO_ALL_FACES, "one field");
  }
  /* four fields in one call, twice, as buffers are reused */
  for (PetscInt e = 0; e < b->dim; e++)
    for (PetscInt rep = 0; rep < 2; rep++) {
      HaloField hf[NFIELDS];
      char      what[64];
      BlockFieldSet(b, e, b->field, hf);
      PetscCall(PetscSNPrintf(what, sizeof what, "field 1 along axis %d only, field 3 in pairs", (int)e));
      for (PetscInt k = 0; k < NFIELDS; k++) BlockFill(b, k);
      PetscCall(HaloExchangeBegin(halo, NFIELDS, hf));
      PetscCall(HaloExchangeEnd(halo));
      for (PetscInt k = 0; k < NFIELDS; k++) bad += BlockCheck(b, k, hf[k].faces, what);
    }
  PetscCall(BlockReport(b, bad, "host"));
  PetscCall(HaloDestroy(&halo));
  PetscCheck(!halo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "HaloDestroy did not clear the handle");
  PetscFunctionReturn(0);
}

/* Argument checks of HaloCreate. */
static PetscErrorCode TestErrors(HaloLayout *L)
{
  Halo halo = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(L, sizeof *L));
  L->dim   = 2;
  L->width = 4;
  L->n[0]  = 10;
  L->n[1]  = 3;
  L->n[2]  = 1;
  for (PetscInt a = 0; a < 3; a++) L->neighbor[a][0] = L->neighbor[a][1] = MPI_PROC_NULL;
  L->neighbor[1][1] = 0;
  EXPECT_ERROR(HaloCreate(PETSC_COMM_SELF, L, HALO_HOST, &halo), "3 owned cells along axis 1 is thinner than the halo width 4");
  /* no neighbour along that axis: a thin block is fine */
  L->neighbor[1][1] = MPI_PROC_NULL;
  PetscCall(HaloCreate(PETSC_COMM_SELF, L, HALO_HOST, &halo));
  PetscCall(HaloDestroy(&halo));
  L->dim = 4;
  EXPECT_ERROR(HaloCreate(PETSC_COMM_SELF, L, HALO_HOST, &halo), "Halo dimension 4 not in 1..3");
  L->dim = 2;
  EXPECT_ERROR(HaloCreate(PETSC_COMM_SELF, L, (HaloType)7, &halo), "Halo type 7, expected 0..3");
  L->elem = (HaloDataType)2;
  EXPECT_ERROR(HaloCreate(PETSC_COMM_SELF, L, HALO_HOST, &halo), "element type 2, expected 0..1 (float, double)");
  L->elem = HALO_FLOAT;
  /* Begin and End in pairs; no new stream in between */
  PetscCall(HaloCreate(PETSC_COMM_SELF, L, HALO_HOST, &halo));
  PetscCall(HaloSetStream(halo, NULL));
  EXPECT_ERROR(HaloExchangeEnd(halo), "HaloExchangeEnd called without HaloExchangeBegin");
  PetscCall(HaloExchangeBegin(halo, 0, NULL));
  EXPECT_ERROR(HaloSetStream(halo, NULL), "HaloSetStream between HaloExchangeBegin and HaloExchangeEnd");
  EXPECT_ERROR(HaloExchangeBegin(halo, 0, NULL), "HaloExchangeBegin called twice");
  PetscCall(HaloExchangeEnd(halo));
  PetscCall(HaloDestroy(&halo));
  PetscFunctionReturn(0);
}

/* A PetscOptionsEnum list: the names, the enum's name, the prefix, NULL. */
static PetscErrorCode CheckEnumNames(const char *list, const char *const got[], const char *const want[], size_t n)
{
  PetscFunctionBeginUser;
  for (size_t t = 0; t < n; t++) {
    PetscBool same;
    PetscCall(PetscStrcmp(got[t], want[t], &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s[%d] is '%s', expected '%s'", list, (int)t, got[t], want[t]);
  }
  PetscCheck(!got[n], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s must end with NULL after the prefix", list);
  PetscFunctionReturn(0);
}

/* The names work with PetscOptionsGetEnum; host is always available, on every
   rank; a backend that is not says why, and HaloCreate refuses it with that
   reason.  (Which device backends run is unit_halo_device's business.)  The
   element types: float is 0, their sizes and names. */
static PetscErrorCode TestTypes(const HaloLayout *L)
{
  const char *const names[]     = {"host", "staged", "mpi-device", "nccl", "HaloType", "HALO_"};
  const char *const elemnames[] = {"float", "double", "HaloDataType", "HALO_"};
  PetscEnum         e;
  PetscBool         set, available;
  char              why[256];
  Halo              halo = NULL;

  PetscFunctionBeginUser;
  PetscCheck(HALO_FLOAT == 0 && HaloDataTypeSize(HALO_FLOAT) == sizeof(float) && HaloDataTypeSize(HALO_DOUBLE) == sizeof(double) && !HaloDataTypeSize((HaloDataType)2),
             PETSC_COMM_SELF, PETSC_ERR_PLIB, "HaloDataTypeSize: float %zu, double %zu, 2 %zu; expected 4, 8, 0", HaloDataTypeSize(HALO_FLOAT), HaloDataTypeSize(HALO_DOUBLE),
             HaloDataTypeSize((HaloDataType)2));
  PetscCall(CheckEnumNames("HaloDataTypes", HaloDataTypes, elemnames, sizeof elemnames / sizeof elemnames[0]));
  PetscCall(CheckEnumNames("HaloTypes", HaloTypes, names, sizeof names / sizeof names[0]));
  PetscCall(PetscOptionsSetValue(NULL, "-unit_halo_type", "mpi-device"));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-unit_halo_type", HaloTypes, &e, &set));
  PetscCheck(set && e == (PetscEnum)HALO_MPI_DEVICE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-unit_halo_type mpi-device read as %d, expected %d", (int)e, (int)HALO_MPI_DEVICE);
  PetscCall(PetscOptionsClearValue(NULL, "-unit_halo_type"));

  PetscCall(HaloTypeAvailableOnComm(PETSC_COMM_WORLD, HALO_HOST, &available, why, sizeof why));
  PetscCheck(available && !why[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "host halo unavailable ('%s')", why);
  for (HaloType t = HALO_HOST; t <= HALO_NCCL; t++) {
    PetscCall(HaloTypeAvailable(t, &available, why, sizeof why));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_halo: %s %s%s\n", HaloTypes[t], available ? "available" : "unavailable: ", why));
    if (available) continue;
    PetscCheck(why[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s unavailable without a reason", HaloTypes[t]);
    EXPECT_ERROR(HaloCreate(PETSC_COMM_SELF, L, t, &halo), why);
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  HaloLayout  L;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestErrors(&L));
  PetscCall(TestTypes(&L));
  PetscCall(HaloGridTestAll(PETSC_COMM_WORLD, TestGrid, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_halo: all checks passed on %d rank(s)\n", size));
  PetscCall(PetscFinalize());
  return 0;
}
