/* Trace filtering for multiscale inversion. */
#pragma once
#include <petscsys.h>

/* Zero-phase low-pass of ntr traces of nt samples at interval dt (trace k at
   data[k * nt]), in place: a symmetric Kaiser-windowed sinc FIR with cutoff
   fcut (Hz) (-6 dB point) and a transition band of width 0.5 fcut, convolved
   with zero extension beyond the trace ends.  Linear and time-invariant, so
   filtering the source wavelet filters the modelled data the same way.
   Errors: fcut <= 0 or fcut >= the Nyquist frequency 1/(2 dt). */
PetscErrorCode LowPassZeroPhase(PetscReal fcut, PetscReal dt, PetscInt nt, PetscInt ntr, float *data);
