/* rt.c: the device runtime over the OpenCL 1.2 host API (see rt.h).
 *
 * The last stage of the pipeline and the only file that talks to a device: the
 * tuner, the bench and the tests hand it emitted kernel source and buffers, and it
 * builds, copies, launches and times. Invariant: every OpenCL call's status is
 * checked, and a failure becomes a Diag that names the call, the kernel or
 * program where there is one, and the error code's name; nothing here prints or
 * exits, so a failing candidate is an ordinary result for the search. Only 1.2
 * entry points are used (clCreateCommandQueue, not ...WithProperties), so the
 * same code runs on PoCL and on NVIDIA's OpenCL. Not thread-safe, but for
 * rt_build of distinct sources (builds.c runs several at once): a program's
 * kernel cache and the kernels' argument slots are shared state.
 */
#include "rt/rt_impl.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001   // cl_khr_icd: the loader found no platform
#endif

/* ---- error names ---- */

#define E(code) {code, #code}
static const struct {
  int code;
  const char *name;
} cl_errors[] = {
    E(CL_SUCCESS),
    E(CL_DEVICE_NOT_FOUND),
    E(CL_DEVICE_NOT_AVAILABLE),
    E(CL_COMPILER_NOT_AVAILABLE),
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE),
    E(CL_OUT_OF_RESOURCES),
    E(CL_OUT_OF_HOST_MEMORY),
    E(CL_PROFILING_INFO_NOT_AVAILABLE),
    E(CL_MEM_COPY_OVERLAP),
    E(CL_IMAGE_FORMAT_MISMATCH),
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED),
    E(CL_BUILD_PROGRAM_FAILURE),
    E(CL_MAP_FAILURE),
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET),
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    E(CL_COMPILE_PROGRAM_FAILURE),
    E(CL_LINKER_NOT_AVAILABLE),
    E(CL_LINK_PROGRAM_FAILURE),
    E(CL_DEVICE_PARTITION_FAILED),
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
    E(CL_INVALID_VALUE),
    E(CL_INVALID_DEVICE_TYPE),
    E(CL_INVALID_PLATFORM),
    E(CL_INVALID_DEVICE),
    E(CL_INVALID_CONTEXT),
    E(CL_INVALID_QUEUE_PROPERTIES),
    E(CL_INVALID_COMMAND_QUEUE),
    E(CL_INVALID_HOST_PTR),
    E(CL_INVALID_MEM_OBJECT),
    E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
    E(CL_INVALID_IMAGE_SIZE),
    E(CL_INVALID_SAMPLER),
    E(CL_INVALID_BINARY),
    E(CL_INVALID_BUILD_OPTIONS),
    E(CL_INVALID_PROGRAM),
    E(CL_INVALID_PROGRAM_EXECUTABLE),
    E(CL_INVALID_KERNEL_NAME),
    E(CL_INVALID_KERNEL_DEFINITION),
    E(CL_INVALID_KERNEL),
    E(CL_INVALID_ARG_INDEX),
    E(CL_INVALID_ARG_VALUE),
    E(CL_INVALID_ARG_SIZE),
    E(CL_INVALID_KERNEL_ARGS),
    E(CL_INVALID_WORK_DIMENSION),
    E(CL_INVALID_WORK_GROUP_SIZE),
    E(CL_INVALID_WORK_ITEM_SIZE),
    E(CL_INVALID_GLOBAL_OFFSET),
    E(CL_INVALID_EVENT_WAIT_LIST),
    E(CL_INVALID_EVENT),
    E(CL_INVALID_OPERATION),
    E(CL_INVALID_GL_OBJECT),
    E(CL_INVALID_BUFFER_SIZE),
    E(CL_INVALID_MIP_LEVEL),
    E(CL_INVALID_GLOBAL_WORK_SIZE),
    E(CL_INVALID_PROPERTY),
    E(CL_INVALID_IMAGE_DESCRIPTOR),
    E(CL_INVALID_COMPILER_OPTIONS),
    E(CL_INVALID_LINKER_OPTIONS),
    E(CL_INVALID_DEVICE_PARTITION_COUNT),
    E(CL_PLATFORM_NOT_FOUND_KHR),
};
#undef E

const char *rt_error_name(int code) {
  for (size_t i = 0; i < sizeof cl_errors / sizeof cl_errors[0]; i++)
    if (cl_errors[i].code == code) return cl_errors[i].name;
  return "CL_UNKNOWN_ERROR";
}

/* The code's name, or its number when unknown: vendors return private codes.
 * NVIDIA's -9999 (seen on an H200, driver 580) comes from clWaitForEvents
 * after a kernel faults, e.g. on an out-of-bounds store; every later call on
 * that context fails the same way, so the caller must reopen the device (the
 * tuner runs such candidates in a child process). */
typedef struct ErrText {
  char s[96];
} ErrText;

static ErrText err_text(cl_int err) {
  ErrText t;
  const char *name = rt_error_name(err);
  if (err == -9999)
    snprintf(t.s, sizeof t.s, "OpenCL error -9999 (NVIDIA: a kernel faulted, e.g. out of bounds; "
             "the context is lost)");
  else if (strcmp(name, "CL_UNKNOWN_ERROR") == 0)
    snprintf(t.s, sizeof t.s, "OpenCL error %d", (int)err);
  else
    snprintf(t.s, sizeof t.s, "%s", name);
  return t;
}

/* Records "<what>: CL_NAME" and returns false. */
static bool cl_fail(Diag *d, cl_int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool cl_fail(Diag *d, cl_int err, const char *fmt, ...) {
  StrBuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  diag_device(d, "%s: %s", sb_str(&sb), err_text(err).s);
  sb_free(&sb);
  return false;
}

/* ---- devices ---- */

/* Copies a string query into dst[cap], truncated and without trailing blanks
 * (NVIDIA answers "OpenCL C 1.2 "); "" when the query fails. At a word
 * boundary when words is set, so a truncated extension list never ends in a
 * partial name that a substring test could mistake for a real one. */
static void dev_str(cl_device_id dev, cl_device_info what, char *dst, size_t cap, bool words) {
  dst[0] = 0;
  size_t n = 0;
  if (clGetDeviceInfo(dev, what, 0, NULL, &n) != CL_SUCCESS || n == 0) return;
  char *tmp = cg_calloc(n + 1, 1);
  if (clGetDeviceInfo(dev, what, n, tmp, NULL) == CL_SUCCESS) {
    size_t len = strlen(tmp);
    if (len >= cap) {
      len = cap - 1;
      if (words) {
        while (len > 0 && tmp[len] != ' ') len--;
      }
    }
    while (len > 0 && isspace((unsigned char)tmp[len - 1])) len--;
    memcpy(dst, tmp, len);
    dst[len] = 0;
  }
  free(tmp);
}

static void plat_str(cl_platform_id p, cl_platform_info what, char *dst, size_t cap) {
  dst[0] = 0;
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, NULL, &n) != CL_SUCCESS || n == 0) return;
  char *tmp = cg_calloc(n + 1, 1);
  if (clGetPlatformInfo(p, what, n, tmp, NULL) == CL_SUCCESS) snprintf(dst, cap, "%s", tmp);
  free(tmp);
}

/* A fixed-size query; leaves *dst zeroed when the query fails. */
static void dev_val(cl_device_id dev, cl_device_info what, void *dst, size_t size) {
  memset(dst, 0, size);
  if (clGetDeviceInfo(dev, what, size, dst, NULL) != CL_SUCCESS) memset(dst, 0, size);
}

static void fill_info(cl_platform_id plat, cl_device_id dev, int index, RtDeviceInfo *o) {
  memset(o, 0, sizeof *o);
  o->index = index;
  plat_str(plat, CL_PLATFORM_NAME, o->platform, sizeof o->platform);
  plat_str(plat, CL_PLATFORM_VENDOR, o->platform_vendor, sizeof o->platform_vendor);
  dev_str(dev, CL_DEVICE_NAME, o->name, sizeof o->name, false);
  dev_str(dev, CL_DEVICE_VENDOR, o->vendor, sizeof o->vendor, false);
  dev_str(dev, CL_DRIVER_VERSION, o->driver, sizeof o->driver, false);
  dev_str(dev, CL_DEVICE_VERSION, o->version, sizeof o->version, false);
  dev_str(dev, CL_DEVICE_OPENCL_C_VERSION, o->c_version, sizeof o->c_version, false);
  dev_str(dev, CL_DEVICE_EXTENSIONS, o->extensions, sizeof o->extensions, true);

  cl_device_type type;
  cl_uint u;
  cl_ulong ul;
  dev_val(dev, CL_DEVICE_TYPE, &type, sizeof type);
  o->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
  o->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  dev_val(dev, CL_DEVICE_MAX_COMPUTE_UNITS, &u, sizeof u);
  o->compute_units = u;
  dev_val(dev, CL_DEVICE_MAX_CLOCK_FREQUENCY, &u, sizeof u);
  o->clock_mhz = u;
  dev_val(dev, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, &u, sizeof u);
  o->pref_float_width = u;
  dev_val(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, &o->max_wg_size, sizeof o->max_wg_size);
  dev_val(dev, CL_DEVICE_LOCAL_MEM_SIZE, &ul, sizeof ul);
  o->local_mem = ul;
  dev_val(dev, CL_DEVICE_GLOBAL_MEM_SIZE, &ul, sizeof ul);
  o->global_mem = ul;
  dev_val(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, &ul, sizeof ul);
  o->max_alloc = ul;

  // The array has CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS entries (3 or more).
  cl_uint dims = 0;
  dev_val(dev, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, &dims, sizeof dims);
  if (dims > 0) {
    size_t *sizes = cg_calloc(dims, sizeof *sizes);
    if (clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof *sizes, sizes, NULL) ==
        CL_SUCCESS)
      for (cl_uint i = 0; i < dims && i < 3; i++) o->max_wi_sizes[i] = sizes[i];
    free(sizes);
  }
}

/* All (platform, device) pairs, platform-major; heap arrays the caller frees.
 * Returns the count, 0 with d set when there is no platform or no device. */
static int enumerate(cl_platform_id **plats_out, cl_device_id **devs_out, Diag *d) {
  *plats_out = NULL;
  *devs_out = NULL;
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(0, NULL, &np);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0)) {
    diag_device(d, "no OpenCL platform found "
                  "(install pocl-opencl-icd for the CPU, or a GPU driver)");
    return 0;
  }
  if (err != CL_SUCCESS) return cl_fail(d, err, "clGetPlatformIDs"), 0;
  cl_platform_id *plats = cg_calloc(np, sizeof *plats);
  err = clGetPlatformIDs(np, plats, NULL);
  if (err != CL_SUCCESS) {
    free(plats);
    return cl_fail(d, err, "clGetPlatformIDs"), 0;
  }

  int count = 0, cap = 0;
  cl_platform_id *out_p = NULL;
  cl_device_id *out_d = NULL;
  for (cl_uint i = 0; i < np; i++) {
    cl_uint nd = 0;
    // A platform without devices answers CL_DEVICE_NOT_FOUND; skip it.
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0)
      continue;
    if (count + (int)nd > cap) {
      cap = count + (int)nd;
      out_p = realloc(out_p, (size_t)cap * sizeof *out_p);
      out_d = realloc(out_d, (size_t)cap * sizeof *out_d);
      if (!out_p || !out_d) cg_die("out of memory");
    }
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, nd, out_d + count, NULL) != CL_SUCCESS)
      continue;
    for (cl_uint j = 0; j < nd; j++) out_p[count + (int)j] = plats[i];
    count += (int)nd;
  }
  free(plats);
  if (count == 0) {
    free(out_p);
    free(out_d);
    diag_device(d, "no OpenCL device found (%u platform(s), none with a device)", np);
    return 0;
  }
  *plats_out = out_p;
  *devs_out = out_d;
  return count;
}

int rt_list_devices(RtDeviceInfo *out, int max, Diag *d) {
  cl_platform_id *plats;
  cl_device_id *devs;
  int n = enumerate(&plats, &devs, d);
  if (out) {
    if (n > max) n = max < 0 ? 0 : max;
    for (int i = 0; i < n; i++) fill_info(plats[i], devs[i], i, &out[i]);
  }
  free(plats);
  free(devs);
  return n;
}

static void print_mem(StrBuf *sb, const char *label, uint64_t bytes, uint64_t unit,
                      const char *unit_name) {
  sb_printf(sb, "  %-20s %llu %s\n", label, (unsigned long long)(bytes / unit), unit_name);
}

void rt_print_devices(StrBuf *sb, const RtDeviceInfo *devs, int n) {
  for (int i = 0; i < n; i++) {
    const RtDeviceInfo *v = &devs[i];
    if (i > 0) sb_putc(sb, '\n');
    sb_printf(sb, "device %d: %s\n", v->index, v->name);
    sb_printf(sb, "  %-20s %s", "platform", v->platform);
    if (v->platform_vendor[0]) sb_printf(sb, " (%s)", v->platform_vendor);
    sb_putc(sb, '\n');
    sb_printf(sb, "  %-20s %s\n", "type", v->is_gpu ? "GPU" : v->is_cpu ? "CPU" : "accelerator");
    sb_printf(sb, "  %-20s %s\n", "vendor", v->vendor);
    sb_printf(sb, "  %-20s %s\n", "driver", v->driver);
    sb_printf(sb, "  %-20s %s\n", "OpenCL", v->version);
    sb_printf(sb, "  %-20s %s\n", "OpenCL C", v->c_version);
    sb_printf(sb, "  %-20s %u\n", "compute units", v->compute_units);
    sb_printf(sb, "  %-20s %u MHz\n", "clock", v->clock_mhz);
    sb_printf(sb, "  %-20s %zu\n", "max work-group size", v->max_wg_size);
    sb_printf(sb, "  %-20s %zu x %zu x %zu\n", "max work-item sizes", v->max_wi_sizes[0],
              v->max_wi_sizes[1], v->max_wi_sizes[2]);
    print_mem(sb, "local memory", v->local_mem, 1024, "KiB");
    print_mem(sb, "global memory", v->global_mem, 1024 * 1024, "MiB");
    print_mem(sb, "max allocation", v->max_alloc, 1024 * 1024, "MiB");
  }
}

/* ---- opening a device ---- */

static bool all_digits(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s)) return false;
  return true;
}

/* The index selected by sel among infos[n], or -1. */
static int select_device(const char *sel, const RtDeviceInfo *infos, int n) {
  if (!sel || !*sel) {
    for (int i = 0; i < n; i++)
      if (infos[i].is_gpu) return i;
    return 0;
  }
  if (all_digits(sel)) {
    long k = strtol(sel, NULL, 10);
    return k < n ? (int)k : -1;
  }
  for (int i = 0; i < n; i++) {
    const RtDeviceInfo *v = &infos[i];
    if (cg_contains_nocase(v->platform, sel) || cg_contains_nocase(v->name, sel) ||
        cg_contains_nocase(v->platform_vendor, sel) || cg_contains_nocase(v->vendor, sel))
      return i;
  }
  return -1;
}

static bool no_match(Diag *d, const char *sel, bool from_env, const RtDeviceInfo *infos, int n) {
  StrBuf sb;
  sb_init(&sb);
  for (int i = 0; i < n; i++)
    sb_printf(&sb, "%s%d: %s / %s", i ? "; " : "", i, infos[i].platform, infos[i].name);
  diag_error(d, "no OpenCL device matches '%s'%s; devices: %s", sel,
             from_env ? " (from $CONVGEN_DEVICE)" : "", sb_str(&sb));
  sb_free(&sb);
  return false;
}

/* The device sel selects ($CONVGEN_DEVICE when sel is NULL): its limits, and
 * (when plat and device are not NULL) its OpenCL handles; false with a Diag. */
static bool pick_device(const char *sel, RtDeviceInfo *info, cl_platform_id *plat, cl_device_id *device, Diag *d) {
  bool from_env = false;
  if (!sel) {
    sel = getenv("CONVGEN_DEVICE");
    from_env = sel && *sel;
  }
  cl_platform_id *plats;
  cl_device_id *devs;
  int n = enumerate(&plats, &devs, d);
  if (n == 0) return false;
  RtDeviceInfo *infos = cg_calloc((size_t)n, sizeof *infos);
  for (int i = 0; i < n; i++) fill_info(plats[i], devs[i], i, &infos[i]);
  int k = select_device(sel, infos, n);
  bool ok = k >= 0 || no_match(d, sel, from_env, infos, n);
  if (ok) {
    *info = infos[k];
    if (plat) *plat = plats[k];
    if (device) *device = devs[k];
  }
  free(infos);
  free(plats);
  free(devs);
  return ok;
}

/* sel, or $CONVGEN_DEVICE when sel is NULL, when it names a remote device
 * (HOST:PORT: rt_remote.c); NULL when it names a device of this machine. */
static const char *remote_sel(const char *sel) {
  char host[256], port[6];
  if (!sel) sel = getenv("CONVGEN_DEVICE");
  return sel && rt_remote_selector(sel, host, sizeof host, port) ? sel : NULL;
}

RtDevice *rt_open(const char *sel, Diag *d) {
  const char *remote = remote_sel(sel);
  if (remote) return rt_remote_open(remote, d);
  RtDevice *dev = cg_calloc(1, sizeof *dev);
  if (!pick_device(sel, &dev->info, &dev->platform, &dev->device, d)) {
    free(dev);
    return NULL;
  }
  const RtDeviceInfo *in = &dev->info;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform, 0};
  cl_int err;
  dev->ctx = clCreateContext(props, 1, &dev->device, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    cl_fail(d, err, "clCreateContext(device %d '%s')", in->index, in->name);
    rt_close(dev);
    return NULL;
  }
  dev->queue = clCreateCommandQueue(dev->ctx, dev->device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) {
    cl_fail(d, err, "clCreateCommandQueue(device %d '%s')", in->index, in->name);
    rt_close(dev);
    return NULL;
  }
  return dev;
}

void rt_close(RtDevice *dev) {
  if (!dev) return;
  if (dev->be) {
    dev->be->close(dev);
    return;
  }
  if (dev->queue) {
    clFinish(dev->queue);
    clReleaseCommandQueue(dev->queue);
  }
  if (dev->ctx) clReleaseContext(dev->ctx);
  free(dev);
}

const RtDeviceInfo *rt_info(const RtDevice *dev) { return &dev->info; }

bool rt_device_lost(const RtDevice *dev) { return dev->be && dev->be->lost && dev->be->lost(dev); }

bool rt_select_info(const char *sel, RtDeviceInfo *out, Diag *d) {
  const char *remote = remote_sel(sel);
  return remote ? rt_remote_select_info(remote, out, d) : pick_device(sel, out, NULL, NULL, d);
}

/* ---- programs ---- */

/* The source's first line, trimmed to fit a message: it names the program. */
static void first_line(const char *src, char *dst, size_t cap) {
  size_t n = strcspn(src, "\r\n");
  while (n > 0 && isspace((unsigned char)src[n - 1])) n--;
  if (n == 0) {
    snprintf(dst, cap, "(program with an empty first line)");
    return;
  }
  if (n >= cap) n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
}

static char *build_log(cl_program prog, cl_device_id dev) {
  size_t n = 0;
  if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS)
    return cg_strdup("(no build log)");
  char *log = cg_calloc(n + 1, 1);
  if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS)
    log[0] = 0;
  size_t len = strlen(log);
  while (len > 0 && isspace((unsigned char)log[len - 1])) log[--len] = 0;
  if (len == 0) {
    free(log);
    return cg_strdup("(empty build log)");
  }
  return log;
}

/* "OpenCL build failed for <first line>:\n<why>\n<log>", cut to the Diag's size
 * keeping the start of the log (the first error is the one that matters). */
static void build_failed(Diag *d, const char *source, const char *options, cl_int err,
                         cl_program prog, cl_device_id dev) {
  char head[160];
  first_line(source, head, sizeof head);
  char *log = build_log(prog, dev);
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "OpenCL build failed for %s:\n", head);
  if (err != CL_BUILD_PROGRAM_FAILURE)
    sb_printf(&sb, "clBuildProgram(options '%s'): %s\n", options, err_text(err).s);
  sb_puts(&sb, log);
  const char *cut = "\n[build log truncated]";
  if (d && sb.len >= sizeof d->msg) {
    sb.len = sizeof d->msg - 1 - strlen(cut);
    sb.data[sb.len] = 0;
    sb_puts(&sb, cut);
  }
  diag_device(d, "%s", sb_str(&sb));
  sb_free(&sb);
  free(log);
}

const char *rt_build_options(const char *options, char *buf, size_t cap) {
  if (!options) options = "";
  // Without -cl-std a driver may compile in a newer dialect than the kernels
  // are written in; a caller's own -cl-std wins.
  if (strstr(options, "-cl-std=")) return options;
  snprintf(buf, cap, "%s%s%s", RT_CL_STD, *options ? " " : "", options);
  return buf;
}

RtProgram *rt_build(RtDevice *dev, const char *source, const char *options, Diag *d) {
  if (!source) return diag_error(d, "rt_build: no kernel source"), NULL;
  if (dev->be) return dev->be->build(dev, source, options, d);
  char std_options[1024];
  options = rt_build_options(options, std_options, sizeof std_options);
  cl_int err;
  cl_program prog = clCreateProgramWithSource(dev->ctx, 1, &source, NULL, &err);
  if (err != CL_SUCCESS) {
    char head[160];
    first_line(source, head, sizeof head);
    return cl_fail(d, err, "clCreateProgramWithSource(%s)", head), NULL;
  }
  err = clBuildProgram(prog, 1, &dev->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    build_failed(d, source, options, err, prog, dev->device);
    clReleaseProgram(prog);
    return NULL;
  }
  RtProgram *p = cg_calloc(1, sizeof *p);
  p->dev = dev;
  p->program = prog;
  return p;
}

void rt_program_free(RtProgram *p) {
  if (!p) return;
  if (p->be) {
    p->be->program_free(p);
    return;
  }
  for (int i = 0; i < p->nkernels; i++) {
    clReleaseKernel(p->kernels[i].kernel);
    free(p->kernels[i].name);
  }
  free(p->kernels);
  clReleaseProgram(p->program);
  free(p);
}

/* ---- buffers ---- */

RtBuffer *rt_alloc(RtDevice *dev, size_t bytes, Diag *d) {
  if (bytes == 0) return diag_error(d, "rt_alloc: a buffer of 0 bytes"), NULL;
  if (dev->info.max_alloc && bytes > dev->info.max_alloc)
    return diag_error(d, "rt_alloc: %zu bytes exceed the device's max allocation of %llu bytes",
                      bytes, (unsigned long long)dev->info.max_alloc),
           NULL;
  if (dev->be) return dev->be->alloc(dev, bytes, d);
  cl_int err;
  cl_mem mem = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS) return cl_fail(d, err, "clCreateBuffer(%zu bytes)", bytes), NULL;
  RtBuffer *b = cg_calloc(1, sizeof *b);
  b->mem = mem;
  b->size = bytes;
  return b;
}

void rt_buffer_free(RtBuffer *b) {
  if (!b) return;
  if (b->be) {
    b->be->buffer_free(b);
    return;
  }
  clReleaseMemObject(b->mem);
  free(b);
}

static bool fits(const RtBuffer *b, size_t bytes, const char *what, Diag *d) {
  if (bytes <= b->size) return true;
  return diag_error(d, "%s: %zu bytes do not fit a buffer of %zu bytes", what, bytes, b->size);
}

bool rt_write(RtDevice *dev, RtBuffer *b, const void *src, size_t bytes, Diag *d) {
  if (!fits(b, bytes, "rt_write", d)) return false;
  if (bytes == 0) return true;
  if (dev->be) return dev->be->write(dev, b, src, bytes, d);
  cl_int err = clEnqueueWriteBuffer(dev->queue, b->mem, CL_TRUE, 0, bytes, src, 0, NULL, NULL);
  return err == CL_SUCCESS || cl_fail(d, err, "clEnqueueWriteBuffer(%zu bytes)", bytes);
}

bool rt_read(RtDevice *dev, RtBuffer *b, void *dst, size_t bytes, Diag *d) {
  if (!fits(b, bytes, "rt_read", d)) return false;
  if (bytes == 0) return true;
  if (dev->be) return dev->be->read(dev, b, dst, bytes, d);
  cl_int err = clEnqueueReadBuffer(dev->queue, b->mem, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
  return err == CL_SUCCESS || cl_fail(d, err, "clEnqueueReadBuffer(%zu bytes)", bytes);
}

bool rt_write_values(RtDevice *dev, RtBuffer *b, const ElemType *et, const float *v, int64_t n, Diag *d) {
  size_t bytes = (size_t)elem_bytes(et, n);
  if (et->kind == ELEM_FP32) return rt_write(dev, b, v, bytes, d);
  cg_assert(et->kind == ELEM_FP16);
  uint16_t *h = cg_calloc((size_t)n, sizeof *h);
  for (int64_t i = 0; i < n; i++) h[i] = elem_f32_to_f16(v[i]);   // to nearest even
  bool ok = rt_write(dev, b, h, bytes, d);
  free(h);
  return ok;
}

bool rt_read_values(RtDevice *dev, RtBuffer *b, const ElemType *et, float *v, int64_t n, Diag *d) {
  size_t bytes = (size_t)elem_bytes(et, n);
  if (et->kind == ELEM_FP32) return rt_read(dev, b, v, bytes, d);
  cg_assert(et->kind == ELEM_FP16);
  uint16_t *h = cg_calloc((size_t)n, sizeof *h);
  bool ok = rt_read(dev, b, h, bytes, d);
  for (int64_t i = 0; ok && i < n; i++) v[i] = elem_f16_to_f32(h[i]);
  free(h);
  return ok;
}

/* Host writes of a quiet-NaN pattern, in chunks so that poisoning a large buffer
 * needs little host memory. A trailing partial value gets the pattern's bytes. */
bool rt_poison(RtDevice *dev, RtBuffer *b, const ElemType *et, size_t bytes, Diag *d) {
  if (!fits(b, bytes, "rt_poison", d)) return false;
  if (bytes == 0) return true;
  if (dev->be) return dev->be->fill_nan(dev, b, et, bytes, d);
  enum { CHUNK = 1 << 20 };
  size_t chunk = bytes < CHUNK ? bytes : CHUNK, size = (size_t)et->bytes;
  unsigned char *pat = cg_calloc(chunk / size + 1, size);
  for (size_t i = 0; i < chunk / size + 1; i++)
    for (size_t k = 0; k < size; k++) pat[i * size + k] = (unsigned char)(et->nan_bits >> (8 * k));   // little-endian
  bool ok = true;
  for (size_t off = 0; off < bytes && ok; off += chunk) {
    size_t n = bytes - off < chunk ? bytes - off : chunk;
    cl_int err = clEnqueueWriteBuffer(dev->queue, b->mem, CL_TRUE, off, n, pat, 0, NULL, NULL);
    if (err != CL_SUCCESS) ok = cl_fail(d, err, "clEnqueueWriteBuffer(NaN fill, %zu bytes)", n);
  }
  free(pat);
  return ok;
}

bool rt_fill_nan(RtDevice *dev, RtBuffer *b, size_t bytes, Diag *d) { return rt_poison(dev, b, elem_fp32(), bytes, d); }

/* ---- launching ---- */

static RtKernel *get_kernel(RtProgram *p, const RtDevice *dev, const char *name, Diag *d);

size_t rt_kernel_wg_max(RtDevice *dev, RtProgram *p, const char *name, Diag *d) {
  if (dev->be) return dev->be->kernel_wg_max(dev, p, name, d);
  RtKernel *k = get_kernel(p, dev, name, d);
  return k ? k->wg_max : 0;
}

/* The cached kernel `name` of p, created on first use. */
static RtKernel *get_kernel(RtProgram *p, const RtDevice *dev, const char *name, Diag *d) {
  for (int i = 0; i < p->nkernels; i++)
    if (strcmp(p->kernels[i].name, name) == 0) return &p->kernels[i];
  cl_int err;
  cl_kernel k = clCreateKernel(p->program, name, &err);
  if (err != CL_SUCCESS) {
    if (err != CL_INVALID_KERNEL_NAME)
      return cl_fail(d, err, "clCreateKernel(kernel '%s')", name), NULL;
    // Name the kernels the program does have; that is the usual fix.
    size_t n = 0;
    clGetProgramInfo(p->program, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &n);
    char *names = cg_calloc(n + 1, 1);
    if (n && clGetProgramInfo(p->program, CL_PROGRAM_KERNEL_NAMES, n, names, NULL) != CL_SUCCESS)
      names[0] = 0;
    diag_error(d, "no kernel named '%s' in the program (clCreateKernel: %s); it has: %s", name,
               rt_error_name(err), names[0] ? names : "(none)");
    free(names);
    return NULL;
  }
  RtKernel rk = {.name = cg_strdup(name), .kernel = k};
  clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof rk.num_args, &rk.num_args, NULL);
  if (clGetKernelWorkGroupInfo(k, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof rk.wg_max,
                               &rk.wg_max, NULL) != CL_SUCCESS)
    rk.wg_max = 0;
  if (p->nkernels == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 4;
    p->kernels = realloc(p->kernels, (size_t)p->cap * sizeof *p->kernels);
    if (!p->kernels) cg_die("out of memory");
  }
  p->kernels[p->nkernels] = rk;
  return &p->kernels[p->nkernels++];
}

static void fmt_dims(char *dst, size_t cap, int n, const size_t *v) {
  size_t len = 0;
  dst[0] = 0;
  for (int i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(dst + len, cap - len, "%s%zu", i ? "x" : "", v[i]);
}

/* The ND-range checks OpenCL 1.2 makes, done here first so that the message says
 * which dimension and which limit instead of a bare CL_INVALID_WORK_GROUP_SIZE. */
static bool check_range(const RtDevice *dev, const RtKernel *k, int work_dim,
                        const size_t *global, const size_t *local, Diag *d) {
  if (work_dim < 1 || work_dim > 3)
    return diag_error(d, "kernel '%s': work_dim %d (must be 1, 2 or 3)", k->name, work_dim);
  char g[64], l[64];
  fmt_dims(g, sizeof g, work_dim, global);
  for (int i = 0; i < work_dim; i++)
    if (global[i] == 0)
      return diag_error(d, "kernel '%s': global size %s is 0 in dimension %d", k->name, g, i);
  if (!local) return true;
  fmt_dims(l, sizeof l, work_dim, local);
  size_t wg = 1;
  for (int i = 0; i < work_dim; i++) {
    if (local[i] == 0 || global[i] % local[i] != 0)
      return diag_error(d,
                        "kernel '%s': global size %s is not a multiple of local size %s "
                        "(dimension %d: %zu %% %zu)",
                        k->name, g, l, i, global[i], local[i]);
    if (dev->info.max_wi_sizes[i] && local[i] > dev->info.max_wi_sizes[i])
      return diag_error(d, "kernel '%s': local size %s exceeds the device's max work-item size %zu "
                        "in dimension %d", k->name, l, dev->info.max_wi_sizes[i], i);
    wg *= local[i];
  }
  if (dev->info.max_wg_size && wg > dev->info.max_wg_size)
    return diag_error(d, "kernel '%s': work-group size %zu (%s) exceeds the device's max %zu",
                      k->name, wg, l, dev->info.max_wg_size);
  if (k->wg_max && wg > k->wg_max)
    return diag_error(d, "kernel '%s': work-group size %zu (%s) exceeds this kernel's max %zu "
                      "(CL_KERNEL_WORK_GROUP_SIZE: registers or local memory)",
                      k->name, wg, l, k->wg_max);
  return true;
}

static bool set_args(const RtKernel *k, int nargs, const RtArg *args, Diag *d) {
  if (nargs < 0 || (k->num_args && (cl_uint)nargs != k->num_args))
    return diag_error(d, "kernel '%s' takes %u arguments, got %d", k->name, k->num_args, nargs);
  for (int i = 0; i < nargs; i++) {
    const RtArg *a = &args[i];
    cl_int err;
    if (a->buf)
      err = clSetKernelArg(k->kernel, (cl_uint)i, sizeof(cl_mem), &a->buf->mem);
    else
      err = clSetKernelArg(k->kernel, (cl_uint)i, a->size, a->value);   // NULL value: __local
    if (err != CL_SUCCESS)
      return cl_fail(d, err, "clSetKernelArg(kernel '%s', arg %d, %zu bytes)", k->name, i,
                     a->buf ? sizeof(cl_mem) : a->size);
  }
  return true;
}

/* Checks, sets the arguments of and queues one launch; *ev gets its event. */
static bool enqueue(RtDevice *dev, RtProgram *p, const char *name, int nargs, const RtArg *args, int work_dim,
                    const size_t *global, const size_t *local, RtKernel **kp, cl_event *ev, Diag *d) {
  cg_assert(p->dev == dev);
  RtKernel *k = *kp = get_kernel(p, dev, name, d);
  if (!k || !check_range(dev, k, work_dim, global, local, d) || !set_args(k, nargs, args, d))
    return false;
  cl_int err = clEnqueueNDRangeKernel(dev->queue, k->kernel, (cl_uint)work_dim, NULL, global,
                                      local, 0, NULL, ev);
  if (err == CL_SUCCESS) return true;
  char g[64], l[64] = "driver's choice";
  fmt_dims(g, sizeof g, work_dim, global);
  if (local) fmt_dims(l, sizeof l, work_dim, local);
  return diag_device(d, "clEnqueueNDRangeKernel(kernel '%s'): %s (global %s, local %s)", name,
                    err_text(err).s, g, l);
}

/* ---- spans: back-to-back launches timed together ---- */

RtSpan *rt_span_new(void) { return cg_calloc(1, sizeof(RtSpan)); }

/* Lets the queue run past the hold; a no-op when there is none. */
static void span_release(RtSpan *s) {
  if (!s->hold) return;
  clSetUserEventStatus(s->hold, CL_COMPLETE);
  clReleaseEvent(s->hold);
  s->hold = NULL;
}

void rt_span_clear(RtSpan *s) {
  span_release(s);
  if (s->be) s->be->span_clear(s);
  for (int i = 0; i < s->n; i++)
    if (s->ev[i]) clReleaseEvent(s->ev[i]);
  s->n = 0;
  s->whole = s->finished = false;
}

bool rt_span_hold(RtDevice *dev, RtSpan *s, Diag *d) {
  cg_assert(!s->hold && s->n == 0);
  if (dev->be) {
    cg_assert(!s->be || s->be == dev->be);
    s->be = dev->be;
    return dev->be->hold(dev, s, d);
  }
  cl_int err = CL_SUCCESS;
  cl_event hold = clCreateUserEvent(dev->ctx, &err);
  if (err != CL_SUCCESS) return cl_fail(d, err, "clCreateUserEvent (holding a span)");
  // a barrier waiting on the user event: in an in-order queue nothing after it starts before it completes
  err = clEnqueueBarrierWithWaitList(dev->queue, 1, &hold, NULL);
  if (err != CL_SUCCESS) {
    clSetUserEventStatus(hold, CL_COMPLETE);
    clReleaseEvent(hold);
    return cl_fail(d, err, "clEnqueueBarrierWithWaitList (holding a span)");
  }
  s->hold = hold;
  return true;
}

/* OpenCL: held, and only the first launch gets an event; rt_span_finish
 * queues a marker after the last, whose end closes the span (NVIDIA's
 * OpenCL spends microseconds on every launch's event). */
bool rt_span_replay(RtDevice *dev, RtSpan *s, Diag *d) {
  cg_assert(!s->hold && s->n == 0);
  if (dev->be && !dev->be->replay) return rt_span_hold(dev, s, d);
  if (dev->be) {
    cg_assert(!s->be || s->be == dev->be);
    s->be = dev->be;
  }
  if (!(dev->be ? dev->be->replay(dev, s, d) : rt_span_hold(dev, s, d))) return false;
  s->whole = true;
  return true;
}

bool rt_span_has_launch_times(const RtSpan *s) { return !s->whole; }

size_t rt_buffer_size(const RtBuffer *b) { return b ? b->size : 0; }

void rt_span_free(RtSpan *s) {
  if (!s) return;
  rt_span_clear(s);
  if (s->be) s->be->span_free(s);
  free(s->ev);
  free(s->name);
  free(s->ms);
  free(s);
}

int rt_span_count(const RtSpan *s) { return s->n; }

void rt_span_push(RtSpan *s, cl_event ev, const char *name) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 16;
    s->ev = realloc(s->ev, (size_t)s->cap * sizeof *s->ev);
    s->name = realloc(s->name, (size_t)s->cap * sizeof *s->name);
    s->ms = realloc(s->ms, (size_t)s->cap * sizeof *s->ms);
    if (!s->ev || !s->name || !s->ms) cg_die("out of memory");
  }
  s->ms[s->n] = 0;
  s->name[s->n] = name;
  s->ev[s->n++] = ev;
}

void rt_span_add_cl_event(RtSpan *s, cl_event ev) {
  if (ev) clRetainEvent(ev);
  rt_span_push(s, ev, NULL);
}

cl_event *rt_span_event_slot(const RtSpan *s, cl_event *ev) {
  *ev = NULL;
  return s->whole && s->n > 0 ? NULL : ev;
}

bool rt_enqueue(RtDevice *dev, RtProgram *p, const char *name, int nargs, const RtArg *args,
                int work_dim, const size_t *global, const size_t *local, RtSpan *s, Diag *d) {
  if (dev->be) {
    cg_assert(!s->be || s->be == dev->be);
    s->be = dev->be;
    return dev->be->enqueue(dev, p, name, nargs, args, work_dim, global, local, s, d);
  }
  RtKernel *k = NULL;
  cl_event ev = NULL;
  if (!enqueue(dev, p, name, nargs, args, work_dim, global, local, &k, rt_span_event_slot(s, &ev), d)) return false;
  rt_span_push(s, ev, k->name);
  return true;
}

static bool event_times(cl_event ev, cl_ulong *t0, cl_ulong *t1, Diag *d) {
  cl_int err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof *t0, t0, NULL);
  if (err == CL_SUCCESS) err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof *t1, t1, NULL);
  return err == CL_SUCCESS || cl_fail(d, err, "clGetEventProfilingInfo");
}

bool rt_span_finish(RtDevice *dev, RtSpan *s, double *ms, Diag *d) {
  *ms = 0;
  cl_event end = NULL;   // a replayed span's marker after its last launch
  cl_int err = s->whole && s->n > 0 && !s->be ? clEnqueueMarkerWithWaitList(dev->queue, 0, NULL, &end) : CL_SUCCESS;
  span_release(s);
  if (s->be) return s->be->finish(dev, s, ms, d);
  if (err != CL_SUCCESS) return cl_fail(d, err, "clEnqueueMarkerWithWaitList (the end of a span)");
  if (end) {
    err = clFinish(dev->queue);
    cl_int status = CL_COMPLETE;
    cl_ulong t0 = 0, t1 = 0, e0 = 0, e1 = 0;
    if (err == CL_SUCCESS) clGetEventInfo(end, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    bool timed = err == CL_SUCCESS && status >= 0 && event_times(s->ev[0], &t0, &t1, d) && event_times(end, &e0, &e1, d);
    clReleaseEvent(end);
    if (err != CL_SUCCESS) return cl_fail(d, err, "clFinish (a span of %d launches)", s->n);
    if (status < 0)
      return diag_device(d, "a replayed span of %d launches (kernel '%s' first) failed on the device: event status %s",
                         s->n, s->name[0] ? s->name[0] : "-", err_text(status).s);
    if (!timed) return false;
    *ms = e1 > t0 ? (double)(e1 - t0) * 1e-6 : 0.0;
    s->finished = true;
    return true;
  }
  if (s->n == 0) return true;
  err = clFinish(dev->queue);
  if (err != CL_SUCCESS) return cl_fail(d, err, "clFinish (a span of %d launches)", s->n);
  cl_ulong first = 0, last = 0;
  for (int i = 0; i < s->n; i++) {
    cl_int status = CL_COMPLETE;
    clGetEventInfo(s->ev[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    if (status < 0)
      return diag_device(d, "%s%s%s (launch %d of %d) failed on the device: event status %s",
                        s->name[i] ? "kernel '" : "a library's kernel", s->name[i] ? s->name[i] : "",
                        s->name[i] ? "'" : "", i + 1, s->n, err_text(status).s);
    cl_ulong t0 = 0, t1 = 0;
    if (!event_times(s->ev[i], &t0, &t1, d)) return false;
    s->ms[i] = t1 > t0 ? (double)(t1 - t0) * 1e-6 : 0.0;
    if (i == 0) first = t0;
    if (i == s->n - 1) last = t1;
  }
  *ms = last > first ? (double)(last - first) * 1e-6 : 0.0;
  return true;
}

double rt_span_launch_ms(const RtSpan *s, int i) { return i >= 0 && i < s->n ? s->ms[i] : 0; }

int rt_span_done(RtDevice *dev, const RtSpan *s) {
  if (s->be) return s->be->done(dev, s);
  if (s->whole) return s->finished ? s->n : 0;   // its launches after the first have no events
  clFlush(dev->queue);
  int done = 0;
  for (int i = 0; i < s->n; i++) {
    cl_int status = CL_QUEUED;
    done += clGetEventInfo(s->ev[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) == CL_SUCCESS &&
            status == CL_COMPLETE;
  }
  return done;
}

/* One launch waited for: a span of one. A kernel that faults shows up in its
 * event's status on a GPU (NVIDIA: -9999); on PoCL it runs in this process's
 * threads, so a fault there is a segfault of the process. */
bool rt_launch(RtDevice *dev, RtProgram *p, const char *name, int nargs, const RtArg *args,
               int work_dim, const size_t *global, const size_t *local, double *ms, Diag *d) {
  if (ms) *ms = 0;
  RtSpan *s = rt_span_new();
  double span = 0;
  bool ok = rt_enqueue(dev, p, name, nargs, args, work_dim, global, local, s, d) && rt_span_finish(dev, s, &span, d);
  if (ok && ms) *ms = rt_span_launch_ms(s, 0);
  rt_span_free(s);
  return ok;
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

RtStats rt_stats(const double *samples, int n) {
  RtStats s = {0};
  if (n <= 0) return s;
  double *v = cg_calloc((size_t)n, sizeof *v);
  memcpy(v, samples, (size_t)n * sizeof *v);
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  s.n = n;
  s.min = v[0];
  s.max = v[n - 1];
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.spread = s.median != 0 ? (s.max - s.min) / s.median : 0;
  free(v);
  return s;
}

/* rt_cl.h */
const char *rt_target(const RtDevice *dev) { return dev->be ? dev->be->target : "opencl"; }

const char *rt_info_target(const RtDeviceInfo *info) { return strcmp(info->platform, "CUDA") == 0 ? "cuda" : "opencl"; }

bool rt_target_known(const char *target) { return strcmp(target, "opencl") == 0 || strcmp(target, "cuda") == 0; }

/* A remote device under --target cuda: the server builds OpenCL C only. */
static bool remote_not_cuda(const char *sel, Diag *d) {
  const char *remote = remote_sel(sel);
  return !remote || diag_error(d, "the remote device %s is OpenCL only (convgen-server builds OpenCL C): "
                                  "not with --target cuda", remote);
}

RtDevice *rt_open_target(const char *target, const char *sel, Diag *d) {
  if (!target || strcmp(target, "opencl") == 0) return rt_open(sel, d);
  if (strcmp(target, "cuda") == 0) return remote_not_cuda(sel, d) ? rt_cuda_open(sel, d) : NULL;
  return diag_error(d, "unknown target '%s' (targets: opencl, cuda)", target), NULL;
}

int rt_list_devices_target(const char *target, RtDeviceInfo *out, int max, Diag *d) {
  if (!target || strcmp(target, "opencl") == 0) return rt_list_devices(out, max, d);
  if (strcmp(target, "cuda") == 0) return rt_cuda_list_devices(out, max, d);
  return diag_error(d, "unknown target '%s' (targets: opencl, cuda)", target), 0;
}

bool rt_select_info_target(const char *target, const char *sel, RtDeviceInfo *out, Diag *d) {
  if (!target || strcmp(target, "opencl") == 0) return rt_select_info(sel, out, d);
  if (strcmp(target, "cuda") == 0) return remote_not_cuda(sel, d) && rt_cuda_select_info(sel, out, d);
  return diag_error(d, "unknown target '%s' (targets: opencl, cuda)", target);
}

cl_context rt_cl_context(const RtDevice *dev) { return dev->ctx; }
cl_command_queue rt_cl_queue(const RtDevice *dev) { return dev->queue; }
cl_mem rt_cl_mem(const RtBuffer *b) { return b->mem; }
cl_program rt_cl_program(const RtProgram *p) { return p->program; }
