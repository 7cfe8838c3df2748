/* The CUDA backend against the CPU backend, bit for bit.

   Both backends get Fields of identical geometry (2D and 3D, radius 1 to 8,
   uneven sizes, CPML layers of different widths on some sides, free
   surfaces on some faces, blocks that are a whole grid and blocks that are
   one rank's share of a larger grid, whose layers begin outside the block)
   and the same pseudo-random state in every array: u, uprev, vdt2, lap,
   grad and every slab's psi and zeta everywhere, ghosts included; the CPML
   profiles exactly zero outside the layers (and in ghosts beyond the grid)
   and nonzero inside, as the real profiles are.  Each operation of
   KernelOps then runs on both from that state, and every array comes back
   (mem_download) and must be equal bit for bit: the CUDA backend is built
   with --fmad=false and shares the arithmetic of stencil.h.

   The operations: a forward step (step, then advance_memory over the same
   regions, as propagate.c runs them: the CPU backend advances axis 0's psi
   within the step where a box holds whole rows, so only the pair is
   compared) over the whole block as one box, over a sub-box and over the
   interior plus the shell slabs, with and without storing lap; an adjoint
   step (adjoint_layers_begin, adjoint_step, adjoint_layers_end: for an
   axis no rank lies across, the CPU backend adds u to the slabs' E in
   adjoint_layers_end, and for z does the slabs' terms within adjoint_step)
   over the whole block and over interior plus shell (lap and grad set, or
   grad and the forward field run backwards: fu, fuprev);
   adjoint_layers_begin and adjoint_layers_end each alone (with neighbours
   all round, so each does all of its work); mirror_ghosts; zero_surface; inject and record (point maps: each
   cell a weighted sum of amplitudes, each row a weighted sum of cells and
   remote values; record also against that sum on the host);
   zero_state; mem_zero of grad; pack_boxes of the boundary gradient method's layer band
   (packed from u, unpacked into uprev); a forward and an adjoint step as propagate.c runs them with
   the interior on the side lane and the shell on the main lane, joined;
   all_finite on a finite field and with one NaN or Inf planted; every array
   zeroed by alloc and mem_alloc; and the device-only calls (free memory,
   main_stream, pinned host memory, copy_async/copy_wait ordered against the
   main lane).  A mismatch prints the operation, the array, how many values
   differ, the largest difference and the first mismatching cell; the test
   goes on and fails at the end.

   Regions: the CPU backend takes boxes cut at the layer edges of axes 1
   and 2 (split_boxes, see Box and BoxSplitAtLayers in
   grid/box.h); the CUDA backend takes them uncut.  A box's layer_axes has
   bit a set where some of its cells lie in a layer of axis a (for a piece
   cut at the layer edges that is every cell along axes 1 and 2); that is the
   bit propagate.c computes for any box.  advance_memory runs only on boxes
   with a layer bit, as propagate.c runs it.

   -gpu_tile ROWS,RUN: the CUDA core kernel's launch shape (Fields.gpu_tile;
   default the backend's): a shape that does not divide the boxes checks
   the partial blocks and runs.  -gpu_tile_shared: the core kernel reads
   through its shared-memory tile.

   Returns GPU_SKIPPED (skipped) where there is no CUDA device.  With -cpu_only the
   second block is a CPU one too and the device-only calls are left out:
   that runs without a GPU and checks that every call the harness makes
   keeps to the CPU backend's contract (a call it refuses fails), the half
   of this test a machine without a GPU can check.  Built with
   HALOFWI_CUDA_HOST (unit_kernels_cuda_host), the second block is the CUDA
   backend compiled for the host (src/equations/cuda/host_emulation.h): its kernels
   and launch shapes run on the CPU, the other half a machine without a GPU
   can check. */
#ifndef HALOFWI_CUDA_HOST
  #include <cuda_runtime_api.h>
#endif
#include "grid/box.h"
#include "backend_harness.h"
#include "fields_setup.h"
#include "gpu_skipped.h"

/* The second block's backend: CUDA's, or the CPU's with -cpu_only. */
static const KernelOps *second = &KernelOpsCUDA;
static GpuTile          gpu_tile; /* -gpu_tile, -gpu_tile_shared; 0: the backend's default */

/* A block of cells as one rank of a grid sees it. */
typedef struct {
  const char *name;
  PetscInt    dim, n[3];
  PetscInt    edge[3][2];         /* Fields.layer_edge */
  PetscBool   layer[3][2];        /* the grid has a layer on that side */
  PetscBool   neighbour[3][2];    /* another rank across the face: the ghosts lie inside the grid */
  PetscBool   free_surface[3][2]; /* the face is the grid's free surface */
} Config;

/* The regions an operation is applied to, each a list of uncut boxes. */
typedef struct {
  Box      whole, sub, interior, shell[6];
  PetscInt nshell;
} Regions;

/* ------------------------------------------------------------------------ */
/* set-up */

/* Box [lo, hi) with its layer bits, as BoxSplitAtLayers gives them. */
static Box MakeBox(const Fields *f, const PetscInt lo[3], const PetscInt hi[3])
{
  Box      b, whole;
  PetscInt n = 0;
  for (PetscInt a = 0; a < 3; a++) {
    whole.lo[a] = lo[a];
    whole.hi[a] = hi[a];
  }
  whole.layer_axes = 0;
  b                = whole;
  BoxSplitAtLayers(f->core, &whole, PETSC_FALSE, &b, &n);
  return b;
}

/* Whole block; a sub-box off every face; the interior and shell of a rank
   with neighbours all round, as propagate.c makes them. */
static void RegionsSetUp(const Fields *f, Regions *g)
{
  const PetscInt  zero[3] = {0, 0, 0};
  const PetscBool all[3][2] = {
    {PETSC_TRUE, PETSC_TRUE},
    {PETSC_TRUE, PETSC_TRUE},
    {PETSC_TRUE, PETSC_TRUE}
  };
  PetscInt lo[3], hi[3];

  g->whole = MakeBox(f, zero, f->n);
  for (PetscInt a = 0; a < 3; a++) {
    lo[a] = a < f->dim ? 1 + a : 0;
    hi[a] = a < f->dim ? f->n[a] - 2 : 1;
  }
  g->sub = MakeBox(f, lo, hi);
  BoxesInteriorShell(f->dim, f->radius, f->n, all, &g->interior, g->shell, &g->nshell);
  g->interior = MakeBox(f, g->interior.lo, g->interior.hi);
  for (PetscInt k = 0; k < g->nshell; k++) g->shell[k] = MakeBox(f, g->shell[k].lo, g->shell[k].hi);
}

/* Profile value at padded index k of axis a: zero outside the layers and
   beyond the grid, nonzero in the layers. */
static PetscBool InLayer(const Config *c, const Fields *f, PetscInt a, PetscInt k)
{
  const PetscInt i = k - f->radius; /* owned index */
  if ((i < 0 && !c->neighbour[a][0]) || (i >= f->n[a] && !c->neighbour[a][1])) return PETSC_FALSE;
  return (c->layer[a][0] && i < f->layer_edge[a][0]) || (c->layer[a][1] && i >= f->layer_edge[a][1]) ? PETSC_TRUE : PETSC_FALSE;
}

static void Randomize(const Config *c, const Fields *f, const ArrayList *l, HostState *h)
{
  for (PetscInt k = 0; k < l->n; k++) {
    const char *name = l->a[k].name;
    float      *x    = h->x[k];
    if (l->a[k].kind == ARRAY_PROFILE) {
      const PetscBool a_prof = name[4] == 'a' ? PETSC_TRUE : PETSC_FALSE;
      for (PetscInt j = 0; j < f->padded[l->a[k].axis]; j++)
        x[j] = InLayer(c, f, l->a[k].axis, j) ? (float)(a_prof ? Uniform(-0.5, -0.01) : Uniform(0.5, 0.99)) : 0.0f;
    } else if (!strcmp(name, "vdt2")) FillRandom(x, l->a[k].len, 0.05, 0.3);
    else FillRandom(x, l->a[k].len, -1, 1);
  }
}

/* NCELLS distinct owned cells: the block's corners, then random ones. */
static void ChooseCells(const Fields *f, ptrdiff_t cell[])
{
  PetscInt n = 0;
  while (n < NCELLS) {
    PetscInt  i[3];
    PetscBool dup = PETSC_FALSE;
    for (PetscInt a = 0; a < 3; a++)
      i[a] = n < (1 << f->dim) ? ((n >> a) & 1) * (f->n[a] - 1) : PetscMin(f->n[a] - 1, (PetscInt)Uniform(0, (double)f->n[a]));
    for (PetscInt k = 0; k < n; k++) dup = dup || cell[k] == FieldsIndex(f, i);
    if (!dup) cell[n++] = FieldsIndex(f, i);
  }
}

/* ------------------------------------------------------------------------ */
/* operations, each on one block through its own backend */

typedef enum { BOX_STEP, BOX_MEMORY, BOX_ADJOINT } BoxOp;

/* A box as propagate.c hands it to the block's backend, cut at the layers
   as KernelOpsSplitBoxes says; advance_memory only where a piece has a
   layer bit. */
static PetscErrorCode ApplyBox(Block *b, const Box *box, BoxOp op)
{
  Box      piece[BOX_MAX_PIECES];
  PetscInt npiece = 0;

  PetscFunctionBeginUser;
  BoxSplitAtLayers(b->f.core, box, KernelOpsSplitBoxes(b->ops, op == BOX_ADJOINT), piece, &npiece);
  for (PetscInt k = 0; k < npiece; k++) {
    switch (op) {
    case BOX_STEP: PetscCall(b->ops->step(&b->f, &piece[k])); break;
    case BOX_MEMORY:
      if (piece[k].layer_axes) PetscCall(b->ops->advance_memory(&b->f, &piece[k]));
      break;
    case BOX_ADJOINT: PetscCall(b->ops->adjoint_step(&b->f, &piece[k])); break;
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ApplyShell(Block *b, const Regions *g, BoxOp op)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < g->nshell; k++) PetscCall(ApplyBox(b, &g->shell[k], op));
  PetscFunctionReturn(0);
}

/* Interior and shell on the main lane. */
static PetscErrorCode ApplySplit(Block *b, const Regions *g, BoxOp op)
{
  PetscFunctionBeginUser;
  PetscCall(ApplyBox(b, &g->interior, op));
  PetscCall(ApplyShell(b, g, op));
  PetscFunctionReturn(0);
}

/* The interior on the side lane while the shell runs on the main lane, then join. */
static PetscErrorCode ApplyLanes(Block *b, const Regions *g, BoxOp op)
{
  PetscFunctionBeginUser;
  PetscCall(b->ops->backend->side_begin(b->f.backend));
  PetscCall(ApplyBox(b, &g->interior, op));
  PetscCall(b->ops->backend->side_end(b->f.backend));
  PetscCall(ApplyShell(b, g, op));
  PetscCall(b->ops->backend->join(b->f.backend));
  PetscFunctionReturn(0);
}

/* A forward step over one box: the step, then the memory update. */
static PetscErrorCode ForwardBox(Block *b, const Box *box)
{
  PetscFunctionBeginUser;
  PetscCall(ApplyBox(b, box, BOX_STEP));
  PetscCall(ApplyBox(b, box, BOX_MEMORY));
  PetscFunctionReturn(0);
}

static PetscErrorCode StepWhole(Block *b, const Regions *g) { return ForwardBox(b, &g->whole); }
static PetscErrorCode StepWholeStore(Block *b, const Regions *g)
{
  b->f.lap = b->lap;
  return ForwardBox(b, &g->whole);
}
static PetscErrorCode StepSubStore(Block *b, const Regions *g)
{
  b->f.lap = b->lap;
  return ForwardBox(b, &g->sub);
}
static PetscErrorCode StepSplit(Block *b, const Regions *g)
{
  PetscFunctionBeginUser;
  PetscCall(ApplySplit(b, g, BOX_STEP));
  PetscCall(ApplySplit(b, g, BOX_MEMORY));
  PetscFunctionReturn(0);
}

/* Two forward steps as propagate.c runs them with the lanes, storing lap:
   the memory update waits for every read of psi, and the second step's
   interior (side lane) reads what the first step's main lane wrote.  The
   two swaps leave u and uprev where they were. */
static PetscErrorCode StepLanes(Block *b, const Regions *g)
{
  PetscFunctionBeginUser;
  b->f.lap = b->lap;
  for (int step = 0; step < 2; step++) {
    PetscCall(b->ops->mirror_ghosts(&b->f));
    PetscCall(ApplyLanes(b, g, BOX_STEP));
    PetscCall(ApplySplit(b, g, BOX_MEMORY));
    PetscCall(b->ops->inject(&b->f, &b->inject, b->amp));
    PetscCall(b->ops->zero_surface(&b->f));
    FieldsSwap(&b->f);
  }
  PetscFunctionReturn(0);
}

/* Runs op with the block's Fields saying that a rank lies across every
   face, as the split regions assume (RegionsSetUp) and as propagate.c's
   Fields would say: the CPU backend's adjoint then does each of its three
   calls' whole work, as CUDA's does (see CPUAxisAlone). */
static PetscErrorCode AllRound(Block *b, const Regions *g, PetscErrorCode (*op)(Block *, const Regions *))
{
  PetscBool keep[3][2];

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(&keep[0][0], &b->f.neighbour[0][0], 6));
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt s = 0; s < 2; s++) b->f.neighbour[a][s] = PETSC_TRUE;
  PetscCall(op(b, g));
  PetscCall(PetscArraycpy(&b->f.neighbour[0][0], &keep[0][0], 6));
  PetscFunctionReturn(0);
}

/* An adjoint step's kernels: adjoint_layers_begin, adjoint_step over the
   regions, then adjoint_layers_end (how the CPML work splits between them
   is the backend's, see KernelOps). */
static PetscErrorCode AdjointWholePair(Block *b, const Regions *g)
{
  PetscFunctionBeginUser;
  PetscCall(b->ops->adjoint_layers_begin(&b->f));
  PetscCall(ApplyBox(b, &g->whole, BOX_ADJOINT));
  PetscCall(b->ops->adjoint_layers_end(&b->f));
  PetscFunctionReturn(0);
}
static PetscErrorCode AdjointSplitPair(Block *b, const Regions *g)
{
  PetscFunctionBeginUser;
  PetscCall(b->ops->adjoint_layers_begin(&b->f));
  PetscCall(ApplySplit(b, g, BOX_ADJOINT));
  PetscCall(b->ops->adjoint_layers_end(&b->f));
  PetscFunctionReturn(0);
}
static PetscErrorCode AdjointWhole(Block *b, const Regions *g)
{
  b->f.lap  = b->lap;
  b->f.grad = b->grad;
  return AdjointWholePair(b, g);
}
static PetscErrorCode AdjointSplit(Block *b, const Regions *g)
{
  b->f.lap  = b->lap;
  b->f.grad = b->grad;
  return AllRound(b, g, AdjointSplitPair);
}
/* With the forward field run backwards (the boundary gradient method). */
static PetscErrorCode AdjointBackwardSplit(Block *b, const Regions *g)
{
  b->f.grad   = b->grad;
  b->f.fu     = b->fu;
  b->f.fuprev = b->fuprev;
  return AllRound(b, g, AdjointSplitPair);
}
static PetscErrorCode LayersBeginOnly(Block *b, const Regions *g) { return b->ops->adjoint_layers_begin(&b->f); }
static PetscErrorCode LayersEndOnly(Block *b, const Regions *g) { return b->ops->adjoint_layers_end(&b->f); }
/* Each alone does all its work with neighbours all round. */
static PetscErrorCode LayersBegin(Block *b, const Regions *g) { return AllRound(b, g, LayersBeginOnly); }
static PetscErrorCode LayersEnd(Block *b, const Regions *g) { return AllRound(b, g, LayersEndOnly); }

/* Two adjoint steps as propagate.c runs them with the lanes (see StepLanes). */
static PetscErrorCode AdjointLanesSteps(Block *b, const Regions *g)
{
  PetscFunctionBeginUser;
  b->f.lap  = b->lap;
  b->f.grad = b->grad;
  for (int step = 0; step < 2; step++) {
    PetscCall(b->ops->adjoint_layers_begin(&b->f));
    PetscCall(b->ops->mirror_ghosts(&b->f));
    PetscCall(ApplyLanes(b, g, BOX_ADJOINT));
    PetscCall(b->ops->adjoint_layers_end(&b->f));
    PetscCall(b->ops->inject(&b->f, &b->inject, b->amp));
    PetscCall(b->ops->zero_surface(&b->f));
    FieldsSwap(&b->f);
  }
  PetscFunctionReturn(0);
}
static PetscErrorCode AdjointLanes(Block *b, const Regions *g) { return AllRound(b, g, AdjointLanesSteps); }

static PetscErrorCode Mirror(Block *b, const Regions *g) { return b->ops->mirror_ghosts(&b->f); }
static PetscErrorCode ZeroSurface(Block *b, const Regions *g) { return b->ops->zero_surface(&b->f); }
static PetscErrorCode Inject(Block *b, const Regions *g) { return b->ops->inject(&b->f, &b->inject, b->amp); }
static PetscErrorCode Record(Block *b, const Regions *g) { return b->ops->record(&b->f, &b->record, b->remote, b->out); }
static PetscErrorCode ZeroState(Block *b, const Regions *g) { return b->ops->zero_state(&b->f); }
static PetscErrorCode ZeroGrad(Block *b, const Regions *g) { return b->ops->backend->mem_zero(b->f.backend, b->grad, b->f.ncells * sizeof(float)); }
/* The boundary gradient method's band (FieldsBandBoxes) of u packed into
   lap, and lap unpacked into uprev's band. */
static PetscErrorCode PackBand(Block *b, PetscBool unpack)
{
  Box      band[6];
  PetscInt nband;

  PetscFunctionBeginUser;
  (void)FieldsBandBoxes(&b->f, band, &nband);
  PetscCall(b->ops->pack_boxes(&b->f, unpack ? b->f.uprev : b->f.u, nband, band, b->lap, unpack));
  PetscFunctionReturn(0);
}
static PetscErrorCode Pack(Block *b, const Regions *g) { return PackBand(b, PETSC_FALSE); }
static PetscErrorCode Unpack(Block *b, const Regions *g) { return PackBand(b, PETSC_TRUE); }

static const struct {
  const char *name;
  PetscErrorCode (*run)(Block *, const Regions *);
} operations[] = {
  {"forward step, whole block as one box",                StepWhole     },
  {"forward step, whole block, storing lap",              StepWholeStore},
  {"forward step, sub-box, storing lap",                  StepSubStore  },
  {"forward step, interior + shell",                      StepSplit     },
  {"forward step with the lanes (interior on the side)",  StepLanes     },
  {"adjoint step (adjoint_layers_begin, adjoint_step, adjoint_layers_end), whole block", AdjointWhole},
  {"adjoint step, interior + shell",                      AdjointSplit  },
  {"adjoint step with the forward field run backwards",   AdjointBackwardSplit},
  {"adjoint_layers_begin",                                LayersBegin   },
  {"adjoint_layers_end",                                  LayersEnd     },
  {"adjoint step with the lanes (interior on the side)",  AdjointLanes  },
  {"mirror_ghosts",                                       Mirror        },
  {"zero_surface",                                        ZeroSurface   },
  {"inject",                                              Inject        },
  {"record",                                              Record        },
  {"zero_state",                                          ZeroState     },
  {"mem_zero, grad",                                      ZeroGrad      },
  {"pack_boxes, the layer band of u",                     Pack          },
  {"pack_boxes, unpacked into uprev",                     Unpack        },
};

/* ------------------------------------------------------------------------ */
/* the comparisons */

typedef struct {
  char       name[160];
  Block      cpu, gpu;
  ArrayList  l;
  HostState  init, out[2];
  Regions    g;
  ptrdiff_t  cell[NCELLS];
  PointMap   inject, record; /* host */
  float      remote[NCELLS];
} Pair;

/* Both blocks from the initial state, the operation on each, every array compared. */
static PetscErrorCode RunOperation(Pair *p, PetscInt k)
{
  Block *b[2] = {&p->cpu, &p->gpu};
  char   what[256];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(what, sizeof what, "%s: %s", p->name, operations[k].name));
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(Upload(b[s], &p->l, &p->init));
    PetscCall(operations[k].run(b[s], &p->g));
    b[s]->f.lap = b[s]->f.grad = b[s]->f.fu = b[s]->f.fuprev = NULL;
    PetscCall(Download(b[s], &p->l, &p->out[s]));
  }
  for (PetscInt j = 0; j < p->l.n; j++) PetscCall(CompareArray(what, &p->gpu.f, &p->l, j, p->out[0].x[j], p->out[1].x[j]));
  PetscFunctionReturn(0);
}

/* record must give, row by row, its entries' weighted sum in double in
   entry order, rounded once: u at the cells exactly where the one weight is 1. */
static PetscErrorCode CheckRecorded(Pair *p)
{
  const float    *u = p->out[1].x[0], *out = p->out[1].x[p->l.n - 1];
  const PointMap *m = &p->record;

  PetscFunctionBeginUser;
  ncompared++;
  for (PetscInt k = 0; k < NCELLS; k++) {
    double sum = 0;
    for (PetscInt e = m->start[k]; e < m->start[k + 1]; e++) sum += (double)m->weight[e] * (m->index[e] >= 0 ? u[m->index[e]] : p->remote[-1 - m->index[e]]);
    if (Bits(out[k]) != Bits((float)sum)) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s: record: row %d (first cell %d) gives %.9g, expected %.9g\n", p->name, (int)k, (int)p->cell[k], (double)out[k],
                            (double)(float)sum));
      nfailed++;
      break;
    }
  }
  PetscFunctionReturn(0);
}

/* The maps of the inject and record tests over the cells: every inject row
   (a cell) sums three amplitudes with random weights; record rows read one
   cell with weight 1 (even rows), or two cells and a remote value (odd). */
static PetscErrorCode ChooseMaps(Pair *p)
{
  PointMap *in = &p->inject, *rec = &p->record;

  PetscFunctionBeginUser;
  in->nrows = rec->nrows = NCELLS;
  PetscCall(PetscMalloc4(NCELLS, &in->cell, NCELLS + 1, &in->start, 3 * NCELLS, &in->index, 3 * NCELLS, &in->weight));
  PetscCall(PetscMalloc3(NCELLS + 1, &rec->start, 3 * NCELLS, &rec->index, 3 * NCELLS, &rec->weight));
  FillRandom(in->weight, 3 * NCELLS, -1, 1);
  FillRandom(rec->weight, 3 * NCELLS, -1, 1);
  FillRandom(p->remote, NCELLS, -1, 1);
  rec->start[0] = 0;
  for (PetscInt k = 0; k < NCELLS; k++) {
    const ptrdiff_t read[3] = {p->cell[k], p->cell[(k + NCELLS - 1) % NCELLS], -1 - k};
    in->cell[k]             = p->cell[k];
    in->start[k]            = 3 * k;
    for (PetscInt e = 0; e < 3; e++) in->index[3 * k + e] = (k + 7 * e) % NCELLS;
    rec->start[k + 1] = rec->start[k] + (k % 2 ? 3 : 1);
    for (PetscInt e = 0; e < rec->start[k + 1] - rec->start[k]; e++) rec->index[rec->start[k] + e] = read[e];
    if (k % 2 == 0) rec->weight[rec->start[k]] = 1;
  }
  in->start[NCELLS] = 3 * NCELLS;
  PetscFunctionReturn(0);
}

/* all_finite: true on the random state; false with one NaN or one Inf
   planted in u (an owned cell), on both backends. */
static PetscErrorCode CheckAllFinite(Pair *p)
{
  Block         *b[2]   = {&p->cpu, &p->gpu};
  const PetscInt last[3] = {p->gpu.f.n[0] - 1, p->gpu.f.n[1] - 1, p->gpu.f.n[2] - 1}, mid[3] = {p->gpu.f.n[0] / 2, p->gpu.f.n[1] / 3, p->gpu.f.n[2] / 2};
  const struct {
    const char *what;
    ptrdiff_t   cell;
    float       value;
  } plant[] = {
    {"no NaN",                            -1,                       0           },
    {"a NaN in u",                        FieldsIndex(&p->gpu.f, mid),  NAN     },
    {"an Inf in u at the last owned cell", FieldsIndex(&p->gpu.f, last), -INFINITY},
  };
  float *u = p->init.x[0];

  PetscFunctionBeginUser;
  for (size_t k = 0; k < sizeof plant / sizeof plant[0]; k++) {
    PetscBool finite[2];
    float     keep = plant[k].cell >= 0 ? u[plant[k].cell] : 0;
    if (plant[k].cell >= 0) u[plant[k].cell] = plant[k].value;
    for (PetscInt s = 0; s < 2; s++) {
      PetscCall(Upload(b[s], &p->l, &p->init));
      PetscCall(b[s]->ops->all_finite(&b[s]->f, &finite[s]));
    }
    if (plant[k].cell >= 0) u[plant[k].cell] = keep;
    ncompared++;
    if (finite[0] != finite[1] || finite[1] != (plant[k].cell < 0 ? PETSC_TRUE : PETSC_FALSE)) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s: all_finite with %s: cuda says %s, cpu says %s\n", p->name, plant[k].what, finite[1] ? "finite" : "not finite",
                            finite[0] ? "finite" : "not finite"));
      nfailed++;
    }
  }
  PetscFunctionReturn(0);
}

/* The device-only calls: free memory, pinned host memory and the copy
   lane.  A copy of uprev out after a forward step (copy_async waits for the
   main lane's work so far), read on the host after copy_sync, and of lap
   in; copy_wait orders the adjoint step
   (its three calls, which together do the same work on either backend),
   which overwrites uprev and reads lap, after both.  The CPU block does the
   same with plain copies.  The forward step is step and advance_memory
   together: only the pair is the same on both backends (KernelOps), and
   the adjoint reads psi. */
static PetscErrorCode CheckCopyLane(Pair *p)
{
  const KernelOps *ops   = p->gpu.ops;
  const size_t     bytes = sizeof(float) * p->gpu.f.ncells;
  float           *pinned_out = NULL, *pinned_in = NULL, *cpu_out, *synced;
  size_t           free_bytes = 0;
  void            *stream     = NULL;
  char             what[256];
  Block           *b[2] = {&p->cpu, &p->gpu};

  PetscFunctionBeginUser;
  PetscCheck(ops->backend->device_free_memory && ops->backend->main_stream && ops->backend->host_alloc && ops->backend->host_free && ops->backend->copy_async && ops->backend->copy_wait &&
               ops->backend->copy_sync,
             PETSC_COMM_SELF,
             PETSC_ERR_PLIB, "the %s backend lacks one of the device-only operations", ops->backend->name);
  PetscCall(PetscSNPrintf(what, sizeof what, "%s: step, copy uprev out and lap in on the copy lane, adjoint_step", p->name));
  PetscCall(ops->backend->device_free_memory(&free_bytes));
  PetscCall(ops->backend->main_stream(p->gpu.f.backend, &stream));
  ncompared += 2;
  if (!free_bytes) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s: device_free_memory says 0 bytes\n", p->name));
    nfailed++;
  }
  if (!stream) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s: main_stream gives NULL\n", p->name));
    nfailed++;
  }
  PetscCall(ops->backend->host_alloc((void **)&pinned_out, bytes));
  PetscCall(ops->backend->host_alloc((void **)&pinned_in, bytes));
  PetscCall(PetscMalloc2(p->gpu.f.ncells, &cpu_out, p->gpu.f.ncells, &synced));
  PetscCall(PetscArraycpy(pinned_in, p->init.x[1], p->gpu.f.ncells)); /* new lap: the initial uprev */
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(Upload(b[s], &p->l, &p->init));
    PetscCall(ForwardBox(b[s], &p->g.whole));
    if (s) {
      PetscCall(ops->backend->copy_async(p->gpu.f.backend, 0, pinned_out, p->gpu.f.uprev, bytes));
      PetscCall(ops->backend->copy_async(p->gpu.f.backend, 1, p->gpu.lap, pinned_in, bytes));
      PetscCall(ops->backend->copy_wait(p->gpu.f.backend, 0));
      PetscCall(ops->backend->copy_wait(p->gpu.f.backend, 1));
      PetscCall(ops->backend->copy_sync(p->gpu.f.backend, 0)); /* the host may read the copy now, before anything else waits */
      PetscCall(PetscArraycpy(synced, pinned_out, p->gpu.f.ncells));
    } else {
      PetscCall(PetscArraycpy(cpu_out, p->cpu.f.uprev, p->cpu.f.ncells));
      PetscCall(PetscArraycpy(p->cpu.lap, pinned_in, p->cpu.f.ncells));
    }
    b[s]->f.lap  = b[s]->lap;
    b[s]->f.grad = b[s]->grad;
    PetscCall(AdjointWholePair(b[s], &p->g));
    b[s]->f.lap = b[s]->f.grad = b[s]->f.fu = b[s]->f.fuprev = NULL;
    PetscCall(Download(b[s], &p->l, &p->out[s]));
  }
  for (PetscInt j = 0; j < p->l.n; j++) PetscCall(CompareArray(what, &p->gpu.f, &p->l, j, p->out[0].x[j], p->out[1].x[j]));
  PetscCall(PetscSNPrintf(what, sizeof what, "%s: uprev after the step as copy_async copied it out", p->name));
  PetscCall(CompareArray(what, &p->gpu.f, &p->l, 1, cpu_out, pinned_out));
  PetscCall(PetscSNPrintf(what, sizeof what, "%s: uprev copied out, read on the host once copy_sync returned", p->name));
  PetscCall(CompareArray(what, &p->gpu.f, &p->l, 1, cpu_out, synced));
  PetscCall(PetscFree2(cpu_out, synced));
  PetscCall(ops->backend->host_free((void **)&pinned_out));
  PetscCall(ops->backend->host_free((void **)&pinned_in));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestConfig(const Config *c, PetscInt radius)
{
  Pair          *p;
  Fields         geometry;
  float          amp[NCELLS];
  const PetscInt before = nfailed;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&p));
  PetscCall(FieldsDescribeBlock(c->dim, radius, c->n, c->edge, c->layer, &geometry));
  for (PetscInt a = 0; a < c->dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      geometry.free_surface[a][s] = c->free_surface[a][s];
      geometry.neighbour[a][s]    = c->neighbour[a][s];
    }
  geometry.gpu_tile = gpu_tile;
  PetscCall(PetscSNPrintf(p->name, sizeof p->name, "%s, radius %d, n (%d, %d, %d), core [%d, %d) [%d, %d) [%d, %d)", c->name, (int)radius, (int)geometry.n[0],
                          (int)geometry.n[1], (int)geometry.n[2], (int)geometry.core[0][0], (int)geometry.core[0][1], (int)geometry.core[1][0],
                          (int)geometry.core[1][1], (int)geometry.core[2][0], (int)geometry.core[2][1]));
  ChooseCells(&geometry, p->cell);
  FillRandom(amp, NCELLS, -1, 1);
  PetscCall(ChooseMaps(p));
  PetscCall(BlockCreate(&KernelOpsCPU, &geometry, &p->inject, &p->record, amp, p->remote, &p->cpu));
  PetscCall(BlockCreate(second, &geometry, &p->inject, &p->record, amp, p->remote, &p->gpu));
  ListArrays(&geometry, &p->l);
  ArrayAdd(&p->l, "record out", ARRAY_LIST, 0, 0, NCELLS);
  PetscCall(HostStateCreate(&p->l, &p->init));
  PetscCall(HostStateCreate(&p->l, &p->out[0]));
  PetscCall(HostStateCreate(&p->l, &p->out[1]));
  PetscCall(CheckZeroed(p->name, &p->cpu, &p->l, &p->out[0]));
  PetscCall(CheckZeroed(p->name, &p->gpu, &p->l, &p->out[1]));
  Randomize(c, &geometry, &p->l, &p->init);
  RegionsSetUp(&geometry, &p->g);

  for (size_t k = 0; k < sizeof operations / sizeof operations[0]; k++) {
    PetscCall(RunOperation(p, (PetscInt)k));
    if (operations[k].run == Record) PetscCall(CheckRecorded(p));
  }
  PetscCall(CheckAllFinite(p));
  if (second == &KernelOpsCUDA) PetscCall(CheckCopyLane(p));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %s\n", nfailed == before ? "ok  " : "FAIL", p->name));

  PetscCall(BlockDestroy(&p->cpu));
  PetscCall(BlockDestroy(&p->gpu));
  PetscCall(PetscFree4(p->inject.cell, p->inject.start, p->inject.index, p->inject.weight));
  PetscCall(PetscFree3(p->record.start, p->record.index, p->record.weight));
  PetscCall(HostStateDestroy(&p->init));
  PetscCall(HostStateDestroy(&p->out[0]));
  PetscCall(HostStateDestroy(&p->out[1]));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(0);
}

/* The first call into the backend: an allocation.  *none: it says there is no device. */
static PetscErrorCode ProbeDevice(PetscBool *none)
{
  const PetscInt n[3] = {8, 8, 1};
  Fields         f;
  PetscErrorCode ierr;
  char          *msg = NULL;

  PetscFunctionBeginUser;
  *none = PETSC_FALSE;
  PetscCall(FieldsDescribeBlock(2, 1, n, CORE(0, 8, 0, 8, 0, 1), NULL, &f));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = KernelOpsCUDA.alloc(&f);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    PetscCall(PetscErrorMessage(ierr, NULL, &msg));
    *none = msg && strstr(msg, "no CUDA device") ? PETSC_TRUE : PETSC_FALSE;
    PetscCheck(*none, PETSC_COMM_SELF, PETSC_ERR_LIB, "the CUDA backend's alloc failed: %s", msg ? msg : "(no message)");
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "unit_kernels_cuda: skipped: %s\n", msg));
    PetscFunctionReturn(0);
  }
  PetscCall(KernelOpsCUDA.free(&f));
  PetscFunctionReturn(0);
}

/* Layers on some sides (different widths), free surfaces on some faces;
   blocks that are a whole grid, and blocks of a decomposed grid (neighbours
   across some faces) whose layers begin outside the block, including a
   block inside the layers of every axis. */
#define T PETSC_TRUE
#define F PETSC_FALSE
static const Config configs[] = {
  /* top and right free surfaces, bottom layer 9, left layer 5 */
  {"2D grid", 2, {77, 45, 1}, {{0, 68}, {5, 45}, {0, 1}}, {{F, T}, {T, F}, {F, F}}, {{F, F}, {F, F}, {F, F}}, {{T, F}, {F, T}, {F, F}}},
  /* all four layers, cores 4 and 3 cells wide: the two slabs of an axis overlap */
  {"2D grid, narrow cores", 2, {33, 35, 1}, {{14, 18}, {16, 19}, {0, 1}}, {{T, T}, {T, T}, {F, F}}, {{F, F}, {F, F}, {F, F}}, {{F, F}, {F, F}, {F, F}}},
  /* a rank between others in z, the bottom layer starting inside it; the
     grid's left edge with a layer of 12; the right layer beginning 2 cells
     past the block, in the neighbour */
  {"2D subdomain", 2, {51, 40, 1}, {{-30, 44}, {12, 42}, {0, 1}}, {{T, T}, {T, T}, {F, F}}, {{T, T}, {F, T}, {F, F}}, {{F, F}, {F, F}, {F, F}}},
  /* free surfaces on top and in front; layers bottom 4, left 3, right 6, back 2 */
  {"3D grid", 3, {21, 19, 13}, {{0, 17}, {3, 13}, {0, 11}}, {{F, T}, {T, T}, {F, T}}, {{F, F}, {F, F}, {F, F}}, {{T, F}, {F, F}, {T, F}}},
  /* the grid's free top; neighbours below (layer from 34), left (the left
     layer ending 2 cells in), front and back (layers 1 cell beyond both
     faces); the grid's right edge with a layer of 5 */
  {"3D subdomain", 3, {37, 17, 15}, {{0, 34}, {2, 12}, {-1, 16}}, {{F, T}, {T, T}, {T, T}}, {{F, T}, {T, F}, {T, T}}, {{T, F}, {F, F}, {F, F}}},
  /* a corner block inside the top, left and front layers */
  {"3D subdomain in the layers", 3, {33, 18, 14}, {{40, 100}, {25, 60}, {30, 50}}, {{T, T}, {T, T}, {T, T}}, {{F, T}, {T, T}, {F, T}}, {{F, F}, {F, F}, {F, F}}},
};
#undef T
#undef F

/* *none: there is no CUDA device to test (a build for the host has one). */
static PetscErrorCode FindDevice(PetscBool *none)
{
  PetscFunctionBeginUser;
  *none = PETSC_FALSE;
#ifndef HALOFWI_CUDA_HOST
  int         ndev = 0;
  cudaError_t err  = cudaGetDeviceCount(&ndev);
  if (err != cudaSuccess || ndev < 1) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "unit_kernels_cuda: skipped: no CUDA device (%s)\n",
                          err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount found none"));
    *none = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
#endif
  PetscCall(ProbeDevice(none));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const PetscInt radii[FWI_MAX_RADIUS] = {1, 2, 3, 4, 5, 6, 7, 8};
  PetscBool      none = PETSC_FALSE, cpu_only = PETSC_FALSE;
  PetscErrorCode ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cpu_only", &cpu_only, NULL));
  {
    PetscInt n = 2, tile[2] = {0, 0};
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-gpu_tile", tile, &n, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu_tile_shared", &gpu_tile.shared, NULL));
    gpu_tile.rows = tile[0];
    gpu_tile.run  = tile[1];
  }
  if (cpu_only) second = &KernelOpsCPU;
  else PetscCall(FindDevice(&none));
  if (none) {
    PetscCall(PetscFinalize());
    return GPU_SKIPPED;
  }
  for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
    for (PetscInt j = 0; j < FWI_MAX_RADIUS; j++) {
      /* an error (PETSc has printed it) counts as a failure; the other blocks still run */
      ierr = TestConfig(&configs[c], radii[j]);
      if (ierr) {
        nfailed++;
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s, radius %d: error %d (see above)\n", configs[c].name, (int)radii[j], (int)ierr));
      }
    }
  if (nfailed) PetscCall(PetscPrintf(PETSC_COMM_SELF, "unit_kernels_cuda (%s): %d of %d comparisons failed\n", second->backend->name, (int)nfailed, (int)ncompared));
  else PetscCall(PetscPrintf(PETSC_COMM_SELF, "unit_kernels_cuda (%s): all %d comparisons bit-for-bit equal\n", second->backend->name, (int)ncompared));
  PetscCall(PetscFinalize());
  return nfailed ? 1 : 0;
}
