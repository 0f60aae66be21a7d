/* check.c: the correctness check every bench method passes before its time
 * counts (docs/design.md section 5): relative L2 error against the float64
 * convolution (conv_rel_l2), and no NaN or Inf anywhere; and the timed
 * batches of the baselines that time their own (CLBlast, cuDNN). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "conv/reference.h"
#include "measure/measure.h"

bool bench_check(BenchResult *r, const float *out, const BenchData *d, const BenchOptions *o) {
  int64_t bad = 0;
  double e = conv_rel_l2(out, d->ref, (size_t)d->ny, &bad);
  r->error = bad ? NAN : e;   // an output with NaN or Inf has no error figure
  // the layer's output stored in its precision (fp32, half), computed in fp32, its products' operands rounded to
  // TF32 where the precision allows it (tf32: the methods that round them, cuDNN's TF32 math, are checked so)
  const ElemType *et = layer_elem(d->layer);
  double tol = o->tol > 0 ? o->tol
                          : meas_tolerance_types(et, elem_type(et->acc)) +
                                (d->layer->precision == PREC_TF32 ? MEAS_TF32_TOL : 0);
  r->correct = bad == 0 && r->error <= tol;
  if (bad)
    snprintf(r->why, sizeof r->why, "wrong: %lld of %lld outputs are NaN or Inf", (long long)bad, (long long)d->ny);
  else if (!r->correct)
    snprintf(r->why, sizeof r->why, "wrong: relative L2 error %.3g is over %.3g", r->error, tol);
  return r->correct;
}

bool bench_time_batches(const BenchOptions *o, bool (*batch)(void *ctx, double *us), void *ctx, RtStats *us) {
  int runs = o->runs < MEAS_MIN_RUNS ? MEAS_MIN_RUNS : o->runs;
  double *t = malloc((size_t)runs * sizeof *t);
  if (!t) cg_die("out of memory (%d samples)", runs);
  bool ok = true;
  for (int i = 0; i < runs && ok; i++) ok = batch(ctx, &t[i]);
  if (ok) *us = rt_stats(t, runs);
  free(t);
  return ok;
}
