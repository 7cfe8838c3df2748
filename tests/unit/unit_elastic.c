/* The elastic equation's CUDA backend against its CPU backend, whole runs
   through the shot layer: every component's traces the same bits.  Built
   with the host emulation (HALOFWI_CUDA_HOST: unit_elastic_cuda_host,
   also under AddressSanitizer and on 2 ranks), where the emulated device
   memory is host memory and the halos go through HALO_HOST, and for a GPU
   (unit_elastic_cuda, skipped without one).  The cases cover what the
   kernels treat apart: a water layer (vs = 0) over a solid with a
   contrast, the free surface on one side and on two (their corner), the
   CPML on the others, an explosion and forces, orders 4 to 8, 2D and 3D,
   and padded rows of 1024 floats, which the grid lengthens (grid.h:
   GridPaddedCells). */
#include "data/events.h"
#include "data/geometry.h"
#include "data/wavelet.h"
#include "equations/elastic/kernels.h"
#include "grid/grid.h"
#include "grid/timeaxis.h"
#include "shot/propagate.h"
#include "shot/survey.h"
#include "gpu_skip.h"

#define NREC 4

typedef struct {
  const char *name;
  PetscInt    dim, order, n[3], nt, source; /* source: the kind (EL_SOURCE_*) */
  PetscBool   free_far;                     /* a free surface on the far side of the last axis too */
} Case;

/* The traces of every component (ncomp x NREC x nt, on every rank) with the
   CPU's kernels or CUDA's. */
static PetscErrorCode Run(MPI_Comm comm, const Case *x, PetscBool cuda, float *traces)
{
  const Equation *eq = &EquationElastic;
  const PetscReal d[3] = {10, 10, 10}, dt = 1e-3, f0 = 20;
  const PetscInt  procs[3] = {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}, ncomp = 1 + x->dim;
  PetscInt        pml[3][2];
  Grid            g;
  Geometry        geo;
  TimeAxis        t;
  ShotLocal       sl[4];
  ShotRecord      rec[4];
  Propagator      p;
  EquationKernels k;
  float          *model[3], *w, *local;
  size_t          cells;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 3; a++) pml[a][0] = pml[a][1] = a < x->dim ? 8 : 0;
  pml[0][0] = 0;
  if (x->free_far) pml[x->dim - 1][1] = 0;
  PetscCall(GridCreate(comm, x->dim, x->n, d, x->order, pml, procs, &g));
  cells = (size_t)g.size[0] * g.size[1] * g.size[2];
  for (PetscInt m = 0; m < 3; m++) PetscCall(PetscMalloc1(cells, &model[m]));
  for (PetscInt kk = 0; kk < g.size[2]; kk++)
    for (PetscInt j = 0; j < g.size[1]; j++)
      for (PetscInt i = 0; i < g.size[0]; i++) {
        const size_t   c     = i + (size_t)g.size[0] * (j + (size_t)g.size[1] * kk);
        const PetscInt iz    = g.start[0] + i - pml[0][0], ix = g.start[1] + j - pml[1][0];
        const PetscBool water = iz < x->n[0] / 5;
        model[0][c]          = water ? 1500.0f : (float)(2400 + 20 * iz + (iz > x->n[0] / 2 + ix / 4 ? 500 : 0));
        model[1][c]          = water ? 0.0f : model[0][c] / 1.8f;
        model[2][c]          = water ? 1000.0f : (float)(2000 + 5 * iz);
      }
  PetscCall(GeometryAlloc(1, NREC, "test survey", &geo));
  geo.src[0]       = (Position){{PetscMin(x->n[0], 40) * 5.0 + 3, x->n[1] * 4.0 + 7, x->dim > 2 ? x->n[2] * 5.0 - 2 : 0}};
  geo.rec_start[0] = 0;
  for (PetscInt r = 0; r < NREC; r++) geo.rec[r] = (Position){{15.0 + 20 * r, 20.0 + (x->n[1] - 5) * 2.5 * r, x->dim > 2 ? 25.0 + 17 * r : 0}};
  PetscCall(TimeAxisSetUp(&g, eq->stable_step(&g, 3500), x->nt, dt, 0.9, &t));
#ifdef HALOFWI_CUDA_HOST
  if (cuda) k = (EquationKernels){(const struct KernelOps *)&ELKernelsCUDA, ELKernelsCUDA.backend};
  else
#endif
    PetscCheck(eq->kernels(cuda ? BACKEND_CUDA : BACKEND_CPU, &k), PETSC_COMM_SELF, PETSC_ERR_PLIB, "elastic: no %s kernels", cuda ? "CUDA" : "CPU");
  {
    PropagatorSettings settings = {.f_pml = 15, .nan_check_interval = 50, .halo_type = HALO_HOST, .overlap = PETSC_TRUE, .source_kind = x->source};
#ifndef HALOFWI_CUDA_HOST
    if (cuda) settings.halo_type = HALO_STAGED; /* device memory */
#endif
    PetscCall(PropagatorCreate(&g, eq, &k, (const float *const *)model, 3500, &t, &settings, &p));
  }
  PetscCall(PetscMalloc2(t.nsteps, &w, (size_t)ncomp * NREC * x->nt, &local));
  PetscCall(WaveletRicker(t.nsteps, t.dt_int, f0, 1.2 / f0, w));
  for (PetscInt c = 0; c < ncomp; c++) {
    const ShotPlacement at = {eq->source_kind[x->source].axis, eq->component[c].axis, PETSC_FALSE};
    PetscCall(ShotLocalizeAt(&g, &geo, 0, PETSC_FALSE, &at, &sl[c]));
    rec[c] = (ShotRecord){c, &sl[c], local + (size_t)c * NREC * x->nt};
  }
  PetscCall(PropagatorRunRecords(&p, &t, &sl[0], 0, w, ncomp, rec, NULL));
  PetscCall(PetscArrayzero(traces, (size_t)ncomp * NREC * x->nt));
  for (PetscInt c = 0; c < ncomp; c++)
    for (PetscInt r = 0; r < sl[c].nrec; r++) PetscCall(PetscArraycpy(traces + ((size_t)c * NREC + sl[c].rec_id[r]) * x->nt, rec[c].traces + r * x->nt, x->nt));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, traces, (PetscMPIInt)(ncomp * NREC * x->nt), MPI_FLOAT, MPI_SUM, comm));
  for (PetscInt c = 0; c < ncomp; c++) PetscCall(ShotLocalDestroy(&sl[c]));
  PetscCall(PropagatorDestroy(&p));
  PetscCall(GeometryDestroy(&geo));
  PetscCall(GridDestroy(&g));
  for (PetscInt m = 0; m < 3; m++) PetscCall(PetscFree(model[m]));
  PetscCall(PetscFree2(w, local));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckCase(const Case *x)
{
  const size_t n = (size_t)(1 + x->dim) * NREC * x->nt;
  float       *cpu, *cuda;
  size_t       differ = 0;
  double       peak   = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n, &cpu, n, &cuda));
  PetscCall(Run(PETSC_COMM_WORLD, x, PETSC_FALSE, cpu));
  PetscCall(Run(PETSC_COMM_WORLD, x, PETSC_TRUE, cuda));
  for (size_t i = 0; i < n; i++) {
    differ += memcmp(&cpu[i], &cuda[i], sizeof(float)) != 0;
    peak = PetscMax(peak, PetscAbsReal(cpu[i]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: CUDA against the CPU, %zu of %zu samples of every component differ (peak %.3g)\n", x->name, differ, n, peak));
  PetscCheck(!differ && peak > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the CUDA backend's traces differ from the CPU's in %zu samples (or are all 0)", x->name, differ);
  PetscCall(PetscFree2(cpu, cuda));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const Case cases[] = {
    {"2D order 8, explosion, water over a solid, free surface on top",  2, 8, {40, 48, 1},  220, EL_SOURCE_PRESSURE,  PETSC_FALSE},
    {"2D order 4, vertical force, free surfaces on top and right",      2, 4, {40, 48, 1},  220, EL_SOURCE_FORCE + 0, PETSC_TRUE },
    {"3D order 8, horizontal force along x, free surface on top",       3, 8, {20, 22, 18}, 90,  EL_SOURCE_FORCE + 1, PETSC_FALSE},
    {"3D order 6, explosion, free surfaces on top and far y",           3, 6, {20, 22, 18}, 90,  EL_SOURCE_PRESSURE,  PETSC_TRUE },
    {"2D order 8, explosion, padded rows of 1024 floats (lengthened)",  2, 8, {1008, 20, 1}, 120, EL_SOURCE_PRESSURE,  PETSC_FALSE},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(EventsRegister());
#ifndef HALOFWI_CUDA_HOST
  {
    PetscBool missing;
    PetscCall(GpuMissing(&missing));
    if (missing) {
      PetscCall(PetscFinalize());
      return GPU_SKIPPED;
    }
  }
#endif
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) PetscCall(CheckCase(&cases[k]));
  PetscCall(PetscFinalize());
  return 0;
}
