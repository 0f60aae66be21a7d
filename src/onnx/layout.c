/* layout.c: the layout operators (docs/onnx.md, "Layout operators and the
 * shape arithmetic"): their shape rules (import, inside the ONNX reader) and
 * their programs of the IR (infer). Squeeze and Unsqueeze are views (the
 * same elements under another shape: nothing runs); Transpose, Slice, Pad
 * and Expand read their input through a chain of views (transpose, pad with
 * negative amounts to crop, slide to step, gather to reverse or reflect,
 * pad[.., clamp] to repeat an edge or broadcast), flattened and copied by
 * one kernel. The shape arithmetic's rules (Shape, Gather, ConstantOfShape,
 * Cast, Range) set the outputs' shapes that their folds (fold.c) fill. */
#include "onnx/rows.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifdef CONVGEN_ONNX
#include "onnx/load.h"

/* Input k, an int64 constant of at most max elements, into out: its count,
 * or -1 with the node's error. */
static int const_ints(Load *L, int k, const char *what, int64_t *out, int max) {
  if (!ld_need_init(L, k, what)) return -1;
  const OnnxValue *v = ld_in(L, k);
  int64_t n = onnx_elems(v);
  if (v->rank > 1) return ld_error(L, "%s must be 1-D (got rank %d)", what, v->rank), -1;
  if (n > max) return ld_error(L, "%s has %lld values, more than %d", what, (long long)n, max), -1;
  for (int64_t i = 0; i < n; i++)
    if (!ld_init_i64(L->init[L->node->in[k]], i, &out[i])) return ld_error(L, "%s is not an int64 tensor", what), -1;
  return (int)n;
}

/* The axes of Squeeze and Unsqueeze: the input (opset 13 on) or the
 * attribute (before); their count, -1 when absent, -2 on an error. */
static int axes_of(Load *L, int64_t *axes) {
  if (ld_has_input(L, 1)) {
    int n = const_ints(L, 1, "axes", axes, ONNX_MAX_RANK);
    return n < 0 ? -2 : n;
  }
  int n = ld_attr_ints(L->np, "axes", axes, ONNX_MAX_RANK);
  if (n > ONNX_MAX_RANK) return ld_error(L, "axes has %d values, more than %d", n, ONNX_MAX_RANK), -2;
  return n;
}

/* Axis ax of rank r counted from 0 into *out (negative counts from the end). */
static bool axis_in(Load *L, int64_t ax, int r, int *out) {
  int64_t a = ax < 0 ? ax + r : ax;
  if (a < 0 || a >= r) return ld_error(L, "axis %lld is outside rank %d", (long long)ax, r);
  return *out = (int)a, true;
}

bool shape_squeeze(Load *L) {
  if (!ld_need_inputs(L, 1, 2)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int64_t axes[ONNX_MAX_RANK], out[ONNX_MAX_RANK];
  int na = axes_of(L, axes), r = 0;
  if (na == -2) return false;
  bool drop[ONNX_MAX_RANK] = {0};
  for (int i = 0; i < x->rank && na < 0; i++) drop[i] = x->dims[i] == 1;   // no axes: every dimension of 1
  for (int k = 0; k < na; k++) {
    int a = 0;
    if (!axis_in(L, axes[k], x->rank, &a)) return false;
    if (drop[a]) return ld_error(L, "axis %d is given twice", a);
    if (x->dims[a] != 1) return ld_error(L, "axis %d has %lld elements, not 1", a, (long long)x->dims[a]);
    drop[a] = true;
  }
  for (int i = 0; i < x->rank; i++)
    if (!drop[i]) out[r++] = x->dims[i];
  return ld_set_out(L, 0, r, out);
}

bool shape_unsqueeze(Load *L) {
  if (!ld_need_inputs(L, 1, 2)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int64_t axes[ONNX_MAX_RANK], out[ONNX_MAX_RANK];
  int na = axes_of(L, axes);
  if (na == -2) return false;
  if (na < 0) return ld_error(L, "axes is required");
  int r = x->rank + na;
  if (r > ONNX_MAX_RANK) return ld_error(L, "the output would have rank %d, more than %d", r, ONNX_MAX_RANK);
  bool add[ONNX_MAX_RANK] = {0};
  for (int k = 0; k < na; k++) {
    int a = 0;
    if (!axis_in(L, axes[k], r, &a)) return false;
    if (add[a]) return ld_error(L, "axis %d is given twice", a);
    add[a] = true;
  }
  for (int i = 0, j = 0; i < r; i++) out[i] = add[i] ? 1 : x->dims[j++];
  return ld_set_out(L, 0, r, out);
}

bool shape_transpose(Load *L) {
  if (!ld_need_inputs(L, 1, 1)) return false;
  const OnnxValue *x = ld_in(L, 0);
  OnnxLayout *t = ARENA_NEW(L->a, OnnxLayout);
  int np = ld_attr_ints(L->np, "perm", t->a, ONNX_MAX_RANK);
  if (np < 0)
    for (int i = 0; i < x->rank; i++) t->a[i] = x->rank - 1 - i;   // the dimensions reversed
  else if (np != x->rank) return ld_error(L, "perm has %d values for rank %d", np, x->rank);
  bool seen[ONNX_MAX_RANK] = {0};
  int64_t out[ONNX_MAX_RANK];
  for (int i = 0; i < x->rank; i++) {
    if (t->a[i] < 0 || t->a[i] >= x->rank || seen[t->a[i]]) return ld_error(L, "perm is not a permutation of 0 to %d", x->rank - 1);
    seen[t->a[i]] = true;
    out[i] = x->dims[t->a[i]];
  }
  L->node->layout = t;
  return ld_set_out(L, 0, x->rank, out);
}

/* Slice: starts, ends, axes and steps as inputs (opset 10 on) or attributes
 * (before, no steps), each constant; ONNX's clamping: a negative start or
 * end counts from the end, then both are clamped to [0, dim] (a positive
 * step) or [0, dim - 1] and [-1, dim - 1] (a negative one). */
bool shape_slice(Load *L) {
  bool inputs = L->m->opset >= 10;
  if (!ld_need_inputs(L, inputs ? 3 : 1, inputs ? 5 : 1)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int r = x->rank;
  int64_t st[ONNX_MAX_RANK], en[ONNX_MAX_RANK], ax[ONNX_MAX_RANK], sp[ONNX_MAX_RANK];
  int ns, ne, na = -1, nsp = -1;
  if (inputs) {
    ns = const_ints(L, 1, "starts", st, ONNX_MAX_RANK), ne = const_ints(L, 2, "ends", en, ONNX_MAX_RANK);
    if (ns < 0 || ne < 0) return false;
    if (ld_has_input(L, 3) && (na = const_ints(L, 3, "axes", ax, ONNX_MAX_RANK)) < 0) return false;
    if (ld_has_input(L, 4) && (nsp = const_ints(L, 4, "steps", sp, ONNX_MAX_RANK)) < 0) return false;
  } else {
    ns = ld_attr_ints(L->np, "starts", st, ONNX_MAX_RANK), ne = ld_attr_ints(L->np, "ends", en, ONNX_MAX_RANK);
    na = ld_attr_ints(L->np, "axes", ax, ONNX_MAX_RANK);
    if (ns < 0 || ne < 0) return ld_error(L, "starts and ends are required");
  }
  if (ns != ne || ns > r || (na >= 0 && na != ns) || (nsp >= 0 && nsp != ns))
    return ld_error(L, "starts, ends, axes and steps must have one value each per sliced axis (got %d, %d, %d, %d "
                       "for rank %d)", ns, ne, na, nsp, r);
  OnnxLayout *s = ARENA_NEW(L->a, OnnxLayout);
  int64_t out[ONNX_MAX_RANK];
  bool seen[ONNX_MAX_RANK] = {0};
  for (int i = 0; i < r; i++) s->a[i] = 0, s->b[i] = 1, out[i] = x->dims[i];
  for (int k = 0; k < ns; k++) {
    int a = k;
    if (na >= 0 && !axis_in(L, ax[k], r, &a)) return false;
    if (seen[a]) return ld_error(L, "axis %d is sliced twice", a);
    seen[a] = true;
    int64_t d = x->dims[a], step = nsp >= 0 ? sp[k] : 1, b = st[k], e = en[k];
    if (step == 0) return ld_error(L, "a step of 0");
    if (step == INT64_MIN) step = -INT64_MAX;
    if (b < 0) b += d;
    if (e < 0) e += d;
    if (step > 0) {
      b = b < 0 ? 0 : b > d ? d : b;
      e = e < 0 ? 0 : e > d ? d : e;
    } else {
      b = b < 0 ? 0 : b > d - 1 ? d - 1 : b;
      e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
    }
    int64_t span = step > 0 ? e - b : b - e, by = step > 0 ? step : -step;
    out[a] = span <= 0 ? 0 : (span - 1) / by + 1;
    s->a[a] = out[a] ? b : 0, s->b[a] = step;
  }
  L->node->layout = s;
  return ld_set_out(L, 0, r, out);
}

/* Split: the input cut along axis into the outputs, their sizes the split
 * input (opset 13 on) or attribute (before), else num_outputs (opset 18) or
 * the outputs' count, equal parts (the last one smaller). Each output's
 * place in the input is its own Slice's layout (OnnxNode.layout[k], a step
 * of 1): import then makes one node per output (the row's per_output), each
 * run by program_slice. */
bool shape_split(Load *L) {
  if (!ld_need_inputs(L, 1, 2)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int r = x->rank, nout = L->node->nout, axis = 0;
  if (nout < 1 || nout > OP_MAX_PROGRAM_INPUTS)
    return ld_error(L, "%d outputs: 1 to %d are taken", nout, OP_MAX_PROGRAM_INPUTS);
  if (!axis_in(L, ld_attr_int(L->np, "axis", 0), r, &axis)) return false;
  int64_t *sizes = ARENA_ARRAY(L->a, int64_t, (size_t)nout + 1), d = x->dims[axis];
  int n = ld_has_input(L, 1) ? const_ints(L, 1, "split", sizes, nout + 1) : ld_attr_ints(L->np, "split", sizes, nout + 1);
  if (ld_has_input(L, 1) && n < 0) return false;
  if (n >= 0 && n != nout) return ld_error(L, "split gives %d sizes for %d outputs", n, nout);
  if (n < 0) {   // equal parts: ceil(d / nout) each, the last what is left
    int64_t parts = ld_attr_int(L->np, "num_outputs", nout);
    if (parts != nout) return ld_error(L, "num_outputs is %lld, the node has %d outputs", (long long)parts, nout);
    int64_t each = (d + nout - 1) / nout;
    for (int k = 0; k < nout; k++) sizes[k] = each * (k + 1) <= d ? each : d > each * k ? d - each * k : 0;
  }
  int64_t at = 0;
  for (int k = 0; k < nout; k++) {
    if (sizes[k] < 0 || sizes[k] > d - at)
      return ld_error(L, "the split sizes do not add up to the input's %lld along axis %d", (long long)d, axis);
    at += sizes[k];
  }
  if (at != d) return ld_error(L, "the split sizes add up to %lld, the input has %lld along axis %d", (long long)at,
                               (long long)d, axis);
  OnnxLayout *s = ARENA_ARRAY(L->a, OnnxLayout, (size_t)nout);
  at = 0;
  for (int k = 0; k < nout; k++) {
    int64_t out[ONNX_MAX_RANK];
    s[k].mode = PAD_MODE_CONSTANT, s[k].value = 0;
    for (int i = 0; i < r; i++) s[k].a[i] = 0, s[k].b[i] = 1, out[i] = x->dims[i];
    out[axis] = sizes[k], s[k].a[axis] = sizes[k] ? at : 0, at += sizes[k];
    if (!ld_set_out(L, k, r, out)) return false;
  }
  L->node->layout = s;
  return true;
}

/* Pad: pads (2 per dimension, or per axis given, opset 18) as the input
 * (opset 11 on) or the attribute, each constant; the constant value as
 * input 2 or the attribute value; mode constant, edge or reflect. */
bool shape_pad(Load *L) {
  bool inputs = L->m->opset >= 11;
  if (!ld_need_inputs(L, inputs ? 2 : 1, inputs ? 4 : 1)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int r = x->rank;
  OnnxLayout *p = ARENA_NEW(L->a, OnnxLayout);
  const char *mode = ld_attr_string(L->a, L->np, "mode", "constant");
  if (strcmp(mode, "constant") == 0) p->mode = PAD_MODE_CONSTANT;
  else if (strcmp(mode, "edge") == 0) p->mode = PAD_MODE_EDGE;
  else if (strcmp(mode, "reflect") == 0) p->mode = PAD_MODE_REFLECT;
  else return ld_error(L, "mode '%s' is not claimed (constant, edge and reflect are)", mode);
  int64_t pads[2 * ONNX_MAX_RANK], ax[ONNX_MAX_RANK];
  int np, na = -1;
  if (inputs) {
    if ((np = const_ints(L, 1, "pads", pads, 2 * ONNX_MAX_RANK)) < 0) return false;
    if (ld_has_input(L, 2)) {
      if (!L->init[L->node->in[2]])
        return ld_error(L, "constant_value ('%s') must be a constant: it is compiled into the program", ld_in(L, 2)->name);
      if (onnx_elems(ld_in(L, 2)) != 1 || !ld_init_f32(L->init[L->node->in[2]], &p->value))
        return ld_error(L, "constant_value must be one float");
    }
    if (ld_has_input(L, 3) && (na = const_ints(L, 3, "axes", ax, ONNX_MAX_RANK)) < 0) return false;
  } else {
    if ((np = ld_attr_ints(L->np, "pads", pads, 2 * ONNX_MAX_RANK)) < 0) return ld_error(L, "pads is required");
    p->value = ld_attr_float(L->np, "value", 0.0f);
  }
  int n = na >= 0 ? na : r;
  if (np != 2 * n) return ld_error(L, "pads has %d values for %d axes (2 each)", np, n);
  bool seen[ONNX_MAX_RANK] = {0};
  int64_t out[ONNX_MAX_RANK];
  memcpy(out, x->dims, sizeof *out * (size_t)r);
  for (int k = 0; k < n; k++) {
    int a = k;
    if (na >= 0 && !axis_in(L, ax[k], r, &a)) return false;
    if (seen[a]) return ld_error(L, "axis %d is padded twice", a);
    seen[a] = true;
    int64_t b = pads[k], e = pads[k + n], d = x->dims[a];
    if (b < -ONNX_MAX_DIM || b > ONNX_MAX_DIM || e < -ONNX_MAX_DIM || e > ONNX_MAX_DIM || d + b + e < 0)
      return ld_error(L, "pads %lld and %lld of axis %d (of %lld elements) are out of range", (long long)b,
                      (long long)e, a, (long long)d);
    int64_t kept = d + (b < 0 ? b : 0) + (e < 0 ? e : 0);   // what the negative pads leave
    if ((b > 0 || e > 0) && p->mode != PAD_MODE_CONSTANT && kept < (p->mode == PAD_MODE_REFLECT ? 2 : 1))
      return ld_error(L, "mode %s pads axis %d of %lld elements", mode, a, (long long)kept);
    if (p->mode == PAD_MODE_REFLECT && (b > kept - 1 || e > kept - 1))
      return ld_error(L, "mode reflect pads axis %d (of %lld elements) by %lld and %lld: at most %lld", a,
                      (long long)kept, (long long)b, (long long)e, (long long)(kept - 1));
    p->a[a] = b, p->b[a] = e, out[a] = d + b + e;
  }
  L->node->layout = p;
  return ld_set_out(L, 0, r, out);
}

/* Expand: numpy's broadcasting of the input and the constant shape. */
bool shape_expand(Load *L) {
  if (!ld_need_inputs(L, 2, 2)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int64_t s[ONNX_MAX_RANK], out[ONNX_MAX_RANK];
  int ns = const_ints(L, 1, "shape", s, ONNX_MAX_RANK);
  if (ns < 0) return false;
  int r = x->rank > ns ? x->rank : ns;
  for (int i = 0; i < r; i++) {
    int ix = i - (r - x->rank), is = i - (r - ns);
    int64_t dx = ix >= 0 ? x->dims[ix] : 1, ds = is >= 0 ? s[is] : 1;
    if (ds < 0 || (dx != ds && dx != 1 && ds != 1))
      return ld_error(L, "the input does not broadcast to the shape: dimension %d is %lld and %lld", i, (long long)dx,
                      (long long)ds);
    out[i] = dx == 1 ? ds : dx;
  }
  return ld_set_out(L, 0, r, out);
}

/* ---- The shape arithmetic: rules for the folds of fold.c ---- */

/* Shape: start and end (opset 15) clamped to the rank. */
bool shape_shape(Load *L) {
  if (!ld_need_inputs(L, 1, 1)) return false;
  int r = ld_in(L, 0)->rank;
  int64_t b = ld_attr_int(L->np, "start", 0), e = ld_attr_int(L->np, "end", r);
  if (b < 0) b += r;
  if (e < 0) e += r;
  b = b < 0 ? 0 : b > r ? r : b;
  e = e < 0 ? 0 : e > r ? r : e;
  int64_t n = e > b ? e - b : 0;
  return ld_set_out(L, 0, 1, &n);
}

/* A Gather of data computed at run time (torch.export's as_strided): its
 * indices, a constant, as the affine function of their place that its
 * program computes, index = b[0] + sum over k of place_k a[k] (each a[k] >=
 * 0, negative indices counted from the end of the axis, length len); or the
 * node's refusal (layout->why) when they are not one. False on an error. */
static bool gather_affine(Load *L, int64_t len) {
  OnnxLayout *g = ARENA_NEW(L->a, OnnxLayout);
  L->node->layout = g;
  const OnnxValue *ix = ld_in(L, 1);
  const Onnx__TensorProto *t = L->init[L->node->in[1]];
  int64_t n = onnx_elems(ix), first = 0;
  if (!t) return g->why = "its indices are computed at run time (only constant indices are taken)", true;
  int64_t *v = ARENA_ARRAY(L->a, int64_t, (size_t)n + 1);
  for (int64_t i = 0; i < n; i++) {
    if (!ld_init_i64(t, i, &v[i])) return g->why = "its indices are not an int64 tensor", true;
    if (v[i] < -len || v[i] >= len)
      return ld_error(L, "index %lld is outside the %lld elements of axis %d", (long long)v[i], (long long)len,
                      L->node->axis);
    if (v[i] < 0) v[i] += len;
  }
  first = n ? v[0] : 0;
  g->b[0] = first;
  int64_t step = n;   // the places of index dimension k are step apart in v
  for (int k = 0; k < ix->rank; k++) {
    step /= ix->dims[k];
    g->a[k] = ix->dims[k] > 1 ? v[step] - first : 0;
    if (g->a[k] < 0) return g->why = "its indices decrease along a dimension (a reversed gather is not taken)", true;
  }
  for (int64_t i = 0; i < n; i++) {   // every index the function's
    int64_t want = first, rest = i, s = n;
    for (int k = 0; k < ix->rank; k++) s /= ix->dims[k], want += (rest / s) * g->a[k], rest %= s;
    if (v[i] != want) return g->why = "its indices are not an affine function of their place", true;
  }
  return true;
}

/* Gather: data's dimensions before axis, the indices', data's after it. */
bool shape_gather(Load *L) {
  if (!ld_need_inputs(L, 2, 2)) return false;
  const OnnxValue *d = ld_in(L, 0), *ix = ld_in(L, 1);
  int a = 0;
  if (d->rank < 1) return ld_error(L, "data must have rank 1 or more");
  if (!axis_in(L, ld_attr_int(L->np, "axis", 0), d->rank, &a)) return false;
  int r = d->rank - 1 + ix->rank;
  if (r > ONNX_MAX_RANK) return ld_error(L, "the output would have rank %d, more than %d", r, ONNX_MAX_RANK);
  int64_t out[ONNX_MAX_RANK];
  int k = 0;
  for (int i = 0; i < a; i++) out[k++] = d->dims[i];
  for (int i = 0; i < ix->rank; i++) out[k++] = ix->dims[i];
  for (int i = a + 1; i < d->rank; i++) out[k++] = d->dims[i];
  L->node->axis = a;
  if (!L->init[L->node->in[0]] && !gather_affine(L, d->dims[a])) return false;
  return ld_set_out(L, 0, r, out);
}

bool shape_constant_of_shape(Load *L) {
  int64_t s[ONNX_MAX_RANK];
  if (!ld_need_inputs(L, 1, 1)) return false;
  int n = const_ints(L, 0, "input (the shape)", s, ONNX_MAX_RANK);
  return n >= 0 && ld_set_out(L, 0, n, s);
}

bool shape_cast(Load *L) { return ld_need_inputs(L, 1, 1) && ld_same_shape(L); }

/* Range: max(ceil((limit - start) / delta), 0) elements, of scalars. */
bool shape_range(Load *L) {
  if (!ld_need_inputs(L, 3, 3)) return false;
  double v[3];
  for (int k = 0; k < 3; k++) {
    static const char *names[] = {"start", "limit", "delta"};
    if (!L->init[L->node->in[k]])
      return ld_error(L, "%s ('%s') must be a constant: Range is only computed at import", names[k], ld_in(L, k)->name);
    float f;
    int64_t i;
    if (onnx_elems(ld_in(L, k)) != 1) return ld_error(L, "%s must be a scalar", names[k]);
    if (ld_init_f32(L->init[L->node->in[k]], &f)) v[k] = f;
    else if (ld_init_i64(L->init[L->node->in[k]], 0, &i)) v[k] = (double)i;
    else return ld_error(L, "%s must be a float or int64 scalar", names[k]);
  }
  if (v[2] == 0 || !isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) return ld_error(L, "delta must be finite and not 0");
  double n = ceil((v[1] - v[0]) / v[2]);
  int64_t len = n > 0 ? (n > (double)ONNX_MAX_ELEMS ? ONNX_MAX_ELEMS + 1 : (int64_t)n) : 0;
  return ld_set_out(L, 0, 1, &len);
}

#endif

/* ---- Programs ---- */

const char *refuse_layout(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  (void)a;
  if (onnx_elems(&m->values[n->out[0]]) == 0) return "its output is empty (an array of the IR has an element at least)";
  if (n->layout && n->layout->mode == PAD_MODE_CONSTANT && !isfinite(n->layout->value))
    return "a constant value that is not finite";
  return NULL;
}

void op_transpose_view(StrBuf *v, int rank, const int64_t *perm) {
  int cur[ONNX_MAX_RANK];
  for (int i = 0; i < rank; i++) cur[i] = i;
  for (int j = 0; j < rank; j++) {
    int at = j;
    while (cur[at] != perm[j]) at++;
    for (; at > j; at--) {
      op_at_depth(v, at - 1, "transpose");
      int s = cur[at];
      cur[at] = cur[at - 1], cur[at - 1] = s;
    }
  }
}

/* Transpose: op_transpose_view of its input, copied. */
void program_transpose(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  (void)a;
  const OnnxValue *x = &m->values[n->in[0]];
  op_declare(t, "x", x);
  StrBuf v;
  sb_init(&v);
  sb_puts(&v, "x");
  op_transpose_view(&v, x->rank, n->layout->a);
  op_copy_out(t, &v, x->rank);
  sb_free(&v);
  op_add_value(p, "x", host, n->in[0]);
}

/* Slice: along each sliced dimension, a reverse (gather) for a negative
 * step, the elements before the start and after the last cropped (a pad of
 * negative amounts), then every step-th kept (slide[1, step] |> join). */
void program_slice(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxValue *x = &m->values[n->in[0]], *y = &m->values[n->out[0]];
  op_declare(t, "x", x);
  StrBuf v;
  sb_init(&v);
  sb_puts(&v, "x");
  for (int i = 0; i < x->rank; i++) {
    int64_t d = x->dims[i], c = y->dims[i], b = n->layout->a[i], step = n->layout->b[i];
    if (c == d && b == 0 && step == 1) continue;
    if (step < 0) {
      op_at_depth(&v, i, "gather[(i, n) -> n - 1 - i]");
      b = d - 1 - b, step = -step;
    }
    int64_t span = (c - 1) * step + 1;
    op_at_depth(&v, i, arena_printf(a, "pad[0 - %lld, 0 - %lld, 0.0f]", (long long)b, (long long)(d - b - span)));
    if (step > 1) op_at_depth(&v, i, arena_printf(a, "slide[1, %lld]", (long long)step)), op_at_depth(&v, i, "join");
  }
  op_copy_out(t, &v, x->rank);
  sb_free(&v);
  op_add_value(p, "x", host, n->in[0]);
}

/* Pad: along each dimension the negative pads cropped (a pad of negative
 * amounts), then the positive ones added: the constant (pad[b, e, v]), the
 * edge repeated (pad[b, e, clamp]), or the reflection, the clamped pad's
 * places read from their mirror images by a gather. */
void program_pad(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxValue *x = &m->values[n->in[0]];
  const OnnxLayout *l = n->layout;
  op_declare(t, "x", x);
  StrBuf v, val;
  sb_init(&v), sb_init(&val);
  sb_puts(&v, "x");
  sb_float_literal(&val, l->value);
  for (int i = 0; i < x->rank; i++) {
    int64_t b = l->a[i], e = l->b[i], d = x->dims[i];
    if (b < 0 || e < 0) {
      op_at_depth(&v, i, arena_printf(a, "pad[0 - %lld, 0 - %lld, 0.0f]", (long long)(b < 0 ? -b : 0), (long long)(e < 0 ? -e : 0)));
      d += (b < 0 ? b : 0) + (e < 0 ? e : 0);
      b = b < 0 ? 0 : b, e = e < 0 ? 0 : e;
    }
    if (b == 0 && e == 0) continue;
    if (l->mode == PAD_MODE_CONSTANT) {
      op_at_depth(&v, i, arena_printf(a, "pad[%lld, %lld, %s]", (long long)b, (long long)e, sb_str(&val)));
      continue;
    }
    op_at_depth(&v, i, arena_printf(a, "pad[%lld, %lld, clamp]", (long long)b, (long long)e));
    if (l->mode == PAD_MODE_REFLECT)   // place j < b reads b + (b - j), place j >= b + d reads b + 2 (d - 1) - (j - b)
      op_at_depth(&v, i, arena_printf(a, "gather[(i, n) -> i < %lld ? %lld - i : (i < %lld ? i : %lld - i)]", (long long)b,
                                   (long long)(2 * b), (long long)(b + d), (long long)(2 * (d - 1) + 2 * b)));
  }
  op_copy_out(t, &v, x->rank);
  sb_free(&v), sb_free(&val);
  op_add_value(p, "x", host, n->in[0]);
}

const char *refuse_gather(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  (void)a;
  if (n->layout && n->layout->why) return n->layout->why;
  return refuse_layout(a, m, n);
}

/* Gather of run-time data at constant affine indices: the data seen as
 * [outer][len][inner], the axis read at place b + sum_k place_k a_k of the
 * flattened index i (padded by repetition to the longer of len and the
 * count of indices first, cropped after), flattened and copied. */
void program_gather(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxValue *x = &m->values[n->in[0]], *ix = &m->values[n->in[1]];
  const OnnxLayout *g = n->layout;
  int64_t outer = 1, inner = 1, len = x->dims[n->axis], count = onnx_elems(ix);
  for (int i = 0; i < x->rank; i++)
    if (i < n->axis) outer *= x->dims[i];
    else if (i > n->axis) inner *= x->dims[i];
  sb_printf(t, "input x: [[[float]%lld]%lld]%lld\n", (long long)inner, (long long)len, (long long)outer);
  StrBuf f, v;
  sb_init(&f), sb_init(&v);
  sb_printf(&f, "%lld", (long long)g->b[0]);
  int64_t s = count;
  for (int k = 0; k < ix->rank; k++) {
    s /= ix->dims[k];
    if (g->a[k]) sb_printf(&f, " + i / %lld %% %lld * %lld", (long long)s, (long long)ix->dims[k], (long long)g->a[k]);
  }
  sb_puts(&v, "x");
  if (count > len) op_at_depth(&v, 1, arena_printf(a, "pad[0, %lld, clamp]", (long long)(count - len)));
  op_at_depth(&v, 1, arena_printf(a, "gather[(i, n) -> i < %lld ? %s : 0]", (long long)count, sb_str(&f)));
  if (count < len) op_at_depth(&v, 1, arena_printf(a, "pad[0, 0 - %lld, 0.0f]", (long long)(len - count)));
  op_copy_out(t, &v, 3);
  sb_free(&f), sb_free(&v);
  op_add_value(p, "x", host, n->in[0]);
}

/* Expand: the input broadcast to the output by views (op_broadcast). */
void program_expand(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  (void)a;
  const OnnxValue *x = &m->values[n->in[0]], *y = &m->values[n->out[0]];
  StrBuf v;
  sb_init(&v);
  if (y->rank == 0) op_declare(t, "x", x), sb_puts(&v, "x");
  else op_broadcast(t, &v, "x", x, y->rank, y->dims);
  op_copy_out(t, &v, y->rank);
  sb_free(&v);
  op_add_value(p, "x", host, n->in[0]);
}
