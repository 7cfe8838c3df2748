/* Surveys and shot gathers in SEG-Y: the geometry from the trace headers,
   the observed traces, and forward gathers written with their headers.

   Header conventions (both ways): a shot is a run of consecutive traces
   with one field record number (FFID, bytes 9-12) and one source; x and y
   are SourceX/SourceY (73, 77) and GroupX/GroupY (81, 85) under the
   coordinate scalar (71); the source's depth is the source depth (49), a
   receiver's the negated group elevation (41), both under the elevation
   scalar (69), so that depth is metres below elevation 0.  The origin
   (-segy_origin_z/x/y) is subtracted to give the survey's coordinates,
   in which the model's origin places the model. */
#pragma once
#include "data/geometry.h"

/* One SEG-Y file, or a folder of them (*.sgy, *.segy) read in name order
   as one file: every file with the same sample count and interval. */
typedef struct {
  PetscInt nfiles;
  char   (*name)[PETSC_MAX_PATH_LEN];
  PetscInt *first;   /* [nfiles + 1]: the first trace of each file in the whole */
  int       ns, interval;
} SegyList;

/* Which SEG-Y files hold one recorded component where several lie side by
   side, as -mode forward -output_format segy writes them (shot_NNNN.sgy,
   shot_NNNN_vz.sgy, ...): with part, a folder's files whose names end in
   _PART (before .sgy or .segy) and, for a single file, the one named so
   beside it; without, a folder's files whose names end in none of the
   nparts names parts[] (the other components') and a single file itself. */
typedef struct {
  const char        *part;
  const char *const *parts;
  PetscInt           nparts;
} SegyPart;

/* Serial: the files of path that which selects (NULL: every one). */
PetscErrorCode SegyListOpen(const char *path, const SegyPart *which, SegyList *l);
/* Serial: traces [first, first + count) of the whole, ns samples each, into buf. */
PetscErrorCode SegyListRead(const SegyList *l, PetscInt first, PetscInt count, float *buf);
PetscErrorCode SegyListDestroy(SegyList *l);

/* Collective: *nt and *dt from the sample count and interval of the files
   which selects when not set; when set, they must agree with them (an
   error names the file and both values). */
PetscErrorCode SegySurveyTime(MPI_Comm comm, const char *path, const SegyPart *which, PetscBool nt_set, PetscBool dt_set, PetscInt *nt, PetscReal *dt);
/* Collective: rank 0 reads the trace headers of the files which selects,
   every rank gets the survey, placed against the model's origin (model,
   geometry.h).  In 2D every
   SourceY and GroupY must be the first trace's (a straight line along x),
   which g->origin keeps. */
PetscErrorCode SegySurveyRead(MPI_Comm comm, const char *path, const SegyPart *which, PetscInt dim, const PetscReal segy_origin[3], const PetscReal model[3], Geometry *g);
/* Serial: shot s's gather (nrec traces of nt samples at dt) as path, under a
   temporary name renamed when complete; refuses an existing path unless
   overwrite.  Positions are written back in the trace headers' coordinates
   (g->origin and segy_origin added back). */
PetscErrorCode SegyWriteGather(const char *path, const Geometry *g, PetscInt s, const PetscReal segy_origin[3], PetscInt nt, PetscReal dt, const float *data,
                               PetscBool overwrite);
