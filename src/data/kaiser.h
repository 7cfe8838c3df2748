/* Kaiser windows, shared by the resampling of the time axis and the
   low-pass filter. */
#pragma once

/* Modified Bessel function I0, for Kaiser windows I0(beta sqrt(1 - x^2)) / I0(beta). */
double BesselI0(double x);
