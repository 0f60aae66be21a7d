/* cuda.c: the CUDA driver, loaded at run time (cuda.h). */
#include "rt/cuda.h"

#include "rt/dl.h"

#include <dlfcn.h>
#include <stdio.h>

static const RtSym cuda_syms[] = {
#define SYM(name, params) {#name, offsetof(CudaApi, name)},
    RT_CUDA_FUNCS(SYM)
#undef SYM
};

const CudaApi *rt_cuda_api(char *why, size_t cap) {
  static CudaApi api;
  static bool bound;
  if (bound) return &api;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    snprintf(why, cap, "cannot load the CUDA driver (libcuda.so.1): %s; it comes with the NVIDIA driver",
             err ? err : "");
    return NULL;
  }
  if (!rt_dl_bind(lib, "libcuda.so.1", &api, cuda_syms, sizeof cuda_syms / sizeof *cuda_syms, why, cap))
    return NULL;
  if (!rt_dl_fn(lib, "cuEventElapsedTime_v2", &api.cuEventElapsedTime) &&
      !rt_dl_fn(lib, "cuEventElapsedTime", &api.cuEventElapsedTime)) {
    snprintf(why, cap, "libcuda.so.1 has no cuEventElapsedTime");
    return NULL;
  }
  bound = true;
  return &api;
}
