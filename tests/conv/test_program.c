/* test_program.c: the high-level convolution expression means what the plain
 * reference convolution computes: the interpreter's result on the expression
 * equals conv_reference on random data, for odd shapes (c = 3 and 5, k = 1 and
 * 7, 1x1 / 5x5 / 7x7 / 3x5 kernels, stride 2 and 4, padding, n = 2, with and
 * without bias and ReLU); and the expression prints and parses back. */
#include "conv/program.h"
#include "conv/reference.h"
#include "ir/interp.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

static float *random_floats(size_t n, unsigned *seed) {
  float *p = malloc(n * sizeof *p);
  for (size_t i = 0; i < n; i++) p[i] = (float)rand_r(seed) / (float)RAND_MAX * 2.0f - 1.0f;
  return p;
}

static void check_layer(const char *spec) {
  Layer l;
  Diag d = {0};
  if (!layer_parse(spec, &l, &d)) {
    fprintf(stderr, "%s: %s\n", spec, d.msg);
    CHECK(false);
    return;
  }
  Arena *a = arena_new();
  Program *p = conv_program(a, &l, &d);
  if (!p) fprintf(stderr, "%s: %s\n", spec, d.msg);
  CHECK(p != NULL);
  if (p) {
    unsigned seed = 12345;
    size_t nin = (size_t)l.n * l.c * l.h * l.w, nwt = (size_t)l.k * l.c * l.kh * l.kw;
    size_t nout = (size_t)l.n * l.k * l.out_h * l.out_w;
    float *in = random_floats(nin, &seed), *wt = random_floats(nwt, &seed), *bias = random_floats((size_t)l.k, &seed);
    float *res = random_floats(nout, &seed);
    double *got = calloc(nout, sizeof *got), *want = calloc(nout, sizeof *want);
    const float *inputs[4] = {in, wt, l.bias ? bias : res, res};   // the residual after the bias, when there is one
    bool ok = ir_eval(p, inputs, got, 0, NULL, &d);
    if (!ok) fprintf(stderr, "%s: %s\n", spec, d.msg);
    CHECK(ok);
    conv_reference(&l, in, wt, l.bias ? bias : NULL, l.residual ? res : NULL, want);
    double num = 0, den = 0;
    for (size_t i = 0; i < nout; i++) num += (got[i] - want[i]) * (got[i] - want[i]), den += want[i] * want[i];
    double err = den > 0 ? sqrt(num / den) : sqrt(num);
    if (!(err < 1e-12)) fprintf(stderr, "%s: relative error %g\n", spec, err);
    CHECK(err < 1e-12);
    // the expression round-trips through the text form
    StrBuf one, two;
    sb_init(&one);
    sb_init(&two);
    ir_print_program(&one, p);
    Program *q = ir_parse(a, "printed", sb_str(&one), 0, NULL, NULL, &d);
    CHECK(q != NULL);
    if (q) ir_print_program(&two, q);
    CHECK_STR(sb_str(&two), sb_str(&one));
    sb_free(&one);
    sb_free(&two);
    free(in), free(wt), free(bias), free(res), free(got), free(want);
  }
  arena_free(a);
}

int main(void) {
  check_layer("n=1,c=3,h=8,w=8,k=4,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1");
  check_layer("n=2,c=5,h=13,w=17,k=7,kh=3,kw=5,stride=1,pad=2,bias=1,relu=0");
  check_layer("n=1,c=3,h=9,w=11,k=1,kh=1,kw=1,stride=1,pad=0,bias=0,relu=0");
  check_layer("n=1,c=5,h=13,w=17,k=7,kh=5,kw=5,stride=2,pad=2,bias=1,relu=1");
  check_layer("n=1,c=3,h=23,w=19,k=2,kh=7,kw=7,stride=4,pad=3,bias=0,relu=1");
  check_layer("n=1,c=4,h=10,w=6,k=3,kh=2,kw=3,stride_h=2,stride_w=1,pad_h=1,pad_w=0,bias=1,relu=0");
  check_layer("n=1,c=3,h=9,w=8,k=2,kh=3,kw=3,stride=2,pad_top=0,pad_left=2,pad_bottom=1,pad_right=0,bias=1");
  check_layer("n=1,c=2,h=11,w=9,k=3,kh=3,kw=2,stride_w=2,pad=1,dilation_h=2,dilation_w=3,bias=1");
  check_layer("n=2,c=3,h=9,w=8,k=4,kh=3,kw=3,stride=2,pad=1,bias=1,relu=1,residual=1");
  check_layer("n=1,c=3,h=7,w=6,k=2,kh=1,kw=1,act=relu6,residual=1");
  check_layer("n=2,c=6,h=9,w=10,k=4,kh=3,kw=3,pad=2,dilation=2,groups=2,bias=1,act=relu6,residual=1");
  check_layer("n=1,c=4,h=6,w=6,k=4,kh=3,kw=3,pad=1,groups=4,bias=1,residual=1");   // depthwise: k/G = 1, pad[0, 0, clamp]
  check_layer("n=1,c=4,h=7,w=5,k=12,kh=3,kw=3,stride=2,pad=1,groups=4");           // k/G = 3, no bias
  TEST_MAIN_END();
}
