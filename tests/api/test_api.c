/* test_api.c: the library's public face (src/api/convgen.h) as a program
 * that links libconvgen.a would use it: tests/onnx/block.onnx loaded, its
 * shapes, a session on the default device with no tuning database (every
 * convolution its default point), run on the model's input and compared
 * with onnx's float64 output, run again on other inputs and back; wrong
 * paths, targets and indices refused with a code and a message. (The
 * expected tensors are read with the ONNX reader, which the API does not
 * offer.) */
#include "api/convgen.h"
#include "onnx/onnx.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static double rel_l2(const float *got, const float *want, int64_t n) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; i++) num += (got[i] - want[i]) * (double)(got[i] - want[i]), den += want[i] * (double)want[i];
  return sqrt(num / (den > 0 ? den : 1));
}

static void test_errors(void) {
  cg_error e;
  CHECK(cg_model_load("tests/onnx/no-such-model.onnx", &e) == NULL);
  CHECK(e.code == CG_EUSAGE && strstr(e.msg, "no-such-model.onnx"));
  CHECK(cg_model_load(NULL, NULL) == NULL);   // (no error to fill: still no crash)
  CHECK(cg_device_open(NULL, "vulkan", &e) == NULL);
  CHECK(e.code == CG_EUSAGE && strstr(e.msg, "target 'vulkan'"));
  CHECK(cg_device_open("no-such-device-xyz", NULL, &e) == NULL);
  CHECK(e.code == CG_EUSAGE && strstr(e.msg, "no-such-device-xyz"));
  CHECK(strstr(cg_version(), "0.") == cg_version());
}

static void test_block(void) {
  cg_error e;
  cg_model *m = cg_model_load("tests/onnx/block.onnx", &e);
  CHECK(m && e.code == CG_OK);
  if (!m) return;
  CHECK(cg_model_inputs(m) == 1 && cg_model_outputs(m) == 1);
  int64_t dims[CG_MAX_RANK], nin = 0, nout = 0;
  CHECK(cg_model_input_shape(m, 0, dims, &nin) == 4 && dims[0] == 1 && nin == dims[1] * dims[2] * dims[3]);
  CHECK(cg_model_output_shape(m, 0, dims, &nout) == 2 && nout == 8);
  CHECK(cg_model_input_shape(m, 1, dims, NULL) == -1 && cg_model_output_shape(m, -1, dims, NULL) == -1);
  CHECK(cg_model_input_name(m, 0) && !cg_model_input_name(m, 1));
  CHECK_STR(cg_model_output_name(m, 0), "fl");
  cg_device *d = cg_device_open(NULL, NULL, &e);
  CHECK(d && cg_device_name(d)[0]);
  char db[] = "/tmp/convgen-test-api-XXXXXX";
  CHECK(mkdtemp(db) != NULL);
  char path[sizeof db + 16];
  snprintf(path, sizeof path, "%s/none.db", db);
  cg_session *s = d ? cg_session_new(m, d, path, &e) : NULL;
  if (!s) fprintf(stderr, "test_api: %s\n", e.msg);
  CHECK(s && cg_session_untuned(s) == 3);
  CHECK(access(path, F_OK) != 0);   // a missing database is not made
  Arena *a = arena_new();
  Diag dg = {0};
  OnnxTensor x, y;
  CHECK(onnx_tensor_read(a, "tests/onnx/block_input.pb", &x, &dg) && onnx_tensor_read(a, "tests/onnx/block_output.pb", &y, &dg));
  float *out = calloc((size_t)nout, sizeof *out), *other = calloc((size_t)nin, sizeof *other);
  const float *in[1] = {x.data};
  float *outs[1] = {out};
  for (int run = 0; s && run < 2; run++) {   // the same run twice: the bound steps again
    for (int64_t i = 0; i < nout; i++) out[i] = NAN;
    CHECK(cg_session_run(s, in, outs, &e) == CG_OK);
    CHECK(rel_l2(out, y.data, nout) <= 1e-4);
  }
  for (int64_t i = 0; i < nin; i++) other[i] = (float)((i % 7) - 3) * 0.25f;
  const float *in2[1] = {other};
  CHECK(s && cg_session_run(s, in2, outs, &e) == CG_OK);
  CHECK(rel_l2(out, y.data, nout) > 1e-3);   // other inputs, another output
  CHECK(s && cg_session_run(s, in, outs, &e) == CG_OK && rel_l2(out, y.data, nout) <= 1e-4);
  cg_session_free(s);
  // a database that is not one is refused, naming it
  FILE *f = fopen(path, "w");
  if (f) fputs("not a database\n", f), fclose(f);
  CHECK(d && cg_session_new(m, d, path, &e) == NULL && e.code == CG_EUSAGE && strstr(e.msg, path));
  unlink(path);
  rmdir(db);
  free(out), free(other);
  arena_free(a);
  cg_device_close(d);
  cg_model_free(m);
}

/* A model in float16 runs as it is, in fp16 (as `convgen infer` runs it):
 * within fp16's bound of the float64 output of its float16 values, not fp32's
 * 1e-4 (tests/cli/half-model.sh: 2.65e-4 in fp16; 1e-4 within float32). */
static void test_half_model(void) {
  cg_error e;
  const char *dir = "tests/onnx/half";
  cg_model *m = cg_model_load("tests/onnx/half/block_half.onnx", &e);
  cg_device *d = m ? cg_device_open(NULL, NULL, &e) : NULL;
  cg_session *s = d ? cg_session_new(m, d, "/nonexistent-convgen-test/none.db", &e) : NULL;
  if (!s) fprintf(stderr, "test_api: %s: %s\n", dir, e.msg);
  CHECK(s != NULL);
  Arena *a = arena_new();
  Diag dg = {0};
  OnnxTensor x, y;
  CHECK(onnx_tensor_read(a, "tests/onnx/half/input.pb", &x, &dg) && onnx_tensor_read(a, "tests/onnx/half/output.pb", &y, &dg));
  float out[8];
  const float *in[1] = {x.data};
  float *outs[1] = {out};
  if (s && y.n == 8) {
    CHECK(cg_session_run(s, in, outs, &e) == CG_OK);
    double err = rel_l2(out, y.data, 8);
    CHECK(err > 1e-5 && err <= 0.00547);   // rounded to half, within its bound (net_tolerance)
  }
  cg_session_free(s);
  arena_free(a);
  cg_device_close(d);
  cg_model_free(m);
}

int main(void) {
  test_errors();
  if (onnx_available()) test_block(), test_half_model();
  else printf("test_api: this convgen has no ONNX reader: the model's checks skipped\n");
  TEST_MAIN_END();
}
