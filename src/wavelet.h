/* Source wavelets at the recording interval. */
#pragma once
#include <petscsys.h>

/* Ricker: w(t) = (1 - 2 pi^2 f0^2 (t-t0)^2) exp(-pi^2 f0^2 (t-t0)^2) at t = k*dt. */
PetscErrorCode WaveletRicker(PetscInt nt, PetscReal dt, PetscReal f0, PetscReal t0, float *w);

/* 1D RSF wavelet: d1 must equal dt (relative 1e-6), n1 at most nt; shorter
   files are zero padded to nt.  Errors name the file and the values. */
PetscErrorCode WaveletReadFile(MPI_Comm comm, const char *path, PetscInt nt, PetscReal dt, float *w);
