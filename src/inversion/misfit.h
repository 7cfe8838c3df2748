/* The misfit of one shot's gather and its adjoint source (-misfit), with s
   the modelled and o the observed samples:
   - l2:          J = 1/2 |s - o|^2 over every sample (amplitudes count);
   - trace_l2:    J = sum over traces of 1/2 |s/|s| - o/|o||^2, norms over
                  each trace: amplitudes do not count, trace by trace;
   - correlation: J = 1 - (s/|s|) . (o/|o|), norms and product over the whole
                  gather: the normalised zero-lag cross-correlation, blind to
                  one scale of the whole shot (the source's strength) but not
                  to how amplitudes change from trace to trace.
   Per normalised unit, 1/2 |s^ - o^|^2 = 1 - s^.o^, so trace_l2 is the sum of
   trace-by-trace correlations.  A unit with |o| = 0 (a dead trace) adds
   nothing; one with |s| = 0 adds 1 (its value for any s orthogonal to o)
   and no adjoint source, where the misfit has no derivative. */
#pragma once
#include "options/options.h"

/* J of the gather (nrec traces of nt samples, trace k at k nt), and
   adj = dJ/ds (adj may be s: each unit is read before it is written). */
double MisfitGather(MisfitKind kind, PetscInt nrec, PetscInt nt, const float *s, const float *o, float *adj);
