#include "inversion/misfit.h"
#include <math.h>

static double Dot(size_t n, const float *a, const float *b)
{
  double sum = 0;

  for (size_t i = 0; i < n; i++) sum += (double)a[i] * b[i];
  return sum;
}

/* One normalised unit of n samples, s^ = s/|s|, o^ = o/|o|, c = s^.o^:
   J = 1 - c, dJ/ds = (c s^ - o^) / |s|. */
static double Normalised(size_t n, const float *s, const float *o, float *adj)
{
  const double ns = sqrt(Dot(n, s, s)), no = sqrt(Dot(n, o, o));
  double       c;

  if (no == 0 || ns == 0) {
    for (size_t i = 0; i < n; i++) adj[i] = 0;
    return no == 0 ? 0 : 1;
  }
  c = Dot(n, s, o) / (ns * no);
  for (size_t i = 0; i < n; i++) adj[i] = (float)((c * s[i] / ns - o[i] / no) / ns);
  return 1 - c;
}

double MisfitGather(MisfitKind kind, PetscInt nrec, PetscInt nt, const float *s, const float *o, float *adj)
{
  const size_t n = (size_t)nrec * nt;
  double       J = 0;

  switch (kind) {
  case MISFIT_CORRELATION:
    return Normalised(n, s, o, adj);
  case MISFIT_TRACE_L2:
    for (PetscInt k = 0; k < nrec; k++) J += Normalised((size_t)nt, s + (size_t)k * nt, o + (size_t)k * nt, adj + (size_t)k * nt);
    return J;
  case MISFIT_L2:
    break;
  }
  for (size_t i = 0; i < n; i++) {
    adj[i] = s[i] - o[i];
    J += 0.5 * (double)adj[i] * adj[i];
  }
  return J;
}
