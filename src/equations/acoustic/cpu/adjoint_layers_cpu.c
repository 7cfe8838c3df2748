/* CPU backend: the adjoint of the CPML terms, slab by slab (see
   KernelOps.adjoint_layers_begin/end and docs/numerics.md).  Rows along
   axis 0 are contiguous in the field and in the slab, so each row is one
   vectorised loop, and the stencil radius is a constant of each instance. */
#include "equations/acoustic/cpu/kernels_cpu.h"
#include <omp.h>

/* CPUAdjointLayersEnd, per slab: every cell's share of uprev, then psi and
   E one step back, in place.  Both read the old psi and E of neighbours
   along the slab's own axis only, through the factors stencil.h names
   (X, Y, Z): each cell's are formed once, from old values, before anything
   is written where they came from.  In a z slab that is a row at a time; in
   the x and y slabs a sweep along the axis keeps the factors of a window of
   planes.  uprev sums the slabs in the same order as separate
   passes would, so the result is theirs bit for bit. */

/* Rows along z are cut into chunks of at most CHUNK cells for the sweeps
   across rows, so that the window of factors stays in cache and the
   threads get pieces. */
#define CHUNK 256

/* Pointers at owned cell i: the field (u, up, v), slab (a, s) (E, psi) and
   axis a's profiles (pa, pb, pda). */
typedef struct {
  const float *u, *v, *pa, *pb, *pda;
  float       *up, *E, *psi;
} SlabCells;

static inline SlabCells SlabCellsAt(const Fields *f, PetscInt a, PetscInt s, const PetscInt i[3])
{
  const LayerSlab *sl = &f->slab[a][s];
  PetscInt         p[3];
  SlabCells        w;

  for (PetscInt b = 0; b < 3; b++) p[b] = i[b] + (b < f->dim ? f->radius : 0);
  const ptrdiff_t c = FieldsIndex(f, i), q = SlabIndex(sl, a, p);
  w.u   = f->u + c;
  w.v   = f->vdt2 + c;
  w.up  = f->uprev + c;
  w.E   = sl->zeta + q;
  w.psi = sl->psi + q;
  w.pa  = f->pml_a[a] + p[a];
  w.pb  = f->pml_b[a] + p[a];
  w.pda = f->pml_da[a] + p[a];
  return w;
}

/* Every slab, axis by axis, low side first. */
#define FOR_EACH_SLAB(f) \
  for (PetscInt a = 0; a < (f)->dim; a++) \
    for (PetscInt s = 0; s < 2; s++) \
      if ((f)->slab[a][s].ncells)

/* E <- E + u in the layer cells, for the slabs a halo exchanges; the others
   get it where their sweeps first read E (CPUAxisAlone). */
PetscErrorCode CPUAdjointLayersBegin(Fields *f)
{
  PetscFunctionBeginUser;
  FOR_EACH_SLAB(f)
  {
    if (CPUAxisAlone(f, a)) continue;
    PetscInt lo[3], hi[3];
    FieldsSlabBox(f, a, s, 0, lo, hi);
    const PetscInt n = hi[0] - lo[0];
    _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt i2 = lo[2]; i2 < hi[2]; i2++)
    {
      for (PetscInt i1 = lo[1]; i1 < hi[1]; i1++) {
        const PetscInt  i[3] = {lo[0], i1, i2};
        const SlabCells w    = SlabCellsAt(f, a, s, i);
        _Pragma("omp simd") for (PetscInt j = 0; j < n; j++) w.E[j] += w.u[j];
      }
    }
  }
  PetscFunctionReturn(0);
}

/* A thread's n floats of scratch. */
static float *Scratch(float *work, size_t n) { return work + (size_t)omp_get_thread_num() * n; }

/* The sweeps across rows step from plane to plane of the field, a stride
   the hardware prefetcher does not follow along y: they ask for the pieces
   of the plane AHEAD planes on. */
#define AHEAD 2

/* E at cell j of w, with adjoint_layers_begin's u added where ADD (a
   literal) says it is still due. */
#define SLAB_E(w, j, ADD) ((ADD) ? (w).E[j] + (w).u[j] : (w).E[j])

/* Runs CALL with ADD_ the literal 1 where ADD holds, else 0: each case its
   own vectorised loop. */
#define WITH_LITERAL_ADD(ADD, CALL) \
  if (ADD) { \
    const int ADD_ = 1; \
    CALL; \
  } else { \
    const int ADD_ = 0; \
    CALL; \
  }

/* The factors (stencil.h) of cells [j0, j0 + n) of w into x, y, z;
   profiles along the row when PS is 1, constant along it when 0.  These
   loops take VECTOR_PIECES's form (the range last). */
#define SLAB_FACTORS_AT(w, PS, ADD, x, y, z, j0, n) \
  _Pragma("omp simd") for (PetscInt j = (j0); j < (j0) + (n); j++) \
  { \
    const float e_ = SLAB_E(w, j, ADD), t_ = fwi_adj_cpml_t((w).u[j], (w).pa[PS * j], e_); \
    (x)[j]         = fwi_adj_cpml_x(t_, (w).pa[PS * j], e_); \
    (y)[j]         = fwi_adj_cpml_y(t_, (w).pda[PS * j], (w).pa[PS * j], (w).psi[j]); \
    (z)[j]         = fwi_where_nonzero(t_, (w).pb[PS * j]); \
  }

/* psi and E of cells [j0, j0 + n) of w one step back, from the factors z
   at stride zs. */
#define SLAB_BACK_AT(w, PS, ADD, z, zs, c1, R, j0, n) \
  _Pragma("omp simd") for (PetscInt j = (j0); j < (j0) + (n); j++) \
  { \
    (w).psi[j] = fwi_adj_cpml_psi_z((w).psi[j], (z) + j, zs, (w).pb[PS * j], c1, R); \
    (w).E[j]   = SLAB_E(w, j, ADD) * (w).pb[PS * j]; \
  }

/* uprev's share of cells [j0, j0 + n) at up, v from the factors x, y of
   the slab's cells at stride s (the slab's axis). */
#define SLAB_REACH_AT(up, v, x, y, s, c2, c1, R, j0, n) \
  _Pragma("omp simd") for (PetscInt j = (j0); j < (j0) + (n); j++)(up)[j] += (v)[j] * fwi_adj_cpml_reach_xy((x) + j, (y) + j, s, c2, c1, R)

/* The factors of a cell whose profile b is 0 are +-0, as its a and da are
   0 too (fields.h): outside the layers.  The sweeps form them only where b
   is not, and take +0 for the rest, which changes at most the sign of a
   zero in the sums they enter. */
static inline void SlabFactorsZero(float *x, float *y, float *z, PetscInt j0, PetscInt j1)
{
  for (PetscInt j = j0; j < j1; j++) x[j] = y[j] = z[j] = 0.0f;
}

/* Whether u, E and psi are +-0 in cells [j0, j1) of w.  Then so is every
   factor formed there, and a row's slab whose factors are all +-0 adds +-0
   to uprev and leaves psi and E +-0: skipping it changes at most the sign
   of a zero, which no value reads (the gradient's sums skip zeros).  The
   adjoint field reaches a layer only when its waves do: one reached from
   receivers near the surface, the bottom one of a short record, is quiet
   for most or all of the run. */
static inline PetscBool SlabRowQuiet(const SlabCells *w, PetscInt j0, PetscInt j1)
{
  const FloatBits *u = (const FloatBits *)w->u, *E = (const FloatBits *)w->E, *psi = (const FloatBits *)w->psi;
  uint32_t         any = 0;

  for (PetscInt j = j0; j < j1; j++) any |= u[j] | E[j] | psi[j];
  return FloatBitsNonzero(any) ? PETSC_FALSE : PETSC_TRUE;
}

void CPUZRowsSetUp(const Fields *f, CPUZRows *z)
{
  const PetscInt R = f->radius;

  for (PetscInt s = 0; s < 2; s++) {
    CPUZSide *zs = &z->side[s];
    PetscInt  lo[3], hi[3], llo[3], lhi[3];
    if (!f->slab[0][s].ncells) continue;
    FieldsSlabBox(f, 0, s, R, lo, hi);
    FieldsSlabBox(f, 0, s, 0, llo, lhi);
    zs->lo = lo[0];
    zs->n  = hi[0] - lo[0];
    zs->k0 = R + llo[0] - lo[0];
    zs->k1 = zs->k0 + lhi[0] - llo[0];
    /* b at the row's cells from lo - R on: its padded index is lo */
    const float *pb = f->pml_b[0] + lo[0];
    zs->f0 = 0;
    zs->f1 = zs->n + 2 * R;
    while (zs->f0 < zs->f1 && pb[zs->f0] == 0) zs->f0++;
    while (zs->f1 > zs->f0 && pb[zs->f1 - 1] == 0) zs->f1--;
  }
}

#define DEFINE_LAYERS_END(R, DIM) \
  /* both z slabs' pieces of row (i1, i2), where not quiet: the factors of \
     every cell the stencils read, then uprev's share and psi and E one \
     step back, in place (nothing reads their old values after the \
     factors); returns the sides (bits) done */ \
  unsigned CPUAdjointLayersRowZ_r##R(const Fields *f, const CPUZRows *z, PetscInt i1, PetscInt i2) \
  { \
    const PetscBool alone = CPUAxisAlone(f, 0); \
    unsigned        done  = 0; \
    LOCAL_WEIGHTS(R); \
    for (PetscInt s = 0; s < 2; s++) { \
      if (!f->slab[0][s].ncells) continue; \
      const CPUZSide *zs = &z->side[s]; \
      const PetscInt  n = zs->n, k0 = zs->k0, k1 = zs->k1, f0 = zs->f0, f1 = zs->f1; \
      const PetscInt  i[3] = {zs->lo - R, i1, i2}; \
      const SlabCells w = SlabCellsAt(f, 0, s, i); \
      if (SlabRowQuiet(&w, f0, f1)) continue; \
      float        xb[n + 2 * R], yb[n + 2 * R], zb[n + 2 * R]; \
      const float *x = xb + R, *y = yb + R; /* at the box's first cell */ \
      SlabFactorsZero(xb, yb, zb, 0, f0); \
      SlabFactorsZero(xb, yb, zb, f1, n + 2 * R); \
      WITH_LITERAL_ADD(alone, VECTOR_PIECES(f0, f1 - f0, SLAB_FACTORS_AT, w, 1, ADD_ && j >= k0 && j < k1, xb, yb, zb)) \
      VECTOR_PIECES(0, n, SLAB_REACH_AT, w.up + R, w.v + R, x, y, 1, c2[0], c1[0], R); \
      WITH_LITERAL_ADD(alone, VECTOR_PIECES(k0, k1 - k0, SLAB_BACK_AT, w, 1, ADD_, zb, 1, c1[0], R)) \
      done |= 1u << s; \
    } \
    return done; \
  } \
  /* plane i[a] of slab (a, s), cells i[0] .. i[0] + n: its factors into \
     the window (+0 where the plane's b is 0), the last 2R planes moved to \
     the window's start when it is full (they are all the next plane's \
     stencils read) */ \
  static inline void SlabPlaneFactors_r##R(const Fields *f, PetscInt a, PetscInt s, SlabWindow *win, const PetscInt i[3], PetscInt n, int add) \
  { \
    if (i[a] - win->base == SLAB_PLANES) { \
      float *const w3[3] = {win->X, win->Y, win->Z}; \
      for (int k = 0; k < 3; k++) PetscArraymove(w3[k], w3[k] + (SLAB_PLANES - 2 * R) * win->stride, 2 * R * win->stride); \
      win->base += SLAB_PLANES - 2 * R; \
    } \
    const size_t    q = (size_t)(i[a] - win->base) * win->stride; \
    const SlabCells w = SlabCellsAt(f, a, s, i); \
    if (*w.pb == 0) SlabFactorsZero(win->X + q, win->Y + q, win->Z + q, 0, n); \
    else WITH_LITERAL_ADD(add, VECTOR_PIECES(0, n, SLAB_FACTORS_AT, w, 0, ADD_, win->X + q, win->Y + q, win->Z + q)) \
  } \
  /* plane i[a] once the window holds the factors of every plane its \
     stencils read: uprev's share, and psi and E one step back in a layer \
     plane */ \
  static inline void SlabPlaneFinish_r##R(const Fields *f, PetscInt a, PetscInt s, const SlabWindow *win, const PetscInt i[3], PetscInt n, PetscBool layer, \
                                          int add) \
  { \
    LOCAL_WEIGHTS(R); \
    const size_t    c = (size_t)(i[a] - win->base) * win->stride; \
    const SlabCells v = SlabCellsAt(f, a, s, i); \
    VECTOR_PIECES(0, n, SLAB_REACH_AT, v.up, v.v, win->X + c, win->Y + c, win->stride, c2[a], c1[a], R); \
    if (layer) { \
      WITH_LITERAL_ADD(add, VECTOR_PIECES(0, n, SLAB_BACK_AT, v, 0, ADD_, win->Z + c, win->stride, c1[a], R)) \
    } \
  } \
  /* an x (a = 1) or y (a = 2) slab: per chunk of z and index of the third \
     axis t, a sweep along a that forms each plane's factors and finishes \
     the plane R behind */ \
  static void SlabEndXY_r##R(Fields *f, PetscInt a, PetscInt s, float *work) \
  { \
    const PetscInt  t = 3 - a; \
    const PetscBool alone = CPUAxisAlone(f, a); \
    PetscInt        lo[3], hi[3], llo[3], lhi[3]; \
    FieldsSlabBox(f, a, s, R, lo, hi); \
    FieldsSlabBox(f, a, s, 0, llo, lhi); \
    const PetscInt threads = omp_get_max_threads(); \
    const PetscInt want    = PetscMax((f->n[0] + CHUNK - 1) / CHUNK, PetscMin(f->n[0], (4 * threads + f->n[t] - 1) / f->n[t])); \
    const PetscInt chunk   = (f->n[0] + want - 1) / want; \
    const PetscInt nchunk  = (f->n[0] + chunk - 1) / chunk; /* fewer than want when chunk rounded up: none starts past the row */ \
    _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt it = 0; it < f->n[t]; it++) \
    { \
      for (PetscInt k = 0; k < nchunk; k++) { \
        const PetscInt z0 = k * chunk, n = PetscMin(chunk, f->n[0] - z0); \
        SlabWindow     win = SlabWindowAt(Scratch(work, SlabWindowFloats(CHUNK)), CHUNK, lo[a] - R); \
        PetscInt       i[3]; \
        i[0] = z0; \
        i[t] = it; \
        for (PetscInt p = lo[a] - R; p < hi[a] + R; p++) { \
          if (p + AHEAD < hi[a] + R) { \
            i[a]                  = p + AHEAD; \
            const SlabCells ahead = SlabCellsAt(f, a, s, i); \
            CPUPrefetch(ahead.u, n, 0); \
            CPUPrefetch(ahead.E, n, 1); \
            CPUPrefetch(ahead.psi, n, 1); \
            if (p + AHEAD - R >= lo[a]) { \
              i[a]                   = p + AHEAD - R; \
              const SlabCells behind = SlabCellsAt(f, a, s, i); \
              CPUPrefetch(behind.up, n, 1); \
              CPUPrefetch(behind.v, n, 0); \
            } \
          } \
          i[a] = p; \
          SlabPlaneFactors_r##R(f, a, s, &win, i, n, alone && p >= llo[a] && p < lhi[a]); \
          i[a] = p - R; /* every plane its stencils read has its factors */ \
          if (i[a] >= lo[a]) SlabPlaneFinish_r##R(f, a, s, &win, i, n, i[a] >= llo[a] && i[a] < lhi[a], alone); \
        } \
      } \
    } \
  } \
  static PetscErrorCode LayersEnd_r##R(Fields *f) \
  { \
    float *work; \
    PetscFunctionBeginUser; \
    if (!CPUAxisAlone(f, 0)) { \
      CPUZRows z; \
      CPUZRowsSetUp(f, &z); \
      _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt i2 = 0; i2 < f->n[2]; i2++) \
      { \
        for (PetscInt i1 = 0; i1 < f->n[1]; i1++) CPUAdjointLayersRowZ_r##R(f, &z, i1, i2); \
      } \
    } \
    PetscCall(PetscMalloc1(omp_get_max_threads() * SlabWindowFloats(CHUNK), &work)); \
    const PetscBool xdone = CPUXSlabsInStep(f); \
    FOR_EACH_SLAB(f) \
    { \
      if (a == 2 || (a == 1 && !xdone)) SlabEndXY_r##R(f, a, s, work); \
    } \
    PetscCall(PetscFree(work)); \
    PetscFunctionReturn(0); \
  }
FWI_KERNEL_RADII(DEFINE_LAYERS_END, 0)

void CPUSlabPlaneFactors(const Fields *f, PetscInt a, PetscInt s, SlabWindow *win, const PetscInt i[3], PetscInt n, int add)
{
#define FACTORS_CASE(R, DIM) \
  case R: SlabPlaneFactors_r##R(f, a, s, win, i, n, add); break;
  switch (f->radius) {
    FWI_KERNEL_RADII(FACTORS_CASE, 0)
  }
#undef FACTORS_CASE
}

void CPUSlabPlaneFinish(const Fields *f, PetscInt a, PetscInt s, const SlabWindow *win, const PetscInt i[3], PetscInt n, PetscBool layer, int add)
{
#define FINISH_CASE(R, DIM) \
  case R: SlabPlaneFinish_r##R(f, a, s, win, i, n, layer, add); break;
  switch (f->radius) {
    FWI_KERNEL_RADII(FINISH_CASE, 0)
  }
#undef FINISH_CASE
}

PetscInt CPUXSlabs(const Fields *f, XSlab slab[2])
{
  PetscInt n = 0;

  for (PetscInt s = 0; s < 2; s++) {
    PetscInt lo[3], hi[3], llo[3], lhi[3];
    if (!f->slab[1][s].ncells) continue;
    FieldsSlabBox(f, 1, s, f->radius, lo, hi);
    FieldsSlabBox(f, 1, s, 0, llo, lhi);
    slab[n++] = (XSlab){s, lo[1] - f->radius, hi[1] + f->radius, lo[1], hi[1], llo[1], lhi[1]};
  }
  return n;
}

void CPUXSlabsFactors(const Fields *f, const XSlab slab[], PetscInt nslab, SlabWindow win[], PetscInt x, PetscInt i2)
{
  const PetscInt i[3] = {0, x, i2};

  for (PetscInt j = 0; j < nslab; j++)
    if (x >= slab[j].flo && x < slab[j].fhi) CPUSlabPlaneFactors(f, 1, slab[j].s, &win[j], i, f->n[0], x >= slab[j].llo && x < slab[j].lhi);
}

void CPUXSlabsFinish(const Fields *f, const XSlab slab[], PetscInt nslab, const SlabWindow win[], PetscInt x, PetscInt i2)
{
  const PetscInt i[3] = {0, x, i2};

  for (PetscInt j = 0; j < nslab; j++)
    if (x >= slab[j].lo && x < slab[j].hi) CPUSlabPlaneFinish(f, 1, slab[j].s, &win[j], i, f->n[0], x >= slab[j].llo && x < slab[j].lhi, 1);
}

PetscBool CPUXSlabsInStep(const Fields *f)
{
  XSlab          slab[2];
  const PetscInt nslab = CPUXSlabs(f, slab), ntile = CPUTileCount(f->n[1]), tile = (f->n[1] + ntile - 1) / ntile;

  if (!nslab) return PETSC_FALSE;
  for (PetscInt a = 0; a < f->dim; a++)
    if (!CPUAxisAlone(f, a)) return PETSC_FALSE;
  for (PetscInt j = 0; j < nslab; j++)
    if (slab[j].s ? slab[j].flo < (ntile - 1) * tile : slab[j].fhi > PetscMin(tile, f->n[1])) return PETSC_FALSE;
  return PETSC_TRUE;
}

void CPUXSweepBegin(const Fields *f, XSweep *x, float *scratch, PetscInt t0, PetscInt i2)
{
  x->nslab = CPUXSlabs(f, x->slab);
  for (PetscInt j = 0; j < x->nslab; j++) x->win[j] = SlabWindowAt(scratch + j * SlabWindowFloats((size_t)f->n[0]), (size_t)f->n[0], x->slab[j].flo);
  if (!t0)
    for (PetscInt r = -f->radius; r < 0; r++) CPUXSweepRow(f, x, r, i2);
}

void CPUXSweepRow(const Fields *f, XSweep *x, PetscInt r, PetscInt i2)
{
  CPUXSlabsFactors(f, x->slab, x->nslab, x->win, r, i2);
  CPUXSlabsFinish(f, x->slab, x->nslab, x->win, r - f->radius, i2);
}

void CPUXSweepEnd(const Fields *f, XSweep *x, PetscInt t1, PetscInt i2)
{
  if (t1 == f->n[1])
    for (PetscInt r = t1; r < t1 + f->radius; r++) CPUXSweepRow(f, x, r, i2);
}

PetscErrorCode CPUAdjointLayersEnd(Fields *f)
{
  PetscFunctionBeginUser;
#define LAYERS_CASE(R, DIM) \
  case R: PetscCall(LayersEnd_r##R(f)); break;
  switch (f->radius) {
    FWI_KERNEL_RADII(LAYERS_CASE, 0)
  default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No CPU kernel for radius %" PetscInt_FMT, f->radius);
  }
#undef LAYERS_CASE
  PetscFunctionReturn(0);
}
