/* Options without effect with this model and survey: see optmodel.h. */
#include "setup/optmodel.h"
#include <stdlib.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Options of -mode invert alone, which the other modes read and ignore. */
static const char *const invert_only[] = {"-restart", "-first_step", "-damping", "-qc_shots", "-qc_illumination", "-rho_min", "-rho_max", "-vpvs_min", "-vpvs_max", "-vs_min", "-vs_max"};
/* What gradients are taken and how the gradient keeps the forward
   wavefield, which -mode forward reads and ignores. */
static const char *const gradient_only[] = {"-invert_for", "-gradient_method", "-checkpoints", "-checkpoint_window", "-wavefield_storage", "-wavefield_dir", "-wavefield_compression", "-wavefield_memory"};
/* The CUDA core kernel's launch shape (Equation.gpu_launch_shape). */
static const char *const launch_shape[] = {"-gpu_tile", "-gpu_tile_shared"};

/* Appends "name value (why)" to msg when name was given, unless same is
   given and the value restates it (a model file's size or spacing typed
   again is harmless; another one is not). */
static PetscErrorCode NoEffect(const char *name, const PetscReal *same, const char *why, char *msg, size_t len, PetscInt *count)
{
  const char *value;
  PetscBool   set;
  char        item[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsFindPair(NULL, NULL, name, &value, &set));
  if (!set || (same && value && PetscAbsReal(strtod(value, NULL) - *same) <= 1e-6 * PetscAbsReal(*same))) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(item, sizeof item, "%s%s%s%s (%s)", (*count)++ ? "; " : "", name, value ? " " : "", value ? value : "", why));
  PetscCall(PetscStrlcat(msg, item, len));
  PetscFunctionReturn(0);
}

PetscErrorCode OptionsCheckModel(MPI_Comm comm, const Options *o, const Equation *eq, const ModelInfo *m)
{
  const char *const axis[3]    = {"z", "x", "y"};
  const char *const grid[3]    = {"-nz", "-nx", "-ny"};
  const char *const spacing[3] = {"-dz", "-dx", "-dy"};
  const char *const regular[4] = {"-nshots", "-nrec", "-source_depth", "-receiver_depth"};
  char              msg[2048] = "", why[PETSC_MAX_PATH_LEN + 64];
  PetscInt          count = 0;

  PetscFunctionBeginUser;
  PetscCheck(o->mode == MODE_FORWARD || eq->gradient, comm, PETSC_ERR_SUP, "-mode %s with -physics %s: the %s equation has no gradient yet; expected -mode forward",
             RunModeNames[o->mode], eq->name, eq->name);
  PetscCheck(o->mode == MODE_FORWARD || o->gradient_method == GRADIENT_AUTO ||
               (o->gradient_method == GRADIENT_CHECKPOINT ? eq->keeps[GRADIENT_FULL] && eq->scheme->forward_state : eq->keeps[o->gradient_method] != NULL),
             comm, PETSC_ERR_SUP,
             "-gradient_method %s: the %s equation does not offer it; expected auto or %s", GradientMethods[o->gradient_method], eq->name,
             GradientMethods[eq->keeps[GRADIENT_FULL] ? GRADIENT_FULL : GRADIENT_BOUNDARY]);
  PetscCheck(o->gradient_smoothing_n != 2 || m->dim == 2, comm, PETSC_ERR_ARG_SIZ,
             "-gradient_smoothing %.6g,%.6g: two values for a 3D model; expected one value, or z,x,y", (double)o->gradient_smoothing[0], (double)o->gradient_smoothing[1]);
  for (PetscInt a = 0; a < 3; a++) {
    const PetscReal n = (PetscReal)m->n[a];
    if (!m->homogeneous) {
      PetscCall(PetscSNPrintf(why, sizeof why, "the model %s has %" PetscInt_FMT " cells along %s", m->name, m->n[a], axis[a]));
      PetscCall(NoEffect(grid[a], &n, why, msg, sizeof msg, &count));
    }
    if (a == 2 && m->dim == 2) PetscCall(NoEffect(spacing[a], NULL, "the model is 2D: it has no y axis", msg, sizeof msg, &count));
    else if (!m->homogeneous && m->format == FORMAT_RSF) {
      PetscCall(PetscSNPrintf(why, sizeof why, "the model %s has a spacing of %.6g m along %s", m->name, (double)m->d[a], axis[a]));
      PetscCall(NoEffect(spacing[a], &m->d[a], why, msg, sizeof msg, &count));
    }
  }
  if (o->geometry[0] || o->observed_segy[0]) {
    PetscCall(PetscSNPrintf(why, sizeof why, "the survey comes from %s", o->geometry[0] ? o->geometry : o->observed_segy));
    for (int k = 0; k < 4; k++) PetscCall(NoEffect(regular[k], NULL, why, msg, sizeof msg, &count));
  }
  if (o->gradient_smoothing_n == 3 && m->dim == 2)
    PetscCall(NoEffect("-gradient_smoothing", NULL, "the model is 2D: the third value, y, is not used", msg, sizeof msg, &count));
  for (size_t k = 0; o->mode != MODE_INVERT && k < COUNT(invert_only); k++) PetscCall(NoEffect(invert_only[k], NULL, "only -mode invert reads it", msg, sizeof msg, &count));
  for (size_t k = 0; o->mode == MODE_FORWARD && k < COUNT(gradient_only); k++)
    PetscCall(NoEffect(gradient_only[k], NULL, "a forward run takes no gradient: -mode gradient and invert read it", msg, sizeof msg, &count));
  if (o->mode != MODE_FORWARD && o->gradient_method != GRADIENT_CHECKPOINT) {
    PetscCall(NoEffect("-checkpoints", NULL, "only -gradient_method checkpoint keeps snapshots", msg, sizeof msg, &count));
    PetscCall(NoEffect("-checkpoint_window", NULL, "only -gradient_method checkpoint records windows", msg, sizeof msg, &count));
  }
  if (!eq->gpu_launch_shape) {
    PetscCall(PetscSNPrintf(why, sizeof why, "the %s equation's CUDA kernels take a thread per cell, in no launch shape", eq->name));
    for (size_t k = 0; k < COUNT(launch_shape); k++) PetscCall(NoEffect(launch_shape[k], NULL, why, msg, sizeof msg, &count));
  }
  if (!count) PetscFunctionReturn(0);
  if (o->unused_warn) PetscCall(PetscPrintf(comm, "WARNING: option%s without effect in this run: %s; the run goes ahead (-unused_options warn)\n", count > 1 ? "s" : "", msg));
  else
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option%s without effect in this run: %s. Nothing was run: remove %s, or give -unused_options warn to run all the same",
            count > 1 ? "s" : "", msg, count > 1 ? "them" : "it");
  PetscFunctionReturn(0);
}
