/* Private to the RSF module: one rank's box of an array and the MPI-IO
   that reads and writes it (rsf_block.c), for the writers (rsf_write.c). */
#pragma once
#include "data/rsf.h"
#include "data/util.h"

/* One rank's box of an (up to 3D) array: its MPI-IO types and sizes. */
typedef struct {
  PetscInt64   n[RSF_MAXAXES], start[RSF_MAXAXES], count[RSF_MAXAXES]; /* axes beyond naxes: n = count = 1 */
  MPI_Datatype file, mem;   /* the box in the file, and packed in the buffer */
  PetscMPIInt  nitems;      /* 1, or 0 for an empty box */
  MPI_Offset   bytes, total; /* of the box, and of the whole array */
} RsfBlock;

/* Collective: every rank's box must lie inside the array; agreed before any
   file is opened, so that a bad box cannot hang the others. */
PetscErrorCode RsfBlockCheck(MPI_Comm comm, const char *path, PetscInt naxes, const PetscInt n[], const PetscInt start[], const PetscInt count[]);
/* The box [start, start + count) of an array of size n[]: its MPI types. */
PetscErrorCode RsfBlockCreate(PetscInt naxes, const PetscInt n[], const PetscInt start[], const PetscInt count[], RsfBlock *b);
PetscErrorCode RsfBlockDestroy(RsfBlock *b);
/* Collective: writes this rank's box of file (path names the result in
   messages) and reads it back; msg (empty = fine) says what failed here. */
PetscErrorCode RsfBlockWrite(MPI_Comm comm, const char *file, const char *path, const RsfBlock *b, const float *buf, char msg[FWI_MSG_LEN]);
