/* Source wavelets at the recording interval. */
#pragma once
#include <petscsys.h>

/* Ricker: w(t) = (1 - 2 pi^2 f0^2 (t-t0)^2) exp(-pi^2 f0^2 (t-t0)^2) at t = k*dt. */
PetscErrorCode WaveletRicker(PetscInt nt, PetscReal dt, PetscReal f0, PetscReal t0, float *w);

/* The largest |w[k]| of nt samples. */
PetscReal WaveletPeak(PetscInt nt, const float *w);

/* A Ricker (peak 1) whose samples w (nt at dt) are all zero never fires
   within the record: refused, naming -f0, -t0, -nt and -dt; one that
   reaches less than WAVELET_MIN_PEAK there is warned about. */
#define WAVELET_MIN_PEAK 1e-3
PetscErrorCode WaveletRickerCheck(MPI_Comm comm, PetscInt nt, PetscReal dt, PetscReal f0, PetscReal t0, const float *w);

/* 1D RSF wavelet: d1 must equal dt (relative 1e-6), n1 at most nt; shorter
   files are zero padded to nt.  Errors name the file and the values; a
   sample that is NaN or Inf, or all samples zero, are refused. */
PetscErrorCode WaveletReadFile(MPI_Comm comm, const char *path, PetscInt nt, PetscReal dt, float *w);
