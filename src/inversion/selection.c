#include "inversion/selection.h"
#include "data/input.h"
#include "data/util.h"
#include <math.h>
#include <string.h>

/* 1 inside [a, b], 0 beyond the tapers of width taper on either side, a
   half cosine across them. */
static double Window(double t, double a, double b, double taper)
{
  const double out = t < a ? a - t : t > b ? t - b : 0;

  if (out == 0) return 1;
  if (out >= taper) return 0;
  return 0.5 * (1 + cos(PETSC_PI * out / taper));
}

static PetscBool Dead(PetscInt nt, const float *o)
{
  for (PetscInt i = 0; i < nt; i++)
    if (o[i] != 0) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Whether trace r of the survey (its samples at obs) is left out whatever
   its offset and window: listed in -kill_traces, or dead under
   -kill_dead_traces. */
static PetscBool TraceRemoved(const Options *o, const PetscBool *killed, PetscInt r, PetscInt nt, const float *obs)
{
  return (killed && killed[r]) || (o->kill_dead_traces && Dead(nt, obs)) ? PETSC_TRUE : PETSC_FALSE;
}

/* Trace k of shot s (its observed samples at obs): its weights into w. */
static void TraceWeights(const Options *o, PetscInt band, const Geometry *geo, const PetscBool *killed, PetscInt s, PetscInt k, PetscInt dim, PetscInt nt,
                         PetscReal dt, const float *obs, float *w)
{
  const PetscInt  r   = geo->rec_start[s] + k;
  const Position *src = &geo->src[s], *rec = &geo->rec[r];
  const PetscReal omin = PerBandValue(&o->offset_min, band), omax = PerBandValue(&o->offset_max, band);
  const PetscReal ws = PerBandValue(&o->window_start, band), we = PerBandValue(&o->window_end, band);
  double          offset = 0, dz = rec->c[0] - src->c[0], first;
  PetscBool       keep;

  /* the offset is horizontal (x, and y in 3D); the first arrival's path is straight */
  for (PetscInt a = 1; a < dim; a++) offset += (rec->c[a] - src->c[a]) * (rec->c[a] - src->c[a]);
  first  = o->window_velocity > 0 ? sqrt(offset + dz * dz) / o->window_velocity : 0;
  offset = sqrt(offset);
  keep   = offset >= omin && offset <= omax && !TraceRemoved(o, killed, r, nt, obs);
  for (PetscInt i = 0; i < nt; i++) w[i] = !keep ? 0.0f : o->window_velocity > 0 ? (float)Window(i * dt, first + ws, first + we, o->window_taper) : 1.0f;
}

void SelectionWeights(const Options *o, PetscInt band, const Geometry *geo, const PetscBool *killed, PetscInt s, PetscInt dim, PetscInt nt, PetscReal dt,
                      const float *obs, float *w)
{
  for (PetscInt k = 0; k < geo->rec_start[s + 1] - geo->rec_start[s]; k++)
    TraceWeights(o, band, geo, killed, s, k, dim, nt, dt, obs + (size_t)k * nt, w + (size_t)k * nt);
}

PetscErrorCode SelectionKeptTraces(const Options *o, PetscInt band, const Geometry *geo, const PetscBool *killed, PetscInt s, PetscInt dim, PetscInt nt, PetscReal dt,
                                   const float *obs, PetscInt *kept)
{
  float *w;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(nt + 1, &w));
  *kept = 0;
  for (PetscInt k = 0; k < geo->rec_start[s + 1] - geo->rec_start[s]; k++) {
    PetscBool any = PETSC_FALSE;
    TraceWeights(o, band, geo, killed, s, k, dim, nt, dt, obs + (size_t)k * nt, w);
    for (PetscInt i = 0; i < nt && !any; i++) any = w[i] > 0 ? PETSC_TRUE : PETSC_FALSE;
    *kept += any;
  }
  PetscCall(PetscFree(w));
  PetscFunctionReturn(0);
}

PetscBool SelectionKeepsAll(const Options *o, PetscInt band, const Geometry *geo, const PetscBool *killed, PetscInt s, PetscInt nt, const float *obs)
{
  const PetscInt r0 = geo->rec_start[s], nrec = geo->rec_start[s + 1] - r0;

  if (PerBandValue(&o->offset_min, band) > 0 || PerBandValue(&o->offset_max, band) < PETSC_MAX_REAL || o->window_velocity > 0) return PETSC_FALSE;
  for (PetscInt k = 0; k < nrec; k++)
    if (TraceRemoved(o, killed, r0 + k, nt, obs + (size_t)k * nt)) return PETSC_FALSE;
  return PETSC_TRUE;
}

typedef struct {
  const char     *path;
  const Geometry *geo;
  PetscBool      *killed;
} KillList;

/* The file's lines into k->killed; errors as geometry.c's ParseLines, so
   the caller closes the file whatever happens. */
static PetscErrorCode KillLines(FILE *fp, const KillList *k)
{
  char      line[INPUT_MAX_LINE + 2];
  PetscBool more;

  PetscFunctionBeginUser;
  for (int n = 1;; n++) {
    long s, r;
    char extra;
    int  got;
    PetscCall(InputReadLine(fp, "-kill_traces file", k->path, n, line, &more));
    if (!more) break;
    line[strcspn(line, "#")] = 0;
    got = sscanf(line, "%ld %ld %c", &s, &r, &extra);
    if (got <= 0) continue; /* blank or comment */
    PetscCheck(got == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-kill_traces %s line %d: '%s': expected SHOT TRACE, two whole numbers from 0", k->path, n,
               line);
    PetscCheck(s >= 0 && s < k->geo->nshots, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-kill_traces %s line %d: shot %ld: expected 0 to %d (the survey's shots, from 0)",
               k->path, n, s, (int)k->geo->nshots - 1);
    PetscCheck(r >= 0 && r < k->geo->rec_start[s + 1] - k->geo->rec_start[s], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "-kill_traces %s line %d: trace %ld of shot %ld: expected 0 to %d (its gather's traces, from 0)", k->path, n, r, s,
               (int)(k->geo->rec_start[s + 1] - k->geo->rec_start[s]) - 1);
    k->killed[k->geo->rec_start[s] + r] = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadKillList(void *ctx)
{
  const KillList *k = (const KillList *)ctx;
  FILE           *fp;
  PetscErrorCode  ierr;

  PetscFunctionBeginUser;
  PetscCall(InputOpen("-kill_traces file", k->path, &fp));
  ierr = KillLines(fp, k);
  fclose(fp);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SelectionKillList(MPI_Comm comm, const char *path, const Geometry *geo, PetscBool **killed)
{
  KillList       k  = {path, geo, NULL};
  const PetscInt nt = geo->rec_start[geo->nshots];

  PetscFunctionBeginUser;
  *killed = NULL;
  if (!path[0]) PetscFunctionReturn(0);
  PetscCall(PetscCalloc1(nt + 1, &k.killed));
  PetscCall(RootRun(comm, ReadKillList, &k));
  PetscCallMPI(MPI_Bcast(k.killed, (PetscMPIInt)nt * (PetscMPIInt)sizeof(PetscBool), MPI_BYTE, 0, comm));
  *killed = k.killed;
  PetscFunctionReturn(0);
}
