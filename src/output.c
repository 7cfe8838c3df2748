#include "output.h"
#include "util.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

PetscErrorCode OutputShotPath(const char *dir, PetscInt shot, char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/shot_%04" PetscInt_FMT ".rsf", dir, shot));
  PetscFunctionReturn(0);
}

/* mkdir -p; on failure msg names the folder and the reason. */
static void MakeFolders(const char *dir, char msg[FWI_MSG_LEN])
{
  char path[PETSC_MAX_PATH_LEN];

  snprintf(path, sizeof(path), "%s", dir);
  for (char *p = path + 1;; p++) {
    const char c = *p;
    if (c != '/' && c != 0) continue;
    *p = 0;
    if (mkdir(path, 0777) && errno != EEXIST) {
      snprintf(msg, FWI_MSG_LEN, "-output_dir %s: cannot create %s: %s", dir, path, strerror(errno));
      return;
    }
    *p = c;
    if (!c) break;
  }
}

PetscErrorCode OutputPrepare(MPI_Comm comm, const char *dir, PetscInt nshots, PetscBool overwrite)
{
  char        msg[FWI_MSG_LEN] = "";
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    char        probe[PETSC_MAX_PATH_LEN];
    struct stat st;
    MakeFolders(dir, msg);
    if (!msg[0] && (stat(dir, &st) || !S_ISDIR(st.st_mode))) snprintf(msg, sizeof(msg), "-output_dir %s is not a folder", dir);
    if (!msg[0]) {
      FILE *fp;
      snprintf(probe, sizeof(probe), "%s/.halofwi-write-test.%d", dir, (int)getpid());
      fp = fopen(probe, "w");
      if (!fp || fclose(fp)) snprintf(msg, sizeof(msg), "-output_dir %s is not writable: %s", dir, strerror(errno));
      else unlink(probe);
    }
    for (PetscInt s = 0; s < nshots && !msg[0] && !overwrite; s++) {
      PetscCall(OutputShotPath(dir, s, probe));
      if (!access(probe, F_OK))
        snprintf(msg, sizeof(msg), "%s exists: refusing to overwrite results (pass -overwrite to replace them, or choose another -output_dir)", probe);
    }
  }
  PetscCall(RootCheck(comm, msg));
  PetscFunctionReturn(0);
}

PetscErrorCode OutputRefuseExisting(MPI_Comm comm, const char *dir, const char *name, PetscBool overwrite)
{
  char        msg[FWI_MSG_LEN] = "", path[PETSC_MAX_PATH_LEN];
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, name));
  if (!rank && !overwrite && !access(path, F_OK))
    snprintf(msg, sizeof(msg), "%s exists: refusing to overwrite results (pass -overwrite to replace them, or choose another -output_dir)", path);
  PetscCall(RootCheck(comm, msg));
  PetscFunctionReturn(0);
}
