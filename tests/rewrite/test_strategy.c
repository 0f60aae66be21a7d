/* test_strategy.c: every strategy, derived by rules from the high-level
 * convolution of odd layers, (1) still means the convolution: the
 * interpreter on the derived program equals the float64 reference; (2)
 * compiles; (3) runs on the default device (PoCL in CI) and matches the
 * plain float64 convolution under the measurement protocol (fresh inputs,
 * NaN-poisoned output). */
#include "conv/program.h"
#include "conv/reference.h"
#include "ir/interp.h"
#include "measure/measure.h"
#include "rewrite/strategy.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

static const char *LAYERS[] = {
    "n=1,c=3,h=9,w=11,k=4,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1",
    "n=2,c=5,h=13,w=17,k=7,kh=3,kw=5,stride=1,pad=2,bias=1,relu=0",
    "n=1,c=3,h=13,w=17,k=1,kh=1,kw=1,stride=1,pad=0,bias=0,relu=0",
    "n=1,c=5,h=13,w=17,k=7,kh=5,kw=5,stride=2,pad=2,bias=1,relu=1",
    "n=1,c=3,h=23,w=19,k=2,kh=7,kw=7,stride=4,pad=3,bias=0,relu=1",
    "n=1,c=4,h=10,w=6,k=3,kh=2,kw=3,stride_h=2,stride_w=1,pad_h=1,pad_w=0,bias=1,relu=0",
    "vgg16.conv5_1,c=8,k=6",
    "alexnet.conv1,h=35,w=27,c=3,k=4",
};

static float *random_floats(size_t n, unsigned *seed) {
  float *p = malloc(n * sizeof *p);
  for (size_t i = 0; i < n; i++) p[i] = (float)rand_r(seed) / (float)RAND_MAX * 2.0f - 1.0f;
  return p;
}

/* The derived program computes the convolution (interpreter vs reference). */
static void check_meaning(const Layer *l, const Program *p) {
  unsigned seed = 7;
  size_t nin = (size_t)layer_elems(l, LAYER_INPUT), nwt = (size_t)layer_elems(l, LAYER_WEIGHTS);
  size_t nout = (size_t)layer_elems(l, LAYER_OUTPUT);
  float *in = random_floats(nin, &seed), *wt = random_floats(nwt, &seed), *bias = random_floats((size_t)l->k, &seed);
  double *got = calloc(nout, sizeof *got), *want = calloc(nout, sizeof *want);
  const float *inputs[3] = {in, wt, bias};
  Diag d = {0};
  CHECK(ir_eval(p, inputs, got, 0, NULL, &d));
  conv_reference(l, in, wt, l->bias ? bias : NULL, want);
  double num = 0, den = 0;
  for (size_t i = 0; i < nout; i++) num += (got[i] - want[i]) * (got[i] - want[i]), den += want[i] * want[i];
  CHECK(sqrt(num / (den > 0 ? den : 1)) < 1e-12);
  free(in), free(wt), free(bias), free(got), free(want);
}

static void check(const Strategy *s, const char *spec, RtDevice *dev) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse(spec, &l, &d));
  Arena *a = arena_new();
  Program *hl = conv_program(a, &l, &d);
  Program *p = hl ? s->derive(a, hl, NULL, &d) : NULL;
  LProgram *lp = p ? lw_lower(a, p, &d) : NULL;
  if (!lp) fprintf(stderr, "%s on %s: %s\n", s->name, spec, d.msg);
  CHECK(lp != NULL);
  if (lp) {
    check_meaning(&l, p);
    MeasOptions o = meas_defaults();
    o.check_only = true;
    o.seed = 99;
    o.reference = conv_reference_fn;  // the device against the plain convolution, not the interpreter
    o.reference_ctx = &l;
    MeasResult r = meas_run(a, dev, lp, &o);
    if (r.status != MEAS_OK) fprintf(stderr, "%s on %s: %s: %s\n", s->name, spec, meas_status_name(r.status), r.reason);
    CHECK(r.status == MEAS_OK);
  }
  arena_free(a);
}

int main(void) {
  Diag d = {0};
  RtDevice *dev = rt_open(NULL, &d);
  if (!dev) fprintf(stderr, "%s\n", d.msg);
  CHECK(dev != NULL);
  int n;
  const Strategy *s = st_strategies(&n);
  for (int i = 0; dev && i < n; i++)
    for (size_t j = 0; j < sizeof LAYERS / sizeof LAYERS[0]; j++) check(&s[i], LAYERS[j], dev);
  if (dev) rt_close(dev);
  TEST_MAIN_END();
}
