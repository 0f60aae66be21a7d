/* test_export_net.c: the files of `convgen export MODEL.onnx` under CUDA,
 * without a GPU (tests/cli/export-model.sh builds and runs the OpenCL
 * ones). A network is prepared by infer on the default OpenCL device (PoCL
 * here), its kernels emitted again as CUDA C and written for an H200's
 * limits: the files say CUDA, each .cu compiles with NVRTC for sm_90 where
 * NVRTC is (a CUDA toolkit), and the host program builds with warnings as
 * errors against the toolkit's headers and libcuda stub (/usr/local/cuda,
 * or $CUDA), else that part is skipped with a line on stderr. Running the
 * CUDA program needs a GPU. A launch that does not fit the device writes
 * nothing. The sources' file names are made from the nodes' names. */
#include "codegen/codegen.h"
#include "net/export_net.h"
#include "rt/rt_impl.h"
#include "test.h"
#include "test_export.h"

#include <stdlib.h>
#include <unistd.h>

static bool contains(const char *dir, const char *file, const char *text) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  Diag d = {0};
  char *s = file_read(p, NULL, &d);
  bool r = s && strstr(s, text) != NULL;
  free(s);
  return r;
}

/* An H200's limits under the CUDA target (what rt_cuda reports). */
static RtDeviceInfo cuda_info(void) {
  return (RtDeviceInfo){.platform = "CUDA", .name = "test GPU", .vendor = "NVIDIA", .is_gpu = true,
                        .compute_units = 132, .max_wg_size = 1024, .max_wi_sizes = {1024, 1024, 64},
                        .local_mem = 48 * 1024, .global_mem = 1ull << 34, .max_alloc = 1ull << 34};
}

/* net exported into the new folder dir for the device info describes (the
 * test's "test GPU"): net_export_write's answer, *ex and *d what it says. */
static bool export_into(NetPrepared *net, OnnxTensor *in, OnnxTensor *out, const char *dir, const RtDeviceInfo *info,
                        NetExport *ex, Diag *d) {
  DirWrite w;
  CHECK(dir_begin(&w, dir, d));
  return net_export_write(&w, net, in, out, "test GPU", info, ex, d);
}

/* path's network as infer prepared it on dev in precision p, its sources
 * emitted again as CUDA C (each the first step's that uses it); false when
 * it did not run. */
static bool prepared_for_cuda(Arena *a, RtDevice *dev, const char *path, LayerPrecision p, NetPrepared *net,
                              OnnxTensor **in, OnnxTensor **out) {
  Diag d = {0};
  OnnxModel *m = onnx_load(a, path, 0, NULL, &d);
  CHECK(m != NULL);
  if (!m) return fprintf(stderr, "%s\n", d.msg), false;
  *in = net_random_inputs(a, m, 1);
  *out = ARENA_ARRAY(a, OnnxTensor, (size_t)m->noutputs + 1);
  NetOptions o = {.prepared = net, .precision = p};
  bool ok = net_infer(a, dev, m, *in, *out, &o, &d);
  CHECK(ok);
  if (!ok) return fprintf(stderr, "%s\n", d.msg), false;
  const char **sources = ARENA_ARRAY(a, const char *, (size_t)net->nsources + 1);
  for (int k = net->nsteps - 1; k >= 0; k--) {
    char *s = cg_emit(net->steps[k].lp, &CG_CUDA, NULL);
    sources[net->steps[k].source] = arena_strdup(a, s);
    free(s);
  }
  net->sources = sources;
  return true;
}

/* The CUDA files of a network in precision p (fp16: its device memory half,
 * its host code converting), and its host program built with -Werror. */
static void test_cuda_files(Arena *a, RtDevice *dev, const char *root, LayerPrecision p) {
  NetPrepared net;
  OnnxTensor *in, *out;
  if (!prepared_for_cuda(a, dev, "tests/onnx/resnet18.onnx", p, &net, &in, &out)) return;
  RtDeviceInfo info = cuda_info();
  const char *dir = arena_printf(a, "%s/cuda_%s", root, layer_precision_name(p));
  Diag d = {0};
  NetExport ex;
  CHECK(export_into(&net, in, out, dir, &info, &ex, &d));
  CHECK(ex.nsteps == net.nsteps && ex.nlaunches >= ex.nsteps && ex.nsources == net.nsources);
  CHECK(have(dir, "conv1_0.cu") && !have(dir, "conv1_0.cl") && have(dir, "weights.bin"));
  CHECK(have(dir, "input_0.bin") && have(dir, "output_0.bin"));
  CHECK(contains(dir, "convgen_net.c", "cuLaunchKernel") && contains(dir, "convgen_net.c", "nvrtcCompileProgram"));
  CHECK(contains(dir, "convgen_net.c", "extern \\\"C\\\" __global__"));   // the kernels, embedded
  CHECK(contains(dir, "convgen_net.h", "#include <cuda.h>") && contains(dir, "main.c", "cuDevicePrimaryCtxRetain"));
  CHECK(contains(dir, "Makefile", "-lnvrtc -lcuda"));
  CHECK(contains(dir, "convgen_net.c", p == PREC_FP16 ? "#define CGN_ELEM_BYTES 2 " : "#define CGN_ELEM_BYTES 4 "));
  size_t bytes;
  Diag nd = {0};
  if (rt_cuda_compile("extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }", 9, 0, &bytes, &nd)) {
    for (int i = 0; i < net.nsources; i++) {
      Diag cd = {0};
      bool ok = rt_cuda_compile(net.sources[i], 9, 0, &bytes, &cd);
      CHECK(ok);
      if (!ok) fprintf(stderr, "source %d: %s\n", i, cd.msg);
    }
  } else {
    fprintf(stderr, "test_export_net: NVRTC not here, the .cu files are not compiled: %s\n", nd.msg);
  }
  const char *cr = cuda_root();
  if (!have(cr, "include/cuda.h") || !have(cr, "include/nvrtc.h") || !have(cr, "lib64/stubs/libcuda.so")) {
    fprintf(stderr, "test_export_net: no CUDA toolkit at %s: the host program is not built\n", cr);
    return;
  }
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "make -s -C %s CUDA=%s CFLAGS='-O0 -std=c99 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L' >%s/make.log "
           "2>&1 || head -c 2000 %s/make.log >&2", dir, cr, dir, dir);
  CHECK(system(cmd) == 0);
  CHECK(have(dir, "network"));
}

/* The sources' file names: a node's name as words of letters and digits,
 * its leading words dropped past 64 characters, then _I; a node without a
 * name (onnx.c's #K) or without a letter in it, its operator's. */
static void test_file_names(Arena *a, RtDevice *dev, const char *root) {
  NetPrepared net;
  OnnxTensor *in, *out;
  if (!prepared_for_cuda(a, dev, "tests/onnx/block.onnx", PREC_FP32, &net, &in, &out)) return;
  CHECK(net.nsources == 4);
  if (net.nsources != 4) return;
  static const char *const names[4] = {
      "/m/features/features.1/features.1.0/block/block.3/MatMul", "#1",
      "/model/encoder/layers.11/self_attention/attention_output/dense_projection.0/Conv", "0"};
  for (int k = 0; k < net.nsteps; k++) {
    OnnxNode *n = ARENA_NEW(a, OnnxNode);
    *n = *net.steps[k].node;
    n->name = names[net.steps[k].source];
    net.steps[k].node = n;
  }
  RtDeviceInfo info = cuda_info();
  const char *dir = arena_printf(a, "%s/names", root);
  Diag d = {0};
  NetExport ex;
  CHECK(export_into(&net, in, out, dir, &info, &ex, &d));
  CHECK(have(dir, "m_features_features_1_features_1_0_block_block_3_MatMul_0.cu"));
  CHECK(have(dir, "Conv_1.cu"));   // dw
  CHECK(have(dir, "self_attention_attention_output_dense_projection_0_Conv_2.cu"));
  CHECK(have(dir, "GlobalAveragePool_3.cu"));
}

/* A launch over the device's work-group limits: the message names the
 * kernel, and the folder is never made. */
static void test_refused(Arena *a, RtDevice *dev, const char *root) {
  NetPrepared net;
  OnnxTensor *in, *out;
  if (!prepared_for_cuda(a, dev, "tests/onnx/block.onnx", PREC_FP32, &net, &in, &out)) return;
  LProgram *lp = ARENA_ARRAY(a, LProgram, 1);
  LKernel *k = ARENA_ARRAY(a, LKernel, 1);
  *lp = *net.steps[0].lp, *k = *lp->kernels[0];
  k->uses_groups = true, k->local[0] = 2;   // a fixed work-group of 2 where the device allows 1
  lp->kernels = ARENA_ARRAY(a, LKernel *, (size_t)lp->nkernels);
  for (int i = 0; i < lp->nkernels; i++) lp->kernels[i] = i ? net.steps[0].lp->kernels[i] : k;
  net.steps[0].lp = lp;
  RtDeviceInfo small = cuda_info();
  small.max_wi_sizes[0] = small.max_wi_sizes[1] = small.max_wi_sizes[2] = 1;
  const char *dir = arena_printf(a, "%s/refused", root);
  Diag d = {0};
  NetExport ex;
  CHECK(!export_into(&net, in, out, dir, &small, &ex, &d));
  CHECK(strstr(d.msg, "exceeds the device's") != NULL);
  CHECK(access(dir, F_OK) != 0);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s | grep -v cuda)\"", root);   // no hidden sibling left
  CHECK(system(cmd) == 0);
}

int main(void) {
  if (!onnx_available()) {
    fprintf(stderr, "test_export_net: this convgen has no ONNX reader: not checked\n");
    return 0;
  }
  Arena *a = arena_new();
  char root[] = "/tmp/convgen-test-export-net-XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  Diag d = {0};
  RtDevice *dev = rt_open_target("opencl", NULL, &d);
  CHECK(dev != NULL);
  if (dev) {
    test_cuda_files(a, dev, root, PREC_FP32);
    test_cuda_files(a, dev, root, PREC_FP16);
    test_refused(a, dev, root);
    test_file_names(a, dev, root);
    rt_close(dev);
  }
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  CHECK(system(cmd) == 0);
  arena_free(a);
  TEST_MAIN_END();
}
