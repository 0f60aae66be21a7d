/* cudnn.c: the cuDNN baseline of `convgen bench` (docs/design.md section 9):
 * cuDNN's forward convolution in the layer's precision, at the layer's
 * batch: fp32 with TF32 off; tf32 as PyTorch's default calls it, fp32
 * tensors in default math (TF32 products); fp16 as PyTorch calls it, half tensors
 * summed in float on tensor cores; tf32 and fp16 in NCHW and in NHWC.
 *
 * Nothing of CUDA or cuDNN is needed to build convgen: the CUDA driver API
 * (libcuda.so.1) and cuDNN ($CONVGEN_CUDNN, else libcudnn.so.9, else
 * libcudnn.so) are loaded at run time (the driver by rt/cuda.c, shared
 * with bench/ptxrun), and the few types, enum values and signatures used
 * are declared: the driver's in rt/cuda.h, cuDNN's below, from
 * cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h (cuDNN 9). The legacy descriptor
 * API is used; cuDNN 9's libcudnn.so.9 still exports it.
 *
 * The method, as cuDNN's best users get it: every forward algorithm (fp32:
 * FMA math, no TF32; tf32: CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, which
 * allows TF32, each layout; fp16: CUDNN_DATA_HALF tensors, CUDNN_DATA_FLOAT
 * compute, tensor-op math, each layout) on two paths, bias and ReLU fused into
 * cudnnConvolutionBiasActivationForward (a residual, residual=1, as its z
 * input with alpha2 = 1), and the convolution followed by cudnnAddTensor
 * (the bias, then the residual) and cudnnActivationForward (what PyTorch
 * runs: three kernels, four with a residual); each path is checked (poisoned output, compared with the float64
 * convolution), then timed by the protocol of measure.h twice: called R times
 * back to back on a stream, and replayed from a CUDA graph of R calls (what
 * CUDA-graph users get: no host work between the kernels). The fastest
 * correct path and mode counts, and the row names it; every path's time goes
 * to standard error.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "rt/cuda.h"
#include "rt/dl.h"
#include "measure/measure.h"

/* ---- cuDNN 9's legacy API, as cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h declare it ---- */

typedef int DnnStatus;                             // cudnnStatus_t: 0 is CUDNN_STATUS_SUCCESS
typedef struct DnnContextSt *DnnHandle;            // cudnnHandle_t
typedef struct DnnTensorSt *DnnTensor;             // cudnnTensorDescriptor_t
typedef struct DnnFilterSt *DnnFilter;             // cudnnFilterDescriptor_t
typedef struct DnnConvSt *DnnConv;                 // cudnnConvolutionDescriptor_t
typedef struct DnnActivationSt *DnnActivation;     // cudnnActivationDescriptor_t

enum {
  DNN_DATA_FLOAT = 0,                  // cudnnDataType_t
  DNN_DATA_HALF = 2,
  DNN_TENSOR_NCHW = 0,                 // cudnnTensorFormat_t (for filters: KCRS)
  DNN_TENSOR_NHWC = 1,                 //   channels innermost (for filters: KRSC)
  DNN_CROSS_CORRELATION = 1,           // cudnnConvolutionMode_t: no kernel flip
  DNN_DEFAULT_MATH = 0,                // cudnnMathType_t: on Ampere and later, TF32 tensor cores for float data
  DNN_TENSOR_OP_MATH = 1,              //   tensor cores allowed (half data, no down-conversion)
  DNN_FMA_MATH = 3,                    //   fp32 FMA only, no tensor cores, no TF32
  DNN_ACTIVATION_SIGMOID = 0,          // cudnnActivationMode_t
  DNN_ACTIVATION_RELU = 1,
  DNN_ACTIVATION_CLIPPED_RELU = 3,     //   min(max(x, 0), coef)
  DNN_ACTIVATION_IDENTITY = 5,         //   (the fused call with bias only)
  DNN_ACTIVATION_SWISH = 6,            //   x sigmoid(beta x), beta 1 unless set: SiLU (cuDNN 8.2 on)
  DNN_PROPAGATE_NAN = 1,               // cudnnNanPropagation_t: a NaN stays NaN through ReLU
  DNN_ALGO_COUNT = 8,                  // cudnnConvolutionFwdAlgo_t: 0 .. 7
};

static const char *const algo_names[DNN_ALGO_COUNT] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
    "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED",
};

#define DNN_FUNCS(X)                                                                      \
  X(cudnnCreate, (DnnHandle *h))                                                          \
  X(cudnnDestroy, (DnnHandle h))                                                          \
  X(cudnnSetStream, (DnnHandle h, CuStream s))                                            \
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
  X(cudnnSetConvolutionGroupCount, (DnnConv cd, int groups))                              \
  X(cudnnDestroyConvolutionDescriptor, (DnnConv cd))                                      \
  X(cudnnGetConvolution2dForwardOutputDim, (DnnConv cd, DnnTensor x, DnnFilter w,         \
                                            int *n, int *c, int *h, int *wd))             \
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
static const CudaApi *cu;   // rt_cuda_api's
static DnnApi dnn;
static bool dnn_bound;

static const RtSym dnn_syms[] = {
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
  if (!rt_dl_bind(lib, name, &dnn, dnn_syms, sizeof dnn_syms / sizeof *dnn_syms, r->why, sizeof r->why))
    return false;
  dnn_bound = true;
  return true;
}

static bool load_cuda(BenchResult *r) {
  if (!cu) cu = rt_cuda_api(r->why, sizeof r->why);
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

/* ---- one layer on one device ---- */

/* A way of running the layer: an algorithm, fused or not. */
typedef struct Path {
  int algo;                // cudnnConvolutionFwdAlgo_t
  bool fused;              // bias, residual and activation in cudnnConvolutionBiasActivationForward
} Path;

typedef struct Conv {
  const Layer *l;
  bool half;               // an fp16 layer: half tensors (CUDNN_DATA_HALF), summed in float
  bool tf32;               // a tf32 layer: float tensors, default math (TF32 products)
  int format;              // DNN_TENSOR_NCHW or, for fp16 and tf32, DNN_TENSOR_NHWC too
  CuDevice dev;
  bool retained;           // the primary context of dev is retained and current
  CuContext before;        // what was current before it (--target cuda's context, or none): made current again
  CuStream stream;         // every call goes here (a graph is captured from it)
  DnnHandle h;
  DnnTensor xd, yd, bd;    // input, output, bias as 1 x k x 1 x 1
  DnnFilter wd;
  DnnConv cd;
  DnnActivation ad;        // ReLU (or identity for the fused call with bias only)
  CuPtr x, w, b, z, y, ws; // device memory (z: the residual); 0 when not allocated
  size_t ws_bytes;         // of ws
  Path path;               // what forward runs
  CuEvent start, stop;
} Conv;

static void *ptr(CuPtr p) {
  return (void *)(uintptr_t)p;
}

static bool equal_nocase(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
  return *a == *b;
}

static bool is_nvidia(const RtDeviceInfo *info) {
  return info && (cg_contains_nocase(info->vendor, "nvidia") || cg_contains_nocase(info->platform, "nvidia") ||
                  cg_contains_nocase(info->platform_vendor, "nvidia"));
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
  if (!CU(r, cuCtxGetCurrent, &c->before) || !CU(r, cuDevicePrimaryCtxRetain, &ctx, c->dev)) return false;
  c->retained = true;
  return CU(r, cuCtxSetCurrent, ctx) && CU(r, cuEventCreate, &c->start, CU_EVENT_DEFAULT) &&
         CU(r, cuEventCreate, &c->stop, CU_EVENT_DEFAULT) && CU(r, cuStreamCreate, &c->stream, 0);
}

/* The layer's activation as a cudnnActivationMode_t and its coefficient;
 * false when the legacy API has none (leaky ReLU, hard swish, hard sigmoid,
 * a clip whose lower bound is not 0). Whether the fused call takes the mode is for cuDNN
 * to say: a fused trial it refuses is reported and the unfused path counts. */
static bool activation_mode(const Layer *l, int *mode, double *coef) {
  *coef = 0;
  switch (l->act) {
  case ACT_NONE: *mode = DNN_ACTIVATION_IDENTITY; return true;
  case ACT_RELU: *mode = DNN_ACTIVATION_RELU; return true;
  case ACT_RELU6: *mode = DNN_ACTIVATION_CLIPPED_RELU, *coef = 6; return true;
  case ACT_CLIP: *mode = DNN_ACTIVATION_CLIPPED_RELU, *coef = l->act_b; return l->act_a == 0;
  case ACT_SIGMOID: *mode = DNN_ACTIVATION_SIGMOID; return true;
  case ACT_SILU: *mode = DNN_ACTIVATION_SWISH; return true;
  case ACT_LEAKY:
  case ACT_HARDSWISH:
  case ACT_HARDSIGMOID: return false;
  }
  return false;
}

static int data_type(const Conv *c) { return c->half ? DNN_DATA_HALF : DNN_DATA_FLOAT; }

static size_t elem_size(const Conv *c) { return c->half ? 2 : sizeof(float); }

static bool make_descriptors(Conv *c, BenchResult *r) {
  const Layer *l = c->l;
  if (!DNN(r, cudnnCreate, &c->h) || !DNN(r, cudnnSetStream, c->h, c->stream) ||
      !DNN(r, cudnnCreateTensorDescriptor, &c->xd) ||
      !DNN(r, cudnnCreateTensorDescriptor, &c->yd) || !DNN(r, cudnnCreateFilterDescriptor, &c->wd) ||
      !DNN(r, cudnnCreateConvolutionDescriptor, &c->cd))
    return false;
  // fp16: half tensors summed in float (PyTorch's choice for half convolutions: the layer's own precision,
  // convgen's fp16 kernels accumulate in float too), tensor cores allowed; tf32: float tensors, default math,
  // TF32 products (what PyTorch sets for fp32 convolutions with allow_tf32, its default); fp32: FMA math, no TF32
  int type = data_type(c), fmt = c->format;
  if (!DNN(r, cudnnSetTensor4dDescriptor, c->xd, fmt, type, l->n, l->c, l->h, l->w) ||
      !DNN(r, cudnnSetFilter4dDescriptor, c->wd, type, fmt, l->k, layer_group_c(l), l->kh, l->kw) ||
      !DNN(r, cudnnSetConvolution2dDescriptor, c->cd, l->pad_h, l->pad_w, l->stride_h, l->stride_w, l->dil_h, l->dil_w,
           DNN_CROSS_CORRELATION, DNN_DATA_FLOAT) ||
      !DNN(r, cudnnSetConvolutionMathType, c->cd, c->half ? DNN_TENSOR_OP_MATH : c->tf32 ? DNN_DEFAULT_MATH : DNN_FMA_MATH) ||
      !DNN(r, cudnnSetConvolutionGroupCount, c->cd, layer_groups(l)))
    return false;
  int n, k, h, w;
  if (!DNN(r, cudnnGetConvolution2dForwardOutputDim, c->cd, c->xd, c->wd, &n, &k, &h, &w)) return false;
  if (n != l->n || k != l->k || h != l->out_h || w != l->out_w) {
    snprintf(r->why, sizeof r->why, "cuDNN's output is %dx%dx%dx%d, the layer's %dx%dx%dx%d", n, k, h, w,
             l->n, l->k, l->out_h, l->out_w);
    return false;
  }
  if (!DNN(r, cudnnSetTensor4dDescriptor, c->yd, fmt, type, n, k, h, w)) return false;
  if (l->bias && (!DNN(r, cudnnCreateTensorDescriptor, &c->bd) ||
                  !DNN(r, cudnnSetTensor4dDescriptor, c->bd, fmt, type, 1, l->k, 1, 1)))
    return false;
  int act;
  double coef = 0;
  if (!activation_mode(l, &act, &coef)) {
    StrBuf sb;
    sb_init(&sb);
    layer_act_format(&sb, l);
    snprintf(r->why, sizeof r->why, "cuDNN's activations (ReLU, clipped ReLU, sigmoid, swish, identity) have no %s",
             sb_str(&sb));
    sb_free(&sb);
    return false;
  }
  if ((l->act != ACT_NONE || l->bias) && (!DNN(r, cudnnCreateActivationDescriptor, &c->ad) ||
                                          !DNN(r, cudnnSetActivationDescriptor, c->ad, act, DNN_PROPAGATE_NAN, coef)))
    return false;
  return true;
}

/* The place of element (i0, i1, i2, i3) of an [d0][d1][d2][d3] array (NCHW,
 * or KCRS for filters) in the layout c runs: the same, or channels
 * innermost (NHWC, KRSC). */
static size_t place(const Conv *c, int64_t d1, int64_t d2, int64_t d3, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  if (c->format == DNN_TENSOR_NCHW) return (size_t)(((i0 * d1 + i1) * d2 + i2) * d3 + i3);
  return (size_t)(((i0 * d2 + i2) * d3 + i3) * d1 + i1);
}

/* n = d0 d1 d2 d3 values of v (NCHW) to device memory at p, as c's type in c's layout. */
static bool put(Conv *c, CuPtr p, const float *v, int64_t d0, int64_t d1, int64_t d2, int64_t d3, BenchResult *r) {
  int64_t n = d0 * d1 * d2 * d3;
  size_t es = elem_size(c);
  unsigned char *host = malloc((size_t)(n ? n : 1) * es);
  if (!host) cg_die("out of memory (%lld values)", (long long)n);
  for (int64_t i0 = 0, i = 0; i0 < d0; i0++)
    for (int64_t i1 = 0; i1 < d1; i1++)
      for (int64_t i2 = 0; i2 < d2; i2++)
        for (int64_t i3 = 0; i3 < d3; i3++, i++) {
          size_t at = place(c, d1, d2, d3, i0, i1, i2, i3);
          if (c->half) ((uint16_t *)host)[at] = elem_f32_to_f16(v[i]);   // exact: the data are values of half
          else ((float *)host)[at] = v[i];
        }
  bool ok = CU(r, cuMemcpyHtoD_v2, p, host, (size_t)n * es);
  free(host);
  return ok;
}

static bool upload(Conv *c, const BenchData *d, BenchResult *r) {
  const Layer *l = c->l;
  size_t es = elem_size(c);
  if (!CU(r, cuMemAlloc_v2, &c->x, (size_t)d->nx * es) || !CU(r, cuMemAlloc_v2, &c->w, (size_t)d->nw * es) ||
      !CU(r, cuMemAlloc_v2, &c->y, (size_t)d->ny * es))
    return false;
  if (d->nb > 0 && !CU(r, cuMemAlloc_v2, &c->b, (size_t)d->nb * es)) return false;
  if (d->nr > 0 && !CU(r, cuMemAlloc_v2, &c->z, (size_t)d->nr * es)) return false;
  return put(c, c->x, d->x, l->n, l->c, l->h, l->w, r) &&
         put(c, c->w, d->w, l->k, layer_group_c(l), l->kh, l->kw, r) &&
         (d->nb == 0 || put(c, c->b, d->b, 1, l->k, 1, 1, r)) &&
         (d->nr == 0 || put(c, c->z, d->r, l->n, l->k, l->out_h, l->out_w, r));
}

/* The output, read back as floats in NCHW. */
static bool get_output(Conv *c, const BenchData *d, float *out, BenchResult *r) {
  const Layer *l = c->l;
  size_t es = elem_size(c);
  unsigned char *host = malloc((size_t)d->ny * es);
  if (!host) cg_die("out of memory (%lld outputs)", (long long)d->ny);
  bool ok = CU(r, cuMemcpyDtoH_v2, host, c->y, (size_t)d->ny * es);
  for (int64_t i0 = 0, i = 0; ok && i0 < l->n; i0++)
    for (int64_t i1 = 0; i1 < l->k; i1++)
      for (int64_t i2 = 0; i2 < l->out_h; i2++)
        for (int64_t i3 = 0; i3 < l->out_w; i3++, i++) {
          size_t at = place(c, l->k, l->out_h, l->out_w, i0, i1, i2, i3);
          out[i] = c->half ? elem_f16_to_f32(((const uint16_t *)host)[at]) : ((const float *)host)[at];
        }
  free(host);
  return ok;
}

/* A workspace of exactly what algo asks for; false (why set) when cuDNN
 * cannot run algo on this layer, or the memory is not there. */
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

/* One run of c->path on c->stream; *call names the call that failed. */
static DnnStatus forward(Conv *c, const char **call) {
  const float one = 1.0f, zero = 0.0f;
  void *ws = ptr(c->ws);
  int algo = c->path.algo;
  if (c->path.fused) {
    // y = act(conv + alpha2 * z + bias): alpha2 = 1 with the residual as z, else 0 (z is y itself and does not count)
    bool res = c->l->residual;
    *call = "cudnnConvolutionBiasActivationForward";
    return dnn.cudnnConvolutionBiasActivationForward(c->h, &one, c->xd, ptr(c->x), c->wd, ptr(c->w), c->cd, algo,
                                                     ws, c->ws_bytes, res ? &one : &zero, c->yd,
                                                     ptr(res ? c->z : c->y), c->bd, ptr(c->b), c->ad, c->yd, ptr(c->y));
  }
  *call = "cudnnConvolutionForward";
  DnnStatus s = dnn.cudnnConvolutionForward(c->h, &one, c->xd, ptr(c->x), c->wd, ptr(c->w), c->cd, algo, ws,
                                            c->ws_bytes, &zero, c->yd, ptr(c->y));
  if (s == 0 && c->l->bias) {
    *call = "cudnnAddTensor";
    s = dnn.cudnnAddTensor(c->h, &one, c->bd, ptr(c->b), &one, c->yd, ptr(c->y));
  }
  if (s == 0 && c->l->residual) {
    *call = "cudnnAddTensor";
    s = dnn.cudnnAddTensor(c->h, &one, c->yd, ptr(c->z), &one, c->yd, ptr(c->y));
  }
  if (s == 0 && c->l->act != ACT_NONE) {
    *call = "cudnnActivationForward";
    s = dnn.cudnnActivationForward(c->h, c->ad, &one, c->yd, ptr(c->y), &zero, c->yd, ptr(c->y));
  }
  return s;
}

static bool run_once(Conv *c, BenchResult *r) {
  const char *call;
  DnnStatus s = forward(c, &call);
  return dnn_ok(r, call, s);
}

/* n runs on the stream. */
static bool run_calls(Conv *c, int n, BenchResult *r) {
  for (int i = 0; i < n; i++)
    if (!run_once(c, r)) return false;
  return true;
}

/* The output poisoned, then `launch` (n calls, or a graph), then compared
 * (bench.h's protocol): true when compared, whatever the outcome
 * (r->correct); false on an error. */
typedef bool (*Launch)(Conv *c, void *ctx, BenchResult *r);

static bool checked(Conv *c, Launch launch, void *ctx, const BenchData *d, const BenchOptions *o, BenchResult *r) {
  bool poisoned = c->half ? CU(r, cuMemsetD16_v2, c->y, (unsigned short)elem_type(ELEM_FP16)->nan_bits, (size_t)d->ny)
                          : CU(r, cuMemsetD32_v2, c->y, elem_fp32()->nan_bits, (size_t)d->ny);
  if (!poisoned || !launch(c, ctx, r) || !CU(r, cuStreamSynchronize, c->stream)) return false;
  float *out = malloc((size_t)d->ny * sizeof *out);
  if (!out) {
    snprintf(r->why, sizeof r->why, "out of host memory for the %lld outputs", (long long)d->ny);
    return false;
  }
  bool ok = get_output(c, d, out, r);
  if (ok) bench_check(r, out, d, o);
  free(out);
  return ok;
}

/* The device time of one `launch` between two events, us. */
static bool span_us(Conv *c, Launch launch, void *ctx, double *us, BenchResult *r) {
  float ms = 0;
  bool ok = CU(r, cuEventRecord, c->start, c->stream) && launch(c, ctx, r) && CU(r, cuEventRecord, c->stop, c->stream) &&
            CU(r, cuEventSynchronize, c->stop) && CU(r, cuEventElapsedTime, &ms, c->start, c->stop);
  *us = 1000.0 * ms;
  return ok;
}

typedef struct Batch {
  Conv *c;
  Launch launch;
  void *ctx;
  int reps;                // calls one launch makes
  BenchResult *r;
} Batch;

static bool timed_batch(void *ctx, double *us) {
  Batch *b = ctx;
  bool ok = span_us(b->c, b->launch, b->ctx, us, b->r);
  *us /= b->reps;
  return ok;
}

/* Warm-up, then o->runs batches of one `launch` each, which runs reps calls:
 * r->us per call (measure.h's protocol). */
static bool time_batches(Conv *c, Launch launch, void *ctx, int reps, const BenchOptions *o, BenchResult *r) {
  double us = 0;
  if (o->warmup > 0 && !span_us(c, launch, ctx, &us, r)) return false;
  r->reps = reps;
  Batch b = {c, launch, ctx, reps, r};
  return bench_time_batches(o, timed_batch, &b, &r->us);
}

static bool launch_calls(Conv *c, void *ctx, BenchResult *r) {
  return run_calls(c, *(const int *)ctx, r);
}

static bool launch_graph(Conv *c, void *ctx, BenchResult *r) {
  return CU(r, cuGraphLaunch, *(CuGraphExec *)ctx, c->stream);
}

/* A graph of reps calls captured from the stream. */
static bool capture(Conv *c, int reps, CuGraphExec *exec, BenchResult *r) {
  CuGraph g = NULL;
  *exec = NULL;
  if (!CU(r, cuStreamBeginCapture_v2, c->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)) return false;
  bool called = run_calls(c, reps, r);
  bool ended = CU(r, cuStreamEndCapture, c->stream, &g);   // ends the capture even when a call failed
  bool ok = called && ended && CU(r, cuGraphInstantiateWithFlags, exec, g, 0);
  if (g) cu->cuGraphDestroy(g);
  return ok;
}

/* What one path and mode gave. */
typedef struct Trial {
  Path path;
  int format;              // the tensors' layout
  bool graph;              // replayed from a CUDA graph (else called on the stream)
  BenchResult r;           // correct, error, us, reps; why when it did not run
  size_t ws_bytes;
} Trial;

static const char *mode_name(bool graph) { return graph ? "CUDA graph" : "stream"; }

static const char *format_name(int format) { return format == DNN_TENSOR_NHWC ? "NHWC" : "NCHW"; }

static const char *path_name(const Conv *c, Path p) {
  bool act = c->l->act != ACT_NONE;
  if (p.fused && c->l->residual)
    return c->l->act == ACT_RELU ? "fused bias+residual+ReLU" : act ? "fused bias+residual+activation"
                                                                    : "fused bias+residual";
  if (p.fused) return c->l->act == ACT_RELU ? "fused bias+ReLU" : act ? "fused bias+activation" : "fused bias";
  int adds = c->l->bias + c->l->residual;   // AddTensor calls
  return adds == 2 && act ? "conv, AddTensor x2, Activation"
         : adds == 2      ? "conv, AddTensor x2"
         : adds && act    ? "conv, AddTensor, Activation"
         : adds           ? "conv, AddTensor"
         : act            ? "conv, Activation"
                          : "conv";
}

static void report_trial(const Conv *c, const Trial *t) {
  char how[64];   // the path, and an fp16 trial's layout
  bool layouts = c->half || c->tf32;
  snprintf(how, sizeof how, "%s%s%s", path_name(c, t->path), layouts ? ", " : "", layouts ? format_name(t->format) : "");
  if (t->r.ran && t->r.correct)
    fprintf(stderr, "           cudnn %-21s %-28s %-10s %9.1f us (spread %.2f, %d x %d runs, workspace %zu B)\n",
            algo_names[t->path.algo], how, mode_name(t->graph), t->r.us.median, t->r.us.spread,
            t->r.us.n, t->r.reps, t->ws_bytes);
  else
    fprintf(stderr, "           cudnn %-21s %-28s %-10s %s\n", algo_names[t->path.algo], how,
            mode_name(t->graph), t->r.why[0] ? t->r.why : "wrong");
}

/* Checks and times path p in both modes; *out gets each mode's trial.
 * False when cuDNN does not run p on this layer (a trial says why). */
static void try_path(Conv *c, Path p, const BenchData *d, const BenchOptions *o, Trial out[2]) {
  for (int m = 0; m < 2; m++) out[m] = (Trial){.path = p, .format = c->format, .graph = m == 1, .r = {.error = NAN}};
  BenchResult *rs = &out[0].r, *rg = &out[1].r;
  c->path = p;
  int one = 1;
  bool ok = set_workspace(c, p.algo, rs) && checked(c, launch_calls, &one, d, o, rs);
  out[0].ws_bytes = out[1].ws_bytes = c->ws_bytes;
  if (!ok || !rs->correct) {
    rs->ran = ok;
    snprintf(rg->why, sizeof rg->why, "%s", rs->why[0] ? rs->why : "wrong on the stream");
    return;
  }
  double t1 = 0;
  ok = span_us(c, launch_calls, &one, &t1, rs);
  int reps = meas_reps(t1 * 1e-3, o->reps);
  rs->ran = ok && time_batches(c, launch_calls, &reps, reps, o, rs);
  CuGraphExec exec = NULL;
  // the graph's own output checked too (it replays what was captured)
  bool graphed = capture(c, reps, &exec, rg) && checked(c, launch_graph, &exec, d, o, rg);
  rg->ran = graphed && (!rg->correct || time_batches(c, launch_graph, &exec, reps, o, rg));
  if (exec) cu->cuGraphExecDestroy(exec);
  cu->cuStreamSynchronize(c->stream);
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
  CuPtr mem[] = {c->ws, c->y, c->z, c->b, c->w, c->x};
  for (size_t i = 0; i < sizeof mem / sizeof *mem; i++)
    if (mem[i]) cu->cuMemFree_v2(mem[i]);
  if (c->stream) cu->cuStreamDestroy_v2(c->stream);
  if (c->stop) cu->cuEventDestroy_v2(c->stop);
  if (c->start) cu->cuEventDestroy_v2(c->start);
  if (c->retained) {   // the context current before, not none: bench's --target cuda device uses it next
    cu->cuCtxSetCurrent(c->before);
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

/* The row's detail: version, the winning algorithm, path and mode, its
 * workspace, and how many were tried. */
static void describe(const Conv *c, const Trial *best, int correct, int tried, const char *device_note,
                     BenchResult *r) {
  char ws[32];
  format_bytes(ws, sizeof ws, best->ws_bytes);
  size_t v = dnn.cudnnGetVersion();
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "cuDNN %zu.%zu.%zu, %s, %s, %s, ", v / 10000, v % 10000 / 100, v % 100, algo_names[best->path.algo],
            path_name(c, best->path), mode_name(best->graph));
  if (c->half) sb_printf(&sb, "fp16 %s, fp32 compute, tensor-op math, ", format_name(best->format));
  if (c->tf32) sb_printf(&sb, "fp32 %s, default math (TF32), ", format_name(best->format));
  sb_printf(&sb, "workspace %s; fastest of %d correct of %d tried", ws, correct, tried);
  if (device_note[0]) sb_printf(&sb, "; %s", device_note);
  snprintf(r->detail, sizeof r->detail, "%s", sb_str(&sb));   // cut to fit, if need be
  sb_free(&sb);
}

/* Every algorithm on every path (fused only with a bias: the fused call
 * adds one), each in both modes; trials gets them, the count returned. */
static int try_all(Conv *c, const BenchData *d, const BenchOptions *o, Trial *trials) {
  int n = 0;
  for (int algo = 0; algo < DNN_ALGO_COUNT; algo++)
    for (int fused = c->l->bias ? 1 : 0; fused >= 0; fused--) {
      try_path(c, (Path){algo, fused == 1}, d, o, &trials[n]);
      report_trial(c, &trials[n]);
      report_trial(c, &trials[n + 1]);
      n += 2;
    }
  return n;
}

bool bench_cudnn(const RtDeviceInfo *info, const BenchData *d, const BenchOptions *o, BenchResult *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->method, sizeof r->method, "cudnn");
  r->error = NAN;
  if (!is_nvidia(info)) {
    snprintf(r->why, sizeof r->why, "not an NVIDIA device (cuDNN runs only on NVIDIA GPUs)");
    return false;
  }
  if (!layer_pad_symmetric(d->layer)) {   // its users pad the input first: another kernel, not timed here yet
    snprintf(r->why, sizeof r->why, "cuDNN's convolution descriptor pads both sides of a dimension alike; this layer "
                                    "does not");
    return false;
  }
  // A second guard besides FMA math: TF32 off in cuDNN and cuBLAS for an fp32 layer, unless the user says
  // otherwise; taken off again for a tf32 layer (the library may have read it already: the row's detail says so)
  static bool tf32_guard;   // this process set NVIDIA_TF32_OVERRIDE=0
  bool tf32 = d->layer->precision == PREC_TF32;
  if (!tf32 && !getenv("NVIDIA_TF32_OVERRIDE")) tf32_guard = setenv("NVIDIA_TF32_OVERRIDE", "0", 0) == 0;
  if (tf32 && tf32_guard) tf32_guard = unsetenv("NVIDIA_TF32_OVERRIDE") != 0;
  bool tf32_off = tf32 && getenv("NVIDIA_TF32_OVERRIDE") && strcmp(getenv("NVIDIA_TF32_OVERRIDE"), "0") == 0;
  if (!load_cudnn(r) || !load_cuda(r) || !CU(r, cuInit, 0)) return false;

  // fp16: every algorithm in each layout (NHWC is what tensor cores read; PyTorch's channels_last)
  bool half = d->layer->precision == PREC_FP16;
  int layouts[2] = {DNN_TENSOR_NCHW, DNN_TENSOR_NHWC}, nlayouts = half || tf32 ? 2 : 1;
  Trial *trials = calloc((size_t)(4 * DNN_ALGO_COUNT * nlayouts), sizeof *trials);
  if (!trials) cg_die("out of memory");
  char device_note[320] = "";
  bool ready = false;
  int n = 0;
  for (int f = 0; f < nlayouts; f++) {
    Conv c = {.l = d->layer, .half = half, .tf32 = tf32, .format = layouts[f]};
    BenchResult setup = {0};   // what stopped this layout, if anything
    bool ok = pick_device(&c, info, device_note, sizeof device_note, &setup) && open_context(&c, &setup) &&
              make_descriptors(&c, &setup) && upload(&c, d, &setup);
    if (ok) n += try_all(&c, d, o, trials + n);
    else if (!r->why[0]) snprintf(r->why, sizeof r->why, "%s", setup.why);
    if (!ok && nlayouts > 1) fprintf(stderr, "           cudnn %s: %s\n", format_name(layouts[f]), setup.why);
    ready |= ok;
    close_conv(&c);
  }
  Conv c = {.l = d->layer, .half = half, .tf32 = tf32};   // for the row's names
  int correct = 0;
  const Trial *best = NULL, *wrong = NULL;
  for (int i = 0; i < n; i++) {
    const BenchResult *t = &trials[i].r;
    if (t->ran && t->correct) {
      correct++;
      if (!best || t->us.median < best->r.us.median) best = &trials[i];
    } else if (t->ran && !wrong) {
      wrong = &trials[i];
    }
  }
  if (best || wrong) {
    const Trial *t = best ? best : wrong;
    r->ran = true;
    r->correct = best != NULL;
    if (best) r->why[0] = 0;   // a layout that did not set up is in the trials' lines
    r->error = t->r.error;
    r->us = t->r.us;
    r->reps = t->r.reps;
    if (!best) snprintf(r->why, sizeof r->why, "every path that ran was wrong; the first: %.1400s", t->r.why);
    if (tf32_off && !device_note[0])
      snprintf(device_note, sizeof device_note, "NVIDIA_TF32_OVERRIDE=0 in the environment keeps TF32 off");
    describe(&c, t, correct, n, device_note, r);
    uint64_t es = elem_size(&c);
    r->mem = (BenchMemory){.input = (uint64_t)(d->nx + d->nr) * es, .weights = (uint64_t)d->nw * es,
                           .bias = (uint64_t)d->nb * es, .output = (uint64_t)d->ny * es, .extra = t->ws_bytes};
    snprintf(r->mem.extra_what, sizeof r->mem.extra_what, "workspace");
  } else if (ready) {
    snprintf(r->why, sizeof r->why, "no algorithm ran (%d paths tried); the first: %.1400s", n,
             n ? trials[0].r.why : "none");
  }
  free(trials);
  return r->ran && r->correct;
}
