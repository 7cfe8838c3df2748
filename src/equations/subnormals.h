/* Far ahead of a wavefront the stencil leaves values that decay into the
   subnormal range, where x86 arithmetic is ~100x slower. */
#pragma once
#if defined(__SSE__)
  #include <xmmintrin.h>
  #include <pmmintrin.h>
#endif

/* Flushes them to zero in the calling thread (the control register is per
   thread).  Every
   backend sets it in the thread that works on its results on the host
   (trace decimation, gradient and source sums), so those round alike
   whichever backend computed the fields; the CUDA kernels flush by
   themselves (--ftz=true). */
static inline void FlushSubnormalsHere(void)
{
#if defined(__SSE__)
  _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
  _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
}

#if !defined(__CUDACC__)
/* In every OpenMP thread, the calling one included: a CPU backend's state
   sets it when it is made. */
static inline void FlushSubnormals(void) { _Pragma("omp parallel") FlushSubnormalsHere(); }
#endif
