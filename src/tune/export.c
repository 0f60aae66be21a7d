/* export.c: the files of `convgen export` (export.h). The generated C is
 * plain C99 over the OpenCL 1.2 API, or for a CUDA device over the CUDA
 * driver API and NVRTC; the kernels' sources are embedded as string
 * literals, so the host program needs no file at run time. The two targets
 * share the layer table, the example's reference and its checks; their
 * header, runtime, example main and Makefile are the *_OPENCL and *_CUDA
 * texts below. */
#include "tune/export.h"
#include "codegen/codegen.h"
#include "compile/compile.h"
#include "rt/rt.h"
#include "space/layer_space.h"
#include "tune/tune.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *export_ident(Arena *a, const char *name, int i) {
  StrBuf sb;
  sb_init(&sb);
  if (isdigit((unsigned char)name[0])) sb_putc(&sb, '_');
  for (; *name && sb.len < 48; name++) sb_putc(&sb, isalnum((unsigned char)*name) ? *name : '_');
  sb_printf(&sb, "_%d", i);
  const char *r = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return r;
}

void export_c_string(StrBuf *sb, const char *text) {
  sb_puts(sb, "    \"");
  for (const char *s = text; *s; s++) {
    if (*s == '\n') {
      sb_puts(sb, s[1] ? "\\n\"\n    \"" : "\\n");
      continue;
    }
    if (*s == '"' || *s == '\\') sb_putc(sb, '\\');
    if (*s == '\t') {
      sb_puts(sb, "\\t");
      continue;
    }
    sb_putc(sb, *s);
  }
  sb_puts(sb, "\"");
}

/* What a kernel argument is: 0 x, 1 weights, 2 bias, 3 out, 4 residual, 5 + t temporary t. */
static int arg_code(const LProgram *lp, const Mem *m) {
  if (m->role == MR_OUTPUT) return 3;
  if (m->role == MR_INPUT) {
    const char *name = lp->prog->inputs[m->input_index]->name;
    return strcmp(name, "x") == 0 ? 0 : strcmp(name, "weights") == 0 ? 1 : strcmp(name, "residual") == 0 ? 4 : 2;
  }
  int t = 0;
  for (int i = 0; i < lp->nbuffers && lp->buffers[i] != m; i++) t += lp->buffers[i]->role != MR_INPUT &&
                                                                     lp->buffers[i]->role != MR_OUTPUT;
  return 5 + t;
}

/* ---- What the files say, per target ---- */

const char EXPORT_HEADER_OPENCL[] =
    "#ifndef CL_TARGET_OPENCL_VERSION\n"
    "#define CL_TARGET_OPENCL_VERSION 120\n"
    "#endif\n"
    "#include <CL/cl.h>\n";

const char EXPORT_HEADER_CUDA[] = "#include <cuda.h>\n";

static const char LAYER_INFO[] =
    "/* A layer: NCHW input x[n][c][h][w], KCRS weights[k][c][kh][kw], bias[k]\n"
    " * (when bias is 1), NCHW output out[n][k][out_h][out_w]; zero padding pad_h\n"
    " * rows on top and pad_w columns on the left (the bottom and right as out_h\n"
    " * and out_w reach); the taps of a window dil_h rows and dil_w columns apart;\n"
    " * groups G: output channel o reads input channels g*c/G .. (g+1)*c/G-1 of its\n"
    " * group g = o/(k/G), and its weights are weights[k][c/G][kh][kw];\n"
    " * after the bias the residual (when residual is 1: an input of the output's\n"
    " * shape, added before the activation), then the activation act: 0 none, 1 ReLU,\n"
    " * 2 ReLU6, 3 clip(act_a, act_b), 4 leaky ReLU (slope act_a), 5 sigmoid,\n"
    " * 6 hard swish, 7 SiLU, 8 hard sigmoid (max(0, min(1, act_a x + act_b))). fp32. */\n"
    "typedef struct cgk_layer_info {\n"
    "  const char *name;      /* as it was tuned: \"vgg16.conv3_2\" */\n"
    "  const char *spec;      /* the plain form: \"n=1,c=256,...\" */\n"
    "  const char *strategy;  /* convgen's strategy and point, for the record */\n"
    "  const char *point;\n"
    "  double tuned_us;       /* the median time convgen measured */\n"
    "  int n, c, h, w, k, kh, kw, stride_h, stride_w, pad_h, pad_w, bias, act, out_h, out_w, dil_h, dil_w, groups;\n"
    "  double act_a, act_b;\n"
    "  int residual;\n"
    "} cgk_layer_info;\n"
    "\n"
    "extern const int cgk_nlayers;\n"
    "extern const cgk_layer_info cgk_layers[];\n"
    "\n"
    "typedef struct cgk_layer cgk_layer;\n"
    "\n";

static const char API_OPENCL[] =
    "/* Builds layer i's kernels for dev and allocates its temporary buffers.\n"
    " * NULL on failure, with *err set (and the build log on stderr). */\n"
    "cgk_layer *cgk_create(int i, cl_context ctx, cl_device_id dev, cl_int *err);\n"
    "/* Enqueues the layer's kernels on q, in order (bias may be NULL when the\n"
    " * layer has none). Returns CL_SUCCESS or the first error. */\n"
    "cl_int cgk_run(cgk_layer *l, cl_command_queue q, cl_mem x, cl_mem weights, cl_mem bias, cl_mem out);\n"
    "/* The same for a layer with a residual (residual is 1; else it may be NULL). */\n"
    "cl_int cgk_run_residual(cgk_layer *l, cl_command_queue q, cl_mem x, cl_mem weights, cl_mem bias, cl_mem residual,\n"
    "                        cl_mem out);\n"
    "void cgk_release(cgk_layer *l);\n"
    "\n";

static const char RUNTIME_OPENCL[] =
    "struct cgk_layer {\n"
    "  const cgk_desc *d;\n"
    "  cl_program program;\n"
    "  cl_kernel kernels[CGK_MAX_KERNELS];\n"
    "  cl_mem temps[CGK_MAX_TEMPS];\n"
    "};\n"
    "\n"
    "void cgk_release(cgk_layer *l) {\n"
    "  int i;\n"
    "  if (!l) return;\n"
    "  for (i = 0; i < CGK_MAX_KERNELS; i++)\n"
    "    if (l->kernels[i]) clReleaseKernel(l->kernels[i]);\n"
    "  for (i = 0; i < CGK_MAX_TEMPS; i++)\n"
    "    if (l->temps[i]) clReleaseMemObject(l->temps[i]);\n"
    "  if (l->program) clReleaseProgram(l->program);\n"
    "  free(l);\n"
    "}\n"
    "\n"
    "cgk_layer *cgk_create(int i, cl_context ctx, cl_device_id dev, cl_int *err) {\n"
    "  cgk_layer *l;\n"
    "  const char *src;\n"
    "  int k;\n"
    "  if (i < 0 || i >= cgk_nlayers) {\n"
    "    *err = CL_INVALID_VALUE;\n"
    "    return NULL;\n"
    "  }\n"
    "  l = calloc(1, sizeof *l);\n"
    "  if (!l) {\n"
    "    *err = CL_OUT_OF_HOST_MEMORY;\n"
    "    return NULL;\n"
    "  }\n"
    "  l->d = &cgk_descs[i];\n"
    "  src = l->d->source;\n"
    "  l->program = clCreateProgramWithSource(ctx, 1, &src, NULL, err);\n"
    "  if (*err != CL_SUCCESS) return cgk_release(l), NULL;\n"
    "  *err = clBuildProgram(l->program, 1, &dev, \"" RT_CL_STD "\", NULL, NULL);\n"
    "  if (*err != CL_SUCCESS) {\n"
    "    size_t n = 0;\n"
    "    char *log;\n"
    "    clGetProgramBuildInfo(l->program, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);\n"
    "    log = malloc(n + 1);\n"
    "    if (log && clGetProgramBuildInfo(l->program, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {\n"
    "      log[n] = 0;\n"
    "      fprintf(stderr, \"%s: build failed:\\n%s\\n\", cgk_layers[i].name, log);\n"
    "    }\n"
    "    free(log);\n"
    "    return cgk_release(l), NULL;\n"
    "  }\n"
    "  for (k = 0; k < l->d->nkernels; k++) {\n"
    "    l->kernels[k] = clCreateKernel(l->program, l->d->kernels[k].name, err);\n"
    "    if (*err != CL_SUCCESS) return cgk_release(l), NULL;\n"
    "  }\n"
    "  for (k = 0; k < l->d->ntemps; k++) {\n"
    "    l->temps[k] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, l->d->temp_bytes[k], NULL, err);\n"
    "    if (*err != CL_SUCCESS) return cgk_release(l), NULL;\n"
    "  }\n"
    "  return l;\n"
    "}\n"
    "\n"
    "cl_int cgk_run(cgk_layer *l, cl_command_queue q, cl_mem x, cl_mem weights, cl_mem bias, cl_mem out) {\n"
    "  return cgk_run_residual(l, q, x, weights, bias, NULL, out);\n"
    "}\n"
    "\n"
    "cl_int cgk_run_residual(cgk_layer *l, cl_command_queue q, cl_mem x, cl_mem weights, cl_mem bias, cl_mem residual,\n"
    "                        cl_mem out) {\n"
    "  cl_mem io[5];\n"
    "  int k, a;\n"
    "  io[0] = x, io[1] = weights, io[2] = bias, io[3] = out, io[4] = residual;\n"
    "  for (k = 0; k < l->d->nkernels; k++) {\n"
    "    const cgk_kernel_desc *kd = &l->d->kernels[k];\n"
    "    cl_int err;\n"
    "    for (a = 0; a < kd->nargs; a++) {\n"
    "      cl_mem m = kd->args[a] < 5 ? io[kd->args[a]] : l->temps[kd->args[a] - 5];\n"
    "      err = clSetKernelArg(l->kernels[k], (cl_uint)a, sizeof m, &m);\n"
    "      if (err != CL_SUCCESS) return err;\n"
    "    }\n"
    "    err = clEnqueueNDRangeKernel(q, l->kernels[k], kd->work_dim, NULL, kd->global,\n"
    "                                 kd->uses_local ? kd->local : NULL, 0, NULL, NULL);\n"
    "    if (err != CL_SUCCESS) return err;\n"
    "  }\n"
    "  return CL_SUCCESS;\n"
    "}\n";

const char EXPORT_OPENCL_PICK_DEVICE[] =
    "/* Device want (an index among every platform's devices; -1: the first GPU,\n"
    " * else the first one), or NULL. */\n"
    "static cl_device_id cg_pick_device(int want) {\n"
    "  cl_platform_id plats[8];\n"
    "  cl_device_id devs[32];\n"
    "  cl_uint np = 0, nd = 0, i;\n"
    "  clGetPlatformIDs(8, plats, &np);\n"
    "  for (i = 0; i < np && nd < 32; i++) {\n"
    "    cl_uint k = 0;\n"
    "    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 32 - nd, devs + nd, &k) == CL_SUCCESS) nd += k;\n"
    "  }\n"
    "  for (i = 0; i < nd; i++) {\n"
    "    cl_device_type t;\n"
    "    clGetDeviceInfo(devs[i], CL_DEVICE_TYPE, sizeof t, &t, NULL);\n"
    "    if ((want < 0 && (t & CL_DEVICE_TYPE_GPU)) || (int)i == want) return devs[i];\n"
    "  }\n"
    "  return nd && want < 0 ? devs[0] : NULL;\n"
    "}\n"
    "\n";

const char EXPORT_NVRTC_COMPILE[] =
    "/* source compiled by NVRTC for dev (sm_XY): the cubin (malloc'd), or NULL\n"
    " * with NVRTC's log, under name, on stderr. */\n"
    "static char *cg_nvrtc_compile(const char *source, const char *name, CUdevice dev, CUresult *err) {\n"
    "  nvrtcProgram prog;\n"
    "  nvrtcResult r;\n"
    "  char arch[64], *cubin = NULL;\n"
    "  const char *opts[2];\n"
    "  int major = 0, minor = 0;\n"
    "  size_t n = 0;\n"
    "  *err = cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);\n"
    "  if (*err == CUDA_SUCCESS) *err = cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);\n"
    "  if (*err != CUDA_SUCCESS) return NULL;\n"
    "  snprintf(arch, sizeof arch, \"--gpu-architecture=sm_%d%d\", major, minor);\n"
    "  opts[0] = arch, opts[1] = \"-DCONVGEN_CUDA=1\";\n"
    "  *err = CUDA_ERROR_INVALID_SOURCE;\n"
    "  if (nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL) != NVRTC_SUCCESS) return NULL;\n"
    "  r = nvrtcCompileProgram(prog, 2, opts);\n"
    "  if (r != NVRTC_SUCCESS) {\n"
    "    char *log;\n"
    "    nvrtcGetProgramLogSize(prog, &n);\n"
    "    log = malloc(n + 1);\n"
    "    if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) {\n"
    "      log[n] = 0;\n"
    "      fprintf(stderr, \"%s: NVRTC could not compile it (%s, %s):\\n%s\\n\", name, arch, nvrtcGetErrorString(r), log);\n"
    "    }\n"
    "    free(log);\n"
    "  } else if (nvrtcGetCUBINSize(prog, &n) == NVRTC_SUCCESS && (cubin = malloc(n)) != NULL &&\n"
    "             nvrtcGetCUBIN(prog, cubin) != NVRTC_SUCCESS) {\n"
    "    free(cubin);\n"
    "    cubin = NULL;\n"
    "  }\n"
    "  nvrtcDestroyProgram(&prog);\n"
    "  if (cubin) *err = CUDA_SUCCESS;\n"
    "  return cubin;\n"
    "}\n"
    "\n";

static const char API_CUDA[] =
    "/* Compiles layer i's kernels with NVRTC for dev's architecture, loads them\n"
    " * into the current context and allocates its temporary buffers. NULL on\n"
    " * failure, with *err set (and NVRTC's log on stderr). */\n"
    "cgk_layer *cgk_create(int i, CUdevice dev, CUresult *err);\n"
    "/* Launches the layer's kernels on stream s, in order (bias may be 0 when the\n"
    " * layer has none). Returns CUDA_SUCCESS or the first error. */\n"
    "CUresult cgk_run(cgk_layer *l, CUstream s, CUdeviceptr x, CUdeviceptr weights, CUdeviceptr bias, CUdeviceptr out);\n"
    "/* The same for a layer with a residual (residual is 1; else it may be 0). */\n"
    "CUresult cgk_run_residual(cgk_layer *l, CUstream s, CUdeviceptr x, CUdeviceptr weights, CUdeviceptr bias,\n"
    "                          CUdeviceptr residual, CUdeviceptr out);\n"
    "void cgk_release(cgk_layer *l);\n"
    "\n";

static const char RUNTIME_CUDA[] =
    "struct cgk_layer {\n"
    "  const cgk_desc *d;\n"
    "  CUmodule module;\n"
    "  CUfunction kernels[CGK_MAX_KERNELS];\n"
    "  CUdeviceptr temps[CGK_MAX_TEMPS];\n"
    "};\n"
    "\n"
    "void cgk_release(cgk_layer *l) {\n"
    "  int i;\n"
    "  if (!l) return;\n"
    "  for (i = 0; i < CGK_MAX_TEMPS; i++)\n"
    "    if (l->temps[i]) cuMemFree(l->temps[i]);\n"
    "  if (l->module) cuModuleUnload(l->module);\n"
    "  free(l);\n"
    "}\n"
    "\n"
    "cgk_layer *cgk_create(int i, CUdevice dev, CUresult *err) {\n"
    "  cgk_layer *l;\n"
    "  char *cubin;\n"
    "  int k;\n"
    "  if (i < 0 || i >= cgk_nlayers) {\n"
    "    *err = CUDA_ERROR_INVALID_VALUE;\n"
    "    return NULL;\n"
    "  }\n"
    "  l = calloc(1, sizeof *l);\n"
    "  if (!l) {\n"
    "    *err = CUDA_ERROR_OUT_OF_MEMORY;\n"
    "    return NULL;\n"
    "  }\n"
    "  l->d = &cgk_descs[i];\n"
    "  cubin = cg_nvrtc_compile(cgk_descs[i].source, cgk_layers[i].name, dev, err);\n"
    "  if (!cubin) return cgk_release(l), NULL;\n"
    "  *err = cuModuleLoadData(&l->module, cubin);\n"
    "  free(cubin);\n"
    "  if (*err != CUDA_SUCCESS) return cgk_release(l), NULL;\n"
    "  for (k = 0; k < l->d->nkernels; k++) {\n"
    "    *err = cuModuleGetFunction(&l->kernels[k], l->module, l->d->kernels[k].name);\n"
    "    if (*err != CUDA_SUCCESS) return cgk_release(l), NULL;\n"
    "  }\n"
    "  for (k = 0; k < l->d->ntemps; k++) {\n"
    "    *err = cuMemAlloc(&l->temps[k], l->d->temp_bytes[k]);\n"
    "    if (*err != CUDA_SUCCESS) return cgk_release(l), NULL;\n"
    "  }\n"
    "  return l;\n"
    "}\n"
    "\n"
    "CUresult cgk_run(cgk_layer *l, CUstream s, CUdeviceptr x, CUdeviceptr weights, CUdeviceptr bias, CUdeviceptr out) {\n"
    "  return cgk_run_residual(l, s, x, weights, bias, 0, out);\n"
    "}\n"
    "\n"
    "CUresult cgk_run_residual(cgk_layer *l, CUstream s, CUdeviceptr x, CUdeviceptr weights, CUdeviceptr bias,\n"
    "                          CUdeviceptr residual, CUdeviceptr out) {\n"
    "  CUdeviceptr io[5], ptrs[CGK_MAX_ARGS];\n"
    "  void *params[CGK_MAX_ARGS];\n"
    "  int k, a;\n"
    "  io[0] = x, io[1] = weights, io[2] = bias, io[3] = out, io[4] = residual;\n"
    "  for (k = 0; k < l->d->nkernels; k++) {\n"
    "    const cgk_kernel_desc *kd = &l->d->kernels[k];\n"
    "    CUresult err;\n"
    "    for (a = 0; a < kd->nargs; a++) {\n"
    "      ptrs[a] = kd->args[a] < 5 ? io[kd->args[a]] : l->temps[kd->args[a] - 5];\n"
    "      params[a] = &ptrs[a];\n"
    "    }\n"
    "    err = cuLaunchKernel(l->kernels[k], kd->grid[0], kd->grid[1], kd->grid[2], kd->block[0], kd->block[1],\n"
    "                         kd->block[2], 0, s, params, NULL);\n"
    "    if (err != CUDA_SUCCESS) return err;\n"
    "  }\n"
    "  return CUDA_SUCCESS;\n"
    "}\n";

static const char EXAMPLE_OPENCL[] =
    "/* example.c: runs every exported layer on random inputs and checks the\n"
    " * output against a float64 convolution computed here (every output for\n"
    " * small layers, 2000 random ones for large ones), then times 10 runs.\n"
    " *   make && ./example [DEVICE_INDEX]     (default: the first GPU, else device 0) */\n"
;

static const char EXAMPLE_CUDA[] =
    "/* example.c: runs every exported layer on random inputs and checks the\n"
    " * output against a float64 convolution computed here (every output for\n"
    " * small layers, 2000 random ones for large ones), then times 10 runs.\n"
    " *   make && ./example [DEVICE_INDEX]     (default: CUDA device 0) */\n";

static const char EXAMPLE_COMMON[] =
    "#include \"convgen_kernels.h\"\n"
    "\n"
    "#include <errno.h>\n"
    "#include <limits.h>\n"
    "#include <math.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <time.h>\n"
    "\n"
    "/* The command line's DEVICE_INDEX (none: fallback) into *want; 0, or 2\n"
    " * after the usage error: not a whole number 0 or more, or more arguments. */\n"
    "static int device_arg(int argc, char **argv, int fallback, int *want) {\n"
    "  char *end = NULL;\n"
    "  long v = 0;\n"
    "  *want = fallback;\n"
    "  if (argc < 2) return 0;\n"
    "  errno = 0;\n"
    "  if (argc == 2) v = strtol(argv[1], &end, 10);\n"
    "  if (argc > 2 || end == argv[1] || *end || errno || v < 0 || v > INT_MAX) {\n"
    "    if (argc > 2) fprintf(stderr, \"example: one argument at most\\n\");\n"
    "    else fprintf(stderr, \"example: %s: not a device index (a whole number, 0 or more)\\n\", argv[1]);\n"
    "    fprintf(stderr, \"usage: example [DEVICE_INDEX]\\n\");\n"
    "    return 2;\n"
    "  }\n"
    "  *want = (int)v;\n"
    "  return 0;\n"
    "}\n"
    "\n"
    "static double now_s(void) {\n"
    "  struct timespec t;\n"
    "  clock_gettime(CLOCK_MONOTONIC, &t);\n"
    "  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;\n"
    "}\n"
    "\n"
    "static float *random_floats(size_t n, unsigned *seed) {\n"
    "  float *p = malloc(n * sizeof *p);\n"
    "  size_t i;\n"
    "  for (i = 0; p && i < n; i++) {\n"
    "    *seed = *seed * 1103515245u + 12345u;\n"
    "    p[i] = (float)((*seed >> 8) & 0xffff) / 32768.0f - 1.0f;\n"
    "  }\n"
    "  return p;\n"
    "}\n"
    "\n"
    "/* One output of the convolution, in float64. */\n"
    "static double conv_at(const cgk_layer_info *L, const float *x, const float *w, const float *b, const float *res,\n"
    "                      long idx) {\n"
    "  long ox = idx % L->out_w, oy = idx / L->out_w % L->out_h, o = idx / ((long)L->out_w * L->out_h) % L->k;\n"
    "  long nb = idx / ((long)L->out_w * L->out_h * L->k);\n"
    "  double s = (L->bias ? b[o] : 0.0) + (L->residual ? res[idx] : 0.0);\n"
    "  int ci, r, q, cg = L->c / L->groups, g = o / (L->k / L->groups);\n"
    "  for (ci = 0; ci < cg; ci++)\n"
    "    for (r = 0; r < L->kh; r++)\n"
    "      for (q = 0; q < L->kw; q++) {\n"
    "        long iy = oy * L->stride_h - L->pad_h + (long)r * L->dil_h, ix = ox * L->stride_w - L->pad_w + (long)q * L->dil_w;\n"
    "        if (iy < 0 || iy >= L->h || ix < 0 || ix >= L->w) continue;\n"
    "        s += (double)x[((nb * L->c + (long)g * cg + ci) * L->h + iy) * L->w + ix] *\n"
    "             (double)w[(((long)o * cg + ci) * L->kh + r) * L->kw + q];\n"
    "      }\n"
    "  switch (L->act) {\n"
    "  case 1: return s < 0 ? 0.0 : s;\n"
    "  case 2: return s < 0 ? 0.0 : s > 6 ? 6.0 : s;\n"
    "  case 3: return s < L->act_a ? L->act_a : s > L->act_b ? L->act_b : s;\n"
    "  case 4: return s > 0 ? s : L->act_a * s;\n"
    "  case 5: return 1.0 / (1.0 + exp(-s));\n"
    "  case 6: return s * (s + 3 < 0 ? 0.0 : s + 3 > 6 ? 6.0 : s + 3) / 6;\n"
    "  case 7: return s / (1.0 + exp(-s));\n"
    "  case 8: s = L->act_a * s + L->act_b; return s < 0 ? 0.0 : s > 1 ? 1.0 : s;\n"
    "  default: return s;\n"
    "  }\n"
    "}\n"
    "\n"
    "/* A layer's random inputs (drawn from seed) and its output, poisoned with\n"
    " * NaN: an output no kernel writes fails the check. */\n"
    "typedef struct host_data {\n"
    "  size_t nx, nw, no;\n"
    "  float *x, *w, *b, *r, *out;   /* r: the residual, no values */\n"
    "} host_data;\n"
    "\n"
    "static host_data host_data_new(const cgk_layer_info *L, unsigned seed) {\n"
    "  host_data h;\n"
    "  size_t j;\n"
    "  h.nx = (size_t)L->n * L->c * L->h * L->w, h.nw = (size_t)L->k * (L->c / L->groups) * L->kh * L->kw;\n"
    "  h.no = (size_t)L->n * L->k * L->out_h * L->out_w;\n"
    "  h.x = random_floats(h.nx, &seed), h.w = random_floats(h.nw, &seed), h.b = random_floats((size_t)L->k, &seed);\n"
    "  h.r = random_floats(h.no, &seed);\n"
    "  h.out = malloc(h.no * sizeof *h.out);\n"
    "  for (j = 0; h.out && j < h.no; j++) h.out[j] = NAN;\n"
    "  return h;\n"
    "}\n"
    "\n"
    "static void host_data_free(host_data *h) { free(h->x), free(h->w), free(h->b), free(h->r), free(h->out); }\n"
    "\n"
    "/* The output against conv_at: every output of a small layer, 2000 random\n"
    " * ones of a large one. Prints the layer's line (its time us per run);\n"
    " * returns 1 when it fails. */\n"
    "static int check_and_report(const cgk_layer_info *L, const host_data *h, double us) {\n"
    "  long checks = (double)h->no * (L->c / L->groups) * L->kh * L->kw < 2e8 ? (long)h->no : 2000, c;\n"
    "  double num = 0, den = 0, err;\n"
    "  for (c = 0; c < checks; c++) {\n"
    "    long idx = checks == (long)h->no ? c : (long)(((unsigned long)rand() * 2654435761ul) % h->no);\n"
    "    double want_v = conv_at(L, h->x, h->w, h->b, h->r, idx), got = h->out[idx];\n"
    "    if (!isfinite(got)) got = 1e30;\n"
    "    num += (got - want_v) * (got - want_v), den += want_v * want_v;\n"
    "  }\n"
    "  err = sqrt(num / (den > 0 ? den : 1));\n"
    "  printf(\"%-16s %s  relative L2 error %.2g over %ld outputs, %.1f us per run (tuned: %.1f us, %s %s)\\n\",\n"
    "         L->name, err <= 1e-4 ? \"PASS\" : \"FAIL\", err, checks, us, L->tuned_us, L->strategy, L->point);\n"
    "  return !(err <= 1e-4);\n"
    "}\n"
    "\n";

static const char MAIN_OPENCL[] =
    "int main(int argc, char **argv) {\n"
    "  int want, li, failed = 0;\n"
    "  cl_device_id dev;\n"
    "  cl_int err;\n"
    "  cl_context ctx;\n"
    "  cl_command_queue q;\n"
    "  char name[256];\n"
    "  if (device_arg(argc, argv, -1, &want)) return 2;\n"
    "  dev = cg_pick_device(want);\n"
    "  if (!dev) {\n"
    "    fprintf(stderr, \"example: no OpenCL device%s\\n\", want >= 0 ? \" with that index\" : \"\");\n"
    "    return 2;\n"
    "  }\n"
    "  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);\n"
    "  printf(\"device: %s\\n\", name);\n"
    "  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);\n"
    "  q = err == CL_SUCCESS ? clCreateCommandQueue(ctx, dev, 0, &err) : NULL;\n"
    "  if (err != CL_SUCCESS) {\n"
    "    fprintf(stderr, \"example: no context or queue (OpenCL error %d)\\n\", (int)err);\n"
    "    if (ctx) clReleaseContext(ctx);\n"
    "    return 2;\n"
    "  }\n"
    "  for (li = 0; li < cgk_nlayers; li++) {\n"
    "    const cgk_layer_info *L = &cgk_layers[li];\n"
    "    host_data h = host_data_new(L, 7u + (unsigned)li);\n"
    "    cl_mem dx, dw, db, dr, dout;\n"
    "    cgk_layer *l;\n"
    "    double t0;\n"
    "    int r;\n"
    "    dx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, h.nx * 4, h.x, &err);\n"
    "    dw = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, h.nw * 4, h.w, &err);\n"
    "    db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)L->k * 4, h.b, &err);\n"
    "    dr = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, h.no * 4, h.r, &err);\n"
    "    dout = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, h.no * 4, h.out, &err);   /* poisoned */\n"
    "    l = cgk_create(li, ctx, dev, &err);\n"
    "    if (!l || cgk_run_residual(l, q, dx, dw, L->bias ? db : NULL, L->residual ? dr : NULL, dout) != CL_SUCCESS ||\n"
    "        clEnqueueReadBuffer(q, dout, CL_TRUE, 0, h.no * 4, h.out, 0, NULL, NULL) != CL_SUCCESS) {\n"
    "      printf(\"%-16s FAIL: could not build or run (OpenCL error %d)\\n\", L->name, (int)err);\n"
    "      failed++;\n"
    "    } else {\n"
    "      clFinish(q);\n"
    "      t0 = now_s();\n"
    "      for (r = 0; r < 10; r++) cgk_run_residual(l, q, dx, dw, L->bias ? db : NULL, L->residual ? dr : NULL, dout);\n"
    "      clFinish(q);\n"
    "      failed += check_and_report(L, &h, (now_s() - t0) / 10 * 1e6);\n"
    "    }\n"
    "    cgk_release(l);\n"
    "    clReleaseMemObject(dx), clReleaseMemObject(dw), clReleaseMemObject(db), clReleaseMemObject(dr);\n"
    "    clReleaseMemObject(dout);\n"
    "    host_data_free(&h);\n"
    "  }\n"
    "  clReleaseCommandQueue(q);\n"
    "  clReleaseContext(ctx);\n"
    "  return failed ? 1 : 0;\n"
    "}\n";

static const char MAIN_CUDA[] =
    "static int cuda_fails(const char *what, CUresult r) {\n"
    "  const char *name = NULL;\n"
    "  if (r == CUDA_SUCCESS) return 0;\n"
    "  cuGetErrorName(r, &name);\n"
    "  fprintf(stderr, \"example: %s: %s\\n\", what, name ? name : \"unknown CUDA error\");\n"
    "  return 1;\n"
    "}\n"
    "\n"
    "int main(int argc, char **argv) {\n"
    "  int want, count = 0, li, failed = 0;\n"
    "  CUdevice dev;\n"
    "  CUcontext ctx;\n"
    "  CUstream q;\n"
    "  CUresult err;\n"
    "  char name[256];\n"
    "  if (device_arg(argc, argv, 0, &want)) return 2;\n"
    "  if (cuda_fails(\"cuInit\", cuInit(0)) || cuda_fails(\"cuDeviceGetCount\", cuDeviceGetCount(&count))) return 2;\n"
    "  if (want < 0 || want >= count) {\n"
    "    fprintf(stderr, \"example: no CUDA device %d (there are %d)\\n\", want, count);\n"
    "    return 2;\n"
    "  }\n"
    "  if (cuda_fails(\"cuDeviceGet\", cuDeviceGet(&dev, want)) ||\n"
    "      cuda_fails(\"cuDevicePrimaryCtxRetain\", cuDevicePrimaryCtxRetain(&ctx, dev)))\n"
    "    return 2;\n"
    "  if (cuda_fails(\"cuCtxSetCurrent\", cuCtxSetCurrent(ctx)) ||\n"
    "      cuda_fails(\"cuStreamCreate\", cuStreamCreate(&q, CU_STREAM_NON_BLOCKING)))\n"
    "    return cuDevicePrimaryCtxRelease(dev), 2;\n"
    "  cuDeviceGetName(name, sizeof name, dev);\n"
    "  printf(\"device: %s\\n\", name);\n"
    "  for (li = 0; li < cgk_nlayers; li++) {\n"
    "    const cgk_layer_info *L = &cgk_layers[li];\n"
    "    host_data h = host_data_new(L, 7u + (unsigned)li);\n"
    "    CUdeviceptr dx = 0, dw = 0, db = 0, dr = 0, dout = 0;\n"
    "    cgk_layer *l = NULL;\n"
    "    double t0;\n"
    "    int r;\n"
    "    err = cuMemAlloc(&dx, h.nx * 4);\n"
    "    if (err == CUDA_SUCCESS) err = cuMemAlloc(&dw, h.nw * 4);\n"
    "    if (err == CUDA_SUCCESS) err = cuMemAlloc(&db, (size_t)L->k * 4);\n"
    "    if (err == CUDA_SUCCESS) err = cuMemAlloc(&dr, h.no * 4);\n"
    "    if (err == CUDA_SUCCESS) err = cuMemAlloc(&dout, h.no * 4);\n"
    "    if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(dx, h.x, h.nx * 4);\n"
    "    if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(dw, h.w, h.nw * 4);\n"
    "    if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(db, h.b, (size_t)L->k * 4);\n"
    "    if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(dr, h.r, h.no * 4);\n"
    "    if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(dout, h.out, h.no * 4);   /* poisoned */\n"
    "    if (err == CUDA_SUCCESS) l = cgk_create(li, dev, &err);\n"
    "    if (l) err = cgk_run_residual(l, q, dx, dw, L->bias ? db : 0, L->residual ? dr : 0, dout);\n"
    "    if (l && err == CUDA_SUCCESS) err = cuStreamSynchronize(q);\n"
    "    if (l && err == CUDA_SUCCESS) err = cuMemcpyDtoH(h.out, dout, h.no * 4);\n"
    "    if (!l || err != CUDA_SUCCESS) {\n"
    "      const char *en = NULL;\n"
    "      cuGetErrorName(err, &en);\n"
    "      printf(\"%-16s FAIL: could not build or run (%s)\\n\", L->name, en ? en : \"unknown CUDA error\");\n"
    "      failed++;\n"
    "    } else {\n"
    "      t0 = now_s();\n"
    "      for (r = 0; r < 10; r++) cgk_run_residual(l, q, dx, dw, L->bias ? db : 0, L->residual ? dr : 0, dout);\n"
    "      cuStreamSynchronize(q);\n"
    "      failed += check_and_report(L, &h, (now_s() - t0) / 10 * 1e6);\n"
    "    }\n"
    "    cgk_release(l);\n"
    "    if (dx) cuMemFree(dx);\n"
    "    if (dw) cuMemFree(dw);\n"
    "    if (db) cuMemFree(db);\n"
    "    if (dr) cuMemFree(dr);\n"
    "    if (dout) cuMemFree(dout);\n"
    "    host_data_free(&h);\n"
    "  }\n"
    "  cuStreamDestroy(q);\n"
    "  cuDevicePrimaryCtxRelease(dev);\n"
    "  return failed ? 1 : 0;\n"
    "}\n";

static const char MAKEFILE_OPENCL[] =
    "# Builds the example that runs and checks the exported kernels.\n"
    "CC ?= cc\n"
    "CFLAGS ?= -O2 -std=c99 -Wall -D_POSIX_C_SOURCE=200809L\n"
    "example: example.c convgen_kernels.c convgen_kernels.h\n"
    "\t$(CC) $(CFLAGS) -o $@ example.c convgen_kernels.c -lOpenCL -lm\n"
    "clean:\n"
    "\trm -f example\n";

static const char MAKEFILE_CUDA[] =
    "# Builds the example that runs and checks the exported kernels: the CUDA\n"
    "# driver API (libcuda, which comes with the NVIDIA driver; the toolkit's stub\n"
    "# stands in at link time) and NVRTC, which compiles the kernels at run time.\n"
    "CC ?= cc\n"
    "CUDA ?= /usr/local/cuda\n"
    "CFLAGS ?= -O2 -std=c99 -Wall -D_POSIX_C_SOURCE=200809L\n"
    "example: example.c convgen_kernels.c convgen_kernels.h\n"
    "\t$(CC) $(CFLAGS) -I$(CUDA)/include -o $@ example.c convgen_kernels.c \\\n"
    "\t  -L$(CUDA)/lib64 -L$(CUDA)/lib64/stubs -Wl,-rpath,$(CUDA)/lib64 -lnvrtc -lcuda -lm\n"
    "clean:\n"
    "\trm -f example\n";

static bool write_file(DirWrite *w, const char *name, const char *text, Diag *d) {
  return dir_put(w, name, text, strlen(text), d);
}

/* ---- The kernels of a layer's best record ---- */

enum { EXPORT_CANDIDATES = 64 };   // the records export --profile tries per layer, fastest first

/* The dialect of target's kernels: CUDA C for a CUDA device, else OpenCL C. */
static const Dialect *export_dialect(const RtDeviceInfo *target) {
  return cg_dialect(rt_info_target(target));
}

/* A record's point compiled again for the target (the device, or the
 * profile, whose limits the lowered kernels are checked against too). */
static bool export_compile(Arena *a, const Layer *l, const char *lname, const DbBest *b, const RtDeviceInfo *target,
                           const char *header, CpResult *cr, Diag *d) {
  CpOptions co = {.through = CP_EMIT, .header = header, .target = export_dialect(target)};
  return ls_compile_record(a, b->m.strategy, b->m.point, l, lname, target, target->profile[0], &co, cr, d);
}

/* export_layer's kernels of one record: false with the reason in d. */
static bool record_kernels(Arena *a, const Layer *l, const char *name, const DbBest *b, const RtDeviceInfo *dev,
                           const RtDeviceInfo *target, ExportLayer *out, Diag *d) {
  const char *lname = arena_printf(a, "%s (strategy %s)", name, b->m.strategy);
  const char *header = target->profile[0]
      ? arena_printf(a, "%s (strategy %s; %s), for profile %s (%s), tuned on %s: %.1f us", name, b->m.strategy,
                     b->m.point, target->profile, target->name, dev->name, b->m.median_us)
      : arena_printf(a, "%s (strategy %s; %s), tuned on %s: %.1f us", name, b->m.strategy, b->m.point, dev->name,
                     b->m.median_us);
  CpResult cr;
  if (!export_compile(a, l, lname, b, target, header, &cr, d)) return false;
  tune_record_current(l, name, &b->m, dev, "convgen");   // a warning; its kernels are still the best guess
  char *json = cg_manifest_json(cr.lp, header, 0, NULL, NULL);
  *out = (ExportLayer){name, *l, b->m.strategy, b->m.point, b->m.median_us, cr.lp, cr.source, arena_strdup(a, json)};
  free(json);
  return true;
}

bool export_layer(Arena *a, Db *db, int64_t device, const Layer *l, const char *name, const RtDeviceInfo *dev,
                  const RtDeviceInfo *target, ExportLayer *out, Diag *d) {
  if (l->scale)   // the library's cgk_run has no argument for it; a network's export binds it (export MODEL.onnx)
    return diag_error(d, "%s: a layer with scale=1 is not exported alone (cgk_run takes no input scale); export the "
                      "ONNX model whose Mul it fuses", name);
  int64_t lid = db_find_layer(db, l, d);
  if (lid < 0) return false;
  DbBest *b = ARENA_ARRAY(a, DbBest, EXPORT_CANDIDATES);
  int nb = lid == 0 ? 0 : target->profile[0] ? db_best_n(db, a, lid, device, EXPORT_CANDIDATES, b)
                                             : db_best(db, a, lid, device, &b[0]);
  if (nb == 0)
    return diag_error(d, "%s: no correct kernel recorded on %s (convgen tune %s makes one)", name, dev->name, name);
  Diag why = {0};
  for (int k = 0; k < nb; k++) {
    why = (Diag){0};
    if (record_kernels(a, l, name, &b[k], dev, target, out, &why)) return true;
  }
  if (target->profile[0])
    return diag_error(d, "%s: none of the %d fastest records on %s fits profile %s (the last: %s %s: %s)", name, nb,
                      dev->name, target->profile, b[nb - 1].m.strategy, b[nb - 1].m.point, why.msg);
  return diag_error(d, "%s: the recorded point %s %s no longer compiles: %s", name, b[0].m.strategy, b[0].m.point,
                    why.msg);
}

/* The launch descriptions of layer e's kernels (id its C identifier),
 * appended to sb: for OpenCL the ND-range, for CUDA (cuda: the device's
 * limits) the grid and block rt_cuda_grid gives, as --target cuda launches
 * them. False with a Diag when a launch does not fit. */
static bool kernel_descs(StrBuf *sb, const ExportLayer *e, const char *id, const RtDeviceInfo *cuda, Diag *d) {
  sb_printf(sb, "static const cgk_kernel_desc kernels_%s[] = {\n", id);
  for (int k = 0; k < e->lp->nkernels; k++) {
    const LKernel *lk = e->lp->kernels[k];
    if (lk->nargs > 16) cg_die("export: kernel with %d arguments", lk->nargs);
    size_t g[3] = {lk->global[0], lk->work_dim > 1 ? lk->global[1] : 1, lk->work_dim > 2 ? lk->global[2] : 1};
    size_t l[3] = {lk->local[0], lk->work_dim > 1 ? lk->local[1] : 1, lk->work_dim > 2 ? lk->local[2] : 1};
    if (cuda) {
      size_t grid[3], block[3];
      if (!rt_cuda_grid(lk->name, lk->work_dim, lk->global, lk->uses_groups ? lk->local : NULL, cuda, grid, block, d))
        return false;
      sb_printf(sb, "    {\"%s\", {%zu, %zu, %zu}, {%zu, %zu, %zu}, %d, {", lk->name, grid[0], grid[1], grid[2],
                block[0], block[1], block[2], lk->nargs);
    } else {
      sb_printf(sb, "    {\"%s\", %d, {%zu, %zu, %zu}, {%zu, %zu, %zu}, %d, %d, {", lk->name, lk->work_dim, g[0], g[1],
                g[2], l[0], l[1], l[2], lk->uses_groups, lk->nargs);
    }
    for (int a = 0; a < lk->nargs; a++) sb_printf(sb, "%s%d", a ? ", " : "", arg_code(e->lp, lk->args[a]));
    sb_puts(sb, "}},\n");
  }
  sb_puts(sb, "};\n\n");
  return true;
}

bool export_write(const char *dir, const ExportLayer *ls, int n, const char *device, const RtDeviceInfo *target,
                  Diag *d) {
  bool cuda = export_dialect(target) == &CG_CUDA;
  Arena *a = arena_new();
  const char **ids = ARENA_ARRAY(a, const char *, (size_t)n + 1);   // each layer's C identifier
  for (int i = 0; i < n; i++) ids[i] = export_ident(a, ls[i].label[0] ? ls[i].label : "layer", i);
  StrBuf descs;   // the kernels' launch descriptions, checked before anything is written
  sb_init(&descs);
  for (int i = 0; i < n; i++)
    if (!kernel_descs(&descs, &ls[i], ids[i], cuda ? target : NULL, d)) {
      sb_free(&descs);
      arena_free(a);
      return false;
    }
  DirWrite w;
  if (!dir_begin(&w, dir, d)) {
    sb_free(&descs);
    arena_free(a);
    return false;
  }
  StrBuf c, h;
  sb_init(&c);
  sb_init(&h);
  sb_printf(&h, "/* convgen_kernels.h: generated by convgen %s for %s; do not edit. */\n", cg_version(), device);
  sb_puts(&h, "#ifndef CONVGEN_KERNELS_H\n#define CONVGEN_KERNELS_H\n\n");
  sb_printf(&h, "%s\n", cuda ? EXPORT_HEADER_CUDA : EXPORT_HEADER_OPENCL);
  sb_puts(&h, LAYER_INFO);
  sb_puts(&h, cuda ? API_CUDA : API_OPENCL);
  sb_puts(&h, "#endif\n");
  sb_printf(&c, "/* convgen_kernels.c: generated by convgen %s for %s; do not edit.\n", cg_version(), device);
  sb_puts(&c, " * The best kernels convgen tune found for each layer, with their launch\n"
              " * descriptions: build them with cgk_create, run them with cgk_run (cgk_run_residual for a layer with residual=1). */\n"
              "#include \"convgen_kernels.h\"\n\n");
  if (cuda) sb_puts(&c, "#include <nvrtc.h>\n");
  sb_puts(&c, "#include <stdio.h>\n#include <stdlib.h>\n\n");
  int max_k = 1, max_t = 1;
  for (int i = 0; i < n; i++) {
    int t = 0;
    for (int b = 0; b < ls[i].lp->nbuffers; b++) t += ls[i].lp->buffers[b]->role != MR_INPUT && ls[i].lp->buffers[b]->role != MR_OUTPUT;
    if (ls[i].lp->nkernels > max_k) max_k = ls[i].lp->nkernels;
    if (t > max_t) max_t = t;
  }
  sb_printf(&c, "#define CGK_MAX_KERNELS %d\n#define CGK_MAX_TEMPS %d\n#define CGK_MAX_ARGS 16\n\n", max_k, max_t);
  sb_puts(&c, "/* args: 0 x, 1 weights, 2 bias, 3 out, 4 residual, 5 + t temporary t */\ntypedef struct cgk_kernel_desc {\n"
              "  const char *name;\n");
  sb_puts(&c, cuda ? "  unsigned grid[3], block[3];   /* as convgen --target cuda launches it */\n"
                   : "  cl_uint work_dim;\n  size_t global[3], local[3];\n  int uses_local;\n");
  sb_puts(&c, "  int nargs;\n  int args[CGK_MAX_ARGS];\n} cgk_kernel_desc;\n\n"
              "typedef struct cgk_desc {\n  const char *source;\n  int nkernels;\n  const cgk_kernel_desc *kernels;\n"
              "  int ntemps;\n  size_t temp_bytes[CGK_MAX_TEMPS];\n} cgk_desc;\n\n");
  for (int i = 0; i < n; i++) {
    const ExportLayer *e = &ls[i];
    const char *id = ids[i];
    sb_printf(&c, "/* %s: strategy %s, %s */\nstatic const char source_%s[] =\n", e->label, e->strategy, e->point, id);
    export_c_string(&c, e->source);
    sb_puts(&c, ";\n\n");
  }
  sb_puts(&c, sb_str(&descs));
  sb_puts(&c, "static const cgk_desc cgk_descs[] = {\n");
  for (int i = 0; i < n; i++) {
    const ExportLayer *e = &ls[i];
    const char *id = ids[i];
    int t = 0;
    sb_printf(&c, "    {source_%s, %d, kernels_%s, ", id, e->lp->nkernels, id);
    StrBuf tb;
    sb_init(&tb);
    for (int b = 0; b < e->lp->nbuffers; b++) {
      const Mem *m = e->lp->buffers[b];
      if (m->role == MR_INPUT || m->role == MR_OUTPUT) continue;
      sb_printf(&tb, "%s%lld", t++ ? ", " : "", (long long)lw_mem_bytes(m));
    }
    sb_printf(&c, "%d, {%s}},\n", t, t ? sb_str(&tb) : "0");
    sb_free(&tb);
  }
  sb_printf(&c, "};\n\nconst int cgk_nlayers = %d;\n\nconst cgk_layer_info cgk_layers[] = {\n", n);
  for (int i = 0; i < n; i++) {
    const ExportLayer *e = &ls[i];
    const Layer *l = &e->layer;
    StrBuf spec;
    sb_init(&spec);
    layer_format(&spec, l);
    _Static_assert(ACT_NONE == 0 && ACT_RELU == 1 && ACT_RELU6 == 2 && ACT_CLIP == 3 && ACT_LEAKY == 4 &&
                       ACT_SIGMOID == 5 && ACT_HARDSWISH == 6 && ACT_SILU == 7 && ACT_HARDSIGMOID == 8,
                   "the exported conv_at numbers the activations as LayerAct does");
    sb_printf(&c, "    {\"%s\", \"%s\", \"%s\", \"%s\", %.1f, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, "
              "%d, %d, %d, %.9g, %.9g, %d},\n",
              e->label, sb_str(&spec), e->strategy, e->point, e->median_us, l->n, l->c, l->h, l->w, l->k, l->kh, l->kw,
              l->stride_h, l->stride_w, l->pad_h, l->pad_w, l->bias, (int)l->act, l->out_h, l->out_w, l->dil_h, l->dil_w,
              layer_groups(l), (double)l->act_a, (double)l->act_b, l->residual);
    sb_free(&spec);
  }
  sb_puts(&c, "};\n\n");
  if (cuda) sb_puts(&c, EXPORT_NVRTC_COMPILE);
  sb_puts(&c, cuda ? RUNTIME_CUDA : RUNTIME_OPENCL);
  const char *example = arena_printf(a, "%s%s\n%s%s", cuda ? EXAMPLE_CUDA : EXAMPLE_OPENCL, EXAMPLE_COMMON,
                                     cuda ? "" : EXPORT_OPENCL_PICK_DEVICE, cuda ? MAIN_CUDA : MAIN_OPENCL);
  bool ok = write_file(&w, "convgen_kernels.h", sb_str(&h), d) && write_file(&w, "convgen_kernels.c", sb_str(&c), d) &&
            write_file(&w, "example.c", example, d) && write_file(&w, "Makefile", cuda ? MAKEFILE_CUDA : MAKEFILE_OPENCL, d);
  for (int i = 0; ok && i < n; i++) {
    const char *id = ids[i];
    ok = write_file(&w, arena_printf(a, "%s.%s", id, cuda ? "cu" : "cl"), ls[i].source, d) &&
         write_file(&w, arena_printf(a, "%s.json", id), ls[i].manifest, d);
  }
  if (ok) ok = dir_commit(&w, d);
  else dir_abort(&w);
  sb_free(&c);
  sb_free(&h);
  sb_free(&descs);
  arena_free(a);
  return ok;
}
