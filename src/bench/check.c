/* check.c: the correctness check every bench method passes before its time
 * counts (docs/design.md section 5): relative L2 error against the float64
 * convolution (conv_rel_l2), and no NaN or Inf anywhere. */
#include <math.h>
#include <stdio.h>

#include "bench/bench.h"
#include "conv/reference.h"

bool bench_check(BenchResult *r, const float *out, const BenchData *d, const BenchOptions *o) {
  int64_t bad = 0;
  double e = conv_rel_l2(out, d->ref, (size_t)d->ny, &bad);
  r->error = bad ? NAN : e;   // an output with NaN or Inf has no error figure
  r->correct = bad == 0 && r->error <= o->tol;
  if (bad)
    snprintf(r->why, sizeof r->why, "wrong: %lld of %lld outputs are NaN or Inf", (long long)bad, (long long)d->ny);
  else if (!r->correct)
    snprintf(r->why, sizeof r->why, "wrong: relative L2 error %.3g is over %.3g", r->error, o->tol);
  return r->correct;
}
