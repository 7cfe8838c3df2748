/* Order-independent sums: the same bits for every order and grouping of the
   terms (also through the MPI operation), the value within one unit in the
   last place of a reference sum in 113-bit floating point, exact
   cancellation, doubles below the grid and values out of range. */
#include "data/exactsum.h"
#include <math.h>
#include <string.h>

#define N 4000

/* Terms over 2^-40 .. 2^40 with both signs: their exact sum needs at most
   80 + 24 + 12 bits, so the 113-bit reference below is exact. */
static void Terms(float *x)
{
  unsigned long long r = 12345;

  for (int i = 0; i < N; i++) {
    r             = r * 6364136223846793005ULL + 1442695040888963407ULL;
    const int e   = (int)((r >> 33) % 81) - 40;
    const float m = (float)((r >> 11) % 16777216) / 16777216.0f;
    x[i]          = (r & 1 ? -1 : 1) * ldexpf(0.5f + 0.5f * m, e);
  }
}

static double Reference(const float *x)
{
  __float128 s = 0;

  for (int i = 0; i < N; i++) s += x[i];
  return (double)s;
}

static PetscErrorCode TestOrders(void)
{
  static float x[N];
  ExactSum     fwd = {{0}}, back = {{0}}, parts[7] = {{{0}}}, joined = {{0}};
  MPI_Datatype type;
  MPI_Op       op;

  PetscFunctionBeginUser;
  Terms(x);
  for (int i = 0; i < N; i++) PetscCheck(!ExactSumAdd(&fwd, x[i]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "term %d (%g) refused", i, (double)x[i]);
  for (int i = N - 1; i >= 0; i--) ExactSumAdd(&back, x[i]);
  for (int i = 0; i < N; i++) ExactSumAdd(&parts[(i * 5) % 7], x[i]); /* seven groups, interleaved */
  PetscCall(ExactSumMPI(&type, &op));
  for (int g = 0; g < 7; g++) PetscCallMPI(MPI_Reduce_local(&parts[g], &joined, 1, type, op));
  PetscCheck(!memcmp(&fwd, &back, sizeof fwd), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the sum forwards and backwards differ");
  PetscCheck(!memcmp(&fwd, &joined, sizeof fwd), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the sum of seven groups joined by the MPI operation differs");
  const double v = ExactSumValue(&fwd), ref = Reference(x);
  PetscCheck(fabs(v - ref) <= fabs(nextafter(ref, 0) - ref), PETSC_COMM_SELF, PETSC_ERR_PLIB, "sum %.17g, reference %.17g: more than one ulp apart", v, ref);
  PetscFunctionReturn(0);
}

static PetscErrorCode TestEdges(void)
{
  ExactSum s = {{0}}, zero = {{0}};

  PetscFunctionBeginUser;
  /* exact cancellation: large and small terms, removed in another order */
  const double t[4] = {0x1.fffffep127, -3.5e-30, 1.25, -0x1p-149};
  for (int i = 0; i < 4; i++) ExactSumAdd(&s, t[i]);
  for (int i = 3; i >= 0; i--) ExactSumAdd(&s, -t[i]);
  PetscCheck(!memcmp(&s, &zero, sizeof s) && ExactSumValue(&s) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "x - x is not zero");
  /* a negative total, and a double below the grid rounded onto it */
  ExactSumAdd(&s, -2.0);
  ExactSumAdd(&s, 0x1p-151);
  PetscCheck(ExactSumValue(&s) == -2.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-2 + 2^-151 gives %.17g, expected -2 (2^-151 rounds to 0)", ExactSumValue(&s));
  ExactSumAdd(&s, 0x1.8p-149);
  PetscCheck(s.limb[0] == 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "1.5 units of the grid rounded to %llu units, expected 2", (unsigned long long)s.limb[0]);
  /* out of range: refused, nothing added */
  const ExactSum before = s;
  PetscCheck(ExactSumAdd(&s, 0x1p128) && ExactSumAdd(&s, INFINITY) && ExactSumAdd(&s, NAN), PETSC_COMM_SELF, PETSC_ERR_PLIB, "2^128, inf or nan accepted");
  PetscCheck(!memcmp(&s, &before, sizeof s), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a refused term changed the sum");
  PetscFunctionReturn(0);
}

/* One term alone comes back exactly, for every position on the grid: 53-bit
   significands from the grid's unit 2^-149 up to 2^127, both signs (each
   limb and each pair of limbs a significand can straddle), and with a
   second term 2^40 times larger the sum within one unit in the last place
   of the exact one. */
static PetscErrorCode TestRoundTrip(void)
{
  unsigned long long r = 777;

  PetscFunctionBeginUser;
  for (int k = -149; k + 53 <= 128; k++)
    for (int sign = -1; sign <= 1; sign += 2) {
      r                  = r * 6364136223846793005ULL + 1442695040888963407ULL;
      const double x     = sign * ldexp((double)((r >> 11) | 1ULL << 52), k); /* 53 significant bits */
      ExactSum     s     = {{0}};
      PetscCheck(!ExactSumAdd(&s, x), PETSC_COMM_SELF, PETSC_ERR_PLIB, "term %a refused", x);
      PetscCheck(ExactSumValue(&s) == x, PETSC_COMM_SELF, PETSC_ERR_PLIB, "term %a alone sums to %a", x, ExactSumValue(&s));
      if (k + 40 + 53 <= 128) {
        const double y = ldexp(x, 40), ref = (double)((__float128)y + x), v = (ExactSumAdd(&s, y), ExactSumValue(&s));
        PetscCheck(fabs(v - ref) <= fabs(nextafter(ref, 0) - ref), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%a + %a sums to %a, reference %a", y, x, v, ref);
      }
    }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestOrders());
  PetscCall(TestEdges());
  PetscCall(TestRoundTrip());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unit_exactsum: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
