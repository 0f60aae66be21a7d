/* ptxrun.c: one point of a strategy, compiled by NVIDIA's OpenCL and run
 * through the CUDA driver API, so that CUDA's tools can look at the very
 * kernel convgen measures (Nsight Compute profiles CUDA launches, not
 * OpenCL ones). The OpenCL build's binary on NVIDIA is PTX; it is loaded
 * with cuModuleLoadData and launched with cuLaunchKernel with the ND-range
 * the lowering chose. The output is poisoned, checked against the float64
 * convolution on fresh inputs (relative L2 error <= 1e-4) before any time is
 * taken, then timed with CUDA events (one span over all of a point's
 * kernels); each kernel's registers, local memory (spills, indexed private
 * arrays) and static shared memory are printed. It runs on CUDA device 0:
 * on a machine of several GPUs, the OpenCL device must be that one.
 *
 *   build/bench/ptxrun LAYER STRATEGY "NAME=V ..." [DEVICE] [RUNS]
 *   ncu --set full -k regex:k build/bench/ptxrun vgg16.conv3_2 s2 "LK=2 LH=2 ..." nvidia
 *
 * PTXRUN_PTX=FILE also writes the PTX there. Exit status: 0 correct and
 * timed, 1 not correct or a CUDA failure, 2 bad arguments or no PTX (the
 * device is not NVIDIA's). The CUDA driver (libcuda.so.1) is loaded at run
 * time, so this builds without CUDA.
 */
#include "bench/bench.h"
#include "rt/cuda.h"
#include "codegen/codegen.h"
#include "conv/reference.h"
#include "lower/lower.h"
#include "rt/rt_cl.h"
#include "space/layer_space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAN_BITS 0x7fc00000u

static const CudaApi *cu;   // rt_cuda_api's

static bool cu_ok(CuResult r, const char *what) {
  if (r == 0) return true;
  const char *name = "?";
  if (cu && cu->cuGetErrorName) cu->cuGetErrorName(r, &name);
  fprintf(stderr, "ptxrun: %s: %s (%d)\n", what, name, r);
  return false;
}

static bool load_cuda(void) {
  char why[512];
  if (!cu && !(cu = rt_cuda_api(why, sizeof why))) fprintf(stderr, "ptxrun: %s\n", why);
  return cu != NULL;
}

/* The PTX of a program NVIDIA's OpenCL built (for one device); NULL if the
 * binary is not PTX. Heap string. */
static char *program_ptx(const RtProgram *p) {
  size_t size = 0;
  cl_program prog = rt_cl_program(p);
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || !size) return NULL;
  unsigned char *bin = calloc(size + 1, 1);
  unsigned char *bins[1] = {bin};
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS ||
      !strstr((char *)bin, ".entry"))
    return free(bin), NULL;
  return (char *)bin;
}

/* NVIDIA's OpenCL may read its launch environment (global offsets, group
 * counts) from %envreg registers, which a CUDA launch does not set. ptxrun
 * launches with no offset: %envreg6..8 are read as the group counts
 * (%nctaid.x/y/z), every other %envregN as 0. If that reading is wrong the
 * check below says "not correct" and no time is taken. Returns the new
 * text (heap) and frees ptx; names what it replaced on stderr. */
static char *replace_envregs(char *ptx) {
  static const char *const counts[] = {"%nctaid.x", "%nctaid.y", "%nctaid.z"};
  int n = 0;
  StrBuf out;
  sb_init(&out);
  for (const char *p = ptx; *p;) {
    if (strncmp(p, "%envreg", 7) == 0 && p[7] >= '0' && p[7] <= '9') {
      char *end;
      long r = strtol(p + 7, &end, 10);
      sb_puts(&out, r >= 6 && r <= 8 ? counts[r - 6] : "0");
      if (n++ == 0) fprintf(stderr, "ptxrun: the PTX reads");
      fprintf(stderr, " %%envreg%ld", r);
      p = end;
    } else {
      sb_putc(&out, *p++);
    }
  }
  if (n) fprintf(stderr, ": read as 0 (offsets) or the group counts (6..8)\n");
  free(ptx);
  return sb_take(&out);
}

/* A block for a kernel the lowering left to the runtime (mapGlb): the
 * largest divisor of the work-items in dimension 0 up to 256 (NVIDIA's
 * OpenCL may choose another; the time of such a kernel may differ). */
static unsigned block0(size_t n) {
  unsigned b = 256;
  while (b > 1 && n % b) b--;
  return b;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc > 6) {
    fprintf(stderr, "usage: %s LAYER STRATEGY \"NAME=V ...\" [DEVICE] [RUNS]\n", argv[0]);
    return 2;
  }
  Diag d = {0};
  Layer l;
  const Strategy *st = st_strategy(argv[2]);
  int runs = argc == 6 ? atoi(argv[5]) : 20;
  if (!st || !layer_parse(argv[1], &l, &d) || runs < 1)
    return fprintf(stderr, "ptxrun: bad arguments%s%s\n", d.set ? ": " : "", d.msg), 2;
  RtDevice *dev = rt_open(argc >= 5 ? argv[4] : NULL, &d);
  if (!dev) return fprintf(stderr, "ptxrun: %s\n", d.msg), 2;
  Arena *a = arena_new();
  LayerSpace *ls = ls_new(a, st, &l, argv[1], 0, NULL, rt_info(dev), &d);
  LsPoint pt;
  CpOptions co = {.through = CP_EMIT, .header = ""};
  CpResult cr;
  bool compiled = ls && ls_parse_point(ls, a, argv[3], &pt, &d) && ls_compile(ls, a, &pt, &co, &cr, &d);
  const LProgram *lp = compiled ? cr.lp : NULL;
  RtProgram *prog = compiled ? rt_build(dev, cr.source, NULL, &d) : NULL;
  char *ptx = prog ? program_ptx(prog) : NULL;
  if (!ptx) {
    fprintf(stderr, "ptxrun: %s\n", d.set ? d.msg : "the device's program binary is not PTX (not NVIDIA's OpenCL)");
    if (prog) rt_program_free(prog);
    ls_free(ls);
    arena_free(a);
    rt_close(dev);
    return 2;
  }
  ptx = replace_envregs(ptx);
  const char *ptx_file = getenv("PTXRUN_PTX");
  if (ptx_file && !file_write(ptx_file, ptx, strlen(ptx), &d)) fprintf(stderr, "ptxrun: %s\n", d.msg);

  int status = 1, cudev, out = -1;
  CuContext ctx;
  CuModule mod;
  BenchData bd = bench_data_new(&l, 20261130);
  CuPtr *buf = calloc((size_t)lp->nbuffers, sizeof *buf);
  CuFunction *fn = calloc((size_t)lp->nkernels, sizeof *fn);
  void ***params = calloc((size_t)lp->nkernels, sizeof *params);
  unsigned (*grid)[3] = calloc((size_t)lp->nkernels, sizeof *grid), (*block)[3] = calloc((size_t)lp->nkernels, sizeof *block);
  float *got = calloc((size_t)bd.ny, sizeof *got);
  double *ms = calloc((size_t)runs, sizeof *ms);
  if (!load_cuda() || !cu_ok(cu->cuInit(0), "cuInit") || !cu_ok(cu->cuDeviceGet(&cudev, 0), "cuDeviceGet") ||
      !cu_ok(cu->cuDevicePrimaryCtxRetain(&ctx, cudev), "cuDevicePrimaryCtxRetain") ||
      !cu_ok(cu->cuCtxSetCurrent(ctx), "cuCtxSetCurrent") || !cu_ok(cu->cuModuleLoadData(&mod, ptx), "cuModuleLoadData"))
    goto done;
  // buffers: the inputs from fresh data, the output and temporaries poisoned
  for (int i = 0; i < lp->nbuffers; i++) {
    const Mem *m = lp->buffers[i];
    size_t bytes = (size_t)lw_mem_bytes(m);
    if (!cu_ok(cu->cuMemAlloc_v2(&buf[i], bytes), "cuMemAlloc")) goto done;
    if (m->role == MR_INPUT) {
      const char *name = lp->prog->inputs[m->input_index]->name;
      const float *src_data = strcmp(name, "x") == 0 ? bd.x : strcmp(name, "weights") == 0 ? bd.w : bd.b;
      if (!cu_ok(cu->cuMemcpyHtoD_v2(buf[i], src_data, bytes), "cuMemcpyHtoD")) goto done;
    } else if (!cu_ok(cu->cuMemsetD32_v2(buf[i], NAN_BITS, bytes / 4), "cuMemsetD32")) {
      goto done;
    }
    if (m->role == MR_OUTPUT) out = i;
  }
  // kernels: their arguments, grid and block
  for (int k = 0; k < lp->nkernels; k++) {
    const LKernel *lk = lp->kernels[k];
    if (!cu_ok(cu->cuModuleGetFunction(&fn[k], mod, lk->name), lk->name)) goto done;
    params[k] = calloc((size_t)lk->nargs + 1, sizeof **params);
    for (int j = 0; j < lk->nargs; j++)
      for (int i = 0; i < lp->nbuffers; i++)
        if (lp->buffers[i] == lk->args[j]) params[k][j] = &buf[i];
    for (int dd = 0; dd < 3; dd++) {
      size_t g = dd < lk->work_dim ? lk->global[dd] : 1;
      block[k][dd] = lk->uses_groups ? (unsigned)(dd < lk->work_dim ? lk->local[dd] : 1) : dd == 0 ? block0(g) : 1;
      grid[k][dd] = (unsigned)(g / block[k][dd]);
    }
    int regs = 0, spill = 0, shared = 0, maxt = 0;
    cu->cuFuncGetAttribute(&regs, CU_FUNC_NUM_REGS, fn[k]);
    cu->cuFuncGetAttribute(&spill, CU_FUNC_LOCAL_BYTES, fn[k]);
    cu->cuFuncGetAttribute(&shared, CU_FUNC_SHARED_BYTES, fn[k]);
    cu->cuFuncGetAttribute(&maxt, CU_FUNC_MAX_THREADS, fn[k]);
    printf("kernel %s: grid %u x %u x %u, block %u x %u x %u; %d registers, %d bytes of local memory per thread "
           "(spills and indexed private arrays), %d bytes shared, at most %d threads per block\n", lk->name, grid[k][0], grid[k][1], grid[k][2], block[k][0],
           block[k][1], block[k][2], regs, spill, shared, maxt);
  }
  // one checked run, then the timed ones
  CuEvent ev[2];
  cu->cuEventCreate(&ev[0], 0), cu->cuEventCreate(&ev[1], 0);
  for (int r = -1; r < runs; r++) {
    cu->cuEventRecord(ev[0], NULL);
    for (int k = 0; k < lp->nkernels; k++)
      if (!cu_ok(cu->cuLaunchKernel(fn[k], grid[k][0], grid[k][1], grid[k][2], block[k][0], block[k][1], block[k][2],
                                   0, NULL, params[k], NULL), "cuLaunchKernel"))
        goto done;
    cu->cuEventRecord(ev[1], NULL);
    if (!cu_ok(cu->cuEventSynchronize(ev[1]), "the kernels")) goto done;
    float t;
    cu->cuEventElapsedTime(&t, ev[0], ev[1]);
    if (r >= 0) {
      ms[r] = t;
      continue;
    }
    if (out < 0 || !cu_ok(cu->cuMemcpyDtoH_v2(got, buf[out], (size_t)bd.ny * 4), "cuMemcpyDtoH")) goto done;
    int64_t nonfinite = 0;
    double err = conv_rel_l2(got, bd.ref, (size_t)bd.ny, &nonfinite);
    printf("check: relative L2 error %.3g over %lld outputs (%lld not finite)\n", err, (long long)bd.ny,
           (long long)nonfinite);
    if (!(err <= 1e-4) || nonfinite) {
      printf("not correct: no time taken\n");
      goto done;
    }
  }
  RtStats s = rt_stats(ms, runs);
  printf("time: %.1f us median, min %.1f, max %.1f (%d runs, CUDA events, after one checked run)\n", s.median * 1e3,
         s.min * 1e3, s.max * 1e3, runs);
  status = 0;
done:   // the device memory and the module go with the process
  fflush(stdout);
  for (int k = 0; k < lp->nkernels; k++) free(params[k]);
  free(params), free(fn), free(grid), free(block), free(buf), free(got), free(ms), free(ptx);
  bench_data_free(&bd);
  rt_program_free(prog);
  ls_free(ls);
  arena_free(a);
  rt_close(dev);
  return status;
}
