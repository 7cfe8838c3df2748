/* CPU kernels against naive double-precision references written from the
   formulas in stencil.h: the core leapfrog step, the CPML step and memory
   update, bit-identical results however a box is split, free-surface
   mirroring.

   Which cells take an axis' CPML term: axis 0 where the cell lies outside
   Fields.core (rows are split there), axes 1 and 2 where the box's
   layer_axes bit is set.  Boxes set bit 0 when they reach outside the core. */
#include "kernels.h"
#include "unit_check.h"

/* Grid spacings per axis, all different so that mixed-up axes show. */
static const double spacing[3] = {1.0, 1.25, 1.5};

/* Deterministic uniform numbers in [lo, hi). */
static unsigned long long rng_state = 88172645463325252ULL;
static double Uniform(double lo, double hi)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static void FillRandom(float *x, size_t n, double lo, double hi)
{
  for (size_t i = 0; i < n; i++) x[i] = (float)Uniform(lo, hi);
}

/* The descriptive members as propagate.c's FieldsDescribe sets them, then
   alloc.  layers: bit a, the block meets the layer of axis a; along axis 0
   cells [core0, core1) lie outside it (core1 < 0: n[0]). */
static PetscErrorCode FieldsSetUp(PetscInt dim, PetscInt radius, const PetscInt n[3], unsigned layers, PetscInt core0, PetscInt core1, Fields *f)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(f, sizeof(*f)));
  f->dim    = dim;
  f->order  = 2 * radius;
  f->radius = radius;
  f->ncells = 1;
  for (PetscInt a = 0; a < 3; a++) {
    f->n[a]      = a < dim ? n[a] : 1;
    f->padded[a] = a < dim ? f->n[a] + 2 * radius : 1;
    f->stride[a] = a ? f->stride[a - 1] * f->padded[a - 1] : 1;
    f->ncells *= (size_t)f->padded[a];
    f->has_layer[a] = (layers & (1u << a)) && a < dim ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt k = 0; k <= radius; k++) {
      const double h = a < dim ? spacing[a] : 1;
      f->c2[a][k]    = (float)(fwi_d2_weight((int)f->order, (int)k) / (h * h));
      f->c1[a][k]    = (float)(fwi_d1_weight((int)f->order, (int)k) / h);
    }
  }
  f->core[0] = core0;
  f->core[1] = core1 < 0 ? f->n[0] : core1;
  PetscCheck(f->has_layer[0] || (f->core[0] == 0 && f->core[1] == f->n[0]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "test set-up: core without a layer");
  PetscCall(KernelOpsCPU.alloc(f));
  PetscFunctionReturn(0);
}

/* Whether cell i of box b takes the CPML term of axis a. */
static PetscBool InLayer(const Fields *f, const Box *b, PetscInt a, const PetscInt i[3])
{
  if (!a) return i[0] < f->core[0] || i[0] >= f->core[1] ? PETSC_TRUE : PETSC_FALSE;
  return b->layer_axes & (1u << a) ? PETSC_TRUE : PETSC_FALSE;
}

/* Random state everywhere, ghosts included; CPML profiles in plausible ranges. */
static void FieldsRandomize(Fields *f)
{
  FillRandom(f->u, f->ncells, -1, 1);
  FillRandom(f->uprev, f->ncells, -1, 1);
  FillRandom(f->vdt2, f->ncells, 0.05, 0.3);
  for (PetscInt a = 0; a < f->dim; a++) {
    if (f->has_layer[a]) {
      FillRandom(f->psi[a], f->ncells, -1, 1);
      FillRandom(f->zeta[a], f->ncells, -1, 1);
    }
    FillRandom(f->pml_a[a], (size_t)f->padded[a], -0.5, 0);
    FillRandom(f->pml_b[a], (size_t)f->padded[a], 0.5, 1);
  }
}

/* A copy of the state a step or memory update changes. */
typedef struct {
  size_t n;
  float *uprev, *psi[3], *zeta[3];
} Snapshot;

static PetscErrorCode SnapshotTake(const Fields *f, Snapshot *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  s->n = f->ncells;
  PetscCall(PetscMalloc1(s->n, &s->uprev));
  PetscCall(PetscArraycpy(s->uprev, f->uprev, s->n));
  for (PetscInt a = 0; a < f->dim; a++)
    if (f->has_layer[a]) {
      PetscCall(PetscMalloc2(s->n, &s->psi[a], s->n, &s->zeta[a]));
      PetscCall(PetscArraycpy(s->psi[a], f->psi[a], s->n));
      PetscCall(PetscArraycpy(s->zeta[a], f->zeta[a], s->n));
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode SnapshotRestore(const Snapshot *s, Fields *f)
{
  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(f->uprev, s->uprev, s->n));
  for (PetscInt a = 0; a < f->dim; a++)
    if (f->has_layer[a]) {
      PetscCall(PetscArraycpy(f->psi[a], s->psi[a], s->n));
      PetscCall(PetscArraycpy(f->zeta[a], s->zeta[a], s->n));
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode SnapshotFree(Snapshot *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(s->uprev));
  for (PetscInt a = 0; a < 3; a++) PetscCall(PetscFree2(s->psi[a], s->zeta[a]));
  PetscFunctionReturn(0);
}

static PetscBool InBox(const Box *b, const PetscInt i[3])
{
  for (PetscInt a = 0; a < 3; a++)
    if (i[a] < b->lo[a] || i[a] >= b->hi[a]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Second and first differences in double with the magnitudes of their terms. */
static double D2(const Fields *f, const float *x, ptrdiff_t i, PetscInt a, double *mag)
{
  const ptrdiff_t s = f->stride[a];
  const double    h = spacing[a];
  double          acc, c;

  c    = fwi_d2_weight((int)f->order, 0) / (h * h);
  acc  = c * x[i];
  *mag = PetscAbsReal(acc);
  for (PetscInt k = 1; k <= f->radius; k++) {
    c = fwi_d2_weight((int)f->order, (int)k) / (h * h);
    acc += c * ((double)x[i + k * s] + x[i - k * s]);
    *mag += PetscAbsReal(c) * (PetscAbsReal(x[i + k * s]) + PetscAbsReal(x[i - k * s]));
  }
  return acc;
}

static double D1(const Fields *f, const float *x, ptrdiff_t i, PetscInt a, double *mag)
{
  const ptrdiff_t s = f->stride[a];
  double          acc = 0;

  *mag = 0;
  for (PetscInt k = 1; k <= f->radius; k++) {
    const double c = fwi_d1_weight((int)f->order, (int)k) / spacing[a];
    acc += c * ((double)x[i + k * s] - x[i - k * s]);
    *mag += PetscAbsReal(c) * (PetscAbsReal(x[i + k * s]) + PetscAbsReal(x[i - k * s]));
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

/* After ops.step(b) on state `before`: every cell of the box against the
   reference, every other value unchanged.  Axes in b->layer_axes follow
   fwi_cpml_term with psi and zeta of `before`. */
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
          for (PetscInt a = 0; a < f->dim; a++)
            if (f->has_layer[a])
              PetscCheck(f->zeta[a][c] == before->zeta[a][c], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: step changed zeta[%d] at (%d, %d, %d) outside the box",
                         what, (int)a, (int)i0, (int)i1, (int)i2);
          continue;
        }
        for (PetscInt a = 0; a < f->dim; a++) {
          double d2mag, term = D2(f, f->u, c, a, &d2mag), termmag = d2mag;
          if (InLayer(f, b, a, i)) {
            const PetscInt k  = i[a] + r; /* padded index along a */
            const double   pa = f->pml_a[a][k], pb = f->pml_b[a][k];
            double         dpsimag, t, tmag, z, zmag;
            t    = term + D1(f, before->psi[a], c, a, &dpsimag);
            tmag = d2mag + dpsimag;
            z    = pb * before->zeta[a][c] + pa * t;
            zmag = PetscAbsReal(pb * before->zeta[a][c]) + PetscAbsReal(pa) * tmag;
            PetscCall(CheckValue(what, "zeta", i, f->zeta[a][c], z, zmag));
            term    = t + z;
            termmag = tmag + zmag;
          } else if (f->has_layer[a]) {
            PetscCheck(f->zeta[a][c] == before->zeta[a][c], PETSC_COMM_SELF, PETSC_ERR_PLIB,
                       "%s: step changed zeta[%d] at (%d, %d, %d), outside the layer of that axis", what, (int)a, (int)i0, (int)i1, (int)i2);
          }
          lap += term;
          lapmag += termmag;
        }
        next = 2.0 * f->u[c] - before->uprev[c] + (double)f->vdt2[c] * lap;
        mag  = 2.0 * PetscAbsReal(f->u[c]) + PetscAbsReal(before->uprev[c]) + f->vdt2[c] * lapmag;
        PetscCall(CheckValue(what, "u^{n+1}", i, f->uprev[c], next, mag));
      }
  for (PetscInt a = 0; a < f->dim; a++)
    if (f->has_layer[a])
      PetscCheck(!memcmp(f->psi[a], before->psi[a], sizeof(float) * f->ncells), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: step changed psi[%d]", what, (int)a);
  PetscFunctionReturn(0);
}

/* After ops.advance_memory(b): psi_a <- b psi_a + a du/dx_a on the box's layer axes. */
static PetscErrorCode CheckMemory(const char *what, const Fields *f, const Snapshot *before, const Box *b)
{
  const PetscInt r = f->radius;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < f->dim; a++) {
    if (!f->has_layer[a]) continue;
    for (size_t c = 0; c < f->ncells; c++) {
      PetscInt i[3], rest = (PetscInt)c;
      for (PetscInt e = 0; e < 3; e++) {
        i[e] = rest % f->padded[e] - (e < f->dim ? r : 0);
        rest /= f->padded[e];
      }
      if (InBox(b, i) && InLayer(f, b, a, i)) {
        const PetscInt k = i[a] + r;
        double         dumag, want, mag;
        const double   du = D1(f, f->u, (ptrdiff_t)c, a, &dumag);
        want              = (double)f->pml_b[a][k] * before->psi[a][c] + (double)f->pml_a[a][k] * du;
        mag               = PetscAbsReal((double)f->pml_b[a][k] * before->psi[a][c]) + PetscAbsReal(f->pml_a[a][k]) * dumag;
        PetscCall(CheckValue(what, "psi", i, f->psi[a][c], want, mag));
      } else
        PetscCheck(f->psi[a][c] == before->psi[a][c], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: advance_memory changed psi[%d] at (%d, %d, %d)", what,
                   (int)a, (int)i[0], (int)i[1], (int)i[2]);
    }
    for (size_t c = 0; c < f->ncells; c++)
      PetscCheck(f->zeta[a][c] == before->zeta[a][c], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: advance_memory changed zeta[%d]", what, (int)a);
  }
  PetscCheck(!memcmp(f->uprev, before->uprev, sizeof(float) * f->ncells), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: advance_memory changed uprev", what);
  PetscFunctionReturn(0);
}

/* Bit 0 of layer_axes: the box reaches outside the core along axis 0. */
static void BoxSetAxis0(const Fields *f, Box *b)
{
  const PetscBool core_only = b->lo[0] >= f->core[0] && b->hi[0] <= f->core[1];
  b->layer_axes             = (b->layer_axes & ~1u) | (core_only ? 0u : 1u);
}

/* axes: the layer_axes bits of axes 1 and 2. */
static Box WholeBox(const Fields *f, unsigned axes)
{
  Box b;
  for (PetscInt a = 0; a < 3; a++) {
    b.lo[a] = 0;
    b.hi[a] = f->n[a];
  }
  b.layer_axes = axes;
  BoxSetAxis0(f, &b);
  return b;
}

/* Stepping the box in two halves along each axis (and an inner sub-box plus
   the rest) is bit-identical to stepping it whole. */
static PetscErrorCode CheckSplit(const char *what, Fields *f, const Snapshot *before, const Box *whole)
{
  float *ref, *zref[3] = {NULL, NULL, NULL};

  PetscFunctionBeginUser;
  PetscCall(SnapshotRestore(before, f));
  PetscCall(KernelOpsCPU.step(f, whole));
  PetscCall(PetscMalloc1(f->ncells, &ref));
  PetscCall(PetscArraycpy(ref, f->uprev, f->ncells));
  for (PetscInt a = 0; a < f->dim; a++)
    if (f->has_layer[a]) {
      PetscCall(PetscMalloc1(f->ncells, &zref[a]));
      PetscCall(PetscArraycpy(zref[a], f->zeta[a], f->ncells));
    }
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt cut = whole->lo[a] + 1; cut < whole->hi[a]; cut += PetscMax(1, (whole->hi[a] - whole->lo[a]) / 3)) {
      Box lo = *whole, hi = *whole;
      lo.hi[a] = cut;
      hi.lo[a] = cut;
      BoxSetAxis0(f, &lo);
      BoxSetAxis0(f, &hi);
      PetscCall(SnapshotRestore(before, f));
      PetscCall(KernelOpsCPU.step(f, &hi));
      PetscCall(KernelOpsCPU.step(f, &lo));
      PetscCheck(!memcmp(ref, f->uprev, sizeof(float) * f->ncells), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "%s: stepping the box split at %d along axis %d differs from stepping it whole", what, (int)cut, (int)a);
      for (PetscInt e = 0; e < f->dim; e++)
        if (zref[e])
          PetscCheck(!memcmp(zref[e], f->zeta[e], sizeof(float) * f->ncells), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                     "%s: zeta[%d] after stepping the box split at %d along axis %d differs from stepping it whole", what, (int)e, (int)cut, (int)a);
    }
  PetscCall(PetscFree(ref));
  for (PetscInt a = 0; a < 3; a++) PetscCall(PetscFree(zref[a]));
  PetscFunctionReturn(0);
}

/* One step over the whole box and over a sub-box, against the reference,
   then the split check.  layers: the axes whose layer the block meets (psi,
   zeta allocated); [core0, core1): the cells outside the layer along axis 0
   (core1 < 0: to the end); axes: layer_axes bits of axes 1, 2. */
static PetscErrorCode TestStep(PetscInt dim, PetscInt radius, const PetscInt n[3], unsigned layers, PetscInt core0, PetscInt core1, unsigned axes)
{
  Fields   f;
  Snapshot before;
  Box      whole, sub;
  char     what[160], name[128];

  PetscFunctionBeginUser;
  PetscCall(FieldsSetUp(dim, radius, n, layers, core0, core1, &f));
  FieldsRandomize(&f);
  PetscCall(SnapshotTake(&f, &before));
  whole = WholeBox(&f, axes);
  PetscCall(PetscSNPrintf(name, sizeof name, "%dD radius %d, layers %#x, core [%d, %d), layer_axes %#x", (int)dim, (int)radius, layers, (int)f.core[0],
                          (int)f.core[1], whole.layer_axes));
  PetscCall(PetscSNPrintf(what, sizeof what, "%s, whole box", name));
  PetscCall(KernelOpsCPU.step(&f, &whole));
  PetscCall(CheckStep(what, &f, &before, &whole));

  sub = whole;
  for (PetscInt a = 0; a < dim; a++) {
    sub.lo[a] = 1 + a;
    sub.hi[a] = f.n[a] - 2;
  }
  BoxSetAxis0(&f, &sub);
  PetscCall(PetscSNPrintf(what, sizeof what, "%s, sub-box", name));
  PetscCall(SnapshotRestore(&before, &f));
  PetscCall(KernelOpsCPU.step(&f, &sub));
  PetscCall(CheckStep(what, &f, &before, &sub));

  if (layers) {
    PetscCall(PetscSNPrintf(what, sizeof what, "%s, advance_memory", name));
    PetscCall(SnapshotRestore(&before, &f));
    PetscCall(KernelOpsCPU.advance_memory(&f, &sub));
    PetscCall(CheckMemory(what, &f, &before, &sub));
    PetscCall(SnapshotRestore(&before, &f));
    PetscCall(KernelOpsCPU.advance_memory(&f, &whole));
    PetscCall(CheckMemory(what, &f, &before, &whole));
  }

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
  PetscCall(FieldsSetUp(dim, radius, n, 0, 0, -1, &f));
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

int main(int argc, char **argv)
{
  const PetscInt n2[3] = {17, 23, 1}, n3[3] = {9, 10, 11}, radii[3] = {1, 2, 4};
  const PetscInt long2[3] = {601, 5, 1}, long3[3] = {300, 4, 5}; /* rows longer than a kernel's chunk of a row */

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (PetscInt j = 0; j < 3; j++) {
    const PetscInt r = radii[j];
    /* no layers: the core kernel */
    PetscCall(TestStep(2, r, n2, 0, 0, -1, 0));
    PetscCall(TestStep(3, r, n3, 0, 0, -1, 0));
    /* every cell in the layer of every axis */
    PetscCall(TestStep(2, r, n2, 0x3, 0, 0, 0x2));
    PetscCall(TestStep(3, r, n3, 0x7, 0, 0, 0x6));
    /* rows split into layer, core, layer along axis 0 */
    PetscCall(TestStep(2, r, n2, 0x3, 3, n2[0] - 5, 0x2));
    PetscCall(TestStep(3, r, n3, 0x7, 2, n3[0] - 4, 0x6));
    PetscCall(TestStep(2, r, long2, 0, 0, -1, 0));
    PetscCall(TestStep(2, r, long2, 0x3, 20, 581, 0x2));
    PetscCall(TestStep(3, r, long3, 0x7, 10, 290, 0x4));
    /* in the layers of some axes only: the others take the plain second difference */
    PetscCall(TestStep(2, r, n2, 0x2, 0, -1, 0x2));
    PetscCall(TestStep(2, r, n2, 0x1, 5, -1, 0));
    PetscCall(TestStep(3, r, n3, 0x5, 0, 4, 0x4));
    PetscCall(TestStep(3, r, n3, 0x7, 2, n3[0] - 4, 0x2));
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt s = 0; s < 2; s++) {
        if (a < 2) PetscCall(TestFreeSurface(2, r, n2, a, s));
        PetscCall(TestFreeSurface(3, r, n3, a, s));
      }
  }
  {
    Fields f;
    Box    b;
    PetscCall(FieldsSetUp(2, 3, n2, 0, 0, -1, &f));
    b = WholeBox(&f, 0);
    EXPECT_ERROR(KernelOpsCPU.step(&f, &b), "radius 3");
    PetscCall(KernelOpsCPU.free(&f));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_kernels: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
