/* clblast.c: the CLBlast baseline of `convgen bench` (bench.h): im2col, then
 * one SGEMM per image of the batch, then a small kernel of ours for the bias,
 * the residual (residual=1) and the activation, which a GEMM does not do.
 *
 * CLBlast is loaded at run time (dlopen), so convgen builds and runs without it
 * and says what to install when it is missing. The few declarations used from
 * its C API (clblast_c.h; im2col has taken a kernel_mode since 1.5, and Debian
 * ships 1.5.3) are written out below rather than included.
 *
 * For image b (offsets in elements, as CLBlast counts them):
 *   col              = im2col(x + b*c*h*w)   (c*kh*kw) x (out_h*out_w), row-major
 *   y + b*k*oh*ow    = W * col               W is KCRS = k x (c*kh*kw), row-major
 *   (a grouped layer: one SGEMM per group g, its k/G rows of W, k/G x
 *   (c/G*kh*kw), times its c/G*kh*kw rows of col, into its k/G planes)
 * with cross-correlation (no kernel flip), which is what the reference computes.
 *
 * Timing, the protocol of measure.h: R whole convolutions (im2col and GEMM
 * per image, then the epilogue) queued back to back, and the device span from
 * the first im2col's start to the last kernel's end, over R. CLBlast returns
 * one event per call, and when its GEMM needs padded or transposed copies
 * that event covers only the last of its kernels; the queue is in order, so
 * the span covers them all.
 */
#define _GNU_SOURCE   // dladdr, to name the CLBlast version that was loaded
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "rt/dl.h"
#include "measure/measure.h"
#include "rt/rt_cl.h"

/* ---- the CLBlast C API, as far as it is used here ---- */

enum {
  CLBLAST_SUCCESS = 0,                 // CLBlastSuccess; errors are negative
  CLBLAST_LAYOUT_ROW_MAJOR = 101,      // CLBlastLayoutRowMajor
  CLBLAST_TRANSPOSE_NO = 111,          // CLBlastTransposeNo
  CLBLAST_CROSS_CORRELATION = 151,     // CLBlastKernelModeCrossCorrelation
};

// C enums are int-sized, so int stands for CLBlastStatusCode and the enum arguments.
typedef int (*Sim2colFn)(int kernel_mode, size_t channels, size_t height, size_t width,
                         size_t kernel_h, size_t kernel_w, size_t pad_h, size_t pad_w,
                         size_t stride_h, size_t stride_w, size_t dilation_h, size_t dilation_w,
                         cl_mem im_buffer, size_t im_offset, cl_mem col_buffer, size_t col_offset,
                         cl_command_queue *queue, cl_event *event);
typedef int (*SgemmFn)(int layout, int a_transpose, int b_transpose, size_t m, size_t n, size_t k,
                       float alpha, cl_mem a_buffer, size_t a_offset, size_t a_ld,
                       cl_mem b_buffer, size_t b_offset, size_t b_ld, float beta,
                       cl_mem c_buffer, size_t c_offset, size_t c_ld,
                       cl_command_queue *queue, cl_event *event);

typedef struct Clblast {
  char name[PATH_MAX];   // what dlopen was given: $CONVGEN_CLBLAST or a soname
  void *lib;             // kept open for the process: CLBlast caches programs per context
  Sim2colFn im2col;
  SgemmFn gemm;
  char version[32];      // "1.5.3" from the library's file name, or ""
} Clblast;

static Clblast loaded;   // the last library loaded; reloaded when $CONVGEN_CLBLAST changes

/* A message into a fixed buffer, cut short if it must be: paths and dlerror
 * texts have no bound, and a cut message is better than none. */
__attribute__((format(printf, 3, 4))) static void say(char *dst, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst, cap, fmt, ap);
  va_end(ap);
}

/* "1.5.3" from the real file behind the symbol ("libclblast.so.1.5.3"). */
static void find_version(void *sym, char *out, size_t cap) {
  out[0] = 0;
  Dl_info info;
  char real[PATH_MAX];
  if (!dladdr(sym, &info) || !info.dli_fname || !realpath(info.dli_fname, real)) return;
  const char *so = strstr(real, ".so.");
  if (so) snprintf(out, cap, "%s", so + 4);
}

static bool try_open(const char *name, char *err, size_t cap) {
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    say(err, cap, "%s", e ? e : "dlopen failed");
    return false;
  }
  Clblast c = {.lib = lib};
  say(c.name, sizeof c.name, "%s", name);
  const char *missing = NULL;
  if (!rt_dl_fn(lib, "CLBlastSim2col", &c.im2col)) missing = "CLBlastSim2col";
  else if (!rt_dl_fn(lib, "CLBlastSgemm", &c.gemm)) missing = "CLBlastSgemm";
  if (missing) {
    // Left open: closing a library that may have registered with the ICD is not worth the risk.
    say(err, cap, "%s has no %s (CLBlast 1.5 or later is needed)", name, missing);
    return false;
  }
  find_version(dlsym(lib, "CLBlastSgemm"), c.version, sizeof c.version);
  loaded = c;
  return true;
}

/* The library, from $CONVGEN_CLBLAST when set (read on every call, so that a
 * test or a user can point elsewhere), else the usual sonames; NULL with why. */
static const Clblast *load_clblast(char *why, size_t cap) {
  const char *env = getenv("CONVGEN_CLBLAST");
  bool from_env = env && *env;
  const char *names[2] = {from_env ? env : "libclblast.so.1", "libclblast.so"};
  int nnames = from_env ? 1 : 2;
  char err[400] = "", fallback_err[400];   // the first name's error is the telling one
  for (int i = 0; i < nnames; i++) {
    if (loaded.lib && strcmp(loaded.name, names[i]) == 0) return &loaded;
    if (try_open(names[i], i == 0 ? err : fallback_err, sizeof err)) return &loaded;
  }
  char from[PATH_MAX + 32];
  if (from_env)
    say(from, sizeof from, "from CONVGEN_CLBLAST=%s", env);
  else
    say(from, sizeof from, "(libclblast.so.1, libclblast.so)");
  say(why, cap, "cannot load CLBlast %s: %s; install it (apt-get install libclblast1) or set "
      "CONVGEN_CLBLAST to its path", from, err);
  return NULL;
}

/* ---- the epilogue: bias per output channel, the residual, then the activation ---- */

// NaN passes the activation (ACT tests for it first), so an unwritten output still shows.
static const char *epilogue_src =
    "// convgen bench clblast: bias, residual and activation (ACT, defined before this) after the GEMM\n"
    "__kernel void epilogue(__global float *y,\n"
    "#if BIAS\n"
    "                       __global const float *bias,\n"
    "#endif\n"
    "#if RESIDUAL\n"
    "                       __global const float *res,\n"
    "#endif\n"
    "                       const int k, const int plane) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float v = y[i];\n"
    "#if BIAS\n"
    "  v += bias[(i / (size_t)plane) % (size_t)k];\n"
    "#endif\n"
    "#if RESIDUAL\n"
    "  v += res[i];\n"
    "#endif\n"
    "  v = ACT(v);\n"
    "  y[i] = v;\n"
    "}\n";

/* ---- one layer on the device ---- */

typedef struct ConvJob {
  RtDevice *dev;
  const Layer *l;
  const Clblast *cb;
  RtBuffer *x, *w, *b, *r, *y, *col;   // b is NULL without bias, r without residual
  RtProgram *epilogue;             // NULL without bias, residual and activation
  size_t col_elems;                // (c*kh*kw) * (out_h*out_w)
  bool host_paced;                 // batches not held until queued whole (BenchOptions)
} ConvJob;

static void job_free(ConvJob *j) {
  rt_buffer_free(j->x);
  rt_buffer_free(j->w);
  rt_buffer_free(j->b);
  rt_buffer_free(j->r);
  rt_buffer_free(j->y);
  rt_buffer_free(j->col);
  rt_program_free(j->epilogue);
}

static void fill_memory(BenchMemory *m, const BenchData *d, size_t col_elems) {
  m->input = (uint64_t)(d->nx + d->nr) * sizeof(float);
  m->weights = (uint64_t)d->nw * sizeof(float);
  m->bias = (uint64_t)d->nb * sizeof(float);
  m->output = (uint64_t)d->ny * sizeof(float);
  m->extra = (uint64_t)col_elems * sizeof(float);
  snprintf(m->extra_what, sizeof m->extra_what, "im2col buffer");
}

static bool job_setup(ConvJob *j, const BenchData *d, Diag *dg) {
  const Layer *l = j->l;
  size_t fx = (size_t)d->nx * sizeof(float), fw = (size_t)d->nw * sizeof(float);
  j->x = rt_alloc(j->dev, fx, dg);
  j->w = j->x ? rt_alloc(j->dev, fw, dg) : NULL;
  j->y = j->w ? rt_alloc(j->dev, (size_t)d->ny * sizeof(float), dg) : NULL;
  j->col = j->y ? rt_alloc(j->dev, j->col_elems * sizeof(float), dg) : NULL;
  if (!j->col || !rt_write(j->dev, j->x, d->x, fx, dg) || !rt_write(j->dev, j->w, d->w, fw, dg))
    return false;
  if (l->bias) {
    size_t fb = (size_t)d->nb * sizeof(float);
    j->b = rt_alloc(j->dev, fb, dg);
    if (!j->b || !rt_write(j->dev, j->b, d->b, fb, dg)) return false;
  }
  if (l->residual) {
    size_t fr = (size_t)d->nr * sizeof(float);
    j->r = rt_alloc(j->dev, fr, dg);
    if (!j->r || !rt_write(j->dev, j->r, d->r, fr, dg)) return false;
  }
  if (l->bias || l->residual || l->act != ACT_NONE) {   // the activation's formula is the layer's (layer_act_c)
    char opts[48];
    snprintf(opts, sizeof opts, "-DBIAS=%d -DRESIDUAL=%d", l->bias ? 1 : 0, l->residual ? 1 : 0);
    StrBuf src;
    sb_init(&src);
    sb_puts(&src, "#define ACT(x) (isnan(x) ? (x) : ");   // the formula's fmax would turn a NaN into 0
    layer_act_c(&src, l, "(x)");
    sb_printf(&src, ")\n%s", epilogue_src);
    j->epilogue = rt_build(j->dev, sb_str(&src), opts, dg);
    sb_free(&src);
    if (!j->epilogue) return false;
  }
  return true;
}

/* im2col and GEMM of image img queued into span s (their events join it;
 * the queue is in order, so whatever copies CLBlast's GEMM makes lie
 * between them). A CLBlast status is named with the call that returned it. */
static bool image_enqueue(const ConvJob *j, int img, RtSpan *s, Diag *dg) {
  const Layer *l = j->l;
  size_t plane = (size_t)l->out_h * (size_t)l->out_w, depth = (size_t)l->c * l->kh * l->kw;
  cl_command_queue q = rt_cl_queue(j->dev);
  cl_event e_col = NULL, e_gemm = NULL;
  int st = j->cb->im2col(CLBLAST_CROSS_CORRELATION, (size_t)l->c, (size_t)l->h, (size_t)l->w,
                         (size_t)l->kh, (size_t)l->kw, (size_t)l->pad_h, (size_t)l->pad_w,
                         (size_t)l->stride_h, (size_t)l->stride_w, (size_t)l->dil_h, (size_t)l->dil_w, rt_cl_mem(j->x),
                         (size_t)img * l->c * l->h * l->w, rt_cl_mem(j->col), 0, &q, rt_span_event_slot(s, &e_col));
  if (st != CLBLAST_SUCCESS) return diag_error(dg, "CLBlastSim2col returned status %d", st);
  rt_span_add_cl_event(s, e_col);
  if (e_col) clReleaseEvent(e_col);
  // a GEMM per group: group g's kernels (rows g*k/G.. of the weights) times
  // its rows of the column matrix (g*(c/G)*kh*kw..), into its output planes
  size_t groups = (size_t)layer_groups(l), kg = (size_t)l->k / groups, dg_ = depth / groups;
  for (size_t g = 0; g < groups; g++) {
    st = j->cb->gemm(CLBLAST_LAYOUT_ROW_MAJOR, CLBLAST_TRANSPOSE_NO, CLBLAST_TRANSPOSE_NO, kg, plane, dg_, 1.0f,
                     rt_cl_mem(j->w), g * kg * dg_, dg_, rt_cl_mem(j->col), g * dg_ * plane, plane, 0.0f,
                     rt_cl_mem(j->y), (size_t)img * l->k * plane + g * kg * plane, plane, &q,
                     rt_span_event_slot(s, &e_gemm));
    if (st != CLBLAST_SUCCESS) return diag_error(dg, "CLBlastSgemm returned status %d", st);
    rt_span_add_cl_event(s, e_gemm);
    if (e_gemm) clReleaseEvent(e_gemm);
  }
  return true;
}

static bool epilogue_enqueue(const ConvJob *j, RtSpan *s, Diag *dg) {
  if (!j->epilogue) return true;
  const Layer *l = j->l;
  int k = l->k, plane = l->out_h * l->out_w;
  RtArg args[5] = {{.buf = j->y}};
  int n = 1;
  if (j->b) args[n++] = (RtArg){.buf = j->b};
  if (j->r) args[n++] = (RtArg){.buf = j->r};
  args[n++] = (RtArg){.value = &k, .size = sizeof k};
  args[n++] = (RtArg){.value = &plane, .size = sizeof plane};
  size_t global = (size_t)layer_elems(l, LAYER_OUTPUT);
  return rt_enqueue(j->dev, j->epilogue, "epilogue", n, args, 1, &global, NULL, s, dg);
}

/* reps whole convolutions back to back; *us gets the time per run (the
 * protocol of measure.h: the device span of all of them over reps, with no
 * events between the launches when whole, as convgen's timed batches). */
static bool conv_batch(const ConvJob *j, RtSpan *s, int reps, bool whole, double *us, Diag *dg) {
  rt_span_clear(s);
  bool ok = j->host_paced || (whole ? rt_span_replay(j->dev, s, dg) : rt_span_hold(j->dev, s, dg));
  for (int r = 0; r < reps && ok; r++) {
    for (int img = 0; img < j->l->n && ok; img++) ok = image_enqueue(j, img, s, dg);
    ok = ok && epilogue_enqueue(j, s, dg);
  }
  double ms = 0;
  Diag late = {0};
  bool done = rt_span_finish(j->dev, s, &ms, ok ? dg : &late);   // what was queued finishes either way
  *us = ms * 1e3 / reps;
  return ok && done;
}

typedef struct Batch {
  const ConvJob *j;
  RtSpan *s;
  int reps;
  Diag *dg;
} Batch;

static bool timed_batch(void *ctx, double *us) {
  Batch *b = ctx;
  return conv_batch(b->j, b->s, b->reps, true, us, b->dg);
}

/* Warm-up, then the timed batches into r->us; t1 is the checked run's time. */
static bool job_time(const ConvJob *j, RtSpan *s, double t1_us, const BenchOptions *o, BenchResult *r, Diag *dg) {
  double t = 0;
  if (o->warmup > 0 && !conv_batch(j, s, o->warmup, true, &t, dg)) return false;
  r->reps = meas_reps(t1_us * 1e-3, o->reps);
  Batch b = {j, s, r->reps, dg};
  return bench_time_batches(o, timed_batch, &b, &r->us);
}

/* The protocol of bench.h: poisoned output, one checked run, then the timing.
 * False with r->why set (by bench_check) or dg set (the method did not run). */
static bool job_measure(const ConvJob *j, const BenchData *d, const BenchOptions *o, BenchResult *r,
                        Diag *dg) {
  size_t fy = (size_t)d->ny * sizeof(float);
  double t = 0;
  RtSpan *s = rt_span_new();
  if (!rt_fill_nan(j->dev, j->y, fy, dg) || !conv_batch(j, s, 1, false, &t, dg)) return rt_span_free(s), false;
  float *out = malloc(fy ? fy : 1);
  if (!out) return rt_span_free(s), diag_error(dg, "out of host memory for %zu output bytes", fy);
  bool read = rt_read(j->dev, j->y, out, fy, dg);
  bool good = read && bench_check(r, out, d, o);
  free(out);
  r->ran = read;
  good = good && job_time(j, s, t, o, r, dg);
  rt_span_free(s);
  return good;
}

bool bench_clblast(RtDevice *dev, const BenchData *d, const BenchOptions *o, BenchResult *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->method, sizeof r->method, "clblast");
  r->error = NAN;
  const Layer *l = d->layer;
  if (!layer_pad_symmetric(l)) {
    snprintf(r->why, sizeof r->why, "CLBlast's im2col pads both sides of a dimension alike; this layer does not");
    return false;
  }
  if (strcmp(rt_target(dev), "opencl") != 0) {
    snprintf(r->why, sizeof r->why, "CLBlast is an OpenCL library: not run on a %s device (--target)", rt_target(dev));
    return false;
  }
  if (!rt_cl_queue(dev)) {   // a remote device (HOST:PORT): its queue is on the server
    snprintf(r->why, sizeof r->why, "CLBlast runs in this process: not on a remote device (convgen-server)");
    return false;
  }
  ConvJob j = {.dev = dev, .l = l, .host_paced = o->host_paced};
  j.col_elems = (size_t)l->c * l->kh * l->kw * (size_t)l->out_h * l->out_w;
  fill_memory(&r->mem, d, j.col_elems);
  j.cb = load_clblast(r->why, sizeof r->why);
  if (!j.cb) return false;
  snprintf(r->detail, sizeof r->detail, "im2col + SGEMM (CLBlast %s)",
           j.cb->version[0] ? j.cb->version : "version unknown");
  Diag dg = {0};
  bool ok = job_setup(&j, d, &dg) && job_measure(&j, d, o, r, &dg);
  if (dg.set) {   // it failed to run (not a wrong result, which bench_check reports)
    r->ran = false;
    say(r->why, sizeof r->why, "%s", dg.msg);
  }
  job_free(&j);
  return ok && r->ran && r->correct;
}
