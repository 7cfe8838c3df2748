#include "setup/backend.h"
#include "setup/device.h"

/* Whether every shot group can exchange its halos with this type (NCCL:
   one GPU per rank within the group), the same answer on every rank. */
static PetscErrorCode Available(const Layout *l, HaloType type, PetscBool *ok, char why[], size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(HaloTypeAvailableOnComm(l->group, type, ok, why, len));
  if (*ok) PetscCall(PetscSNPrintf(why, len, "another shot group cannot use it"));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, ok, 1, MPIU_BOOL, MPI_LAND, l->world));
  PetscFunctionReturn(0);
}

#ifdef HALOFWI_HAVE_CUDA
/* The best device halo every group can use: NCCL where each rank of a group
   has its own GPU (NCCL cannot serve two ranks on one), else CUDA-aware MPI,
   else staged through the host. */
static PetscErrorCode BestDeviceHalo(const Layout *l, HaloType *type)
{
  PetscBool nccl, aware;
  char      why[256];

  PetscFunctionBeginUser;
  if (l->group_size == 1) { /* a lone rank exchanges nothing: no NCCL communicator to set up */
    *type = HALO_STAGED;
    PetscFunctionReturn(0);
  }
  PetscCall(Available(l, HALO_NCCL, &nccl, why, sizeof(why)));
  PetscCall(Available(l, HALO_MPI_DEVICE, &aware, why, sizeof(why)));
  *type = nccl ? HALO_NCCL : aware ? HALO_MPI_DEVICE : HALO_STAGED;
  PetscFunctionReturn(0);
}
#endif

static PetscErrorCode CheckHalo(const Layout *l, const Backend *b)
{
  const MPI_Comm world = l->world;
  PetscBool      ok;
  char           why[256];

  PetscFunctionBeginUser;
  PetscCheck((b->halo_type == HALO_HOST) == (b->device < 0), world, PETSC_ERR_ARG_INCOMP, "-halo_type %s does not go with -backend %s: use %s", HaloTypes[b->halo_type],
             b->device < 0 ? "cpu" : "cuda", b->device < 0 ? "host" : "staged, mpi-device or nccl");
  PetscCall(Available(l, b->halo_type, &ok, why, sizeof(why)));
  PetscCheck(ok, world, PETSC_ERR_SUP, "-halo_type %s is not available: %s", HaloTypes[b->halo_type], why);
  PetscFunctionReturn(0);
}

PetscErrorCode BackendSetUp(const Layout *l, const Options *o, const Equation *eq, Backend *b)
{
  int       count, least;
  char      why[256], gpu[256] = "";
  PetscBool shares = PETSC_FALSE, cuda;
  EquationKernels k;

  PetscFunctionBeginUser;
  PetscCall(DeviceCount(&count, why, sizeof(why)));
  PetscCallMPI(MPI_Allreduce(&count, &least, 1, MPI_INT, MPI_MIN, l->world));
  /* auto takes the GPU where the equation has kernels for it */
  cuda = o->backend == BACKEND_CUDA || (o->backend == BACKEND_AUTO && least > 0 && eq->kernels(BACKEND_CUDA, &k)) ? PETSC_TRUE : PETSC_FALSE;
  if (count) PetscCall(PetscSNPrintf(why, sizeof(why), "on another rank"));
  PetscCheck(!cuda || least > 0, l->world, PETSC_ERR_SUP, "-backend cuda: no CUDA device is visible (%s); use -backend cpu", why);
  b->eq        = eq;
  b->device    = -1;
  b->overlap   = o->halo_overlap;
  b->halo_type = HALO_HOST;
#ifdef HALOFWI_HAVE_CUDA
  if (cuda) {
    PetscCall(DeviceSelect(l->world, o->gpu_shared, &b->device, &shares, gpu, sizeof(gpu)));
    PetscCall(BestDeviceHalo(l, &b->halo_type));
  }
#endif
  PetscCheck(eq->kernels(cuda ? BACKEND_CUDA : BACKEND_CPU, &k), l->world, PETSC_ERR_SUP, "the %s equation has no %s kernels in this build", eq->name, cuda ? "CUDA" : "CPU");
  b->ops    = k.ops;
  b->memory = k.backend;
  if (o->halo_type >= 0) b->halo_type = (HaloType)o->halo_type;
  PetscCall(CheckHalo(l, b));
  if (b->device < 0)
    PetscCall(PetscPrintf(l->world, "backend cpu: %" PetscInt_FMT " OpenMP thread%s per rank; halo exchange host (MPI), overlap %s\n", l->threads, l->threads == 1 ? "" : "s",
                          b->overlap ? "on" : "off"));
  else
    PetscCall(PetscPrintf(l->world, "backend cuda: rank 0 on GPU %d (%s)%s; halo exchange %s%s, overlap %s\n", b->device, gpu, shares ? ", GPUs shared by several ranks" : "",
                          HaloTypes[b->halo_type], o->halo_type >= 0 ? "" : " (best available)", b->overlap ? "on" : "off"));
  PetscFunctionReturn(0);
}
