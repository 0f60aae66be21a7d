/* fold.c: the shape arithmetic folded at import (the fold column of the
 * operator table, ops.h). PyTorch's exporters write a static shape as a
 * small computation on int64 tensors: x.view(x.size(0), -1) is Shape ->
 * Gather -> Unsqueeze -> Concat -> Reshape. When a node's inputs are all
 * constants (initializers, or for Shape a value whose shape import knows),
 * its outputs are computed here and made initializers (ld_add_initializer
 * of a TensorProto built in the arena), and the node is not kept: read_graph
 * (onnx.c) calls the row's fold after its shape rule, and fold_int64 before
 * a node's row is looked up, for the operators of its own table (Add, Sub,
 * Mul, Div... of int64 constants, whose rows are the float elementwise
 * ones). */
#ifdef CONVGEN_ONNX
#include "onnx/load.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DT_FLOAT = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, DT_INT64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
       DT_INT32 = ONNX__TENSOR_PROTO__DATA_TYPE__INT32, DT_DOUBLE = ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE };

/* A constant's elements as doubles (int64 shapes are exact in them up to
 * 2^53, far past ONNX_MAX_DIM) with its type: what every fold computes on. */
typedef struct Const {
  int type;   // DT_FLOAT or DT_INT64 (an int32 or double constant read as its nearest)
  int rank;
  int64_t dims[ONNX_MAX_RANK];
  int64_t n;
  double *v;
} Const;

enum { FOLD_MAX_INT64 = 1 << 16 };   // the shape arithmetic's tensors are small: fold_int64 leaves larger ones

/* Value v, an initializer, as a Const; false (no error) when its type is
 * not one a fold reads or it does not hold its elements. */
static bool read_const(Load *L, int v, Const *c) {
  const Onnx__TensorProto *t = v >= 0 ? L->init[v] : NULL;
  if (!t || !t->has_data_type) return false;
  const OnnxValue *val = &L->m->values[v];
  *c = (Const){.rank = val->rank, .n = onnx_elems(val)};
  memcpy(c->dims, val->dims, sizeof c->dims);
  c->v = ARENA_ARRAY(L->a, double, (size_t)c->n + 1);
  switch (t->data_type) {
  case DT_FLOAT:
    c->type = DT_FLOAT;
    if (!val->data) return false;
    for (int64_t i = 0; i < c->n; i++) c->v[i] = val->data[i];
    return true;
  case DT_INT64:
    c->type = DT_INT64;
    for (int64_t i = 0; i < c->n; i++) {
      int64_t x;
      if (!ld_init_i64(t, i, &x)) return false;
      c->v[i] = (double)x;
    }
    return true;
  case DT_INT32:
    c->type = DT_INT64;
    if (t->n_int32_data != (size_t)c->n) return false;   // (raw int32 data is not read)
    for (int64_t i = 0; i < c->n; i++) c->v[i] = t->int32_data[i];
    return true;
  case DT_DOUBLE:
    c->type = DT_FLOAT;
    if (t->n_double_data != (size_t)c->n) return false;
    for (int64_t i = 0; i < c->n; i++) c->v[i] = t->double_data[i];
    return true;
  default: return false;
  }
}

/* Output k as the constant c: a TensorProto of its type made in the arena,
 * the value's shape (set by the shape rule, when there was one) forgotten
 * so that the initializer defines it. */
static bool put_const(Load *L, int k, const Const *c) {
  if (k >= L->node->nout || L->node->out[k] < 0) return true;
  int64_t n;
  if (!onnx_dims_elems(c->dims, c->rank, &n) || n != c->n)
    return ld_error(L, "a folded output of %lld elements is past what convgen takes", (long long)c->n);
  Onnx__TensorProto *t = ARENA_NEW(L->a, Onnx__TensorProto);
  onnx__tensor_proto__init(t);
  int v = L->node->out[k];
  t->name = (char *)L->m->values[v].name;
  t->has_data_type = true, t->data_type = c->type;
  t->n_dims = (size_t)c->rank;
  t->dims = ARENA_ARRAY(L->a, int64_t, (size_t)c->rank + 1);
  memcpy(t->dims, c->dims, sizeof *t->dims * (size_t)c->rank);
  if (c->type == DT_FLOAT) {
    t->n_float_data = (size_t)n;
    t->float_data = ARENA_ARRAY(L->a, float, (size_t)n + 1);
    for (int64_t i = 0; i < n; i++) t->float_data[i] = (float)c->v[i];
  } else {
    t->n_int64_data = (size_t)n;
    t->int64_data = ARENA_ARRAY(L->a, int64_t, (size_t)n + 1);
    for (int64_t i = 0; i < n; i++) {
      double x = c->v[i];
      if (!(x >= -9.2e18 && x <= 9.2e18)) return ld_error(L, "a folded int64 element (%g) is out of range", x);
      t->int64_data[i] = (int64_t)x;
    }
  }
  L->known[v] = false;
  L->m->values[v].rank = 0;
  return ld_add_initializer(L, v, t, L->m->values[v].name);
}

static Const new_const(Load *L, int type, int rank, const int64_t *dims) {
  Const c = {.type = type, .rank = rank, .n = 1};
  for (int i = 0; i < rank; i++) c.dims[i] = dims[i], c.n *= dims[i];   // (dims within the bounds: set_out checked)
  c.v = ARENA_ARRAY(L->a, double, (size_t)c.n + 1);
  return c;
}

/* Input k as a constant, or the node's error saying it must be one. */
static bool need_const(Load *L, int k, const char *what, Const *c) {
  if (L->node->in[k] < 0 || !L->init[L->node->in[k]])
    return ld_error(L, "%s ('%s') must be a constant (an initializer, or computed from them at import): %s is only "
                       "computed at import, as the shape arithmetic exporters write", what,
                    L->node->in[k] >= 0 ? ld_in(L, k)->name : "", L->node->op);
  if (!read_const(L, L->node->in[k], c))
    return ld_error(L, "%s ('%s') is a constant of a type import does not compute with (float, double, int32 and "
                       "int64 are)", what, ld_in(L, k)->name);
  return true;
}

/* ---- Folds run after the row's shape rule (the output's shape is set) ---- */

static const OnnxValue *out_value(Load *L, int k) { return &L->m->values[L->node->out[k]]; }

/* Squeeze, Unsqueeze of a constant: the same elements, the shape the rule
 * computed (an initializer shares the tensor's data under new dims). */
bool fold_reshape_view(Load *L) {
  const Onnx__TensorProto *src = L->init[L->node->in[0]];
  const OnnxValue *y = out_value(L, 0);
  Onnx__TensorProto *t = ARENA_NEW(L->a, Onnx__TensorProto);
  *t = *src;
  t->name = (char *)y->name;
  t->n_dims = (size_t)y->rank;
  t->dims = ARENA_ARRAY(L->a, int64_t, (size_t)y->rank + 1);
  memcpy(t->dims, y->dims, sizeof *t->dims * (size_t)y->rank);
  int v = L->node->out[0];
  L->known[v] = false;
  return ld_add_initializer(L, v, t, y->name);
}

/* Shape: the input's dimensions from start to end (opset 15; clamped). */
bool fold_shape(Load *L) {
  const OnnxValue *x = ld_in(L, 0), *y = out_value(L, 0);
  int64_t start = ld_attr_int(L->np, "start", 0);
  if (start < 0) start += x->rank;
  if (start < 0) start = 0;
  if (start > x->rank) start = x->rank;
  Const c = new_const(L, DT_INT64, 1, y->dims);
  for (int64_t i = 0; i < c.n; i++) c.v[i] = (double)x->dims[start + i];
  return put_const(L, 0, &c);
}

/* Gather of constant data (float or int64) by constant indices along axis:
 * out[outer][index...][inner] = data[outer][indices[index]][inner]. */
bool fold_gather(Load *L) {
  Const d, ix;
  if (!need_const(L, 0, "data", &d) || !need_const(L, 1, "indices", &ix)) return false;
  int axis = L->node->axis;
  int64_t outer = 1, inner = 1, len = d.dims[axis];
  for (int i = 0; i < d.rank; i++)
    if (i < axis) outer *= d.dims[i];
    else if (i > axis) inner *= d.dims[i];
  const OnnxValue *y = out_value(L, 0);
  Const c = new_const(L, d.type, y->rank, y->dims);
  for (int64_t j = 0; j < ix.n; j++) {
    double q = ix.v[j];
    int64_t k = (int64_t)q;
    if (k < 0) k += len;
    if (q != floor(q) || k < 0 || k >= len)
      return ld_error(L, "index %g is outside the %lld elements of axis %d", q, (long long)len, axis);
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) c.v[(o * ix.n + j) * inner + i] = d.v[(o * len + k) * inner + i];
  }
  return put_const(L, 0, &c);
}

/* ConstantOfShape: value's one element (float 0 when absent) everywhere. */
bool fold_constant_of_shape(Load *L) {
  const Onnx__AttributeProto *at = ld_attr(L->np, "value");
  double v = 0;
  int type = DT_FLOAT;
  if (at && at->t) {
    float f;
    int64_t i;
    if (ld_init_f32(at->t, &f)) v = f;
    else if (ld_init_i64(at->t, 0, &i)) v = (double)i, type = DT_INT64;
    else if (at->t->has_data_type && at->t->data_type == DT_INT32 && at->t->n_int32_data == 1)
      v = at->t->int32_data[0], type = DT_INT64;
    else return ld_error(L, "value must be one float or int64 element");
  }
  const OnnxValue *y = out_value(L, 0);
  Const c = new_const(L, type, y->rank, y->dims);
  for (int64_t i = 0; i < c.n; i++) c.v[i] = v;
  return put_const(L, 0, &c);
}

/* Cast of a constant to float or int64 (a float to an int64 truncates, as
 * C and onnxruntime do), or to float16 (each value rounded to half, kept as
 * the float32 it is: a model in float16 is computed in fp32). */
bool fold_cast(Load *L) {
  Const x;
  if (!need_const(L, 0, "input", &x)) return false;
  int64_t to = ld_attr_int(L->np, "to", 0);
  if (to == DT_INT64 || to == DT_INT32) {
    for (int64_t i = 0; i < x.n; i++) x.v[i] = trunc(x.v[i]);
    x.type = DT_INT64;
  } else if (to == DT_FLOAT || to == DT_DOUBLE) {
    x.type = DT_FLOAT;
  } else if (to == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16) {   // rounded to half, held as the float it is
    for (int64_t i = 0; i < x.n; i++) x.v[i] = elem_round(elem_type(ELEM_FP16), x.v[i]);
    x.type = DT_FLOAT;
  } else {
    return ld_error(L, "a cast to data type %lld is not claimed (float, float16, double, int32 and int64 are)",
                    (long long)to);
  }
  if (to == DT_INT32) x.type = DT_INT64;   // (int32 kept as int64: what every rule reads)
  return put_const(L, 0, &x);
}

/* Range: start, start + delta, ... short of limit (the count the rule set). */
bool fold_range(Load *L) {
  Const s, d;
  if (!need_const(L, 0, "start", &s) || !need_const(L, 2, "delta", &d)) return false;
  const OnnxValue *y = out_value(L, 0);
  Const c = new_const(L, s.type, 1, y->dims);
  for (int64_t i = 0; i < c.n; i++) c.v[i] = s.v[0] + (double)i * d.v[0];
  return put_const(L, 0, &c);
}

/* Slice of a constant: the starts and steps the rule kept (node->layout). */
bool fold_slice(Load *L) {
  Const x;
  if (!need_const(L, 0, "data", &x)) return false;
  const OnnxLayout *s = L->node->layout;
  const OnnxValue *y = out_value(L, 0);
  Const c = new_const(L, x.type, y->rank, y->dims);
  for (int64_t o = 0; o < c.n; o++) {
    int64_t rest = o, at = 0, stride = 1;
    for (int i = y->rank - 1; i >= 0; i--) {
      int64_t j = rest % y->dims[i];
      rest /= y->dims[i];
      at += (s->a[i] + j * s->b[i]) * stride;
      stride *= x.dims[i];
    }
    c.v[o] = x.v[at];
  }
  return put_const(L, 0, &c);
}

/* ---- fold_int64: operators on int64 constants, before any row ---- */

static double op_add(double a, double b) { return a + b; }
static double op_sub(double a, double b) { return a - b; }
static double op_mul(double a, double b) { return a * b; }
static double op_div(double a, double b) { return trunc(a / b); }   // (b checked not 0)
static double op_max(double a, double b) { return a > b ? a : b; }
static double op_min(double a, double b) { return a < b ? a : b; }

static const struct {
  const char *op;
  double (*f)(double, double);   // a binary operator with numpy's broadcasting, or NULL: Concat
} INT64_FOLDS[] = {
    {"Add", op_add}, {"Sub", op_sub}, {"Mul", op_mul}, {"Div", op_div},
    {"Max", op_max}, {"Min", op_min}, {"Concat", NULL},
};

static int fold_concat(Load *L, const Const *in, int nin) {
  const Onnx__AttributeProto *ax = ld_attr(L->np, "axis");
  int r = in[0].rank;
  if (!ax || !ax->has_i) return ld_error(L, "axis is required"), -1;
  int64_t axis = ax->i < 0 ? ax->i + r : ax->i;
  if (axis < 0 || axis >= r) return ld_error(L, "axis %lld is outside rank %d", (long long)ax->i, r), -1;
  int64_t dims[ONNX_MAX_RANK], outer = 1, inner = 1;
  memcpy(dims, in[0].dims, sizeof dims);
  dims[axis] = 0;
  for (int k = 0; k < nin; k++) {
    if (in[k].rank != r) return ld_error(L, "input %d has rank %d, input 0 %d", k, in[k].rank, r), -1;
    for (int i = 0; i < r; i++)
      if (i != axis && in[k].dims[i] != in[0].dims[i]) return ld_error(L, "input %d differs in dimension %d", k, i), -1;
    dims[axis] += in[k].dims[axis];
  }
  for (int i = 0; i < r; i++)
    if (i < axis) outer *= dims[i];
    else if (i > axis) inner *= dims[i];
  Const c = new_const(L, DT_INT64, r, dims);
  int64_t at = 0;
  for (int64_t o = 0; o < outer; o++)
    for (int k = 0; k < nin; k++) {
      int64_t part = in[k].dims[axis] * inner;
      memcpy(c.v + at, in[k].v + o * part, sizeof *c.v * (size_t)part);
      at += part;
    }
  return put_const(L, 0, &c) ? 1 : -1;
}

int fold_int64(Load *L) {
  const OnnxNode *n = L->node;
  int f = -1;
  for (int i = 0; i < (int)(sizeof INT64_FOLDS / sizeof *INT64_FOLDS) && f < 0; i++)
    if (strcmp(INT64_FOLDS[i].op, n->op) == 0) f = i;
  if (f < 0 || n->nin < 1 || n->nout != 1) return 0;
  Const *in = ARENA_ARRAY(L->a, Const, (size_t)n->nin);
  for (int k = 0; k < n->nin; k++) {   // every input an int64 constant, and small
    int v = n->in[k];
    if (v < 0 || !L->init[v] || !L->init[v]->has_data_type || L->init[v]->data_type != DT_INT64 ||
        onnx_elems(&L->m->values[v]) > FOLD_MAX_INT64 || !read_const(L, v, &in[k]))
      return 0;
  }
  if (!INT64_FOLDS[f].f) return fold_concat(L, in, n->nin);
  if (n->nin != 2) return ld_error(L, "takes 2 inputs, has %d", n->nin), -1;
  const Const *a = &in[0], *b = &in[1];
  int r = a->rank > b->rank ? a->rank : b->rank;
  int64_t dims[ONNX_MAX_RANK];
  for (int i = 0; i < r; i++) {   // numpy's broadcasting
    int ia = i - (r - a->rank), ib = i - (r - b->rank);
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    if (da != db && da != 1 && db != 1)
      return ld_error(L, "shapes do not broadcast: dimension %d is %lld and %lld", i, (long long)da, (long long)db), -1;
    dims[i] = da == 1 ? db : da;
  }
  Const c = new_const(L, DT_INT64, r, dims);
  for (int64_t o = 0; o < c.n; o++) {
    int64_t rest = o, ia = 0, ib = 0, sa = 1, sb = 1;
    for (int i = r - 1; i >= 0; i--) {
      int64_t j = rest % dims[i];
      rest /= dims[i];
      int ka = i - (r - a->rank), kb = i - (r - b->rank);
      if (ka >= 0) ia += (a->dims[ka] == 1 ? 0 : j) * sa, sa *= a->dims[ka];
      if (kb >= 0) ib += (b->dims[kb] == 1 ? 0 : j) * sb, sb *= b->dims[kb];
    }
    if (INT64_FOLDS[f].f == op_div && b->v[ib] == 0) return ld_error(L, "an int64 division by zero"), -1;
    c.v[o] = INT64_FOLDS[f].f(a->v[ia], b->v[ib]);
  }
  return put_const(L, 0, &c) ? 1 : -1;
}

#endif
