/* api.c: the library's public face (convgen.h) over the pieces the convgen
 * program uses: onnx_load, rt_open_target, the tuning database's records
 * of the device (as infer reads them) and the network session of net.h.
 * Each object owns an arena; a Diag becomes a cg_error. */
#include "api/convgen.h"

#include "net/net.h"
#include "onnx/onnx.h"
#include "rt/rt.h"
#include "tune/db.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

struct cg_model {
  Arena *a;
  OnnxModel *m;
};

struct cg_device {
  RtDevice *dev;
  char *selector, *target;   // as opened (NULL: the defaults), for cg_tune
};

struct cg_session {
  Arena *a;
  const cg_model *m;
  NetOptions no;
  NetStats st;
  NetSession *ns;
  OnnxTensor *in;   // the model's inputs as net_session_run takes them: the first run's, then each run's data
};

/* e from d: its message, its kind as the program's exit status. */
static void fail(cg_error *e, const Diag *d) {
  if (!e) return;
  e->code = d->kind == DIAG_DEVICE ? CG_EDEVICE : d->kind == DIAG_REJECT ? CG_EFAIL : CG_EUSAGE;
  snprintf(e->msg, sizeof e->msg, "%s", d->msg);
}

static void ok(cg_error *e) {
  if (e) e->code = CG_OK, e->msg[0] = 0;
}

/* ---- Models ---- */

cg_model *cg_model_load(const char *path, cg_error *e) {
  Diag d = {0};
  if (!path) return diag_error(&d, "cg_model_load: no path"), fail(e, &d), NULL;
  cg_model *m = calloc(1, sizeof *m);
  if (!m) cg_die("out of memory");
  m->a = arena_new();
  if (!(m->m = onnx_load(m->a, path, 0, NULL, &d))) {
    fail(e, &d);
    cg_model_free(m);
    return NULL;
  }
  ok(e);
  return m;
}

int cg_model_inputs(const cg_model *m) { return m->m->ninputs; }
int cg_model_outputs(const cg_model *m) { return m->m->noutputs; }

const char *cg_model_input_name(const cg_model *m, int i) {
  return i >= 0 && i < m->m->ninputs ? m->m->values[m->m->inputs[i]].name : NULL;
}

const char *cg_model_output_name(const cg_model *m, int i) {
  return i >= 0 && i < m->m->noutputs ? m->m->values[m->m->outputs[i]].name : NULL;
}

static int shape(const OnnxValue *v, int64_t dims[CG_MAX_RANK], int64_t *elements) {
  for (int k = 0; k < v->rank && k < CG_MAX_RANK; k++) dims[k] = v->dims[k];
  if (elements) *elements = onnx_elems(v);
  return v->rank;
}

int cg_model_input_shape(const cg_model *m, int i, int64_t dims[CG_MAX_RANK], int64_t *elements) {
  return i >= 0 && i < m->m->ninputs ? shape(&m->m->values[m->m->inputs[i]], dims, elements) : -1;
}

int cg_model_output_shape(const cg_model *m, int i, int64_t dims[CG_MAX_RANK], int64_t *elements) {
  return i >= 0 && i < m->m->noutputs ? shape(&m->m->values[m->m->outputs[i]], dims, elements) : -1;
}

void cg_model_free(cg_model *m) {
  if (!m) return;
  arena_free(m->a);
  free(m);
}

/* ---- Devices ---- */

cg_device *cg_device_open(const char *selector, const char *target, cg_error *e) {
  Diag d = {0};
  if (target && strcmp(target, "opencl") != 0 && strcmp(target, "cuda") != 0)
    return diag_error(&d, "cg_device_open: target '%s': must be 'opencl' or 'cuda'", target), fail(e, &d), NULL;
  RtDevice *dev = rt_open_target(target, selector, &d);
  if (!dev) return fail(e, &d), NULL;
  cg_device *c = calloc(1, sizeof *c);
  if (!c) cg_die("out of memory");
  *c = (cg_device){dev, cg_strdup(selector), cg_strdup(target)};
  ok(e);
  return c;
}

const char *cg_device_name(const cg_device *d) { return rt_info(d->dev)->name; }

void cg_device_close(cg_device *d) {
  if (!d) return;
  rt_close(d->dev);
  free(d->selector), free(d->target);
  free(d);
}

/* ---- Tuning: the convgen program ---- */

int cg_tune(const cg_model *m, const cg_device *d, const char *db_path, double seconds, cg_error *e) {
  Diag dg = {0};
  if (!(seconds >= 1 && seconds <= 1e7))
    return diag_error(&dg, "cg_tune: %g seconds: from 1 to 10000000", seconds), fail(e, &dg), CG_EUSAGE;
  const char *program = getenv("CONVGEN_PROGRAM");
  if (!program || !*program) program = "convgen";
  char time[32];
  snprintf(time, sizeof time, "%.0f", seconds);
  const char *argv[16];
  int n = 0;
  argv[n++] = program, argv[n++] = "tune", argv[n++] = m->m->path, argv[n++] = "--time", argv[n++] = time;
  if (db_path) argv[n++] = "--db", argv[n++] = db_path;
  if (d->selector) argv[n++] = "--device", argv[n++] = d->selector;
  if (d->target) argv[n++] = "--target", argv[n++] = d->target;
  argv[n] = NULL;
  posix_spawn_file_actions_t fa;   // its table to this process's standard error, not the caller's output
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  pid_t pid;
  int err = posix_spawnp(&pid, program, &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err) {
    diag_error(&dg, "cg_tune: cannot run '%s' (%s): install convgen (make install) or name it in $CONVGEN_PROGRAM",
               program, strerror(err));
    return fail(e, &dg), CG_EUSAGE;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return ok(e), CG_OK;
  if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    dg.kind = code == CG_EDEVICE ? DIAG_DEVICE : code == CG_EFAIL ? DIAG_REJECT : DIAG_USER;
    snprintf(dg.msg, sizeof dg.msg, "cg_tune: '%s tune %s' exited with status %d (its messages are on standard "
             "error)", program, m->m->path, code);
    fail(e, &dg);
    return e ? e->code : CG_EFAIL;
  }
  diag_device(&dg, "cg_tune: '%s tune %s' was killed by signal %d", program, m->m->path, WTERMSIG(status));
  return fail(e, &dg), CG_EDEVICE;
}

/* ---- Sessions ---- */

cg_session *cg_session_new(cg_model *m, cg_device *d, const char *db_path, cg_error *e) {
  cg_session *s = calloc(1, sizeof *s);
  if (!s) cg_die("out of memory");
  s->a = arena_new();
  s->m = m;
  // a model in float16 runs as it is, in fp16, as `convgen infer` and the tune cg_tune runs take it
  s->no = (NetOptions){.stats = &s->st, .check_programs = true, .precision = onnx_in_half(m->m) ? PREC_FP16 : PREC_FP32};
  Diag dg = {0};
  s->in = net_random_inputs(s->a, m->m, 1);
  if (net_records_open(s->a, db_path, &s->no, &dg) && net_records_device(&s->no, d->dev, &dg))
    s->ns = net_open(s->a, d->dev, m->m, s->in, &s->no, &dg);
  if (s->no.db) db_close(s->no.db), s->no.db = NULL;   // (read while the nodes were prepared)
  if (!s->ns) {
    fail(e, &dg);
    cg_session_free(s);
    return NULL;
  }
  ok(e);
  return s;
}

int cg_session_untuned(const cg_session *s) { return net_session_prepared(s->ns)->untuned; }

int cg_session_run(cg_session *s, const float *const *inputs, float *const *outputs, cg_error *e) {
  for (int i = 0; i < s->m->m->ninputs; i++) s->in[i].data = (float *)inputs[i];   // (read, not written)
  Diag d = {0};
  if (!net_session_run(s->ns, s->in, outputs, &d)) return fail(e, &d), e ? e->code : CG_EDEVICE;
  return ok(e), CG_OK;
}

void cg_session_free(cg_session *s) {
  if (!s) return;
  net_close(s->ns);
  arena_free(s->a);
  free(s);
}
