/* reference.c: the float64 reference convolution and the error measure (see
 * reference.h for the layouts and the formula).
 *
 * It sits beside the pipeline, not in it: `convgen run` and the tests compute it
 * once per layer and compare every kernel's output with it. The loops go over
 * one output plane at a time, adding one weight times a shifted input row to a
 * row of the plane, so the inner loop walks memory in order (vgg16.conv1_2 is
 * 1.8 G multiply-adds; a per-output loop with a bounds test per tap is several
 * times slower). For every output the terms are still added in the order bias,
 * then ci, r, s, as in the formula. Zero padding is done by clipping each
 * shifted row to the input instead of testing every tap. The output planes
 * are independent, so large layers share them out over one thread per CPU
 * (each plane is computed the same way whichever thread does it).
 */
#include "conv/reference.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>

/* The output columns x whose input column x*stride - pad + s lies in [0, w):
 * [*lo, *hi). Empty (lo >= hi) when the tap only ever reads padding. */
static void clip_cols(const Layer *l, int s, int *lo, int *hi) {
  s *= l->dil_w;   // the tap's column in the dilated window
  int first = l->pad_w - s;   // x*stride_w >= first
  int last = l->w - 1 + l->pad_w - s;   // x*stride_w <= last
  *lo = first <= 0 ? 0 : (first + l->stride_w - 1) / l->stride_w;
  *hi = last < 0 ? 0 : last / l->stride_w + 1;
  if (*hi > l->out_w) *hi = l->out_w;
}

/* plane[y][x] += wv * image[y*stride_h - pad_h + r*dil_h][x*stride_w - pad_w + s*dil_w]
 * over every output position whose input lies inside the image. */
static void add_tap(const Layer *l, const float *image, double wv, int r, int s, double *plane) {
  int lo, hi;
  clip_cols(l, s, &lo, &hi);
  if (lo >= hi) return;
  for (int y = 0; y < l->out_h; y++) {
    int iy = y * l->stride_h - l->pad_h + r * l->dil_h;
    if (iy < 0 || iy >= l->h) continue;
    const float *row = image + (size_t)iy * l->w + (lo * l->stride_w - l->pad_w + s * l->dil_w);  // input of x = lo
    double *o = plane + (size_t)y * l->out_w;
    for (int x = lo; x < hi; x++) o[x] += wv * (double)row[(size_t)(x - lo) * l->stride_w];
  }
}

/* One output plane: the bias plus the residual (res: the plane's, NULL
 * without), then every (ci, r, s) tap of the plane's group (img: its first
 * input channel; sc: its channels' scales, NULL without), then the
 * activation. A scaled tap adds wt * (x * scale): the scale's product is
 * the input's, as the fused layer defines it. */
static void conv_plane(const Layer *l, const float *img, const float *sc, const float *wk, double b, const float *res,
                       double *plane) {
  size_t hw = (size_t)l->h * l->w, ohw = (size_t)l->out_h * l->out_w;
  for (size_t i = 0; i < ohw; i++) plane[i] = res ? b + (double)res[i] : b;
  for (int ci = 0; ci < layer_group_c(l); ci++)
    for (int r = 0; r < l->kh; r++)
      for (int s = 0; s < l->kw; s++)
        add_tap(l, img + ci * hw, (double)wk[((size_t)ci * l->kh + r) * l->kw + s] * (sc ? (double)sc[ci] : 1.0), r, s,
                plane);
  if (l->act == ACT_NONE) return;
  for (size_t i = 0; i < ohw; i++) plane[i] = layer_act_apply(l, plane[i]);   // NaN stays NaN
}

typedef struct Planes {
  const Layer *l;
  const float *in, *wt, *bias, *res, *scale;
  double *out;
  int first, step;   // this thread's planes: first, first + step, ...
} Planes;

static void *conv_planes(void *arg) {
  const Planes *p = arg;
  const Layer *l = p->l;
  size_t img = (size_t)l->c * l->h * l->w, filt = (size_t)layer_group_c(l) * l->kh * l->kw;
  size_t hw = (size_t)l->h * l->w, ohw = (size_t)l->out_h * l->out_w;
  for (int i = p->first; i < l->n * l->k; i += p->step) {
    int b = i / l->k, o = i % l->k, g = o / layer_group_k(l);   // output channel o reads group g's inputs
    const float *sc = l->scale ? p->scale + (size_t)b * l->c + (size_t)g * layer_group_c(l) : NULL;
    conv_plane(l, p->in + b * img + (size_t)g * layer_group_c(l) * hw, sc, p->wt + o * filt,
               l->bias ? (double)p->bias[o] : 0.0, l->residual ? p->res + (size_t)i * ohw : NULL, p->out + (size_t)i * ohw);
  }
  return NULL;
}

enum { REF_MACS_PER_THREAD = 50000000 };   // below this much work per thread, fewer threads

static int threads_for(const Layer *l) {
  double macs = layer_flops(l) / 2;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  double nt = macs / REF_MACS_PER_THREAD + 1;
  if (nt > cpus) nt = (double)cpus;   // cpus -1 (unknown): one thread
  if (nt > CONV_REF_MAX_THREADS) nt = CONV_REF_MAX_THREADS;
  return (int)nt;
}

static void reference_run(const Layer *l, const float *const tensors[CONV_REF_INPUTS], double *out, int nt);

void conv_reference(const Layer *l, const float *in, const float *wt, const float *bias, const float *res, double *out) {
  conv_reference_threads(l, in, wt, bias, res, out, threads_for(l));
}

void conv_reference_threads(const Layer *l, const float *in, const float *wt, const float *bias, const float *res,
                            double *out, int nt) {
  cg_assert(!l->scale);   // its scale: conv_reference_of
  const float *t[CONV_REF_INPUTS] = {in, wt, bias, res, NULL};
  reference_run(l, t, out, nt);
}

void conv_reference_of(const Layer *l, const float *const t[CONV_REF_INPUTS], double *out) {
  reference_run(l, t, out, threads_for(l));
}

static void reference_run(const Layer *l, const float *const tensors[CONV_REF_INPUTS], double *out, int nt) {
  const float *in = tensors[0], *wt = tensors[1], *bias = tensors[2], *res = tensors[3], *scale = tensors[4];
  cg_assert(l->out_h >= 1 && l->out_w >= 1);
  cg_assert(!l->bias || bias);
  cg_assert(!l->residual || res);
  cg_assert(!l->scale || scale);
  if (nt > CONV_REF_MAX_THREADS) nt = CONV_REF_MAX_THREADS;
  if (nt > l->n * l->k) nt = l->n * l->k;
  if (nt < 1) nt = 1;
  Planes part[CONV_REF_MAX_THREADS];
  pthread_t th[CONV_REF_MAX_THREADS];
  bool running[CONV_REF_MAX_THREADS] = {false};
  for (int t = 0; t < nt; t++) {
    part[t] = (Planes){l, in, wt, bias, res, scale, out, t, nt};
    running[t] = t > 0 && pthread_create(&th[t], NULL, conv_planes, &part[t]) == 0;
  }
  for (int t = 0; t < nt; t++)   // this thread's share, and that of any thread that could not start
    if (!running[t]) conv_planes(&part[t]);
  for (int t = 0; t < nt; t++)
    if (running[t]) pthread_join(th[t], NULL);
}

double conv_rel_l2(const float *got, const double *ref, size_t n, int64_t *nonfinite) {
  double diff2 = 0, ref2 = 0;
  int64_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(got[i])) {
      bad++;
      continue;
    }
    double dd = (double)got[i] - ref[i];
    diff2 += dd * dd;
    ref2 += ref[i] * ref[i];
  }
  if (nonfinite) *nonfinite = bad;
  if (bad) return INFINITY;
  return ref2 == 0 ? sqrt(diff2) : sqrt(diff2) / sqrt(ref2);
}

void conv_ref_inputs(const Layer *l, const float *const *inputs, const float *out[CONV_REF_INPUTS]) {
  const bool has[CONV_REF_INPUTS] = {true, true, l->bias, l->residual, l->scale};
  for (int i = 0, k = 0; i < CONV_REF_INPUTS; i++) out[i] = has[i] ? inputs[k++] : NULL;
}

bool conv_reference_fn(void *ctx, const float *const *inputs, double *out, Diag *d) {
  const Layer *l = ctx;
  (void)d;
  const float *t[CONV_REF_INPUTS];
  conv_ref_inputs(l, inputs, t);
  conv_reference_of(l, t, out);
  return true;
}
