/* shapes.c: the shape rules of the operator table (the shape column of
 * ops.c, declared in rows.h): for the node in hand (load.h), its inputs and
 * attributes checked, every integer attribute range-checked before any
 * use, and its outputs' shapes set through ld_set_out, computed in 64 bits
 * from inputs within the bounds. A rule that refuses says why, naming the
 * node. Onnx.c runs the rule of each node's row in graph order. */
#ifdef CONVGEN_ONNX   // (a convgen built without protobuf-c reads no model: no rules)
#include "onnx/load.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool ld_window_pads(Load *L, const int64_t *in, const int64_t *ext, const int64_t *stride, int64_t *pads) {
  const char *ap = ld_attr_string(L->a, L->np, "auto_pad", "NOTSET");
  for (int i = 0; i < 4; i++) pads[i] = 0;
  if (strcmp(ap, "NOTSET") == 0) {
    int n = ld_attr_ints(L->np, "pads", pads, 4);
    if (n >= 0 && n != 4) return ld_error(L, "pads has %d values, a 2-D window takes 4", n);
    for (int i = 0; i < 4; i++)
      if (pads[i] < 0 || pads[i] > INT32_MAX) return ld_error(L, "pads[%d] = %lld is not 0 to %d", i, (long long)pads[i], INT32_MAX);
    return true;
  }
  if (strcmp(ap, "VALID") == 0) return true;
  bool upper = strcmp(ap, "SAME_UPPER") == 0;
  if (!upper && strcmp(ap, "SAME_LOWER") != 0)
    return ld_error(L, "auto_pad '%s' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER", ap);
  for (int i = 0; i < 2; i++) {   // out = ceil(in / stride), the padding that makes it so
    int64_t out = (in[i] + stride[i] - 1) / stride[i], total = (out - 1) * stride[i] + ext[i] - in[i];
    if (total < 0) total = 0;
    pads[i] = upper ? total / 2 : total - total / 2, pads[i + 2] = total - pads[i];
    if (pads[i] > INT32_MAX || pads[i + 2] > INT32_MAX)
      return ld_error(L, "auto_pad %s needs a padding of %lld, more than %d", ap, (long long)total, INT32_MAX);
  }
  return true;
}

bool shape_conv(Load *L) {
  if (!ld_need_inputs(L, 2, 3) || !ld_need_rank(L, 0, 4, "X (a 2-D convolution's NCHW input)") || !ld_need_rank(L, 1, 4, "W"))
    return false;
  const OnnxValue *x = ld_in(L, 0), *w = ld_in(L, 1);
  bool bias = ld_has_input(L, 2);
  if (bias && !ld_need_rank(L, 2, 1, "B")) return false;
  int64_t g = ld_attr_int(L->np, "group", 1), k = w->dims[0];
  if (g < 1 || x->dims[1] % g || k % g)
    return ld_error(L, "group=%lld does not divide the input channels (%lld) and the output channels (%lld)",
                      (long long)g, (long long)x->dims[1], (long long)k);
  if (w->dims[1] != x->dims[1] / g)
    return ld_error(L, "W has %lld input channels per group, X gives %lld / group %lld", (long long)w->dims[1],
                      (long long)x->dims[1], (long long)g);
  if (bias && ld_in(L, 2)->dims[0] != k)
    return ld_error(L, "B has %lld values for %lld output channels", (long long)ld_in(L, 2)->dims[0], (long long)k);
  int64_t ks[2] = {w->dims[2], w->dims[3]}, given[2];
  int nk = ld_attr_ints(L->np, "kernel_shape", given, 2);
  if (nk >= 0 && (nk != 2 || given[0] != ks[0] || given[1] != ks[1]))
    return ld_error(L, "kernel_shape does not match W's %lldx%lld", (long long)ks[0], (long long)ks[1]);
  int64_t st[2] = {1, 1}, dil[2] = {1, 1}, pads[4];
  int nst = ld_attr_ints(L->np, "strides", st, 2), ndil = ld_attr_ints(L->np, "dilations", dil, 2);
  if ((nst >= 0 && nst != 2) || (ndil >= 0 && ndil != 2))
    return ld_error(L, "strides and dilations take 2 values for a 2-D convolution");
  for (int i = 0; i < 2; i++)   // checked before any use: a stride of 0 divided by zero, 2^32 + 1 became 1
    if (st[i] < 1 || dil[i] < 1 || st[i] > INT32_MAX || dil[i] > INT32_MAX || ks[i] < 1)
      return ld_error(L, "strides and dilations must be 1 to %d and W's kernel at least 1x1 (got strides %lld, "
                        "dilations %lld, kernel %lld)", INT32_MAX, (long long)st[i], (long long)dil[i],
                        (long long)ks[i]);
  int64_t ext[2] = {(ks[0] - 1) * dil[0] + 1, (ks[1] - 1) * dil[1] + 1};
  if (!ld_window_pads(L, x->dims + 2, ext, st, pads)) return false;
  Layer *l = &L->node->layer;
  Diag ld = {0};
  if (!ld_conv_layer(x->dims, k, ks, st, dil, pads, g, bias, l, &ld))
    return ld_error(L, "not a layer convgen takes: %s", ld.msg);
  snprintf(l->name, sizeof l->name, "%s", L->node->name);
  L->node->is_conv = true;
  int64_t out[4] = {l->n, l->k, l->out_h, l->out_w};
  return ld_set_out(L, 0, 4, out);
}

bool ld_conv_layer(const int64_t *x, int64_t k, const int64_t *ks, const int64_t *st, const int64_t *dil,
                   const int64_t *pads, int64_t g, bool bias, Layer *l, Diag *d) {
  bool ints = k <= INT32_MAX && g <= INT32_MAX;   // (each an int before it is a Layer's: layer_check bounds them)
  for (int i = 0; i < 4; i++) ints = ints && x[i] <= INT32_MAX && pads[i] >= 0 && pads[i] <= INT32_MAX;
  if (!ints) return diag_error(d, "a dimension or pad past %d", INT32_MAX);
  *l = (Layer){.n = (int)x[0], .c = (int)x[1], .h = (int)x[2], .w = (int)x[3], .k = (int)k,
               .kh = (int)ks[0], .kw = (int)ks[1], .stride_h = (int)st[0], .stride_w = (int)st[1],
               .pad_h = (int)pads[0], .pad_w = (int)pads[1], .pad_dh = (int)(pads[2] - pads[0]),
               .pad_dw = (int)(pads[3] - pads[1]), .dil_h = (int)dil[0], .dil_w = (int)dil[1], .groups = (int)g,
               .bias = bias};
  return layer_check(l, d);
}

bool ld_same_shape(Load *L) {
  const OnnxValue *x = ld_in(L, 0);
  for (int k = 0; k < L->node->nout; k++)
    if (!ld_set_out(L, k, x->rank, x->dims)) return false;
  return true;
}

bool shape_unary(Load *L) { return ld_need_inputs(L, 1, 1) && ld_same_shape(L); }

bool shape_clip(Load *L) { return ld_need_inputs(L, 1, 3) && ld_same_shape(L); }

bool shape_dropout(Load *L) { return ld_need_inputs(L, 1, 3) && ld_same_shape(L); }

/* The node that makes value v (the nodes so far, the latest first), or NULL
 * for a graph input or an initializer. */
static const OnnxNode *maker_of(const Load *L, int v) {
  const OnnxValue *x = &L->m->values[v];
  if (x->graph_input || x->initializer) return NULL;
  for (int i = (int)(L->node - L->m->nodes) - 1; i >= 0; i--)
    for (int k = 0; k < L->m->nodes[i].nout; k++)
      if (L->m->nodes[i].out[k] == v) return &L->m->nodes[i];
  return NULL;
}

/* A constant [C, 1, ...] (rank r - 1, numpy's rule puts X's batch before
 * it) of the c floats f, the value named name. */
static int channel_constant(Load *L, const char *name, const float *f, int64_t c, int r) {
  Onnx__TensorProto *t = ARENA_NEW(L->a, Onnx__TensorProto);
  onnx__tensor_proto__init(t);
  t->has_data_type = true, t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  t->n_dims = (size_t)r - 1, t->dims = ARENA_ARRAY(L->a, int64_t, (size_t)r);
  t->dims[0] = c;
  for (int i = 1; i < r - 1; i++) t->dims[i] = 1;
  t->n_float_data = (size_t)c, t->float_data = (float *)f;
  int v = ld_new_value(L, name);
  t->name = (char *)L->m->values[v].name;
  return ld_add_initializer(L, v, t, t->name) ? v : -1;
}

/* A BatchNormalization whose input no convolution makes (a Concat's, an
 * Add's, a pooling's: DenseNet's and pre-activation networks' BN -> Relu)
 * can fold into no weights: it is made into Mul(x, s) and Add(., t), s and
 * t per channel computed here in double from its constant parameters as
 * its own program computes them, so that fusion at import makes one kernel
 * of it and the elementwise nodes around it (fuse_chains). One that a
 * convolution may take (its input a convolution's), or whose parameters
 * are not constants, stays itself. */
static bool batchnorm_as_scale_shift(Load *L) {
  OnnxNode bn = *L->node;
  const OnnxValue *x = ld_in(L, 0);
  const OnnxNode *by = maker_of(L, bn.in[0]);
  if (by && by->is_conv) return true;
  const float *prm[4];
  for (int k = 1; k < 5; k++)
    if (!(prm[k - 1] = L->m->values[bn.in[k]].data)) return true;
  int64_t c = x->dims[1];
  int r = x->rank;
  float *sc = ARENA_ARRAY(L->a, float, (size_t)c), *sh = ARENA_ARRAY(L->a, float, (size_t)c);
  double eps = ld_attr_float(L->np, "epsilon", 1e-5f);
  for (int64_t k = 0; k < c; k++) {
    double f = (double)prm[0][k] / sqrt((double)prm[3][k] + eps);
    sc[k] = (float)f, sh[k] = (float)((double)prm[1][k] - (double)prm[2][k] * f);
  }
  int sv = channel_constant(L, arena_printf(L->a, "%s:scale", bn.name), sc, c, r);
  int tv = sv < 0 ? -1 : channel_constant(L, arena_printf(L->a, "%s:shift", bn.name), sh, c, r);
  int mid = tv < 0 ? -1 : ld_new_value(L, arena_printf(L->a, "%s:scaled", bn.name));
  if (mid < 0) return false;
  int64_t dims[ONNX_MAX_RANK];
  memcpy(dims, x->dims, sizeof *dims * (size_t)r);
  OnnxNode *nd = ld_rewrite(L, 2);
  const char *from = "from a BatchNormalization (no convolution makes its input)";
  const OpDef *rows[2] = {op_def("Mul"), op_def("Add")};
  const int ins[2][2] = {{bn.in[0], sv}, {mid, tv}}, outs[2] = {mid, bn.out[0]};
  for (int k = 0; k < 2; k++, nd++) {
    nd->def = rows[k], nd->op = rows[k]->name, nd->from = from, nd->detail = "";
    nd->name = k ? bn.name : arena_printf(L->a, "%s:mul", bn.name);
    nd->nin = 2, nd->in = ARENA_ARRAY(L->a, int, 2);
    memcpy(nd->in, ins[k], sizeof ins[k]);
    nd->nout = 1, nd->out = ARENA_ARRAY(L->a, int, 1);
    nd->out[0] = outs[k];
    L->node = nd;
    if (!ld_set_out(L, 0, r, dims)) return false;
  }
  return true;
}

bool shape_batchnorm(Load *L) {
  if (!ld_need_inputs(L, 5, 5)) return false;
  const OnnxValue *x = ld_in(L, 0);
  if (x->rank < 2) return ld_error(L, "X must have a channel dimension (rank 2 or more)");
  static const char *names[] = {"scale", "B", "mean", "var"};
  for (int k = 1; k < 5; k++)
    if (!ld_need_rank(L, k, 1, names[k - 1])) return false;
    else if (ld_in(L, k)->dims[0] != x->dims[1])
      return ld_error(L, "%s has %lld values for %lld channels", names[k - 1], (long long)ld_in(L, k)->dims[0],
                        (long long)x->dims[1]);
  if (L->node->nout > 1) return ld_error(L, "training mode (running mean and variance outputs) is not claimed");
  return ld_same_shape(L) && batchnorm_as_scale_shift(L);
}

/* numpy broadcasting of inputs 0 and 1. */
bool shape_add(Load *L) {
  if (!ld_need_inputs(L, 2, 2)) return false;
  const OnnxValue *a = ld_in(L, 0), *b = ld_in(L, 1);
  int r = a->rank > b->rank ? a->rank : b->rank;
  int64_t out[ONNX_MAX_RANK];
  for (int i = 0; i < r; i++) {
    int ia = i - (r - a->rank), ib = i - (r - b->rank);
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    if (da != db && da != 1 && db != 1)
      return ld_error(L, "shapes do not broadcast: dimension %d is %lld and %lld", i, (long long)da, (long long)db);
    out[i] = da == 1 ? db : da;
  }
  return ld_set_out(L, 0, r, out);
}

bool shape_pool(Load *L) {
  if (!ld_need_inputs(L, 1, 1) || !ld_need_rank(L, 0, 4, "X (NCHW)")) return false;
  const OnnxValue *x = ld_in(L, 0);
  OnnxWindow *w = &L->node->win;
  int64_t *ks = w->kernel, *st = w->stride, *dil = w->dil, *pads = w->pads;
  st[0] = st[1] = dil[0] = dil[1] = 1;
  if (ld_attr_ints(L->np, "kernel_shape", ks, 2) != 2) return ld_error(L, "kernel_shape must give 2 values");
  if (ld_attr_ints(L->np, "strides", st, 2) > 2 || ld_attr_ints(L->np, "dilations", dil, 2) > 2)
    return ld_error(L, "strides and dilations take 2 values for a 2-D window");
  for (int i = 0; i < 2; i++)   // (bounded, so that the extents below cannot overflow)
    if (ks[i] < 1 || st[i] < 1 || dil[i] < 1 || ks[i] > INT32_MAX || st[i] > INT32_MAX || dil[i] > INT32_MAX)
      return ld_error(L, "kernel_shape, strides and dilations must be 1 to %d (got %lld, %lld, %lld)", INT32_MAX,
                        (long long)ks[i], (long long)st[i], (long long)dil[i]);
  int64_t ext[2] = {(ks[0] - 1) * dil[0] + 1, (ks[1] - 1) * dil[1] + 1};
  if (!ld_window_pads(L, x->dims + 2, ext, st, pads)) return false;
  w->ceil_mode = ld_attr_int(L->np, "ceil_mode", 0) != 0;
  w->count_pad = strcmp(L->node->op, "AveragePool") == 0 && ld_attr_int(L->np, "count_include_pad", 0) != 0;
  int64_t out[4] = {x->dims[0], x->dims[1], 0, 0};
  for (int i = 0; i < 2; i++) {
    int64_t span = x->dims[2 + i] + pads[i] + pads[i + 2] - ext[i];
    if (span < 0) return ld_error(L, "the window is larger than the padded input");
    out[2 + i] = (w->ceil_mode ? (span + st[i] - 1) / st[i] : span / st[i]) + 1;
  }
  if (!ld_set_out(L, 0, 4, out) || (L->node->nout > 1 && !ld_set_out(L, 1, 4, out)))   // MaxPool's indices
    return false;
  L->node->detail = arena_printf(L->a, "window %lldx%lld, stride %lldx%lld, pads %lld,%lld,%lld,%lld%s", (long long)ks[0],
                                 (long long)ks[1], (long long)st[0], (long long)st[1], (long long)pads[0],
                                 (long long)pads[1], (long long)pads[2], (long long)pads[3],
                                 w->count_pad ? ", padding counted" : "");
  return true;
}

bool shape_global_pool(Load *L) {
  if (!ld_need_inputs(L, 1, 1) || !ld_need_rank(L, 0, 4, "X (NCHW)")) return false;
  int64_t out[4] = {ld_in(L, 0)->dims[0], ld_in(L, 0)->dims[1], 1, 1};
  return ld_set_out(L, 0, 4, out);
}

bool shape_flatten(Load *L) {
  if (!ld_need_inputs(L, 1, 1)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int64_t axis = ld_attr_int(L->np, "axis", 1);
  if (axis < 0) axis += x->rank;
  if (axis < 0 || axis > x->rank) return ld_error(L, "axis %lld is outside rank %d", (long long)axis, x->rank);
  int64_t out[2] = {1, 1};
  for (int i = 0; i < x->rank; i++) out[i < axis ? 0 : 1] *= x->dims[i];   // (within X's elements: no wrap)
  return ld_set_out(L, 0, 2, out);
}

bool shape_reshape(Load *L) {
  if (!ld_need_inputs(L, 2, 2) || !ld_need_init(L, 1, "shape") || !ld_need_rank(L, 1, 1, "shape")) return false;
  const OnnxValue *x = ld_in(L, 0), *s = ld_in(L, 1);
  if (s->dims[0] > ONNX_MAX_RANK)
    return ld_error(L, "a shape of rank %lld, more than %d", (long long)s->dims[0], ONNX_MAX_RANK);
  int r = (int)s->dims[0], infer = -1;
  bool allowzero = ld_attr_int(L->np, "allowzero", 0) != 0;
  int64_t out[ONNX_MAX_RANK], known = 1;
  for (int i = 0; i < r; i++) {
    if (!ld_init_i64(L->init[L->node->in[1]], i, &out[i])) return ld_error(L, "shape is not an int64 tensor");
    if (out[i] == 0 && !allowzero) {
      if (i >= x->rank) return ld_error(L, "shape[%d] = 0 copies a dimension X does not have", i);
      out[i] = x->dims[i];
    }
    if (out[i] == -1) {
      if (infer >= 0) return ld_error(L, "shape has more than one -1");
      infer = i;
    } else if (out[i] < 0 || out[i] > ONNX_MAX_DIM) {
      return ld_error(L, "shape[%d] = %lld is not -1 or 0 to %lld", i, (long long)out[i], (long long)ONNX_MAX_DIM);
    } else if (__builtin_mul_overflow(known, out[i], &known) || known > ONNX_MAX_ELEMS) {
      return ld_error(L, "shape holds more than %lld elements", (long long)ONNX_MAX_ELEMS);
    }
  }
  int64_t total = onnx_elems(x);
  if (infer >= 0) {
    if (known == 0 || total % known) return ld_error(L, "shape does not divide X's %lld elements", (long long)total);
    out[infer] = total / known;
    known = total;
  }
  if (known != total)
    return ld_error(L, "shape holds %lld elements, X %lld", (long long)known, (long long)total);
  return ld_set_out(L, 0, r, out);
}

/* Node nd as a 1x1 convolution layer (stride 1, no padding) of n images
 * of c channels and 1 x w pixels with k kernels: false, the node left as
 * it is (its program runs), when the sizes are not a layer convgen takes. */
static bool as_1x1_conv(OnnxNode *nd, int64_t n, int64_t c, int64_t w, int64_t k, bool bias) {
  if (n > INT32_MAX || c > INT32_MAX || w > INT32_MAX || k > INT32_MAX) return false;
  Layer l = {.n = (int)n, .c = (int)c, .h = 1, .w = (int)w, .k = (int)k, .kh = 1, .kw = 1, .stride_h = 1,
             .stride_w = 1, .bias = bias};
  Diag d = {0};
  if (!layer_check(&l, &d)) return false;
  snprintf(l.name, sizeof l.name, "%s", nd->name);
  nd->layer = l, nd->is_conv = true;
  return true;
}

/* A Gemm whose B is a float initializer, A not transposed, alpha 1, and C
 * (beta 1) absent or one value per column, is a 1x1 convolution of M
 * images of K channels (1x1 pixels) with N kernels: A [M, K] is its NCHW
 * input, B' [N, K] its KCRS weights (B transposed when transB = 0, by
 * infer), C its bias. Then it is tuned and run as a layer (the classifiers
 * of VGG-16, ResNet and MobileNet), and takes the activation after it. */
static void gemm_as_conv(Load *L, int64_t m, int64_t k, int64_t n) {
  OnnxNode *nd = L->node;
  const OnnxValue *B = ld_in(L, 1);
  bool c = nd->nin > 2 && nd->in[2] >= 0;
  if (nd->trans_a || nd->alpha != 1.0f || !B->data || (c && nd->beta != 1.0f)) return;
  if (c && !(ld_in(L, 2)->data && onnx_elems(ld_in(L, 2)) == n && (ld_in(L, 2)->rank == 1 || ld_in(L, 2)->dims[0] == 1)))
    return;
  if (as_1x1_conv(nd, m, k, 1, n, c)) nd->detail = "a 1x1 convolution";
}

bool shape_gemm(Load *L) {
  if (!ld_need_inputs(L, 2, 3) || !ld_need_rank(L, 0, 2, "A") || !ld_need_rank(L, 1, 2, "B")) return false;
  const OnnxValue *A = ld_in(L, 0), *B = ld_in(L, 1);
  OnnxNode *nd = L->node;
  bool ta = nd->trans_a = ld_attr_int(L->np, "transA", 0) != 0, tb = nd->trans_b = ld_attr_int(L->np, "transB", 0) != 0;
  nd->alpha = ld_attr_float(L->np, "alpha", 1.0f), nd->beta = ld_attr_float(L->np, "beta", 1.0f);
  int64_t m = A->dims[ta ? 1 : 0], ka = A->dims[ta ? 0 : 1], kb = B->dims[tb ? 1 : 0], n = B->dims[tb ? 0 : 1];
  if (ka != kb) return ld_error(L, "A's %lld columns against B's %lld rows", (long long)ka, (long long)kb);
  int64_t out[2] = {m, n};
  if (nd->nin > 2 && nd->in[2] >= 0) {   // C broadcasts to [M, N] (numpy's rule, one way)
    const OnnxValue *C = ld_in(L, 2);
    bool fits = C->rank <= 2;
    for (int i = 0; fits && i < C->rank; i++) {
      int64_t want = out[2 - C->rank + i];
      fits = C->dims[i] == 1 || C->dims[i] == want;
    }
    if (!fits) return ld_error(L, "C (%s, rank %d) does not broadcast to the output's %lldx%lld", C->name, C->rank,
                                 (long long)m, (long long)n);
  }
  if (!ld_set_out(L, 0, 2, out)) return false;
  gemm_as_conv(L, m, ka, n);
  return true;
}

/* A MatMul whose B is a float initializer (of rank 2, or with batch
 * dimensions of 1) and whose A is a value is a 1x1 convolution, as a Gemm
 * is: A's rows (every dimension but the last, joined: M of them) times B
 * [C, N]. With M at least MATMUL_A_WEIGHTS it is the convolution of one
 * image of B, C channels of N pixels (its input, as it lies), by M kernels,
 * A's rows (its weights, as they lie): its output [M][N] is the MatMul's,
 * and the tiles of the strategies share each weight over N pixels and each
 * input value over M kernels (ConvNeXt's channel MLPs, M = H W pixels of
 * an NHWC tensor). Fewer rows are M images of one pixel, as gemm_as_conv
 * makes them, B transposed into kernels. Either way it is tuned and run as
 * a layer, and takes the activation after it; else the program. */
enum { MATMUL_A_WEIGHTS = 32 };

static void matmul_as_conv(Load *L) {
  OnnxNode *nd = L->node;
  const OnnxValue *A = ld_in(L, 0), *B = ld_in(L, 1);
  if (A->data || !B->data) return;
  for (int i = 0; i < B->rank - 2; i++)
    if (B->dims[i] != 1) return;
  int64_t m = onnx_elems(A) / A->dims[A->rank - 1], c = B->dims[B->rank - 2], n = B->dims[B->rank - 1];
  if (m >= MATMUL_A_WEIGHTS) nd->a_weights = as_1x1_conv(nd, 1, c, n, m, false);
  else as_1x1_conv(nd, m, c, 1, n, false);
}

bool shape_matmul(Load *L) {
  if (!ld_need_inputs(L, 2, 2)) return false;
  const OnnxValue *A = ld_in(L, 0), *B = ld_in(L, 1);
  if (A->rank < 2 || B->rank < 2) return ld_error(L, "inputs of rank 1 are not claimed");
  if (A->dims[A->rank - 1] != B->dims[B->rank - 2])
    return ld_error(L, "A's %lld columns against B's %lld rows", (long long)A->dims[A->rank - 1],
                      (long long)B->dims[B->rank - 2]);
  int r = A->rank > B->rank ? A->rank : B->rank;
  int64_t out[ONNX_MAX_RANK];
  for (int i = 0; i < r - 2; i++) {
    int ia = i - (r - A->rank), ib = i - (r - B->rank);
    int64_t da = ia >= 0 ? A->dims[ia] : 1, db = ib >= 0 ? B->dims[ib] : 1;
    if (da != db && da != 1 && db != 1) return ld_error(L, "batch dimensions do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  out[r - 2] = A->dims[A->rank - 2], out[r - 1] = B->dims[B->rank - 1];
  if (!ld_set_out(L, 0, r, out)) return false;
  matmul_as_conv(L);
  return true;
}

bool shape_concat(Load *L) {
  if (!ld_need_inputs(L, 1, 1 << 20)) return false;
  const OnnxValue *x = ld_in(L, 0);
  const Onnx__AttributeProto *ax = ld_attr(L->np, "axis");
  if (!ax || !ax->has_i) return ld_error(L, "axis is required");
  int64_t axis = ax->i < 0 ? ax->i + x->rank : ax->i;
  if (axis < 0 || axis >= x->rank) return ld_error(L, "axis %lld is outside rank %d", (long long)ax->i, x->rank);
  int64_t out[ONNX_MAX_RANK];
  memcpy(out, x->dims, sizeof *out * (size_t)x->rank);
  L->node->axis = (int)axis;
  for (int k = 1; k < L->node->nin; k++) {
    if (L->node->in[k] < 0) return ld_error(L, "input %d is absent", k);
    const OnnxValue *y = ld_in(L, k);
    if (y->rank != x->rank) return ld_error(L, "input %d has rank %d, input 0 %d", k, y->rank, x->rank);
    for (int i = 0; i < x->rank; i++)
      if (i != axis && y->dims[i] != x->dims[i]) return ld_error(L, "input %d differs in dimension %d", k, i);
    out[axis] += y->dims[axis];   // (inputs within the bounds: the sum is checked by set_out, not wrapped)
    if (out[axis] > ONNX_MAX_DIM)
      return ld_error(L, "the inputs' dimension %lld adds up to more than %lld", (long long)axis, (long long)ONNX_MAX_DIM);
  }
  return ld_set_out(L, 0, x->rank, out);
}

/* Softmax's axis: opset 13 on normalizes along it alone (default -1);
 * before, the input is seen as 2-D, the dimensions from axis on the second
 * (default 1). */
bool shape_softmax(Load *L) {
  if (!ld_need_inputs(L, 1, 1)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int64_t ax = ld_attr_int(L->np, "axis", L->m->opset >= 13 ? -1 : 1), axis = ax < 0 ? ax + x->rank : ax;
  if (axis < 0 || axis >= x->rank) return ld_error(L, "axis %lld is outside rank %d", (long long)ax, x->rank);
  L->node->axis = (int)axis;
  return ld_same_shape(L);
}

/* A Constant node: its output becomes an initializer (the exporters write
 * Clip's bounds and Reshape's shapes so), and the node is not kept. Its
 * value as a tensor, or as value_float(s) or value_int(s) made into one. */
bool shape_constant(Load *L) {
  const Onnx__NodeProto *np = L->np;
  if (!ld_need_inputs(L, 0, 0)) return false;
  if (L->node->nout != 1 || L->node->out[0] < 0) return ld_error(L, "takes 1 output");
  if (np->n_attribute != 1) return ld_error(L, "takes exactly one value attribute, has %zu", np->n_attribute);
  const Onnx__AttributeProto *at = np->attribute[0];
  const char *name = at->name ? at->name : "";
  Onnx__TensorProto *t = NULL;
  if (strcmp(name, "value") == 0 && at->t) {
    t = at->t;
  } else {
    t = ARENA_NEW(L->a, Onnx__TensorProto);
    onnx__tensor_proto__init(t);
    t->has_data_type = true;
    if (strcmp(name, "value_float") == 0 || strcmp(name, "value_floats") == 0) {
      bool one = strcmp(name, "value_float") == 0;   // a scalar, else a list
      t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
      t->n_float_data = one ? 1 : at->n_floats;
      t->float_data = one ? ARENA_NEW(L->a, float) : at->floats;
      if (one) t->float_data[0] = at->f;
      t->n_dims = !one;
    } else if (strcmp(name, "value_int") == 0 || strcmp(name, "value_ints") == 0) {
      bool one = strcmp(name, "value_int") == 0;
      t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
      t->n_int64_data = one ? 1 : at->n_ints;
      t->int64_data = one ? ARENA_NEW(L->a, int64_t) : at->ints;
      if (one) t->int64_data[0] = at->i;
      t->n_dims = !one;
    } else {
      return ld_error(L, "attribute '%s' is not claimed (value, value_float(s) and value_int(s) are)", name);
    }
    if (t->n_dims) {
      t->dims = ARENA_NEW(L->a, int64_t);
      t->dims[0] = (int64_t)(t->n_float_data + t->n_int64_data);
    }
  }
  return ld_add_initializer(L, L->node->out[0], t, L->m->values[L->node->out[0]].name);
}

#endif
