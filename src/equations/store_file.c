/* The wavefield store's file on disk (store_file.h). */
#define _GNU_SOURCE
#include "equations/store_file.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  PetscBool write, posted, done;
  void     *buf;
  size_t    bytes, offset;
  int       err; /* errno of a failed transfer, or -1: a read past the end */
  long      order; /* posting order, for the thread to take the older first */
} Transfer;

struct StoreFile {
  int             fd;
  char            dir[PETSC_MAX_PATH_LEN];
  pthread_t       thread;
  pthread_mutex_t lock;
  pthread_cond_t  posted, done;
  Transfer        lane[2];
  long            count;
  PetscBool       quit;
};

/* One transfer, whole: pread and pwrite may move fewer bytes than asked. */
static int Move(int fd, const Transfer *t)
{
  size_t at = 0;

  while (at < t->bytes) {
    const ssize_t k = t->write ? pwrite(fd, (const char *)t->buf + at, t->bytes - at, (off_t)(t->offset + at)) : pread(fd, (char *)t->buf + at, t->bytes - at, (off_t)(t->offset + at));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno;
    if (k == 0) return -1;
    at += (size_t)k;
  }
  return 0;
}

static void *Worker(void *arg)
{
  struct StoreFile *f = arg;

  pthread_mutex_lock(&f->lock);
  for (;;) {
    Transfer *t = NULL;
    for (int k = 0; k < 2; k++)
      if (f->lane[k].posted && !f->lane[k].done && (!t || f->lane[k].order < t->order)) t = &f->lane[k];
    if (!t && f->quit) break;
    if (!t) {
      pthread_cond_wait(&f->posted, &f->lock);
      continue;
    }
    pthread_mutex_unlock(&f->lock);
    const int err = Move(f->fd, t);
    pthread_mutex_lock(&f->lock);
    t->err  = err;
    t->done = PETSC_TRUE;
    pthread_cond_broadcast(&f->done);
  }
  pthread_mutex_unlock(&f->lock);
  return NULL;
}

/* An unnamed file in dir: O_TMPFILE, else a name unlinked at once. */
static int OpenUnnamed(const char *dir)
{
  char name[PETSC_MAX_PATH_LEN];
  int  fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
  if (snprintf(name, sizeof name, "%s/.halofwi-wavefield-XXXXXX", dir) >= (int)sizeof name) {
    errno = ENAMETOOLONG;
    return -1;
  }
  fd = mkostemp(name, O_CLOEXEC);
  if (fd >= 0) (void)unlink(name);
  return fd;
}

PetscErrorCode StoreFileOpen(const char *dir, size_t bytes, StoreFile *file)
{
  struct StoreFile *f;
  int               fd = OpenUnnamed(dir), err;

  PetscFunctionBeginUser;
  PetscCheck(fd >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-wavefield_dir %s: cannot create the forward wavefield's file there (%s)", dir, strerror(errno));
  /* reserve the space now: a full disk shows before the first step (file systems without fallocate find it at a write) */
  err = fallocate(fd, 0, 0, (off_t)bytes) ? errno : 0;
  if (err && err != EOPNOTSUPP) {
    char amount[32];
    (void)close(fd);
    PetscCall(PetscSNPrintf(amount, sizeof amount, "%.1f MB", bytes / 1048576.0));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "-wavefield_dir %s: cannot reserve %s for the forward wavefield's file (%s); nothing was left there", dir, amount, strerror(err));
  }
  PetscCall(PetscNew(&f));
  f->fd = fd;
  PetscCall(PetscStrncpy(f->dir, dir, sizeof f->dir));
  pthread_mutex_init(&f->lock, NULL);
  pthread_cond_init(&f->posted, NULL);
  pthread_cond_init(&f->done, NULL);
  err = pthread_create(&f->thread, NULL, Worker, f);
  if (err) {
    (void)close(fd);
    PetscCall(PetscFree(f));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SYS, "-wavefield_dir: cannot start the thread for the forward wavefield's file (%s)", strerror(err));
  }
  *file = f;
  PetscFunctionReturn(0);
}

PetscErrorCode StoreFileWait(StoreFile f, PetscInt lane)
{
  Transfer *t = &f->lane[lane];
  Transfer  was;

  PetscFunctionBeginUser;
  pthread_mutex_lock(&f->lock);
  while (t->posted && !t->done) pthread_cond_wait(&f->done, &f->lock);
  was       = *t;
  t->posted = PETSC_FALSE;
  pthread_mutex_unlock(&f->lock);
  if (!was.posted || !was.err) PetscFunctionReturn(0);
  SETERRQ(PETSC_COMM_SELF, was.write ? PETSC_ERR_FILE_WRITE : PETSC_ERR_FILE_READ, "-wavefield_dir %s: %s %.1f MB of the forward wavefield at %.1f MB into its file failed (%s)", f->dir,
          was.write ? "writing" : "reading", was.bytes / 1048576.0, was.offset / 1048576.0, was.err < 0 ? "the file is shorter" : strerror(was.err));
}

PetscErrorCode StoreFilePost(StoreFile f, PetscInt lane, PetscBool write, void *buf, size_t bytes, size_t offset)
{
  PetscFunctionBeginUser;
  PetscCall(StoreFileWait(f, lane));
  pthread_mutex_lock(&f->lock);
  f->lane[lane] = (Transfer){write, PETSC_TRUE, PETSC_FALSE, buf, bytes, offset, 0, f->count++};
  pthread_cond_signal(&f->posted);
  pthread_mutex_unlock(&f->lock);
  PetscFunctionReturn(0);
}

PetscErrorCode StoreFileClose(StoreFile *file)
{
  struct StoreFile *f = *file;

  PetscFunctionBeginUser;
  if (!f) PetscFunctionReturn(0);
  pthread_mutex_lock(&f->lock);
  f->quit = PETSC_TRUE;
  pthread_cond_signal(&f->posted);
  pthread_mutex_unlock(&f->lock);
  pthread_join(f->thread, NULL);
  (void)close(f->fd);
  pthread_mutex_destroy(&f->lock);
  pthread_cond_destroy(&f->posted);
  pthread_cond_destroy(&f->done);
  PetscCall(PetscFree(*file));
  PetscFunctionReturn(0);
}
