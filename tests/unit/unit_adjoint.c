/* The adjoint of the propagator: the gradient it gives matches a central
   finite difference of the misfit along a smooth direction, for every order,
   in 2D and 3D, with absorbing layers and a free surface, with the source
   and receivers resampled (internal step below the recording interval), on
   the decomposition mpiexec gives, with each gradient method, the source
   and receivers between grid points (one receiver within the reach of the
   free surface's image).  The
   velocities are those of the extended grid (layers included): with full
   storage the direction covers the layer cells too; with the boundary
   method (the forward field run backwards, the layers taking no gradient)
   it is zero in the layers, every layer cell's gradient is zero (but the
   source's), and the core's gradient matches full storage's to 1e-5.
   Where the CPU keeps the stored term's live map (every rank alone along
   z), full storage's gradient is the same bits with a store that keeps
   none and with its own store first filled with NaN (the forward writes
   only live chunks), and the map marks some chunks dead and some live;
   in one case again with a second source deeper, so that rows hold live
   chunks on both sides of dead ones and the adjoint must find each run's
   terms in the packed store.  There the adjoint also leaves the row parts
   that stay quiet as they are (PropagatorSettings.skip_quiet): the same
   bits as an adjoint that steps every part, and on deep rows some parts
   left; the boundary method's adjoint likewise.  With the boundary method every nonzero cell of every forward
   level lies in its support box (support.h), the boxes leave some cells
   out, and a backend that keeps none (device memory) gives the same
   gradient to 1e-5. */
#include "data/events.h"
#include "data/geometry.h"
#include "shot/propagate.h"
#include "equations/acoustic/acoustic.h"
#include "equations/acoustic/state.h"
#include "data/wavelet.h"
#include "shot/survey.h"
#include "unit_check.h"

typedef struct {
  PetscInt  dim, order, n[3], pml;
  PetscBool x_only;  /* every rank along x: at 4 ranks the subdomain faces fall 2-3 cells from the layers' edges */
  PetscInt  twin_dz; /* > 0: the live map is checked again with a second source this many cells deeper */
} Case;

/* Smooth fields of the extended global index, the same on any decomposition. */
/* z no deeper than 126 counts: below, the time step (vmax) would not be stable */

/* The acoustic state behind the propagator, for what these tests look at inside it. */
static AcousticState *State(const Propagator *p) { return AcousticStateOf(p->state); }

static double Background(const PetscInt x[3]) { return 2000 + 8 * PetscMin(x[0], 126) + 150 * sin(0.3 * x[1]) * cos(0.2 * x[2]); }
static double Anomaly(const PetscInt x[3]) { return 120 * exp(-0.02 * ((x[0] - 14) * (x[0] - 14) + (x[1] - 16) * (x[1] - 16) + (x[2] - 9) * (x[2] - 9))); }
static double Direction(const PetscInt x[3]) { return cos(0.37 * x[0] + 0.11 * x[1]) * sin(0.23 * x[1] + 0.5) + 0.5 * cos(0.29 * x[2] + 0.31 * x[0]); }

/* Direction() in the core of the grid, zero in the layers. */
static const Grid *core_grid;
static double      CoreDirection(const PetscInt x[3])
{
  for (PetscInt a = 0; a < core_grid->dim; a++)
    if (x[a] < core_grid->pml[a][0] || x[a] >= core_grid->pml[a][0] + core_grid->n[a]) return 0;
  return Direction(x);
}

static void FillModel(const Grid *g, double (*fn)(const PetscInt[3]), double scale, const float *base, float *v)
{
  for (PetscInt k = 0; k < g->size[2]; k++)
    for (PetscInt j = 0; j < g->size[1]; j++)
      for (PetscInt i = 0; i < g->size[0]; i++) {
        const PetscInt x[3] = {g->start[0] + i, g->start[1] + j, g->start[2] + k}, c = i + g->size[0] * (j + g->size[1] * k);
        v[c]                = (float)((base ? base[c] : 0) + scale * fn(x));
      }
}

/* The residuals of the receivers that reach this rank's cells, from those of
   the receivers it records (nrec in all). */
static PetscErrorCode ReachResiduals(const ShotLocal *sl, PetscInt nrec, PetscInt nt, const float *d, float *reach)
{
  float *all;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(nrec * nt, &all));
  for (PetscInt k = 0; k < sl->nrec; k++) PetscCall(PetscArraycpy(all + sl->rec_id[k] * nt, d + k * nt, nt));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, all, (PetscMPIInt)(nrec * nt), MPI_FLOAT, MPI_SUM, PETSC_COMM_WORLD));
  for (PetscInt k = 0; k < sl->nreach; k++) PetscCall(PetscArraycpy(reach + k * nt, all + sl->reach_id[k] * nt, nt));
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/* Misfit 1/2 |d - obs|^2 of one shot (nrec receivers) over the world; with grad, also dJ/dv per owned cell. */
static PetscErrorCode Misfit(Propagator *p, const TimeAxis *t, const ShotLocal *sl, PetscInt nrec, const float *w, const float *v, const float *obs, WavefieldStore store,
                             double *J, double *grad)
{
  const PetscInt nd = sl->nrec * t->nt;
  float         *d, *reach;
  double         local = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(nd + 1, &d, sl->nreach * t->nt + 1, &reach));
  PetscCall(PropagatorSetModel(p, t, (const float *const[]){v}));
  PetscCall(PropagatorRun(p, t, sl, 0, w, d, grad ? store : NULL));
  for (PetscInt k = 0; k < nd; k++) {
    d[k] -= obs ? obs[k] : 0;
    local += 0.5 * (double)d[k] * d[k];
  }
  PetscCallMPI(MPI_Allreduce(&local, J, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  if (grad) {
    PetscCall(PropagatorGradientReset(p, PETSC_TRUE)); /* one shot, one group */
    PetscCall(ReachResiduals(sl, nrec, t->nt, d, reach));
    PetscCall(PropagatorAdjoint(p, t, sl, 0, w, reach, store));
    PetscCall(PropagatorGradient(p, (const float *const[]){v}, (double *const[]){grad}));
  }
  PetscCall(PetscFree2(d, reach));
  PetscFunctionReturn(0);
}

/* The number of cells whose gradient a differs from b in any bit, on all
   ranks. */
static PetscErrorCode CellsDiffering(const double *a, const double *b, PetscInt ncells, PetscInt *differ)
{
  PetscFunctionBeginUser;
  *differ = 0;
  for (PetscInt c = 0; c < ncells; c++) *differ += memcmp(&a[c], &b[c], sizeof(double)) != 0;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, differ, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

/* sl with a second source: its support again, dz cells deeper (axis 0
   runs along each padded row), the same wavelet.  While the two waves are
   apart, rows that cross both run live, dead, live along z.  For ranks
   that hold whole columns along z (x_only cases), with room below the
   source for dz more cells. */
static PetscErrorCode TwinSource(const Grid *g, const Fields *f, const Geometry *geo, PetscInt dz, ShotLocal *twin)
{
  PointMap *s = &twin->src, d;
  PetscInt  n, ne;

  PetscFunctionBeginUser;
  PetscCall(ShotLocalize(g, geo, 0, PETSC_FALSE, twin));
  n  = s->nrows;
  ne = s->start[n];
  d.nrows = 2 * n;
  PetscCall(PetscMalloc1(2 * n, &d.cell));
  PetscCall(PetscMalloc1(2 * n + 1, &d.start));
  PetscCall(PetscMalloc1(2 * ne, &d.index));
  PetscCall(PetscMalloc1(2 * ne, &d.weight));
  for (PetscInt i = 0; i <= 2 * n; i++) d.start[i] = i <= n ? s->start[i] : ne + s->start[i - n];
  for (PetscInt i = 0; i < 2 * n; i++) d.cell[i] = s->cell[i % n] + (i < n ? 0 : dz);
  for (PetscInt e = 0; e < 2 * ne; e++) {
    d.index[e]  = s->index[e % ne];
    d.weight[e] = s->weight[e % ne];
  }
  PetscCall(PointMapDestroy(s));
  *s = d;
  PetscFunctionReturn(0);
}

/* Rows of the stored term, over every step, whose live chunks are not one
   run: a dead chunk between two live ones. */
static PetscInt RowsWithGaps(WavefieldStore store, const Fields *f, PetscInt nsteps)
{
  const PetscInt nc = (PetscInt)FieldsLiveChunks(f);
  PetscInt       gaps = 0;

  for (PetscInt k = 0; k < nsteps; k++) {
    uint32_t            *start;
    const unsigned char *live = WavefieldStoreLive(store, k, &start);
    for (size_t r = 0; live && r < FieldsLiveRows(f); r++) {
      const unsigned char *row = live + r * nc;
      PetscInt             runs = 0;
      for (PetscInt c = 0; c < nc; c++) runs += row[c] && (!c || !row[c - 1]);
      gaps += runs > 1;
    }
  }
  return gaps;
}

/* Full storage's gradient of shot sl from `store` (with a live map where
   live is set on any rank) against the same evaluation from a store of n x
   nsteps without one, again from `store` after every value in it is set
   to NaN (the forward writes only the chunks it marks live, and the
   adjoint must read no other), and again with an adjoint that steps every
   part: the same bits each time, the map neither all dead nor all live,
   and the adjoint's row parts not all left as they were, some where rows
   hold 3 chunks or more (the deepest far from the receivers); with
   `gaps`, some rows with dead chunks between live ones. */
/* The gradient (grad) with the adjoint leaving the row parts that stay
   quiet as they are, and the cells whose gradient differs from an adjoint
   that steps every part (stepped); left: the parts' steps it left, and
   all parts' steps, over the ranks. */
static PetscErrorCode QuietLeft(Propagator *p, const TimeAxis *t, const ShotLocal *sl, const float *w, const float *v, const float *obs, WavefieldStore store,
                                PetscInt ncells, double *grad, double *again, PetscInt *stepped, double left[2])
{
  double J;

  PetscFunctionBeginUser;
  left[0] = -(double)State(p)->f.parts_left[0], left[1] = -(double)State(p)->f.parts_left[1];
  PetscCall(Misfit(p, t, sl, 5, w, v, obs, store, &J, grad));
  left[0] += (double)State(p)->f.parts_left[0], left[1] += (double)State(p)->f.parts_left[1];
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, left, 2, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  State(p)->skip_quiet = PETSC_FALSE;
  PetscCall(Misfit(p, t, sl, 5, w, v, obs, store, &J, again));
  State(p)->skip_quiet = PETSC_TRUE;
  PetscCall(CellsDiffering(again, grad, ncells, stepped));
  PetscFunctionReturn(0);
}

/* QuietLeft's checks: no cell differs, and some parts' steps were left
   where rows hold 3 chunks or more (not all: the sources' parts step). */
static PetscErrorCode CheckQuietLeft(const Propagator *p, const char *method, PetscInt stepped, const double left[2])
{
  PetscFunctionBeginUser;
  PetscCheck(!stepped, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "%s: %" PetscInt_FMT " cells' gradient differs when the adjoint leaves quiet parts as they are, expected the same bits (a part left that was not quiet)", method, stepped);
  PetscCheck(left[0] < left[1] && (left[0] > 0 || FieldsLiveChunks(&State(p)->f) < 3), PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "%s adjoint: %.0f of %.0f parts' steps left as they were, expected not all, and some on rows of 3 chunks or more (test set-up)", method, left[0], left[1]);
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckLiveMap(Propagator *p, const TimeAxis *t, const ShotLocal *sl, const float *w, const float *v, const float *obs, WavefieldStore store,
                                   size_t n, PetscInt nsteps, size_t live, PetscInt ncells, PetscBool gaps)
{
  WavefieldStore plain;
  double         J, *grad, *again, share, range[2], left[2];
  PetscInt       differ, stale, gapped, stepped;
  unsigned long  any = live;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_UNSIGNED_LONG, MPI_MAX, PETSC_COMM_WORLD));
  if (!any) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(ncells, &grad, ncells, &again));
  PetscCall(QuietLeft(p, t, sl, w, v, obs, store, ncells, grad, again, &stepped, left));
  (void)WavefieldStoreLiveShare(store, &share);
  gapped = RowsWithGaps(store, &State(p)->f, nsteps);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &gapped, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  for (PetscInt k = 0; k < nsteps; k++) {
    float *slot;
    PetscCall(WavefieldStoreWriteBegin(store, k, &slot));
    for (size_t c = 0; c < n; c++) slot[c] = NAN;
    PetscCall(WavefieldStoreWriteEnd(store, k));
  }
  PetscCall(Misfit(p, t, sl, 5, w, v, obs, store, &J, again));
  PetscCall(CellsDiffering(again, grad, ncells, &stale));
  PetscCall(WavefieldStoreCreate(PETSC_COMM_WORLD, KernelOpsCPU.backend, State(p)->f.backend, n, nsteps, &(WavefieldTier){STORAGE_AUTO, CODEC_NONE, NULL}, &(WavefieldLive){0, 0, 0}, "every step, no live map", &plain));
  PetscCall(Misfit(p, t, sl, 5, w, v, obs, plain, &J, again));
  PetscCall(CellsDiffering(again, grad, ncells, &differ));
  range[0] = -share, range[1] = share;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  live map%s: %.1f%% to %.1f%% of the stored term's chunks live on a rank, %" PetscInt_FMT " row-steps with dead chunks between live ones; %" PetscInt_FMT
                        " cells differ without it, %" PetscInt_FMT " from a store first filled with NaN; adjoint: %.1f%% of the parts' steps left, %" PetscInt_FMT
                        " cells differ stepping every part\n",
                        gaps ? " (two sources)" : "", -100 * range[0], 100 * range[1], gapped, differ, stale, left[1] > 0 ? 100 * left[0] / left[1] : 0.0, stepped));
  PetscCheck(!differ, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "full storage: %" PetscInt_FMT " cells' gradient differs with the live map from without it, expected the same bits", differ);
  PetscCheck(!stale, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "full storage: %" PetscInt_FMT " cells' gradient differs when the store held NaN before the forward run, expected the same bits (a dead chunk read)", stale);
  PetscCheck(-range[0] > 0 && range[1] < 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "live map: %.3f to %.3f of the chunks live, expected some dead and some live", -range[0], range[1]);
  PetscCall(CheckQuietLeft(p, "full storage", stepped, left));
  PetscCheck(!gaps || gapped > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "live map with two sources: no row with dead chunks between live ones, expected some (test set-up)");
  PetscCall(WavefieldStoreDestroy(&plain));
  PetscCall(PetscFree2(grad, again));
  PetscFunctionReturn(0);
}

/* The boundary method's support boxes (support.h), watched after every
   forward step: each box holds every cell where u^m is not 0 (the boxes
   are those of this rank, before the group's are joined); outside counts
   the cells the boxes left out over the steps. */
typedef struct {
  const Propagator *p;
  double            outside;
} SupportWatch;

static PetscErrorCode CheckSupport(void *ctx, PetscInt shot, PetscInt m, const float *u)
{
  SupportWatch *w = (SupportWatch *)ctx;
  const Fields *f = &State(w->p)->f; /* u's layout */
  const Box    *b = &State(w->p)->rec.support.box[m];
  PetscInt      i[3];

  PetscFunctionBeginUser;
  for (i[2] = 0; i[2] < f->n[2]; i[2]++)
    for (i[1] = 0; i[1] < f->n[1]; i[1]++)
      for (i[0] = 0; i[0] < f->n[0]; i[0]++) {
        PetscBool in = PETSC_TRUE;
        for (int a = 0; a < 3; a++) in = in && i[a] >= b->lo[a] && i[a] < b->hi[a];
        PetscCheck(in || u[FieldsIndex(f, i)] == 0.0f, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                   "u^%" PetscInt_FMT " is %g at owned cell (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "), outside its support box", m,
                   (double)u[FieldsIndex(f, i)], i[0], i[1], i[2]);
        w->outside += !in;
      }
  PetscFunctionReturn(0);
}

/* The boundary method on a backend that keeps no support boxes (a device
   backend: here the CPU's, its memory taken as the device's), which runs
   the forward field backwards everywhere: the same gradient as with the
   boxes (grad) up to the rounding the boxes leave out. */
static PetscErrorCode CheckWithoutSupport(const Grid *g, const TimeAxis *t, const ShotLocal *sl, const float *w, const float *v, const float *obs, const double *grad)
{
  KernelOps                ops      = KernelOpsCPU;
  BackendOps               memory   = *KernelOpsCPU.backend;
  const PropagatorSettings settings = {.f_pml = 15, .nan_check_interval = 50, .halo_type = HALO_HOST, .overlap = PETSC_TRUE};
  const PetscInt           cells    = g->size[0] * g->size[1] * g->size[2];
  Propagator               p;
  WavefieldStore           store;
  double                  *other, J, sums[2] = {0, 0};
  size_t                   n;
  WavefieldLive            live;
  PetscInt                 nsteps;

  PetscFunctionBeginUser;
  memory.host_memory = PETSC_FALSE;
  ops.backend        = &memory;
  PetscCall(PropagatorCreate(g, &EquationAcoustic, &(EquationKernels){&ops, ops.backend}, (const float *const[]){v}, 2600, t, &settings, &p));
  PetscCall(PropagatorSetGradientMethod(&p, GRADIENT_BOUNDARY));
  GradientStoreShape(&ops, &State(&p)->f, GRADIENT_BOUNDARY, t->nsteps, &n, &nsteps, &live);
  PetscCall(WavefieldStoreCreate(PETSC_COMM_WORLD, ops.backend, State(&p)->f.backend, n, nsteps, &(WavefieldTier){STORAGE_AUTO, CODEC_NONE, NULL}, &live, "boundary", &store));
  PetscCall(PetscMalloc1(cells, &other));
  PetscCall(Misfit(&p, t, sl, 5, w, v, obs, store, &J, other));
  PetscCheck(!State(&p)->rec.support.nlevel, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a backend without host memory kept support boxes");
  for (PetscInt c = 0; c < cells; c++) {
    sums[0] += (other[c] - grad[c]) * (other[c] - grad[c]);
    sums[1] += grad[c] * grad[c];
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  without support boxes: relative L2 %.2e against the gradient with them\n", sqrt(sums[0] / sums[1])));
  PetscCheck(sqrt(sums[0] / sums[1]) < 1e-5, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "boundary gradient without support boxes differs by %.2e (limit 1e-5)", sqrt(sums[0] / sums[1]));
  PetscCall(PetscFree(other));
  PetscCall(WavefieldStoreDestroy(&store));
  PetscCall(PropagatorDestroy(&p));
  PetscFunctionReturn(0);
}

static PetscBool IsSourceCell(const ShotLocal *sl, ptrdiff_t cell)
{
  for (PetscInt i = 0; i < sl->src.nrows; i++)
    if (sl->src.cell[i] == cell) return PETSC_TRUE;
  return PETSC_FALSE;
}

static PetscErrorCode CheckCase(const Case *c)
{
  const PetscReal d[3] = {10, 10, 10};
  PetscInt        pml[3][2], procs[3] = {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE};
  PetscMPIInt     size;
  Grid            g;
  Geometry        geo;
  TimeAxis        t;
  Propagator      p;
  ShotLocal       sl;
  WavefieldStore  store;
  float          *v, *vtrue, *vpert, *obs, *w, *wint;
  double         *grad, *full;
  double          J, Jpm[2][2], dot = 0, dot_all, cells;
  const double    h = 1.0;       /* m/s along Direction(), |Direction| <= 1.5: small enough for the
                                    second-order truncation, large enough for float rounding */
  const PetscReal vmax = 2600;   /* fixed, so the time axis and layers do not move with v */

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 3; a++) pml[a][0] = pml[a][1] = c->pml;
  pml[0][0] = 0; /* free surface on top */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (c->x_only) procs[0] = 1, procs[1] = size;
  PetscCall(GridCreate(PETSC_COMM_WORLD, c->dim, c->n, d, c->order, pml, procs, &g));
  cells = (double)g.size[0] * g.size[1] * g.size[2];
  PetscCall(PetscMalloc5((PetscInt)cells, &v, (PetscInt)cells, &vtrue, (PetscInt)cells, &vpert, (PetscInt)cells, &grad, (PetscInt)cells, &full));
  FillModel(&g, Background, 1, NULL, v);
  FillModel(&g, Anomaly, 1, v, vtrue);
  PetscCall(TimeAxisSetUp(&g, EquationAcoustic.stable_step(&g, vmax), 60, 0.004, 0.9, &t));
  PetscCheck(t.m > 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "test set-up: expected resampling, got m = %d", (int)t.m);
    /* deep enough that the free surface's ghost does not cancel the signal */
  PetscCall(GeometryRegular(c->dim, c->n, d, (const PetscReal[3]){0, 0, 0}, 1, 5, 50, 90, &geo));
  /* off the grid on every axis; receiver 0 1.5 cells deep */
  for (PetscInt a = 0; a < c->dim; a++) {
    geo.src[0].c[a] += 0.3 * d[a];
    for (PetscInt k = 0; k < 5; k++) geo.rec[k].c[a] += (0.25 + 0.1 * k) * d[a];
  }
  geo.rec[0].c[0] = 1.5 * d[0];
  {
    const PropagatorSettings settings = {.f_pml = 15, .nan_check_interval = 50, .progress_interval = 0, .halo_type = HALO_HOST, .overlap = PETSC_TRUE, .skip_quiet = PETSC_TRUE};
    PetscCall(PropagatorCreate(&g, &EquationAcoustic, &(EquationKernels){&KernelOpsCPU, KernelOpsCPU.backend}, (const float *const[]){v}, vmax, &t, &settings, &p));
  }
  PetscCall(ShotLocalize(&g, &geo, 0, PETSC_FALSE, &sl));
  PetscCall(PetscMalloc2(t.nt, &w, t.nsteps, &wint));
  PetscCall(WaveletRicker(t.nt, t.dt, 15, 0.08, w));
  PetscCall(ResampleUp(t.nt, w, t.m, t.nsteps, wint));
  PetscCall(PetscMalloc1(sl.nrec * t.nt + 1, &obs));
  PetscCall(PropagatorSetModel(&p, &t, (const float *const[]){vtrue}));
  PetscCall(PropagatorRun(&p, &t, &sl, 0, wint, obs, NULL));

  core_grid = &g;
  SupportWatch watch = {&p, 0};
  unsigned long rows_whole = 0; /* full storage's live map kept: rows whole along z on every rank */
  for (GradientMethod method = GRADIENT_FULL; method <= GRADIENT_BOUNDARY; method++) {
    double (*dir)(const PetscInt[3]) = method == GRADIENT_FULL ? Direction : CoreDirection;
    double   layer_max = 0, diff = 0, norm = 0, sums[3], all[3];
    size_t        n;
    WavefieldLive live;
    PetscInt nsteps;
    dot = 0;
    PetscCall(PropagatorSetGradientMethod(&p, method));
    GradientStoreShape(&KernelOpsCPU, &State(&p)->f, method, t.nsteps, &n, &nsteps, &live);
    PetscCall(WavefieldStoreCreate(PETSC_COMM_WORLD, KernelOpsCPU.backend, State(&p)->f.backend, n, nsteps, &(WavefieldTier){STORAGE_AUTO, CODEC_NONE, NULL}, &live, GradientMethods[method], &store));
    if (method == GRADIENT_BOUNDARY) {
      p.settings.watch_steps = 1;
      p.settings.watch       = CheckSupport;
      p.settings.watch_ctx   = &watch;
    }
    PetscCall(Misfit(&p, &t, &sl, 5, wint, v, obs, store, &J, grad));
    p.settings.watch_steps = 0;
    if (method == GRADIENT_FULL) {
      rows_whole = live.bytes;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &rows_whole, 1, MPI_UNSIGNED_LONG, MPI_MAX, PETSC_COMM_WORLD));
    }
    if (method == GRADIENT_BOUNDARY && rows_whole) { /* where the CPU keeps Fields.u_live */
      double  *again, left[2];
      PetscInt stepped;
      PetscCall(PetscMalloc1((PetscInt)cells, &again));
      PetscCall(QuietLeft(&p, &t, &sl, wint, v, obs, store, (PetscInt)cells, grad, again, &stepped, left));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  boundary adjoint: %.1f%% of the parts' steps left, %" PetscInt_FMT " cells differ stepping every part\n", left[1] > 0 ? 100 * left[0] / left[1] : 0.0, stepped));
      PetscCall(CheckQuietLeft(&p, "boundary", stepped, left));
      PetscCall(PetscFree(again));
    }
    if (method == GRADIENT_BOUNDARY) {
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &watch.outside, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  support boxes: %.1f%% of the forward's cell-steps outside them\n", 100 * watch.outside / ((double)g.N[0] * g.N[1] * g.N[2] * t.nsteps)));
      PetscCheck(watch.outside > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD order %d: the support boxes held every cell at every step", (int)c->dim, (int)c->order);
    }
    if (method == GRADIENT_FULL) {
      PetscCall(CheckLiveMap(&p, &t, &sl, wint, v, obs, store, n, nsteps, live.bytes, (PetscInt)cells, PETSC_FALSE));
      if (c->twin_dz) {
        ShotLocal twin;
        PetscCall(TwinSource(&g, &State(&p)->f, &geo, c->twin_dz, &twin));
        PetscCall(CheckLiveMap(&p, &t, &twin, wint, v, obs, store, n, nsteps, live.bytes, (PetscInt)cells, PETSC_TRUE));
        PetscCall(ShotLocalDestroy(&twin));
      }
    }
    /* central differences at h and 2h, extrapolated (Richardson): the source's
       cells make the misfit's curvature large enough to show at h alone */
    for (PetscInt q = 0; q < 2; q++)
      for (PetscInt sgn = 0; sgn < 2; sgn++) {
        FillModel(&g, dir, (sgn ? -1 : 1) * (q + 1) * h, v, vpert);
        PetscCall(Misfit(&p, &t, &sl, 5, wint, vpert, obs, NULL, &Jpm[q][sgn], NULL));
      }
    for (PetscInt k = 0; k < g.size[2]; k++)
      for (PetscInt j = 0; j < g.size[1]; j++)
        for (PetscInt i = 0; i < g.size[0]; i++) {
          const PetscInt x[3] = {g.start[0] + i, g.start[1] + j, g.start[2] + k}, c = i + g.size[0] * (j + g.size[1] * k);
          const PetscBool in_core = CoreDirection(x) != 0 || Direction(x) == 0;
          dot += grad[c] * dir(x);
          if (method == GRADIENT_FULL) full[c] = grad[c];
          else if (in_core) {
            diff += (grad[c] - full[c]) * (grad[c] - full[c]);
            norm += full[c] * full[c];
          } else {
            const PetscInt own[3] = {i, j, k};
            if (!IsSourceCell(&sl, FieldsIndex(&State(&p)->f, own))) layer_max = PetscMax(layer_max, fabs(grad[c]));
          }
        }
    sums[0] = dot, sums[1] = diff, sums[2] = norm;
    PetscCallMPI(MPI_Allreduce(sums, all, 3, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &layer_max, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    dot_all = all[0];
    {
      const double fd = (4 * (Jpm[0][0] - Jpm[0][1]) / (2 * h) - (Jpm[1][0] - Jpm[1][1]) / (4 * h)) / 3, rel = fabs(fd - dot_all) / fabs(fd);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD order %d pml %d (m = %d), %s: J %.6e, finite difference %.9e, adjoint %.9e, relative difference %.2e\n", (int)c->dim,
                            (int)c->order, (int)c->pml, (int)t.m, GradientMethods[method], J, fd, dot_all, rel));
      PetscCheck(rel < 1e-3, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD order %d, %s: adjoint gradient %.9e against finite difference %.9e (relative %.2e, limit 1e-3)",
                 (int)c->dim, (int)c->order, GradientMethods[method], dot_all, fd, rel);
    }
    if (method == GRADIENT_BOUNDARY) PetscCall(CheckWithoutSupport(&g, &t, &sl, wint, v, obs, grad));
    if (method == GRADIENT_BOUNDARY) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  against full storage in the core: relative L2 %.2e; largest gradient in the layers %.1e\n", sqrt(all[1] / all[2]), layer_max));
      PetscCheck(sqrt(all[1] / all[2]) < 1e-5, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD order %d: boundary gradient differs from full storage's in the core by %.2e (limit 1e-5)",
                 (int)c->dim, (int)c->order, sqrt(all[1] / all[2]));
      PetscCheck(layer_max == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%dD order %d: boundary gradient %.3e in a layer cell, expected 0", (int)c->dim, (int)c->order, layer_max);
    }
    PetscCall(WavefieldStoreDestroy(&store));
  }
  PetscCall(ShotLocalDestroy(&sl));
  PetscCall(PropagatorDestroy(&p));
  PetscCall(GeometryDestroy(&geo));
  PetscCall(GridDestroy(&g));
  PetscCall(PetscFree2(w, wint));
  PetscCall(PetscFree5(v, vtrue, vpert, grad, full));
  PetscCall(PetscFree(obs));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const Case cases[] = {
    {2, 8, {30, 34, 1}, 6, PETSC_FALSE, 0},
    {2, 8, {30, 22, 1}, 6, PETSC_TRUE,  0},
    {2, 8, {120, 22, 1}, 6, PETSC_TRUE,  0}, /* rows of 3 live-map chunks, live and dead along a row as the wave goes down */
    {2, 8, {200, 22, 1}, 6, PETSC_TRUE,  150}, /* rows of 4 chunks: live, dead, live while the two sources' waves are apart */
    {2, 4, {30, 34, 1}, 6, PETSC_FALSE, 0},
    {2, 2, {30, 34, 1}, 5, PETSC_FALSE, 0},
    {2, 16, {30, 34, 1}, 6, PETSC_FALSE, 0},
    {2, 6, {30, 22, 1}, 5, PETSC_TRUE,  0},
    {3, 8, {18, 20, 16}, 4, PETSC_FALSE, 0},
    {3, 12, {18, 20, 16}, 4, PETSC_FALSE, 0},
    {3, 2, {18, 20, 16}, 4, PETSC_FALSE, 0},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(EventsRegister());
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) PetscCall(CheckCase(&cases[k]));
  PetscCall(PetscFinalize());
  return 0;
}
