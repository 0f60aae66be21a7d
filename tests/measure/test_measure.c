/* test_measure.c: the measurement protocol on the default device (PoCL in CI):
 * a correct program passes and is timed; a wrong kernel, a kernel that leaves
 * its output unwritten, a source that does not build and a launch of a missing
 * kernel each come back as a status with a reason, never a crash; sampling,
 * seeds, the floor on timed runs, an all-zero reference (absolute error) and
 * int buffers behave as documented; the tolerance follows the output's element
 * type and half inputs are drawn as values of half; the kernel hash follows the source, the
 * driver's options and the ND-range, and nothing else; a kernel of the
 * fixed inputs alone runs once (MeasOptions.fixed_inputs). Wrong kernels are
 * hand-written sources given through MeasOptions.source in place of cg_emit's. */
#include "codegen/codegen.h"
#include "measure/measure.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static const char *vadd_text =
    "size N\n"
    "userfun add(x: float, y: float): float { return x + y; }\n"
    "input a: [float]N\n"
    "input b: [float]N\n"
    "out = zip(a, b) |> mapGlb[0, fun(p) -> add(get[0](p), get[1](p))]\n";

/* Hand-written kernels with the lowered kernel's name and arguments (a, b, out). */
static const char *src_sub =
    "// test: subtracts instead of adding\n"
    "__kernel void k0(__global const float *a, __global const float *b, __global float *out) {\n"
    "  int i = get_global_id(0); out[i] = a[i] - b[i]; }\n";
static const char *src_half =
    "// test: writes only the first half\n"
    "__kernel void k0(__global const float *a, __global const float *b, __global float *out) {\n"
    "  int i = get_global_id(0); if (i < 512) out[i] = a[i] + b[i]; }\n";
static const char *src_broken =
    "// test: does not build\n"
    "__kernel void k0(__global const float *a, __global const float *b, __global float *out) {\n"
    "  out[get_global_id(0)] = undeclared_name; }\n";
static const char *src_renamed =
    "// test: the kernel has another name\n"
    "__kernel void other(__global const float *a, __global const float *b, __global float *out) {\n"
    "  int i = get_global_id(0); out[i] = a[i] + b[i]; }\n";

/* The reference of this one is all zeros, so its error is absolute. */
static const char *zero_text =
    "size N\n"
    "userfun z(x: float): float { return x - x; }\n"
    "input a: [float]N\n"
    "out = a |> mapGlb[0, z]\n";
static const char *src_tiny =
    "// test: nearly zero\n"
    "__kernel void k0(__global const float *a, __global float *out) { out[get_global_id(0)] = 1e-6f; }\n";
static const char *src_one =
    "// test: far from zero\n"
    "__kernel void k0(__global const float *a, __global float *out) { out[get_global_id(0)] = 1.0f; }\n";

/* Int input and output: written and read back as ints, compared as numbers. */
static const char *int_text =
    "size N\n"
    "userfun twice(x: int): int { return x * 2 + 1; }\n"
    "input a: [int]N\n"
    "out = a |> mapGlb[0, twice]\n";

/* Half storage: a is read from half, the sum stored into half. */
static const char *half_text =
    "size N\n"
    "userfun add(x: float, y: float): float { return x + y; }\n"
    "input a: [half]N\n"
    "input b: [float]N\n"
    "out: [half]N = zip(a, b) |> mapGlb[0, add]\n";

/* Two kernels: u from the input w alone (a "filter transform"), then the
 * output from x and u. */
static const char *prepare_text =
    "size N\n"
    "userfun twice(x: float): float { return x + x; }\n"
    "userfun add(x: float, y: float): float { return x + y; }\n"
    "input x: [float]N\n"
    "input w: [float]N\n"
    "out = let u = w |> mapGlb[0, twice] in zip(x, u) |> mapGlb[0, add]\n";

static LProgram *lower_text_n(Arena *a, const char *text, int64_t n) {
  const char *names[] = {"N"};
  int64_t vals[] = {n};
  Diag d = {0};
  Program *p = ir_parse(a, "test", text, 1, names, vals, &d);
  CHECK(p != NULL);
  if (!p || !ir_infer(a, p, &d)) return fprintf(stderr, "%s\n", d.msg), NULL;
  LProgram *lp = lw_lower(a, p, &d);
  if (!lp) fprintf(stderr, "%s\n", d.msg);
  CHECK(lp != NULL);
  return lp;
}

static LProgram *lower_text(Arena *a, const char *text) { return lower_text_n(a, text, 1024); }

static LProgram *lower_vadd(Arena *a) {
  LProgram *lp = lower_text(a, vadd_text);
  CHECK(lp && lp->nkernels == 1 && lp->kernels[0]->nargs == 3);
  if (lp && lp->nkernels == 1 && lp->kernels[0]->nargs == 3) {
    CHECK_STR(lp->kernels[0]->name, "k0");
    CHECK(lp->kernels[0]->args[0]->role == MR_INPUT && lp->kernels[0]->args[2]->role == MR_OUTPUT);
  }
  return lp;
}

static void test_ok(Arena *a, RtDevice *dev, const LProgram *lp) {
  MeasOptions o = meas_defaults();
  o.header = "test_measure: vadd N=1024";
  MeasResult r = meas_run(a, dev, lp, &o);
  if (r.status != MEAS_OK) fprintf(stderr, "%s: %s\n", meas_status_name(r.status), r.reason);
  CHECK(r.status == MEAS_OK);
  CHECK_STR(r.reason, "");
  CHECK(r.seed != 0);
  CHECK(r.outputs == 1024 && r.checked == 1024 && r.nonfinite == 0);
  CHECK(r.error <= 1e-6);
  CHECK(r.runs == 10 && r.warmup == 3 && r.ms.n == 10);
  CHECK(r.ms.min <= r.ms.median && r.ms.median <= r.ms.max);
  // the kernel's own time: the runs of one batch with an event for every launch
  CHECK(r.nkernels == 1 && r.reps >= 1 && r.kernels[0].ms.n == r.reps && r.kernels[0].ms.median > 0);
  CHECK_STR(r.kernels[0].name, "k0");
  CHECK(r.source && strstr(r.source, "test_measure: vadd N=1024") != NULL);
}

static void test_wrong(Arena *a, RtDevice *dev, const LProgram *lp) {
  MeasOptions o = meas_defaults();
  o.source = src_sub;
  o.seed = 42;
  MeasResult r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_WRONG);
  CHECK(r.seed == 42);
  CHECK(r.error > 0.1 && !r.error_abs);
  CHECK(strstr(r.reason, "relative L2 error") != NULL);
  CHECK(strstr(r.reason, "largest difference at output") != NULL);
  CHECK(r.worst >= 0 && r.worst < 1024);
  CHECK(r.runs == 0 && r.ms.n == 0 && r.ms.median == 0);   // a wrong kernel is never timed

  // The same seed gives the same inputs, so the same error.
  MeasResult again = meas_run(a, dev, lp, &o);
  CHECK(again.status == MEAS_WRONG && again.error == r.error && again.worst == r.worst);

  o.source = src_half;
  MeasResult half = meas_run(a, dev, lp, &o);
  CHECK(half.status == MEAS_WRONG);
  CHECK(half.nonfinite == 512 && half.worst == 512);
  CHECK(strstr(half.reason, "512 of 1024 outputs are NaN or Inf (first at 512)") != NULL);

  // Sampling still scans the whole output for NaN: the poison is always seen.
  o.sample = 4;
  half = meas_run(a, dev, lp, &o);
  CHECK(half.status == MEAS_WRONG && half.nonfinite == 512);
}

static void test_failures(Arena *a, RtDevice *dev, const LProgram *lp) {
  MeasOptions o = meas_defaults();
  o.source = src_broken;
  MeasResult r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_BUILD_FAILED);
  CHECK(strstr(r.reason, "OpenCL build failed for // test: does not build") != NULL);
  CHECK(strstr(r.reason, "undeclared_name") != NULL);
  CHECK(isnan(r.error));
  CHECK_STR(meas_status_name(r.status), "build-failed");

  o.source = src_renamed;
  r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_LAUNCH_FAILED);
  CHECK(strstr(r.reason, "no kernel named 'k0'") != NULL);
  CHECK_STR(meas_status_name(r.status), "launch-failed");
}

static void test_options(Arena *a, RtDevice *dev, const LProgram *lp) {
  MeasOptions o = meas_defaults();
  o.sample = 16;
  o.runs = 3;        // below the protocol's floor: raised to 10
  o.warmup = 0;
  MeasResult r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_OK);
  CHECK(r.checked >= 2 && r.checked <= 18);
  CHECK(r.runs == MEAS_MIN_RUNS && r.warmup == 0);

  o = meas_defaults();
  o.check_only = true;
  r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_OK && r.runs == 0 && r.ms.n == 0 && r.checked == 1024);

  o = meas_defaults();
  o.reps = 7;        // batches of 7 back-to-back runs
  r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_OK && r.reps == 7 && r.runs == 10 && r.ms.median > 0);

  o.host_paced = true;   // the batches started as queued: the same checks, timed
  r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_OK && r.reps == 7 && r.ms.median > 0);
}

/* The hash of what meas_run builds: 16 hex digits, the same for the same
 * kernels however they are given (emitted, or as a source; no options or the
 * -cl-std the driver gets anyway), another for another source, other driver
 * options or another ND-range. */
static void test_kernel_hash(Arena *a, const LProgram *lp) {
  char h[MEAS_HASH_LEN + 1], g[MEAS_HASH_LEN + 1];
  meas_kernel_hash(lp, NULL, h);
  CHECK(strlen(h) == MEAS_HASH_LEN && strspn(h, "0123456789abcdef") == MEAS_HASH_LEN);
  meas_kernel_hash(lp, NULL, g);
  CHECK_STR(g, h);
  MeasOptions o = meas_defaults();
  char *src = cg_emit(lp, &CG_OPENCL, NULL);
  o.source = src;
  o.build_options = RT_CL_STD;
  meas_kernel_hash(lp, &o, g);
  CHECK_STR(g, h);
  o.build_options = "-cl-fast-relaxed-math";
  meas_kernel_hash(lp, &o, g);
  CHECK(strcmp(g, h) != 0);
  o = meas_defaults();
  o.header = "another first line";
  meas_kernel_hash(lp, &o, g);
  CHECK(strcmp(g, h) != 0);
  o = meas_defaults();
  o.source = src_sub;
  meas_kernel_hash(lp, &o, g);
  CHECK(strcmp(g, h) != 0);
  LProgram *wide = lower_text_n(a, vadd_text, 2048);
  if (wide) meas_kernel_hash(wide, NULL, g);
  CHECK(wide && strcmp(g, h) != 0);
  free(src);
}

/* R: asked, else from one run's time so that a batch spans MEAS_BATCH_MS,
 * within [MEAS_MIN_REPS, MEAS_MAX_REPS]. */
static void test_reps(void) {
  CHECK(meas_reps(0.1, 3) == 3);
  CHECK(meas_reps(0.1, 0) == 20);
  CHECK(meas_reps(0.5, 0) == 4);
  CHECK(meas_reps(30, 0) == MEAS_MIN_REPS);   // a slow candidate is not timed 5 times per batch
  CHECK(meas_reps(1e-5, 0) == MEAS_MAX_REPS);
  CHECK(meas_reps(0, 0) == MEAS_MAX_REPS);
}

/* A span of back-to-back launches: every launch's time is within the span,
 * whose length is at least their sum (in order, on one queue). */
static void test_span(Arena *a, RtDevice *dev, const LProgram *lp) {
  Diag d = {0};
  MeasOptions o = meas_defaults();
  o.check_only = true;
  MeasResult r = meas_run(a, dev, lp, &o);
  RtProgram *p = r.source ? rt_build(dev, r.source, NULL, &d) : NULL;
  CHECK(p != NULL);
  RtBuffer *b[3];
  RtArg args[3];
  for (int i = 0; i < 3; i++) b[i] = rt_alloc(dev, 1024 * 4, &d), args[i] = (RtArg){.buf = b[i]};
  RtSpan *s = rt_span_new();
  size_t global = 1024;
  bool ok = p != NULL;
  for (int i = 0; i < 4 && ok; i++) ok = rt_enqueue(dev, p, "k0", 3, args, 1, &global, NULL, s, &d);
  double span = 0, sum = 0;
  CHECK(ok && rt_span_finish(dev, s, &span, &d));
  CHECK(rt_span_count(s) == 4);
  for (int i = 0; i < 4; i++) sum += rt_span_launch_ms(s, i);
  CHECK(span > 0 && span >= sum * 0.999);
  CHECK(!rt_enqueue(dev, p, "no_such_kernel", 3, args, 1, &global, NULL, s, &d) && strstr(d.msg, "no_such_kernel"));
  rt_span_clear(s);
  CHECK(rt_span_count(s) == 0);

  // held: nothing runs until rt_span_finish lets the queue go, then all of it does
  ok = rt_span_hold(dev, s, &d);
  CHECK(ok);
  for (int i = 0; i < 4 && ok; i++) ok = rt_enqueue(dev, p, "k0", 3, args, 1, &global, NULL, s, &d);
  CHECK(ok);
  nanosleep(&(struct timespec){.tv_nsec = 50 * 1000 * 1000}, NULL);
  CHECK(rt_span_done(dev, s) == 0);
  CHECK(rt_span_finish(dev, s, &span, &d) && span > 0);
  CHECK(rt_span_done(dev, s) == 4);
  rt_span_clear(s);
  CHECK(rt_span_hold(dev, s, &d));   // a hold never let go by finish is let go by clear, not left to block the queue
  rt_span_clear(s);
  // replayed: OpenCL cannot record a span: it is held, and timed from the first launch to a marker after the last
  ok = rt_span_replay(dev, s, &d);
  CHECK(ok);
  for (int i = 0; i < 4 && ok; i++) ok = rt_enqueue(dev, p, "k0", 3, args, 1, &global, NULL, s, &d);
  CHECK(ok);
  nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
  CHECK(rt_span_done(dev, s) == 0);
  CHECK(rt_span_finish(dev, s, &span, &d) && span > 0);
  CHECK(!rt_span_has_launch_times(s) && rt_span_launch_ms(s, 3) == 0);
  CHECK(rt_span_done(dev, s) == 4);   // done, though only the first launch had an event
  rt_span_clear(s);
  CHECK(rt_span_replay(dev, s, &d));   // never finished: clear lets it go
  rt_span_clear(s);
  CHECK(rt_launch(dev, p, "k0", 3, args, 1, &global, NULL, NULL, &d));
  rt_span_free(s);
  for (int i = 0; i < 3; i++) rt_buffer_free(b[i]);
  rt_program_free(p);

  CHECK(meas_run(a, dev, lp, NULL).status == MEAS_OK);   // NULL options: the defaults
  CHECK_STR(meas_status_name(MEAS_REFERENCE_FAILED), "reference-failed");
  CHECK_STR(meas_status_name((MeasStatus)99), "unknown");
}

static void test_zero_reference(Arena *a, RtDevice *dev) {
  LProgram *lp = lower_text(a, zero_text);
  if (!lp) return;
  MeasOptions o = meas_defaults();
  o.check_only = true;
  MeasResult r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_OK && r.error_abs && r.error == 0 && r.tol == 1e-4);
  o.source = src_tiny;   // ||out|| = 1e-6 * sqrt(1024) = 3.2e-5: within 1e-4
  r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_OK && r.error_abs && fabs(r.error - 3.2e-5) < 1e-7);
  o.source = src_one;
  r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_WRONG && r.error_abs && fabs(r.error - 32) < 1e-9);
  CHECK(strstr(r.reason, "absolute L2 error 32 exceeds the tolerance 0.0001") != NULL);
}

static void test_int(Arena *a, RtDevice *dev) {
  LProgram *lp = lower_text(a, int_text);
  if (!lp) return;
  MeasOptions o = meas_defaults();
  o.check_only = true;
  MeasResult r = meas_run(a, dev, lp, &o);
  if (r.status != MEAS_OK) fprintf(stderr, "%s: %s\n", meas_status_name(r.status), r.reason);
  CHECK(r.status == MEAS_OK && r.error == 0 && r.checked == 1024);
}

/* The exact sum, unrounded; it fails when an input of a half array is not a
 * value of half (measure draws them so). */
static bool half_sum(void *ctx, const float *const *in, double *out, Diag *d) {
  (void)ctx;
  for (int i = 0; i < 1024; i++) {
    if (elem_round(elem_type(ELEM_FP16), in[0][i]) != in[0][i]) return diag_error(d, "a[%d] is no half", i);
    out[i] = (double)in[0][i] + in[1][i];
  }
  return true;
}

/* A half output is checked against the float64 reference within 1e-4 plus
 * half's unit roundoff (meas_tolerance), an fp32 one within 1e-4; a tolerance
 * given is the one taken. */
static void test_half(Arena *a, RtDevice *dev, const LProgram *vadd) {
  CHECK(meas_tolerance(vadd->prog) == 1e-4);
  LProgram *lp = lower_text(a, half_text);
  if (!lp) return;
  CHECK(meas_tolerance(lp->prog) == 1e-4 + 0x1p-11);
  MeasOptions o = meas_defaults();
  o.check_only = true;
  o.reference = half_sum;
  MeasResult r = meas_run(a, dev, lp, &o);
  if (r.status != MEAS_OK) fprintf(stderr, "%s: %s\n", meas_status_name(r.status), r.reason);
  CHECK(r.status == MEAS_OK && r.tol == 1e-4 + 0x1p-11);
  CHECK(r.error > 1e-5 && r.error <= 0x1p-11);   // the output's rounding, and no more
  o.tol = 1e-5;
  r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_WRONG && r.tol == 1e-5);
}

/* MeasOptions.fixed_inputs: a kernel of the fixed inputs alone runs in the
 * checked run only (MeasKernel.once), and changes the kernel hash; with
 * none fixed every kernel runs every run. */
static void test_once(Arena *a, RtDevice *dev) {
  LProgram *lp = lower_text(a, prepare_text);
  CHECK(lp && lp->nkernels == 2);
  if (!lp || lp->nkernels != 2) return;
  CHECK(lw_kernel_prepares(lp, 0, 2) && !lw_kernel_prepares(lp, 1, 2));   // w is input 1
  CHECK(!lw_kernel_prepares(lp, 0, 1) && !lw_kernel_prepares(lp, 0, 0));   // x alone fixed, or none
  CHECK(!lw_kernel_prepares(lp, 1, 3));   // the output is not prepared, whatever is fixed
  MeasOptions o = meas_defaults();
  char plain[MEAS_HASH_LEN + 1], once[MEAS_HASH_LEN + 1];
  meas_kernel_hash(lp, &o, plain);
  o.fixed_inputs = 2;
  meas_kernel_hash(lp, &o, once);
  CHECK(strcmp(plain, once) != 0);
  MeasResult r = meas_run(a, dev, lp, &o);
  if (r.status != MEAS_OK) fprintf(stderr, "%s: %s\n", meas_status_name(r.status), r.reason);
  CHECK(r.status == MEAS_OK && r.nkernels == 2);
  if (r.status != MEAS_OK || r.nkernels != 2) return;
  CHECK(r.kernels[0].once && !r.kernels[1].once);
  CHECK(r.kernels[0].ms.n == 1 && r.kernels[1].ms.n == r.reps);   // the checked run's launch; the timed runs'
  o.fixed_inputs = 0;
  r = meas_run(a, dev, lp, &o);
  CHECK(r.status == MEAS_OK && !r.kernels[0].once && r.kernels[0].ms.n == r.reps);
}

int main(void) {
  Arena *a = arena_new();
  Diag d = {0};
  RtDevice *dev = rt_open(NULL, &d);
  CHECK(dev != NULL);
  LProgram *lp = lower_vadd(a);
  test_reps();
  if (lp) test_kernel_hash(a, lp);
  if (dev && lp) {
    test_ok(a, dev, lp);
    test_wrong(a, dev, lp);
    test_failures(a, dev, lp);
    test_options(a, dev, lp);
    test_span(a, dev, lp);
    test_zero_reference(a, dev);
    test_int(a, dev);
    test_half(a, dev, lp);
    test_once(a, dev);
  } else if (!dev) {
    fprintf(stderr, "%s\n", d.msg);
  }
  rt_close(dev);
  arena_free(a);
  TEST_MAIN_END();
}
