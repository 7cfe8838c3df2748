#include "equations/staggered.h"
#include <omp.h>
#include <string.h>

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
  r[0] = r[1] = R;
  for (PetscInt lo = R, hi; lo < n - R; lo = hi + 1) {
    for (hi = lo; hi < n - R && b[hi] == 0; hi++) {}
    if (hi - lo > r[1] - r[0]) r[0] = lo, r[1] = hi;
  }
}

PetscReal StaggeredStableStep(const Grid *g, PetscReal vmax)
{
  double    c[FWI_MAX_RADIUS + 1], sum = 0;
  PetscReal inv = 0;

  StaggeredWeights(g->radius, c);
  for (PetscInt k = 1; k <= g->radius; k++) sum += PetscAbsReal(c[k]);
  for (PetscInt a = 0; a < g->dim; a++) inv += 1.0 / (g->d[a] * g->d[a]);
  return 1.0 / (vmax * sum * PetscSqrtReal(inv));
}

void StaggeredBlockGeometry(const Grid *g, PetscInt n[3], PetscInt padded[3], ptrdiff_t stride[3], size_t *ncells, PetscBool free_surface[3][2], float w[3][FWI_MAX_RADIUS + 1])
{
  double    c[FWI_MAX_RADIUS + 1];
  GridBlock b;

  *ncells = GridPaddedCells(g, padded);
  GridPaddedStrides(g, stride);
  GridBlockOf(g, &b);
  for (PetscInt a = 0; a < 3; a++) {
    n[a] = g->size[a];
    for (PetscInt side = 0; side < 2; side++) free_surface[a][side] = a < g->dim && b.free_surface[a][side] ? PETSC_TRUE : PETSC_FALSE;
  }
  StaggeredWeights(g->radius, c);
  for (PetscInt a = 0; a < g->dim; a++)
    for (PetscInt m = 1; m <= g->radius; m++) w[a][m] = (float)(c[m] / g->d[a]);
}

/* The slab of axis a outside the plain range [lo, hi) (none: lo = hi) on
   a padded box of dim axes; the axes beyond dim have a stride of 0, so
   that whatever coordinate the rows give them (R) counts for nothing. */
static void SlabOf(PetscInt dim, const PetscInt padded[3], PetscInt R, PetscInt a, PetscInt lo, PetscInt hi, StaggeredSlab *sl)
{
  ptrdiff_t step = 1;

  hi  = PetscMax(lo, hi);
  *sl = (StaggeredSlab){a, R, lo, hi, padded[a], {0, 0, 0}, 1};
  for (PetscInt k = 0; k < dim; k++) {
    const PetscInt extent = k == a ? padded[a] - 2 * R - (hi - lo) : padded[k];
    sl->stride[k]         = step;
    step *= extent;
  }
  sl->ncells = (size_t)step;
}

double StaggeredSlabCells(const Grid *g, PetscInt a)
{
  PetscInt  padded[3], core[3][2];
  GridBlock b;
  double    cells = 1; /* of a slice across axis a: a slab's rows are dense */

  (void)GridPaddedCells(g, padded);
  for (PetscInt k = 0; k < 3; k++) cells *= k == a ? 1 : padded[k];
  GridBlockOf(g, &b);
  GridBlockCore(&b, core);
  /* and the core's last cell where a layer follows it: its node lies on the layer's edge, where the profile is not 0 */
  return cells * (g->size[a] - (core[a][1] - core[a][0]) + (b.layer[a][1] && core[a][1] > core[a][0] && b.layer_edge[a][1] <= g->size[a] ? 1 : 0));
}

PetscErrorCode StaggeredProfilesCreate(const Grid *g, const BackendOps *b, const EquationStateSettings *settings, float *pa[3], float *pb[3], float *ha[3], float *hb[3],
                                       PetscInt plain[3][2][2], StaggeredSlab slab[3])
{
  PetscInt padded[3];
  float   *scratch;

  PetscFunctionBeginUser;
  (void)GridPaddedCells(g, padded);
  /* the profiles on the host, then in backend memory */
  PetscCall(PetscMalloc1(5 * PetscMax(padded[0], PetscMax(padded[1], padded[2])), &scratch));
  for (PetscInt a = 0; a < g->dim; a++) {
    const size_t n = padded[a];
    float *const w[4] = {scratch, scratch + n, scratch + 2 * n, scratch + 3 * n}, **const dev[4] = {&pa[a], &pb[a], &ha[a], &hb[a]};
    PetscCall(GridLayerProfile(g, a, settings->vmax, settings->f_pml, settings->dt, w[0], w[1], scratch + 4 * n));
    GridLayerProfileHalf(g, a, settings->vmax, settings->f_pml, settings->dt, w[2], w[3]);
    StaggeredPlainRange(padded[a], g->radius, w[1], plain[a][0]);
    StaggeredPlainRange(padded[a], g->radius, w[3], plain[a][1]);
    SlabOf(g->dim, padded, g->radius, a, PetscMax(plain[a][0][0], plain[a][1][0]), PetscMin(plain[a][0][1], plain[a][1][1]), &slab[a]);
    for (PetscInt k = 0; k < 4; k++) {
      PetscCall(b->mem_alloc((void **)dev[k], n * sizeof(float)));
      PetscCall(b->mem_upload(*dev[k], w[k], n * sizeof(float)));
    }
  }
  PetscCall(PetscFree(scratch));
  PetscFunctionReturn(0);
}

PetscErrorCode StaggeredProfilesDestroy(PetscInt dim, const BackendOps *b, float *pa[3], float *pb[3], float *ha[3], float *hb[3])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < dim; a++) {
    float **const dev[4] = {&pa[a], &pb[a], &ha[a], &hb[a]};
    for (PetscInt k = 0; k < 4; k++) PetscCall(b->mem_free((void **)dev[k]));
  }
  PetscFunctionReturn(0);
}

PetscBool StaggeredBandAcross(const Grid *g, const Box *core, PetscInt field, PetscInt a, PetscInt side, PetscInt node, PetscInt L, PetscInt H, StaggeredBand *band)
{
  const PetscInt R = g->radius;

  band->field     = field;
  band->box       = *core;
  band->box.lo[a] = PetscMax(0, side ? H - node : L - R + 1 - node);
  band->box.hi[a] = PetscMax(band->box.lo[a], PetscMin(g->size[a], side ? H - 1 + R : L));
  return BoxCells(&band->box) ? PETSC_TRUE : PETSC_FALSE;
}

void StaggeredBandCopy(const Grid *g, PetscInt nband, const StaggeredBand *band, float *const f[], PetscBool save, unsigned mask, float *buf)
{
  size_t at = 0;

  for (PetscInt k = 0; k < nband; k++) {
    const Box     *b = &band[k].box;
    const PetscInt m = b->hi[0] - b->lo[0];
    if (!save && !(mask >> band[k].field & 1)) {
      at += BoxCells(b);
      continue;
    }
    for (PetscInt z = b->lo[2]; z < b->hi[2]; z++)
      for (PetscInt y = b->lo[1]; y < b->hi[1]; y++, at += m) {
        const PetscInt q[3] = {b->lo[0], y, z};
        float *const   x    = f[band[k].field] + GridPaddedIndex(g, q);
        if (save) memcpy(buf + at, x, m * sizeof(float));
        else memcpy(x, buf + at, m * sizeof(float));
      }
  }
}

void StaggeredBandCopyLayer(const Grid *g, PetscInt nband, const StaggeredBand *band, float *const f[], PetscBool save, unsigned mask, float *buf, PetscInt l)
{
  const PetscInt o = g->dim - 1; /* the outermost axis: 1 in 2D, 2 in 3D */
  size_t         at = 0;

  for (PetscInt k = 0; k < nband; k++) {
    const Box     *b = &band[k].box;
    const PetscInt m = b->hi[0] - b->lo[0], ny = o == 2 ? b->hi[1] - b->lo[1] : 1;
    if ((save || mask >> band[k].field & 1) && l >= b->lo[o] && l < b->hi[o])
      for (PetscInt y = 0; y < ny; y++) {
        const PetscInt q[3] = {b->lo[0], o == 2 ? b->lo[1] + y : l, o == 2 ? l : b->lo[2]};
        float *const   x    = f[band[k].field] + GridPaddedIndex(g, q), *const kept = buf + at + ((size_t)(l - b->lo[o]) * ny + y) * m;
        if (save) memcpy(kept, x, m * sizeof(float));
        else memcpy(x, kept, m * sizeof(float));
      }
    at += BoxCells(b);
  }
}

void StaggeredFusedSweep(PetscInt N, PetscInt R, PetscInt K, void (*layer)(void *ctx, PetscInt j, PetscInt stage), void *ctx)
{
#pragma omp parallel
  {
    const PetscInt T = omp_get_num_threads(), t = omp_get_thread_num();
    const PetscInt lo = N * t / T, hi = N * (t + 1) / T;
    /* stage k's layers that read and write this share alone: k R in from a
       seam with another share */
#define STAGGERED_FIRST(k) (lo > 0 ? lo + (k) * R : lo)
#define STAGGERED_END(k)   (hi < N ? hi - (k) * R : hi)
    for (PetscInt j = lo; j < hi + (K - 1) * R; j++)
      for (PetscInt k = 0; k < K; k++)
        if (j - k * R >= STAGGERED_FIRST(k) && j - k * R < STAGGERED_END(k)) layer(ctx, j - k * R, k);
    /* the rest, stage by stage once every thread has passed the one before */
    for (PetscInt k = 1; k < K; k++) {
#pragma omp barrier
      for (PetscInt j = lo; j < hi; j++)
        if (j < STAGGERED_FIRST(k) || j >= STAGGERED_END(k)) layer(ctx, j, k);
    }
#undef STAGGERED_FIRST
#undef STAGGERED_END
  }
}
