#include "data/exactsum.h"
#include <math.h>
#include <string.h>

#define GRID_EXP 149 /* the grid's unit is 2^-GRID_EXP */

/* l += v << (64 q), v = (hi, lo), carrying to the top limb (wrapping). */
static void AddAt(uint64_t *l, int q, uint64_t lo, uint64_t hi)
{
  uint64_t carry;

  l[q] += lo;
  carry = l[q] < lo;
  for (int i = q + 1; i < EXACT_SUM_LIMBS; i++) {
    const uint64_t add = (i == q + 1 ? hi : 0) + carry; /* hi < 2^63: no overflow */
    l[i] += add;
    carry = l[i] < add;
  }
}

/* l -= v << (64 q), borrowing likewise. */
static void SubAt(uint64_t *l, int q, uint64_t lo, uint64_t hi)
{
  uint64_t borrow = l[q] < lo;

  l[q] -= lo;
  for (int i = q + 1; i < EXACT_SUM_LIMBS; i++) {
    const uint64_t sub = (i == q + 1 ? hi : 0) + borrow;
    borrow = l[i] < sub;
    l[i] -= sub;
  }
}

int ExactSumAdd(ExactSum *s, double x)
{
  uint64_t bits, m;

  if (x == 0) return 0;
  if (!isfinite(x) || fabs(x) >= 0x1p128) return 1;
  memcpy(&bits, &x, sizeof bits);
  /* a normal double is |x| = m 2^(biased - 1075), m < 2^53 its significand
     with the leading bit: read from the bits, as the gradient adds a term per
     cell and frexp/ldexp are library calls */
  const int biased = (int)(bits >> 52 & 0x7ff);
  int       pos    = biased - 1075 + GRID_EXP; /* |x| = m 2^(pos - GRID_EXP) */
  if (biased && pos >= 0) m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
  else { /* below the grid's 2^53 units: rounded onto it */
    m   = (uint64_t)llrint(ldexp(fabs(x), GRID_EXP));
    pos = 0;
  }
  const int      q = pos / 64, r = pos % 64;
  const uint64_t lo = m << r, hi = r ? m >> (64 - r) : 0;
  if (x > 0) AddAt(s->limb, q, lo, hi);
  else SubAt(s->limb, q, lo, hi);
  return 0;
}

/* 2^(64 i - GRID_EXP), the weight of limb i: a product by it is exact, as
   ldexpl would be, without a library call per limb. */
static const long double limb_weight[EXACT_SUM_LIMBS] = {0x1p-149L, 0x1p-85L, 0x1p-21L, 0x1p43L, 0x1p107L};
_Static_assert(GRID_EXP == 149 && EXACT_SUM_LIMBS == 5, "limb_weight holds 2^(64 i - GRID_EXP) for each limb");

double ExactSumValue(const ExactSum *s)
{
  ExactSum    a         = *s;
  const int   negative  = (int)(a.limb[EXACT_SUM_LIMBS - 1] >> 63);
  long double v         = 0;
  int         top       = EXACT_SUM_LIMBS - 1;

  if (negative) { /* two's complement: invert and add one */
    for (int i = 0; i < EXACT_SUM_LIMBS; i++) a.limb[i] = ~a.limb[i];
    AddAt(a.limb, 0, 1, 0);
  }
  while (top > 0 && !a.limb[top]) top--;
  /* the top three limbs in long double (64-bit significand on x86) are
     more than enough for one rounding to double */
  for (int i = PetscMax(top - 2, 0); i <= top; i++) v += (long double)a.limb[i] * limb_weight[i];
  return negative ? -(double)v : (double)v;
}

static void MPIAPI ExactSumReduce(void *in, void *inout, int *len, MPI_Datatype *type)
{
  const ExactSum *a = (const ExactSum *)in;
  ExactSum       *b = (ExactSum *)inout;

  (void)type;
  for (int k = 0; k < *len; k++) {
    uint64_t carry = 0;
    for (int i = 0; i < EXACT_SUM_LIMBS; i++) {
      const uint64_t x = a[k].limb[i], y = b[k].limb[i], t = x + carry, sum = t + y;
      carry              = (t < carry) | (sum < y);
      b[k].limb[i]       = sum;
    }
  }
}

static MPI_Datatype exact_type = MPI_DATATYPE_NULL;
static MPI_Op       exact_op   = MPI_OP_NULL;

static PetscErrorCode ExactSumMPIFree(void)
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Op_free(&exact_op));
  PetscCallMPI(MPI_Type_free(&exact_type));
  PetscFunctionReturn(0);
}

PetscErrorCode ExactSumMPI(MPI_Datatype *type, MPI_Op *op)
{
  PetscFunctionBeginUser;
  if (exact_type == MPI_DATATYPE_NULL) {
    PetscCallMPI(MPI_Type_contiguous(EXACT_SUM_LIMBS, MPI_UINT64_T, &exact_type));
    PetscCallMPI(MPI_Type_commit(&exact_type));
    PetscCallMPI(MPI_Op_create(ExactSumReduce, 1, &exact_op));
    PetscCall(PetscRegisterFinalize(ExactSumMPIFree));
  }
  *type = exact_type;
  *op   = exact_op;
  PetscFunctionReturn(0);
}
