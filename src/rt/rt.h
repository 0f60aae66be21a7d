/* rt.h: the device runtime over OpenCL (the ICD loader: PoCL on CPUs, NVIDIA's
 * OpenCL on NVIDIA GPUs).
 *
 * Lists devices with their limits, selects one from a user string, builds
 * programs (the build log comes back in the Diag on failure), allocates and
 * copies buffers, launches kernels and times them with device events.
 * Every OpenCL error becomes a Diag naming the call and the error code's name,
 * of kind DIAG_DEVICE (as are a machine without a device and a failed
 * build); a selector that matches no device and a launch whose arguments do
 * not fit the kernel are the caller's (DIAG_USER). Nothing here exits or
 * prints.
 */
#ifndef CONVGEN_RT_H
#define CONVGEN_RT_H

#include "util/elem.h"
#include "util/util.h"

typedef struct RtDeviceInfo {
  int index;                  // position in rt_list_devices order (platform-major)
  char platform[128];         // platform name
  char name[128];             // device name
  char vendor[128];
  char driver[64];            // driver version
  char version[64];           // device OpenCL version string
  char c_version[64];         // OpenCL C version
  bool is_gpu;                // CL_DEVICE_TYPE_GPU
  unsigned compute_units;
  size_t max_wg_size;         // CL_DEVICE_MAX_WORK_GROUP_SIZE
  size_t max_wi_sizes[3];     // CL_DEVICE_MAX_WORK_ITEM_SIZES
  uint64_t local_mem;         // bytes
  uint64_t global_mem;        // bytes
  uint64_t max_alloc;         // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  unsigned clock_mhz;
  char extensions[2048];      // may be truncated
  char platform_vendor[128];  // CL_PLATFORM_VENDOR ("The pocl project"); rt_open matches it too
  bool is_cpu;                // CL_DEVICE_TYPE_CPU (neither is_gpu nor is_cpu: an accelerator)
  unsigned pref_float_width;  // CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
  char profile[32];           // the profile's name when the limits are a profile's ("": a live device)
} RtDeviceInfo;

/* Device profiles (profiles.c; docs/profiles.md): the published limits of
 * GPUs convgen has no device for, so that a space and its kernels can be
 * made for them here. A profile is one RtDeviceInfo (rt_profile_info): the
 * space and the lowering's checks read it as they read a device's. Each
 * figure's source is cited in profiles.c; one not published is a
 * conservative value, and `sources` says which. */
typedef struct RtProfile {
  const char *name;           // "mali-g72": what --profile takes
  const char *device;         // CL_DEVICE_NAME as the vendor's driver reports it
  const char *vendor;
  const char *architecture;
  size_t max_wg_size;         // CL_DEVICE_MAX_WORK_GROUP_SIZE
  size_t max_wi_sizes[3];     // CL_DEVICE_MAX_WORK_ITEM_SIZES
  uint64_t local_mem;         // CL_DEVICE_LOCAL_MEM_SIZE, bytes
  unsigned pref_float_width;  // CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
  unsigned registers;         // 32-bit registers per work-item (0: not published)
  const char *version;        // CL_DEVICE_VERSION's "OpenCL X.Y"
  const char *extensions;     // CL_DEVICE_EXTENSIONS (those it surely reports)
  const char *sources;        // where the figures come from, and which are not published
} RtProfile;

const RtProfile *rt_profiles(int *n);          // the table, in a fixed order
const RtProfile *rt_profile_find(const char *name);   // case-insensitive; NULL when none
void rt_profile_info(const RtProfile *p, RtDeviceInfo *out);
/* rt_profile_info of the profile `name`; false with a Diag (DIAG_USER)
 * listing the profiles when there is none of that name. */
bool rt_profile_select(const char *name, RtDeviceInfo *out, Diag *d);
/* `convgen devices --profiles`: one block per profile, appended to sb. */
void rt_print_profiles(StrBuf *sb);
/* The first extension a `#pragma OPENCL EXTENSION NAME` of source enables
 * that dev does not report (written into name[cap]), or NULL. */
const char *rt_missing_extension(const char *source, const RtDeviceInfo *dev, char *name, size_t cap);

/* The limits of the device sel selects (as rt_open selects it), without
 * opening it: no context is made (another process may hold the device). */
bool rt_select_info(const char *sel, RtDeviceInfo *out, Diag *d);

/* All devices of all platforms; returns the count (0 with d set on error). */
int rt_list_devices(RtDeviceInfo *out, int max, Diag *d);
/* It fills at most max entries; with out == NULL it only counts. Extensions
 * are truncated at a space, never inside a name. */

/* `convgen devices`: one aligned block per device (index, platform, name, type,
 * driver, OpenCL C version, compute units, clock, work-group and work-item
 * limits, local/global memory and max allocation), appended to sb. */
void rt_print_devices(StrBuf *sb, const RtDeviceInfo *devs, int n);

/* Selection: NULL or "" -> the first GPU if any, else the first device;
 * "N" -> device index N; "HOST:PORT" (PORT 1..65535; "[::1]:PORT" for an
 * IPv6 host) -> the OpenCL device a convgen-server serves there (rt_remote.c,
 * docs/remote.md: its info is that device's own, its target "opencl");
 * otherwise a case-insensitive substring of the
 * platform or device name ("nvidia", "pocl"). Also read from $CONVGEN_DEVICE
 * when sel is NULL. Error lists the devices when nothing matches. */
typedef struct RtDevice RtDevice;
/* The substring is also matched against the platform and device vendors,
 * since PoCL's platform is named "Portable Computing Language" and only its
 * vendor ("The pocl project") says pocl. */
RtDevice *rt_open(const char *sel, Diag *d);
void rt_close(RtDevice *dev);

/* Targets: the runtime has two implementations behind this one interface,
 * OpenCL (rt_open, the default) and CUDA (the driver API and NVRTC, both
 * loaded at run time: rt_cuda.c). rt_open_target opens the device sel
 * selects among the target's ("opencl" or NULL: rt_open; "cuda": the CUDA
 * devices, "N" an ordinal or a part of the name); rt_select_info_target is
 * rt_select_info for a target. Without the CUDA driver or NVRTC, "cuda"
 * fails with a DIAG_DEVICE saying which library is missing. A device's
 * kernels are written in its target's dialect (codegen.h: cg_dialect of
 * rt_target). */
bool rt_target_known(const char *target);   // "opencl" or "cuda"
RtDevice *rt_open_target(const char *target, const char *sel, Diag *d);
bool rt_select_info_target(const char *target, const char *sel, RtDeviceInfo *out, Diag *d);
/* rt_list_devices for a target: the CUDA devices for "cuda" (0 with d set
 * when CUDA cannot be used here, saying why). */
int rt_list_devices_target(const char *target, RtDeviceInfo *out, int max, Diag *d);
const char *rt_target(const RtDevice *dev);   // "opencl" or "cuda"
const char *rt_info_target(const RtDeviceInfo *info);   // the target of a device's limits: its platform says
/* The CUDA launch of an ND-range (kernel `name`, for messages): the
 * work-group as the block, global/local blocks as the grid; without local
 * (the driver's choice in OpenCL) the largest divisor of each global size
 * within 256 threads in all and the device's work-item sizes. False with a
 * Diag when local does not divide global or exceeds info's limits. What
 * --target cuda launches, and what `export --target cuda` writes down. */
bool rt_cuda_grid(const char *name, int work_dim, const size_t *global, const size_t *local, const RtDeviceInfo *info,
                  size_t grid[3], size_t block[3], Diag *d);
const RtDeviceInfo *rt_info(const RtDevice *dev);
/* True when dev can no longer be used at all, whatever is asked of it: a
 * remote device (HOST:PORT) whose connection was lost. Every call on it
 * fails the same way from then on, so a caller that goes on (the tuner's
 * worker) would only record that failure again and again. False for an
 * OpenCL or CUDA device, whose failures are each call's own. */
bool rt_device_lost(const RtDevice *dev);

/* Programs and kernels. The build log is put in the Diag on failure, after a
 * line naming the kernel source's first line (which names the layer/program).
 * Every program is built as OpenCL C 1.2, the dialect the emitter writes:
 * RT_CL_STD goes before the options unless they give a -cl-std of their own. */
#define RT_CL_STD "-cl-std=CL1.2"
/* The options rt_build gives the driver for the caller's options (NULL:
 * none): RT_CL_STD first unless they have a -cl-std. In buf when it adds
 * RT_CL_STD (truncated at cap), else options itself. */
const char *rt_build_options(const char *options, char *buf, size_t cap);
typedef struct RtProgram RtProgram;
RtProgram *rt_build(RtDevice *dev, const char *source, const char *options, Diag *d);
void rt_program_free(RtProgram *p);

typedef struct RtBuffer RtBuffer;
RtBuffer *rt_alloc(RtDevice *dev, size_t bytes, Diag *d);
void rt_buffer_free(RtBuffer *b);
bool rt_write(RtDevice *dev, RtBuffer *b, const void *src, size_t bytes, Diag *d);
bool rt_read(RtDevice *dev, RtBuffer *b, void *dst, size_t bytes, Diag *d);
/* n host floats written into b as values of et (fp32 as they are, fp16
 * rounded to nearest even), and n values of et read back from b as floats:
 * the host holds fp32 whatever the buffer's element type. */
bool rt_write_values(RtDevice *dev, RtBuffer *b, const ElemType *et, const float *v, int64_t n, Diag *d);
bool rt_read_values(RtDevice *dev, RtBuffer *b, const ElemType *et, float *v, int64_t n, Diag *d);
/* Poison the first `bytes` bytes with et's quiet NaN (ElemType.nan_bits) in every
 * whole value; rt_fill_nan poisons as fp32, for callers whose buffers are fp32. */
bool rt_poison(RtDevice *dev, RtBuffer *b, const ElemType *et, size_t bytes, Diag *d);
bool rt_fill_nan(RtDevice *dev, RtBuffer *b, size_t bytes, Diag *d);
size_t rt_buffer_size(const RtBuffer *b);   // its bytes

/* One kernel argument: a buffer, or a scalar by value. */
typedef struct RtArg {
  RtBuffer *buf;        // non-NULL for a buffer argument
  const void *value;    // scalar argument bytes when buf is NULL
  size_t size;          // scalar size
} RtArg;
/* An RtArg with buf == NULL and value == NULL is a __local array of size bytes. */

/* Launch kernel `name` of program p with `work_dim` dimensions. local may be NULL
 * (let the driver choose). Waits for completion; *ms (if not NULL) gets the
 * kernel's device time from profiling events, in milliseconds. */
bool rt_launch(RtDevice *dev, RtProgram *p, const char *name, int nargs, const RtArg *args,
               int work_dim, const size_t *global, const size_t *local, double *ms, Diag *d);

/* Back-to-back launches timed as one span (the timing protocol of
 * measure.h: R runs between two device timestamps). rt_enqueue queues a
 * launch without waiting for it and adds it to span s; rt_span_finish waits
 * for every launch of s, fails if one failed on the device, and gives the
 * device time from the start of the first launch to the end of the last
 * (gaps between launches included: they are part of what a user waits for).
 * rt_span_launch_ms then gives each launch's own device time, in order.
 * rt_span_hold, on an empty span, holds the queue: nothing queued after it
 * starts on the device until rt_span_finish (or rt_span_clear) lets it go,
 * so a batch reaches the device whole and its time is the device's, not the
 * host's rate of queueing (the OpenCL counterpart of replaying a CUDA
 * graph). The span's start is its first launch's, after the hold. */
typedef struct RtSpan RtSpan;
RtSpan *rt_span_new(void);
void rt_span_free(RtSpan *s);
int rt_span_count(const RtSpan *s);   // launches in s
bool rt_enqueue(RtDevice *dev, RtProgram *p, const char *name, int nargs, const RtArg *args,
                int work_dim, const size_t *global, const size_t *local, RtSpan *s, Diag *d);
bool rt_span_hold(RtDevice *dev, RtSpan *s, Diag *d);
/* rt_span_replay, on an empty span, in place of rt_span_hold: the span is
 * timed whole, by two device timestamps with nothing between its launches,
 * and their own times are unknown (rt_span_has_launch_times false,
 * rt_span_launch_ms 0). CUDA records the launches, not running them, and
 * rt_span_finish replays them as one graph captured from the stream (as
 * cuDNN's users replay theirs); OpenCL holds the queue, gives only the
 * first launch an event, and ends the span with a marker after the last. */
bool rt_span_replay(RtDevice *dev, RtSpan *s, Diag *d);
bool rt_span_has_launch_times(const RtSpan *s);   // after rt_span_finish
bool rt_span_finish(RtDevice *dev, RtSpan *s, double *ms, Diag *d);
double rt_span_launch_ms(const RtSpan *s, int i);   // after rt_span_finish; 0 when unknown
int rt_span_done(RtDevice *dev, const RtSpan *s);    // launches of s finished so far (the queue flushed first)
void rt_span_clear(RtSpan *s);   // releases the launches' events; s can be used again

/* The largest work-group kernel `name` of p can run with on dev
 * (CL_KERNEL_WORK_GROUP_SIZE: what its registers and local memory allow,
 * known only once it is built); 0 when the driver does not say, or with a
 * Diag when there is no such kernel. */
size_t rt_kernel_wg_max(RtDevice *dev, RtProgram *p, const char *name, Diag *d);

/* Statistics for the measurement protocol: median and spread of n samples.
 * spread = (max - min) / median. Sorts a copy. */
typedef struct RtStats {
  double median, min, max, spread;
  int n;
} RtStats;
RtStats rt_stats(const double *samples, int n);
/* (Even n: the median is the mean of the two middle samples; spread is 0 when
 * the median is 0; n <= 0 gives all zeros.) */

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *rt_error_name(int code);

#endif
