#include "replay.h"
#include "runrecord.h"
#include "output.h"
#include "rsf.h"
#include "util.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LOG_NAME    "restart/evaluations.txt"

static void EntryName(PetscInt band, PetscInt eval, const char *what, char name[PETSC_MAX_PATH_LEN])
{
  snprintf(name, PETSC_MAX_PATH_LEN, "restart/band%02d_eval%04d_%s.rsf", (int)band + 1, (int)eval, what);
}

static PetscErrorCode AddEntry(Replay *r, ReplayEntry e)
{
  PetscFunctionBeginUser;
  PetscCall(ArrayReserve(sizeof(ReplayEntry), r->nentries, &r->maxentries, &r->entries));
  r->entries[r->nentries++] = e;
  PetscFunctionReturn(0);
}

/* Rank 0, -restart: the saved evaluations, one "band eval misfit seconds" line each. */
static PetscErrorCode ReadEntries(Replay *r)
{
  char           path[PETSC_MAX_PATH_LEN], *line = NULL;
  size_t         cap = 0;
  FILE          *fp;
  int            lineno = 0;
  PetscBool      bad    = PETSC_FALSE;
  PetscErrorCode ierr   = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", r->dir, LOG_NAME));
  fp = fopen(path, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-restart: %s not found: nothing to carry on in -output_dir %s", path, r->dir);
  while (!ierr && !bad && getline(&line, &cap, fp) != -1) {
    ReplayEntry e;
    int         band, eval;
    lineno++;
    bad = sscanf(line, "%d %d %lf %lf", &band, &eval, &e.J, &e.seconds) != 4 ? PETSC_TRUE : PETSC_FALSE;
    e.band = band;
    e.eval = eval;
    if (!bad) ierr = AddEntry(r, e);
  }
  free(line);
  fclose(fp);
  PetscCall(ierr);
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-restart: %s line %d: expected 'band evaluation misfit seconds'", path, lineno);
  PetscFunctionReturn(0);
}

/* Rank 0: every saved evaluation, rewritten whole. */
static PetscErrorCode WriteEntries(void *ctx)
{
  Replay *r = (Replay *)ctx;
  Text    t;

  PetscFunctionBeginUser;
  PetscCall(TextOpen(&t));
  for (PetscInt k = 0; k < r->nentries; k++)
    fprintf(t.fp, "%d %d %.17g %.17g\n", (int)r->entries[k].band, (int)r->entries[k].eval, r->entries[k].J, r->entries[k].seconds);
  PetscCall(TextWrite(&t, r->dir, LOG_NAME));
  PetscFunctionReturn(0);
}

/* Rank 0, a fresh run: the restart folder, the record of the options and an empty list of evaluations. */
static PetscErrorCode StartState(Replay *r)
{
  char folder[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(folder, sizeof(folder), "%s/restart", r->dir));
  PetscCheck(!mkdir(folder, 0777) || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create %s for the restart state: %s", folder, strerror(errno));
  PetscCall(RunRecordWrite(r->obj, r->dir));
  PetscCall(WriteEntries(r));
  PetscFunctionReturn(0);
}

/* Rank 0: the fresh record, or -restart's check and saved evaluations. */
static PetscErrorCode BeginState(void *ctx)
{
  Replay *r = (Replay *)ctx;

  PetscFunctionBeginUser;
  if (!r->restart) PetscCall(StartState(r));
  else {
    PetscCall(ReadEntries(r));
    PetscCall(RunRecordCheck(r->obj, r->dir));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ReplayCreate(MPI_Comm world, Objective *obj, const char *dir, PetscBool restart, Replay *r)
{
  PetscMPIInt rank;
  PetscInt    n;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->world   = world;
  r->obj     = obj;
  r->restart = restart;
  PetscCall(PetscStrncpy(r->dir, dir, sizeof(r->dir)));
  PetscCallMPI(MPI_Comm_rank(world, &rank));
  PetscCall(RootRun(world, BeginState, r));
  n = r->nentries;
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT, 0, world));
  r->maxentries = PetscMax(r->maxentries, n);
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
  const PetscInt    n = r->obj->ms.nlocal;
  const ReplayEntry e = {band, eval, J, seconds};
  char              name[PETSC_MAX_PATH_LEN];
  float            *buf;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + 1, &buf));
  for (PetscInt c = 0; c < n; c++) buf[c] = (float)grad[c];
  EntryName(band, eval, "model", name);
  PetscCall(ObjectiveWriteModel(r->obj, name, NULL, vp, PETSC_TRUE));
  EntryName(band, eval, "gradient", name);
  PetscCall(ObjectiveWriteModel(r->obj, name, NULL, buf, PETSC_TRUE));
  PetscCall(PetscFree(buf));
  /* the list last: an evaluation counts once both files are complete */
  PetscCall(AddEntry(r, e));
  PetscCall(RootRun(r->world, WriteEntries, r));
  PetscFunctionReturn(0);
}

