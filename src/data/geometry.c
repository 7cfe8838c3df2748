/* Acquisition geometry: see geometry.h. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "data/geometry.h"
#include "data/input.h"
#include "data/rsf.h"
#include "data/util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* File columns (x z) or (x y z) -> Position slots (z, x, y). */
static const int slot[2][3] = {{1, 0, -1}, {1, 2, 0}};

PetscErrorCode GeometryAlloc(PetscInt nshots, PetscInt nrec, const char *source, Geometry *g)
{
  const double bytes = (double)nshots * (sizeof(Position) + 3 * sizeof(PetscInt)) + (double)nrec * (sizeof(Position) + sizeof(PetscInt));
  char         what[PETSC_MAX_PATH_LEN + 96];

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(g, sizeof *g));
  PetscCall(PetscSNPrintf(what, sizeof what, "the survey %s (%" PetscInt_FMT " shots, %" PetscInt_FMT " receivers in all, on every rank)", source, nshots, nrec));
  MemoryCall(PetscMalloc6(nshots, &g->src, nshots + 1, &g->rec_start, nrec, &g->rec, nshots, &g->src_line, nrec, &g->rec_line, nshots, &g->record), what, bytes);
  for (PetscInt s = 0; s < nshots; s++) g->record[s] = s;
  PetscCall(PetscStrncpy(g->source, source, sizeof g->source));
  g->nshots            = nshots;
  g->rec_start[nshots] = nrec;
  PetscFunctionReturn(0);
}

void GeometrySetOrigin(Geometry *g, const PetscReal origin[3])
{
  for (PetscInt a = 0; a < 3; a++) {
    g->origin[a] = origin[a];
    for (PetscInt s = 0; s < g->nshots; s++) g->src[s].c[a] -= origin[a];
    for (PetscInt r = 0; r < g->rec_start[g->nshots]; r++) g->rec[r].c[a] -= origin[a];
  }
}

/* One pass over the file: counts shots and receivers, and fills g unless it is NULL. */
static PetscErrorCode ParseLines(FILE *fp, const char *path, PetscInt dim, char *line, Geometry *g, PetscInt *nshots, PetscInt *nrec)
{
  const char *form = dim == 2 ? "x z" : "x y z";
  PetscInt    lineno = 0, ns = 0, nr = 0, shot_line = 0, shot_rec = 0;
  PetscBool   got;

  PetscFunctionBeginUser;
  for (;;) {
    char     text[128], *tok[5], *save = NULL;
    int      ntok = 0;
    Position p    = {{0, 0, 0}};

    PetscCall(InputReadLine(fp, "geometry file", path, lineno + 1, line, &got));
    if (!got) break;
    lineno++;
    line[strcspn(line, "#")] = 0;
    PetscCall(PetscStrncpy(text, line, sizeof text));
    for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
      if (ntok < 5) tok[ntok++] = t;
    if (!ntok) continue;
    PetscCheck(ntok == dim + 1 && (!strcmp(tok[0], "S") || !strcmp(tok[0], "R")), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "geometry file %s line %d: expected 'S %s' or 'R %s', got '%s'", path, (int)lineno, form, form, text);
    for (int i = 0; i < dim; i++) {
      p.c[slot[dim - 2][i]] = strtod(tok[i + 1], NULL);
      PetscCheck(DecimalNumber(tok[i + 1]) && isfinite(p.c[slot[dim - 2][i]]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "geometry file %s line %d: '%s' is not a finite decimal number of metres (digits with an optional sign, point and exponent) in '%s'", path,
                 (int)lineno, tok[i + 1], text);
    }
    if (tok[0][0] == 'S') {
      PetscCheck(!ns || nr > shot_rec, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "geometry file %s line %d: shot %d has no receivers ('R' lines)", path,
                 (int)shot_line, (int)ns - 1);
      if (g) {
        g->src[ns]       = p;
        g->src_line[ns]  = lineno;
        g->rec_start[ns] = nr;
      }
      ns++;
      shot_line = lineno;
      shot_rec  = nr;
    } else {
      PetscCheck(ns, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "geometry file %s line %d: receiver before the first 'S' line", path, (int)lineno);
      PetscCheck(nr < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_INT_OVERFLOW, "geometry file %s line %d: more than %" PetscInt_FMT " receivers, the most a PetscInt counts",
                 path, (int)lineno, PETSC_MAX_INT);
      if (g) {
        g->rec[nr]      = p;
        g->rec_line[nr] = lineno;
      }
      nr++;
    }
  }
  PetscCheck(ns, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "geometry file %s has no shots ('S %s' lines)", path, form);
  PetscCheck(nr > shot_rec, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "geometry file %s line %d: shot %d has no receivers ('R' lines)", path,
             (int)shot_line, (int)ns - 1);
  *nshots = ns;
  *nrec   = nr;
  PetscFunctionReturn(0);
}

/* Two passes: the first validates and counts, the second fills g. */
static PetscErrorCode ParseFile(const char *path, PetscInt dim, Geometry *g)
{
  FILE          *fp;
  char           line[INPUT_MAX_LINE + 2];
  PetscInt       ns, nr;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(InputOpen("geometry file", path, &fp));
  ierr = ParseLines(fp, path, dim, line, NULL, &ns, &nr);
  if (!ierr) ierr = GeometryAlloc(ns, nr, path, g);
  if (!ierr) {
    rewind(fp);
    ierr = ParseLines(fp, path, dim, line, g, &ns, &nr);
  }
  fclose(fp);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

typedef struct {
  const char *path;
  PetscInt    dim;
} TextSurvey;

static PetscErrorCode ParseText(void *ctx, Geometry *g)
{
  const TextSurvey *t = (const TextSurvey *)ctx;

  PetscFunctionBeginUser;
  PetscCall(ParseFile(t->path, t->dim, g));
  PetscFunctionReturn(0);
}

PetscErrorCode GeometryRead(MPI_Comm comm, const char *path, PetscInt dim, const PetscReal origin[3], Geometry *g)
{
  TextSurvey t = {path, dim};
  PetscReal  place[3] = {origin[0], origin[1], origin[2]};

  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "geometry dimension %d, expected 2 or 3", (int)dim);
  PetscCall(GeometryShare(comm, path, ParseText, &t, g));
  if (dim == 2) place[2] = 0; /* the file has no y: the line is the model's */
  GeometrySetOrigin(g, place);
  g->origin[2] = origin[2];
  PetscFunctionReturn(0);
}

PetscErrorCode GeometryShare(MPI_Comm comm, const char *source, PetscErrorCode (*parse)(void *, Geometry *), void *ctx, Geometry *g)
{
  struct {
    PetscErrorCode err;
    PetscInt       nshots, nrec;
    char           msg[1024];
  } r;
  PetscMPIInt rank, ns, nr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&r, sizeof r));
  PetscCall(PetscMemzero(g, sizeof *g));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) { /* capture the error so that every rank can raise it */
    char *msg;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    r.err = parse(ctx, g);
    PetscCall(PetscPopErrorHandler());
    if (r.err) {
      PetscCall(PetscErrorMessage(r.err, NULL, &msg));
      PetscCall(PetscStrncpy(r.msg, msg, sizeof r.msg));
      PetscCall(GeometryDestroy(g));
    } else {
      r.nshots = g->nshots;
      r.nrec   = g->rec_start[g->nshots];
    }
  }
  PetscCallMPI(MPI_Bcast(&r, sizeof r, MPI_BYTE, 0, comm));
  PetscCheck(!r.err, comm, r.err, "%s", r.msg);
  /* three coordinates per receiver in one broadcast */
  PetscCheck(3 * (PetscInt64)r.nrec <= PETSC_MPI_INT_MAX, comm, PETSC_ERR_SUP, "survey %s: %" PetscInt_FMT " receivers, more than one MPI broadcast carries (%d)", source,
             r.nrec, PETSC_MPI_INT_MAX / 3);
  if (rank) PetscCall(GeometryAlloc(r.nshots, r.nrec, source, g));
  PetscCall(PetscMPIIntCast(r.nshots, &ns));
  PetscCall(PetscMPIIntCast(r.nrec, &nr));
  PetscCallMPI(MPI_Bcast(g->src, 3 * ns, MPIU_REAL, 0, comm));
  PetscCallMPI(MPI_Bcast(g->rec_start, ns + 1, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(g->rec, 3 * nr, MPIU_REAL, 0, comm));
  PetscCallMPI(MPI_Bcast(g->src_line, ns, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(g->rec_line, nr, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(g->record, ns, MPIU_INT, 0, comm));
  PetscFunctionReturn(0);
}

/* i-th of count points spread evenly over [0, width]; the centre when count == 1. */
static PetscReal Spread(PetscInt i, PetscInt count, PetscReal width)
{
  return count == 1 ? width / 2 : width * i / (count - 1);
}

PetscErrorCode GeometryRegular(PetscInt dim, const PetscInt n[3], const PetscReal d[3], const PetscReal origin[3], PetscInt nshots, PetscInt nrec,
                               PetscReal src_depth, PetscReal rec_depth, Geometry *g)
{
  const PetscReal width = (n[1] - 1) * d[1], y = dim == 3 ? (n[2] - 1) * d[2] / 2 : 0;
  const PetscReal zs = src_depth < 0 ? 2 * d[0] : src_depth - origin[0], zr = rec_depth < 0 ? 2 * d[0] : rec_depth - origin[0];

  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "geometry dimension %d, expected 2 or 3", (int)dim);
  PetscCheck(nshots >= 1 && nrec >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "regular survey with %d shots and %d receivers, expected at least 1 each",
             (int)nshots, (int)nrec);
  /* every receiver is counted in a PetscInt */
  PetscCheck((PetscInt64)nshots * nrec <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_INT_OVERFLOW,
             "regular survey of %" PetscInt_FMT " shots x %" PetscInt_FMT " receivers = %" PetscInt64_FMT " receivers in all, more than the %" PetscInt_FMT
             " this PETSc counts (%d-bit indices): use fewer shots (-nshots) or receivers per shot (-nrec)",
             nshots, nrec, (PetscInt64)nshots * nrec, PETSC_MAX_INT, (int)(8 * sizeof(PetscInt)));
  PetscCall(GeometryAlloc(nshots, nshots * nrec, "regular survey", g));
  for (PetscInt s = 0; s < nshots; s++) {
    g->src[s]       = (Position){{zs, Spread(s, nshots, width), y}};
    g->src_line[s]  = 0;
    g->rec_start[s] = s * nrec;
    for (PetscInt r = 0; r < nrec; r++) {
      g->rec[s * nrec + r]      = (Position){{zr, Spread(r, nrec, width), y}};
      g->rec_line[s * nrec + r] = 0;
    }
  }
  for (PetscInt a = 0; a < 3; a++) g->origin[a] = origin[a];
  PetscFunctionReturn(0);
}

/* Does p lie inside the model (within rounding)? */
static PetscBool Inside(const Position *p, PetscInt dim, const PetscInt n[3], const PetscReal d[3])
{
  for (int a = 0; a < dim; a++) {
    const PetscReal max = (n[a] - 1) * d[a], tol = 1e-9 * PetscMax(max, d[a]);
    if (!(p->c[a] >= -tol && p->c[a] <= max + tol)) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/* The error for a point outside: rec < 0 is the source of shot s.
   Positions and the model's extent are given in the survey's coordinates,
   in the file's column order. */
static PetscErrorCode Outside(const Geometry *g, PetscInt dim, const PetscInt n[3], const PetscReal d[3], PetscInt s, PetscInt rec, PetscInt line, const Position *p)
{
  static const char *const name[3] = {"z", "x", "y"};
  char                     what[64], where[PETSC_MAX_PATH_LEN + 32], pos[128] = "", box[192] = "";

  PetscFunctionBeginUser;
  for (int i = 0; i < dim; i++) {
    int    a  = slot[dim - 2][i];
    size_t lp = strlen(pos), lb = strlen(box);

    snprintf(pos + lp, sizeof pos - lp, "%s%s=%.10g", i ? " " : "", name[a], (double)(p->c[a] + g->origin[a]));
    snprintf(box + lb, sizeof box - lb, "%s%s in [%.10g, %.10g]", i ? ", " : "", name[a], (double)g->origin[a], (double)(g->origin[a] + (n[a] - 1) * d[a]));
  }
  if (rec < 0) snprintf(what, sizeof what, "shot %d source", (int)s);
  else snprintf(what, sizeof what, "shot %d receiver %d", (int)s, (int)rec);
  if (line) snprintf(where, sizeof where, "%s %s %d", g->source, g->by_trace ? "trace" : "line", (int)line);
  else snprintf(where, sizeof where, "%s", g->source);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s (%s) at %s m lies outside the model (%s)%s", what, where, pos, box,
          rec < 0 ? "" : "; -drop_outside drops such receivers");
}

/* The shots that lost receivers, briefly: the first few with their counts. */
static PetscErrorCode PrintDropped(MPI_Comm comm, const Geometry *g, const PetscInt lost[])
{
  const PetscInt most = 10;
  PetscInt       total = 0, shots = 0;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < g->nshots; s++) {
    total += lost[s];
    shots += lost[s] > 0;
  }
  if (!total) PetscFunctionReturn(0);
  PetscCall(PetscPrintf(comm, "-drop_outside: %" PetscInt_FMT " receiver%s outside the model dropped, from %" PetscInt_FMT " of %" PetscInt_FMT " shots (shot: receivers dropped)",
                        total, total == 1 ? "" : "s", shots, g->nshots));
  for (PetscInt s = 0, k = 0; s < g->nshots && k < most; s++)
    if (lost[s]) PetscCall(PetscPrintf(comm, "%s %" PetscInt_FMT ": %" PetscInt_FMT, k++ ? "," : "", s, lost[s]));
  PetscCall(PetscPrintf(comm, "%s\n", shots > most ? ", ..." : ""));
  PetscFunctionReturn(0);
}

/* Removes the receivers outside the model; lost[s] counts shot s's. */
static PetscErrorCode DropOutside(Geometry *g, PetscInt dim, const PetscInt n[3], const PetscReal d[3], PetscInt lost[])
{
  PetscInt kept = 0;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < g->nshots; s++) {
    const PetscInt first = g->rec_start[s], last = g->rec_start[s + 1];

    g->rec_start[s] = kept; /* kept <= first: the receivers kept move down in place */
    for (PetscInt r = first; r < last; r++) {
      if (!Inside(&g->rec[r], dim, n, d)) continue;
      g->rec[kept]        = g->rec[r];
      g->rec_line[kept++] = g->rec_line[r];
    }
    lost[s] = last - first - (kept - g->rec_start[s]);
    PetscCheck(kept > g->rec_start[s], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "shot %" PetscInt_FMT " (%s): all its %" PetscInt_FMT " receivers lie outside the model, and -drop_outside leaves it none", s, g->source, last - first);
  }
  g->rec_start[g->nshots] = kept;
  PetscFunctionReturn(0);
}

PetscErrorCode GeometryValidate(MPI_Comm comm, Geometry *g, PetscInt dim, const PetscInt n[3], const PetscReal d[3], PetscBool drop)
{
  PetscInt      *lost;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "geometry dimension %d, expected 2 or 3", (int)dim);
  for (PetscInt s = 0; s < g->nshots; s++) {
    if (!Inside(&g->src[s], dim, n, d)) PetscCall(Outside(g, dim, n, d, s, -1, g->src_line[s], &g->src[s]));
    for (PetscInt r = g->rec_start[s]; r < g->rec_start[s + 1] && !drop; r++)
      if (!Inside(&g->rec[r], dim, n, d)) PetscCall(Outside(g, dim, n, d, s, r - g->rec_start[s], g->rec_line[r], &g->rec[r]));
  }
  if (!drop) PetscFunctionReturn(0);
  PetscCall(PetscCalloc1(g->nshots, &lost));
  ierr = DropOutside(g, dim, n, d, lost);
  if (!ierr) ierr = PrintDropped(comm, g, lost);
  PetscCall(PetscFree(lost));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode GeometryWriteCoords(const Geometry *g, PetscInt s, const char *path, PetscBool overwrite)
{
  static const int order[3] = {1, 2, 0}; /* x, y, depth */
  const PetscInt   nrec     = g->rec_start[s + 1] - g->rec_start[s];
  RsfAxes          axes = {0};
  double          *c;

  PetscFunctionBeginUser;
  RsfAxesAdd(&axes, 6, 1, 0, "source x y depth, receiver x y depth", "m");
  RsfAxesAdd(&axes, nrec, 1, 0, "Receiver", "");
  PetscCall(PetscMalloc1(6 * (size_t)nrec, &c));
  for (PetscInt r = 0; r < nrec; r++)
    for (int k = 0; k < 3; k++) {
      const int a        = order[k];
      c[6 * r + k]       = g->src[s].c[a] + g->origin[a];
      c[6 * r + 3 + k]   = g->rec[g->rec_start[s] + r].c[a] + g->origin[a];
    }
  PetscCall(RsfWriteDouble(path, &axes, c, overwrite));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(0);
}

void GeometryCell(const Position *p, PetscInt dim, const PetscReal d[3], PetscInt cell[3])
{
  for (int a = 0; a < 3; a++) cell[a] = a < dim ? (PetscInt)round(p->c[a] / d[a]) : 0;
}

PetscErrorCode GeometryDestroy(Geometry *g)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree6(g->src, g->rec_start, g->rec, g->src_line, g->rec_line, g->record));
  PetscCall(PetscMemzero(g, sizeof *g));
  PetscFunctionReturn(0);
}
