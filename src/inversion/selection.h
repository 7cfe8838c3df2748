/* Which samples of a shot's gather the misfit sees (data selection), as a
   weight per sample in [0, 1] applied alike to the modelled and the observed
   data, and (being its own transpose) to the adjoint source:
   - traces whose source-receiver offset lies outside [-offset_min,
     -offset_max] get 0 (these and the window's limits: one value, or one
     per band);
   - with -kill_dead_traces, traces whose observed samples are all zero get 0;
   - traces named in the -kill_traces file get 0;
   - with -window_velocity V, each trace keeps the window from t1 +
     -window_start to t1 + -window_end seconds, t1 = the straight-ray time
     from the source to the receiver at speed V (the first arrival of a
     medium that fast), cosine-tapered over -window_taper seconds on both
     sides. */
#pragma once
#include "data/geometry.h"
#include "options/options.h"

/* w (nrec x nt, trace k at k nt) for shot s with its observed gather obs,
   with the settings of band (0-based: offsets and windows may differ per
   band); killed: a flag per trace of the survey (NULL: none). */
void SelectionWeights(const Options *o, PetscInt band, const Geometry *geo, const PetscBool *killed, PetscInt s, PetscInt dim, PetscInt nt, PetscReal dt,
                      const float *obs, float *w);

/* How many of shot s's traces SelectionWeights (same arguments) gives a
   weight above 0 at some sample. */
PetscErrorCode SelectionKeptTraces(const Options *o, PetscInt band, const Geometry *geo, const PetscBool *killed, PetscInt s, PetscInt dim, PetscInt nt, PetscReal dt,
                                   const float *obs, PetscInt *kept);

/* Whether SelectionWeights, called with the same arguments, gives every
   sample 1: no offset limits and no time window in band `band`, and none
   of shot s's traces killed or, with -kill_dead_traces, dead. */
PetscBool SelectionKeepsAll(const Options *o, PetscInt band, const Geometry *geo, const PetscBool *killed, PetscInt s, PetscInt nt, const float *obs);

/* The -kill_traces file (path) read by the first rank of comm: lines
   "SHOT TRACE", both 0-based (TRACE: the receiver's trace in the shot's
   gather), '#' starting a comment.  *killed: a flag per trace of the
   survey (geo->rec_start order) on every rank; NULL when path is empty. */
PetscErrorCode SelectionKillList(MPI_Comm comm, const char *path, const Geometry *geo, PetscBool **killed);
