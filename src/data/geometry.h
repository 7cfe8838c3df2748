/* Acquisition geometry: shots, each with one source and its receivers.
   Files give positions in the survey's coordinates; halofwi keeps them in
   metres from the first model sample (the model's origin subtracted), in
   axis order (z, x, y) like the grid, and adds the origin back on output. */
#pragma once
#include <petscsys.h>

typedef struct {
  PetscReal c[3]; /* z, x, y (y unused in 2D) */
} Position;

typedef struct {
  PetscInt  nshots;
  Position *src;        /* [nshots] */
  PetscInt *rec_start;  /* [nshots+1]: receivers of shot s are rec[rec_start[s] .. rec_start[s+1]) */
  Position *rec;
  PetscInt *src_line;   /* [nshots] line in the geometry file (SEG-Y: trace), 0 when generated */
  PetscInt *record;     /* [nshots] field record number (SEG-Y FFID); the shot's index elsewhere */
  PetscInt *rec_line;   /* [total receivers] likewise */
  char      source[PETSC_MAX_PATH_LEN]; /* file name, or "regular survey" */
  PetscBool by_trace;   /* src_line, rec_line count SEG-Y traces, not text lines */
  PetscReal origin[3];  /* z, x, y: where the first model sample lies in the survey's coordinates (2D: y is the line's) */
} Geometry;

/* Text file, rank 0 parses and broadcasts.  "S x z" (dim 2) or "S x y z"
   (dim 3) starts a shot, "R ..." lines add receivers to the current shot, '#'
   starts a comment, blank lines are ignored.  A malformed line (wrong token
   count, non-numeric value, R before any S, a shot with no receivers, unknown
   keyword) is an error naming the file and the line number.  origin: the
   model's (ModelInfo.o), subtracted from the file's positions. */
PetscErrorCode GeometryRead(MPI_Comm comm, const char *path, PetscInt dim, const PetscReal origin[3], Geometry *g);

/* Rank 0 runs parse(ctx, g), which fills g through GeometryAlloc; its error
   or the survey reaches every rank. */
PetscErrorCode GeometryShare(MPI_Comm comm, const char *source, PetscErrorCode (*parse)(void *, Geometry *), void *ctx, Geometry *g);
/* Room for nshots shots and nrec receivers in all, records numbered 0, 1, ... */
PetscErrorCode GeometryAlloc(PetscInt nshots, PetscInt nrec, const char *source, Geometry *g);
/* Positions in the survey's coordinates to positions from the first model
   sample: origin is subtracted from every one and kept in g->origin. */
void GeometrySetOrigin(Geometry *g, const PetscReal origin[3]);

/* Regular surface survey: nshots sources evenly spaced from the first to the
   last sample in x (centred when nshots==1), at depth src_depth; every shot
   records nrec receivers evenly spaced over the whole width at rec_depth.
   In 3D sources and receivers lie on the line y = centre of the model.
   Depths are in the survey's coordinates (the model's top at origin[0]);
   a negative one means two cells below the model's top. */
PetscErrorCode GeometryRegular(PetscInt dim, const PetscInt n[3], const PetscReal d[3], const PetscReal origin[3], PetscInt nshots,
                               PetscInt nrec, PetscReal src_depth, PetscReal rec_depth, Geometry *g);

/* Every source must lie inside [0, (n-1)*d] on each axis, and so must every
   receiver unless drop; otherwise an error naming the shot (0-based),
   source or receiver, its line and its position and the model's extent in
   the survey's coordinates.  With drop the receivers outside are removed,
   and their count printed on comm with the shots that lost them; a shot
   left with none is an error.  Collective (g is the same on every rank). */
PetscErrorCode GeometryValidate(MPI_Comm comm, Geometry *g, PetscInt dim, const PetscInt n[3], const PetscReal d[3], PetscBool drop);

/* Serial: path (RSF, doubles) gets shot s's source and receivers in the
   survey's coordinates (metres): one column of 6 per receiver, source x,
   y, depth then receiver x, y, depth (2D: y is the line's). */
PetscErrorCode GeometryWriteCoords(const Geometry *g, PetscInt s, const char *path, PetscBool overwrite);

/* Nearest grid cell of a position, per axis. */
void GeometryCell(const Position *p, PetscInt dim, const PetscReal d[3], PetscInt cell[3]);

PetscErrorCode GeometryDestroy(Geometry *g);
