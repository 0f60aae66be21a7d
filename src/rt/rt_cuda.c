/* rt_cuda.c: the CUDA target of the runtime (rt.h, rt_impl.h): the driver
 * API (rt/cuda.h) and NVRTC, both loaded at run time, so that convgen builds
 * and runs where there is no CUDA and says so when --target cuda is asked.
 *
 * A program is the CUDA C of codegen's CG_CUDA dialect compiled by NVRTC for
 * the device's architecture (a cubin: sm_XY) and loaded as a module; a
 * kernel is launched with the work-group size as its block and global/local
 * blocks as its grid, the ND-range OpenCL would give it. Every launch is
 * bracketed by two events on the device's one stream, so a span's time is
 * the device's from the first launch's start to the last one's end, as
 * OpenCL's event timestamps give it. A hold is a host function queued on
 * the stream that waits until the span lets it go (cuLaunchHostFunc): the
 * launches queued behind it reach the device together, up to
 * CUDA_HOLD_MAX of them (the driver's queue is bounded), and the hold gives
 * way after CUDA_HOLD_WAIT_MS whatever happens on the host. A replayed span
 * (rt_span_replay) is captured from the stream into a graph instead, its
 * launches with no events between them, and rt_span_finish uploads the
 * graph, then launches it between two events: cuDNN's protocol in bench (src/bench/cudnn.c),
 * where the events of every launch cost about 1 us each on the H200.
 */
#include "rt/cuda.h"
#include "rt/dl.h"
#include "rt/rt_impl.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- NVRTC ---- */

typedef struct NvrtcProgSt *NvrtcProg;
typedef struct NvrtcApi {
  int (*nvrtcVersion)(int *major, int *minor);
  int (*nvrtcCreateProgram)(NvrtcProg *p, const char *src, const char *name, int nheaders, const char *const *headers,
                            const char *const *include_names);
  int (*nvrtcDestroyProgram)(NvrtcProg *p);
  int (*nvrtcCompileProgram)(NvrtcProg p, int nopts, const char *const *opts);
  int (*nvrtcGetProgramLogSize)(NvrtcProg p, size_t *n);
  int (*nvrtcGetProgramLog)(NvrtcProg p, char *log);
  int (*nvrtcGetCUBINSize)(NvrtcProg p, size_t *n);
  int (*nvrtcGetCUBIN)(NvrtcProg p, char *cubin);
  const char *(*nvrtcGetErrorString)(int result);
} NvrtcApi;

static const RtSym nvrtc_syms[] = {
#define SYM(name) {#name, offsetof(NvrtcApi, name)}
    SYM(nvrtcVersion),           SYM(nvrtcCreateProgram), SYM(nvrtcDestroyProgram),
    SYM(nvrtcCompileProgram),    SYM(nvrtcGetProgramLogSize), SYM(nvrtcGetProgramLog),
    SYM(nvrtcGetCUBINSize),      SYM(nvrtcGetCUBIN),          SYM(nvrtcGetErrorString),
#undef SYM
};

/* NVRTC: $CONVGEN_NVRTC, else the names a CUDA toolkit or a pip wheel installs. */
static const NvrtcApi *nvrtc_api(char *why, size_t cap) {
  static NvrtcApi api;
  static bool bound;
  if (bound) return &api;
  const char *env = getenv("CONVGEN_NVRTC");
  const char *names[] = {env && *env ? env : NULL, "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                         "/usr/local/cuda/lib64/libnvrtc.so"};
  void *lib = NULL;
  const char *name = NULL;
  for (size_t i = 0; i < sizeof names / sizeof *names && !lib; i++)
    if (names[i] && (lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL))) name = names[i];
  if (!lib) {
    snprintf(why, cap, "cannot load NVRTC (libnvrtc.so, .so.13, .so.12; $CONVGEN_NVRTC names another): it comes "
                       "with the CUDA toolkit or the nvidia-cuda-nvrtc wheel");
    return NULL;
  }
  if (!rt_dl_bind(lib, name, &api, nvrtc_syms, sizeof nvrtc_syms / sizeof *nvrtc_syms, why, cap)) return NULL;
  bound = true;
  return &api;
}

/* ---- the device ---- */

typedef struct CuFn {
  char *name;
  CuFunction fn;
  int max_threads;          // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: its registers allow
} CuFn;

typedef struct CuProg {
  CuModule mod;
  CuFn *fns;
  int nfns, cap;
} CuProg;

typedef struct CuDev {
  const CudaApi *cu;
  const NvrtcApi *nv;
  CuDevice ordinal;
  CuContext ctx;            // the device's primary context, current on this thread
  CuStream stream;
  int cc_major, cc_minor;
} CuDev;

/* The launches a hold keeps back at most. The driver's queue of a stream is
 * bounded (about a thousand operations, each launch three here: two events
 * and the kernel): a launch queued into a full queue blocks the host until
 * the device frees a place, which a held stream never does. So a hold is
 * let go after this many launches, and the device starts with them queued
 * ahead of the host (measured first on the H200: the dot example, 400
 * launches per batch, waited for ever). */
enum { CUDA_HOLD_MAX = 128 };
/* The longest a hold keeps its stream waiting (ms): then the stream goes on,
 * released or not. A launch the driver cannot queue behind a held stream
 * (its queue full, or a kernel it will only start on an idle device) blocks
 * the host thread that would release the hold: on the H200, split-K points
 * whose two kernels differ in shared memory hung their tune that way (round
 * 27). A batch whose hold timed out was not queued whole; its time is
 * still the device's span of its launches. */
enum { CUDA_HOLD_WAIT_MS = 200 };

/* A span's events, two per launch, kept for the next batch; and its hold. */
typedef struct CuSpan {
  CuEvent *start, *end;
  int n, cap;               // events made so far (n: those of the launches in the span)
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool held;                // a host function waits on the stream until released
  bool released;
  bool capturing;           // rt_span_replay: the stream is being captured into a graph
  bool replayed;            // its graph ran to the end
  CuEvent t0, t1;           // around the graph's launch
  CuDev *dev;               // whose stream is captured
} CuSpan;

/* The driver's name for r ("CUDA_ERROR_ILLEGAL_ADDRESS"). */
static const char *cu_error_name(const CudaApi *cu, CuResult r) {
  const char *name = NULL;
  return cu->cuGetErrorName(r, &name) == 0 && name ? name : "an unknown error";
}

static bool cu_fail(const CudaApi *cu, CuResult r, Diag *d, const char *call) {
  return diag_device(d, "%s: %s (%d)", call, cu_error_name(cu, r), r);
}

static bool check(const CudaApi *cu, CuResult r, Diag *d, const char *what) {
  return r == 0 || cu_fail(cu, r, d, what);
}

/* The device's context current on this thread: another user of the driver
 * in this process (bench's cuDNN run, the CUDA runtime) may have made
 * another one current, or none, since the last call. */
static bool current(CuDev *c, Diag *d) {
  CuContext now = NULL;
  if (c->cu->cuCtxGetCurrent(&now) == 0 && now == c->ctx) return true;
  return check(c->cu, c->cu->cuCtxSetCurrent(c->ctx), d, "cuCtxSetCurrent");
}

static const CudaApi *driver(Diag *d) {
  char why[512] = "";
  const CudaApi *cu = rt_cuda_api(why, sizeof why);
  if (!cu) return diag_device(d, "the CUDA target: %s", why), NULL;
  CuResult r = cu->cuInit(0);
  if (r != 0) return check(cu, r, d, "cuInit (the CUDA target: no usable NVIDIA GPU?)"), NULL;
  return cu;
}

static void fill_info(const CudaApi *cu, CuDevice dev, int ordinal, RtDeviceInfo *o) {
  memset(o, 0, sizeof *o);
  o->index = ordinal;
  snprintf(o->platform, sizeof o->platform, "CUDA");
  snprintf(o->platform_vendor, sizeof o->platform_vendor, "NVIDIA Corporation");
  snprintf(o->vendor, sizeof o->vendor, "NVIDIA Corporation");
  cu->cuDeviceGetName(o->name, (int)sizeof o->name, dev);
  int v = 0, major = 0, minor = 0;
  cu->cuDriverGetVersion(&v);
  cu->cuDeviceGetAttribute(&major, CU_DEV_CC_MAJOR, dev);
  cu->cuDeviceGetAttribute(&minor, CU_DEV_CC_MINOR, dev);
  snprintf(o->driver, sizeof o->driver, "CUDA %d.%d", v / 1000, v % 1000 / 10);
  snprintf(o->version, sizeof o->version, "CUDA %d.%d sm_%d%d", v / 1000, v % 1000 / 10, major, minor);
  snprintf(o->c_version, sizeof o->c_version, "CUDA C++ (NVRTC)");
  o->is_gpu = true;
  int x = 0;
  cu->cuDeviceGetAttribute(&x, CU_DEV_SM_COUNT, dev), o->compute_units = (unsigned)x;
  cu->cuDeviceGetAttribute(&x, CU_DEV_MAX_THREADS_PER_BLOCK, dev), o->max_wg_size = (size_t)x;
  for (int i = 0; i < 3; i++) cu->cuDeviceGetAttribute(&x, CU_DEV_MAX_BLOCK_DIM_X + i, dev), o->max_wi_sizes[i] = (size_t)x;
  // a kernel's static __shared__ arrays: at most 48 KiB without opting in to more
  cu->cuDeviceGetAttribute(&x, CU_DEV_MAX_SHARED_PER_BLOCK, dev), o->local_mem = (uint64_t)x;
  size_t total = 0;
  cu->cuDeviceTotalMem_v2(&total, dev);
  o->global_mem = o->max_alloc = total;
  cu->cuDeviceGetAttribute(&x, CU_DEV_CLOCK_KHZ, dev), o->clock_mhz = (unsigned)(x / 1000);
  o->pref_float_width = 1;
}

/* The CUDA device sel names: NULL, "" (or $CONVGEN_DEVICE naming none of
 * them): the first; "N": ordinal N; else a part of its name, any case
 * ("nvidia" and "cuda" match every one). */
static bool pick(const CudaApi *cu, const char *sel, RtDeviceInfo *info, CuDevice *out, Diag *d) {
  int n = 0;
  if (!check(cu, cu->cuDeviceGetCount(&n), d, "cuDeviceGetCount")) return false;
  if (n == 0) return diag_device(d, "the CUDA target: no CUDA device");
  if (!sel) sel = getenv("CONVGEN_DEVICE");
  StrBuf names;
  sb_init(&names);
  for (int i = 0; i < n; i++) {
    CuDevice dev;
    if (!check(cu, cu->cuDeviceGet(&dev, i), d, "cuDeviceGet")) return sb_free(&names), false;
    RtDeviceInfo in;
    fill_info(cu, dev, i, &in);
    char idx[16];
    snprintf(idx, sizeof idx, "%d", i);
    bool match = !sel || !*sel || strcmp(sel, idx) == 0 || cg_contains_nocase(in.name, sel) ||
                 cg_contains_nocase("nvidia cuda", sel);
    if (match) {
      sb_free(&names);
      *info = in;
      if (out) *out = dev;
      return true;
    }
    sb_printf(&names, "%s%d: %s", i ? "; " : "", i, in.name);
  }
  diag_error(d, "no CUDA device matches '%s' (the CUDA devices: %s)", sel, sb_str(&names));
  sb_free(&names);
  return false;
}

int rt_cuda_list_devices(RtDeviceInfo *out, int max, Diag *d) {
  const CudaApi *cu = driver(d);
  int n = 0;
  if (!cu || !check(cu, cu->cuDeviceGetCount(&n), d, "cuDeviceGetCount")) return 0;
  for (int i = 0; i < n && out && i < max; i++) {
    CuDevice dev;
    if (!check(cu, cu->cuDeviceGet(&dev, i), d, "cuDeviceGet")) return 0;
    fill_info(cu, dev, i, &out[i]);
  }
  return n;
}

bool rt_cuda_select_info(const char *sel, RtDeviceInfo *out, Diag *d) {
  const CudaApi *cu = driver(d);
  return cu && pick(cu, sel, out, NULL, d);
}

static const RtBackend CUDA_BACKEND;

RtDevice *rt_cuda_open(const char *sel, Diag *d) {
  const CudaApi *cu = driver(d);
  if (!cu) return NULL;
  char why[512] = "";
  const NvrtcApi *nv = nvrtc_api(why, sizeof why);
  if (!nv) return diag_device(d, "the CUDA target: %s", why), NULL;
  RtDevice *dev = calloc(1, sizeof *dev);
  CuDev *c = calloc(1, sizeof *c);
  if (!dev || !c) cg_die("out of memory");
  c->cu = cu, c->nv = nv;
  dev->be = &CUDA_BACKEND, dev->impl = c;
  if (!pick(cu, sel, &dev->info, &c->ordinal, d) ||
      !check(cu, cu->cuDevicePrimaryCtxRetain(&c->ctx, c->ordinal), d, "cuDevicePrimaryCtxRetain") ||
      !check(cu, cu->cuCtxSetCurrent(c->ctx), d, "cuCtxSetCurrent") ||
      !check(cu, cu->cuStreamCreate(&c->stream, 0), d, "cuStreamCreate")) {
    if (c->ctx) cu->cuDevicePrimaryCtxRelease_v2(c->ordinal);
    free(c), free(dev);
    return NULL;
  }
  cu->cuDeviceGetAttribute(&c->cc_major, CU_DEV_CC_MAJOR, c->ordinal);
  cu->cuDeviceGetAttribute(&c->cc_minor, CU_DEV_CC_MINOR, c->ordinal);
  return dev;
}

static void cuda_close(RtDevice *dev) {
  CuDev *c = dev->impl;
  c->cu->cuStreamSynchronize(c->stream);
  c->cu->cuStreamDestroy_v2(c->stream);
  c->cu->cuDevicePrimaryCtxRelease_v2(c->ordinal);
  free(c);
  free(dev);
}

/* ---- programs ---- */

/* source compiled by NVRTC for sm_<major><minor>: the cubin (heap; *bytes
 * its size), or NULL with the log in a DIAG_DEVICE. */
static char *nvrtc_compile(const NvrtcApi *nv, const char *source, const char *options, int major, int minor,
                           size_t *bytes, Diag *d) {
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
  const char *opts[8];
  int nopts = 0;
  opts[nopts++] = arch;
  opts[nopts++] = "-DCONVGEN_CUDA=1";
  if (options && *options && !strstr(options, "-cl-")) opts[nopts++] = options;   // OpenCL's options are not NVRTC's
  NvrtcProg prog = NULL;
  int r = nv->nvrtcCreateProgram(&prog, source, "convgen.cu", 0, NULL, NULL);
  if (r != 0) return diag_device(d, "nvrtcCreateProgram: %s", nv->nvrtcGetErrorString(r)), NULL;
  r = nv->nvrtcCompileProgram(prog, nopts, opts);
  if (r != 0) {
    size_t n = 0;
    nv->nvrtcGetProgramLogSize(prog, &n);
    char *log = calloc(n + 1, 1);
    if (!log) cg_die("out of memory");
    nv->nvrtcGetProgramLog(prog, log);
    char head[160] = "";
    const char *nl = strchr(source, '\n');
    snprintf(head, sizeof head, "%.*s", (int)(nl ? nl - source : (long)strlen(source)), source);
    diag_device(d, "NVRTC could not compile %s (%s, %s): %s\n%s", head, arch, nv->nvrtcGetErrorString(r), "the log:",
                log);
    free(log);
    nv->nvrtcDestroyProgram(&prog);
    return NULL;
  }
  size_t n = 0;
  nv->nvrtcGetCUBINSize(prog, &n);
  char *cubin = malloc(n ? n : 1);
  if (!cubin) cg_die("out of memory");
  nv->nvrtcGetCUBIN(prog, cubin);
  nv->nvrtcDestroyProgram(&prog);
  *bytes = n;
  return cubin;
}

bool rt_cuda_compile(const char *source, int major, int minor, size_t *bytes, Diag *d) {
  char why[512] = "";
  const NvrtcApi *nv = nvrtc_api(why, sizeof why);
  if (!nv) return diag_device(d, "the CUDA target: %s", why);
  char *cubin = nvrtc_compile(nv, source, NULL, major, minor, bytes, d);
  bool ok = cubin != NULL;
  free(cubin);
  return ok;
}

static RtProgram *cuda_build(RtDevice *dev, const char *source, const char *options, Diag *d) {
  CuDev *c = dev->impl;
  if (!current(c, d)) return NULL;
  size_t n = 0;
  char *cubin = nvrtc_compile(c->nv, source, options, c->cc_major, c->cc_minor, &n, d);
  if (!cubin) return NULL;
  CuModule mod = NULL;
  CuResult cr = c->cu->cuModuleLoadData(&mod, cubin);
  free(cubin);
  if (!check(c->cu, cr, d, "cuModuleLoadData")) return NULL;
  RtProgram *p = calloc(1, sizeof *p);
  CuProg *cp = calloc(1, sizeof *cp);
  if (!p || !cp) cg_die("out of memory");
  cp->mod = mod;
  p->dev = dev, p->be = &CUDA_BACKEND, p->impl = cp;
  return p;
}

static void cuda_program_free(RtProgram *p) {
  CuProg *cp = p->impl;
  const CudaApi *cu = rt_cuda_api(NULL, 0);
  Diag ignored = {0};
  if (cu && current(p->dev->impl, &ignored)) cu->cuModuleUnload(cp->mod);
  for (int i = 0; i < cp->nfns; i++) free(cp->fns[i].name);
  free(cp->fns);
  free(cp);
  free(p);
}

static CuFn *get_fn(CuDev *c, CuProg *cp, const char *name, Diag *d) {
  for (int i = 0; i < cp->nfns; i++)
    if (strcmp(cp->fns[i].name, name) == 0) return &cp->fns[i];
  CuFunction fn = NULL;
  CuResult r = c->cu->cuModuleGetFunction(&fn, cp->mod, name);
  if (r != 0)
    return diag_error(d, "no kernel named '%s' in the program (cuModuleGetFunction: %s)", name, cu_error_name(c->cu, r)),
           NULL;
  if (cp->nfns == cp->cap) {
    cp->cap = cp->cap ? 2 * cp->cap : 4;
    cp->fns = realloc(cp->fns, (size_t)cp->cap * sizeof *cp->fns);
    if (!cp->fns) cg_die("out of memory");
  }
  CuFn *f = &cp->fns[cp->nfns++];
  *f = (CuFn){.name = strdup(name), .fn = fn};
  if (!f->name) cg_die("out of memory");
  c->cu->cuFuncGetAttribute(&f->max_threads, CU_FUNC_MAX_THREADS, fn);
  return f;
}

static size_t cuda_kernel_wg_max(RtDevice *dev, RtProgram *p, const char *name, Diag *d) {
  CuFn *f = get_fn(dev->impl, p->impl, name, d);
  return f ? (size_t)f->max_threads : 0;
}

/* ---- buffers ---- */

static RtBuffer *cuda_alloc(RtDevice *dev, size_t bytes, Diag *d) {
  CuDev *c = dev->impl;
  if (!current(c, d)) return NULL;
  CuPtr ptr = 0;
  if (!check(c->cu, c->cu->cuMemAlloc_v2(&ptr, bytes), d, "cuMemAlloc")) return NULL;
  RtBuffer *b = calloc(1, sizeof *b);
  if (!b) cg_die("out of memory");
  b->be = &CUDA_BACKEND, b->addr = ptr, b->size = bytes;
  return b;
}

static void cuda_buffer_free(RtBuffer *b) {
  const CudaApi *cu = rt_cuda_api(NULL, 0);
  if (cu) cu->cuMemFree_v2((CuPtr)b->addr);
  free(b);
}

static bool cuda_write(RtDevice *dev, RtBuffer *b, const void *src, size_t bytes, Diag *d) {
  CuDev *c = dev->impl;
  if (!current(c, d)) return false;
  return check(c->cu, c->cu->cuStreamSynchronize(c->stream), d, "cuStreamSynchronize (before a write)") &&
         check(c->cu, c->cu->cuMemcpyHtoD_v2((CuPtr)b->addr, src, bytes), d, "cuMemcpyHtoD");
}

static bool cuda_read(RtDevice *dev, RtBuffer *b, void *dst, size_t bytes, Diag *d) {
  CuDev *c = dev->impl;
  if (!current(c, d)) return false;
  return check(c->cu, c->cu->cuStreamSynchronize(c->stream), d, "cuStreamSynchronize (before a read)") &&
         check(c->cu, c->cu->cuMemcpyDtoH_v2(dst, (CuPtr)b->addr, bytes), d, "cuMemcpyDtoH");
}

/* et's quiet NaN (fp32's 0x7fc00000, fp16's 0x7e00) in every whole value; a
 * trailing partial value keeps what it had (rt_poison is given whole
 * values): cuMemsetD32 or cuMemsetD16 by the element's size. */
static bool cuda_fill_nan(RtDevice *dev, RtBuffer *b, const ElemType *et, size_t bytes, Diag *d) {
  CuDev *c = dev->impl;
  cg_assert(et->bytes == 4 || et->bytes == 2);
  if (!current(c, d)) return false;
  if (!check(c->cu, c->cu->cuStreamSynchronize(c->stream), d, "cuStreamSynchronize (before a fill)")) return false;
  if (et->bytes == 2)
    return check(c->cu, c->cu->cuMemsetD16_v2((CuPtr)b->addr, (unsigned short)et->nan_bits, bytes / 2), d,
                 "cuMemsetD16 (NaN fill)");
  return check(c->cu, c->cu->cuMemsetD32_v2((CuPtr)b->addr, et->nan_bits, bytes / 4), d, "cuMemsetD32 (NaN fill)");
}

/* ---- spans ---- */

static CuSpan *span_of(RtSpan *s) {
  if (!s->impl) {
    CuSpan *cs = calloc(1, sizeof *cs);
    if (!cs) cg_die("out of memory");
    pthread_mutex_init(&cs->mu, NULL);
    pthread_cond_init(&cs->cv, NULL);
    s->impl = cs;
  }
  return s->impl;
}

/* The hold: runs on the driver's thread for the stream, and keeps the stream
 * waiting until the span lets it go. */
static void hold_fn(void *data) {
  CuSpan *cs = data;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);   // pthread_cond_timedwait's clock
  until.tv_nsec += (long)CUDA_HOLD_WAIT_MS * 1000000L;
  until.tv_sec += until.tv_nsec / 1000000000L, until.tv_nsec %= 1000000000L;
  pthread_mutex_lock(&cs->mu);
  while (!cs->released)
    if (pthread_cond_timedwait(&cs->cv, &cs->mu, &until) == ETIMEDOUT) break;
  pthread_mutex_unlock(&cs->mu);
}

static void release(CuSpan *cs) {
  if (!cs || !cs->held) return;
  pthread_mutex_lock(&cs->mu);
  cs->released = true;
  pthread_cond_broadcast(&cs->cv);
  pthread_mutex_unlock(&cs->mu);
  cs->held = false;
}

/* The capture ended (its graph, if any, destroyed): the stream runs again. */
static void end_capture(CuDev *c, CuSpan *cs) {
  if (!cs->capturing) return;
  CuGraph g = NULL;
  c->cu->cuStreamEndCapture(c->stream, &g);
  if (g) c->cu->cuGraphDestroy(g);
  cs->capturing = false;
}

static bool cuda_replay(RtDevice *dev, RtSpan *s, Diag *d) {
  CuDev *c = dev->impl;
  if (!current(c, d)) return false;
  CuSpan *cs = span_of(s);
  cs->replayed = false;
  cs->dev = c;
  for (int i = 0; i < 2; i++) {
    CuEvent *e = i ? &cs->t1 : &cs->t0;
    if (!*e && !check(c->cu, c->cu->cuEventCreate(e, CU_EVENT_DEFAULT), d, "cuEventCreate")) return false;
  }
  if (!check(c->cu, c->cu->cuStreamBeginCapture_v2(c->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), d,
             "cuStreamBeginCapture (replaying a span)"))
    return false;
  cs->capturing = true;
  return true;
}

/* The captured launches as a graph, launched between t0 and t1: *ms their
 * span, every launch's own time unknown (0). */
static bool replay_finish(CuDev *c, RtSpan *s, CuSpan *cs, double *ms, Diag *d) {
  const CudaApi *cu = c->cu;
  CuGraph g = NULL;
  CuGraphExec exec = NULL;
  cs->capturing = false;
  // uploaded first: a new graph's first launch would upload it between the events
  bool ok = check(cu, cu->cuStreamEndCapture(c->stream, &g), d, "cuStreamEndCapture") &&
            check(cu, cu->cuGraphInstantiateWithFlags(&exec, g, 0), d, "cuGraphInstantiate") &&
            check(cu, cu->cuGraphUpload(exec, c->stream), d, "cuGraphUpload") &&
            check(cu, cu->cuStreamSynchronize(c->stream), d, "cuStreamSynchronize (the graph uploaded)") &&
            check(cu, cu->cuEventRecord(cs->t0, c->stream), d, "cuEventRecord") &&
            check(cu, cu->cuGraphLaunch(exec, c->stream), d, "cuGraphLaunch") &&
            check(cu, cu->cuEventRecord(cs->t1, c->stream), d, "cuEventRecord");
  CuResult r = cu->cuStreamSynchronize(c->stream);
  if (exec) cu->cuGraphExecDestroy(exec);
  if (g) cu->cuGraphDestroy(g);
  if (!ok) return false;
  if (r != 0)
    return diag_device(d, "a replayed span of %d launches (kernel '%s' first) failed on the device: %s (%d)",
                       rt_span_count(s), rt_span_count(s) ? s->name[0] : "-", cu_error_name(cu, r), r);
  float all = 0;
  if (!check(cu, cu->cuEventElapsedTime(&all, cs->t0, cs->t1), d, "cuEventElapsedTime")) return false;
  for (int i = 0; i < rt_span_count(s); i++) s->ms[i] = 0;
  cs->replayed = true;
  *ms = all;
  return true;
}

static bool cuda_hold(RtDevice *dev, RtSpan *s, Diag *d) {
  CuDev *c = dev->impl;
  if (!current(c, d)) return false;
  CuSpan *cs = span_of(s);
  cs->released = false;
  if (!check(c->cu, c->cu->cuLaunchHostFunc(c->stream, hold_fn, cs), d, "cuLaunchHostFunc (holding a span)"))
    return false;
  cs->held = true;
  return true;
}

bool rt_cuda_grid(const char *name, int work_dim, const size_t *global, const size_t *local, const RtDeviceInfo *info,
                  size_t grid[3], size_t block[3], Diag *d) {
  size_t threads = 1;
  for (int i = 0; i < 3; i++) grid[i] = block[i] = 1;
  for (int i = 0; i < work_dim; i++) {
    size_t g = global[i], l = local ? local[i] : 1;
    if (!local)   // the driver's choice in OpenCL: here the largest divisor of g within 256 threads in all
      for (size_t t = 256 / threads; t >= 1; t--)
        if (g % t == 0 && t <= info->max_wi_sizes[i]) {
          l = t;
          break;
        }
    if (g == 0 || l == 0 || g % l != 0)
      return diag_error(d, "kernel '%s': global size %zu is not a multiple of local size %zu in dimension %d", name, g,
                        l, i);
    if (l > info->max_wi_sizes[i])
      return diag_error(d, "kernel '%s': local size %zu exceeds the device's %zu in dimension %d", name, l,
                        info->max_wi_sizes[i], i);
    block[i] = l, grid[i] = g / l, threads *= l;
  }
  return true;
}

static bool cuda_enqueue(RtDevice *dev, RtProgram *p, const char *name, int nargs, const RtArg *args, int work_dim,
                         const size_t *global, const size_t *local, RtSpan *s, Diag *d) {
  CuDev *c = dev->impl;
  if (!current(c, d)) return false;
  cg_assert(p->dev == dev);
  CuFn *f = get_fn(c, p->impl, name, d);
  if (!f) return false;
  if (work_dim < 1 || work_dim > 3) return diag_error(d, "kernel '%s': work_dim %d (must be 1, 2 or 3)", name, work_dim);
  size_t block[3], grid[3];
  if (!rt_cuda_grid(name, work_dim, global, local, &dev->info, grid, block, d)) return false;
  size_t threads = block[0] * block[1] * block[2];
  if ((f->max_threads && threads > (size_t)f->max_threads) || threads > dev->info.max_wg_size)
    return diag_error(d, "kernel '%s': work-group size %zu exceeds this kernel's max %d (its registers)", name, threads,
                      f->max_threads);
  void *params[64];
  CuPtr ptrs[64];
  if (nargs > 64) return diag_error(d, "kernel '%s': %d arguments, more than 64", name, nargs);
  for (int i = 0; i < nargs; i++) {
    if (args[i].buf) {
      cg_assert(args[i].buf->be == &CUDA_BACKEND);
      ptrs[i] = (CuPtr)args[i].buf->addr;
      params[i] = &ptrs[i];
    } else if (args[i].value) {
      params[i] = (void *)args[i].value;
    } else {
      return diag_error(d, "kernel '%s': argument %d is a local array; the CUDA target has none", name, i);
    }
  }
  CuSpan *cs = span_of(s);
  int k = rt_span_count(s);
  if (cs->capturing) {   // recorded into the graph, no events
    if (!check(c->cu,
               c->cu->cuLaunchKernel(f->fn, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2],
                                     (unsigned)block[0], (unsigned)block[1], (unsigned)block[2], 0, c->stream, params,
                                     NULL),
               d, name))
      return false;
    rt_span_push(s, NULL, f->name);
    return true;
  }
  if (k >= CUDA_HOLD_MAX) release(cs);
  if (k == cs->cap) {
    cs->cap = cs->cap ? 2 * cs->cap : 16;
    cs->start = realloc(cs->start, (size_t)cs->cap * sizeof *cs->start);
    cs->end = realloc(cs->end, (size_t)cs->cap * sizeof *cs->end);
    if (!cs->start || !cs->end) cg_die("out of memory");
    for (int i = k; i < cs->cap; i++) cs->start[i] = cs->end[i] = NULL;
  }
  for (int i = 0; i < 2; i++) {
    CuEvent *e = i ? &cs->end[k] : &cs->start[k];
    if (!*e && !check(c->cu, c->cu->cuEventCreate(e, CU_EVENT_DEFAULT), d, "cuEventCreate")) return false;
  }
  if (!check(c->cu, c->cu->cuEventRecord(cs->start[k], c->stream), d, "cuEventRecord") ||
      !check(c->cu,
             c->cu->cuLaunchKernel(f->fn, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2], (unsigned)block[0],
                                   (unsigned)block[1], (unsigned)block[2], 0, c->stream, params, NULL),
             d, name) ||
      !check(c->cu, c->cu->cuEventRecord(cs->end[k], c->stream), d, "cuEventRecord"))
    return false;
  cs->n = k + 1;
  rt_span_push(s, NULL, f->name);
  return true;
}

static bool cuda_finish(RtDevice *dev, RtSpan *s, double *ms, Diag *d) {
  CuDev *c = dev->impl;
  CuSpan *cs = s->impl;
  if (!current(c, d)) {   // the stream runs again before its buffers can go
    if (cs && cs->capturing) end_capture(c, cs);
    return false;
  }
  if (cs && cs->capturing) return replay_finish(c, s, cs, ms, d);
  release(cs);
  CuResult r = c->cu->cuStreamSynchronize(c->stream);
  if (r != 0)
    return diag_device(d, "a span of %d launches (kernel '%s' first) failed on the device: %s (%d)", rt_span_count(s),
                       rt_span_count(s) ? s->name[0] : "-", cu_error_name(c->cu, r), r);
  int n = rt_span_count(s);
  for (int i = 0; i < n; i++) {
    float t = 0;
    if (!check(c->cu, c->cu->cuEventElapsedTime(&t, cs->start[i], cs->end[i]), d, "cuEventElapsedTime")) return false;
    s->ms[i] = t;
  }
  float all = 0;
  if (n && !check(c->cu, c->cu->cuEventElapsedTime(&all, cs->start[0], cs->end[n - 1]), d, "cuEventElapsedTime"))
    return false;
  *ms = all;
  return true;
}

static int cuda_done(RtDevice *dev, const RtSpan *s) {
  CuDev *c = dev->impl;
  const CuSpan *cs = s->impl;
  int done = 0;
  if (s->whole) return cs && cs->replayed ? rt_span_count(s) : 0;
  for (int i = 0; cs && i < rt_span_count(s); i++) done += c->cu->cuEventQuery(cs->end[i]) == 0;
  return done;
}

static void cuda_span_clear(RtSpan *s) {
  CuSpan *cs = s->impl;
  if (!cs) return;
  release(cs);
  if (cs->capturing) end_capture(cs->dev, cs);   // never finished: the stream runs again
  cs->n = 0;
}

static void cuda_span_free(RtSpan *s) {
  CuSpan *cs = s->impl;
  if (!cs) return;
  release(cs);
  const CudaApi *cu = rt_cuda_api(NULL, 0);
  for (int i = 0; cu && i < cs->cap; i++) {
    if (cs->start[i]) cu->cuEventDestroy_v2(cs->start[i]);
    if (cs->end[i]) cu->cuEventDestroy_v2(cs->end[i]);
  }
  if (cu && cs->t0) cu->cuEventDestroy_v2(cs->t0);
  if (cu && cs->t1) cu->cuEventDestroy_v2(cs->t1);
  free(cs->start), free(cs->end);
  pthread_cond_destroy(&cs->cv);
  pthread_mutex_destroy(&cs->mu);
  free(cs);
  s->impl = NULL;
}

static const RtBackend CUDA_BACKEND = {
    .target = "cuda",
    .close = cuda_close,
    .build = cuda_build,
    .program_free = cuda_program_free,
    .alloc = cuda_alloc,
    .buffer_free = cuda_buffer_free,
    .write = cuda_write,
    .read = cuda_read,
    .fill_nan = cuda_fill_nan,
    .kernel_wg_max = cuda_kernel_wg_max,
    .enqueue = cuda_enqueue,
    .hold = cuda_hold,
    .replay = cuda_replay,
    .finish = cuda_finish,
    .done = cuda_done,
    .span_clear = cuda_span_clear,
    .span_free = cuda_span_free,
};
