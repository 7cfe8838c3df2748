/* restart/run.txt: see runrecord.h. */
#define _POSIX_C_SOURCE 200809L /* getdelim, realpath, strdup */
#include "inversion/runrecord.h"
#include "setup/output.h"
#include "data/rsf.h"
#include "data/util.h"
#include <errno.h>
#include <petscdmda.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_NAME "restart/run.txt"
/* a '#' key: recorded, not compared (blmvm's replay does not depend on it) */
#define DECOMPOSITION_KEY "# decomposition"

static void Put(FILE *fp, const char *key, const char *fmt, ...)
{
  va_list ap;

  fprintf(fp, "%s = ", key);
  va_start(ap, fmt);
  vfprintf(fp, fmt, ap);
  va_end(ap);
  fputc('\n', fp);
}

/* Paths as absolute ones, so that a restart from another folder compares equal. */
static void PutPath(FILE *fp, const char *key, const char *path)
{
  char *full = realpath(path, NULL);

  Put(fp, key, "%s", full ? full : path);
  free(full);
}

static void PutSum(FILE *fp, const char *key, uint64_t sum) { Put(fp, key, "fnv1a64 %016llx", (unsigned long long)sum); }

static PetscErrorCode PutChecksum(FILE *fp, const char *key, const char *path)
{
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCall(FileChecksum(path, &sum));
  PutSum(fp, key, sum);
  PetscFunctionReturn(0);
}

/* The samples of an RSF file (its binary). */
static PetscErrorCode PutRsfChecksum(FILE *fp, const char *key, const char *path)
{
  RsfHeader h;

  PetscFunctionBeginUser;
  PetscCall(RsfReadHeader(PETSC_COMM_SELF, path, &h));
  PetscCall(PutChecksum(fp, key, h.data_path));
  PetscFunctionReturn(0);
}

/* A model's option: its value, Gardner's rule, or its file and samples. */
static PetscErrorCode PutModel(FILE *fp, const ModelInfo *m)
{
  char key[64];

  PetscFunctionBeginUser;
  if (m->gardner) Put(fp, m->option, "gardner (from -vp)");
  else if (m->homogeneous) Put(fp, m->option, "%.17g", (double)m->value);
  else {
    PutPath(fp, m->option, m->name);
    PetscCall(PetscSNPrintf(key, sizeof(key), "%s samples", m->option));
    PetscCall(PutChecksum(fp, key, m->format == FORMAT_SEGY ? m->name : m->rsf.data_path));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PutModelAndSurvey(FILE *fp, const Objective *obj)
{
  const Options   *o = obj->o;
  const ModelInfo *m = &obj->e.model[0];

  PetscFunctionBeginUser;
  Put(fp, "-physics", "%s", obj->e.backend.eq->name);
  PetscCall(PutModel(fp, m));
  for (PetscInt k = 1; k < obj->e.backend.eq->nparameter; k++) PetscCall(PutModel(fp, &obj->e.model[k]));
  Put(fp, "grid n (z x y)", "%d %d %d", (int)m->n[0], (int)m->n[1], (int)m->n[2]);
  Put(fp, "grid d (z x y)", "%.17g %.17g %.17g", (double)m->d[0], (double)m->d[1], (double)m->d[2]);
  Put(fp, "-pml_top -pml_bottom -pml_left -pml_right -pml_front -pml_back", "%d %d %d %d %d %d", (int)o->pml[0][0], (int)o->pml[0][1], (int)o->pml[1][0],
      (int)o->pml[1][1], (int)o->pml[2][0], (int)o->pml[2][1]);
  if (o->geometry[0]) {
    PutPath(fp, "-geometry", o->geometry);
    PetscCall(PutChecksum(fp, "-geometry content", o->geometry));
  } else if (o->observed_segy[0]) { /* the survey of the trace headers */
    const Geometry *g = &obj->e.geo;
    PutSum(fp, "-observed_segy survey", Fnv1a(Fnv1a(FNV_START, g->src, sizeof(Position) * g->nshots), g->rec, sizeof(Position) * g->rec_start[g->nshots]));
  } else {
    Put(fp, "-nshots", "%d", (int)o->nshots);
    Put(fp, "-nrec", "%d", (int)o->nrec);
    Put(fp, "-source_depth", "%.17g", (double)o->source_depth);
    Put(fp, "-receiver_depth", "%.17g", (double)o->receiver_depth);
  }
  Put(fp, "-point_interpolation", "%s", PointInterpolations[o->point_interpolation]);
  {
    char names[128] = ""; /* the components the misfit reads, as -record resolved them */
    for (PetscInt j = 0; j < obj->e.ncomponent; j++) {
      PetscCall(PetscStrlcat(names, j ? "," : "", sizeof names));
      PetscCall(PetscStrlcat(names, ExperimentComponentName(&obj->e, j), sizeof names));
    }
    Put(fp, "-record", "%s", names);
  }
  if (o->observed_segy[0]) PutPath(fp, "-observed_segy", o->observed_segy);
  else PutPath(fp, "-observed_dir", o->observed_dir);
  Put(fp, "-segy_origin_z -segy_origin_x -segy_origin_y", "%.17g %.17g %.17g", (double)o->segy_origin[0], (double)o->segy_origin[1], (double)o->segy_origin[2]);
  for (PetscInt s = 0; s < obj->e.geo.nshots; s++) {
    const char *every = obj->e.ncomponent > 1 ? " (every component)" : ""; /* obs_sum covers them all */
    char        key[128];
    if (o->observed_segy[0]) PetscCall(PetscSNPrintf(key, sizeof(key), "-observed_segy shot %d (FFID %d) samples%s", (int)s, (int)obj->e.geo.record[s], every));
    else PetscCall(PetscSNPrintf(key, sizeof(key), "-observed_dir shot_%04d.rsf samples%s", (int)s, every));
    PutSum(fp, key, obj->obs_sum[s]);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PutInversion(FILE *fp, const Objective *obj)
{
  const Options *o = obj->o;
  char           type[256] = "blmvm"; /* invert.c's default */
  PetscBool      set;

  PetscFunctionBeginUser;
  fprintf(fp, "-bands = ");
  for (PetscInt b = 0; b < o->nbands; b++) fprintf(fp, "%s%.17g", b ? "," : "", (double)o->bands[b]);
  fprintf(fp, "%s\n", o->nbands ? "" : "none");
  Put(fp, "-vp_min", "%.17g", (double)obj->vp_lo);
  Put(fp, "-vp_max", "%.17g", (double)obj->vp_hi);
  Put(fp, "-invert_for", "%s", o->invert_for);
  if (OptionsInverts(o, "rho")) Put(fp, "-rho_min -rho_max", "%.17g %.17g", (double)obj->lo[ExperimentDensity(&obj->e)], (double)obj->hi[ExperimentDensity(&obj->e)]);
  if (OptionsInverts(o, "vs")) { /* kept as vs / vp */
    const PetscInt k = EquationParameterIndex(obj->e.backend.eq, "vs");
    Put(fp, "-vpvs_min -vpvs_max", "%.17g %.17g", 1 / (double)obj->hi[k], 1 / (double)obj->lo[k]);
  }
  Put(fp, "-fix_above", "%.17g", (double)o->fix_above);
  Put(fp, "-source_taper -receiver_taper", "%.17g %.17g", (double)o->source_taper, (double)o->receiver_taper);
  Put(fp, "-misfit", "%s", MisfitKinds[o->misfit]);
  Put(fp, "-parameterisation -first_step -damping", "%s %.17g %.17g", Parameterisations[o->parameterisation], (double)o->first_step, (double)obj->damping);
  Put(fp, "-precondition -precondition_eps", "%s %.17g", Preconditionings[o->precondition], (double)o->precondition_eps);
  Put(fp, "-gradient_smoothing", "%.17g,%.17g,%.17g", (double)o->gradient_smoothing[0], (double)o->gradient_smoothing[1], (double)o->gradient_smoothing[2]);
  Put(fp, "-source_estimation -source_estimation_eps -source_estimation_interval", "%s %.17g %" PetscInt_FMT, SourceEstimations[o->source_estimation],
      (double)o->source_estimation_eps, o->source_estimation_interval);
  for (PetscInt b = 0; b < PetscMax(o->nbands, 1); b++)
    Put(fp, "-offset_min -offset_max -window_start -window_end (band)", "%d: %.17g %.17g %.17g %.17g", (int)b + 1, (double)PerBandValue(&o->offset_min, b),
        (double)PerBandValue(&o->offset_max, b), (double)PerBandValue(&o->window_start, b), (double)PerBandValue(&o->window_end, b));
  Put(fp, "-kill_dead_traces -window_velocity -window_taper", "%d %.17g %.17g", (int)o->kill_dead_traces, (double)o->window_velocity, (double)o->window_taper);
  if (o->kill_traces[0]) {
    PutPath(fp, "-kill_traces", o->kill_traces);
    PetscCall(PutChecksum(fp, "-kill_traces content", o->kill_traces));
  }
  Put(fp, "-f0", "%.17g", (double)o->f0);
  Put(fp, "-t0", "%.17g", (double)o->t0);
  if (o->wavelet[0]) {
    PutPath(fp, "-wavelet", o->wavelet);
    PetscCall(PutRsfChecksum(fp, "-wavelet samples", o->wavelet));
  } else Put(fp, "-wavelet", "none (Ricker)");
  Put(fp, "-order", "%d", (int)o->order);
  Put(fp, "-dt", "%.17g", (double)o->dt);
  Put(fp, "-nt", "%d", (int)o->nt);
  Put(fp, "-cfl", "%.17g", (double)o->cfl);
  PetscCall(PetscOptionsGetString(NULL, NULL, "-tao_type", type, sizeof(type), &set));
  Put(fp, "-tao_type", "%s", type);
  /* the methods' gradients differ next to the layers: the one chosen, even by auto */
  Put(fp, "-gradient_method", "%s", GradientMethods[obj->e.plan.method]);
  PetscFunctionReturn(0);
}

/* How the run is split over its ranks: TAO's sums over the model Vec run
   in that order, so where a TAO type's steps depend on it, a replay on
   another split asks for other models. */
static PetscErrorCode PutDecomposition(FILE *fp, const Objective *obj)
{
  const Layout   *l = &obj->e.l;
  const PetscInt *p = obj->e.g.nproc;

  PetscFunctionBeginUser;
  Put(fp, DECOMPOSITION_KEY, "%d ranks in %d shot groups, the model in %d x %d x %d subdomains (z x y)", (int)l->world_size, (int)l->ngroups, (int)p[0],
      (int)p[1], (int)p[2]);
  PetscFunctionReturn(0);
}

/* The record of this run's options in t, left open (its text flushed). */
static PetscErrorCode RunRecord(const Objective *obj, Text *t)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(TextOpen(t));
  fprintf(t->fp, "# halofwi -mode invert: the options that define the evaluations saved here; -restart refuses others\n");
  ierr = PutDecomposition(t->fp, obj);
  if (!ierr) ierr = PutModelAndSurvey(t->fp, obj);
  if (!ierr) ierr = PutInversion(t->fp, obj);
  if (ierr) {
    fclose(t->fp);
    free(t->text);
  }
  PetscCall(ierr);
  PetscCheck(!fflush(t->fp), PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory for a text file: %s", strerror(errno));
  PetscFunctionReturn(0);
}

/* The value of key in a record, up to the line's end (*len), or NULL. */
static const char *Lookup(const char *text, const char *key, int *len)
{
  const size_t klen = strlen(key);

  for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
    if (!strncmp(line, key, klen) && !strncmp(line + klen, " = ", 3)) {
      const char *v = line + klen + 3;
      *len          = (int)strcspn(v, "\n");
      return v;
    }
  return NULL;
}

/* "KEY was A, now B" for every key whose value differs between the saved
   record and this run's, "(none)" where one has no such key. */
static void Differences(const char *saved, const char *now, char diff[FWI_MSG_LEN])
{
  const char *const records[2] = {saved, now};

  for (int pass = 0; pass < 2; pass++)
    for (const char *line = records[pass]; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
      const char  *eq = strstr(line, " = "), *was, *is;
      const int    klen = eq ? (int)(eq - line) : 0;
      const size_t used = strlen(diff);
      char         key[256];
      int          wlen = 6, ilen = 6;

      if (*line == '#' || !eq || klen >= (int)sizeof(key) || memchr(line, '\n', (size_t)klen)) continue;
      snprintf(key, sizeof(key), "%.*s", klen, line);
      was = Lookup(saved, key, &wlen);
      is  = Lookup(now, key, &ilen);
      if ((pass && was) || (was && is && wlen == ilen && !strncmp(was, is, (size_t)wlen))) continue; /* compared in the first pass, or equal */
      snprintf(diff + used, FWI_MSG_LEN - used, "%s%s was %.*s, now %.*s", used ? "; " : "", key, wlen, was ? was : "(none)", ilen, is ? is : "(none)");
    }
}

static PetscErrorCode ReadText(const char *path, char **text)
{
  FILE   *fp  = fopen(path, "rb");
  size_t  cap = 0;
  ssize_t got;
  int     err;

  PetscFunctionBeginUser;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-restart: cannot read %s: %s (it records the interrupted run's options; start again with -overwrite)", path,
             strerror(errno));
  *text = NULL;
  got   = getdelim(text, &cap, 0, fp); /* the whole file: it holds no NUL */
  err   = ferror(fp) ? errno : 0;
  fclose(fp);
  if (got < 0) {
    free(*text);
    *text = strdup("");
  }
  PetscCheck(!err && *text, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "-restart: cannot read %s: %s", path, strerror(err ? err : ENOMEM));
  PetscFunctionReturn(0);
}

/* "the interrupted run ran on A, this one on B" where the recorded
   decomposition differs from this run's; empty otherwise. */
static void DecompositionChange(const char *saved, const char *now, char change[FWI_MSG_LEN])
{
  int         wlen = 0, ilen = 0;
  const char *was = Lookup(saved, DECOMPOSITION_KEY, &wlen), *is = Lookup(now, DECOMPOSITION_KEY, &ilen);

  change[0] = 0;
  if (was && is && (wlen != ilen || strncmp(was, is, (size_t)wlen)))
    snprintf(change, FWI_MSG_LEN, "the interrupted run ran on %.*s, this one on %.*s", wlen, was, ilen, is);
}

/* The saved record in dir (path) and this run's, compared: diff (the
   options that differ) and change (DecompositionChange). */
static PetscErrorCode Compare(const Objective *obj, const char *dir, char path[PETSC_MAX_PATH_LEN], char diff[FWI_MSG_LEN], char change[FWI_MSG_LEN])
{
  char *saved;
  Text  now;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/%s", dir, RECORD_NAME));
  PetscCall(ReadText(path, &saved));
  PetscCall(RunRecord(obj, &now));
  diff[0] = 0;
  Differences(saved, now.text, diff);
  DecompositionChange(saved, now.text, change);
  free(saved);
  PetscCall(TextClose(&now));
  free(now.text);
  PetscFunctionReturn(0);
}

PetscErrorCode RunRecordCheck(const Objective *obj, const char *dir)
{
  char path[PETSC_MAX_PATH_LEN], diff[FWI_MSG_LEN], change[FWI_MSG_LEN];

  PetscFunctionBeginUser;
  PetscCall(Compare(obj, dir, path, diff, change));
  PetscCheck(!diff[0] || !change[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "-restart: the evaluations recorded in %s cannot be replayed: %s, and %s (a value chosen for the ranks' memory, such as -gradient_method auto's, follows the decomposition). Rerun on the interrupted run's ranks, -shot_groups and -da_processors_*, or give those options their saved values, or start again with -overwrite",
             path, change, diff);
  PetscCheck(!diff[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "-restart: the options differ from those of the interrupted run recorded in %s: %s. Rerun with that run's options, or start again with -overwrite", path,
             diff);
  PetscFunctionReturn(0);
}

PetscErrorCode RunRecordReplayCause(const Objective *obj, const char *dir, char cause[FWI_MSG_LEN])
{
  char      path[PETSC_MAX_PATH_LEN], diff[FWI_MSG_LEN], change[FWI_MSG_LEN], type[256] = "blmvm";
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(Compare(obj, dir, path, diff, change));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-tao_type", type, sizeof(type), &set));
  if (change[0])
    snprintf(cause, FWI_MSG_LEN,
             "%s, and -tao_type %s's steps depend on how the model is split (its sums run in that order). Rerun -restart with the interrupted run's ranks, -shot_groups and -da_processors_*",
             change, type);
  else snprintf(cause, FWI_MSG_LEN, "the saved evaluations are intact and the options in %s agree, so something it does not record differs (a -tao_ setting?)", path);
  PetscFunctionReturn(0);
}

PetscErrorCode RunRecordWrite(const Objective *obj, const char *dir)
{
  Text t;

  PetscFunctionBeginUser;
  PetscCall(RunRecord(obj, &t));
  PetscCall(TextWrite(&t, dir, RECORD_NAME));
  PetscFunctionReturn(0);
}
