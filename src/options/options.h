/* Every user option of halofwi, read once at start-up (PetscOptionsBegin, so
   -help lists them with units and defaults, "auto" where the default comes
   from the model or the machine). */
#pragma once
#include <petscsys.h>

/* The highest -order; grid/fd.h sizes its weight tables by it. */
#define FWI_MAX_ORDER 16

/* -gpu_tile: the core kernel's blocks of WIDTH (32) threads by ROWS (at
   most MAX_ROWS), each thread a run of RUN cells along the last axis; a
   launch takes at most GRID_LIMIT blocks along y and z (CUDA's). */
#define FIELDS_GPU_TILE_WIDTH      32
#define FIELDS_GPU_TILE_GRID_LIMIT 65535
#define FIELDS_GPU_TILE_ROWS     8
#define FIELDS_GPU_TILE_RUN      16
#define FIELDS_GPU_TILE_MAX_ROWS 16

/* How a device backend's core kernel covers a box: -gpu_tile ROWS,RUN
   (rows, run; 0: the defaults above) and -gpu_tile_shared (shared: the
   neighbours across the runs read through a shared-memory tile). */
typedef struct {
  PetscInt  rows, run;
  PetscBool shared;
} GpuTile;

/* -gradient_method: how the adjoint gets the forward field of each step
   (docs/numerics.md, "Gradient methods"): full keeps the term v^2 dt^2
   multiplies at every step and every cell; boundary keeps only the layer
   band the core's stencil reads (FieldsBandBoxes) and the last two time
   levels, and runs the forward field backwards beside the adjoint, the
   layers taking no gradient.  checkpoint keeps what full keeps for two
   steps only, and snapshots of the forward state, from which it runs the
   forward steps again as the adjoint needs them (binomial checkpointing,
   shot/revolve.h).  auto: the planner's choice (GradientPlanChoose), full
   or boundary. */
typedef enum { GRADIENT_AUTO, GRADIENT_FULL, GRADIENT_BOUNDARY, GRADIENT_CHECKPOINT } GradientMethod;
extern const char *const GradientMethods[];

/* -wavefield_storage: where the stored steps are kept (equations/store.h).
   auto: a device backend keeps them in device memory when they fit there,
   else in page-locked host memory (copied asynchronously on a side lane);
   a host backend in host memory; either on disk, in -wavefield_dir, where
   a method does not fit in memory.  disk: in -wavefield_dir whatever fits. */
typedef enum { STORAGE_AUTO, STORAGE_DEVICE, STORAGE_HOST, STORAGE_DISK } WavefieldStorage;
extern const char *const WavefieldStorages[];

/* -wavefield_compression: how the stored steps are kept (equations/codec.h):
   as floats, as bfloat16, or as 8-bit integers with one scale per block. */
typedef enum { CODEC_NONE, CODEC_BF16, CODEC_INT8 } WavefieldCodec;
extern const char *const WavefieldCodecs[];

typedef enum { MODE_FORWARD, MODE_GRADIENT, MODE_INVERT } RunMode;
/* Iterations per band of -mode invert without -tao_max_it. */
#define INVERT_DEFAULT_MAX_IT 20
typedef enum { BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA } BackendChoice;
typedef enum { POINTS_SINC, POINTS_NEAREST } PointInterpolation;
typedef enum { MISFIT_L2, MISFIT_TRACE_L2, MISFIT_CORRELATION } MisfitKind;
typedef enum { SOURCE_ESTIMATION_NONE, SOURCE_ESTIMATION_SURVEY, SOURCE_ESTIMATION_SHOT } SourceEstimation;
typedef enum { PRECONDITION_NONE, PRECONDITION_PSEUDO_HESSIAN, PRECONDITION_AUTO } Preconditioning;
typedef enum { PARAMETERISATION_VELOCITY, PARAMETERISATION_SLOWNESS, PARAMETERISATION_IMPEDANCE } Parameterisation;
typedef enum { FORMAT_RSF, FORMAT_SEGY } FileFormat;

#define MAX_BANDS 16
/* The most components -record may name (EQUATION_MAX_COMPONENTS). */
#define OPTIONS_MAX_RECORDED 8

/* A setting given once for every band or once per band (-bands). */
typedef struct {
  PetscInt  n; /* 1, or the number of bands */
  PetscReal v[MAX_BANDS];
} PerBand;

/* The value for band b (0-based). */
static inline PetscReal PerBandValue(const PerBand *p, PetscInt b) { return p->v[p->n > 1 ? b : 0]; }
/* Slowest velocity accepted (m/s), in models and bounds: anything slower is a
   unit or file mistake, and would make the cells per wavelength meaningless. */
#define MIN_VELOCITY 1.0

/* -physics: the wave equation (equations/equation.h) */
typedef enum { PHYSICS_ACOUSTIC, PHYSICS_VARIABLE_DENSITY, PHYSICS_ELASTIC } Physics;
extern const char *const PhysicsNames[];
/* Lightest density accepted (kg/m^3): anything lighter is a unit mistake (g/cm^3). */
#define MIN_DENSITY 10.0

/* -mode names, for PetscOptionsEnum and messages */
extern const char *const RunModeNames[];
extern const char *const BackendChoices[];
extern const char *const PointInterpolations[];
extern const char *const MisfitKinds[];
extern const char *const SourceEstimations[];
extern const char *const Preconditionings[];
extern const char *const Parameterisations[];
extern const char *const FileFormats[];

typedef struct {
  RunMode   mode;
  /* model */
  Physics   physics;
  char      vp[PETSC_MAX_PATH_LEN];  /* number, RSF path or "marmousi" */
  char      rho[PETSC_MAX_PATH_LEN]; /* variable_density, elastic: number (kg/m^3), RSF or SEG-Y path, or "gardner"; "" = not given */
  char      vs[PETSC_MAX_PATH_LEN];  /* elastic: number (m/s), RSF or SEG-Y path; "" = not given */
  char      source_type[32];        /* the sources' kind (Equation.source_kind's names); "" = the equation's first */
  PetscInt  n[3];                   /* z, x, y for a number -vp */
  PetscReal d[3];
  PetscBool dz_set;                 /* -dz given: a SEG-Y model's sample interval must agree */
  /* acquisition */
  char      geometry[PETSC_MAX_PATH_LEN]; /* text, or SEG-Y (.sgy, .segy) trace headers */
  PetscReal segy_origin[3];           /* z, x, y: subtracted from SEG-Y positions (m) */
  PetscBool drop_outside;             /* receivers outside the model dropped, not an error */
  PetscInt  nshots, nrec;             /* nrec PETSC_DECIDE: one per x cell */
  PetscReal source_depth, receiver_depth; /* < 0: two cells */
  PointInterpolation point_interpolation;
  /* time and source */
  PetscInt  nt;
  PetscReal dt, f0, t0, cfl;
  PetscBool nt_set, dt_set;         /* given, rather than taken from a SEG-Y survey */
  char      wavelet[PETSC_MAX_PATH_LEN];
  /* discretisation */
  PetscInt  order;
  PetscInt  pml[3][2]; /* per axis (z, x, y) and side (low, high) */
  /* parallel layout */
  PetscInt  shot_groups;
  PetscInt  procs[3]; /* subdomains per axis (z, x, y), PETSC_DECIDE */
  /* backend */
  BackendChoice backend;
  PetscInt  halo_type;     /* a HaloType, or -1: the best available */
  PetscBool halo_overlap;
  PetscBool gpu_shared;    /* several ranks of a node may share a GPU */
  GpuTile   gpu_tile;      /* PropagatorSettings.gpu_tile */
  PetscInt  wavefield_storage; /* a WavefieldStorage */
  char      wavefield_dir[PETSC_MAX_PATH_LEN]; /* the disk tier's folder, "" = none */
  PetscInt  wavefield_codec;   /* a WavefieldCodec */
  /* output */
  char      output_dir[PETSC_MAX_PATH_LEN];
  FileFormat output_format;       /* gathers, gradient and models */
  PetscBool overwrite;
  PetscBool vtk;               /* models, gradients and snapshots also as .vti */
  PetscInt  snapshot_interval; /* recorded samples between wavefield snapshots (forward), 0 = none */
  PetscInt  nan_check_interval;
  PetscReal progress_interval;
  /* gradient and inversion */
  char      observed_dir[PETSC_MAX_PATH_LEN];
  char      observed_segy[PETSC_MAX_PATH_LEN]; /* SEG-Y file or folder: observed traces and the survey */
  PetscReal vp_min, vp_max;      /* bounds (m/s); vp_max also sets the time step and layers; 0 = from the model */
  PetscReal rho_min, rho_max;    /* density bounds (kg/m^3) where -invert_for takes rho; 0 = from the model */
  PetscReal vpvs_min, vpvs_max;  /* bounds on vp / vs where -invert_for takes vs; 0 = from the model */
  PetscReal vs_min, vs_max;      /* and on vs itself, taken over vp's bounds into those on vs / vp; 0 = none */
  char      record[64];          /* the components receivers record, comma-separated names (Equation.component; in the modes with a misfit, what it reads); empty: the first */
  PetscReal record_weights[OPTIONS_MAX_RECORDED]; /* each recorded component's weight in the misfit (-record_weights; record_weights_n given, 0: 1 each) */
  PetscInt  record_weights_n;
  char      invert_for[64];      /* -mode invert: the parameters inverted, comma-separated names (Equation.parameter); -mode gradient: those whose gradients are taken */
  PetscBool invert_for_set;      /* -invert_for given (-mode gradient takes every parameter's gradient without it) */
  PetscReal wavefield_memory;    /* MB per rank for what the gradient keeps of the forward wavefield; 0 = from the free memory */
  PetscInt  gradient_method;     /* a GradientMethod */
  PetscInt  checkpoints;         /* -gradient_method checkpoint: snapshots of the forward state; PETSC_DECIDE: the planner's (plan.c) */
  PetscInt  checkpoint_window;   /* -gradient_method checkpoint: steps recorded at once; PETSC_DECIDE: from the snapshots' memory */
  PetscBool adjoint_skip_quiet;  /* PropagatorSettings.skip_quiet */
  MisfitKind misfit;
  SourceEstimation source_estimation;
  Preconditioning precondition;
  Parameterisation parameterisation;
  PetscReal first_step;              /* the first step of a band, as a share of the bound range */
  PetscReal damping;                 /* Tikhonov damping towards the starting model (docs/options.md); 0 = none */
  PetscReal precondition_eps;        /* pseudo-Hessian stabilisation, a share of its peak */
  PetscReal gradient_smoothing[3];   /* Gaussian standard deviation (m) per axis (z, x, y); 0 = none */
  PetscInt  gradient_smoothing_n;    /* values given: 1, or one per axis of the model (OptionsCheckModel) */
  PetscReal source_estimation_eps;   /* stabilisation, a share of the modelled data's peak power */
  PetscInt  source_estimation_interval; /* iterations between estimates within a band; 0 = once per band */
  PerBand   offset_min, offset_max;  /* metres, horizontal; traces outside are not used */
  PetscBool kill_dead_traces;        /* all-zero observed traces are not used */
  char      kill_traces[PETSC_MAX_PATH_LEN]; /* a file of traces not used ("SHOT TRACE" lines); empty: none */
  PetscReal window_velocity;         /* m/s; 0 = no time window */
  PerBand   window_start, window_end; /* seconds, relative to the straight-ray time */
  PetscReal window_taper;
  PetscReal memory_limit;        /* MB of host memory per rank a run may plan to use; 0 = from the free memory */
  PetscReal fix_above;           /* metres: cells shallower keep their velocity */
  PetscReal source_taper;        /* metres: gradient tapered to zero at the sources over this radius; -1: auto */
  PetscReal receiver_taper;      /* likewise at the receivers */
  PetscInt  nbands;
  PetscInt  tao_max_it;          /* iterations per band: TAO's -tao_max_it, INVERT_DEFAULT_MAX_IT unless given */
  PetscReal bands[MAX_BANDS];    /* low-pass cut-offs (Hz), one inversion per band; none = the data as given */
  PetscBool restart;
  /* quality control (qc.h) */
  char      qc_shots[PETSC_MAX_PATH_LEN]; /* shots whose gathers are written per band, comma separated; empty or "none": none */
  PetscBool qc_illumination;              /* the pseudo-Hessian's diagonal per band */
  PetscBool unused_warn;         /* options nobody reads: a warning, not an error */
} Options;

/* The SEG-Y that gives the survey (-observed_segy, or a SEG-Y -geometry),
   or NULL. */
const char *OptionsSegySurvey(const Options *o);

/* Reads and checks every option (-nt and -dt from a SEG-Y survey when not
   given, checked against it when given); warns about settings that run but lose
   something (-cfl above 1, -dt too coarse for -f0). */
PetscErrorCode OptionsRead(MPI_Comm comm, Options *o);
/* Only the reading (every option, with -help text), no checks or warnings. */
PetscErrorCode OptionsParse(MPI_Comm comm, Options *o);

/* Whether -invert_for names parameter `name` (one of its comma-separated words). */
PetscBool OptionsInverts(const Options *o, const char *name);
/* The words -invert_for lists (its commas plus one). */
PetscInt OptionsInvertedCount(const Options *o);
/* The components -record names (1 where it names none). */
PetscInt OptionsRecordedCount(const Options *o);
/* The items of a comma-separated list (-invert_for, -record), one a call
   from *p = the list: the next as *item of *len characters; false once
   past the last. */
PetscBool OptionsListNext(const char **p, const char **item, size_t *len);
