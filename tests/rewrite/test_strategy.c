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
#include "space/layer_space.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    "c=5,h=9,w=11,k=6,pad=1,bias=1,act=hardswish",   // an activation other than ReLU: its user function fused too
    // grouped (a map over the groups of one group's dense expression), depthwise, dilated
    "n=2,c=6,h=9,w=11,k=8,pad=1,bias=1,relu=1,groups=2",
    "n=1,c=8,h=10,w=9,k=8,pad=1,bias=1,act=relu6,groups=8",      // depthwise
    "n=1,c=4,h=11,w=13,k=8,stride=2,pad=1,bias=0,relu=0,groups=4",   // depthwise, 2 kernels per channel
    "n=2,c=3,h=7,w=10,k=3,kh=3,kw=5,stride_h=2,pad_top=0,pad_left=2,pad_bottom=1,pad_right=1,groups=3,act=relu6",
    "n=1,c=6,h=12,w=12,k=9,dilation=2,pad=2,groups=3,bias=1,relu=0",
    "n=1,c=3,h=10,w=12,k=4,kh=3,kw=5,dilation_h=2,dilation_w=3,pad_top=1,pad_left=3,pad_bottom=2,pad_right=2,bias=1,relu=1",
    // fp16 storage (every tensor half, sums in fp32, the output rounded): dense, strided, depthwise
    "n=1,c=7,h=9,w=11,k=13,pad=1,bias=1,relu=1,precision=fp16",   // LE pads both (to 8 and 16)
    "n=2,c=4,h=7,w=9,k=5,stride=2,pad=1,bias=1,act=silu,precision=fp16",
    "n=1,c=6,h=9,w=10,k=6,pad=1,bias=1,act=relu6,groups=6,precision=fp16",
};

/* A depthwise layer (2 kernels per channel) on which each of dw's variants runs. */
static const char *DW_LAYER = "n=1,c=3,h=8,w=10,k=6,pad=1,groups=3,bias=1,act=relu6";

/* The layer whose whole space the property test samples. */
static const char *PROPERTY_LAYER = "vgg16.conv3_1,h=14,w=28,c=5,k=24";

static int points_run;
enum { MAX_VARIANTS = 1024 };   // s2's are 78 times LO's 4 and LE's 3 at most, less those not variants
static bool variants_run[8][MAX_VARIANTS];   // [strategy][variant]: some point of it was run

static float *random_floats(size_t n, unsigned *seed) {
  float *p = malloc(n * sizeof *p);
  for (size_t i = 0; i < n; i++) p[i] = (float)rand_r(seed) / (float)RAND_MAX * 2.0f - 1.0f;
  return p;
}

/* n random values of the layer's element type. */
static float *random_values(const Layer *l, size_t n, unsigned *seed) {
  float *p = random_floats(n, seed);
  for (size_t i = 0; i < n; i++) p[i] = (float)elem_round(layer_elem(l), p[i]);
  return p;
}

/* The derived program computes the convolution (interpreter vs reference):
 * exactly, but for the rounding of a half output (at most 2^-11 a value)
 * and for the tile product's TF32 operands: mma3xTF32 leaves out the low
 * parts' product and rounds each low part, under 2^-21 of each product, so
 * 1e-5 of the output in relative L2 (the measured errors are about 4e-7);
 * a tf32 layer's mmaTF32 rounds each operand to TF32, MEAS_TF32_TOL; wino's
 * matrices are const arrays of floats, each entry of F(4, 3)'s (1/3, 1/6)
 * within 2^-24 of the exact fraction, the identity within 1e-6. */
static double meaning_tolerance(const Layer *l, const Program *p) {
  const ElemType *et = layer_elem(l);
  if (elem_is_storage(et)) return et->roundoff;
  if (p->nconsts) return 1e-6;
  if (ir_calls(p->body, P_MMA_TF32)) return MEAS_TF32_TOL;
  return ir_calls(p->body, P_MMA_3XTF32) ? 1e-5 : 1e-12;
}

static void check_meaning(const Layer *l, const Program *p) {
  unsigned seed = 7;
  size_t nin = (size_t)layer_elems(l, LAYER_INPUT), nwt = (size_t)layer_elems(l, LAYER_WEIGHTS);
  size_t nout = (size_t)layer_elems(l, LAYER_OUTPUT);
  float *in = random_values(l, nin, &seed), *wt = random_values(l, nwt, &seed);
  float *bias = random_values(l, (size_t)l->k, &seed), *res = random_values(l, nout, &seed);
  float *scale = random_values(l, (size_t)l->n * l->c, &seed);
  double *got = calloc(nout, sizeof *got), *want = calloc(nout, sizeof *want);
  // the program's inputs: those the layer has, in the order input, weights, bias, residual, scale
  const float *all[CONV_REF_INPUTS] = {in, wt, l->bias ? bias : NULL, l->residual ? res : NULL, l->scale ? scale : NULL};
  const float *inputs[CONV_REF_INPUTS];
  int ninputs = 0;
  for (int i = 0; i < CONV_REF_INPUTS; i++)
    if (all[i]) inputs[ninputs++] = all[i];
  Diag d = {0};
  CHECK(ir_eval(p, inputs, got, 0, NULL, &d));
  conv_reference_of(l, all, want);
  double num = 0, den = 0;
  for (size_t i = 0; i < nout; i++) num += (got[i] - want[i]) * (got[i] - want[i]), den += want[i] * want[i];
  double err = sqrt(num / (den > 0 ? den : 1));
  if (err > meaning_tolerance(l, p)) fprintf(stderr, "meaning: relative L2 %.3g over %.3g\n", err, meaning_tolerance(l, p));
  CHECK(err <= meaning_tolerance(l, p));
  free(in), free(wt), free(bias), free(res), free(scale), free(got), free(want);
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
    // the output is stored in the layer's element type (half for fp16), whatever the variant
    const ElemType *oet = ty_elem(p->out_type ? p->out_type : p->body->type);
    if (oet != layer_elem(l)) fprintf(stderr, "%s on %s at%s: the output is %s\n", s->name, spec, sb_str(&pt), oet->name);
    CHECK(oet == layer_elem(l));
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

/* npoints random points of the strategy's space on the layer (every
 * variant's, drawn among the points that pass the lowering). A derivation
 * that fails is a bug, not a rejected variant: the assignments of choices a
 * strategy does not make variants (not_a_variant) are not in the space. */
static void check_in(const Strategy *s, const char *spec, int npoints, uint64_t seed, int ndoms,
                     const SpaceDomain *doms, RtDevice *dev) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse(spec, &l, &d));
  Arena *a = arena_new();
  LayerSpace *ls = ls_new(a, s, &l, spec, ndoms, doms, rt_info(dev), &d);
  if (ls && layer_groups(&l) > 1 && strcmp(s->name, "s3") == 0) {   // refused, with the reason
    CHECK(ls->nvariants == 1 && ls->v[0].rejected && strstr(ls->v[0].rejected, "grouped layer"));
    ls_free(ls);
    arena_free(a);
    return;
  }
  if (ls && ls->refused) {   // a strategy that does not take the layer (dw a dense one): an empty space
    CHECK(ls->nvariants == 0 && s->refuses && s->refuses(&l));
    CHECK(!(strcmp(s->name, "dw") == 0 && layer_group_c(&l) == 1 && !l.residual && l.dil_h == 1 && l.dil_w == 1));
    ls_free(ls);
    arena_free(a);
    return;
  }
  if (!ls) fprintf(stderr, "%s on %s: %s\n", s->name, spec, d.msg);
  CHECK(ls != NULL);
  if (ls) {
    for (int i = 0; i < ls->nvariants; i++)   // a derivation that fails is a bug, not a rejected variant
      if (!ls->v[i].text) fprintf(stderr, "%s on %s, %s: %s\n", s->name, spec, ls->v[i].label, ls->v[i].rejected);
    for (int i = 0; i < ls->nvariants; i++) CHECK(ls->v[i].text != NULL);
    LsPoint *pts = calloc((size_t)npoints, sizeof *pts);
    int k = ls_sample(ls, seed, npoints, pts);
    CHECK(k >= 1);
    for (int i = 0; i < k; i++) {
      const LsVariant *v = &ls->v[pts[i].variant];
      if (spec == PROPERTY_LAYER) {   // variant numbers are the property layer's (another layer has other variants)
        CHECK(pts[i].variant < MAX_VARIANTS);
        if (pts[i].variant < MAX_VARIANTS) variants_run[s - st_strategies(&(int){0})][pts[i].variant] = true;
      }
      check_point(a, s, &l, spec, v->text, v->space, pts[i].vals, i == 0, dev);
    }
    free(pts);
    ls_free(ls);
  }
  arena_free(a);
}


static bool has_choice(const Strategy *s, const char *name) {
  for (int i = 0; i < s->nchoices; i++)
    if (strcmp(s->choices[i].name, name) == 0) return true;
  return false;
}

/* The property layer's space: s2's split-K (LX=2) left out, its 27 staged
 * variants run one by one took test_strategy past 8 minutes; SPLIT_LAYER's
 * random points check them instead (and layer.sh a fixed one). The chunk
 * loop with asynchronous copies (LP=4) left out too: on PoCL, which has no
 * such copies, it is LP=3's loop, and its variants one by one took
 * test_strategy from 8 to more than 20 minutes; SPLIT_LAYER's random
 * points of LP=4 check that it lowers and computes as LP=3 (test_cuda
 * compiles its CUDA form). */
static const SpaceDomain NO_SPLIT_SYNC[2] = {{"LX", 1, 1, 0, NULL}, {"LP", 1, 3, 0, NULL}},
                         SPLIT = {"LX", 2, 2, 0, NULL}, ASYNC = {"LP", 4, 4, 0, NULL};
static const char *SPLIT_LAYER = "n=1,c=8,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1";

static int property_doms(const Strategy *s, const SpaceDomain **out) {
  bool lx = has_choice(s, "LX"), lp = has_choice(s, "LP");
  *out = lx ? NO_SPLIT_SYNC : lp ? NO_SPLIT_SYNC + 1 : NULL;
  return lx + lp;
}

/* Random points of s on spec, split-K's left out as the property layer's
 * (the interpreter's check of a drawn split-K point with LR=2 took more
 * than 10 minutes): SPLIT_LAYER's draws check them. */
static void check(const Strategy *s, const char *spec, int npoints, uint64_t seed, RtDevice *dev) {
  bool lx = has_choice(s, "LX");
  check_in(s, spec, npoints, seed, lx, lx ? NO_SPLIT_SYNC : NULL, dev);
}

/* Layers with a residual input (residual=1): direct, s1, s3 and s2 take it
 * (s2 in one kernel from global memory, LS=1, or with split-K, LX=2), at
 * random points; s2's staged one-kernel forms (LS=2 or 3 with LX=1) refuse
 * it, each variant rejected with the reason (as s3 refuses a grouped
 * layer, and split-K one). */
static const char *RESIDUAL_LAYERS[] = {
    "n=2,c=6,h=9,w=11,k=5,stride=2,pad=1,bias=1,relu=1,residual=1",
    "n=1,c=8,h=10,w=12,k=8,pad=1,bias=1,act=relu6,residual=1",
    "n=1,c=6,h=11,w=13,k=4,kh=1,kw=1,stride=2,residual=1",   // a ResNet block's downsample, no bias
    "n=1,c=4,h=10,w=9,k=6,pad=2,dilation=2,bias=1,act=clip(-0.5,4),residual=1",
    "n=1,c=6,h=12,w=12,k=9,dilation=2,pad=2,groups=3,bias=1,relu=1,residual=1",
    "n=2,c=4,h=9,w=7,k=8,stride=2,pad=1,groups=4,bias=1,act=relu6,residual=1",   // depthwise, 2 per channel
};

/* Every variant of s on spec (within doms) rejected, for the residual. */
static void check_refused(const Strategy *s, const char *spec, int ndoms, const SpaceDomain *doms) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse(spec, &l, &d));
  Arena *a = arena_new();
  LayerSpace *ls = ls_new(a, s, &l, spec, ndoms, doms, NULL, &d);
  if (!ls) fprintf(stderr, "%s on %s: %s\n", s->name, spec, d.msg);
  CHECK(ls != NULL && ls->nvariants >= 1);
  for (int i = 0; ls && i < ls->nvariants; i++) {
    const char *why = ls->v[i].rejected;
    if (!why || !strstr(why, "residual=1")) fprintf(stderr, "%s on %s, %s: not refused\n", s->name, spec, ls->v[i].label);
    CHECK(why && strstr(why, "residual=1"));
  }
  if (ls) ls_free(ls);
  arena_free(a);
}

static void test_residual(RtDevice *dev) {
  static const SpaceDomain GLOBAL = {"LS", 1, 1, 0, NULL}, STAGED[] = {{"LS", 2, 3, 0, NULL}, {"LX", 1, 1, 0, NULL}};
  int n;
  const Strategy *s = st_strategies(&n);
  for (size_t j = 0; j < sizeof RESIDUAL_LAYERS / sizeof *RESIDUAL_LAYERS; j++) {
    const char *spec = RESIDUAL_LAYERS[j];
    bool grouped = strstr(spec, "groups=") != NULL;
    for (int i = 0; i < n; i++) {
      if (strcmp(s[i].name, "s2") == 0) {
        check_in(&s[i], spec, 4, 500 + j, 1, &GLOBAL, dev);
        check_refused(&s[i], spec, 2, STAGED);
        if (!grouped) check_in(&s[i], spec, 4, 600 + j, 1, &SPLIT, dev);   // split-K is not written for groups
      } else {
        check(&s[i], spec, 4, 500 + j, dev);
      }
    }
  }
}

/* Layers whose input is scaled per image and channel (scale=1, a
 * squeeze-excite's scale fused): every strategy takes it at random points
 * (s2 in every form, split-K among them; with a residual, from global
 * memory, LS=1): a 1x1 layer as EfficientNet's projections are, a 3x3 with
 * a batch, one with a residual; then s2's padded channels (LE) and plane
 * (LO), which pad a scale's and a residual's views too. */
static const char *SCALE_LAYERS[] = {
    "n=1,c=16,h=7,w=7,k=8,kh=1,kw=1,bias=1,scale=1",
    "n=2,c=12,h=9,w=9,k=8,pad=1,bias=1,act=silu,scale=1",
    "n=1,c=8,h=6,w=6,k=8,kh=1,kw=1,bias=1,residual=1,scale=1",
};

static void test_scale(RtDevice *dev) {
  static const SpaceDomain GLOBAL = {"LS", 1, 1, 0, NULL};   // with a residual: test_residual's staged refusal
  int n;
  const Strategy *s = st_strategies(&n);
  for (size_t j = 0; j < sizeof SCALE_LAYERS / sizeof *SCALE_LAYERS; j++)
    for (int i = 0; i < n; i++) {
      bool s2 = strcmp(s[i].name, "s2") == 0, residual = strstr(SCALE_LAYERS[j], "residual=1") != NULL;
      // (s2's whole space at once, split-K among its variants: each space derived costs seconds)
      check_in(&s[i], SCALE_LAYERS[j], s2 ? 6 : 2, 700 + j, s2 && residual, &GLOBAL, dev);
    }
  check_in(st_strategy("s2"), SCALE_LAYERS[0], 2, 790, 1, &SPLIT, dev);   // split-K's, drawn (its 27 variants)
  // channel padding (LE=2: 16 and 16 channels) pads the scale and the residual too, and LO the residual's plane
  static const SpaceDomain LE2[] = {{"LE", 2, 2, 0, NULL}, {"LS", 1, 1, 0, NULL}};
  static const SpaceDomain LO2[] = {{"LO", 2, 2, 0, NULL}, {"LS", 1, 1, 0, NULL}};
  check_in(st_strategy("s2"), "n=1,c=13,h=5,w=5,k=14,kh=1,kw=1,scale=1", 2, 791, 1, LE2, dev);
  check_in(st_strategy("s2"), "n=1,c=13,h=7,w=7,k=14,pad=1,bias=1,relu=1,residual=1,scale=1", 2, 792, 2, LE2, dev);
  check_in(st_strategy("s2"), "n=2,c=8,h=7,w=9,k=8,pad=1,bias=1,residual=1", 2, 793, 2, LO2, dev);
}

/* Layers that tc (tensor-core tiles) takes, each tile form (LT): 16 pixels
 * by 8 channels, 16 channels by 8 pixels; 3x3 and 1x1, a batch, stride 2,
 * groups, activations fused into the lanes' copy out, and a dense layer the
 * tiles do not divide (its channels and row padded; LAYERS has more). On
 * PoCL each lane computes its own values (docs/ir.md, "Tile products"). */
static const char *TC_LAYERS[] = {
    "n=1,c=8,h=6,w=16,k=8,pad=1,bias=1,relu=1",
    "n=1,c=5,h=6,w=13,k=11,pad=1,bias=1,act=hardswish",
    "n=2,c=8,h=5,w=8,k=16,kh=1,kw=1,bias=1,act=silu",
    "n=1,c=8,h=7,w=16,k=16,stride=2,pad=1,bias=1,act=relu6",
    "n=1,c=16,h=4,w=16,k=32,pad=1,bias=1,groups=2,relu=1",
    "n=1,c=5,h=6,w=13,k=11,pad=1,bias=1,relu=1,precision=tf32",   // one TF32 product a step (tf32-product)
    "n=1,c=12,h=5,w=16,k=16,pad=1,bias=1,act=relu6,precision=fp16",   // mmaF16, 16 a step, its channels padded to 16
};

/* Each layer's points of each LS: the fragments read from global memory,
 * the chunks staged in local memory, and the patch staged (not for the
 * grouped layer, whose LS=3 is no variant). */
static void test_tc(RtDevice *dev) {
  static const SpaceDomain READS[3] = {{"LS", 1, 1, 0, NULL}, {"LS", 2, 2, 0, NULL}, {"LS", 3, 3, 0, NULL}};
  for (size_t j = 0; j < sizeof TC_LAYERS / sizeof *TC_LAYERS; j++) {
    Layer l;
    Diag d = {0};
    CHECK(layer_parse(TC_LAYERS[j], &l, &d));
    CHECK(st_strategy("tc")->refuses(&l) == NULL);
    for (int r = 0; r < (layer_groups(&l) == 1 ? 3 : 2); r++)
      check_in(st_strategy("tc"), TC_LAYERS[j], 2, 800 + j, 1, &READS[r], dev);
  }
}

/* The texts a point may have been recorded with: choices at their fallback
 * (s2's LS=1, LC=1) may be absent from points written before they existed. */
static void test_point_aliases(void) {
  Arena *a = arena_new();
  const Strategy *s2 = st_strategy("s2");
  const char *al[16];
  int n = ls_point_aliases(s2, a, "LK=2 LH=2 LW=2 LS=1 LC=1 RW=4 RK=2 TW=1 TH=1 TK=1", al, 16);
  CHECK(n == 4);
  if (n == 4) {
    CHECK_STR(al[0], "LK=2 LH=2 LW=2 LS=1 LC=1 RW=4 RK=2 TW=1 TH=1 TK=1");
    CHECK_STR(al[1], "LK=2 LH=2 LW=2 LC=1 RW=4 RK=2 TW=1 TH=1 TK=1");
    CHECK_STR(al[2], "LK=2 LH=2 LW=2 LS=1 RW=4 RK=2 TW=1 TH=1 TK=1");
    CHECK_STR(al[3], "LK=2 LH=2 LW=2 RW=4 RK=2 TW=1 TH=1 TK=1");
  }
  n = ls_point_aliases(s2, a, "LK=2 LH=2 LW=2 LS=2 LC=1 RW=4 CC=2", al, 16);
  CHECK(n == 2);
  if (n == 2) CHECK_STR(al[1], "LK=2 LH=2 LW=2 LS=2 RW=4 CC=2");
  CHECK(ls_point_aliases(s2, a, "LK=2 LH=2 LW=2 LS=2 LC=2 RW=4 CC=2", al, 16) == 1);
  CHECK(ls_point_aliases(st_strategy("s1"), a, "SO=4 WPT=2 KPG=1", al, 16) == 1);
  CHECK(ls_point_aliases(st_strategy("direct"), a, "-", al, 16) == 1 && strcmp(al[0], "-") == 0);
  CHECK(ls_point_aliases(s2, a, "LK=2 LH=2 LW=2 LS=1 LC=1 RW=4", al, 2) == 2);   // at most max
  arena_free(a);
}

/* s2's LR=1 (one row per work-item, its fallback) is quiet: the points and
 * labels of LR=1 read as they did before LR existed, and a point without LR
 * is LR=1; LR=2 is written out, with its RH. */
static void test_quiet_rows(void) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse("n=1,c=2,h=4,w=4,k=2,kh=3,kw=3,stride=1,pad=1", &l, &d));
  Arena *a = arena_new();
  SpaceDomain doms[] = {{"LK", 1, 1, 0, NULL}, {"LH", 1, 1, 0, NULL}, {"LW", 1, 1, 0, NULL}};
  LayerSpace *ls = ls_new(a, st_strategy("s2"), &l, "quiet", 3, doms, NULL, &d);
  CHECK(ls != NULL);
  LsPoint pt;
  bool ok = ls && ls_parse_point(ls, a, "LK=1 LH=1 LW=1 LS=1 LC=1 RW=2 RK=1", &pt, &d);
  CHECK(ok);
  if (ok) {
    CHECK(ls->v[pt.variant].choice[5] == 1);
    CHECK_STR(ls_point_text(ls, a, &pt), "LK=1 LH=1 LW=1 LS=1 LC=1 RW=2 RK=1");
    CHECK_STR(ls->v[pt.variant].label, "LK=1 (mapGlb), LH=1 (mapGlb), LW=1 (mapGlb), LS=1 (global), LC=1 (taps)");
  }
  ok = ls && ls_parse_point(ls, a, "LK=1 LH=1 LW=1 LR=1 RW=2 RK=1", &pt, &d);
  CHECK(ok);
  if (ok) CHECK_STR(ls_point_text(ls, a, &pt), "LK=1 LH=1 LW=1 LS=1 LC=1 RW=2 RK=1");
  ok = ls && ls_parse_point(ls, a, "LK=1 LH=1 LW=1 LR=2 RW=2 RK=1 RH=2", &pt, &d);
  CHECK(ok);
  if (ok) CHECK_STR(ls_point_text(ls, a, &pt), "LK=1 LH=1 LW=1 LS=1 LC=1 LR=2 RW=2 RK=1 RH=2");
  CHECK(ls && !ls_parse_point(ls, a, "LK=1 LH=1 LW=1 LR=1 RW=2 RK=1 RH=2", &pt, &d));   // no RH in one row
  CHECK(ls && !ls_parse_point(ls, a, "LK=1 LH=1 LW=1 LR=2 RW=2 RK=1 RH=3", &pt, &d));   // 4 % RH
  if (ls) ls_free(ls);
  arena_free(a);
}

int main(void) {
  test_point_aliases();
  test_quiet_rows();
  Diag d = {0};
  RtDevice *dev = rt_open(NULL, &d);
  if (!dev) fprintf(stderr, "%s\n", d.msg);
  CHECK(dev != NULL);
  int n;
  const Strategy *s = st_strategies(&n);
  for (int i = 0; dev && i < n; i++)
    for (size_t j = 0; j < sizeof LAYERS / sizeof LAYERS[0]; j++) check(&s[i], LAYERS[j], 4, 1000 + j, dev);
  // The property: points drawn across the whole space of one layer.
  for (int i = 0; dev && i < n; i++) {
    const SpaceDomain *doms;
    int nd = property_doms(&s[i], &doms);
    check_in(&s[i], PROPERTY_LAYER, 24, 77, nd, doms, dev);
    if (has_choice(&s[i], "LX")) check_in(&s[i], SPLIT_LAYER, 8, 91, 1, &SPLIT, dev);   // split-K's variants, drawn
    if (has_choice(&s[i], "LP")) check_in(&s[i], SPLIT_LAYER, 3, 93, 1, &ASYNC, dev);   // LP=4's, drawn
  }
  if (dev) test_residual(dev);
  if (dev) test_scale(dev);
  if (dev) test_tc(dev);
  // dw's variants, each on a depthwise layer whose patch rows (RW + 2) take
  // float2 and float4 at RW = 2 and 10
  for (int v = 1; dev && v <= 3; v++) {
    SpaceDomain lv = {"LV", v, v, 0, NULL};
    check_in(st_strategy("dw"), DW_LAYER, 3, 70 + (uint64_t)v, 1, &lv, dev);
  }
  // every usable variant of every strategy was among the points run
  for (int i = 0; dev && i < n; i++) {
    Layer l;
    CHECK(layer_parse(PROPERTY_LAYER, &l, &d));
    Arena *a = arena_new();
    const SpaceDomain *doms;
    int nd = property_doms(&s[i], &doms);
    LayerSpace *ls = ls_new(a, &s[i], &l, PROPERTY_LAYER, nd, doms, rt_info(dev), &d);
    CHECK(!ls || ls->nvariants <= MAX_VARIANTS);
    for (int v = 0; ls && v < ls->nvariants && v < MAX_VARIANTS; v++) {
      if (!ls->v[v].rejected && !variants_run[i][v]) {   // a variant of few points the draws missed: one of its own
        int64_t vals[ST_MAX_PARAMS + 1];
        SpaceCheckOptions co = space_check_defaults();
        SpaceCheck sc = {0};
        if (space_sample_checked(ls->v[v].space, 5, 1, vals, &co, &sc) == 1) {
          check_point(a, &s[i], &l, PROPERTY_LAYER, ls->v[v].text, ls->v[v].space, vals, true, dev);
          variants_run[i][v] = true;
        }
      }
      if (!ls->v[v].rejected && !variants_run[i][v]) fprintf(stderr, "%s: variant %s never run\n", s[i].name, ls->v[v].label);
      CHECK(ls->v[v].rejected || variants_run[i][v]);
    }
    ls_free(ls);
    arena_free(a);
  }
  fprintf(stderr, "%d strategies, %d points run\n", n, points_run);
  if (dev) rt_close(dev);
  TEST_MAIN_END();
}
