/* programs.c: the programs of the IR that run a network's operators other
 * than the convolution, the operator table's program and refusal columns
 * (ops.h). Each family writes its program for the node's shapes, every
 * size a constant; the views (pad, slide, transpose, join) move no data, so
 * a program is one kernel whose reads the lowering indexes straight into
 * the node's inputs. */
#include "onnx/rows.h"

#include <float.h>
#include <math.h>
#include <string.h>

static bool is_op(const OnnxNode *n, const char *op) { return strcmp(n->op, op) == 0; }

static const OnnxValue *in_value(const OnnxModel *m, const OnnxNode *n, int k) { return &m->values[n->in[k]]; }

/* An array the program reads that the node's inputs do not hold (counts, a folded scale). */
void op_add_input(OpProgram *p, const char *name, const float *data) {
  p->names[p->nin] = name, p->data[p->nin] = data, p->value[p->nin] = -1, p->nin++;
}

/* The node's input value v, read as the program's input name. */
void op_add_value(OpProgram *p, const char *name, float *const *host, int v) {
  p->names[p->nin] = name, p->data[p->nin] = host[v], p->value[p->nin] = v, p->nin++;
}

/* ---- Declarations and views ---- */

void op_declare(StrBuf *t, const char *name, const OnnxValue *v) {
  sb_printf(t, "input %s: ", name);
  for (int i = 0; i < v->rank; i++) sb_putc(t, '[');
  if (v->rank == 0) sb_puts(t, "[float]1\n");
  else sb_puts(t, "float");
  for (int i = v->rank - 1; i >= 0; i--) sb_printf(t, "]%lld", (long long)v->dims[i]);
  if (v->rank) sb_putc(t, '\n');
}

void op_at_depth(StrBuf *view, int d, const char *prim) {
  sb_puts(view, " |> ");
  for (int i = 0; i < d; i++) sb_puts(view, "map[");
  sb_puts(view, prim);
  for (int i = 0; i < d; i++) sb_putc(view, ']');
}

void op_copy_out(StrBuf *t, StrBuf *view, int r) {
  sb_puts(t, "userfun id(x: float): float { return x; }\n");
  sb_printf(t, "out = %s", sb_str(view));
  for (int i = 1; i < r; i++) sb_puts(t, " |> join");
  sb_puts(t, " |> mapGlb[0, id]\n");
}

void op_rows_input(StrBuf *t, StrBuf *view, const char *name, const OnnxModel *m, const OnnxNode *n, int k, int64_t r,
                   float *const *host, OpProgram *p) {
  int v = n->in[k], self = (int)(n - m->nodes);
  const OnnxNode *T = NULL;
  for (int j = 0; j < self && !T; j++)
    if (m->nodes[j].fused_into == self && m->nodes[j].out[0] == v && m->nodes[j].layout) T = &m->nodes[j];
  if (!T) {
    sb_printf(t, "input %s: [[float]%lld]%lld\n", name, (long long)r, (long long)(onnx_elems(&m->values[v]) / r));
    sb_puts(view, name);
    op_add_value(p, name, host, v);
    return;
  }
  const OnnxValue *x = &m->values[T->in[0]];
  op_declare(t, name, x);
  sb_puts(view, name);
  op_transpose_view(view, x->rank, T->layout->a);
  for (int i = 1; i < x->rank; i++) sb_puts(view, " |> join");
  sb_printf(view, " |> split[%lld]", (long long)r);
  op_add_value(p, name, host, T->in[0]);
}

/* ---- Broadcasting, as views ---- */

static bool same_shape(const OnnxValue *x, const OnnxValue *y) {
  return x->rank == y->rank && !memcmp(x->dims, y->dims, sizeof *x->dims * (size_t)x->rank);
}

void op_flat_input(StrBuf *t, StrBuf *view, const char *name, const OnnxValue *x, const OnnxValue *y) {
  if (same_shape(x, y)) {
    sb_printf(t, "input %s: [float]%lld\n", name, (long long)onnx_elems(y)), sb_puts(view, name);
    return;
  }
  op_broadcast(t, view, name, x, y->rank, y->dims);
  for (int i = 1; i < y->rank; i++) sb_puts(view, " |> join");
}

/* The input declaration of value v, named name, as rank r (numpy's rule:
 * v's dimensions are the last r, 1 before them), and into view its
 * broadcast to dims out[r]: each dimension of size 1 that out makes n
 * longer is `pad[0, n - 1, clamp]` at its depth, which reads the one
 * element n times (the clamped index is the constant 0), so that nothing
 * is copied. */
void op_broadcast(StrBuf *t, StrBuf *view, const char *name, const OnnxValue *v, int r, const int64_t *out) {
  sb_printf(t, "input %s: ", name);
  for (int i = 0; i < r; i++) sb_putc(t, '[');
  sb_puts(t, "float");
  for (int i = r - 1; i >= 0; i--) {
    int k = i - (r - v->rank);
    sb_printf(t, "]%lld", (long long)(k >= 0 ? v->dims[k] : 1));
  }
  sb_putc(t, '\n');
  sb_puts(view, name);
  for (int i = 0; i < r; i++) {
    int k = i - (r - v->rank);
    if ((k >= 0 ? v->dims[k] : 1) == out[i]) continue;
    sb_puts(view, " |> ");
    for (int d = 0; d < i; d++) sb_puts(view, "map[");
    sb_printf(view, "pad[0, %lld, clamp]", (long long)(out[i] - 1));
    for (int d = 0; d < i; d++) sb_putc(view, ']');
  }
}

/* ---- Rows reduced by work-groups ---- */

/* A row of r values is reduced by one work-group: lanes work-items each
 * fold a strided column of it (neighbouring work-items read neighbouring
 * values), then one of them folds their partial sums from local memory.
 * One work-item a row (a mapGlb over the rows) left most of a GPU idle:
 * EfficientNet-B0's squeeze-excite GlobalAveragePools over 112 x 112
 * planes of 32 to 96 channels, one work-item a plane, took 1.0 ms of its
 * 1.7 (bench/results/2026-12-06-models-speed, call 2). */
enum { OP_MAX_LANES = 256 };

int64_t op_lanes(int64_t r, bool pad) {
  int64_t lanes = 1;
  if (pad)   // a power of two, each lane at least 4 values, the row padded
    while (2 * lanes <= OP_MAX_LANES && 8 * lanes <= r) lanes *= 2;
  else   // the largest power of two that divides r
    while (2 * lanes <= OP_MAX_LANES && r % (2 * lanes) == 0) lanes *= 2;
  return lanes;
}

void op_fold_row(StrBuf *t, const char *row, int64_t r, int64_t lanes, const char *step, const char *start,
                 const char *pad) {
  sb_puts(t, row);
  if (r % lanes) {
    if (!pad) cg_die("op_fold_row: %lld lanes do not divide a row of %lld with no padding value", (long long)lanes,
                     (long long)r);
    sb_printf(t, " |> pad[0, %lld, %s]", (long long)(lanes - r % lanes), pad);
  }
  sb_printf(t, " |> split[%lld] |> transpose |> toLocal[mapLcl[0, fun(col) -> reduceSeq[%s](%s, col)]] |> join"
            " |> split[%lld]",
            (long long)lanes, step, start, (long long)lanes);
}

/* ---- Activations: the function on every element ---- */

void program_activation(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
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
  op_add_value(p, "x", host, n->in[0]);
}

/* An activation import could not take as one: a LeakyRelu's alpha outside
 * (0, 1), where fmax(x, alpha x) is not its function (a Clip runs whatever
 * its bounds, known when it runs). */
const char *refuse_activation(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  (void)a, (void)m;
  return n->has_act ? NULL : "alpha outside (0, 1) is not run";
}

/* ---- Concat: element-wise over views ---- */

const char *refuse_concat(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  (void)m;
  return n->nin > OP_MAX_PROGRAM_INPUTS ? arena_printf(a, "%d inputs, more than %d", n->nin, OP_MAX_PROGRAM_INPUTS)
                                        : NULL;
}

/* Each input seen as [outer][its part of the axis][inner] and padded with
 * zeros along the axis to the output's length at its offset (a view), the
 * padded inputs added element by element: at each place one of them is the
 * input's element and the others 0. The IR has no concatenation, and a
 * program has one output that one kernel writes; the sum is exact but for
 * a -0 element, which becomes +0. A zip's tuple has at most OP_MAX_INPUTS
 * (16) fields: more inputs (DenseNet-121 has a Concat of 17) are zipped in
 * groups of 16, the groups zipped, each group's sum added (a zip of zips,
 * OP_MAX_PROGRAM_INPUTS inputs at most). */
void program_concat(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxValue *Y = &m->values[n->out[0]];
  int64_t outer = 1, inner = 1, total = Y->dims[n->axis], at = 0;
  for (int i = 0; i < Y->rank; i++)
    if (i < n->axis) outer *= Y->dims[i];
    else if (i > n->axis) inner *= Y->dims[i];
  int groups = (n->nin + OP_MAX_INPUTS - 1) / OP_MAX_INPUTS;
  bool many = groups > 1;
  for (int g = 0; g < groups; g++) {   // cat (one zip) or cat0, cat1, ... (one per group): the sum of its fields
    int lo = g * OP_MAX_INPUTS, hi = lo + OP_MAX_INPUTS < n->nin ? lo + OP_MAX_INPUTS : n->nin;
    if (many) sb_printf(t, "userfun cat%d(", g);
    else sb_puts(t, "userfun cat(");
    for (int k = lo; k < hi; k++) sb_printf(t, "%sx%d: float", k > lo ? ", " : "", k);
    sb_puts(t, "): float { return ");
    for (int k = lo; k < hi; k++) sb_printf(t, "%sx%d", k > lo ? " + " : "", k);
    sb_puts(t, "; }\n");
  }
  if (many) {
    sb_puts(t, "userfun sum(");
    for (int g = 0; g < groups; g++) sb_printf(t, "%sg%d: float", g ? ", " : "", g);
    sb_puts(t, "): float { return ");
    for (int g = 0; g < groups; g++) sb_printf(t, "%sg%d", g ? " + " : "", g);
    sb_puts(t, "; }\n");
  }
  StrBuf v;
  sb_init(&v);
  for (int k = 0; k < n->nin; k++) {
    int64_t part = in_value(m, n, k)->dims[n->axis];
    const char *name = arena_printf(a, "x%d", k);
    sb_printf(t, "input %s: [[[float]%lld]%lld]%lld\n", name, (long long)inner, (long long)part, (long long)outer);
    bool alone = k + 1 == n->nin && k % OP_MAX_INPUTS == 0;   // a last group of one: its array, not a zip
    if (many && k % OP_MAX_INPUTS == 0) sb_printf(&v, "%s%s", k ? "), " : "", alone ? "(" : "zip(");
    sb_printf(&v, "%s%s |> map[pad[%lld, %lld, 0.0f]] |> join |> join", k % OP_MAX_INPUTS ? ", " : "", name,
              (long long)at, (long long)(total - at - part));
    op_add_value(p, name, host, n->in[k]);
    at += part;
  }
  if (many) {
    sb_printf(t, "out = zip(%s)) |> mapGlb[0, fun(p) -> sum(", sb_str(&v));
    for (int g = 0; g < groups; g++) sb_printf(t, "%scat%d(get[%d](p))", g ? ", " : "", g, g);
    sb_puts(t, ")]\n");
  } else if (n->nin == 1) {
    sb_printf(t, "out = %s |> mapGlb[0, cat]\n", sb_str(&v));
  } else {
    sb_printf(t, "out = zip(%s) |> mapGlb[0, cat]\n", sb_str(&v));
  }
  sb_free(&v);
}

/* ---- GlobalAveragePool: each plane's mean ---- */

void program_global_pool(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t,
                        OpProgram *p) {
  const OnnxValue *x = in_value(m, n, 0);
  int64_t planes = x->dims[0] * x->dims[1], hw = onnx_elems(x) / planes;
  sb_printf(t, "userfun add(a: float, b: float): float { return a + b; }\n"
            "userfun mean(s: float): float { return s / %lld.0f; }\ninput x: [[float]%lld]%lld\n"
            "out = x |> mapWrg[0, fun(p) -> ",
            (long long)hw, (long long)hw, (long long)planes);
  op_fold_row(t, "p", hw, op_lanes(hw, true), "add", "0.0f", "0.0f");
  sb_puts(t, " |> mapLcl[0, fun(ps) -> reduceSeq[add](0.0f, ps) |> mapSeq[mean]] |> join] |> join\n");
  (void)a;
  op_add_value(p, "x", host, n->in[0]);
}

/* ---- MaxPool, AveragePool: each window's max or mean ---- */

/* -FLT_MAX as a literal the IR reads (at most FLT_MAX in magnitude, in
 * double: the 9 digits of sb_float_literal round above it) and that rounds
 * to -FLT_MAX as a float: MaxPool's padding and its reduction's start. The
 * IR's literals are finite, so -FLT_MAX stands for -inf: a window whose
 * every element is -inf gives -FLT_MAX. */
static const char MINUS_FLT_MAX[] = "-3.4028234e38f";

static int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); }

/* How many taps of window o along axis (0 h, 1 w) lie at positions lo to
 * hi - 1 of the input (0 and its size: its elements; the declared padding
 * widens them). */
static int64_t taps_within(const OnnxWindow *w, int axis, int64_t o, int64_t lo, int64_t hi) {
  int64_t base = o * w->stride[axis] - w->pads[axis], d = w->dil[axis];   // tap e is at base + e d
  int64_t first = ceil_div(lo - base, d), end = ceil_div(hi - base, d);
  if (first < 0) first = 0;
  if (end > w->kernel[axis]) end = w->kernel[axis];
  return end > first ? end - first : 0;
}

/* The padding after the input along axis that the program adds: the
 * declared end padding, and in ceil mode the extension the last window
 * reaches past it (at the end, as PyTorch and onnxruntime place it). */
static int64_t end_pad(const OnnxWindow *w, int axis, int64_t in, int64_t out) {
  int64_t reach = (out - 1) * w->stride[axis] + (w->kernel[axis] - 1) * w->dil[axis] + 1;
  int64_t extra = reach - (in + w->pads[axis] + w->pads[axis + 2]);
  return w->pads[axis + 2] + (extra > 0 ? extra : 0);
}

const char *refuse_pool(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  if (n->nout > 1 && n->out[1] >= 0) return "its second output, Indices (where each maximum was), is not run";
  const OnnxWindow *w = &n->win;
  const OnnxValue *x = in_value(m, n, 0), *y = &m->values[n->out[0]];
  for (int axis = 0; axis < 2; axis++) {
    int64_t in = x->dims[2 + axis], out = y->dims[2 + axis];
    if (in + w->pads[axis] + end_pad(w, axis, in, out) > INT32_MAX)
      return arena_printf(a, "the padded input's %s is more than %d", axis ? "width" : "height", INT32_MAX);
    for (int64_t o = 0; o < out; o++)   // its max or mean would be of padding alone: refused, as PyTorch drops it
      if (taps_within(w, axis, o, 0, in) == 0)
        return arena_printf(a, "window %lld along the %s holds only padding", (long long)o, axis ? "width" : "height");
  }
  return NULL;
}

/* The windows of a plane padded with value v: [out_h][out_w][kh][kw] (the
 * views of conv/program.c: a dilated window's taps picked d apart by slide[1, d]). */
static void pool_windows(StrBuf *t, const OnnxWindow *w, const int64_t *in, const int64_t *out, const char *v) {
  sb_printf(t, "plane |> map[pad[%lld, %lld, %s]] |> pad[%lld, %lld, %s]", (long long)w->pads[1],
            (long long)end_pad(w, 1, in[1], out[1]), v, (long long)w->pads[0], (long long)end_pad(w, 0, in[0], out[0]),
            v);
  int64_t ext[2] = {(w->kernel[0] - 1) * w->dil[0] + 1, (w->kernel[1] - 1) * w->dil[1] + 1};
  if (w->dil[1] == 1) sb_printf(t, " |> map[slide[%lld, %lld]]", (long long)ext[1], (long long)w->stride[1]);
  else
    sb_printf(t, "\n    |> map[fun(row) -> row |> slide[%lld, %lld] |> map[fun(win) -> win |> slide[1, %lld] |> join]]",
              (long long)ext[1], (long long)w->stride[1], (long long)w->dil[1]);
  if (w->dil[0] == 1) sb_printf(t, " |> slide[%lld, %lld]", (long long)ext[0], (long long)w->stride[0]);
  else
    sb_printf(t, "\n    |> slide[%lld, %lld] |> map[fun(win) -> win |> slide[1, %lld] |> join]", (long long)ext[0],
              (long long)w->stride[0], (long long)w->dil[0]);
  sb_puts(t, " |> map[transpose]");
}

/* MaxPool: each window reduced by fmax from -FLT_MAX, the padding
 * -FLT_MAX. AveragePool: each window's sum (the padding 0) over the count
 * of its taps in the input, with the declared padding when
 * count_include_pad. The count is the product of two counts along the
 * axes, which depend on the window's place alone: they are computed here and
 * given as two small inputs (ch, cw) zipped with the windows' rows and
 * columns, since the IR has no index to compute them from. */
void program_pool(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxWindow *w = &n->win;
  const OnnxValue *x = in_value(m, n, 0), *y = &m->values[n->out[0]];
  bool avg = is_op(n, "AveragePool");
  int64_t in[2] = {x->dims[2], x->dims[3]}, out[2] = {y->dims[2], y->dims[3]};
  sb_printf(t, "input x: [[[float]%lld]%lld]%lld\n", (long long)in[1], (long long)in[0],
            (long long)(x->dims[0] * x->dims[1]));
  op_add_value(p, "x", host, n->in[0]);
  if (!avg) {
    sb_puts(t, "userfun mx(a: float, b: float): float { return fmax(a, b); }\nout = x |> map[fun(plane) -> ");
    pool_windows(t, w, in, out, MINUS_FLT_MAX);
    sb_printf(t, "]\n  |> mapGlb[2, fun(plane) -> plane |> mapGlb[1, fun(row) -> row |> mapGlb[0, fun(win) ->\n"
              "       reduceSeq[mx](%s, join(win))] |> join]]\n", MINUS_FLT_MAX);
    return;
  }
  const char *names[2] = {"ch", "cw"};
  for (int axis = 0; axis < 2; axis++) {
    float *c = ARENA_ARRAY(a, float, (size_t)out[axis]);
    int64_t lo = w->count_pad ? -w->pads[axis] : 0, hi = in[axis] + (w->count_pad ? w->pads[axis + 2] : 0);
    for (int64_t o = 0; o < out[axis]; o++) c[o] = (float)taps_within(w, axis, o, lo, hi);
    sb_printf(t, "input %s: [float]%lld\n", names[axis], (long long)out[axis]);
    op_add_input(p, names[axis], c);
  }
  sb_puts(t, "userfun add(a: float, b: float): float { return a + b; }\n"
          "userfun mean(s: float, ch: float, cw: float): float { return s / (ch * cw); }\n"
          "out = x |> map[fun(plane) -> ");
  pool_windows(t, w, in, out, "0.0f");
  sb_puts(t, "]\n  |> mapGlb[2, fun(plane) -> zip(plane, ch) |> mapGlb[1, fun(row) -> zip(get[0](row), cw) |> "
          "mapGlb[0, fun(win) ->\n       reduceSeq[add](0.0f, join(get[0](win))) |> mapSeq[fun(s) -> "
          "mean(s, get[1](row), get[1](win))]] |> join]]\n");
}

/* ---- Gemm, MatMul: products of matrices ---- */

static const char MADD[] = "userfun madd(acc: float, x: float, y: float): float { return acc + x * y; }\n";
/* The dot product of rows a and b (each element's work-item's loop over K). */
static const char DOT[] = "reduceSeq[fun(acc, p) -> madd(acc, get[0](p), get[1](p))](0.0f, zip(%s, %s))";

const char *refuse_gemm(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  (void)a, (void)m;
  if (!isfinite(n->alpha) || !isfinite(n->beta)) return "alpha and beta must be finite";
  return NULL;
}

/* Y = alpha A' B' + beta C: one work-item per element, its dot product of a
 * row of A' and a column of B' (transpose views where the layout is the
 * other one), then alpha s + beta c, c the element of C broadcast (zipped
 * with the rows, and each row's with the columns). */
void program_gemm(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  (void)a;
  const OnnxValue *A = in_value(m, n, 0), *B = in_value(m, n, 1), *Y = &m->values[n->out[0]];
  bool has_c = n->nin > 2 && n->in[2] >= 0;
  sb_puts(t, MADD);
  sb_printf(t, "userfun gemm(s: float%s): float { return ", has_c ? ", c: float" : "");
  sb_float_literal(t, n->alpha);
  if (has_c) sb_puts(t, " * s + "), sb_float_literal(t, n->beta), sb_puts(t, " * c; }\n");
  else sb_puts(t, " * s; }\n");
  sb_printf(t, "input A: [[float]%lld]%lld\ninput B: [[float]%lld]%lld\n", (long long)A->dims[1], (long long)A->dims[0],
            (long long)B->dims[1], (long long)B->dims[0]);
  op_add_value(p, "A", host, n->in[0]), op_add_value(p, "B", host, n->in[1]);
  const char *rows = n->trans_a ? "transpose(A)" : "A", *cols = n->trans_b ? "B" : "transpose(B)";
  if (!has_c) {
    sb_printf(t, "out = %s |> mapGlb[1, fun(row) ->\n  %s |> mapGlb[0, fun(col) ->\n    ", rows, cols);
    sb_printf(t, DOT, "row", "col");
    sb_puts(t, " |> mapSeq[gemm]] |> join]\n");
    return;
  }
  StrBuf c;
  sb_init(&c);
  op_broadcast(t, &c, "C", in_value(m, n, 2), 2, Y->dims);
  op_add_value(p, "C", host, n->in[2]);
  sb_printf(t, "out = zip(%s, %s) |> mapGlb[1, fun(rc) ->\n  zip(%s, get[1](rc)) |> mapGlb[0, fun(bc) ->\n    ", rows,
            sb_str(&c), cols);
  sb_printf(t, DOT, "get[0](rc)", "get[0](bc)");
  sb_puts(t, " |> mapSeq[fun(s) -> gemm(s, get[1](bc))]] |> join]\n");
  sb_free(&c);
}

/* The batch dimensions broadcast (as views) and joined into one, each
 * batch's product one work-item per element: [batch][M][N]. */
void program_matmul(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxValue *A = in_value(m, n, 0), *B = in_value(m, n, 1), *Y = &m->values[n->out[0]];
  int r = Y->rank < 3 ? 3 : Y->rank;   // one batch dimension at least (of 1)
  int64_t da[ONNX_MAX_RANK + 1], db[ONNX_MAX_RANK + 1];
  for (int i = 0; i < r; i++) {   // the output's batch dimensions, then each input's own matrix
    int k = i - (r - Y->rank);
    da[i] = db[i] = k >= 0 ? Y->dims[k] : 1;
  }
  da[r - 1] = A->dims[A->rank - 1], db[r - 2] = B->dims[B->rank - 2];
  sb_puts(t, MADD);
  StrBuf va, vb;
  sb_init(&va), sb_init(&vb);
  op_broadcast(t, &va, "A", A, r, da);
  op_broadcast(t, &vb, "B", B, r, db);
  for (int i = 0; i < r - 3; i++) sb_puts(&va, " |> join"), sb_puts(&vb, " |> join");
  op_add_value(p, "A", host, n->in[0]), op_add_value(p, "B", host, n->in[1]);
  sb_printf(t, "out = zip(%s, %s) |> mapGlb[2, fun(ab) ->\n  get[0](ab) |> mapGlb[1, fun(row) -> "
            "transpose(get[1](ab)) |> mapGlb[0, fun(col) ->\n    ", sb_str(&va), sb_str(&vb));
  sb_printf(t, DOT, "row", "col");
  sb_puts(t, "] |> join]]\n");
  sb_free(&va), sb_free(&vb);
  (void)a;
}

/* ---- BatchNormalization that no convolution took ---- */

/* After an Add, a Concat or a pooling (a pre-activation block): y = x s + t
 * per channel, s = scale / sqrt(var + eps) and t = B - mean s computed here
 * in double (as net.c folds a convolution's), each broadcast over the batch
 * and the planes by views. */
void program_batchnorm(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxValue *x = in_value(m, n, 0);
  int64_t c = x->dims[1];
  float *sc = ARENA_ARRAY(a, float, (size_t)c), *sh = ARENA_ARRAY(a, float, (size_t)c);
  const float *scale = host[n->in[1]], *bias = host[n->in[2]], *mean = host[n->in[3]], *var = host[n->in[4]];
  for (int64_t k = 0; k < c; k++) {
    double f = (double)scale[k] / sqrt((double)var[k] + (double)n->eps);
    sc[k] = (float)f, sh[k] = (float)((double)bias[k] - (double)mean[k] * f);
  }
  OnnxValue per = {.rank = x->rank - 1, .dims = {c}};   // [C, 1, ...]: numpy's rule puts the batch before it
  for (int i = 1; i < per.rank; i++) per.dims[i] = 1;
  sb_printf(t, "userfun bn(v: float, s: float, t: float): float { return v * s + t; }\ninput x: [float]%lld\n",
            (long long)onnx_elems(x));
  StrBuf vs, vt;
  sb_init(&vs), sb_init(&vt);
  op_broadcast(t, &vs, "s", &per, x->rank, x->dims);
  op_broadcast(t, &vt, "t", &per, x->rank, x->dims);
  for (int i = 1; i < x->rank; i++) sb_puts(&vs, " |> join"), sb_puts(&vt, " |> join");
  sb_printf(t, "out = zip(x, %s, %s) |> mapGlb[0, bn]\n", sb_str(&vs), sb_str(&vt));
  sb_free(&vs), sb_free(&vt);
  op_add_value(p, "x", host, n->in[0]), op_add_input(p, "s", sc), op_add_input(p, "t", sh);
}

/* ---- Softmax ---- */

/* The input as [outer][n][inner], n the length normalized along (opset 13
 * on: the axis; before: every dimension from the axis on, inner 1). Each of
 * the outer x inner rows, seen through a transpose, is one work-group's
 * (op_fold_row): its maximum, then the sum of exp(v - max) from it, each
 * kept in local memory for the group, then each element's
 * exp(v - max) / sum written back through the inverse transpose. */
void program_softmax(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxValue *x = in_value(m, n, 0);
  bool flat = m->opset < 13;
  int64_t outer = 1, len = 1, inner = 1;
  for (int i = 0; i < x->rank; i++)
    if (i < n->axis) outer *= x->dims[i];
    else if (i == n->axis || flat) len *= x->dims[i];
    else inner *= x->dims[i];
  int64_t lanes = op_lanes(len, true);
  sb_printf(t, "userfun mx(a: float, b: float): float { return fmax(a, b); }\n"
            "userfun add(a: float, b: float): float { return a + b; }\n"
            "userfun addexp(acc: float, v: float, m: float): float { return acc + exp(v - m); }\n"
            "userfun norm(v: float, m: float, s: float): float { return exp(v - m) / s; }\n"
            "input x: [[[float]%lld]%lld]%lld\nworkgroup %lld\n"
            "out = x |> map[transpose] |> join |> mapWrg[0, fun(row) ->\n  ",
            (long long)inner, (long long)len, (long long)outer, (long long)lanes);
  // the padding is -FLT_MAX, which neither the maximum nor exp(v - m) sees
  op_fold_row(t, "row", len, lanes, "mx", MINUS_FLT_MAX, MINUS_FLT_MAX);
  sb_printf(t, " |> toLocal[mapLcl[0, fun(ps) -> reduceSeq[mx](%s, ps)]] |> join |> mapSeq[fun(m) ->\n    ",
            MINUS_FLT_MAX);
  op_fold_row(t, "row", len, lanes, "fun(acc, v) -> addexp(acc, v, m)", "0.0f", MINUS_FLT_MAX);
  sb_printf(t, " |> toLocal[mapLcl[0, fun(ps) -> reduceSeq[add](0.0f, ps)]] |> join |> mapSeq[fun(s) ->\n"
            "      row |> mapLcl[0, fun(v) -> norm(v, m, s)]] |> join] |> join] |> split[%lld] |> map[transpose]\n",
            (long long)inner);
  op_add_value(p, "x", host, n->in[0]);
  (void)a;
}
