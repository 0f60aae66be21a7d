/* net.c: running an ONNX model node by node (net.h). */
#include "net/net.h"

#include "codegen/codegen.h"
#include "compile/compile.h"
#include "lower/lower.h"
#include "measure/measure.h"
#include "net/ops.h"
#include "space/layer_space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Run {
  Arena *a;
  RtDevice *dev;
  const OnnxModel *m;
  const NetOptions *o;
  float **host;          // [value]: its elements on the host, once made
  Diag *d;
} Run;

static bool is_op(const OnnxNode *n, const char *op) { return strcmp(n->op, op) == 0; }

/* An operator that moves no data: its output is its first input. */
static bool is_view(const OnnxNode *n) {
  return is_op(n, "Identity") || is_op(n, "Dropout") || is_op(n, "Flatten") || is_op(n, "Reshape");
}

const char *net_unsupported(Arena *a, const OnnxModel *m) {
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    if (n->fused_into >= 0 || n->is_conv || is_view(n)) continue;
    int64_t len = onnx_elems(&m->values[n->out[0]]);
    if (len > INT32_MAX)   // the kernels index with int (docs/ir.md)
      return arena_printf(a, "node %s (%s): its output has %lld elements, more than %d", n->name, n->op,
                          (long long)len, INT32_MAX);
    for (int k = 0; k < n->nin; k++)   // (an array of the IR has at least one element)
      if (n->in[k] >= 0 && onnx_elems(&m->values[n->in[k]]) == 0)
        return arena_printf(a, "node %s (%s): input %d ('%s') is empty", n->name, n->op, k, m->values[n->in[k]].name);
    const char *why = op_refusal(a, m, n);
    if (why) return arena_printf(a, "node %s (%s): %s", n->name, n->op, why);
  }
  return NULL;
}

/* ---- One compiled program run once on given inputs ---- */

/* Runs lp (source its kernels) with its inputs bound by name (names[k] ->
 * data[k]) and its output read into out (meas_apply). */
static bool run_program(Run *r, const LProgram *lp, const char *source, int nin, const char *const *names,
                        const float *const *data, float *out, Diag *d) {
  const Program *p = lp->prog;
  const float **in = ARENA_ARRAY(r->a, const float *, (size_t)p->ninputs + 1);
  for (int i = 0; i < p->ninputs; i++) {
    int k = 0;
    while (k < nin && strcmp(names[k], p->inputs[i]->name) != 0) k++;
    if (k == nin) return diag_error(d, "the program has an input '%s' the node does not give", p->inputs[i]->name);
    in[i] = data[k];
  }
  return meas_apply(r->a, r->dev, lp, source, in, out, d);
}

static const Dialect *dialect(const Run *r) { return cg_dialect(rt_target(r->dev)); }

/* ---- Convolutions ---- */

/* The layer's kernels: its best record on the device when there is one
 * that compiles, else the direct strategy's. */
static bool conv_program(Run *r, const Layer *l, const char *name, CpResult *cr, const char **how, Diag *d) {
  CpOptions co = {.through = CP_EMIT, .target = dialect(r)};
  if (r->o->db && r->o->device_id > 0) {
    Diag dd = {0};
    int64_t lid = db_find_layer(r->o->db, l, &dd);
    DbBest b;
    if (lid > 0 && db_best(r->o->db, r->a, lid, r->o->device_id, &b) &&
        ls_compile_record(r->a, b.m.strategy, b.m.point, l, name, rt_info(r->dev), false, &co, cr, &dd))
      return *how = arena_printf(r->a, "tuned %s %s (%.1f us)", b.m.strategy, b.m.point, b.m.median_us), true;
  }
  LayerSpace *ls = ls_new(r->a, st_strategy("direct"), l, name, 0, NULL, rt_info(r->dev), d);
  LsPoint pt;
  bool ok = ls && ls_sample(ls, 1, 1, &pt) == 1 && ls_compile(ls, r->a, &pt, &co, cr, d);
  if (ls) ls_free(ls);
  *how = "direct (not tuned)";
  return ok;
}

/* Node i, a convolution, with the batch norm fused into it folded into its
 * weights and bias; writes the output of the last node fused into it. */
static bool run_conv(Run *r, int i, Diag *d) {
  const OnnxModel *m = r->m;
  const OnnxNode *n = &m->nodes[i];
  const Layer *l = &n->layer;
  int64_t per = (int64_t)(l->c / layer_groups(l)) * l->kh * l->kw, nw = (int64_t)l->k * per;
  float *w = ARENA_ARRAY(r->a, float, (size_t)nw), *b = ARENA_ARRAY(r->a, float, (size_t)l->k);
  memcpy(w, r->host[n->in[1]], sizeof *w * (size_t)nw);
  bool has_b = n->nin > 2 && n->in[2] >= 0;
  for (int o = 0; o < l->k; o++) b[o] = has_b ? r->host[n->in[2]][o] : 0.0f;
  int out = n->out[0];
  for (int j = i + 1; j < m->nnodes; j++) {
    const OnnxNode *f = &m->nodes[j];
    if (f->fused_into != i) continue;
    out = f->out[0];
    if (!is_op(f, "BatchNormalization")) continue;
    const float *scale = r->host[f->in[1]], *shift = r->host[f->in[2]], *mean = r->host[f->in[3]],
                *var = r->host[f->in[4]];
    for (int o = 0; o < l->k; o++) {   // y = (conv + b - mean) * s + shift, s = scale / sqrt(var + eps)
      double s = (double)scale[o] / sqrt((double)var[o] + (double)f->eps);
      for (int64_t k = 0; k < per; k++) w[o * per + k] = (float)(w[o * per + k] * s);
      b[o] = (float)(((double)b[o] - mean[o]) * s + shift[o]);
    }
  }
  CpResult cr;
  const char *how;
  if (!conv_program(r, l, n->name, &cr, &how, d)) return false;
  if (r->o->verbose) fprintf(stderr, "infer: node %s (Conv): %s\n", n->name, how);
  const char *names[] = {"x", "weights", "bias"};
  const float *data[] = {r->host[n->in[0]], w, b};
  float *y = ARENA_ARRAY(r->a, float, (size_t)onnx_elems(&m->values[out]) + 1);
  if (!run_program(r, cr.lp, cr.source, l->bias ? 3 : 2, names, data, y, d)) return false;
  r->host[out] = y;
  return true;
}

/* ---- The other operators, as programs of the IR (ops.c) ---- */

static bool run_text(Run *r, const OnnxNode *n, const char *text, int nin, const char *const *names,
                     const float *const *data, float *out, Diag *d) {
  CpInput in = {arena_printf(r->a, "node %s (%s)", n->name, n->op), text, 0, NULL, NULL};
  CpOptions co = {.through = CP_EMIT, .target = dialect(r)};
  CpResult cr;
  if (!cp_compile(r->a, &in, &co, &cr, d)) return false;
  if (r->o->verbose) fprintf(stderr, "infer: node %s (%s): a program of the IR, %d kernel%s\n", n->name, n->op,
                             cr.lp->nkernels, cr.lp->nkernels == 1 ? "" : "s");
  return run_program(r, cr.lp, cr.source, nin, names, data, out, d);
}

static bool run_other(Run *r, const OnnxNode *n, Diag *d) {
  OpProgram p;
  op_program(r->a, r->m, n, r->host, &p);
  float *y = ARENA_ARRAY(r->a, float, (size_t)onnx_elems(&r->m->values[n->out[0]]) + 1);
  if (!run_text(r, n, p.text, p.nin, p.names, p.data, y, d)) return false;
  r->host[n->out[0]] = y;
  return true;
}

bool net_infer(Arena *a, RtDevice *dev, const OnnxModel *m, const OnnxTensor *inputs, OnnxTensor *outputs,
               const NetOptions *o, Diag *d) {
  const char *why = net_unsupported(a, m);
  if (why) return diag_error(d, "%s: %s", m->path, why);
  Run r = {a, dev, m, o, ARENA_ARRAY(a, float *, (size_t)m->nvalues + 1), d};
  for (int v = 0; v < m->nvalues; v++) r.host[v] = (float *)m->values[v].data;
  for (int i = 0; i < m->ninputs; i++) {
    const OnnxValue *v = &m->values[m->inputs[i]];
    if (inputs[i].rank != v->rank || memcmp(inputs[i].dims, v->dims, sizeof *v->dims * (size_t)v->rank))
      return diag_error(d, "%s: input %d ('%s'): the tensor's shape is not the input's", m->path, i, v->name);
    r.host[m->inputs[i]] = inputs[i].data;
  }
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    if (n->fused_into >= 0) continue;
    for (int k = 0; k < n->nin; k++)
      if (n->in[k] >= 0 && !r.host[n->in[k]] && !(is_op(n, "Reshape") && k == 1))
        return diag_error(d, "%s: node %s (%s): input '%s' has no values (an initializer that is not float32?)",
                          m->path, n->name, n->op, m->values[n->in[k]].name);
    Diag nd = {0};
    bool ok = true;
    if (n->is_conv) ok = run_conv(&r, i, &nd);
    else if (is_view(n)) r.host[n->out[0]] = r.host[n->in[0]];
    else ok = run_other(&r, n, &nd);
    if (!ok) return diag_error(d, "%s: node %s (%s): %s", m->path, n->name, n->op, nd.msg);
  }
  for (int i = 0; i < m->noutputs; i++) {
    const OnnxValue *v = &m->values[m->outputs[i]];
    outputs[i] = (OnnxTensor){.name = v->name, .rank = v->rank, .data = r.host[m->outputs[i]], .n = onnx_elems(v)};
    memcpy(outputs[i].dims, v->dims, sizeof v->dims);
  }
  return true;
}
