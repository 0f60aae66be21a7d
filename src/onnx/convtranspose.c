/* convtranspose.c: ONNX's ConvTranspose, derived at import as a
 * convolution (docs/onnx.md, "ConvTranspose"):
 *
 *   ConvTranspose(x, W, stride s, pads, dilation d, output_padding, group g)
 *     = Conv(z, W', stride 1, dilation d, pads')
 *   z     = x with s - 1 zeros between neighbours along each spatial axis
 *   W'    = W with each kernel reversed along both axes and its channel
 *           axes swapped per group: [C, K/g, kh, kw] -> [K, C/g, kh, kw]
 *   pads' = d (k - 1) - pad_begin before, d (k - 1) - pad_end +
 *           output_padding after; a negative one crops z instead
 *
 * The row's shape rule checks the node, resolves its pads (pads, auto_pad,
 * output_shape) and rewrites it (ld_rewrite): a layout node making W' when
 * W is not a constant (a constant W's W' is computed here, an initializer),
 * a layout node making z when a stride is past 1 or pads' crops, then a
 * node of the Conv row whose layer ld_conv_layer makes as it makes every
 * Conv's. Fusion, the tuner and the strategies see an ordinary convolution.
 * The layout nodes run the row's program, views copied by one kernel: zeros
 * inserted by split, pad and join (the zeros are the pad's constant 0.0f),
 * W' by split, transpose, join and a reversing gather. */
#include "onnx/rows.h"

#include <stdio.h>
#include <string.h>

#ifdef CONVGEN_ONNX
#include "onnx/load.h"

static int64_t floor_half(int64_t t) { return t >= 0 ? t / 2 : -((-t + 1) / 2); }

/* The pads (begin h, begin w, end h, end w) of node's output as ONNX says
 * (its reference evaluator agrees): given; or from the output's size, which
 * output_shape gives or auto_pad SAME_* makes in * s, the total padding
 * full - size split with the odd one at the end (SAME_UPPER) or the start
 * (SAME_LOWER). full is each axis's output without pads; a total padding
 * may be negative (the output longer than full: zeros and the bias there). */
static bool resolve_pads(Load *L, const int64_t *in, const int64_t *st, const int64_t *full, int64_t *pads) {
  const char *ap = ld_attr_string(L->a, L->np, "auto_pad", "NOTSET");
  bool notset = strcmp(ap, "NOTSET") == 0, upper = strcmp(ap, "SAME_UPPER") == 0, lower = strcmp(ap, "SAME_LOWER") == 0;
  if (!notset && !upper && !lower && strcmp(ap, "VALID") != 0)
    return ld_error(L, "auto_pad '%s' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER", ap);
  int64_t given[4] = {0, 0, 0, 0}, shape[2];
  int np = ld_attr_ints(L->np, "pads", given, 4), ns = ld_attr_ints(L->np, "output_shape", shape, 2);
  if (np >= 0 && np != 4) return ld_error(L, "pads has %d values, a 2-D ConvTranspose takes 4", np);
  if (np >= 0 && !notset) return ld_error(L, "pads and auto_pad %s are both given", ap);
  for (int i = 0; i < 4 && np >= 0; i++)
    if (given[i] < 0 || given[i] > INT32_MAX)
      return ld_error(L, "pads[%d] = %lld is not 0 to %d", i, (long long)given[i], INT32_MAX);
  if (ns >= 0 && ns != 2)
    return ld_error(L, "output_shape has %d values; a 2-D ConvTranspose takes its 2 spatial dimensions", ns);
  for (int i = 0; i < 2; i++) {
    if (ns < 0 && !upper && !lower) {   // NOTSET (pads or none), VALID
      pads[i] = given[i], pads[i + 2] = given[i + 2];
      continue;
    }
    int64_t want = ns >= 0 ? shape[i] : in[i] * st[i];
    if (want < 1 || want > ONNX_MAX_DIM)
      return ld_error(L, "an output of %lld along axis %d (%s) is not 1 to %lld", (long long)want, i + 2,
                      ns >= 0 ? "output_shape" : "auto_pad", (long long)ONNX_MAX_DIM);
    int64_t total = full[i] - want;
    if (np >= 0) {
      if (given[i] + given[i + 2] != total)
        return ld_error(L, "output_shape[%d] = %lld and pads %lld, %lld disagree (these pads make %lld)", i,
                        (long long)want, (long long)given[i], (long long)given[i + 2],
                        (long long)(full[i] - given[i] - given[i + 2]));
      pads[i] = given[i], pads[i + 2] = given[i + 2];
    } else if (upper) {
      pads[i] = floor_half(total), pads[i + 2] = total - pads[i];
    } else if (lower) {
      pads[i + 2] = floor_half(total), pads[i] = total - pads[i + 2];
    } else if (total == 0 || total == -1) {   // where the spec's split and its reference evaluator's agree
      pads[i] = 0, pads[i + 2] = total;
    } else {
      return ld_error(L, "output_shape with auto_pad %s leaves a padding of %lld along axis %d, which ONNX's spec "
                      "splits between both ends and its reference evaluator puts at the end: give pads, or auto_pad "
                      "SAME_UPPER or SAME_LOWER", ap, (long long)total, i + 2);
    }
  }
  return true;
}

/* W [c, kg, kh, kw] of g groups as a convolution's [g kg, c / g, kh, kw],
 * each kernel reversed (both axes reversed is its kh kw elements reversed). */
static void flip_weights(const float *w, float *out, int64_t c, int64_t kg, int64_t g, int64_t khw) {
  int64_t cg = c / g;
  for (int64_t ci = 0; ci < c; ci++)
    for (int64_t m = 0; m < kg; m++)
      for (int64_t t = 0; t < khw; t++)
        out[((ci / cg * kg + m) * cg + ci % cg) * khw + khw - 1 - t] = w[(ci * kg + m) * khw + t];
}

/* Node nd made a node of row def named name, reading nin values in, writing
 * value out of the shape dims (rank 4). */
static bool make_node(Load *L, OnnxNode *nd, const OpDef *def, const char *name, int nin, const int *in, int out,
                      const int64_t *dims) {
  nd->def = def, nd->op = def->name, nd->name = name;
  nd->nin = nin, nd->in = ARENA_ARRAY(L->a, int, (size_t)nin + 1);
  memcpy(nd->in, in, sizeof *in * (size_t)nin);
  nd->nout = 1, nd->out = ARENA_ARRAY(L->a, int, 1);
  nd->out[0] = out;
  L->node = nd;
  return ld_set_out(L, 0, 4, dims);
}

/* The value of W' (its dims wd) computed from the constant W here, an initializer. */
static int constant_weights(Load *L, const char *name, int wv, int64_t g, const int64_t *wd) {
  const OnnxValue *w = &L->m->values[wv];
  int64_t n = wd[0] * wd[1] * wd[2] * wd[3];   // (W's elements: within the bounds)
  Onnx__TensorProto *t = ARENA_NEW(L->a, Onnx__TensorProto);
  onnx__tensor_proto__init(t);
  t->has_data_type = true, t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  t->n_dims = 4, t->dims = ARENA_ARRAY(L->a, int64_t, 4);
  memcpy(t->dims, wd, sizeof *wd * 4);
  t->n_float_data = (size_t)n, t->float_data = ARENA_ARRAY(L->a, float, (size_t)n + 1);
  flip_weights(w->data, t->float_data, w->dims[0], w->dims[1], g, wd[2] * wd[3]);
  int v = ld_new_value(L, name);
  t->name = (char *)L->m->values[v].name;
  return ld_add_initializer(L, v, t, t->name) ? v : -1;
}

/* The node in hand, checked (layer l, output dims out, its zeros' layout
 * z), made into its layout nodes and a Conv. */
static bool rewrite(Load *L, OnnxConvT *z, const Layer *l, const int64_t *out) {
  OnnxNode ct = *L->node;   // X, W [, B] -> Y, as read
  const OnnxValue *w = &L->m->values[ct.in[1]];
  if (w->initializer && !w->data) return ld_error(L, "W ('%s') is not a float32 tensor", w->name);
  bool computed = !w->data, zeros = z->stride[0] > 1 || z->stride[1] > 1;
  for (int i = 0; i < 4; i++) zeros = zeros || z->crop[i];
  int64_t g = l->groups, wd[4] = {l->k, l->c / g, l->kh, l->kw}, xd[4] = {l->n, l->c, l->h, l->w};
  const OpDef *row = ct.def, *conv = op_def("Conv");
  const char *wname = arena_printf(L->a, "%s:weights", ct.name), *zname = arena_printf(L->a, "%s:zeros", ct.name);
  int wv = computed ? ld_new_value(L, wname) : constant_weights(L, wname, ct.in[1], g, wd), xv = ct.in[0];
  if (wv < 0) return false;
  OnnxNode *nd = ld_rewrite(L, computed + zeros + 1);
  if (computed) {   // W' at run time, by this row's program
    OnnxConvT *c = ARENA_NEW(L->a, OnnxConvT);
    *c = (OnnxConvT){.weights = true, .group = g};
    nd->convt = c, nd->detail = "W [C, K/group, kh, kw] as a convolution's [K, C/group, kh, kw], kernels reversed";
    if (!make_node(L, nd++, row, wname, 1, &ct.in[1], wv, wd)) return false;
  }
  if (zeros) {
    int zv = ld_new_value(L, zname);
    nd->convt = z;
    bool crop = z->crop[0] || z->crop[1] || z->crop[2] || z->crop[3];
    nd->detail = arena_printf(L->a, "zeros inserted, stride %lldx%lld", (long long)z->stride[0], (long long)z->stride[1]);
    if (crop)
      nd->detail = arena_printf(L->a, "%s, cropped %lld,%lld,%lld,%lld", nd->detail, (long long)z->crop[0],
                                (long long)z->crop[1], (long long)z->crop[2], (long long)z->crop[3]);
    if (!make_node(L, nd++, row, zname, 1, &ct.in[0], zv, xd)) return false;
    xv = zv;
  }
  int in[3] = {xv, wv, ct.nin > 2 ? ct.in[2] : -1};
  if (!make_node(L, nd, conv, ct.name, l->bias ? 3 : 2, in, ct.out[0], out)) return false;
  nd->layer = *l, nd->is_conv = true, nd->detail = "";
  snprintf(nd->layer.name, sizeof nd->layer.name, "%s", ct.name);
  nd->from = arena_printf(L->a, "from ConvTranspose (stride %lldx%lld%s; its weights flipped%s)",
                          (long long)z->stride[0], (long long)z->stride[1], zeros ? ": zeros inserted" : "",
                          computed ? " by a node" : " at import");
  return true;
}

bool shape_convtranspose(Load *L) {
  if (!ld_need_inputs(L, 2, 3)) return false;
  const OnnxValue *x = ld_in(L, 0), *w = ld_in(L, 1);
  if (x->rank != 4)
    return ld_error(L, "X has rank %d%s: convgen takes the 2-D ConvTranspose (NCHW, rank 4), as it takes the 2-D Conv",
                    x->rank, x->rank >= 3 && x->rank != 4 ? arena_printf(L->a, " (a %d-D ConvTranspose)", x->rank - 2) : "");
  if (!ld_need_rank(L, 1, 4, "W")) return false;
  bool bias = ld_has_input(L, 2);
  if (bias && !ld_need_rank(L, 2, 1, "B")) return false;
  if (L->node->nout != 1) return ld_error(L, "takes 1 output, has %d", L->node->nout);
  if (L->node->out[0] < 0) return ld_error(L, "its output has no name");
  int64_t g = ld_attr_int(L->np, "group", 1), c = x->dims[1];
  if (g < 1 || g > INT32_MAX || c % g)
    return ld_error(L, "group=%lld does not divide the input channels (%lld)", (long long)g, (long long)c);
  if (w->dims[0] != c)
    return ld_error(L, "W has %lld input channels (its first dimension), X %lld", (long long)w->dims[0], (long long)c);
  int64_t k = w->dims[1] * g;   // (each at most 2^31 - 1: no wrap)
  if (bias && ld_in(L, 2)->dims[0] != k)
    return ld_error(L, "B has %lld values for %lld output channels", (long long)ld_in(L, 2)->dims[0], (long long)k);
  int64_t ks[2] = {w->dims[2], w->dims[3]}, given[2], st[2] = {1, 1}, dil[2] = {1, 1}, op[2] = {0, 0};
  int nk = ld_attr_ints(L->np, "kernel_shape", given, 2);
  if (nk >= 0 && (nk != 2 || given[0] != ks[0] || given[1] != ks[1]))
    return ld_error(L, "kernel_shape does not match W's %lldx%lld", (long long)ks[0], (long long)ks[1]);
  int nst = ld_attr_ints(L->np, "strides", st, 2), ndil = ld_attr_ints(L->np, "dilations", dil, 2),
      nop = ld_attr_ints(L->np, "output_padding", op, 2);
  if ((nst >= 0 && nst != 2) || (ndil >= 0 && ndil != 2) || (nop >= 0 && nop != 2))
    return ld_error(L, "strides, dilations and output_padding take 2 values for a 2-D ConvTranspose");
  int64_t full[2], lz[2];
  for (int i = 0; i < 2; i++) {   // checked before any use, so that nothing below wraps
    if (st[i] < 1 || dil[i] < 1 || st[i] > INT32_MAX || dil[i] > INT32_MAX || ks[i] < 1 || op[i] < 0 || op[i] > INT32_MAX)
      return ld_error(L, "strides and dilations must be 1 to %d, output_padding 0 to %d and W's kernel at least 1x1 "
                      "(got strides %lld, dilations %lld, output_padding %lld, kernel %lld)", INT32_MAX, INT32_MAX,
                      (long long)st[i], (long long)dil[i], (long long)op[i], (long long)ks[i]);
    int64_t ext = (ks[i] - 1) * dil[i] + 1;
    lz[i] = st[i] * (x->dims[2 + i] - 1) + 1;
    if (ext > ONNX_MAX_DIM || lz[i] > ONNX_MAX_DIM)
      return ld_error(L, "the kernel's extent (%lld) or X with its zeros inserted (%lld) along axis %d is past %lld",
                      (long long)ext, (long long)lz[i], i + 2, (long long)ONNX_MAX_DIM);
    full[i] = lz[i] - 1 + op[i] + ext;
  }
  int64_t pads[4];
  if (!resolve_pads(L, x->dims + 2, st, full, pads)) return false;
  OnnxConvT *z = ARENA_NEW(L->a, OnnxConvT);
  int64_t cpads[4], zd[4] = {x->dims[0], c, 0, 0}, out[4] = {x->dims[0], k, 0, 0}, one[2] = {1, 1};
  for (int i = 0; i < 2; i++) {
    out[2 + i] = full[i] - pads[i] - pads[i + 2];
    if (out[2 + i] < 1)
      return ld_error(L, "its pads leave an output of %lld along axis %d", (long long)out[2 + i], i + 2);
    int64_t ext = (ks[i] - 1) * dil[i] + 1, b = ext - 1 - pads[i], e = ext - 1 - pads[i + 2] + op[i];   // pads'
    z->stride[i] = st[i], z->crop[i] = b < 0 ? -b : 0, z->crop[i + 2] = e < 0 ? -e : 0;
    cpads[i] = b < 0 ? 0 : b, cpads[i + 2] = e < 0 ? 0 : e;
    zd[2 + i] = lz[i] - z->crop[i] - z->crop[i + 2];
    if (zd[2 + i] < 1)
      return ld_error(L, "its pads (%lld, %lld) crop away every element of X along axis %d", (long long)pads[i],
                      (long long)pads[i + 2], i + 2);
  }
  Layer l;
  Diag d = {0};
  if (!ld_conv_layer(zd, k, ks, one, dil, cpads, g, bias, &l, &d))
    return ld_error(L, "the convolution it becomes is not a layer convgen takes: %s", d.msg);
  if (l.out_h != out[2] || l.out_w != out[3])
    cg_die("shape_convtranspose: node %s: the derived convolution makes %dx%d, ONNX's rule %lldx%lld", L->node->name,
           l.out_h, l.out_w, (long long)out[2], (long long)out[3]);
  return rewrite(L, z, &l, out);
}

#endif

/* ---- The layout nodes' program ---- */

/* W' (weights): W [C][K/g][kh][kw] split into groups [g][C/g][K/g][kh][kw],
 * each group's channel axes swapped, each kernel's kh kw elements joined
 * and reversed. X's zeros inserted: along each spatial axis of length n past
 * 1, each element split off as [1], padded with s - 1 zeros after it and the
 * rows joined (n s), the s - 1 zeros after the last cropped with the
 * crop's own; so a place reads x only where its index is a multiple of s,
 * and is the pad's constant 0.0f, an exact zero, everywhere else. */
void program_convtranspose(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxValue *x = &m->values[n->in[0]];
  const OnnxConvT *c = n->convt;
  StrBuf v;
  sb_init(&v);
  op_declare(t, "x", x);
  sb_puts(&v, "x");
  if (c->weights) {
    op_at_depth(&v, 0, arena_printf(a, "split[%lld]", (long long)(x->dims[0] / c->group)));
    op_at_depth(&v, 1, "transpose");
    op_at_depth(&v, 3, "join");
    if (x->dims[2] * x->dims[3] > 1) op_at_depth(&v, 3, "gather[(i, n) -> n - 1 - i]");
    op_copy_out(t, &v, 4);
  } else {
    for (int i = 0; i < 2; i++) {
      int64_t s = c->stride[i], end = c->crop[2 + i];
      if (s > 1 && x->dims[2 + i] > 1) {
        op_at_depth(&v, 2 + i, "split[1]");
        op_at_depth(&v, 3 + i, arena_printf(a, "pad[0, %lld, 0.0f]", (long long)(s - 1)));
        op_at_depth(&v, 2 + i, "join");
        end += s - 1;
      }
      if (c->crop[i] || end)
        op_at_depth(&v, 2 + i, arena_printf(a, "pad[0 - %lld, 0 - %lld, 0.0f]", (long long)c->crop[i], (long long)end));
    }
    op_copy_out(t, &v, 4);
  }
  sb_free(&v);
  op_add_value(p, "x", host, n->in[0]);
}
