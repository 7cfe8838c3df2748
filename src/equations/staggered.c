#include "equations/staggered.h"

void StaggeredWeights(PetscInt radius, double c[])
{
  for (PetscInt k = 1; k <= radius; k++) {
    const double ok = 2.0 * k - 1;
    double       w  = 1.0 / ok;
    for (PetscInt j = 1; j <= radius; j++) {
      const double oj = 2.0 * j - 1;
      if (j != k) w *= oj * oj / (oj * oj - ok * ok);
    }
    c[k] = w;
  }
}

void StaggeredPlainRange(PetscInt n, PetscInt R, const float *b, PetscInt r[2])
{
  PetscInt lo = R, hi = n - R;

  while (lo < hi && b[lo] != 0) lo++;
  while (hi > lo && b[hi - 1] != 0) hi--;
  r[0] = lo;
  r[1] = hi;
  for (PetscInt i = lo; i < hi; i++)
    if (b[i] != 0) r[0] = r[1] = 0;
}
