/* test_clblast.c: the CLBlast baseline of `convgen bench` (src/bench/clblast.c)
 * on the default device (PoCL on the CPU in CI), with CLBlast installed.
 *
 * Small layers against the float64 reference: bias and ReLU with padding, a
 * batch of two with stride 2, no padding, kh != kw and no epilogue, and unequal
 * strides and pads with ReLU only, dilation, a residual (residual=1: the
 * epilogue adds it after the bias), grouped with one. Then a reference that is deliberately off,
 * which must be called wrong and get no time, and $CONVGEN_CLBLAST pointing at
 * a library that is not there, before and after CLBlast was loaded (the
 * variable is read on every call).
 */
#include "bench/bench.h"
#include "test.h"
#include "test_layer.h"

#include <math.h>
#include <stdlib.h>

/* A layer and its data (bench_data_new); d.layer points into the case. */
typedef struct Case {
  Layer l;
  BenchData d;
} Case;

/* In place: c->d.layer points into *c. */
static void make_case(Case *c, const char *spec, uint64_t seed) {
  c->l = spec_layer(spec);
  c->d = bench_data_new(&c->l, seed);
}

static void free_case(Case *c) { bench_data_free(&c->d); }

/* The reference, to spoil on purpose (bench_data_new allocated it). */
static double *ref_of(Case *c) { return (double *)c->d.ref; }

static const BenchOptions opts = {.warmup = 1, .runs = 10, .tol = 1e-4};

static void test_layer(RtDevice *dev, const char *spec) {
  Case c;
  make_case(&c, spec, 42);
  BenchResult r;
  bool ok = bench_clblast(dev, &c.d, &opts, &r);
  if (!ok) fprintf(stderr, "%s: %s\n", spec, r.why);
  CHECK(ok);
  CHECK_STR(r.method, "clblast");
  CHECK(r.ran && r.correct);
  CHECK(r.error < 1e-4);
  CHECK(r.us.n >= 10);
  CHECK(r.us.median > 0 && r.us.min <= r.us.median && r.us.median <= r.us.max);
  CHECK(strstr(r.detail, "im2col + SGEMM (CLBlast ") == r.detail);
  uint64_t col = 4ull * c.l.c * c.l.kh * c.l.kw * c.l.out_h * c.l.out_w;
  CHECK(r.mem.extra == col);
  CHECK_STR(r.mem.extra_what, "im2col buffer");
  CHECK(r.mem.input == 4ull * (c.d.nx + c.d.nr) && r.mem.weights == 4ull * c.d.nw);   // the residual an input
  CHECK(r.mem.bias == 4ull * c.d.nb && r.mem.output == 4ull * c.d.ny);
  free_case(&c);
}

/* A result that does not match the reference is reported wrong, without time. */
static void test_wrong(RtDevice *dev) {
  Case c;
  make_case(&c, "n=1,c=2,h=6,w=6,k=3,kh=3,kw=3,pad=1,relu=1", 7);
  ref_of(&c)[c.d.ny / 2] += 10.0;
  BenchResult r;
  CHECK(!bench_clblast(dev, &c.d, &opts, &r));
  CHECK(r.ran && !r.correct);
  CHECK(r.error > 1e-4);
  CHECK(strstr(r.why, "wrong: relative L2 error") == r.why);
  CHECK(r.us.n == 0);
  free_case(&c);
}

static void test_missing(RtDevice *dev) {
  char *saved = getenv("CONVGEN_CLBLAST") ? strdup(getenv("CONVGEN_CLBLAST")) : NULL;
  setenv("CONVGEN_CLBLAST", "/nonexistent/libx.so", 1);
  Case c;
  make_case(&c, "n=1,c=1,h=4,w=4,k=1,kh=3,kw=3", 1);
  BenchResult r;
  CHECK(!bench_clblast(dev, &c.d, &opts, &r));
  CHECK(!r.ran && !r.correct);
  CHECK(strstr(r.why, "/nonexistent/libx.so") != NULL);
  CHECK(strstr(r.why, "cannot load CLBlast") != NULL);
  CHECK(strstr(r.why, "apt-get install libclblast1") != NULL);
  CHECK_STR(r.method, "clblast");
  if (saved) setenv("CONVGEN_CLBLAST", saved, 1);
  else unsetenv("CONVGEN_CLBLAST");
  free(saved);
  free_case(&c);
}

int main(void) {
  Diag dg = {0};
  RtDevice *dev = rt_open(NULL, &dg);
  CHECK(dev != NULL);
  if (!dev) {
    fprintf(stderr, "no device: %s\n", dg.msg);
    TEST_MAIN_END();
  }
  test_missing(dev);
  test_layer(dev, "n=1,c=3,h=9,w=11,k=5,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1");
  test_layer(dev, "n=2,c=4,h=10,w=13,k=6,kh=3,kw=2,stride=2,pad=0");
  test_layer(dev, "n=1,c=2,h=7,w=8,k=3,kh=1,kw=3,stride_h=1,stride_w=2,pad_h=0,pad_w=1,relu=1");
  test_layer(dev, "n=1,c=3,h=12,w=11,k=4,kh=3,kw=3,pad=2,dilation=2,bias=1");   // im2col's dilation
  test_layer(dev, "n=2,c=3,h=9,w=8,k=4,kh=3,kw=3,stride=2,pad=1,bias=1,relu=1,residual=1");   // the epilogue adds it
  test_layer(dev, "n=1,c=4,h=7,w=6,k=6,kh=1,kw=1,groups=2,act=relu6,residual=1");
  test_wrong(dev);
  test_missing(dev);
  rt_close(dev);
  TEST_MAIN_END();
}
