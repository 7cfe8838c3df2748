#include "options/options.h"
#include "options/optmark.h"
#include "data/segy.h"
#include "data/segy_survey.h"
#include "data/util.h"
#include <halofwi/halo.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const GradientMethods[]   = {"auto", "full", "boundary", "checkpoint", "GradientMethod", "GRADIENT_", NULL};
const char *const WavefieldStorages[] = {"auto", "device", "host", "disk", "WavefieldStorage", "STORAGE_", NULL};
const char *const WavefieldCodecs[]   = {"none", "bf16", "int8", "WavefieldCodec", "CODEC_", NULL};

/* Default CPML width in cells; see docs/options.md. */
#define DEFAULT_PML_WIDTH 20
/* Longest value text of a number option */
#define WORD_LEN 64
/* Above RICKER_BAND x f0 a Ricker wavelet's spectrum is below 3% of its peak. */
#define RICKER_BAND 2.5

const char *const RunModeNames[]   = {"forward", "gradient", "invert", "RunMode", "MODE_", NULL};
const char *const PhysicsNames[]   = {"acoustic", "variable_density", "elastic", "Physics", "PHYSICS_", NULL};
const char *const BackendChoices[] = {"auto", "cpu", "cuda", "BackendChoice", "BACKEND_", NULL};
const char *const PointInterpolations[] = {"sinc", "nearest", "PointInterpolation", "POINTS_", NULL};
const char *const MisfitKinds[]         = {"l2", "trace_l2", "correlation", "MisfitKind", "MISFIT_", NULL};
const char *const SourceEstimations[]   = {"none", "survey", "shot", "SourceEstimation", "SOURCE_ESTIMATION_", NULL};
const char *const Preconditionings[]    = {"none", "pseudo_hessian", "auto", "Preconditioning", "PRECONDITION_", NULL};
const char *const Parameterisations[]   = {"velocity", "slowness", "impedance", "Parameterisation", "PARAMETERISATION_", NULL};
const char *const FileFormats[]         = {"rsf", "segy", "FileFormat", "FORMAT_", NULL};

/* text as a decimal integer in [lo, hi], or an error naming the option, the
   text as typed and the range. */
static PetscErrorCode ParseIntInRange(MPI_Comm comm, const char *name, const char *text, PetscInt lo, PetscInt hi, PetscBool auto_ok, PetscInt *value)
{
  char     *end;
  long long v;

  PetscFunctionBeginUser;
  errno = 0;
  v     = strtoll(text, &end, 10);
  PetscCheck(end != text && !*end && errno != ERANGE && v >= lo && v <= hi, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "%s %s: expected %san integer from %" PetscInt_FMT " to %" PetscInt_FMT, name, text, auto_ok ? "auto or " : "", lo, hi);
  *value = (PetscInt)v;
  PetscFunctionReturn(0);
}

/* An integer option read as text and parsed here: PetscOptionsInt wraps a
   value beyond PetscInt round without a word. */
static PetscErrorCode OptionsIntRange(PetscOptionItems *PetscOptionsObject, const char *name, const char *text, PetscInt lo, PetscInt hi, PetscInt *value)
{
  char      word[WORD_LEN], def[WORD_LEN];
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(def, sizeof def, "%" PetscInt_FMT, *value));
  PetscCall(PetscOptionsString(name, text, NULL, def, word, sizeof word, &set));
  if (set) PetscCall(ParseIntInRange(PetscOptionsObject->comm, name, word, lo, hi, PETSC_FALSE, value));
  PetscFunctionReturn(0);
}

static PetscErrorCode IsAuto(const char *word, PetscBool *is)
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrcasecmp(word, "auto", is));
  PetscFunctionReturn(0);
}

/* Like OptionsIntRange with "auto" as the default, which leaves *value at the
   code the rest of the program reads as "decide later". */
static PetscErrorCode OptionsIntAuto(PetscOptionItems *PetscOptionsObject, const char *name, const char *text, PetscInt lo, PetscInt hi, PetscInt *value)
{
  char      word[WORD_LEN];
  PetscBool set, is_auto;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsString(name, text, NULL, "auto", word, sizeof word, &set));
  PetscCall(IsAuto(word, &is_auto));
  if (set && !is_auto) PetscCall(ParseIntInRange(PetscOptionsObject->comm, name, word, lo, hi, PETSC_TRUE, value));
  PetscFunctionReturn(0);
}

/* A real option whose default is "auto" (*value keeps its code); otherwise a
   finite decimal number above lo (open) or from lo on, described by `expect`. */
static PetscErrorCode OptionsRealAuto(PetscOptionItems *PetscOptionsObject, const char *name, const char *text, PetscReal lo, PetscBool open, const char *expect,
                                      PetscReal *value)
{
  char      word[WORD_LEN];
  PetscBool set, is_auto;
  PetscReal v;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsString(name, text, NULL, "auto", word, sizeof word, &set));
  PetscCall(IsAuto(word, &is_auto));
  if (!set || is_auto) PetscFunctionReturn(0);
  v = strtod(word, NULL);
  PetscCheck(DecimalNumber(word) && !PetscIsInfOrNanReal(v) && (open ? v > lo : v >= lo), PetscOptionsObject->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "%s %s: expected auto or %s", name, word, expect);
  *value = v;
  PetscFunctionReturn(0);
}

/* A list of finite decimal numbers, "a,b,c", of at most max values, read as
   text and parsed here: PetscOptionsRealArray names neither the option nor
   the word it cannot read, and drops values beyond max without a word.
   shown: the default as -help shows it; expect: what the message asks for. */
static PetscErrorCode OptionsRealList(PetscOptionItems *PetscOptionsObject, const char *name, const char *text, const char *shown, const char *expect, PetscInt max,
                                      PetscReal v[], PetscInt *n, PetscBool *set)
{
  char  list[WORD_LEN * MAX_BANDS], copy[WORD_LEN * MAX_BANDS];
  char *word, *rest;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsString(name, text, NULL, shown, list, sizeof list, set));
  if (!*set) PetscFunctionReturn(0);
  PetscCall(PetscStrncpy(copy, list, sizeof copy));
  *n = 0;
  for (word = strtok_r(copy, ",", &rest); word; word = strtok_r(NULL, ",", &rest), ++*n) {
    const PetscReal x = strtod(word, NULL);
    PetscCheck(DecimalNumber(word) && !PetscIsInfOrNanReal(x), PetscOptionsObject->comm, PETSC_ERR_ARG_WRONG, "%s %s: '%s' is not a finite decimal number; expected %s",
               name, list, word, expect);
    if (*n < max) v[*n] = x;
  }
  PetscCheck(*n >= 1 && *n <= max, PetscOptionsObject->comm, PETSC_ERR_ARG_SIZ, "%s %s: %" PetscInt_FMT " values; expected %s", name, list, *n, expect);
  PetscFunctionReturn(0);
}

/* A real option of one value, or one per band (checked against -bands in CheckOptions). */
static PetscErrorCode OptionsPerBand(PetscOptionItems *PetscOptionsObject, const char *name, const char *text, const char *shown, PerBand *p)
{
  PetscInt  n;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(OptionsRealList(PetscOptionsObject, name, text, shown, "one value, or one per band (-bands), comma separated", MAX_BANDS, p->v, &n, &set));
  if (set) p->n = n;
  PetscFunctionReturn(0);
}

/* A file or folder option: PetscOptionsString cuts a longer value at
   PETSC_MAX_PATH_LEN without a word, and the run would go on with another
   path. */
static PetscErrorCode OptionsPath(PetscOptionItems *PetscOptionsObject, const char *name, const char *text, char path[PETSC_MAX_PATH_LEN])
{
  const char *typed;
  PetscBool   set;
  size_t      len;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsFindPair(NULL, NULL, name, &typed, &set));
  PetscCall(PetscStrlen(set ? typed : NULL, &len));
  PetscCheck(len < PETSC_MAX_PATH_LEN, PetscOptionsObject->comm, PETSC_ERR_ARG_SIZ,
             "%s %.48s...: a path of %zu characters; expected at most %d (PETSc's PETSC_MAX_PATH_LEN - 1)", name, typed, len, PETSC_MAX_PATH_LEN - 1);
  PetscCall(PetscOptionsString(name, text, NULL, path, path, PETSC_MAX_PATH_LEN, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadModel(PetscOptionItems *PetscOptionsObject, Options *o)
{
  const char *const n_opt[3]  = {"-nz", "-nx", "-ny"};
  const char *const n_text[3] = {"Cells in depth (number -vp)", "Cells in x (number -vp)", "Cells in y, 1 = 2D (number -vp)"};

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsEnum("-physics",
                             "Wave equation: acoustic (constant density), variable_density (pressure and particle velocity; needs -rho) or elastic (particle velocity and stress; "
                             "needs -vs and -rho)",
                             NULL,
                             PhysicsNames, (PetscEnum)o->physics, (PetscEnum *)&o->physics, NULL));
  PetscCall(OptionsPath(PetscOptionsObject, "-vp", "P velocity: a number (m/s), an RSF or SEG-Y (.sgy, .segy) file, or marmousi", o->vp));
  PetscCall(OptionsPath(PetscOptionsObject, "-vs", "S velocity (-physics elastic): a number (m/s), 0 for a fluid, or an RSF or SEG-Y file on -vp's grid", o->vs));
  PetscCall(OptionsPath(PetscOptionsObject, "-rho", "Density (-physics variable_density, elastic): a number (kg/m^3), an RSF or SEG-Y file on -vp's grid, or gardner (310 vp^0.25; water, 1000, below 1520 m/s)",
                        o->rho));
  /* 2 cells at least in z and x, as for a model file (ModelDescribe); -ny 1 is 2D */
  for (PetscInt a = 0; a < 3; a++) PetscCall(OptionsIntRange(PetscOptionsObject, n_opt[a], n_text[a], a < 2 ? 2 : 1, PETSC_MAX_INT, &o->n[a]));
  PetscCall(PetscOptionsReal("-dx", "Spacing in x (m, number or SEG-Y -vp)", NULL, o->d[1], &o->d[1], NULL));
  o->d[0] = o->d[2] = o->d[1];
  PetscCall(PetscOptionsReal("-dz", "Spacing in depth (m), default -dx; a SEG-Y -vp takes its sample interval (mm)", NULL, o->d[0], &o->d[0], &o->dz_set));
  PetscCall(PetscOptionsReal("-dy", "Spacing in y (m), default -dx", NULL, o->d[2], &o->d[2], NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadSurvey(PetscOptionItems *PetscOptionsObject, Options *o)
{
  const char *const origin_opt[3]  = {"-segy_origin_z", "-segy_origin_x", "-segy_origin_y"};
  const char *const origin_text[3] = {"SEG-Y survey: subtracted from the trace headers' depths (m below elevation 0)",
                                      "SEG-Y survey: subtracted from the trace headers' x (SourceX, GroupX; m)",
                                      "SEG-Y survey: subtracted from the trace headers' y (SourceY, GroupY; m)"};

  PetscFunctionBeginUser;
  PetscCall(OptionsPath(PetscOptionsObject, "-geometry", "Survey file: text (S/R lines) or SEG-Y trace headers (.sgy, .segy)", o->geometry));
  for (PetscInt a = 0; a < 3; a++)
    PetscCall(PetscOptionsReal(origin_opt[a], origin_text[a], NULL, o->segy_origin[a], &o->segy_origin[a], NULL));
  PetscCall(PetscOptionsBool("-drop_outside", "Drop the receivers outside the model (their count printed) instead of stopping", NULL, o->drop_outside, &o->drop_outside, NULL));
  PetscCall(OptionsIntRange(PetscOptionsObject, "-nshots", "Regular survey: number of shots", 1, PETSC_MAX_INT, &o->nshots));
  PetscCall(OptionsIntAuto(PetscOptionsObject, "-nrec", "Regular survey: receivers per shot; auto = one per x cell", 1, PETSC_MAX_INT, &o->nrec));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-source_depth", "Regular survey: source depth (m); auto = 2 cells", 0, PETSC_FALSE, "a depth of 0 m or more",
                            &o->source_depth));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-receiver_depth", "Regular survey: receiver depth (m); auto = 2 cells", 0, PETSC_FALSE, "a depth of 0 m or more",
                            &o->receiver_depth));
  PetscCall(PetscOptionsEnum("-point_interpolation",
                             "Sources and receivers between grid points: sinc (spread over the 8 points around them per axis, Kaiser-windowed) or nearest (moved to the nearest grid point)",
                             NULL, PointInterpolations, (PetscEnum)o->point_interpolation, (PetscEnum *)&o->point_interpolation, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadTime(PetscOptionItems *PetscOptionsObject, Options *o)
{
  PetscFunctionBeginUser;
  PetscCall(OptionsIntRange(PetscOptionsObject, "-nt", "Recorded samples per trace; a SEG-Y survey's by default", 1, PETSC_MAX_INT, &o->nt));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-nt", &o->nt_set));
  PetscCall(PetscOptionsReal("-dt", "Recording interval (s); may exceed the stability limit; a SEG-Y survey's by default", NULL, o->dt, &o->dt, &o->dt_set));
  PetscCall(PetscOptionsReal("-f0", "Ricker peak frequency (Hz)", NULL, o->f0, &o->f0, NULL));
  o->t0 = 1.5 / o->f0; /* the default follows -f0, so that -help shows it */
  PetscCall(PetscOptionsReal("-t0", "Ricker delay (s), default 1.5/f0", NULL, o->t0, &o->t0, NULL));
  PetscCall(OptionsPath(PetscOptionsObject, "-wavelet", "Source wavelet (1D RSF sampled at -dt) instead of a Ricker", o->wavelet));
  PetscCall(PetscOptionsReal("-cfl", "Internal step as a fraction of the stability limit", NULL, o->cfl, &o->cfl, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadDiscretisation(PetscOptionItems *PetscOptionsObject, Options *o)
{
  /* side names in (axis, side) order */
  const char *const side_opt[3][2] = {
    {"-pml_top",   "-pml_bottom"},
    {"-pml_left",  "-pml_right" },
    {"-pml_front", "-pml_back"  }
  };
  PetscInt width = DEFAULT_PML_WIDTH;

  PetscFunctionBeginUser;
  PetscCall(OptionsIntRange(PetscOptionsObject, "-order", "Spatial finite-difference order: even, 2 to 16", 2, FWI_MAX_ORDER, &o->order));
  PetscCall(OptionsIntRange(PetscOptionsObject, "-pml_width", "CPML width (cells) on every side; 0 = free surface", 0, PETSC_MAX_INT, &width));
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt s = 0; s < 2; s++) {
      o->pml[a][s] = width;
      PetscCall(OptionsIntRange(PetscOptionsObject, side_opt[a][s], "CPML width (cells) on this side, overrides -pml_width", 0, PETSC_MAX_INT, &o->pml[a][s]));
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadLayout(PetscOptionItems *PetscOptionsObject, Options *o)
{
  const char *const procs_opt[3] = {"-da_processors_z", "-da_processors_x", "-da_processors_y"};

  PetscFunctionBeginUser;
  PetscCall(OptionsIntRange(PetscOptionsObject, "-shot_groups", "Shot groups; the world size must be a multiple", 1, PETSC_MAX_INT, &o->shot_groups));
  for (PetscInt a = 0; a < 3; a++) {
    o->procs[a] = PETSC_DECIDE;
    PetscCall(OptionsIntAuto(PetscOptionsObject, procs_opt[a], "Subdomains along this physical axis in each group; auto = PETSc decides", 1, PETSC_MAX_INT, &o->procs[a]));
  }
  PetscFunctionReturn(0);
}

/* -gpu_tile ROWS,RUN: both or neither, each in range; -gpu_tile_shared. */
static PetscErrorCode ReadGpuTile(PetscOptionItems *PetscOptionsObject, Options *o)
{
  PetscInt  n = 2, tile[2] = {o->gpu_tile.rows, o->gpu_tile.run};
  PetscBool set;
  char      text[256];

  PetscFunctionBeginUser;
  /* PETSc's -help shows an array's first value only: the text gives both */
  PetscCall(PetscSNPrintf(text, sizeof text, "CUDA: the core kernel's launch shape ROWS,RUN (default %d,%d): blocks of 32 x ROWS threads, each thread a run of RUN cells along the last axis",
                          FIELDS_GPU_TILE_ROWS, FIELDS_GPU_TILE_RUN));
  PetscCall(PetscOptionsIntArray("-gpu_tile", text, NULL, tile, &n, &set));
  PetscCall(PetscOptionsBool("-gpu_tile_shared", "CUDA: the core kernel reads the neighbours across its runs through a shared-memory tile, not the L1 cache", NULL,
                             o->gpu_tile.shared, &o->gpu_tile.shared, NULL));
  if (!set) PetscFunctionReturn(0);
  PetscCheck(n == 2, PetscOptionsObject->comm, PETSC_ERR_ARG_WRONG, "-gpu_tile: %" PetscInt_FMT " value%s given, expected 2, ROWS,RUN (default %d,%d)", n, n == 1 ? "" : "s",
             FIELDS_GPU_TILE_ROWS, FIELDS_GPU_TILE_RUN);
  PetscCheck(tile[0] >= 1 && tile[0] <= FIELDS_GPU_TILE_MAX_ROWS && tile[1] >= 1 && tile[1] <= PETSC_MAX_INT / 2, PetscOptionsObject->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-gpu_tile %" PetscInt_FMT ",%" PetscInt_FMT ": expected ROWS from 1 to %d and RUN of 1 cell or more", tile[0], tile[1], FIELDS_GPU_TILE_MAX_ROWS);
  o->gpu_tile.rows = tile[0];
  o->gpu_tile.run  = tile[1];
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadBackend(PetscOptionItems *PetscOptionsObject, Options *o)
{
  const char *halos[HALO_NCCL + 2] = {"auto"}; /* auto, then HaloTypes */
  PetscInt    k                    = 0;

  PetscFunctionBeginUser;
  for (int t = HALO_HOST; t <= HALO_NCCL; t++) halos[t + 1] = HaloTypes[t];
  PetscCall(PetscOptionsEnum("-backend", "Kernels: cpu, or cuda (one GPU per rank); auto = cuda when a GPU is visible", NULL, BackendChoices, (PetscEnum)o->backend,
                             (PetscEnum *)&o->backend, NULL));
  PetscCall(PetscOptionsEList("-halo_type", "Halo exchange: host (cpu); staged, mpi-device or nccl (cuda); auto = the best available", NULL, halos, HALO_NCCL + 2, halos[0],
                              &k, NULL));
  o->halo_type = k - 1;
  PetscCall(PetscOptionsBool("-halo_overlap", "Compute the interior while the halos travel", NULL, o->halo_overlap, &o->halo_overlap, NULL));
  PetscCall(PetscOptionsBool("-gpu_shared", "Let several ranks of a node share a GPU (for testing; NCCL refuses it; start MPS first, nvidia-cuda-mps-control -d)", NULL, o->gpu_shared, &o->gpu_shared, NULL));
  PetscCall(ReadGpuTile(PetscOptionsObject, o));
  PetscCall(PetscOptionsEnum("-wavefield_storage",
                             "Where the gradient keeps the forward wavefield: device, host (page-locked on a GPU's node), disk (in -wavefield_dir) or auto (device, host, "
                             "then disk where -wavefield_dir is given: the first where it fits)",
                             NULL, WavefieldStorages, (PetscEnum)o->wavefield_storage, (PetscEnum *)&o->wavefield_storage, NULL));
  PetscCall(PetscOptionsString("-wavefield_dir", "A local folder for the gradient's forward wavefield where memory is short: one unnamed file per rank, gone when the run ends",
                               NULL, o->wavefield_dir, o->wavefield_dir, sizeof(o->wavefield_dir), NULL));
  PetscCall(PetscOptionsEnum("-wavefield_compression",
                             "How the gradient keeps the forward wavefield: none (floats, exact), bf16 (half the bytes) or int8 (8-bit blocks of 64 with a scale each, about a "
                             "quarter); not with -gradient_method checkpoint",
                             NULL, WavefieldCodecs, (PetscEnum)o->wavefield_codec, (PetscEnum *)&o->wavefield_codec, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadOutput(PetscOptionItems *PetscOptionsObject, Options *o)
{
  const char *const unused[] = {"error", "warn"};
  PetscInt          k        = 0;

  PetscFunctionBeginUser;
  PetscCall(OptionsPath(PetscOptionsObject, "-output_dir", "Folder for the results", o->output_dir));
  /* "out/" names "out": paths built from it read "out/shot_0000.rsf" */
  for (size_t len = strlen(o->output_dir); len > 1 && o->output_dir[len - 1] == '/'; len--) o->output_dir[len - 1] = 0;
  PetscCall(PetscOptionsEnum("-output_format", "Gathers, gradient and models as rsf or segy (IEEE floats, big-endian)", NULL, FileFormats, (PetscEnum)o->output_format,
                             (PetscEnum *)&o->output_format, NULL));
  PetscCall(PetscOptionsBool("-overwrite", "Replace existing results", NULL, o->overwrite, &o->overwrite, NULL));
  PetscCall(PetscOptionsBool("-vtk", "Also write models, gradients and snapshots as VTK image data (.vti) for ParaView", NULL, o->vtk, &o->vtk, NULL));
  PetscCall(PetscOptionsString("-source_type",
                               "What the sources are: pressure (an explosion: volume injection), and with -physics elastic fz, fx, fy (a force along z, x or y); default pressure",
                               NULL, o->source_type, o->source_type, sizeof(o->source_type), NULL));
  PetscCall(PetscOptionsString("-record",
                               "The components receivers record, comma-separated: p, and with -physics variable_density or elastic vz, vx and (3D) vy, each at its own staggered "
                               "position; forward: the first into shot_NNNN.rsf, each other into shot_NNNN_NAME.rsf (.sgy likewise); gradient and invert: what the data are "
                               "and the misfit reads, in the same files (p, or with -physics variable_density or elastic the velocities too); default the equation's first, p",
                               NULL, o->record, o->record, sizeof(o->record), NULL));
  PetscCall(OptionsIntRange(PetscOptionsObject, "-snapshot_interval", "Forward: the wavefield every this many recorded samples, snapshot_SHOT_SAMPLE.rsf; 0 = none", 0,
                            PETSC_MAX_INT, &o->snapshot_interval));
  PetscCall(OptionsIntRange(PetscOptionsObject, "-nan_check_interval", "Check the wavefield for NaN/Inf every this many steps", 1, PETSC_MAX_INT, &o->nan_check_interval));
  PetscCall(PetscOptionsReal("-progress_interval", "Seconds between progress lines within a shot, 0 = none", NULL, o->progress_interval, &o->progress_interval, NULL));
  PetscCall(PetscOptionsEList("-unused_options", "Options nobody reads (typos, TAO options outside -mode invert): error, nothing runs; or warn and run without them", NULL,
                              unused, 2, unused[0], &k, NULL));
  o->unused_warn = k == 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-memory_limit",
                            "MB of host memory per rank a run may use, checked before any work; auto = 90% of the node's available memory shared by its ranks", 0,
                            PETSC_TRUE, "a positive number of MB", &o->memory_limit));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadInversion(PetscOptionItems *PetscOptionsObject, Options *o)
{
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(OptionsPath(PetscOptionsObject, "-observed_dir", "Observed data: shot_NNNN.rsf as -mode forward writes them (gradient, invert)", o->observed_dir));
  PetscCall(OptionsPath(PetscOptionsObject, "-observed_segy", "Observed data and survey: a SEG-Y file, or a folder of them read in name order (gradient, invert)",
                        o->observed_segy));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-vp_min", "Lower velocity bound (m/s); auto = 0.8 x the starting model's minimum", MIN_VELOCITY, PETSC_FALSE,
                            "a velocity of at least 1 m/s", &o->vp_min));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-vp_max",
                            "Upper velocity bound (m/s), also fixes the time step and the layers; auto = the model's maximum (gradient) or 1.25 x it (invert)", MIN_VELOCITY,
                            PETSC_FALSE, "a velocity of at least 1 m/s", &o->vp_max));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-rho_min", "Invert, -invert_for with rho: lower density bound (kg/m^3); auto = 0.8 x the starting density's minimum",
                            MIN_DENSITY, PETSC_FALSE, "a density of at least 10 kg/m^3", &o->rho_min));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-rho_max", "Invert, -invert_for with rho: upper density bound (kg/m^3); auto = 1.25 x the starting density's maximum",
                            MIN_DENSITY, PETSC_FALSE, "a density of at least 10 kg/m^3", &o->rho_max));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-vpvs_min",
                            "Invert, -invert_for with vs: lower bound on vp / vs in the solid cells (TAO varies vs / vp); auto = 0.8 x the starting model's least, at least 1.1", 1.0,
                            PETSC_FALSE, "a ratio above 1", &o->vpvs_min));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-vpvs_max", "Invert, -invert_for with vs: upper bound on vp / vs in the solid cells; auto = 1.25 x the starting model's greatest", 1.0,
                            PETSC_FALSE, "a ratio above 1", &o->vpvs_max));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-vs_min",
                            "Invert, -invert_for with vs: lower bound on vs in the solid cells (m/s), as vs / vp >= vs_min / vp_min (so it holds whatever vp becomes); auto = none", 0.0, PETSC_FALSE,
                            "a velocity of 0 or more", &o->vs_min));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-vs_max",
                            "Invert, -invert_for with vs: upper bound on vs (m/s), as vs / vp <= vs_max / vp_max (so it holds whatever vp becomes); auto = none", MIN_VELOCITY, PETSC_FALSE,
                            "a velocity of at least 1 m/s", &o->vs_max));
  PetscCall(PetscOptionsString("-invert_for",
                               "Invert: the parameters inverted, vp or vp,rho (-physics variable_density), vp, vp,vs or vp,vs,rho (-physics elastic); the others are held as given. "
                               "Gradient: the parameters whose gradients are taken and written (default: all)",
                               NULL, o->invert_for, o->invert_for, sizeof(o->invert_for), &o->invert_for_set));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-wavefield_memory",
                            "MB per rank for what the gradient keeps of the forward wavefield; auto = what the host memory limit leaves after the rest of the run", 0,
                            PETSC_TRUE, "a positive number of MB", &o->wavefield_memory));
  PetscCall(PetscOptionsEnum("-gradient_method",
                             "How the adjoint gets the forward wavefield: full (every step kept), boundary (the layer band kept, the field run backwards), checkpoint (snapshots "
                             "of the state, the steps run again as binomial checkpointing says) or auto (full or boundary, the fastest that fits)",
                             NULL, GradientMethods, (PetscEnum)o->gradient_method, (PetscEnum *)&o->gradient_method, NULL));
  PetscCall(OptionsIntAuto(PetscOptionsObject, "-checkpoints",
                           "-gradient_method checkpoint: snapshots of the forward state (fields and layer memory) per rank, at most -nt's internal steps less one; auto = as many as fit, or fewer where a smaller store is expected to be faster",
                           0, PETSC_MAX_INT, &o->checkpoints));
  PetscCall(OptionsIntAuto(PetscOptionsObject, "-checkpoint_window",
                           "-gradient_method checkpoint: steps run forwards at once keeping their terms, then reversed (1: a forward step before each reverse step); "
                           "auto = the longest whose terms take at most a quarter of the snapshots' memory",
                           1, PETSC_MAX_INT, &o->checkpoint_window));
  PetscCall(PetscOptionsBool("-adjoint_skip_quiet",
                             "On the CPU: the adjoint leaves as they are the 16-cell row parts whose stencil reads only zeros (the same gradient; false to check that)",
                             NULL, o->adjoint_skip_quiet, &o->adjoint_skip_quiet, NULL));
  PetscCall(PetscOptionsEnum("-misfit",
                             "Misfit: l2 (samples), trace_l2 (each trace normalised: amplitudes ignored) or correlation (normalised cross-correlation of each shot's gather)",
                             NULL, MisfitKinds, (PetscEnum)o->misfit, (PetscEnum *)&o->misfit, NULL));
  PetscCall(OptionsRealList(PetscOptionsObject, "-record_weights",
                            "Gradient and invert: each -record component's weight in the misfit, one per component, multiplying the balance of their observed energies (-misfit l2)",
                            "1 each", "one weight of 0 or more per -record component, comma-separated", OPTIONS_MAX_RECORDED, o->record_weights, &o->record_weights_n, &set));
  PetscCall(PetscOptionsEnum("-source_estimation",
                             "Invert: the wavelet that best fits the data for the current model at the start of every band: none, survey (one) or shot (one per shot)", NULL,
                             SourceEstimations, (PetscEnum)o->source_estimation, (PetscEnum *)&o->source_estimation, NULL));
  PetscCall(PetscOptionsReal("-source_estimation_eps", "Source estimation: stabilisation, a share of the modelled data's peak power", NULL, o->source_estimation_eps,
                             &o->source_estimation_eps, NULL));
  PetscCall(PetscOptionsInt("-source_estimation_interval",
                            "Source estimation: also every N iterations within a band, TAO restarting from the current model with the new wavelet (0: at the band's start only)",
                            NULL, o->source_estimation_interval, &o->source_estimation_interval, NULL));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-first_step",
                            "Invert: the largest change of the first step of a band, as a share of the bound range (-vp_min to -vp_max); auto = 0.2 in 2D and 3D", 0,
                            PETSC_TRUE, "a share of the bound range in (0, 1]", &o->first_step));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-damping",
                            "Invert: Tikhonov damping towards the starting model, as the band's first misfit per 1% rms change of the parameters inverted (0: none); "
                            "auto = 0.003 in 2D, 0.01 in 3D",
                            0, PETSC_FALSE, "a weight of 0 (none) or more", &o->damping));
  PetscCall(PetscOptionsEnum("-parameterisation", "Invert: the variables TAO updates, velocity or slowness (1/v), or impedance (vp and rho vp, with -invert_for vp,rho); the bounds stay those of vp and rho", NULL,
                             Parameterisations, (PetscEnum)o->parameterisation, (PetscEnum *)&o->parameterisation, NULL));
  PetscCall(PetscOptionsEnum("-precondition",
                             "Invert (blmvm, lmvm): the first quasi-Newton matrix: none (a scalar), pseudo_hessian (the inverse source-wavefield energy, set at every band's start) or auto (pseudo_hessian with blmvm and lmvm, none with the other -tao_type)",
                             NULL, Preconditionings, (PetscEnum)o->precondition, (PetscEnum *)&o->precondition, NULL));
  PetscCall(OptionsRealList(PetscOptionsObject, "-gradient_smoothing",
                            "Invert (blmvm, lmvm): Gaussian smoothing in the first quasi-Newton matrix, standard deviation (m): one value, or z,x (2D), z,x,y (3D)", "0",
                            "lengths in m: one value, or z,x in 2D, z,x,y in 3D", 3, o->gradient_smoothing, &o->gradient_smoothing_n, &set));
  if (set && o->gradient_smoothing_n == 1) o->gradient_smoothing[1] = o->gradient_smoothing[2] = o->gradient_smoothing[0];
  PetscCall(PetscOptionsReal("-precondition_eps", "Pseudo-Hessian stabilisation: a share of its peak added to it", NULL, o->precondition_eps, &o->precondition_eps, NULL));
  PetscCall(OptionsPerBand(PetscOptionsObject, "-offset_min", "Data selection: smallest horizontal source-receiver offset used (m); one value, or one per band", "0", &o->offset_min));
  PetscCall(OptionsPerBand(PetscOptionsObject, "-offset_max", "Data selection: largest horizontal source-receiver offset used (m); one value, or one per band", "none", &o->offset_max));
  PetscCall(PetscOptionsBool("-kill_dead_traces", "Data selection: observed traces of zeros are not used", NULL, o->kill_dead_traces, &o->kill_dead_traces, NULL));
  PetscCall(OptionsPath(PetscOptionsObject, "-kill_traces", "Data selection: a file of traces not used, one \"SHOT TRACE\" line each (0-based; # comments)", o->kill_traces));
  PetscCall(PetscOptionsReal("-window_velocity", "Data selection: speed (m/s) of the straight-ray first arrival the time window follows; 0 = no window", NULL, o->window_velocity,
                             &o->window_velocity, NULL));
  PetscCall(OptionsPerBand(PetscOptionsObject, "-window_start", "Data selection: window start (s) relative to the first arrival; one value, or one per band", "0", &o->window_start));
  PetscCall(OptionsPerBand(PetscOptionsObject, "-window_end", "Data selection: window end (s) relative to the first arrival; one value, or one per band", "none", &o->window_end));
  PetscCall(PetscOptionsReal("-window_taper", "Data selection: cosine taper (s) on each side of the window", NULL, o->window_taper, &o->window_taper, NULL));
  PetscCall(PetscOptionsReal("-fix_above", "Depth (m) above which the model is kept (water layer)", NULL, o->fix_above, &o->fix_above, NULL));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-source_taper",
                            "Invert: radius (m) over which the gradient is tapered to zero at each source; auto = a wavelength at -f0 in the slowest free cell", 0,
                            PETSC_FALSE, "a radius of 0 m (none) or more", &o->source_taper));
  PetscCall(OptionsRealAuto(PetscOptionsObject, "-receiver_taper",
                            "Invert: radius (m) over which the gradient is tapered to zero at each receiver; auto = a wavelength at -f0 in the slowest free cell", 0,
                            PETSC_FALSE, "a radius of 0 m (none) or more", &o->receiver_taper));
  PetscCall(OptionsRealList(PetscOptionsObject, "-bands", "Low-pass cut-offs (Hz), comma separated: one inversion per band, the model carried over", "none",
                            "cut-offs in Hz, comma separated, at most " PetscStringize(MAX_BANDS), MAX_BANDS, o->bands, &o->nbands, &set));
  PetscCall(PetscOptionsBool("-restart", "Carry on an interrupted inversion in -output_dir", NULL, o->restart, &o->restart, NULL));
  PetscCall(PetscOptionsString("-qc_shots", "Invert: shots (0-based, comma separated) whose observed, modelled and residual gathers are written to -output_dir/qc after each band",
                               NULL, "none", o->qc_shots, sizeof o->qc_shots, NULL));
  PetscCall(PetscOptionsBool("-qc_illumination", "Invert: the pseudo-Hessian's diagonal (source illumination) of each band's starting model as illumination_B.rsf", NULL,
                             o->qc_illumination, &o->qc_illumination, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetDefaults(Options *o)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  o->mode = MODE_FORWARD;
  PetscCall(PetscStrcpy(o->vp, "marmousi"));
  o->n[0] = 101;
  o->n[1] = 201;
  o->n[2] = 1;
  o->d[0] = o->d[1] = o->d[2] = 10.0;
  o->nshots                   = 1;
  o->nrec                     = PETSC_DECIDE;
  o->checkpoints              = PETSC_DECIDE;
  o->checkpoint_window        = PETSC_DECIDE;
  o->source_depth = o->receiver_depth = -1;
  o->nt                               = 1000;
  o->dt                               = 0.001;
  o->f0                               = 10.0;
  o->cfl                              = 0.9;
  o->order                            = 8;
  o->shot_groups                      = 1;
  o->nan_check_interval               = 100;
  o->progress_interval                = 60;
  o->halo_overlap                     = PETSC_TRUE;
  o->gpu_tile                        = (GpuTile){FIELDS_GPU_TILE_ROWS, FIELDS_GPU_TILE_RUN, PETSC_FALSE};
  o->adjoint_skip_quiet               = PETSC_TRUE;
  o->offset_min                       = (PerBand){1, {0}};
  o->offset_max                       = (PerBand){1, {PETSC_MAX_REAL}};
  o->kill_dead_traces                 = PETSC_TRUE;
  o->window_start                     = (PerBand){1, {0}};
  o->window_end                       = (PerBand){1, {PETSC_MAX_REAL}};
  o->window_taper                     = 0.05;
  o->source_estimation_eps            = 1e-3;
  o->precondition_eps                 = 1e-2;
  o->first_step                       = 0.2; /* auto: docs/numerics.md, "Inversion defaults" */
  o->damping                          = -1;  /* auto, by dimension: as -first_step's */
  PetscCall(PetscStrcpy(o->invert_for, "vp"));
  o->precondition                     = PRECONDITION_AUTO;
  o->source_taper = o->receiver_taper = -1; /* auto */
  PetscCall(PetscStrcpy(o->output_dir, "out"));
  PetscFunctionReturn(0);
}

PetscErrorCode OptionsParse(MPI_Comm comm, Options *o)
{
  PetscFunctionBeginUser;
  PetscCall(SetDefaults(o));
  PetscOptionsBegin(comm, NULL, "halofwi: domain-decomposed acoustic modelling and inversion", NULL);
  PetscCall(PetscOptionsEnum("-mode", "What to run", NULL, RunModeNames, (PetscEnum)o->mode, (PetscEnum *)&o->mode, NULL));
  PetscCall(ReadModel(PetscOptionsObject, o));
  PetscCall(ReadSurvey(PetscOptionsObject, o));
  PetscCall(ReadTime(PetscOptionsObject, o));
  PetscCall(ReadDiscretisation(PetscOptionsObject, o));
  PetscCall(ReadLayout(PetscOptionsObject, o));
  PetscCall(ReadBackend(PetscOptionsObject, o));
  PetscCall(ReadOutput(PetscOptionsObject, o));
  PetscCall(ReadInversion(PetscOptionsObject, o));
  PetscOptionsEnd();
  /* TAO lists and reads it (ReadTaoOptions, TaoSetFromOptions); the planner needs it now */
  o->tao_max_it = INVERT_DEFAULT_MAX_IT;
  if (o->mode == MODE_INVERT) PetscCall(PetscOptionsGetInt(NULL, NULL, "-tao_max_it", &o->tao_max_it, NULL));
  PetscFunctionReturn(0);
}

/* The Ricker wavelet is sampled at -dt and the traces are decimated to it:
   what lies above 1/(2 dt) is lost.  Warned where the Ricker spectrum there is
   still above about 3% of its peak. */
static PetscErrorCode WarnOnCoarseDt(MPI_Comm comm, const Options *o)
{
  const PetscReal nyquist = 0.5 / o->dt, r = nyquist / o->f0;
  /* amplitude spectrum (f/f0)^2 exp(1 - (f/f0)^2), 1 at the peak f0 */
  const PetscReal level = r * r * PetscExpReal(1 - r * r);

  PetscFunctionBeginUser;
  if (o->wavelet[0] || r >= RICKER_BAND) PetscFunctionReturn(0);
  PetscCall(PetscPrintf(comm,
                        "WARNING: -dt %.6g s resolves frequencies up to %.6g Hz (1/(2 dt)), below %.3g x -f0 %.6g Hz = %.6g Hz: the Ricker wavelet is still at %.2g%% of its "
                        "peak amplitude at %.6g Hz, and what lies above is lost from the source (sampled at -dt) and from the recorded traces (decimated to -dt); "
                        "-dt %.6g s or less keeps it\n",
                        (double)o->dt, (double)nyquist, RICKER_BAND, (double)o->f0, (double)(RICKER_BAND * o->f0), (double)(100 * level), (double)nyquist,
                        (double)(0.5 / (RICKER_BAND * o->f0))));
  PetscFunctionReturn(0);
}

/* Checks that need no model. */
static PetscErrorCode CheckOptions(MPI_Comm comm, const Options *o)
{
  PetscBool help;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  /* -help runs nothing, so it needs no data */
  PetscCheck(help || o->mode == MODE_FORWARD || o->observed_dir[0] || o->observed_segy[0], comm, PETSC_ERR_USER_INPUT,
             "-mode %s needs the observed data: -observed_dir DIR (shot_NNNN.rsf files) or -observed_segy FILE", RunModeNames[o->mode]);
  PetscCheck(!o->observed_dir[0] || !o->observed_segy[0], comm, PETSC_ERR_USER_INPUT, "-observed_dir %s and -observed_segy %s: expected one source of observed data",
             o->observed_dir, o->observed_segy);
  PetscCheck(!o->observed_segy[0] || !o->geometry[0], comm, PETSC_ERR_USER_INPUT,
             "-geometry %s and -observed_segy %s: the survey comes from the trace headers of -observed_segy; expected no -geometry", o->geometry, o->observed_segy);
  PetscCheck(!o->drop_outside || !o->observed_segy[0], comm, PETSC_ERR_USER_INPUT,
             "-drop_outside with -observed_segy %s: not supported (its traces are read as the survey's receivers in order); expected -observed_dir", o->observed_segy);
  PetscCheck(o->order % 2 == 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-order %" PetscInt_FMT " is not supported: expected an even order from 2 to %d", o->order,
             FWI_MAX_ORDER);
  PetscCheck(o->physics != PHYSICS_ACOUSTIC || !o->rho[0], comm, PETSC_ERR_USER_INPUT,
             "-rho %s with -physics acoustic: a density is only taken by -physics variable_density and elastic", o->rho);
  PetscCheck(help || o->physics == PHYSICS_ACOUSTIC || o->rho[0], comm, PETSC_ERR_USER_INPUT,
             "-physics %s needs -rho: a density in kg/m^3, an RSF or SEG-Y file on -vp's grid, or gardner", PhysicsNames[o->physics]);
  PetscCheck(o->physics == PHYSICS_ELASTIC || !o->vs[0], comm, PETSC_ERR_USER_INPUT, "-vs %s with -physics %s: an S velocity is only taken by -physics elastic", o->vs,
             PhysicsNames[o->physics]);
  PetscCheck(help || o->physics != PHYSICS_ELASTIC || o->vs[0], comm, PETSC_ERR_USER_INPUT,
             "-physics elastic needs -vs: an S velocity in m/s (0 for a fluid), or an RSF or SEG-Y file on -vp's grid");
  PetscCheck(o->dt > 0 && PetscIsNormalReal(o->dt), comm, PETSC_ERR_ARG_OUTOFRANGE, "-dt %.6g: expected a positive interval in seconds", (double)o->dt);
  PetscCheck(o->f0 > 0 && PetscIsNormalReal(o->f0), comm, PETSC_ERR_ARG_OUTOFRANGE, "-f0 %.6g: expected a positive frequency in Hz", (double)o->f0);
  PetscCheck(o->t0 >= 0 && !PetscIsInfOrNanReal(o->t0), comm, PETSC_ERR_ARG_OUTOFRANGE, "-t0 %.6g: expected a delay of 0 s or more (the default is 1.5/f0 = %.6g s)",
             (double)o->t0, (double)(1.5 / o->f0));
  PetscCheck(o->progress_interval >= 0 && !PetscIsInfOrNanReal(o->progress_interval), comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-progress_interval %.6g: expected 0 (no progress lines) or more seconds", (double)o->progress_interval);
  if (o->mode == MODE_INVERT) { /* TAO takes -1 without a word */
    PetscCheck(o->tao_max_it >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-tao_max_it %" PetscInt_FMT ": expected 0 or more iterations per band", o->tao_max_it);
  }
  PetscCheck(o->cfl > 0 && o->cfl <= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cfl %.6g: expected a fraction of the stability limit in (0, 2]", (double)o->cfl);
  PetscCheck(!o->vp_min || !o->vp_max || o->vp_min < o->vp_max, comm, PETSC_ERR_ARG_OUTOFRANGE, "-vp_min %.6g is not below -vp_max %.6g: expected vp_min < vp_max",
             (double)o->vp_min, (double)o->vp_max);
  PetscCheck(!o->rho_min || !o->rho_max || o->rho_min < o->rho_max, comm, PETSC_ERR_ARG_OUTOFRANGE, "-rho_min %.6g is not below -rho_max %.6g: expected rho_min < rho_max",
             (double)o->rho_min, (double)o->rho_max);
  PetscCheck(!o->vpvs_min || !o->vpvs_max || o->vpvs_min < o->vpvs_max, comm, PETSC_ERR_ARG_OUTOFRANGE, "-vpvs_min %.6g is not below -vpvs_max %.6g: expected vpvs_min < vpvs_max",
             (double)o->vpvs_min, (double)o->vpvs_max);
  PetscCheck(!o->vs_min || !o->vs_max || o->vs_min < o->vs_max, comm, PETSC_ERR_ARG_OUTOFRANGE, "-vs_min %.6g is not below -vs_max %.6g: expected vs_min < vs_max", (double)o->vs_min,
             (double)o->vs_max);
  PetscCheck(!o->vpvs_min || o->vpvs_min > 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-vpvs_min %.6g: expected a ratio above 1 (vs < vp)", (double)o->vpvs_min);
  PetscCheck(o->fix_above >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-fix_above %.6g: expected a depth of 0 m or more", (double)o->fix_above);
  PetscCheck(o->source_estimation_eps > 0 && o->source_estimation_eps < 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-source_estimation_eps %.6g: expected a share of the peak power in (0, 1)", (double)o->source_estimation_eps);
  PetscCheck(o->source_estimation_interval >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-source_estimation_interval %" PetscInt_FMT ": expected 0 (once per band) or a number of iterations",
             o->source_estimation_interval);
  PetscCheck(!o->source_estimation_interval || o->source_estimation != SOURCE_ESTIMATION_NONE, comm, PETSC_ERR_ARG_INCOMP,
             "-source_estimation_interval %" PetscInt_FMT " needs -source_estimation survey or shot", o->source_estimation_interval);
  for (PetscInt a = 0; a < 3; a++)
    PetscCheck(o->gradient_smoothing[a] >= 0 && PetscIsNormalReal(o->gradient_smoothing[a] + 1), comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-gradient_smoothing: %.6g m along axis %d (z, x, y): expected lengths of 0 m or more", (double)o->gradient_smoothing[a], (int)a);
  PetscCheck(!o->vtk || o->output_format == FORMAT_RSF, comm, PETSC_ERR_ARG_INCOMP,
             "-vtk with -output_format %s: the .vti files are made from the RSF outputs; use -output_format rsf", FileFormats[o->output_format]);
  PetscCheck(o->first_step <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-first_step %.6g: expected auto or a share of the bound range in (0, 1]", (double)o->first_step);
  PetscCheck(o->precondition_eps > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-precondition_eps %.6g: expected a positive share of the pseudo-Hessian's peak",
             (double)o->precondition_eps);
  {
    const char *const name[4] = {"-offset_min", "-offset_max", "-window_start", "-window_end"};
    const PerBand    *per[4]  = {&o->offset_min, &o->offset_max, &o->window_start, &o->window_end};
    for (int k = 0; k < 4; k++)
      PetscCheck(per[k]->n == 1 || per[k]->n == o->nbands, comm, PETSC_ERR_ARG_SIZ, "%s: %d values, expected one, or one per band (-bands gives %d)", name[k], (int)per[k]->n,
                 (int)o->nbands);
    for (PetscInt b = 0; b < PetscMax(o->nbands, 1); b++) {
      const PetscReal omin = PerBandValue(&o->offset_min, b), omax = PerBandValue(&o->offset_max, b);
      const PetscReal ws = PerBandValue(&o->window_start, b), we = PerBandValue(&o->window_end, b);
      PetscCheck(omin >= 0 && omin <= omax, comm, PETSC_ERR_ARG_OUTOFRANGE, "-offset_min %.6g -offset_max %.6g (band %d): expected 0 <= min <= max (m)", (double)omin,
                 (double)omax, (int)b + 1);
      PetscCheck(ws < we, comm, PETSC_ERR_ARG_OUTOFRANGE, "-window_start %.6g -window_end %.6g (band %d): expected the start before the end (s)", (double)ws, (double)we,
                 (int)b + 1);
    }
  }
  PetscCheck(o->window_velocity >= 0 && o->window_taper >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-window_velocity %.6g -window_taper %.6g: expected a speed of 0 (no window) or more and a taper of 0 s or more", (double)o->window_velocity,
             (double)o->window_taper);
  for (PetscInt b = 0; b < o->nbands; b++)
    PetscCheck(o->bands[b] > 0 && (b == 0 || o->bands[b] > o->bands[b - 1]), comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-bands: band %" PetscInt_FMT " is %.6g Hz; expected positive cut-offs in increasing order", b + 1, (double)o->bands[b]);
  PetscFunctionReturn(0);
}

const char *OptionsSegySurvey(const Options *o)
{
  if (o->observed_segy[0]) return o->observed_segy;
  return SegyIsPath(o->geometry) ? o->geometry : NULL;
}

static PetscErrorCode ReadAndCheck(MPI_Comm comm, Options *o)
{
  PetscBool help;

  PetscFunctionBeginUser;
  PetscCall(OptionsParse(comm, o));
  PetscCall(CheckOptions(comm, o));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (OptionsSegySurvey(o) && !help) PetscCall(SegySurveyTime(comm, OptionsSegySurvey(o), NULL, o->nt_set, o->dt_set, &o->nt, &o->dt));
  if (o->cfl > 1) PetscCall(PetscPrintf(comm, "WARNING: -cfl %.6g exceeds the stability limit: the run will blow up\n", (double)o->cfl));
  PetscCall(WarnOnCoarseDt(comm, o));
  PetscFunctionReturn(0);
}

PetscErrorCode OptionsRead(MPI_Comm comm, Options *o)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(OptionsErrorHandler, NULL));
  ierr = ReadAndCheck(comm, o);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* The words of a comma-separated list: its commas plus one. */
static PetscInt ListCount(const char *list)
{
  PetscInt n = 1;

  for (const char *p = list; *p; p++) n += *p == ',';
  return n;
}

PetscInt OptionsInvertedCount(const Options *o) { return ListCount(o->invert_for); }

PetscInt OptionsRecordedCount(const Options *o) { return ListCount(o->record); }

PetscBool OptionsListNext(const char **p, const char **item, size_t *len)
{
  const char *end;

  if (!*p) return PETSC_FALSE;
  end   = strchr(*p, ',');
  *item = *p;
  *len  = end ? (size_t)(end - *p) : strlen(*p);
  *p    = end ? end + 1 : NULL;
  return PETSC_TRUE;
}

PetscBool OptionsInverts(const Options *o, const char *name)
{
  const char *p = o->invert_for, *item;
  size_t      n;

  while (OptionsListNext(&p, &item, &n))
    if (n == strlen(name) && !strncmp(item, name, n)) return PETSC_TRUE;
  return PETSC_FALSE;
}
