/* Pieces of the CPU backend shared between its files. */
#pragma once
#include "kernels.h"

PetscErrorCode CPUAdjointLayersBegin(Fields *f);
PetscErrorCode CPUAdjointLayersEnd(Fields *f);

/* The adjoint CPML terms of the z slabs for one row (i1, i2) of owned
   cells: uprev's share, then psi and E one step back.  A row's z-slab cells
   read nothing of other rows' slab cells, so when no rank lies across a z
   face (every box then holds whole rows) the adjoint step does each row's
   right after its leapfrog, while the row is in cache, and
   CPUAdjointLayersEnd leaves the z slabs out. */
#define CPU_DECLARE_ROW_Z(R, DIM) void CPUAdjointLayersRowZ_r##R(const Fields *f, PetscInt i1, PetscInt i2);
FWI_KERNEL_RADII(CPU_DECLARE_ROW_Z, 0)
#undef CPU_DECLARE_ROW_Z

static inline PetscBool CPUAdjointZInStep(const Fields *f) { return !f->neighbour[0][0] && !f->neighbour[0][1] ? PETSC_TRUE : PETSC_FALSE; }
