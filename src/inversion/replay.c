#include "inversion/replay.h"
#include "inversion/runrecord.h"
#include "setup/output.h"
#include "data/rsf.h"
#include "data/util.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LOG_NAME    "restart/evaluations.txt"

/* The file of block k (the first: no suffix; then _NAME) of an evaluation's model or gradient. */
static void EntryName(const Replay *r, PetscInt band, PetscInt eval, const char *what, PetscInt k, char name[PETSC_MAX_PATH_LEN])
{
  snprintf(name, PETSC_MAX_PATH_LEN, "restart/band%02d_eval%04d_%s%s%s.rsf", (int)band + 1, (int)eval, what, k ? "_" : "", k ? r->obj->e.backend.eq->parameter[k].name : "");
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
    ReplayEntry        e;
    int                band, eval;
    unsigned long long model, gradient;
    lineno++;
    bad = sscanf(line, "%d %d %lf %lf %llx %llx", &band, &eval, &e.J, &e.seconds, &model, &gradient) != 6 ? PETSC_TRUE : PETSC_FALSE;
    e.sum[0] = model;
    e.sum[1] = gradient;
    e.band = band;
    e.eval = eval;
    if (!bad) ierr = AddEntry(r, e);
  }
  free(line);
  fclose(fp);
  PetscCall(ierr);
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-restart: %s line %d: expected 'band evaluation misfit seconds model-checksum gradient-checksum'", path,
             lineno);
  /* a start that failed before its first evaluation: the output folder's checks remove such a state */
  PetscCheck(r->nentries, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-restart: %s lists no evaluation: nothing to carry on in -output_dir %s; run without -restart", path, r->dir);
  PetscFunctionReturn(0);
}

/* Rank 0: the checksum of an evaluation's model (what 0) or gradient (1):
   the first block's file's, carried on over the other blocks' checksums. */
static PetscErrorCode EntrySum(const Replay *r, PetscInt band, PetscInt eval, int what, uint64_t *sum)
{
  char name[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < r->nblock; k++) {
    uint64_t s;
    EntryName(r, band, eval, what ? "gradient" : "model", k, name);
    snprintf(path, PETSC_MAX_PATH_LEN, "%s/%s@", r->dir, name);
    PetscCall(FileChecksum(path, &s));
    *sum = k ? Fnv1a(*sum, &s, sizeof(s)) : s;
  }
  PetscFunctionReturn(0);
}

/* Rank 0: the checksums of the newest entry's files, then every saved
   evaluation, rewritten whole. */
static PetscErrorCode WriteEntries(void *ctx)
{
  Replay      *r = (Replay *)ctx;
  ReplayEntry *e = r->entries + r->nentries - 1;
  Text         t;

  PetscFunctionBeginUser;
  for (int what = 0; what < 2 && r->nentries; what++) PetscCall(EntrySum(r, e->band, e->eval, what, &e->sum[what]));
  PetscCall(TextOpen(&t));
  for (PetscInt k = 0; k < r->nentries; k++)
    fprintf(t.fp, "%d %d %.17g %.17g %016llx %016llx\n", (int)r->entries[k].band, (int)r->entries[k].eval, r->entries[k].J, r->entries[k].seconds,
            (unsigned long long)r->entries[k].sum[0], (unsigned long long)r->entries[k].sum[1]);
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

PetscErrorCode ReplayCreate(MPI_Comm world, Objective *obj, const char *dir, PetscBool restart, PetscInt nblock, Replay *r)
{
  PetscMPIInt rank;
  PetscInt    n;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->world   = world;
  r->obj     = obj;
  r->restart = restart;
  r->nblock  = nblock;
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
  PetscCall(PetscPrintf(r->world, "evaluations: %" PetscInt_FMT " replayed from %s/restart, %" PetscInt_FMT " computed\n", r->nreplayed, r->dir, r->ncomputed));
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

typedef struct {
  Replay           *r;
  const ReplayEntry *e;
} EntryJob;

/* Rank 0: the saved files of an entry against their listed checksums. */
static PetscErrorCode CheckSums(void *ctx)
{
  const EntryJob *j = (const EntryJob *)ctx;
  char            name[PETSC_MAX_PATH_LEN];
  uint64_t        sum;

  PetscFunctionBeginUser;
  for (int what = 0; what < 2; what++) {
    PetscCall(EntrySum(j->r, j->e->band, j->e->eval, what, &sum));
    EntryName(j->r, j->e->band, j->e->eval, what ? "gradient" : "model", 0, name);
    PetscCheck(sum == j->e->sum[what], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "-restart: %s/%s@%s is damaged: its checksum fnv1a64 %016llx is not the %016llx listed for it in %s/%s. Restore the file, or start again with -overwrite", j->r->dir,
               name, j->r->nblock > 1 ? " (or its other parameters' files)" : "", (unsigned long long)sum, (unsigned long long)j->e->sum[what], j->r->dir, LOG_NAME);
  }
  PetscFunctionReturn(0);
}

/* Rank 0: a replay asked for another model than the saved one; the cause. */
static PetscErrorCode ExplainMismatch(void *ctx)
{
  const EntryJob *j = (const EntryJob *)ctx;
  char            name[PETSC_MAX_PATH_LEN], cause[FWI_MSG_LEN] = "";

  PetscFunctionBeginUser;
  EntryName(j->r, j->e->band, j->e->eval, "model", 0, name);
  PetscCall(RunRecordReplayCause(j->r->obj, j->r->dir, cause));
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-restart: evaluation %" PetscInt_FMT " of band %" PetscInt_FMT " asks for a model other than the saved one (%s/%s): %s",
          j->e->eval, j->e->band + 1, j->r->dir, name, cause);
}

PetscErrorCode ReplayLookup(Replay *r, PetscInt band, PetscInt eval, const float *model, PetscBool *cached, double *J, double *grad, double *seconds)
{
  const PetscInt n = r->obj->ms.nlocal;
  char           name[PETSC_MAX_PATH_LEN];
  float         *buf;
  PetscInt       k, same = 1, all;
  PetscBool      equal;
  EntryJob       job;

  PetscFunctionBeginUser;
  for (k = 0; k < r->nentries; k++)
    if (r->entries[k].band == band && r->entries[k].eval == eval) break;
  *cached = k < r->nentries ? PETSC_TRUE : PETSC_FALSE;
  if (!*cached) PetscFunctionReturn(0);
  job = (EntryJob){r, r->entries + k};
  PetscCall(RootRun(r->world, CheckSums, &job));
  PetscCall(PetscMalloc1(n + 1, &buf));
  for (PetscInt b = 0; b < r->nblock; b++) {
    EntryName(r, band, eval, "model", b, name);
    PetscCall(ReadUser(r, name, buf));
    PetscCall(PetscMemcmp(buf, model + b * n, sizeof(float) * n, &equal));
    same = same && equal;
  }
  PetscCallMPI(MPI_Allreduce(&same, &all, 1, MPIU_INT, MPI_MIN, r->world));
  if (!all) PetscCall(RootRun(r->world, ExplainMismatch, &job));
  for (PetscInt b = 0; b < r->nblock; b++) {
    EntryName(r, band, eval, "gradient", b, name);
    PetscCall(ReadUser(r, name, buf));
    for (PetscInt c = 0; c < n; c++) grad[b * n + c] = buf[c];
  }
  *J       = r->entries[k].J;
  *seconds = r->entries[k].seconds;
  r->nreplayed++;
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

PetscErrorCode ReplaySave(Replay *r, PetscInt band, PetscInt eval, const float *model, double J, const double *grad, double seconds)
{
  const PetscInt    n = r->obj->ms.nlocal;
  const ReplayEntry e = {band, eval, J, seconds, {0, 0}};
  char              name[PETSC_MAX_PATH_LEN];
  float            *buf;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + 1, &buf));
  for (PetscInt b = 0; b < r->nblock; b++) {
    for (PetscInt c = 0; c < n; c++) buf[c] = (float)grad[b * n + c];
    EntryName(r, band, eval, "model", b, name);
    PetscCall(ObjectiveWriteModel(r->obj, name, NULL, NULL, NULL, model + b * n, PETSC_TRUE));
    EntryName(r, band, eval, "gradient", b, name);
    PetscCall(ObjectiveWriteModel(r->obj, name, NULL, NULL, NULL, buf, PETSC_TRUE));
  }
  PetscCall(PetscFree(buf));
  /* the list last: an evaluation counts once every file is complete */
  PetscCall(AddEntry(r, e));
  PetscCall(RootRun(r->world, WriteEntries, r));
  r->ncomputed++;
  PetscFunctionReturn(0);
}
