#include "output.h"
#include "util.h"
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The results of each kind, by name: '#' stands for one or more digits, and
   an RSF header's binary (name@) goes with it.  restart_names live in
   -output_dir/restart. */
static const char *const shot_names[]      = {"shot_#.rsf", "shot_#.sgy", "snapshot_#_#.rsf", "snapshot_#_#.vti", NULL};
static const char *const snapshot_names[]  = {"snapshot_#_#.rsf", "snapshot_#_#.vti", NULL};
static const char *const gradient_names[]  = {"gradient.rsf", "gradient.sgy", "gradient.vti", NULL};
static const char *const inversion_names[] = {"misfit.csv", "vp.rsf", "vp.sgy", "vp_#.rsf", "vp_#.sgy", "vp.vti", "vp_#.vti", "wavelet_#.rsf", NULL};
static const char *const restart_names[]   = {"run.txt", "evaluations.txt", "band#_eval#_model.rsf", "band#_eval#_gradient.rsf", NULL};
static const char *const finished_names[]  = {"vp.rsf", "vp.sgy", NULL};
/* file name endings, by FileFormat */
static const char *const format_ext[] = {"rsf", "sgy"};

PetscErrorCode OutputShotPath(const char *dir, PetscInt shot, FileFormat format, char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/shot_%04" PetscInt_FMT ".%s", dir, shot, format_ext[format]));
  PetscFunctionReturn(0);
}

PetscErrorCode OutputName(const char *stem, FileFormat format, char name[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(name, PETSC_MAX_PATH_LEN, "%s.%s", stem, format_ext[format]));
  PetscFunctionReturn(0);
}

/* name is pat ('#': digits), or its binary pat@. */
static PetscBool Match(const char *pat, const char *name)
{
  for (; *pat; pat++) {
    if (*pat == '#') {
      const size_t k = strspn(name, "0123456789");
      if (!k) return PETSC_FALSE;
      name += k;
    } else if (*name++ != *pat) return PETSC_FALSE;
  }
  return !name[0] || !strcmp(name, "@") ? PETSC_TRUE : PETSC_FALSE;
}

static PetscBool MatchAny(const char *const names[], const char *name)
{
  for (int k = 0; names[k]; k++)
    if (Match(names[k], name)) return PETSC_TRUE;
  return PETSC_FALSE;
}

static PetscBool IsBinary(const char *name)
{
  const size_t len = strlen(name);
  return len && name[len - 1] == '@' ? PETSC_TRUE : PETSC_FALSE;
}

/* mkdir -p */
static PetscErrorCode MakeFolders(const char *dir)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCheck(dir[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-output_dir is empty: expected a folder");
  PetscCall(PetscStrncpy(path, dir, sizeof(path)));
  for (char *p = path + 1;; p++) {
    const char c = *p;
    if (c != '/' && c != 0) continue;
    *p = 0;
    PetscCheck(!mkdir(path, 0777) || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-output_dir %s: cannot create %s: %s", dir, path, strerror(errno));
    *p = c;
    if (!c) break;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckWritable(const char *dir)
{
  char        probe[PETSC_MAX_PATH_LEN];
  struct stat st;
  FILE       *fp;

  PetscFunctionBeginUser;
  PetscCheck(!stat(dir, &st) && S_ISDIR(st.st_mode), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-output_dir %s is not a folder", dir);
  PetscCall(PetscSNPrintf(probe, sizeof(probe), "%s/.halofwi-write-test.%d", dir, (int)getpid()));
  fp = fopen(probe, "w");
  PetscCheck(fp && !fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-output_dir %s is not writable: %s", dir, strerror(errno));
  unlink(probe);
  PetscFunctionReturn(0);
}

/* Removes the temporaries in folder (when it exists) of processes of this
   host that no longer run, printing each; those of running processes and of
   other hosts are left, with a note. */
static PetscErrorCode RemoveStaleTemporaries(const char *folder)
{
  DIR           *dp = opendir(folder);
  struct dirent *e;
  char           me[256], host[256], path[PETSC_MAX_PATH_LEN], example[256] = "";
  int            pid, nother = 0;

  PetscFunctionBeginUser;
  if (!dp) PetscFunctionReturn(0);
  PetscCall(FileHostName(me));
  while ((e = readdir(dp))) {
    if (!FileTempParse(e->d_name, host, &pid)) continue;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", folder, e->d_name));
    if (strcmp(host, me)) {
      if (!nother++) PetscCall(PetscStrncpy(example, e->d_name, sizeof(example)));
    } else if (pid != (int)getpid() && (!kill(pid, 0) || errno != ESRCH)) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "note: %s is being written by process %d of this host (another run in this folder?); left alone\n", path, pid));
    } else {
      PetscCheck(!remove(path), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot remove the stale temporary %s: %s", path, strerror(errno));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "removed %s: a temporary of process %d of this host, which no longer runs\n", path, pid));
    }
  }
  closedir(dp);
  if (nother)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "note: %d temporary file(s) of other hosts left in %s (such as %s): remove them once no run there writes to this folder\n",
                          nother, folder, example));
  PetscFunctionReturn(0);
}

/* Adds " name" to list, or " ..." once it is full. */
static void ListName(char list[FWI_MSG_LEN], const char *name)
{
  const size_t len = strlen(list), add = strlen(name) + 1;

  if (len + add + 5 < FWI_MSG_LEN) snprintf(list + len, FWI_MSG_LEN - len, " %s", name);
  else if (len < 4 || strcmp(list + len - 4, " ...")) snprintf(list + len, FWI_MSG_LEN - len, " ...");
}

/* The names in folder, sorted (none when it does not exist); FreeNames frees them. */
static int ListFolder(const char *folder, struct dirent ***names)
{
  const int n = scandir(folder, names, NULL, alphasort);
  return n < 0 ? 0 : n;
}

static void FreeNames(struct dirent **names, int n)
{
  for (int k = 0; k < n; k++) free(names[k]);
  if (n) free(names);
}

static PetscErrorCode RemoveOne(const char *folder, const char *name)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", folder, name));
  PetscCheck(!remove(path), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "-overwrite: cannot remove %s: %s", path, strerror(errno));
  PetscFunctionReturn(0);
}

/* -overwrite: removes the results names[] in folder, headers before their
   binaries (a header never points at a missing binary), and prints how many
   (and which, with list). */
static PetscErrorCode RemoveResults(const char *folder, const char *const names[], PetscBool list)
{
  char           removed[FWI_MSG_LEN] = "";
  int            count = 0, n;
  struct dirent **entries;
  PetscErrorCode ierr = 0;

  PetscFunctionBeginUser;
  n = ListFolder(folder, &entries);
  for (int pass = 0; pass < 2 && !ierr; pass++)
    for (int k = 0; k < n && !ierr; k++) {
      const char *name = entries[k]->d_name;
      if (IsBinary(name) != (pass ? PETSC_TRUE : PETSC_FALSE) || !MatchAny(names, name)) continue;
      ierr = RemoveOne(folder, name);
      count++;
      if (!pass) ListName(removed, name);
    }
  FreeNames(entries, n);
  PetscCall(ierr);
  if (count)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "-overwrite: removed %d files of earlier results in %s%s%s\n", count, folder, list ? ":" : "", list ? removed : ""));
  PetscFunctionReturn(0);
}

/* The first existing result (a header, not a binary) of names[], in their
   order, in folder; found[0] = 0 when there is none. */
static PetscErrorCode FindResult(const char *folder, const char *const names[], char found[PETSC_MAX_PATH_LEN])
{
  struct dirent **entries;
  const int       n = ListFolder(folder, &entries);
  PetscErrorCode  ierr = 0;

  PetscFunctionBeginUser;
  found[0] = 0;
  for (int p = 0; names[p] && !found[0] && !ierr; p++)
    for (int k = 0; k < n && !found[0] && !ierr; k++)
      if (!IsBinary(entries[k]->d_name) && Match(names[p], entries[k]->d_name)) ierr = PetscSNPrintf(found, PETSC_MAX_PATH_LEN, "%s/%s", folder, entries[k]->d_name);
  FreeNames(entries, n);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode RefuseResult(const char *folder, const char *const names[])
{
  char found[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(FindResult(folder, names, found));
  PetscCheck(!found[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s exists: refusing to overwrite results (pass -overwrite to replace them, or choose another -output_dir)", found);
  PetscFunctionReturn(0);
}

/* Without -overwrite: nothing that the run would write may exist. */
static PetscErrorCode RefuseExisting(const char *dir, const char *restart_dir, OutputKind kind, PetscInt nshots, PetscBool restart)
{
  char found[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  switch (kind) {
  case OUTPUT_SHOTS:
    for (PetscInt s = 0; s < nshots; s++) {
      for (int f = FORMAT_RSF; f <= FORMAT_SEGY; f++) {
        PetscCall(OutputShotPath(dir, s, (FileFormat)f, found));
        PetscCheck(access(found, F_OK), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                   "%s exists: refusing to overwrite results (pass -overwrite to replace them, or choose another -output_dir)", found);
      }
    }
    PetscCall(RefuseResult(dir, snapshot_names));
    break;
  case OUTPUT_GRADIENT:
    PetscCall(RefuseResult(dir, gradient_names));
    break;
  case OUTPUT_INVERSION:
    if (restart) { /* the interrupted run's own files are rewritten; a finished run's vp.rsf is not */
      PetscCall(FindResult(dir, finished_names, found));
      PetscCheck(!found[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-restart: %s exists: the inversion in %s has finished; pass -overwrite to run it again and replace its results",
                 found, dir);
      break;
    }
    PetscCall(RefuseResult(dir, inversion_names));
    PetscCall(FindResult(restart_dir, restart_names, found));
    PetscCheck(!found[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s holds the state of an interrupted inversion: pass -restart to carry on with it, -overwrite to start again, or choose another -output_dir", restart_dir);
    break;
  }
  PetscFunctionReturn(0);
}

typedef struct {
  const char *dir;
  OutputKind  kind;
  PetscInt    nshots;
  PetscBool   overwrite, restart;
} Preparation;

/* Rank 0's part of OutputPrepareKind. */
static PetscErrorCode PrepareFolder(void *ctx)
{
  const Preparation *w    = (const Preparation *)ctx;
  const char        *dir  = w->dir;
  const OutputKind   kind = w->kind;
  const PetscBool    overwrite = w->overwrite, restart = w->restart;
  char               restart_dir[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(MakeFolders(dir));
  PetscCall(CheckWritable(dir));
  PetscCall(PetscSNPrintf(restart_dir, sizeof(restart_dir), "%s/restart", dir));
  PetscCall(RemoveStaleTemporaries(dir));
  PetscCall(RemoveStaleTemporaries(restart_dir));
  if (!overwrite || (kind == OUTPUT_INVERSION && restart)) {
    if (!overwrite) PetscCall(RefuseExisting(dir, restart_dir, kind, w->nshots, restart));
    PetscFunctionReturn(0);
  }
  PetscCall(RemoveResults(dir, kind == OUTPUT_SHOTS ? shot_names : kind == OUTPUT_GRADIENT ? gradient_names : inversion_names, PETSC_TRUE));
  if (kind == OUTPUT_INVERSION) PetscCall(RemoveResults(restart_dir, restart_names, PETSC_FALSE));
  PetscFunctionReturn(0);
}

PetscErrorCode OutputPrepareKind(MPI_Comm comm, const char *dir, OutputKind kind, PetscInt nshots, PetscBool overwrite, PetscBool restart)
{
  Preparation w = {dir, kind, nshots, overwrite, restart};

  PetscFunctionBeginUser;
  /* a write past a file-size limit (ulimit -f) then fails with EFBIG, which is reported, instead of ending the rank */
  signal(SIGXFSZ, SIG_IGN);
  PetscCall(RootRun(comm, PrepareFolder, &w));
  PetscFunctionReturn(0);
}

PetscErrorCode OutputPrepare(MPI_Comm comm, const char *dir, PetscInt nshots, PetscBool overwrite)
{
  PetscFunctionBeginUser;
  PetscCall(OutputPrepareKind(comm, dir, OUTPUT_SHOTS, nshots, overwrite, PETSC_FALSE));
  PetscFunctionReturn(0);
}
