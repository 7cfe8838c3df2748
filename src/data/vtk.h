/* 2D and 3D arrays for ParaView: VTK image data (.vti, XML) with the samples
   appended raw, made from an RSF file as halofwi writes it. */
#pragma once
#include <petscsys.h>

/* Collective over comm (rank 0 writes): beside rsf_path (NAME.rsf) writes
   NAME.vti holding its array as point data called `name`, spacing from the
   RSF axes and origin 0, in metres.  VTK's first index is RSF axis 1 (depth,
   fastest); the Direction attribute turns it downward, along -Z, with x
   along X and y along Y.  Written under a temporary name and renamed when
   complete; refuses an existing NAME.vti unless overwrite. */
PetscErrorCode VtkFromRsf(MPI_Comm comm, const char *rsf_path, const char *name, PetscBool overwrite);
