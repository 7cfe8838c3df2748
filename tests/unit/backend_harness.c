/* See backend_harness.h. */
#include "backend_harness.h"

PetscInt ncompared, nfailed;

void ArrayAdd(ArrayList *l, const char *name, ArrayKind kind, PetscInt axis, PetscInt side, size_t len)
{
  PetscSNPrintf(l->a[l->n].name, sizeof l->a[l->n].name, "%s", name);
  l->a[l->n].kind = kind;
  l->a[l->n].axis = axis;
  l->a[l->n].side = side;
  l->a[l->n].len  = len;
  l->n++;
}

void ListArrays(const Fields *f, ArrayList *l)
{
  char name[24];

  l->n = 0;
  ArrayAdd(l, "u", ARRAY_FIELD, 0, 0, f->ncells);
  ArrayAdd(l, "uprev", ARRAY_FIELD, 0, 0, f->ncells);
  ArrayAdd(l, "vdt2", ARRAY_FIELD, 0, 0, f->ncells);
  ArrayAdd(l, "lap", ARRAY_FIELD, 0, 0, f->ncells);
  ArrayAdd(l, "grad", ARRAY_FIELD, 0, 0, f->ncells);
  ArrayAdd(l, "fu", ARRAY_FIELD, 0, 0, f->ncells);
  ArrayAdd(l, "fuprev", ARRAY_FIELD, 0, 0, f->ncells);
  for (PetscInt a = 0; a < f->dim; a++) {
    PetscSNPrintf(name, sizeof name, "pml_a[%d]", (int)a);
    ArrayAdd(l, name, ARRAY_PROFILE, a, 0, (size_t)f->padded[a]);
    PetscSNPrintf(name, sizeof name, "pml_b[%d]", (int)a);
    ArrayAdd(l, name, ARRAY_PROFILE, a, 0, (size_t)f->padded[a]);
    PetscSNPrintf(name, sizeof name, "pml_da[%d]", (int)a);
    ArrayAdd(l, name, ARRAY_PROFILE, a, 0, (size_t)f->padded[a]);
  }
  for (PetscInt a = 0; a < f->dim; a++)
    for (PetscInt s = 0; s < 2; s++)
      if (f->slab[a][s].ncells) {
        PetscSNPrintf(name, sizeof name, "psi(%d, %d)", (int)a, (int)s);
        ArrayAdd(l, name, ARRAY_SLAB, a, s, f->slab[a][s].ncells);
        PetscSNPrintf(name, sizeof name, "zeta(%d, %d)", (int)a, (int)s);
        ArrayAdd(l, name, ARRAY_SLAB, a, s, f->slab[a][s].ncells);
      }
}

/* Where array k of a block lives. */
static float **ArrayMember(Block *b, const ArrayList *l, PetscInt k)
{
  const char *name = l->a[k].name;
  Fields     *f    = &b->f;

  switch (l->a[k].kind) {
  case ARRAY_PROFILE: return name[4] == 'a' ? &f->pml_a[l->a[k].axis] : name[4] == 'b' ? &f->pml_b[l->a[k].axis] : &f->pml_da[l->a[k].axis];
  case ARRAY_SLAB: return name[0] == 'p' ? &f->slab[l->a[k].axis][l->a[k].side].psi : &f->slab[l->a[k].axis][l->a[k].side].zeta;
  case ARRAY_LIST: return &b->out;
  default: break;
  }
  if (!strcmp(name, "u")) return &f->u;
  if (!strcmp(name, "uprev")) return &f->uprev;
  if (!strcmp(name, "vdt2")) return &f->vdt2;
  if (!strcmp(name, "fu")) return &b->fu;
  if (!strcmp(name, "fuprev")) return &b->fuprev;
  return !strcmp(name, "lap") ? &b->lap : &b->grad;
}

PetscErrorCode HostStateCreate(const ArrayList *l, HostState *h)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(h, sizeof(*h)));
  for (PetscInt k = 0; k < l->n; k++) PetscCall(PetscCalloc1(l->a[k].len, &h->x[k]));
  PetscFunctionReturn(0);
}

PetscErrorCode HostStateDestroy(HostState *h)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < MAXARRAYS; k++) PetscCall(PetscFree(h->x[k]));
  PetscFunctionReturn(0);
}

PetscErrorCode Upload(Block *b, const ArrayList *l, const HostState *h)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < l->n; k++) PetscCall(b->ops->backend->mem_upload(*ArrayMember(b, l, k), h->x[k], sizeof(float) * l->a[k].len));
  PetscFunctionReturn(0);
}

PetscErrorCode Download(Block *b, const ArrayList *l, HostState *h)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < l->n; k++) PetscCall(b->ops->backend->mem_download(h->x[k], *ArrayMember(b, l, k), sizeof(float) * l->a[k].len));
  PetscFunctionReturn(0);
}

/* Value k of array `which` of l as a cell: padded and owned index. */
void WhereIs(const Fields *f, const ArrayList *l, PetscInt which, size_t k, char *buf, size_t len)
{
  const PetscInt a = l->a[which].axis, r = f->radius;
  size_t         ext[3];
  PetscInt       p[3];

  switch (l->a[which].kind) {
  case ARRAY_LIST: PetscSNPrintf(buf, len, "cell %d of the list", (int)k); return;
  case ARRAY_PROFILE: PetscSNPrintf(buf, len, "padded index %d along axis %d (owned %d)", (int)k, (int)a, (int)k - (int)r); return;
  case ARRAY_SLAB:
    for (PetscInt b = 0; b < 3; b++) ext[b] = b == a ? (size_t)(f->slab[a][l->a[which].side].hi - f->slab[a][l->a[which].side].lo) : (size_t)f->padded[b];
    break;
  default:
    for (PetscInt b = 0; b < 3; b++) ext[b] = (size_t)f->padded[b];
  }
  p[0] = (PetscInt)(k % ext[0]);
  p[1] = (PetscInt)(k / ext[0] % ext[1]);
  p[2] = (PetscInt)(k / (ext[0] * ext[1]));
  if (l->a[which].kind == ARRAY_SLAB) p[a] += f->slab[a][l->a[which].side].lo;
  PetscSNPrintf(buf, len, "padded (%d, %d, %d), owned (%d, %d, %d)", (int)p[0], (int)p[1], (int)p[2], (int)(p[0] - r), (int)(p[1] - r),
                (int)(p[2] - (f->dim > 2 ? r : 0)));
}

unsigned Bits(float x)
{
  unsigned u;
  memcpy(&u, &x, sizeof u);
  return u;
}

/* Array `which`: the CUDA values against the CPU values, bit for bit; a
   mismatch is printed (count, max |diff|, first and largest mismatch) and
   counted, and the test goes on. */
PetscErrorCode CompareArray(const char *what, const Fields *f, const ArrayList *l, PetscInt which, const float *cpu, const float *gpu)
{
  size_t first = 0, worst = 0, ndiff = 0;
  double maxdiff = 0, maxref = 0;
  char   where[128], wworst[128];

  PetscFunctionBeginUser;
  ncompared++;
  for (size_t k = 0; k < l->a[which].len; k++) {
    const double d = PetscAbsReal((double)cpu[k] - (double)gpu[k]);
    maxref         = PetscMax(maxref, PetscAbsReal((double)cpu[k]));
    if (Bits(cpu[k]) == Bits(gpu[k])) continue;
    if (!ndiff++) first = worst = k;
    if (!(d <= maxdiff)) { /* NaN counts as the largest */
      maxdiff = d;
      worst   = k;
    }
  }
  if (!ndiff) PetscFunctionReturn(0);
  nfailed++;
  WhereIs(f, l, which, first, where, sizeof where);
  WhereIs(f, l, which, worst, wworst, sizeof wworst);
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "FAIL %s: %s differs from the CPU backend in %zu of %zu values; max |diff| %.3e (max |cpu| %.3e) at %s;\n"
                        "     first mismatch at index %zu, %s: cuda %.9g (0x%08x), cpu %.9g (0x%08x)\n",
                        what, l->a[which].name, ndiff, l->a[which].len, maxdiff, maxref, wworst, first, where, (double)gpu[first], Bits(gpu[first]),
                        (double)cpu[first], Bits(cpu[first])));
  PetscFunctionReturn(0);
}

PetscErrorCode CheckZeroed(const char *what, Block *b, const ArrayList *l, HostState *h)
{
  PetscFunctionBeginUser;
  PetscCall(Download(b, l, h));
  for (PetscInt k = 0; k < l->n; k++) {
    ncompared++;
    for (size_t j = 0; j < l->a[k].len; j++)
      if (Bits(h->x[k][j])) {
        char where[128];
        WhereIs(&b->f, l, k, j, where, sizeof where);
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL %s: %s %s is %.9g at %s after allocation, expected zero\n", what, b->ops->backend->name, l->a[k].name,
                              (double)h->x[k][j], where));
        nfailed++;
        break;
      }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BlockCreate(const KernelOps *ops, const Fields *geometry, const PointMap *inject, const PointMap *record, const float amp[], const float remote[],
                           Block *b)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(b, sizeof(*b)));
  b->ops = ops;
  b->f   = *geometry;
  PetscCall(ops->alloc(&b->f));
  PetscCall(ops->backend->mem_alloc((void **)&b->lap, sizeof(float) * b->f.ncells));
  PetscCall(ops->backend->mem_alloc((void **)&b->grad, sizeof(float) * b->f.ncells));
  PetscCall(ops->backend->mem_alloc((void **)&b->fu, sizeof(float) * b->f.ncells));
  PetscCall(ops->backend->mem_alloc((void **)&b->fuprev, sizeof(float) * b->f.ncells));
  PetscCall(PointMapUpload(ops->backend, inject, &b->inject));
  PetscCall(PointMapUpload(ops->backend, record, &b->record));
  PetscCall(ops->backend->mem_alloc((void **)&b->amp, sizeof(float) * NCELLS));
  PetscCall(ops->backend->mem_alloc((void **)&b->remote, sizeof(float) * NCELLS));
  PetscCall(ops->backend->mem_alloc((void **)&b->out, sizeof(float) * NCELLS));
  PetscCall(ops->backend->mem_upload(b->amp, amp, sizeof(float) * NCELLS));
  PetscCall(ops->backend->mem_upload(b->remote, remote, sizeof(float) * NCELLS));
  PetscFunctionReturn(0);
}

PetscErrorCode BlockDestroy(Block *b)
{
  PetscFunctionBeginUser;
  if (!b->ops) PetscFunctionReturn(0);
  b->f.lap = b->f.grad = b->f.fu = b->f.fuprev = NULL;
  PetscCall(b->ops->free(&b->f));
  PetscCall(b->ops->backend->mem_free((void **)&b->lap));
  PetscCall(b->ops->backend->mem_free((void **)&b->grad));
  PetscCall(b->ops->backend->mem_free((void **)&b->fu));
  PetscCall(b->ops->backend->mem_free((void **)&b->fuprev));
  PetscCall(PointMapFree(b->ops->backend, &b->inject));
  PetscCall(PointMapFree(b->ops->backend, &b->record));
  PetscCall(b->ops->backend->mem_free((void **)&b->amp));
  PetscCall(b->ops->backend->mem_free((void **)&b->remote));
  PetscCall(b->ops->backend->mem_free((void **)&b->out));
  PetscFunctionReturn(0);
}
