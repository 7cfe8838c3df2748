#include "options.h"

/* Default CPML width in cells; see docs/options.md. */
#define DEFAULT_PML_WIDTH 20

PetscErrorCode OptionsRead(MPI_Comm comm, Options *o)
{
  const char *const modes[] = {"forward", "gradient", "invert", "RunMode", "MODE_", NULL};
  /* side names in (axis, side) order */
  const char *const side_opt[3][2] = {
    {"-pml_top",   "-pml_bottom"},
    {"-pml_left",  "-pml_right" },
    {"-pml_front", "-pml_back"  }
  };
  const char *const procs_opt[3] = {"-da_processors_z", "-da_processors_x", "-da_processors_y"};
  PetscInt          width        = DEFAULT_PML_WIDTH;
  PetscBool         set;

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
  o->source_depth = o->receiver_depth = -1; /* two cells, once the model is known */
  o->nt                               = 1000;
  o->dt                               = 0.001;
  o->f0                               = 10.0;
  o->t0                               = -1; /* 1.5 / f0 */
  o->cfl                              = 0.9;
  o->order                            = 8;
  o->shot_groups                      = 1;
  o->nan_check_interval               = 100;
  o->progress_interval                = 60;
  o->halo_overlap                     = PETSC_TRUE;
  PetscCall(PetscStrcpy(o->output_dir, "out"));

  PetscOptionsBegin(comm, NULL, "halofwi: domain-decomposed acoustic modelling and inversion", NULL);
  PetscCall(PetscOptionsEnum("-mode", "What to run", NULL, modes, (PetscEnum)o->mode, (PetscEnum *)&o->mode, NULL));

  PetscCall(PetscOptionsString("-vp", "P velocity: a number (m/s), an RSF file, or marmousi", NULL, o->vp, o->vp, sizeof(o->vp), NULL));
  PetscCall(PetscOptionsInt("-nz", "Cells in depth (number -vp)", NULL, o->n[0], &o->n[0], NULL));
  PetscCall(PetscOptionsInt("-nx", "Cells in x (number -vp)", NULL, o->n[1], &o->n[1], NULL));
  PetscCall(PetscOptionsInt("-ny", "Cells in y, 1 = 2D (number -vp)", NULL, o->n[2], &o->n[2], NULL));
  PetscCall(PetscOptionsReal("-dx", "Spacing in x (m, number -vp)", NULL, o->d[1], &o->d[1], NULL));
  o->d[0] = o->d[2] = o->d[1];
  PetscCall(PetscOptionsReal("-dz", "Spacing in depth (m), default -dx", NULL, o->d[0], &o->d[0], NULL));
  PetscCall(PetscOptionsReal("-dy", "Spacing in y (m), default -dx", NULL, o->d[2], &o->d[2], NULL));

  PetscCall(PetscOptionsString("-geometry", "Survey file (S/R lines)", NULL, o->geometry, o->geometry, sizeof(o->geometry), NULL));
  PetscCall(PetscOptionsInt("-nshots", "Regular survey: number of shots", NULL, o->nshots, &o->nshots, NULL));
  PetscCall(PetscOptionsInt("-nrec", "Regular survey: receivers per shot (default one per x cell)", NULL, o->nrec, &o->nrec, NULL));
  PetscCall(PetscOptionsReal("-source_depth", "Regular survey: source depth (m, default 2 cells)", NULL, o->source_depth, &o->source_depth, NULL));
  PetscCall(PetscOptionsReal("-receiver_depth", "Regular survey: receiver depth (m, default 2 cells)", NULL, o->receiver_depth, &o->receiver_depth, NULL));

  PetscCall(PetscOptionsInt("-nt", "Recorded samples per trace", NULL, o->nt, &o->nt, NULL));
  PetscCall(PetscOptionsReal("-dt", "Recording interval (s); may exceed the stability limit", NULL, o->dt, &o->dt, NULL));
  PetscCall(PetscOptionsReal("-f0", "Ricker peak frequency (Hz)", NULL, o->f0, &o->f0, NULL));
  PetscCall(PetscOptionsReal("-t0", "Ricker delay (s, default 1.5/f0)", NULL, o->t0, &o->t0, NULL));
  PetscCall(PetscOptionsString("-wavelet", "Source wavelet (1D RSF sampled at -dt) instead of a Ricker", NULL, o->wavelet, o->wavelet, sizeof(o->wavelet), NULL));
  PetscCall(PetscOptionsReal("-cfl", "Internal step as a fraction of the stability limit", NULL, o->cfl, &o->cfl, NULL));

  PetscCall(PetscOptionsInt("-order", "Spatial finite-difference order: 2, 4 or 8", NULL, o->order, &o->order, NULL));
  PetscCall(PetscOptionsInt("-pml_width", "CPML width (cells) on every side; 0 = free surface", NULL, width, &width, NULL));
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt s = 0; s < 2; s++) {
      o->pml[a][s] = width;
      PetscCall(PetscOptionsInt(side_opt[a][s], "CPML width (cells) on this side, overrides -pml_width", NULL, o->pml[a][s], &o->pml[a][s], NULL));
    }

  PetscCall(PetscOptionsInt("-shot_groups", "Shot groups; the world size must be a multiple", NULL, o->shot_groups, &o->shot_groups, NULL));
  for (PetscInt a = 0; a < 3; a++) {
    o->procs[a] = PETSC_DECIDE;
    PetscCall(PetscOptionsInt(procs_opt[a], "Subdomains along this physical axis in each group", NULL, o->procs[a], &o->procs[a], NULL));
  }

  {
    const char *const backends[] = {"auto", "cpu", "cuda"};
    const char *const halos[]    = {"auto", "host", "staged", "mpi-device", "nccl"};
    const char *const storage[]  = {"auto", "device", "host"};
    PetscInt          k          = o->backend;
    PetscCall(PetscOptionsEList("-backend", "Kernels: cpu, or cuda (one GPU per rank); auto = cuda when a GPU is visible", NULL, backends, 3, backends[k], &k, NULL));
    o->backend = (BackendChoice)k;
    k          = 0;
    PetscCall(PetscOptionsEList("-halo_type", "Halo exchange: host (cpu); staged, mpi-device or nccl (cuda); auto = the best available", NULL, halos, 5, halos[0], &k, NULL));
    o->halo_type = k - 1;
    PetscCall(PetscOptionsBool("-halo_overlap", "Compute the interior while the halos travel", NULL, o->halo_overlap, &o->halo_overlap, NULL));
    PetscCall(PetscOptionsBool("-gpu_shared", "Let several ranks of a node share a GPU (for testing; NCCL refuses it)", NULL, o->gpu_shared, &o->gpu_shared, NULL));
    k = o->wavefield_storage;
    PetscCall(PetscOptionsEList("-wavefield_storage", "Where the gradient keeps the forward wavefield: device, host (page-locked) or auto (device when it fits)", NULL, storage, 3,
                                storage[k], &k, NULL));
    o->wavefield_storage = k;
  }

  PetscCall(PetscOptionsString("-output_dir", "Folder for the results", NULL, o->output_dir, o->output_dir, sizeof(o->output_dir), NULL));
  PetscCall(PetscOptionsBool("-overwrite", "Replace existing results", NULL, o->overwrite, &o->overwrite, &set));
  PetscCall(PetscOptionsInt("-nan_check_interval", "Check the wavefield for NaN/Inf every this many steps", NULL, o->nan_check_interval, &o->nan_check_interval, NULL));
  PetscCall(PetscOptionsReal("-progress_interval", "Seconds between progress lines within a shot, 0 = none", NULL, o->progress_interval, &o->progress_interval, NULL));

  PetscCall(PetscOptionsString("-observed_dir", "Observed data: shot_NNNN.rsf as -mode forward writes them (gradient, invert)", NULL, o->observed_dir, o->observed_dir,
                               sizeof(o->observed_dir), NULL));
  PetscCall(PetscOptionsReal("-vp_min", "Lower velocity bound (m/s); default 0.8 x the starting model's minimum", NULL, o->vp_min, &o->vp_min, NULL));
  PetscCall(PetscOptionsReal("-vp_max", "Upper velocity bound (m/s), also fixes the time step and the layers; default the model's maximum (gradient) or 1.25 x it (invert)", NULL,
                             o->vp_max, &o->vp_max, NULL));
  PetscCall(PetscOptionsReal("-wavefield_memory", "MB per rank for the stored forward wavefield; default 90% of the node's available memory shared by its ranks", NULL,
                             o->wavefield_memory, &o->wavefield_memory, NULL));
  PetscCall(PetscOptionsReal("-memory_limit", "MB of host memory per rank a run may use, checked before any work; default 90% of the node's available memory shared by its ranks",
                             NULL, o->memory_limit, &o->memory_limit, NULL));
  PetscCall(PetscOptionsReal("-fix_above", "Depth (m) above which the model is kept (water layer)", NULL, o->fix_above, &o->fix_above, NULL));
  PetscCall(PetscOptionsReal("-source_taper", "Radius (m) over which the gradient is tapered to zero at each source (invert)", NULL, o->source_taper, &o->source_taper, NULL));
  o->nbands = MAX_BANDS;
  PetscCall(PetscOptionsRealArray("-bands", "Low-pass cut-offs (Hz), comma separated: one inversion per band, the model carried over", NULL, o->bands, &o->nbands, &set));
  if (!set) o->nbands = 0;
  PetscCall(PetscOptionsBool("-restart", "Carry on an interrupted inversion in -output_dir", NULL, o->restart, &o->restart, NULL));
  PetscOptionsEnd();

  /* checks that need no model */
  PetscCheck(o->order == 2 || o->order == 4 || o->order == 8, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-order %" PetscInt_FMT " is not supported: expected 2, 4 or 8", o->order);
  PetscCheck(o->nt >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-nt %" PetscInt_FMT ": expected at least 1 sample", o->nt);
  PetscCheck(o->dt > 0 && PetscIsNormalReal(o->dt), comm, PETSC_ERR_ARG_OUTOFRANGE, "-dt %.6g: expected a positive interval in seconds", (double)o->dt);
  PetscCheck(o->f0 > 0 && PetscIsNormalReal(o->f0), comm, PETSC_ERR_ARG_OUTOFRANGE, "-f0 %.6g: expected a positive frequency in Hz", (double)o->f0);
  if (o->t0 < 0) o->t0 = 1.5 / o->f0;
  PetscCheck(o->cfl > 0 && o->cfl <= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cfl %.6g: expected a fraction of the stability limit in (0, 2]", (double)o->cfl);
  if (o->cfl > 1) PetscCall(PetscPrintf(comm, "WARNING: -cfl %.6g exceeds the stability limit: the run will blow up\n", (double)o->cfl));
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt s = 0; s < 2; s++)
      PetscCheck(o->pml[a][s] >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT ": expected a width of 0 or more cells", side_opt[a][s], o->pml[a][s]);
  PetscCheck(o->shot_groups >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-shot_groups %" PetscInt_FMT ": expected at least 1", o->shot_groups);
  PetscCheck(o->mode == MODE_FORWARD || o->observed_dir[0], comm, PETSC_ERR_USER_INPUT, "-mode %s needs the observed data: -observed_dir DIR (shot_NNNN.rsf files)",
             modes[o->mode]);
  PetscCheck(o->vp_min >= 0 && o->vp_max >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-vp_min %.6g -vp_max %.6g: expected positive velocities in m/s", (double)o->vp_min,
             (double)o->vp_max);
  PetscCheck(!o->vp_min || !o->vp_max || o->vp_min < o->vp_max, comm, PETSC_ERR_ARG_OUTOFRANGE, "-vp_min %.6g is not below -vp_max %.6g: expected vp_min < vp_max",
             (double)o->vp_min, (double)o->vp_max);
  PetscCheck(o->memory_limit >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-memory_limit %.6g: expected MB of memory per rank, or 0 for the default", (double)o->memory_limit);
  PetscCheck(o->wavefield_memory >= 0 && o->fix_above >= 0 && o->source_taper >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-wavefield_memory %.6g -fix_above %.6g -source_taper %.6g: expected values of 0 or more", (double)o->wavefield_memory, (double)o->fix_above,
             (double)o->source_taper);
  for (PetscInt b = 0; b < o->nbands; b++)
    PetscCheck(o->bands[b] > 0 && (b == 0 || o->bands[b] > o->bands[b - 1]), comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-bands: band %" PetscInt_FMT " is %.6g Hz; expected positive cut-offs in increasing order", b + 1, (double)o->bands[b]);
  PetscCheck(o->nan_check_interval >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-nan_check_interval %" PetscInt_FMT ": expected at least 1", o->nan_check_interval);
  PetscFunctionReturn(0);
}
