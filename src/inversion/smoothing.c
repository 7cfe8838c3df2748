#include "inversion/smoothing.h"
#include <math.h>

/* The steps keep sum_a alpha_a at or below this (explicit stability: 1/2). */
#define SMOOTHING_ALPHA_SUM 0.45

PetscErrorCode SmoothingSetUp(const Grid *g, const PetscReal length[3], Smoothing *s)
{
  double var = 0; /* sum over the axes of the variance in cells^2 */

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) var += PetscSqr(length[a] / g->d[a]);
  s->steps = var > 0 ? (PetscInt)ceil(var / (2 * SMOOTHING_ALPHA_SUM)) : 0;
  for (PetscInt a = 0; a < 3; a++) s->alpha[a] = s->steps && a < g->dim ? PetscSqr(length[a] / g->d[a]) / (2.0 * s->steps) : 0;
  s->da = NULL;
  if (s->steps) PetscCall(GridCreateDMDA(g, 1, &s->da));
  PetscFunctionReturn(0);
}

PetscErrorCode SmoothingDestroy(Smoothing *s) { return DMDestroy(&s->da); }

PetscErrorCode SmoothingApply(const Smoothing *s, const ModelSpace *ms, const Grid *g, double *x)
{
  PetscInt           gs[3], gm[3];
  Vec                global, local;
  PetscScalar       *ext;
  const PetscScalar *u;

  PetscFunctionBeginUser;
  if (!s->steps) PetscFunctionReturn(0);
  PetscCall(DMDAGetGhostCorners(s->da, &gs[0], &gs[1], &gs[2], &gm[0], &gm[1], &gm[2]));
  PetscCall(DMGetGlobalVector(s->da, &global));
  PetscCall(DMGetLocalVector(s->da, &local));
  for (PetscInt step = 0; step < s->steps; step++) {
    /* the layers copy the nearest user cell: zero flux across the model's edges */
    PetscCall(VecGetArrayWrite(global, &ext));
    PetscCall(ModelSpaceExtend(ms, MPI_DOUBLE, x, ext));
    PetscCall(VecRestoreArrayWrite(global, &ext));
    PetscCall(DMGlobalToLocal(s->da, global, INSERT_VALUES, local));
    PetscCall(VecGetArrayRead(local, &u));
    for (PetscInt k = 0; k < ms->n[2]; k++)
      for (PetscInt j = 0; j < ms->n[1]; j++)
        for (PetscInt i = 0; i < ms->n[0]; i++) {
          const PetscInt e[3] = {ms->lo[0] + i + g->pml[0][0], ms->lo[1] + j + g->pml[1][0], ms->lo[2] + k + g->pml[2][0]};
          const PetscInt c    = (e[0] - gs[0]) + gm[0] * ((e[1] - gs[1]) + gm[1] * (e[2] - gs[2]));
          ptrdiff_t      stride = 1;
          double         sum    = 0;
          for (PetscInt a = 0; a < g->dim; a++) {
            /* beyond the grid (a free surface: no layer): the cell itself */
            const double lo = e[a] > 0 ? u[c - stride] : u[c], hi = e[a] < g->N[a] - 1 ? u[c + stride] : u[c];
            sum += s->alpha[a] * (lo - 2 * u[c] + hi);
            stride *= gm[a];
          }
          x[i + ms->n[0] * (j + ms->n[1] * k)] = u[c] + sum;
        }
    PetscCall(VecRestoreArrayRead(local, &u));
  }
  PetscCall(DMRestoreLocalVector(s->da, &local));
  PetscCall(DMRestoreGlobalVector(s->da, &global));
  PetscFunctionReturn(0);
}
