/* export_net.c: the files of `convgen export MODEL.onnx` (export_net.h).
 *
 * The generated C is plain C99 over the OpenCL 1.2 API, or under CUDA over
 * the driver API and NVRTC. convgen_net.c is tables, then a runtime: the
 * sources (string literals, so that the program needs no kernel file at
 * run time), the device memory (the plan's activation buffers, then the
 * constant arrays at their offsets in weights.bin, then the temporaries:
 * the shared slots, each as large as the largest step's, then each step's
 * kept ones), and one row per kernel launch in run order: its node, its
 * source and kernel, its launch size, its arguments, each a device memory,
 * and whether it runs once (computed from the weights alone: the first
 * cgn_enqueue only). cgn_create makes the memory, builds every source once
 * and binds every launch to its memory once; a run only enqueues. The two targets share the tables, the weights' reader and
 * main.c's checks; their runtime and device setup are the *_OPENCL and
 * *_CUDA texts below.
 */
#include "net/export_net.h"

#include "tune/export.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Text ---- */

/* s as the inside of a C comment: printable, no comment end, no trigraph. */
static void comment(StrBuf *sb, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    sb_putc(sb, c < 32 || c > 126 || c == '*' || c == '?' || c == '\\' ? '_' : (char)c);
  }
}

/* s as a C string literal (quotes, backslashes, '?' against trigraphs,
 * other bytes in octal). */
static void quoted(StrBuf *sb, const char *s) {
  sb_putc(sb, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\' || c == '?') sb_printf(sb, "\\%c", c);
    else if (c < 32 || c > 126) sb_printf(sb, "\\%03o", c);
    else sb_putc(sb, (char)c);
  }
  sb_putc(sb, '"');
}

/* s as words of letters and digits, each run of other characters one '_',
 * none at either end. */
static void file_words(StrBuf *sb, const char *s) {
  for (; *s; s++) {
    if (isalnum((unsigned char)*s)) sb_putc(sb, *s);
    else if (sb->len && sb->data[sb->len - 1] != '_') sb_putc(sb, '_');
  }
  if (sb->len && sb->data[sb->len - 1] == '_') sb->data[--sb->len] = '\0';
}

/* A file name for source i: its first node's name as words
 * (/m/features/features.1/block/block.3/MatMul gives
 * m_features_features_1_block_block_3_MatMul), cut when longer than 64
 * characters to its last words (they say what the node is) from one that
 * starts with a letter, then _i; for a node without a name (onnx.c's #K) or
 * without a letter in it, its operator's. */
static const char *source_file(Arena *a, const NetPrepared *net, int i, bool cuda) {
  enum { MAX = 64 };
  StrBuf sb;
  sb_init(&sb);
  for (int k = 0; k < net->nsteps; k++)
    if (net->steps[k].source == i) {
      file_words(&sb, net->steps[k].node->name);
      size_t n = 0;
      while (n < sb.len && !isalpha((unsigned char)sb.data[n])) n++;
      if (n == sb.len) {
        sb_free(&sb);
        file_words(&sb, net->steps[k].node->op);
      }
      break;
    }
  const char *w = sb.len ? sb_str(&sb) : "node";
  size_t len = strlen(w);
  if (len > MAX) {
    const char *cut = w + len - MAX;
    while (*cut && !(cut[-1] == '_' && isalpha((unsigned char)*cut))) cut++;
    w = *cut ? cut : w + len - MAX;
  }
  const char *r = arena_printf(a, "%s_%d.%s", w, i, cuda ? "cu" : "cl");
  sb_free(&sb);
  return r;
}

/* n floats as float32 little-endian bytes into out; FNV-1a (32-bit) over
 * them continued from *hash. */
static void le_floats(const float *v, int64_t n, unsigned char *out, uint32_t *hash) {
  cg_floats_to_le(v, n, out);
  for (int64_t i = 0; i < 4 * n; i++) *hash = (*hash ^ out[i]) * 16777619u;
}

/* ---- What the files say, per target ---- */


static const char NET_INFO[] =
    "\n"
    "/* A graph input or output: float32, row-major (NCHW for an image). A network\n"
    " * exported in fp16 keeps its tensors in half on the device: cgn_run rounds\n"
    " * the inputs to half and widens the outputs, so its callers see float32. */\n"
    "typedef struct cgn_tensor {\n"
    "  const char *name;   /* the model's name for it */\n"
    "  int rank;\n"
    "  long dims[8];\n"
    "  long n;             /* its elements */\n"
    "  const char *file;   /* the export's values: the input convgen ran, the output it computed */\n"
    "  double tol;         /* an output's check: the largest relative L2 error that passes (convgen infer's) */\n"
    "} cgn_tensor;\n"
    "\n"
    "extern const char cgn_model[];   /* the model's file, as convgen read it */\n"
    "extern const int cgn_ninputs, cgn_noutputs;\n"
    "extern const cgn_tensor cgn_inputs[], cgn_outputs[];\n"
    "extern const int cgn_nsteps, cgn_nlaunches, cgn_nbuffers;   /* nodes run, kernels launched a run, activation buffers */\n"
    "extern const long cgn_activation_bytes, cgn_weight_bytes, cgn_temp_bytes;   /* the device memory */\n"
    "\n"
    "typedef struct cgn_net cgn_net;\n"
    "\n";

static const char API_OPENCL[] =
    "/* Reads weights_path (weights.bin), makes the device memory (the constant\n"
    " * arrays uploaded, the rest poisoned with NaN), builds every source for dev\n"
    " * and binds every kernel to its buffers. NULL on failure, with *err set and\n"
    " * the reason on stderr. */\n"
    "cgn_net *cgn_create(cl_context ctx, cl_device_id dev, const char *weights_path, cl_int *err);\n"
    "/* Enqueues one run of the network on q (an in-order queue) on the inputs\n"
    " * last written. */\n"
    "cl_int cgn_enqueue(cgn_net *net, cl_command_queue q);\n"
    "/* Writes the inputs (cgn_inputs[i].n floats each), runs the network and\n"
    " * reads the outputs (cgn_outputs[i].n floats each); blocks. */\n"
    "cl_int cgn_run(cgn_net *net, cl_command_queue q, const float *const *inputs, float *const *outputs);\n"
    "void cgn_release(cgn_net *net);\n";

static const char API_CUDA[] =
    "/* Reads weights_path (weights.bin), makes the device memory in the current\n"
    " * context (the constant arrays uploaded, the rest poisoned with NaN),\n"
    " * compiles every source with NVRTC for dev's architecture and loads it.\n"
    " * NULL on failure, with *err set and the reason on stderr. */\n"
    "cgn_net *cgn_create(CUdevice dev, const char *weights_path, CUresult *err);\n"
    "/* Launches one run of the network on stream s on the inputs last written. */\n"
    "CUresult cgn_enqueue(cgn_net *net, CUstream s);\n"
    "/* Writes the inputs (cgn_inputs[i].n floats each), runs the network and\n"
    " * reads the outputs (cgn_outputs[i].n floats each); blocks. */\n"
    "CUresult cgn_run(cgn_net *net, CUstream s, const float *const *inputs, float *const *outputs);\n"
    "void cgn_release(cgn_net *net);\n";

/* The tables' types, after the sizes (CGN_*) are defined. */
static const char TYPES_OPENCL[] =
    "typedef struct cgn_launch {\n"
    "  const char *node;       /* the node whose kernel it is */\n"
    "  int source;             /* its source, and the kernel's name there */\n"
    "  const char *kernel;\n"
    "  cl_uint work_dim;\n"
    "  size_t global[3], local[3];\n"
    "  int uses_local;         /* launched with its local size (else the driver's) */\n"
    "  int once;               /* computed from the weights alone: run in the first run only, its result kept */\n"
    "  int nargs;\n"
    "  int args[CGN_MAX_ARGS]; /* each a device memory: CGN_B(i), CGN_C(i), CGN_T(i) */\n"
    "} cgn_launch;\n"
    "\n";

static const char TYPES_CUDA[] =
    "typedef struct cgn_launch {\n"
    "  const char *node;       /* the node whose kernel it is */\n"
    "  int source;             /* its source, and the kernel's name there */\n"
    "  const char *kernel;\n"
    "  unsigned grid[3], block[3];   /* as convgen --target cuda launched it */\n"
    "  int once;               /* computed from the weights alone: run in the first run only, its result kept */\n"
    "  int nargs;\n"
    "  int args[CGN_MAX_ARGS]; /* each a device memory: CGN_B(i), CGN_C(i), CGN_T(i) */\n"
    "} cgn_launch;\n"
    "\n";

/* weights.bin's reader and the poison, for both targets. */
static const char RUNTIME_COMMON[] =
    "/* weights.bin: CGN_WEIGHT_FLOATS float32 little-endian values, their\n"
    " * FNV-1a hash cgn_weights_hash. malloc'd, or NULL with the reason on stderr. */\n"
    "static float *cgn_read_weights(const char *path) {\n"
    "  long n = CGN_WEIGHT_FLOATS * 4L, got, i;\n"
    "  unsigned char *bytes = malloc((size_t)n + 1);\n"
    "  float *w = malloc((size_t)n + 4);\n"
    "  uint32_t hash = 2166136261u;\n"
    "  FILE *f = fopen(path, \"rb\");\n"
    "  if (!f || !bytes || !w) {\n"
    "    fprintf(stderr, \"%s: cannot read it\\n\", path);\n"
    "    if (f) fclose(f);\n"
    "    free(bytes), free(w);\n"
    "    return NULL;\n"
    "  }\n"
    "  got = (long)fread(bytes, 1, (size_t)n + 1, f);\n"
    "  fclose(f);\n"
    "  for (i = 0; i < got && i < n; i++) hash = (hash ^ bytes[i]) * 16777619u;\n"
    "  if (got != n || hash != cgn_weights_hash) {\n"
    "    fprintf(stderr, \"%s: not the weights of this export (%ld bytes, want %ld; hash %08lx, want %08lx)\\n\", path,\n"
    "            got, n, (unsigned long)hash, (unsigned long)cgn_weights_hash);\n"
    "    free(bytes), free(w);\n"
    "    return NULL;\n"
    "  }\n"
    "  for (i = 0; i < CGN_WEIGHT_FLOATS; i++) {\n"
    "    uint32_t u = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 | (uint32_t)bytes[4 * i + 2] << 16 |\n"
    "                 (uint32_t)bytes[4 * i + 3] << 24;\n"
    "    memcpy(&w[i], &u, sizeof u);\n"
    "  }\n"
    "  free(bytes);\n"
    "  return w;\n"
    "}\n"
    "\n"
    "/* NaN, as many as the largest memory that is not a constant holds: what no\n"
    " * kernel writes shows up. Bytes of all ones, a NaN as float and as half. */\n"
    "static unsigned char *cgn_poison(void) {\n"
    "  long most = 4, i;\n"
    "  unsigned char *p;\n"
    "  for (i = 0; i < CGN_NMEMS; i++)\n"
    "    if (cgn_mems[i].offset < 0 && cgn_mems[i].bytes > most) most = cgn_mems[i].bytes;\n"
    "  p = malloc((size_t)most);\n"
    "  if (p) memset(p, 0xff, (size_t)most);\n"
    "  return p;\n"
    "}\n"
    "\n"
    "/* f rounded to IEEE half (to nearest, ties to even; past 65504 infinity),\n"
    " * and a half widened to float, exactly. */\n"
    "static uint16_t cgn_to_half(float f) {\n"
    "  uint32_t u, a, v;\n"
    "  uint16_t sign;\n"
    "  memcpy(&u, &f, sizeof u);\n"
    "  sign = (uint16_t)(u >> 16 & 0x8000u), a = u & 0x7fffffffu;\n"
    "  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);   /* NaN */\n"
    "  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  /* rounds past 65504, or infinite */\n"
    "  if (a < 0x38800000u) {   /* under 2^-14: in units of 2^-24 (the scaling is exact), rounded to even */\n"
    "    float x = fabsf(f) * 16777216.0f;\n"
    "    uint32_t i = (uint32_t)x;\n"
    "    float rest = x - (float)i;   /* exact: x is below 1024 */\n"
    "    if (rest > 0.5f || (rest == 0.5f && (i & 1u))) i++;   /* whatever the rounding mode */\n"
    "    return (uint16_t)(sign | i);\n"
    "  }\n"
    "  v = a - 0x38000000u;   /* the exponent's bias 127 made 15 */\n"
    "  return (uint16_t)(sign | (v + 0xfffu + (v >> 13 & 1u)) >> 13);\n"
    "}\n"
    "\n"
    "static float cgn_from_half(uint16_t h) {\n"
    "  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (uint32_t)h >> 10 & 31u, m = h & 1023u, u;\n"
    "  float f;\n"
    "  if (e == 0) return sign ? -ldexpf((float)m, -24) : ldexpf((float)m, -24);\n"
    "  u = sign | (e == 31 ? 0x7f800000u | m << 13 : (e + 112u) << 23 | m << 13);\n"
    "  memcpy(&f, &u, sizeof f);\n"
    "  return f;\n"
    "}\n"
    "\n"
    "/* n floats as the device holds them (CGN_ELEM_BYTES each): themselves, or\n"
    " * rounded to half into to. */\n"
    "static const void *cgn_to_device(const float *v, long n, uint16_t *to) {\n"
    "  long i;\n"
    "  if (CGN_ELEM_BYTES == 4) return v;\n"
    "  for (i = 0; i < n; i++) to[i] = cgn_to_half(v[i]);\n"
    "  return to;\n"
    "}\n"
    "\n"
    "/* A float32 host array for n of the device's elements: to itself, or a\n"
    " * half array from which cgn_from_device widens them into to. */\n"
    "static void *cgn_device_place(float *to, uint16_t *half) {\n"
    "  return CGN_ELEM_BYTES == 4 ? (void *)to : (void *)half;\n"
    "}\n"
    "\n"
    "static void cgn_from_device(float *to, long n, const uint16_t *half) {\n"
    "  long i;\n"
    "  for (i = 0; CGN_ELEM_BYTES == 2 && i < n; i++) to[i] = cgn_from_half(half[i]);\n"
    "}\n"
    "\n"
    "/* The weights as the device holds them: w itself, or their halves in *half\n"
    " * (malloc'd); NULL when out of memory. */\n"
    "static const unsigned char *cgn_device_weights(const float *w, uint16_t **half) {\n"
    "  *half = NULL;\n"
    "  if (!w || CGN_ELEM_BYTES == 4) return (const unsigned char *)w;\n"
    "  *half = malloc((size_t)CGN_WEIGHT_FLOATS * 2 + 2);\n"
    "  return *half ? (const unsigned char *)cgn_to_device(w, CGN_WEIGHT_FLOATS, *half) : NULL;\n"
    "}\n"
    "\n"
    "/* What cgn_create uploads, for both runtimes: the weights read from path\n"
    " * (*w), as the device holds them (*dw: *w, or its halves in *half), and\n"
    " * the poison. 0, 1 when out of host memory, 2 when path is not this\n"
    " * export's weights; the caller frees *w, *half and *poison. */\n"
    "static int cgn_host_arrays(const char *path, float **w, uint16_t **half, const unsigned char **dw,\n"
    "                           unsigned char **poison) {\n"
    "  *w = cgn_read_weights(path), *poison = cgn_poison();\n"
    "  *dw = cgn_device_weights(*w, half);\n"
    "  return !*poison || (*w && !*dw) ? 1 : !*w ? 2 : 0;\n"
    "}\n"
    "\n"
    "/* cgn_run's staging in fp16: halves for the largest graph input or\n"
    " * output (malloc'd; NULL when out of memory); NULL in fp32, which needs none. */\n"
    "static uint16_t *cgn_staging(void) {\n"
    "  long most = 1;\n"
    "  int i;\n"
    "  if (CGN_ELEM_BYTES == 4) return NULL;\n"
    "  for (i = 0; i < cgn_ninputs; i++) most = cgn_inputs[i].n > most ? cgn_inputs[i].n : most;\n"
    "  for (i = 0; i < cgn_noutputs; i++) most = cgn_outputs[i].n > most ? cgn_outputs[i].n : most;\n"
    "  return malloc((size_t)most * 2);\n"
    "}\n"
    "\n";

static const char RUNTIME_OPENCL[] =
    "struct cgn_net {\n"
    "  cl_program programs[CGN_NSOURCES];\n"
    "  cl_kernel kernels[CGN_NLAUNCHES];\n"
    "  cl_mem mems[CGN_NMEMS];\n"
    "  int prepared;   /* the launches run once have run */\n"
    "};\n"
    "\n"
    "void cgn_release(cgn_net *net) {\n"
    "  int i;\n"
    "  if (!net) return;\n"
    "  for (i = 0; i < CGN_NLAUNCHES; i++)\n"
    "    if (net->kernels[i]) clReleaseKernel(net->kernels[i]);\n"
    "  for (i = 0; i < CGN_NSOURCES; i++)\n"
    "    if (net->programs[i]) clReleaseProgram(net->programs[i]);\n"
    "  for (i = 0; i < CGN_NMEMS; i++)\n"
    "    if (net->mems[i]) clReleaseMemObject(net->mems[i]);\n"
    "  free(net);\n"
    "}\n"
    "\n"
    "/* Source i built for dev; NULL with the build log on stderr. */\n"
    "static cl_program cgn_build(int i, cl_context ctx, cl_device_id dev, cl_int *err) {\n"
    "  const char *src = cgn_sources[i];\n"
    "  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, err);\n"
    "  if (*err != CL_SUCCESS) return NULL;\n"
    "  *err = clBuildProgram(p, 1, &dev, \"-cl-std=CL1.2\", NULL, NULL);\n"
    "  if (*err != CL_SUCCESS) {\n"
    "    size_t n = 0;\n"
    "    char *log;\n"
    "    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);\n"
    "    log = malloc(n + 1);\n"
    "    if (log && clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {\n"
    "      log[n] = 0;\n"
    "      fprintf(stderr, \"%s: build failed (OpenCL error %d):\\n%s\\n\", cgn_source_files[i], (int)*err, log);\n"
    "    }\n"
    "    free(log);\n"
    "    clReleaseProgram(p);\n"
    "    return NULL;\n"
    "  }\n"
    "  return p;\n"
    "}\n"
    "\n"
    "/* The memory, the programs and the kernels, each kernel's arguments set once. */\n"
    "static cl_int cgn_setup(cgn_net *net, cl_context ctx, cl_device_id dev, const unsigned char *w,\n"
    "                        unsigned char *poison) {\n"
    "  int i, a;\n"
    "  cl_int err = CL_SUCCESS;\n"
    "  for (i = 0; i < CGN_NMEMS && err == CL_SUCCESS; i++) {\n"
    "    const cgn_mem *m = &cgn_mems[i];\n"
    "    void *from = m->offset >= 0 ? (void *)(w + m->offset * CGN_ELEM_BYTES) : (void *)poison;\n"
    "    net->mems[i] = clCreateBuffer(ctx, (m->offset >= 0 ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE) | CL_MEM_COPY_HOST_PTR,\n"
    "                                  (size_t)m->bytes, from, &err);\n"
    "  }\n"
    "  for (i = 0; i < CGN_NSOURCES && err == CL_SUCCESS; i++) net->programs[i] = cgn_build(i, ctx, dev, &err);\n"
    "  for (i = 0; i < CGN_NLAUNCHES && err == CL_SUCCESS; i++) {\n"
    "    const cgn_launch *l = &cgn_launches[i];\n"
    "    net->kernels[i] = clCreateKernel(net->programs[l->source], l->kernel, &err);\n"
    "    for (a = 0; a < l->nargs && err == CL_SUCCESS; a++)\n"
    "      err = clSetKernelArg(net->kernels[i], (cl_uint)a, sizeof(cl_mem), &net->mems[l->args[a]]);\n"
    "    if (err != CL_SUCCESS) fprintf(stderr, \"node %s: kernel %s: OpenCL error %d\\n\", l->node, l->kernel, (int)err);\n"
    "  }\n"
    "  return err;\n"
    "}\n"
    "\n"
    "cgn_net *cgn_create(cl_context ctx, cl_device_id dev, const char *weights_path, cl_int *err) {\n"
    "  cgn_net *net = calloc(1, sizeof *net);\n"
    "  float *w;\n"
    "  uint16_t *half;\n"
    "  const unsigned char *dw;\n"
    "  unsigned char *poison;\n"
    "  int bad = cgn_host_arrays(weights_path, &w, &half, &dw, &poison);\n"
    "  *err = !net || bad == 1 ? CL_OUT_OF_HOST_MEMORY : bad ? CL_INVALID_VALUE : cgn_setup(net, ctx, dev, dw, poison);\n"
    "  free(w), free(half), free(poison);\n"
    "  if (*err == CL_SUCCESS) return net;\n"
    "  cgn_release(net);\n"
    "  return NULL;\n"
    "}\n"
    "\n"
    "cl_int cgn_enqueue(cgn_net *net, cl_command_queue q) {\n"
    "  int i;\n"
    "  for (i = 0; i < CGN_NLAUNCHES; i++) {\n"
    "    const cgn_launch *l = &cgn_launches[i];\n"
    "    cl_int err;\n"
    "    if (l->once && net->prepared) continue;\n"
    "    err = clEnqueueNDRangeKernel(q, net->kernels[i], l->work_dim, NULL, l->global,\n"
    "                                 l->uses_local ? l->local : NULL, 0, NULL, NULL);\n"
    "    if (err != CL_SUCCESS) {\n"
    "      fprintf(stderr, \"node %s: kernel %s: OpenCL error %d\\n\", l->node, l->kernel, (int)err);\n"
    "      return err;\n"
    "    }\n"
    "  }\n"
    "  net->prepared = 1;\n"
    "  return CL_SUCCESS;\n"
    "}\n"
    "\n"
    "cl_int cgn_run(cgn_net *net, cl_command_queue q, const float *const *inputs, float *const *outputs) {\n"
    "  cl_int err = CL_SUCCESS;\n"
    "  uint16_t *half = cgn_staging();\n"
    "  int i;\n"
    "  if (CGN_ELEM_BYTES == 2 && !half) return CL_OUT_OF_HOST_MEMORY;\n"
    "  for (i = 0; i < cgn_ninputs && err == CL_SUCCESS; i++)\n"
    "    err = clEnqueueWriteBuffer(q, net->mems[cgn_input_mem[i]], CL_TRUE, 0, (size_t)cgn_inputs[i].n * CGN_ELEM_BYTES,\n"
    "                               cgn_to_device(inputs[i], cgn_inputs[i].n, half), 0, NULL, NULL);\n"
    "  if (err == CL_SUCCESS) err = cgn_enqueue(net, q);\n"
    "  for (i = 0; i < cgn_noutputs && err == CL_SUCCESS; i++) {\n"
    "    err = clEnqueueReadBuffer(q, net->mems[cgn_output_mem[i]], CL_TRUE, 0, (size_t)cgn_outputs[i].n * CGN_ELEM_BYTES,\n"
    "                              cgn_device_place(outputs[i], half), 0, NULL, NULL);\n"
    "    if (err == CL_SUCCESS) cgn_from_device(outputs[i], cgn_outputs[i].n, half);\n"
    "  }\n"
    "  free(half);\n"
    "  return err;\n"
    "}\n";

static const char RUNTIME_CUDA[] =
    "struct cgn_net {\n"
    "  CUmodule modules[CGN_NSOURCES];\n"
    "  CUfunction functions[CGN_NLAUNCHES];\n"
    "  CUdeviceptr mems[CGN_NMEMS];\n"
    "  void *params[CGN_NLAUNCHES][CGN_MAX_ARGS];   /* each launch's arguments: &mems[...] */\n"
    "  int prepared;   /* the launches run once have run */\n"
    "};\n"
    "\n"
    "void cgn_release(cgn_net *net) {\n"
    "  int i;\n"
    "  if (!net) return;\n"
    "  for (i = 0; i < CGN_NMEMS; i++)\n"
    "    if (net->mems[i]) cuMemFree(net->mems[i]);\n"
    "  for (i = 0; i < CGN_NSOURCES; i++)\n"
    "    if (net->modules[i]) cuModuleUnload(net->modules[i]);\n"
    "  free(net);\n"
    "}\n"
    "\n"
    "/* The memory, the modules and the functions, each launch's arguments made once. */\n"
    "static CUresult cgn_setup(cgn_net *net, CUdevice dev, const unsigned char *w, unsigned char *poison) {\n"
    "  int i, a;\n"
    "  CUresult err = CUDA_SUCCESS;\n"
    "  for (i = 0; i < CGN_NMEMS && err == CUDA_SUCCESS; i++) {\n"
    "    const cgn_mem *m = &cgn_mems[i];\n"
    "    err = cuMemAlloc(&net->mems[i], (size_t)m->bytes);\n"
    "    if (err == CUDA_SUCCESS)\n"
    "      err = cuMemcpyHtoD(net->mems[i], m->offset >= 0 ? w + m->offset * CGN_ELEM_BYTES : poison, (size_t)m->bytes);\n"
    "  }\n"
    "  for (i = 0; i < CGN_NSOURCES && err == CUDA_SUCCESS; i++) {\n"
    "    char *cubin = cg_nvrtc_compile(cgn_sources[i], cgn_source_files[i], dev, &err);\n"
    "    if (cubin) err = cuModuleLoadData(&net->modules[i], cubin);\n"
    "    free(cubin);\n"
    "  }\n"
    "  for (i = 0; i < CGN_NLAUNCHES && err == CUDA_SUCCESS; i++) {\n"
    "    const cgn_launch *l = &cgn_launches[i];\n"
    "    err = cuModuleGetFunction(&net->functions[i], net->modules[l->source], l->kernel);\n"
    "    for (a = 0; a < l->nargs; a++) net->params[i][a] = &net->mems[l->args[a]];\n"
    "  }\n"
    "  return err;\n"
    "}\n"
    "\n"
    "cgn_net *cgn_create(CUdevice dev, const char *weights_path, CUresult *err) {\n"
    "  cgn_net *net = calloc(1, sizeof *net);\n"
    "  float *w;\n"
    "  uint16_t *half;\n"
    "  const unsigned char *dw;\n"
    "  unsigned char *poison;\n"
    "  int bad = cgn_host_arrays(weights_path, &w, &half, &dw, &poison);\n"
    "  *err = !net || bad == 1 ? CUDA_ERROR_OUT_OF_MEMORY : bad ? CUDA_ERROR_INVALID_VALUE : cgn_setup(net, dev, dw, poison);\n"
    "  free(w), free(half), free(poison);\n"
    "  if (*err == CUDA_SUCCESS) return net;\n"
    "  cgn_release(net);\n"
    "  return NULL;\n"
    "}\n"
    "\n"
    "CUresult cgn_enqueue(cgn_net *net, CUstream s) {\n"
    "  int i;\n"
    "  for (i = 0; i < CGN_NLAUNCHES; i++) {\n"
    "    const cgn_launch *l = &cgn_launches[i];\n"
    "    CUresult err;\n"
    "    if (l->once && net->prepared) continue;\n"
    "    err = cuLaunchKernel(net->functions[i], l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],\n"
    "                         l->block[2], 0, s, net->params[i], NULL);\n"
    "    if (err != CUDA_SUCCESS) {\n"
    "      const char *name = NULL;\n"
    "      cuGetErrorName(err, &name);\n"
    "      fprintf(stderr, \"node %s: kernel %s: %s\\n\", l->node, l->kernel, name ? name : \"unknown CUDA error\");\n"
    "      return err;\n"
    "    }\n"
    "  }\n"
    "  net->prepared = 1;\n"
    "  return CUDA_SUCCESS;\n"
    "}\n"
    "\n"
    "CUresult cgn_run(cgn_net *net, CUstream s, const float *const *inputs, float *const *outputs) {\n"
    "  CUresult err = CUDA_SUCCESS;\n"
    "  uint16_t *half = cgn_staging();\n"
    "  int i;\n"
    "  if (CGN_ELEM_BYTES == 2 && !half) return CUDA_ERROR_OUT_OF_MEMORY;\n"
    "  for (i = 0; i < cgn_ninputs && err == CUDA_SUCCESS; i++) {   /* the staging reused once the stream took it */\n"
    "    err = cuMemcpyHtoDAsync(net->mems[cgn_input_mem[i]], cgn_to_device(inputs[i], cgn_inputs[i].n, half),\n"
    "                            (size_t)cgn_inputs[i].n * CGN_ELEM_BYTES, s);\n"
    "    if (err == CUDA_SUCCESS && half) err = cuStreamSynchronize(s);\n"
    "  }\n"
    "  if (err == CUDA_SUCCESS) err = cgn_enqueue(net, s);\n"
    "  for (i = 0; i < cgn_noutputs && err == CUDA_SUCCESS; i++) {\n"
    "    err = cuMemcpyDtoHAsync(cgn_device_place(outputs[i], half), net->mems[cgn_output_mem[i]],\n"
    "                            (size_t)cgn_outputs[i].n * CGN_ELEM_BYTES, s);\n"
    "    if (err == CUDA_SUCCESS && half && (err = cuStreamSynchronize(s)) == CUDA_SUCCESS)\n"
    "      cgn_from_device(outputs[i], cgn_outputs[i].n, half);\n"
    "  }\n"
    "  free(half);\n"
    "  return err == CUDA_SUCCESS ? cuStreamSynchronize(s) : err;\n"
    "}\n";

/* main.c: the files, the checks and main, for both targets; the device's
 * part (DEVICE_*) comes before it. */
static const char MAIN_HEAD[] =
    " *\n"
    " *   make && ./network [-d N] [-i IN]... [-o OUT]...   (each a .npy file, or raw float32)\n"
    " *\n"
    " * Without -i it runs on the inputs the export wrote beside it (input_0.bin,\n"
    " * ...) and compares each output with the one convgen computed on the device\n"
    " * at export (output_0.bin, ...): PASS when the relative L2 error is at most\n"
    " * its tolerance (cgn_outputs[i].tol: 1e-4 in fp32, an fp16 or tf32 run's bound\n"
    " * as convgen infer takes it), else FAIL and exit 1. With -i, once per graph input in order (raw\n"
    " * float32 little-endian, as the export's), it runs on those. -o writes each\n"
    " * output so. Then it times the network: the mean of 10 runs. -d N: the\n"
    " * device. Exit 0 PASS (or ran), 1 FAIL, 2 a bad argument, file or device. */\n"
    "#include \"convgen_net.h\"\n"
    "\n"
    "#include <errno.h>\n"
    "#include <limits.h>\n"
    "#include <math.h>\n"
    "#include <stdint.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <time.h>\n"
    "\n"
    "#define MAX_IO 64\n"
    "\n"
    "static double now_s(void) {\n"
    "  struct timespec t;\n"
    "  clock_gettime(CLOCK_MONOTONIC, &t);\n"
    "  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;\n"
    "}\n"
    "\n";

static const char DEVICE_OPENCL[] =
    "static cl_device_id dev;\n"
    "static cl_context ctx;\n"
    "static cl_command_queue queue;\n"
    "\n"
    "/* Device want (an index among every platform's devices; -1: the first GPU,\n"
    " * else the first), its context and an in-order queue; 0, or 2 with why. */\n"
    "static int open_device(int want, char *name, size_t cap) {\n"
    "  cl_int err;\n"
    "  dev = cg_pick_device(want);\n"
    "  if (!dev) {\n"
    "    fprintf(stderr, \"network: no OpenCL device%s\\n\", want >= 0 ? \" with that index\" : \"\");\n"
    "    return 2;\n"
    "  }\n"
    "  clGetDeviceInfo(dev, CL_DEVICE_NAME, cap, name, NULL);\n"
    "  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);\n"
    "  queue = err == CL_SUCCESS ? clCreateCommandQueue(ctx, dev, 0, &err) : NULL;\n"
    "  if (err != CL_SUCCESS) {\n"
    "    fprintf(stderr, \"network: no context or queue (OpenCL error %d)\\n\", (int)err);\n"
    "    if (ctx) clReleaseContext(ctx);\n"
    "    return 2;\n"
    "  }\n"
    "  return 0;\n"
    "}\n"
    "\n"
    "static cgn_net *create_net(const char *weights) {\n"
    "  cl_int err;\n"
    "  cgn_net *net = cgn_create(ctx, dev, weights, &err);\n"
    "  if (!net) fprintf(stderr, \"network: cannot set it up (OpenCL error %d)\\n\", (int)err);\n"
    "  return net;\n"
    "}\n"
    "\n"
    "static int run_net(cgn_net *net, const float *const *in, float *const *out) {\n"
    "  cl_int err = cgn_run(net, queue, in, out);\n"
    "  if (err != CL_SUCCESS) fprintf(stderr, \"network: the run failed (OpenCL error %d)\\n\", (int)err);\n"
    "  return err != CL_SUCCESS;\n"
    "}\n"
    "\n"
    "/* runs runs back to back; their mean in us. */\n"
    "static int time_net(cgn_net *net, int runs, double *us) {\n"
    "  double t0;\n"
    "  int r, err = clFinish(queue);\n"
    "  t0 = now_s();\n"
    "  for (r = 0; r < runs && err == CL_SUCCESS; r++) err = cgn_enqueue(net, queue);\n"
    "  if (err == CL_SUCCESS) err = clFinish(queue);\n"
    "  *us = (now_s() - t0) / runs * 1e6;\n"
    "  return err != CL_SUCCESS;\n"
    "}\n"
    "\n"
    "static void close_device(void) {\n"
    "  clReleaseCommandQueue(queue);\n"
    "  clReleaseContext(ctx);\n"
    "}\n"
    "\n";

static const char DEVICE_CUDA[] =
    "static CUdevice dev;\n"
    "static CUcontext ctx;\n"
    "static CUstream stream;\n"
    "\n"
    "static int cuda_fails(const char *what, CUresult r) {\n"
    "  const char *name = NULL;\n"
    "  if (r == CUDA_SUCCESS) return 0;\n"
    "  cuGetErrorName(r, &name);\n"
    "  fprintf(stderr, \"network: %s: %s\\n\", what, name ? name : \"unknown CUDA error\");\n"
    "  return 1;\n"
    "}\n"
    "\n"
    "/* CUDA device want (-1: 0), its primary context and a stream; 0, or 2 with why. */\n"
    "static int open_device(int want, char *name, size_t cap) {\n"
    "  int count = 0;\n"
    "  if (want < 0) want = 0;\n"
    "  if (cuda_fails(\"cuInit\", cuInit(0)) || cuda_fails(\"cuDeviceGetCount\", cuDeviceGetCount(&count))) return 2;\n"
    "  if (want >= count) {\n"
    "    fprintf(stderr, \"network: no CUDA device %d (there are %d)\\n\", want, count);\n"
    "    return 2;\n"
    "  }\n"
    "  if (cuda_fails(\"cuDeviceGet\", cuDeviceGet(&dev, want)) ||\n"
    "      cuda_fails(\"cuDevicePrimaryCtxRetain\", cuDevicePrimaryCtxRetain(&ctx, dev)))\n"
    "    return 2;\n"
    "  if (cuda_fails(\"cuCtxSetCurrent\", cuCtxSetCurrent(ctx)) ||\n"
    "      cuda_fails(\"cuStreamCreate\", cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)))\n"
    "    return cuDevicePrimaryCtxRelease(dev), 2;\n"
    "  cuDeviceGetName(name, (int)cap, dev);\n"
    "  return 0;\n"
    "}\n"
    "\n"
    "static cgn_net *create_net(const char *weights) {\n"
    "  CUresult err;\n"
    "  cgn_net *net = cgn_create(dev, weights, &err);\n"
    "  if (!net) cuda_fails(\"cannot set it up\", err);\n"
    "  return net;\n"
    "}\n"
    "\n"
    "static int run_net(cgn_net *net, const float *const *in, float *const *out) {\n"
    "  return cuda_fails(\"the run failed\", cgn_run(net, stream, in, out));\n"
    "}\n"
    "\n"
    "/* runs runs back to back; their mean in us. */\n"
    "static int time_net(cgn_net *net, int runs, double *us) {\n"
    "  double t0;\n"
    "  int r;\n"
    "  CUresult err = cuStreamSynchronize(stream);\n"
    "  t0 = now_s();\n"
    "  for (r = 0; r < runs && err == CUDA_SUCCESS; r++) err = cgn_enqueue(net, stream);\n"
    "  if (err == CUDA_SUCCESS) err = cuStreamSynchronize(stream);\n"
    "  *us = (now_s() - t0) / runs * 1e6;\n"
    "  return cuda_fails(\"timing\", err);\n"
    "}\n"
    "\n"
    "static void close_device(void) {\n"
    "  cuStreamDestroy(stream);\n"
    "  cuDevicePrimaryCtxRelease(dev);\n"
    "}\n"
    "\n";

static const char MAIN_TAIL[] =
    "/* file in the folder of the program (argv0). malloc'd. */\n"
    "static char *beside(const char *argv0, const char *file) {\n"
    "  const char *slash = strrchr(argv0, '/');\n"
    "  size_t n = slash ? (size_t)(slash - argv0) + 1 : 0;\n"
    "  char *p = malloc(n + strlen(file) + 1);\n"
    "  if (!p) return NULL;\n"
    "  memcpy(p, argv0, n);\n"
    "  strcpy(p + n, file);\n"
    "  return p;\n"
    "}\n"
    "\n"
    "static int is_npy(const char *path) {\n"
    "  size_t n = strlen(path);\n"
    "  return n > 4 && strcmp(path + n - 4, \".npy\") == 0;\n"
    "}\n"
    "\n"
    "/* A .npy file's header (numpy's format 1.0 to 3.0) read from f: the count\n"
    "   of its float32 little-endian C-order values, or -1 after saying why. */\n"
    "static long npy_header(FILE *f, const char *path) {\n"
    "  unsigned char m[12];\n"
    "  char *h, *p;\n"
    "  long len, count = 1, d;\n"
    "  int wide;\n"
    "  if (fread(m, 1, 10, f) != 10 || memcmp(m, \"\\x93NUMPY\", 6) != 0 || m[6] < 1 || m[6] > 3) {\n"
    "    fprintf(stderr, \"network: %s: not a .npy file (numpy's format 1.0 to 3.0)\\n\", path);\n"
    "    return -1;\n"
    "  }\n"
    "  wide = m[6] > 1;\n"
    "  if (wide && fread(m + 10, 1, 2, f) != 2) return fprintf(stderr, \"network: %s: its header is cut\\n\", path), -1;\n"
    "  len = wide ? (long)m[8] | (long)m[9] << 8 | (long)m[10] << 16 | (long)m[11] << 24 : (long)m[8] | (long)m[9] << 8;\n"
    "  if (len <= 0 || len > 65536 || !(h = calloc((size_t)len + 1, 1))) return fprintf(stderr, \"network: %s: a bad header\\n\", path), -1;\n"
    "  if (fread(h, 1, (size_t)len, f) != (size_t)len || !strstr(h, \"'descr': '<f4'\") ||\n"
    "      !strstr(h, \"'fortran_order': False\") || !(p = strstr(h, \"'shape': (\"))) {\n"
    "    fprintf(stderr, \"network: %s: not float32 ('<f4') in C order: numpy's x.astype('<f4') saves one\\n\", path);\n"
    "    free(h);\n"
    "    return -1;\n"
    "  }\n"
    "  for (p += 10; *p && *p != ')'; p++)\n"
    "    if (*p >= '0' && *p <= '9') {\n"
    "      d = strtol(p, &p, 10), p--;\n"
    "      count = d > 0 && count <= LONG_MAX / d ? count * d : 0;\n"
    "    }\n"
    "  free(h);\n"
    "  return count;\n"
    "}\n"
    "\n"
    "/* Exactly n float32 little-endian values from path (a .npy file of n\n"
    "   float32 values, or the raw values); malloc'd, or NULL with why. */\n"
    "static float *read_floats(const char *path, long n) {\n"
    "  unsigned char *b = malloc((size_t)n * 4 + 1);\n"
    "  float *v = malloc((size_t)n * 4 + 4);\n"
    "  FILE *f = fopen(path, \"rb\");\n"
    "  long got = -1, i, count = n;\n"
    "  if (f && is_npy(path)) count = npy_header(f, path);\n"
    "  if (count != n) {\n"
    "    if (count >= 0) fprintf(stderr, \"network: %s: %ld values, not the %ld of the tensor\\n\", path, count, n);\n"
    "    if (f) fclose(f);\n"
    "    free(b), free(v);\n"
    "    return NULL;\n"
    "  }\n"
    "  got = f && b ? (long)fread(b, 1, (size_t)n * 4 + 1, f) : -1;\n"
    "  if (f) fclose(f);\n"
    "  if (got != n * 4 || !v) {\n"
    "    if (got < 0) fprintf(stderr, \"network: %s: cannot read it\\n\", path);\n"
    "    else fprintf(stderr, \"network: %s: %ld bytes%s, not the %ld of %ld floats (a .npy file of float32, or the \"\n"
    "                 \"raw float32 values, little-endian; ./network --help)\\n\", path, got,\n"
    "                 is_npy(path) ? \" after its header\" : \"\", n * 4, n);\n"
    "    free(b), free(v);\n"
    "    return NULL;\n"
    "  }\n"
    "  for (i = 0; i < n; i++) {\n"
    "    uint32_t u = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |\n"
    "                 (uint32_t)b[4 * i + 3] << 24;\n"
    "    memcpy(&v[i], &u, sizeof u);\n"
    "  }\n"
    "  free(b);\n"
    "  return v;\n"
    "}\n"
    "\n"
    "/* t's n values to path: raw float32 little-endian, or a .npy file of t's\n"
    "   shape (numpy's format 1.0) when path ends in .npy. */\n"
    "static int write_floats(const char *path, const cgn_tensor *t, const float *v, long n) {\n"
    "  FILE *f = fopen(path, \"wb\");\n"
    "  long i;\n"
    "  int ok = f != NULL;\n"
    "  if (ok && is_npy(path)) {   /* the header padded so that the data starts at a multiple of 64 */\n"
    "    char h[512];\n"
    "    int len = snprintf(h, sizeof h, \"{'descr': '<f4', 'fortran_order': False, 'shape': (\"), k;\n"
    "    for (k = 0; k < t->rank; k++) len += snprintf(h + len, sizeof h - (size_t)len, \"%ld, \", t->dims[k]);\n"
    "    len += snprintf(h + len, sizeof h - (size_t)len, \"), }\");\n"
    "    while ((10 + len + 1) % 64) h[len++] = ' ';\n"
    "    h[len++] = '\\n';\n"
    "    ok = fwrite(\"\\x93NUMPY\\x01\\x00\", 1, 8, f) == 8 && fputc(len & 255, f) != EOF && fputc(len >> 8, f) != EOF &&\n"
    "         fwrite(h, 1, (size_t)len, f) == (size_t)len;\n"
    "  }\n"
    "  for (i = 0; ok && i < n; i++) {\n"
    "    uint32_t u;\n"
    "    unsigned char b[4];\n"
    "    memcpy(&u, &v[i], sizeof u);\n"
    "    b[0] = (unsigned char)u, b[1] = (unsigned char)(u >> 8), b[2] = (unsigned char)(u >> 16), b[3] = (unsigned char)(u >> 24);\n"
    "    ok = fwrite(b, 1, 4, f) == 4;\n"
    "  }\n"
    "  if (f && fclose(f) != 0) ok = 0;\n"
    "  if (!ok) fprintf(stderr, \"network: %s: cannot write it\\n\", path);\n"
    "  return ok;\n"
    "}\n"
    "\n"
    "/* ||got - want|| / ||want|| in double; a value that is not finite fails it. */\n"
    "static double rel_l2(const float *got, const float *want, long n) {\n"
    "  double num = 0, den = 0;\n"
    "  long i;\n"
    "  for (i = 0; i < n; i++) {\n"
    "    double g = isfinite(got[i]) ? got[i] : 1e30, e = g - want[i];\n"
    "    num += e * e, den += (double)want[i] * want[i];\n"
    "  }\n"
    "  return sqrt(num / (den > 0 ? den : 1));\n"
    "}\n"
    "\n"
    "static int usage(const char *msg, const char *arg) {\n"
    "  fprintf(stderr, \"network: %s%s\\nusage: network [-d N] [-i IN]... [-o OUT]... (network -h: help)\\n\",\n"
    "          arg ? arg : \"\", msg);\n"
    "  return 2;\n"
    "}\n"
    "\n"
    "/* network -h: what it runs, its options, and each tensor's file. */\n"
    "static void print_tensor(const cgn_tensor *t) {\n"
    "  int k;\n"
    "  printf(\"    %s: \", t->name);\n"
    "  for (k = 0; k < t->rank; k++) printf(\"%s%ld\", k ? \"x\" : \"\", t->dims[k]);\n"
    "  printf(\" (%ld float32 values, %ld bytes; the export's: %s)\\n\", t->n, t->n * 4, t->file);\n"
    "}\n"
    "\n"
    "static int help(void) {\n"
    "  int i;\n"
    "  printf(\"usage: network [-d N] [-i IN.npy|IN.bin]... [-o OUT.npy|OUT.bin]...\\n\\n\"\n"
    "         \"Runs %s\\n\"\n"
    "         \"with the kernels convgen exported (%d nodes, %d kernel launches a run) on the first GPU,\\n\"\n"
    "         \"else the first device. Without -i it runs the export's input and checks its output\\n\"\n"
    "         \"against the export's (PASS when the relative L2 error is at most its tolerance: 1e-4 in\\n\"\n"
    "         \"fp32, more in fp16 or tf32, as convgen infer takes it); then it times\\n\"\n"
    "         \"10 runs back to back.\\n\\n\"\n"
    "         \"  -d N        the device, by its index (0 or more)\\n\"\n"
    "         \"  -i IN       a graph input's values (.npy, or raw), once per input in order (no check then)\\n\"\n"
    "         \"  -o OUT      where to write a graph output (.npy, or raw), once per output in order\\n\"\n"
    "         \"  -h, --help  this help\\n\\n\"\n"
    "         \"A file holds one tensor's values, row-major (NCHW for an image): a .npy file of\\n\"\n"
    "         \"float32 (numpy's np.save(path, x.astype('<f4'))), or any other name the raw float32\\n\"\n"
    "         \"little-endian values and nothing else (x.astype('<f4').tofile(path)). Inputs:\\n\", cgn_model, cgn_nsteps,\n"
    "         cgn_nlaunches);\n"
    "  for (i = 0; i < cgn_ninputs; i++) print_tensor(&cgn_inputs[i]);\n"
    "  printf(\"Outputs:\\n\");\n"
    "  for (i = 0; i < cgn_noutputs; i++) print_tensor(&cgn_outputs[i]);\n"
    "  return 0;\n"
    "}\n"
    "\n"
    "/* -d N: a device index, 0 or more; -1 when text is not one. */\n"
    "static int device_index(const char *text) {\n"
    "  char *end;\n"
    "  long v;\n"
    "  errno = 0;\n"
    "  v = strtol(text, &end, 10);\n"
    "  return end == text || *end || errno || v < 0 || v > INT_MAX ? -1 : (int)v;\n"
    "}\n"
    "\n"
    "int main(int argc, char **argv) {\n"
    "  const char *ins[MAX_IO], *outs[MAX_IO];\n"
    "  float *in[MAX_IO], *out[MAX_IO], *again[MAX_IO], *want;\n"
    "  int nin = 0, nout = 0, device = -1, failed = 0, opened = 0, rc = 2, i, k;\n"
    "  char name[256] = \"\", *path;\n"
    "  cgn_net *net = NULL;\n"
    "  double us;\n"
    "  for (i = 0; i < MAX_IO; i++) in[i] = out[i] = again[i] = NULL;\n"
    "  for (i = 1; i < argc; i++) {\n"
    "    if (strcmp(argv[i], \"-h\") == 0 || strcmp(argv[i], \"--help\") == 0) return help();\n"
    "    if (i + 1 < argc && strcmp(argv[i], \"-d\") == 0) {\n"
    "      if ((device = device_index(argv[++i])) < 0)\n"
    "        return usage(\": -d takes a device index, a whole number 0 or more\", argv[i]);\n"
    "    } else if (i + 1 < argc && strcmp(argv[i], \"-i\") == 0 && nin < MAX_IO) ins[nin++] = argv[++i];\n"
    "    else if (i + 1 < argc && strcmp(argv[i], \"-o\") == 0 && nout < MAX_IO) outs[nout++] = argv[++i];\n"
    "    else return usage(\"unknown argument, or one without its value\", NULL);\n"
    "  }\n"
    "  if (nin && nin != cgn_ninputs) return usage(\"give -i once per graph input, or not at all\", NULL);\n"
    "  if (nout && nout != cgn_noutputs) return usage(\"give -o once per graph output, or not at all\", NULL);\n"
    "  /* from here an error goes to done, which frees what was allocated */\n"
    "  for (i = 0; i < cgn_ninputs; i++) {\n"
    "    path = nin ? NULL : beside(argv[0], cgn_inputs[i].file);\n"
    "    in[i] = read_floats(nin ? ins[i] : path, cgn_inputs[i].n);\n"
    "    free(path);\n"
    "    if (!in[i]) goto done;\n"
    "  }\n"
    "  if (open_device(device, name, sizeof name)) goto done;\n"
    "  opened = 1;\n"
    "  printf(\"device: %s\\n\", name);\n"
    "  path = beside(argv[0], \"weights.bin\");\n"
    "  net = path ? create_net(path) : NULL;\n"
    "  free(path);\n"
    "  if (!net) goto done;\n"
    "  printf(\"network %s: %d nodes run %d kernels; device memory: activations %ld bytes in %d buffers, weights %ld \"\n"
    "         \"bytes, temporaries %ld bytes\\n\", cgn_model, cgn_nsteps, cgn_nlaunches, cgn_activation_bytes, cgn_nbuffers,\n"
    "         cgn_weight_bytes, cgn_temp_bytes);\n"
    "  for (i = 0; i < cgn_noutputs; i++) {\n"
    "    out[i] = malloc((size_t)cgn_outputs[i].n * 4);\n"
    "    if (!out[i]) {\n"
    "      fprintf(stderr, \"network: out of memory\\n\");\n"
    "      goto done;\n"
    "    }\n"
    "    for (k = 0; k < cgn_outputs[i].n; k++) out[i][k] = NAN;   /* whatever the run does not write shows up */\n"
    "  }\n"
    "  if (run_net(net, (const float *const *)in, out)) {\n"
    "    rc = 1;\n"
    "    goto done;\n"
    "  }\n"
    "  for (i = 0; i < cgn_noutputs; i++) {\n"
    "    const cgn_tensor *t = &cgn_outputs[i];\n"
    "    printf(\"output %s:\", t->name);\n"
    "    for (k = 0; k < t->rank; k++) printf(\"%s%ld\", k ? \"x\" : \" \", t->dims[k]);\n"
    "    if (nout) {\n"
    "      failed += !write_floats(outs[i], t, out[i], t->n);\n"
    "      printf(\" -> %s\", outs[i]);\n"
    "    }\n"
    "    if (!nin) {\n"
    "      double err;\n"
    "      path = beside(argv[0], t->file);\n"
    "      want = path ? read_floats(path, t->n) : NULL;\n"
    "      free(path);\n"
    "      if (!want) goto done;\n"
    "      err = rel_l2(out[i], want, t->n);\n"
    "      printf(\"  %s relative L2 error %.3g against %s (tolerance %.3g)\", err <= t->tol ? \"PASS\" : \"FAIL\", err,\n"
    "             t->file, t->tol);\n"
    "      failed += !(err <= t->tol);\n"
    "      free(want);\n"
    "    }\n"
    "    printf(\"\\n\");\n"
    "  }\n"
    "  if (time_net(net, 10, &us)) failed++;\n"
    "  else printf(\"time: %.1f us a run (the mean of 10 runs back to back)\\n\", us);\n"
    "  /* one more run gives the first run's outputs, bit for bit: what ran once was kept */\n"
    "  for (i = 0; i < cgn_noutputs && !failed; i++) failed += !(again[i] = malloc((size_t)cgn_outputs[i].n * 4));\n"
    "  if (!failed && run_net(net, (const float *const *)in, again)) failed++;\n"
    "  for (i = 0; i < cgn_noutputs && !failed; i++)\n"
    "    if (memcmp(again[i], out[i], (size_t)cgn_outputs[i].n * 4) != 0) {\n"
    "      fprintf(stderr, \"network: output %s of a later run differs from the first run's\\n\", cgn_outputs[i].name);\n"
    "      failed++;\n"
    "    }\n"
    "  rc = failed ? 1 : 0;\n"
    "done:\n"
    "  if (net) cgn_release(net);\n"
    "  if (opened) close_device();\n"
    "  for (i = 0; i < cgn_ninputs; i++) free(in[i]);\n"
    "  for (i = 0; i < cgn_noutputs; i++) free(out[i]), free(again[i]);\n"
    "  return rc;\n"
    "}\n";

static const char MAKEFILE_OPENCL[] =
    "# Builds the program that runs the network and checks it: make && ./network\n"
    "CC ?= cc\n"
    "CFLAGS ?= -O2 -std=c99 -Wall -D_POSIX_C_SOURCE=200809L\n"
    "network: main.c convgen_net.c convgen_net.h\n"
    "\t$(CC) $(CFLAGS) -o $@ main.c convgen_net.c -lOpenCL -lm\n"
    "clean:\n"
    "\trm -f network\n";

static const char MAKEFILE_CUDA[] =
    "# Builds the program that runs the network and checks it: make && ./network\n"
    "# It needs the CUDA driver API (libcuda, which comes with the NVIDIA driver;\n"
    "# the toolkit's stub stands in at link time) and NVRTC, which compiles the\n"
    "# kernels at run time.\n"
    "CC ?= cc\n"
    "CUDA ?= /usr/local/cuda\n"
    "CFLAGS ?= -O2 -std=c99 -Wall -D_POSIX_C_SOURCE=200809L\n"
    "network: main.c convgen_net.c convgen_net.h\n"
    "\t$(CC) $(CFLAGS) -I$(CUDA)/include -o $@ main.c convgen_net.c \\\n"
    "\t  -L$(CUDA)/lib64 -L$(CUDA)/lib64/stubs -Wl,-rpath,$(CUDA)/lib64 -lnvrtc -lcuda -lm\n"
    "clean:\n"
    "\trm -f network\n";

/* ---- The tables ---- */

/* The temporaries' sizes: the shared slots first, slot t as large as the
 * largest step's t-th temporary that is not kept (the steps run one after
 * another, so they share them), then each step's kept ones, a slot each, in
 * step order (NetStep.kept); their count, *nshared the shared ones. */
static int temp_slots(Arena *a, const NetPrepared *net, int64_t **bytes, int *nshared) {
  int n = 0;
  *bytes = NULL;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) *nshared = n;
    for (int k = 0; k < net->nsteps; k++) {
      const NetStep *s = &net->steps[k];
      for (int i = 0, t = 0; i < s->lp->nbuffers; i++) {
        const Mem *m = s->lp->buffers[i];
        if (m->role == MR_INPUT || m->role == MR_OUTPUT || s->in_buffer[i] >= 0 || s->kept[i] != (pass == 1))
          continue;   // (a temporary in an activation buffer: that buffer, arg_memory)
        int slot = pass == 0 ? t++ : n;
        if (slot == n) {
          *bytes = arena_extend(a, *bytes, (size_t)n, sizeof **bytes);
          (*bytes)[n++] = 0;
        }
        int64_t b = lw_mem_bytes(m);
        if (b > (*bytes)[slot]) (*bytes)[slot] = b;
      }
    }
  }
  return n;
}

/* Kernel argument m of step s, as a device memory; a kept temporary of s
 * is slot kept_base and on (temp_slots's order). */
static void arg_memory(StrBuf *sb, const NetStep *s, const Mem *m, int kept_base) {
  if (m->role == MR_OUTPUT) {
    sb_printf(sb, "CGN_B(%d)", s->out);
    return;
  }
  if (m->role == MR_INPUT) {
    const NetArg *g = &s->in[m->input_index];
    sb_printf(sb, g->buffer >= 0 ? "CGN_B(%d)" : "CGN_C(%d)", g->buffer >= 0 ? g->buffer : g->constant);
    return;
  }
  int at = 0;
  while (s->lp->buffers[at] != m) at++;
  if (s->in_buffer[at] >= 0) {   // an activation buffer free while the step runs (NetStep.in_buffer)
    sb_printf(sb, "CGN_B(%d)", s->in_buffer[at]);
    return;
  }
  int t = s->kept[at] ? kept_base : 0;
  for (int i = 0; i < at; i++) {
    const Mem *b = s->lp->buffers[i];
    t += b->role != MR_INPUT && b->role != MR_OUTPUT && s->in_buffer[i] < 0 && s->kept[i] == s->kept[at];
  }
  sb_printf(sb, "CGN_T(%d)", t);
}

/* The launch table, a row per kernel in run order; under CUDA (info the
 * device's limits) the grid and block rt_cuda_grid gives, as infer
 * launched them. *nlaunches and *max_args counted; false with a Diag when a
 * launch does not fit. */
static bool launches(StrBuf *sb, const NetPrepared *net, const RtDeviceInfo *cuda, int nshared, int *nlaunches,
                     int *max_args, Diag *d) {
  *nlaunches = 0, *max_args = 1;
  for (int k = 0, kept_base = nshared; k < net->nsteps; k++) {
    const NetStep *s = &net->steps[k];
    StrBuf node;
    sb_init(&node);
    sb_printf(&node, "%s (%s)", s->node->name, s->node->op);
    sb_puts(sb, "    /* node ");
    comment(sb, sb_str(&node));
    sb_puts(sb, ": ");
    comment(sb, s->how);
    sb_printf(sb, "; writes '");
    comment(sb, net->m->values[s->value].name);
    sb_puts(sb, "' */\n");
    for (int j = 0; j < s->lp->nkernels; j++) {
      const LKernel *lk = s->lp->kernels[j];
      int once = lw_kernel_prepares(s->lp, j, s->fixed);
      size_t g[3] = {lk->global[0], lk->work_dim > 1 ? lk->global[1] : 1, lk->work_dim > 2 ? lk->global[2] : 1};
      size_t l[3] = {lk->local[0], lk->work_dim > 1 ? lk->local[1] : 1, lk->work_dim > 2 ? lk->local[2] : 1};
      sb_puts(sb, "    {");
      quoted(sb, sb_str(&node));
      sb_printf(sb, ", %d, ", s->source);
      quoted(sb, lk->name);
      if (cuda) {
        size_t grid[3], block[3];
        if (!rt_cuda_grid(lk->name, lk->work_dim, lk->global, lk->uses_groups ? lk->local : NULL, cuda, grid, block, d))
          return sb_free(&node), false;
        sb_printf(sb, ", {%zu, %zu, %zu}, {%zu, %zu, %zu}, %d, %d, {", grid[0], grid[1], grid[2], block[0], block[1],
                  block[2], once, lk->nargs);
      } else {
        sb_printf(sb, ", %d, {%zu, %zu, %zu}, {%zu, %zu, %zu}, %d, %d, %d, {", lk->work_dim, g[0], g[1], g[2], l[0],
                  l[1], l[2], lk->uses_groups, once, lk->nargs);
      }
      for (int a = 0; a < lk->nargs; a++) {
        if (a) sb_puts(sb, ", ");
        arg_memory(sb, s, lk->args[a], kept_base);
      }
      sb_puts(sb, "}},\n");
      (*nlaunches)++;
      if (lk->nargs > *max_args) *max_args = lk->nargs;
    }
    for (int i = 0; i < s->lp->nbuffers; i++)
      kept_base += s->kept[i];
    sb_free(&node);
  }
  return true;
}

/* The device memory table: the activations' buffers, the constants (their
 * offsets in weights.bin, in floats), the temporaries. */
static void memories(StrBuf *sb, const NetPrepared *net, const int64_t *temps, int ntemps, int nshared, int elem) {
  sb_puts(sb, "static const cgn_mem cgn_mems[CGN_NMEMS] = {\n");
  for (int b = 0; b < net->plan.nbuffers; b++)
    sb_printf(sb, "    {%lld, -1},   /* B(%d): activations */\n", (long long)net->plan.buffer_bytes[b], b);
  int64_t off = 0;
  for (int c = 0; c < net->nconsts; c++) {
    const NetConst *k = &net->consts[c];
    sb_printf(sb, "    {%lld, %lld},   /* C(%d): node ", (long long)k->n * elem, (long long)off, c);
    comment(sb, k->node->name);
    sb_puts(sb, "'s ");
    comment(sb, k->input);
    sb_puts(sb, " */\n");
    off += k->n;
  }
  for (int t = 0; t < ntemps; t++)
    sb_printf(sb, "    {%lld, -1},   /* T(%d): %s */\n", (long long)temps[t], t,
              t < nshared ? "temporary" : "kept: computed once from the weights");
  sb_puts(sb, "};\n\n");
}

/* A tensor table (the graph's inputs or outputs: values of m, files
 * FILE_K.bin) and the device memory each is in. */
static void tensors(StrBuf *sb, const NetPrepared *net, const char *which, const int *values, int n, const char *file) {
  sb_printf(sb, "const cgn_tensor cgn_%s[%d] = {\n", which, n ? n : 1);
  for (int i = 0; i < n; i++) {
    const OnnxValue *v = &net->m->values[values[i]];
    sb_puts(sb, "    {");
    quoted(sb, v->name);
    sb_printf(sb, ", %d, {", v->rank);
    for (int k = 0; k < v->rank; k++) sb_printf(sb, "%s%lld", k ? ", " : "", (long long)v->dims[k]);
    double tol = values == net->m->outputs ? net_tolerance(net->m, i, net->precision) : 0;
    sb_printf(sb, "%s}, %lld, \"%s_%d.bin\", %.6g},\n", v->rank ? "" : "0", (long long)onnx_elems(v), file, i, tol);
  }
  if (!n) sb_puts(sb, "    {0}\n");
  sb_printf(sb, "};\nstatic const int cgn_%s_mem[%d] = {", file, n ? n : 1);
  for (int i = 0; i < n; i++) sb_printf(sb, "%sCGN_B(%d)", i ? ", " : "", net->plan.buffer[values[i]]);
  sb_puts(sb, n ? "};\n\n" : "0};\n\n");
}

/* convgen_net.c; false with a Diag when a launch does not fit. */
static bool net_source(Arena *a, StrBuf *c, const NetPrepared *net, const char *device, const char **files, bool cuda,
                       const RtDeviceInfo *info, uint32_t hash, int64_t nfloats, NetExport *ex, Diag *d) {
  StrBuf table;
  sb_init(&table);
  int64_t *temps;
  int nlaunches, max_args, nshared, ntemps = temp_slots(a, net, &temps, &nshared);
  if (!launches(&table, net, cuda ? info : NULL, nshared, &nlaunches, &max_args, d)) return sb_free(&table), false;
  const NetPlan *p = &net->plan;
  const ElemType *et = layer_precision_elem(net->precision);
  int elem = (int)elem_bytes(et, 1);
  sb_printf(c, "/* convgen_net.c: generated by convgen %s for ", cg_version());
  comment(c, device);
  sb_puts(c, "; do not edit.\n * ");
  comment(c, net->m->path);
  sb_printf(c, " as convgen infer ran it: %d nodes run %d kernels in order (%d\n"
            " * sources, each built once); the values between them live in %d buffers\n"
            " * planned by liveness (%lld bytes; each value in its own: %lld); the\n"
            " * weights (the convolutions' with their batch norms folded in) and every\n"
            " * other array a kernel reads are %d arrays in weights.bin (%lld bytes%s). */\n",
            net->nsteps, nlaunches, net->nsources, p->nbuffers, (long long)p->planned_bytes,
            (long long)p->tensor_bytes, net->nconsts, (long long)nfloats * 4,
            elem == 4 ? "" : "; float32 there, rounded to half on the device, where every tensor is half");
  sb_printf(c, "#include \"convgen_net.h\"\n\n%s#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n"
            "#include <stdlib.h>\n#include <string.h>\n\n", cuda ? "#include <nvrtc.h>\n" : "");
  sb_printf(c, "#define CGN_NSOURCES %d\n#define CGN_NLAUNCHES %d\n#define CGN_NBUFFERS %d   /* the activations */\n"
            "#define CGN_NCONSTS %d    /* the arrays of weights.bin */\n"
            "#define CGN_NTEMPS %d     /* temporaries: shared by the steps, then each step's kept ones */\n"
            "#define CGN_NMEMS (CGN_NBUFFERS + CGN_NCONSTS + CGN_NTEMPS)\n#define CGN_MAX_ARGS %d\n"
            "#define CGN_WEIGHT_FLOATS %lldL\n#define CGN_ELEM_BYTES %d   /* a tensor's element on the device: %s */\n\n",
            net->nsources, nlaunches, p->nbuffers, net->nconsts, ntemps, max_args, (long long)nfloats, elem,
            elem == 4 ? "float" : "half");
  sb_puts(c, "/* A device memory by its index: activation buffer i, constant array i,\n"
             " * temporary i. */\n#define CGN_B(i) (i)\n#define CGN_C(i) (CGN_NBUFFERS + (i))\n"
             "#define CGN_T(i) (CGN_NBUFFERS + CGN_NCONSTS + (i))\n\n"
             "typedef struct cgn_mem {\n  long bytes;     /* on the device */\n"
             "  long offset;   /* a constant's, in floats into weights.bin; -1: none */\n} cgn_mem;\n\n");
  sb_puts(c, cuda ? TYPES_CUDA : TYPES_OPENCL);
  for (int i = 0; i < net->nsources; i++) {
    sb_printf(c, "/* %s */\nstatic const char source_%d[] =\n", files[i], i);
    export_c_string(c, net->sources[i]);
    sb_puts(c, ";\n\n");
  }
  sb_puts(c, "static const char *const cgn_sources[CGN_NSOURCES] = {");
  for (int i = 0; i < net->nsources; i++) sb_printf(c, "%ssource_%d", i ? ", " : "", i);
  sb_puts(c, "};\nstatic const char *const cgn_source_files[CGN_NSOURCES] = {");
  for (int i = 0; i < net->nsources; i++) sb_printf(c, "%s\"%s\"", i ? ", " : "", files[i]);
  sb_puts(c, "};\n\n");
  memories(c, net, temps, ntemps, nshared, elem);
  sb_printf(c, "static const cgn_launch cgn_launches[CGN_NLAUNCHES] = {\n%s};\n\n", sb_str(&table));
  sb_free(&table);
  sb_puts(c, "const char cgn_model[] = ");
  quoted(c, net->m->path);
  sb_printf(c, ";\nconst int cgn_ninputs = %d, cgn_noutputs = %d;\n", net->m->ninputs, net->m->noutputs);
  tensors(c, net, "inputs", net->m->inputs, net->m->ninputs, "input");
  tensors(c, net, "outputs", net->m->outputs, net->m->noutputs, "output");
  int64_t temp_total = 0;
  for (int t = 0; t < ntemps; t++) temp_total += temps[t];
  sb_printf(c, "const int cgn_nsteps = %d, cgn_nlaunches = CGN_NLAUNCHES, cgn_nbuffers = CGN_NBUFFERS;\n"
            "const long cgn_activation_bytes = %lld, cgn_weight_bytes = %lld, cgn_temp_bytes = %lld;\n"
            "static const uint32_t cgn_weights_hash = 0x%08xu;   /* FNV-1a of weights.bin */\n\n",
            net->nsteps, (long long)p->planned_bytes, (long long)nfloats * elem, (long long)temp_total, hash);
  sb_puts(c, RUNTIME_COMMON);
  if (cuda) sb_puts(c, EXPORT_NVRTC_COMPILE);
  sb_puts(c, cuda ? RUNTIME_CUDA : RUNTIME_OPENCL);
  ex->nlaunches = nlaunches;
  ex->temp_bytes = temp_total;
  return true;
}

/* ---- The files ---- */

/* n values as a file of float32 little-endian values. */
static bool put_floats(DirWrite *w, const char *name, const float *v, int64_t n, Diag *d) {
  unsigned char *b = malloc((size_t)n * 4 + 1);
  if (!b) cg_die("out of memory");
  uint32_t h = 0;
  le_floats(v, n, b, &h);
  bool ok = dir_put(w, name, (const char *)b, (size_t)n * 4, d);
  free(b);
  return ok;
}

bool net_export_write(DirWrite *w, const NetPrepared *net, const OnnxTensor *inputs, const OnnxTensor *outputs,
                      const char *device, const RtDeviceInfo *info, NetExport *ex, Diag *d) {
  bool cuda = strcmp(rt_info_target(info), "cuda") == 0;
  Arena *a = arena_new();
  *ex = (NetExport){.nsteps = net->nsteps, .nsources = net->nsources, .nconsts = net->nconsts};
  // weights.bin: the constants in order
  int64_t nfloats = 0;
  for (int c = 0; c < net->nconsts; c++) nfloats += net->consts[c].n;
  unsigned char *weights = malloc((size_t)nfloats * 4 + 1);
  if (!weights) cg_die("out of memory");
  uint32_t hash = 2166136261u;
  int64_t off = 0;
  for (int c = 0; c < net->nconsts; off += net->consts[c].n, c++)
    le_floats(net->consts[c].data, net->consts[c].n, weights + (size_t)off * 4, &hash);
  ex->weights_bytes = nfloats * 4;
  const char **files = ARENA_ARRAY(a, const char *, (size_t)net->nsources + 1);
  for (int i = 0; i < net->nsources; i++) files[i] = source_file(a, net, i, cuda);
  StrBuf c, h, m;
  sb_init(&c), sb_init(&h), sb_init(&m);
  bool ok = net_source(a, &c, net, device, files, cuda, info, hash, nfloats, ex, d);
  sb_printf(&h, "/* convgen_net.h: generated by convgen %s for ", cg_version());
  comment(&h, device);
  sb_puts(&h, "; do not edit.\n * ");
  comment(&h, net->m->path);
  sb_puts(&h, " as convgen infer ran it, without convgen (convgen_net.c). */\n"
              "#ifndef CONVGEN_NET_H\n#define CONVGEN_NET_H\n\n");
  sb_puts(&h, cuda ? EXPORT_HEADER_CUDA : EXPORT_HEADER_OPENCL);
  sb_puts(&h, NET_INFO);
  sb_puts(&h, cuda ? API_CUDA : API_OPENCL);
  sb_puts(&h, "\n#endif\n");
  sb_printf(&m, "/* main.c: generated by convgen %s for ", cg_version());
  comment(&m, device);
  sb_puts(&m, "; do not edit.\n * Runs ");
  comment(&m, net->m->path);
  sb_puts(&m, " with convgen_net.c and checks it:\n");
  sb_puts(&m, MAIN_HEAD);
  if (!cuda) sb_puts(&m, EXPORT_OPENCL_PICK_DEVICE);
  sb_puts(&m, cuda ? DEVICE_CUDA : DEVICE_OPENCL);
  sb_puts(&m, MAIN_TAIL);
  ok = ok && dir_put(w, "convgen_net.c", sb_str(&c), c.len, d) && dir_put(w, "convgen_net.h", sb_str(&h), h.len, d) &&
       dir_put(w, "main.c", sb_str(&m), m.len, d) &&
       dir_put(w, "Makefile", cuda ? MAKEFILE_CUDA : MAKEFILE_OPENCL, strlen(cuda ? MAKEFILE_CUDA : MAKEFILE_OPENCL), d) &&
       dir_put(w, "weights.bin", (const char *)weights, (size_t)nfloats * 4, d);
  for (int i = 0; ok && i < net->nsources; i++) ok = dir_put(w, files[i], net->sources[i], strlen(net->sources[i]), d);
  for (int i = 0; ok && i < net->m->ninputs; i++)
    ok = put_floats(w, arena_printf(a, "input_%d.bin", i), inputs[i].data, inputs[i].n, d);
  for (int i = 0; ok && i < net->m->noutputs; i++)
    ok = put_floats(w, arena_printf(a, "output_%d.bin", i), outputs[i].data, outputs[i].n, d);
  if (ok) ok = dir_commit(w, d);
  else dir_abort(w);
  free(weights);
  sb_free(&c), sb_free(&h), sb_free(&m);
  arena_free(a);
  return ok;
}
