/* cuda.h: the part of the CUDA driver API that convgen uses (rt_cuda.c: the
 * CUDA runtime of --target cuda; bench/cudnn.c: buffers, events, streams
 * and CUDA graphs around cuDNN's calls; bench/ptxrun.c: modules and
 * launches), declared as the driver's cuda.h declares it and loaded at run
 * time from libcuda.so.1, so that convgen builds and runs without CUDA. */
#ifndef CONVGEN_RT_CUDA_H
#define CONVGEN_RT_CUDA_H

#include <stdbool.h>
#include <stddef.h>

typedef int CuResult;                    // CUresult: 0 is CUDA_SUCCESS
typedef int CuDevice;                    // CUdevice: an ordinal
typedef unsigned long long CuPtr;        // CUdeviceptr (64-bit)
typedef struct CuContextSt *CuContext;   // CUcontext
typedef struct CuModuleSt *CuModule;     // CUmodule
typedef struct CuFunctionSt *CuFunction; // CUfunction
typedef struct CuEventSt *CuEvent;       // CUevent
typedef struct CuStreamSt *CuStream;     // CUstream; NULL is the default stream
typedef struct CuGraphSt *CuGraph;       // CUgraph
typedef struct CuGraphExecSt *CuGraphExec; // CUgraphExec

#define CU_EVENT_DEFAULT 0u              // CUevent_flags: a timing event
#define CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1   // CUstreamCaptureMode
enum {                                   // CUdevice_attribute
  CU_DEV_MAX_THREADS_PER_BLOCK = 1, CU_DEV_MAX_BLOCK_DIM_X = 2, CU_DEV_MAX_GRID_DIM_X = 5,
  CU_DEV_MAX_SHARED_PER_BLOCK = 8, CU_DEV_CLOCK_KHZ = 13, CU_DEV_SM_COUNT = 16, CU_DEV_CC_MAJOR = 75,
  CU_DEV_CC_MINOR = 76,
};
enum { CU_ERROR_NOT_READY = 600 };       // cuEventQuery: not yet recorded
enum {                                   // CUfunction_attribute
  CU_FUNC_MAX_THREADS = 0, CU_FUNC_SHARED_BYTES = 1, CU_FUNC_LOCAL_BYTES = 3, CU_FUNC_NUM_REGS = 4,
};

/* Each entry: the exported symbol (the _v2 ones are what cuda.h maps the
 * plain names to) and its parameters; every one returns CUresult. */
#define RT_CUDA_FUNCS(X)                                                                          \
  X(cuInit, (unsigned flags))                                                                        \
  X(cuDeviceGetCount, (int *count))                                                                  \
  X(cuDeviceGet, (CuDevice *dev, int ordinal))                                                       \
  X(cuDeviceGetName, (char *name, int len, CuDevice dev))                                            \
  X(cuDevicePrimaryCtxRetain, (CuContext *ctx, CuDevice dev))                                        \
  X(cuDevicePrimaryCtxRelease_v2, (CuDevice dev))                                                    \
  X(cuCtxSetCurrent, (CuContext ctx))                                                                \
  X(cuCtxGetCurrent, (CuContext *ctx))                                                               \
  X(cuModuleLoadData, (CuModule *m, const void *image))                                              \
  X(cuModuleGetFunction, (CuFunction *f, CuModule m, const char *name))                              \
  X(cuFuncGetAttribute, (int *v, int attr, CuFunction f))                                            \
  X(cuLaunchKernel, (CuFunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,   \
                     unsigned bz, unsigned shared, CuStream stream, void **params, void **extra))    \
  X(cuMemAlloc_v2, (CuPtr *p, size_t bytes))                                                         \
  X(cuMemFree_v2, (CuPtr p))                                                                         \
  X(cuMemcpyHtoD_v2, (CuPtr dst, const void *src, size_t bytes))                                     \
  X(cuMemcpyDtoH_v2, (void *dst, CuPtr src, size_t bytes))                                           \
  X(cuMemsetD32_v2, (CuPtr dst, unsigned value, size_t count))                                       \
  X(cuMemsetD16_v2, (CuPtr dst, unsigned short value, size_t count))                                 \
  X(cuEventCreate, (CuEvent *ev, unsigned flags))                                                    \
  X(cuEventRecord, (CuEvent ev, CuStream stream))                                                    \
  X(cuEventSynchronize, (CuEvent ev))                                                                \
  X(cuEventDestroy_v2, (CuEvent ev))                                                                 \
  X(cuStreamCreate, (CuStream *s, unsigned flags))                                                   \
  X(cuStreamDestroy_v2, (CuStream s))                                                                \
  X(cuStreamSynchronize, (CuStream s))                                                               \
  X(cuStreamBeginCapture_v2, (CuStream s, int mode))                                                 \
  X(cuStreamEndCapture, (CuStream s, CuGraph *g))                                                    \
  X(cuGraphInstantiateWithFlags, (CuGraphExec *e, CuGraph g, unsigned long long flags))              \
  X(cuGraphLaunch, (CuGraphExec e, CuStream s))                                                      \
  X(cuGraphUpload, (CuGraphExec e, CuStream s))                                                      \
  X(cuGraphExecDestroy, (CuGraphExec e))                                                             \
  X(cuGraphDestroy, (CuGraph g))                                                                     \
  X(cuGetErrorName, (CuResult e, const char **name))                                                 \
  X(cuDeviceGetAttribute, (int *v, int attr, CuDevice dev))                                          \
  X(cuDeviceTotalMem_v2, (size_t *bytes, CuDevice dev))                                              \
  X(cuDriverGetVersion, (int *version))                                                              \
  X(cuModuleUnload, (CuModule m))                                                                    \
  X(cuLaunchHostFunc, (CuStream s, void (*fn)(void *data), void *data))                              \
  X(cuEventQuery, (CuEvent ev))

typedef struct CudaApi {
#define RT_CUDA_FIELD(name, params) CuResult (*name) params;
  RT_CUDA_FUNCS(RT_CUDA_FIELD)
#undef RT_CUDA_FIELD
  // cuda.h maps it to cuEventElapsedTime_v2 since CUDA 12.8; older drivers
  // export only the plain name, with the same signature.
  CuResult (*cuEventElapsedTime)(float *ms, CuEvent start, CuEvent end);
} CudaApi;

/* The driver's functions, bound on the first call (the library then stays
 * loaded: the driver keeps threads and state that do not survive an
 * unload); NULL with the reason in why (no libcuda.so.1: no NVIDIA driver;
 * a function missing: too old) when it cannot be loaded. */
const CudaApi *rt_cuda_api(char *why, size_t cap);

#endif
