/* CPU backend: the adjoint of the CPML terms, slab by slab (see
   KernelOps.adjoint_layers_begin/end and docs/numerics.md).  Rows along
   axis 0 are contiguous in the field and in the slab, so each row is one
   vectorised loop, and the stencil radius is a constant of each instance. */
#include "kernels_cpu.h"

/* Runs BODY for every owned cell of slab (a, s) within `reach` of its
   layer, row by row along axis 0: sl (the slab), c (offset in the field), q
   (offset in the slab) and pk (the cell's padded index along axis a) are in
   scope. */
#define FOR_SLAB_CELLS(f, a, s, reach, BODY) \
  do { \
    const LayerSlab *sl = &(f)->slab[a][s]; \
    PetscInt         lo_[3], hi_[3]; \
    FieldsSlabBox((f), a, s, reach, lo_, hi_); \
    _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt i2 = lo_[2]; i2 < hi_[2]; i2++) \
    { \
      for (PetscInt i1 = lo_[1]; i1 < hi_[1]; i1++) { \
        const PetscInt  i[3] = {lo_[0], i1, i2}; \
        PetscInt        p[3]; \
        for (PetscInt b = 0; b < 3; b++) p[b] = i[b] + (b < (f)->dim ? (f)->radius : 0); \
        const ptrdiff_t c0 = FieldsIndex((f), i), q0 = SlabIndex(sl, a, p); \
        _Pragma("omp simd") for (PetscInt j = 0; j < hi_[0] - lo_[0]; j++) \
        { \
          const ptrdiff_t c = c0 + j, q = q0 + j; \
          const PetscInt  pk = p[a] + (a ? 0 : j); \
          (void)c; \
          BODY; \
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
  FOR_EACH_SLAB(f) FOR_SLAB_CELLS(f, a, s, 0, (void)pk; sl->zeta[q] += f->u[c]);
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
      FOR_SLAB_CELLS(f, a, s, f->radius, \
                     f->uprev[c] += f->vdt2[c] * fwi_adj_cpml_reach(sl->zeta + q, sl->psi + q, ss, f->pml_a[a] + pk, f->c2[a], f->c1[a], R)); \
    } \
    /* psi reads E at neighbours: E becomes zeta only once psi is done */ \
    FOR_EACH_SLAB(f) \
    { \
      const ptrdiff_t ss = f->slab[a][s].stride[a], us = f->stride[a]; \
      FOR_SLAB_CELLS(f, a, s, 0, \
                     sl->psi[q] = fwi_adj_cpml_psi(sl->psi[q], f->u + c, us, sl->zeta + q, ss, f->pml_a[a] + pk, f->pml_b[a] + pk, f->c1[a], R)); \
    } \
    FOR_EACH_SLAB(f) FOR_SLAB_CELLS(f, a, s, 0, sl->zeta[q] *= f->pml_b[a][pk]); \
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
