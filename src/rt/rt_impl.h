/* rt_impl.h: inside the runtime (rt.c, rt_cuda.c); nothing else includes it.
 *
 * rt.h is one interface over two implementations. OpenCL (rt.c) is the
 * built-in one: an object whose `be` is NULL is OpenCL's, and rt.c's entry
 * points handle it themselves. Any other target is an RtBackend, a table of
 * the entry points that differ (CUDA: rt_cuda.c); rt.c's entry points pass
 * an object whose `be` is set to its table, and a backend keeps what it
 * needs in `impl`. Adding a target is writing such a table, its open and
 * select functions (rt_open_target), and a dialect (codegen/dialect.c).
 * The remote target (rt_remote.c) is such a table over a socket.
 */
#ifndef CONVGEN_RT_IMPL_H
#define CONVGEN_RT_IMPL_H

#include "rt/rt.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

typedef struct RtBackend RtBackend;

struct RtDevice {
  RtDeviceInfo info;        // what rt_info returns
  const RtBackend *be;      // NULL: OpenCL
  void *impl;               // the backend's device
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue;   // in order, profiling enabled
};

typedef struct RtKernel {
  char *name;               // heap
  cl_kernel kernel;
  cl_uint num_args;         // CL_KERNEL_NUM_ARGS
  size_t wg_max;            // CL_KERNEL_WORK_GROUP_SIZE on this device
} RtKernel;

struct RtProgram {
  const RtDevice *dev;      // owner; only compared, so freeing order does not matter
  const RtBackend *be;      // NULL: OpenCL
  void *impl;               // the backend's program
  cl_program program;
  RtKernel *kernels;        // created on first launch by name, reused after
  int nkernels, cap;
};

struct RtBuffer {
  const RtBackend *be;      // NULL: OpenCL
  uint64_t addr;            // the backend's handle (CUDA: the device pointer; remote: the server's id)
  void *impl;               // the backend's (remote: the connection it lives on)
  cl_mem mem;
  size_t size;              // bytes
};

struct RtSpan {
  cl_event *ev;      // every launch, in order (retained; NULL for a backend's launches)
  const char **name; // each one's kernel (a program's kernel name; NULL: another library's)
  double *ms;        // each one's device time, once finished
  int n, cap;
  cl_event hold;     // rt_span_hold's user event, until released (NULL: none)
  bool whole;            // replayed as one (rt_span_replay): the launches' own times unknown
  bool finished;         // OpenCL's replayed span: rt_span_finish saw its marker complete
  const RtBackend *be;   // the backend whose launches it holds (NULL: OpenCL's, or none yet)
  void *impl;            // the backend's span
};

/* Adds a launch (its kernel's name) to s; a backend keeps its own record of
 * it in s->impl, at the same index. */
void rt_span_push(RtSpan *s, cl_event ev, const char *name);

struct RtBackend {
  const char *target;       // "cuda": what --target names it
  void (*close)(RtDevice *dev);
  RtProgram *(*build)(RtDevice *dev, const char *source, const char *options, Diag *d);
  void (*program_free)(RtProgram *p);
  RtBuffer *(*alloc)(RtDevice *dev, size_t bytes, Diag *d);
  void (*buffer_free)(RtBuffer *b);
  bool (*write)(RtDevice *dev, RtBuffer *b, const void *src, size_t bytes, Diag *d);
  bool (*read)(RtDevice *dev, RtBuffer *b, void *dst, size_t bytes, Diag *d);
  bool (*fill_nan)(RtDevice *dev, RtBuffer *b, const ElemType *et, size_t bytes, Diag *d);
  size_t (*kernel_wg_max)(RtDevice *dev, RtProgram *p, const char *name, Diag *d);
  bool (*enqueue)(RtDevice *dev, RtProgram *p, const char *name, int nargs, const RtArg *args, int work_dim,
                  const size_t *global, const size_t *local, RtSpan *s, Diag *d);
  bool (*hold)(RtDevice *dev, RtSpan *s, Diag *d);
  bool (*replay)(RtDevice *dev, RtSpan *s, Diag *d);   // NULL: it cannot record; a hold instead
  bool (*finish)(RtDevice *dev, RtSpan *s, double *ms, Diag *d);
  int (*done)(RtDevice *dev, const RtSpan *s);
  void (*span_clear)(RtSpan *s);   // lets a hold go and forgets the launches (not s's shared arrays)
  void (*span_free)(RtSpan *s);    // frees s->impl
  bool (*lost)(const RtDevice *dev);   // NULL: never lost for good (rt_device_lost)
};

/* The CUDA target (rt_cuda.c). */
RtDevice *rt_cuda_open(const char *sel, Diag *d);
bool rt_cuda_select_info(const char *sel, RtDeviceInfo *out, Diag *d);
int rt_cuda_list_devices(RtDeviceInfo *out, int max, Diag *d);
/* NVRTC alone (no device): source compiled for sm_<major><minor>; *bytes the
 * cubin's size. For the tests, where NVRTC is installed and no GPU is. */
bool rt_cuda_compile(const char *source, int major, int minor, size_t *bytes, Diag *d);

/* The remote target (rt_remote.c; docs/remote.md): a device served by
 * convgen-server, selected as HOST:PORT. rt_remote_selector says whether sel
 * is of that form (PORT 1..65535; an IPv6 HOST written [::1]) and splits it;
 * rt_remote_open connects and says HELLO; rt_remote_select_info does the
 * same for the device's limits alone and disconnects. */
bool rt_remote_selector(const char *sel, char *host, size_t hcap, char port[6]);
RtDevice *rt_remote_open(const char *sel, Diag *d);
bool rt_remote_select_info(const char *sel, RtDeviceInfo *out, Diag *d);

#endif
