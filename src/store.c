/* The in-memory wavefield store: one array, a slot per step. */
#include "store.h"

struct _p_WavefieldStore {
  size_t   n;
  PetscInt nsteps;
  float   *data;
  PetscErrorCode (*release)(float **);
};

double WavefieldStoreBytes(size_t n, PetscInt nsteps) { return (double)n * (double)nsteps * sizeof(float); }

PetscErrorCode WavefieldStoreCreate(MPI_Comm comm, size_t n, PetscInt nsteps, double limit_bytes, PetscErrorCode (*alloc)(float **, size_t),
                                    PetscErrorCode (*release)(float **), WavefieldStore *s)
{
  double mine = WavefieldStoreBytes(n, nsteps), most;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscCheck(most <= limit_bytes, comm, PETSC_ERR_MEM,
             "The forward wavefield needs %.1f MB on the busiest rank (%" PetscInt_FMT " internal steps of its cells), over the limit of %.1f MB per rank "
             "(-wavefield_memory): use more ranks per shot group (fewer -shot_groups or more processes), fewer samples (-nt), a larger -dt, "
             "or raise -wavefield_memory if the memory is there",
             most / 1048576.0, nsteps, limit_bytes / 1048576.0);
  PetscCall(PetscNew(s));
  (*s)->n       = n;
  (*s)->nsteps  = nsteps;
  (*s)->release = release;
  PetscCall(alloc(&(*s)->data, n * (size_t)nsteps));
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreDestroy(WavefieldStore *s)
{
  PetscFunctionBeginUser;
  if (!*s) PetscFunctionReturn(0);
  PetscCall((*s)->release(&(*s)->data));
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(0);
}

static PetscErrorCode Slot(WavefieldStore s, PetscInt step, float **buf)
{
  PetscFunctionBeginUser;
  PetscCheck(step >= 0 && step < s->nsteps, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "store step %" PetscInt_FMT " outside [0, %" PetscInt_FMT ")", step,
             s->nsteps);
  *buf = s->data + s->n * (size_t)step;
  PetscFunctionReturn(0);
}

PetscErrorCode WavefieldStoreWriteBegin(WavefieldStore s, PetscInt step, float **buf) { return Slot(s, step, buf); }
PetscErrorCode WavefieldStoreWriteEnd(WavefieldStore s, PetscInt step) { return 0; }
PetscErrorCode WavefieldStoreReadBegin(WavefieldStore s, PetscInt step, float **buf) { return Slot(s, step, buf); }
PetscErrorCode WavefieldStoreReadEnd(WavefieldStore s, PetscInt step) { return 0; }
