#include "setup/memory.h"
#include "data/exactsum.h"
#include "grid/modelspace.h"
#include "shot/survey.h"
#include "equations/store.h"
#include "data/util.h"
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Vectors of the user's grid an inversion keeps at once: the model and its
   two bounds, and TAO's (blmvm: gradient, step, old iterate and gradients,
   its 5 update pairs and their initial Hessian's work, the More-Thuente
   line search's), counted with PETSc 3.18 (-malloc_view: 38 vectors). */
#define OPTIMISER_VECTORS 38

/* The inversion's own arrays over the user's grid, bytes a cell: the mask,
   the gradient in velocity and in TAO's variable (double), the model
   evaluated (float); more in MemoryRun.preconditioner_arrays. */
#define INVERSION_ARRAYS (3 * sizeof(double) + sizeof(float))

/* What the estimate is made of (see MemoryCheck). */
typedef struct {
  RunMode          mode;
  const Backend   *backend;
  const Layout    *l;
  const Geometry  *geo;
  const Grid      *grid;       /* NULL: not yet decomposed */
  PetscBool        snap;       /* points at their nearest grid point */
  PetscInt         preconditioner_arrays; /* doubles a user cell an inversion's preconditioner adds (invert.c: its diagonal, a work array) */
  PetscBool        smoothing;  /* an inversion's -gradient_smoothing, with its DMDA (GridCreateDMDA) */
  PetscInt         blocks;     /* the parameters an inversion inverts (-invert_for), each with its own share of all of the above */
  PetscInt         records;    /* the components receivers record (-record), each with its own traces */
  PetscInt         dim, n[3];  /* the user's grid */
  PetscInt         pml[3][2];  /* absorbing layer widths */
  PetscInt         nt, nsteps; /* recorded samples, internal steps (nt when not yet known) */
  double           store[2];   /* the gradient's forward wavefield: host, device bytes (GradientPlan) */
} MemoryRun;

typedef enum { MEM_GRID, MEM_FIELDS, MEM_LAYERS, MEM_TRACES, MEM_OBSERVED, MEM_OPTIMISER, MEM_STORE, MEM_STORE_DEVICE, MEM_NITEMS } MemoryItem;

static const char *const item_name[MEM_NITEMS] = {"grid and model", "wavefields", "absorbing layers", "traces and wavelet",
                                                  "observed data", "optimiser", "forward wavefield for the gradient", "forward wavefield for the gradient"};

/* Where the host memory limit comes from, the tightest first found. */
typedef enum { LIMIT_NODE, LIMIT_CGROUP, LIMIT_ADDRESS_SPACE, LIMIT_DATA, LIMIT_KINDS } LimitKind;

/* The "key: N kB" figure of a /proc file, in bytes, or -1. */
static double ProcBytes(const char *file, const char *key)
{
  FILE  *fp = fopen(file, "r");
  char   line[256];
  double kb = -1;
  size_t len = strlen(key);

  while (fp && fgets(line, sizeof line, fp))
    if (!strncmp(line, key, len) && line[len] == ':' && sscanf(line + len + 1, "%lf", &kb) == 1) break;
  if (fp) fclose(fp);
  return kb < 0 ? -1 : kb * 1024.0;
}

/* The number a cgroup file holds, or -1 (absent, or "max": none). */
static double FileNumber(const char *dir, const char *name)
{
  char   path[PETSC_MAX_PATH_LEN];
  FILE  *fp;
  double v = -1;

  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (!(fp = fopen(path, "r"))) return -1;
  if (fscanf(fp, "%lf", &v) != 1) v = -1;
  fclose(fp);
  return v;
}

/* What the memory limits of this process's cgroups leave (cgroup v2
   memory.max less memory.current, v1 memory.limit_in_bytes less
   memory.usage_in_bytes), the least over the cgroup and those above it; the
   limit that gives it in *limit.  -1: no limit. */
static double CgroupFree(double *limit)
{
  static const struct {
    const char *root, *max, *used;
    PetscBool   v2;
  } mounts[] = {
    {"/sys/fs/cgroup",         "memory.max",            "memory.current",        PETSC_TRUE },
    {"/sys/fs/cgroup/unified", "memory.max",            "memory.current",        PETSC_TRUE },
    {"/sys/fs/cgroup/memory",  "memory.limit_in_bytes", "memory.usage_in_bytes", PETSC_FALSE},
  };
  const double none = 4.0e18; /* v1 writes "no limit" as about 2^63 */
  FILE        *fp   = fopen("/proc/self/cgroup", "r");
  char         line[PETSC_MAX_PATH_LEN];
  double       least = -1;

  while (fp && fgets(line, sizeof line, fp)) {
    char *controllers = strchr(line, ':'), *path = controllers ? strchr(controllers + 1, ':') : NULL;
    if (!path) continue;
    *path++ = 0;
    controllers++;
    path[strcspn(path, "\n")] = 0;
    for (size_t k = 0; k < sizeof mounts / sizeof mounts[0]; k++) {
      char cut[PETSC_MAX_PATH_LEN], dir[2 * PETSC_MAX_PATH_LEN];
      if (mounts[k].v2 ? *controllers != 0 : !strstr(controllers, "memory")) continue;
      snprintf(cut, sizeof cut, "%s", path);
      for (char *slash = cut + strlen(cut);; *slash = 0) {
        double max, used;
        snprintf(dir, sizeof dir, "%s%s", mounts[k].root, cut);
        max  = FileNumber(dir, mounts[k].max);
        used = FileNumber(dir, mounts[k].used);
        if (max > 0 && max < none && used >= 0 && (least < 0 || max - used < least)) {
          least  = PetscMax(max - used, 0);
          *limit = max;
        }
        if (!(slash = strrchr(cut, '/'))) break;
      }
    }
  }
  if (fp) fclose(fp);
  return least;
}

/* What a resource limit of this process (ulimit -v, -d) leaves beside what
   it has mapped (VmSize, VmData); its limit in *limit.  -1: no limit. */
static double ProcessFree(int resource, const char *mapped, double *limit)
{
  struct rlimit rl;

  if (getrlimit(resource, &rl) || rl.rlim_cur == RLIM_INFINITY) return -1;
  *limit = (double)rl.rlim_cur;
  return PetscMax(*limit - PetscMax(ProcBytes("/proc/self/status", mapped), 0), 0);
}

PetscErrorCode MemoryDiskLimit(MPI_Comm world, const char *dir, double *bytes)
{
  PetscMPIInt    nranks;
  struct statvfs fs;
  struct stat    st;
  double         mine[2], most[2]; /* an error (errno, or -1: not a folder), and minus the share */
  int            err = 0;

  PetscFunctionBeginUser;
  if (stat(dir, &st)) err = errno;
  else if (!S_ISDIR(st.st_mode)) err = -1;
  else if (access(dir, W_OK | X_OK)) err = errno;
  else if (statvfs(dir, &fs)) err = errno;
  PetscCall(LayoutNodeRanks(world, &nranks));
  mine[0] = err ? (err < 0 ? 1 : 1 + err) : 0;
  mine[1] = err ? 0 : -MEMORY_SHARE * (double)fs.f_bavail * (double)fs.f_frsize / nranks;
  PetscCallMPI(MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, world));
  PetscCheck(most[0] == 0, world, PETSC_ERR_USER_INPUT, "-wavefield_dir %s: expected a folder this run can write in (%s)", dir,
             most[0] == 1 ? "it is not a folder" : strerror((int)most[0] - 1));
  *bytes = -most[1];
  PetscFunctionReturn(0);
}

PetscErrorCode MemoryHostLimit(MPI_Comm world, PetscReal limit_mb, double *bytes, char why[], size_t len)
{
  PetscMPIInt nranks;
  double      share[LIMIT_KINDS], limit[LIMIT_KINDS] = {0}, tightest;
  char        amount[32];
  struct {
    double value;
    int    kind;
  } mine = {1e300, LIMIT_NODE}, least;

  PetscFunctionBeginUser;
  if (limit_mb > 0) {
    *bytes = limit_mb * 1048576.0;
    PetscCall(PetscSNPrintf(why, len, "-memory_limit"));
    PetscFunctionReturn(0);
  }
  PetscCall(LayoutNodeRanks(world, &nranks));
  /* this rank's share of each: the node's and the cgroup's are shared by
     the node's ranks, a process's limits are its own */
  share[LIMIT_NODE]          = ProcBytes("/proc/meminfo", "MemAvailable") / nranks;
  share[LIMIT_CGROUP]        = CgroupFree(&limit[LIMIT_CGROUP]) / nranks;
  share[LIMIT_ADDRESS_SPACE] = ProcessFree(RLIMIT_AS, "VmSize", &limit[LIMIT_ADDRESS_SPACE]);
  share[LIMIT_DATA]          = ProcessFree(RLIMIT_DATA, "VmData", &limit[LIMIT_DATA]);
  for (int k = 0; k < LIMIT_KINDS; k++)
    if (share[k] >= 0 && share[k] < mine.value) {
      mine.value = share[k];
      mine.kind  = k;
    }
  /* the least over the world, and what gives it: nodes differ, and every rank must agree */
  PetscCallMPI(MPI_Allreduce(&mine, &least, 1, MPI_DOUBLE_INT, MPI_MINLOC, world));
  tightest = mine.kind == least.kind ? limit[least.kind] : 1e300;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &tightest, 1, MPI_DOUBLE, MPI_MIN, world));
  *bytes = MEMORY_SHARE * least.value;
  FormatBytes(tightest, amount, sizeof amount);
  switch ((LimitKind)least.kind) {
  case LIMIT_CGROUP:
    PetscCall(PetscSNPrintf(why, len, "%.0f%% of what the cgroup's memory limit, %s, leaves, shared by the node's %d rank%s; -memory_limit sets it", 100 * MEMORY_SHARE,
                            amount, nranks, nranks == 1 ? "" : "s"));
    break;
  case LIMIT_ADDRESS_SPACE:
  case LIMIT_DATA:
    PetscCall(PetscSNPrintf(why, len, "%.0f%% of what the %s limit (ulimit %s), %s, leaves this process; -memory_limit sets it", 100 * MEMORY_SHARE,
                            least.kind == LIMIT_DATA ? "data segment" : "address space", least.kind == LIMIT_DATA ? "-d" : "-v", amount));
    break;
  default:
    PetscCall(PetscSNPrintf(why, len, "%.0f%% of the node's available memory shared by its %d rank%s; -memory_limit sets it", 100 * MEMORY_SHARE, nranks,
                            nranks == 1 ? "" : "s"));
  }
  PetscFunctionReturn(0);
}

/* Owned extended cells, padded cells, field and layer bytes and user cells
   of this rank: exact from the grid, else the lower bound of MemoryRun. */
typedef struct {
  double owned, padded, fields, layers, user, halos;
  PetscInt local_rec; /* the most receivers of one of the group's shots in this subdomain */
} RankShare;

static PetscErrorCode ShareFromGrid(const MemoryRun *r, RankShare *s)
{
  const Grid     *g  = r->grid;
  const Equation *eq = r->backend->eq;
  PetscInt        lo[3], n[3], padded[3];

  PetscFunctionBeginUser;
  eq->state_bytes(g, &s->fields, &s->layers);
  s->padded = (double)GridPaddedCells(g, padded);
  s->owned = s->user = 1;
  s->halos           = 0;
  ModelSpaceBox(g, lo, n);
  for (PetscInt a = 0; a < 3; a++) {
    s->owned *= (double)g->size[a];
    s->user *= (double)n[a];
    /* a send and a receive buffer on each side per field of the padded box a step exchanges */
    if (a < g->dim) s->halos += EquationBoxFieldsExchanged(eq) * 4.0 * g->radius * sizeof(float) * s->padded / padded[a];
  }
  s->local_rec = 0;
  for (PetscInt k = r->l->group_id; k < r->geo->nshots; k += r->l->ngroups) {
    PetscInt nrec, nreach;
    PetscCall(ShotLocalCount(g, r->geo, k, r->snap, &nrec, &nreach));
    s->local_rec = PetscMax(s->local_rec, PetscMax(nrec, nreach));
  }
  PetscFunctionReturn(0);
}

static void ShareBound(const MemoryRun *r, RankShare *s)
{
  double ext = 1, user = 1;

  for (PetscInt a = 0; a < 3; a++) {
    const PetscInt n = a < r->dim ? r->n[a] : 1;
    user *= (double)n;
    ext *= (double)(n + (a < r->dim ? r->pml[a][0] + r->pml[a][1] : 0));
  }
  s->owned = s->padded = ext / r->l->group_size;
  s->user              = user / r->l->group_size;
  s->fields            = r->backend->eq->cell_floats * sizeof(float) * s->padded;
  s->layers = s->halos = 0;
  s->local_rec         = 0;
}

/* This rank's bytes per item. */
static PetscErrorCode Estimate(const MemoryRun *r, double bytes[MEM_NITEMS])
{
  const PetscBool gradient = r->mode != MODE_FORWARD ? PETSC_TRUE : PETSC_FALSE;
  const Layout   *l        = r->l;
  const double    nt = (double)r->nt, fl = sizeof(float);
  const double    copies = r->backend && r->backend->memory->host_memory ? 0 : 1; /* 1 where backend memory is downloaded to be read (device backends) */
  const double    np     = (double)r->backend->eq->nparameter;
  const PetscBool lone   = r->geo->nshots == 1 && l->ngroups == 1 ? PETSC_TRUE : PETSC_FALSE; /* one shot's images: no sum (PropagatorGradientReset) */
  double          nrec_max = 0, observed = 0;
  RankShare       s;

  PetscFunctionBeginUser;
  if (r->grid) PetscCall(ShareFromGrid(r, &s));
  else ShareBound(r, &s);
  for (PetscInt k = l->group_id; k < r->geo->nshots; k += l->ngroups) {
    const double nrec = (double)(r->geo->rec_start[k + 1] - r->geo->rec_start[k]);
    nrec_max = PetscMax(nrec_max, nrec);
    observed += 2 * r->records * nrec * nt * fl; /* every component as read, and low-passed for the band */
  }
  /* each parameter's model kept, and on a device backend the state's on
     its way in (host_model_arrays; a host backend's state writes its model
     in place; the block as read is freed, back to the system (main.c),
     before the fields are made); the smoothing's PETSc DMDA maps (two
     indices a ghosted cell); the gradient's exact sum over shots and its
     value on the extended cells (each parameter's; the sum only where
     more than one shot's images are summed), a shot's image
     (downloaded), the value on the user cells (each parameter's), and the
     PetscSF folding the layer cells onto the user cells (its graph and
     per-rank index lists: five indices a leaf, measured) */
  bytes[MEM_GRID] = s.padded * ((r->smoothing ? 2 * sizeof(PetscInt) : 0) + copies * fl * r->backend->eq->host_model_arrays) + fl * s.owned * np +
                    (gradient ? s.owned * (np * ((lone ? 0 : sizeof(ExactSum)) + sizeof(double)) + fl + sizeof(double)) + (s.owned - s.user) * 5 * sizeof(PetscInt) + copies * fl * s.padded +
                                  s.user * (fl + np * sizeof(double))
                              : 0);
  bytes[MEM_FIELDS] = s.fields - s.layers + s.halos + (gradient ? np * fl * s.padded : 0);
  bytes[MEM_LAYERS] = s.layers;
  /* this rank's receivers at the recording rate, per component recorded,
     with, while the shot runs, the same at every internal step in backend
     memory (and one component's downloaded from a device), or, once it is
     done, the whole shot on the group's first rank: a component's gathered
     in rank order, and in receiver order each component's (the misfit's
     all at once), or one at a time (forward); the wavelet at both rates
     and on the backend */
  bytes[MEM_TRACES] = fl * (r->records * s.local_rec * nt +
                            PetscMax((r->records + copies) * s.local_rec * r->nsteps, l->group_rank ? 0 : (gradient ? r->records + 1 : 2) * nrec_max * nt) + 2 * nt +
                            3.0 * r->nsteps);
  bytes[MEM_OBSERVED]  = gradient && !l->group_rank ? observed : 0;
  bytes[MEM_OPTIMISER] = r->mode == MODE_INVERT && !l->group_id
                           ? s.user * r->blocks * (OPTIMISER_VECTORS * sizeof(double) + INVERSION_ARRAYS + r->preconditioner_arrays * sizeof(double))
                           : 0;
  bytes[MEM_STORE]        = r->store[0];
  bytes[MEM_STORE_DEVICE] = r->store[1];
  PetscFunctionReturn(0);
}

/* Whether an item lives in device memory (device backends: the fields and
   the part of the gradient's forward wavefield kept there). */
static PetscBool ItemOnDevice(const Backend *backend, MemoryItem k)
{
  return backend->memory->device_free_memory && (k == MEM_FIELDS || k == MEM_LAYERS || k == MEM_STORE_DEVICE) ? PETSC_TRUE : PETSC_FALSE;
}

/* "total (item a, item b, ...)" of the items on one side (host or device). */
static void Summary(const double bytes[MEM_NITEMS], const PetscBool device[MEM_NITEMS], PetscBool on_device, double total, char *out, size_t len)
{
  size_t used;

  FormatBytes(total, out, len);
  used = strlen(out);
  snprintf(out + used, len - used, " (");
  for (int k = 0, first = 1; k < MEM_NITEMS; k++) {
    char amount[32];
    if (device[k] != on_device || !bytes[k]) continue;
    FormatBytes(bytes[k], amount, sizeof(amount));
    used = strlen(out);
    snprintf(out + used, len - used, "%s%s %s", first ? "" : ", ", item_name[k], amount);
    first = 0;
  }
  used = strlen(out);
  snprintf(out + used, len - used, ")");
}

static PetscErrorCode CheckRun(const MemoryRun *r, PetscReal limit_mb)
{
  MPI_Comm  world = r->l->world;
  PetscBool device[MEM_NITEMS] = {PETSC_FALSE}, over[2];
  double    mine[MEM_NITEMS + 2] = {0}, most[MEM_NITEMS + 2], limit[2], free_device = 0;
  char      why[256], need[1024], have[64], have_device[64] = "";
  const char *bound = r->grid ? "" : "at least ";

  PetscFunctionBeginUser;
  PetscCall(Estimate(r, mine));
  if (r->backend->memory->device_free_memory) {
    size_t avail;
    PetscCall(r->backend->memory->device_free_memory(&avail));
    free_device = -(double)avail; /* the least over the world, by a max */
  }
  for (int k = 0; k < MEM_NITEMS; k++) {
    device[k] = ItemOnDevice(r->backend, (MemoryItem)k);
    mine[MEM_NITEMS + (device[k] ? 1 : 0)] += mine[k];
  }
  PetscCallMPI(MPI_Allreduce(mine, most, MEM_NITEMS + 2, MPI_DOUBLE, MPI_MAX, world));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &free_device, 1, MPI_DOUBLE, MPI_MAX, world));
  PetscCall(MemoryHostLimit(world, limit_mb, &limit[0], why, sizeof(why)));
  limit[1] = -MEMORY_SHARE * free_device;
  for (int side = 0; side < 2; side++) over[side] = most[MEM_NITEMS + side] > limit[side] ? PETSC_TRUE : PETSC_FALSE;
  if (over[0] || over[1] || r->grid) {
    Summary(most, device, over[1], most[MEM_NITEMS + (over[1] ? 1 : 0)], need, sizeof(need));
    FormatBytes(limit[0], have, sizeof(have));
    if (r->backend->memory->device_free_memory) FormatBytes(limit[1], have_device, sizeof(have_device));
  }
  PetscCheck(!over[0], world, PETSC_ERR_USER_INPUT,
             "Not enough memory: the busiest rank needs %s%s of host memory but may use %s (%s); use more ranks per shot group "
             "(more processes or fewer -shot_groups), fewer samples (-nt), a larger -dt or a smaller model, or raise -memory_limit if the memory is there",
             bound, need, have, why);
  PetscCheck(!over[1], world, PETSC_ERR_USER_INPUT,
             "Not enough GPU memory: the busiest rank needs %s%s of device memory but %s is usable (%.0f%% of the least free on any GPU); "
             "use more ranks (GPUs) per shot group or a smaller model",
             bound, need, have_device, 100 * MEMORY_SHARE);
  if (r->grid) {
    char device_need[1024] = "";
    if (r->backend->memory->device_free_memory) Summary(most, device, PETSC_TRUE, most[MEM_NITEMS + 1], device_need, sizeof(device_need));
    PetscCall(PetscPrintf(world, "memory per rank (the busiest): host %s of %s%s%s%s%s\n", need, have, device_need[0] ? "; device " : "", device_need,
                          device_need[0] ? " of " : "", have_device));
  }
  PetscFunctionReturn(0);
}

/* The run as MemoryRun describes it, from MemoryCheck's arguments. */
static PetscErrorCode Describe(const Options *o, const Layout *l, const Backend *backend, const ModelInfo *m, const Geometry *geo, const Grid *g, const TimeAxis *t,
                               const double store[2], MemoryRun *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->mode    = o->mode;
  r->backend = backend;
  r->l       = l;
  r->geo     = geo;
  r->grid    = g;
  r->snap    = o->point_interpolation == POINTS_NEAREST ? PETSC_TRUE : PETSC_FALSE;
  {
    const PetscBool pseudo_hessian = o->precondition != PRECONDITION_NONE ? PETSC_TRUE : PETSC_FALSE;
    const PetscBool smoothing      = o->gradient_smoothing[0] > 0 || o->gradient_smoothing[1] > 0 || o->gradient_smoothing[2] > 0 ? PETSC_TRUE : PETSC_FALSE;
    r->preconditioner_arrays       = (pseudo_hessian ? 1 : 0) + (pseudo_hessian || smoothing ? 1 : 0);
    r->smoothing                   = o->mode == MODE_INVERT && smoothing ? PETSC_TRUE : PETSC_FALSE;
  }
  r->blocks  = OptionsInvertedCount(o);
  r->records = OptionsRecordedCount(o);
  r->dim    = m->dim;
  r->nt     = o->nt;
  r->nsteps = t ? t->nsteps : o->nt;
  for (PetscInt a = 0; a < 3; a++) {
    r->n[a]      = m->n[a];
    r->pml[a][0] = o->pml[a][0];
    r->pml[a][1] = o->pml[a][1];
  }
  if (store) {
    r->store[0] = store[0];
    r->store[1] = store[1];
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MemoryCheck(const Options *o, const Layout *l, const Backend *backend, const ModelInfo *m, const Geometry *geo, const Grid *g,
                           const TimeAxis *t, const double store[2])
{
  MemoryRun r;

  PetscFunctionBeginUser;
  /* a grid PETSc cannot index has no memory figure worth giving */
  if (!g) PetscCall(GridCheckCellCount(l->group, m->dim, m->n, o->pml));
  PetscCall(Describe(o, l, backend, m, geo, g, t, store, &r));
  PetscCall(CheckRun(&r, o->memory_limit));
  PetscFunctionReturn(0);
}

PetscErrorCode MemoryRest(const Options *o, const Layout *l, const Backend *backend, const ModelInfo *m, const Geometry *geo, const Grid *g, const TimeAxis *t,
                          double rest[2])
{
  MemoryRun r;
  double    bytes[MEM_NITEMS];

  PetscFunctionBeginUser;
  PetscCall(Describe(o, l, backend, m, geo, g, t, NULL, &r));
  PetscCall(Estimate(&r, bytes));
  rest[0] = rest[1] = 0;
  for (int k = 0; k < MEM_NITEMS; k++) rest[ItemOnDevice(backend, (MemoryItem)k) ? 1 : 0] += bytes[k];
  PetscFunctionReturn(0);
}
