#include "grid/grid.h"
#include "grid/fd.h"
#include "data/util.h"

static const char *const axis_name[3] = {"z", "x", "y"};

PetscErrorCode GridCheckSurfaceDepth(const Grid *g, PetscInt cells, const char *why)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++)
    for (PetscInt s = 0; s < 2; s++)
      PetscCheck(!GridFreeSurface(g, a, s) || g->size[a] >= cells, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
                 "Subdomain on the free surface too thin: %" PetscInt_FMT " cells along %s, at least %" PetscInt_FMT " needed at order %" PetscInt_FMT
                 " (%s); use fewer subdomains along %s (-da_processors_%s)",
                 g->size[a], axis_name[a], cells, 2 * g->radius, why, axis_name[a], axis_name[a]);
  PetscFunctionReturn(0);
}

/* The DMDA counts the cells of the extended grid in PetscInt: a grid beyond
   that is refused here, before PETSc's sizes wrap round. */
PetscErrorCode GridCheckCellCount(MPI_Comm group, PetscInt dim, const PetscInt n[3], const PetscInt pml[3][2])
{
  PetscInt64 N[3];
  double     total = 1; /* exact wherever it matters: up to 2^53 */

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 3; a++) {
    N[a] = a < dim ? (PetscInt64)n[a] + pml[a][0] + pml[a][1] : 1;
    total *= (double)N[a];
  }
  PetscCheck(total <= PETSC_MAX_INT, group, PETSC_ERR_INT_OVERFLOW,
             "Grid of %" PetscInt64_FMT " x %" PetscInt64_FMT " x %" PetscInt64_FMT " cells (z, x, y; absorbing layers included) = %.4g cells: more than the %" PetscInt_FMT
             " that this PETSc can index, as it uses %d-bit indices; use a coarser or smaller grid, or a PETSc built with 64-bit indices (Debian's petsc64-dev)",
             N[0], N[1], N[2], total, PETSC_MAX_INT, (int)(8 * sizeof(PetscInt)));
  PetscFunctionReturn(0);
}

/* Layers thinner than this many cells at this order let a smooth, almost
   static field grow late in a run: seen over 20 s of a 2D heterogeneous
   model at every even order (docs/numerics.md, "Late-time growth"). */
static PetscInt StableLayerWidth(PetscInt order) { return PetscMax(5, order + 2); }

/* A warning, once per run (rank 0 of the world), when a side's layer is
   that thin: the thinnest such side named. */
static PetscErrorCode WarnThinLayers(const Grid *g)
{
  static const char *const side_name[3][2] = {
    {"top",   "bottom"},
    {"left",  "right" },
    {"front", "back"  }
  };
  const PetscInt stable = StableLayerWidth(g->order);
  PetscInt       thin[2] = {-1, -1};

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++)
    for (PetscInt s = 0; s < 2; s++)
      if (g->pml[a][s] > 0 && g->pml[a][s] < stable && (thin[0] < 0 || g->pml[a][s] < g->pml[thin[0]][thin[1]])) {
        thin[0] = a;
        thin[1] = s;
      }
  if (thin[0] >= 0)
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR,
                           "Warning: %" PetscInt_FMT " cells of absorbing layer (%s side) at order %" PetscInt_FMT ": layers thinner than %" PetscInt_FMT
                           " cells at this order can grow without bound late in a long run; use -pml_width %" PetscInt_FMT " or more\n",
                           g->pml[thin[0]][thin[1]], side_name[thin[0]][thin[1]], g->order, stable, stable));
  PetscFunctionReturn(0);
}

/* PETSc's default split of N cells over p processes (DMDA): the first N % p get one more. */
static PetscInt SmallestShare(PetscInt N, PetscInt p) { return N / p; }

/* The subdomains along each axis: those given (-da_processors_*), the
   group's ranks over the one axis left, or, where two or more are left on
   more than one rank, PETSc's DMDA's choice (its set-up builds maps and
   scatters of about 20 bytes a cell, freed at once: no more than that is
   asked of it). */
static PetscErrorCode ProcessGrid(MPI_Comm group, const Grid *g, const PetscInt procs[3], PetscInt m[3])
{
  PetscMPIInt size;
  PetscInt    given = 1, left = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(group, &size));
  for (PetscInt a = 0; a < 3; a++) {
    m[a] = a < g->dim ? procs[a] : 1;
    if (m[a] == PETSC_DECIDE) left++;
    else given *= m[a];
  }
  if (size == 1 || left == 0) {
    for (PetscInt a = 0; a < 3; a++)
      if (m[a] == PETSC_DECIDE) m[a] = 1;
  } else if (left == 1) {
    for (PetscInt a = 0; a < 3; a++)
      if (m[a] == PETSC_DECIDE) m[a] = size / given;
  } else {
    DM da;
    PetscCall(DMDACreate(group, &da));
    PetscCall(DMSetDimension(da, g->dim));
    PetscCall(DMDASetSizes(da, g->N[0], g->N[1], g->N[2]));
    PetscCall(DMDASetNumProcs(da, m[0], m[1], m[2]));
    PetscCall(DMDASetStencilWidth(da, 0));
    PetscCall(DMDASetDof(da, 1));
    /* No DMSetFromOptions: -da_processors_x/y/z name physical axes here,
       and were read as such; PETSc would apply them to the DMDA's own axes. */
    MemoryCall(DMSetUp(da), "the grid's decomposition (PETSc's DMSetUp)", 2.0 * sizeof(PetscInt) * g->N[0] * g->N[1] * g->N[2] / size);
    PetscCall(DMDAGetInfo(da, NULL, NULL, NULL, NULL, &m[0], &m[1], &m[2], NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCall(DMDestroy(&da));
  }
  PetscFunctionReturn(0);
}

/* This rank's block of m[0] x m[1] x m[2] subdomains, as a DMDA lays them
   out: ranks numbered along axis 0 first; N cells over p subdomains, the
   first N % p one cell more. */
static PetscErrorCode LayOut(Grid *g, const PetscInt m[3])
{
  PetscMPIInt rank;
  PetscInt    stride = 1;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
  for (PetscInt a = 0; a < 3; a++) {
    g->nproc[a] = m[a];
    g->proc[a]  = rank / stride % m[a];
    PetscCall(PetscMalloc1(m[a], &g->ranges[a]));
    g->start[a] = 0;
    for (PetscInt i = 0; i < m[a]; i++) {
      g->ranges[a][i] = g->N[a] / m[a] + (g->N[a] % m[a] > i);
      if (i < g->proc[a]) g->start[a] += g->ranges[a][i];
    }
    g->size[a]   = g->ranges[a][g->proc[a]];
    g->nbr[a][0] = g->proc[a] > 0 ? (PetscMPIInt)(rank - stride) : MPI_PROC_NULL;
    g->nbr[a][1] = g->proc[a] < m[a] - 1 ? (PetscMPIInt)(rank + stride) : MPI_PROC_NULL;
    stride *= m[a];
  }
  PetscFunctionReturn(0);
}

/* Does a stride of this many floats (3840 bytes or more) come within 256
   bytes of a multiple of 4096?  The 2R + 1 rows or planes a stencil reads
   at that stride would share a few sets of the L1 cache (grid.h). */
static PetscBool NearPage(PetscInt64 floats)
{
  const PetscInt64 page = 1024, near = 64, r = floats % page; /* in floats */

  return floats >= page - near && (r < near || r > page - near) ? PETSC_TRUE : PETSC_FALSE;
}

/* The least row pitch from the padded row up whose row and, in 3D, plane
   strides are not near a page (the plane's only while a few more floats a
   row can move it: not where the rows are a multiple of a page). */
static PetscInt RowPitch(PetscInt dim, PetscInt row, PetscInt rows)
{
  PetscInt p = row;

  if (dim < 2) return row;
  while (NearPage(p)) p++;
  for (PetscInt q = p; dim > 2 && q < p + 64; q++)
    if (!NearPage(q) && !NearPage((PetscInt64)q * rows)) return q;
  return p;
}

PetscErrorCode GridCreate(MPI_Comm group, PetscInt dim, const PetscInt n[3], const PetscReal d[3], PetscInt order,
                          const PetscInt pml[3][2], const PetscInt procs[3], Grid *g)
{
  PetscMPIInt size;
  PetscInt    m[3];

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  g->comm = MPI_COMM_NULL;
  PetscCallMPI(MPI_Comm_size(group, &size));
  PetscCall(GridCheckCellCount(group, dim, n, pml));
  g->dim    = dim;
  g->order  = order;
  g->radius = order / 2;
  for (PetscInt a = 0; a < 3; a++) {
    g->n[a]      = a < dim ? n[a] : 1;
    g->d[a]      = d[a];
    g->pml[a][0] = a < dim ? pml[a][0] : 0;
    g->pml[a][1] = a < dim ? pml[a][1] : 0;
    g->N[a]      = g->n[a] + g->pml[a][0] + g->pml[a][1];
    if (a < dim && procs[a] != PETSC_DECIDE) {
      PetscCheck(procs[a] >= 1 && procs[a] <= size, group, PETSC_ERR_ARG_OUTOFRANGE,
                 "-da_processors_%s %" PetscInt_FMT ": expected 1 to %d (the ranks of a shot group)", axis_name[a], procs[a], size);
      PetscCheck(SmallestShare(g->N[a], procs[a]) >= g->radius, group, PETSC_ERR_ARG_INCOMP,
                 "Subdomains thinner than the halo: %" PetscInt_FMT " cells along %s (absorbing layers included) over -da_processors_%s %" PetscInt_FMT
                 " gives %" PetscInt_FMT " cells, fewer than the %" PetscInt_FMT " halo cells of order %" PetscInt_FMT "; use fewer subdomains along %s",
                 g->N[a], axis_name[a], axis_name[a], procs[a], SmallestShare(g->N[a], procs[a]), g->radius, order, axis_name[a]);
    }
  }

  {
    PetscInt given = 1, ngiven = 0;
    for (PetscInt a = 0; a < 3; a++) {
      PetscCheck(a < dim || procs[a] == PETSC_DECIDE || procs[a] == 1, group, PETSC_ERR_ARG_INCOMP,
                 "-da_processors_%s %" PetscInt_FMT " given for a %" PetscInt_FMT "D model, which has no %s axis", axis_name[a], procs[a], dim, axis_name[a]);
      if (a < dim && procs[a] != PETSC_DECIDE) {
        given *= procs[a];
        ngiven++;
      }
    }
    PetscCheck(ngiven < dim || given == size, group, PETSC_ERR_ARG_INCOMP,
               "-da_processors_x/y/z ask for %" PetscInt_FMT " subdomains in all, but a shot group has %d ranks (world size / -shot_groups)", given, size);
    PetscCheck(size % given == 0, group, PETSC_ERR_ARG_INCOMP,
               "-da_processors_x/y/z ask for %" PetscInt_FMT " subdomains, which do not divide the %d ranks of a shot group (world size / -shot_groups)", given, size);
  }

  PetscCallMPI(MPI_Comm_dup(group, &g->comm));
  PetscCall(ProcessGrid(group, g, procs, m));
  PetscCall(LayOut(g, m));
  g->pitch = RowPitch(dim, g->size[0] + 2 * g->radius, dim > 1 ? g->size[1] + 2 * g->radius : 1);
  for (PetscInt a = 0; a < dim; a++)
    PetscCheck(g->size[a] >= g->radius, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
               "Subdomain thinner than the halo: %" PetscInt_FMT " cells along %s, fewer than the %" PetscInt_FMT " halo cells of order %" PetscInt_FMT
               "; use fewer subdomains along %s (-da_processors_%s)",
               g->size[a], axis_name[a], g->radius, order, axis_name[a], axis_name[a]);
  PetscCall(GridCheckSurfaceDepth(g, g->radius + 1, "the ghosts beyond it mirror the cells past it, which must be this rank's own"));
  PetscCall(WarnThinLayers(g));
  PetscFunctionReturn(0);
}

PetscErrorCode GridDestroy(Grid *g)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 3; a++) PetscCall(PetscFree(g->ranges[a]));
  if (g->comm != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&g->comm));
  PetscFunctionReturn(0);
}

PetscErrorCode GridCreateDMDA(const Grid *g, PetscInt width, DM *da)
{
  PetscFunctionBeginUser;
  PetscCall(DMDACreate(g->comm, da));
  PetscCall(DMSetDimension(*da, g->dim));
  PetscCall(DMDASetSizes(*da, g->N[0], g->N[1], g->N[2]));
  PetscCall(DMDASetNumProcs(*da, g->nproc[0], g->nproc[1], g->nproc[2]));
  PetscCall(DMDASetOwnershipRanges(*da, g->ranges[0], g->ranges[1], g->ranges[2]));
  PetscCall(DMDASetBoundaryType(*da, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE));
  PetscCall(DMDASetStencilType(*da, DMDA_STENCIL_STAR));
  PetscCall(DMDASetStencilWidth(*da, width));
  PetscCall(DMDASetDof(*da, 1));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

PetscBool GridFaceNearLayer(const Grid *g, PetscInt a, PetscInt t, PetscInt s)
{
  /* the face lies between extended cells x-1 and x */
  const PetscInt x = g->start[a] + (t ? g->size[a] : 0), core_hi = g->pml[a][0] + g->n[a];

  if (a >= g->dim || g->nbr[a][t] == MPI_PROC_NULL || !g->pml[a][s]) return PETSC_FALSE;
  return (s ? x > core_hi - g->radius : x < g->pml[a][0] + g->radius) ? PETSC_TRUE : PETSC_FALSE;
}

PetscBool GridFreeSurface(const Grid *g, PetscInt a, PetscInt s)
{
  if (a >= g->dim || g->pml[a][s]) return PETSC_FALSE;
  return (s ? g->start[a] + g->size[a] == g->N[a] : g->start[a] == 0) ? PETSC_TRUE : PETSC_FALSE;
}

size_t GridPaddedCells(const Grid *g, PetscInt padded[3])
{
  ptrdiff_t stride[3];

  for (PetscInt a = 0; a < 3; a++) padded[a] = a < g->dim ? g->size[a] + 2 * g->radius : 1;
  GridPaddedStrides(g, stride);
  return (size_t)stride[2] * (size_t)padded[2];
}

void GridPaddedStrides(const Grid *g, ptrdiff_t stride[3])
{
  const PetscInt rows = g->dim > 1 ? g->size[1] + 2 * g->radius : 1;

  stride[0] = 1;
  stride[1] = g->pitch ? g->pitch : g->size[0] + 2 * g->radius; /* a grid put together by hand has none */
  stride[2] = stride[1] * rows;
}

ptrdiff_t GridPaddedIndex(const Grid *g, const PetscInt local[3])
{
  ptrdiff_t idx = 0, stride[3];

  GridPaddedStrides(g, stride);
  for (PetscInt a = 0; a < 3; a++) idx += (local[a] + (a < g->dim ? g->radius : 0)) * stride[a];
  return idx;
}

void GridBlockOf(const Grid *g, GridBlock *b)
{
  *b = (GridBlock){.dim = g->dim, .order = g->order, .pitch = g->pitch};

  for (PetscInt a = 0; a < 3; a++) {
    b->n[a]             = g->size[a];
    b->d[a]             = g->d[a];
    b->layer_edge[a][0] = g->pml[a][0] - g->start[a];
    b->layer_edge[a][1] = g->pml[a][0] + g->n[a] - g->start[a];
    for (PetscInt s = 0; s < 2; s++) {
      b->layer[a][s]        = g->pml[a][s] > 0 ? PETSC_TRUE : PETSC_FALSE;
      b->free_surface[a][s] = GridFreeSurface(g, a, s);
      b->neighbour[a][s]    = g->nbr[a][s] != MPI_PROC_NULL ? PETSC_TRUE : PETSC_FALSE;
    }
  }
}

void GridBlockCore(const GridBlock *b, PetscInt core[3][2])
{
  for (PetscInt a = 0; a < 3; a++) {
    const PetscBool active = a < b->dim ? PETSC_TRUE : PETSC_FALSE;
    const PetscInt  n      = active ? b->n[a] : 1;
    core[a][0]             = active ? PetscMax(0, PetscMin(n, b->layer_edge[a][0])) : 0;
    core[a][1]             = active ? PetscMax(core[a][0], PetscMin(n, b->layer_edge[a][1])) : 1;
  }
}

void GridBlockLayerSlab(const GridBlock *b, PetscInt a, PetscInt side, PetscInt *lo, PetscInt *hi)
{
  const PetscInt r = b->order / 2, n = b->n[a], P = n + 2 * r, edge_lo = b->layer_edge[a][0], edge_hi = b->layer_edge[a][1];

  *lo = *hi = 0;
  if (a >= b->dim || !b->layer[a][side]) return;
  if (side == 0 && edge_lo + r > 0) *hi = PetscMin(P, PetscMax(edge_lo, 0) + 3 * r);
  if (side == 1 && edge_hi - r < n) {
    *lo = PetscMin(PetscMax(0, edge_hi - r), n - r);
    *hi = P;
  }
}

/* The CPML profile: target reflection coefficient at normal incidence and
   the power of the damping's rise (chosen by scripts/bench-absorbing:
   docs/numerics.md). */
#define CPML_REFLECTION 1e-5
#define CPML_POWER      3.0
/* alpha >= CPML_ALPHA_FLOOR d (see fd_cpml_profile): 0.03 keeps order 16
   with 20 cells of layer from growing; with the layer on top, 20 cells then
   let through 6.4e-5 at order 8 (5.7e-5 without the floor) and 2.1e-4 at
   order 4 (1.1e-4), inside test_absorbing's 3e-4 (scripts/bench-absorbing). */
#define CPML_ALPHA_FLOOR 0.03

/* The weights at global extended position x along axis a, in cells (0
   outside the layers and the grid). */
static void LayerWeights(const Grid *g, PetscInt a, double x, PetscReal vmax, PetscReal f_pml, PetscReal dt, float *pa, float *pb)
{
  const double lo = (double)g->pml[a][0], hi = (double)(g->pml[a][0] + g->n[a] - 1);
  double       depth = 0, width = 0;

  *pa = *pb = 0;
  if (x < 0 || x > g->N[a] - 1) return;
  if (x < lo) {
    depth = lo - x;
    width = g->pml[a][0];
  }
  if (x > hi) {
    depth = x - hi;
    width = g->pml[a][1];
  }
  if (depth > 0) fd_cpml_profile(depth / width, width * g->d[a], vmax, f_pml, CPML_REFLECTION, CPML_POWER, CPML_ALPHA_FLOOR, dt, pa, pb);
}

PetscErrorCode GridLayerProfile(const Grid *g, PetscInt a, PetscReal vmax, PetscReal f_pml, PetscReal dt, float *pa, float *pb, float *pda)
{
  const PetscInt r = g->radius, np = g->size[a] + 2 * r;
  double         c1[FWI_MAX_RADIUS + 1];
  float         *ax, bx; /* a over padded indices -r .. np + r - 1, for its differences */

  PetscFunctionBeginUser;
  fd_weights((int)g->order, 1, c1);
  PetscCall(PetscMalloc1(np + 2 * r, &ax));
  for (PetscInt k = -r; k < np + r; k++) /* extended global index start - r + k */
    LayerWeights(g, a, (double)(g->start[a] - r + k), vmax, f_pml, dt, &ax[k + r], k >= 0 && k < np ? &pb[k] : &bx);
  for (PetscInt k = 0; k < np; k++) {
    double da = 0;
    pa[k]     = ax[k + r];
    for (PetscInt j = 1; pb[k] != 0 && j <= r; j++) da += c1[j] / g->d[a] * ((double)ax[k + r + j] - ax[k + r - j]);
    pda[k] = (float)da;
  }
  PetscCall(PetscFree(ax));
  PetscFunctionReturn(0);
}

void GridLayerProfileHalf(const Grid *g, PetscInt a, PetscReal vmax, PetscReal f_pml, PetscReal dt, float *pa, float *pb)
{
  const PetscInt r = g->radius, np = g->size[a] + 2 * r;

  for (PetscInt k = 0; k < np; k++) LayerWeights(g, a, g->start[a] - r + k + 0.5, vmax, f_pml, dt, &pa[k], &pb[k]);
}
