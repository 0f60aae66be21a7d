/* test_cuda.c: the CUDA target without a GPU. Where NVRTC is installed (a
 * CUDA toolkit, as on the development machine), the CUDA C of every example
 * and of points of every strategy compiles for sm_90 through the runtime's
 * own NVRTC path; where the CUDA driver is missing (CI), --target cuda's
 * device is refused as a device failure naming the library. Each part says
 * when it cannot run here. */
#include "compile/compile.h"
#include "conv/layer.h"
#include "rewrite/strategy.h"
#include "rt/rt_impl.h"
#include "space/layer_space.h"
#include "test.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CUDA source of an example with the sizes of its `# run:` line
 * ("-p N=V -p M=W ..."). */
static const char *example_cuda(Arena *a, const char *name) {
  char path[256];
  snprintf(path, sizeof path, "examples/ir/%s.cg", name);
  Diag rd = {0};
  char *text = file_read(path, NULL, &rd);
  CHECK(text != NULL);
  if (!text) return NULL;
  const char *bn[16];
  int64_t bv[16];
  int nb = 0;
  const char *run = strstr(text, "# run:");
  for (const char *p = run ? strstr(run, "-p ") : NULL; p && nb < 16 && p < strchr(run, '\n'); p = strstr(p, "-p ")) {
    p += 3;
    const char *eq = strchr(p, '=');
    bn[nb] = arena_strndup(a, p, (size_t)(eq - p));
    bv[nb++] = strtoll(eq + 1, NULL, 10);
  }
  CpInput in = {path, arena_strdup(a, text), nb, bn, bv};
  free(text);
  CpOptions o = {.through = CP_EMIT, .target = &CG_CUDA};
  CpResult r;
  Diag d = {0};
  bool ok = cp_compile(a, &in, &o, &r, &d);
  CHECK(ok);
  if (!ok) fprintf(stderr, "%s\n", d.msg);
  return ok ? r.source : NULL;
}

static void compiles(const char *what, const char *src) {
  Diag d = {0};
  size_t bytes = 0;
  bool ok = src && rt_cuda_compile(src, 9, 0, &bytes, &d);
  CHECK(ok && bytes > 0);
  if (!ok) fprintf(stderr, "%s: %s\n", what, d.msg);
}

static const SpaceDomain ROWS_ONLY = {"LG", 1, 1, 0, NULL};

/* The limits an sm_90 kernel compiles within (48 KiB of static shared
 * memory, 1024 threads a block), so that a drawn point whose staged arrays
 * exceed them (an fp16 tc point's chunks of 9 steps in two slots: 63 KiB)
 * is not drawn: the space reads them as a device's. */
static const RtDeviceInfo SM90 = {.platform = "CUDA", .name = "sm_90 (test_cuda)", .is_gpu = true,
                                  .compute_units = 132, .max_wg_size = 1024, .max_wi_sizes = {1024, 1024, 64},
                                  .local_mem = 48 * 1024, .global_mem = 1ull << 34, .max_alloc = 1ull << 32};

/* A golden point of strategy `st` on `layer`, compiled by NVRTC. */
static void compiles_point(Arena *a, const char *what, const char *st, const char *layer, const char *point) {
  Layer l;
  Diag d = {0};
  CHECK(layer_parse(layer, &l, &d));
  LayerSpace *ls = ls_new(a, st_strategy(st), &l, what, 0, NULL, NULL, &d);
  LsPoint pt;
  CpOptions o = {.through = CP_EMIT, .target = &CG_CUDA};
  CpResult r;
  bool ok = ls && ls_parse_point(ls, a, point, &pt, &d) && ls_compile(ls, a, &pt, &o, &r, &d);
  if (!ok) fprintf(stderr, "%s: %s\n", what, d.msg);
  CHECK(ok);
  CHECK(!ok || !strstr(point, "LP=4") || strstr(r.source, "cg_cp_async4("));   // LP=4: cp.async under CUDA
  CHECK(!ok || !strstr(layer, "fp16") || strstr(r.source, "__shared__ __half lcl"));   // halves staged as halves
  // and multiplied as they are, B's pairs (neighbours in a staged chunk) each one 32-bit load
  CHECK(!ok || !strstr(layer, "fp16") || strcmp(st, "tc") ||
        (strstr(r.source, "= cg_mma_f16_bits(p") && strstr(r.source, "cg_h2_at(&lcl")));
  compiles(what, ok ? r.source : NULL);
  if (ls) ls_free(ls);
}

static void test_nvrtc(Arena *a) {
  Diag d = {0};
  size_t bytes;
  if (!rt_cuda_compile("extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }", 9, 0, &bytes, &d)) {
    fprintf(stderr, "test_cuda: NVRTC not here, its part skipped: %s\n", d.msg);
    return;
  }
  const char *examples[] = {"vector_add_float4", "matmul_tiled", "matmul_prefetch", "matmul_double", "transpose_local",
                            "stencil2d", "dot", "vector_add_half", "vector_add_half4",   // those two: __half, its vectors
                            "matmul_mma"};   // the tile product: mma.sync's inline PTX
  for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) compiles(examples[i], example_cuda(a, examples[i]));
  // tc's warps a grid (LG=2); s2's and tc's chunks copied by cp.async (LP=4): golden points
  compiles_point(a, "tc_grid", "tc", "n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6",
                 "LT=1 LS=3 LP=3 LG=2 RW=16 RK=8 TH=2 TK=2 CB=1");
  compiles_point(a, "s2_async", "s2", "n=1,c=4,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1",
                 "LK=2 LH=2 LW=2 LS=3 LC=2 LP=4 RW=2 RK=2 TW=3 TH=5 TK=2 CC=2");
  compiles_point(a, "tc_async", "tc", "n=1,c=16,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6",
                 "LT=1 LS=3 LP=4 LA=2 RW=16 RK=16 TH=2 CB=1");
  // an fp16 layer's chunks staged as halves (gen.c's staged_type)
  compiles_point(a, "tc_half", "tc", "n=1,c=16,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6,precision=fp16",
                 "LT=1 LS=3 LP=3 LA=2 RW=16 RK=16 TH=2 CB=1");
  // a source that does not compile: the log comes back in the Diag
  Diag bad = {0};
  CHECK(!rt_cuda_compile("__global__ void k( {", 9, 0, &bytes, &bad) && bad.kind == DIAG_DEVICE &&
        strstr(bad.msg, "NVRTC"));
  // random points of every strategy on a layer with bias and an activation
  // (dw, which takes depthwise layers only, on a depthwise one; tc on one its
  // tiles divide, in fp32 only), in fp32 and fp16
  for (int half = 0; half < 2; half++) {
    Layer dense, depthwise, tiles;
    CHECK(layer_parse("n=1,c=8,h=12,w=16,k=16,pad=1,bias=1,act=relu6", &tiles, &d));
    CHECK(layer_parse(half ? "n=1,c=8,h=12,w=12,k=16,pad=1,bias=1,act=relu6,precision=fp16"
                           : "n=1,c=8,h=12,w=12,k=16,pad=1,bias=1,act=relu6", &dense, &d));
    CHECK(layer_parse(half ? "n=1,c=8,h=12,w=12,k=8,pad=1,groups=8,bias=1,act=relu6,precision=fp16"
                           : "n=1,c=8,h=12,w=12,k=8,pad=1,groups=8,bias=1,act=relu6", &depthwise, &d));
    int ns;
    const Strategy *all = st_strategies(&ns);
    for (int i = 0; i < ns; i++) {
      const Layer *l = all[i].refuses && all[i].refuses(&dense) ? &depthwise : &dense;
      if (all[i].refuses && all[i].refuses(l)) l = &tiles;
      if (all[i].refuses && all[i].refuses(l)) {
        CHECK(half && strcmp(all[i].name, "tc") == 0);   // tc's fp32 only
        continue;
      }
      // tc's warps over rows only (LG=1): the points drawn before LG existed; LG=2 is the fixed point below
      bool tc = strcmp(all[i].name, "tc") == 0;
      LayerSpace *ls = ls_new(a, &all[i], l, all[i].name, tc, tc ? &ROWS_ONLY : NULL, &SM90, &d);
      CHECK(ls != NULL);
      LsPoint pts[3];
      int got = ls ? ls_sample(ls, 11, 3, pts) : 0;
      CHECK(got >= 1);
      for (int k = 0; k < got; k++) {
        CpOptions o = {.through = CP_EMIT, .target = &CG_CUDA};
        CpResult r;
        bool ok = ls_compile(ls, a, &pts[k], &o, &r, &d);
        CHECK(ok);
        compiles(all[i].name, ok ? r.source : NULL);
        if (!ok || k) continue;
        // the same kernels writing a slice of a larger buffer (a joined Concat's input: LProgram.out_base)
        LProgram sliced = *r.lp;
        sliced.out_base = 16;
        char *src = cg_emit(&sliced, &CG_CUDA, r.source_header);
        CHECK(strstr(src, "+= 16;   // its slice of a larger buffer") != NULL);
        compiles(all[i].name, src);
        free(src);
      }
      ls_free(ls);
    }
  }
}

static void test_no_driver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib) {
    dlclose(lib);
    fprintf(stderr, "test_cuda: a CUDA driver is here, the part without one skipped\n");
    return;
  }
  Diag d = {0};
  CHECK(rt_open_target("cuda", NULL, &d) == NULL);
  CHECK(d.kind == DIAG_DEVICE && strstr(d.msg, "the CUDA target") && strstr(d.msg, "libcuda.so.1"));
  RtDeviceInfo info;
  Diag e = {0};
  CHECK(!rt_select_info_target("cuda", NULL, &info, &e) && e.kind == DIAG_DEVICE);
  Diag f = {0};
  CHECK(rt_open_target("metal", NULL, &f) == NULL && f.kind == DIAG_USER);
}

int main(void) {
  Arena *a = arena_new();
  test_nvrtc(a);
  test_no_driver();
  CHECK(strcmp(rt_info_target(&(RtDeviceInfo){.platform = "CUDA"}), "cuda") == 0);
  CHECK(strcmp(rt_info_target(&(RtDeviceInfo){.platform = "Portable Computing Language"}), "opencl") == 0);
  arena_free(a);
  TEST_MAIN_END();
}
