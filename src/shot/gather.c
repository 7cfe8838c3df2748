#include "shot/gather.h"

/* Receiver ids and trace counts of every group rank, on group rank 0. */
typedef struct {
  PetscMPIInt *counts, *displs, *idcounts, *iddispls;
  PetscInt     ntotal; /* traces over the ranks */
  PetscInt    *ids;
  float       *buf;    /* traces in rank order */
} Plan;

/* n traces here, of receivers ids[].  A gather (shot >= 0) has every
   receiver from exactly one rank; a scatter sends a receiver's trace to
   every rank its support reaches. */
static PetscErrorCode PlanCreate(const Layout *l, PetscInt nt, PetscInt n, const PetscInt *ids, PetscInt shot, PetscInt nrec, Plan *p)
{
  PetscMPIInt nlocal, ntotal = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCall(PetscMPIIntCast(n, &nlocal));
  if (!l->group_rank) PetscCall(PetscMalloc4(l->group_size, &p->counts, l->group_size, &p->displs, l->group_size, &p->idcounts, l->group_size, &p->iddispls));
  PetscCallMPI(MPI_Gather(&nlocal, 1, MPI_INT, p->idcounts, 1, MPI_INT, 0, l->group));
  if (!l->group_rank) {
    for (PetscMPIInt r = 0; r < l->group_size; r++) {
      p->iddispls[r] = ntotal;
      PetscCall(PetscMPIIntCast(p->idcounts[r] * nt, &p->counts[r]));
      PetscCall(PetscMPIIntCast(ntotal * nt, &p->displs[r]));
      ntotal += p->idcounts[r];
    }
    PetscCheck(shot < 0 || ntotal == nrec, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Shot %" PetscInt_FMT ": %d of %" PetscInt_FMT " receivers located", shot, ntotal, nrec);
    p->ntotal = ntotal;
    PetscCall(PetscMalloc2(ntotal + 1, &p->ids, (size_t)ntotal * nt + 1, &p->buf));
  }
  PetscCallMPI(MPI_Gatherv(ids, nlocal, MPIU_INT, p->ids, p->idcounts, p->iddispls, MPIU_INT, 0, l->group));
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanDestroy(const Layout *l, Plan *p)
{
  PetscFunctionBeginUser;
  if (!l->group_rank) {
    PetscCall(PetscFree2(p->ids, p->buf));
    PetscCall(PetscFree4(p->counts, p->displs, p->idcounts, p->iddispls));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ShotGather(const Layout *l, PetscInt nt, const ShotLocal *sl, PetscInt shot, PetscInt nrec, const float *traces, float *all)
{
  Plan        p;
  PetscMPIInt mine;

  PetscFunctionBeginUser;
  PetscCall(PetscMPIIntCast(sl->nrec * nt, &mine));
  PetscCall(PlanCreate(l, nt, sl->nrec, sl->rec_id, shot, nrec, &p));
  PetscCallMPI(MPI_Gatherv(traces, mine, MPI_FLOAT, p.buf, p.counts, p.displs, MPI_FLOAT, 0, l->group));
  if (!l->group_rank)
    for (PetscInt k = 0; k < nrec; k++) PetscCall(PetscArraycpy(all + (size_t)p.ids[k] * nt, p.buf + (size_t)k * nt, nt));
  PetscCall(PlanDestroy(l, &p));
  PetscFunctionReturn(0);
}

PetscErrorCode ShotScatter(const Layout *l, PetscInt nt, const ShotLocal *sl, PetscInt nrec, const float *all, float *traces)
{
  Plan        p;
  PetscMPIInt mine;

  PetscFunctionBeginUser;
  PetscCall(PetscMPIIntCast(sl->nreach * nt, &mine));
  PetscCall(PlanCreate(l, nt, sl->nreach, sl->reach_id, -1, nrec, &p));
  if (!l->group_rank)
    for (PetscInt k = 0; k < p.ntotal; k++) PetscCall(PetscArraycpy(p.buf + (size_t)k * nt, all + (size_t)p.ids[k] * nt, nt));
  PetscCallMPI(MPI_Scatterv(p.buf, p.counts, p.displs, MPI_FLOAT, traces, mine, MPI_FLOAT, 0, l->group));
  PetscCall(PlanDestroy(l, &p));
  PetscFunctionReturn(0);
}

void GatherAxes(PetscInt nt, PetscReal dt, PetscInt nrec, RsfAxes *a)
{
  *a = (RsfAxes){0};
  RsfAxesAdd(a, nt, dt, 0, "Time", "s");
  RsfAxesAdd(a, nrec, 1, 0, "Receiver", "");
}
