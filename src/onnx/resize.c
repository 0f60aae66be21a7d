/* resize.c: Resize (docs/onnx.md, "Resize"): nearest and linear
 * interpolation along any axes, with ONNX's coordinate transformation
 * modes, as the shape rule reads them at import and as a program of the IR.
 *
 * Along a resized axis of input length d and output length c, output
 * place i reads the input at the coordinate x(i) the mode gives. With the
 * scale a ratio p/q (sizes given: c/d; scales given: the float's ratio),
 * every mode's x(i) is a ratio of integers, (num * i + off) / den:
 *   half_pixel            (i + 1/2) q/p - 1/2   = (2q i + q - p) / 2p
 *   pytorch_half_pixel    the same, or -1/2 when c is 1
 *   align_corners         i (d - 1)/(c - 1)     (0 when c is 1)
 *   asymmetric            i q/p
 *   tf_half_pixel_for_nn  (i + 1/2) q/p         = (2q i + q) / 2p
 * so the places read are floor divisions of integers, which a gather's
 * index function computes exactly (no float rounding decides a place):
 * nearest's rounding modes are floor((A i + B) / D) for their A, B, D
 * (round_prefer_floor, ceil(x - 1/2), is floor((2 num i + 2 off + den -
 * 1) / 2 den); corner_view), and
 * linear reads floor(x) and floor(x) + 1, both clamped to the input as
 * ONNX's reference and PyTorch do at the edges, weighted by x - floor(x)
 * (0 where x < 0), weights computed here in double and given to the
 * program as arrays. The program: nearest is one view of the input (pad
 * to the longer length, gather, crop) copied; linear the 2^k views of the
 * corners of k resized axes and k weight arrays zipped into a userfun of
 * nested interpolations, one work-item per output element. */
#include "onnx/rows.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { NEAREST_FLOOR, NEAREST_CEIL, NEAREST_ROUND_PREFER_FLOOR, NEAREST_ROUND_PREFER_CEIL };
enum { RESIZE_MAX_LINEAR_AXES = 3 };   // 2^3 corners + 3 weights: within a zip's OP_MAX_INPUTS fields

/* The place an axis reads for output place i: floor((num i + off) / den). */
static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

#ifdef CONVGEN_ONNX
#include "onnx/load.h"

/* Input k present and holding values (an empty tensor stands for an absent
 * one in the exporters' models). */
static bool given(Load *L, int k) { return ld_has_input(L, k) && onnx_elems(ld_in(L, k)) > 0; }

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

/* The float scale s as p/q: the simplest ratio with q up to 4096 that is s
 * in float (2, 1/2, 3/2, 1/3...), else the float's exact binary ratio;
 * false when that needs more than 2^24 in p or q. */
static bool scale_ratio(float s, int64_t *p, int64_t *q) {
  for (int64_t d = 1; d <= 4096; d++) {
    double n = nearbyint((double)s * (double)d);
    if (n >= 1 && n <= (double)(1 << 24) && (float)(n / (double)d) == s) {
      *p = (int64_t)n, *q = d;
      return true;
    }
  }
  int e = 0;
  double f = frexp((double)s, &e);   // s = f 2^e, f in [1/2, 1): 24 significant bits
  int64_t num = (int64_t)ldexp(f, 24);
  e -= 24;                           // s = num 2^e
  if (e > 0 || e < -48) return false;
  int64_t den = INT64_C(1) << -e;
  int64_t g = gcd64(num, den);
  *p = num / g, *q = den / g;
  return *p <= (1 << 24) && *q <= (1 << 24);
}

bool shape_resize(Load *L) {
  int64_t opset = L->m->opset;
  if (!ld_need_inputs(L, opset >= 11 && opset < 13 ? 3 : opset >= 13 ? 1 : 2, opset >= 11 ? 4 : 2)) return false;
  const OnnxValue *x = ld_in(L, 0);
  int r = x->rank;
  OnnxResize *z = ARENA_NEW(L->a, OnnxResize);
  const Onnx__NodeProto *np = L->np;
  const char *mode = ld_attr_string(L->a, np, "mode", "nearest");
  const char *coord = ld_attr_string(L->a, np, "coordinate_transformation_mode", opset >= 11 ? "half_pixel" : "asymmetric");
  const char *nearest = ld_attr_string(L->a, np, "nearest_mode", opset >= 11 ? "round_prefer_floor" : "floor");
  const char *policy = ld_attr_string(L->a, np, "keep_aspect_ratio_policy", "stretch");
  if (strcmp(mode, "nearest") != 0 && strcmp(mode, "linear") != 0 && strcmp(mode, "cubic") != 0)
    return ld_error(L, "mode '%s' is not one of nearest, linear and cubic", mode);
  z->linear = strcmp(mode, "linear") == 0;
  static const char *const NEAREST[] = {"floor", "ceil", "round_prefer_floor", "round_prefer_ceil"};
  z->nearest = -1;
  for (int i = 0; i < 4; i++)
    if (strcmp(nearest, NEAREST[i]) == 0) z->nearest = i;
  if (z->nearest < 0) return ld_error(L, "nearest_mode '%s' is not one of floor, ceil, round_prefer_floor and "
                                         "round_prefer_ceil", nearest);
  static const char *const COORD[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                      "tf_half_pixel_for_nn", "half_pixel_symmetric", "tf_crop_and_resize"};
  int cm = -1;
  for (int i = 0; i < 7; i++)
    if (strcmp(coord, COORD[i]) == 0) cm = i;
  if (cm < 0) return ld_error(L, "coordinate_transformation_mode '%s' is not an ONNX mode", coord);
  if (strcmp(mode, "cubic") == 0) z->why = "mode 'cubic' (nearest and linear are run)";
  else if (ld_attr_int(np, "antialias", 0)) z->why = "antialias 1 (an interpolation over more than two places)";
  else if (cm >= 5) z->why = arena_printf(L->a, "coordinate_transformation_mode '%s'", coord);

  // the axes (opset 18 on) and, per axis, the scale or the output's length
  int64_t axes[ONNX_MAX_RANK];
  int na = ld_attr_ints(np, "axes", axes, ONNX_MAX_RANK);
  if (na > r) return ld_error(L, "axes has %d values for rank %d", na, r);
  bool listed[ONNX_MAX_RANK] = {0};
  if (na < 0) {
    na = r;
    for (int i = 0; i < r; i++) axes[i] = i;
  }
  for (int k = 0; k < na; k++) {
    int64_t a = axes[k] < 0 ? axes[k] + r : axes[k];
    if (a < 0 || a >= r || listed[a]) return ld_error(L, "axes must name distinct axes of rank %d", r);
    listed[a] = true, axes[k] = a;
  }
  int ks = opset >= 11 ? 2 : 1;
  bool by_scales = given(L, ks), by_sizes = opset >= 11 && given(L, 3);
  if (by_scales == by_sizes) return ld_error(L, "exactly one of scales and sizes must be given (non-empty)");
  int k = by_scales ? ks : 3;
  if (!ld_need_init(L, k, by_scales ? "scales" : "sizes")) return false;
  if (onnx_elems(ld_in(L, k)) != na || ld_in(L, k)->rank != 1)
    return ld_error(L, "%s must hold one value per resized axis (%d)", by_scales ? "scales" : "sizes", na);
  if (by_sizes && strcmp(policy, "stretch") != 0)
    z->why = arena_printf(L->a, "keep_aspect_ratio_policy '%s'", policy);
  int64_t out[ONNX_MAX_RANK], p[ONNX_MAX_RANK], q[ONNX_MAX_RANK];
  for (int i = 0; i < r; i++) out[i] = x->dims[i], p[i] = q[i] = 1;
  for (int j = 0; j < na; j++) {
    int a = (int)axes[j];
    int64_t d = x->dims[a];
    if (by_sizes) {
      int64_t c = 0;
      if (!ld_init_i64(L->init[L->node->in[3]], j, &c)) return ld_error(L, "sizes must be an int64 tensor");
      if (c < 1 || c > ONNX_MAX_DIM) return ld_error(L, "sizes[%d] is %lld, not 1 to 2^31 - 1", j, (long long)c);
      if (d < 1) return ld_error(L, "axis %d is empty", a);
      int64_t g = gcd64(c, d);
      out[a] = c, p[a] = c / g, q[a] = d / g;
    } else {
      const float *s = ld_in(L, ks)->data;
      if (!s) return ld_error(L, "scales must be a float tensor");
      if (!(s[j] > 0) || !isfinite(s[j])) return ld_error(L, "scales[%d] is %g, not a positive number", j, (double)s[j]);
      double c = floor((double)d * (double)s[j]);
      if (c < 1 || c > (double)ONNX_MAX_DIM)
        return ld_error(L, "scales[%d] %g makes axis %d of length %.0f, not 1 to 2^31 - 1", j, (double)s[j], a, c);
      if (!scale_ratio(s[j], &p[a], &q[a])) return ld_error(L, "scales[%d] %g is not a ratio of integers below 2^24", j,
                                                         (double)s[j]);
      out[a] = (int64_t)c;
    }
  }
  // each axis's coordinate as (num i + off) / den, its integers bounded so
  // that the kernels' int index arithmetic cannot wrap
  for (int a = 0; a < r; a++) {
    int64_t d = x->dims[a], c = out[a], num, off, den;
    switch (cm) {
    case 0: num = 2 * q[a], off = q[a] - p[a], den = 2 * p[a]; break;   // half_pixel
    case 1:                                                              // pytorch_half_pixel
      if (c == 1) num = 0, off = -1, den = 2;
      else num = 2 * q[a], off = q[a] - p[a], den = 2 * p[a];
      break;
    case 2:   // align_corners
      if (c == 1) num = 0, off = 0, den = 1;
      else num = d - 1, off = 0, den = c - 1;
      break;
    case 3: num = q[a], off = 0, den = p[a]; break;                      // asymmetric
    default: num = 2 * q[a], off = q[a], den = 2 * p[a]; break;          // tf_half_pixel_for_nn (others refused)
    }
    if (c == d && p[a] == q[a]) num = 1, off = 0, den = 1;   // a scale of 1: the axis as it is, in every mode
    int64_t g = gcd64(gcd64(num, off < 0 ? -off : off), den);
    z->num[a] = num / g, z->off[a] = off / g, z->den[a] = den / g;
    int64_t span = (c > d ? c : d) + 1;
    if (2 * z->num[a] * span + 2 * (z->off[a] < 0 ? -z->off[a] : z->off[a]) + 4 * z->den[a] > INT32_MAX)
      return ld_error(L, "axis %d's coordinates need integers past 2^31 (lengths %lld and %lld)", a, (long long)d,
                      (long long)c);
  }
  L->node->resize = z;
  L->node->detail = z->linear ? arena_printf(L->a, "linear, %s", coord)
                              : arena_printf(L->a, "nearest, %s, %s", coord, nearest);
  return ld_set_out(L, 0, r, out);
}

#endif

/* The axes the node resizes, into axes; their count. An axis whose every
 * place reads itself is not one (the shape rule makes a scale of 1 that). */
static int resized_axes(const OnnxResize *z, const OnnxValue *x, const OnnxValue *y, int *axes) {
  int k = 0;
  for (int a = 0; a < x->rank; a++)
    if (y->dims[a] != x->dims[a] || z->num[a] != z->den[a] || z->off[a] != 0) axes[k++] = a;
  return k;
}

const char *refuse_resize(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  const OnnxResize *z = n->resize;
  if (z->why) return z->why;
  int axes[ONNX_MAX_RANK], k = resized_axes(z, &m->values[n->in[0]], &m->values[n->out[0]], axes);
  if (z->linear && k > RESIZE_MAX_LINEAR_AXES)
    return arena_printf(a, "linear interpolation along %d axes (at most %d)", k, RESIZE_MAX_LINEAR_AXES);
  return NULL;
}

/* The view that reads, along axis a (input length d, output length c),
 * place floor((A i + B) / D) clamped to [0, d - 1] for output place i:
 * padded by repetition to the longer length first (the gather reads inside
 * it), the extra places cropped after. B is made non-negative by adding K
 * D (index arithmetic is over non-negative values, arith.h). */
static void read_places(Arena *ar, StrBuf *view, int a, int64_t d, int64_t c, int64_t A, int64_t B, int64_t D) {
  int64_t K = B < 0 ? (-B + D - 1) / D : 0, B1 = B + K * D, n = c > d ? c : d;
  int64_t lo = B1 / D, hi = (A * (n - 1) + B1) / D;   // M's range over the gathered length
  const char *M = arena_printf(ar, "(%lld * i + %lld) / %lld", (long long)A, (long long)B1, (long long)D);
  const char *top = hi - K > d - 1 ? arena_printf(ar, "(%s < %lld ? %s - %lld : %lld)", M, (long long)(K + d - 1), M,
                                                  (long long)K, (long long)(d - 1))
                                   : arena_printf(ar, "%s - %lld", M, (long long)K);
  const char *f = lo < K ? arena_printf(ar, "%s < %lld ? 0 : %s", M, (long long)K, top) : top;
  if (c > d) op_at_depth(view, a, arena_printf(ar, "pad[0, %lld, clamp]", (long long)(c - d)));
  op_at_depth(view, a, arena_printf(ar, "gather[(i, n) -> %s]", f));
  if (c < d) op_at_depth(view, a, arena_printf(ar, "pad[0, 0 - %lld, 0.0f]", (long long)(d - c)));
}

/* Input x seen through each resized axis's places (corner: bit j for the
 * j-th resized axis reading floor(x) + 1 instead of floor(x)), flattened. */
static void corner_view(Arena *ar, StrBuf *view, const OnnxResize *z, const OnnxValue *x, const OnnxValue *y,
                        const int *axes, int k, unsigned corner) {
  sb_puts(view, "x");
  for (int j = 0; j < k; j++) {
    int a = axes[j];
    int64_t A = z->num[a], B = z->off[a], D = z->den[a];
    if (!z->linear) {   // nearest's rounding of x = (A i + B) / D as a floor division
      switch (z->nearest) {
      case NEAREST_FLOOR: break;
      case NEAREST_CEIL: B += D - 1; break;                              // ceil(x) = floor((A i + B + D - 1) / D)
      case NEAREST_ROUND_PREFER_FLOOR: A *= 2, B = 2 * B + D - 1, D *= 2; break;   // ceil(x - 1/2)
      default: A *= 2, B = 2 * B + D, D *= 2; break;                               // floor(x + 1/2)
      }
    } else if (corner >> (k - 1 - j) & 1) {
      B += D;   // floor(x) + 1
    }
    read_places(ar, view, a, x->dims[a], y->dims[a], A, B, D);
  }
  for (int i = 1; i < x->rank; i++) sb_puts(view, " |> join");
}

/* The weight of floor(x) + 1 at each output place of axis a: x - floor(x),
 * 0 where x < 0 (both places read are then place 0). */
static float *axis_weights(Arena *ar, const OnnxResize *z, int a, int64_t c) {
  float *w = ARENA_ARRAY(ar, float, (size_t)c);
  for (int64_t i = 0; i < c; i++) {
    int64_t n = z->num[a] * i + z->off[a];
    w[i] = n < 0 ? 0.0f : (float)((double)(n - floor_div(n, z->den[a]) * z->den[a]) / (double)z->den[a]);
  }
  return w;
}

/* The interpolation of corners [first, first + 2^left) over the last left
 * resized axes, as C: (1 - w) lo + w hi along the outermost of them. */
static void lerp_c(StrBuf *f, int k, int left, unsigned first) {
  if (left == 0) {
    sb_printf(f, "c%u", first);
    return;
  }
  int j = k - left;
  unsigned half = 1u << (left - 1);
  sb_printf(f, "(1.0f - w%d) * (", j);
  lerp_c(f, k, left - 1, first);
  sb_printf(f, ") + w%d * (", j);
  lerp_c(f, k, left - 1, first + half);
  sb_putc(f, ')');
}

void program_resize(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p) {
  const OnnxResize *z = n->resize;
  const OnnxValue *x = &m->values[n->in[0]], *y = &m->values[n->out[0]];
  int axes[ONNX_MAX_RANK], k = resized_axes(z, x, y, axes);
  op_declare(t, "x", x);
  op_add_value(p, "x", host, n->in[0]);
  if (!z->linear || k == 0) {
    StrBuf v;
    sb_init(&v);
    corner_view(a, &v, z, x, y, axes, k, 0);
    op_copy_out(t, &v, 1);   // (corner_view flattened it)
    sb_free(&v);
    return;
  }
  StrBuf f, args;
  sb_init(&f), sb_init(&args);
  unsigned corners = 1u << k;
  sb_puts(t, "userfun lerp(");
  for (unsigned c = 0; c < corners; c++) {
    sb_printf(t, "%sc%u: float", c ? ", " : "", c);
    sb_puts(&args, c ? ", " : "");
    corner_view(a, &args, z, x, y, axes, k, c);
  }
  for (int j = 0; j < k; j++) {
    sb_printf(t, ", w%d: float", j);
    OnnxValue wv = {.rank = x->rank};   // the weights as [1, .., c, .., 1], broadcast to the output
    for (int i = 0; i < x->rank; i++) wv.dims[i] = i == axes[j] ? y->dims[i] : 1;
    StrBuf w;
    sb_init(&w);
    const char *name = arena_printf(a, "w%d", j);
    op_flat_input(&f, &w, name, &wv, y);
    sb_printf(&args, ", %s", sb_str(&w));
    sb_free(&w);
    op_add_input(p, name, axis_weights(a, z, axes[j], y->dims[axes[j]]));
  }
  sb_puts(t, "): float { return ");
  StrBuf body;
  sb_init(&body);
  lerp_c(&body, k, k, 0);
  sb_printf(t, "%s; }\n%sout = zip(%s) |> mapGlb[0, lerp]\n", sb_str(&body), sb_str(&f), sb_str(&args));
  sb_free(&body), sb_free(&f), sb_free(&args);
}
