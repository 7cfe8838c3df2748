/* CPU kernels against naive double-precision references written from the
   formulas in stencil.h: the core leapfrog step, the CPML step and memory
   update, bit-identical results however a box is split, free-surface
   mirroring.

   Which cells take an axis' CPML term: those whose owned index along the
   axis lies outside Fields.core[a].  The test hands the kernels its regions
   as propagate.c does: cut at the layer edges of axes 1 and 2, layer_axes
   bit a >= 1 on the pieces inside axis a's layers, bit 0 on the pieces that
   reach outside core[0] (the kernels split rows there).  A layer cell's psi
   and zeta for axis a live in slab[a][0] below core[a], slab[a][1] above;
   the reference reads and checks them there, and nothing else may change in
   any slab.  A forward step is ops.step over every region, then
   ops.advance_memory, as propagate.c runs them: the CPU advances axis 0's
   psi in the step where a box holds whole rows, so only the pair is
   checked.  The adjoint CPML terms skip a row's z slab whose inputs are
   all zero: a single nonzero input at either end of the cells that check
   covers must still count (TestQuietRows).  Where the adjoint keeps
   Fields.u_live, it leaves the row parts that stay +-0 as they are and marks
   every other (TestQuietParts). */
#include "grid/box.h"
#include "equations/acoustic/cpu/kernels_cpu.h"
#include "fields_setup.h"
#include "unit_check.h"

/* The padded cells [lo, hi) a slab of axis a covers. */
static void SlabRange(const Fields *f, PetscInt a, const LayerSlab *s, PetscInt lo[3], PetscInt hi[3])
{
  for (PetscInt b = 0; b < 3; b++) {
    lo[b] = b == a ? s->lo : 0;
    hi[b] = b == a ? s->hi : f->padded[b];
  }
}

/* Runs the body (the macro's last arguments) for every cell of every slab,
   with a, s (axis, side), sl (the slab), p (padded index), i (owned index)
   and off (offset in the slab's arrays) in scope. */
#define FOR_EACH_SLAB_CELL(f, ...) \
  for (PetscInt a = 0; a < (f)->dim; a++) \
    for (PetscInt s = 0; s < 2; s++) { \
      const LayerSlab *sl = &(f)->slab[a][s]; \
      PetscInt         lo[3], hi[3], p[3], i[3]; \
      if (!sl->ncells) continue; \
      SlabRange((f), a, sl, lo, hi); \
      for (p[2] = lo[2]; p[2] < hi[2]; p[2]++) \
        for (p[1] = lo[1]; p[1] < hi[1]; p[1]++) \
          for (p[0] = lo[0]; p[0] < hi[0]; p[0]++) { \
            const ptrdiff_t off = SlabIndex(sl, a, p); \
            Owned((f), p, i); \
            __VA_ARGS__ \
          } \
    }

/* Which layer of axis a owned cell i lies in: 0 low, 1 high, -1 none. */
static PetscInt LayerSide(const Fields *f, PetscInt a, const PetscInt i[3])
{
  if (i[a] < f->core[a][0]) return 0;
  if (i[a] >= f->core[a][1]) return 1;
  return -1;
}

/* Random state everywhere, ghosts and every cell of every slab included;
   CPML profiles in plausible ranges. */
static void FieldsRandomize(Fields *f)
{
  FillRandom(f->u, f->ncells, -1, 1);
  FillRandom(f->uprev, f->ncells, -1, 1);
  FillRandom(f->vdt2, f->ncells, 0.05, 0.3);
  for (PetscInt a = 0; a < f->dim; a++) {
    for (PetscInt s = 0; s < 2; s++)
      if (f->slab[a][s].ncells) {
        FillRandom(f->slab[a][s].psi, f->slab[a][s].ncells, -1, 1);
        FillRandom(f->slab[a][s].zeta, f->slab[a][s].ncells, -1, 1);
      }
    FillRandom(f->pml_a[a], (size_t)f->padded[a], -0.5, 0);
    FillRandom(f->pml_b[a], (size_t)f->padded[a], 0.5, 1);
    FillRandom(f->pml_da[a], (size_t)f->padded[a], -0.5, 0.5);
  }
}

/* A copy of the state a step or memory update changes. */
typedef struct {
  size_t n;
  float *uprev, *psi[3][2], *zeta[3][2];
} Snapshot;

static PetscErrorCode SnapshotTake(const Fields *f, Snapshot *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  s->n = f->ncells;
  PetscCall(PetscMalloc1(s->n, &s->uprev));
  PetscCall(PetscArraycpy(s->uprev, f->uprev, s->n));
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt t = 0; t < 2; t++) {
      const LayerSlab *sl = &f->slab[a][t];
      if (!sl->ncells) continue;
      PetscCall(PetscMalloc2(sl->ncells, &s->psi[a][t], sl->ncells, &s->zeta[a][t]));
      PetscCall(PetscArraycpy(s->psi[a][t], sl->psi, sl->ncells));
      PetscCall(PetscArraycpy(s->zeta[a][t], sl->zeta, sl->ncells));
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode SnapshotRestore(const Snapshot *s, Fields *f)
{
  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(f->uprev, s->uprev, s->n));
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt t = 0; t < 2; t++) {
      const LayerSlab *sl = &f->slab[a][t];
      if (!sl->ncells) continue;
      PetscCall(PetscArraycpy(sl->psi, s->psi[a][t], sl->ncells));
      PetscCall(PetscArraycpy(sl->zeta, s->zeta[a][t], sl->ncells));
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode SnapshotFree(Snapshot *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(s->uprev));
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt t = 0; t < 2; t++) PetscCall(PetscFree2(s->psi[a][t], s->zeta[a][t]));
  PetscFunctionReturn(0);
}

static PetscBool InBox(const Box *b, const PetscInt i[3])
{
  for (PetscInt a = 0; a < 3; a++)
    if (i[a] < b->lo[a] || i[a] >= b->hi[a]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Second and first differences along axis a (stride s in x) in double with
   the magnitudes of their terms. */
static double D2(const Fields *f, const float *x, ptrdiff_t i, ptrdiff_t s, PetscInt a, double *mag)
{
  const double h = spacing[a];
  double       acc, c;

  c    = fd_d2_weight((int)f->order, 0) / (h * h);
  acc  = c * x[i];
  *mag = PetscAbsReal(acc);
  for (PetscInt k = 1; k <= f->radius; k++) {
    c = fd_d2_weight((int)f->order, (int)k) / (h * h);
    acc += c * ((double)x[i + k * s] + x[i - k * s]);
    *mag += PetscAbsReal(c) * (PetscAbsReal(x[i + k * s]) + PetscAbsReal(x[i - k * s]));
  }
  return acc;
}

static double D1(const Fields *f, const float *x, ptrdiff_t i, ptrdiff_t s, PetscInt a, double *mag)
{
  double acc = 0;

  *mag = 0;
  for (PetscInt k = 1; k <= f->radius; k++) {
    const double c = fd_d1_weight((int)f->order, (int)k) / spacing[a];
    acc += c * ((double)x[i + k * s] - x[i - k * s]);
    *mag += PetscAbsReal(c) * (PetscAbsReal(x[i + k * s]) + PetscAbsReal(x[i - k * s]));
  }
  return acc;
}

/* First difference of w x: x at offset i, stride s; w (a profile) at index k, stride 1. */
static double D1Weighted(const Fields *f, const float *x, ptrdiff_t i, ptrdiff_t s, const float *w, PetscInt k, PetscInt a, double *mag)
{
  double acc = 0;

  *mag = 0;
  for (PetscInt j = 1; j <= f->radius; j++) {
    const double c = fd_d1_weight((int)f->order, (int)j) / spacing[a];
    acc += c * ((double)w[k + j] * x[i + j * s] - (double)w[k - j] * x[i - j * s]);
    *mag += PetscAbsReal(c) * (PetscAbsReal(w[k + j] * x[i + j * s]) + PetscAbsReal(w[k - j] * x[i - j * s]));
  }
  return acc;
}

static PetscErrorCode CheckValue(const char *what, const char *name, const PetscInt i[3], double got, double want, double mag)
{
  PetscFunctionBeginUser;
  PetscCheck(PetscAbsReal(got - want) <= 1e-5 * mag, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%s: %s at cell (%d, %d, %d) is %.9g, reference %.9g (scale %.3g)", what, name, (int)i[0], (int)i[1], (int)i[2], got, want, mag);
  PetscFunctionReturn(0);
}

/* Owned and padded index of a cell. */
static void Padded(const Fields *f, const PetscInt i[3], PetscInt p[3])
{
  for (PetscInt a = 0; a < 3; a++) p[a] = i[a] + (a < f->dim ? f->radius : 0);
}

static void Owned(const Fields *f, const PetscInt p[3], PetscInt i[3])
{
  for (PetscInt a = 0; a < 3; a++) i[a] = p[a] - (a < f->dim ? f->radius : 0);
}

/* Offset of layer cell i in its slab of axis a, whose stencil along a must
   stay inside that slab. */
static PetscErrorCode SlabCell(const Fields *f, PetscInt a, const PetscInt i[3], ptrdiff_t *off)
{
  const PetscInt   s = LayerSide(f, a, i), r = f->radius;
  const LayerSlab *sl;
  PetscInt         p[3];

  PetscFunctionBeginUser;
  PetscCheck(s >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "test: cell not in a layer");
  sl = &f->slab[a][s];
  Padded(f, i, p);
  PetscCheck(sl->hi > sl->lo && p[a] - r >= sl->lo && p[a] + r < sl->hi, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "slab (%d, %d) over [%d, %d) does not hold the stencil of cell (%d, %d, %d)", (int)a, (int)s, (int)sl->lo, (int)sl->hi, (int)i[0], (int)i[1],
             (int)i[2]);
  *off = SlabIndex(sl, a, p);
  PetscFunctionReturn(0);
}

/* The reference term of axis a at owned cell i on state `before`: the
   second difference of u, and in a layer fwi_cpml_term with psi and zeta of
   the cell's slab (*z: zeta's new value): t = (1 + a) d2u + da du + d(b psi). */
static PetscErrorCode AxisTerm(const Fields *f, const Snapshot *before, PetscInt a, const PetscInt i[3], double *term, double *mag, double *z, double *zmag)
{
  const PetscInt s = LayerSide(f, a, i), k = i[a] + f->radius; /* padded index along a */
  double         d2mag, dumag, dpsimag, du, t, tmag, pa, pb, pda;
  ptrdiff_t      off;

  PetscFunctionBeginUser;
  *term = D2(f, f->u, FieldsIndex(f, i), f->stride[a], a, &d2mag);
  *mag  = d2mag;
  *z = *zmag = 0;
  if (s < 0) PetscFunctionReturn(0);
  PetscCall(SlabCell(f, a, i, &off));
  pa    = f->pml_a[a][k];
  pb    = f->pml_b[a][k];
  pda   = f->pml_da[a][k];
  du    = D1(f, f->u, FieldsIndex(f, i), f->stride[a], a, &dumag);
  t     = (1 + pa) * *term + pda * du + D1Weighted(f, before->psi[a][s], off, f->slab[a][s].stride[a], f->pml_b[a], k, a, &dpsimag);
  tmag  = (1 + PetscAbsReal(pa)) * d2mag + PetscAbsReal(pda) * dumag + dpsimag;
  *z    = pb * before->zeta[a][s][off] + pa * t;
  *zmag = PetscAbsReal(pb * before->zeta[a][s][off]) + PetscAbsReal(pa) * tmag;
  *term = t + *z;
  *mag  = tmag + *zmag;
  PetscFunctionReturn(0);
}

/* After a forward step over region b on state `before`: every cell of the
   region against the reference, every other value unchanged; zeta and psi
   of the region's layer cells (in their own slab) against the reference
   (psi <- b psi + a du/dx_a), every other slab value unchanged. */
static PetscErrorCode CheckStep(const char *what, const Fields *f, const Snapshot *before, const Box *b)
{
  const PetscInt r = f->radius;

  PetscFunctionBeginUser;
  for (PetscInt i2 = -(f->dim > 2 ? r : 0); i2 < f->n[2] + (f->dim > 2 ? r : 0); i2++)
    for (PetscInt i1 = -r; i1 < f->n[1] + r; i1++)
      for (PetscInt i0 = -r; i0 < f->n[0] + r; i0++) {
        const PetscInt  i[3] = {i0, i1, i2};
        const ptrdiff_t c    = FieldsIndex(f, i);
        double          lap = 0, lapmag = 0, next, mag;
        if (!InBox(b, i)) {
          PetscCheck(f->uprev[c] == before->uprev[c], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: step changed uprev at (%d, %d, %d) outside the box",
                     what, (int)i0, (int)i1, (int)i2);
          continue;
        }
        for (PetscInt a = 0; a < f->dim; a++) {
          double term, termmag, z, zmag;
          PetscCall(AxisTerm(f, before, a, i, &term, &termmag, &z, &zmag));
          lap += term;
          lapmag += termmag;
        }
        next = 2.0 * f->u[c] - before->uprev[c] + (double)f->vdt2[c] * lap;
        mag  = 2.0 * PetscAbsReal(f->u[c]) + PetscAbsReal(before->uprev[c]) + f->vdt2[c] * lapmag;
        PetscCall(CheckValue(what, "u^{n+1}", i, f->uprev[c], next, mag));
      }
  FOR_EACH_SLAB_CELL(f, {
    if (InBox(b, i) && LayerSide(f, a, i) == s) {
      double term, termmag, z, zmag;
      char   name[32];
      PetscCall(AxisTerm(f, before, a, i, &term, &termmag, &z, &zmag));
      PetscCall(PetscSNPrintf(name, sizeof name, "zeta (%d, %d)", (int)a, (int)s));
      PetscCall(CheckValue(what, name, i, sl->zeta[off], z, zmag));
    } else
      PetscCheck(sl->zeta[off] == before->zeta[a][s][off], PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "%s: step changed zeta of slab (%d, %d) at (%d, %d, %d), not a layer cell of that slab in the box", what, (int)a, (int)s, (int)i[0],
                 (int)i[1], (int)i[2]);
  })
  FOR_EACH_SLAB_CELL(f, {
    if (InBox(b, i) && LayerSide(f, a, i) == s) {
      const PetscInt k = p[a];
      double         dumag, want, mag;
      const double   du = D1(f, f->u, FieldsIndex(f, i), f->stride[a], a, &dumag);
      want = (double)f->pml_b[a][k] * before->psi[a][s][off] + (double)f->pml_a[a][k] * du;
      mag  = PetscAbsReal((double)f->pml_b[a][k] * before->psi[a][s][off]) + PetscAbsReal(f->pml_a[a][k]) * dumag;
      PetscCall(CheckValue(what, "psi", i, sl->psi[off], want, mag));
    } else
      PetscCheck(sl->psi[off] == before->psi[a][s][off], PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "%s: step changed psi of slab (%d, %d) at (%d, %d, %d), not a layer cell of that slab in the box", what, (int)a, (int)s, (int)i[0],
                 (int)i[1], (int)i[2]);
  })
  PetscFunctionReturn(0);
}

/* Every owned cell (layer_axes to be set by BoxSplitAtLayers). */
static Box WholeBox(const Fields *f)
{
  Box b;
  for (PetscInt a = 0; a < 3; a++) {
    b.lo[a] = 0;
    b.hi[a] = f->n[a];
  }
  b.layer_axes = 0;
  return b;
}

/* A forward step over regions b[0..nb) as propagate.c hands regions to the
   kernels: each cut by BoxSplitAtLayers, ops.step on every piece of every
   region, then ops.advance_memory on the pieces with a layer bit. */
static PetscErrorCode RegionsStep(Fields *f, PetscInt nb, const Box b[])
{
  PetscFunctionBeginUser;
  for (int memory = 0; memory < 2; memory++)
    for (PetscInt r = 0; r < nb; r++) {
      Box      piece[BOX_MAX_PIECES];
      PetscInt npiece = 0;
      BoxSplitAtLayers(f->core, &b[r], KernelOpsCPU.split_boxes, piece, &npiece);
      for (PetscInt k = 0; k < npiece; k++) {
        if (!memory) PetscCall(KernelOpsCPU.step(f, &piece[k]));
        else if (piece[k].layer_axes) PetscCall(KernelOpsCPU.advance_memory(f, &piece[k]));
      }
    }
  PetscFunctionReturn(0);
}

/* The state after a step equals `ref` bit for bit: uprev and every slab's psi and zeta. */
static PetscErrorCode CheckSameState(const char *what, const Fields *f, const Snapshot *ref, PetscInt cut, PetscInt axis)
{
  PetscFunctionBeginUser;
  PetscCheck(!memcmp(ref->uprev, f->uprev, sizeof(float) * f->ncells), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%s: stepping the box split at %d along axis %d differs from stepping it whole", what, (int)cut, (int)axis);
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      const LayerSlab *sl = &f->slab[a][s];
      if (!sl->ncells) continue;
      PetscCheck(!memcmp(ref->psi[a][s], sl->psi, sizeof(float) * sl->ncells) && !memcmp(ref->zeta[a][s], sl->zeta, sizeof(float) * sl->ncells), PETSC_COMM_SELF,
                 PETSC_ERR_PLIB, "%s: psi or zeta of slab (%d, %d) after stepping the box split at %d along axis %d differs from stepping it whole", what,
                 (int)a, (int)s, (int)cut, (int)axis);
    }
  PetscFunctionReturn(0);
}

/* Stepping the region in two halves along each axis is bit-identical to
   stepping it whole, in u and in every slab's psi and zeta (halves cut along
   axis 0 hold part rows, whose psi of axis 0 the memory pass advances). */
static PetscErrorCode CheckSplit(const char *what, Fields *f, const Snapshot *before, const Box *whole)
{
  Snapshot ref;

  PetscFunctionBeginUser;
  PetscCall(SnapshotRestore(before, f));
  PetscCall(RegionsStep(f, 1, whole));
  PetscCall(SnapshotTake(f, &ref));
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt cut = whole->lo[a] + 1; cut < whole->hi[a]; cut += PetscMax(1, (whole->hi[a] - whole->lo[a]) / 3)) {
      Box half[2] = {*whole, *whole}; /* the upper half first */
      half[0].lo[a] = cut;
      half[1].hi[a] = cut;
      PetscCall(SnapshotRestore(before, f));
      PetscCall(RegionsStep(f, 2, half));
      PetscCall(CheckSameState(what, f, &ref, cut, a));
    }
  PetscCall(SnapshotFree(&ref));
  PetscFunctionReturn(0);
}

/* One forward step over the whole block and over a sub-box, against the
   reference, then the split check.  core: Fields.core (see FieldsSetUp). */
static PetscErrorCode TestStep(PetscInt dim, PetscInt radius, const PetscInt n[3], const PetscInt core[3][2])
{
  Fields    f;
  Snapshot  before;
  Box       whole, sub;
  char      what[192], name[160];

  PetscFunctionBeginUser;
  PetscCall(FieldsSetUp(dim, radius, n, core, &f));
  FieldsRandomize(&f);
  PetscCall(SnapshotTake(&f, &before));
  whole = WholeBox(&f);
  PetscCall(PetscSNPrintf(name, sizeof name, "%dD radius %d, n (%d, %d, %d), core [%d, %d) [%d, %d) [%d, %d)", (int)dim, (int)radius, (int)f.n[0], (int)f.n[1],
                          (int)f.n[2], (int)f.core[0][0], (int)f.core[0][1], (int)f.core[1][0], (int)f.core[1][1], (int)f.core[2][0], (int)f.core[2][1]));
  PetscCall(PetscSNPrintf(what, sizeof what, "%s, whole box", name));
  PetscCall(RegionsStep(&f, 1, &whole));
  PetscCall(CheckStep(what, &f, &before, &whole));

  sub = whole;
  for (PetscInt a = 0; a < dim; a++) {
    sub.lo[a] = 1 + a;
    sub.hi[a] = f.n[a] - 2;
  }
  PetscCall(PetscSNPrintf(what, sizeof what, "%s, sub-box", name));
  PetscCall(SnapshotRestore(&before, &f));
  PetscCall(RegionsStep(&f, 1, &sub));
  PetscCall(CheckStep(what, &f, &before, &sub));

  PetscCall(CheckSplit(name, &f, &before, &whole));
  PetscCall(SnapshotFree(&before));
  PetscCall(KernelOpsCPU.free(&f));
  PetscFunctionReturn(0);
}

/* A free surface on face (axis, side): mirror_ghosts sets the ghosts beyond it
   to minus the owned cells reflected about the surface sample, and nothing
   else; zero_surface zeroes uprev on the surface samples only. */
static PetscErrorCode TestFreeSurface(PetscInt dim, PetscInt radius, const PetscInt n[3], PetscInt axis, PetscInt side)
{
  Fields         f;
  float         *u0, *up0;
  const PetscInt r = radius;

  PetscFunctionBeginUser;
  PetscCall(FieldsSetUp(dim, radius, n, CORE(0, n[0], 0, n[1], 0, n[2]), &f));
  FieldsRandomize(&f);
  f.free_surface[axis][side] = PETSC_TRUE;
  PetscCall(PetscMalloc2(f.ncells, &u0, f.ncells, &up0));
  PetscCall(PetscArraycpy(u0, f.u, f.ncells));
  PetscCall(PetscArraycpy(up0, f.uprev, f.ncells));
  PetscCall(KernelOpsCPU.mirror_ghosts(&f));
  PetscCall(KernelOpsCPU.zero_surface(&f));
  for (PetscInt i2 = -(dim > 2 ? r : 0); i2 < f.n[2] + (dim > 2 ? r : 0); i2++)
    for (PetscInt i1 = -r; i1 < f.n[1] + r; i1++)
      for (PetscInt i0 = -r; i0 < f.n[0] + r; i0++) {
        PetscInt        i[3] = {i0, i1, i2}, nout = 0;
        const ptrdiff_t c    = FieldsIndex(&f, i);
        const PetscInt  surf = side ? f.n[axis] - 1 : 0;
        float           uwant = u0[c], upwant = up0[c];
        for (PetscInt a = 0; a < 3; a++)
          if (a != axis && (i[a] < 0 || i[a] >= f.n[a])) nout++;
        if (!nout) {
          const PetscInt beyond = side ? i[axis] - surf : surf - i[axis]; /* distance past the surface */
          if (beyond >= 1) {
            PetscInt m[3] = {i[0], i[1], i[2]};
            m[axis]       = surf - (side ? beyond : -beyond);
            uwant         = -u0[FieldsIndex(&f, m)];
          }
          if (beyond == 0) upwant = 0;
        }
        PetscCheck(f.u[c] == uwant && f.uprev[c] == upwant, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                   "%dD radius %d free surface (axis %d, side %d): at (%d, %d, %d) u = %g, uprev = %g, expected %g, %g", (int)dim, (int)r, (int)axis,
                   (int)side, (int)i0, (int)i1, (int)i2, (double)f.u[c], (double)f.uprev[c], (double)uwant, (double)upwant);
      }
  PetscCall(PetscFree2(u0, up0));
  PetscCall(KernelOpsCPU.free(&f));
  PetscFunctionReturn(0);
}

/* One 1 in the zero state: input `what` (0 u, 1 zeta, 2 psi) at padded z
   cell pz of row px (owned) of the low z slab, or none for pz < 0. */
static void PlantOne(Fields *f, PetscInt what, PetscInt pz, PetscInt px)
{
  const PetscInt   p[3] = {pz, px + f->radius, 0};
  const LayerSlab *sl   = &f->slab[0][0];

  if (pz < 0) return;
  if (what == 0) f->u[pz + p[1] * f->stride[1]] = 1;
  else (what == 1 ? sl->zeta : sl->psi)[SlabIndex(sl, 0, p)] = 1;
}

/* adjoint_layers_end from the zero state with a 1 planted at cells c0 and
   c1 (-1: none) of input `what`, into s. */
static PetscErrorCode LayersEndFrom(Fields *f, PetscInt what, PetscInt c0, PetscInt c1, PetscInt px, Snapshot *s)
{
  PetscFunctionBeginUser;
  PetscCall(KernelOpsCPU.zero_state(f));
  PlantOne(f, what, c0, px);
  PlantOne(f, what, c1, px);
  PetscCall(KernelOpsCPU.adjoint_layers_end(f));
  PetscCall(SnapshotTake(f, s));
  PetscFunctionReturn(0);
}

/* Whether any of the n values of x is nonzero. */
static PetscBool AnyNonzero(const float *x, size_t n)
{
  for (size_t k = 0; k < n; k++)
    if (x[k] != 0) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* A z slab's row takes no adjoint CPML terms where u, zeta and psi are all
   zero over the cells its factors are formed on: the slab's cells within R
   of the layer, and R more each side, where the profile b is not 0.  With
   profiles nonzero everywhere, and (grid) with profiles 0 beyond the low
   z layer as the grid makes them (the factors then formed in its cells
   only; the high slab, all 0, takes no terms): a 1 at the first of those
   cells, and one at the last, each alone and both together: each alone
   must change something, and together exactly the sum of the two (their
   stencils do not meet), for every input. */
static PetscErrorCode TestQuietRows(PetscInt radius, PetscBool grid)
{
  const PetscInt edge = grid ? 4 * radius + 2 : 12, n[3] = {edge + 28, 6, 1}, px = 2; /* the two 1s' stencils apart */
  /* padded z: owned -R and edge + 2R - 1, or the layer's first and last cells */
  const PetscInt first = grid ? radius : 0, last = grid ? radius + edge - 1 : edge + 3 * radius - 1;
  Fields         f;

  PetscFunctionBeginUser;
  PetscCall(FieldsSetUp(2, radius, n, CORE(edge, n[0] - 10, 0, 6, 0, 1), &f));
  FieldsRandomize(&f); /* the profiles; the state is zeroed below */
  for (PetscInt k = 0; grid && k < f.padded[0]; k++)
    if (k < radius || k >= radius + edge) f.pml_a[0][k] = f.pml_b[0][k] = f.pml_da[0][k] = 0;
  f.neighbour[0][0] = f.neighbour[0][1] = PETSC_TRUE; /* so adjoint_layers_end does the z slabs */
  for (PetscInt what = 0; what < 3; what++) {
    Snapshot a, c, b;
    PetscInt differ = 0;
    PetscCall(LayersEndFrom(&f, what, first, -1, px, &a));
    PetscCall(LayersEndFrom(&f, what, last, -1, px, &c));
    PetscCall(LayersEndFrom(&f, what, first, last, px, &b));
    PetscCheck(AnyNonzero(a.uprev, a.n) && AnyNonzero(c.uprev, c.n), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "radius %d input %d, profiles %s: a 1 at the first or the last cell of a z slab's row where b is not 0 changed no uprev", (int)radius, (int)what,
               grid ? "0 beyond the layer" : "nonzero everywhere");
    for (size_t k = 0; k < b.n; k++) differ += b.uprev[k] != a.uprev[k] + c.uprev[k];
    for (PetscInt s = 0; s < 2; s++)
      for (size_t k = 0; k < f.slab[0][s].ncells; k++)
        differ += b.psi[0][s][k] != a.psi[0][s][k] + c.psi[0][s][k] || b.zeta[0][s][k] != a.zeta[0][s][k] + c.zeta[0][s][k];
    PetscCheck(!differ, PETSC_COMM_SELF, PETSC_ERR_PLIB, "radius %d input %d: %d values with both 1s differ from the sum of each alone", (int)radius, (int)what, (int)differ);
    PetscCall(SnapshotFree(&a));
    PetscCall(SnapshotFree(&c));
    PetscCall(SnapshotFree(&b));
  }
  PetscCall(KernelOpsCPU.free(&f));
  PetscFunctionReturn(0);
}

/* Sets the bit of padded cell p's part in a row's bits (Fields.u_live). */
static void MarkPart(const Fields *f, uint64_t *bits, const PetscInt p[3])
{
  const PetscInt k = p[0] / FIELDS_QUIET_CELLS;
  bits[((size_t)p[1] + (size_t)p[2] * f->padded[1]) * FieldsLiveWords(f) + k / 64] |= (uint64_t)1 << (k % 64);
}

/* The parts with an owned cell of uprev other than +-0 that uprev_live
   does not mark. */
static PetscInt PartsUnmarked(const Fields *f)
{
  PetscInt missed = 0, p[3];

  for (p[2] = f->dim > 2 ? f->radius : 0; p[2] < (f->dim > 2 ? f->radius + f->n[2] : 1); p[2]++)
    for (p[1] = f->radius; p[1] < f->radius + f->n[1]; p[1]++)
      for (PetscInt k = 0; k < FieldsQuietParts(f); k++) {
        const size_t row = (size_t)p[1] + (size_t)p[2] * f->padded[1];
        PetscBool    any = PETSC_FALSE;
        for (p[0] = PetscMax(f->radius, k * FIELDS_QUIET_CELLS); p[0] < PetscMin(f->radius + f->n[0], (k + 1) * FIELDS_QUIET_CELLS); p[0]++)
          any = any || f->uprev[p[0] + p[1] * f->stride[1] + p[2] * f->stride[2]] != 0;
        missed += any && !(f->uprev_live[row * FieldsLiveWords(f) + k / 64] >> (k % 64) & 1);
      }
  return missed;
}

/* Two reverse steps as adjoint.c takes them (no free surface, no source)
   from a state of a few planted values, with Fields.u_live kept (live) or
   not, into s: u at the last cell of a row part (its stencil reaches into
   the next part, and R rows either side), uprev alone in a row's first
   and last parts (the ones next to them quiet), psi in a
   z slab's row whose u is +-0, and a residual injected into a part that
   is quiet; where there are x layers, psi in the low x slab's row 3; where a
   rank lies across the high x face, u in its first ghost row, as the halo
   exchange would fill it.  With u_live, every part with a value is marked
   after each step (*unmarked counts those that are not).  s: the state
   after the second. */
static PetscErrorCode QuietPartsFrom(Fields *f, PetscBool live, Snapshot *s, PetscInt *unmarked)
{
  const PetscInt  R = f->radius, y = f->dim > 2 ? R + f->n[2] / 2 : 0;
  const PetscInt  pu[3] = {5 * FIELDS_QUIET_CELLS - 1, R + 12, y}, pup[3] = {R + f->n[0] - 1, R + 20, y}, pres[3] = {R + 185, R + 28, y};
  const PetscInt  pghost[3] = {R + 100, R + f->n[1], y};
  const LayerSlab *sx = &f->slab[1][0];
  const LayerSlab *sl = &f->slab[0][0];
  ptrdiff_t        cell  = pres[0] + pres[1] * f->stride[1] + pres[2] * f->stride[2], index = 0;
  PetscInt         start[2] = {0, 1};
  float            weight = 1, amp = 0.5f;
  const PointMap   map = {1, &cell, start, &index, &weight};
  const Box        whole = WholeBox(f);

  PetscFunctionBeginUser;
  *unmarked = 0;
  PetscCall(KernelOpsCPU.zero_state(f));
  PetscCall(KernelOpsCPU.adjoint_live(f, live));
  PetscCheck(!live || f->u_live, PETSC_COMM_SELF, PETSC_ERR_PLIB, "radius %d: adjoint_live kept no u_live for a rank alone", (int)R);
  f->u[pu[0] + pu[1] * f->stride[1] + pu[2] * f->stride[2]]       = 1;
  f->uprev[pup[0] + pup[1] * f->stride[1] + pup[2] * f->stride[2]] = -1;
  f->uprev[R + pup[1] * f->stride[1] + pup[2] * f->stride[2]]      = 2;
  sl->psi[SlabIndex(sl, 0, (const PetscInt[3]){sl->lo + 1, R + 25, y})] = 1;
  if (sx->ncells) sx->psi[SlabIndex(sx, 1, (const PetscInt[3]){R + 100, R + 3, y})] = 1;
  if (f->neighbour[1][1]) f->u[pghost[0] + pghost[1] * f->stride[1] + pghost[2] * f->stride[2]] = 1;
  if (live) {
    MarkPart(f, f->u_live, pu);
    MarkPart(f, f->uprev_live, pup);
    MarkPart(f, f->uprev_live, (const PetscInt[3]){R, pup[1], pup[2]});
  }
  for (PetscInt n = 0; n < 2; n++) {
    PetscCall(KernelOpsCPU.adjoint_layers_begin(f));
    PetscCall(KernelOpsCPU.adjoint_step(f, &whole));
    if (f->neighbour[1][1]) f->u[pghost[0] + pghost[1] * f->stride[1] + pghost[2] * f->stride[2]] = (float)n; /* the next step's ghost */
    PetscCall(KernelOpsCPU.adjoint_layers_end(f));
    PetscCall(KernelOpsCPU.inject(f, &map, &amp));
    if (live) *unmarked += PartsUnmarked(f);
    if (!n) FieldsSwap(f); /* the second step reads the first's marks; its own are in uprev */
  }
  PetscCall(SnapshotTake(f, s));
  PetscCall(KernelOpsCPU.adjoint_live(f, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* Where the adjoint keeps Fields.u_live (KernelOps.adjoint_live), a step
   leaves as they are the row parts that stay +-0 and marks every other: the
   planted state of QuietPartsFrom gives the values (equal as floats: a
   zero may change sign) of the steps without u_live, every part with a
   value marked, and some parts left.  Variant 0: z layers; 1: x layers
   too (rows within their reach take terms after the step); 2: a rank
   across the high x face. */
static PetscErrorCode TestQuietParts(PetscInt dim, PetscInt radius, PetscInt variant)
{
  const PetscInt n[3] = {200, 48, dim > 2 ? 6 : 1};
  Fields         f;
  Snapshot       plain, live;
  PetscInt       differ = 0, unmarked, unused;
  size_t         left;

  PetscFunctionBeginUser;
  PetscCall(FieldsSetUp(dim, radius, n, variant == 1 ? CORE(12, 188, 8, 40, 0, n[2]) : CORE(12, 188, 0, 48, 0, n[2]), &f));
  FieldsRandomize(&f); /* the profiles; the state is zeroed */
  f.neighbour[1][1] = variant == 2 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(QuietPartsFrom(&f, PETSC_FALSE, &plain, &unused));
  left = f.parts_left[0];
  PetscCall(QuietPartsFrom(&f, PETSC_TRUE, &live, &unmarked));
  left = f.parts_left[0] - left;
  for (size_t k = 0; k < f.ncells; k++) differ += plain.uprev[k] != live.uprev[k];
  for (PetscInt a = 0; a < dim; a++)
    for (PetscInt s = 0; s < 2; s++)
      for (size_t k = 0; k < f.slab[a][s].ncells; k++) differ += plain.psi[a][s][k] != live.psi[a][s][k] || plain.zeta[a][s][k] != live.zeta[a][s][k];
  PetscCheck(!differ, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%dD radius %d variant %d: %d values differ when the adjoint leaves quiet parts, expected none", (int)dim,
             (int)radius, (int)variant, (int)differ);
  PetscCheck(!unmarked, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%dD radius %d variant %d: %d parts with a value other than +-0 not marked in uprev_live", (int)dim,
             (int)radius, (int)variant, (int)unmarked);
  PetscCheck(left > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%dD radius %d variant %d: no part left as it was, expected most (test set-up)", (int)dim, (int)radius,
             (int)variant);
  PetscCall(SnapshotFree(&plain));
  PetscCall(SnapshotFree(&live));
  PetscCall(KernelOpsCPU.free(&f));
  PetscFunctionReturn(0);
}

/* A call of VECTOR_PIECES_ALIGNED: its cells counted in hits, the piece
   recorded. */
#define PIECE_RECORD(hits, piece, count, j, n) \
  do { \
    for (PetscInt k_ = 0; k_ < (n); k_++) (hits)[(j) + k_]++; \
    (piece)[*(count)][0] = (j); \
    (piece)[(*(count))++][1] = (n); \
  } while (0)

/* VECTOR_PIECES_ALIGNED over every start, length and alignment of p: each
   cell of the run once, pieces of 1, 2, 4, 8 or a multiple of 16 cells, at
   most 9 of them, and in a run of VECTOR_ALIGN_MIN cells or more the whole
   vectors starting on a 64-byte line of p (the kernels' forward and adjoint
   rows are checked cell by cell by TestStep; this checks the alignment
   their speed depends on). */
static PetscErrorCode TestVectorPieces(void)
{
  static float buf[256] __attribute__((aligned(64)));

  PetscFunctionBeginUser;
  for (PetscInt shift = 0; shift < 16; shift++)
    for (PetscInt start = 0; start < 20; start++)
      for (PetscInt len = 0; len < 200; len++) {
        const float *p = buf + shift;
        int          hits[256] = {0};
        PetscInt     piece[16][2], count = 0;
        VECTOR_PIECES_ALIGNED(p, start, len, PIECE_RECORD, hits, piece, &count);
        for (PetscInt j = 0; j < 256; j++)
          PetscCheck(hits[j] == (j >= start && j < start + len), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                     "VECTOR_PIECES_ALIGNED (p 64-byte line + %d floats, start %d, length %d): cell %d taken %d times", (int)shift, (int)start,
                     (int)len, (int)j, hits[j]);
        PetscCheck(count <= 9, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VECTOR_PIECES_ALIGNED (shift %d, start %d, length %d): %d pieces, expected at most 9",
                   (int)shift, (int)start, (int)len, (int)count);
        for (PetscInt k = 0; k < count; k++) {
          const PetscInt j = piece[k][0], n = piece[k][1];
          PetscCheck(n == 1 || n == 2 || n == 4 || n == 8 || (n > 0 && n % 16 == 0), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                     "VECTOR_PIECES_ALIGNED (shift %d, start %d, length %d): a piece of %d cells", (int)shift, (int)start, (int)len, (int)n);
          PetscCheck(n < 16 || len < VECTOR_ALIGN_MIN || (uintptr_t)(p + j) % 64 == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                     "VECTOR_PIECES_ALIGNED (shift %d, start %d, length %d): whole vectors from cell %d, %d bytes past a line", (int)shift, (int)start,
                     (int)len, (int)j, (int)((uintptr_t)(p + j) % 64));
        }
      }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const PetscInt n2[3] = {17, 23, 1}, n3[3] = {9, 10, 11}, radii[FWI_MAX_RADIUS] = {1, 2, 3, 4, 5, 6, 7, 8};
  const PetscInt long2[3] = {601, 5, 1}, long3[3] = {300, 4, 5}; /* rows longer than a kernel's chunk of a row */

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestVectorPieces());
  for (PetscInt j = 0; j < FWI_MAX_RADIUS; j++) {
    const PetscInt r = radii[j];
    /* no layers: the core kernel */
    PetscCall(TestStep(2, r, n2, CORE(0, 17, 0, 23, 0, 1)));
    PetscCall(TestStep(3, r, n3, CORE(0, 9, 0, 10, 0, 11)));
    /* every cell in a layer of every axis: the high ones (core [0, 0)), the low ones (core [n, n)), mixed */
    PetscCall(TestStep(2, r, n2, CORE(0, 0, 0, 0, 0, 1)));
    PetscCall(TestStep(2, r, n2, CORE(17, 17, 23, 23, 0, 1)));
    PetscCall(TestStep(3, r, n3, CORE(0, 0, 10, 10, 0, 0)));
    PetscCall(TestStep(3, r, n3, CORE(9, 9, 0, 0, 11, 11)));
    /* rows split into layer, core, layer along axis 0 */
    PetscCall(TestStep(2, r, n2, CORE(3, 12, 0, 0, 0, 1)));
    PetscCall(TestStep(3, r, n3, CORE(2, 5, 10, 10, 0, 0)));
    PetscCall(TestStep(2, r, long2, CORE(0, 601, 0, 5, 0, 1)));
    PetscCall(TestStep(2, r, long2, CORE(20, 581, 0, 0, 0, 1)));
    PetscCall(TestStep(3, r, long3, CORE(10, 290, 0, 4, 5, 5)));
    /* z layers longer than the chunk a step copies psi in (kernels_cpu.c: Z_CHUNK) */
    PetscCall(TestStep(2, r, long2, CORE(150, 450, 0, 0, 0, 1)));
    PetscCall(TestStep(3, r, long3, CORE(100, 230, 0, 4, 5, 5)));
    /* in the layers of some axes only, or of one side only: the others take the plain second difference */
    PetscCall(TestStep(2, r, n2, CORE(0, 17, 0, 0, 0, 1)));
    PetscCall(TestStep(2, r, n2, CORE(5, 17, 0, 23, 0, 1)));
    PetscCall(TestStep(2, r, n2, CORE(0, 17, 0, 17, 0, 1)));
    PetscCall(TestStep(3, r, n3, CORE(0, 4, 0, 10, 0, 0)));
    PetscCall(TestStep(3, r, n3, CORE(2, 5, 10, 10, 0, 11)));
    PetscCall(TestStep(3, r, n3, CORE(0, 9, 0, 10, 4, 11)));
    PetscCall(TestStep(3, r, n3, CORE(0, 9, 0, 6, 0, 11)));
    /* low and high layers of the same axis in one block, on every axis; narrow cores, where the two slabs overlap */
    PetscCall(TestStep(2, r, n2, CORE(3, 15, 4, 19, 0, 1)));
    PetscCall(TestStep(3, r, n3, CORE(3, 7, 2, 7, 3, 9)));
    PetscCall(TestStep(3, r, n3, CORE(1, 8, 4, 5, 5, 6)));
    PetscCall(TestStep(3, r, long3, CORE(10, 290, 1, 3, 2, 3)));
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt s = 0; s < 2; s++) {
        if (a < 2) PetscCall(TestFreeSurface(2, r, n2, a, s));
        PetscCall(TestFreeSurface(3, r, n3, a, s));
      }
    PetscCall(TestQuietRows(r, PETSC_FALSE));
    PetscCall(TestQuietRows(r, PETSC_TRUE));
    for (PetscInt variant = 0; variant < 3; variant++) {
      PetscCall(TestQuietParts(2, r, variant));
      PetscCall(TestQuietParts(3, r, variant));
    }
  }
  {
    Fields   f;
    Box      whole, b;
    PetscInt n = 0;
    PetscCall(FieldsSetUp(2, FWI_MAX_RADIUS, n2, CORE(0, 17, 0, 23, 0, 1), &f));
    whole = WholeBox(&f);
    BoxSplitAtLayers(f.core, &whole, PETSC_FALSE, &b, &n);
    f.radius = FWI_MAX_RADIUS + 1; /* beyond every instance */
    EXPECT_ERROR(KernelOpsCPU.step(&f, &b), "radius 9");
    f.radius = FWI_MAX_RADIUS;
    PetscCall(KernelOpsCPU.free(&f));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_kernels: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
