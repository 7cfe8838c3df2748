/* The variable-density equation's boundary gradient method (state.h):
   the CPML cannot be run backwards (its memories damp), but the core can.
   A reverse step n runs, in the core and beside the adjoint's stages,

     stage 0:  p^n       = p^(n+1) - (step n's injection) + K dt sum_a D-_a v_a^(n+1/2)
     stage 1:  v^(n-1/2) = v^(n+1/2) + B_a D+_a p^n

   which is the forward step read backwards.  What the core's stencils
   read beyond it, the forward run saved: along each axis with a layer on
   a side, the R - 1 centres of p and the R nodes of v_a beyond the core's
   face there (over the core's extent on the other axes), put back after
   each stage.  The images take the terms as they are formed, in the core
   alone: the layer cells take no gradient, as with the constant-density
   equation's boundary method (docs/numerics.md). */
#include "equations/variable_density/kernels.h"
#include "equations/store.h"
#include "data/util.h"

/* Along axis a (L and H the owned indices where the core begins and
   ends): p is run back at the centres [L, H), v_a at the nodes [L, H - 1)
   (node i at i + 1/2: node H - 1 lies in the layer beyond, or past a free
   surface, where it mirrors); their derivatives along a read the bands
   of p and v_a beyond the core (StaggeredBandAcross). */
void VDReconstructionGeometry(const Grid *g, VDReconstruction *rec)
{
  GridBlock b;
  PetscInt  core[3][2];

  GridBlockOf(g, &b);
  GridBlockCore(&b, core);
  for (PetscInt a = 0; a < 3; a++) {
    rec->pcore.lo[a] = core[a][0];
    rec->pcore.hi[a] = core[a][1];
  }
  rec->pcore.layer_axes = 0;
  rec->nband            = 0;
  rec->floats           = 0;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscInt L = b.layer_edge[a][0], H = b.layer_edge[a][1], n = g->size[a];
    rec->vcore[a]       = rec->pcore;
    rec->vcore[a].hi[a] = PetscMax(rec->vcore[a].lo[a], PetscMin(n, H - 1));
    for (PetscInt side = 0; side < 2; side++) {
      if (!b.layer[a][side]) continue; /* a free surface: the mirrors stand beyond it */
      for (PetscInt field = 0; field < 2; field++) /* p, at the centres; v_a, half a cell up along a */
        if (StaggeredBandAcross(g, &rec->pcore, field ? 1 + a : 0, a, side, field, L, H, &rec->band[rec->nband])) rec->floats += BoxCells(&rec->band[rec->nband++].box);
    }
  }
}

PetscErrorCode VDReconstructionDestroy(VDState *s)
{
  PetscFunctionBeginUser;
  PetscCall(s->backend->mem_free((void **)&s->rec.p));
  for (PetscInt a = 0; a < s->dim; a++) PetscCall(s->backend->mem_free((void **)&s->rec.v[a]));
  PetscCall(FieldSupportFree(&s->rec.support));
  PetscFunctionReturn(0);
}

PetscErrorCode VDReconstructionSetUp(VDState *s, GradientMethod m)
{
  const double bytes = s->ncells * sizeof(float);

  PetscFunctionBeginUser;
  PetscCall(VDReconstructionDestroy(s));
  if (m != GRADIENT_BOUNDARY) PetscFunctionReturn(0);
  VDReconstructionGeometry(s->grid, &s->rec);
  MemoryCall(s->backend->mem_alloc((void **)&s->rec.p, bytes), "the reconstructed forward fields", (1.0 + s->dim) * bytes);
  for (PetscInt a = 0; a < s->dim; a++) MemoryCall(s->backend->mem_alloc((void **)&s->rec.v[a], bytes), "the reconstructed forward fields", (1.0 + s->dim) * bytes);
  PetscFunctionReturn(0);
}

PetscErrorCode VDReconstructionSave(VDState *s, WavefieldStore store, PetscInt n)
{
  float *const f[4] = {s->p, s->v[0], s->v[1], s->v[2]};
  float       *buf;

  PetscFunctionBeginUser;
  PetscCall(WavefieldStoreWriteBegin(store, n, &buf));
  PetscCall(s->ops->band_copy(s, f, PETSC_TRUE, PETSC_FALSE, buf));
  PetscCall(WavefieldStoreWriteEnd(store, n));
  PetscFunctionReturn(0);
}

PetscErrorCode VDReconstructionKeepBegin(VDState *s, StaggeredPair *pr, WavefieldStore store, PetscInt n)
{
  float *const f[4] = {s->p, s->v[0], s->v[1], s->v[2]};

  return StaggeredPairKeepBegin(pr, store, n, s->grid, s->rec.nband, s->rec.band, 4, f);
}

/* The forward run's last fields change hands instead of being copied:
   p^N and v^(N-1/2) become those run backwards, the others the adjoint's,
   zeroed next. */
void VDReconstructionStart(VDState *s)
{
  float *t = s->rec.p;

  s->rec.p = s->p;
  s->p     = t;
  for (PetscInt a = 0; a < s->dim; a++) {
    t           = s->rec.v[a];
    s->rec.v[a] = s->v[a];
    s->v[a]     = t;
  }
}

PetscErrorCode VDReconstructionRead(VDState *s, WavefieldStore store, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(WavefieldStoreReadBegin(store, n, &s->rec.saved));
  PetscFunctionReturn(0);
}

PetscErrorCode VDReconstructionDone(VDState *s, WavefieldStore store, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(WavefieldStoreReadEnd(store, n));
  s->rec.saved = NULL;
  PetscFunctionReturn(0);
}

/* As the forward run added it (state.c), with the other sign. */
PetscErrorCode VDReconstructionUnsource(VDState *s, const EquationStepPoints *points) { return s->ops->inject(s, s->rec.p, PETSC_TRUE, points->src, points->wav); }

PetscErrorCode VDReconstructionRestore(VDState *s, PetscBool pressure)
{
  float *const f[4] = {s->rec.p, s->rec.v[0], s->rec.v[1], s->rec.v[2]};

  return s->ops->band_copy(s, f, PETSC_FALSE, pressure, s->rec.saved);
}

/* A step reaches 2 radii: v from p, then p from v (their CPML memories
   lie at the cells they update). */
void VDSupportGrow(VDState *s, PetscInt n)
{
  const float *field[4] = {s->p, s->v[0], s->v[1], s->v[2]};

  FieldSupportGrow(&s->rec.support, n + 1, 2 * s->radius, 1 + s->dim, field);
}
