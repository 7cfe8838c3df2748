/* CUDA backend: the stencil updates over a box (forward step, CPML memory,
   adjoint step).  The core cells of a box, forward or adjoint, run
   ColumnKernel: a thread walks a run of cells along the last axis (1 in 2D,
   2 in 3D) and streams u through a register queue; the launch shape, and
   whether the neighbours across the run come through a shared-memory
   tile, are Fields.gpu_tile's.  The box's cells outside the core, cut into slabs
   (OutsideCore), run the kernels with the CPML terms, a thread per cell
   (BoxCell), so those keep their registers to themselves and no block is
   launched only to find that it has no layer cell.  The
   arithmetic is stencil.h's, in the CPU backend's order: without fused
   multiply-adds (--fmad=false) both round alike. */
#include "grid/box.h"
#include "equations/acoustic/cuda/kernels_cuda.h"

/* Which layer of axis A cell i lies in: 0 low, 1 high, -1 none. */
__device__ static inline int LayerSide(const Fields &f, int A, const PetscInt i[3])
{
  return i[A] < f.core[A][0] ? 0 : i[A] >= f.core[A][1] ? 1 : -1;
}

__device__ static inline bool InCore(const Fields &f, int dim, const PetscInt i[3])
{
  for (int a = 0; a < dim; a++)
    if (i[a] < f.core[a][0] || i[a] >= f.core[a][1]) return false;
  return true;
}

/* The Laplacian term of axis A at cell c (padded index p) of u (f's), with its CPML memory in a layer. */
template <int R, int A>
__device__ static inline float AxisTerm(const Fields &f, const float *__restrict__ u, ptrdiff_t c, const PetscInt i[3], const PetscInt p[3])
{
  const float d2   = fwi_d2(u + c, f.stride[A], f.c2[A], R);
  const int   side = LayerSide(f, A, i);
  if (side < 0) return d2;
  const LayerSlab &s = f.slab[A][side];
  const ptrdiff_t  q = SlabIndex(&s, A, p);
  const float     *pb = f.pml_b[A] + p[A];
  return fwi_cpml_term(d2, fwi_d1(u + c, f.stride[A], f.c1[A], R), fwi_d1_weighted(s.psi + q, s.stride[A], pb, f.c1[A], R), f.pml_a[A][p[A]],
                       f.pml_da[A][p[A]], pb[0], &s.zeta[q]);
}

/* Runs BODY(i, p, c) for the thread's cell of box b (BoxCell): i owned index, p padded, c offset. */
#define FOR_THREAD_CELL(f, b, DIM, ...) \
  do { \
    PetscInt i[3]; \
    if (!BoxCell(b, i)) return; \
    const PetscInt  p[3] = {i[0] + R, i[1] + R, DIM == 3 ? i[2] + R : 0}; \
    const ptrdiff_t c    = p[0] + p[1] * (f).stride[1] + p[2] * (f).stride[2]; \
    __VA_ARGS__; \
  } while (0)

/* Forward leapfrog of the box's cells outside the core; the sum is
   (term_z + term_x) + term_y as on the CPU.  u, uprev and vdt2 are f's, as
   __restrict__ parameters (see ColumnKernel). */
template <int R, int DIM, bool STORE>
__global__ void __launch_bounds__(CUDA_CELL_THREADS)
  LayerStepKernel(const Fields f, const Box b, const float *__restrict__ u, float *__restrict__ uprev, const float *__restrict__ vdt2)
{
  FOR_THREAD_CELL(f, b, DIM, {
    float lap = AxisTerm<R, 0>(f, u, c, i, p) + AxisTerm<R, 1>(f, u, c, i, p);
    if (DIM == 3) lap += AxisTerm<R, DIM == 3 ? 2 : 1>(f, u, c, i, p);
    if (STORE) f.lap[c] = lap;
    uprev[c] = fwi_leapfrog(u[c], uprev[c], vdt2[c], lap);
  });
}

/* psi <- b psi + a du/dx on every axis whose layer holds the cell; u is f's
   (a __restrict__ parameter: see ColumnKernel). */
template <int R, int DIM>
__global__ void __launch_bounds__(CUDA_CELL_THREADS) MemoryKernel(const Fields f, const Box b, const float *__restrict__ u)
{
  FOR_THREAD_CELL(f, b, DIM, {
    for (int a = 0; a < DIM; a++) {
      const int side = LayerSide(f, a, i);
      if (side < 0) continue;
      const LayerSlab &s = f.slab[a][side];
      const ptrdiff_t  q = SlabIndex(&s, a, p);
      s.psi[q]           = fwi_cpml_psi(s.psi[q], fwi_d1(u + c, f.stride[a], f.c1[a], R), f.pml_a[a][p[a]], f.pml_b[a][p[a]]);
    }
  });
}

/* Boundary gradient method, a core cell: the forward field one step back
   (fuprev <- u^{n-1}) and the gradient term with its Laplacian; adj: the
   adjoint field at the cell. */
template <int R, int DIM>
__device__ static inline void BackwardAndImage(const Fields &f, ptrdiff_t c, float adj)
{
  float lap = fwi_d2(f.fu + c, 1, f.c2[0], R) + fwi_d2(f.fu + c, f.stride[1], f.c2[1], R);
  if (DIM == 3) lap += fwi_d2(f.fu + c, f.stride[2], f.c2[2], R);
  f.fuprev[c] = fwi_leapfrog(f.fu[c], f.fuprev[c], f.vdt2[c], lap);
  f.grad[c] += adj * lap;
}

/* The gradient term of the stored method, from uprev's value before it is
   overwritten: of one step (lap), of two (lap_next too: grad once per two
   steps) or none. */
__device__ static inline void ImageStored(const Fields &f, ptrdiff_t c, float adj, float uprev)
{
  if (f.lap_next) f.grad[c] = (f.grad[c] + uprev * f.lap_next[c]) + adj * f.lap[c];
  else if (f.lap) f.grad[c] += adj * f.lap[c];
}

/* What the core kernel images: nothing (forward), the stored term
   (ImageStored) or the forward field run backwards (BackwardAndImage);
   each its own kernel, so the forward's registers stay few. */
typedef enum { IMAGE_NONE, IMAGE_STORED, IMAGE_BACKWARD } Image;

/* How many cells ahead of the one it updates a thread of ColumnKernel has
   its reads of u (the queue's head), uprev and vdt2 under way.  Without
   it each cell's reads wait out a whole memory latency with only the
   resident warps' reads in flight, too few to keep the memory busy. */
#define CUDA_AHEAD 2

/* ColumnKernel's shared-memory tile (Fields.gpu_tile_shared): each step,
   the block's plane of u across the runs (axes 0 and 1 in 3D: CUDA_BX x
   rows cells and R more on each side; in 2D each thread row's strip along
   axis 0, R more on each side), so the neighbours across the run are read
   from shared memory, once per block, rather than each through the L1
   cache by every thread that needs them.  Tile cell (x, y), x in [-R,
   CUDA_BX + R) and y in [-HY, rows + HY), is thread (x, y)'s cell or its
   neighbour; the corners are never read, so never filled.  A cell is
   filled where it lies within R of the box across the runs, which is
   inside the array: further cells are no thread's neighbour. */
template <int R, int DIM>
struct Tile {
  static constexpr int HY = DIM == 3 ? R : 0, W = CUDA_BX + 2 * R, CELLS = (CUDA_MAX_ROWS + 2 * HY) * W;
  PetscInt             base0, hi0, base1, hi1, hiS, run, k0;
  ptrdiff_t            s1, s2;

  /* The block's first cell, as ColumnKernel numbers its threads. */
  __device__ Tile(const Fields &f, const Box &b, PetscInt run_, PetscInt k0_)
  {
    base0 = b.lo[0] + (PetscInt)(blockIdx.x * CUDA_BX);
    base1 = DIM == 3 ? b.lo[1] + (PetscInt)(blockIdx.y * blockDim.y) : (PetscInt)(blockIdx.y * blockDim.y);
    hi0   = b.hi[0];
    hi1   = b.hi[1];
    hiS   = b.hi[DIM - 1];
    run   = run_;
    k0    = k0_; /* 3D: the block's runs' first index along axis 2; 2D: axis 1's first */
    s1    = f.stride[1];
    s2    = f.stride[2];
  }
  /* Offset in the field of tile cell (x, y) at step j of the runs, and
     whether it is to be filled. */
  __device__ bool Cell(int x, int y, PetscInt j, ptrdiff_t *c) const
  {
    const PetscInt i0 = base0 + x;
    if (DIM == 3) {
      *c = (i0 + R) + (base1 + y + R) * s1 + (k0 + j + R) * s2;
      return i0 < hi0 + R && base1 + y < hi1 + R;
    }
    const PetscInt iS = k0 + (base1 + y) * run + j; /* thread row y's run */
    *c                = (i0 + R) + (iS + R) * s1;
    return i0 < hi0 + R && iS < hiS;
  }
  static __device__ int Index(int x, int y) { return (y + HY) * W + x + R; }

  /* Fills buffer t with step j's plane: the thread's own cell (its value
     `own` when its run holds the cell, else read) and its share of the
     halo, 2 HY rows of CUDA_BX cells and 2 R columns of `rows`. */
  __device__ void Fill(float *t, const float *__restrict__ u, PetscInt j, bool own_in_run, float own) const
  {
    const int x = (int)threadIdx.x, y = (int)threadIdx.y, rows = (int)blockDim.y;
    const int across = 2 * HY * CUDA_BX, halo = across + 2 * R * rows;
    ptrdiff_t c;
    const bool fill = Cell(x, y, j, &c);
    t[Index(x, y)]  = own_in_run ? own : fill ? u[c] : 0.0f;
    for (int h = y * CUDA_BX + x; h < halo; h += CUDA_BX * rows) {
      int hx, hy;
      if (h < across) { /* rows below and above the block's, contiguous along axis 0 */
        hx = h % CUDA_BX;
        hy = h / CUDA_BX < HY ? h / CUDA_BX - HY : rows + h / CUDA_BX - HY;
      } else { /* R cells left and right of each row */
        const int k = (h - across) % (2 * R);
        hy          = (h - across) / (2 * R);
        hx          = k < R ? k - R : CUDA_BX + k - R;
      }
      t[Index(hx, hy)] = Cell(hx, hy, j, &c) ? u[c] : 0.0f;
    }
  }
};

/* Core cells, forward or adjoint (no CPML terms either way; the adjoint's
   layers are corrected afterwards), with the adjoint's gradient term as
   IMAGE says.  A block is CUDA_BX x blockDim.y threads; the thread's run
   of `run` cells along the last axis S streams u through a register queue
   q (q[R + j]: u at the cell j ahead), so the axis-S neighbours are read
   once per run instead of once per cell; uprev and vdt2 stream through
   up[] and v[] (up[j], v[j]: the cell j ahead).  Reads past the run's
   reach give 0, never used.  The neighbours across the run come from u
   through the L1 cache, or with TILE from a shared-memory Tile, double
   buffered so that one barrier a step keeps a plane's readers ahead of
   its next filling; every thread of the block then takes the same steps
   (the block's longest run), as barriers need, doing nothing past its own
   run or outside the box.  u, uprev and vdt2 come as __restrict__
   parameters (the same arrays as f's): without them the compiler must
   assume that the store to uprev may change u or vdt2, and issues no load
   of the next cell before the last cell's store. */
template <int R, int DIM, bool STORE, Image IMAGE, bool TILE>
__global__ void __launch_bounds__(CUDA_BX *CUDA_MAX_ROWS)
  ColumnKernel(const Fields f, const Box b, PetscInt run, const float *__restrict__ u, float *__restrict__ uprev, const float *__restrict__ vdt2)
{
  constexpr int  S   = DIM - 1, A = CUDA_AHEAD;
  const PetscInt row = (PetscInt)(blockIdx.y * blockDim.y + threadIdx.y);
  const PetscInt i0  = b.lo[0] + (PetscInt)(blockIdx.x * CUDA_BX + threadIdx.x);
  /* 3D: a thread row per index of axis 1, runs along axis 2 by grid z; 2D: each thread row a run along axis 1 */
  const PetscInt i1     = DIM == 3 ? b.lo[1] + row : 0;
  const PetscInt k0     = b.lo[S] + (DIM == 3 ? (PetscInt)blockIdx.z : row) * run;
  const bool     in_box = i0 < b.hi[0] && (DIM == 2 || i1 < b.hi[1]) && k0 < b.hi[S];
  if (!TILE && !in_box) return;
  const PetscInt k1 = in_box ? min(k0 + run, b.hi[S]) : k0;
  /* where the thread's steps end: its run's end, or with TILE the block's longest run's (in 3D a block's runs all end alike) */
  const PetscInt  kend = !TILE ? k1 : k0 + (DIM == 3 ? min(run, b.hi[S] - k0) : run);
  const ptrdiff_t sS    = f.stride[S];
  ptrdiff_t       c     = (i0 + R) + (DIM == 3 ? (i1 + R) * f.stride[1] : 0) + (k0 + R) * sS;
  float           q[2 * R + 1 + A], up[A + 1], v[A + 1];
  __shared__ float tile[TILE ? 2 * Tile<R, DIM>::CELLS : 1];
  const Tile<R, DIM> plane(f, b, run, DIM == 3 ? k0 : b.lo[S]);

  /* the run reads u up to R cells past its end */
#pragma unroll
  for (int k = 0; k < 2 * R + A; k++) q[k + 1] = (!TILE || in_box) && k0 + k - R < k1 + R ? u[c + (k - R) * sS] : 0.0f;
#pragma unroll
  for (int j = 0; j < A; j++) {
    up[j + 1] = k0 + j < k1 ? uprev[c + j * sS] : 0.0f;
    v[j + 1]  = k0 + j < k1 ? vdt2[c + j * sS] : 0.0f;
  }
#pragma unroll 4
  for (PetscInt iS = k0; iS < kend; iS++, c += sS) {
#pragma unroll
    for (int k = 0; k < 2 * R + A; k++) q[k] = q[k + 1];
#pragma unroll
    for (int j = 0; j < A; j++) {
      up[j] = up[j + 1];
      v[j]  = v[j + 1];
    }
    const bool ahead = iS + A < k1;
    q[2 * R + A]     = ahead ? u[c + (R + A) * sS] : 0.0f;
    up[A]            = ahead ? uprev[c + A * sS] : 0.0f;
    v[A]             = ahead ? vdt2[c + A * sS] : 0.0f;
    float lap;
    if (TILE) {
      const PetscInt j   = iS - k0;
      float         *buf = tile + (j % 2) * Tile<R, DIM>::CELLS, *t = buf + Tile<R, DIM>::Index((int)threadIdx.x, (int)threadIdx.y);
      plane.Fill(buf, u, j, iS < k1, q[R]);
      __syncthreads();
      lap = fwi_d2(t, 1, f.c2[0], R);
      if (DIM == 3) lap += fwi_d2(t, Tile<R, DIM>::W, f.c2[1], R);
      if (iS >= k1) continue;
    } else {
      lap = fwi_d2(u + c, 1, f.c2[0], R);
      if (DIM == 3) lap += fwi_d2(u + c, f.stride[1], f.c2[1], R);
    }
    lap += fwi_d2(q + R, 1, f.c2[S], R);
    if (STORE) f.lap[c] = lap;
    if (IMAGE == IMAGE_STORED) ImageStored(f, c, q[R], up[0]);
    if (IMAGE == IMAGE_BACKWARD) {
      const PetscInt i[3] = {i0, DIM == 3 ? i1 : iS, DIM == 3 ? iS : 0};
      if (InCore(f, DIM, i)) BackwardAndImage<R, DIM>(f, c, q[R]);
    }
    uprev[c] = fwi_leapfrog(q[R], up[0], v[0], lap);
  }
}

/* ColumnKernel over box extents e[3] in Fields.gpu_tile's shape, with or
   without the shared-memory tile (CudaLanes). */
template <int R, int DIM, bool STORE, Image IMAGE>
static void LaunchColumns(const Fields *f, const Box *b, const PetscInt e[3], cudaStream_t stream)
{
  const CudaLanes *l = (const CudaLanes *)f->backend;
  PetscInt64       g[3]; /* within CUDA's limits: FieldsGpuTileCheck at LanesCreate, for the largest box */
  FieldsGpuTileGrid(DIM, (PetscInt)l->rows, (PetscInt)l->run, e, g);
  const dim3   grid((unsigned)g[0], (unsigned)g[1], (unsigned)g[2]), block(CUDA_BX, l->rows);
  const float *u = f->u, *vdt2 = f->vdt2;
  if (l->tile) CudaLaunch(ColumnKernel<R, DIM, STORE, IMAGE, true>, grid, block, stream, *f, *b, (PetscInt)l->run, u, f->uprev, vdt2);
  else CudaLaunch(ColumnKernel<R, DIM, STORE, IMAGE, false>, grid, block, stream, *f, *b, (PetscInt)l->run, u, f->uprev, vdt2);
}

typedef enum { PASS_CORE, PASS_CORE_STORE, PASS_LAYERS, PASS_LAYERS_STORE, PASS_MEMORY, PASS_ADJOINT } Pass;

template <int R, int DIM>
static void Launch(const Fields *f, const Box *b, Pass pass, const PetscInt e[3], cudaStream_t stream)
{
  const dim3   cells = BoxCellGrid(e), threads(CUDA_CELL_THREADS);
  const float *u = f->u, *vdt2 = f->vdt2;
  switch (pass) {
  case PASS_CORE: LaunchColumns<R, DIM, false, IMAGE_NONE>(f, b, e, stream); break;
  case PASS_CORE_STORE: LaunchColumns<R, DIM, true, IMAGE_NONE>(f, b, e, stream); break;
  case PASS_ADJOINT:
    if (f->fu) LaunchColumns<R, DIM, false, IMAGE_BACKWARD>(f, b, e, stream);
    else LaunchColumns<R, DIM, false, IMAGE_STORED>(f, b, e, stream);
    break;
  case PASS_LAYERS: CudaLaunch(LayerStepKernel<R, DIM, false>, cells, threads, stream, *f, *b, u, f->uprev, vdt2); break;
  case PASS_LAYERS_STORE: CudaLaunch(LayerStepKernel<R, DIM, true>, cells, threads, stream, *f, *b, u, f->uprev, vdt2); break;
  case PASS_MEMORY: CudaLaunch(MemoryKernel<R, DIM>, cells, threads, stream, *f, *b, u); break;
  }
}

static PetscErrorCode BoxPass(Fields *f, const Box *b, Pass pass)
{
  PetscInt e[3];

  PetscFunctionBeginUser;
  for (int a = 0; a < 3; a++) e[a] = b->hi[a] - b->lo[a];
  if (e[0] <= 0 || e[1] <= 0 || e[2] <= 0) PetscFunctionReturn(0);
#define LAUNCH_CASE(R, DIM) \
  case 10 * R + DIM: Launch<R, DIM>(f, b, pass, e, CudaLane(f)); break;
  switch (f->radius * 10 + f->dim) {
    FWI_KERNEL_VARIANTS(LAUNCH_CASE)
  default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No CUDA kernel for radius %" PetscInt_FMT " in %" PetscInt_FMT "D", f->radius, f->dim);
  }
#undef LAUNCH_CASE
  CUDA_LAUNCHED();
  PetscFunctionReturn(0);
}

/* Box b's core part (*core) and its cells outside the core as up to 2
   slabs an axis (out[], *nout; BoxShell). */
static void OutsideCore(const Fields *f, const Box *b, Box *core, Box out[6], PetscInt *nout)
{
  *core = *b;
  for (int a = 0; a < f->dim; a++) {
    core->lo[a] = PetscMax(b->lo[a], PetscMin(b->hi[a], f->core[a][0]));
    core->hi[a] = PetscMax(core->lo[a], PetscMin(b->hi[a], f->core[a][1]));
  }
  BoxShell(f->dim, b, core, out, nout);
}

/* The core part of the box with the column kernel, then its layer slabs. */
PetscErrorCode CudaStep(Fields *f, const Box *b)
{
  Box      core, slab[6];
  PetscInt nslab;

  PetscFunctionBeginUser;
  OutsideCore(f, b, &core, slab, &nslab);
  PetscCall(BoxPass(f, &core, f->lap ? PASS_CORE_STORE : PASS_CORE));
  for (PetscInt k = 0; k < nslab; k++) PetscCall(BoxPass(f, &slab[k], f->lap ? PASS_LAYERS_STORE : PASS_LAYERS));
  PetscFunctionReturn(0);
}

/* The memory update touches layer cells only: the slabs outside the core. */
PetscErrorCode CudaAdvanceMemory(Fields *f, const Box *b)
{
  Box      core, slab[6];
  PetscInt nslab;

  PetscFunctionBeginUser;
  OutsideCore(f, b, &core, slab, &nslab);
  for (PetscInt k = 0; k < nslab; k++) PetscCall(BoxPass(f, &slab[k], PASS_MEMORY));
  PetscFunctionReturn(0);
}

PetscErrorCode CudaAdjointStep(Fields *f, const Box *b) { return BoxPass(f, b, PASS_ADJOINT); }
