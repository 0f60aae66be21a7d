/* reference.h: the CPU reference convolution that every generated kernel is
 * checked against (docs/design.md sections 5 and 6: correct before timed).
 *
 * Layouts (the external ones of section 6), all dense and row-major:
 *   in   [n][c][h][w]            NCHW, fp32
 *   wt   [k][c/G][kh][kw]        KCRS, fp32 (G = layer_groups: c/G channels per group)
 *   bias [k]                     fp32; read only when l->bias (may be NULL otherwise)
 *   res  [n][k][out_h][out_w]    NCHW, fp32; read only when l->residual (may be NULL otherwise)
 *   sc   [n][c]                  fp32; read only when l->scale (conv_reference_of)
 *   out  [n][k][out_h][out_w]    NCHW, float64
 * out[b][o][y][x] = act(bias[o] + res[b][o][y][x] + sum over ci < c/G, r, s of
 *                       in[b][g*c/G + ci][y*stride_h - pad_h + r*dil_h][x*stride_w - pad_w + s*dil_w] * wt[o][ci][r][s]
 *                       (* sc[b][g*c/G + ci] when l->scale))
 * with g = o / (k/G), the group of output channel o
 * where input positions outside [0, h) x [0, w) read zero (zero padding), the
 * bias term is there only when l->bias, the residual only when l->residual
 * (bias plus residual is where the sum starts), and act is the layer's activation
 * (layer_act_apply; NaN passes through), the identity for none. Products and sums are in float64,
 * so the reference is far more accurate than any fp32 kernel it judges.
 */
#ifndef CONVGEN_REFERENCE_H
#define CONVGEN_REFERENCE_H

#include "conv/layer.h"

enum { CONV_REF_INPUTS = 5 };   // input, weights, bias, residual, scale

/* l must have passed layer_check (layer_parse does it) and have no scale
 * (conv_reference_of takes every tensor). The output planes
 * (one per image and output channel) are shared over threads: one per 50 M
 * multiply-adds, at most one per CPU (sysconf) and CONV_REF_MAX_THREADS. */
void conv_reference(const Layer *l, const float *in, const float *wt, const float *bias, const float *res, double *out);

/* The reference of every tensor the layer has, by tensor (t[0] the input,
 * t[1] the weights, t[2] the bias, t[3] the residual, t[4] the scale; NULL
 * for one it lacks), with the threads conv_reference would take. */
void conv_reference_of(const Layer *l, const float *const t[CONV_REF_INPUTS], double *out);

/* The same as conv_reference with nt threads (at most CONV_REF_MAX_THREADS and one per output
 * plane; below 1: one). Every output is the same double whatever nt is: a
 * plane is computed whole by one thread, its terms added in the order of the
 * formula. */
enum { CONV_REF_MAX_THREADS = 64 };
void conv_reference_threads(const Layer *l, const float *in, const float *wt, const float *bias, const float *res,
                            double *out, int nt);

/* The error of got against ref over n values: ||got - ref||_2 / ||ref||_2, or
 * ||got - ref||_2 when ||ref||_2 is 0 (an all-zero reference, where a relative
 * error means nothing). When nonfinite is not NULL it gets the number of NaN
 * and Inf values in got; if there is any, the result is +INFINITY, so that a
 * check `err <= tol` fails even for a caller that ignores the count. ref is
 * expected to be finite. n == 0 gives 0. */
double conv_rel_l2(const float *got, const double *ref, size_t n, int64_t *nonfinite);

/* A convolution program's inputs (those the layer has, in the order input,
 * weights, bias, residual, scale) by tensor: out[0] the input, out[1] the
 * weights, out[2] the bias, out[3] the residual and out[4] the scale, NULL
 * for one the layer lacks. */
void conv_ref_inputs(const Layer *l, const float *const *inputs, const float *out[CONV_REF_INPUTS]);

/* conv_reference in the shape of a measurement reference (MeasOptions.reference):
 * ctx is the Layer; inputs are the convolution program's inputs in order
 * (input, weights, then bias, residual and scale, each when the layer has
 * one). */
bool conv_reference_fn(void *ctx, const float *const *inputs, double *out, Diag *d);

#endif
