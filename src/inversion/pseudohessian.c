#include "inversion/pseudohessian.h"
#include "data/exactsum.h"
#include "setup/output.h"
#include "setup/snapshot.h"

typedef struct {
  const Experiment *e;
  double           *energy; /* this rank's user cells */
  float            *u;
  PetscInt          n;
} Energy;

/* The propagator's watch: u^2 added at every recorded sample. */
static PetscErrorCode AddEnergy(void *ctx, PetscInt shot, PetscInt steps, const float *field)
{
  Energy  *en = (Energy *)ctx;
  PetscInt start[3], count[3];

  PetscFunctionBeginUser;
  PetscCall(SnapshotUserCells(en->e, field, start, count, en->u)); /* the model space's cells (ModelSpaceBox) */
  for (PetscInt c = 0; c < en->n; c++) en->energy[c] += (double)en->u[c] * en->u[c];
  PetscFunctionReturn(0);
}

PetscErrorCode PseudoHessian(Objective *obj, const float *vp, double *energy)
{
  Propagator              *p    = &obj->e.p;
  const PropagatorSettings keep = p->settings;
  Energy                   en   = {.e = &obj->e, .energy = energy, .n = obj->ms.nlocal};
  ExactSum                *sum;
  MPI_Datatype             type;
  MPI_Op                   op;
  int                      bad = 0;

  PetscFunctionBeginUser;
  PetscCall(ObjectiveSetModel(obj, vp));
  PetscCall(PetscMalloc1(en.n + 1, &en.u));
  PetscCall(PetscArrayzero(energy, en.n));
  p->settings.watch       = AddEnergy;
  p->settings.watch_ctx   = &en;
  p->settings.watch_steps = obj->e.t.m;
  for (PetscInt k = 0; k < obj->e.nshots; k++) {
    float *syn;
    PetscCall(ObjectiveModelShot(obj, k, 1, &syn));
    PetscCall(PetscFree(syn));
  }
  p->settings = keep;
  PetscCall(PetscCalloc1(en.n + 1, &sum));
  for (PetscInt c = 0; c < en.n; c++) bad |= ExactSumAdd(&sum[c], energy[c]);
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FP, "pseudo-Hessian: the wavefield's energy is not finite or exceeds 2^128");
  PetscCall(ExactSumMPI(&type, &op));
  PetscCallMPI(MPI_Reduce(obj->e.l.group_id ? sum : MPI_IN_PLACE, sum, (PetscMPIInt)en.n, type, op, 0, obj->e.l.cross));
  for (PetscInt c = 0; c < en.n; c++) energy[c] = ExactSumValue(&sum[c]);
  PetscCall(PetscFree(sum));
  PetscCall(PetscFree(en.u));
  PetscFunctionReturn(0);
}

PetscErrorCode PseudoHessianName(FileFormat format, PetscInt band, char name[PETSC_MAX_PATH_LEN])
{
  char stem[64];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(stem, sizeof stem, "illumination_%" PetscInt_FMT, band + 1));
  PetscCall(OutputName(stem, format, name));
  PetscFunctionReturn(0);
}

PetscErrorCode PseudoHessianWrite(Objective *obj, const double *energy, PetscInt band)
{
  char   name[PETSC_MAX_PATH_LEN];
  float *e;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(obj->ms.nlocal + 1, &e));
  for (PetscInt c = 0; c < obj->ms.nlocal; c++) e[c] = (float)energy[c];
  PetscCall(PseudoHessianName(obj->o->output_format, band, name));
  /* this run's own file: an earlier run's was refused at the start (QcCreate) */
  PetscCall(ObjectiveWriteModel(obj, name, "illumination", "illumination", NULL, e, PETSC_TRUE));
  PetscCall(PetscFree(e));
  PetscFunctionReturn(0);
}
