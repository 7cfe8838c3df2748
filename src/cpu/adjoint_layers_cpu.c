/* CPU backend: the adjoint of the CPML terms, slab by slab (see
   KernelOps.adjoint_layers_begin/end and docs/numerics.md).  Rows along
   axis 0 are contiguous in the field and in the slab, so each row is one
   vectorised loop, and the stencil radius is a constant of each instance. */
#include "kernels_cpu.h"
#include <omp.h>

/* CPUAdjointLayersEnd, one sweep per slab: every cell's share of uprev,
   then psi and E one step back, in place.  Both read the old psi and E of
   neighbours along the slab's own axis only, so a cell's new values wait
   until nothing reads its old ones: in a z slab a row is finished before it
   is written back; in the x and y slabs a sweep along the axis keeps the
   new values of the last R + 1 planes in a ring and writes each plane back
   R planes later.  uprev sums the slabs in the same order as separate
   passes would, so the result is theirs bit for bit. */

/* Rows along z are cut into chunks of at most CHUNK cells for the sweeps
   across rows, so that a ring stays in cache and the threads get pieces. */
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

PetscErrorCode CPUAdjointLayersBegin(Fields *f)
{
  PetscFunctionBeginUser;
  FOR_EACH_SLAB(f)
  {
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

/* The z slabs touch a short piece of every row of the field: without
   help the loads wait on memory row after row.  Asks for the pieces of the
   row `ahead` floats on, reach included. */
#define PREFETCH_ROWS 4
static inline void PrefetchRows(const SlabCells *w, PetscInt n, PetscInt R, ptrdiff_t ahead)
{
  for (PetscInt j = -R; j < n + R; j += 16) {
    __builtin_prefetch(w->u + ahead + j);
    __builtin_prefetch(w->v + ahead + j);
    __builtin_prefetch(w->up + ahead + j, 1);
  }
}

/* A thread's scratch: n floats for new psi, then n for new E. */
static float *Scratch(float *work, size_t n) { return work + (size_t)omp_get_thread_num() * 2 * n; }

/* The per-cell work, j along a z row of n cells from w; PS how the axis
   profiles advance along the row (1 for axis 0, 0 for the others: a
   literal, so that each case is its own vectorised loop), us the field's
   stride along the slab's axis.  REACH:
   uprev's share.  BACK: the new psi and E into npsi, nE. */
#define SLAB_REACH(w, n, ss, us, c1, c2, R, PS) \
  _Pragma("omp simd") for (PetscInt j = 0; j < (n); j++)(w).up[j] += \
    (w).v[j] * fwi_adj_cpml_reach((w).E + j, (w).psi + j, ss, (w).u + j, us, (w).pa + PS * j, (w).pda + PS * j, c2, c1, R)
#define SLAB_BACK(w, n, ss, us, c1, R, PS, npsi, nE) \
  _Pragma("omp simd") for (PetscInt j = 0; j < (n); j++) \
  { \
    (npsi)[j] = fwi_adj_cpml_psi((w).psi[j], (w).u + j, us, (w).E + j, ss, (w).pa + PS * j, (w).pb + PS * j, c1, R); \
    (nE)[j]   = (w).E[j] * (w).pb[PS * j]; \
  }

#define DEFINE_LAYERS_END(R, DIM) \
  /* a z slab, row by row */ \
  static void SlabEndZ_r##R(Fields *f, PetscInt s, float *work, size_t nwork) \
  { \
    const float *c1 = f->c1[0], *c2 = f->c2[0]; \
    PetscInt     lo[3], hi[3], llo[3], lhi[3]; \
    FieldsSlabBox(f, 0, s, f->radius, lo, hi); \
    FieldsSlabBox(f, 0, s, 0, llo, lhi); \
    const PetscInt n = hi[0] - lo[0], nl = lhi[0] - llo[0]; \
    _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt i2 = lo[2]; i2 < hi[2]; i2++) \
    { \
      for (PetscInt i1 = lo[1]; i1 < hi[1]; i1++) { \
        const PetscInt  i[3] = {lo[0], i1, i2}, il[3] = {llo[0], i1, i2}; \
        const SlabCells w = SlabCellsAt(f, 0, s, i), l = SlabCellsAt(f, 0, s, il); \
        float *npsi = Scratch(work, nwork), *nE = npsi + nwork; \
        PrefetchRows(&w, n, R, PREFETCH_ROWS * f->stride[1]); \
        SLAB_REACH(w, n, 1, 1, c1, c2, R, 1); \
        SLAB_BACK(l, nl, 1, 1, c1, R, 1, npsi, nE); \
        PetscArraycpy(l.psi, npsi, nl); \
        PetscArraycpy(l.E, nE, nl); \
      } \
    } \
  } \
  /* an x (a = 1) or y (a = 2) slab: per chunk of z and index of the third \
     axis t, a sweep along a */ \
  static void SlabEndXY_r##R(Fields *f, PetscInt a, PetscInt s, float *work) \
  { \
    const PetscInt   t = 3 - a; \
    const ptrdiff_t  ss = f->slab[a][s].stride[a], us = f->stride[a]; \
    const float     *c1 = f->c1[a], *c2 = f->c2[a]; \
    PetscInt         lo[3], hi[3], llo[3], lhi[3]; \
    FieldsSlabBox(f, a, s, f->radius, lo, hi); \
    FieldsSlabBox(f, a, s, 0, llo, lhi); \
    const PetscInt threads = omp_get_max_threads(); \
    const PetscInt nchunk  = PetscMax((f->n[0] + CHUNK - 1) / CHUNK, PetscMin(f->n[0], (4 * threads + f->n[t] - 1) / f->n[t])); \
    const PetscInt chunk   = (f->n[0] + nchunk - 1) / nchunk; \
    _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt it = 0; it < f->n[t]; it++) \
    { \
      for (PetscInt k = 0; k < nchunk; k++) { \
        const PetscInt z0 = k * chunk, n = PetscMin(chunk, f->n[0] - z0); \
        float         *ring = Scratch(work, (R + 1) * CHUNK); /* plane q's new psi at (q % (R + 1)) * CHUNK, new E R + 1 planes on */ \
        PetscInt       i[3]; \
        i[0] = z0; \
        i[t] = it; \
        for (PetscInt ia = lo[a]; ia < hi[a] + R; ia++) { \
          const PetscInt q = ia - R; /* the plane nothing reads any more */ \
          if (ia < hi[a]) { \
            i[a]              = ia; \
            const SlabCells w = SlabCellsAt(f, a, s, i); \
            SLAB_REACH(w, n, ss, us, c1, c2, R, 0); \
            if (ia >= llo[a] && ia < lhi[a]) { \
              float *npsi = ring + (ia % (R + 1)) * CHUNK, *nE = npsi + (R + 1) * CHUNK; \
              SLAB_BACK(w, n, ss, us, c1, R, 0, npsi, nE); \
            } \
          } \
          if (q >= llo[a] && q < lhi[a]) { \
            i[a]              = q; \
            const SlabCells w = SlabCellsAt(f, a, s, i); \
            PetscArraycpy(w.psi, ring + (q % (R + 1)) * CHUNK, n); \
            PetscArraycpy(w.E, ring + (R + 1 + q % (R + 1)) * CHUNK, n); \
          } \
        } \
      } \
    } \
  } \
  static PetscErrorCode LayersEnd_r##R(Fields *f) \
  { \
    float *work; \
    size_t nz = 1; \
    PetscFunctionBeginUser; \
    for (PetscInt s = 0; s < 2; s++) nz = PetscMax(nz, (size_t)(f->slab[0][s].hi - f->slab[0][s].lo)); \
    PetscCall(PetscMalloc1((size_t)omp_get_max_threads() * 2 * PetscMax(nz, (R + 1) * CHUNK), &work)); \
    FOR_EACH_SLAB(f) \
    { \
      if (a) SlabEndXY_r##R(f, a, s, work); \
      else SlabEndZ_r##R(f, s, work, nz); \
    } \
    PetscCall(PetscFree(work)); \
    PetscFunctionReturn(0); \
  }
FWI_KERNEL_RADII(DEFINE_LAYERS_END, 0)

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
