/* CPU backend: OpenMP across rows, vectorised along z (axis 0, contiguous). */
#include "kernels.h"
#include <string.h>
#if defined(__SSE__)
  #include <xmmintrin.h>
  #include <pmmintrin.h>
#endif

/* Rows (i1, i2) of a box are walked in tiles of ROW_TILE along axis 1 with
   axis 2 inside, so the 2r+1 planes the y-stencil reads stay in cache. */
#define ROW_TILE 16

static inline ptrdiff_t RowStart(const Fields *f, PetscInt i1, PetscInt i2)
{
  const PetscInt i[3] = {0, i1, i2};
  return FieldsIndex(f, i);
}

/* Core cells (outside every layer): the plain leapfrog update, one variant per
   radius and dimension so the stencil loops unroll. */
#define DEFINE_STEP_CORE(R, DIM) \
  static void StepCore_##DIM##d_r##R(Fields *f, const Box *b) \
  { \
    const ptrdiff_t s1 = f->stride[1], s2 = f->stride[2]; \
    const float    *restrict u = f->u, *restrict v = f->vdt2; \
    float          *restrict up = f->uprev; \
    float           cz[R + 1], cx[R + 1], cy[R + 1]; \
    const PetscInt  ntile = (b->hi[1] - b->lo[1] + ROW_TILE - 1) / ROW_TILE; \
    for (int k = 0; k <= R; k++) { \
      cz[k] = f->c2[0][k]; \
      cx[k] = f->c2[1][k]; \
      cy[k] = DIM == 3 ? f->c2[2][k] : 0.0f; \
    } \
    _Pragma("omp parallel for schedule(static)") for (PetscInt t = 0; t < ntile; t++) \
    { \
      const PetscInt j1 = b->lo[1] + t * ROW_TILE, e1 = PetscMin(j1 + ROW_TILE, b->hi[1]); \
      for (PetscInt i2 = b->lo[2]; i2 < b->hi[2]; i2++) \
        for (PetscInt i1 = j1; i1 < e1; i1++) { \
          const ptrdiff_t row = RowStart(f, i1, i2); \
          _Pragma("omp simd") for (PetscInt i0 = b->lo[0]; i0 < b->hi[0]; i0++) \
          { \
            const ptrdiff_t i   = row + i0; \
            float           lap = fwi_d2(u + i, 1, cz, R) + fwi_d2(u + i, s1, cx, R); \
            if (DIM == 3) lap += fwi_d2(u + i, s2, cy, R); \
            up[i] = fwi_leapfrog(u[i], up[i], v[i], lap); \
          } \
        } \
    } \
  }

DEFINE_STEP_CORE(1, 2)
DEFINE_STEP_CORE(2, 2)
DEFINE_STEP_CORE(4, 2)
DEFINE_STEP_CORE(1, 3)
DEFINE_STEP_CORE(2, 3)
DEFINE_STEP_CORE(4, 3)

/* Layer cells: the CPML term on the axes the box lies in the layer of.
   k[a] is the padded index along axis a, for the 1D profiles. */
static void StepLayer(Fields *f, const Box *b)
{
  const PetscInt r = f->radius;
  _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt i2 = b->lo[2]; i2 < b->hi[2]; i2++)
  {
    for (PetscInt i1 = b->lo[1]; i1 < b->hi[1]; i1++) {
      const ptrdiff_t row = RowStart(f, i1, i2);
      _Pragma("omp simd") for (PetscInt i0 = b->lo[0]; i0 < b->hi[0]; i0++)
      {
        const ptrdiff_t i    = row + i0;
        const PetscInt  k[3] = {i0 + r, i1 + r, i2 + r};
        float           lap  = 0.0f;
        for (PetscInt a = 0; a < f->dim; a++) {
          const ptrdiff_t s    = f->stride[a];
          float           term = fwi_d2(f->u + i, s, f->c2[a], r);
          if (b->layer_axes & (1u << a))
            term = fwi_cpml_term(term, fwi_d1(f->psi[a] + i, s, f->c1[a], r), f->pml_a[a][k[a]], f->pml_b[a][k[a]], &f->zeta[a][i]);
          lap = a ? lap + term : term;
        }
        f->uprev[i] = fwi_leapfrog(f->u[i], f->uprev[i], f->vdt2[i], lap);
      }
    }
  }
}

static PetscErrorCode Step(Fields *f, const Box *b)
{
  PetscFunctionBeginUser;
  if (b->layer_axes) {
    StepLayer(f, b);
    PetscFunctionReturn(0);
  }
#define CORE_CASE(R) \
  case R: \
    (f->dim == 3 ? StepCore_3d_r##R : StepCore_2d_r##R)(f, b); \
    break;
  switch (f->radius) {
    CORE_CASE(1)
    CORE_CASE(2)
    CORE_CASE(4)
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No CPU kernel for stencil radius %" PetscInt_FMT, f->radius);
  }
#undef CORE_CASE
  PetscFunctionReturn(0);
}

static PetscErrorCode AdvanceMemory(Fields *f, const Box *b)
{
  const PetscInt r = f->radius;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < f->dim; a++) {
    if (!(b->layer_axes & (1u << a))) continue;
    const ptrdiff_t s = f->stride[a];
    _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt i2 = b->lo[2]; i2 < b->hi[2]; i2++)
    {
      for (PetscInt i1 = b->lo[1]; i1 < b->hi[1]; i1++) {
        const ptrdiff_t row = RowStart(f, i1, i2);
        _Pragma("omp simd") for (PetscInt i0 = b->lo[0]; i0 < b->hi[0]; i0++)
        {
          const ptrdiff_t i    = row + i0;
          const PetscInt  k[3] = {i0 + r, i1 + r, i2 + r};
          f->psi[a][i]         = fwi_cpml_psi(f->psi[a][i], fwi_d1(f->u + i, s, f->c1[a], r), f->pml_a[a][k[a]], f->pml_b[a][k[a]]);
        }
      }
    }
  }
  PetscFunctionReturn(0);
}

/* Calls fn(f, a, s, base) for every free-surface face, base = the padded
   index of the face's first surface cell; the face's cells are reached by
   walking the other two axes over the owned range. */
typedef void (*FaceFn)(Fields *, PetscInt a, PetscInt s, ptrdiff_t cell);

static void ForEachSurfaceCell(Fields *f, FaceFn fn)
{
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt s = 0; s < 2; s++) {
      if (!f->free_surface[a][s]) continue;
      const PetscInt p = (a + 1) % 3, q = (a + 2) % 3;
      for (PetscInt jq = 0; jq < f->n[q]; jq++)
        for (PetscInt jp = 0; jp < f->n[p]; jp++) {
          PetscInt i[3];
          i[a] = s ? f->n[a] - 1 : 0;
          i[p] = jp;
          i[q] = jq;
          fn(f, a, s, FieldsIndex(f, i));
        }
    }
}

/* Odd reflection about the surface sample, so u = 0 there to every order. */
static void MirrorCell(Fields *f, PetscInt a, PetscInt s, ptrdiff_t cell)
{
  const ptrdiff_t out = (s ? 1 : -1) * f->stride[a];
  for (PetscInt k = 1; k <= f->radius; k++) f->u[cell + k * out] = -f->u[cell - k * out];
}

static void ZeroCell(Fields *f, PetscInt a, PetscInt s, ptrdiff_t cell) { f->uprev[cell] = 0.0f; }

static PetscErrorCode MirrorGhosts(Fields *f)
{
  PetscFunctionBeginUser;
  ForEachSurfaceCell(f, MirrorCell);
  PetscFunctionReturn(0);
}

static PetscErrorCode ZeroSurface(Fields *f)
{
  PetscFunctionBeginUser;
  ForEachSurfaceCell(f, ZeroCell);
  PetscFunctionReturn(0);
}

static PetscErrorCode Inject(Fields *f, PetscInt n, const ptrdiff_t cell[], const float amp[])
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < n; k++) f->uprev[cell[k]] += f->vdt2[cell[k]] * amp[k];
  PetscFunctionReturn(0);
}

static PetscErrorCode Record(Fields *f, PetscInt n, const ptrdiff_t cell[], float out[])
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < n; k++) out[k] = f->u[cell[k]];
  PetscFunctionReturn(0);
}

static PetscErrorCode AllFinite(Fields *f, PetscBool *finite)
{
  int bad = 0;

  PetscFunctionBeginUser;
  _Pragma("omp parallel for reduction(|| : bad) schedule(static)") for (size_t i = 0; i < f->ncells; i++) bad = bad || !isfinite(f->u[i]);
  *finite = bad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The arrays a Fields owns, for alloc/free/zero. */
#define FIELDS_STATE(f, X) \
  do { \
    X((f)->u, (f)->ncells); \
    X((f)->uprev, (f)->ncells); \
    for (PetscInt a_ = 0; a_ < (f)->dim; a_++) \
      if ((f)->has_layer[a_]) { \
        X((f)->psi[a_], (f)->ncells); \
        X((f)->zeta[a_], (f)->ncells); \
      } \
  } while (0)
#define FIELDS_MODEL(f, X) \
  do { \
    X((f)->vdt2, (f)->ncells); \
    for (PetscInt a_ = 0; a_ < (f)->dim; a_++) { \
      X((f)->pml_a[a_], (size_t)(f)->padded[a_]); \
      X((f)->pml_b[a_], (size_t)(f)->padded[a_]); \
    } \
  } while (0)

/* Far ahead of a wavefront the stencil leaves values that decay into the
   subnormal range, where x86 arithmetic is ~100x slower: flush them to zero,
   in every thread (the control register is per thread). */
static void FlushSubnormals(void)
{
#if defined(__SSE__)
  _Pragma("omp parallel")
  {
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
  }
#endif
}

static PetscErrorCode Alloc(Fields *f)
{
  PetscFunctionBeginUser;
  FlushSubnormals();
#define ALLOC(p, n) PetscCall(PetscCalloc1((n), &(p)))
  FIELDS_STATE(f, ALLOC);
  FIELDS_MODEL(f, ALLOC);
#undef ALLOC
  PetscFunctionReturn(0);
}

static PetscErrorCode Free(Fields *f)
{
  PetscFunctionBeginUser;
#define FREE(p, n) PetscCall(PetscFree(p))
  FIELDS_STATE(f, FREE);
  FIELDS_MODEL(f, FREE);
#undef FREE
  PetscFunctionReturn(0);
}

static PetscErrorCode ZeroState(Fields *f)
{
  PetscFunctionBeginUser;
#define ZERO(p, n) PetscCall(PetscArrayzero((p), (n)))
  FIELDS_STATE(f, ZERO);
#undef ZERO
  PetscFunctionReturn(0);
}

static PetscErrorCode Upload(Fields *f, float *dst, const float *src, size_t n)
{
  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(dst, src, n));
  PetscFunctionReturn(0);
}

const KernelOps KernelOpsCPU = {
  .name           = "cpu",
  .alloc          = Alloc,
  .free           = Free,
  .upload         = Upload,
  .zero_state     = ZeroState,
  .step           = Step,
  .advance_memory = AdvanceMemory,
  .mirror_ghosts  = MirrorGhosts,
  .zero_surface   = ZeroSurface,
  .inject         = Inject,
  .record         = Record,
  .all_finite     = AllFinite,
};
