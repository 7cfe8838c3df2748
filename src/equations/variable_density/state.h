/* The variable-density acoustic equation's state on one rank, behind
   EquationState: pressure at the cell centres, each particle-velocity
   component half a cell further along its axis (stored at the index of the
   cell below it), over the grid's padded box; the model as K dt at the
   centres and dt / rho at the centres (averaged onto the faces by the
   kernels); the CPML memory of each derivative in the layers of its axis. */
#pragma once
#include "equations/equation.h"
#include "equations/staggered.h"
#include "equations/staggered_pair.h"
#include "equations/support.h"

/* Its fields, in the order of the Equation table (variable_density.c):
   the forward's, then the adjoint's operands of the derivatives along each
   axis and its images on the velocity nodes. */
enum { VD_P, VD_VZ, VD_VX, VD_VY, VD_BDT, VD_DZ, VD_DX, VD_DY, VD_IZ, VD_IX, VD_IY, VD_FP, VD_FVZ, VD_FVX, VD_FVY, VD_NFIELD };

/* The boundary method (reconstruct.c): the forward run saves, each step,
   the band of p and v that the core's stencils read beyond the core; the
   adjoint runs the forward fields backwards in the core beside the
   adjoint fields, the band put back each step.  Owned coordinates: p is
   run back at the centres of pcore, v_a at the nodes of vcore[a]. */
typedef struct {
  Box      pcore, vcore[3];
  PetscInt nband;
  StaggeredBand band[4 * 3]; /* field 0 the pressure, 1 + a the velocity along axis a */
  size_t   floats;      /* the band's floats, a step */
  float   *p, *v[3];    /* the forward fields, run backwards */
  float   *saved;       /* the store's slot of the reverse step being run */
  FieldSupport support; /* per level, the cells p and v may be nonzero on (host memory; support.h) */
  Box      wide[2], keep[2]; /* the reverse step's FieldSupportStep (the second step of a pair in [1]) */
} VDReconstruction;

/* Two reverse steps, n and n - 1, in one sweep (the boundary method, 2D, a
   rank alone; adjoint.c): what it does between them, by layer, once step
   n's pressure adjoint has passed the layer: step n's pressure residuals
   into u, its velocities' band put back, then step n - 1's start (u zeroed
   at the surface and read at its source's cells into at_src, its injection
   taken out of the pressure run back, whose band goes back, the normal
   velocity mirrored); step n's velocity residuals go into w later, just
   before step n - 1's velocities' adjoint on the layer (its pressure
   adjoint reads w R layers on). */
typedef struct {
  StaggeredReverse r;      /* step n's residuals, into u and w; step n - 1's source, out of rec.p */
  float           *at_src; /* step n - 1's */
} VDReversePair;

typedef struct VDState {
  const Grid              *grid;
  const struct VDKernels  *ops;     /* the backend's operations on this state (kernels.h) */
  const BackendOps        *backend;
  void                    *lanes;   /* the backend's lanes (NULL on the CPU) */
  PetscInt          dim, radius, n[3], padded[3]; /* n: the owned cells along each axis */
  ptrdiff_t         stride[3];
  size_t            ncells;
  PetscBool         free_surface[3][2];
  PetscReal         dt;
  float             w[3][FWI_MAX_RADIUS + 1]; /* staggered first-derivative weights / d, per axis, w[a][1..radius] */
  float            *p, *v[3];
  float            *kdt, *bdt;               /* K dt = rho v^2 dt, and dt / rho, at the centres */
  float            *psi_p[3], *psi_v[3];     /* CPML memory of dp/dx_a (at the v_a nodes) and dv_a/dx_a (at the centres), over slab[a] */
  StaggeredSlab     slab[3];
  float            *psi_none;                /* the CPU's rows of memory for derivatives outside their layers (StaggeredNoMemory) */
  float            *pa[3], *pb[3];           /* CPML weights at the centres, over the padded index of axis a (backend memory) */
  float            *ha[3], *hb[3];           /* and half a cell above them (the v_a nodes) */
  PetscInt          plain[3][2][2];          /* the padded range along each axis outside its layers: centres, nodes */
  PetscInt          direct[2][3][2];         /* the CPU adjoint: per stage's operands (0: centres, 1: nodes) and axis a, the padded range along a whose
                                                derivatives read the field itself, d's equal there (their stencils within plain[a], off the ghosts) */
  float            *host_model[2];           /* K dt and dt / rho on their way to a device (EquationModelTarget) */
  /* The gradient (full storage, adjoint.c).  keep: the store's slot of the
     step being run, each of the step's terms over the padded box: the
     pressure stage's divergence, then each axis's pressure gradient (CPML
     included: what dt K and the face's dt / rho multiply).  The adjoint
     run holds dt K times the adjoint pressure in p, each face's dt / rho
     times the adjoint velocity in v, the adjoint CPML memories in psi_v
     (pressure stage) and psi_p (velocity stage); d[a] is the operand of
     its derivative along a, whose ghosts travel; image_k and image_b[a]
     sum its products with the stored terms (at the centres, on the nodes
     of axis a), image the image handed out.  density_image: whether the
     density's gradient is wanted (EquationStateSettings.nimage): only then
     are image_b there and formed and, with full storage, the pressure
     gradients they read kept. */
  float            *keep;
  float            *d[3], *image_k, *image_b[3], *image;
  PetscBool         density_image;
  GradientMethod    method;
  VDReconstruction  rec;
  StaggeredPair    *pair; /* NULL until two steps are swept at once in a run */
  VDReversePair     rpair;
} VDState;

static inline VDState *VDStateOf(EquationState *s) { return (VDState *)s; }

extern const EquationScheme VariableDensityScheme;

/* The stages (kernels.h: velocity, pressure, adjoint_operands,
   reconstruct_*) over a box of owned cells: velocities from the pressure
   gradient (stage 0), pressure from the velocities' divergence (stage 1);
   in the adjoint, the velocities from the derivatives of d along each
   axis, then the pressure from them.  The adjoint operands are formed,
   over every owned cell, from the adjoint fields, each adjoint stage's d,
   the CPML memories stepped back and the images summed (stage 0: at the
   centres, stage 1: on the nodes).  The boundary method's steps over a
   box's cells in its core: stage 0 runs p back, rec.p += K dt sum_a D-_a
   rec.v_a, imaging K with the adjoint pressure; stage 1 runs v back,
   rec.v_a += B_a D+_a rec.p, imaging each face's buoyancy with the adjoint
   velocity. */

/* The adjoint's parts of the scheme's hooks (adjoint.c), and the arrays
   over the padded box it allocates (the faces' images where the density's
   gradient is wanted). */
PetscInt       VDAdjointArrays(PetscInt dim, PetscBool density);
PetscErrorCode VDAdjointRunBegin(VDState *s, WavefieldStore store);
PetscErrorCode VDAdjointStepBegin(VDState *s, WavefieldStore store, PetscInt n);
PetscErrorCode VDAdjointStageBegin(VDState *s, PetscInt stage, const EquationStepPoints *points);
PetscErrorCode VDAdjointSweepBegin(VDState *s, const EquationStepPoints *points);
PetscErrorCode VDAdjointStepEnd(VDState *s, WavefieldStore store, PetscInt n, const EquationStepPoints *points);
PetscErrorCode VDAdjointReversePair(VDState *s, WavefieldStore store, PetscInt n, const EquationStepPoints points[2], PetscBool *done);
PetscErrorCode VDAdjointReversePairFree(VDState *s);
PetscErrorCode VDAdjointImage(VDState *s, PetscInt k, const float **padded);
PetscErrorCode VDAdjointFree(VDState *s);

/* The boundary method (reconstruct.c).  Geometry: its cores and band on
   g's block.  SetUp allocates the fields run backwards (Destroy frees
   them); Save writes the band of p^n and v^(n-1/2) to the store's slot
   n; Start takes the forward run's last fields as those to run back (the
   adjoint's own are zeroed after); the rest are reverse step n's parts:
   Read/Done open and close slot n, Unsource takes step n's injection out
   of p^(n+1), Restore puts the band of the pressure or of the velocities
   back. */
void           VDReconstructionGeometry(const Grid *g, VDReconstruction *rec);
PetscErrorCode VDReconstructionSetUp(VDState *s, GradientMethod m);
PetscErrorCode VDReconstructionDestroy(VDState *s);
PetscErrorCode VDReconstructionSave(VDState *s, WavefieldStore store, PetscInt n);
/* VDReconstructionSave's, by layer of a sweep of two steps: pr keeps the
   start of step n there (StaggeredPairKeepBegin). */
PetscErrorCode VDReconstructionKeepBegin(VDState *s, StaggeredPair *pr, WavefieldStore store, PetscInt n);
void           VDReconstructionStart(VDState *s);
PetscErrorCode VDReconstructionRead(VDState *s, WavefieldStore store, PetscInt n);
PetscErrorCode VDReconstructionDone(VDState *s, WavefieldStore store, PetscInt n);
PetscErrorCode VDReconstructionUnsource(VDState *s, const EquationStepPoints *points);
PetscErrorCode VDReconstructionRestore(VDState *s, PetscBool pressure);
/* The support boxes (support.h) after forward step n. */
void           VDSupportGrow(VDState *s, PetscInt n);

/* K dt at cell (state: a VDState): what an injection into the pressure
   (a source's, or the pressure's residuals in the adjoint) adds there per
   unit of its row's sum, as Inject and VDResidualRow form it; for the
   sweeps' injections by layer (StaggeredInjection). */
static inline float VDKdtAt(const void *state, ptrdiff_t cell) { return ((const struct VDState *)state)->kdt[cell]; }

/* dt / rho on the face between cell c and cell c + st (the node of c along
   the axis of stride st): the mean of the two cells' (docs/numerics.md). */
FWI_HD static inline float VDFaceBuoyancy(const float *bdt, ptrdiff_t c, ptrdiff_t st) { return StaggeredFaceMean(bdt, c, st); }

/* The residuals at row i of the reach map into the adjoint run's
   variables (adjoint.c), as the receivers took component comp out: the
   pressure's into u = K dt p~ (u += K dt R^T r), velocity v_a's into w_a =
   B_a v~_a (w_a += B_a R^T r, B_a the face's dt / rho). */
FWI_HD static inline void VDResidualRow(const VDState *s, PetscInt comp, const PointMap *m, PetscInt i, const float amp[])
{
  const ptrdiff_t c = m->cell[i];
  const float     r = (float)PointMapRowSum(m, i, amp, NULL);

  if (comp) s->v[comp - 1][c] = s->v[comp - 1][c] + VDFaceBuoyancy(s->bdt, c, s->stride[comp - 1]) * r;
  else s->p[c] = s->p[c] + s->kdt[c] * r;
}

/* The adjoint run's image of parameter k at padded cell c (adjoint.c):
   0, dJ/dK at the centre; 1, dJ/db (b = 1 / rho), half of each face's
   image to each of its cells. */
FWI_HD static inline float VDImageAt(const VDState *s, PetscInt k, ptrdiff_t c)
{
  double v = 0;

  if (k == 0) v = -(double)s->image_k[c] * s->dt / s->kdt[c];
  else
    for (PetscInt a = 0; a < s->dim; a++) {
      const ptrdiff_t st = s->stride[a];
      v -= 0.5 * s->dt * ((double)s->image_b[a][c] / VDFaceBuoyancy(s->bdt, c, st) + (double)s->image_b[a][c - st] / VDFaceBuoyancy(s->bdt, c - st, st));
    }
  return (float)v;
}

/* dJ/dK's share of the source's own term at padded cell c: the adjoint
   pressure there times dt / K dt. */
FWI_HD static inline float VDAtSource(const VDState *s, ptrdiff_t c) { return (float)((double)s->p[c] * s->dt / s->kdt[c]); }
