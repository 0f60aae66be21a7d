/* check.c: the correctness check every bench method passes before its time
 * counts (DESIGN.md section 5): relative L2 error against the float64
 * convolution, and no NaN or Inf anywhere. */
#include <math.h>
#include <stdio.h>

#include "bench/bench.h"

double bench_error(const float *out, const double *ref, int64_t n, int64_t *nonfinite) {
  double diff = 0, norm = 0;
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!isfinite(out[i])) {
      bad++;
      continue;
    }
    double e = (double)out[i] - ref[i];
    diff += e * e;
    norm += ref[i] * ref[i];
  }
  if (nonfinite) *nonfinite = bad;
  if (bad) return NAN;
  return norm > 0 ? sqrt(diff / norm) : sqrt(diff);
}

bool bench_check(BenchResult *r, const float *out, const BenchData *d, const BenchOptions *o) {
  int64_t bad = 0;
  r->error = bench_error(out, d->ref, d->ny, &bad);
  r->correct = bad == 0 && r->error <= o->tol;
  if (bad)
    snprintf(r->why, sizeof r->why, "wrong: %lld of %lld outputs are NaN or Inf", (long long)bad, (long long)d->ny);
  else if (!r->correct)
    snprintf(r->why, sizeof r->why, "wrong: relative L2 error %.3g is over %.3g", r->error, o->tol);
  return r->correct;
}
