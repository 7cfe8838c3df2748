/* The elastic equation's boundary gradient method (state.h): the CPML
   cannot be run backwards (its memories damp), but the core can.  Reverse
   step n runs, in the core and beside the adjoint's stages (adjoint.c),

     before stage 0:  take step n's injection out; the velocities beyond
                      the free surfaces as the forward stage 1 had them
     stage 0:         s^n = s^(n+1) - (the stress update from v^(n+1/2)),
                      likewise t^n
     before stage 1:  the band of s^n and t^n put back; the free surfaces'
                      zero normal stresses and mirrors, as forward
     stage 1:         v^(n-1/2) = v^(n+1/2) - (dt / rho) div sigma^n
     at the end:      the band of v^(n-1/2) put back

   which is the forward step read backwards.  What the core's stencils
   read beyond it, the forward run saved: along each axis with a layer on
   a side, the cells beyond the core there that a derivative along that
   axis reads (ReadAcross, StaggeredBandAcross), over the core's extent
   on the other axes.
   The images take the terms as they are formed (ELBackStressCPU,
   ELBackVelocityCPU), in the core alone: the layer cells take no
   gradient, as with the other equations' boundary method
   (docs/numerics.md). */
#include "equations/elastic/kernels.h"
#include "equations/store.h"
#include "data/util.h"

/* Whether forward field f (EL_VZ .. EL_SXY) exists in dim, and the axes
   along which it lies half a cell up (a bit each). */
static PetscBool FieldExists(PetscInt f, PetscInt dim) { return f < EL_SZZ ? f < dim : f < EL_SZX ? f - EL_SZZ < dim : f - EL_SZX < ELPairs(dim); }

/* The forward fields a band restore puts back, a bit each: the
   velocities, or the normal and shear stresses. */
#define EL_VELOCITIES (7u << EL_VZ)
#define EL_STRESSES   (63u << EL_SZZ)

static unsigned NodeAxes(PetscInt f)
{
  if (f < EL_SZZ) return 1u << (f - EL_VZ);
  if (f < EL_SZX) return 0;
  return f == EL_SZX ? 3u : f == EL_SZY ? 5u : 6u;
}

/* Whether a derivative along axis a reads forward field f: D+_a s_a and
   D-_a t_ab (the velocities' stage), D-_a v_a and D+_a v_b (the
   stresses'); s_b and t_bc of the other axes b, c are read along those
   alone (in 3D 6 of the 9 fields, in 2D 4 of the 5). */
static PetscBool ReadAcross(PetscInt f, PetscInt a) { return f < EL_SZZ || f == EL_SZZ + a || (f >= EL_SZX && NodeAxes(f) >> a & 1) ? PETSC_TRUE : PETSC_FALSE; }

void ELReconstructionGeometry(const Grid *g, ELReconstruction *rec)
{
  GridBlock b;
  PetscInt  core[3][2];
  Box       centres;

  GridBlockOf(g, &b);
  GridBlockCore(&b, core);
  for (PetscInt a = 0; a < 3; a++) {
    centres.lo[a] = core[a][0];
    centres.hi[a] = core[a][1];
  }
  centres.layer_axes = 0;
  rec->nband         = 0;
  rec->floats        = 0;
  for (PetscInt f = 0; f < EL_FORWARD_FIELDS; f++) {
    rec->core[f] = centres;
    for (PetscInt a = 0; a < g->dim; a++)
      if (NodeAxes(f) >> a & 1) rec->core[f].hi[a] = PetscMax(centres.lo[a], PetscMin(g->size[a], b.layer_edge[a][1] - 1));
  }
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscInt L = b.layer_edge[a][0], H = b.layer_edge[a][1];
    for (PetscInt side = 0; side < 2; side++) {
      if (!b.layer[a][side]) continue; /* a free surface: the mirrors stand beyond it */
      for (PetscInt f = 0; f < EL_FORWARD_FIELDS; f++)
        if (FieldExists(f, g->dim) && ReadAcross(f, a) && StaggeredBandAcross(g, &centres, f, a, side, NodeAxes(f) >> a & 1, L, H, &rec->band[rec->nband]))
          rec->floats += BoxCells(&rec->band[rec->nband++].box);
    }
  }
}

PetscErrorCode ELReconstructionDestroy(ELState *s)
{
  PetscFunctionBeginUser;
  if (!s->rec) PetscFunctionReturn(0);
  for (PetscInt f = 0; f < EL_FORWARD_FIELDS; f++) PetscCall(s->backend->mem_free((void **)&s->rec->f[f]));
  PetscCall(FieldSupportFree(&s->rec->support));
  PetscCall(PetscFree(s->rec));
  PetscFunctionReturn(0);
}

PetscErrorCode ELReconstructionSetUp(ELState *s, GradientMethod m)
{
  const double   bytes = s->ncells * sizeof(float);
  const PetscInt nf    = 2 * s->dim + ELPairs(s->dim);

  PetscFunctionBeginUser;
  PetscCall(ELReconstructionDestroy(s));
  if (m != GRADIENT_BOUNDARY) PetscFunctionReturn(0);
  PetscCall(PetscNew(&s->rec));
  ELReconstructionGeometry(s->grid, s->rec);
  for (PetscInt f = 0; f < EL_FORWARD_FIELDS; f++)
    if (FieldExists(f, s->dim)) MemoryCall(s->backend->mem_alloc((void **)&s->rec->f[f], bytes), "the reconstructed forward fields", nf * bytes);
  PetscFunctionReturn(0);
}

/* The state's forward fields by their number (EL_VZ .. EL_SXY; NULL where
   the dimension lacks one). */
static void ForwardFields(ELState *s, float **f[EL_FORWARD_FIELDS])
{
  for (PetscInt a = 0; a < 3; a++) {
    f[EL_VZ + a]  = &s->v[a];
    f[EL_SZZ + a] = &s->s[a];
    f[EL_SZX + a] = &s->t[a];
  }
}

/* The state's forward fields themselves. */
static void ForwardArrays(ELState *s, float *f[EL_FORWARD_FIELDS])
{
  float **field[EL_FORWARD_FIELDS];

  ForwardFields(s, field);
  for (PetscInt k = 0; k < EL_FORWARD_FIELDS; k++) f[k] = *field[k];
}

PetscErrorCode ELReconstructionSave(ELState *s, WavefieldStore store, PetscInt n)
{
  float *f[EL_FORWARD_FIELDS], *buf;

  PetscFunctionBeginUser;
  ForwardArrays(s, f);
  PetscCall(WavefieldStoreWriteBegin(store, n, &buf));
  PetscCall(s->ops->band_copy(s, f, PETSC_TRUE, ~0u, buf));
  PetscCall(WavefieldStoreWriteEnd(store, n));
  PetscFunctionReturn(0);
}

PetscErrorCode ELReconstructionKeepBegin(ELState *s, StaggeredPair *pr, WavefieldStore store, PetscInt n)
{
  float *f[EL_FORWARD_FIELDS];

  PetscFunctionBeginUser;
  ForwardArrays(s, f);
  PetscCall(StaggeredPairKeepBegin(pr, store, n, s->grid, s->rec->nband, s->rec->band, EL_FORWARD_FIELDS, f));
  PetscFunctionReturn(0);
}

/* The state's forward fields and those run backwards change places. */
static void Swap(ELState *s)
{
  float **field[EL_FORWARD_FIELDS];

  ForwardFields(s, field);
  for (PetscInt k = 0; k < EL_FORWARD_FIELDS; k++) {
    float *t     = s->rec->f[k];
    s->rec->f[k] = *field[k];
    *field[k]    = t;
  }
}

/* The forward run's last fields change hands instead of being copied:
   v^(N-1/2), s^N and t^N become those run backwards, the others the
   adjoint's, zeroed next. */
void ELReconstructionStart(ELState *s) { Swap(s); }

PetscErrorCode ELReconstructionRead(ELState *s, WavefieldStore store, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(WavefieldStoreReadBegin(store, n, &s->rec->saved));
  PetscFunctionReturn(0);
}

/* The band of the velocities of v^(n-1/2) back, for the next reverse
   step's stage 0, and slot n closed. */
PetscErrorCode ELReconstructionDone(ELState *s, WavefieldStore store, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(s->ops->band_copy(s, s->rec->f, PETSC_FALSE, EL_VELOCITIES, s->rec->saved));
  PetscCall(WavefieldStoreReadEnd(store, n));
  s->rec->saved = NULL;
  PetscFunctionReturn(0);
}

/* The forward passes of state.c run on the fields run backwards, swapped
   into the state's place while they run.  Before reverse stage 0: step
   n's injection out of s^(n+1) (or v^(n+1/2)), then the velocities beyond
   the free surfaces as the forward stage 1 read them. */
PetscErrorCode ELReconstructionUndoStepEnd(ELState *s, const EquationStepPoints *points)
{
  PetscFunctionBeginUser;
  Swap(s);
  PetscCall(s->ops->inject(s, points->src, points->wav, PETSC_TRUE));
  PetscCall(s->ops->surface_velocity(s));
  Swap(s);
  PetscFunctionReturn(0);
}

/* The band of s^n and t^n (stresses), or of v^(n-1/2), back in layer l
   of the outermost axis from saved, slot n of the store (a reverse
   sweep's layer, on the CPU; ELReconstructionStresses and Done put back
   all of it), after the stage that runs them back there. */
void ELReconstructionRestoreLayer(ELState *s, PetscInt l, float *saved, PetscBool stresses)
{
  StaggeredBandCopyLayer(s->grid, s->rec->nband, s->rec->band, s->rec->f, PETSC_FALSE, stresses ? EL_STRESSES : EL_VELOCITIES, saved, l);
}

/* Before reverse stage 1: the band of s^n and t^n back, then the free
   surfaces' zero normal stresses (which the injection may have moved)
   and the stresses' mirrors beyond them, as the forward stage 0 read
   them. */
PetscErrorCode ELReconstructionStresses(ELState *s)
{
  PetscFunctionBeginUser;
  PetscCall(s->ops->band_copy(s, s->rec->f, PETSC_FALSE, EL_STRESSES, s->rec->saved));
  Swap(s);
  PetscCall(s->ops->surface(s, STAGGERED_ZERO_SURFACE, s->s, PETSC_FALSE));
  PetscCall(s->ops->surface(s, STAGGERED_MIRROR_CENTRES, s->s, PETSC_FALSE));
  PetscCall(s->ops->surface(s, STAGGERED_MIRROR_NODES_ODD, NULL, PETSC_TRUE));
  Swap(s);
  PetscFunctionReturn(0);
}

/* A step reaches 2 radii: the velocities from the stresses, then the
   stresses from the velocities (their CPML memories lie at the cells they
   update). */
void ELSupportGrow(ELState *s, PetscInt n)
{
  float         *all[EL_FORWARD_FIELDS];
  const float   *field[EL_FORWARD_FIELDS];
  PetscInt       nfield = 0;

  ForwardArrays(s, all);
  for (PetscInt f = 0; f < EL_FORWARD_FIELDS; f++)
    if (FieldExists(f, s->dim)) field[nfield++] = all[f];
  FieldSupportGrow(&s->rec->support, n + 1, 2 * s->radius, nfield, field);
}
