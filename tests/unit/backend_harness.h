/* The harness of the backend comparison tests: a block of fields on one
   backend, the list of its arrays, host copies of them, uploads and
   downloads, and bit-for-bit comparisons that say where two copies differ.
   Comparisons and failures are counted in ncompared and nfailed; a failure
   is printed and the test goes on. */
#pragma once
#include <string.h>
#include "equations/acoustic/kernels.h"
#include "shot/survey.h"

#define MAXARRAYS 32 /* u, uprev, vdt2, lap, grad, fu, fuprev, 2 x 3 profiles, 2 x 6 slab arrays, a list */
#define NCELLS    40 /* inject/record rows */

/* One backend's Fields and the backend memory the operations take besides. */
typedef struct {
  const KernelOps *ops;
  Fields           f;
  float           *lap, *grad, *fu, *fuprev; /* f's members of those names point here while an operation uses them */
  PointMap         inject, record; /* NCELLS rows each */
  float           *amp, *remote, *out;
} Block;

typedef enum {
  ARRAY_FIELD,   /* padded layout of the Fields */
  ARRAY_PROFILE, /* over the padded index of one axis */
  ARRAY_SLAB,    /* the layout of slab (axis, side) */
  ARRAY_LIST     /* one value per inject/record cell */
} ArrayKind;

/* Every array of a block, in an order both blocks share. */
typedef struct {
  PetscInt n;
  struct {
    char      name[24];
    ArrayKind kind;
    PetscInt  axis, side;
    size_t    len;
  } a[MAXARRAYS];
} ArrayList;

/* Host copies of every array of a block, as ArrayList orders them. */
typedef struct {
  float *x[MAXARRAYS];
} HostState;

extern PetscInt ncompared, nfailed;

/* Appends an array to l. */
void ArrayAdd(ArrayList *l, const char *name, ArrayKind kind, PetscInt axis, PetscInt side, size_t len);
/* Every array of a Fields and of the block around it, in an order shared by two blocks of the same geometry. */
void ListArrays(const Fields *f, ArrayList *l);
PetscErrorCode HostStateCreate(const ArrayList *l, HostState *h);
PetscErrorCode HostStateDestroy(HostState *h);
PetscErrorCode Upload(Block *b, const ArrayList *l, const HostState *h);
PetscErrorCode Download(Block *b, const ArrayList *l, HostState *h);
/* Value k of array `which` of l as a cell: padded and owned index. */
void WhereIs(const Fields *f, const ArrayList *l, PetscInt which, size_t k, char *buf, size_t len);
unsigned Bits(float x);
/* Array `which`: the CUDA values against the CPU values, bit for bit. */
PetscErrorCode CompareArray(const char *what, const Fields *f, const ArrayList *l, PetscInt which, const float *cpu, const float *gpu);
/* Every array of b downloaded and zero. */
PetscErrorCode CheckZeroed(const char *what, Block *b, const ArrayList *l, HostState *h);
/* The block's arrays on ops for geometry (a described Fields), with the
   inject and record maps, NCELLS amplitudes and NCELLS remote values uploaded. */
PetscErrorCode BlockCreate(const KernelOps *ops, const Fields *geometry, const PointMap *inject, const PointMap *record, const float amp[], const float remote[],
                           Block *b);
PetscErrorCode BlockDestroy(Block *b);
