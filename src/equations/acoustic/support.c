/* The boundary method's support boxes (support.h). */
#include "equations/acoustic/support.h"
#include "grid/box.h"

PetscErrorCode SupportBegin(AcousticState *st, const PointMap *src, PetscInt nsteps) { return FieldSupportStart(&st->rec.support, st->grid, st->ops->backend->host_memory, 1, nsteps, src); }

/* a step reaches 2 radii: the CPML terms read psi, itself a first difference of u */
void SupportGrow(AcousticState *st, PetscInt m) { FieldSupportGrow(&st->rec.support, m, 2 * st->f.radius, 1, (const float *const[]){st->f.u}); }

PetscErrorCode SupportEnd(AcousticState *st) { return FieldSupportJoin(&st->rec.support, st->grid); }

const Box *SupportAt(AcousticState *st, PetscInt n, Box now[2])
{
  const FieldSupport *sup = &st->rec.support;
  const PetscInt      R   = st->f.radius;

  if (!sup->nlevel) return NULL;
  /* [0]: L u^n is 0 beyond a radius of u^n's box; u^{n+1}, which the step
     overwrites where u^{n-1} is 0, lies in its own box */
  now[0] = sup->box[n];
  for (int a = 0; a < st->f.dim && !BoxEmpty(&now[0]); a++) {
    now[0].lo[a] -= R;
    now[0].hi[a] += R;
  }
  BoxJoin(&now[0], &sup->box[n + 1]);
  if (n >= 1) now[1] = sup->box[n - 1];
  else now[1] = (Box){{0, 0, 0}, {0, 0, 0}, 0};
  return now;
}
