/* CPU backend: the adjoint of the CPML terms, slab by slab (see
   KernelOps.adjoint_layers_begin/end and docs/numerics.md).  The layers are
   a small share of the cells, so these loops favour plainness. */
#include "kernels_cpu.h"

/* Runs BODY for every owned cell of slab (a, s) within `reach` of its layer,
   with sl (the slab), p (padded index), c (offset in the field) and q (offset
   in the slab) in scope. */
#define FOR_SLAB_CELLS(f, a, s, reach, BODY) \
  do { \
    const LayerSlab *sl = &(f)->slab[a][s]; \
    PetscInt         lo_[3], hi_[3]; \
    FieldsSlabBox((f), a, s, reach, lo_, hi_); \
    _Pragma("omp parallel for collapse(2) schedule(static)") for (PetscInt i2 = lo_[2]; i2 < hi_[2]; i2++) \
    { \
      for (PetscInt i1 = lo_[1]; i1 < hi_[1]; i1++) \
        for (PetscInt i0 = lo_[0]; i0 < hi_[0]; i0++) { \
          const PetscInt  i[3] = {i0, i1, i2}; \
          PetscInt        p[3]; \
          for (PetscInt b = 0; b < 3; b++) p[b] = i[b] + (b < (f)->dim ? (f)->radius : 0); \
          const ptrdiff_t c = FieldsIndex((f), i), q = SlabIndex(sl, a, p); \
          (void)c; \
          BODY; \
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
  FOR_EACH_SLAB(f) FOR_SLAB_CELLS(f, a, s, 0, sl->zeta[q] += f->u[c]);
  PetscFunctionReturn(0);
}

PetscErrorCode CPUAdjointLayersEnd(Fields *f)
{
  const int r = (int)f->radius;

  PetscFunctionBeginUser;
  /* every read of the adjoint psi before it steps back */
  FOR_EACH_SLAB(f)
  {
    const ptrdiff_t ss = f->slab[a][s].stride[a];
    FOR_SLAB_CELLS(f, a, s, f->radius, f->uprev[c] += f->vdt2[c] * fwi_adj_cpml_reach(sl->zeta + q, sl->psi + q, ss, f->pml_a[a] + p[a], f->c2[a], f->c1[a], r));
  }
  /* psi reads E at neighbours: E becomes zeta only once psi is done */
  FOR_EACH_SLAB(f)
  {
    const ptrdiff_t ss = f->slab[a][s].stride[a], us = f->stride[a];
    FOR_SLAB_CELLS(f, a, s, 0, sl->psi[q] = fwi_adj_cpml_psi(sl->psi[q], f->u + c, us, sl->zeta + q, ss, f->pml_a[a] + p[a], f->pml_b[a] + p[a], f->c1[a], r));
  }
  FOR_EACH_SLAB(f) FOR_SLAB_CELLS(f, a, s, 0, sl->zeta[q] *= f->pml_b[a][p[a]]);
  PetscFunctionReturn(0);
}
