/* convgen.h: convgen as a C library (libconvgen.a; `make install` puts both
 * under PREFIX, and convgen.pc names the libraries to link with).
 *
 * Load an ONNX model, open a device, prepare a session (each convolution
 * the best kernel the tuning database holds for it on that device, else
 * its default point; every other operator a program of the IR; each
 * operator's program checked against the float64 interpreter), then run it
 * as often as needed on inputs of the model's shapes:
 *
 *     cg_error e;
 *     cg_model *m = cg_model_load("mobilenet_v3.onnx", &e);
 *     cg_device *d = m ? cg_device_open(NULL, NULL, &e) : NULL;
 *     cg_session *s = d ? cg_session_new(m, d, NULL, &e) : NULL;
 *     if (!s) fprintf(stderr, "%s\n", e.msg);
 *     ... cg_session_run(s, inputs, outputs, &e) ...
 *     cg_session_free(s), cg_device_close(d), cg_model_free(m);
 *
 * Tensors are float32, row-major, in the shapes cg_model_input_shape and
 * cg_model_output_shape give; inputs and outputs go in the graph's order.
 * A model in float16 runs as the convgen program runs it, in fp16 (half on
 * the device, the inputs rounded and the outputs widened); any other in
 * fp32.
 * Tuning is the convgen program's (`convgen tune MODEL.onnx --db PATH`;
 * cg_tune runs it): a session reads the database it wrote.
 *
 * Every call that can fail returns NULL or a non-zero code and, when e is
 * not NULL, fills it: the code (CG_E*, the convgen program's exit statuses)
 * and a message naming the problem. Nothing here prints or exits. A model,
 * device or session is used by one thread at a time.
 */
#ifndef CONVGEN_H
#define CONVGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  CG_OK = 0,
  CG_EFAIL = 1,     // a check that did not pass (a program's output against the interpreter)
  CG_EUSAGE = 2,    // bad input: a malformed model, a wrong argument, a tensor of another shape
  CG_EDEVICE = 4,   // the device, its driver or the machine under it failed
};
enum { CG_MAX_RANK = 8, CG_ERROR_MAX = 2048 };

typedef struct cg_error {
  int code;                    // CG_OK, or what failed
  char msg[CG_ERROR_MAX];      // what and why, naming the file, node or argument
} cg_error;

typedef struct cg_model cg_model;
typedef struct cg_device cg_device;
typedef struct cg_session cg_session;

/* This build's version: "0.2.0 (COMMIT)", as `convgen --version` says it. */
const char *cg_version(void);

/* The ONNX model at path, every shape known (a model whose input shapes
 * are symbolic takes them from the convgen program's --shape for now). */
cg_model *cg_model_load(const char *path, cg_error *e);
int cg_model_inputs(const cg_model *m);
int cg_model_outputs(const cg_model *m);
const char *cg_model_input_name(const cg_model *m, int i);
const char *cg_model_output_name(const cg_model *m, int i);
/* Input (output) i's shape into dims (CG_MAX_RANK of room); its rank, or
 * -1 when i is out of range. *elements, when not NULL, gets the number of
 * floats it holds. */
int cg_model_input_shape(const cg_model *m, int i, int64_t dims[CG_MAX_RANK], int64_t *elements);
int cg_model_output_shape(const cg_model *m, int i, int64_t dims[CG_MAX_RANK], int64_t *elements);
void cg_model_free(cg_model *m);

/* A device: selector as the convgen program's --device (NULL: $CONVGEN_DEVICE,
 * else the first GPU, else the first device), target "opencl" or "cuda"
 * (NULL: opencl). */
cg_device *cg_device_open(const char *selector, const char *target, cg_error *e);
const char *cg_device_name(const cg_device *d);
void cg_device_close(cg_device *d);

/* Tunes m's convolutions on d for seconds of wall time into the database
 * at db_path (NULL: the default one, as the convgen program's), by running
 * the convgen program (`convgen tune`; $CONVGEN_PROGRAM names it, else
 * `convgen` on PATH), whose output goes to this process's standard error.
 * The device is the one d was opened with (its selector and target). */
int cg_tune(const cg_model *m, const cg_device *d, const char *db_path, double seconds, cg_error *e);

/* m prepared on d: each convolution's kernels from the database at db_path
 * (NULL: the default one; a missing file: none, every layer its default
 * point), built and run once on random inputs. The session keeps m and d:
 * free it before them. */
cg_session *cg_session_new(cg_model *m, cg_device *d, const char *db_path, cg_error *e);
/* How many of the model's convolutions had no record of their own on the
 * device (they run a default point): `convgen tune` would tune them. */
int cg_session_untuned(const cg_session *s);
/* One run: inputs[i] holds input i's elements, outputs[i] gets output i's
 * (cg_model_*_shape's elements each, the caller's memory). */
int cg_session_run(cg_session *s, const float *const *inputs, float *const *outputs, cg_error *e);
void cg_session_free(cg_session *s);

#ifdef __cplusplus
}
#endif
#endif
