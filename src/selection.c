#include "selection.h"
#include <math.h>

/* 1 inside [a, b], 0 beyond the tapers of width taper on either side, a
   half cosine across them. */
static double Window(double t, double a, double b, double taper)
{
  const double out = t < a ? a - t : t > b ? t - b : 0;

  if (out == 0) return 1;
  if (out >= taper) return 0;
  return 0.5 * (1 + cos(PETSC_PI * out / taper));
}

static PetscBool Dead(PetscInt nt, const float *o)
{
  for (PetscInt i = 0; i < nt; i++)
    if (o[i] != 0) return PETSC_FALSE;
  return PETSC_TRUE;
}

void SelectionWeights(const Options *o, PetscInt band, const Geometry *geo, PetscInt s, PetscInt dim, PetscInt nt, PetscReal dt, const float *obs, float *w)
{
  const PetscInt  r0  = geo->rec_start[s], nrec = geo->rec_start[s + 1] - r0;
  const Position *src = &geo->src[s];
  const PetscReal omin = PerBandValue(&o->offset_min, band), omax = PerBandValue(&o->offset_max, band);
  const PetscReal ws = PerBandValue(&o->window_start, band), we = PerBandValue(&o->window_end, band);

  for (PetscInt k = 0; k < nrec; k++) {
    const Position *rec = &geo->rec[r0 + k];
    double          offset = 0, dz = rec->c[0] - src->c[0], first;
    PetscBool       keep;
    /* the offset is horizontal (x, and y in 3D); the first arrival's path is straight */
    for (PetscInt a = 1; a < dim; a++) offset += (rec->c[a] - src->c[a]) * (rec->c[a] - src->c[a]);
    first  = o->window_velocity > 0 ? sqrt(offset + dz * dz) / o->window_velocity : 0;
    offset = sqrt(offset);
    keep   = offset >= omin && offset <= omax && !(o->kill_dead_traces && Dead(nt, obs + (size_t)k * nt));
    for (PetscInt i = 0; i < nt; i++)
      w[(size_t)k * nt + i] = !keep ? 0.0f : o->window_velocity > 0 ? (float)Window(i * dt, first + ws, first + we, o->window_taper) : 1.0f;
  }
}
