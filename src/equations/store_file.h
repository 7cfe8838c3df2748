/* The disk tier of the wavefield store (-wavefield_dir): one file per rank
   that has no name from the moment it exists (O_TMPFILE, or a name unlinked
   at once where the file system lacks it), so that the end of the process,
   however it ends, removes it and no later run can read it.  Its space is
   reserved when it is opened, so that a full disk is found before any work.
   Reads and writes run on a thread of their own, in the order they were
   posted, on two lanes (a step's buffer each): a lane takes one transfer at
   a time, and Wait gives that transfer's failure as an error. */
#pragma once
#include <petscsys.h>

typedef struct StoreFile *StoreFile;

PetscErrorCode StoreFileOpen(const char *dir, size_t bytes, StoreFile *f);
/* Waits for every transfer, and closes (removes) the file. */
PetscErrorCode StoreFileClose(StoreFile *f);
/* Starts a transfer of bytes between buf and the file at offset on lane
   (0 or 1), once the lane's last one is done (and its failure reported). */
PetscErrorCode StoreFilePost(StoreFile f, PetscInt lane, PetscBool write, void *buf, size_t bytes, size_t offset);
PetscErrorCode StoreFileWait(StoreFile f, PetscInt lane);
