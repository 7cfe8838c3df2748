/* -mode invert: one Tao on the world (docs/architecture.md): group
   0 owns the model Vec, every evaluation broadcasts it over the cross comm,
   every group models its shots and the gradient comes back to group 0. */
#include "program/invert.h"
#include "inversion/tao.h"
#include "inversion/estimate.h"
#include "inversion/objective.h"
#include "setup/output.h"
#include "inversion/pseudohessian.h"
#include "inversion/qc.h"
#include "inversion/smoothing.h"
#include "inversion/replay.h"
#include "program/stop.h"
#include "data/timing.h"
#include "data/util.h"
#include "data/exactsum.h"
#include <petscksp.h>
#include <petsctao.h>

/* One row of misfit.csv. */
typedef struct {
  double   values[5]; /* the data misfit, the objective's gradient norm, step, seconds, the objective (the misfit plus -damping's term) */
  PetscInt band, iteration;
} MisfitRow;

typedef struct {
  Objective      obj;
  const Options *o;
  Vec            X, XL, XU;
  double        *weight;    /* gradient mask and tapers, this rank's user cells on group 0 */
  double        *precond;   /* -precondition: 1 / the pseudo-Hessian, likewise; NULL: none */
  Smoothing      smooth;    /* -gradient_smoothing */
  double        *work;      /* a model-space array of every block for the preconditioner (NULL: none is applied) */
  /* TAO's model: one block of the user cells per parameter inverted
     (-invert_for: the equation's first np parameters, vp first), stacked on
     each rank of group 0; block k holds variable k over scale[k] (1 for vp
     alone), the variables vp or 1/vp (-parameterisation slowness), rho or
     the impedance rho vp (-parameterisation impedance), vs / vp for vs
     (by_vp[b]: ByVp of block b, set with the blocks, for the loops over cells). */
  PetscInt       np, by_vp[EQUATION_MAX_PARAMETERS];
  double         scale[EQUATION_MAX_PARAMETERS];
  double        *gx;        /* the gradient with respect to TAO's variables, every block */
  PetscBool      slowness, impedance;
  float         *vp;        /* the model being evaluated, every group: every parameter of the equation, a block each (vp, then rho; vp, vs, rho) */
  double        *grad;      /* its gradient, a block per parameter inverted, masked and tapered */
  Replay         replay;
  PetscInt       band, iteration, evals; /* band (0-based), iterations over all bands, evaluations in this band */
  PetscInt       band_its, band_max_its; /* iterations of the band's earlier Taos; -tao_max_it */
  PetscReal      fcut, J0;
  double         scale_f;   /* TAO's objective = scale_f x misfit, fixed at the band's first evaluation */
  double         damping_ref; /* -damping's weight: the band's first data misfit */
  double         lo[EQUATION_MAX_PARAMETERS], hi[EQUATION_MAX_PARAMETERS]; /* each block's bounds in TAO's variables */
  double         balance[EQUATION_MAX_PARAMETERS]; /* each block's factor in the preconditioner, set at a band's first evaluation */
  double        *rest[EQUATION_MAX_PARAMETERS];  /* the blocks of grad after vp's, for the objective */
  double         seconds;   /* evaluation time since the last iteration */
  double         band_seconds; /* evaluation time since the band began */
  TimeMark       band_start;   /* the time account when the band began (zero: the process's start) */
  PetscInt       evals_since; /* evaluations since the last iteration */
  PetscBool      stopped;   /* on request (stop.h) */
  PetscInt       nrows, maxrows; /* misfit.csv so far */
  MisfitRow     *rows;
  Qc             qc;        /* -qc_shots */
} Inversion;

/* How block b's TAO variable takes vp: times it (the density, as the
   impedance rho vp with -parameterisation impedance), over it (the S
   velocity, as vs / vp: a box on it bounds vp / vs, so that vs < vp
   whatever vp becomes), or not at all (1, 0, -1). */
static PetscInt ByVp(const Inversion *inv, PetscInt b)
{
  if (b && b == EquationParameterIndex(inv->obj.e.backend.eq, "vs")) return -1;
  return inv->impedance && b && b == ExperimentDensity(&inv->obj.e) ? 1 : 0;
}

/* TAO's variable of block b's value m where the velocity is v: vp or 1/vp
   (-parameterisation slowness) for block 0, rho or rho v (impedance) for
   the density, vs / vp for the S velocity. */
static double ToVariable(const Inversion *inv, PetscInt b, double m, double v)
{
  if (!b) return inv->slowness ? 1 / m : m;
  return inv->by_vp[b] > 0 ? m * v : inv->by_vp[b] < 0 ? m / v : m;
}

/* And back: block b's value of TAO's variable x where the velocity is v. */
static double FromVariable(const Inversion *inv, PetscInt b, double x, double v)
{
  if (!b) return inv->slowness ? 1 / x : x; /* its own inverse */
  return inv->by_vp[b] > 0 ? x / v : inv->by_vp[b] < 0 ? x * v : x;
}

/* The model of X (group 0) on every group, as floats. */
static PetscErrorCode ModelFromVec(Inversion *inv, Vec X)
{
  const PetscScalar *x;
  const PetscInt     n = inv->obj.ms.nlocal;
  float             *vp = inv->vp;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  if (!inv->obj.e.l.group_id)
    for (PetscInt c = 0; c < n; c++) {
      vp[c] = (float)FromVariable(inv, 0, x[c] * inv->scale[0], 0);
      for (PetscInt b = 1; b < inv->np; b++) vp[b * n + c] = (float)FromVariable(inv, b, x[b * n + c] * inv->scale[b], vp[c]);
    }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCallMPI(MPI_Bcast(inv->vp, (PetscMPIInt)(n * inv->np), MPI_FLOAT, 0, inv->obj.e.l.cross));
  PetscFunctionReturn(0);
}

/* The inverse of TAO's first quasi-Newton matrix on group 0's user cells:
   y = S D S x on every block, S the smoothing, D the inverse pseudo-Hessian
   (each the identity when not asked for).  Collective over group 0; nothing elsewhere. */
static PetscErrorCode ApplyP(Inversion *inv, const double *x, double *y)
{
  const PetscInt n = inv->obj.ms.nlocal;

  PetscFunctionBeginUser;
  if (inv->obj.e.l.group_id) PetscFunctionReturn(0);
  PetscCall(PetscArraycpy(y, x, n * inv->np));
  for (PetscInt b = 0; b < inv->np; b++) {
    double *yb = y + b * n;
    PetscCall(SmoothingApply(&inv->smooth, &inv->obj.ms, &inv->obj.e.g, yb));
    for (PetscInt c = 0; c < n && inv->precond; c++) yb[c] *= inv->precond[c];
    PetscCall(SmoothingApply(&inv->smooth, &inv->obj.ms, &inv->obj.e.g, yb));
    for (PetscInt c = 0; c < n && inv->np > 1; c++) yb[c] *= inv->balance[b];
  }
  PetscFunctionReturn(0);
}

/* -damping: J += w sum_c sum_b (m_bc - s_bc)^2 / (s_bc^2 T_c) over the
   blocks inverted and the cells whose weight T_c (mask and tapers,
   inv->weight) is above 0, s the starting model, w = -damping x the
   band's first data misfit / (1e-4 x the cells): T = 1 everywhere makes
   it -damping x that misfit x the mean squared change in percent.  A prior that the data outweigh: in 3D, with
   sources and receivers on one level, the broad near-surface change that
   fits the delays of deeper anomalies costs it more than a compact change
   at their depth.  Over T: TAO's gradient is T times the objective's, the
   misfit's weighted as always, so the term's reaches TAO as
   2 w (m - s) / s^2 whatever the taper, and holds the cells the tapers
   hide from the data as firmly as the others (blobs3d's near surface:
   docs/numerics.md, "Inversion defaults").  Every rank holds the model
   and the gradient; the sum is group 0's cells, over the world. */
/* Block b of the starting model, this rank's user cells. */
static const float *StartBlock(const Inversion *inv, PetscInt b) { return b ? inv->obj.start[b] : inv->obj.vp_start; }

/* The term's weight w (0 without -damping). */
static double DampingWeight(const Inversion *inv)
{
  const PetscInt *user = inv->obj.e.g.n;

  return inv->obj.damping * inv->damping_ref / ((double)user[0] * user[1] * user[2] * 1e-4);
}

/* Block b's change at cell c over its start, (m - s) / s; 0 where the
   start is 0 (a fluid's S velocity, fixed) or the weight is (fixed, or
   on a source or receiver: never moved, as TAO's gradient is 0 there). */
static double RelativeChange(const Inversion *inv, PetscInt b, PetscInt c)
{
  const double s = StartBlock(inv, b)[c];

  return s != 0 && inv->weight[c] > 0 ? (inv->vp[b * inv->obj.ms.nlocal + c] - s) / s : 0;
}

/* The term at the model inv->vp (0 without -damping).  Summed exactly,
   so that it does not depend on how the model is split (a restart on
   other ranks replays the same steps).  Collective over the world. */
static PetscErrorCode DampingTerm(const Inversion *inv, double *term)
{
  ExactSum     sum = {{0}};
  MPI_Datatype type;
  MPI_Op       op;

  PetscFunctionBeginUser;
  *term = 0;
  if (!(inv->obj.damping > 0)) PetscFunctionReturn(0);
  for (PetscInt b = 0; b < inv->np && !inv->obj.e.l.group_id; b++)
    for (PetscInt c = 0; c < inv->obj.ms.nlocal; c++) {
      const double r = RelativeChange(inv, b, c);
      PetscCheck(r == 0 || !ExactSumAdd(&sum, r * r / inv->weight[c]), PETSC_COMM_SELF, PETSC_ERR_FP,
                 "-damping: relative change %g of parameter %" PetscInt_FMT " at cell %" PetscInt_FMT ": expected a finite value", r, b, c);
    }
  PetscCall(ExactSumMPI(&type, &op));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, type, op, inv->obj.e.l.world));
  *term = DampingWeight(inv) * ExactSumValue(&sum);
  PetscFunctionReturn(0);
}

/* J += the term, grad += T times its gradient, at the model inv->vp. */
static PetscErrorCode Damping(Inversion *inv, double *J)
{
  const PetscInt n = inv->obj.ms.nlocal;
  const double   w = DampingWeight(inv);
  double         term;

  PetscFunctionBeginUser;
  PetscCall(DampingTerm(inv, &term));
  *J += term;
  for (PetscInt b = 0; b < inv->np && w > 0; b++)
    for (PetscInt c = 0; c < n; c++) {
      const double r = RelativeChange(inv, b, c);
      if (r != 0) inv->grad[b * n + c] += 2 * w * r / StartBlock(inv, b)[c]; /* 0 also where the start is, which it must not divide */
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode FormFunctionGradient(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  Inversion     *inv = (Inversion *)ctx;
  const PetscInt n   = inv->obj.ms.nlocal;
  PetscScalar   *g;
  PetscBool      cached;
  PetscLogDouble t0, t1;
  double         J, seconds;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(ModelFromVec(inv, X));
  PetscCall(ReplayLookup(&inv->replay, inv->band, inv->evals, inv->vp, &cached, &J, inv->grad, &seconds));
  if (!cached) {
    PetscCall(ObjectiveEvaluate(&inv->obj, inv->vp, &J, inv->grad));
    /* float, as computed: a replayed evaluation then gives TAO the same numbers */
    for (PetscInt b = 0; b < inv->np; b++)
      for (PetscInt c = 0; c < n; c++) inv->grad[b * n + c] = (float)(inv->grad[b * n + c] * inv->weight[c]);
    PetscCall(PetscTime(&t1));
    seconds = t1 - t0;
    PetscCall(ReplaySave(&inv->replay, inv->band, inv->evals, inv->vp, J, inv->grad, seconds));
  }
  if (!inv->evals) inv->damping_ref = J;
  PetscCall(Damping(inv, &J));
  for (PetscInt c = 0; c < n; c++) {
    const double v = inv->vp[c];
    double       gv = inv->grad[c];
    for (PetscInt b = 1; b < inv->np; b++) {
      const double g = inv->grad[b * n + c], m = inv->vp[b * n + c];
      /* m = x v or x / v at fixed x: dJ/dv gains dJ/dm dm/dv, dJ/dx = dJ/dm dm/dx */
      gv += inv->by_vp[b] > 0 ? -g * m / v : inv->by_vp[b] < 0 ? g * m / v : 0;
      inv->gx[b * n + c] = g * (inv->by_vp[b] > 0 ? 1 / v : inv->by_vp[b] < 0 ? v : 1) * inv->scale[b];
    }
    /* dJ/ds = dJ/dv dv/ds = -v^2 dJ/dv */
    inv->gx[c] = gv * (inv->slowness ? -v * v : 1) * inv->scale[0];
  }
  if (!inv->evals) { /* the first step, -(preconditioned) gradient, sized */
    double mine[EQUATION_MAX_PARAMETERS] = {0}, most[EQUATION_MAX_PARAMETERS];
    for (PetscInt b = 0; b < inv->np; b++) inv->balance[b] = 1;
    if (inv->work) PetscCall(ApplyP(inv, inv->gx, inv->work));
    for (PetscInt b = 0; b < inv->np; b++)
      for (PetscInt c = 0; c < n && !inv->obj.e.l.group_id; c++) mine[b] = PetscMax(mine[b], PetscAbsReal(inv->work ? inv->work[b * n + c] : inv->gx[b * n + c]));
    PetscCallMPI(MPI_Allreduce(mine, most, (PetscMPIInt)inv->np, MPI_DOUBLE, MPI_MAX, inv->obj.e.l.world));
    /* with several parameters, the preconditioner weighs each block so
       that its first step moves its busiest cell by the same share of its
       bound range as vp's: a parameter the data see less still moves */
    for (PetscInt b = 1; b < inv->np && inv->work && most[0] > 0; b++)
      if (most[b] > 0) {
        inv->balance[b] = (inv->hi[b] - inv->lo[b]) / most[b] * most[0] / (inv->hi[0] - inv->lo[0]);
        most[b] *= inv->balance[b];
        for (PetscInt c = 0; c < n && !inv->obj.e.l.group_id; c++) inv->work[b * n + c] *= inv->balance[b];
      }
    /* where TAO's first step in a band is minus the (preconditioned)
       gradient, the objective it sees is scaled so that this step changes
       no cell of any parameter by more than -first_step of its bound range
       (the later steps learn their own); blmvm and lmvm without an initial
       Hessian size it themselves, from f and |g| together, which this
       scale leaves alone */
    inv->scale_f = 0;
    for (PetscInt b = 0; b < inv->np; b++)
      if (most[b] > 0) {
        const double s = inv->obj.o->first_step * (inv->hi[b] - inv->lo[b]) / most[b];
        inv->scale_f   = inv->scale_f > 0 ? PetscMin(inv->scale_f, s) : s;
      }
    if (!(inv->scale_f > 0)) inv->scale_f = 1;
  }
  inv->evals++;
  inv->evals_since++;
  inv->seconds += seconds;
  PetscCall(VecGetArray(G, &g));
  if (!inv->obj.e.l.group_id)
    for (PetscInt c = 0; c < n * inv->np; c++) g[c] = inv->scale_f * inv->gx[c];
  PetscCall(VecRestoreArray(G, &g));
  *f = inv->scale_f * J;
  PetscFunctionReturn(0);
}

/* Rank 0: misfit.csv, rewritten whole. */
static PetscErrorCode WriteMisfit(void *ctx)
{
  const Inversion *inv = (const Inversion *)ctx;
  Text             t;

  PetscFunctionBeginUser;
  PetscCall(TextOpen(&t));
  fprintf(t.fp, "band,iteration,misfit,gradient_norm,step,seconds,objective\n");
  for (PetscInt k = 0; k < inv->nrows; k++) {
    const MisfitRow *row = &inv->rows[k];
    fprintf(t.fp, "%d,%d,%.9e,%.9e,%.9e,%.3f,%.9e\n", (int)row->band, (int)row->iteration, row->values[0], row->values[1], row->values[2], row->values[3], row->values[4]);
  }
  PetscCall(TextWrite(&t, inv->o->output_dir, "misfit.csv"));
  PetscFunctionReturn(0);
}

/* Adds a row to -output_dir/misfit.csv (band, iteration, misfit, gradient norm, step, seconds, objective). */
static PetscErrorCode LogIteration(Inversion *inv, MisfitRow row)
{
  PetscFunctionBeginUser;
  PetscCall(ArrayReserve(sizeof(MisfitRow), inv->nrows, &inv->maxrows, &inv->rows));
  inv->rows[inv->nrows++] = row;
  PetscCall(RootRun(inv->obj.e.l.world, WriteMisfit, inv));
  PetscFunctionReturn(0);
}

/* Each parameter inverted as NAME_NNNN (iteration >= 0) or NAME (-1) on
   the user's grid: vp_0003.rsf, rho_0003.rsf. */
static PetscErrorCode WriteModels(Inversion *inv, PetscInt iteration, PetscBool overwrite)
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < inv->np; b++) {
    const char *param = inv->obj.e.backend.eq->parameter[b].name;
    char        stem[64], name[PETSC_MAX_PATH_LEN];
    if (iteration >= 0) PetscCall(PetscSNPrintf(stem, sizeof(stem), "%s_%04" PetscInt_FMT, param, iteration));
    else PetscCall(PetscStrncpy(stem, param, sizeof(stem)));
    PetscCall(OutputName(stem, inv->obj.o->output_format, name));
    PetscCall(ObjectiveWriteModel(&inv->obj, name, param, inv->obj.e.backend.eq->parameter[b].label, inv->obj.e.backend.eq->parameter[b].unit, inv->vp + b * inv->obj.ms.nlocal,
                                  overwrite));
    if (iteration < 0) PetscCall(PetscPrintf(inv->obj.e.l.world, "inverted %s -> %s/%s\n", param, inv->o->output_dir, name));
  }
  PetscFunctionReturn(0);
}

/* Whether TAO prints its own monitor, whose objective is scaled. */
static PetscBool TaoMonitored(void)
{
  PetscBool set = PETSC_FALSE;

  (void)PetscOptionsHasName(NULL, NULL, "-tao_monitor", &set);
  return set;
}

/* Per iteration: the model, a misfit.csv row, a progress line; and the
   stop check, on every rank at once. */
static PetscErrorCode Monitor(Tao tao, void *ctx)
{
  Inversion         *inv = (Inversion *)ctx;
  PetscInt           its, max_its;
  PetscReal          f, gnorm, step;
  double             term, misfit;
  char               objective[64] = ""; /* with -damping, for the progress line */
  TaoConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(TaoGetSolutionStatus(tao, &its, &f, &gnorm, NULL, &step, &reason));
  f /= inv->scale_f;
  gnorm /= inv->scale_f;
  /* the data misfit: TAO's objective less -damping's term at its model */
  PetscCall(ModelFromVec(inv, inv->X));
  PetscCall(DampingTerm(inv, &term));
  misfit = f - term;
  if (its == 0 && inv->band_its) { /* a later Tao of the band: the model is the last iteration's, the wavelet new */
    PetscCall(PetscPrintf(inv->obj.e.l.world, "band %" PetscInt_FMT " after iteration %" PetscInt_FMT ": misfit %.6e with the new wavelet\n", inv->band + 1, inv->band_its, misfit));
    PetscFunctionReturn(0);
  }
  if (its == 0) {
    inv->J0 = misfit;
    if (TaoMonitored())
      PetscCall(PetscPrintf(inv->obj.e.l.world,
                            "band %" PetscInt_FMT ": -tao_monitor shows TAO's objective, the misfit x %.6g, and its gradient's norm likewise (the band's scale, fixed at its first evaluation)\n",
                            inv->band + 1, inv->scale_f));
  } else inv->iteration++;
  its += inv->band_its;
  if (its > 0) {
    /* this run's own files: earlier ones were refused or removed at the start; with -restart, the interrupted run's, rewritten the same */
    PetscCall(WriteModels(inv, inv->iteration, PETSC_TRUE));
  }
  {
    const MisfitRow row = {{misfit, gnorm, its ? step : 0, inv->seconds, f}, inv->band + 1, inv->iteration};
    PetscCall(LogIteration(inv, row));
  }
  /* what is left of the band if every remaining iteration takes the band's mean so far: a bound, as TAO may stop sooner */
  max_its = inv->band_max_its;
  inv->band_seconds += inv->seconds;
  if (inv->obj.damping > 0) PetscCall(PetscSNPrintf(objective, sizeof(objective), ", objective %.6e", (double)f));
  PetscCall(PetscPrintf(inv->obj.e.l.world,
                        "band %" PetscInt_FMT " (%s%.6g Hz) iteration %" PetscInt_FMT " [%" PetscInt_FMT " overall]: misfit %.6e (%.4g of the band's start)%s, |g| %.4e, step %.4g, %.2f s in %" PetscInt_FMT
                        " evaluation%s, %.4f G cell-updates/s; band: %.0f s so far, at most about %.0f s left (%" PetscInt_FMT " iteration%s)\n",
                        inv->band + 1, inv->fcut > 0 ? "up to " : "all, f0 ", inv->fcut > 0 ? (double)inv->fcut : (double)inv->o->f0, its, inv->iteration, misfit,
                        inv->J0 > 0 ? misfit / inv->J0 : 1.0, objective, (double)gnorm, its ? (double)step : 0.0, inv->seconds, inv->evals_since, inv->evals_since == 1 ? "" : "s",
                        inv->seconds > 0 ? inv->evals_since * inv->obj.e.cells * inv->obj.e.t.nsteps * 2 * inv->obj.e.geo.nshots / inv->seconds * 1e-9 : 0.0,
                        inv->band_seconds, inv->band_seconds / (its + 1) * PetscMax(max_its - its, 0), PetscMax(max_its - its, 0), max_its - its == 1 ? "" : "s"));
  inv->seconds     = 0;
  inv->evals_since = 0;
  PetscCall(StopCheck(inv->obj.e.l.world, &inv->stopped));
  if (inv->stopped) PetscCall(TaoSetConvergedReason(tao, TAO_CONVERGED_USER));
  PetscFunctionReturn(0);
}

/* Whether user cell c of this rank lies above -fix_above (kept as given). */
static PetscBool CellFixed(const Inversion *inv, PetscInt c)
{
  const Objective *obj = &inv->obj;

  return inv->o->fix_above > 0 && obj->e.model[0].o[0] + (obj->ms.lo[0] + c % obj->ms.n[0]) * obj->e.model[0].d[0] < inv->o->fix_above ? PETSC_TRUE : PETSC_FALSE;
}

/* The tapers' radius where "auto" (-1): TAPER_WAVELENGTHS wavelength at
   -f0 in the slowest free cell of the starting model (the gradient's
   near-field peak around a source or receiver reaches about that far). */
#define TAPER_WAVELENGTHS 1.0
static PetscErrorCode TaperRadiusAuto(const Inversion *inv, PetscReal *R)
{
  const Objective *obj  = &inv->obj;
  double           vmin = PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < obj->ms.nlocal; c++)
    if (!CellFixed(inv, c)) vmin = PetscMin(vmin, obj->vp_start[c]);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &vmin, 1, MPI_DOUBLE, MPI_MIN, obj->e.l.world));
  *R = vmin < PETSC_MAX_REAL ? TAPER_WAVELENGTHS * vmin / inv->o->f0 : 0;
  PetscFunctionReturn(0);
}

/* weight[c] = min(weight[c], the cosine taper of the distance from p), over
   this rank's cells within R of p: 0 at p, 1 from R on.  Taking the least
   taper is taking the nearest point's, however densely they lie. */
static void TaperAround(Inversion *inv, const Position *p, PetscReal R)
{
  const Objective *obj = &inv->obj;
  const ModelInfo *m   = &obj->e.model[0];
  PetscInt         lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};

  for (PetscInt a = 0; a < m->dim; a++) {
    lo[a] = PetscMax(obj->ms.lo[a], (PetscInt)PetscCeilReal((p->c[a] - R) / m->d[a])) - obj->ms.lo[a];
    hi[a] = PetscMin(obj->ms.lo[a] + obj->ms.n[a] - 1, (PetscInt)PetscFloorReal((p->c[a] + R) / m->d[a])) - obj->ms.lo[a];
  }
  for (PetscInt k = lo[2]; k <= hi[2]; k++)
    for (PetscInt j = lo[1]; j <= hi[1]; j++)
      for (PetscInt i = lo[0]; i <= hi[0]; i++) {
        const PetscInt  c[3] = {i, j, k};
        PetscReal       r2   = 0;
        for (PetscInt a = 0; a < m->dim; a++) r2 += PetscSqr((obj->ms.lo[a] + c[a]) * m->d[a] - p->c[a]);
        if (r2 < R * R) {
          double *w = &inv->weight[i + obj->ms.n[0] * (j + obj->ms.n[1] * k)];
          *w        = PetscMin(*w, 0.5 * (1 - PetscCosReal(PETSC_PI * PetscSqrtReal(r2) / R)));
        }
      }
}

/* Mask (-fix_above) and the source and receiver tapers on group 0's user
   cells; fixed cells also get equal bounds, so no method moves them, and
   so does a fluid cell (vs = 0) in the S velocity's block. */
static PetscErrorCode Weights(Inversion *inv, PetscReal radius[2])
{
  const Objective   *obj      = &inv->obj;
  const Geometry    *geo      = &obj->e.geo;
  const PetscReal    asked[2] = {inv->o->source_taper, inv->o->receiver_taper};
  PetscReal          automatic = 0;
  PetscScalar       *xl, *xu;
  const PetscScalar *x;

  PetscFunctionBeginUser;
  if (asked[0] < 0 || asked[1] < 0) PetscCall(TaperRadiusAuto(inv, &automatic));
  for (PetscInt k = 0; k < 2; k++) radius[k] = asked[k] < 0 ? automatic : asked[k];
  PetscCall(VecGetArray(inv->XL, &xl));
  PetscCall(VecGetArray(inv->XU, &xu));
  PetscCall(VecGetArrayRead(inv->X, &x));
  for (PetscInt c = 0; c < obj->ms.nlocal; c++) {
    const PetscBool fixed = CellFixed(inv, c);
    inv->weight[c]        = fixed ? 0 : 1;
    for (PetscInt b = 0; b < inv->np && !obj->e.l.group_id; b++) /* and an S velocity of 0, a fluid's */
      if (fixed || (inv->by_vp[b] < 0 && inv->vp[b * obj->ms.nlocal + c] == 0))
        xl[b * obj->ms.nlocal + c] = xu[b * obj->ms.nlocal + c] = x[b * obj->ms.nlocal + c];
  }
  PetscCall(VecRestoreArrayRead(inv->X, &x));
  PetscCall(VecRestoreArray(inv->XL, &xl));
  PetscCall(VecRestoreArray(inv->XU, &xu));
  for (PetscInt s = 0; s < geo->nshots && radius[0] > 0; s++) TaperAround(inv, &geo->src[s], radius[0]);
  for (PetscInt r = 0; r < geo->rec_start[geo->nshots] && radius[1] > 0; r++) TaperAround(inv, &geo->rec[r], radius[1]);
  PetscFunctionReturn(0);
}

/* The shell preconditioner: ApplyP on the Vecs (PetscScalar is double). */
static PetscErrorCode ApplyPreconditioner(PC pc, Vec x, Vec y)
{
  Inversion         *inv;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &inv));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(y, &ya));
  PetscCall(ApplyP(inv, xa, ya));
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(0);
}

/* -precondition pseudo_hessian and -gradient_smoothing: the inverse of TAO's
   first quasi-Newton matrix becomes ApplyP (with the pseudo-Hessian, D =
   diag(1 / (E + eps max E)), E of the band's starting model), a shell
   preconditioner through the LMVM's initial Hessian: the quasi-Newton
   updates build on it and the bounds still hold (TAO projects as before). */
static PetscErrorCode Precondition(Inversion *inv, Tao tao)
{
  MPI_Comm  world = inv->obj.e.l.world;
  PetscBool qn;
  PetscInt  n, N;
  double    peak = 0, all;
  Mat       H0;
  KSP       ksp;
  PC        pc;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)tao, &qn, TAOBLMVM, TAOLMVM, ""));
  PetscCheck(qn, world, PETSC_ERR_ARG_INCOMP, "-precondition and -gradient_smoothing need -tao_type blmvm or lmvm (their first quasi-Newton matrix takes them)");
  PetscCall(VecGetLocalSize(inv->X, &n));
  PetscCall(VecGetSize(inv->X, &N));
  if (inv->precond) {
    PetscCall(ModelFromVec(inv, inv->X));
    PetscCall(PseudoHessian(&inv->obj, inv->vp, inv->precond));
    if (inv->o->qc_illumination && !inv->band_its) PetscCall(PseudoHessianWrite(&inv->obj, inv->precond, inv->band));
    /* in slowness the Hessian takes (dv/ds)^2 = v^4 */
    const PetscInt cells = inv->obj.ms.nlocal; /* one value a cell, for every block */
    for (PetscInt c = 0; c < cells && inv->slowness; c++) inv->precond[c] *= PetscSqr(PetscSqr((double)inv->vp[c]));
    for (PetscInt c = 0; c < cells; c++) peak = PetscMax(peak, inv->precond[c]);
    PetscCallMPI(MPI_Allreduce(&peak, &all, 1, MPI_DOUBLE, MPI_MAX, world));
    PetscCheck(all > 0, world, PETSC_ERR_ARG_OUTOFRANGE, "-precondition pseudo_hessian: the source wavefield has no energy in the model");
    for (PetscInt c = 0; c < cells; c++) inv->precond[c] = 1 / (inv->precond[c] + inv->o->precondition_eps * all);
  }
  PetscCall(MatCreateShell(world, n, n, N, N, inv, &H0));
  PetscCall(TaoLMVMSetH0(tao, H0));
  PetscCall(MatDestroy(&H0));
  PetscCall(TaoSetUp(tao));
  PetscCall(TaoLMVMGetH0KSP(tao, &ksp));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, inv));
  PetscCall(PCShellSetApply(pc, ApplyPreconditioner));
  PetscCall(PCShellSetName(pc, "halofwi: smoothing x inverse pseudo-Hessian x smoothing"));
  PetscFunctionReturn(0);
}

/* Part of a band from the model in X: a fresh Tao from the options for at
   most -source_estimation_interval iterations (all the band's without it),
   after a new wavelet estimate when asked for; *more: the band goes on. */
static PetscErrorCode SolveStage(Inversion *inv, PetscBool *more)
{
  Tao                tao;
  PetscBool          bounded;
  PetscInt           its;
  TaoConvergedReason reason;
  MPI_Comm           world    = inv->obj.e.l.world;
  const PetscInt     interval = inv->o->source_estimation_interval;

  PetscFunctionBeginUser;
  if (inv->o->source_estimation != SOURCE_ESTIMATION_NONE) {
    PetscCall(ModelFromVec(inv, inv->X));
    PetscCall(SourceEstimate(&inv->obj, inv->vp, inv->band));
  }
  PetscCall(InvertTaoCreate(world, &tao));
  PetscCall(TaoSetSolution(tao, inv->X));
  PetscCall(TaoSetVariableBounds(tao, inv->XL, inv->XU));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, FormFunctionGradient, inv));
  PetscCall(TaoSetMonitor(tao, Monitor, inv, NULL));
  PetscCall(TaoSetFromOptions(tao));
  if (!inv->band_its) PetscCall(TaoGetMaximumIterations(tao, &inv->band_max_its));
  if (interval) PetscCall(TaoSetMaximumIterations(tao, PetscMin(interval, inv->band_max_its - inv->band_its)));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)tao, &bounded, TAOBLMVM, TAOBQNLS, TAOBNCG, TAOBQNKLS, TAOBQNKTR, TAOBQNKTL, TAOBNLS, TAOBNTR, TAOBNTL, TAOTRON,
                                      TAOGPCG, ""));
  if (!bounded && !inv->band && !inv->band_its) {
    TaoType type;
    PetscCall(TaoGetType(tao, &type));
    PetscCall(PetscPrintf(world, "WARNING: -tao_type %s ignores the bounds -vp_min/-vp_max; the run stops with an error if the model exceeds %.6g m/s, "
                                 "for which the time step was chosen (blmvm, bqnls and bncg honour bounds)\n",
                          type, (double)inv->obj.vp_hi));
  }
  if (inv->work) PetscCall(Precondition(inv, tao));
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetIterationNumber(tao, &its));
  PetscCall(TaoGetConvergedReason(tao, &reason));
  inv->band_its += its;
  *more = interval && !inv->stopped && reason == TAO_DIVERGED_MAXITS && inv->band_its < inv->band_max_its ? PETSC_TRUE : PETSC_FALSE;
  if (!*more) {
    char why[512];
    if (inv->stopped) PetscCall(PetscSNPrintf(why, sizeof why, "%" PetscInt_FMT " iterations: stopped on request", inv->band_its));
    else PetscCall(TaoReasonText(tao, reason, inv->band_its, inv->band_max_its, why, sizeof why));
    PetscCall(PetscPrintf(world, "band %" PetscInt_FMT ", %s\n", inv->band + 1, why));
  }
  PetscCall(TaoDestroy(&tao));
  PetscFunctionReturn(0);
}

/* One band, the model carried in X.  Each new wavelet starts a fresh Tao:
   the quasi-Newton pairs gathered under the old one belong to another
   objective. */
static PetscErrorCode SolveBand(Inversion *inv)
{
  PetscBool more = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(ObjectiveSetBand(&inv->obj, inv->band, inv->fcut));
  inv->evals        = 0;
  inv->band_seconds = 0;
  inv->band_its     = 0;
  if (inv->o->qc_illumination && !inv->precond) {
    PetscCall(ModelFromVec(inv, inv->X));
    PetscCall(QcIllumination(&inv->obj, inv->vp, inv->band));
  }
  while (more) PetscCall(SolveStage(inv, &more));
  if (!inv->stopped && inv->qc.nchosen) {
    PetscCall(ModelFromVec(inv, inv->X));
    PetscCall(QcWriteBand(&inv->obj, &inv->qc, inv->vp, inv->band));
  }
  {
    char what[32];
    PetscCall(PetscSNPrintf(what, sizeof what, "band %" PetscInt_FMT " ", inv->band + 1));
    PetscCall(TimingReport(inv->obj.e.l.world, what, &inv->band_start));
    TimingMark(&inv->band_start);
  }
  PetscFunctionReturn(0);
}

/* The parameters -invert_for names, as the equation's first np (vp, then
   rho; vp, vs, rho), with -parameterisation's variables; their scales:
   with more than one, each block is its variable over its bound range, so
   that a unit of any block spans its whole range and none swamps the
   others in TAO's steps; vp alone keeps its variable as it is. */
static PetscErrorCode Parameters(Inversion *inv)
{
  const Options  *o     = inv->o;
  const Objective *obj  = &inv->obj;
  const Equation *eq    = obj->e.backend.eq;
  MPI_Comm        world = obj->e.l.world;
  double          var[EQUATION_MAX_PARAMETERS][2] = {{0}};
  char            expected[128], line[1024];
  size_t          len;

  PetscFunctionBeginUser;
  inv->np = obj->e.ngradient; /* -invert_for checked (ExperimentCreate) */
  ExperimentInvertedChoices(eq, expected, sizeof expected);
  inv->slowness  = o->parameterisation == PARAMETERISATION_SLOWNESS ? PETSC_TRUE : PETSC_FALSE;
  inv->impedance = o->parameterisation == PARAMETERISATION_IMPEDANCE ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(!inv->impedance || OptionsInverts(o, "rho"), world, PETSC_ERR_USER_INPUT, "-parameterisation impedance inverts vp and rho vp: expected -invert_for with rho (%s)", expected);
  PetscCheck(OptionsInverts(o, "rho") || (!o->rho_min && !o->rho_max), world, PETSC_ERR_USER_INPUT, "-rho_min and -rho_max bound an inverted density: expected -invert_for with rho (%s)", expected);
  PetscCheck(OptionsInverts(o, "vs") || (!o->vpvs_min && !o->vpvs_max && !o->vs_min && !o->vs_max), world, PETSC_ERR_USER_INPUT,
             "-vpvs_min, -vpvs_max, -vs_min and -vs_max bound an inverted S velocity: expected -invert_for with vs (%s)", expected);
  for (PetscInt b = 0; b < inv->np; b++) inv->by_vp[b] = ByVp(inv, b);
  var[0][0] = ToVariable(inv, 0, obj->vp_lo, 0);
  var[0][1] = ToVariable(inv, 0, obj->vp_hi, 0);
  for (PetscInt b = 1; b < inv->np; b++) { /* the S velocity's bounds are already on vs / vp */
    var[b][0] = inv->by_vp[b] < 0 ? obj->lo[b] : ToVariable(inv, b, obj->lo[b], obj->vp_lo);
    var[b][1] = inv->by_vp[b] < 0 ? obj->hi[b] : ToVariable(inv, b, obj->hi[b], obj->vp_hi);
  }
  for (PetscInt b = 0; b < inv->np; b++) {
    inv->scale[b] = inv->np > 1 ? PetscAbsReal(var[b][1] - var[b][0]) : 1;
    inv->lo[b]    = PetscMin(var[b][0], var[b][1]) / inv->scale[b];
    inv->hi[b]    = PetscMax(var[b][0], var[b][1]) / inv->scale[b];
  }
  if (inv->np == 1) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(line, sizeof line, "inverting for %s with %s (%s), bounds %.6g to %.6g %s", o->invert_for, inv->slowness ? "slowness" : "velocity", eq->parameter[0].unit,
                          (double)obj->vp_lo, (double)obj->vp_hi, eq->parameter[0].unit));
  for (PetscInt b = 1; b < inv->np; b++) {
    PetscCall(PetscStrlen(line, &len));
    const char *what = inv->by_vp[b] > 0 ? "impedance" : inv->by_vp[b] < 0 ? "vs / vp" : eq->parameter[b].label, *unit = inv->by_vp[b] > 0 ? "kg/(m^2 s)" : inv->by_vp[b] < 0 ? "1" : eq->parameter[b].unit;
    PetscCall(PetscSNPrintf(line + len, sizeof line - len, ", %s (%s), bounds %.6g to %.6g", what, unit, var[b][0], var[b][1]));
  }
  PetscCall(PetscPrintf(world, "%s; each over its bound range in TAO's variables%s\n", line, OptionsInverts(o, "vs") ? "; vs held at 0 where it starts at 0 (a fluid)" : ""));
  PetscFunctionReturn(0);
}

/* The preconditioner -precondition asks for: auto is pseudo_hessian with a
   quasi-Newton -tao_type (TAO's default here is blmvm), none otherwise. */
static Preconditioning PreconditionAsked(const Options *o)
{
  char type[64] = TAOBLMVM;

  if (o->precondition != PRECONDITION_AUTO) return o->precondition;
  if (PetscOptionsGetString(NULL, NULL, "-tao_type", type, sizeof type, NULL)) return PRECONDITION_NONE;
  return !strcmp(type, TAOBLMVM) || !strcmp(type, TAOLMVM) ? PRECONDITION_PSEUDO_HESSIAN : PRECONDITION_NONE;
}

PetscErrorCode RunInvert(MPI_Comm world, const Options *o)
{
  Inversion      inv;
  const PetscInt nbands = o->nbands ? o->nbands : 1;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&inv, sizeof(inv)));
  inv.o = o;
  {
    char kept[PETSC_MAX_PATH_LEN + 128];
    PetscCall(PetscSNPrintf(kept, sizeof(kept), "the evaluations finished are saved in %s/restart; rerun with -restart to carry on", o->output_dir));
    PetscCall(StopWatch(world, o->output_dir, PETSC_TRUE, kept));
  }
  PetscCall(OutputPrepareKind(world, o, OUTPUT_INVERSION, 0));
  PetscCall(ObjectiveCreate(world, o, &inv.obj));
  for (PetscInt b = 0; b < o->nbands; b++)
    PetscCheck(o->bands[b] < 0.5 / o->dt, world, PETSC_ERR_ARG_OUTOFRANGE, "-bands: band %" PetscInt_FMT " at %.6g Hz is not below the Nyquist frequency %.6g Hz of -dt %.6g s",
               b + 1, (double)o->bands[b], 0.5 / o->dt, (double)o->dt);
  PetscCall(Parameters(&inv));
  PetscCall(ReplayCreate(world, &inv.obj, o->output_dir, o->restart, inv.np, &inv.replay));
  {
    const PetscInt nl = inv.obj.ms.nlocal, n = inv.obj.e.l.group_id ? 0 : nl, np = inv.np, neq = inv.obj.e.backend.eq->nparameter;
    PetscScalar   *x;
    PetscCall(VecCreateMPI(world, n * np, PETSC_DETERMINE, &inv.X));
    PetscCall(VecDuplicate(inv.X, &inv.XL));
    PetscCall(VecDuplicate(inv.X, &inv.XU));
    PetscCall(PetscMalloc4(nl + 1, &inv.weight, nl * neq + 1, &inv.vp, nl * np + 1, &inv.grad, nl * np + 1, &inv.gx));
    PetscCall(PetscArraycpy(inv.vp, inv.obj.vp_start, nl));
    for (PetscInt k = 1; k < neq; k++) PetscCall(PetscArraycpy(inv.vp + k * nl, inv.obj.start[k], nl));
    for (PetscInt k = 1; k < np; k++) { /* the other parameters inverted move with TAO's model, and their gradients come back beside vp's */
      inv.obj.rest[k]   = inv.vp + k * nl;
      inv.rest[k - 1]   = inv.grad + k * nl;
      inv.obj.grad_rest = inv.rest;
    }
    PetscCall(VecGetArray(inv.X, &x));
    for (PetscInt c = 0; c < n; c++)
      for (PetscInt b = 0; b < np; b++) x[b * n + c] = ToVariable(&inv, b, inv.vp[b * nl + c], inv.vp[c]) / inv.scale[b];
    PetscCall(VecRestoreArray(inv.X, &x));
    PetscCall(VecGetArray(inv.XL, &x));
    for (PetscInt b = 0; b < np; b++)
      for (PetscInt c = 0; c < n; c++) x[b * n + c] = inv.lo[b];
    PetscCall(VecRestoreArray(inv.XL, &x));
    PetscCall(VecGetArray(inv.XU, &x));
    for (PetscInt b = 0; b < np; b++)
      for (PetscInt c = 0; c < n; c++) x[b * n + c] = inv.hi[b];
    PetscCall(VecRestoreArray(inv.XU, &x));
    if (PreconditionAsked(o) != PRECONDITION_NONE) PetscCall(PetscMalloc1(nl + 1, &inv.precond));
    PetscCall(SmoothingSetUp(&inv.obj.e.g, o->gradient_smoothing, &inv.smooth));
    if (inv.precond || inv.smooth.steps) PetscCall(PetscMalloc1(nl * np + 1, &inv.work));
  }
  {
    PetscReal radius[2]; /* the source and receiver tapers' */
    PetscCall(Weights(&inv, radius));
    PetscCall(PetscPrintf(world, "gradient tapered within %.4g m of the sources and %.4g m of the receivers (-source_taper, -receiver_taper)\n", (double)radius[0], (double)radius[1]));
    PetscCall(ObjectiveCheckFreeCells(&inv.obj, inv.weight, radius));
    PetscCall(PetscPrintf(world, "each band's first step moves a cell by at most %.3g of its bound range; damping %.3g (-first_step, -damping)\n",
                          (double)o->first_step, (double)inv.obj.damping));
  }
  PetscCall(QcCreate(&inv.obj, &inv.qc));
  for (inv.band = 0; inv.band < nbands && !inv.stopped; inv.band++) {
    inv.fcut = o->nbands ? o->bands[inv.band] : 0;
    PetscCall(SolveBand(&inv));
  }
  if (inv.stopped) {
    PetscCall(PetscPrintf(world, "Stopped by %s after iteration %" PetscInt_FMT ": its model and the state are saved in %s; rerun with -restart to carry on\n", StopCause(),
                          inv.iteration, o->output_dir));
  } else {
    PetscCall(ModelFromVec(&inv, inv.X));
    PetscCall(WriteModels(&inv, -1, o->overwrite));
    PetscCall(PetscPrintf(world, "misfit history -> %s/misfit.csv\n", o->output_dir));
  }
  PetscCall(ReplayDestroy(&inv.replay));
  PetscCall(PetscFree(inv.rows));
  PetscCall(QcDestroy(&inv.qc));
  PetscCall(PetscFree4(inv.weight, inv.vp, inv.grad, inv.gx));
  PetscCall(PetscFree(inv.precond));
  PetscCall(PetscFree(inv.work));
  PetscCall(SmoothingDestroy(&inv.smooth));
  PetscCall(VecDestroy(&inv.X));
  PetscCall(VecDestroy(&inv.XL));
  PetscCall(VecDestroy(&inv.XU));
  PetscCall(ObjectiveDestroy(&inv.obj));
  PetscCall(TimingReport(world, "", &(TimeMark){0}));
  PetscFunctionReturn(0);
}
