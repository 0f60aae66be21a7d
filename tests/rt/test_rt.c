/* test_rt.c: the OpenCL runtime on whatever device the ICD loader offers (PoCL
 * on the CPU in CI): listing, selection, builds and their logs, buffers, NaN
 * poisoning, launches with timing, launch errors, and the statistics. */
#include "rt/builds.h"
#include "rt/rt.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

static const char *vadd_src =
    "// test: vector add\n"
    "__kernel void vadd(__global const float *a, __global const float *b,\n"
    "                   __global float *c, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "__kernel void scale(__global float *c, float s) { c[get_global_id(0)] *= s; }\n";

static void test_list(void) {
  Diag d = {0};
  int n = rt_list_devices(NULL, 0, &d);
  CHECK(!d.set);
  CHECK(n >= 1);
  RtDeviceInfo *devs = calloc((size_t)n, sizeof *devs);
  CHECK(rt_list_devices(devs, n, &d) == n);
  CHECK(rt_list_devices(devs, 1, &d) == 1);
  rt_list_devices(devs, n, &d);
  for (int i = 0; i < n; i++) {
    CHECK(devs[i].index == i);
    CHECK(devs[i].name[0] != 0);
    CHECK(devs[i].platform[0] != 0);
    CHECK(devs[i].max_wg_size >= 1);
    CHECK(devs[i].max_wi_sizes[0] >= 1);
    CHECK(devs[i].global_mem > 0 && devs[i].max_alloc > 0 && devs[i].local_mem > 0);
    CHECK(strncmp(devs[i].c_version, "OpenCL C ", 9) == 0);
  }
  StrBuf sb;
  sb_init(&sb);
  rt_print_devices(&sb, devs, n);
  CHECK(strstr(sb_str(&sb), "device 0: ") == sb_str(&sb));
  CHECK(strstr(sb_str(&sb), "max work-item sizes") != NULL);
  CHECK(strstr(sb_str(&sb), " MiB\n") != NULL);
  if (getenv("TEST_RT_VERBOSE")) fputs(sb_str(&sb), stdout);
  sb_free(&sb);
  free(devs);
}

static void test_open(void) {
  Diag d = {0};
  RtDevice *dev = rt_open("", &d);
  CHECK(dev && !d.set);
  rt_close(dev);

  dev = rt_open("0", &d);
  CHECK(dev && rt_info(dev)->index == 0);
  rt_close(dev);

  // PoCL's platform name says "Portable Computing Language"; its vendor says pocl.
  RtDeviceInfo first;
  rt_list_devices(&first, 1, &d);
  if (strstr(first.platform_vendor, "pocl")) {
    dev = rt_open("POCL", &d);
    CHECK(dev && !d.set);
    if (dev) CHECK(strstr(rt_info(dev)->platform_vendor, "pocl") != NULL);
    rt_close(dev);
  }

  Diag bad = {0};
  CHECK(rt_open("no-such-device-xyz", &bad) == NULL);
  CHECK(bad.set);
  CHECK(strstr(bad.msg, "no OpenCL device matches 'no-such-device-xyz'; devices: 0: ") != NULL);
  CHECK(bad.kind == DIAG_USER);   // the selector is the user's, not a device that failed
  Diag idx = {0};
  CHECK(rt_open("999", &idx) == NULL);
  CHECK(strstr(idx.msg, "matches '999'") != NULL);

  // $CONVGEN_DEVICE is read only when sel is NULL (the caller's value is restored).
  char *saved = getenv("CONVGEN_DEVICE") ? strdup(getenv("CONVGEN_DEVICE")) : NULL;
  setenv("CONVGEN_DEVICE", "no-such-device-xyz", 1);
  Diag env = {0};
  CHECK(rt_open(NULL, &env) == NULL);
  CHECK(strstr(env.msg, "(from $CONVGEN_DEVICE)") != NULL);
  Diag env2 = {0};
  dev = rt_open("0", &env2);
  CHECK(dev && !env2.set);
  rt_close(dev);
  setenv("CONVGEN_DEVICE", "0", 1);
  dev = rt_open(NULL, &env2);
  CHECK(dev && !env2.set);
  rt_close(dev);
  if (saved)
    setenv("CONVGEN_DEVICE", saved, 1);
  else
    unsetenv("CONVGEN_DEVICE");
  free(saved);
}

static void test_vadd(RtDevice *dev) {
  enum { N = 1000 };
  float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) {
    a[i] = (float)i;
    b[i] = 0.5f * (float)i;
  }
  Diag d = {0};
  RtProgram *p = rt_build(dev, vadd_src, "-cl-std=CL1.2", &d);
  CHECK(p && !d.set);
  RtBuffer *ba = rt_alloc(dev, sizeof a, &d), *bb = rt_alloc(dev, sizeof b, &d);
  RtBuffer *bc = rt_alloc(dev, sizeof c, &d);
  CHECK(ba && bb && bc);
  CHECK(rt_write(dev, ba, a, sizeof a, &d));
  CHECK(rt_write(dev, bb, b, sizeof b, &d));
  CHECK(rt_fill_nan(dev, bc, sizeof c, &d));
  CHECK(rt_read(dev, bc, c, sizeof c, &d));
  int nans = 0;
  for (int i = 0; i < N; i++) nans += isnan(c[i]) != 0;
  CHECK(nans == N);

  int n = N;
  RtArg args[] = {{.buf = ba}, {.buf = bb}, {.buf = bc}, {.value = &n, .size = sizeof n}};
  size_t global = 1024, local = 64;
  double ms = -1;
  for (int rep = 0; rep < 3; rep++) {   // repeats reuse the cached kernel
    CHECK(rt_launch(dev, p, "vadd", 4, args, 1, &global, &local, &ms, &d));
    CHECK(ms > 0);
  }
  CHECK(!d.set);
  if (d.set) fprintf(stderr, "%s\n", d.msg);
  CHECK(rt_read(dev, bc, c, sizeof c, &d));
  int bad = 0;
  for (int i = 0; i < N; i++) bad += c[i] != 1.5f * (float)i;
  CHECK(bad == 0);

  // Second kernel of the same program, local size left to the driver, no timing.
  float s = 2.0f;
  RtArg sargs[] = {{.buf = bc}, {.value = &s, .size = sizeof s}};
  global = N;
  CHECK(rt_launch(dev, p, "scale", 2, sargs, 1, &global, NULL, NULL, &d));
  CHECK(rt_read(dev, bc, c, sizeof c, &d));
  CHECK(c[10] == 30.0f && c[N - 1] == 3.0f * (N - 1));

  // Errors: wrong name, bad divisibility, wrong argument count, too large a copy.
  Diag e1 = {0};
  CHECK(!rt_launch(dev, p, "vadd2", 4, args, 1, &global, NULL, NULL, &e1));
  CHECK(strstr(e1.msg, "no kernel named 'vadd2'") != NULL);
  CHECK(strstr(e1.msg, "CL_INVALID_KERNEL_NAME") != NULL);
  CHECK(strstr(e1.msg, "vadd") != NULL && strstr(e1.msg, "scale") != NULL);
  Diag e2 = {0};
  global = 1000;
  local = 64;
  CHECK(!rt_launch(dev, p, "vadd", 4, args, 1, &global, &local, NULL, &e2));
  CHECK(strstr(e2.msg, "kernel 'vadd': global size 1000 is not a multiple of local size 64") !=
        NULL);
  Diag e3 = {0};
  CHECK(!rt_launch(dev, p, "vadd", 3, args, 1, &global, NULL, NULL, &e3));
  CHECK_STR(e3.msg, "kernel 'vadd' takes 4 arguments, got 3");
  Diag e4 = {0};
  CHECK(!rt_write(dev, ba, a, sizeof a + 4, &e4));
  CHECK(strstr(e4.msg, "do not fit a buffer of 4000 bytes") != NULL);
  Diag e5 = {0};
  size_t g2[2] = {64, 64}, l2[2] = {64, 64};
  const RtDeviceInfo *info = rt_info(dev);
  if (info->max_wg_size < 64 * 64) {
    CHECK(!rt_launch(dev, p, "vadd", 4, args, 2, g2, l2, NULL, &e5));
    CHECK(strstr(e5.msg, "exceeds") != NULL);
  }

  rt_buffer_free(ba);
  rt_buffer_free(bb);
  rt_buffer_free(bc);
  rt_program_free(p);
}

static void test_build_error(RtDevice *dev) {
  const char *src =
      "// layer conv3: broken on purpose\n"
      "__kernel void k0(__global float *x) { x[0] = 1.0f +; }\n";
  Diag d = {0};
  CHECK(rt_build(dev, src, NULL, &d) == NULL);
  CHECK(strstr(d.msg, "OpenCL build failed for // layer conv3: broken on purpose:\n") == d.msg);
  CHECK(d.kind == DIAG_DEVICE);   // a build that fails is the device compiler's
  CHECK(strstr(d.msg, "error") != NULL);   // the compiler's log follows
  if (getenv("TEST_RT_VERBOSE")) printf("%s\n", d.msg);

  // A long log is cut to the Diag, keeping its start.
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "// many errors\n");
  for (int i = 0; i < 60; i++)
    sb_printf(&sb, "__kernel void k%d(__global int *x) { x[0] = %d +; }\n", i, i);
  Diag big = {0};
  CHECK(rt_build(dev, sb_str(&sb), "", &big) == NULL);
  CHECK(strstr(big.msg, "OpenCL build failed for // many errors:\n") == big.msg);
  CHECK(strlen(big.msg) < sizeof big.msg);
  sb_free(&sb);

  Diag opt = {0};
  CHECK(rt_build(dev, vadd_src, "-no-such-option-xyz", &opt) == NULL);
  CHECK(strstr(opt.msg, "OpenCL build failed for // test: vector add:\n") == opt.msg);
  if (getenv("TEST_RT_VERBOSE")) printf("%s\n", opt.msg);
}

/* Every build is OpenCL C 1.2 (RT_CL_STD), whatever the driver's default:
 * a program-scope __global variable (OpenCL C 2.0) does not build, and the
 * options a failing clBuildProgram names start with -cl-std=CL1.2. A
 * caller's own -cl-std is left as it is. */
static void test_build_std(RtDevice *dev) {
  const char *src =
      "// test: OpenCL C 2.0 only\n"
      "__global int counter = 0;\n"
      "__kernel void k(__global int *x) { x[0] = counter; }\n";
  Diag d = {0};
  CHECK(rt_build(dev, src, NULL, &d) == NULL);
  CHECK(d.kind == DIAG_DEVICE);
  const char *v12 =
      "// test: the version macro\n"
      "#if __OPENCL_C_VERSION__ != 120\n#error not OpenCL C 1.2\n#endif\n"
      "__kernel void k(__global int *x) { x[0] = 1; }\n";
  Diag v = {0};
  RtProgram *p = rt_build(dev, v12, "", &v);
  CHECK(p && !v.set);
  rt_program_free(p);
  Diag opt = {0};
  CHECK(rt_build(dev, vadd_src, "-no-such-option-xyz", &opt) == NULL);
  if (strstr(opt.msg, "clBuildProgram(options"))   // named when the driver refuses the options
    CHECK(strstr(opt.msg, "clBuildProgram(options '" RT_CL_STD " -no-such-option-xyz')") != NULL);
}

/* builds.h: sources built on threads (and without any), taken out of the
 * order they were added; a failed build's Diag comes with its ticket; the
 * programs no one took are freed with the pool. Each program is its own:
 * "scale" by its ticket's factor. */
static void test_builds(RtDevice *dev, int threads) {
  enum { N = 6 };
  RtBuilds *b = rt_builds_new(dev, NULL, threads);
  CHECK(rt_builds_nthreads(b) == (threads > 1 ? threads : 0));
  int ticket[N];
  char src[N][256];
  for (int i = 0; i < N; i++) {
    snprintf(src[i], sizeof src[i], "__kernel void scale(__global float *c) { c[get_global_id(0)] *= %d.0f; }\n", i + 1);
    ticket[i] = rt_builds_add(b, i == 2 ? "__kernel void broken( {" : src[i]);
    CHECK(ticket[i] == i);
  }
  CHECK(rt_builds_count(b) == N);
  Diag d = {0};
  for (int i = N - 2; i >= 0; i--) {   // backwards; the last never taken
    RtProgram *p = rt_builds_take(b, ticket[i], &d);
    if (i == 2) {
      CHECK(!p && d.set && strstr(d.msg, "OpenCL build failed for __kernel void broken( {"));
      d = (Diag){0};
      continue;
    }
    CHECK(p != NULL);
    if (!p) continue;
    float x = 1.0f;
    RtBuffer *buf = rt_alloc(dev, sizeof x, &d);
    RtArg arg = {.buf = buf};
    size_t one = 1;
    CHECK(buf && rt_write(dev, buf, &x, sizeof x, &d) && rt_launch(dev, p, "scale", 1, &arg, 1, &one, &one, NULL, &d) &&
          rt_read(dev, buf, &x, sizeof x, &d));
    CHECK(x == (float)(i + 1));
    rt_buffer_free(buf);
    rt_program_free(p);
  }
  CHECK(rt_builds_take(b, ticket[0], &d) == NULL && d.set && strstr(d.msg, "no build 0 to take"));
  d = (Diag){0};
  CHECK(rt_builds_take(b, N, &d) == NULL && d.set);
  CHECK(rt_builds_busy_s(b) > 0 && rt_builds_waited_s(b) >= 0);
  rt_builds_free(b);
}

static void test_stats(void) {
  double odd[] = {5, 1, 3, 2, 4};
  RtStats s = rt_stats(odd, 5);
  CHECK(s.n == 5 && s.median == 3 && s.min == 1 && s.max == 5);
  CHECK(fabs(s.spread - 4.0 / 3.0) < 1e-12);
  CHECK(odd[0] == 5);   // the input is not sorted in place

  double even[] = {4, 1, 3, 2};
  s = rt_stats(even, 4);
  CHECK(s.median == 2.5 && s.min == 1 && s.max == 4);
  CHECK(fabs(s.spread - 3.0 / 2.5) < 1e-12);

  double zeros[] = {0, 0, 0};
  s = rt_stats(zeros, 3);
  CHECK(s.median == 0 && s.spread == 0);
  s = rt_stats(NULL, 0);
  CHECK(s.n == 0 && s.median == 0);
}

static void test_error_names(void) {
  CHECK_STR(rt_error_name(0), "CL_SUCCESS");
  CHECK_STR(rt_error_name(-5), "CL_OUT_OF_RESOURCES");
  CHECK_STR(rt_error_name(-11), "CL_BUILD_PROGRAM_FAILURE");
  CHECK_STR(rt_error_name(-19), "CL_KERNEL_ARG_INFO_NOT_AVAILABLE");
  CHECK_STR(rt_error_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
  CHECK_STR(rt_error_name(-68), "CL_INVALID_DEVICE_PARTITION_COUNT");
  CHECK_STR(rt_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  CHECK_STR(rt_error_name(-9999), "CL_UNKNOWN_ERROR");
}

int main(void) {
  test_stats();
  test_error_names();
  test_list();
  test_open();
  Diag d = {0};
  RtDevice *dev = rt_open(NULL, &d);   // $CONVGEN_DEVICE picks the device
  CHECK(dev != NULL);
  if (!dev) {
    fprintf(stderr, "%s\n", d.msg);
  } else {
    test_vadd(dev);
    test_build_error(dev);
    test_build_std(dev);
    test_builds(dev, 3);
    test_builds(dev, 0);
    CHECK(rt_build_threads(&d) >= 1 && rt_build_threads(&d) <= RT_BUILD_THREADS_MAX);
    setenv("CONVGEN_BUILD_THREADS", "3", 1);
    CHECK(rt_build_threads(&d) == 3);
    setenv("CONVGEN_BUILD_THREADS", "17", 1);
    CHECK(rt_build_threads(&d) == -1 && d.set && strstr(d.msg, "CONVGEN_BUILD_THREADS='17': not a number"));
    unsetenv("CONVGEN_BUILD_THREADS");
    rt_close(dev);
  }
  TEST_MAIN_END();
}
