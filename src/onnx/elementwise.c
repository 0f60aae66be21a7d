/* elementwise.c: the elementwise family of the operator table (ops.c,
 * ROLE_ELEMENTWISE rows after Add): each output element a function of the
 * inputs' elements at its place, numpy-broadcast. Every row's function is
 * its fn column, C of x (unary) or of a and b (binary) that the IR's
 * user-function bodies take (src/ir/cbody.c); its attributes are names in
 * that text (alpha, beta, gamma), which the shape rule replaces with their
 * values as float literals (the node's fn), so that two programs serve the
 * whole family: one unary, one binary (folded over a Max's or a Min's
 * inputs, however many). A new elementwise operator is a row with its
 * function's text, and a shape rule when it has attributes. */
#include "onnx/rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool ident_char(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* fn with every identifier that names[i] spells replaced by vals[i] (a
 * number's letters, 1.0f or 1e-3f, are not identifiers). */
void ew_subst(StrBuf *out, const char *fn, int n, const char *const *names, const char *const *vals) {
  for (const char *s = fn; *s;) {
    if ((*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9')) {   // a number, copied
      const char *e = s;
      while (ident_char(*e) || *e == '.' || ((*e == '+' || *e == '-') && (e[-1] == 'e' || e[-1] == 'E'))) e++;
      sb_printf(out, "%.*s", (int)(e - s), s);
      s = e;
    } else if (ident_char(*s)) {
      const char *e = s;
      while (ident_char(*e)) e++;
      int i = 0;
      while (i < n && !(strlen(names[i]) == (size_t)(e - s) && !strncmp(names[i], s, (size_t)(e - s)))) i++;
      if (i < n) sb_puts(out, vals[i]);
      else sb_printf(out, "%.*s", (int)(e - s), s);
      s = e;
    } else {
      sb_putc(out, *s++);
    }
  }
}

/* The function node n applies: its own (attributes substituted), else its row's. */
static const char *node_fn(const OnnxNode *n) { return n->fn ? n->fn : n->def->fn; }

#ifdef CONVGEN_ONNX   // (a convgen built without protobuf-c reads no model: no rules)
#include "onnx/load.h"

/* numpy broadcasting of every input (Sub, Mul, Div, Pow: two; Max, Min:
 * one or more), each present. */
bool shape_broadcast(Load *L) {
  bool variadic = !strcmp(L->node->op, "Max") || !strcmp(L->node->op, "Min");
  if (!ld_need_inputs(L, variadic ? 1 : 2, variadic ? L->node->nin : 2)) return false;
  int r = 0, nin = L->node->nin;
  for (int k = 0; k < nin; k++) {
    if (L->node->in[k] < 0) return ld_error(L, "input %d is absent", k);
    if (ld_in(L, k)->rank > r) r = ld_in(L, k)->rank;
  }
  int64_t out[ONNX_MAX_RANK];
  for (int i = 0; i < r; i++) {
    out[i] = 1;
    for (int k = 0; k < nin; k++) {
      const OnnxValue *x = ld_in(L, k);
      int j = i - (r - x->rank);
      int64_t d = j >= 0 ? x->dims[j] : 1;
      if (d != out[i] && d != 1 && out[i] != 1)
        return ld_error(L, "shapes do not broadcast: dimension %d is %lld and %lld", i, (long long)out[i],
                        (long long)d);
      if (d != 1) out[i] = d;
    }
  }
  return ld_set_out(L, 0, r, out);
}

/* PRelu: the slope broadcast to X (numpy's rule, one way: [C, 1, 1] per
 * channel of NCHW, a scalar, X's shape); the output X's shape. */
bool shape_prelu(Load *L) {
  if (!ld_need_inputs(L, 2, 2)) return false;
  const OnnxValue *x = ld_in(L, 0), *s = ld_in(L, 1);
  bool ok = s->rank <= x->rank;
  for (int i = 0; ok && i < s->rank; i++) {
    int64_t d = s->dims[i], xd = x->dims[i + x->rank - s->rank];
    ok = d == 1 || d == xd;
  }
  if (!ok) {
    StrBuf sx, ss;
    sb_init(&sx), sb_init(&ss);
    ld_put_dims(&sx, x->rank, x->dims), ld_put_dims(&ss, s->rank, s->dims);
    ld_error(L, "slope %s does not broadcast to X %s (numpy's rule, one way)", sb_str(&ss), sb_str(&sx));
    sb_free(&sx), sb_free(&ss);
    return false;
  }
  return ld_set_out(L, 0, x->rank, x->dims);
}

/* A unary node whose row's fn names attributes: each read (its default when
 * absent), checked finite, and substituted into the text as a float
 * literal (the node's fn); detail lists them. */
static bool unary_attrs(Load *L, int n, const char *const *names, const float *defs) {
  if (!ld_need_inputs(L, 1, 1)) return false;
  StrBuf lit[3], detail;
  const char *vals[3];
  sb_init(&detail);
  for (int i = 0; i < n; i++) {
    float v = ld_attr_float(L->np, names[i], defs[i]);
    if (!isfinite(v)) {
      for (int j = 0; j < i; j++) sb_free(&lit[j]);
      sb_free(&detail);
      return ld_error(L, "%s must be finite (got %g)", names[i], (double)v);
    }
    sb_init(&lit[i]);
    if (v < 0) sb_putc(&lit[i], '(');
    sb_float_literal(&lit[i], v);
    if (v < 0) sb_putc(&lit[i], ')');
    vals[i] = sb_str(&lit[i]);
    sb_printf(&detail, "%s%s %g", i ? ", " : "", names[i], (double)v);
  }
  StrBuf f;
  sb_init(&f);
  ew_subst(&f, L->node->def->fn, n, names, vals);
  L->node->fn = arena_strdup(L->a, sb_str(&f));
  L->node->detail = arena_strdup(L->a, sb_str(&detail));
  sb_free(&f), sb_free(&detail);
  for (int i = 0; i < n; i++) sb_free(&lit[i]);
  return ld_same_shape(L);
}

bool shape_hardsigmoid(Load *L) {
  static const char *const names[] = {"alpha", "beta"};
  static const float defs[] = {0.2f, 0.5f};
  return unary_attrs(L, 2, names, defs);
}

bool shape_elu(Load *L) {
  static const char *const names[] = {"alpha"};
  static const float defs[] = {1.0f};
  return unary_attrs(L, 1, names, defs);
}

bool shape_selu(Load *L) {
  static const char *const names[] = {"alpha", "gamma"};
  static const float defs[] = {1.67326319217681884765625f, 1.05070102214813232421875f};
  return unary_attrs(L, 2, names, defs);
}

/* Gelu (opset 20): approximate "none" (the row's fn, with erf) or "tanh". */
bool shape_gelu(Load *L) {
  if (!ld_need_inputs(L, 1, 1)) return false;
  const char *ap = ld_attr_string(L->a, L->np, "approximate", "none");
  if (!strcmp(ap, "tanh")) {
    L->node->fn = "0.5f * x * (1.0f + tanh(0.797884561f * (x + 0.044715f * x * x * x)))";
    L->node->detail = "approximate tanh";
  } else if (strcmp(ap, "none") != 0) {
    return ld_error(L, "approximate '%s' is not none or tanh", ap);
  }
  return ld_same_shape(L);
}

#endif

/* ---- The programs ---- */

static const OnnxValue *in_value(const OnnxModel *m, const OnnxNode *n, int k) { return &m->values[n->in[k]]; }

/* The user function's name: ew_ and the operator's in lower case (never a
 * built-in's, in the IR or in the kernels' language). */
static void fn_name(StrBuf *t, const OnnxNode *n) {
  sb_puts(t, "ew_");
  for (const char *s = n->op; *s; s++) sb_putc(t, *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s);
}

static bool variadic(const OnnxNode *n) { return !strcmp(n->op, "Max") || !strcmp(n->op, "Min"); }

/* Node n's function of args (C: names, or expressions each parenthesised),
 * into out: its fn of x, or of a and b, folded over a Max's or a Min's
 * inputs, however many (f(f(x0, x1), x2)...; of one input that input), or
 * its activation's C (layer_act_c) when it has no fn. */
static void ew_apply(StrBuf *out, const OnnxNode *n, int nin, const char *const *args) {
  static const char *const X[] = {"x"}, *const AB[] = {"a", "b"};
  const char *fn = node_fn(n);
  if (!fn) {
    layer_act_c(out, &n->act, args[0]);
    return;
  }
  if (nin == 1 && !variadic(n)) {
    ew_subst(out, fn, 1, X, args);
    return;
  }
  StrBuf acc;
  sb_init(&acc);
  sb_puts(&acc, args[0]);
  for (int k = 1; k < nin; k++) {   // each step's a the steps before it
    StrBuf step, prev;
    sb_init(&step), sb_init(&prev);
    sb_printf(&prev, k == 1 ? "%s" : "(%s)", sb_str(&acc));
    const char *vals[2] = {sb_str(&prev), args[k]};
    ew_subst(&step, fn, 2, AB, vals);
    sb_free(&acc), sb_free(&prev);
    acc = step;
  }
  sb_puts(out, sb_str(&acc));
  sb_free(&acc);
}

/* y = f(x) on every element, the input flattened. */
void program_unary(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  StrBuf name;
  sb_init(&name);
  fn_name(&name, n);
  sb_printf(t, "userfun %s(x: float): float { return %s; }\ninput x: [float]%lld\nout = x |> mapGlb[0, %s]\n",
            sb_str(&name), node_fn(n), (long long)onnx_elems(in_value(m, n, 0)), sb_str(&name));
  sb_free(&name);
  (void)a;
  op_add_value(p, "x", host, n->in[0]);
}

const char *refuse_variadic(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  (void)m;
  return n->nin > OP_MAX_INPUTS ? arena_printf(a, "%d inputs, more than %d", n->nin, OP_MAX_INPUTS) : NULL;
}

/* y = f(a, b), numpy-broadcast: each input flattened to the output
 * (op_flat_input: as it is, or broadcast by views), one work-item per
 * element. Two inputs are x and y, the function's a and b; a Max or Min of N
 * inputs reads x0 to xN-1, its function folded over them (ew_apply). */
void program_binary(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  static const char *const AB[] = {"a", "b"};
  const OnnxValue *Y = &m->values[n->out[0]];
  int nin = n->nin;
  const char *names[OP_MAX_INPUTS], *params[OP_MAX_INPUTS];
  for (int k = 0; k < nin; k++) {
    names[k] = nin == 2 ? (k ? "y" : "x") : arena_printf(a, "x%d", k);
    params[k] = nin == 2 ? AB[k] : names[k];
  }
  StrBuf name, v;
  sb_init(&name), sb_init(&v);
  fn_name(&name, n);
  sb_printf(t, "userfun %s(", sb_str(&name));
  for (int k = 0; k < nin; k++) sb_printf(t, "%s%s: float", k ? ", " : "", params[k]);
  sb_puts(t, "): float { return ");
  ew_apply(t, n, nin, params);
  sb_puts(t, "; }\n");
  for (int k = 0; k < nin; k++) {
    if (k) sb_puts(&v, ", ");
    op_flat_input(t, &v, names[k], in_value(m, n, k), Y);
    op_add_value(p, names[k], host, n->in[k]);
  }
  if (nin == 1) sb_printf(t, "out = %s |> mapGlb[0, %s]\n", sb_str(&v), sb_str(&name));
  else sb_printf(t, "out = zip(%s) |> mapGlb[0, %s]\n", sb_str(&v), sb_str(&name));
  sb_free(&name), sb_free(&v);
}

/* ---- Chains: elementwise nodes computed inside the node that reads them ---- */

bool ew_chainable(const OnnxNode *n) {
  return n->def->role == ROLE_ELEMENTWISE && !n->is_conv && n->nout == 1 && n->out[0] >= 0 && (n->has_act || node_fn(n));
}

static bool is_transpose(const OnnxNode *n) {
  return !strcmp(n->op, "Transpose") && n->layout && n->nout == 1 && n->out[0] >= 0;
}

bool ew_chain_member(const OnnxNode *n) { return ew_chainable(n) || is_transpose(n); }

/* The member of root's chain that makes value v, or -1. */
static int chain_maker(const OnnxModel *m, const OnnxNode *root, int v) {
  for (int k = 0; k < root->nchain; k++)
    if (m->nodes[root->chain[k]].out[0] == v) return root->chain[k];
  return -1;
}

/* The walk below node n (under: the Transpose member above it, or -1):
 * its leaves added to leaves (each value and Transpose once), its reads
 * counted; false when the chain is not one program. */
typedef struct ChainWalk {
  const OnnxModel *m;
  const OnnxNode *root;
  ChainLeaf *leaves;
  int nleaves, max, reads;
} ChainWalk;

static bool walk_leaves(ChainWalk *w, const OnnxNode *n, int under) {
  const OnnxModel *m = w->m;
  for (int k = 0; k < n->nin; k++) {
    int v = n->in[k], j = v >= 0 ? chain_maker(m, w->root, v) : -1;
    if (v < 0) continue;
    if (j >= 0) {
      const OnnxNode *c = &m->nodes[j];
      int below = under;
      if (is_transpose(c)) {   // one Transpose on a path, onto the root's shape: a leaf's view is then one transpose
        const OnnxValue *y = &m->values[c->out[0]], *r = &m->values[w->root->out[0]];
        if (under >= 0 || y->rank != r->rank || memcmp(y->dims, r->dims, (size_t)y->rank * sizeof *y->dims) != 0)
          return false;
        below = j;
      }
      if (!walk_leaves(w, c, below)) return false;
      continue;
    }
    if (++w->reads > CHAIN_MAX_READS) return false;   // a member read twice is computed twice
    int i = 0;
    while (i < w->nleaves && !(w->leaves[i].value == v && w->leaves[i].under == under)) i++;
    if (i == w->nleaves) {
      if (w->nleaves == w->max) return false;
      w->leaves[w->nleaves++] = (ChainLeaf){v, under};
    }
  }
  return true;
}

int ew_chain_leaves(const OnnxModel *m, const OnnxNode *root, ChainLeaf *leaves, int max) {
  ChainWalk w = {m, root, leaves, 0, max, 0};
  return walk_leaves(&w, root, -1) ? w.nleaves : -1;
}

/* Node n's value as C of the leaves x0..: each input a member makes
 * replaced by that member's expression, recursively (a Transpose's by its
 * input's: its leaves are read through it). */
static void chain_expr(StrBuf *out, const OnnxModel *m, const OnnxNode *root, const OnnxNode *n, int under,
                       const ChainLeaf *leaves) {
  StrBuf *arg = calloc((size_t)n->nin + 1, sizeof *arg);
  const char **args = calloc((size_t)n->nin + 1, sizeof *args);
  if (!arg || !args) cg_die("out of memory");
  int nin = 0;
  for (int k = 0; k < n->nin; k++) {
    int v = n->in[k];
    if (v < 0) continue;
    sb_init(&arg[nin]);
    sb_putc(&arg[nin], '(');
    int j = chain_maker(m, root, v);
    if (j >= 0) {
      chain_expr(&arg[nin], m, root, &m->nodes[j], is_transpose(&m->nodes[j]) ? j : under, leaves);
    } else {
      int i = 0;
      while (!(leaves[i].value == v && leaves[i].under == under)) i++;
      sb_printf(&arg[nin], "x%d", i);
    }
    sb_putc(&arg[nin], ')');
    args[nin] = sb_str(&arg[nin]);
    nin++;
  }
  if (is_transpose(n)) sb_puts(out, args[0]);
  else ew_apply(out, n, nin, args);
  for (int k = 0; k < nin; k++) sb_free(&arg[k]);
  free(arg), free(args);
}

/* A leaf read through Transpose member T: broadcast to T's input (numpy's
 * rule), put in T's order, flattened. */
static void transposed_input(StrBuf *t, StrBuf *view, const char *name, const OnnxValue *x, const OnnxModel *m,
                             const OnnxNode *T) {
  const OnnxValue *in = &m->values[T->in[0]];
  op_broadcast(t, view, name, x, in->rank, in->dims);
  op_transpose_view(view, in->rank, T->layout->a);
  for (int i = 1; i < in->rank; i++) sb_puts(view, " |> join");
}

/* The chain of root: one function of its leaves, each broadcast to root's
 * output by views (program_binary's scheme), those below a Transpose
 * member through its transpose, one work-item per element. */
void program_chain(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxValue *Y = &m->values[n->out[0]];
  ChainLeaf leaves[OP_MAX_INPUTS];
  int nl = ew_chain_leaves(m, n, leaves, OP_MAX_INPUTS);
  if (nl < 0) cg_die("program_chain: node %s: its chain is not one program", n->name);
  StrBuf body, v;
  sb_init(&body), sb_init(&v);
  chain_expr(&body, m, n, n, -1, leaves);
  sb_puts(t, "userfun ew_chain(");
  for (int k = 0; k < nl; k++) sb_printf(t, "%sx%d: float", k ? ", " : "", k);
  sb_printf(t, "): float { return %s; }\n", sb_str(&body));
  for (int k = 0; k < nl; k++) {
    const char *name = arena_printf(a, "x%d", k);
    if (k) sb_puts(&v, ", ");
    if (leaves[k].under >= 0) transposed_input(t, &v, name, &m->values[leaves[k].value], m, &m->nodes[leaves[k].under]);
    else op_flat_input(t, &v, name, &m->values[leaves[k].value], Y);
    op_add_value(p, name, host, leaves[k].value);
  }
  if (nl == 1) sb_printf(t, "out = %s |> mapGlb[0, ew_chain]\n", sb_str(&v));
  else sb_printf(t, "out = zip(%s) |> mapGlb[0, ew_chain]\n", sb_str(&v));
  sb_free(&body), sb_free(&v);
}
