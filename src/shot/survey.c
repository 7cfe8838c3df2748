#include "shot/survey.h"
#include "shot/hicks.h"

/* A point's grid points per axis (extended indices) and their weights. */
typedef struct {
  PetscInt cnt[3];
  PetscInt idx[3][2 * HICKS_RADIUS];
  double   w[3][2 * HICKS_RADIUS];
  PetscInt near[3]; /* the nearest grid point: its owner records the point */
} Support;

/* Adds weight w at extended index i of axis a.  Beyond a free surface it goes
   to the mirror image where mirror is set: at the cell centres negated (the
   field is odd about the surface, where it is zero: weight there acts on
   nothing); on the nodes half a cell above them (node, the velocity normal
   to the surface: even about it, every node past the surface a mirror) as
   it is; without mirror, nowhere (a field with no parity about the
   surface).  Beyond the grid, nowhere. */
static void AxisAdd(const Grid *g, PetscInt a, PetscInt i, double w, PetscBool node, PetscBool mirror, Support *s)
{
  const PetscInt last = g->N[a] - 1;

  if (!mirror) {
    if ((!g->pml[a][0] && i < 0) || (!g->pml[a][1] && i > last - (node ? 1 : 0))) return;
  } else if (node) {
    if (!g->pml[a][0] && i < 0) i = -1 - i;
    if (!g->pml[a][1] && i >= last) i = 2 * last - 1 - i;
  } else {
    if (!g->pml[a][0] && i <= 0) {
      if (!i) return;
      i = -i, w = -w;
    }
    if (!g->pml[a][1] && i >= last) {
      if (i == last) return;
      i = 2 * last - i, w = -w;
    }
  }
  if (i < 0 || i > last) return;
  for (PetscInt k = 0; k < s->cnt[a]; k++)
    if (s->idx[a][k] == i) {
      s->w[a][k] += w;
      return;
    }
  s->idx[a][s->cnt[a]] = i;
  s->w[a][s->cnt[a]++] = w;
}

/* Point p's support on the cell centres, or along axis `node` (-1: none)
   on the nodes half a cell above them (node i at (i + 1/2) d); mirror as
   AxisAdd takes it. */
static void PointSupport(const Grid *g, const Position *p, PetscBool snap, PetscInt node, PetscBool mirror, Support *s)
{
  double   w[2 * HICKS_RADIUS];
  PetscInt count, cell[3];

  GeometryCell(p, g->dim, g->d, cell);
  for (PetscInt a = 0; a < 3; a++) {
    s->cnt[a] = 0;
    if (a >= g->dim) { /* one plane */
      s->cnt[a] = 1, s->idx[a][0] = 0, s->w[a][0] = 1, s->near[a] = 0;
      continue;
    }
    const double   x     = p->c[a] / g->d[a] - (a == node ? 0.5 : 0);
    const PetscInt first = HicksWeights(x, snap, w, &count);
    for (PetscInt k = 0; k < count; k++) AxisAdd(g, a, first + k + g->pml[a][0], w[k], a == node ? PETSC_TRUE : PETSC_FALSE, mirror, s);
    /* the nearest node below the nearest centre's upper face: a grid index either way */
    s->near[a] = PetscMin(PetscMax(a == node ? (PetscInt)floor(p->c[a] / g->d[a]) : cell[a], 0), g->n[a] - 1) + g->pml[a][0];
  }
}

/* Entry t of the support (axis 0 fastest): its cell and weight. */
static float SupportEntry(const Support *s, PetscInt t, PetscInt e[3])
{
  double w = 1;

  for (PetscInt a = 0; a < 3; a++) {
    const PetscInt k = t % s->cnt[a];
    t /= s->cnt[a];
    e[a] = s->idx[a][k];
    w *= s->w[a][k];
  }
  return (float)w;
}

/* The group rank owning extended cell e (the DMDA numbers ranks axis 0 fastest). */
static PetscMPIInt OwnerRank(const Grid *g, const PetscInt e[3])
{
  PetscMPIInt rank = 0;

  for (PetscInt a = 2; a >= 0; a--) {
    PetscInt p = 0;
    if (a < g->dim)
      for (PetscInt end = g->ranges[a][0]; e[a] >= end; end += g->ranges[a][++p]) {}
    rank = rank * (PetscMPIInt)g->nproc[a] + (PetscMPIInt)p;
  }
  return rank;
}

/* Does the support reach this rank's owned box (a point on every axis)? */
static PetscBool SupportReaches(const Grid *g, const Support *s)
{
  for (PetscInt a = 0; a < 3; a++) {
    PetscBool hit = PETSC_FALSE;
    for (PetscInt k = 0; k < s->cnt[a]; k++) hit = hit || (s->idx[a][k] >= g->start[a] && s->idx[a][k] < g->start[a] + g->size[a]);
    if (!hit) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

static ptrdiff_t PaddedIndex(const Grid *g, const PetscInt e[3])
{
  const PetscInt local[3] = {e[0] - g->start[0], e[1] - g->start[1], e[2] - g->start[2]};
  return GridPaddedIndex(g, local);
}

/* Rows and entries of a map; cell[] for an inject map. */
static PetscErrorCode PointMapAlloc(PetscInt rows, size_t n, PetscBool inject, PointMap *m)
{
  PetscFunctionBeginUser;
  m->nrows = rows;
  m->cell  = NULL;
  if (inject) PetscCall(PetscMalloc1(rows, &m->cell));
  PetscCall(PetscMalloc1(rows + 1, &m->start));
  PetscCall(PetscMalloc1(n, &m->index));
  PetscCall(PetscMalloc1(n, &m->weight));
  m->start[rows] = (PetscInt)n;
  PetscFunctionReturn(0);
}

PetscErrorCode PointMapOfCells(PetscInt n, const ptrdiff_t cell[], PointMap *m)
{
  PetscFunctionBeginUser;
  PetscCall(PointMapAlloc(n, (size_t)n, PETSC_FALSE, m));
  for (PetscInt k = 0; k < n; k++) {
    m->start[k]  = k;
    m->index[k]  = cell[k];
    m->weight[k] = 1;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PointMapDestroy(PointMap *m)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(m->cell));
  PetscCall(PetscFree(m->start));
  PetscCall(PetscFree(m->index));
  PetscCall(PetscFree(m->weight));
  PetscFunctionReturn(0);
}

/* One entry of an inject map before it is sorted into rows. */
typedef struct {
  ptrdiff_t cell;
  PetscInt  point;
  float     w;
} Spread;

/* A value this rank sends every step: its cell and the rank recording it. */
typedef struct {
  PetscMPIInt rank;
  ptrdiff_t   cell;
} Outgoing;

typedef struct {
  const Grid    *g;
  PetscMPIInt    me;
  PetscInt      *nsend, *nrecv; /* per group rank */
  PetscSegBuffer rec_id, rec_start, rec_index, rec_weight, rec_from, reach_id, reach, src, out;
} Builder;

static PetscErrorCode BuilderCreate(const Grid *g, PetscMPIInt size, Builder *b)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(b, sizeof(*b)));
  b->g  = g;
  b->me = OwnerRank(g, g->start);
  PetscCall(PetscCalloc2(size, &b->nsend, size, &b->nrecv));
  PetscCall(PetscSegBufferCreate(sizeof(PetscInt), 64, &b->rec_id));
  PetscCall(PetscSegBufferCreate(sizeof(PetscInt), 64, &b->rec_start));
  PetscCall(PetscSegBufferCreate(sizeof(ptrdiff_t), 1024, &b->rec_index));
  PetscCall(PetscSegBufferCreate(sizeof(float), 1024, &b->rec_weight));
  PetscCall(PetscSegBufferCreate(sizeof(PetscMPIInt), 1024, &b->rec_from));
  PetscCall(PetscSegBufferCreate(sizeof(PetscInt), 64, &b->reach_id));
  PetscCall(PetscSegBufferCreate(sizeof(Spread), 1024, &b->reach));
  PetscCall(PetscSegBufferCreate(sizeof(Spread), 64, &b->src));
  PetscCall(PetscSegBufferCreate(sizeof(Outgoing), 64, &b->out));
  PetscFunctionReturn(0);
}

static PetscErrorCode BuilderDestroy(Builder *b)
{
  PetscSegBuffer *seg[] = {&b->rec_id, &b->rec_start, &b->rec_index, &b->rec_weight, &b->rec_from, &b->reach_id, &b->reach, &b->src, &b->out};

  PetscFunctionBeginUser;
  for (size_t k = 0; k < sizeof(seg) / sizeof(seg[0]); k++) PetscCall(PetscSegBufferDestroy(seg[k]));
  PetscCall(PetscFree2(b->nsend, b->nrecv));
  PetscFunctionReturn(0);
}

/* Appends one unit to a segmented buffer. */
#define SEG_PUSH(seg, type, value) \
  do { \
    type *slot_; \
    PetscCall(PetscSegBufferGet(seg, 1, &slot_)); \
    *slot_ = (value); \
  } while (0)

static PetscErrorCode AddSource(Builder *b, const Support *s)
{
  PetscInt e[3];

  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < s->cnt[0] * s->cnt[1] * s->cnt[2]; t++) {
    const float w = SupportEntry(s, t, e);
    if (OwnerRank(b->g, e) == b->me) SEG_PUSH(b->src, Spread, ((Spread){PaddedIndex(b->g, e), 0, w}));
  }
  PetscFunctionReturn(0);
}

/* Receiver k: recorded here if this rank owns its nearest cell, its cells'
   values sent to the rank that does, its residual injected into the cells
   here. */
static PetscErrorCode AddReceiver(Builder *b, PetscInt k, const Support *s)
{
  const PetscMPIInt owner = OwnerRank(b->g, s->near);
  size_t            nreach;
  PetscBool         reached = PETSC_FALSE;
  PetscInt          e[3];

  PetscFunctionBeginUser;
  if (owner != b->me && !SupportReaches(b->g, s)) PetscFunctionReturn(0); /* nothing of it here */
  if (owner == b->me) {
    size_t entries;
    PetscCall(PetscSegBufferGetSize(b->rec_index, &entries));
    SEG_PUSH(b->rec_id, PetscInt, k);
    SEG_PUSH(b->rec_start, PetscInt, (PetscInt)entries);
  }
  PetscCall(PetscSegBufferGetSize(b->reach_id, &nreach));
  for (PetscInt t = 0; t < s->cnt[0] * s->cnt[1] * s->cnt[2]; t++) {
    const float       w    = SupportEntry(s, t, e);
    const PetscMPIInt q    = OwnerRank(b->g, e);
    const ptrdiff_t   cell = q == b->me ? PaddedIndex(b->g, e) : -1;
    if (q == b->me) {
      if (!reached) SEG_PUSH(b->reach_id, PetscInt, k);
      reached = PETSC_TRUE;
      SEG_PUSH(b->reach, Spread, ((Spread){cell, (PetscInt)nreach, w}));
    }
    if (owner == b->me) {
      /* a remote value: its place among q's, made global in RecordMap */
      SEG_PUSH(b->rec_index, ptrdiff_t, q == b->me ? cell : b->nrecv[q]++);
      SEG_PUSH(b->rec_weight, float, w);
      SEG_PUSH(b->rec_from, PetscMPIInt, q == b->me ? -1 : q);
    } else if (q == b->me) {
      SEG_PUSH(b->out, Outgoing, ((Outgoing){owner, cell}));
      b->nsend[owner]++;
    }
  }
  PetscFunctionReturn(0);
}

static int SpreadCompare(const void *x, const void *y)
{
  const Spread *a = (const Spread *)x, *b = (const Spread *)y;

  if (a->cell != b->cell) return a->cell < b->cell ? -1 : 1;
  return (a->point > b->point) - (a->point < b->point);
}

/* An inject map from its entries: one row per cell, the points in order. */
static PetscErrorCode InjectMap(PetscSegBuffer seg, PointMap *m)
{
  Spread  *sp;
  size_t   n;
  PetscInt rows = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscSegBufferGetSize(seg, &n));
  PetscCall(PetscSegBufferExtractAlloc(seg, &sp));
  qsort(sp, n, sizeof(*sp), SpreadCompare);
  for (size_t k = 0; k < n; k++) rows += !k || sp[k].cell != sp[k - 1].cell;
  PetscCall(PointMapAlloc(rows, n, PETSC_TRUE, m));
  rows = 0;
  for (size_t k = 0; k < n; k++) {
    if (!k || sp[k].cell != sp[k - 1].cell) {
      m->cell[rows]    = sp[k].cell;
      m->start[rows++] = (PetscInt)k;
    }
    m->index[k]  = sp[k].point;
    m->weight[k] = sp[k].w;
  }
  PetscCall(PetscFree(sp));
  PetscFunctionReturn(0);
}

/* The neighbours, in rank order, and where each one's values lie. */
static PetscErrorCode Neighbours(Builder *b, PetscMPIInt size, ShotLocal *s)
{
  PetscFunctionBeginUser;
  for (PetscMPIInt q = 0; q < size; q++) s->nnbr += b->nsend[q] || b->nrecv[q];
  PetscCall(PetscMalloc1(s->nnbr, &s->nbr));
  PetscCall(PetscMalloc1(s->nnbr + 1, &s->send_start));
  PetscCall(PetscMalloc1(s->nnbr + 1, &s->recv_start));
  s->nnbr          = 0;
  s->send_start[0] = s->recv_start[0] = 0;
  for (PetscMPIInt q = 0; q < size; q++) {
    if (!b->nsend[q] && !b->nrecv[q]) continue;
    s->nbr[s->nnbr]            = q;
    s->send_start[s->nnbr + 1] = s->send_start[s->nnbr] + b->nsend[q];
    s->recv_start[s->nnbr + 1] = s->recv_start[s->nnbr] + b->nrecv[q];
    /* from here on: where rank q's values start */
    b->nsend[q] = s->send_start[s->nnbr];
    b->nrecv[q] = s->recv_start[s->nnbr];
    s->nnbr++;
  }
  PetscFunctionReturn(0);
}

/* The record map, remote entries pointing at the received values. */
static PetscErrorCode RecordMap(Builder *b, ShotLocal *s)
{
  PointMap    *m = &s->rec;
  PetscMPIInt *from;
  size_t       n;

  PetscFunctionBeginUser;
  PetscCall(PetscSegBufferGetSize(b->rec_index, &n));
  PetscCall(PointMapAlloc(s->nrec, n, PETSC_FALSE, m));
  PetscCall(PetscSegBufferExtractTo(b->rec_start, m->start));
  PetscCall(PetscSegBufferExtractTo(b->rec_index, m->index));
  PetscCall(PetscSegBufferExtractTo(b->rec_weight, m->weight));
  PetscCall(PetscSegBufferExtractAlloc(b->rec_from, &from));
  for (size_t e = 0; e < n; e++)
    if (from[e] >= 0) m->index[e] = -1 - (b->nrecv[from[e]] + m->index[e]);
  PetscCall(PetscFree(from));
  PetscFunctionReturn(0);
}

/* The send map: this rank's values grouped by the rank they go to, each
   group in the order that rank's record map numbers them. */
static PetscErrorCode SendMap(Builder *b, ShotLocal *s)
{
  Outgoing  *out;
  ptrdiff_t *cell;
  size_t     n;

  PetscFunctionBeginUser;
  PetscCall(PetscSegBufferGetSize(b->out, &n));
  PetscCall(PetscSegBufferExtractAlloc(b->out, &out));
  PetscCall(PetscMalloc1(n, &cell));
  for (size_t k = 0; k < n; k++) cell[b->nsend[out[k].rank]++] = out[k].cell;
  PetscCall(PointMapOfCells((PetscInt)n, cell, &s->send));
  PetscCall(PetscFree(cell));
  PetscCall(PetscFree(out));
  PetscFunctionReturn(0);
}

PetscErrorCode ShotLocalize(const Grid *g, const Geometry *geo, PetscInt shot, PetscBool snap, ShotLocal *s)
{
  const ShotPlacement centres = {-1, -1, PETSC_TRUE};

  return ShotLocalizeAt(g, geo, shot, snap, &centres, s);
}

PetscErrorCode ShotLocalizeAt(const Grid *g, const Geometry *geo, PetscInt shot, PetscBool snap, const ShotPlacement *at, ShotLocal *s)
{
  const PetscInt r0 = geo->rec_start[shot], nr = geo->rec_start[shot + 1] - r0;
  PetscMPIInt    size, rank;
  double         volume = 1;
  Builder        b;
  Support        sp;
  size_t         n;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
  PetscCall(BuilderCreate(g, size, &b));
  PetscCheck(b.me == rank, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Rank %d of the group believes itself rank %d of the decomposition", rank, b.me);
  for (PetscInt a = 0; a < g->dim; a++) volume *= g->d[a];
  s->src_scale = (float)(1.0 / volume);
  PointSupport(g, &geo->src[shot], snap, at->src_node, at->mirror, &sp);
  PetscCall(AddSource(&b, &sp));
  for (PetscInt k = 0; k < nr; k++) {
    PointSupport(g, &geo->rec[r0 + k], snap, at->rec_node, at->mirror, &sp);
    PetscCall(AddReceiver(&b, k, &sp));
  }
  PetscCall(InjectMap(b.src, &s->src));
  PetscCall(InjectMap(b.reach, &s->reach));
  PetscCall(PetscSegBufferGetSize(b.rec_id, &n));
  s->nrec = (PetscInt)n;
  PetscCall(PetscSegBufferExtractAlloc(b.rec_id, &s->rec_id));
  PetscCall(PetscSegBufferGetSize(b.reach_id, &n));
  s->nreach = (PetscInt)n;
  PetscCall(PetscSegBufferExtractAlloc(b.reach_id, &s->reach_id));
  PetscCall(Neighbours(&b, size, s));
  PetscCall(RecordMap(&b, s));
  PetscCall(SendMap(&b, s));
  PetscCall(BuilderDestroy(&b));
  PetscFunctionReturn(0);
}

PetscErrorCode ShotLocalCount(const Grid *g, const Geometry *geo, PetscInt shot, PetscBool snap, PetscInt *nrec, PetscInt *nreach)
{
  const PetscMPIInt me = OwnerRank(g, g->start);
  Support           sp;

  PetscFunctionBeginUser;
  *nrec = *nreach = 0;
  for (PetscInt r = geo->rec_start[shot]; r < geo->rec_start[shot + 1]; r++) {
    PointSupport(g, &geo->rec[r], snap, -1, PETSC_TRUE, &sp);
    *nrec += OwnerRank(g, sp.near) == me;
    *nreach += SupportReaches(g, &sp);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ShotLocalDestroy(ShotLocal *s)
{
  PetscFunctionBeginUser;
  PetscCall(PointMapDestroy(&s->src));
  PetscCall(PointMapDestroy(&s->rec));
  PetscCall(PointMapDestroy(&s->reach));
  PetscCall(PointMapDestroy(&s->send));
  PetscCall(PetscFree(s->rec_id));
  PetscCall(PetscFree(s->reach_id));
  PetscCall(PetscFree(s->nbr));
  PetscCall(PetscFree(s->send_start));
  PetscCall(PetscFree(s->recv_start));
  PetscFunctionReturn(0);
}

PetscErrorCode PointMapUpload(const BackendOps *b, const PointMap *h, PointMap *d)
{
  const size_t n = (size_t)h->start[h->nrows];

  PetscFunctionBeginUser;
  d->nrows = h->nrows;
  d->cell  = NULL;
  if (h->cell) {
    PetscCall(b->mem_alloc((void **)&d->cell, h->nrows * sizeof(ptrdiff_t)));
    PetscCall(b->mem_upload(d->cell, h->cell, h->nrows * sizeof(ptrdiff_t)));
  }
  PetscCall(b->mem_alloc((void **)&d->start, (h->nrows + 1) * sizeof(PetscInt)));
  PetscCall(b->mem_alloc((void **)&d->index, n * sizeof(ptrdiff_t)));
  PetscCall(b->mem_alloc((void **)&d->weight, n * sizeof(float)));
  PetscCall(b->mem_upload(d->start, h->start, (h->nrows + 1) * sizeof(PetscInt)));
  PetscCall(b->mem_upload(d->index, h->index, n * sizeof(ptrdiff_t)));
  PetscCall(b->mem_upload(d->weight, h->weight, n * sizeof(float)));
  PetscFunctionReturn(0);
}

PetscErrorCode PointMapFree(const BackendOps *b, PointMap *d)
{
  PetscFunctionBeginUser;
  PetscCall(b->mem_free((void **)&d->cell));
  PetscCall(b->mem_free((void **)&d->start));
  PetscCall(b->mem_free((void **)&d->index));
  PetscCall(b->mem_free((void **)&d->weight));
  PetscFunctionReturn(0);
}
