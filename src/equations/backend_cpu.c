/* The CPU backend's memory and lanes (BackendOps), whatever the equation:
   host memory, work done as it is called. */
#include "equations/equation.h"
#include "equations/codec.h"
#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Page by page over the threads, each page written by the thread that will
   use it most (the kernels split rows the same static way). */
static void ZeroPages(void *p, size_t bytes)
{
  _Pragma("omp parallel for schedule(static)") for (size_t i = 0; i < bytes; i += 4096) memset((char *)p + i, 0, PetscMin(4096, bytes - i));
}

/* Arrays of 2 MB or more are mapped on their own, on 2 MB pages where the
   system grants them (transparent huge pages on request): a stencil reads
   2R + 1 rows, each on its own 4 kB page, and the fields of a large grid
   outrun the reach of the TLB's 4 kB entries.  Their pages are mapped now,
   by the system, which zeroes them once (MADV_POPULATE_WRITE; written
   over by the threads where a kernel is older than Linux 5.14): a store too
   large for the node fails here, not part way through a run, and the time
   it takes shows as allocation.  Mapping fresh memory is slow on some
   machines (about 1 GB/s in a virtual machine whose host backs the guest's
   memory lazily); the gradient planner counts it (first_use).
   mem_reserve maps nothing now, and leaves 4 kB pages: a packed full store
   writes a small part of each step's slot, and a 2 MB page would map the
   dead chunks around it (2.2 GB against 0.36 GB, 2D 2048^2 x 500).
   mem_alloc_stream maps every page now, on 4 kB pages: a store is written
   and read in order, and on the AMD EPYC virtual machine 2 MB pages mapped
   at 0.5-0.7 GB/s against 1.5-3.5 GB/s (the host takes free 2 MB blocks
   back; elastic 3D 96^3 x 300 gradient, alternating: allocation 1.3-2.9 s
   -> 0.36-1.49 s, the process a median 29.6 s -> 29.0 s; docs/performance.md). */

#if !defined(MADV_POPULATE_WRITE)
  #define MADV_POPULATE_WRITE 23
#endif

/* Maps the 2 MB pages of an array, split over the threads as the kernels
   split rows; 0 or the errno of a failure. */
static int MapPages(char *array, size_t bytes)
{
  const size_t pages = bytes / EQUATION_HUGE_PAGE;
  int          err   = 0;

  _Pragma("omp parallel reduction(max : err)")
  {
    const size_t nt = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
    const size_t p0 = pages * me / nt, p1 = pages * (me + 1) / nt;
    if (p1 > p0 && madvise(array + p0 * EQUATION_HUGE_PAGE, (p1 - p0) * EQUATION_HUGE_PAGE, MADV_POPULATE_WRITE)) err = errno;
  }
  if (err != EINVAL) return err;
  ZeroPages(array, bytes); /* no MADV_POPULATE_WRITE */
  return 0;
}

/* Just below every array: what to give back (len 0: from aligned_alloc). */
typedef struct {
  void  *base;
  size_t len;
  char   pad[64 - sizeof(void *) - sizeof(size_t)]; /* keeps the array 64-byte aligned */
} Mapping;

/* How far past its alignment each array starts: successive arrays a
   different number of cache lines into a 4 kB page (23 lines apart, modulo
   64: every offset once in 64 arrays).  Arrays that all began on a 2 MB
   boundary put cell i of every field in the same set of each cache, and
   a stage that reads rows of several fields at once evicted its own rows
   (elastic 2D 1000^2 forward, docs/performance.md). */
static size_t Stagger(void)
{
  static unsigned arrays; /* the arrays allocated so far; allocation is serial */

  return (size_t)(arrays++ * 23u % 64u) * sizeof(Mapping); /* below EQUATION_STAGGER_MAX */
}

/* An array of `bytes` at *p: its pages mapped and zeroed now, or, with
   `now` false, as they are first written (reads of pages never written
   find zeros); on 2 MB pages where `huge` (and now). */
static PetscErrorCode ArrayMap(void **p, size_t bytes, PetscBool now, PetscBool huge)
{
  Mapping *m;

  PetscFunctionBeginUser;
  const size_t stagger = Stagger();

  if (bytes < EQUATION_HUGE_PAGE) {
    const size_t whole = (stagger + bytes + 2 * sizeof(Mapping) - 1) / sizeof(Mapping) * sizeof(Mapping); /* a multiple of the alignment */
    void        *base  = aligned_alloc(sizeof(Mapping), whole);

    PetscCheck(base, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory: %zu bytes requested", bytes);
    m  = (Mapping *)((char *)base + stagger);
    *m = (Mapping){base, 0, {0}};
    memset(m + 1, 0, whole - stagger - sizeof(Mapping));
  } else {
    const size_t pages = (stagger + bytes + EQUATION_HUGE_PAGE - 1) / EQUATION_HUGE_PAGE * EQUATION_HUGE_PAGE;
    const size_t len   = pages + EQUATION_HUGE_PAGE; /* room for the alignment and the Mapping */
    char        *base  = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char        *array;
    int          err = 0;

    PetscCheck(base != MAP_FAILED, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory: %zu bytes requested (%s)", bytes, strerror(errno));
    array = (char *)(((uintptr_t)base + sizeof(Mapping) + EQUATION_HUGE_PAGE - 1) / EQUATION_HUGE_PAGE * EQUATION_HUGE_PAGE);
#if defined(MADV_HUGEPAGE)
    if (now && huge) (void)madvise(array, pages, MADV_HUGEPAGE); /* a refusal leaves 4 kB pages */
#endif
    if (now) err = MapPages(array, pages);
    if (err) (void)munmap(base, len);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory: %zu bytes requested, mapping its pages failed (%s)", bytes, strerror(err));
    m  = (Mapping *)(array + stagger) - 1;
    *m = (Mapping){base, len, {0}};
  }
  *p = m + 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode MemAlloc(void **p, size_t bytes) { return ArrayMap(p, bytes, PETSC_TRUE, PETSC_TRUE); }

static PetscErrorCode MemReserve(void **p, size_t bytes) { return ArrayMap(p, bytes, PETSC_FALSE, PETSC_FALSE); }

static PetscErrorCode MemAllocStream(void **p, size_t bytes) { return ArrayMap(p, bytes, PETSC_TRUE, PETSC_FALSE); }

static PetscErrorCode MemZero(void *lanes, void *p, size_t bytes)
{
  PetscFunctionBeginUser;
  ZeroPages(p, bytes);
  PetscFunctionReturn(0);
}

static PetscErrorCode MemFree(void **p)
{
  PetscFunctionBeginUser;
  if (*p) {
    const Mapping m = ((const Mapping *)*p)[-1];
    if (m.len) PetscCheck(!munmap(m.base, m.len), PETSC_COMM_SELF, PETSC_ERR_SYS, "munmap of %zu bytes: %s", m.len, strerror(errno));
    else free(m.base);
  }
  *p = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode MemCopy(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemcpy(dst, src, bytes));
  PetscFunctionReturn(0);
}

static PetscErrorCode Encode(void *lanes, WavefieldCodec codec, const float *x, size_t n, void *packed)
{
  CodecEncode(codec, x, n, packed);
  return 0;
}

static PetscErrorCode Decode(void *lanes, WavefieldCodec codec, const void *packed, size_t n, float *x)
{
  CodecDecode(codec, packed, n, x);
  return 0;
}

/* Work runs as it is called: lanes need no ordering. */
static PetscErrorCode InOrder(void *lanes) { return 0; }

const BackendOps BackendOpsCPU = {
  .name         = "cpu",
  .host_memory  = PETSC_TRUE,
  .side_begin   = InOrder,
  .side_end     = InOrder,
  .join         = InOrder,
  .mem_alloc    = MemAlloc,
  .mem_reserve  = MemReserve,
  .mem_alloc_stream = MemAllocStream,
  .mem_free     = MemFree,
  .mem_zero     = MemZero,
  .mem_upload   = MemCopy,
  .mem_download = MemCopy,
  .mem_copy     = MemCopy,
  .encode       = Encode,
  .decode       = Decode,
  /* see MemAlloc: the stores' 4 kB pages, mapped at allocation (mem_alloc_stream, which every store on the host takes: first_use) or
     faulted inside the forward steps (mem_reserve: first_use_reserved), zeroed by the system either way.  Fitted to the latter (2D:
     scripts/fit_plan.py on the constant-density runs of scripts/bench-gradient; 3D: their full-storage forward steps against the boundary
     method's, per float mapped; the AMD EPYC, 2026-12-07); the staggered equations' full stores on the same machine later that day fit
     4.9-6.3 in 2D and 1.2-2.1 in 3D (docs/numerics.md, "Gradient methods") */
  .first_use          = {3.1, 1.8},
  .first_use_reserved = {3.1, 1.8},
};

