/* STREAM-like triad a[i] = b[i] + s*c[i] in float32 with OpenMP.
 *
 *   halofwi-stream [MB]     MB per array (default 256: 64 Mi floats)
 *
 * The arrays are first touched by the threads that later use them, the triad
 * runs 10 times and the best time counts, with 12 bytes moved per element
 * (two reads and one write, as STREAM counts).  Prints one line:
 *   triad: 12.345 GB/s                                  (GB = 1e9 bytes) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define NTRIES 10

int main(int argc, char **argv)
{
  size_t n = (size_t)64 << 20;
  if (argc > 1) {
    char *end;
    double mb = strtod(argv[1], &end);
    if (*end != '\0' || !(mb > 0)) {
      fprintf(stderr, "usage: %s [MB per array], got '%s'\n", argv[0], argv[1]);
      return 2;
    }
    n = (size_t)(mb * 1048576.0 / sizeof(float));
    if (n == 0) n = 1;
  }
  float *a = malloc(n * sizeof(float));
  float *b = malloc(n * sizeof(float));
  float *c = malloc(n * sizeof(float));
  if (!a || !b || !c) {
    fprintf(stderr, "cannot allocate 3 arrays of %zu floats\n", n);
    return 1;
  }
  const float s = 3.0f;

#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
    a[i] = 0.0f;
    b[i] = 1.0f;
    c[i] = 2.0f;
  }

  double best = HUGE_VAL;
  for (int k = 0; k < NTRIES; k++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
    double t = omp_get_wtime() - t0;
    if (t < best) best = t;
  }

  /* Use the result so the loops cannot be dropped. */
  if (a[0] != 7.0f || a[n / 2] != 7.0f || a[n - 1] != 7.0f) {
    fprintf(stderr, "triad: wrong result %g\n", (double)a[n - 1]);
    return 1;
  }
  printf("triad: %.3f GB/s\n", 12.0 * (double)n / best / 1e9);
  free(a);
  free(b);
  free(c);
  return 0;
}
