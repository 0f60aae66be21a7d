/* test_refcache.c: the reference cache (src/conv/refcache.c) as the tuner's
 * worker uses it.
 *
 * On its own: the first lookup computes the float64 convolution; a second
 * one with the same inputs (in other arrays, as each measurement draws its
 * own) is a hit that computes nothing; other inputs (another seed) miss, and
 * so does another layer, even one with the same element counts and inputs
 * written into the same Layer variable (the worker parses each request's
 * layer into one place); freeing keeps the counts.
 *
 * Under the measurement protocol on the default device (PoCL in CI), every
 * lookup but the first of a layer and seed a hit: a correct kernel passes,
 * a hand-written kernel that drops an input channel is wrong, and one that
 * leaves the last output unwritten is caught by the NaN it finds there,
 * although the run before it wrote the whole right answer into an output of
 * the same size (every run's output is poisoned afresh).
 */
#include "conv/refcache.h"
#include "conv/reference.h"
#include "measure/measure.h"
#include "rewrite/strategy.h"
#include "space/layer_space.h"
#include "test.h"
#include "test_layer.h"

#include <math.h>
#include <stdlib.h>

/* A layer's inputs drawn from seed, in fresh arrays, by tensor (in[2] NULL
 * without bias, in[3] without residual). */
static void draw(const Layer *l, uint64_t seed, float *in[4]) {
  int64_t n[4] = {layer_elems(l, LAYER_INPUT), layer_elems(l, LAYER_WEIGHTS), layer_elems(l, LAYER_BIAS),
                  layer_elems(l, LAYER_RESIDUAL)};
  for (int i = 0; i < 4; i++) {
    in[i] = n[i] ? malloc((size_t)n[i] * sizeof(float)) : NULL;
    for (int64_t j = 0; j < n[i]; j++) in[i][j] = (float)((double)(cg_splitmix64(&seed) >> 40) * 0x1p-23 - 1.0);
  }
}

static void undraw(float *in[4]) {
  for (int i = 0; i < 4; i++) free(in[i]);
}

/* A lookup of l on inputs from seed: its output equals conv_reference's, bit
 * for bit, and the cache counted one more hit (hit) or miss. */
static void lookup(ConvRefCache *c, const Layer *l, uint64_t seed, bool hit) {
  float *in[4];
  draw(l, seed, in);
  size_t ny = (size_t)layer_elems(l, LAYER_OUTPUT);
  double *got = malloc(ny * sizeof *got), *want = malloc(ny * sizeof *want);
  conv_reference(l, in[0], in[1], in[2], in[3], want);
  int64_t hits = c->hits, misses = c->misses;
  Diag d = {0};
  const float *inputs[4];   // the program's inputs: those the layer has, in order
  int k = 0;
  for (int i = 0; i < 4; i++)
    if (in[i]) inputs[k++] = in[i];
  CHECK(conv_cached_reference(c, inputs, got, &d));
  CHECK(memcmp(got, want, ny * sizeof *got) == 0);
  CHECK(c->hits == hits + hit && c->misses == misses + !hit);
  free(got), free(want);
  undraw(in);
}

static void test_lookups(void) {
  Layer cur = spec_layer("n=2,c=3,h=9,w=7,k=4,bias=1,relu=1");
  ConvRefCache c = {.layer = &cur};
  lookup(&c, &cur, 1, false);
  const double *first = c.ref;
  lookup(&c, &cur, 1, true);
  CHECK(c.ref == first);   // nothing computed again
  lookup(&c, &cur, 1, true);
  lookup(&c, &cur, 2, false);   // another seed
  lookup(&c, &cur, 2, true);
  cur = spec_layer("n=2,c=3,h=9,w=7,k=4,bias=1,relu=0");   // the same counts and inputs, another layer
  lookup(&c, &cur, 2, false);
  lookup(&c, &cur, 2, true);
  cur = spec_layer("n=1,c=2,h=6,w=5,k=3,kh=3,kw=2,stride=2,pad=1");   // no bias
  lookup(&c, &cur, 2, false);
  lookup(&c, &cur, 2, true);
  cur = spec_layer("n=1,c=2,h=6,w=5,k=3,kh=3,kw=2,stride=2,pad=1,residual=1");   // a residual, no bias
  lookup(&c, &cur, 2, false);
  lookup(&c, &cur, 2, true);
  lookup(&c, &cur, 3, false);
  cur = spec_layer("n=1,c=2,h=6,w=5,k=3,kh=3,kw=2,stride=2,pad=1,bias=1,residual=1");   // both
  lookup(&c, &cur, 3, false);
  lookup(&c, &cur, 3, true);
  CHECK(c.hits == 7 && c.misses == 7);
  conv_ref_cache_free(&c);
  CHECK(c.ref == NULL && c.in[0] == NULL && c.layer == &cur && c.hits == 7 && c.misses == 7);
  lookup(&c, &cur, 2, false);   // after a free: computed again
  conv_ref_cache_free(&c);
}

/* ---- Under the measurement protocol ---------------------------------------------------------- */

/* A whole convolution in work-item 0 (relu off), with two faults to switch
 * on: -DBUG=1 drops the last input channel, -DSKIP=1 leaves the last output
 * unwritten. */
static const char *hand_body =
    "{\n"
    "  if (get_global_id(0) || get_global_id(1) || get_global_id(2)) return;\n"
    "  for (int b = 0; b < N; b++) for (int o = 0; o < K; o++)\n"
    "  for (int y = 0; y < OH; y++) for (int xo = 0; xo < OW; xo++) {\n"
    "    float acc = bias[o];\n"
    "    for (int ci = 0; ci < C - BUG; ci++) for (int r = 0; r < KH; r++) for (int s = 0; s < KW; s++) {\n"
    "      int iy = y * SH - PH + r, ix = xo * SW - PW + s;\n"
    "      if (iy >= 0 && iy < H && ix >= 0 && ix < W)\n"
    "        acc += x[((b * C + ci) * H + iy) * W + ix] * weights[((o * C + ci) * KH + r) * KW + s];\n"
    "    }\n"
    "    int i = ((b * K + o) * OH + y) * OW + xo;\n"
    "    if (!(SKIP && i == N * K * OH * OW - 1)) out[i] = acc;\n"
    "  }\n"
    "}\n";

/* The hand-written kernel with the name and arguments of lp's one kernel. */
static char *hand_source(Arena *a, const LProgram *lp) {
  const LKernel *k = lp->kernels[0];
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "// test: a convolution in one work-item\n__kernel void %s(", k->name);
  for (int j = 0; j < k->nargs; j++)
    sb_printf(&sb, "%s__global %sfloat *%s", j ? ", " : "", k->args[j]->role == MR_INPUT ? "const " : "",
              k->args[j]->name);
  sb_printf(&sb, ") %s", hand_body);
  char *s = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

static MeasResult measure(Arena *a, RtDevice *dev, const LProgram *lp, ConvRefCache *c, uint64_t seed,
                          const char *source, const char *options) {
  MeasOptions o = meas_defaults();
  o.check_only = true;
  o.seed = seed;
  o.reference = conv_cached_reference;
  o.reference_ctx = c;
  o.source = source;
  o.build_options = options;
  MeasResult r = meas_run(a, dev, lp, &o);
  if (r.status != MEAS_OK) fprintf(stderr, "  %s: %.300s\n", meas_status_name(r.status), r.reason);
  return r;
}

static void test_protocol(RtDevice *dev) {
  const char *spec = "n=2,c=3,h=7,w=6,k=4,kh=3,kw=3,stride=1,pad=1,bias=1";
  Layer l = spec_layer(spec);
  Arena *a = arena_new();
  Diag d = {0};
  LayerSpace *ls = ls_new(a, st_strategy("direct"), &l, spec, 0, NULL, rt_info(dev), &d);
  LsPoint pt;
  CpOptions co = {.through = CP_LOWER};
  CpResult cr;
  LProgram *lp = ls && ls_sample(ls, 1, 1, &pt) == 1 && ls_compile(ls, a, &pt, &co, &cr, &d) ? cr.lp : NULL;
  if (!lp) fprintf(stderr, "the direct strategy on %s: %s\n", spec, d.msg);
  CHECK(lp && lp->nkernels == 1);
  if (lp && lp->nkernels == 1) {
    ConvRefCache c = {.layer = &l};
    char sizes[256];
    snprintf(sizes, sizeof sizes, "-DN=%d -DC=%d -DH=%d -DW=%d -DK=%d -DKH=%d -DKW=%d -DSH=%d -DSW=%d -DPH=%d -DPW=%d "
             "-DOH=%d -DOW=%d", l.n, l.c, l.h, l.w, l.k, l.kh, l.kw, l.stride_h, l.stride_w, l.pad_h, l.pad_w, l.out_h,
             l.out_w);
    const char *hand = hand_source(a, lp);
    const char *right = arena_printf(a, "%s -DBUG=0 -DSKIP=0", sizes);
    const char *dropped = arena_printf(a, "%s -DBUG=1 -DSKIP=0", sizes);
    const char *unwritten = arena_printf(a, "%s -DBUG=0 -DSKIP=1", sizes);

    MeasResult r = measure(a, dev, lp, &c, 7, NULL, NULL);   // the lowered kernel: computes the reference
    CHECK(r.status == MEAS_OK && c.misses == 1 && c.hits == 0);
    r = measure(a, dev, lp, &c, 7, hand, right);   // the hand-written kernel is right
    CHECK(r.status == MEAS_OK && c.misses == 1 && c.hits == 1);
    r = measure(a, dev, lp, &c, 7, hand, dropped);
    CHECK(r.status == MEAS_WRONG && r.nonfinite == 0 && r.error > 0.01 && c.hits == 2);
    r = measure(a, dev, lp, &c, 7, hand, unwritten);
    CHECK(r.status == MEAS_WRONG && r.nonfinite == 1 && r.worst == r.outputs - 1 && isnan(r.worst_got) &&
          c.hits == 3);
    r = measure(a, dev, lp, &c, 8, NULL, NULL);   // another seed
    CHECK(r.status == MEAS_OK && c.misses == 2 && c.hits == 3);
    conv_ref_cache_free(&c);
  }
  ls_free(ls);
  arena_free(a);
}

int main(void) {
  test_lookups();
  Diag d = {0};
  RtDevice *dev = rt_open(NULL, &d);
  if (!dev) fprintf(stderr, "no device: %s\n", d.msg);
  CHECK(dev != NULL);
  if (dev) test_protocol(dev);
  rt_close(dev);
  TEST_MAIN_END();
}
