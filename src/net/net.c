/* net.c: running an ONNX model node by node (net.h).
 *
 * Each node is prepared, then run: preparing compiles its program (a
 * convolution's kernels with its batch norm folded into its weights, or an
 * operator's program of the operator table, src/onnx/ops.h) and binds each program input to a planned
 * buffer or a constant array, into a NetStep, and queues each new source's
 * build on the build threads (rt/builds.h); running uploads what the step
 * added, takes its built program and runs it on the planned buffers. Every
 * node is prepared before the first step runs, so that the builds of all of
 * them go on at once while the host prepares the next, except where
 * preparing a node needs a value an earlier node computed (read back from
 * the device: on_host runs the steps prepared so far first); the steps
 * together, NetPrepared, are what a timed run replays and what an export
 * writes. */
#include "net/net.h"

#include "codegen/codegen.h"
#include "compile/compile.h"
#include "ir/interp.h"
#include "measure/measure.h"
#include "onnx/ops.h"
#include "rt/builds.h"
#include "space/layer_space.h"
#include "tune/default_point.h"
#include "tune/nearest.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { NET_MAX_FIXED = 8 };   // the values a node's program fixes at most: weights, bias, a batch norm's 4

typedef struct Run {
  Arena *a;
  RtDevice *dev;
  const OnnxModel *m;
  const NetOptions *o;
  const ElemType *et;    // of every tensor in memory (o->precision's); float on the host, converted between
  float **host;          // [value]: its elements on the host: initializers, graph inputs, values read back
  NetPrepared net;       // the steps prepared so far, their constants and sources
  RtBuffer **buf;        // [plan buffer]
  RtBuffer **consts;     // [net.nconsts]: those uploaded so far (nconsts), freed at the end
  int nconsts;
  RtProgram **progs;     // [net.nsources]: those built so far (nprogs)
  int nprogs;
  RtBuilds *builds;      // the sources' builds, on threads of their own
  struct SourceBuild *source_build;   // [net.nsources]: each source's build and check
  int nran;              // the steps run so far (run_steps)
  MeasBound **bound;     // [net.nsteps]: each step's program bound to its buffers (nbound): the network's runs
  int nbound;
  RtBuffer **temp;       // [ntemp]: the temporaries (split-K's partial sums), slot j every step's j-th: the
  int ntemp;             // steps run one after another, so they share them (as the exported program does)
  RtBuffer **kept;       // [nkept]: what the steps' kernels run once write (Winograd's transformed filters),
  int nkept;             // each step's own, kept from run to run
  int checked;           // operators' programs checked (check_programs)
  struct StepArgs *args;       // [net.nsteps]: what each step was prepared from (bind_step), to bind it again
  const char **owed;           // [nowed]: sources chosen without knowing that they launch here (launches_here)
  int nowed;
  const char **rejected;       // [nrejected]: sources whose kernels were found not to launch here
  int nrejected;
  int relaunched;              // layers whose first choice did not launch here (relaunch)
  bool faulted;                // CONVGEN_FAULT=nolaunch:NODE has failed its one launch
  double prepare_s;            // seconds in preparing the steps, less the steps run in it
  double run_s;                // seconds in run_steps (the waits for the build threads among them)
  struct ConvMemo *memo;       // [nmemo]: each distinct layer's kernels, as conv_program chose them
  int nmemo;
  struct OpMemo *opmemo;       // [nopmemo]: each distinct program text of the other nodes, compiled
  int nopmemo;
} Run;

/* A source's build on the build threads, and the checks its program gets
 * once built (program_of). */
typedef struct SourceBuild {
  int ticket;              // rt_builds_take's
  const OnnxNode *node;    // the first node that runs it
  const LProgram *lp;      // the program it was emitted from
  const char *plain;       // the source that program's choice was emitted as, before it was moved to write a slice
                           // of a joined Concat's output (at_slice; the same as the source where it was not): what
                           // owed, rejected and relaunch know it by
  bool launch_check;       // a point never measured here: its kernels' work-groups checked (launches_here)
  const OnnxNode *check;   // non-NULL: an operator's program, checked against the interpreter (check_programs)
} SourceBuild;

/* What a step was prepared from: each program input's name, and the
 * constant or the value it binds (prepare_step's arguments), kept to bind
 * the step to another program (relaunch). */
typedef struct StepArgs {
  int nin;
  const char **names;
  const float **data;
  int *value;
  int out;
} StepArgs;

/* A layer's kernels as conv_program chose and compiled them, for the nodes
 * of the same layer after it (ResNet-50: 54 convolutions, 28 layers): one
 * derivation, one lowering and one build each, where there was one a node. */
typedef struct ConvMemo {
  const char *spec;   // layer_format's
  Layer layer;        // in the run's precision
  const OnnxNode *node;   // the first node of the layer (for --memory lean: the node its record fits at)
  unsigned constant;  // bit j: conv_step's input j (x, weights, bias, residual, scale) is a constant
  bool own;           // its kernels are one of its own records on the device (own_record)
  CpResult cr;
  const char *how;
  int untuned, transferred, defaulted;   // what it adds to r->net's counts a node (conv_program's)
} ConvMemo;

/* conv_step's inputs, in order; ConvMemo.constant's bits. */
static const char *const CONV_INPUTS[] = {"x", "weights", "bias", "residual", "scale"};

/* A program of the IR compiled (and checked, with check_programs), for
 * the nodes after it whose program is the same text (ConvNeXt's 18 blocks
 * of a stage: the same LayerNormalization, GELU and residual programs; the
 * bindings are each node's own). */
typedef struct OpMemo {
  const char *text;
  CpResult cr;
} OpMemo;

bool net_records_open(Arena *a, const char *path, NetOptions *no, Diag *d) {
  no->db = NULL;
  if (!path) {   // the default database, when there is a place for one
    char *p = db_default_path();
    if (p) path = arena_strdup(a, p);
    free(p);
  }
  no->db_path = path;
  if (!path) return true;
  struct stat sb;
  if (stat(path, &sb) != 0) {
    if (errno == ENOENT) return true;   // no tuned kernels yet
    return diag_error(d, "%s: %s", path, strerror(errno));
  }
  return (no->db = db_open_readonly(path, d)) != NULL;
}

bool net_records_device(NetOptions *no, RtDevice *dev, Diag *d) {
  if (!no->db) return true;
  // and the same GPU under the other target, whose records are used too
  if ((no->device_id = db_find_device(no->db, rt_info(dev), d)) >= 0 &&
      (no->twin_id = db_find_device_twin(no->db, rt_info(dev), strcmp(rt_target(dev), "cuda") != 0, d)) >= 0)
    return true;
  db_close(no->db);
  no->db = NULL;
  return false;
}

const char *net_unsupported(Arena *a, const OnnxModel *m) {
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    if (n->fused_into >= 0 || n->is_conv || net_is_view(n)) continue;
    int64_t len = onnx_elems(&m->values[n->out[0]]);
    if (len > INT32_MAX)   // the kernels index with int (docs/ir.md)
      return arena_printf(a, "node %s (%s): its output has %lld elements, more than %d", n->name, n->op,
                          (long long)len, INT32_MAX);
    for (int k = 0; k < n->nin; k++)   // (an array of the IR has at least one element; import read the constants)
      if (n->in[k] >= 0 && !(n->def->import_inputs >> k & 1) && onnx_elems(&m->values[n->in[k]]) == 0)
        return arena_printf(a, "node %s (%s): input %d ('%s') is empty", n->name, n->op, k, m->values[n->in[k]].name);
    const char *why = op_refusal(a, m, n);
    if (why) return arena_printf(a, "node %s (%s): %s", n->name, n->op, why);
  }
  // a constant of another type than float32 (an int64 initializer, a bound
  // integer input) that a kernel or a graph output would read: a refusal,
  // not a run that fails (the rows read such constants only at import)
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    for (int k = 0; k < n->nin; k++) {
      const OnnxValue *v = n->in[k] >= 0 ? &m->values[n->in[k]] : NULL;
      if (v && v->initializer && !v->data && !(n->def->import_inputs >> k & 1))
        return arena_printf(a, "node %s (%s): input '%s' is a constant that is not float32 (an integer one): convgen "
                            "computes float32 tensors", n->name, n->op, v->name);
    }
  }
  for (int i = 0; i < m->noutputs; i++) {
    const OnnxValue *v = &m->values[m->outputs[i]];
    if (v->initializer && !v->data)
      return arena_printf(a, "output '%s' is a constant that is not float32 (an integer one, computed at import): "
                          "convgen computes float32 tensors", v->name);
  }
  return NULL;
}

/* The values whose elements node i's program fixes (its text or its
 * arrays): a convolution's weights and bias and the parameters of the batch
 * norm fused into it, a Clip's bounds, a batch norm's parameters; their
 * count. */
static int fixed_values(const OnnxModel *m, int i, int v[NET_MAX_FIXED]) {
  const OnnxNode *n = &m->nodes[i];
  int k = 0;
  if (n->is_conv || n->def->fixes_inputs)
    for (int j = 1; j < n->nin && k < NET_MAX_FIXED; j++)
      if (n->in[j] >= 0) v[k++] = n->in[j];
  for (int j = i + 1; n->is_conv && j < m->nnodes; j++)
    if (m->nodes[j].fused_into == i && m->nodes[j].def->role == ROLE_AFFINE)
      for (int t = 1; t < m->nodes[j].nin && k < NET_MAX_FIXED; t++)
        if (m->nodes[j].in[t] >= 0) v[k++] = m->nodes[j].in[t];
  return k;
}

const char *net_unexportable(Arena *a, const OnnxModel *m) {
  bool *from_input = ARENA_ARRAY(a, bool, (size_t)m->nvalues + 1);   // [value]: computed from a graph input
  for (int i = 0; i < m->ninputs; i++) from_input[m->inputs[i]] = true;
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    bool any = false;
    for (int k = 0; k < n->nin; k++) any = any || (n->in[k] >= 0 && from_input[n->in[k]]);
    for (int k = 0; k < n->nout; k++)
      if (n->out[k] >= 0) from_input[n->out[k]] = any;
  }
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    int v[NET_MAX_FIXED];
    if (n->fused_into >= 0 || net_is_view(n)) continue;
    for (int k = fixed_values(m, i, v) - 1; k >= 0; k--)
      if (from_input[v[k]])
        return arena_printf(a, "node %s (%s): its program is compiled with the values of '%s', which come from the "
                            "graph's inputs: an exported program would keep them whatever its inputs (convgen infer "
                            "runs it)", n->name, n->op, m->values[v[k]].name);
  }
  return NULL;
}

/* ---- Preparing a node: its program and what each input reads ---- */

/* Value v's elements on the host: an initializer's, or read back from its
 * buffer (a Clip's runtime bounds, a convolution's computed weights). */
static bool run_steps(Run *r, Diag *d);

static const float *on_host(Run *r, int v, Diag *d) {
  const NetPlan *plan = &r->net.plan;
  int s = plan->source[v];
  // a slice of a joined Concat's output (plan.h), read while the rest of it may not be written yet: not the
  // source's elements to keep
  bool slice = onnx_elems(&r->m->values[v]) != onnx_elems(&r->m->values[s]);
  if (r->host[s] && !slice) return r->host[v] = r->host[s];
  if (plan->buffer[s] < 0) return diag_error(d, "value '%s' has no elements (an initializer that is not float32?)",
                                             r->m->values[v].name), NULL;
  if (!run_steps(r, d)) return NULL;   // the node that computes it among them
  int64_t n = onnx_elems(&r->m->values[s]);
  float *h = ARENA_ARRAY(r->a, float, (size_t)n + 1);
  if (!rt_read_values(r->dev, r->buf[plan->buffer[s]], r->et, h, n, d)) return NULL;
  if (slice) return r->host[v] = h + plan->offset[v];
  return r->host[v] = r->host[s] = h;
}

/* The constant array of n elements data, for node's program input named
 * input (an array already there when the same). */
static int constant(Run *r, const float *data, int64_t n, const OnnxNode *node, const char *input) {
  NetPrepared *net = &r->net;
  for (int c = 0; c < net->nconsts; c++)
    if (net->consts[c].data == data && net->consts[c].n == n) return c;
  net->consts = arena_extend(r->a, net->consts, (size_t)net->nconsts, sizeof *net->consts);
  net->consts[net->nconsts] = (NetConst){data, n, node, input};
  return net->nconsts++;
}

static bool listed(const char *const *list, int n, const char *source) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i], source) == 0) return true;
  return false;
}

/* cr's source's index among the distinct sources; a new one's build
 * queued, with the launch check launches_here owes plain (cr's source
 * before at_slice moved it). */
static int source_index(Run *r, const OnnxNode *node, const CpResult *cr, const char *plain) {
  NetPrepared *net = &r->net;
  for (int i = 0; i < net->nsources; i++)
    if (strcmp(net->sources[i], cr->source) == 0) return i;
  net->sources = arena_extend(r->a, net->sources, (size_t)net->nsources, sizeof *net->sources);
  r->source_build = arena_extend(r->a, r->source_build, (size_t)net->nsources, sizeof *r->source_build);
  net->sources[net->nsources] = cr->source;
  r->source_build[net->nsources] = (SourceBuild){.ticket = rt_builds_add(r->builds, cr->source), .node = node,
                                                 .lp = cr->lp, .plain = plain,
                                                 .launch_check = listed(r->owed, r->nowed, plain)};
  return net->nsources++;
}

static const Dialect *dialect(const Run *r) { return cg_dialect(rt_target(r->dev)); }

/* cr's program moved to write its output from element base of its buffer
 * on (a joined Concat's input, plan.h), emitted again into *to. */
static const CpResult *at_slice(Run *r, const CpResult *cr, int64_t base, CpResult *to) {
  LProgram *lp = arena_alloc(r->a, sizeof *lp);
  *lp = *cr->lp;
  lp->out_base = base;
  char *src = cg_emit(lp, dialect(r), cr->source_header);
  *to = *cr;
  to->lp = lp, to->source = arena_strdup(r->a, src);
  free(src);
  return to;
}

/* Which of lp's buffers are kept (NetStep.kept): the temporaries of the
 * kernels computed from the fixed inputs alone (lw_kernel_prepares), each
 * kernel asked once. */
static bool *kept_buffers(Arena *a, const LProgram *lp, uint64_t fixed) {
  bool *kept = ARENA_ARRAY(a, bool, (size_t)lp->nbuffers + 1);
  for (int k = 0; k < lp->nkernels; k++) {
    if (!lw_kernel_prepares(lp, k, fixed)) continue;
    for (int j = 0; j < lp->kernels[k]->nargs; j++)
      for (int i = 0; i < lp->nbuffers; i++)
        kept[i] |= lp->buffers[i] == lp->kernels[k]->args[j] && lp->buffers[i]->role == MR_TEMP;
  }
  return kept;
}

/* Where node i's temporaries that are not kept go (NetStep.in_buffer):
 * the largest first, each into the smallest activation buffer of the plan
 * that holds no value while the node runs, is large enough and holds none
 * of its other temporaries; -1 (a shared slot of their own) where none is.
 * A temporary lives only while its step runs, so it costs no memory there
 * (SqueezeNet's split-K partial sums in the buffer of its first layer's
 * output). */
static int *place_temporaries(Arena *a, const OnnxModel *m, const NetPlan *plan, int i, const LProgram *lp,
                              const bool *kept) {
  int *at = ARENA_ARRAY(a, int, (size_t)lp->nbuffers + 1);
  bool *taken = ARENA_ARRAY(a, bool, (size_t)plan->nbuffers + 1);
  for (int k = 0; k < lp->nbuffers; k++) at[k] = -1;
  for (;;) {
    int big = -1;   // the largest temporary not placed or passed yet
    for (int k = 0; k < lp->nbuffers; k++)
      if (lp->buffers[k]->role == MR_TEMP && !kept[k] && at[k] == -1 &&
          (big < 0 || lw_mem_bytes(lp->buffers[k]) > lw_mem_bytes(lp->buffers[big])))
        big = k;
    if (big < 0) break;
    int64_t need = lw_mem_bytes(lp->buffers[big]);
    int best = -1;
    for (int b = 0; b < plan->nbuffers; b++)
      if (!taken[b] && plan->buffer_bytes[b] >= need && (best < 0 || plan->buffer_bytes[b] < plan->buffer_bytes[best]) &&
          net_plan_free_at(plan, m, b, i))
        best = b;
    at[big] = best >= 0 ? best : -2;   // (-2: passed, a slot)
    if (best >= 0) taken[best] = true;
  }
  for (int k = 0; k < lp->nbuffers; k++) at[k] = at[k] < 0 ? -1 : at[k];
  return at;
}

/* *s, the step of node running cr (how: which kernels) as a prepared:
 * each program input bound by name (a->names[k]) to a->value[k]'s buffer,
 * or to a->data[k] as a constant (an initializer's elements, or an array
 * the node made); it writes value a->out. */
static bool bind_step(Run *r, NetStep *s, const OnnxNode *node, const char *how, const CpResult *cr,
                      const StepArgs *a, Diag *d) {
  const NetPlan *plan = &r->net.plan;
  const char *plain = cr->source;
  CpResult sliced;
  if (plan->offset[a->out]) cr = at_slice(r, cr, plan->offset[a->out], &sliced);
  const LProgram *lp = cr->lp;
  const Program *p = lp->prog;
  *s = (NetStep){.node = node, .how = how, .lp = lp, .source = source_index(r, node, cr, plain),
                 .in = ARENA_ARRAY(r->a, NetArg, (size_t)p->ninputs + 1), .out = plan->buffer[a->out],
                 .value = a->out};
  for (int i = 0; i < p->ninputs; i++) {
    int k = 0;
    while (k < a->nin && strcmp(a->names[k], p->inputs[i]->name) != 0) k++;
    if (k == a->nin) return diag_error(d, "the program has an input '%s' the node does not give", p->inputs[i]->name);
    int v = a->value[k] >= 0 ? plan->source[a->value[k]] : -1;
    if (v >= 0 && plan->buffer[v] >= 0) {
      s->in[i] = (NetArg){.buffer = plan->buffer[v], .constant = -1};
      continue;
    }
    const float *h = v >= 0 ? on_host(r, v, d) : a->data[k];
    if (!h) return false;
    s->in[i] = (NetArg){.buffer = -1, .constant = constant(r, h, ir_flat_count(p->inputs[i]->type), node, a->names[k])};
  }
  for (int i = 0; i < p->ninputs && i < 64; i++)
    if (s->in[i].buffer < 0) s->fixed |= 1ull << i;
  s->kept = kept_buffers(r->a, lp, s->fixed);
  s->in_buffer = place_temporaries(r->a, r->m, plan, (int)(node - r->m->nodes), lp, s->kept);
  for (int i = 0; i < lp->nbuffers; i++)
    if (lp->buffers[i]->role != MR_INPUT && lp->buffers[i]->role != MR_OUTPUT && s->in_buffer[i] < 0)
      *(s->kept[i] ? &s->kept_bytes : &s->temp_bytes) += lw_mem_bytes(lp->buffers[i]);
  if (s->temp_bytes + s->kept_bytes > r->net.temp_bytes) r->net.temp_bytes = s->temp_bytes + s->kept_bytes;
  return true;
}

/* The next step: node running cr (bind_step), its arguments kept. */
static bool prepare_step(Run *r, const OnnxNode *node, const char *how, const CpResult *cr, int nin,
                         const char *const *names, const float *const *data, const int *value, int out, Diag *d) {
  StepArgs a = {nin, ARENA_ARRAY(r->a, const char *, (size_t)nin), ARENA_ARRAY(r->a, const float *, (size_t)nin),
                ARENA_ARRAY(r->a, int, (size_t)nin), out};
  memcpy(a.names, names, sizeof *names * (size_t)nin);
  memcpy(a.data, data, sizeof *data * (size_t)nin);
  memcpy(a.value, value, sizeof *value * (size_t)nin);
  NetStep s;
  if (!bind_step(r, &s, node, how, cr, &a, d)) return false;
  r->net.steps = arena_extend(r->a, r->net.steps, (size_t)r->net.nsteps, sizeof *r->net.steps);
  r->args = arena_extend(r->a, r->args, (size_t)r->net.nsteps, sizeof *r->args);
  r->args[r->net.nsteps] = a;
  r->net.steps[r->net.nsteps++] = s;
  return true;
}

/* ---- Convolutions ---- */

enum { NEAREST_LAYERS = 6, NEAREST_RECORDS = 3 };   // an untuned layer's sources: layers, records of each

/* Whether cr, a point recorded elsewhere (under the other target, or for
 * another layer) or a default point, may launch here: not when its source
 * was found not to; else yes, and its check is owed (source_index). The
 * check, once it is built (fits_here), is of each kernel's work-group
 * against that kernel's own limit on this device (CL_KERNEL_WORK_GROUP_SIZE,
 * what its registers and local memory allow), which the device's limit
 * that the space checks does not say: a point measured under CUDA, where
 * such a kernel took 444 threads, gets 256 from NVIDIA's OpenCL. Checked
 * when built rather than built here to check, the layers' builds all go
 * on at once. */
static bool launches_here(Run *r, const CpResult *cr) {
  if (listed(r->rejected, r->nrejected, cr->source)) return false;
  if (!listed(r->owed, r->nowed, cr->source)) {
    r->owed = arena_extend(r->a, r->owed, (size_t)r->nowed, sizeof *r->owed);
    r->owed[r->nowed++] = cr->source;
  }
  return true;
}

/* CONVGEN_FAULT=nolaunch:NODE: the first point chosen unbuilt for the
 * convolution node NODE does not launch here, as a CUDA record's 444
 * threads did not under NVIDIA's OpenCL -- how the suite tests relaunch. */
static bool fault_nolaunch(Run *r, const OnnxNode *n) {
  size_t len = 0;
  const char *p = cg_fault_arg("nolaunch", &len);
  if (!p || r->faulted) return false;
  return r->faulted = len == strlen(n->name) && strncmp(p, n->name, len) == 0;
}

/* Whether the kernels of lp, built as p, launch here (launches_here); n:
 * the node that runs them first. */
static bool fits_here(Run *r, const OnnxNode *n, const LProgram *lp, RtProgram *p) {
  if (fault_nolaunch(r, n)) return false;
  Diag d = {0};
  for (int k = 0; k < lp->nkernels; k++) {
    const LKernel *kn = lp->kernels[k];
    if (!kn->uses_groups) continue;
    size_t max = rt_kernel_wg_max(r->dev, p, kn->name, &d);
    if (max == 0 || kn->local[0] * kn->local[1] * kn->local[2] > max) return false;
  }
  return true;
}

/* The first of the best records of the tuned layers on device most like l
 * (tune --transfer's order, nearest.h) that is a point of l's space within
 * the device's limits, compiled; false when none is. */
static bool from_nearest(Run *r, int64_t device, int64_t lid, const Layer *l, const char *name, const CpOptions *co,
                         CpResult *cr, const char **how) {
  int64_t ids[NEAREST_LAYERS];
  const char *specs[NEAREST_LAYERS];
  int n = tn_nearest_layers(r->o->db, r->a, device, lid > 0 ? lid : 0, l, NEAREST_LAYERS, ids, specs);
  DbBest *best = ARENA_ARRAY(r->a, DbBest, NEAREST_RECORDS);
  for (int i = 0; i < n; i++) {
    int m = db_best_n(r->o->db, r->a, ids[i], device, NEAREST_RECORDS, best);
    for (int k = 0; k < m; k++) {
      Diag td = {0};   // (a point outside this layer's space is passed over)
      if (!ls_compile_record(r->a, best[k].m.strategy, best[k].m.point, l, name, rt_info(r->dev), true, co, cr, &td) ||
          !launches_here(r, cr))
        continue;
      *how = arena_printf(r->a, "not tuned: %s %s, the best point of the tuned layer %s%s", best[k].m.strategy,
                          best[k].m.point, specs[i], device == r->o->device_id ? "" : " under the other target");
      return true;
    }
  }
  return false;
}

/* The default point of l (default_point.h), compiled: what a layer runs
 * when nothing tuned applies to it, rather than the naive kernel; false
 * when no form of it lowers and compiles, or its kernels do not launch
 * here (launches_here: it was never measured on this device either). */
static bool from_default(Run *r, const Layer *l, const char *name, const CpOptions *co, CpResult *cr,
                         const char **how) {
  DpPoint p;
  Diag dd = {0};   // (none: the direct kernel, which takes every layer)
  if (!dp_default_point(r->a, l, name, rt_info(r->dev), co, &p, cr, &dd) || !launches_here(r, cr)) return false;
  *how = arena_printf(r->a, "not tuned: %s %s, the default point (%s)", p.strategy, p.point,
                      r->o->db ? "no tuned layer on this device gives it a point" : "no tuning database");
  return true;
}

/* The layer's kernels: its best record on the device when there is one
 * that compiles; else its best record on the same GPU under the other
 * target (OpenCL for CUDA, CUDA for OpenCL: a point is the same choices in
 * either language); else, with --untuned nearest, the best records of the
 * tuned layers most like it, on the device, then under the other target
 * (from_nearest); else its default point (from_default: without the
 * option, as round 35 measured the two on the H100); else the direct
 * strategy's kernel. Into c: the kernels (cr), how says which, and the
 * layer's counts for each node of it: untuned when it has no record of its
 * own on the device, transferred when it runs another record's point,
 * defaulted when it runs its default point. */
static bool conv_program(Run *r, const Layer *l, const char *name, ConvMemo *c, Diag *d);

/* Would lp's temporaries (but those computed from its constant inputs
 * alone, kept from run to run) all go into activation buffers free while
 * node i runs (place_temporaries)? */
static bool temporaries_fit(Run *r, int i, const LProgram *lp, unsigned constant) {
  uint64_t fixed = 0;   // the program's inputs bound to constants, as bind_step binds them
  for (int k = 0; k < lp->prog->ninputs && k < 64; k++)
    for (int j = 0; j < 5; j++)
      if ((constant >> j & 1) && !strcmp(lp->prog->inputs[k]->name, CONV_INPUTS[j])) fixed |= 1ull << k;
  const bool *kept = kept_buffers(r->a, lp, fixed);
  const int *at = place_temporaries(r->a, r->m, &r->net.plan, i, lp, kept);
  for (int k = 0; k < lp->nbuffers; k++)
    if (lp->buffers[k]->role == MR_TEMP && !kept[k] && at[k] < 0) return false;
  return true;
}

/* The layer's own record on device into cr (how: which): its fastest;
 * with --memory lean (the default) the fastest of its NET_LEAN_RECORDS
 * fastest whose temporaries fit in the activation buffers free while node i
 * runs, when the fastest's do not and one's do (a split-K point whose
 * partial sums would add to the run's device memory passed over for one
 * whose do not), unless that one takes more than NET_LEAN_SLOWDOWN times
 * the fastest's time: then the fastest. False when it has none that
 * compiles here. */
static bool own_record(Run *r, int64_t lid, int64_t device, const Layer *l, const char *name, int i,
                       unsigned constant, const CpOptions *co, CpResult *cr, const char **how) {
  DbBest best[NET_LEAN_RECORDS];
  int n = db_best_n(r->o->db, r->a, lid, device, r->o->memory_fast ? 1 : NET_LEAN_RECORDS, best);
  int first = -1;   // the fastest that compiles
  CpResult first_cr = {0};
  bool slow = false;   // the records left are too slow to pass the fastest over for
  for (int k = 0; k < n; k++) {
    if (first >= 0 && best[k].m.median_us > NET_LEAN_SLOWDOWN * best[first].m.median_us) {
      slow = true;
      break;
    }
    Diag dd = {0};
    CpResult now;
    if (!ls_compile_record(r->a, best[k].m.strategy, best[k].m.point, l, name, rt_info(r->dev), false, co, &now, &dd))
      continue;
    if (first < 0) first = k, first_cr = now;
    if (r->o->memory_fast || temporaries_fit(r, i, now.lp, constant)) {
      *cr = now;
      *how = k == first ? arena_printf(r->a, "tuned %s %s (%.1f us)", best[k].m.strategy, best[k].m.point,
                                       best[k].m.median_us)
                        : arena_printf(r->a, "tuned %s %s (%.1f us; the fastest, %s %s at %.1f us, needs temporaries "
                                       "beyond the free activation buffers: --memory fast takes it)",
                                       best[k].m.strategy, best[k].m.point, best[k].m.median_us,
                                       best[first].m.strategy, best[first].m.point, best[first].m.median_us);
      return true;
    }
  }
  if (first < 0) return false;
  *cr = first_cr;
  *how = slow ? arena_printf(r->a, "tuned %s %s (%.1f us; its temporaries need more than the free activation "
                             "buffers, and its records whose temporaries fit take more than %g times as long)",
                             best[first].m.strategy, best[first].m.point, best[first].m.median_us, NET_LEAN_SLOWDOWN)
              : arena_printf(r->a, "tuned %s %s (%.1f us; of its %d fastest records none's temporaries fit in the free "
                             "activation buffers)", best[first].m.strategy, best[first].m.point,
                             best[first].m.median_us, n);
  return true;
}

static bool conv_program(Run *r, const Layer *l, const char *name, ConvMemo *c, Diag *d) {
  CpResult *cr = &c->cr;
  const char **how = &c->how;
  c->untuned = c->transferred = c->defaulted = 0;
  CpOptions co = {.through = CP_EMIT, .target = dialect(r)};
  Db *db = r->o->db;
  int64_t devices[2] = {r->o->device_id, r->o->twin_id};
  Diag dd = {0};
  int64_t lid = db ? db_find_layer(db, l, &dd) : 0;
  DbBest b;
  c->own = lid > 0 && devices[0] > 0 &&
           own_record(r, lid, devices[0], l, name, (int)(c->node - r->m->nodes), c->constant, &co, cr, how);
  if (c->own) return true;
  c->untuned = 1;
  if (lid > 0 && devices[1] > 0 && db_best(db, r->a, lid, devices[1], &b) &&
      ls_compile_record(r->a, b.m.strategy, b.m.point, l, name, rt_info(r->dev), true, &co, cr, &dd) &&
      launches_here(r, cr)) {
    c->transferred = 1;
    return *how = arena_printf(r->a, "tuned under the other target: %s %s (%.1f us there)", b.m.strategy, b.m.point,
                               b.m.median_us), true;
  }
  for (int t = 0; db && r->o->nearest && t < 2; t++)
    if (devices[t] > 0 && from_nearest(r, devices[t], lid, l, name, &co, cr, how)) return c->transferred = 1, true;
  if (from_default(r, l, name, &co, cr, how)) return c->defaulted = 1, true;
  LayerSpace *ls = ls_new(r->a, st_strategy("direct"), l, name, 0, NULL, rt_info(r->dev), d);
  LsPoint pt;
  bool ok = ls && ls_sample(ls, 1, 1, &pt) == 1 && ls_compile(ls, r->a, &pt, &co, cr, d);
  if (ls) ls_free(ls);
  *how = "direct (not tuned)";
  return ok;
}

/* A layer's counts (conv_program's) added to r->net's for a node of it
 * (sign 1), or taken back (-1). */
static void add_counts(Run *r, const ConvMemo *c, int sign) {
  r->net.untuned += sign * c->untuned, r->net.transferred += sign * c->transferred;
  r->net.defaulted += sign * c->defaulted;
}

/* Node i's step: its kernels (conv_program), the program's x, weights and
 * bias each bound to data[k] (a constant) or value[k] (a value's buffer),
 * the residual (residual=1: the other input of the Add fused into it) and
 * the scale (scale=1: the other input of the Mul fused into it) read from
 * their values' buffers; writes the output of the last node fused into it. */
static bool conv_step(Run *r, int i, const float *const data[3], const int value[3], Diag *d) {
  const OnnxNode *n = &r->m->nodes[i];
  r->net.nconvs++;
  Layer l = n->layer;   // its tensors in the run's element type (precision=fp16: its records are its own)
  layer_set_precision(&l, r->o->precision);
  StrBuf spec;
  sb_init(&spec);
  layer_format(&spec, &l);
  unsigned constant = 0;
  for (int j = 0; j < 3; j++) constant |= (data[j] != NULL) << j;
  int k = 0;   // the same layer as a node before: its kernels again, but a record whose temporaries fit at
               // that node and not at this one (--memory lean) is chosen again for this one
  while (k < r->nmemo && (strcmp(r->memo[k].spec, sb_str(&spec)) != 0 || r->memo[k].constant != constant ||
                          (r->memo[k].own && !r->o->memory_fast && !temporaries_fit(r, i, r->memo[k].cr.lp, constant))))
    k++;
  if (k == r->nmemo) {
    ConvMemo c = {.spec = arena_strdup(r->a, sb_str(&spec)), .layer = l, .node = n, .constant = constant};
    if (!conv_program(r, &c.layer, n->name, &c, d)) return sb_free(&spec), false;
    k = 0;   // the same kernels as a memo of the layer (nothing fits here either: its fastest again)
    while (k < r->nmemo && (strcmp(r->memo[k].spec, c.spec) != 0 || strcmp(r->memo[k].cr.source, c.cr.source) != 0))
      k++;
    if (k == r->nmemo) {
      r->memo = arena_extend(r->a, r->memo, (size_t)r->nmemo, sizeof *r->memo);
      r->memo[r->nmemo++] = c;
    }
  }
  sb_free(&spec);
  add_counts(r, &r->memo[k], 1);
  CpResult cr = r->memo[k].cr;
  const char *how = r->memo[k].how;
  if (r->o->verbose) fprintf(stderr, "infer: node %s (%s): %s\n", n->name, n->op, how);
  const float *all_data[] = {data[0], data[1], data[2], NULL, NULL};
  const int all_value[] = {value[0], value[1], value[2], n->residual, n->scale};
  return prepare_step(r, n, how, &cr, 5, CONV_INPUTS, all_data, all_value, net_written(r->m, i), d);
}

/* Source i's kernels, a convolution's point chosen before it was built,
 * do not launch here (or do not build here): its layer chooses again
 * (conv_program, the source rejected), and every step that ran it is bound
 * to the new choice. */
static bool relaunch(Run *r, int i, Diag *d) {
  const char *source = r->source_build[i].plain;
  if (listed(r->rejected, r->nrejected, source)) return true;   // another slice of it chose again for every step
  r->rejected = arena_extend(r->a, r->rejected, (size_t)r->nrejected, sizeof *r->rejected);
  r->rejected[r->nrejected++] = source;
  bool found = false;
  for (int k = 0; k < r->nmemo; k++) {
    ConvMemo *c = &r->memo[k];
    if (strcmp(c->cr.source, source) != 0) continue;
    ConvMemo now = *c;
    if (!conv_program(r, &c->layer, c->node->name, &now, d)) return false;
    r->relaunched++, found = true;
    for (int j = 0; j < r->net.nsteps; j++) {
      NetStep *s = &r->net.steps[j];
      // (a step of an earlier slice of it, whose program launched and ran, keeps it)
      if (s->source < i || strcmp(r->source_build[s->source].plain, source) != 0) continue;
      add_counts(r, c, -1), add_counts(r, &now, 1);
      if (r->o->verbose)
        fprintf(stderr, "infer: node %s (%s): its kernels do not launch on this device; %s\n", s->node->name,
                s->node->op, now.how);
      if (!bind_step(r, s, s->node, now.how, &now.cr, &r->args[j], d)) return false;
    }
    *c = now;
  }
  return found || diag_error(d, "a program that does not launch here, and no convolution's to choose again");
}

/* Node i, a convolution, with the batch norm fused into it folded into its
 * weights and bias (conv_step binds them); or a MatMul run as a
 * convolution whose weights are its A (a value) and whose input is its B
 * (a constant; onnx/shapes.c, matmul_as_conv): no bias, nothing folded. */
static bool prepare_conv(Run *r, int i, Diag *d) {
  const OnnxModel *m = r->m;
  const OnnxNode *n = &m->nodes[i];
  const Layer *l = &n->layer;
  const float *w0 = on_host(r, n->in[1], d), *b0 = n->nin > 2 && n->in[2] >= 0 ? on_host(r, n->in[2], d) : NULL;
  if (!w0 || (n->nin > 2 && n->in[2] >= 0 && !b0)) return false;
  if (n->a_weights) return conv_step(r, i, (const float *const[]){w0, NULL, NULL}, (const int[]){-1, n->in[0], -1}, d);
  int64_t per = (int64_t)(l->c / layer_groups(l)) * l->kh * l->kw, nw = (int64_t)l->k * per;
  float *w = ARENA_ARRAY(r->a, float, (size_t)nw), *b = ARENA_ARRAY(r->a, float, (size_t)l->k);
  if (n->def->role == ROLE_CONTRACTION && !n->trans_b) {   // a Gemm's B [K, N]: the kernels are its columns (onnx.c, gemm_as_conv)
    for (int o = 0; o < l->k; o++)
      for (int64_t k = 0; k < per; k++) w[o * per + k] = w0[k * l->k + o];
  } else {
    memcpy(w, w0, sizeof *w * (size_t)nw);
  }
  for (int o = 0; o < l->k; o++) b[o] = b0 ? b0[o] : 0.0f;
  for (int j = i + 1; j < m->nnodes; j++) {
    const OnnxNode *f = &m->nodes[j];
    if (f->fused_into != i || f->def->role != ROLE_AFFINE) continue;
    const float *scale = on_host(r, f->in[1], d), *shift = on_host(r, f->in[2], d), *mean = on_host(r, f->in[3], d),
                *var = on_host(r, f->in[4], d);
    if (!scale || !shift || !mean || !var) return false;
    for (int o = 0; o < l->k; o++) {   // y = (conv + b - mean) * s + shift, s = scale / sqrt(var + eps)
      double s = (double)scale[o] / sqrt((double)var[o] + (double)f->eps);
      for (int64_t k = 0; k < per; k++) w[o * per + k] = (float)(w[o * per + k] * s);
      b[o] = (float)(((double)b[o] - mean[o]) * s + shift[o]);
    }
  }
  return conv_step(r, i, (const float *const[]){NULL, w, b}, (const int[]){n->in[0], -1, -1}, d);
}

/* ---- The other operators, as programs of the IR (the operator table's, onnx/ops.h) ---- */

static bool prepare_other(Run *r, const OnnxNode *n, Diag *d) {
  // what the program's text takes from the host: a Clip's runtime bounds, a batch norm's scale and shift
  int v[NET_MAX_FIXED];
  for (int k = fixed_values(r->m, (int)(n - r->m->nodes), v) - 1; k >= 0; k--)
    if (!on_host(r, v[k], d)) return false;
  OpProgram p;
  op_program(r->a, r->m, n, r->host, &p);
  int k = 0;
  while (k < r->nopmemo && strcmp(r->opmemo[k].text, p.text) != 0) k++;
  CpResult cr;
  bool seen = k < r->nopmemo;
  if (seen) {
    cr = r->opmemo[k].cr;
  } else {
    CpInput in = {arena_printf(r->a, "node %s (%s)", n->name, n->op), p.text, 0, NULL, NULL};
    // in an fp16 run, its fp32 tensors kept in half (the store pass), computed in float
    CpOptions co = {.through = CP_EMIT, .target = dialect(r), .storage = elem_is_storage(r->et) ? r->et : NULL};
    if (!cp_compile(r->a, &in, &co, &cr, d)) return false;
  }
  const char *how = arena_printf(r->a, "a program of the IR, %d kernel%s", cr.lp->nkernels,
                                 cr.lp->nkernels == 1 ? "" : "s");
  if (r->o->verbose) fprintf(stderr, "infer: node %s (%s): %s\n", n->name, n->op, how);
  if (!seen) {
    r->opmemo = arena_extend(r->a, r->opmemo, (size_t)r->nopmemo, sizeof *r->opmemo);
    r->opmemo[r->nopmemo++] = (OpMemo){p.text, cr};
  }
  int nsources = r->net.nsources;
  if (!prepare_step(r, n, how, &cr, p.nin, p.names, p.data, p.value, n->out[0], d)) return false;
  if (r->o->check_programs && r->net.nsources > nsources)   // a new program: checked once built (run_step)
    r->source_build[nsources].check = n;
  return true;
}

/* Source i's program into r->progs[i], taken from the build threads and
 * checked as source_build says: a point chosen before it was built, that
 * its kernels launch here (else relaunch, and progs[i] stays NULL); an
 * operator's program, on fresh random inputs, its output poisoned, against
 * the interpreter. */
static bool take_program(Run *r, Diag *d) {
  int i = r->nprogs;
  const SourceBuild sb = r->source_build[i];
  r->progs = arena_extend(r->a, r->progs, (size_t)r->nprogs, sizeof *r->progs);
  r->progs[r->nprogs++] = NULL;
  Diag bd = {0};   // (a point chosen unbuilt that does not build here is passed over)
  RtProgram *p = rt_builds_take(r->builds, sb.ticket, sb.launch_check ? &bd : d);
  if (sb.launch_check && (!p || !fits_here(r, sb.node, sb.lp, p))) {
    rt_program_free(p);
    return relaunch(r, i, d);
  }
  if (!p) return false;
  if (sb.check) {
    MeasOptions mo = meas_defaults();
    mo.check_only = true, mo.seed = 1 + (uint64_t)(sb.check - r->m->nodes), mo.source = r->net.sources[i];
    mo.program = p;
    MeasResult mr = meas_run(r->a, r->dev, sb.lp, &mo);
    if (mr.status != MEAS_OK) {
      rt_program_free(p);
      return diag_error(d, "its program is not correct on random inputs (%s): %s", meas_status_name(mr.status),
                        mr.reason);
    }
    r->checked++;
  }
  r->progs[i] = p;
  return true;
}

/* ---- Running the steps on the device ---- */

/* The temporaries for s's program, in order: one placed in an activation
 * buffer (NetStep.in_buffer) that buffer; each written by a kernel run once
 * (kept[i], NetStep.kept) a buffer of its own, kept (r->kept); the others shared, the
 * steps' j-th in slot j, each slot grown to the largest a step needs: a
 * grown slot's old buffer is replaced in the steps bound to it (whose runs
 * are done), then freed. NULL with the Diag when the device has no room. */
static RtBuffer **step_temporaries(Run *r, const NetStep *s, Diag *d) {
  const LProgram *lp = s->lp;
  const bool *kept = s->kept;
  RtBuffer **temps = ARENA_ARRAY(r->a, RtBuffer *, (size_t)lp->nbuffers + 1);
  int j = 0, n = 0;
  for (int i = 0; i < lp->nbuffers; i++) {
    if (lp->buffers[i]->role == MR_INPUT || lp->buffers[i]->role == MR_OUTPUT) continue;
    if (s->in_buffer[i] >= 0) {   // an activation buffer free while the step runs
      temps[n++] = r->buf[s->in_buffer[i]];
      continue;
    }
    size_t bytes = (size_t)lw_mem_bytes(lp->buffers[i]);
    if (kept[i]) {
      if (!(temps[n++] = rt_alloc(r->dev, bytes, d))) return NULL;
      r->kept = arena_extend(r->a, r->kept, (size_t)r->nkept, sizeof *r->kept);
      r->kept[r->nkept++] = temps[n - 1];
      continue;
    }
    if (j == r->ntemp) {
      r->temp = arena_extend(r->a, r->temp, (size_t)r->ntemp, sizeof *r->temp);
      r->temp[r->ntemp++] = NULL;
    }
    RtBuffer *old = r->temp[j];
    if (!old || rt_buffer_size(old) < bytes) {
      RtBuffer *now = rt_alloc(r->dev, bytes, d);
      if (!now) return NULL;
      for (int k = 0; old && k < r->nbound; k++) meas_bound_replace(r->bound[k], old, now);
      rt_buffer_free(old);
      r->temp[j] = now;
    }
    temps[n++] = r->temp[j];
    j++;
  }
  return temps;
}

/* Step k, run once on its buffers (its output poisoned first: whatever no
 * kernel writes shows up), after the constants prepared so far are
 * uploaded and its source's program is taken (program_of). It stays bound
 * for timed runs. */
static bool run_step(Run *r, int k, Diag *d) {
  const NetPrepared *net = &r->net;
  const NetStep *s = &net->steps[k];
  while (r->nconsts < net->nconsts) {
    const NetConst *c = &net->consts[r->nconsts];
    RtBuffer *b = rt_alloc(r->dev, (size_t)elem_bytes(r->et, c->n), d);
    if (!b) return false;
    r->consts = arena_extend(r->a, r->consts, (size_t)r->nconsts, sizeof *r->consts);
    r->consts[r->nconsts++] = b;
    if (!rt_write_values(r->dev, b, r->et, c->data, c->n, d)) return false;
  }
  // sources are numbered in the order the steps first use them; one that
  // did not launch here leaves no program, and s bound to another (relaunch)
  while (r->nprogs <= s->source || !r->progs[s->source])
    if (!take_program(r, d)) return false;
  int nin = s->lp->prog->ninputs;
  RtBuffer **in = ARENA_ARRAY(r->a, RtBuffer *, (size_t)nin + 1);
  for (int i = 0; i < nin; i++) in[i] = s->in[i].buffer >= 0 ? r->buf[s->in[i].buffer] : r->consts[s->in[i].constant];
  RtBuffer *out = r->buf[s->out];
  RtBuffer **temps = step_temporaries(r, s, d);
  if (!temps) return false;
  MeasBound *b = meas_bind(r->a, r->dev, s->lp, r->progs[s->source], in, out, temps, s->fixed, d);
  if (!b) return false;
  r->bound = arena_extend(r->a, r->bound, (size_t)r->nbound, sizeof *r->bound);
  r->bound[r->nbound++] = b;
  Diag late = {0};
  RtSpan *sp = rt_span_new();
  int64_t bytes = elem_bytes(r->et, net_plan_poisoned(&net->plan, r->m, (int)(s->node - r->m->nodes)));
  bool ok = (!bytes || rt_poison(r->dev, out, r->et, (size_t)bytes, d)) && rt_span_hold(r->dev, sp, d) &&
            meas_enqueue(b, sp, d);
  double ms = 0;
  ok = rt_span_finish(r->dev, sp, &ms, ok ? d : &late) && ok;   // what was queued finishes either way
  rt_span_free(sp);
  return ok;
}

/* The sources whose kernels did not launch here (relaunch), or that no
 * step runs (another slice of a rejected source, whose steps chose again),
 * taken out of the list, and the steps' numbers of the others renumbered:
 * an export writes every source. */
static void drop_rejected(Run *r) {
  NetPrepared *net = &r->net;
  int *to = ARENA_ARRAY(r->a, int, (size_t)net->nsources + 1), n = 0, taken = 0;
  bool *used = ARENA_ARRAY(r->a, bool, (size_t)net->nsources + 1);   // (a slice of a rejected source may be
  for (int j = 0; j < net->nsteps; j++) used[net->steps[j].source] = true;   // left with no step: relaunch)
  for (int i = 0; i < net->nsources; i++) {
    to[i] = !used[i] || (i < r->nprogs && !r->progs[i]) ? -1 : n;
    if (to[i] < 0) {
      if (i < r->nprogs) rt_program_free(r->progs[i]);
      continue;
    }
    net->sources[n] = net->sources[i], r->source_build[n] = r->source_build[i];
    if (i < r->nprogs) r->progs[n] = r->progs[i], taken++;
    n++;
  }
  r->nprogs = taken, net->nsources = n;
  for (int j = 0; j < net->nsteps; j++) net->steps[j].source = to[net->steps[j].source];
}

/* The steps prepared and not run yet, in order; a failure names its node. */
static bool run_steps(Run *r, Diag *d) {
  while (r->nran < r->net.nsteps) {
    const OnnxNode *n = r->net.steps[r->nran].node;
    Diag nd = {0};
    double t = cg_now_s();
    bool ok = run_step(r, r->nran++, &nd);
    r->run_s += cg_now_s() - t;
    if (!ok) {
      diag_error(d, "node %s (%s): %s", n->name, n->op, nd.msg);
      d->kind = nd.kind;   // a device's failure stays one (exit 4)
      return false;
    }
  }
  return true;
}

/* The nodes in order, each prepared, their builds queued; then the steps
 * run (run_steps, earlier where a node reads a computed value); with
 * verbose, where the time went. */
static bool run_nodes(Run *r, Diag *d) {
  const OnnxModel *m = r->m;
  double start = cg_now_s();
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    if (n->fused_into >= 0) continue;
    if (net_is_view(n)) {   // the same elements: the plan gave it its source's buffer
      r->host[n->out[0]] = r->host[n->in[0]];
      continue;
    }
    if (r->net.plan.joined[i]) {   // its inputs' nodes wrote its output (plan.h)
      if (r->o->verbose) fprintf(stderr, "infer: node %s (%s): joined: the nodes that make its %d inputs wrote them "
                                 "into its output\n", n->name, n->op, n->nin);
      continue;
    }
    Diag nd = {0};
    double t = cg_now_s(), ran = r->run_s;
    bool ok = n->is_conv ? prepare_conv(r, i, &nd) : prepare_other(r, n, &nd);
    r->prepare_s += cg_now_s() - t - (r->run_s - ran);
    if (!ok) {
      diag_error(d, "%s: node %s (%s): %s", m->path, n->name, n->op, nd.msg);
      d->kind = nd.kind;
      return false;
    }
  }
  Diag rd = {0};
  if (!run_steps(r, &rd)) {
    diag_error(d, "%s: %s", m->path, rd.msg);
    d->kind = rd.kind;
    return false;
  }
  drop_rejected(r);
  double all = cg_now_s() - start, waited = rt_builds_waited_s(r->builds);
  if (r->o->verbose) {   // a start's share: issue 30 wants a tuned ResNet-50 running within 5 s
    int threads = rt_builds_nthreads(r->builds);
    fprintf(stderr, "infer: %d steps prepared and run once in %.2f s: their programs derived, lowered and emitted "
            "%.2f s; %d programs built by the device on %d thread%s in %.2f s, of which %.2f s waited for%s; the uploads "
            "and the runs %.2f s\n", r->net.nsteps, all, r->prepare_s, rt_builds_count(r->builds),
            threads > 1 ? threads : 1, threads > 1 ? "s" : "", rt_builds_busy_s(r->builds), waited,
            r->relaunched ? arena_printf(r->a, " (%d layer%s chose again: %s first choice did not launch here)",
                                         r->relaunched, r->relaunched == 1 ? "" : "s",
                                         r->relaunched == 1 ? "its" : "their") : "",
            r->run_s - waited);
  }
  return true;
}

/* n network runs back to back into span s; *ms their span. whole: timed
 * whole (rt_span_replay), else every launch's own time kept. */
static bool net_batch(Run *r, RtSpan *s, int n, bool whole, double *ms, Diag *d) {
  rt_span_clear(s);
  bool ok = whole ? rt_span_replay(r->dev, s, d) : rt_span_hold(r->dev, s, d);
  for (int t = 0; t < n && ok; t++)
    for (int i = 0; i < r->nbound && ok; i++) ok = meas_enqueue(r->bound[i], s, d);
  Diag late = {0};
  return rt_span_finish(r->dev, s, ms, ok ? d : &late) && ok;
}

/* The whole network timed by measure.h's protocol: a profiled run (each
 * node's own time; R from it), warm-up, then runs batches of R runs. */
static bool time_network(Run *r, int runs, NetStats *st, Diag *d) {
  RtSpan *s = rt_span_new();
  double ms = 0, *total = ARENA_ARRAY(r->a, double, (size_t)runs + 1);
  bool ok = net_batch(r, s, 1, false, &ms, d);
  int n = r->nbound;
  st->nsteps = n;
  st->step_op = ARENA_ARRAY(r->a, const char *, (size_t)n + 1);
  st->step_name = ARENA_ARRAY(r->a, const char *, (size_t)n + 1);
  st->step_ms = ARENA_ARRAY(r->a, double, (size_t)n + 1);
  st->step_how = ARENA_ARRAY(r->a, const char *, (size_t)n + 1);
  st->step_kernels = ARENA_ARRAY(r->a, int, (size_t)n + 1);
  int reps = meas_reps(ms, 0);
  ok = ok && net_batch(r, s, 3, true, &ms, d);   // warm-up
  for (int t = 0; t < runs && ok; t++) {
    ok = net_batch(r, s, reps, true, &ms, d);
    total[t] = ms / reps;
  }
  // each node's own time: the launches of one more batch of reps runs, with their events
  ok = ok && net_batch(r, s, reps, false, &ms, d);
  for (int i = 0; i < n; i++) {
    const NetStep *step = &r->net.steps[i];
    st->step_op[i] = step->node->op, st->step_name[i] = step->node->name, st->step_how[i] = step->how;
    st->step_kernels[i] = meas_bound_kernels(r->bound[i]);
  }
  for (int t = 0, k = 0; ok && t < reps; t++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < st->step_kernels[i]; j++) st->step_ms[i] += rt_span_launch_ms(s, k++) / reps;
  if (ok) st->time_ms = rt_stats(total, runs), st->reps = reps;
  rt_span_free(s);
  return ok;
}

static int64_t temp_bytes(const Run *r) {
  int64_t n = 0;
  for (int j = 0; j < r->ntemp; j++) n += (int64_t)rt_buffer_size(r->temp[j]);
  for (int j = 0; j < r->nkept; j++) n += (int64_t)rt_buffer_size(r->kept[j]);
  return n;
}

/* "1x3x224x224" (a scalar: "a scalar"). */
static void shape_text(StrBuf *sb, const int64_t *dims, int rank) {
  if (!rank) sb_puts(sb, "a scalar");
  for (int k = 0; k < rank; k++) sb_printf(sb, "%s%lld", k ? "x" : "", (long long)dims[k]);
}

bool net_check_inputs(const OnnxModel *m, const OnnxTensor *inputs, Diag *d) {
  for (int i = 0; i < m->ninputs; i++) {
    const OnnxValue *v = &m->values[m->inputs[i]];
    if (inputs[i].rank == v->rank && !memcmp(inputs[i].dims, v->dims, sizeof *v->dims * (size_t)v->rank)) continue;
    StrBuf want, got;
    sb_init(&want), sb_init(&got);
    shape_text(&want, v->dims, v->rank);
    shape_text(&got, inputs[i].dims, inputs[i].rank);
    diag_error(d, "%s: input %d ('%s'): the tensor's shape is not the input's: %s given, %s wanted (the --input "
               "files go in the graph's input order)", m->path, m->input_file ? m->input_file[i] : i, v->name,
               sb_str(&got), sb_str(&want));   // (its place among the files: bound inputs counted)
    sb_free(&want), sb_free(&got);
    return false;
  }
  return true;
}

static void release(Run *r) {
  for (int i = 0; i < r->nbound; i++) meas_unbind(r->bound[i]);
  for (int b = 0; r->buf && b < r->net.plan.nbuffers; b++) rt_buffer_free(r->buf[b]);
  for (int i = 0; i < r->nconsts; i++) rt_buffer_free(r->consts[i]);
  for (int j = 0; j < r->ntemp; j++) rt_buffer_free(r->temp[j]);
  for (int j = 0; j < r->nkept; j++) rt_buffer_free(r->kept[j]);
  for (int i = 0; i < r->nprogs; i++) rt_program_free(r->progs[i]);
  rt_builds_free(r->builds);
}

bool net_memory_check(Arena *a, const OnnxModel *m, const ElemType *et, RtDevice *dev, Diag *d) {
  NetPlan plan;
  net_plan(a, m, et, &plan);
  const RtDeviceInfo *info = rt_info(dev);
  int64_t largest = 0, host_bytes = 0;   // the inputs and outputs, on the host
  for (int b = 0; b < plan.nbuffers; b++)
    if (plan.buffer_bytes[b] > largest) largest = plan.buffer_bytes[b];
  for (int i = 0; i < m->ninputs; i++) host_bytes += onnx_elems(&m->values[m->inputs[i]]) * (int64_t)sizeof(float);
  for (int i = 0; i < m->noutputs; i++) host_bytes += onnx_elems(&m->values[m->outputs[i]]) * (int64_t)sizeof(float);
  uint64_t device = (uint64_t)plan.planned_bytes + (uint64_t)plan.weights_bytes;
  if (info->global_mem && device > info->global_mem)
    return diag_error(d, "%s: the run needs %.1f MB of device memory (activations %.1f MB, weights %.1f MB); %s has "
                      "%.1f MB", m->path, device / 1e6, plan.planned_bytes / 1e6, plan.weights_bytes / 1e6,
                      info->name, info->global_mem / 1e6);
  if (info->max_alloc && (uint64_t)largest > info->max_alloc)
    return diag_error(d, "%s: a buffer of %.1f MB, past the largest allocation %s takes (%.1f MB)", m->path,
                      largest / 1e6, info->name, info->max_alloc / 1e6);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && (uint64_t)host_bytes > (uint64_t)pages * (uint64_t)page)
    return diag_error(d, "%s: the inputs and outputs take %.1f MB, more than the host's memory (%.1f MB)", m->path,
                      host_bytes / 1e6, (double)pages * (double)page / 1e6);
  return true;
}

/* Graph input i's elements into its buffer (and on the host, where a
 * node's program reads them: r->host). */
static bool write_inputs(Run *r, const OnnxTensor *inputs, Diag *d) {
  for (int i = 0; i < r->m->ninputs; i++) {
    int v = r->m->inputs[i];
    r->host[v] = inputs[i].data;
    if (!rt_write_values(r->dev, r->buf[r->net.plan.buffer[v]], r->et, inputs[i].data, inputs[i].n, d)) return false;
  }
  return true;
}

/* The graph's outputs after a run: output i's elements into y[i]. */
static bool read_outputs(Run *r, float *const *y, Diag *d) {
  const OnnxModel *m = r->m;
  const NetPlan *plan = &r->net.plan;
  for (int i = 0; i < m->noutputs; i++) {
    const OnnxValue *v = &m->values[m->outputs[i]];
    int b = plan->buffer[m->outputs[i]];
    if (b >= 0) {
      if (!rt_read_values(r->dev, r->buf[b], r->et, y[i], onnx_elems(v), d)) return false;
    } else if (r->host[plan->source[m->outputs[i]]]) {   // an initializer's elements (through views)
      memcpy(y[i], r->host[plan->source[m->outputs[i]]], (size_t)onnx_elems(v) * sizeof(float));
    } else {
      return diag_error(d, "%s: output '%s' has no elements (an initializer that is not float32?)", m->path, v->name);
    }
  }
  return true;
}

struct NetSession {
  Run r;
};

NetSession *net_open(Arena *a, RtDevice *dev, const OnnxModel *m, const OnnxTensor *inputs, const NetOptions *o,
                     Diag *d) {
  const char *why = net_unsupported(a, m);
  if (why) return diag_error(d, "%s: %s", m->path, why), NULL;
  const ElemType *et = layer_precision_elem(o->precision);
  if (!net_check_inputs(m, inputs, d) || !net_memory_check(a, m, et, dev, d)) return NULL;
  for (int i = 0; i < m->nnodes; i++) {   // every initializer a node reads, on the host
    const OnnxNode *n = &m->nodes[i];
    for (int k = 0; k < n->nin; k++) {
      const OnnxValue *v = n->in[k] >= 0 ? &m->values[n->in[k]] : NULL;
      if (v && v->initializer && !v->data && !(n->def->import_inputs >> k & 1))
        return diag_error(d, "%s: node %s (%s): input '%s' has no values (an initializer that is not float32?)",
                          m->path, n->name, n->op, v->name), NULL;
    }
  }
  int threads = o->build_threads > 0 ? o->build_threads : rt_build_threads(d);
  if (threads < 0) return NULL;
  NetSession *s = ARENA_ARRAY(a, NetSession, 1);
  Run *r = &s->r;
  *r = (Run){.a = a, .dev = dev, .m = m, .o = o, .et = et, .host = ARENA_ARRAY(a, float *, (size_t)m->nvalues + 1),
             .builds = rt_builds_new(dev, NULL, threads)};
  for (int v = 0; v < m->nvalues; v++) r->host[v] = (float *)m->values[v].data;
  r->net.m = m;
  r->net.precision = o->precision;
  net_plan(a, m, et, &r->net.plan);
  const NetPlan *plan = &r->net.plan;
  r->buf = ARENA_ARRAY(a, RtBuffer *, (size_t)plan->nbuffers + 1);
  bool ok = true;
  for (int b = 0; b < plan->nbuffers && ok; b++) ok = (r->buf[b] = rt_alloc(dev, (size_t)plan->buffer_bytes[b], d)) != NULL;
  ok = ok && write_inputs(r, inputs, d) && run_nodes(r, d);
  if (!ok) return release(r), NULL;
  return s;
}

/* The outputs after the timed runs are the first run's, y, bit for bit: a
 * kernel run once (Winograd's filter transform) left what the later runs
 * read, and no shared temporary or buffer was clobbered between runs. */
static bool same_outputs(Run *r, float *const *y, Diag *d) {
  const OnnxModel *m = r->m;
  float **again = ARENA_ARRAY(r->a, float *, (size_t)m->noutputs + 1);
  for (int i = 0; i < m->noutputs; i++) again[i] = ARENA_ARRAY(r->a, float, (size_t)onnx_elems(&m->values[m->outputs[i]]) + 1);
  if (!read_outputs(r, again, d)) return false;
  for (int i = 0; i < m->noutputs; i++)
    if (memcmp(again[i], y[i], sizeof **y * (size_t)onnx_elems(&m->values[m->outputs[i]])) != 0)
      return diag_error(d, "output %d ('%s') after the timed runs differs from the first run's: a kernel's buffers "
                        "were not what it expected (a bug)", i, m->values[m->outputs[i]].name);
  return true;
}

bool net_session_run(NetSession *s, const OnnxTensor *inputs, float *const *outputs, Diag *d) {
  Run *r = &s->r;
  if (!net_check_inputs(r->m, inputs, d) || !write_inputs(r, inputs, d)) return false;
  RtSpan *sp = rt_span_new();
  double ms = 0;
  bool ok = net_batch(r, sp, 1, false, &ms, d);
  rt_span_free(sp);
  return ok && read_outputs(r, outputs, d);
}

const NetPrepared *net_session_prepared(const NetSession *s) { return &s->r.net; }

void net_close(NetSession *s) {
  if (s) release(&s->r);
}

bool net_infer(Arena *a, RtDevice *dev, const OnnxModel *m, const OnnxTensor *inputs, OnnxTensor *outputs,
               const NetOptions *o, Diag *d) {
  NetSession *s = net_open(a, dev, m, inputs, o, d);
  if (!s) return false;
  Run *r = &s->r;
  const NetPlan *plan = &r->net.plan;
  float **y = ARENA_ARRAY(a, float *, (size_t)m->noutputs + 1);
  for (int i = 0; i < m->noutputs; i++) {
    const OnnxValue *v = &m->values[m->outputs[i]];
    y[i] = ARENA_ARRAY(a, float, (size_t)onnx_elems(v) + 1);
    outputs[i] = (OnnxTensor){.name = v->name, .rank = v->rank, .data = y[i], .n = onnx_elems(v)};
    memcpy(outputs[i].dims, v->dims, sizeof v->dims);
  }
  bool ok = read_outputs(r, y, d);
  if (ok && o->stats) {
    int64_t consts = 0;   // on the device: the folded weights and every other array uploaded
    for (int i = 0; i < r->net.nconsts; i++) consts += elem_bytes(r->et, r->net.consts[i].n);
    *o->stats = (NetStats){.planned_bytes = plan->planned_bytes, .tensor_bytes = plan->tensor_bytes,
                           .weights_bytes = consts, .temp_bytes = temp_bytes(r),
                           .nbuffers = plan->nbuffers, .checked = r->checked, .nconvs = r->net.nconvs,
                           .untuned = r->net.untuned, .transferred = r->net.transferred,
                           .defaulted = r->net.defaulted};
    if (o->runs > 0) ok = time_network(r, o->runs, o->stats, d) && same_outputs(r, y, d);
  }
  if (ok && o->prepared) *o->prepared = r->net;
  net_close(s);
  return ok;
}

/* An fp16 run rounds to half (a relative error of at most u = 2^-11 each
 * time) every value it stores: the graph's inputs as they are uploaded,
 * each node's output, and a convolution's (or Gemm's) folded weights once.
 * Where each node's gain is about 1, errors that enter a value add along
 * its path, so the output's relative error is at most about u per rounding
 * on its longest path (a first-order bound: a node that cancels, a
 * difference of nearly equal values, can amplify them). The fp32 part, the
 * sums, is the 1e-4 of an fp32 run. depth[v]: those roundings for value v.
 * A tf32 run stores float and rounds only a convolution's operands, its
 * inputs and weights, to TF32 (u = 2^-11 each, the same u): two roundings a
 * convolution, none elsewhere. */
double net_tolerance(const OnnxModel *m, int k, LayerPrecision p) {
  if (p == PREC_FP32) return 1e-4;
  bool tf32 = p == PREC_TF32;
  int *depth = calloc((size_t)m->nvalues + 1, sizeof *depth);
  if (!depth) cg_die("out of memory");
  for (int i = 0; i < m->ninputs; i++) depth[m->inputs[i]] = tf32 ? 0 : 1;
  for (int i = 0; i < m->nnodes; i++) {
    const OnnxNode *n = &m->nodes[i];
    int deepest = 0;
    for (int j = 0; j < n->nin; j++)
      if (n->in[j] >= 0 && depth[n->in[j]] > deepest) deepest = depth[n->in[j]];
    if (n->is_conv && n->scale >= 0 && depth[n->scale] > deepest) deepest = depth[n->scale];   // (its Mul's other input)
    // a view stores nothing; a node fused into a convolution adds to the convolution's rounding
    int own = net_is_view(n) || n->fused_into >= 0 ? 0 : tf32 ? (n->is_conv ? 2 : 0) : 1 + (n->is_conv ? 1 : 0);
    for (int j = 0; j < n->nout; j++)
      if (n->out[j] >= 0) depth[n->out[j]] = deepest + own;
    if (n->fused_into >= 0) {   // its output is its convolution's: the deepest of both
      int w = net_written(m, n->fused_into), after = deepest + (tf32 ? 0 : 1);
      if (depth[w] < after) depth[w] = after;
    }
  }
  double tol = 1e-4 + depth[m->outputs[k]] * elem_type(ELEM_FP16)->roundoff;   // (TF32's u is half's)
  free(depth);
  return tol;
}

OnnxTensor *net_random_inputs(Arena *a, const OnnxModel *m, uint64_t seed) {
  OnnxTensor *in = ARENA_ARRAY(a, OnnxTensor, (size_t)m->ninputs + 1);
  uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < m->ninputs; i++) {   // uniform in [-1, 1), as every check's inputs
    const OnnxValue *v = &m->values[m->inputs[i]];
    in[i] = (OnnxTensor){.name = v->name, .rank = v->rank, .n = onnx_elems(v)};
    memcpy(in[i].dims, v->dims, sizeof v->dims);
    in[i].data = ARENA_ARRAY(a, float, (size_t)in[i].n + 1);
    for (int64_t k = 0; k < in[i].n; k++) in[i].data[k] = (float)((double)(cg_splitmix64(&rng) >> 40) * 0x1p-23 - 1.0);
  }
  return in;
}

bool net_bench(Arena *a, RtDevice *dev, const OnnxModel *m, const NetOptions *o, uint64_t seed, Diag *d) {
  OnnxTensor *out = ARENA_ARRAY(a, OnnxTensor, (size_t)m->noutputs + 1);
  if (!net_memory_check(a, m, layer_precision_elem(o->precision), dev, d)) return false;   // before the inputs are made
  return net_infer(a, dev, m, net_random_inputs(a, m, seed), out, o, d);
}
