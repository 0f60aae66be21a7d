/* cudnn.c: the cuDNN baseline of `convgen bench` (DESIGN.md section 9):
 * cuDNN's forward convolution in fp32 with TF32 off, at the layer's batch.
 *
 * Nothing of CUDA or cuDNN is needed to build convgen: the CUDA driver API
 * (libcuda.so.1) and cuDNN ($CONVGEN_CUDNN, else libcudnn.so.9, else
 * libcudnn.so) are loaded at run time (the driver by bench/cuda.c, shared
 * with bench/ptxrun), and the few types, enum values and signatures used
 * are declared: the driver's in bench/cuda.h, cuDNN's below, from
 * cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h (cuDNN 9). The legacy descriptor
 * API is used; cuDNN 9's libcudnn.so.9 still exports it.
 *
 * The method: cudnnFindConvolutionForwardAlgorithm runs the algorithms and the
 * fastest one that succeeds without tensor-core math is taken; bias and ReLU
 * are fused into cudnnConvolutionBiasActivationForward where cuDNN supports
 * it, else added by cudnnAddTensor and cudnnActivationForward. The protocol
 * is the one every method follows (bench.h): poisoned output, one checked
 * run, then warm-up and timed runs, each between two CUDA events.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/cuda.h"
#include "bench/dl.h"

#define NAN_BITS 0x7fc00000u             // the float quiet NaN the output is poisoned with

/* ---- cuDNN 9's legacy API, as cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h declare it ---- */

typedef int DnnStatus;                             // cudnnStatus_t: 0 is CUDNN_STATUS_SUCCESS
typedef struct DnnContextSt *DnnHandle;            // cudnnHandle_t
typedef struct DnnTensorSt *DnnTensor;             // cudnnTensorDescriptor_t
typedef struct DnnFilterSt *DnnFilter;             // cudnnFilterDescriptor_t
typedef struct DnnConvSt *DnnConv;                 // cudnnConvolutionDescriptor_t
typedef struct DnnActivationSt *DnnActivation;     // cudnnActivationDescriptor_t

enum {
  DNN_STATUS_NOT_SUPPORTED = 3000,     // the category: 3000-3999 are all "not supported"
  DNN_DATA_FLOAT = 0,                  // cudnnDataType_t
  DNN_TENSOR_NCHW = 0,                 // cudnnTensorFormat_t (for filters: KCRS)
  DNN_CROSS_CORRELATION = 1,           // cudnnConvolutionMode_t: no kernel flip
  DNN_DEFAULT_MATH = 0,                // cudnnMathType_t
  DNN_FMA_MATH = 3,                    //   fp32 FMA only: no tensor cores, no TF32
  DNN_ACTIVATION_RELU = 1,             // cudnnActivationMode_t
  DNN_PROPAGATE_NAN = 1,               // cudnnNanPropagation_t: a NaN stays NaN through ReLU
  DNN_ALGO_IMPLICIT_PRECOMP_GEMM = 1,  // cudnnConvolutionFwdAlgo_t
  DNN_ALGO_COUNT = 8,
};

static const char *const algo_names[DNN_ALGO_COUNT] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
    "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED",
};

/* cudnnConvolutionFwdAlgoPerf_t; the enum fields are int-sized. */
typedef struct DnnAlgoPerf {
  int algo;            // cudnnConvolutionFwdAlgo_t
  DnnStatus status;    // of the trial run
  float time;          // ms
  size_t memory;       // workspace bytes
  int determinism;     // cudnnDeterminism_t
  int math_type;       // cudnnMathType_t
  int reserved[3];
} DnnAlgoPerf;

#define DNN_FUNCS(X)                                                                      \
  X(cudnnCreate, (DnnHandle *h))                                                          \
  X(cudnnDestroy, (DnnHandle h))                                                          \
  X(cudnnCreateTensorDescriptor, (DnnTensor *t))                                          \
  X(cudnnSetTensor4dDescriptor, (DnnTensor t, int format, int type, int n, int c, int h, int w)) \
  X(cudnnDestroyTensorDescriptor, (DnnTensor t))                                          \
  X(cudnnCreateFilterDescriptor, (DnnFilter *f))                                          \
  X(cudnnSetFilter4dDescriptor, (DnnFilter f, int type, int format, int k, int c, int h, int w)) \
  X(cudnnDestroyFilterDescriptor, (DnnFilter f))                                          \
  X(cudnnCreateConvolutionDescriptor, (DnnConv *cd))                                      \
  X(cudnnSetConvolution2dDescriptor, (DnnConv cd, int pad_h, int pad_w, int stride_h,     \
                                      int stride_w, int dil_h, int dil_w, int mode, int type)) \
  X(cudnnSetConvolutionMathType, (DnnConv cd, int math))                                  \
  X(cudnnDestroyConvolutionDescriptor, (DnnConv cd))                                      \
  X(cudnnGetConvolution2dForwardOutputDim, (DnnConv cd, DnnTensor x, DnnFilter w,         \
                                            int *n, int *c, int *h, int *wd))             \
  X(cudnnFindConvolutionForwardAlgorithm, (DnnHandle h, DnnTensor x, DnnFilter w,         \
                                           DnnConv cd, DnnTensor y, int requested,        \
                                           int *returned, DnnAlgoPerf *perf))             \
  X(cudnnGetConvolutionForwardWorkspaceSize, (DnnHandle h, DnnTensor x, DnnFilter w,      \
                                              DnnConv cd, DnnTensor y, int algo,          \
                                              size_t *bytes))                             \
  X(cudnnConvolutionForward, (DnnHandle h, const void *alpha, DnnTensor xd, const void *x, \
                              DnnFilter wd, const void *w, DnnConv cd, int algo,          \
                              void *ws, size_t ws_bytes, const void *beta, DnnTensor yd,  \
                              void *y))                                                   \
  X(cudnnConvolutionBiasActivationForward,                                                \
    (DnnHandle h, const void *alpha1, DnnTensor xd, const void *x, DnnFilter wd,          \
     const void *w, DnnConv cd, int algo, void *ws, size_t ws_bytes, const void *alpha2,  \
     DnnTensor zd, const void *z, DnnTensor bd, const void *b, DnnActivation ad,          \
     DnnTensor yd, void *y))                                                              \
  X(cudnnAddTensor, (DnnHandle h, const void *alpha, DnnTensor ad, const void *a,         \
                     const void *beta, DnnTensor cd, void *c))                            \
  X(cudnnCreateActivationDescriptor, (DnnActivation *ad))                                 \
  X(cudnnSetActivationDescriptor, (DnnActivation ad, int mode, int nan, double coef))     \
  X(cudnnDestroyActivationDescriptor, (DnnActivation ad))                                 \
  X(cudnnActivationForward, (DnnHandle h, DnnActivation ad, const void *alpha,            \
                             DnnTensor xd, const void *x, const void *beta, DnnTensor yd, \
                             void *y))

typedef struct DnnApi {
#define FIELD(name, params) DnnStatus (*name) params;
  DNN_FUNCS(FIELD)
#undef FIELD
  const char *(*cudnnGetErrorString)(DnnStatus s);
  size_t (*cudnnGetVersion)(void);
} DnnApi;

/* ---- loading ---- */

/* The libraries stay loaded for the life of the process once bound: the
 * driver and cuDNN keep threads and state that do not survive an unload. */
static const CudaApi *cu;   // bench_cuda's
static DnnApi dnn;
static bool dnn_bound;

static const BenchSym dnn_syms[] = {
#define SYM(name, params) {#name, offsetof(DnnApi, name)},
    DNN_FUNCS(SYM)
#undef SYM
    {"cudnnGetErrorString", offsetof(DnnApi, cudnnGetErrorString)},
    {"cudnnGetVersion", offsetof(DnnApi, cudnnGetVersion)},
};

static bool load_cudnn(BenchResult *r) {
  if (dnn_bound) return true;
  const char *env = getenv("CONVGEN_CUDNN");
  const char *names[2] = {"libcudnn.so.9", "libcudnn.so"};
  int nnames = 2;
  if (env && *env) {
    names[0] = env;
    nnames = 1;
  }
  void *lib = NULL;
  const char *err = "", *name = names[0];
  for (int i = 0; i < nnames && !lib; i++) {
    name = names[i];
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) err = dlerror();
  }
  if (!lib) {
    snprintf(r->why, sizeof r->why,
             "cannot load cuDNN (%s%s): %s; set CONVGEN_CUDNN to the path of libcudnn.so.9, "
             "e.g. the one in Python's nvidia-cudnn package (site-packages/nvidia/cudnn/lib/libcudnn.so.9)",
             names[0], nnames == 2 ? ", libcudnn.so" : " from CONVGEN_CUDNN", err ? err : "");
    return false;
  }
  if (!bench_dl_bind(lib, name, &dnn, dnn_syms, sizeof dnn_syms / sizeof *dnn_syms, r->why, sizeof r->why))
    return false;
  dnn_bound = true;
  return true;
}

static bool load_cuda(BenchResult *r) {
  if (!cu) cu = bench_cuda(r->why, sizeof r->why);
  return cu != NULL;
}

/* ---- errors: the first one wins ---- */

static bool cu_ok(BenchResult *r, const char *call, CuResult e) {
  if (e == 0) return true;
  const char *name = NULL;
  if (cu->cuGetErrorName(e, &name) != 0 || !name) name = "unknown CUDA error";
  if (!r->why[0]) snprintf(r->why, sizeof r->why, "%s failed: %s (%d)", call, name, e);
  return false;
}

static bool dnn_ok(BenchResult *r, const char *call, DnnStatus s) {
  if (s == 0) return true;
  const char *name = dnn.cudnnGetErrorString(s);
  if (!r->why[0]) snprintf(r->why, sizeof r->why, "%s failed: %s (%d)", call, name ? name : "?", s);
  return false;
}

/* A call with its error in r->why, named by the symbol's own name. */
#define CU(r, fn, ...) cu_ok((r), #fn, cu->fn(__VA_ARGS__))
#define DNN(r, fn, ...) dnn_ok((r), #fn, dnn.fn(__VA_ARGS__))

static bool not_supported(DnnStatus s) {
  return s / 1000 * 1000 == DNN_STATUS_NOT_SUPPORTED;
}

/* ---- one layer on one device ---- */

typedef struct Conv {
  const Layer *l;
  CuDevice dev;
  bool retained;           // the primary context of dev is retained and current
  DnnHandle h;
  DnnTensor xd, yd, bd;    // input, output, bias as 1 x k x 1 x 1
  DnnFilter wd;
  DnnConv cd;
  DnnActivation ad;        // ReLU, when the layer has one
  CuPtr x, w, b, y, ws;    // device memory; 0 when not allocated
  size_t ws_bytes;         // of ws
  int algo;                // the algorithm the method runs
  int found;               // the one cudnnFindConvolutionForwardAlgorithm chose
  bool fused;              // bias and ReLU in cudnnConvolutionBiasActivationForward
  const char *unfused_why; // the fused call's refusal, when it refused
  CuEvent start, stop;
} Conv;

static void *ptr(CuPtr p) {
  return (void *)(uintptr_t)p;
}

static bool contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
    if (i == n) return true;
  }
  return n == 0;
}

static bool equal_nocase(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
  return *a == *b;
}

static bool is_nvidia(const RtDeviceInfo *info) {
  return info && (contains_nocase(info->vendor, "nvidia") || contains_nocase(info->platform, "nvidia") ||
                  contains_nocase(info->platform_vendor, "nvidia"));
}

/* The CUDA device named as OpenCL names the device (NVIDIA's OpenCL and CUDA
 * give the same name), else device 0; note says which when it is not plain. */
static bool pick_device(Conv *c, const RtDeviceInfo *info, char *note, size_t nnote, BenchResult *r) {
  int n = 0;
  if (!CU(r, cuDeviceGetCount, &n)) return false;
  if (n < 1) {
    snprintf(r->why, sizeof r->why, "the CUDA driver sees no device");
    return false;
  }
  int same = 0;
  char name[128];
  for (int i = 0; i < n; i++) {
    CuDevice d;
    if (!CU(r, cuDeviceGet, &d, i) || !CU(r, cuDeviceGetName, name, (int)sizeof name, d)) return false;
    if (equal_nocase(name, info->name) && same++ == 0) c->dev = d;
  }
  note[0] = 0;
  if (same == 0) {
    if (!CU(r, cuDeviceGet, &c->dev, 0) || !CU(r, cuDeviceGetName, name, (int)sizeof name, c->dev))
      return false;
    snprintf(note, nnote, "CUDA device 0 (%s): none is named '%s'", name, info->name);
  } else if (same > 1) {
    snprintf(note, nnote, "the first of %d CUDA devices named '%s'", same, info->name);
  }
  return true;
}

static bool open_context(Conv *c, BenchResult *r) {
  CuContext ctx = NULL;
  if (!CU(r, cuDevicePrimaryCtxRetain, &ctx, c->dev)) return false;
  c->retained = true;
  return CU(r, cuCtxSetCurrent, ctx) && CU(r, cuEventCreate, &c->start, CU_EVENT_DEFAULT) &&
         CU(r, cuEventCreate, &c->stop, CU_EVENT_DEFAULT);
}

static bool make_descriptors(Conv *c, BenchResult *r) {
  const Layer *l = c->l;
  if (!DNN(r, cudnnCreate, &c->h) || !DNN(r, cudnnCreateTensorDescriptor, &c->xd) ||
      !DNN(r, cudnnCreateTensorDescriptor, &c->yd) || !DNN(r, cudnnCreateFilterDescriptor, &c->wd) ||
      !DNN(r, cudnnCreateConvolutionDescriptor, &c->cd))
    return false;
  if (!DNN(r, cudnnSetTensor4dDescriptor, c->xd, DNN_TENSOR_NCHW, DNN_DATA_FLOAT, l->n, l->c, l->h, l->w) ||
      !DNN(r, cudnnSetFilter4dDescriptor, c->wd, DNN_DATA_FLOAT, DNN_TENSOR_NCHW, l->k, l->c, l->kh, l->kw) ||
      !DNN(r, cudnnSetConvolution2dDescriptor, c->cd, l->pad_h, l->pad_w, l->stride_h, l->stride_w, 1, 1,
           DNN_CROSS_CORRELATION, DNN_DATA_FLOAT) ||
      !DNN(r, cudnnSetConvolutionMathType, c->cd, DNN_FMA_MATH))
    return false;
  int n, k, h, w;
  if (!DNN(r, cudnnGetConvolution2dForwardOutputDim, c->cd, c->xd, c->wd, &n, &k, &h, &w)) return false;
  if (n != l->n || k != l->k || h != l->out_h || w != l->out_w) {
    snprintf(r->why, sizeof r->why, "cuDNN's output is %dx%dx%dx%d, the layer's %dx%dx%dx%d", n, k, h, w,
             l->n, l->k, l->out_h, l->out_w);
    return false;
  }
  if (!DNN(r, cudnnSetTensor4dDescriptor, c->yd, DNN_TENSOR_NCHW, DNN_DATA_FLOAT, n, k, h, w)) return false;
  if (l->bias && (!DNN(r, cudnnCreateTensorDescriptor, &c->bd) ||
                  !DNN(r, cudnnSetTensor4dDescriptor, c->bd, DNN_TENSOR_NCHW, DNN_DATA_FLOAT, 1, l->k, 1, 1)))
    return false;
  if (l->relu && (!DNN(r, cudnnCreateActivationDescriptor, &c->ad) ||
                  !DNN(r, cudnnSetActivationDescriptor, c->ad, DNN_ACTIVATION_RELU, DNN_PROPAGATE_NAN, 0.0)))
    return false;
  return true;
}

static bool upload(Conv *c, const BenchData *d, BenchResult *r) {
  size_t fx = sizeof(float);
  if (!CU(r, cuMemAlloc_v2, &c->x, (size_t)d->nx * fx) || !CU(r, cuMemAlloc_v2, &c->w, (size_t)d->nw * fx) ||
      !CU(r, cuMemAlloc_v2, &c->y, (size_t)d->ny * fx))
    return false;
  if (d->nb > 0 && !CU(r, cuMemAlloc_v2, &c->b, (size_t)d->nb * fx)) return false;
  return CU(r, cuMemcpyHtoD_v2, c->x, d->x, (size_t)d->nx * fx) &&
         CU(r, cuMemcpyHtoD_v2, c->w, d->w, (size_t)d->nw * fx) &&
         (d->nb == 0 || CU(r, cuMemcpyHtoD_v2, c->b, d->b, (size_t)d->nb * fx));
}

/* A workspace of exactly what algo asks for. */
static bool set_workspace(Conv *c, int algo, BenchResult *r) {
  size_t bytes = 0;
  if (!DNN(r, cudnnGetConvolutionForwardWorkspaceSize, c->h, c->xd, c->wd, c->cd, c->yd, algo, &bytes))
    return false;
  if (bytes == c->ws_bytes) return true;
  if (c->ws) cu->cuMemFree_v2(c->ws);
  c->ws = 0;
  c->ws_bytes = 0;
  if (bytes > 0 && !CU(r, cuMemAlloc_v2, &c->ws, bytes)) return false;
  c->ws_bytes = bytes;
  return true;
}

/* The fastest algorithm that ran and did not use tensor-core math. */
static bool find_algo(Conv *c, BenchResult *r) {
  DnnAlgoPerf perf[DNN_ALGO_COUNT];
  int got = 0;
  if (!DNN(r, cudnnFindConvolutionForwardAlgorithm, c->h, c->xd, c->wd, c->cd, c->yd, DNN_ALGO_COUNT, &got,
           perf))
    return false;
  c->found = -1;
  for (int i = 0; i < got && c->found < 0; i++)   // sorted fastest first
    if (perf[i].status == 0 && (perf[i].math_type == DNN_FMA_MATH || perf[i].math_type == DNN_DEFAULT_MATH) &&
        perf[i].algo >= 0 && perf[i].algo < DNN_ALGO_COUNT)
      c->found = perf[i].algo;
  if (c->found < 0) {
    snprintf(r->why, sizeof r->why,
             "cudnnFindConvolutionForwardAlgorithm found no algorithm that runs in fp32 FMA math (%d tried)", got);
    return false;
  }
  c->algo = c->found;
  return set_workspace(c, c->algo, r);
}

/* One run of the method; *call names the call that failed. */
static DnnStatus forward(Conv *c, const char **call) {
  const float one = 1.0f, zero = 0.0f;
  void *ws = ptr(c->ws);
  if (c->fused) {
    // alpha2 = 0: z (here y itself) does not count.
    *call = "cudnnConvolutionBiasActivationForward";
    return dnn.cudnnConvolutionBiasActivationForward(c->h, &one, c->xd, ptr(c->x), c->wd, ptr(c->w), c->cd,
                                                     c->algo, ws, c->ws_bytes, &zero, c->yd, ptr(c->y), c->bd,
                                                     ptr(c->b), c->ad, c->yd, ptr(c->y));
  }
  *call = "cudnnConvolutionForward";
  DnnStatus s = dnn.cudnnConvolutionForward(c->h, &one, c->xd, ptr(c->x), c->wd, ptr(c->w), c->cd, c->algo, ws,
                                            c->ws_bytes, &zero, c->yd, ptr(c->y));
  if (s == 0 && c->l->bias) {
    *call = "cudnnAddTensor";
    s = dnn.cudnnAddTensor(c->h, &one, c->bd, ptr(c->b), &one, c->yd, ptr(c->y));
  }
  if (s == 0 && c->l->relu) {
    *call = "cudnnActivationForward";
    s = dnn.cudnnActivationForward(c->h, c->ad, &one, c->yd, ptr(c->y), &zero, c->yd, ptr(c->y));
  }
  return s;
}

/* One run, its error (if any) in r->why. */
static bool run_once(Conv *c, BenchResult *r) {
  const char *call;
  DnnStatus s = forward(c, &call);
  return dnn_ok(r, call, s);
}

/* With bias and ReLU: the fused call with the found algorithm, else with
 * IMPLICIT_PRECOMP_GEMM (the one cuDNN documents it for), else three calls.
 * Only "not supported" moves on; another error is an error. */
static bool choose_path(Conv *c, BenchResult *r) {
  if (!c->l->bias || !c->l->relu) return true;
  const char *call;
  c->fused = true;
  DnnStatus s = forward(c, &call);
  if (not_supported(s) && c->algo != DNN_ALGO_IMPLICIT_PRECOMP_GEMM) {
    c->algo = DNN_ALGO_IMPLICIT_PRECOMP_GEMM;
    if (!set_workspace(c, c->algo, r)) return false;
    s = forward(c, &call);
  }
  if (!not_supported(s)) return dnn_ok(r, call, s);
  c->unfused_why = dnn.cudnnGetErrorString(s);
  c->fused = false;
  c->algo = c->found;
  return set_workspace(c, c->algo, r);
}

/* Poison, run once, check (bench.h's protocol): true when the result was
 * compared, whatever the outcome (r->correct); false on an error. */
static bool checked_run(Conv *c, const BenchData *d, const BenchOptions *o, BenchResult *r) {
  if (!CU(r, cuMemsetD32_v2, c->y, NAN_BITS, (size_t)d->ny) || !run_once(c, r) || !cu_ok(r, "cuCtxSynchronize", cu->cuCtxSynchronize()))
    return false;
  float *out = malloc((size_t)d->ny * sizeof *out);
  if (!out) {
    snprintf(r->why, sizeof r->why, "out of host memory for the %lld outputs", (long long)d->ny);
    return false;
  }
  bool ok = CU(r, cuMemcpyDtoH_v2, out, c->y, (size_t)d->ny * sizeof *out);
  if (ok) bench_check(r, out, d, o);
  free(out);
  return ok;
}

static bool timed_runs(Conv *c, const BenchOptions *o, BenchResult *r) {
  for (int i = 0; i < o->warmup; i++)
    if (!run_once(c, r)) return false;
  if (!cu_ok(r, "cuCtxSynchronize", cu->cuCtxSynchronize())) return false;
  int runs = o->runs < 10 ? 10 : o->runs;
  double *us = malloc((size_t)runs * sizeof *us);
  if (!us) {
    snprintf(r->why, sizeof r->why, "out of host memory");
    return false;
  }
  bool ok = true;
  for (int i = 0; i < runs && ok; i++) {
    float ms = 0;
    ok = CU(r, cuEventRecord, c->start, NULL) && run_once(c, r) && CU(r, cuEventRecord, c->stop, NULL) &&
         CU(r, cuEventSynchronize, c->stop) && CU(r, cuEventElapsedTime, &ms, c->start, c->stop);
    us[i] = 1000.0 * ms;
  }
  if (ok) r->us = rt_stats(us, runs);
  free(us);
  return ok;
}

/* Frees what was made, in reverse; errors here are ignored (the result is known). */
static void close_conv(Conv *c) {
  if (c->ad) dnn.cudnnDestroyActivationDescriptor(c->ad);
  if (c->bd) dnn.cudnnDestroyTensorDescriptor(c->bd);
  if (c->cd) dnn.cudnnDestroyConvolutionDescriptor(c->cd);
  if (c->wd) dnn.cudnnDestroyFilterDescriptor(c->wd);
  if (c->yd) dnn.cudnnDestroyTensorDescriptor(c->yd);
  if (c->xd) dnn.cudnnDestroyTensorDescriptor(c->xd);
  if (c->h) dnn.cudnnDestroy(c->h);
  CuPtr mem[] = {c->ws, c->y, c->b, c->w, c->x};
  for (size_t i = 0; i < sizeof mem / sizeof *mem; i++)
    if (mem[i]) cu->cuMemFree_v2(mem[i]);
  if (c->stop) cu->cuEventDestroy_v2(c->stop);
  if (c->start) cu->cuEventDestroy_v2(c->start);
  if (c->retained) {
    cu->cuCtxSetCurrent(NULL);
    cu->cuDevicePrimaryCtxRelease_v2(c->dev);
  }
}

static void format_bytes(char *buf, size_t n, size_t bytes) {
  if (bytes < 1024)
    snprintf(buf, n, "%zu B", bytes);
  else if (bytes < 1024 * 1024)
    snprintf(buf, n, "%.1f KiB", bytes / 1024.0);
  else
    snprintf(buf, n, "%.1f MiB", bytes / (1024.0 * 1024.0));
}

static void describe(const Conv *c, const char *device_note, BenchResult *r) {
  const Layer *l = c->l;
  char ws[32];
  format_bytes(ws, sizeof ws, c->ws_bytes);
  const char *path = !l->bias && !l->relu ? "no bias, no ReLU"
                     : c->fused           ? "fused bias+ReLU"
                     : l->bias && l->relu ? "bias+ReLU unfused"
                     : l->bias            ? "bias by cudnnAddTensor"
                                          : "ReLU by cudnnActivationForward";
  size_t v = dnn.cudnnGetVersion();
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "cuDNN %zu.%zu.%zu, %s, %s", v / 10000, v % 10000 / 100, v % 100, algo_names[c->algo], path);
  if (c->unfused_why) sb_printf(&sb, " (fused call: %s)", c->unfused_why);
  sb_printf(&sb, ", workspace %s", ws);
  if (device_note[0]) sb_printf(&sb, "; %s", device_note);
  snprintf(r->detail, sizeof r->detail, "%s", sb_str(&sb));   // cut to fit, if need be
  sb_free(&sb);
}

bool bench_cudnn(const RtDeviceInfo *info, const BenchData *d, const BenchOptions *o, BenchResult *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->method, sizeof r->method, "cudnn");
  r->error = NAN;
  if (!is_nvidia(info)) {
    snprintf(r->why, sizeof r->why, "not an NVIDIA device (cuDNN runs only on NVIDIA GPUs)");
    return false;
  }
  // A second guard besides FMA math: TF32 off in cuDNN and cuBLAS, unless the user says otherwise.
  setenv("NVIDIA_TF32_OVERRIDE", "0", 0);
  if (!load_cudnn(r) || !load_cuda(r) || !CU(r, cuInit, 0)) return false;

  Conv c = {.l = d->layer};
  char device_note[320];
  bool ready = pick_device(&c, info, device_note, sizeof device_note, r) && open_context(&c, r) &&
               make_descriptors(&c, r) && upload(&c, d, r) && find_algo(&c, r) && choose_path(&c, r);
  bool checked = ready && checked_run(&c, d, o, r);
  bool timed = checked && r->correct && timed_runs(&c, o, r);
  r->ran = checked && (!r->correct || timed);   // a wrong result ran, and has no time
  if (r->ran) {
    describe(&c, device_note, r);
    r->mem = (BenchMemory){.input = (uint64_t)d->nx * sizeof(float), .weights = (uint64_t)d->nw * sizeof(float),
                           .bias = (uint64_t)d->nb * sizeof(float), .output = (uint64_t)d->ny * sizeof(float),
                           .extra = c.ws_bytes};
    snprintf(r->mem.extra_what, sizeof r->mem.extra_what, "workspace");
  }
  close_conv(&c);
  return r->ran && r->correct;
}
