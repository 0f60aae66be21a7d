/* test_default_point.c: the default point of an untuned layer
 * (src/tune/default_point.c): the forms the rules give each kind of layer,
 * the cost's preferences, and for a spread of odd layers a point that is
 * found, the same every time, a point of the layer's space within the
 * device's limits as a record's text (ls_compile_record takes it), and
 * correct on the default device (PoCL in CI) against the float64
 * convolution; under a small GPU's limits (the mali-g72 profile) too. */
#include "conv/reference.h"
#include "measure/measure.h"
#include "space/layer_space.h"
#include "test.h"
#include "test_layer.h"
#include "tune/default_point.h"

#include <math.h>
#include <string.h>

/* The layers the default point is run on: odd sizes (primes, a 7x7 window
 * at stride 2), each kind the rules tell apart, and what the forms refuse
 * (residual=1, groups, dilation, a batch). */
static const char *LAYERS[] = {
    "n=1,c=61,h=29,w=29,k=127,kh=3,kw=3,pad=1,bias=1,relu=1",
    "n=1,c=3,h=45,w=45,k=16,kh=7,kw=7,stride=2,pad=3,bias=1,relu=1",
    "n=1,c=72,h=9,w=9,k=24,kh=1,kw=1,bias=1,residual=1",
    "n=1,c=64,h=7,w=7,k=40,kh=3,kw=3,pad=1,bias=1,relu=1",
    "n=2,c=5,h=13,w=17,k=7,kh=3,kw=5,pad=2,bias=1",
    "n=1,c=8,h=12,w=10,k=8,pad=1,groups=8,bias=1,act=relu6",
    "n=1,c=6,h=11,w=13,k=12,stride=2,pad=1,groups=6",
    "n=1,c=8,h=9,w=9,k=12,pad=1,groups=4,bias=1,relu=1",
    "n=1,c=8,h=9,w=9,k=8,pad=1,groups=2,residual=1",
    "n=1,c=6,h=14,w=14,k=8,pad=2,dilation=2,bias=1",
    "n=2,c=12,h=1,w=1,k=7,kh=1,kw=1,bias=1,relu=1",
    "n=1,c=1,h=16,w=16,k=5,kh=5,kw=5,pad=2",
    "n=1,c=4,h=10,w=6,k=3,kh=2,kw=3,stride_h=2,stride_w=1,pad_top=1,pad_left=0,pad_bottom=0,pad_right=2",
};

static bool has_form(const DpForm *f, int n, const char *strategy, const char *choices) {
  for (int i = 0; i < n; i++)
    if (strcmp(f[i].strategy, strategy) == 0 && strstr(f[i].choices, choices)) return true;
  return false;
}

/* Each kind of layer gets its strategy first; split-K only where it may
 * pay and where s2 takes it; the fallbacks after, in later ranks. */
static void test_forms(void) {
  DpForm f[DP_MAX_FORMS];
  Layer dw = spec_layer("n=1,c=32,h=56,w=56,k=32,pad=1,groups=32");
  int n = dp_forms(&dw, "opencl", f);
  CHECK(n > 2 && strcmp(f[0].strategy, "dw") == 0 && f[0].rank == 0 && f[1].rank == 1);
  Layer fc = spec_layer("n=1,c=4096,h=1,w=1,k=1000,kh=1,kw=1");
  n = dp_forms(&fc, "opencl", f);
  CHECK(n > 1 && strcmp(f[0].strategy, "s1") == 0 && f[1].rank == 1);
  CHECK(!has_form(f + 1, n - 1, "s1", "-"));   // (s1 once)
  Layer conv = spec_layer("vgg16.conv3_2");   // c=256: one kernel and split-K side by side, patches staged
  n = dp_forms(&conv, "opencl", f);
  CHECK(n >= 2 && strcmp(f[0].strategy, "s2") == 0 && strstr(f[0].choices, "LS=3") && strstr(f[0].choices, "LX=1"));
  CHECK(strstr(f[1].choices, "LX=2") && f[1].rank == f[0].rank && f[1].if_idle && !f[0].if_idle);
  CHECK(has_form(f, n, "s2", "LS=1") && has_form(f, n, "s1", "-"));   // the fallbacks
  Layer small_c = spec_layer("n=1,c=32,h=56,w=56,k=64,kh=1,kw=1");   // few channels: no split-K; 1x1: LS=2
  n = dp_forms(&small_c, "opencl", f);
  CHECK(!has_form(f, n, "s2", "LX=2") && strstr(f[0].choices, "LS=2"));
  Layer c64 = spec_layer("n=1,c=64,h=56,w=56,k=64,pad=1");   // ResNet-50's, where split-K took 1.8x one kernel
  n = dp_forms(&c64, "opencl", f);
  CHECK(!has_form(f, n, "s2", "LX=2"));
  Layer residual = spec_layer("n=1,c=16,h=8,w=8,k=16,pad=1,residual=1");   // split-K alone, whatever c
  n = dp_forms(&residual, "opencl", f);
  CHECK(strstr(f[0].choices, "LX=2") && !f[0].if_idle && !has_form(f, n, "s2", "LS=3 LC=1 LR=1 LP=2 LN=1"));
  Layer grouped = spec_layer("n=1,c=64,h=8,w=8,k=64,pad=1,groups=4");   // no split-K for groups
  n = dp_forms(&grouped, "opencl", f);
  CHECK(strcmp(f[0].strategy, "s2") == 0 && !has_form(f, n, "s2", "LX=2"));
  Layer dilated = spec_layer("n=1,c=64,h=28,w=28,k=64,pad=2,dilation=2");   // no patch for dilation
  n = dp_forms(&dilated, "opencl", f);
  CHECK(!has_form(f, n, "s2", "LS=3") && has_form(f, n, "s2", "LS=2"));
  Layer batch = spec_layer("vgg16.conv3_2,n=4");   // the batch over work-groups
  n = dp_forms(&batch, "opencl", f);
  CHECK(strstr(f[0].choices, "LN=2"));
  for (int i = 1; i < n; i++) CHECK(f[i].rank >= f[i - 1].rank);
  // a tf32 or fp16 layer under CUDA: tc's patch first (tensor cores), s2 after; not under OpenCL, not in fp32
  Layer half = spec_layer("vgg16.conv3_2,precision=fp16");
  n = dp_forms(&half, "cuda", f);
  CHECK(n >= 4 && strcmp(f[0].strategy, "tc") == 0 && strcmp(f[1].strategy, "tc") == 0 && f[1].rank == 0);
  CHECK(strstr(f[0].choices, "LS=3") && strcmp(f[2].strategy, "s2") == 0 && f[2].rank == 1);
  n = dp_forms(&half, "opencl", f);
  CHECK(!has_form(f, n, "tc", "LS=3"));
  n = dp_forms(&conv, "cuda", f);
  CHECK(!has_form(f, n, "tc", "LS=3"));
  Layer tf32_batch = spec_layer("vgg16.conv3_2,n=4,precision=tf32");
  n = dp_forms(&tf32_batch, "cuda", f);
  CHECK(strcmp(f[0].strategy, "tc") == 0 && strstr(f[0].choices, "LN=2"));
}

static double cost_of(const Layer *l, const RtDeviceInfo *dev, const char *strategy, const char *point) {
  Arena *a = arena_new();
  const char *names[LS_POINT_MAX];
  int64_t vals[LS_POINT_MAX];
  int n = ls_split_point(a, point, names, vals, LS_POINT_MAX);
  double c = dp_cost(l, dev, strategy, n, names, vals);
  arena_free(a);
  return c;
}

/* The cost's preferences, on an H200's figures (132 compute units). */
static void test_cost(void) {
  RtDeviceInfo dev = {.compute_units = 132, .max_wg_size = 1024, .local_mem = 49152};
  Layer l = spec_layer("vgg16.conv3_2");
  const char *s2 = "LK=2 LH=2 LW=2 LS=3 LC=1 LP=2 ";
  char a[200], b[200];
  // the recorded best point (72.1 us) against a tile of one work-item per group
  snprintf(a, sizeof a, "%sRW=4 RK=4 TW=14 TH=7 TK=4 CC=8", s2);
  snprintf(b, sizeof b, "%sRW=4 RK=4 TW=1 TH=1 TK=1 CC=8", s2);
  CHECK(cost_of(&l, &dev, "s2", a) < cost_of(&l, &dev, "s2", b));
  snprintf(b, sizeof b, "%sRW=1 RK=1 TW=14 TH=7 TK=4 CC=8", s2);   // one output per work-item
  CHECK(cost_of(&l, &dev, "s2", a) < cost_of(&l, &dev, "s2", b));
  snprintf(b, sizeof b, "%sRW=4 RK=4 TW=14 TH=7 TK=4 CC=256", s2);   // a chunk of every channel
  CHECK(cost_of(&l, &dev, "s2", a) < cost_of(&l, &dev, "s2", b));
  snprintf(b, sizeof b, "%sRW=16 RK=1 TW=14 TH=7 TK=4 CC=8", s2);   // a block of one channel
  CHECK(cost_of(&l, &dev, "s2", a) < cost_of(&l, &dev, "s2", b));
  // too few work-groups: vgg16.conv5_1's 14x14 plane in tiles of 14x14 leaves the device idle, split-K fills it
  Layer small = spec_layer("vgg16.conv5_1");
  CHECK(cost_of(&small, &dev, "s2", "LK=2 LH=2 LW=2 LS=3 LC=1 LP=2 RW=2 RK=8 TW=7 TH=14 TK=2 CC=8") >
        cost_of(&small, &dev, "s2", "LK=2 LH=2 LW=2 LS=3 LC=1 LP=2 LN=2 LX=2 CK=32 RW=2 RK=8 TW=7 TH=14 TK=2 CC=8"));
  // the same tiles split for nothing: split-K costs
  CHECK(cost_of(&l, &dev, "s2", a) <
        cost_of(&l, &dev, "s2", "LK=2 LH=2 LW=2 LS=3 LC=1 LP=2 LN=2 LX=2 CK=256 RW=4 RK=4 TW=14 TH=7 TK=4 CC=8"));
  RtDeviceInfo bare = {0};   // (a device that reports no limits: the targets stand)
  CHECK(isfinite(cost_of(&l, &bare, "s2", a)) && cost_of(&l, &bare, "s2", a) < cost_of(&l, &bare, "s2", b));
  Layer fc = spec_layer("n=1,c=4096,h=1,w=1,k=1000,kh=1,kw=1");   // s1: 128 work-items a group
  CHECK(cost_of(&fc, &dev, "s1", "SO=32 WPT=1 KPG=2") < cost_of(&fc, &dev, "s1", "SO=1 WPT=1 KPG=2"));
  Layer dw = spec_layer("n=1,c=144,h=56,w=56,k=144,pad=1,groups=144");   // dw: a column of a few outputs
  CHECK(cost_of(&dw, &dev, "dw", "LV=1 RH=4 RW=1") < cost_of(&dw, &dev, "dw", "LV=1 RH=1 RW=4"));
  CHECK(cost_of(&dw, &dev, "dw", "LV=1 RH=4 RW=1") < cost_of(&dw, &dev, "dw", "LV=1 RH=8 RW=8"));
  // tc (bench/results/2026-12-07-mma, the H100): in tf32 the 64 x 32 warp tile (72.1 us) before LS=3's small
  // ones (146 us at 8 x 32), and a patch past the local memory (LP=3's two slots of RW=64 TH=8) never
  Layer t = spec_layer("vgg16.conv3_2,precision=tf32"), h = spec_layer("vgg16.conv3_2,precision=fp16");
  CHECK(cost_of(&t, &dev, "tc", "LT=1 LS=3 LP=3 LN=1 RW=64 RK=32 TH=4 CB=1") <
        cost_of(&t, &dev, "tc", "LT=1 LS=3 LP=3 LN=1 RW=16 RK=8 TH=4 CB=1"));
  CHECK(isinf(cost_of(&t, &dev, "tc", "LT=1 LS=3 LP=3 LN=1 RW=64 RK=32 TH=8 CB=1")));
  // in fp16 (chunks of 16 channels, staged as halves) two slots of the 64 x 32 tile fit (43 KiB), of 8 rows
  // do not (59 KiB); 32 x 32 (81.7 us) before 64 x 32 prefetched (123.5 us)
  CHECK(isfinite(cost_of(&h, &dev, "tc", "LT=1 LS=3 LP=3 LN=1 RW=64 RK=32 TH=4 CB=1")));
  CHECK(isinf(cost_of(&h, &dev, "tc", "LT=1 LS=3 LP=3 LN=1 RW=64 RK=32 TH=8 CB=1")));
  CHECK(cost_of(&h, &dev, "tc", "LT=1 LS=3 LP=2 LN=1 RW=32 RK=32 TH=4 CB=1") <
        cost_of(&h, &dev, "tc", "LT=1 LS=3 LP=2 LN=1 RW=64 RK=32 TH=4 CB=1"));
}

/* The layer's default point on dev: found, the same again, a record's text
 * that ls_compile_record takes within the limits; run on run_on (when not
 * NULL) against the float64 convolution. */
static void check_layer(const char *spec, const RtDeviceInfo *dev, RtDevice *run_on) {
  Layer l = spec_layer(spec);
  Arena *a = arena_new();
  CpOptions co = {.through = CP_EMIT};
  DpPoint p, again;
  CpResult cr, cr2;
  Diag d = {0};
  bool ok = dp_default_point(a, &l, spec, dev, &co, &p, &cr, &d);
  if (!ok) fprintf(stderr, "%s on %s: %s\n", spec, dev->name, d.msg);
  CHECK(ok);
  if (!ok) {
    arena_free(a);
    return;
  }
  CHECK(dp_default_point(a, &l, spec, dev, &co, &again, NULL, &d));
  CHECK_STR(again.strategy, p.strategy);
  CHECK_STR(again.point, p.point);
  Diag rd = {0};
  bool rec = ls_compile_record(a, p.strategy, p.point, &l, spec, dev, true, &co, &cr2, &rd);
  if (!rec) fprintf(stderr, "%s: %s %s: %s\n", spec, p.strategy, p.point, rd.msg);
  CHECK(rec);
  if (rec) CHECK_STR(cr2.source, cr.source);   // the kernels a record of the point makes
  if (run_on) {
    MeasOptions o = meas_defaults();
    o.check_only = true;
    o.seed = 31;
    o.reference = conv_reference_fn;
    o.reference_ctx = &l;
    MeasResult r = meas_run(a, run_on, cr.lp, &o);
    if (r.status != MEAS_OK) fprintf(stderr, "%s: %s %s: %s: %s\n", spec, p.strategy, p.point,
                                     meas_status_name(r.status), r.reason);
    CHECK(r.status == MEAS_OK);
  }
  arena_free(a);
}

int main(void) {
  test_forms();
  test_cost();
  Diag d = {0};
  RtDevice *dev = rt_open(NULL, &d);
  if (!dev) fprintf(stderr, "%s\n", d.msg);
  CHECK(dev != NULL);
  RtDeviceInfo mali;
  CHECK(rt_profile_select("mali-g72", &mali, &d));
  for (size_t i = 0; i < sizeof LAYERS / sizeof *LAYERS; i++) {
    if (dev) check_layer(LAYERS[i], rt_info(dev), dev);
    check_layer(LAYERS[i], &mali, NULL);   // a small GPU's limits: 384 work-items, 32 KiB of local memory
  }
  if (dev) rt_close(dev);
  TEST_MAIN_END();
}
