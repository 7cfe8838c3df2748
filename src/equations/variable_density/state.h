/* The variable-density acoustic equation's state on one rank, behind
   EquationState: pressure at the cell centres, each particle-velocity
   component half a cell further along its axis (stored at the index of the
   cell below it), over the grid's padded box; the model as K dt at the
   centres and dt / rho at the centres (averaged onto the faces by the
   kernels); the CPML memory of every derivative over the padded box. */
#pragma once
#include "equations/equation.h"

/* Its fields, in the order of the Equation table (variable_density.c). */
enum { VD_P, VD_VZ, VD_VX, VD_VY, VD_BDT, VD_NFIELD };

typedef struct {
  const Grid       *grid;
  const BackendOps *backend;
  PetscInt          dim, radius, padded[3];
  ptrdiff_t         stride[3];
  size_t            ncells;
  PetscBool         free_surface[3][2];
  PetscReal         dt;
  float             w[3][FWI_MAX_RADIUS + 1]; /* staggered first-derivative weights / d, per axis, w[a][1..radius] */
  float            *p, *v[3];
  float            *kdt, *bdt;               /* K dt = rho v^2 dt, and dt / rho, at the centres */
  float            *psi_p[3], *psi_v[3];     /* CPML memory of dp/dx_a (at the v_a nodes) and dv_a/dx_a (at the centres) */
  float            *pa[3], *pb[3];           /* CPML weights at the centres, over the padded index of axis a */
  float            *ha[3], *hb[3];           /* and half a cell above them (the v_a nodes) */
  float            *host_model[2];           /* K dt and dt / rho, on their way in */
  float            *scratch;                 /* two rows of the padded box per thread, for the CPU stages */
} VDState;

static inline VDState *VDStateOf(EquationState *s) { return (VDState *)s; }

extern const EquationScheme VariableDensityScheme;

/* The staggered first-derivative weights of order 2 radius for unit
   spacing: the derivative at x + 1/2 is sum_k c[k] (f(x + k) - f(x + 1 - k)),
   k = 1 .. radius (the closed form of the Taylor conditions). */
void VDStaggeredWeights(PetscInt radius, double c[]);

/* The CPU stages over a box of owned cells: velocities from the pressure
   gradient (stage 0), pressure from the velocities' divergence (stage 1). */
void VDStepVelocity(VDState *s, const Box *b);
void VDStepPressure(VDState *s, const Box *b);
