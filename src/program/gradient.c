#include "program/gradient.h"
#include "data/events.h"
#include "inversion/objective.h"
#include "setup/output.h"
#include "program/stop.h"
#include "data/timing.h"

/* The gradient with respect to parameter k, on group 0's user cells, as
   gradient.rsf (the first parameter) or gradient_NAME.rsf (the others). */
static PetscErrorCode WriteGradient(Objective *obj, PetscInt k, const double *grad, float *out)
{
  const Options           *o     = obj->o;
  const EquationParameter *param = &obj->e.backend.eq->parameter[k];
  char                     base[64], name[PETSC_MAX_PATH_LEN], label[64], unit[64];

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < obj->ms.nlocal; c++) out[c] = (float)grad[c];
  if (k) PetscCall(PetscSNPrintf(base, sizeof(base), "gradient_%s", param->name));
  else PetscCall(PetscStrncpy(base, "gradient", sizeof(base)));
  PetscCall(PetscSNPrintf(label, sizeof(label), "dJ/d%s", param->name));
  PetscCall(PetscSNPrintf(unit, sizeof(unit), "1/(%s) per unit misfit", param->unit));
  PetscCall(OutputName(base, o->output_format, name));
  PetscCall(ObjectiveWriteModel(obj, name, base, label, unit, out, o->overwrite));
  PetscFunctionReturn(0);
}

/* Writes gradient.rsf or .sgy (dJ/dv in s/m per unit misfit, the user's
   grid), and for an equation of more parameters gradient_NAME beside it
   (dJ/drho in m^3/kg), and prints the misfit. */
PetscErrorCode RunGradient(MPI_Comm world, const Options *o)
{
  Objective      obj;
  double         J, *grad, *rest[EQUATION_MAX_PARAMETERS];
  float         *out;
  PetscInt       np;
  PetscLogDouble t0, t1;
  char           name[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  /* one sum over every shot: no part of it is worth keeping, so a signal stops the run at once */
  PetscCall(StopWatch(world, o->output_dir, PETSC_FALSE, "an unfinished gradient is not written (gradient.rsf comes whole, once every shot is in); rerun to compute it"));
  PetscCall(OutputPrepareKind(world, o, OUTPUT_GRADIENT, 0));
  PetscCall(ObjectiveCreate(world, o, &obj));
  np = obj.e.ngradient; /* -invert_for's, or every parameter */
  PetscCall(PetscMalloc2(obj.ms.nlocal + 1, &grad, obj.ms.nlocal + 1, &out));
  for (PetscInt k = 1; k < obj.e.backend.eq->nparameter; k++) rest[k - 1] = NULL;
  for (PetscInt k = 1; k < np; k++) PetscCall(PetscMalloc1(obj.ms.nlocal + 1, &rest[k - 1]));
  obj.grad_rest = np > 1 ? rest : NULL;
  PetscCall(PetscTime(&t0));
  PetscCall(ObjectiveEvaluate(&obj, obj.vp_start, &J, grad));
  PetscCall(PetscTime(&t1));
  PetscCall(WriteGradient(&obj, 0, grad, out));
  for (PetscInt k = 1; k < np; k++) PetscCall(WriteGradient(&obj, k, rest[k - 1], out));
  PetscCall(OutputName("gradient", o->output_format, name));
  PetscCall(PetscPrintf(world, "misfit %.17g\n", J));
  if (EventsDetail()) {
    PetscCall(WavefieldStoreLiveReport(world, obj.store));
    PetscCall(PropagatorQuietReport(world, &obj.e.p));
  }
  PetscCall(PetscPrintf(world, "gradient: %.3f s, %.4f G cell-updates/s (forward + adjoint) -> %s/%s\n", t1 - t0,
                        obj.e.cells * obj.e.t.nsteps * 2 * obj.e.geo.nshots / (t1 - t0) * 1e-9, o->output_dir, name));
  PetscCall(PetscFree2(grad, out));
  for (PetscInt k = 1; k < np; k++) PetscCall(PetscFree(rest[k - 1]));
  obj.grad_rest = NULL;
  PetscCall(ObjectiveDestroy(&obj));
  PetscCall(TimingReport(world, "", &(TimeMark){0}));
  PetscFunctionReturn(0);
}
