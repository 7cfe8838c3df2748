#include "grid/model.h"
#include "grid/grid.h"
#include "data/segy.h"
#include "data/util.h"
#include <math.h>
#include <stdint.h>

/* A number (with the grid from -nz -nx -ny -dx ...) or a file; `others`
   names what else the option takes, for the message on a bad number. */
static PetscErrorCode Describe(MPI_Comm comm, const Options *o, const char *spec, const char *others, ModelInfo *m)
{
  char *end;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcpy(m->name, spec));
  m->value       = strtod(spec, &end);
  m->homogeneous = (end != spec && *end == 0) ? PETSC_TRUE : PETSC_FALSE;
  if (m->homogeneous) {
    PetscCheck(DecimalNumber(spec) && !PetscIsInfOrNanReal(m->value) && m->value >= m->min && (m->value == 0 || PetscIsNormalReal(m->value)), comm, PETSC_ERR_USER_INPUT,
               "%s %s: expected a homogeneous %s of at least %.6g %s as a finite decimal number, %s", m->option, spec, m->what, m->min, m->unit, others);
    m->dim = o->n[2] > 1 ? 3 : 2;
    for (PetscInt a = 0; a < 3; a++) { /* -nz -nx -ny were checked as they were read */
      m->n[a] = a < m->dim ? o->n[a] : 1;
      m->d[a] = o->d[a];
      PetscCheck(a >= m->dim || (m->d[a] > 0 && PetscIsNormalReal(m->d[a])), comm, PETSC_ERR_ARG_OUTOFRANGE,
                 "Grid spacing %.6g along %s: expected a positive number of metres", (double)m->d[a], a == 0 ? "z" : a == 1 ? "x" : "y");
    }
    PetscFunctionReturn(0);
  }
  m->format = SegyIsPath(m->name) ? FORMAT_SEGY : FORMAT_RSF;
  if (m->format == FORMAT_SEGY) PetscCall(SegyModelDescribe(comm, m->name, o, m->n, m->d, m->o, &m->segy_order));
  else {
    PetscCall(RsfReadHeader(comm, m->name, &m->rsf));
    for (PetscInt a = 0; a < 3; a++) {
      m->n[a] = m->rsf.n[a];
      m->d[a] = m->rsf.d[a];
      m->o[a] = m->rsf.o[a];
    }
  }
  m->dim = m->n[2] > 1 ? 3 : 2;
  PetscCheck(m->n[0] > 1 && m->n[1] > 1, comm, PETSC_ERR_USER_INPUT,
             "Model %s has %" PetscInt_FMT " samples in z and %" PetscInt_FMT " in x (RSF n1, n2; SEG-Y samples, traces or crosslines): expected at least 2 each", m->name,
             m->n[0], m->n[1]);
  PetscFunctionReturn(0);
}

PetscErrorCode ModelDescribe(MPI_Comm comm, const Options *o, ModelInfo *m)
{
  PetscBool marmousi;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(m, sizeof(*m)));
  *m = (ModelInfo){.option = "-vp", .what = "velocity", .unit = "m/s", .min = MIN_VELOCITY};
  PetscCall(PetscStrcmp(o->vp, "marmousi", &marmousi));
  if (marmousi) {
    char path[PETSC_MAX_PATH_LEN];
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/marmousi_vp.rsf", HALOFWI_DATA_DIR));
    PetscCall(Describe(comm, o, path, "", m));
  } else PetscCall(Describe(comm, o, o->vp, "an RSF file or marmousi", m));
  PetscFunctionReturn(0);
}

PetscErrorCode ModelDescribeParameter(MPI_Comm comm, const Options *o, const char *option, const ModelInfo *vp, ModelInfo *m)
{
  PetscBool   rho, vs;
  const char *spec;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(m, sizeof(*m)));
  PetscCall(PetscStrcmp(option, "-rho", &rho));
  PetscCall(PetscStrcmp(option, "-vs", &vs));
  PetscCheck(rho || vs, comm, PETSC_ERR_PLIB, "No model option %s: expected -rho or -vs", option);
  if (rho) *m = (ModelInfo){.option = "-rho", .what = "density", .unit = "kg/m^3", .min = MIN_DENSITY};
  else *m = (ModelInfo){.option = "-vs", .what = "S velocity", .unit = "m/s", .min = 0};
  spec = rho ? o->rho : o->vs;
  if (rho) PetscCall(PetscStrcmp(spec, "gardner", &m->gardner));
  if (!m->gardner) PetscCall(Describe(comm, o, spec, rho ? "an RSF or SEG-Y file, or gardner" : "an RSF or SEG-Y file", m));
  if (m->gardner || m->homogeneous) {
    PetscCall(PetscStrcpy(m->name, spec));
    m->dim = vp->dim;
    for (PetscInt a = 0; a < 3; a++) m->n[a] = vp->n[a], m->d[a] = vp->d[a], m->o[a] = vp->o[a];
    PetscFunctionReturn(0);
  }
  for (PetscInt a = 0; a < 3; a++)
    PetscCheck(m->n[a] == vp->n[a] && PetscAbsReal(m->d[a] - vp->d[a]) <= 1e-6 * vp->d[a] && PetscAbsReal(m->o[a] - vp->o[a]) <= 1e-6 * PetscMax(vp->d[a], PetscAbsReal(vp->o[a])),
               comm, PETSC_ERR_USER_INPUT,
               "%s %s: %" PetscInt_FMT " samples of %.6g m from %.6g m along %s, -vp %s: %" PetscInt_FMT " of %.6g m from %.6g m; expected the same grid", m->option, m->name, m->n[a],
               (double)m->d[a], (double)m->o[a], a == 0 ? "z" : a == 1 ? "x" : "y", vp->name, vp->n[a], (double)vp->d[a], (double)vp->o[a]);
  PetscFunctionReturn(0);
}

void ModelGardner(size_t n, const float *vp, float *rho)
{
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < n; c++) rho[c] = vp[c] < 1520 ? 1000.0f : (float)(310.0 * pow(vp[c], 0.25));
}

void ModelAxes(const ModelInfo *m, RsfAxes *a)
{
  static const char *const label[3] = {"Depth", "X", "Y"};

  *a = (RsfAxes){0};
  for (PetscInt k = 0; k < m->dim; k++) RsfAxesAdd(a, m->n[k], m->d[k], m->o[k], label[k], "m");
}

static PetscInt Clamp(PetscInt i, PetscInt lo, PetscInt hi) { return i < lo ? lo : (i > hi ? hi : i); }

/* The first value below m->min or not finite over the group, or -1. */
static PetscErrorCode FindBadValue(const ModelInfo *m, MPI_Comm comm, const float *block, const PetscInt start[3],
                                      const PetscInt count[3], PetscInt64 *where, float *value)
{
  PetscInt64  mine = INT64_MAX, first;
  float       v    = 0;
  PetscMPIInt rank, owner = -1, cand;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < count[2]; k++)
    for (PetscInt j = 0; j < count[1]; j++)
      for (PetscInt i = 0; i < count[0]; i++) {
        const float x = block[i + count[0] * (j + count[1] * k)];
        if (!(x >= m->min) || !isfinite(x)) {
          const PetscInt64 g = (start[0] + i) + (PetscInt64)m->n[0] * ((start[1] + j) + (PetscInt64)m->n[1] * (start[2] + k));
          if (g < mine) { mine = g; v = x; }
        }
      }
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPIU_INT64, MPI_MIN, comm));
  *where = first == INT64_MAX ? -1 : first;
  if (*where < 0) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  cand = mine == first ? rank : -1;
  PetscCallMPI(MPI_Allreduce(&cand, &owner, 1, MPI_INT, MPI_MAX, comm));
  PetscCallMPI(MPI_Bcast(&v, 1, MPI_FLOAT, owner, comm));
  *value = v;
  PetscFunctionReturn(0);
}

PetscErrorCode ModelLoadBlock(const ModelInfo *m, const Grid *g, MPI_Comm cross, float *value, PetscReal *vmin, PetscReal *vmax)
{
  MPI_Comm  comm;
  PetscInt  ustart[3], ucount[3];
  size_t    nblock = 1;
  float    *block;
  float     local_max = 0, local_min = INFINITY;
  PetscInt64 bad = -1; /* FindBadVelocity sets it; GCC cannot tell */
  float     badv;

  PetscFunctionBeginUser;
  comm = g->comm;
  /* the user-grid box whose values the owned extended box needs (layers copy edges) */
  for (PetscInt a = 0; a < 3; a++) {
    const PetscInt lo = Clamp(g->start[a] - g->pml[a][0], 0, g->n[a] - 1);
    const PetscInt hi = Clamp(g->start[a] + g->size[a] - 1 - g->pml[a][0], 0, g->n[a] - 1);
    ustart[a]         = lo;
    ucount[a]         = hi - lo + 1;
    nblock *= (size_t)ucount[a];
  }
  MemoryCall(PetscMalloc1(nblock, &block), "the model as read", 4.0 * nblock);
  if (m->homogeneous)
    for (size_t i = 0; i < nblock; i++) block[i] = (float)m->value;
  else {
    PetscMPIInt first;
    PetscCallMPI(MPI_Comm_rank(cross, &first));
    if (!first && m->format == FORMAT_SEGY) PetscCall(SegyModelReadBlock(comm, m->name, m->segy_order, m->n, ustart, ucount, block));
    else if (!first) PetscCall(RsfReadBlock(comm, &m->rsf, ustart, ucount, block));
    PetscCallMPI(MPI_Bcast(block, (PetscMPIInt)nblock, MPI_FLOAT, 0, cross));
  }

  PetscCall(FindBadValue(m, comm, block, ustart, ucount, &bad, &badv));
  if (bad >= 0) {
    const PetscInt iz = (PetscInt)(bad % m->n[0]), ix = (PetscInt)((bad / m->n[0]) % m->n[1]), iy = (PetscInt)(bad / ((PetscInt64)m->n[0] * m->n[1]));
    PetscCall(PetscFree(block));
    SETERRQ(comm, PETSC_ERR_USER_INPUT,
            "Model %s: %s %.6g %s at sample iz=%" PetscInt_FMT " ix=%" PetscInt_FMT " iy=%" PetscInt_FMT
            " (z=%.6g x=%.6g y=%.6g m); expected a finite %s of at least %.6g %s everywhere",
            m->name, m->what, (double)badv, m->unit, iz, ix, iy, (double)(m->o[0] + iz * m->d[0]), (double)(m->o[1] + ix * m->d[1]), (double)(m->o[2] + iy * m->d[2]), m->what, m->min, m->unit);
  }

  for (PetscInt k = 0; k < g->size[2]; k++)
    for (PetscInt j = 0; j < g->size[1]; j++)
      for (PetscInt i = 0; i < g->size[0]; i++) {
        const PetscInt u[3] = {Clamp(g->start[0] + i - g->pml[0][0], 0, g->n[0] - 1) - ustart[0],
                               Clamp(g->start[1] + j - g->pml[1][0], 0, g->n[1] - 1) - ustart[1],
                               Clamp(g->start[2] + k - g->pml[2][0], 0, g->n[2] - 1) - ustart[2]};
        const float    x    = block[u[0] + ucount[0] * (u[1] + ucount[1] * u[2])];
        value[i + g->size[0] * (j + g->size[1] * k)] = x;
        local_max                                  = PetscMax(local_max, x);
        local_min                                  = PetscMin(local_min, x);
      }
  PetscCall(PetscFree(block));
  {
    PetscReal lmax = local_max, lmin = local_min;
    PetscCallMPI(MPI_Allreduce(&lmax, vmax, 1, MPIU_REAL, MPI_MAX, comm));
    PetscCallMPI(MPI_Allreduce(&lmin, vmin, 1, MPIU_REAL, MPI_MIN, comm));
  }
  PetscFunctionReturn(0);
}
