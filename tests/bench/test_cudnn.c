/* test_cudnn.c: the cuDNN baseline of `convgen bench` (src/bench/cudnn.c).
 *
 * Without an NVIDIA GPU (CI, PoCL) what can be checked is how it declines: a
 * device that is not NVIDIA's, a cuDNN that cannot be loaded ($CONVGEN_CUDNN
 * pointing nowhere), the TF32 guard in the environment. Then it is asked to run
 * small layers for real (fp32, and fp16 in half tensors): where the CUDA
 * driver, cuDNN and a GPU are there (the GPU machine), the results must be
 * correct and timed; elsewhere it must have said why not.
 */
#include "bench/bench.h"
#include "measure/measure.h"
#include "test.h"
#include "test_layer.h"

#include <math.h>
#include <stdlib.h>

static RtDeviceInfo fake_info(const char *platform, const char *vendor, const char *name) {
  RtDeviceInfo info;
  memset(&info, 0, sizeof info);
  snprintf(info.platform, sizeof info.platform, "%s", platform);
  snprintf(info.vendor, sizeof info.vendor, "%s", vendor);
  snprintf(info.platform_vendor, sizeof info.platform_vendor, "%s", vendor);
  snprintf(info.name, sizeof info.name, "%s", name);
  info.is_gpu = true;
  return info;
}

/* One layer's inputs and reference, as convgen bench makes them (bench_data_new). */
typedef struct Data {
  Layer l;
  BenchData d;
} Data;

static void make_data(Data *t, const char *spec) {
  t->l = spec_layer(spec);
  t->d = bench_data_new(&t->l, 42);
}

static void free_data(Data *t) { bench_data_free(&t->d); }

static const BenchOptions opts = {.warmup = 2, .runs = 10, .tol = 1e-4};
static const BenchOptions opts_types = {.warmup = 2, .runs = 10};   // the tolerance of the layer's element types

/* What every declined call leaves: no time, no error measure, method named. */
static void check_declined(const BenchResult *r, bool ret) {
  CHECK(!ret);
  CHECK(!r->ran);
  CHECK_STR(r->method, "cudnn");
  CHECK(r->why[0] != 0);
  CHECK(isnan(r->error));
  CHECK(r->us.n == 0);
  CHECK(!r->correct);
}

static void test_not_nvidia(void) {
  Data t;
  make_data(&t, "c=2,h=5,w=5,k=3");
  BenchResult r;
  RtDeviceInfo pocl = fake_info("Portable Computing Language", "The pocl project", "cpu-haswell-AMD EPYC");
  bool ret = bench_cudnn(&pocl, &t.d, &opts, &r);
  check_declined(&r, ret);
  CHECK(strstr(r.why, "not an NVIDIA device") != NULL);

  // The device the suite runs on, when it is not NVIDIA's (PoCL in CI).
  RtDeviceInfo info;
  Diag d = {0};
  if (rt_select_info(NULL, &info, &d) && !strstr(info.vendor, "NVIDIA") && !strstr(info.platform, "NVIDIA")) {
    ret = bench_cudnn(&info, &t.d, &opts, &r);
    check_declined(&r, ret);
    CHECK(strstr(r.why, "not an NVIDIA device") != NULL);
  }
  free_data(&t);
}

/* $CONVGEN_CUDNN naming a missing file: the why names it and the variable. */
static void test_missing_cudnn(void) {
  Data t;
  make_data(&t, "c=2,h=5,w=5,k=3,bias=1,relu=1");
  setenv("CONVGEN_CUDNN", "/nonexistent/libcudnn.so.9", 1);
  BenchResult r;
  RtDeviceInfo nv = fake_info("NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA H200");
  bool ret = bench_cudnn(&nv, &t.d, &opts, &r);
  check_declined(&r, ret);
  CHECK(strstr(r.why, "lib") != NULL);
  CHECK(strstr(r.why, "/nonexistent/libcudnn.so.9") != NULL);
  CHECK(strstr(r.why, "CONVGEN_CUDNN") != NULL);
  CHECK(strstr(r.why, "not an NVIDIA device") == NULL);

  // The platform alone saying NVIDIA is enough (vendor strings vary).
  RtDeviceInfo by_platform = fake_info("NVIDIA CUDA", "", "NVIDIA H200");
  ret = bench_cudnn(&by_platform, &t.d, &opts, &r);
  check_declined(&r, ret);
  CHECK(strstr(r.why, "/nonexistent/libcudnn.so.9") != NULL);
  unsetenv("CONVGEN_CUDNN");
  free_data(&t);
}

/* NVIDIA_TF32_OVERRIDE=0 is set on the way to cuDNN for an fp32 layer, unless the user set it, and taken off for
 * a tf32 layer. */
static void test_tf32_guard(void) {
  Data t;
  make_data(&t, "c=2,h=5,w=5,k=3");
  setenv("CONVGEN_CUDNN", "/nonexistent/libcudnn.so.9", 1);
  BenchResult r;
  RtDeviceInfo nv = fake_info("NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA H200");
  RtDeviceInfo pocl = fake_info("Portable Computing Language", "The pocl project", "cpu");

  unsetenv("NVIDIA_TF32_OVERRIDE");
  bench_cudnn(&pocl, &t.d, &opts, &r);
  CHECK(getenv("NVIDIA_TF32_OVERRIDE") == NULL);
  bench_cudnn(&nv, &t.d, &opts, &r);
  CHECK_STR(getenv("NVIDIA_TF32_OVERRIDE"), "0");

  setenv("NVIDIA_TF32_OVERRIDE", "1", 1);
  bench_cudnn(&nv, &t.d, &opts, &r);
  CHECK_STR(getenv("NVIDIA_TF32_OVERRIDE"), "1");
  unsetenv("NVIDIA_TF32_OVERRIDE");

  // a tf32 layer takes the guard this process set off again, and leaves the user's
  Data t32;
  make_data(&t32, "c=2,h=5,w=5,k=3,precision=tf32");
  bench_cudnn(&nv, &t.d, &opts, &r);
  CHECK_STR(getenv("NVIDIA_TF32_OVERRIDE"), "0");
  bench_cudnn(&nv, &t32.d, &opts, &r);
  CHECK(getenv("NVIDIA_TF32_OVERRIDE") == NULL);
  bench_cudnn(&nv, &t.d, &opts, &r);
  CHECK_STR(getenv("NVIDIA_TF32_OVERRIDE"), "0");
  bench_cudnn(&nv, &t32.d, &opts, &r);
  setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
  bench_cudnn(&nv, &t32.d, &opts, &r);
  CHECK_STR(getenv("NVIDIA_TF32_OVERRIDE"), "0");
  unsetenv("NVIDIA_TF32_OVERRIDE");
  unsetenv("CONVGEN_CUDNN");
  free_data(&t32);
  free_data(&t);
}

/* A real run where there is a GPU (required with CONVGEN_TEST_GPU=1); elsewhere, a reason. The device name need
 * not match a CUDA device: then device 0 is used and the detail says so. */
static void test_run(const char *spec) {
  Data t;
  make_data(&t, spec);
  BenchResult r;
  RtDeviceInfo nv = fake_info("NVIDIA CUDA", "NVIDIA Corporation", "no such device");
  // an fp16 layer's output is rounded to half: its check takes the types' tolerance (1e-4 + 2^-11)
  bool half = t.l.precision == PREC_FP16;
  const BenchOptions *o = half ? &opts_types : &opts;
  double tol = half ? meas_tolerance_types(elem_type(ELEM_FP16), elem_fp32()) : opts.tol;
  uint64_t es = half ? 2 : 4;
  bool ret = bench_cudnn(&nv, &t.d, o, &r);
  CHECK_STR(r.method, "cudnn");
  if (!r.ran) {
    check_declined(&r, ret);
    printf("no cuDNN run for %s: %s\n", spec, r.why);
    // CONVGEN_TEST_GPU=1 says this machine has an NVIDIA GPU and cuDNN: declining is then a failure
    const char *gpu = getenv("CONVGEN_TEST_GPU");
    CHECK(!(gpu && strcmp(gpu, "1") == 0));
    free_data(&t);
    return;
  }
  printf("cuDNN on %s: %s; median %.1f us, error %.2g\n", spec, r.detail, r.us.median, r.error);
  CHECK(ret);
  CHECK(r.correct);
  CHECK(r.error <= tol);
  CHECK(r.us.n == opts.runs);
  CHECK(r.us.median > 0 && r.us.min <= r.us.median && r.us.median <= r.us.max);
  CHECK(strstr(r.detail, "workspace") != NULL);
  CHECK(strstr(r.detail, "CUDA device 0") != NULL);
  CHECK((strstr(r.detail, "fp16 N") != NULL) == half);   // an fp16 row names its layout
  CHECK(r.mem.input == (uint64_t)(t.d.nx + t.d.nr) * es && r.mem.weights == (uint64_t)t.d.nw * es);
  CHECK(r.mem.bias == (uint64_t)t.d.nb * es && r.mem.output == (uint64_t)t.d.ny * es);
  CHECK_STR(r.mem.extra_what, "workspace");

  // A wrong reference is caught: the result ran, is wrong, and has no time.
  ((double *)t.d.ref)[0] += 1e3;   // spoilt on purpose (bench_data_new allocated it)
  ret = bench_cudnn(&nv, &t.d, o, &r);
  CHECK(!ret && r.ran && !r.correct && r.us.n == 0);
  // (every path is wrong: the row says so, with the first path's reason)
  CHECK(strstr(r.why, "every path that ran was wrong; the first: wrong: relative L2 error") == r.why);
  free_data(&t);
}

/* An fp16 layer's data are values of half, so that every method reads exactly what the reference computes from. */
static void test_half_data(void) {
  Data t;
  make_data(&t, "c=3,h=5,w=5,k=4,bias=1,residual=1,precision=fp16");
  const ElemType *h = elem_type(ELEM_FP16);
  const float *arrays[] = {t.d.x, t.d.w, t.d.b, t.d.r};
  int64_t counts[] = {t.d.nx, t.d.nw, t.d.nb, t.d.nr};
  int inexact = 0, distinct = 0;
  for (int a = 0; a < 4; a++)
    for (int64_t i = 0; i < counts[a]; i++) {
      inexact += elem_round(h, arrays[a][i]) != (double)arrays[a][i];
      distinct += i > 0 && arrays[a][i] != arrays[a][i - 1];
    }
  CHECK(inexact == 0);
  CHECK(distinct > 10);   // random, not a constant
  free_data(&t);
}

int main(void) {
  test_half_data();
  test_not_nvidia();
  test_missing_cudnn();
  test_tf32_guard();
  test_run("n=2,c=3,h=9,w=8,k=4,kh=3,kw=3,pad=1,bias=1,relu=1");
  test_run("n=1,c=5,h=13,w=11,k=7,kh=5,kw=3,stride_h=2,stride_w=1,pad_h=2,pad_w=0");
  test_run("n=1,c=4,h=10,w=10,k=6,kh=1,kw=1,bias=1");
  test_run("n=2,c=4,h=9,w=8,k=6,kh=3,kw=3,stride=2,pad=1,bias=1,relu=1,residual=1");   // z with alpha2 = 1
  test_run("n=1,c=4,h=10,w=10,k=6,kh=1,kw=1,residual=1");   // no bias: the unfused path alone
  // fp16: half tensors summed in float, NCHW and NHWC (channel counts tensor cores like and unlike)
  test_run("n=1,c=16,h=10,w=10,k=32,kh=3,kw=3,pad=1,bias=1,relu=1,precision=fp16");
  test_run("n=2,c=3,h=9,w=8,k=5,kh=3,kw=3,stride=2,pad=1,bias=1,relu=1,residual=1,precision=fp16");
  TEST_MAIN_END();
}
