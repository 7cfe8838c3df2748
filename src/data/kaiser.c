#include "data/kaiser.h"

double BesselI0(double x)
{
  double sum = 1, term = 1, q = x * x / 4;

  for (int k = 1; term > 1e-17 * sum; k++) {
    term *= q / ((double)k * k);
    sum += term;
  }
  return sum;
}
