/* test_export.c: the files of `convgen export` for both targets, written
 * from kernels compiled here (no database, no device): a point of every
 * strategy on a small layer with bias and an activation. The OpenCL files
 * are built with make (the OpenCL headers are here wherever the suite
 * runs); the CUDA files are built where the CUDA toolkit's headers and
 * libcuda stub are (/usr/local/cuda, or $CUDA), else that part is skipped
 * with a line on stderr. Running the CUDA example needs a GPU: bench's
 * H200 rounds do it. */
#include "codegen/codegen.h"
#include "conv/layer.h"
#include "space/layer_space.h"
#include "test.h"
#include "test_export.h"
#include "tune/export.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* An H200's limits under the CUDA target (what rt_cuda reports). */
static RtDeviceInfo cuda_info(void) {
  RtDeviceInfo i = {.platform = "CUDA", .name = "test GPU", .vendor = "NVIDIA", .is_gpu = true,
                    .compute_units = 132, .max_wg_size = 1024, .max_wi_sizes = {1024, 1024, 64},
                    .local_mem = 48 * 1024, .global_mem = 1ull << 34, .max_alloc = 1ull << 34};
  return i;
}

/* One point of every strategy that takes the layer compiled for target (s3
 * is refused for a grouped layer, dw for all but depthwise ones). */
static int compile_layers(Arena *a, const Layer *l, const RtDeviceInfo *target, ExportLayer *out, int max) {
  int ns, n = 0;
  const Strategy *all = st_strategies(&ns);
  for (int i = 0; i < ns && n < max; i++) {
    if (layer_groups(l) > 1 && strcmp(all[i].name, "s3") == 0) continue;
    if (all[i].refuses && all[i].refuses(l)) continue;
    Diag d = {0};
    LayerSpace *ls = ls_new(a, &all[i], l, all[i].name, 0, NULL, target, &d);
    LsPoint pt;
    CHECK(ls && ls_sample(ls, 5, 1, &pt) == 1);
    if (!ls) continue;
    CpOptions o = {.through = CP_EMIT, .target = cg_dialect(rt_info_target(target))};
    CpResult r;
    bool ok = ls_compile(ls, a, &pt, &o, &r, &d);
    CHECK(ok);
    if (ok) {
      char *json = cg_manifest_json(r.lp, r.header, 0, NULL, NULL);
      out[n++] = (ExportLayer){arena_printf(a, "small.%s", all[i].name), *l, all[i].name,
                               ls_point_text(ls, a, &pt), 1.0, r.lp, r.source, arena_strdup(a, json)};
      free(json);
    }
    ls_free(ls);
  }
  return n;
}

static bool contains(const char *dir, const char *file, const char *text) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  size_t n;
  Diag d = {0};
  char *s = file_read(p, &n, &d);
  if (!s) return false;
  bool r = strstr(s, text) != NULL;
  free(s);
  return r;
}

/* make in dir with warnings as errors: 0 when it built the example. */
static int build(const char *dir, const char *vars) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "make -s -C %s %s CFLAGS='-O0 -std=c99 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L' >%s/make.log 2>&1",
           dir, vars, dir);
  int rc = system(cmd);
  if (rc != 0) {
    snprintf(cmd, sizeof cmd, "head -c 2000 %s/make.log >&2", dir);
    if (system(cmd) != 0) fprintf(stderr, "(no make.log)\n");
  }
  return rc;
}

static void test_target(Arena *a, const char *root, const RtDeviceInfo *target, bool cuda) {
  Layer l, grouped;
  Diag d = {0};
  CHECK(layer_parse("n=2,c=6,h=9,w=11,k=10,pad=1,bias=1,act=relu6", &l, &d));
  CHECK(layer_parse("n=1,c=6,h=8,w=7,k=9,groups=3,dilation=2,pad=2,bias=1,act=leaky(0.25)", &grouped, &d));
  ExportLayer ex[16];
  int n = compile_layers(a, &l, target, ex, 8);
  CHECK(n >= 4);   // direct, s1, s2, s3
  n += compile_layers(a, &grouped, target, ex + n, 8);
  const char *dir = arena_printf(a, "%s/%s", root, cuda ? "cuda" : "opencl");
  CHECK(export_write(dir, ex, n, "test device", target, &d));
  const char *ext = cuda ? "cu" : "cl", *other = cuda ? "cl" : "cu";
  for (int i = 0; i < n; i++) {
    const char *id = arena_printf(a, "small_%s_%d", ex[i].strategy, i);
    CHECK(have(dir, arena_printf(a, "%s.%s", id, ext)));
    CHECK(!have(dir, arena_printf(a, "%s.%s", id, other)));
    CHECK(have(dir, arena_printf(a, "%s.json", id)));
  }
  CHECK(contains(dir, "convgen_kernels.c", cuda ? "cuLaunchKernel" : "clEnqueueNDRangeKernel"));
  CHECK(contains(dir, "convgen_kernels.c", cuda ? "nvrtcCompileProgram" : "clBuildProgram"));
  CHECK(contains(dir, "convgen_kernels.h", cuda ? "#include <cuda.h>" : "#include <CL/cl.h>"));
  CHECK(contains(dir, "example.c", cuda ? "cuDevicePrimaryCtxRetain" : "clCreateContext"));
  CHECK(contains(dir, "Makefile", cuda ? "-lnvrtc -lcuda" : "-lOpenCL"));
  if (cuda) {
    CHECK(contains(dir, "convgen_kernels.c", "extern \\\"C\\\" __global__"));   // the kernels, embedded
    const char *cr = cuda_root();
    if (!have(cr, "include/cuda.h") || !have(cr, "include/nvrtc.h") || !have(cr, "lib64/stubs/libcuda.so")) {
      fprintf(stderr, "test_export: no CUDA toolkit at %s: the CUDA files are not built\n", cr);
      return;
    }
    CHECK(build(dir, arena_printf(a, "CUDA=%s", cr)) == 0);
    CHECK(have(dir, "example"));
  } else {   // built and run on the default OpenCL device (PoCL here): every layer PASS
    CHECK(build(dir, "") == 0);
    CHECK(have(dir, "example"));
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cd %s && ./example > run.log 2>&1", dir);
    int rc = system(cmd);
    if (rc != 0) {
      snprintf(cmd, sizeof cmd, "cat %s/run.log >&2", dir);
      if (system(cmd) != 0) fprintf(stderr, "(no run.log)\n");
    }
    CHECK(rc == 0);
    CHECK(!contains(dir, "run.log", "FAIL"));
    // DEVICE_INDEX: a word, a negative number or a second argument is a
    // usage error (exit 2), not device 0 (it was read with atoi)
    const char *bad_args[] = {"abc", "-1", "1x", "''", "0 1"};
    for (size_t i = 0; i < sizeof bad_args / sizeof *bad_args; i++) {
      snprintf(cmd, sizeof cmd, "cd %s && ./example %s > bad.log 2>&1", dir, bad_args[i]);
      rc = system(cmd);
      CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
      CHECK(contains(dir, "bad.log", "usage: example [DEVICE_INDEX]"));
      CHECK(!contains(dir, "bad.log", "device:"));
    }
    CHECK(contains(dir, "bad.log", "example: one argument at most"));
    snprintf(cmd, sizeof cmd, "cd %s && ./example abc > bad.log 2>&1", dir);
    CHECK(system(cmd) != 0 && contains(dir, "bad.log", "example: abc: not a device index (a whole number, 0 or more)"));
    snprintf(cmd, sizeof cmd, "cd %s && ./example 99 > bad.log 2>&1", dir);
    rc = system(cmd);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2 && contains(dir, "bad.log", "no OpenCL device with that index"));
  }
}

/* A launch the target cannot make (a block over its work-item sizes):
 * export_write says which kernel, and writes nothing. */
static void test_refused(Arena *a, const char *root) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse("n=1,c=4,h=8,w=8,k=8,pad=1", &l, &d));
  RtDeviceInfo big = cuda_info();
  ExportLayer ex[8];
  int n = compile_layers(a, &l, &big, ex, 8);
  bool groups = false;   // some kernel with a fixed work-group of more than one work-item
  for (int i = 0; i < n; i++)
    for (int k = 0; k < ex[i].lp->nkernels; k++)
      groups |= ex[i].lp->kernels[k]->uses_groups && ex[i].lp->kernels[k]->local[0] > 1;
  CHECK(groups);
  RtDeviceInfo small = big;
  small.max_wi_sizes[0] = small.max_wi_sizes[1] = small.max_wi_sizes[2] = 1;
  const char *dir = arena_printf(a, "%s/refused", root);
  d = (Diag){0};
  CHECK(!export_write(dir, ex, n, "test device", &small, &d));
  CHECK(strstr(d.msg, "exceeds the device's") != NULL);
  CHECK(access(dir, F_OK) != 0);
}

int main(void) {
  Arena *a = arena_new();
  char root[] = "/tmp/convgen-test-export-XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  RtDeviceInfo cuda = cuda_info();
  RtDeviceInfo ocl = cuda;
  snprintf(ocl.platform, sizeof ocl.platform, "%s", "NVIDIA CUDA");   // NVIDIA's OpenCL platform
  CHECK(strcmp(rt_info_target(&ocl), "opencl") == 0 && strcmp(rt_info_target(&cuda), "cuda") == 0);
  test_target(a, root, &ocl, false);
  test_target(a, root, &cuda, true);
  test_refused(a, root);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  CHECK(system(cmd) == 0);
  arena_free(a);
  TEST_MAIN_END();
}
