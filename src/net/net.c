/* net.c: running an ONNX model node by node (net.h). */
#include "net/net.h"

#include "codegen/codegen.h"
#include "compile/compile.h"
#include "ir/interp.h"
#include "lower/lower.h"
#include "measure/measure.h"
#include "net/ops.h"
#include "net/plan.h"
#include "space/layer_space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Run {
  Arena *a;
  RtDevice *dev;
  const OnnxModel *m;
  const NetOptions *o;
  float **host;          // [value]: its elements on the host: initializers, graph inputs, values read back
  NetPlan plan;          // where each value lives on the device (plan.h)
  RtBuffer **buf;        // [plan buffer]
  RtBuffer **consts;     // arrays uploaded once (folded weights, counts), freed at the end
  int nconsts;
  const char **sources;  // the programs built so far, by source: a layer's shape built once
  RtProgram **progs;
  int nprogs, progs_cap;
  int64_t temp_bytes;    // the nodes' temporaries (split-K's partial sums), each node's its own
  MeasBound **steps;     // every node's program bound to its buffers, in order: the network's runs
  int nsteps;
  const OnnxNode **step_node;
  int checked;           // operators' programs checked (check_programs)
} Run;

static bool is_op(const OnnxNode *n, const char *op) { return strcmp(n->op, op) == 0; }

const char *net_unsupported(Arena *a, const OnnxModel *m) {
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    if (n->fused_into >= 0 || n->is_conv || net_is_view(n)) continue;
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

/* ---- Device buffers, constants and programs ---- */

/* An array uploaded for the run (n floats). */
static RtBuffer *constant(Run *r, const float *data, int64_t n, Diag *d) {
  RtBuffer *b = rt_alloc(r->dev, (size_t)n * sizeof(float), d);
  if (!b) return NULL;
  r->consts = arena_extend(r->a, r->consts, (size_t)r->nconsts, sizeof *r->consts);
  r->consts[r->nconsts++] = b;
  return rt_write(r->dev, b, data, (size_t)n * sizeof(float), d) ? b : NULL;
}

/* source built for the device, once per distinct source. */
static RtProgram *built(Run *r, const char *source, Diag *d) {
  for (int i = 0; i < r->nprogs; i++)
    if (strcmp(r->sources[i], source) == 0) return r->progs[i];
  RtProgram *p = rt_build(r->dev, source, NULL, d);
  if (!p) return NULL;
  r->sources = arena_extend(r->a, r->sources, (size_t)r->nprogs, sizeof *r->sources);
  r->progs = arena_extend(r->a, r->progs, (size_t)r->nprogs, sizeof *r->progs);
  r->sources[r->nprogs] = source, r->progs[r->nprogs++] = p;
  return p;
}

/* Value v's elements on the host: an initializer's, or read back from its
 * buffer (a Clip's runtime bounds, a convolution's computed weights). */
static const float *on_host(Run *r, int v, Diag *d) {
  int s = r->plan.source[v];
  if (r->host[s]) return r->host[s];
  if (r->plan.buffer[s] < 0) return diag_error(d, "value '%s' has no elements (an initializer that is not float32?)",
                                               r->m->values[v].name), NULL;
  int64_t n = onnx_elems(&r->m->values[s]);
  float *h = ARENA_ARRAY(r->a, float, (size_t)n + 1);
  if (!rt_read(r->dev, r->buf[r->plan.buffer[s]], h, (size_t)n * sizeof(float), d)) return NULL;
  return r->host[s] = h;
}

/* Runs lp (source its kernels) writing value out's buffer: each program
 * input bound by name (names[k]) to value[k]'s buffer, or to data[k]
 * uploaded (an initializer's elements, or an array the node made). */
static bool run_lowered(Run *r, const OnnxNode *node, const LProgram *lp, const char *source, int nin,
                        const char *const *names, const float *const *data, const int *value, int out, Diag *d) {
  const Program *p = lp->prog;
  RtBuffer **in = ARENA_ARRAY(r->a, RtBuffer *, (size_t)p->ninputs + 1);
  for (int i = 0; i < p->ninputs; i++) {
    int k = 0;
    while (k < nin && strcmp(names[k], p->inputs[i]->name) != 0) k++;
    if (k == nin) return diag_error(d, "the program has an input '%s' the node does not give", p->inputs[i]->name);
    int v = value[k] >= 0 ? r->plan.source[value[k]] : -1;
    if (v >= 0 && r->plan.buffer[v] >= 0) {
      in[i] = r->buf[r->plan.buffer[v]];
      continue;
    }
    const float *h = v >= 0 ? on_host(r, v, d) : data[k];
    if (!h || !(in[i] = constant(r, h, ir_flat_count(p->inputs[i]->type), d))) return false;
  }
  int64_t temp = 0;
  for (int i = 0; i < lp->nbuffers; i++)
    if (lp->buffers[i]->role != MR_INPUT && lp->buffers[i]->role != MR_OUTPUT)
      temp += lw_mem_values(lp->buffers[i]) * (int64_t)sizeof(float);
  r->temp_bytes += temp;   // kept while the node stays bound (the network's timed runs)
  RtProgram *prog = built(r, source, d);
  MeasBound *b = prog ? meas_bind(r->a, r->dev, lp, prog, in, r->buf[r->plan.buffer[out]], d) : NULL;
  if (!b) return false;
  r->steps = arena_extend(r->a, r->steps, (size_t)r->nsteps, sizeof *r->steps);
  r->step_node = arena_extend(r->a, r->step_node, (size_t)r->nsteps, sizeof *r->step_node);
  r->steps[r->nsteps] = b, r->step_node[r->nsteps++] = node;
  // run once, its output poisoned first (whatever no kernel writes shows up)
  Diag late = {0};
  RtSpan *s = rt_span_new();
  int64_t bytes = onnx_elems(&r->m->values[out]) * (int64_t)sizeof(float);
  bool ok = rt_fill_nan(r->dev, r->buf[r->plan.buffer[out]], (size_t)bytes, d) && rt_span_hold(r->dev, s, d) &&
            meas_enqueue(b, s, d);
  double ms = 0;
  ok = rt_span_finish(r->dev, s, &ms, ok ? d : &late) && ok;   // what was queued finishes either way
  rt_span_free(s);
  return ok;
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
  const float *w0 = on_host(r, n->in[1], d), *b0 = n->nin > 2 && n->in[2] >= 0 ? on_host(r, n->in[2], d) : NULL;
  if (!w0 || (n->nin > 2 && n->in[2] >= 0 && !b0)) return false;
  memcpy(w, w0, sizeof *w * (size_t)nw);
  for (int o = 0; o < l->k; o++) b[o] = b0 ? b0[o] : 0.0f;
  int out = n->out[0];
  for (int j = i + 1; j < m->nnodes; j++) {
    const OnnxNode *f = &m->nodes[j];
    if (f->fused_into != i) continue;
    out = f->out[0];
    if (!is_op(f, "BatchNormalization")) continue;
    const float *scale = on_host(r, f->in[1], d), *shift = on_host(r, f->in[2], d), *mean = on_host(r, f->in[3], d),
                *var = on_host(r, f->in[4], d);
    if (!scale || !shift || !mean || !var) return false;
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
  const float *data[] = {NULL, w, b};
  const int value[] = {n->in[0], -1, -1};
  return run_lowered(r, n, cr.lp, cr.source, l->bias ? 3 : 2, names, data, value, out, d);
}

/* ---- The other operators, as programs of the IR (ops.c) ---- */

static bool run_other(Run *r, const OnnxNode *n, Diag *d) {
  // what the program's text takes from the host: a Clip's runtime bounds, a batch norm's scale and shift
  if (is_op(n, "Clip") || is_op(n, "BatchNormalization"))
    for (int k = 1; k < n->nin; k++)
      if (n->in[k] >= 0 && !on_host(r, n->in[k], d)) return false;
  OpProgram p;
  op_program(r->a, r->m, n, r->host, &p);
  CpInput in = {arena_printf(r->a, "node %s (%s)", n->name, n->op), p.text, 0, NULL, NULL};
  CpOptions co = {.through = CP_EMIT, .target = dialect(r)};
  CpResult cr;
  if (!cp_compile(r->a, &in, &co, &cr, d)) return false;
  if (r->o->verbose) fprintf(stderr, "infer: node %s (%s): a program of the IR, %d kernel%s\n", n->name, n->op,
                             cr.lp->nkernels, cr.lp->nkernels == 1 ? "" : "s");
  if (r->o->check_programs) {   // on fresh random inputs, its output poisoned, against the interpreter
    MeasOptions mo = meas_defaults();
    mo.check_only = true, mo.seed = 1 + (uint64_t)(n - r->m->nodes), mo.source = cr.source;
    MeasResult mr = meas_run(r->a, r->dev, cr.lp, &mo);
    if (mr.status != MEAS_OK)
      return diag_error(d, "its program is not correct on random inputs (%s): %s", meas_status_name(mr.status),
                        mr.reason);
    r->checked++;
  }
  return run_lowered(r, n, cr.lp, cr.source, p.nin, p.names, p.data, p.value, n->out[0], d);
}

/* The nodes in order, on the device. */
static bool run_nodes(Run *r, Diag *d) {
  const OnnxModel *m = r->m;
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    if (n->fused_into >= 0) continue;
    if (net_is_view(n)) {   // the same elements: the plan gave it its source's buffer
      r->host[n->out[0]] = r->host[n->in[0]];
      continue;
    }
    Diag nd = {0};
    if (!(n->is_conv ? run_conv(r, i, &nd) : run_other(r, n, &nd))) {
      diag_error(d, "%s: node %s (%s): %s", m->path, n->name, n->op, nd.msg);
      d->kind = nd.kind;   // a device's failure stays one (exit 4)
      return false;
    }
  }
  return true;
}

/* n network runs back to back into span s; *ms their span. whole: timed
 * whole (rt_span_replay), else every launch's own time kept. */
static bool net_batch(Run *r, RtSpan *s, int n, bool whole, double *ms, Diag *d) {
  rt_span_clear(s);
  bool ok = whole ? rt_span_replay(r->dev, s, d) : rt_span_hold(r->dev, s, d);
  for (int t = 0; t < n && ok; t++)
    for (int i = 0; i < r->nsteps && ok; i++) ok = meas_enqueue(r->steps[i], s, d);
  Diag late = {0};
  return rt_span_finish(r->dev, s, ms, ok ? d : &late) && ok;
}

/* The whole network timed by measure.h's protocol: a profiled run (each
 * node's own time; R from it), warm-up, then runs batches of R runs. */
static bool time_network(Run *r, int runs, NetStats *st, Diag *d) {
  RtSpan *s = rt_span_new();
  double ms = 0, *total = ARENA_ARRAY(r->a, double, (size_t)runs + 1);
  bool ok = net_batch(r, s, 1, false, &ms, d);
  st->nsteps = r->nsteps;
  st->step_op = ARENA_ARRAY(r->a, const char *, (size_t)r->nsteps + 1);
  st->step_name = ARENA_ARRAY(r->a, const char *, (size_t)r->nsteps + 1);
  st->step_ms = ARENA_ARRAY(r->a, double, (size_t)r->nsteps + 1);
  int reps = meas_reps(ms, 0);
  ok = ok && net_batch(r, s, 3, true, &ms, d);   // warm-up
  for (int t = 0; t < runs && ok; t++) {
    ok = net_batch(r, s, reps, true, &ms, d);
    total[t] = ms / reps;
  }
  // each node's own time: the launches of one more batch of reps runs, with their events
  ok = ok && net_batch(r, s, reps, false, &ms, d);
  for (int t = 0, k = 0; ok && t < reps; t++)
    for (int i = 0; i < r->nsteps; i++) {
      st->step_op[i] = r->step_node[i]->op, st->step_name[i] = r->step_node[i]->name;
      for (int j = 0; j < meas_bound_kernels(r->steps[i]); j++) st->step_ms[i] += rt_span_launch_ms(s, k++) / reps;
    }
  if (ok) st->time_ms = rt_stats(total, runs), st->reps = reps;
  rt_span_free(s);
  return ok;
}

static void release(Run *r) {
  for (int i = 0; i < r->nsteps; i++) meas_unbind(r->steps[i]);
  for (int b = 0; r->buf && b < r->plan.nbuffers; b++) rt_buffer_free(r->buf[b]);
  for (int i = 0; i < r->nconsts; i++) rt_buffer_free(r->consts[i]);
  for (int i = 0; i < r->nprogs; i++) rt_program_free(r->progs[i]);
}

bool net_infer(Arena *a, RtDevice *dev, const OnnxModel *m, const OnnxTensor *inputs, OnnxTensor *outputs,
               const NetOptions *o, Diag *d) {
  const char *why = net_unsupported(a, m);
  if (why) return diag_error(d, "%s: %s", m->path, why);
  for (int i = 0; i < m->ninputs; i++) {
    const OnnxValue *v = &m->values[m->inputs[i]];
    if (inputs[i].rank != v->rank || memcmp(inputs[i].dims, v->dims, sizeof *v->dims * (size_t)v->rank))
      return diag_error(d, "%s: input %d ('%s'): the tensor's shape is not the input's", m->path, i, v->name);
  }
  for (int i = 0; i < m->nnodes; i++) {   // every initializer a node reads, on the host
    const OnnxNode *n = &m->nodes[i];
    for (int k = 0; k < n->nin; k++) {
      const OnnxValue *v = n->in[k] >= 0 ? &m->values[n->in[k]] : NULL;
      if (v && v->initializer && !v->data && !(is_op(n, "Reshape") && k == 1))
        return diag_error(d, "%s: node %s (%s): input '%s' has no values (an initializer that is not float32?)",
                          m->path, n->name, n->op, v->name);
    }
  }
  Run r = {.a = a, .dev = dev, .m = m, .o = o, .host = ARENA_ARRAY(a, float *, (size_t)m->nvalues + 1)};
  for (int v = 0; v < m->nvalues; v++) r.host[v] = (float *)m->values[v].data;
  net_plan(a, m, &r.plan);
  r.buf = ARENA_ARRAY(a, RtBuffer *, (size_t)r.plan.nbuffers + 1);
  bool ok = true;
  for (int b = 0; b < r.plan.nbuffers && ok; b++) ok = (r.buf[b] = rt_alloc(dev, (size_t)r.plan.buffer_bytes[b], d)) != NULL;
  for (int i = 0; i < m->ninputs && ok; i++) {
    int v = m->inputs[i];
    r.host[v] = inputs[i].data;
    ok = rt_write(dev, r.buf[r.plan.buffer[v]], inputs[i].data, (size_t)inputs[i].n * sizeof(float), d);
  }
  ok = ok && run_nodes(&r, d);
  for (int i = 0; i < m->noutputs && ok; i++) {
    const OnnxValue *v = &m->values[m->outputs[i]];
    float *y = ARENA_ARRAY(a, float, (size_t)onnx_elems(v) + 1);
    int b = r.plan.buffer[m->outputs[i]];
    if (b >= 0) ok = rt_read(dev, r.buf[b], y, (size_t)onnx_elems(v) * sizeof(float), d);
    else if (r.host[r.plan.source[m->outputs[i]]])   // an initializer's elements (through views)
      memcpy(y, r.host[r.plan.source[m->outputs[i]]], (size_t)onnx_elems(v) * sizeof(float));
    else ok = diag_error(d, "%s: output '%s' has no elements (an initializer that is not float32?)", m->path, v->name);
    outputs[i] = (OnnxTensor){.name = v->name, .rank = v->rank, .data = y, .n = onnx_elems(v)};
    memcpy(outputs[i].dims, v->dims, sizeof v->dims);
  }
  if (ok && o->stats) {
    *o->stats = (NetStats){.planned_bytes = r.plan.planned_bytes, .tensor_bytes = r.plan.tensor_bytes,
                           .weights_bytes = r.plan.weights_bytes, .temp_bytes = r.temp_bytes, .nbuffers = r.plan.nbuffers,
                           .checked = r.checked};
    if (o->runs > 0) ok = time_network(&r, o->runs, o->stats, d);
  }
  release(&r);
  return ok;
}

bool net_bench(Arena *a, RtDevice *dev, const OnnxModel *m, const NetOptions *o, uint64_t seed, Diag *d) {
  OnnxTensor *in = ARENA_ARRAY(a, OnnxTensor, (size_t)m->ninputs + 1);
  OnnxTensor *out = ARENA_ARRAY(a, OnnxTensor, (size_t)m->noutputs + 1);
  uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < m->ninputs; i++) {   // uniform in [-1, 1), as every check's inputs
    const OnnxValue *v = &m->values[m->inputs[i]];
    in[i] = (OnnxTensor){.name = v->name, .rank = v->rank, .n = onnx_elems(v)};
    memcpy(in[i].dims, v->dims, sizeof v->dims);
    in[i].data = ARENA_ARRAY(a, float, (size_t)in[i].n + 1);
    for (int64_t k = 0; k < in[i].n; k++) in[i].data[k] = (float)((double)(cg_splitmix64(&rng) >> 40) * 0x1p-23 - 1.0);
  }
  return net_infer(a, dev, m, in, out, o, d);
}
