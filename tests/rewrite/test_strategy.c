/* test_strategy.c: every strategy, derived by rules from the high-level
 * convolution of odd layers, (1) still means the convolution: the
 * interpreter on the derived program equals the float64 reference; (2)
 * compiles; (3) runs on the default device (PoCL in CI) and matches the
 * plain float64 convolution under the measurement protocol (fresh inputs,
 * NaN-poisoned output). A strategy with tuning parameters is checked at
 * random points of its space (the strategy's default domains, the device's
 * limits, points that pass the lowering): a few per layer, and many across
 * the whole space of one layer. */
#include "conv/program.h"
#include "conv/reference.h"
#include "ir/interp.h"
#include "measure/measure.h"
#include "rewrite/strategy.h"
#include "space/space.h"
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
    "vgg16.conv1_2,h=20,w=24,c=6,k=8",
    "alexnet.conv2,h=13,w=13,c=8,k=12",
};

/* The layer whose whole space the property test samples. */
static const char *PROPERTY_LAYER = "vgg16.conv3_1,h=14,w=28,c=5,k=24";

static int points_run;

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

/* The space of the derived program for layer l on dev, with the strategy's
 * default domains. */
static Space *layer_space(Arena *a, const Strategy *s, const Layer *l, const char *text, RtDevice *dev) {
  StDomain sd[ST_MAX_PARAMS];
  int n = s->domains(l, sd);
  SpaceDomain doms[ST_MAX_PARAMS];
  for (int i = 0; i < n; i++) doms[i] = (SpaceDomain){sd[i].name, sd[i].lo, sd[i].hi, 0, NULL};
  SpaceInput in = {s->name, text, 0, NULL, NULL, n, doms, rt_info(dev)};
  Diag d = {0};
  Space *sp = space_new(a, &in, &d);
  if (!sp) fprintf(stderr, "%s: %s\n", s->name, d.msg);
  return sp;
}

/* One point: lowered, run on the device against the plain convolution, and
 * (meaning) the interpreter on the bound program against the reference. */
static void check_point(Arena *a, const Strategy *s, const Layer *l, const char *spec, const char *text,
                        const Space *sp, const int64_t *vals, bool meaning, RtDevice *dev) {
  const char *names[ST_MAX_PARAMS];
  for (int i = 0; i < sp->nparams; i++) names[i] = sp->params[i].name;
  Diag d = {0};
  Program *p = ir_parse(a, s->name, text, sp->nparams, names, vals, &d);
  LProgram *lp = p && ir_infer(a, p, &d) ? lw_lower(a, p, &d) : NULL;
  StrBuf pt;
  sb_init(&pt);
  for (int i = 0; i < sp->nparams; i++) sb_printf(&pt, " %s=%lld", names[i], (long long)vals[i]);
  if (!lp) fprintf(stderr, "%s on %s at%s: %s\n", s->name, spec, sb_str(&pt), d.msg);
  CHECK(lp != NULL);
  if (lp) {
    if (meaning) check_meaning(l, p);
    MeasOptions o = meas_defaults();
    o.check_only = true;
    o.seed = 99;
    o.reference = conv_reference_fn;  // the device against the plain convolution, not the interpreter
    o.reference_ctx = (void *)l;
    MeasResult r = meas_run(a, dev, lp, &o);
    if (r.status != MEAS_OK)
      fprintf(stderr, "%s on %s at%s: %s: %s\n", s->name, spec, sb_str(&pt), meas_status_name(r.status), r.reason);
    CHECK(r.status == MEAS_OK);
    points_run++;
  }
  sb_free(&pt);
}

/* npoints random points of the strategy's space on the layer (its only
 * point when it has no parameters), drawn among those that pass the lowering. */
static void check(const Strategy *s, const char *spec, int npoints, uint64_t seed, RtDevice *dev) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse(spec, &l, &d));
  Arena *a = arena_new();
  Program *hl = conv_program(a, &l, &d);
  Program *p = hl ? s->derive(a, hl, NULL, &d) : NULL;
  if (!p) fprintf(stderr, "%s on %s: %s\n", s->name, spec, d.msg);
  CHECK(p != NULL);
  StrBuf sb;
  sb_init(&sb);
  if (p) ir_print_program(&sb, p);
  const char *text = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  Space *sp = p ? layer_space(a, s, &l, text, dev) : NULL;
  CHECK(!p || sp != NULL);
  if (sp) {
    CHECK(!sp->empty);
    int64_t *pts = calloc((size_t)npoints * (size_t)(sp->nparams + 1), sizeof *pts);
    SpaceCheckOptions co = space_check_defaults();
    co.jobs = 0;
    SpaceCheck chk;
    int k = sp->nparams ? space_sample_checked(sp, seed, npoints, pts, &co, &chk) : 1;
    CHECK(k >= 1);
    for (int i = 0; i < k; i++)
      check_point(a, s, &l, spec, text, sp, pts + (size_t)i * (size_t)sp->nparams, i == 0, dev);
    free(pts);
    space_free(sp);
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
    for (size_t j = 0; j < sizeof LAYERS / sizeof LAYERS[0]; j++) check(&s[i], LAYERS[j], 4, 1000 + j, dev);
  // The property: points drawn across the whole space of one layer.
  for (int i = 0; dev && i < n; i++) check(&s[i], PROPERTY_LAYER, 24, 77, dev);
  fprintf(stderr, "%d strategies, %d points run\n", n, points_run);
  if (dev) rt_close(dev);
  TEST_MAIN_END();
}
