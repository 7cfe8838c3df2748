#include "setup/output.h"
#include "data/rsf.h"
#include "data/util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The results of each kind, by name: '#' stands for one or more digits,
   '*' for one or more lower-case letters, and an RSF header's binary
   (name@) goes with it.  restart_names live in -output_dir/restart. */
static const char *const shot_names[]      = {"shot_#.rsf", "coords_#.rsf", "shot_#.sgy", "shot_#_*.rsf", "shot_#_*.sgy", "snapshot_#_#.rsf", "snapshot_#_#.vti", NULL};
static const char *const snapshot_names[]  = {"snapshot_#_#.rsf", "snapshot_#_#.vti", NULL};
static const char *const component_names[] = {"shot_#_*.rsf", "shot_#_*.sgy", NULL}; /* the components recorded besides the first */
static const char *const gradient_names[]  = {"gradient.rsf", "gradient.sgy", "gradient.vti", "gradient_rho.rsf", "gradient_rho.sgy", "gradient_rho.vti", NULL};
static const char *const inversion_names[] = {"misfit.csv", "vp.rsf", "vp.sgy", "vp_#.rsf", "vp_#.sgy", "vp.vti", "vp_#.vti", "rho.rsf", "rho.sgy", "rho_#.rsf", "rho_#.sgy", "rho.vti", "rho_#.vti", "wavelet_#.rsf", NULL};
static const char *const restart_names[]   = {"run.txt", "evaluations.txt", "band#_eval#_model.rsf", "band#_eval#_gradient.rsf", "band#_eval#_model_rho.rsf", "band#_eval#_gradient_rho.rsf", NULL};
static const char *const finished_names[]  = {"vp.rsf", "vp.sgy", NULL};
/* file name endings, by FileFormat */
static const char *const format_ext[] = {"rsf", "sgy"};

PetscErrorCode OutputShotPath(const char *dir, PetscInt shot, FileFormat format, char path[PETSC_MAX_PATH_LEN]) { return OutputComponentPath(dir, shot, NULL, format, path); }

PetscErrorCode OutputComponentPath(const char *dir, PetscInt shot, const char *component, FileFormat format, char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/shot_%04" PetscInt_FMT "%s%s.%s", dir, shot, component ? "_" : "", component ? component : "", format_ext[format]));
  PetscFunctionReturn(0);
}

PetscErrorCode OutputCoordsPath(const char *dir, PetscInt shot, char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/coords_%04" PetscInt_FMT ".rsf", dir, shot));
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
    if (*pat == '#' || *pat == '*') {
      const size_t k = strspn(name, *pat == '#' ? "0123456789" : "abcdefghijklmnopqrstuvwxyz");
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

/* The output folder's lock, OUTPUT_LOCK in it: rank 0 holds an flock on it
   for the whole run, and it names the holder ("HOST PID").  The kernel drops
   the flock when the holder ends, however it ends, so a crashed run never
   blocks the folder: the next one takes the file over, with a note. */
#define OUTPUT_LOCK ".halofwi.lock"
static struct {
  int  fd;
  char path[PETSC_MAX_PATH_LEN];
} held = {-1, ""};

void OutputRelease(void)
{
  if (held.fd < 0) return;
  unlink(held.path); /* while still locked: a run that opened the old file sees it is gone and retries */
  close(held.fd);
  held.fd = -1;
}

/* The holder a lock file names; host[0] = 0 when it names none. */
static void LockHolder(int fd, char host[256], int *pid)
{
  char    text[300];
  ssize_t got = pread(fd, text, sizeof(text) - 1, 0);

  host[0] = 0;
  *pid    = 0;
  text[got > 0 ? got : 0] = 0;
  if (sscanf(text, "%255s %d", host, pid) != 2) host[0] = 0;
}

/* Where the file system has no locks: whether the holder named still runs
   (a process of this host is asked; one of another host is taken to run,
   and its lock file must be removed by hand once it has ended). */
static PetscBool HolderRuns(const char *host, int pid)
{
  char me[256] = "";

  if (!host[0]) return PETSC_FALSE;
  gethostname(me, sizeof(me) - 1);
  return strcmp(host, me) || !kill(pid, 0) || errno != ESRCH ? PETSC_TRUE : PETSC_FALSE;
}

/* Whether fd is still the file at path (a run releasing the lock removes it). */
static PetscBool SameFile(int fd, const char *path)
{
  struct stat a, b;

  return !fstat(fd, &a) && !stat(path, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev ? PETSC_TRUE : PETSC_FALSE;
}

/* Takes dir's lock, or refuses naming the run that holds it. */
static PetscErrorCode LockFolder(const char *dir)
{
  char      path[PETSC_MAX_PATH_LEN], host[256], me[256], mine[300];
  int       fd, pid, len;
  PetscBool busy, nolocks;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, OUTPUT_LOCK));
  if (held.fd >= 0 && !strcmp(held.path, path)) PetscFunctionReturn(0);
  for (;;) {
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    PetscCheck(fd >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-output_dir %s: cannot create its lock file %s: %s", dir, path, strerror(errno));
    busy    = flock(fd, LOCK_EX | LOCK_NB) ? PETSC_TRUE : PETSC_FALSE;
    nolocks = busy && errno != EWOULDBLOCK ? PETSC_TRUE : PETSC_FALSE;
    if (busy || SameFile(fd, path)) break;
    close(fd); /* removed by the run that released it: again, with the new file */
  }
  LockHolder(fd, host, &pid);
  if (nolocks) busy = HolderRuns(host, pid);
  if (busy) {
    close(fd);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
            "-output_dir %s is in use by another run: process %d on host %s holds its lock file %s. One run per output folder: wait for it to end, or choose another -output_dir%s",
            dir, pid, host[0] ? host : "(unknown)", path, nolocks ? " (this file system has no locks: if that run has ended, remove the lock file)" : "");
  }
  if (host[0]) PetscCall(PetscPrintf(PETSC_COMM_SELF, "note: took over the lock file %s of process %d on host %s, which no longer runs\n", path, pid, host));
  PetscCall(FileHostName(me));
  len = snprintf(mine, sizeof(mine), "%s %d\n", me, (int)getpid());
  if (ftruncate(fd, 0) || pwrite(fd, mine, (size_t)len, 0) != len) {
    const int err = errno;
    close(fd);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "-output_dir %s: cannot write its lock file %s: %s", dir, path, strerror(err));
  }
  held.fd = fd;
  PetscCall(PetscStrncpy(held.path, path, sizeof(held.path)));
  atexit(OutputRelease);
  PetscFunctionReturn(0);
}

/* The files this run reads (device and inode, the option that names them),
   which -overwrite must not remove whatever their names. */
typedef struct {
  dev_t       dev;
  ino_t       ino;
  const char *option;
} InputFile;

typedef struct {
  InputFile *files;
  PetscInt   n, max;
} Inputs;

static PetscErrorCode AddFile(Inputs *in, const char *option, const char *path)
{
  struct stat st;

  PetscFunctionBeginUser;
  if (stat(path, &st) || !S_ISREG(st.st_mode)) PetscFunctionReturn(0);
  PetscCall(ArrayReserve(sizeof(InputFile), in->n, &in->max, &in->files));
  in->files[in->n++] = (InputFile){st.st_dev, st.st_ino, option};
  PetscFunctionReturn(0);
}

/* path (no file: nothing), an RSF header's binary too, or in a folder of
   observed data the shot files. */
static PetscErrorCode AddInput(Inputs *in, const char *option, const char *path)
{
  struct dirent **entries;
  struct stat     st;
  RsfHeader       h;
  char            file[PETSC_MAX_PATH_LEN];
  int             n;
  PetscErrorCode  ierr = 0;

  PetscFunctionBeginUser;
  if (!path[0] || stat(path, &st)) PetscFunctionReturn(0);
  if (S_ISREG(st.st_mode)) {
    PetscCall(AddFile(in, option, path));
    /* a header's binary: by name and, where the header reads, as it names it */
    PetscCall(PetscSNPrintf(file, sizeof(file), "%s@", path));
    PetscCall(AddFile(in, option, file));
    if (strstr(path, ".rsf") && !RsfReadHeader(PETSC_COMM_SELF, path, &h)) PetscCall(AddFile(in, option, h.data_path));
    PetscFunctionReturn(0);
  }
  if (!S_ISDIR(st.st_mode)) PetscFunctionReturn(0);
  n = ListFolder(path, &entries);
  for (int k = 0; k < n && !ierr; k++) {
    if (!Match("shot_#.rsf", entries[k]->d_name) && !Match("shot_#.sgy", entries[k]->d_name)) continue;
    ierr = PetscSNPrintf(file, sizeof(file), "%s/%s", path, entries[k]->d_name);
    if (!ierr) ierr = AddFile(in, option, file);
  }
  FreeNames(entries, n);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode InputsCreate(const Options *o, Inputs *in)
{
  char      options_file[PETSC_MAX_PATH_LEN] = "";
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(in, sizeof(*in)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-options_file", options_file, sizeof(options_file), &set));
  PetscCall(AddInput(in, "-vp", o->vp));
  PetscCall(AddInput(in, "-geometry", o->geometry));
  PetscCall(AddInput(in, "-wavelet", o->wavelet));
  PetscCall(AddInput(in, "-observed_dir", o->observed_dir));
  PetscCall(AddInput(in, "-observed_segy", o->observed_segy));
  PetscCall(AddInput(in, "-kill_traces", o->kill_traces));
  PetscCall(AddInput(in, "-options_file", options_file));
  PetscFunctionReturn(0);
}

/* The option that names path as an input, or NULL. */
static const char *InputOption(const Inputs *in, const char *path)
{
  struct stat st;

  if (stat(path, &st)) return NULL;
  for (PetscInt k = 0; k < in->n; k++)
    if (in->files[k].dev == st.st_dev && in->files[k].ino == st.st_ino) return in->files[k].option;
  return NULL;
}

static PetscErrorCode RemoveOne(const char *folder, const char *name)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", folder, name));
  PetscCheck(!remove(path), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "-overwrite: cannot remove %s: %s", path, strerror(errno));
  PetscFunctionReturn(0);
}

/* The results names[] in folder: refused, before anything is removed, when
   one is an input of this run. */
static PetscErrorCode RefuseInputs(const char *folder, const char *const names[], const Inputs *in)
{
  char            path[PETSC_MAX_PATH_LEN];
  const char     *option = NULL;
  int             n;
  struct dirent **entries;
  PetscErrorCode  ierr = 0;

  PetscFunctionBeginUser;
  n = ListFolder(folder, &entries);
  for (int k = 0; k < n && !option && !ierr; k++) {
    if (!MatchAny(names, entries[k]->d_name)) continue;
    ierr   = PetscSNPrintf(path, sizeof(path), "%s/%s", folder, entries[k]->d_name);
    option = ierr ? NULL : InputOption(in, path);
  }
  FreeNames(entries, n);
  PetscCall(ierr);
  PetscCheck(!option, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "-overwrite would remove %s, which this run reads (%s): nothing was removed. Copy the input out of -output_dir, or choose another -output_dir", path,
             option);
  PetscFunctionReturn(0);
}

/* Removes the results names[] in folder, headers before their binaries (a
   header never points at a missing binary), and prints "HEAD N files WHY in
   folder" (and which, with list). */
static PetscErrorCode RemoveResults(const char *folder, const char *const names[], PetscBool list, const char *head, const char *why)
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
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %d files %s in %s%s%s\n", head, count, why, folder, list ? ":" : "", list ? removed : ""));
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

/* Whether restart_dir holds a saved evaluation: replay.c lists one only
   once its files are complete, so a restart state whose list is empty or
   missing is what a start that failed before its first evaluation left. */
static PetscBool HoldsEvaluations(const char *restart_dir)
{
  char        path[PETSC_MAX_PATH_LEN];
  struct stat st;

  snprintf(path, sizeof(path), "%s/evaluations.txt", restart_dir);
  return !stat(path, &st) && st.st_size > 0 ? PETSC_TRUE : PETSC_FALSE;
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
    PetscCall(RefuseResult(dir, component_names));
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
    PetscCheck(!HoldsEvaluations(restart_dir), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s holds the state of an interrupted inversion: pass -restart to carry on with it, -overwrite to start again, or choose another -output_dir", restart_dir);
    break;
  }
  PetscFunctionReturn(0);
}

typedef struct {
  const Options *o;
  OutputKind     kind;
  PetscInt       nshots;
} Preparation;

/* Rank 0's part of OutputPrepareKind. */
static PetscErrorCode PrepareFolder(void *ctx)
{
  const Preparation *w    = (const Preparation *)ctx;
  const char        *dir  = w->o->output_dir;
  const OutputKind   kind = w->kind;
  const PetscBool    overwrite = w->o->overwrite, restart = kind == OUTPUT_INVERSION && w->o->restart ? PETSC_TRUE : PETSC_FALSE;
  const char *const *names = kind == OUTPUT_SHOTS ? shot_names : kind == OUTPUT_GRADIENT ? gradient_names : inversion_names;
  char               restart_dir[PETSC_MAX_PATH_LEN];
  Inputs             in;
  PetscErrorCode     ierr = 0;

  PetscFunctionBeginUser;
  PetscCall(MakeFolders(dir));
  PetscCall(CheckWritable(dir));
  PetscCall(LockFolder(dir));
  PetscCall(PetscSNPrintf(restart_dir, sizeof(restart_dir), "%s/restart", dir));
  PetscCall(RemoveStaleTemporaries(dir));
  PetscCall(RemoveStaleTemporaries(restart_dir));
  if (kind == OUTPUT_INVERSION && !restart && !HoldsEvaluations(restart_dir)) /* nothing in it to carry on: it blocks nothing */
    PetscCall(RemoveResults(restart_dir, restart_names, PETSC_FALSE, "removed", "of a restart state that holds no evaluation (a start that failed before its first)"));
  if (!overwrite || restart) {
    if (!overwrite) PetscCall(RefuseExisting(dir, restart_dir, kind, w->nshots, restart));
    PetscFunctionReturn(0);
  }
  PetscCall(InputsCreate(w->o, &in));
  ierr = RefuseInputs(dir, names, &in);
  if (!ierr && kind == OUTPUT_INVERSION) ierr = RefuseInputs(restart_dir, restart_names, &in);
  PetscCall(PetscFree(in.files));
  PetscCall(ierr);
  PetscCall(RemoveResults(dir, names, PETSC_TRUE, "-overwrite: removed", "of earlier results"));
  if (kind == OUTPUT_INVERSION) PetscCall(RemoveResults(restart_dir, restart_names, PETSC_FALSE, "-overwrite: removed", "of earlier results"));
  PetscFunctionReturn(0);
}

PetscErrorCode OutputPrepareKind(MPI_Comm comm, const Options *o, OutputKind kind, PetscInt nshots)
{
  Preparation w = {o, kind, nshots};

  PetscFunctionBeginUser;
  /* a write past a file-size limit (ulimit -f) then fails with EFBIG, which is reported, instead of ending the rank */
  signal(SIGXFSZ, SIG_IGN);
  PetscCall(RootRun(comm, PrepareFolder, &w));
  PetscFunctionReturn(0);
}

PetscErrorCode OutputPrepare(MPI_Comm comm, const Options *o, PetscInt nshots)
{
  PetscFunctionBeginUser;
  PetscCall(OutputPrepareKind(comm, o, OUTPUT_SHOTS, nshots));
  PetscFunctionReturn(0);
}
