#include "setup/plan.h"
#include "setup/memory.h"
#include "equations/store.h"
#include "equations/codec.h"
#include "data/util.h"
#include "shot/revolve.h"

/* The expected cost of a gradient in forward runs: 1 for the forward run,
   then the equation's costs (Equation.gradient_cost), and what the
   backend adds: a device store in host memory, the first use of a host
   store's pages. */

/* What the host link adds for a device backend whose store lies in host
   memory, in forward runs per float stored per cell and step (per
   dimension): the floats go out during the forward run and come back
   during the adjoint, faster than the steps can hide.  From
   scripts/bench-gpu (d) on an H200 over PCIe (docs/gpu.md, 2026-11-27):
   full storage in page-locked host memory against device memory, 14.75
   against 3.86 forward runs in 2D 4096^2 (0.98 floats per cell and step),
   7.43 against 3.69 in 3D 256^3 (0.65); a 3D step is slower, so it hides
   more of the link.  Without it the planner took full storage in host
   memory, 3 times slower there, over the boundary method's band in device
   memory. */
static const double HostLinkCost[2] = {11.1, 5.8};

/* A snapshot's copy (taken or restored), in forward steps: what brings the
   expected time to the measured one in `METHODS=checkpoint scripts/bench-
   gradient` on 2D 512^2 x 5000 and 3D 96^3 x 600 steps with 40 snapshots
   (2 threads of the AMD EPYC, constant density, 2026-12-03: 5.8 and 5.0
   forward processes; 0.25 for both).  -log_view's fwiSnapshot timed a
   copy at 0.17 ms against a 2D step's 0.20 ms, more than this fit: the
   figures are one machine's, and noisy. */
static const double SnapshotCopyCost = 0.25;
/* What a snapshot's copy adds on disk (-wavefield_storage disk), in forward
   steps: 2D 512^2 x 5000, 40 snapshots (118 MB, in the page cache), the
   same machine: 4.1-4.6 forward processes in memory against 5.2-8.5 on
   disk over 3 rounds, 9540 copies; 1.4 the median round's difference per
   copy.  3D unmeasured. */
static const double SnapshotDiskCost = 1.4;
/* A device's snapshot copied within device memory, against across the
   host link: a copy reads and writes device memory (H200: 4.8 TB/s)
   where the link moves about 50 GB/s each way.  Not measured. */
static const double DeviceCopyShare = 0.02;

/* What a tier adds, in forward runs per float per cell and step (2D,
   3D): the disk tier per float written and read back, compression per
   float encoded and decoded.  From `TIERS="disk bf16 int8" scripts/bench-
   gradient` on 2D 1024^2 x 1000 and 3D 128^3 x 400 steps, full storage,
   the gradient's time per step over the forward run's against the same in
   memory (2 threads of the AMD EPYC, its virtual disk through the page
   cache, 2026-12-03: disk 6.42 against 2.17 in 2D at 1.1 floats a cell
   and step, 4.53 against 1.81 in 3D at 2.6; int8 2.98 against 2.05 and
   2.03 against 1.79, bf16 noisier).  A node's local NVMe disk will do
   better than this one; the ranking is what the planner needs. */
static const double DiskCost[2] = {3.9, 1.05}, CodecCost[2] = {0.6, 0.15};

#define NMETHODS 3 /* GRADIENT_FULL, GRADIENT_BOUNDARY, GRADIENT_CHECKPOINT: method k + 1 */

/* Whether method k + 1 is offered: the equation's own methods, and
   checkpointing around full storage where the equation lists its forward
   state (shot/checkpoint.c). */
static PetscBool Offered(const Backend *backend, PetscInt k)
{
  const Equation *eq = backend->eq;

  if (k + 1 != GRADIENT_CHECKPOINT) return eq->keeps[k + 1] ? PETSC_TRUE : PETSC_FALSE;
  return eq->keeps[GRADIENT_FULL] && eq->scheme->forward_state ? PETSC_TRUE : PETSC_FALSE;
}

/* Checkpointing's ring of terms (a window's steps and one more) against
   its snapshots' bytes, where -checkpoint_window is auto: a quarter.  A
   step's terms take less than a snapshot of the state (acoustic 2D: 1
   float a cell against 2 and the layer memory), and the window removes
   the forward step before each reverse step and the restore of a
   snapshot, so its memory is better spent there than on more snapshots
   (2D 512^2 x 5000, 40 snapshots: windows of 24 take 2.8 forward runs of
   steps, windows of 1 3.8, 50 snapshots and windows of 1 3.7). */
#define RING_SHARE 0.25

/* What each method keeps, in words (checkpointing: with its snapshots and window). */
static const char *Keeps(const Backend *backend, PetscInt k, PetscInt snapshots, PetscInt window, char *text, size_t len)
{
  if (k + 1 != GRADIENT_CHECKPOINT) return backend->eq->keeps[k + 1];
  PetscSNPrintf(text, len, "%" PetscInt_FMT " snapshots of the state, %" PetscInt_FMT " steps' terms", snapshots, window + 1);
  return text;
}

/* Checkpointing's snapshots and window: as asked, or auto: the snapshots
   that fit in their room (bytes), the window the longest whose ring takes
   at most RING_SHARE of the snapshots' bytes and fits in memory (bytes
   left there) beside them; without a snapshot, the longest that fits, up
   to the run (a window of one step would run every step again from the
   start for each).  With the snapshots beside the ring (apart false) both
   rooms are one, shared 1 to RING_SHARE.  At most one snapshot a
   window. */
static void CheckpointShape(const Options *o, PetscInt nsteps, double room, double memory, PetscBool apart, double snapshot, double term, PetscInt *snapshots, PetscInt *window)
{
  const double most = (double)PETSC_MAX_INT;
  double       s, w;

  if (o->checkpoints != PETSC_DECIDE) s = (double)o->checkpoints;
  else if (apart) s = room / snapshot;
  else if (o->checkpoint_window != PETSC_DECIDE) s = (room - (o->checkpoint_window + 1) * term) / snapshot;
  else s = room / (snapshot * (1 + RING_SHARE));
  *snapshots = (PetscInt)PetscMax(0.0, PetscMin(most, floor(s)));
  w          = PetscMin(*snapshots ? RING_SHARE * *snapshots * snapshot : memory, memory - (apart ? 0 : *snapshots * snapshot)) / term - 1;
  *window    = o->checkpoint_window != PETSC_DECIDE ? o->checkpoint_window : (PetscInt)PetscMax(1.0, PetscMin(most, floor(w)));
  *window    = PetscMin(*window, nsteps);
  *snapshots = PetscMin(*snapshots, (nsteps + *window - 1) / *window - 1);
}

/* How often one store serves: every shot of the busiest group, in every
   evaluation (an inversion's: at least one per iteration, -tao_max_it or
   the default, in every band). */
static double StoreUses(const Options *o, const Layout *l, const Geometry *geo)
{
  const double evaluations = o->mode == MODE_INVERT ? (double)(o->tao_max_it + 1) * PetscMax(o->nbands, 1) : 1;

  return (double)((geo->nshots + l->ngroups - 1) / l->ngroups) * evaluations;
}

/* Cells ahead of the wave front that a step's term still holds other than
   zero: the stencil's precursor, until its values are flushed to zero.
   Fitted to the live share -log_view prints (order 8, 2D 1024^2 and 2048^2,
   500 and 1000 steps; docs/numerics.md). */
#define REACH_AHEAD 50

/* The grid undecomposed (g a copy of the run's): what the planner takes
   must not follow the decomposition. */
static Grid WholeGrid(const Grid *g)
{
  Grid w  = *g;
  w.pitch = 0;
  for (PetscInt a = 0; a < 3; a++) {
    w.start[a] = 0;
    w.size[a]  = g->N[a];
    w.nbr[a][0] = w.nbr[a][1] = MPI_PROC_NULL;
  }
  return w;
}

/* The share of the cells a packed full store writes, and so maps
   (WavefieldLive, BackendOps.mem_reserve), and (chunk 1) that the boundary
   method runs the forward field back in, g undecomposed (WholeGrid): over
   the steps, the mean of the share of the cells within vfast t +
   REACH_AHEAD cells of a source along each axis (a box, the rows' extent
   along z rounded out to the live map's chunks), of the shot of the group
   that reaches the most (every shot packs from the same starts, so the
   pages one shot maps serve the next). */
static double ReachShare(const Grid *g, const Geometry *geo, const Layout *l, const TimeAxis *t, PetscReal vfast, PetscInt chunk)
{
  const PetscInt samples = PetscMin(t->nsteps, 64);
  double         sum     = 0;

  for (PetscInt i = 0; i < samples; i++) {
    const double time = (i + 0.5) * t->nsteps / samples * t->dt_int;
    double       most = 0;
    for (PetscInt k = l->group_id; k < geo->nshots; k += l->ngroups) {
      double share = 1;
      for (PetscInt a = 0; a < g->dim; a++) {
        const double reach = vfast * time / g->d[a] + REACH_AHEAD, at = geo->src[k].c[a] / g->d[a] + g->pml[a][0];
        double       lo = PetscMax(at - reach, (double)g->start[a]), hi = PetscMin(at + reach, (double)(g->start[a] + g->size[a]));
        if (!a && hi > lo) { /* whole chunks of the rows */
          lo = PetscMax(g->start[a] + floor((lo - g->start[a]) / chunk) * chunk, (double)g->start[a]);
          hi = PetscMin(g->start[a] + ceil((hi - g->start[a]) / chunk) * chunk, (double)(g->start[a] + g->size[a]));
        }
        share *= PetscMax(hi - lo, 0) / g->size[a];
      }
      most = PetscMax(most, share);
    }
    sum += most;
  }
  return samples ? sum / samples : 1;
}

/* What a method needs on a rank (bytes): backend fields, the stored
   steps, and the store's buffers in host and device memory
   (WavefieldStoreBufferBytes: a staged store's two device buffers, an
   encoded store's), with its steps in host memory, on disk and (resident:
   a device's) in device memory. */
typedef struct {
  double fields, steps, map, buffers[2], disk_buffers[2], resident; /* map: the store's live map, in host memory whatever the tier */
} Need;

/* Where a method's steps go. */
typedef enum { TIER_HOST, TIER_DEVICE, TIER_DISK } Tier;

/* A rank's figures, reduced by a max over the world as doubles: each
   method's need, the rest of the run (host, device), and the free device
   memory's negative (so its max is the least). */
typedef struct {
  Need   need[NMETHODS];
  double snapshot; /* checkpointing: a snapshot of the forward state */
  double term[2];  /* checkpointing: a step's terms in its ring, and their live map */
  double rest[2], free_device;
} Figures;

/* Each method's floats stored per cell and step (a host backend's first
   use of them), and the same before compression: over every rank's padded
   cells, summed over the world, not the busiest rank's, so that the times
   the planner expects, and the method it takes, do not follow the
   decomposition (full storage's, so many floats a padded cell, are the
   same on any ranks): 4 ranks take what 1 takes and give its bits. */
typedef struct {
  double first_use[NMETHODS], raw[NMETHODS], padded;
  double mapped[NMETHODS]; /* first_use in memory: a packed store's, only the share the waves reach (ReachShare) */
  double term[2], snapshot; /* checkpointing: a step's terms and their live map, a snapshot (Figures) */
} Stored;

/* Checkpointing as planned: its snapshots and window, where the snapshots
   lie, what a copy of one costs (forward steps), and the schedule's
   forward steps and copies. */
typedef struct {
  PetscInt snapshots, window, steps, copies;
  Tier     tier;
  double   copy, cost; /* cost: in forward runs beyond the forward run */
} CheckpointPlan;

/* c's schedule (its steps and copies) from its shape, and its cost: the
   steps it runs again, its copies of snapshots, and the first use of its
   memory (the ring, and the snapshots but on disk), first_use forward runs
   per float stored per cell and step over every rank (s). */
static PetscErrorCode CheckpointSchedule(PetscInt nsteps, const Stored *s, double first_use, CheckpointPlan *c)
{
  Revolve r;

  PetscFunctionBeginUser;
  PetscCall(RevolveCreate(nsteps, c->snapshots, c->window, &r));
  c->steps  = r.forward_steps;
  c->copies = r.copies;
  c->cost   = (double)c->steps / nsteps - 1 + c->copy * c->copies / nsteps +
            first_use * ((double)(c->window + 1) * (s->term[0] + s->term[1]) + (c->tier == TIER_DISK ? 0 : (double)c->snapshots * s->snapshot)) / s->padded;
  PetscCall(RevolveDestroy(&r));
  PetscFunctionReturn(0);
}

/* c's shape (CheckpointShape's arguments) and schedule.  Where both
   -checkpoints and -checkpoint_window are auto, the room is tried whole
   and in quarters, sixteenths, ... down to a snapshot's, and the shape
   expected to be fastest kept: where fresh memory maps slowly, a ring of
   every step costs what full storage's store does (2D 512^2 x 500 steps,
   the AMD EPYC: 0.6 GB in 0.06-0.63 s of allocation, a forward run's
   steps 0.2 s), more than running a few steps again. */
static PetscErrorCode CheckpointFit(const Options *o, PetscInt nsteps, double room, double memory, PetscBool apart, const Figures *most, const Stored *s, double first_use,
                                    CheckpointPlan *c)
{
  const PetscBool search = o->checkpoints == PETSC_DECIDE && o->checkpoint_window == PETSC_DECIDE ? PETSC_TRUE : PETSC_FALSE;
  const double    term   = most->term[0] + most->term[1];
  CheckpointPlan  best   = *c;

  PetscFunctionBeginUser;
  for (double share = 1; share == 1 || (search && room * share >= most->snapshot); share /= 4) {
    CheckpointPlan trial = *c;
    CheckpointShape(o, nsteps, room * share, memory, apart, most->snapshot, term, &trial.snapshots, &trial.window);
    PetscCall(CheckpointSchedule(nsteps, s, first_use, &trial));
    if (share == 1 || trial.cost < best.cost) best = trial;
  }
  *c = best;
  PetscFunctionReturn(0);
}

/* Whether the run has a device backend. */
static PetscBool OnDevice(const Backend *backend) { return backend->memory->device_free_memory ? PETSC_TRUE : PETSC_FALSE; }

/* Host, device and disk bytes of a need, placed: a device backend's fields
   in device memory, a host backend's in host memory. */
static void Place(const Backend *backend, Tier tier, const Need *n, double bytes[3])
{
  const PetscBool device = OnDevice(backend);

  bytes[0] = (device ? 0 : n->fields) + n->map + (tier == TIER_DISK ? n->disk_buffers[0] : tier == TIER_HOST ? n->steps + n->buffers[0] : 0);
  bytes[1] = device ? n->fields + (tier == TIER_DISK ? n->disk_buffers[1] : tier == TIER_HOST ? n->buffers[1] : n->steps + n->resident) : 0;
  bytes[2] = tier == TIER_DISK ? n->steps : 0;
}

/* The tier of a method's steps: disk where asked, or (auto, with
   -wavefield_dir) where the busiest rank's do not fit in host memory; a
   device backend's in device memory when they fit there, else in host
   memory.  Not checkpointing's (PlanCheckpoints). */
static Tier TierOf(const Options *o, const Backend *backend, const Need *busiest, double host_budget, double device_budget)
{
  const WavefieldStorage where = (WavefieldStorage)o->wavefield_storage;
  double                 bytes[3];

  if (where == STORAGE_DISK) return TIER_DISK;
  if (OnDevice(backend) && where != STORAGE_HOST && busiest->fields + busiest->steps + busiest->resident <= device_budget) return TIER_DEVICE;
  Place(backend, TIER_HOST, busiest, bytes);
  return where == STORAGE_AUTO && o->wavefield_dir[0] && bytes[0] > host_budget ? TIER_DISK : TIER_HOST;
}

/* Checkpointing's shape and tier, with budget (host, device, disk bytes)
   for ck (the busiest rank's need before its ring): as many snapshots
   as -checkpoints asks, or as CheckpointFit finds fastest among those
   that fit, on disk where asked; else in host memory,
   or on a device beside the ring in device memory where that is the
   faster plan (and fits) than host memory with the ring on the device.
   link_copy: a snapshot's copy across the host link, in forward steps. */
static PetscErrorCode PlanCheckpoints(const Options *o, const Backend *backend, PetscInt nsteps, const Need *ck, const Figures *most, const Stored *s, const double budget[3],
                                      double link_copy, double first_use, CheckpointPlan *plan)
{
  const WavefieldStorage where  = (WavefieldStorage)o->wavefield_storage;
  const PetscBool        device = OnDevice(backend);
  const double           copy   = device ? link_copy : SnapshotCopyCost;

  PetscFunctionBeginUser;
  *plan = (CheckpointPlan){.tier = where == STORAGE_DISK ? TIER_DISK : TIER_HOST, .copy = copy + (where == STORAGE_DISK ? SnapshotDiskCost : 0)};
  if (where == STORAGE_DISK)
    PetscCall(CheckpointFit(o, nsteps, budget[2], device ? budget[1] - ck->fields : budget[0] - ck->fields - ck->disk_buffers[0], PETSC_TRUE, most, s, first_use, plan));
  else if (!device) PetscCall(CheckpointFit(o, nsteps, budget[0] - ck->fields, budget[0] - ck->fields, PETSC_FALSE, most, s, first_use, plan));
  else PetscCall(CheckpointFit(o, nsteps, budget[0] - ck->map, budget[1] - ck->fields, PETSC_TRUE, most, s, first_use, plan));
  if (device && where != STORAGE_DISK && where != STORAGE_HOST) {
    CheckpointPlan on = {.tier = TIER_DEVICE, .copy = DeviceCopyShare * link_copy};
    PetscCall(CheckpointFit(o, nsteps, budget[1] - ck->fields, budget[1] - ck->fields, PETSC_FALSE, most, s, first_use, &on));
    if (ck->fields + (on.window + 1) * most->term[0] + on.snapshots * most->snapshot <= budget[1] && on.cost < plan->cost) *plan = on;
  }
  PetscFunctionReturn(0);
}

static void Amount(double bytes, char *s, size_t len)
{
  if (bytes > 0) FormatBytes(bytes, s, len);
  else PetscStrncpy(s, "-", len);
}

/* The refusal: what the named or least demanding method needs, against
   what the gradient may use; a method that fits, or the ranks that would
   (a rank's share shrinks about as 1 / ranks). */
static PetscErrorCode Refuse(const Options *o, const Layout *l, const Backend *backend, PetscInt named, const PetscBool fits[NMETHODS], double busiest[NMETHODS][3],
                             const double budget[3], const char *host_why, double snapshot, const double cost[NMETHODS])
{
  const PetscBool device = OnDevice(backend);
  PetscInt        small  = 0;
  double          over;
  char            need[3][32], have[3][32], other[96] = "", fewer[96] = "", disk[96] = "";

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < NMETHODS; k++)
    if (fits[k] && k + 1 == GRADIENT_CHECKPOINT) PetscCall(PetscSNPrintf(other, sizeof(other), "-gradient_method checkpoint, which fits (%.1f forward runs a gradient), or ", cost[k]));
    else if (fits[k]) PetscCall(PetscSNPrintf(other, sizeof(other), "-gradient_method %s (or auto), which fits, or ", GradientMethods[k + 1]));
  while (!Offered(backend, small)) small++;
  for (PetscInt k = small + 1; k < NMETHODS; k++)
    if (Offered(backend, k) && k + 1 != GRADIENT_CHECKPOINT && busiest[k][0] + busiest[k][1] < busiest[small][0] + busiest[small][1]) small = k;
  if (named >= 0) small = named;
  if (small + 1 == GRADIENT_CHECKPOINT) {
    char one[32];
    FormatBytes(snapshot, one, sizeof(one));
    PetscCall(PetscSNPrintf(fewer, sizeof(fewer), "fewer -checkpoints (a snapshot takes %s), ", one));
  }
  over = PetscMax(busiest[small][0] / PetscMax(budget[0], 1.0), device ? busiest[small][1] / PetscMax(budget[1], 1.0) : 0);
  over = PetscMax(over, busiest[small][2] / PetscMax(budget[2], 1.0));
  for (int t = 0; t < 3; t++) {
    FormatBytes(busiest[small][t], need[t], sizeof(need[t]));
    FormatBytes(PetscMax(budget[t], 0), have[t], sizeof(have[t]));
  }
  if (busiest[small][2] > budget[2])
    SETERRQ(l->world, PETSC_ERR_USER_INPUT,
            "%s%s: the gradient's forward wavefield needs %s on disk per rank with -gradient_method %s%s, but -wavefield_dir %s gives a rank %s (%.0f%% of its free space, shared by "
            "the node's ranks); use a folder on a larger disk, %s%sabout %" PetscInt_FMT " ranks per shot group (now %d), or fewer samples (-nt) or a larger -dt",
            named >= 0 ? "-gradient_method " : "No gradient method fits", named >= 0 ? GradientMethods[named + 1] : "", need[2], GradientMethods[small + 1],
            named >= 0 ? "" : " (the least of the methods above)", o->wavefield_dir, have[2], 100 * MEMORY_SHARE, other, fewer,
            PetscMax((PetscInt)ceil(1.1 * over * l->group_size), l->group_size + 1), (int)l->group_size);
  if (!o->wavefield_dir[0]) PetscCall(PetscSNPrintf(disk, sizeof disk, " (or give -wavefield_dir, a local disk's folder, for what does not fit)"));
  SETERRQ(l->world, PETSC_ERR_USER_INPUT,
          "%s%s: the gradient's forward wavefield needs %s of host memory%s%s per rank with -gradient_method %s%s, but a rank may give it %s of host memory "
          "(%s)%s%s%s%s; use %s%sabout %" PetscInt_FMT " ranks per shot group (now %d), raise -wavefield_memory if the memory is there, or use fewer samples (-nt) or a larger -dt",
          named >= 0 ? "-gradient_method " : "No gradient method fits", named >= 0 ? GradientMethods[named + 1] : "", need[0], device ? " and " : "", device ? need[1] : "",
          GradientMethods[small + 1], named >= 0 ? "" : " (the least of the methods above)", have[0], host_why, device ? " and " : "", device ? have[1] : "",
          device ? " of device memory" : "", disk, other, fewer, PetscMax((PetscInt)ceil(1.1 * over * l->group_size), l->group_size + 1), (int)l->group_size);
}

/* Refuses tiers the run cannot have, before any work. */
static PetscErrorCode CheckTier(const Options *o, const Layout *l, const Backend *backend)
{
  const WavefieldStorage where = (WavefieldStorage)o->wavefield_storage;

  PetscFunctionBeginUser;
  PetscCheck(where != STORAGE_DISK || o->wavefield_dir[0], l->world, PETSC_ERR_USER_INPUT, "-wavefield_storage disk: expected -wavefield_dir, the folder on a local disk to keep it in");
  PetscCheck(where == STORAGE_AUTO || where == STORAGE_DISK || !o->wavefield_dir[0], l->world, PETSC_ERR_USER_INPUT,
             "-wavefield_dir %s with -wavefield_storage %s: the steps are kept in memory; expected -wavefield_storage auto or disk", o->wavefield_dir, WavefieldStorages[where]);
  PetscCheck(where != STORAGE_DEVICE || OnDevice(backend), l->world, PETSC_ERR_USER_INPUT, "-wavefield_storage device: the %s backend has no device memory; expected auto, host or disk",
             backend->memory->name);
  PetscCheck(o->gradient_method != GRADIENT_CHECKPOINT || o->wavefield_codec == CODEC_NONE, l->world, PETSC_ERR_USER_INPUT,
             "-gradient_method checkpoint keeps its snapshots and steps as floats (its gradient is exact): expected no -wavefield_compression");
  PetscFunctionReturn(0);
}

PetscErrorCode GradientPlanChoose(const Options *o, const Layout *l, const Backend *backend, const ModelInfo *m, const Geometry *geo, const Grid *g,
                                  const TimeAxis *t, PetscReal vfast, PetscInt nimage, GradientPlan *plan)
{
  const WavefieldStorage where = (WavefieldStorage)o->wavefield_storage;
  const WavefieldCodec   codec = (WavefieldCodec)o->wavefield_codec;
  const PetscInt         dim   = g->dim > 2 ? 1 : 0;
  const EquationGradientCost *c = &backend->eq->gradient_cost[dim];
  const double                link = HostLinkCost[dim] / c->step, first_use = backend->memory->first_use[dim] / c->step, first_use_reserved = backend->memory->first_use_reserved[dim] / c->step;
  const double                disk_cost = DiskCost[dim] / c->step, codec_cost = codec != CODEC_NONE && !OnDevice(backend) ? CodecCost[dim] / c->step : 0; /* a device's: a pass on the device, not counted */
  Figures   mine = {0}, most;
  Stored    here = {0}, stored;
  double    host_limit, budget[3] = {0, 0, 0}, busiest[NMETHODS][3], cost[NMETHODS], core = 1, cells = 1, uses = 1;
  PetscBool fits[NMETHODS];
  Tier      tier[NMETHODS];
  PetscInt  chosen = -1, snapshots = 0, window = 1;
  PetscBool packed[NMETHODS] = {PETSC_FALSE}, live_here[NMETHODS] = {PETSC_FALSE}; /* a store that maps only what its live chunks fill (WavefieldStoreCreate), were the grid undecomposed; and on these ranks */
  double    reach = 1;                        /* ReachShare, where a store is packed */
  const Grid whole = WholeGrid(g);
  int       width = 42; /* the keeps column's */
  CheckpointPlan ck_plan = {.tier = TIER_HOST};
  char      why[256], host_why[512], text[3][32];

  PetscFunctionBeginUser;
  PetscCheck(backend->eq->gradient, l->world, PETSC_ERR_SUP, "The %s equation has no gradient yet: forward modelling only (-mode forward)", backend->eq->name);
  PetscCall(CheckTier(o, l, backend));
  for (PetscInt k = 0; k < NMETHODS; k++) {
    const PetscBool      ring = k + 1 == GRADIENT_CHECKPOINT ? PETSC_TRUE : PETSC_FALSE;
    const GradientMethod as   = ring ? GRADIENT_FULL : (GradientMethod)(k + 1);
    const WavefieldCodec kept = ring ? CODEC_NONE : codec;
    size_t               n;
    PetscInt             nsteps;
    WavefieldLive        live;
    if (!Offered(backend, k)) continue;
    backend->eq->store_shape(backend->ops, g, as, nimage, t->nsteps, &n, &nsteps, &live);
    if (kept != CODEC_NONE) live = (WavefieldLive){0, 0, 0}; /* an encoded step is whole */
    mine.need[k].fields       = backend->eq->method_bytes(backend->ops, g, as, nimage);
    mine.need[k].steps        = WavefieldStoreBytes(n, nsteps, kept);
    mine.need[k].map          = (double)live.bytes * nsteps;
    if (!ring && kept == CODEC_NONE && backend->memory->mem_reserve) { /* on any ranks as on one: on ranks across z faces, which keep no live map, it under-states the mapping */
      size_t        n1;
      PetscInt      nsteps1;
      WavefieldLive one;
      backend->eq->store_shape(backend->ops, &whole, as, nimage, t->nsteps, &n1, &nsteps1, &one);
      packed[k]    = one.bytes ? PETSC_TRUE : PETSC_FALSE;
      live_here[k] = live.bytes ? PETSC_TRUE : PETSC_FALSE;
      if (packed[k]) reach = ReachShare(&whole, geo, l, t, vfast, one.chunk);
    }
    here.raw[k]               = (double)n * nsteps * sizeof(float);
    WavefieldStoreBufferBytes(backend->memory, n, &(WavefieldTier){STORAGE_HOST, kept, NULL}, mine.need[k].buffers);
    {
      double resident[2];
      WavefieldStoreBufferBytes(backend->memory, n, &(WavefieldTier){OnDevice(backend) ? STORAGE_DEVICE : STORAGE_AUTO, kept, NULL}, resident);
      mine.need[k].resident = resident[1];
    }
    WavefieldStoreBufferBytes(backend->memory, n, &(WavefieldTier){STORAGE_DISK, kept, NULL}, mine.need[k].disk_buffers);
    if (ring) { /* and a second state, which runs the steps again; its ring of steps stays in memory (counted once its window is known), its snapshots are what it stores */
      PetscInt padded[3];
      double   all, layers;
      backend->eq->state_bytes(g, &all, &layers);
      mine.snapshot = backend->eq->forward_fields[dim] * (double)GridPaddedCells(g, padded) * sizeof(float) + layers;
      mine.term[0]  = WavefieldStoreBytes(n, 1, CODEC_NONE);
      mine.term[1]  = (double)live.bytes;
      mine.need[k].fields += all;
      mine.need[k].steps           = 0;
      mine.need[k].map             = 0;
      mine.need[k].buffers[0]      = mine.need[k].buffers[1] = 0;
      mine.need[k].disk_buffers[0] = 2 * mine.snapshot; /* host buffers between the backend's memory and the file */
      mine.need[k].disk_buffers[1] = 0;
      mine.need[k].resident        = 0;
      mine.need[k].resident        = 0;
    }
  }
  PetscCall(MemoryRest(o, l, backend, m, geo, g, t, mine.rest));
  for (PetscInt a = 0; a < 3; a++) {
    cells *= (double)g->N[a];
    core *= (double)g->n[a];
  }
  /* the boundary method's forward field run back: on a host backend only inside the boxes the waves reached (FieldSupport,
     src/equations/support.h), the share of the cells within their reach; elsewhere the core */
  const PetscBool boxes    = Offered(backend, GRADIENT_BOUNDARY - 1) && backend->memory->host_memory ? PETSC_TRUE : PETSC_FALSE;
  const double    run_back = boxes ? PetscMin(core / cells, ReachShare(&whole, geo, l, t, vfast, 1)) : core / cells;
  {
    PetscInt padded[3];
    here.padded = (double)GridPaddedCells(g, padded) * sizeof(float) * (double)t->nsteps;
  }
  for (PetscInt k = 0; k < NMETHODS; k++) {
    here.first_use[k] = mine.need[k].steps + mine.need[k].map; /* checkpointing's: its plan's (CheckpointSchedule) */
    here.mapped[k]    = (packed[k] ? reach : 1) * mine.need[k].steps + mine.need[k].map;
  }
  here.term[0]  = mine.term[0];
  here.term[1]  = mine.term[1];
  here.snapshot = mine.snapshot;
  PetscCallMPI(MPI_Allreduce(&here, &stored, (PetscMPIInt)(sizeof(Stored) / sizeof(double)), MPI_DOUBLE, MPI_SUM, l->world));
  for (PetscInt k = 0; k < NMETHODS; k++) {
    stored.first_use[k] /= stored.padded;
    stored.mapped[k] /= stored.padded;
    stored.raw[k] /= stored.padded;
  }
  if (backend->memory->device_free_memory) {
    size_t avail;
    PetscCall(backend->memory->device_free_memory(&avail));
    mine.free_device = -(double)avail;
  }
  PetscCallMPI(MPI_Allreduce(&mine, &most, (PetscMPIInt)(sizeof(Figures) / sizeof(double)), MPI_DOUBLE, MPI_MAX, l->world));
  PetscCall(MemoryHostLimit(l->world, o->memory_limit, &host_limit, why, sizeof(why)));
  budget[0] = host_limit - most.rest[0];
  FormatBytes(host_limit, text[0], sizeof(text[0]));
  PetscCall(PetscSNPrintf(host_why, sizeof(host_why), "what the host limit of %s, %s, leaves after the rest of the run", text[0], why));
  if (o->wavefield_memory > 0 && o->wavefield_memory * 1048576.0 < budget[0]) {
    budget[0] = o->wavefield_memory * 1048576.0;
    PetscCall(PetscSNPrintf(host_why, sizeof(host_why), "-wavefield_memory"));
  }
  if (backend->memory->device_free_memory) budget[1] = -MEMORY_SHARE * most.free_device - most.rest[1];
  if (o->wavefield_dir[0]) PetscCall(MemoryDiskLimit(l->world, o->wavefield_dir, &budget[2]));

  uses = StoreUses(o, l, geo);
  /* checkpointing: the snapshots and window asked for, or the fastest shape that fits beside the rest, the snapshots in memory or on disk, the ring in memory;
     a device's snapshot crosses the host link once: half of what a float stored per cell and step costs there, per float of the snapshot per cell */
  if (Offered(backend, GRADIENT_CHECKPOINT - 1)) {
    Need *ck = &most.need[GRADIENT_CHECKPOINT - 1], *own = &mine.need[GRADIENT_CHECKPOINT - 1];
    PetscCall(PlanCheckpoints(o, backend, t->nsteps, ck, &most, &stored, budget, 0.5 * link * most.snapshot * l->group_size / (sizeof(float) * cells), first_use / uses, &ck_plan));
    snapshots  = ck_plan.snapshots;
    window     = ck_plan.window;
    ck->steps = most.snapshot * snapshots;
    own->steps = mine.snapshot * snapshots;
    ck->fields += (double)(window + 1) * most.term[0];
    ck->map = (double)(window + 1) * most.term[1];
    own->fields += (double)(window + 1) * mine.term[0];
    own->map = (double)(window + 1) * mine.term[1];
  }
  { /* the keeps column as wide as its longest entry (the elastic equation's full storage says what it keeps for which gradient) */
    char keeps[64];
    for (PetscInt k = 0; k < NMETHODS; k++)
      if (Offered(backend, k)) width = PetscMax(width, (int)strlen(Keeps(backend, k, snapshots, window, keeps, sizeof(keeps))));
  }
  PetscCall(PetscPrintf(l->world, "gradient methods, per rank (the busiest):\n  %-10s %-*s %10s %10s%s  %s\n", "method", width, "keeps", "host", "device", o->wavefield_dir[0] ? "       disk" : "",
                        "expected time"));
  for (PetscInt k = 0; k < NMETHODS; k++) {
    char keeps[64], disk[32] = "";
    if (!Offered(backend, k) || (k + 1 == GRADIENT_CHECKPOINT && codec != CODEC_NONE)) {
      fits[k] = PETSC_FALSE;
      tier[k] = TIER_HOST;
      busiest[k][0] = busiest[k][1] = busiest[k][2] = cost[k] = 0;
      if (Offered(backend, k)) PetscCall(PetscPrintf(l->world, "  %-10s (keeps its snapshots and steps as floats)\n", GradientMethods[k + 1]));
      else PetscCall(PetscPrintf(l->world, "  %-10s (not offered by the %s equation on the %s backend)\n", GradientMethods[k + 1], backend->eq->name, backend->memory->name));
      continue;
    }
    tier[k] = k + 1 == GRADIENT_CHECKPOINT ? ck_plan.tier : TierOf(o, backend, &most.need[k], budget[0], budget[1]);
    Place(backend, tier[k], &most.need[k], busiest[k]);
    fits[k] = busiest[k][0] <= budget[0] && busiest[k][2] <= budget[2] &&
                  (!OnDevice(backend) || (busiest[k][1] <= budget[1] && (tier[k] == TIER_DEVICE || where != STORAGE_DEVICE)))
                ? PETSC_TRUE
                : PETSC_FALSE;
    cost[k] = 1 + c->adjoint_core * core / cells + c->adjoint_layer * (1 - core / cells) + (k + 1 == GRADIENT_BOUNDARY ? c->reconstruct * core / cells + c->run_back * run_back : 0) + c->store * stored.raw[k];
    /* checkpointing: the schedule's forward steps, the forward run's among them, and its copies of snapshots */
    if (k + 1 == GRADIENT_CHECKPOINT) cost[k] += ck_plan.cost;
    /* the busiest rank's store over its share of the cells (the same on every rank), as it crosses the link: encoded on the device */
    if (OnDevice(backend) && tier[k] != TIER_DEVICE && k + 1 != GRADIENT_CHECKPOINT) cost[k] += link * most.need[k].steps * l->group_size / (sizeof(float) * (double)t->nsteps * cells);
    if (tier[k] == TIER_DISK) cost[k] += disk_cost * stored.first_use[k];
    else cost[k] += (packed[k] ? first_use_reserved : first_use) * stored.mapped[k] / uses;
    if (k + 1 != GRADIENT_CHECKPOINT) cost[k] += codec_cost * stored.raw[k];
    Amount(busiest[k][0], text[0], sizeof(text[0]));
    Amount(busiest[k][1], text[1], sizeof(text[1]));
    Amount(busiest[k][2], text[2], sizeof(text[2]));
    if (o->wavefield_dir[0]) PetscCall(PetscSNPrintf(disk, sizeof disk, " %10s", text[2]));
    PetscCall(PetscPrintf(l->world, "  %-10s %-*s %10s %10s%s  %.1f forward runs%s\n", GradientMethods[k + 1], width, Keeps(backend, k, snapshots, window, keeps, sizeof(keeps)), text[0], text[1], disk,
                          cost[k], fits[k] ? "" : " (does not fit)"));
    if (o->gradient_method == GRADIENT_AUTO ? fits[k] && k + 1 != GRADIENT_CHECKPOINT && (chosen < 0 || cost[k] < cost[chosen]) : o->gradient_method == k + 1) chosen = k;
  }
  if (first_use > 0)
    PetscCall(PetscPrintf(l->world, "  (the expected times count the first use of a store's pages, %.2g forward runs per float stored per cell and step, shared by the %.0f use%s of one store: shots x evaluations)\n",
                          first_use, uses, uses == 1 ? "" : "s"));
  for (PetscInt k = 0; k < NMETHODS; k++)
    if (packed[k] && first_use > 0 && tier[k] != TIER_DISK)
      PetscCall(PetscPrintf(l->world, "  (%s keeps only the chunks the waves reach, whose pages alone are mapped, as the steps first write them, %.2g forward runs a float: about %.1f%% of its store, counted in its expected time%s)\n",
                            GradientMethods[k + 1], first_use_reserved, 100 * reach, live_here[k] ? "" : ", as on one rank; split along z, as here, it maps all of it"));
  if (boxes)
    PetscCall(PetscPrintf(l->world, "  (boundary runs the forward field back only where the waves reach: about %.1f%% of the core, counted in its expected time)\n", 100 * run_back * cells / core));
  if (codec != CODEC_NONE) PetscCall(PetscPrintf(l->world, "  (full and boundary keep their steps as %s: an approximate gradient, docs/options.md)\n", codec == CODEC_BF16 ? "bfloat16" : "8-bit blocks"));
  if (chosen < 0 || !fits[chosen]) PetscCall(Refuse(o, l, backend, o->gradient_method == GRADIENT_AUTO ? -1 : chosen, fits, busiest, budget, host_why, most.snapshot, cost));
  plan->method    = (GradientMethod)(chosen + 1);
  plan->expected  = cost[chosen];
  plan->snapshots = plan->method == GRADIENT_CHECKPOINT ? snapshots : 0;
  plan->window    = plan->method == GRADIENT_CHECKPOINT ? window : 0;
  {
    const PetscBool        ck   = plan->method == GRADIENT_CHECKPOINT ? PETSC_TRUE : PETSC_FALSE;
    const WavefieldStorage kept = tier[chosen] == TIER_DISK ? STORAGE_DISK : ck && tier[chosen] == TIER_DEVICE ? STORAGE_DEVICE : where;
    plan->tier                  = (WavefieldTier){kept, ck ? CODEC_NONE : codec, o->wavefield_dir}; /* checkpointing: its snapshots' */
  }
  backend->eq->store_shape(backend->ops, g, plan->method == GRADIENT_CHECKPOINT ? GRADIENT_FULL : plan->method, nimage, t->nsteps, &plan->n, &plan->nsteps, &plan->live);
  if (plan->tier.codec != CODEC_NONE) plan->live = (WavefieldLive){0, 0, 0};
  if (plan->method == GRADIENT_CHECKPOINT) {
    plan->nsteps = window + 1;
    PetscCall(PetscPrintf(l->world,
                          "checkpointing: %" PetscInt_FMT " snapshots and windows of %" PetscInt_FMT " steps for %" PetscInt_FMT " internal steps, %" PetscInt_FMT
                          " forward steps a shot (%.2f forward runs, the forward run's included), %" PetscInt_FMT " copies of a snapshot\n",
                          snapshots, window, t->nsteps, ck_plan.steps, (double)ck_plan.steps / t->nsteps, ck_plan.copies));
  }
  {
    double bytes[3];
    Place(backend, tier[chosen], &mine.need[chosen], bytes);
    plan->bytes[0] = bytes[0];
    plan->bytes[1] = bytes[1];
  }
  PetscCall(PetscPrintf(l->world, "gradient method: %s (%s)%s\n", GradientMethods[plan->method], o->gradient_method == GRADIENT_AUTO ? "the fastest that fits" : "-gradient_method",
                        plan->method == GRADIENT_CHECKPOINT && tier[chosen] == TIER_DEVICE ? ", its snapshots in device memory"
                        : tier[chosen] != TIER_DISK                                        ? ""
                        : plan->method == GRADIENT_CHECKPOINT                              ? ", its snapshots on disk"
                                                                                           : ", its steps on disk"));
  PetscFunctionReturn(0);
}
