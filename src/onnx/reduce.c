/* reduce.c: the reductions along axes (issue 30), rows of the operator
 * table (ops.c) of role ROLE_REDUCTION: ReduceSum, ReduceMean, ReduceMax,
 * ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum,
 * ReduceLogSumExp, GlobalMaxPool and LayerNormalization. The shape rules
 * (inside CONVGEN_ONNX: they read the node through load.h) take the axes
 * into the node's bit set (OnnxNode.axes); the programs (outside: infer
 * runs them) see the input as [kept][reduced], one work-item per output
 * element reducing the product of the reduced axes, the non-contiguous
 * axes moved inward by transposes, which are views. */
#include "onnx/rows.h"

#include <string.h>

#ifdef CONVGEN_ONNX
#include "onnx/load.h"

/* The opset from which an operator takes its axes as input 1 (an int64
 * tensor), not as an attribute: ReduceSum's 13, the others' 18. */
static int64_t axes_input_opset(const char *op) { return strcmp(op, "ReduceSum") == 0 ? 13 : 18; }

static void put_axes(StrBuf *sb, unsigned mask, int rank) {
  for (int i = 0, n = 0; i < rank; i++)
    if (mask >> i & 1) sb_printf(sb, "%s%d", n++ ? "," : "", i);
}

/* Reduce*: axes as an attribute (before the opset of axes_input_opset) or
 * as a constant input (an initializer, or an empty tensor whatever it is:
 * its shape says it holds no axis), negative ones counted from the end,
 * none meaning every axis unless noop_with_empty_axes (then the input is
 * copied); keepdims (default 1) keeps each reduced axis as a dimension of 1. */
bool shape_reduce(Load *L) {
  int64_t from = axes_input_opset(L->node->op);
  bool as_input = L->m->opset >= from;
  if (!ld_need_inputs(L, 1, as_input ? 2 : 1)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int r = x->rank;
  int64_t axes[ONNX_MAX_RANK];
  int64_t na = 0;
  const Onnx__AttributeProto *at = ld_attr(L->np, "axes");
  if (as_input && at)
    return ld_error(L, "axes is an input from opset %lld on, not an attribute (the model's opset is %lld)",
                    (long long)from, (long long)L->m->opset);
  if (at) {
    na = (int64_t)at->n_ints;
    if (na > r) return ld_error(L, "axes lists %lld axes; X (%s) has rank %d", (long long)na, x->name, r);
    ld_attr_ints(L->np, "axes", axes, ONNX_MAX_RANK);
  } else if (ld_has_input(L, 1)) {
    const OnnxValue *av = ld_in(L, 1);
    if (av->rank != 1) return ld_error(L, "axes ('%s') must be a 1-D tensor (got rank %d)", av->name, av->rank);
    na = av->dims[0];
    if (na > r) return ld_error(L, "axes lists %lld axes; X (%s) has rank %d", (long long)na, x->name, r);
    if (na > 0 && !ld_need_init(L, 1, "axes")) return false;
    for (int64_t i = 0; i < na; i++)
      if (!ld_init_i64(L->init[L->node->in[1]], i, &axes[i]))
        return ld_error(L, "axes ('%s') is not an int64 tensor", av->name);
  }
  unsigned mask = 0;
  for (int64_t i = 0; i < na; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + r : axes[i];
    if (a < 0 || a >= r) return ld_error(L, "axis %lld is outside X's rank %d", (long long)axes[i], r);
    if (mask >> a & 1) return ld_error(L, "axes names axis %lld twice (as %lld)", (long long)a, (long long)axes[i]);
    mask |= 1u << a;
  }
  bool noop = ld_attr_int(L->np, "noop_with_empty_axes", 0) != 0, keep = ld_attr_int(L->np, "keepdims", 1) != 0;
  if (na == 0 && !noop) mask = r ? (1u << r) - 1 : 1;   // every axis (a scalar: its one element, as [1])
  L->node->axes = mask;
  int64_t out[ONNX_MAX_RANK];
  int ro = 0;
  for (int i = 0; i < r; i++)
    if (!(mask >> i & 1)) out[ro++] = x->dims[i];
    else if (keep) out[ro++] = 1;
  if (!ld_set_out(L, 0, ro, out)) return false;
  StrBuf sb;
  sb_init(&sb);
  if (!mask) sb_puts(&sb, "no axes: the input copied");
  else if (na == 0) sb_puts(&sb, "every axis");
  else sb_puts(&sb, "axes "), put_axes(&sb, mask, r);
  if (mask && r) sb_puts(&sb, keep ? ", kept" : ", dropped");
  L->node->detail = arena_strdup(L->a, sb_str(&sb));
  sb_free(&sb);
  return true;
}

/* GlobalMaxPool: [N, C, D1, ...] to [N, C, 1, ...], the maximum of each
 * channel's plane (the axes from 2 on). */
bool shape_global_max_pool(Load *L) {
  if (!ld_need_inputs(L, 1, 1)) return false;
  const OnnxValue *x = ld_in(L, 0);
  if (x->rank < 3)
    return ld_error(L, "X must be [N, C, D1, ...] (rank 3 or more; got %d: %s)", x->rank, x->name);
  int64_t out[ONNX_MAX_RANK];
  for (int i = 0; i < x->rank; i++) out[i] = i < 2 ? x->dims[i] : 1;
  L->node->axes = ((1u << x->rank) - 1) & ~3u;
  return ld_set_out(L, 0, x->rank, out);
}

/* LayerNormalization (opset 17): each row of the axes from axis on
 * (default -1) normalized, then scaled by Scale and shifted by B, which
 * broadcast to those axes (numpy's rule, one way); epsilon (default 1e-5).
 * Mean and InvStdDev, the training outputs, get their shapes (X's, 1 from
 * axis on), and infer refuses them. */
bool shape_layernorm(Load *L) {
  if (!ld_need_inputs(L, 2, 3)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int r = x->rank;
  if (r < 1) return ld_error(L, "X must have rank 1 or more (got a scalar: %s)", x->name);
  int64_t ax = ld_attr_int(L->np, "axis", -1), axis = ax < 0 ? ax + r : ax;
  if (axis < 0 || axis >= r) return ld_error(L, "axis %lld is outside X's rank %d", (long long)ax, r);
  static const char *names[] = {"X", "Scale", "B"};
  for (int k = 1; k < L->node->nin && k < 3; k++) {
    if (L->node->in[k] < 0) continue;
    const OnnxValue *s = ld_in(L, k);
    bool fits = s->rank <= r - axis;
    for (int i = 0; fits && i < s->rank; i++) {
      int64_t want = x->dims[r - s->rank + i];
      fits = s->dims[i] == 1 || s->dims[i] == want;
    }
    if (!fits) {
      StrBuf sb;
      sb_init(&sb);
      ld_put_dims(&sb, r - (int)axis, x->dims + axis);
      ld_error(L, "%s ('%s', rank %d) does not broadcast to the normalized axes' %s", names[k], s->name, s->rank,
               sb_str(&sb));
      sb_free(&sb);
      return false;
    }
  }
  float eps = ld_attr_float(L->np, "epsilon", 1e-5f);
  if (!(eps >= 0.0f) || eps > 1e30f) return ld_error(L, "epsilon %g is not 0 to 1e30", (double)eps);
  L->node->axis = (int)axis, L->node->eps = eps;
  L->node->axes = ((1u << r) - 1) & ~((1u << axis) - 1);
  int64_t stat[ONNX_MAX_RANK];
  for (int i = 0; i < r; i++) stat[i] = i < axis ? x->dims[i] : 1;
  if (!ld_set_out(L, 0, r, x->dims) || !ld_set_out(L, 1, r, stat) || !ld_set_out(L, 2, r, stat)) return false;
  L->node->detail = arena_printf(L->a, "axes %lld to %d, epsilon %g", (long long)axis, r - 1, (double)eps);
  return true;
}

#endif

/* ---- Programs ---- */

static const OnnxValue *in_value(const OnnxModel *m, const OnnxNode *n, int k) { return &m->values[n->in[k]]; }

/* -FLT_MAX and FLT_MAX as literals the IR reads (programs.c's MINUS_FLT_MAX):
 * a maximum's and a minimum's start. */
static const char MINUS_FLT_MAX[] = "-3.4028234e38f", PLUS_FLT_MAX[] = "3.4028234e38f";

/* Input x, declared with its dimensions in runs (each run of kept or of
 * reduced axes one dimension of their product, dimensions of 1 left out),
 * and into view the view that makes it [K][R]: K the kept elements (the
 * output's, in order), R the reduced ones per output element. A reduced
 * run before a kept one is moved inward by a transpose at its depth
 * (map^depth[transpose]), as a stable bubble sort, then the kept runs are
 * joined into one dimension and the reduced ones into another. Views
 * alone: the reads index x where it lies. */
static void kept_reduced(StrBuf *t, StrBuf *view, const OnnxValue *x, unsigned mask, int64_t *K, int64_t *R) {
  int64_t d[ONNX_MAX_RANK + 2];
  bool red[ONNX_MAX_RANK + 2];
  int nd = 0, r = x->rank;
  *K = *R = 1;
  for (int i = 0; i < (r ? r : 1); i++) {
    int64_t len = r ? x->dims[i] : 1;
    bool b = mask >> i & 1;
    *(b ? R : K) *= len;
    if (len == 1) continue;
    if (nd > 0 && red[nd - 1] == b) d[nd - 1] *= len;
    else d[nd] = len, red[nd] = b, nd++;
  }
  if (nd == 0 || red[0]) {   // a kept run first, of 1 when there is none
    memmove(d + 1, d, sizeof *d * (size_t)nd), memmove(red + 1, red, sizeof *red * (size_t)nd);
    d[0] = 1, red[0] = false, nd++;
  }
  if (!red[nd - 1]) d[nd] = 1, red[nd] = true, nd++;   // a reduced run last, of 1 when there is none
  sb_puts(t, "input x: ");
  for (int i = 0; i < nd; i++) sb_putc(t, '[');
  sb_puts(t, "float");
  for (int i = nd - 1; i >= 0; i--) sb_printf(t, "]%lld", (long long)d[i]);
  sb_putc(t, '\n');
  sb_puts(view, "x");
  for (bool moved = true; moved;) {
    moved = false;
    for (int j = 0; j + 1 < nd; j++) {
      if (!red[j] || red[j + 1]) continue;
      sb_puts(view, " |> ");
      for (int k = 0; k < j; k++) sb_puts(view, "map[");
      sb_puts(view, "transpose");
      for (int k = 0; k < j; k++) sb_putc(view, ']');
      int64_t td = d[j];
      d[j] = d[j + 1], d[j + 1] = td, red[j] = false, red[j + 1] = true, moved = true;
    }
  }
  int nk = 0;
  while (!red[nk]) nk++;
  for (int i = 1; i < nk; i++) sb_puts(view, " |> join");
  for (int i = nk + 1; i < nd; i++) sb_puts(view, " |> map[join]");
}

/* Each reduction as its step from a start, then a function of the result
 * (of s; R the reduced count). */
typedef struct Reduction {
  const char *op;
  const char *step;      // of acc and v; start leaves acc as it is (a padded row)
  const char *combine;   // of two partial results (of acc and v)
  const char *start;
  const char *final;     // of s, or NULL
} Reduction;

static const Reduction REDUCTIONS[] = {
    {"ReduceSum", "acc + v", "acc + v", "0.0f", NULL},
    {"ReduceMean", "acc + v", "acc + v", "0.0f", "s / R"},
    {"ReduceMax", "fmax(acc, v)", "fmax(acc, v)", MINUS_FLT_MAX, NULL},
    {"GlobalMaxPool", "fmax(acc, v)", "fmax(acc, v)", MINUS_FLT_MAX, NULL},
    {"ReduceMin", "fmin(acc, v)", "fmin(acc, v)", PLUS_FLT_MAX, NULL},
    {"ReduceProd", "acc * v", "acc * v", "1.0f", NULL},
    {"ReduceL1", "acc + fabs(v)", "acc + v", "0.0f", NULL},
    {"ReduceL2", "acc + v * v", "acc + v", "0.0f", "sqrt(s)"},
    {"ReduceSumSquare", "acc + v * v", "acc + v", "0.0f", NULL},
    {"ReduceLogSum", "acc + v", "acc + v", "0.0f", "log(s)"},
};

/* A reduction's program: one work-group per output element, its row of R
 * reduced elements ([K][R], kept_reduced) folded by op_fold_row's lanes,
 * their partials combined, then the final function. ReduceLogSumExp is two
 * passes over them in one work-item a row, as Softmax's were: the maximum
 * m, then m + log(sum of exp(v - m)). No axes (noop_with_empty_axes) is a
 * copy. */
void program_reduce(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  (void)a;
  const OnnxValue *x = in_value(m, n, 0);
  op_add_value(p, "x", host, n->in[0]);
  if (!n->axes) {
    sb_printf(t, "userfun id(v: float): float { return v; }\ninput x: [float]%lld\nout = x |> mapGlb[0, id]\n",
              (long long)onnx_elems(x));
    return;
  }
  StrBuf view;
  sb_init(&view);
  int64_t K, R;
  kept_reduced(t, &view, x, n->axes, &K, &R);
  if (strcmp(n->op, "ReduceLogSumExp") == 0) {
    sb_printf(t, "userfun mx(a: float, b: float): float { return fmax(a, b); }\n"
              "userfun addexp(acc: float, v: float, m: float): float { return acc + exp(v - m); }\n"
              "userfun lse(s: float, m: float): float { return m + log(s); }\n"
              "out = %s |> mapGlb[0, fun(row) ->\n"
              "  reduceSeq[mx](%s, row) |> mapSeq[fun(m) ->\n"
              "    reduceSeq[fun(acc, v) -> addexp(acc, v, m)](0.0f, row) |> mapSeq[fun(s) -> lse(s, m)]] |> join]"
              " |> join\n",
              sb_str(&view), MINUS_FLT_MAX);
    sb_free(&view);
    return;
  }
  const Reduction *f = NULL;
  for (size_t i = 0; i < sizeof REDUCTIONS / sizeof *REDUCTIONS && !f; i++)
    if (strcmp(REDUCTIONS[i].op, n->op) == 0) f = &REDUCTIONS[i];
  if (!f) cg_die("program_reduce: node %s (%s) is not a reduction", n->name, n->op);
  sb_printf(t, "userfun st(acc: float, v: float): float { return %s; }\n", f->step);
  sb_printf(t, "userfun comb(acc: float, v: float): float { return %s; }\n", f->combine);
  if (f->final)
    sb_printf(t, "userfun fin(s: float): float { float R = %lld.0f; return %s; }\n", (long long)R, f->final);
  sb_printf(t, "out = %s |> mapWrg[0, fun(row) -> ", sb_str(&view));
  op_fold_row(t, "row", R, op_lanes(R, true), "st", f->start, f->start);
  sb_printf(t, " |> mapLcl[0, fun(ps) -> reduceSeq[comb](%s, ps)%s] |> join] |> join\n", f->start,
            f->final ? " |> mapSeq[fin]" : "");
  sb_free(&view);
}

/* LayerNormalization: X as [K][R] (R the elements from axis on; read
 * through the Transpose that makes it when import fused one: op_rows_input), one
 * work-group per row (op_fold_row's lanes, which divide R: the deviations'
 * fold is not left as it is by a padded value): its sum s (the mean
 * s / R), then the sum q of the squared deviations from the mean, each
 * kept in local memory for the whole group, then each element's
 * (v - mean) / sqrt(q / R + epsilon) * scale + bias, Scale and B broadcast
 * to the row by views (op_broadcast) and zipped with it. One work-item a
 * row took ConvNeXt-Tiny 3.4 ms of its 6.1 (49 rows of 768 in its last
 * stage; bench/results/2026-12-06-models-speed, call 6). */
void program_layernorm(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  (void)a;
  const OnnxValue *x = in_value(m, n, 0);
  int r = x->rank, nr = r - n->axis;
  int64_t R = 1;
  for (int i = n->axis; i < r; i++) R *= x->dims[i];
  bool has_b = n->nin > 2 && n->in[2] >= 0;
  sb_printf(t, "userfun add(a: float, b: float): float { return a + b; }\n"
            "userfun dev(acc: float, v: float, s: float): float { float m = s / %lld.0f; return acc + (v - m) * (v - m); }\n"
            "userfun lnorm(v: float, s: float, q: float, g: float%s): float {\n"
            "  float m = s / %lld.0f;\n  return (v - m) / sqrt(q / %lld.0f + ",
            (long long)R, has_b ? ", b: float" : "", (long long)R, (long long)R);
  sb_float_literal(t, n->eps);
  sb_printf(t, ") * g%s;\n}\n", has_b ? " + b" : "");
  StrBuf xv, g, b;
  sb_init(&xv), sb_init(&g), sb_init(&b);
  op_rows_input(t, &xv, "x", m, n, 0, R, host, p);
  op_broadcast(t, &g, "gamma", in_value(m, n, 1), nr, x->dims + n->axis);
  for (int i = 1; i < nr; i++) sb_puts(&g, " |> join");
  op_add_value(p, "gamma", host, n->in[1]);
  if (has_b) {
    op_broadcast(t, &b, "beta", in_value(m, n, 2), nr, x->dims + n->axis);
    for (int i = 1; i < nr; i++) sb_puts(&b, " |> join");
    op_add_value(p, "beta", host, n->in[2]);
  }
  int64_t lanes = op_lanes(R, false);
  static const char SUM[] = " |> toLocal[mapLcl[0, fun(ps) -> reduceSeq[add](0.0f, ps)]] |> join";
  sb_printf(t, "workgroup %lld\nout = %s |> mapWrg[0, fun(row) ->\n  ", (long long)lanes, sb_str(&xv));
  op_fold_row(t, "row", R, lanes, "add", "0.0f", NULL);
  sb_printf(t, "%s |> mapSeq[fun(s) ->\n    ", SUM);
  op_fold_row(t, "row", R, lanes, "fun(acc, v) -> dev(acc, v, s)", "0.0f", NULL);
  sb_printf(t, "%s |> mapSeq[fun(q) ->\n"
            "      zip(row, %s%s%s) |> mapLcl[0, fun(e) -> lnorm(get[0](e), s, q, get[1](e)%s)]] |> join] |> join]"
            " |> join\n",
            SUM, sb_str(&g), has_b ? ", " : "", has_b ? sb_str(&b) : "", has_b ? ", get[2](e)" : "");
  sb_free(&xv), sb_free(&g), sb_free(&b);
}

/* LayerNormalization's Mean and InvStdDev: a program writes one output. */
const char *refuse_layernorm(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  (void)a, (void)m;
  for (int k = 1; k < n->nout; k++)
    if (n->out[k] >= 0)
      return "its outputs Mean and InvStdDev (for training) are not run: a program writes one output, Y";
  return NULL;
}
