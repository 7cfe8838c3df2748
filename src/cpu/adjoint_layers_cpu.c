/* CPU backend: the adjoint of the CPML terms, slab by slab (see
   KernelOps.adjoint_layers_begin/end and docs/numerics.md).  Rows along
   axis 0 are contiguous in the field and in the slab, so each row is one
   vectorised loop, and the stencil radius is a constant of each instance. */
#include "kernels_cpu.h"

/* Runs BODY for every owned cell of slab (a, s) within `reach` of its
   layer, row by row along axis 0, j along the row.  In scope: the row's
   cells in the field (u_, up_, v_: u, uprev, vdt2) and in the slab (E_,
   psi_: zeta, psi), the axis profiles at the row's first cell (pa_, pb_),
   advancing along the row by PS (1 for axis 0, 0 for the others: a literal,
   so that each case is its own vectorised loop), and the weights c1_, c2_. */
#define FOR_SLAB_CELLS(f, a, s, reach, BODY) \
  do { \
    const LayerSlab *sl = &(f)->slab[a][s]; \
    const float     *c1_ = (f)->c1[a], *c2_ = (f)->c2[a]; \
    PetscInt         lo_[3], hi_[3]; \
    FieldsSlabBox((f), a, s, reach, lo_, hi_); \
    _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt i2 = lo_[2]; i2 < hi_[2]; i2++) \
    { \
      for (PetscInt i1 = lo_[1]; i1 < hi_[1]; i1++) { \
        const PetscInt  i[3] = {lo_[0], i1, i2}, n_ = hi_[0] - lo_[0]; \
        PetscInt        p[3]; \
        for (PetscInt b = 0; b < 3; b++) p[b] = i[b] + (b < (f)->dim ? (f)->radius : 0); \
        const ptrdiff_t c0 = FieldsIndex((f), i), q0 = SlabIndex(sl, a, p); \
        const float *restrict u_ = (f)->u + c0, *restrict v_ = (f)->vdt2 + c0; \
        float *restrict       up_ = (f)->uprev + c0, *restrict E_ = sl->zeta + q0, *restrict psi_ = sl->psi + q0; \
        const float          *pa_ = (f)->pml_a[a] + p[a], *pb_ = (f)->pml_b[a] + p[a]; \
        (void)u_, (void)v_, (void)up_, (void)psi_, (void)pa_, (void)pb_, (void)c1_, (void)c2_; \
        if (a) { \
          enum { PS = 0 }; \
          _Pragma("omp simd") for (PetscInt j = 0; j < n_; j++) { BODY; } \
        } else { \
          enum { PS = 1 }; \
          _Pragma("omp simd") for (PetscInt j = 0; j < n_; j++) { BODY; } \
        } \
      } \
    } \
  } while (0)

/* Every slab, axis by axis, low side first. */
#define FOR_EACH_SLAB(f) \
  for (PetscInt a = 0; a < (f)->dim; a++) \
    for (PetscInt s = 0; s < 2; s++) \
      if ((f)->slab[a][s].ncells)

PetscErrorCode CPUAdjointLayersBegin(Fields *f)
{
  PetscFunctionBeginUser;
  FOR_EACH_SLAB(f) FOR_SLAB_CELLS(f, a, s, 0, E_[j] += u_[j]);
  PetscFunctionReturn(0);
}

/* The passes of CPUAdjointLayersEnd, one function per radius R so that the
   stencil loops unroll inside OpenMP's outlined loop bodies. */
#define DEFINE_LAYERS_END(R, DIM) \
  static void LayersEnd_r##R(Fields *f) \
  { \
    /* every read of the adjoint psi before it steps back */ \
    FOR_EACH_SLAB(f) \
    { \
      const ptrdiff_t ss = f->slab[a][s].stride[a]; \
      FOR_SLAB_CELLS(f, a, s, f->radius, up_[j] += v_[j] * fwi_adj_cpml_reach(E_ + j, psi_ + j, ss, pa_ + PS * j, c2_, c1_, R)); \
    } \
    /* psi reads E at neighbours: E becomes zeta only once psi is done */ \
    FOR_EACH_SLAB(f) \
    { \
      const ptrdiff_t ss = f->slab[a][s].stride[a], us = f->stride[a]; \
      FOR_SLAB_CELLS(f, a, s, 0, psi_[j] = fwi_adj_cpml_psi(psi_[j], u_ + j, us, E_ + j, ss, pa_ + PS * j, pb_ + PS * j, c1_, R)); \
    } \
    FOR_EACH_SLAB(f) FOR_SLAB_CELLS(f, a, s, 0, E_[j] *= pb_[PS * j]); \
  }
FWI_KERNEL_RADII(DEFINE_LAYERS_END, 0)

PetscErrorCode CPUAdjointLayersEnd(Fields *f)
{
  PetscFunctionBeginUser;
#define LAYERS_CASE(R, DIM) \
  case R: LayersEnd_r##R(f); break;
  switch (f->radius) {
    FWI_KERNEL_RADII(LAYERS_CASE, 0)
  default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No CPU kernel for radius %" PetscInt_FMT, f->radius);
  }
#undef LAYERS_CASE
  PetscFunctionReturn(0);
}
