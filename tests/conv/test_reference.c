/* test_reference.c: the CPU reference convolution and the error measure
 * (src/conv/reference.c).
 *
 * Small cases worked out by hand (a 1x1 kernel is a per-pixel matrix product;
 * a 3x3 box filter with zero padding; stride 2; bias and ReLU; a batch of two;
 * three channels with kh != kw), then a cross-check against an independent
 * formulation written here, im2col followed by a naive GEMM, on random data for
 * odd shapes (c = 3 and 5, k = 1 and 7, 13x17 inputs, 1x1 to 7x7 kernels,
 * strides 1 to 4, pads 0 to 5, n = 2, with and without bias and ReLU) and on
 * reduced named layers. The output is poisoned with NaN first, so an output the
 * reference never writes shows. Last, the threaded reference against one
 * thread, bit for bit.
 */
#include "conv/reference.h"
#include "test.h"
#include "test_layer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* out, poisoned, then the reference run on it; the caller frees. */
static double *run_res(const Layer *l, const float *in, const float *wt, const float *bias, const float *res) {
  size_t n = (size_t)layer_elems(l, LAYER_OUTPUT);
  double *out = malloc(n * sizeof *out);
  for (size_t i = 0; i < n; i++) out[i] = NAN;
  conv_reference(l, in, wt, bias, res, out);
  return out;
}

static double *run(const Layer *l, const float *in, const float *wt, const float *bias) {
  return run_res(l, in, wt, bias, NULL);
}

static bool same(const double *got, const double *want, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!(got[i] == want[i])) {
      fprintf(stderr, "  at %zu: got %.17g, want %.17g\n", i, got[i], want[i]);
      return false;
    }
  return true;
}

/* ---- Hand-computed cases --------------------------------------------------------------- */

// c=3 channels of a 2x2 image, and two 1x1 filters: out[k][p] = sum_c wt[k][c] * in[c][p].
static const float img3[] = {1, 2, 3, 4, /**/ 0.5f, -1, 2, 0, /**/ -2, 1, 0, 3};
static const float mat[] = {1, 2, -1, /**/ 0, 0.5f, 0.25f};
static const double matmul[] = {4, -1, 7, 1, /**/ -0.25, -0.25, 1, 0.75};

static void test_1x1(void) {
  Layer l = spec_layer("c=3,h=2,w=2,k=2,kh=1,kw=1");
  double *out = run(&l, img3, mat, NULL);
  CHECK(same(out, matmul, 8));
  free(out);
}

static void test_bias_relu(void) {
  const float bias[] = {-1, 0.5f};
  const double b[] = {3, -2, 6, 0, /**/ 0.25, 0.25, 1.5, 1.25};
  const double br[] = {3, 0, 6, 0, /**/ 0.25, 0.25, 1.5, 1.25};
  const double r[] = {4, 0, 7, 1, /**/ 0, 0, 1, 0.75};
  Layer l = spec_layer("c=3,h=2,w=2,k=2,kh=1,kw=1,bias=1");
  double *out = run(&l, img3, mat, bias);
  CHECK(same(out, b, 8));
  free(out);
  l = spec_layer("c=3,h=2,w=2,k=2,kh=1,kw=1,bias=1,relu=1");
  out = run(&l, img3, mat, bias);
  CHECK(same(out, br, 8));
  free(out);
  l = spec_layer("c=3,h=2,w=2,k=2,kh=1,kw=1,relu=1");
  out = run(&l, img3, mat, bias);   // bias off: the array is not read
  CHECK(same(out, r, 8));
  free(out);
}

/* The residual is added after the bias, before the activation. */
static void test_residual(void) {
  const float bias[] = {-1, 0.5f}, res[] = {1, 1, -7, 0.5f, /**/ 0, -0.5f, -2, 0.25f};
  const double b[] = {4, -1, -1, 0.5, /**/ 0.25, -0.25, -0.5, 1.5};
  const double br[] = {4, 0, 0, 0.5, /**/ 0.25, 0, 0, 1.5};
  const double r[] = {5, 0, 0, 1.5, /**/ 0, 0, 0, 1};
  Layer l = spec_layer("c=3,h=2,w=2,k=2,kh=1,kw=1,bias=1,residual=1");
  double *out = run_res(&l, img3, mat, bias, res);
  CHECK(same(out, b, 8));
  free(out);
  l = spec_layer("c=3,h=2,w=2,k=2,kh=1,kw=1,bias=1,relu=1,residual=1");
  out = run_res(&l, img3, mat, bias, res);
  CHECK(same(out, br, 8));
  free(out);
  l = spec_layer("c=3,h=2,w=2,k=2,kh=1,kw=1,relu=1,residual=1");
  out = run_res(&l, img3, mat, NULL, res);
  CHECK(same(out, r, 8));
  free(out);
  l = spec_layer("c=3,h=2,w=2,k=2,kh=1,kw=1,bias=1,relu=1");
  out = run_res(&l, img3, mat, bias, res);   // residual off: the array is not read
  CHECK(same(out, (const double[]){3, 0, 6, 0, 0.25, 0.25, 1.5, 1.25}, 8));
  free(out);
}

static void test_batch(void) {
  float in[24];
  for (int i = 0; i < 12; i++) in[i] = img3[i], in[12 + i] = -2 * img3[i];
  double want[16];
  for (int i = 0; i < 8; i++) want[i] = matmul[i], want[8 + i] = -2 * matmul[i];
  Layer l = spec_layer("n=2,c=3,h=2,w=2,k=2,kh=1,kw=1");
  double *out = run(&l, in, mat, NULL);
  CHECK(same(out, want, 16));
  free(out);
}

// 1..12 in a 3x4 image.
static const float img12[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const float ones9[] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

static void test_box(void) {
  const double want[] = {14, 24, 30, 22, /**/ 33, 54, 63, 45, /**/ 30, 48, 54, 38};
  Layer l = spec_layer("c=1,h=3,w=4,k=1,pad=1");
  double *out = run(&l, img12, ones9, NULL);
  CHECK(l.out_h == 3 && l.out_w == 4);
  CHECK(same(out, want, 12));
  free(out);
}

static void test_stride2(void) {
  const double box[] = {14, 30, /**/ 30, 54};   // every other output of the box filter
  Layer l = spec_layer("c=1,h=3,w=4,k=1,pad=1,stride=2");
  double *out = run(&l, img12, ones9, NULL);
  CHECK(l.out_h == 2 && l.out_w == 2);
  CHECK(same(out, box, 4));
  free(out);
  // A 2x2 kernel whose weights tell its taps apart, stride 2, no padding.
  const float wt[] = {1, 10, 100, 1000};
  const double want[] = {1 + 20 + 500 + 6000, 3 + 40 + 700 + 8000};
  l = spec_layer("c=1,h=3,w=4,k=1,kh=2,kw=2,stride=2");
  out = run(&l, img12, wt, NULL);
  CHECK(l.out_h == 1 && l.out_w == 2);
  CHECK(same(out, want, 2));
  free(out);
}

/* c=3, a 1x2 kernel: in[ci][y][x] = (ci+1) * (3y + x + 1), weights (1,-1), (0.5,2), (-1,0). */
static void test_kh_ne_kw(void) {
  float in[18];
  for (int ci = 0; ci < 3; ci++)
    for (int p = 0; p < 6; p++) in[ci * 6 + p] = (float)((ci + 1) * (p + 1));
  const float wt[] = {1, -1, 0.5f, 2, -1, 0};
  const double want[] = {5, 7, 11, 13};
  Layer l = spec_layer("c=3,h=2,w=3,k=1,kh=1,kw=2");
  double *out = run(&l, in, wt, NULL);
  CHECK(l.out_h == 2 && l.out_w == 2);
  CHECK(same(out, want, 4));
  free(out);
  // The same image through the transposed kernel (2x1) on the first channel only.
  const float wt2[] = {1, -1, 0, 0, 0, 0};
  const double want2[] = {1 - 4, 2 - 5, 3 - 6};
  l = spec_layer("c=3,h=2,w=3,k=1,kh=2,kw=1");
  out = run(&l, in, wt2, NULL);
  CHECK(l.out_h == 1 && l.out_w == 3);
  CHECK(same(out, want2, 3));
  free(out);
}

/* ---- Cross-check: im2col + GEMM ----------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static float uniform(void) {   // [-1, 1)
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (float)((rng >> 40) / (double)(1u << 23)) - 1.0f;
}

static float *random_array(int64_t n) {
  float *a = malloc((size_t)(n ? n : 1) * sizeof *a);
  for (int64_t i = 0; i < n; i++) a[i] = uniform();
  return a;
}

/* cols[j][q]: row j = (ci, r, s), column q = (b, y, x); zero outside the image. */
static double *im2col(const Layer *l, const float *in) {
  int64_t rows = (int64_t)l->c * l->kh * l->kw, q_n = (int64_t)l->n * l->out_h * l->out_w;
  double *cols = calloc((size_t)(rows * q_n), sizeof *cols);
  for (int64_t j = 0; j < rows; j++) {
    int ci = (int)(j / (l->kh * l->kw)), r = (int)(j / l->kw % l->kh), s = (int)(j % l->kw);
    for (int64_t q = 0; q < q_n; q++) {
      int b = (int)(q / ((int64_t)l->out_h * l->out_w)), y = (int)(q / l->out_w % l->out_h), x = (int)(q % l->out_w);
      int iy = y * l->stride_h - l->pad_h + r * l->dil_h, ix = x * l->stride_w - l->pad_w + s * l->dil_w;
      if (iy >= 0 && iy < l->h && ix >= 0 && ix < l->w)
        cols[j * q_n + q] = in[(((int64_t)b * l->c + ci) * l->h + iy) * l->w + ix];
    }
  }
  return cols;
}

/* The activation, written out again here so that the reference is checked
 * against formulas of its own (layer.h's definitions). */
static double act(const Layer *l, double x) {
  switch (l->act) {
  case ACT_NONE: return x;
  case ACT_RELU: return fmax(x, 0);
  case ACT_RELU6: return fmin(fmax(x, 0), 6);
  case ACT_CLIP: return fmin(fmax(x, l->act_a), l->act_b);
  case ACT_LEAKY: return x >= 0 ? x : x * l->act_a;
  case ACT_SIGMOID: return exp(x) / (exp(x) + 1);
  case ACT_HARDSWISH: return x * fmin(fmax(x / 6 + 0.5, 0), 1);   // ONNX: alpha 1/6, beta 0.5
  case ACT_SILU: return x * exp(x) / (exp(x) + 1);
  case ACT_HARDSIGMOID: return fmin(fmax(l->act_a * x + l->act_b, 0), 1);
  }
  return NAN;
}

/* out = act(wt (k x rows) * cols (rows x q) + bias), rearranged from [k][b][y][x] to NCHW. A
 * grouped layer's wt is block-diagonal: kernel o takes the rows of its group's channels only. */
static double *gemm_conv(const Layer *l, const float *in, const float *wt, const float *bias, const float *res) {
  double *cols = im2col(l, in);
  int64_t rows = (int64_t)(l->c / l->groups) * l->kh * l->kw, plane = (int64_t)l->out_h * l->out_w, q_n = l->n * plane;
  double *out = malloc((size_t)layer_elems(l, LAYER_OUTPUT) * sizeof *out);
  for (int o = 0; o < l->k; o++)
    for (int64_t q = 0; q < q_n; q++) {
      double acc = 0;
      int64_t first = (int64_t)(o / (l->k / l->groups)) * rows;   // the group's first row of cols
      for (int64_t j = 0; j < rows; j++) acc += (double)wt[o * rows + j] * cols[(first + j) * q_n + q];
      if (l->bias) acc += bias[o];
      int64_t at = (q / plane * l->k + o) * plane + q % plane;
      if (l->residual) acc += res[at];
      out[at] = act(l, acc);
    }
  free(cols);
  return out;
}

/* The largest |a - b| relative to the largest |b| (1 when b is all zero). */
static double max_rel_diff(const double *a, const double *b, int64_t n) {
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!isfinite(a[i])) return INFINITY;
    diff = fmax(diff, fabs(a[i] - b[i]));
    scale = fmax(scale, fabs(b[i]));
  }
  return diff / (scale > 0 ? scale : 1);
}

static void cross_check(const char *spec) {
  Layer l = spec_layer(spec);
  float *in = random_array(layer_elems(&l, LAYER_INPUT));
  float *wt = random_array(layer_elems(&l, LAYER_WEIGHTS));
  float *bias = l.bias ? random_array(l.k) : NULL;
  float *res = l.residual ? random_array(layer_elems(&l, LAYER_RESIDUAL)) : NULL;
  double *got = run_res(&l, in, wt, bias, res), *want = gemm_conv(&l, in, wt, bias, res);
  double err = max_rel_diff(got, want, layer_elems(&l, LAYER_OUTPUT));
  if (!(err <= 1e-12)) fprintf(stderr, "cross-check of %s: difference %g\n", spec, err);
  CHECK(err <= 1e-12);
  free(in), free(wt), free(bias), free(res), free(got), free(want);
}

static void test_cross(void) {
  const char *specs[] = {
      "c=3,h=13,w=17,k=1,kh=5,kw=5,stride=2",
      "c=5,h=13,w=17,k=7,kh=7,kw=7,stride=4,pad=3",
      "c=3,h=13,w=17,k=7,kh=5,kw=3,stride_h=2,stride_w=1,pad_h=2,pad_w=1,bias=1,relu=1",
      "c=5,h=17,w=13,k=1,kh=3,kw=7,pad=2,bias=1",
      "n=2,c=3,h=13,w=17,k=7,kh=1,kw=1,stride=2,bias=1,relu=1",
      "c=5,h=13,w=17,k=7,kh=7,kw=5,stride_h=4,stride_w=3,pad_h=3,relu=1",
      "n=2,c=5,h=13,w=17,k=7,kh=5,kw=5,stride=2,pad=1,bias=1,relu=1",
      "c=5,h=13,w=17,k=7,kh=3,kw=3,pad=1,bias=1,act=relu6",
      "c=5,h=13,w=17,k=7,kh=3,kw=3,pad=1,bias=1,act=clip(-0.25,0.5)",
      "c=5,h=13,w=17,k=7,kh=3,kw=3,pad=1,act=leaky(0.1)",
      "c=5,h=13,w=17,k=7,kh=3,kw=3,pad=1,bias=1,act=sigmoid",
      "c=5,h=13,w=17,k=7,kh=3,kw=3,pad=1,bias=1,act=hardswish",
      "c=5,h=13,w=17,k=7,kh=3,kw=3,pad=1,bias=1,act=silu",
      "c=5,h=13,w=17,k=7,kh=3,kw=3,pad=1,bias=1,act=hardsigmoid(0.2,0.5)",
      "c=3,h=5,w=4,k=2,kh=1,kw=1,pad=5,stride=3,bias=1",   // windows wholly in the padding
      "c=5,h=2,w=3,k=7,kh=7,kw=7,pad=3,stride=4,bias=1",    // kernel as large as the padded input
      "c=3,h=13,w=16,k=5,kh=3,kw=3,stride=2,pad_top=0,pad_left=1,pad_bottom=1,pad_right=0,bias=1",   // ONNX's SAME_UPPER
      "c=2,h=9,w=7,k=3,kh=5,kw=2,stride_h=3,pad_top=4,pad_left=0,pad_bottom=0,pad_right=3,relu=1",
      "c=3,h=13,w=17,k=4,kh=3,kw=3,pad=2,dilation=2,bias=1",                       // DeepLab's atrous 3x3
      "c=3,h=14,w=14,k=4,kh=3,kw=3,pad=36,dilation=36,bias=1",                     // and its ASPP's largest rate
      "n=2,c=2,h=15,w=11,k=3,kh=3,kw=2,stride=2,pad=1,dilation_h=3,dilation_w=4,relu=1",
      "alexnet.conv1,c=3,k=2",
      "alexnet.conv2,c=4,k=3,n=2",
      "n=2,c=6,h=9,w=11,k=4,pad=1,groups=2,bias=1,relu=1",                         // grouped
      "c=8,h=10,w=9,k=8,pad=1,groups=8,bias=1,act=relu6",                            // depthwise
      "c=4,h=11,w=13,k=12,kh=5,kw=5,stride=2,pad=2,groups=4",                      // depthwise, 3 per channel
      "c=6,h=12,w=12,k=9,pad=2,dilation=2,groups=3,bias=1",                          // grouped and dilated
      "vgg16.conv5_1,c=8,k=4",
      "n=2,c=5,h=13,w=17,k=7,kh=3,kw=3,stride=2,pad=1,bias=1,relu=1,residual=1",     // with a residual
      "c=6,h=12,w=11,k=9,pad=2,dilation=2,groups=3,act=relu6,residual=1",
  };
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) cross_check(specs[i]);
  // Every pad from 0 to 3 and every stride from 1 to 4 on the odd shapes.
  char spec[128];
  for (int pad = 0; pad <= 3; pad++)
    for (int stride = 1; stride <= 4; stride++)
      for (int c = 3; c <= 5; c += 2) {
        int k = c == 3 ? 1 : 7, ks = c == 3 ? 5 : 7;
        snprintf(spec, sizeof spec, "c=%d,h=13,w=17,k=%d,kh=%d,kw=%d,stride=%d,pad=%d,bias=%d,relu=%d", c, k, ks,
                 ks - 2, stride, pad, pad & 1, stride & 1);
        cross_check(spec);
      }
}

/* ---- conv_rel_l2 ------------------------------------------------------------------------------- */

static void test_rel_l2(void) {
  const double ref[] = {3, 4, 0};
  const float same_f[] = {3, 4, 0}, off[] = {3, 5, 0};
  int64_t bad = -1;
  CHECK(conv_rel_l2(same_f, ref, 3, &bad) == 0 && bad == 0);
  CHECK(fabs(conv_rel_l2(off, ref, 3, &bad) - 0.2) < 1e-15 && bad == 0);   // 1 / 5
  const double zero[] = {0, 0};
  const float some[] = {3, 4};
  CHECK(conv_rel_l2(some, zero, 2, NULL) == 5);   // absolute when ||ref|| is 0
  const float nonfin[] = {NAN, 4, INFINITY};
  CHECK(isinf(conv_rel_l2(nonfin, ref, 3, &bad)) && bad == 2);
  CHECK(conv_rel_l2(nonfin, ref, 0, &bad) == 0 && bad == 0);
  CHECK(isinf(conv_rel_l2(nonfin, ref, 1, NULL)));
  // An fp32 rounding of the reference is within the fp32 epsilon.
  Layer l = spec_layer("c=5,h=13,w=17,k=7,kh=5,kw=3,pad=2,bias=1,relu=1");
  float *in = random_array(layer_elems(&l, LAYER_INPUT)), *wt = random_array(layer_elems(&l, LAYER_WEIGHTS));
  float *bias = random_array(l.k);
  double *ref64 = run(&l, in, wt, bias);
  int64_t n = layer_elems(&l, LAYER_OUTPUT);
  float *got = malloc((size_t)n * sizeof *got);
  for (int64_t i = 0; i < n; i++) got[i] = (float)ref64[i];
  double e = conv_rel_l2(got, ref64, (size_t)n, &bad);
  CHECK(e > 0 && e < 6e-8 && bad == 0);
  free(in), free(wt), free(bias), free(ref64), free(got);
}

/* ---- Threads ------------------------------------------------------------------------------------ */

/* The planes shared over any number of threads give the same doubles, bit for
 * bit, as one thread: more threads than CPUs, than planes (n*k = 14), uneven
 * shares. */
static void test_threads(void) {
  Layer l = spec_layer("n=2,c=5,h=13,w=17,k=7,kh=3,kw=5,stride=2,pad=1,bias=1,relu=1");
  size_t n = (size_t)layer_elems(&l, LAYER_OUTPUT);
  float *in = random_array(layer_elems(&l, LAYER_INPUT)), *wt = random_array(layer_elems(&l, LAYER_WEIGHTS));
  float *bias = random_array(l.k);
  double *one = malloc(n * sizeof *one), *many = malloc(n * sizeof *many);
  for (size_t i = 0; i < n; i++) one[i] = NAN;
  conv_reference_threads(&l, in, wt, bias, NULL, one, 1);
  bool finite = true;
  for (size_t i = 0; i < n; i++) finite &= isfinite(one[i]);
  CHECK(finite);
  const int counts[] = {2, 3, 4, 5, 13, 14, 15, 64, 1000};
  for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
    for (size_t i = 0; i < n; i++) many[i] = NAN;
    conv_reference_threads(&l, in, wt, bias, NULL, many, counts[c]);
    bool same_bits = memcmp(one, many, n * sizeof *one) == 0;
    if (!same_bits) fprintf(stderr, "  %d threads differ from one\n", counts[c]);
    CHECK(same_bits);
  }
  for (size_t i = 0; i < n; i++) many[i] = NAN;
  conv_reference(&l, in, wt, bias, NULL, many);
  CHECK(memcmp(one, many, n * sizeof *one) == 0);
  free(in), free(wt), free(bias), free(one), free(many);
}

int main(void) {
  test_1x1();
  test_bias_relu();
  test_residual();
  test_batch();
  test_box();
  test_stride2();
  test_kh_ne_kw();
  test_cross();
  test_rel_l2();
  test_threads();
  TEST_MAIN_END();
}
