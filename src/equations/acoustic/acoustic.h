/* The constant-density acoustic equation, second order in time: its
   Equation table (EquationAcoustic, equations/equation.h) and what its
   gradient methods keep, for its own time loop and tests. */
#pragma once
#include "equations/equation.h"
#include "equations/acoustic/kernels.h"

/* The store gradient method m needs on fields laid out as f: n floats per
   step for nsteps steps, and a live map (WavefieldLive) where the backend
   keeps one (full storage: the term v^2 dt^2 multiplies, every
   cell; boundary: the layer band the core's stencil reads, FieldsBandBoxes,
   for every level but the last two). */
void GradientStoreShape(const KernelOps *ops, const Fields *f, GradientMethod m, PetscInt steps, size_t *n, PetscInt *nsteps, WavefieldLive *live);
/* Backend bytes the method needs besides its store (the boundary method's
   two fields, and the scratch of two reverse steps at once). */
double GradientFieldBytes(const KernelOps *ops, const Fields *f, GradientMethod m);
