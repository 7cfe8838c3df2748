#include "replay.h"
#include "rsf.h"
#include "util.h"
#include <sys/stat.h>
#include <unistd.h>

#define LOG_NAME "restart/evaluations.txt"

static void EntryName(PetscInt band, PetscInt eval, const char *what, char name[PETSC_MAX_PATH_LEN])
{
  snprintf(name, PETSC_MAX_PATH_LEN, "restart/band%02d_eval%04d_%s.rsf", (int)band + 1, (int)eval, what);
}

PetscErrorCode ReplayCreate(MPI_Comm world, Objective *obj, const char *dir, PetscBool restart, Replay *r)
{
  char        path[PETSC_MAX_PATH_LEN], msg[FWI_MSG_LEN] = "";
  PetscMPIInt rank;
  PetscInt    n = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->world = world;
  r->obj   = obj;
  PetscCall(PetscStrncpy(r->dir, dir, sizeof(r->dir)));
  PetscCallMPI(MPI_Comm_rank(world, &rank));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, LOG_NAME));
  if (!rank) {
    char folder[PETSC_MAX_PATH_LEN];
    snprintf(folder, sizeof(folder), "%s/restart", dir);
    if (mkdir(folder, 0777) && access(folder, W_OK)) snprintf(msg, sizeof(msg), "cannot create %s for the restart state", folder);
    if (!msg[0] && restart) {
      FILE       *fp = fopen(path, "r");
      ReplayEntry e;
      int         band, eval;
      if (!fp) snprintf(msg, sizeof(msg), "-restart: %s not found: nothing to carry on in -output_dir %s", path, dir);
      while (fp && fscanf(fp, "%d %d %lf %lf", &band, &eval, &e.J, &e.seconds) == 4) {
        if (n % 64 == 0) PetscCall(PetscRealloc(sizeof(ReplayEntry) * (n + 64), &r->entries));
        e.band          = band;
        e.eval          = eval;
        r->entries[n++] = e;
      }
      if (fp) fclose(fp);
    }
    if (!msg[0] && !restart) {
      FILE *fp = fopen(path, "w");
      if (!fp || fclose(fp)) snprintf(msg, sizeof(msg), "cannot write %s", path);
    }
  }
  PetscCall(RootCheck(world, msg));
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT, 0, world));
  if (rank) PetscCall(PetscMalloc1(n + 1, &r->entries));
  r->nentries = n;
  if (n) PetscCallMPI(MPI_Bcast(r->entries, (PetscMPIInt)(n * sizeof(ReplayEntry)), MPI_BYTE, 0, world));
  if (restart) PetscCall(PetscPrintf(world, "restart: %" PetscInt_FMT " saved evaluations in %s/restart are replayed before new work\n", n, dir));
  PetscFunctionReturn(0);
}

PetscErrorCode ReplayDestroy(Replay *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(r->entries));
  PetscCall(PetscFree(r->rows));
  PetscFunctionReturn(0);
}

/* This rank's user cells of a saved model-sized file. */
static PetscErrorCode ReadUser(Replay *r, const char *name, float *buf)
{
  char      path[PETSC_MAX_PATH_LEN];
  RsfHeader h;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", r->dir, name));
  PetscCall(RsfReadHeader(r->world, path, &h));
  PetscCall(RsfReadBlock(r->world, &h, r->obj->ms.lo, r->obj->ms.n, buf));
  PetscFunctionReturn(0);
}

PetscErrorCode ReplayLookup(Replay *r, PetscInt band, PetscInt eval, const float *vp, PetscBool *cached, double *J, double *grad, double *seconds)
{
  const PetscInt n = r->obj->ms.nlocal;
  char           name[PETSC_MAX_PATH_LEN];
  float         *buf;
  PetscInt       k, same, all;
  PetscBool      equal;

  PetscFunctionBeginUser;
  for (k = 0; k < r->nentries; k++)
    if (r->entries[k].band == band && r->entries[k].eval == eval) break;
  *cached = k < r->nentries ? PETSC_TRUE : PETSC_FALSE;
  if (!*cached) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n + 1, &buf));
  EntryName(band, eval, "model", name);
  PetscCall(ReadUser(r, name, buf));
  PetscCall(PetscMemcmp(buf, vp, sizeof(float) * n, &equal));
  same = equal ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&same, &all, 1, MPIU_INT, MPI_MIN, r->world));
  PetscCheck(all, r->world, PETSC_ERR_USER_INPUT,
             "-restart: evaluation %" PetscInt_FMT " of band %" PetscInt_FMT " asks for a model other than the saved one (%s/%s): the options differ from the interrupted run's",
             eval, band + 1, r->dir, name);
  EntryName(band, eval, "gradient", name);
  PetscCall(ReadUser(r, name, buf));
  for (PetscInt c = 0; c < n; c++) grad[c] = buf[c];
  *J       = r->entries[k].J;
  *seconds = r->entries[k].seconds;
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

PetscErrorCode ReplaySave(Replay *r, PetscInt band, PetscInt eval, const float *vp, double J, const double *grad, double seconds)
{
  const PetscInt n = r->obj->ms.nlocal;
  char           name[PETSC_MAX_PATH_LEN];
  float         *buf;
  PetscMPIInt    rank;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + 1, &buf));
  for (PetscInt c = 0; c < n; c++) buf[c] = (float)grad[c];
  EntryName(band, eval, "model", name);
  PetscCall(ObjectiveWriteModel(r->obj, name, vp, PETSC_TRUE));
  EntryName(band, eval, "gradient", name);
  PetscCall(ObjectiveWriteModel(r->obj, name, buf, PETSC_TRUE));
  PetscCall(PetscFree(buf));
  /* the line last: an evaluation counts once both files are complete */
  PetscCallMPI(MPI_Comm_rank(r->world, &rank));
  if (!rank) {
    char  path[PETSC_MAX_PATH_LEN];
    FILE *fp;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", r->dir, LOG_NAME));
    fp = fopen(path, "a");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot append to %s", path);
    fprintf(fp, "%d %d %.17g %.17g\n", (int)band, (int)eval, J, seconds);
    PetscCheck(!fflush(fp) && !fsync(fileno(fp)) && !fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s", path);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ReplayLogIteration(Replay *r, const char *dir, PetscInt band, PetscInt iteration, double J, double gnorm, double step, double seconds)
{
  PetscMPIInt rank;
  MisfitRow   row = {{J, gnorm, step, seconds}, band, iteration};

  PetscFunctionBeginUser;
  if (r->nrows == r->maxrows) {
    r->maxrows = 2 * r->maxrows + 16;
    PetscCall(PetscRealloc(sizeof(MisfitRow) * r->maxrows, &r->rows));
  }
  r->rows[r->nrows++] = row;
  PetscCallMPI(MPI_Comm_rank(r->world, &rank));
  if (!rank) {
    char  path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN];
    FILE *fp;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/misfit.csv", dir));
    PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s/.misfit.csv.tmp", dir));
    fp = fopen(tmp, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", tmp);
    fprintf(fp, "band,iteration,misfit,gradient_norm,step,seconds\n");
    for (PetscInt k = 0; k < r->nrows; k++)
      fprintf(fp, "%d,%d,%.9e,%.9e,%.9e,%.3f\n", (int)r->rows[k].band, (int)r->rows[k].iteration, r->rows[k].values[0], r->rows[k].values[1], r->rows[k].values[2],
              r->rows[k].values[3]);
    PetscCheck(!fclose(fp) && !rename(tmp, path), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s", path);
  }
  PetscFunctionReturn(0);
}
