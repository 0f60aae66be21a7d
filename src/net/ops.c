/* ops.c: the programs of the IR that run a network's operators other than
 * the convolution (ops.h). Each family writes its program for the node's
 * shapes, every size a constant; the views (pad, slide, transpose, join)
 * move no data, so a program is one kernel whose reads the lowering indexes
 * straight into the node's inputs. */
#include "net/ops.h"

#include <float.h>
#include <string.h>

static const char NOT_RUN[] =
    "not run by infer yet (import reads it; the operators infer runs are Conv with what it fuses, Relu, Clip, "
    "LeakyRelu, Sigmoid, HardSwish, Add of equal shapes, GlobalAveragePool, Identity, Dropout, Flatten and Reshape)";

static bool is_op(const OnnxNode *n, const char *op) { return strcmp(n->op, op) == 0; }

static const OnnxValue *in_value(const OnnxModel *m, const OnnxNode *n, int k) { return &m->values[n->in[k]]; }

static void add_input(OpProgram *p, const char *name, const float *data) {
  p->names[p->nin] = name, p->data[p->nin] = data, p->nin++;
}

/* ---- Activations: the function on every element ---- */

static void activation(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  Layer act = n->act;
  if (!n->has_act) {   // Clip's bounds from its inputs (absent: no bound), known when it runs
    act = (Layer){.act = ACT_CLIP, .act_a = -FLT_MAX, .act_b = FLT_MAX};
    if (n->nin > 1 && n->in[1] >= 0) act.act_a = host[n->in[1]][0];
    if (n->nin > 2 && n->in[2] >= 0) act.act_b = host[n->in[2]][0];
  }
  StrBuf f;
  sb_init(&f);
  layer_act_c(&f, &act, "x");
  sb_printf(t, "userfun act(x: float): float { return %s; }\ninput x: [float]%lld\nout = x |> mapGlb[0, act]\n",
            sb_str(&f), (long long)onnx_elems(in_value(m, n, 0)));
  sb_free(&f);
  (void)a;
  add_input(p, "x", host[n->in[0]]);
}

/* An activation import could not take as one (a LeakyRelu's alpha outside
 * (0, 1)); a Clip runs whatever its bounds, known when it runs. */
static const char *act_refusal(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  (void)a, (void)m;
  return n->has_act ? NULL : NOT_RUN;
}

/* ---- Add ---- */

static const char *add_refusal(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  const OnnxValue *x = in_value(m, n, 0), *y = in_value(m, n, 1);
  if (x->rank == y->rank && !memcmp(x->dims, y->dims, sizeof *x->dims * (size_t)x->rank)) return NULL;
  (void)a;
  return "inputs of different shapes (broadcasting) are not run yet";
}

/* Equal shapes (add_refusal): the residual of a block. */
static void add(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  long long len = (long long)onnx_elems(in_value(m, n, 0));
  sb_printf(t, "userfun add(a: float, b: float): float { return a + b; }\ninput x: [float]%lld\n"
            "input y: [float]%lld\nout = zip(x, y) |> mapGlb[0, add]\n", len, len);
  (void)a;
  add_input(p, "x", host[n->in[0]]), add_input(p, "y", host[n->in[1]]);
}

/* ---- GlobalAveragePool: each plane's mean ---- */

static void global_pool(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t,
                        OpProgram *p) {
  const OnnxValue *x = in_value(m, n, 0);
  int64_t planes = x->dims[0] * x->dims[1], hw = onnx_elems(x) / planes;
  sb_printf(t, "userfun add(a: float, b: float): float { return a + b; }\n"
            "userfun mean(s: float): float { return s / %lld.0f; }\ninput x: [[float]%lld]%lld\n"
            "out = x |> mapGlb[0, fun(p) -> reduceSeq[add](0.0f, p) |> mapSeq[mean]]\n",
            (long long)hw, (long long)hw, (long long)planes);
  (void)a;
  add_input(p, "x", host[n->in[0]]);
}

/* ---- The families by operator ---- */

typedef const char *RefusalFn(Arena *a, const OnnxModel *m, const OnnxNode *n);
typedef void ProgramFn(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p);

static const struct {
  const char *op;
  RefusalFn *refusal;   // NULL: every node the import took runs
  ProgramFn *program;
} OPS[] = {
    {"Relu", act_refusal, activation},      {"Clip", NULL, activation},
    {"LeakyRelu", act_refusal, activation}, {"Sigmoid", act_refusal, activation},
    {"HardSwish", act_refusal, activation}, {"Add", add_refusal, add},
    {"GlobalAveragePool", NULL, global_pool},
};

static int family(const OnnxNode *n) {
  for (int i = 0; i < (int)(sizeof OPS / sizeof *OPS); i++)
    if (is_op(n, OPS[i].op)) return i;
  return -1;
}

const char *op_refusal(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  int f = family(n);
  if (f < 0) return NOT_RUN;
  return OPS[f].refusal ? OPS[f].refusal(a, m, n) : NULL;
}

void op_program(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, OpProgram *p) {
  int f = family(n);
  if (f < 0) cg_die("op_program: node %s (%s) is not an operator of ops.c", n->name, n->op);
  StrBuf t;
  sb_init(&t);
  *p = (OpProgram){0};
  OPS[f].program(a, m, n, host, &t, p);
  p->text = arena_strdup(a, sb_str(&t));
  sb_free(&t);
}
