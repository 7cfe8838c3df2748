#include "inversion/qc.h"
#include "shot/gather.h"
#include "setup/output.h"
#include "inversion/pseudohessian.h"
#include "data/rsf.h"
#include "data/util.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const qc_parts[] = {"observed", "modelled", "residual"};

/* dir/qc/band_B_shot_NNNN_PART.rsf, B from 1, of the misfit's first
   component; dir/qc/band_B_shot_NNNN_PART_NAME.rsf of its component j > 0
   (Experiment.component). */
static PetscErrorCode QcPath(const Objective *obj, PetscInt band, PetscInt shot, const char *part, PetscInt j, char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/qc/band_%" PetscInt_FMT "_shot_%04" PetscInt_FMT "_%s%s%s.rsf", obj->o->output_dir, band + 1, shot, part, j ? "_" : "",
                          j ? ExperimentComponentName(&obj->e, j) : ""));
  PetscFunctionReturn(0);
}

/* dir/qc/coords_NNNN.rsf: shot s's positions, as beside a forward run's gather. */
static PetscErrorCode CoordsPath(const char *dir, PetscInt shot, char path[PETSC_MAX_PATH_LEN])
{
  char qc[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(qc, sizeof qc, "%s/qc", dir));
  PetscCall(OutputCoordsPath(qc, shot, path));
  PetscFunctionReturn(0);
}

/* The same list on every rank, so the same decision everywhere. */
static PetscErrorCode ParseShots(const Objective *obj, Qc *qc)
{
  const Options *o      = obj->o;
  const PetscInt nshots = obj->e.geo.nshots;
  char           copy[PETSC_MAX_PATH_LEN], *word, *rest;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(nshots, &qc->chosen));
  PetscCall(PetscStrncpy(copy, strcmp(o->qc_shots, "none") ? o->qc_shots : "", sizeof copy));
  for (word = strtok_r(copy, ",", &rest); word; word = strtok_r(NULL, ",", &rest)) {
    char *end;
    long  v;
    errno = 0;
    v     = strtol(word, &end, 10);
    PetscCheck(end != word && !*end && errno != ERANGE && v >= 0 && v < nshots, obj->e.l.world, PETSC_ERR_ARG_OUTOFRANGE,
               "-qc_shots %s: '%s' is not a shot of the survey; expected shot numbers from 0 to %" PetscInt_FMT ", comma separated", o->qc_shots, word, nshots - 1);
    qc->nchosen += !qc->chosen[v];
    qc->chosen[v] = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* The results' rule (output.h): an earlier run's file is not replaced. */
static PetscErrorCode RefuseExisting(const char *path)
{
  PetscFunctionBeginUser;
  PetscCheck(access(path, F_OK), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s exists: refusing to overwrite results (pass -overwrite to replace them, or choose another -output_dir)",
             path);
  PetscFunctionReturn(0);
}

/* Rank 0: -output_dir/qc, and an earlier run's QC files that this run
   would write refused, unless -overwrite or -restart. */
static PetscErrorCode PrepareFolder(void *ctx)
{
  const Objective *obj    = ((const void **)ctx)[0];
  const Qc        *qc     = ((const void **)ctx)[1];
  const Options   *o      = obj->o;
  const PetscInt   nbands = PetscMax(o->nbands, 1);
  char             path[PETSC_MAX_PATH_LEN], name[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof path, "%s/qc", o->output_dir));
  PetscCheck(!qc->nchosen || !mkdir(path, 0777) || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-qc_shots: cannot create %s: %s", path, strerror(errno));
  if (o->overwrite || o->restart) PetscFunctionReturn(0);
  for (PetscInt s = 0; s < obj->e.geo.nshots; s++) {
    if (!qc->chosen[s]) continue;
    PetscCall(CoordsPath(o->output_dir, s, path));
    PetscCall(RefuseExisting(path));
  }
  for (PetscInt b = 0; b < nbands; b++) {
    for (PetscInt s = 0; s < obj->e.geo.nshots; s++)
      for (PetscInt p = 0; p < 3 && qc->chosen[s]; p++)
        for (PetscInt j = 0; j < obj->e.ncomponent; j++) {
          PetscCall(QcPath(obj, b, s, qc_parts[p], j, path));
          PetscCall(RefuseExisting(path));
        }
    if (!o->qc_illumination) continue;
    PetscCall(PseudoHessianName(o->output_format, b, name));
    PetscCall(PetscSNPrintf(path, sizeof path, "%s/%s", o->output_dir, name));
    PetscCall(RefuseExisting(path));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode QcCreate(const Objective *obj, Qc *qc)
{
  const void *ctx[2] = {obj, qc};

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(qc, sizeof(*qc)));
  PetscCall(ParseShots(obj, qc));
  PetscCall(RootRun(obj->e.l.world, PrepareFolder, (void *)ctx));
  PetscFunctionReturn(0);
}

PetscErrorCode QcDestroy(Qc *qc)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(qc->chosen));
  PetscFunctionReturn(0);
}

/* Group rank 0: the group's shot k's three gathers of each component the
   misfit reads (syn: the modelled ones, one after the other, which become
   the residuals) and its positions. */
static PetscErrorCode WriteShot(const Objective *obj, PetscInt band, PetscInt k, float *syn)
{
  const TimeAxis *t = &obj->e.t;
  const PetscInt  s = obj->e.shot[k], nrec = obj->e.geo.rec_start[s + 1] - obj->e.geo.rec_start[s];
  const size_t    n = (size_t)nrec * t->nt;
  RsfAxes         axes;
  char            path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  GatherAxes(t->nt, t->dt, nrec, &axes);
  for (PetscInt j = 0; j < obj->e.ncomponent; j++) {
    const float *obs = obj->obs[k] + j * n, *data[3] = {obs, syn + j * n, syn + j * n};
    for (PetscInt p = 0; p < 3; p++) {
      if (p == 2)
        for (size_t i = 0; i < n; i++) syn[j * n + i] -= obs[i];
      PetscCall(QcPath(obj, band, s, qc_parts[p], j, path));
      /* this run's own file: an earlier run's was refused at the start (QcCreate) */
      PetscCall(RsfWrite(path, &axes, data[p], PETSC_TRUE));
    }
  }
  PetscCall(CoordsPath(obj->o->output_dir, s, path));
  PetscCall(GeometryWriteCoords(&obj->e.geo, s, path, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode QcWriteBand(Objective *obj, const Qc *qc, const float *vp, PetscInt band)
{
  PetscFunctionBeginUser;
  if (!qc->nchosen) PetscFunctionReturn(0);
  PetscCall(ObjectiveSetModel(obj, vp));
  for (PetscInt k = 0; k < obj->e.nshots; k++) {
    float *syn;
    if (!qc->chosen[obj->e.shot[k]]) continue;
    PetscCall(ObjectiveModelShot(obj, k, obj->e.ncomponent, &syn));
    if (!obj->e.l.group_rank) PetscCall(WriteShot(obj, band, k, syn));
    PetscCall(PetscFree(syn));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode QcIllumination(Objective *obj, const float *vp, PetscInt band)
{
  double *energy;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(obj->ms.nlocal + 1, &energy));
  PetscCall(PseudoHessian(obj, vp, energy));
  PetscCall(PseudoHessianWrite(obj, energy, band));
  PetscCall(PetscFree(energy));
  PetscFunctionReturn(0);
}
