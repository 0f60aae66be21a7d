/* layer.h: convolution layer specifications (docs/design.md sections 6 and 11).
 *
 * A Layer is the shape of one convolution: what the user names on the command
 * line, what the high-level expression is built from, what the reference and
 * the tuning database are keyed by. Tensors use the external layout of section
 * 6: input NCHW, weights KCRS (K output channels, C input channels, R = kh
 * rows, S = kw columns), bias K, output NCHW, all of the layer's precision
 * (fp32 unless precision= says otherwise) on the device.
 *
 * A spec is one of:
 *   - a named layer, `vgg16.conv1_1` ... `vgg16.conv5_3` or `alexnet.conv1` ...
 *     `alexnet.conv5`, with the shapes of docs/design.md section 11 at batch 1.
 *     Named layers have bias and ReLU ON (as in the networks). Overrides may
 *     follow: `vgg16.conv3_2,n=2`, `vgg16.conv3_2,bias=0,relu=0`;
 *   - the plain form `n=1,c=128,h=56,w=56,k=256,kh=3,kw=3,stride=1,pad=1`, keys
 *     in any order. c, h, w and k are required. Defaults: n=1, kh=kw=3 (a 3x3
 *     kernel when neither is given; giving only one of kh and kw is an error),
 *     stride=1, pad=0, bias=0, relu=0 (a bare convolution, no bias, no ReLU).
 * Keys: n, c, h, w, k, kh, kw, stride (sets stride_h and stride_w), stride_h,
 * stride_w, pad (sets pad_h and pad_w), pad_h (top and bottom), pad_w (left
 * and right), pad_top, pad_left, pad_bottom, pad_right (one side each, after
 * pad, pad_h and pad_w: ONNX's pads may differ between the two sides of a
 * dimension), dilation (sets dilation_h and dilation_w: a window's taps that
 * many rows and columns apart, 1 to LAYER_DILATION_MAX), dilation_h,
 * dilation_w, groups (a grouped convolution: the input channels in G
 * groups of c/G, the output channels in G groups of k/G, output group g
 * made from input group g alone; G divides c and k; depthwise when G = c,
 * k/c output channels per input channel; weights then K x C/G x R x S),
 * bias, relu, act, residual, scale, precision. Values
 * are whole numbers; bias, relu, residual and scale take 0 or 1. act names the activation
 * applied after the bias: none, relu (the same as relu=1), relu6
 * (min(max(x, 0), 6)), clip(MIN,MAX) (min(max(x, MIN), MAX), MIN < MAX, both
 * within +-LAYER_ACT_MAX), leaky(ALPHA) (x for x > 0, else ALPHA*x; 0 < ALPHA
 * < 1), sigmoid (1 / (1 + e^-x)), hardswish (x * relu6(x + 3) / 6, ONNX's
 * HardSwish), silu (x / (1 + e^-x), EfficientNet's swish) or
 * hardsigmoid(ALPHA,BETA) (max(0, min(1, ALPHA*x + BETA)), ONNX's
 * HardSigmoid, both within +-LAYER_ACT_MAX); relu and act together are an error. residual=1 adds an
 * input of the output's shape (NCHW, n*k*out_h*out_w: a ResNet block's
 * shortcut) to the convolution after the bias and before the activation:
 * out = act(conv + bias + residual). scale=1 multiplies each input channel
 * of each image by a value of an input of n*c (a squeeze-excite block's
 * scale, fused into the convolution that reads the scaled tensor): the
 * convolution is of x[b][ci][y][x] * scale[b][ci]; dense layers only
 * (groups=1). precision names the element type of
 * every tensor in memory: fp32 (the default) or fp16 (IEEE half: each value
 * read into fp32, the sums computed in fp32, the output rounded to nearest
 * even when stored; util/elem.h). Spaces around items, keys
 * and values are ignored; names and keys are lower case.
 *
 * Limits (checked, each with a message naming the key and the spec): n, c, h,
 * w, k, kh, kw from 1 to LAYER_MAX_DIM; stride 1-4; pad 0-64; the kernel no
 * larger than the padded input (so every output size is at least 1); every
 * tensor, the padded input included, at most INT32_MAX elements, because the
 * generated kernels index with 32-bit int.
 *
 * Output size: out = (in + pad_begin + pad_end - ((kernel - 1) * dilation + 1)) / stride + 1, rounded down (the
 * convention of PyTorch and ONNX; rows or columns of the padded input that no
 * window reaches are ignored).
 */
#ifndef CONVGEN_LAYER_H
#define CONVGEN_LAYER_H

#include "util/elem.h"
#include "util/util.h"

#define LAYER_MAX_DIM 1000000   // largest n, c, h, w, k, kh or kw a spec may give
#define LAYER_STRIDE_MAX 4
#define LAYER_PAD_MAX 64        // a dilated 3x3 of DeepLab's atrous rates (12 to 36) pads as much
#define LAYER_DILATION_MAX 64
#define LAYER_NAME_MAX 160      // room for a named layer plus every override
#define LAYER_ACT_MAX 1e6       // largest magnitude of a clip bound

/* The activation after the bias (key act; relu=1 is ACT_RELU). */
typedef enum LayerAct {
  ACT_NONE, ACT_RELU, ACT_RELU6, ACT_CLIP, ACT_LEAKY, ACT_SIGMOID, ACT_HARDSWISH, ACT_SILU, ACT_HARDSIGMOID
} LayerAct;

/* The element type of a layer's tensors in memory and the products it
 * allows (key precision): PREC_TF32 stores float as PREC_FP32 does, and
 * lets the tensor cores round the products' operands to TF32 (10 bits of
 * significand), as cuDNN's and PyTorch's default math does. */
typedef enum LayerPrecision { PREC_FP32, PREC_FP16, PREC_TF32 } LayerPrecision;

typedef struct Layer {
  char name[LAYER_NAME_MAX];  // "vgg16.conv3_2"; with overrides that change it, those
                              // too: "vgg16.conv3_2,n=2"; "" for the plain form
  int n;                      // batch
  int c;                      // input channels
  int h, w;                   // input height and width (before padding)
  int k;                      // output channels
  int kh, kw;                 // kernel height (R) and width (S)
  int stride_h, stride_w;     // 1..LAYER_STRIDE_MAX
  int pad_h, pad_w;           // zero padding: top (and bottom), left (and right)
  int pad_dh, pad_dw;         // the bottom (right) padding minus the top (left): 0 when both sides
                              // are alike, as when built by hand (layer_pad_bottom, layer_pad_right)
  int dil_h, dil_w;           // dilation: a window's taps this far apart (1: none; layer_check makes a
                              // hand-built 0 a 1)
  int groups;                 // G: output channel o reads input channels [o/(k/G)*(c/G), +c/G) (1: dense;
                              // layer_check makes a hand-built 0 a 1)
  bool bias;                  // add a bias per output channel
  LayerAct act;               // then the activation (ACT_RELU: max(0, x))
  float act_a, act_b;         // its arguments: clip's MIN and MAX, leaky's ALPHA (0 otherwise)
  bool residual;              // add an input of the output's shape before the activation (LAYER_RESIDUAL)
  bool scale;                 // scale the input per image and channel first (LAYER_SCALE)
  LayerPrecision precision;   // its tensors' element type in memory (PREC_FP32: float; PREC_TF32: float,
                              // its products' operands allowed TF32's rounding)
  int out_h, out_w;           // derived by layer_parse / layer_check
} Layer;

/* Parses spec into *out. On error returns false with a message in d that names
 * the problem and quotes the spec; *out is then unspecified. */
bool layer_parse(const char *spec, Layer *out, Diag *d);

/* Checks a layer built by hand (the limits above) and fills out_h and out_w;
 * the message quotes the layer's plain form. layer_parse ends with the same check. */
bool layer_check(Layer *l, Diag *d);

/* The canonical plain form, appended to sb: every key, in the order n, c, h, w,
 * k, kh, kw, stride, pad, bias, relu; `stride=` when stride_h == stride_w, else
 * `stride_h=,stride_w=` (likewise pad); relu=0 or relu=1 for no activation
 * or ReLU, else `act=` in relu's place (`act=clip(0,6.5)`: the shortest
 * decimals that read back as the same floats), then `,residual=1` only
 * when the layer has one, `,scale=1` likewise, and `,precision=fp16` only when it is not fp32. It
 * parses back to an equal
 * layer (with an empty name); it is the key under which layers are stored,
 * so the layers of before act=, residual= and precision= keep their keys,
 * and a layer's records in another precision are another layer's. */
void layer_format(StrBuf *sb, const Layer *l);
/* The activation's bare name: "relu6", "clip". */
const char *layer_act_name(LayerAct act);
/* The activation's name as act= writes it, arguments included: "relu6",
 * "clip(0,6.5)", "none". */
void layer_act_format(StrBuf *sb, const Layer *l);
/* The activation applied to x, in double (the reference's). */
double layer_act_apply(const Layer *l, double x);
/* The activation as a float expression of the variable x in OpenCL C (and
 * the IR's user-function bodies): "fmin(fmax(x, 0.0f), 6.0f)"; "x" for none. */
void layer_act_c(StrBuf *sb, const Layer *l, const char *x);

/* Same shape: every field except name (and the derived ones, which follow). */
bool layer_equal(const Layer *a, const Layer *b);
int layer_pad_bottom(const Layer *l);   // pad_h + pad_dh
int layer_pad_right(const Layer *l);    // pad_w + pad_dw
bool layer_pad_symmetric(const Layer *l);   // both sides of each dimension padded alike
int layer_groups(const Layer *l);    // G (1 for a dense layer, also when groups is 0)
int layer_group_c(const Layer *l);   // c/G: the input channels of a group
int layer_group_k(const Layer *l);   // k/G: the output channels of a group
/* One group as a dense layer of its own: c/G input and k/G output channels,
 * groups 1, everything else l's (name included). */
Layer layer_group(const Layer *l);

/* Floating-point operations of the convolution: 2*n*k*out_h*out_w*(c/G)*kh*kw (one
 * multiply and one add per weight per output). Bias and ReLU are not counted,
 * which is the usual convention for GFLOP/s figures. A double: the count can
 * pass 2^63 at the limits; it is exact below 2^53, where every real layer is. */
double layer_flops(const Layer *l);

typedef enum LayerTensor {
  LAYER_INPUT,    // n*c*h*w, NCHW
  LAYER_WEIGHTS,  // k*(c/G)*kh*kw, KCRS (C: a group's input channels)
  LAYER_BIAS,     // k when bias is on, else 0
  LAYER_OUTPUT,   // n*k*out_h*out_w, NCHW
  LAYER_RESIDUAL, // an input, n*k*out_h*out_w, NCHW, when residual is on, else 0
  LAYER_SCALE,    // an input, n*c (image-major), when scale is on, else 0
} LayerTensor;

const char *layer_tensor_name(LayerTensor t);   // "input", "weights", "bias", "output", "residual", "scale"
int64_t layer_elems(const Layer *l, LayerTensor t);
int64_t layer_bytes(const Layer *l, LayerTensor t);   // its elements' bytes, in the layer's precision
/* The element type of the layer's tensors in memory (util/elem.h: float for
 * fp32 and tf32), and the precision's name as precision= writes it ("fp32",
 * "fp16", "tf32"). */
const ElemType *layer_elem(const Layer *l);
const ElemType *layer_precision_elem(LayerPrecision p);
const char *layer_precision_name(LayerPrecision p);
/* The precision a name (fp32, fp16, tf32) gives; false with a Diag for
 * another (bf16: not built yet). */
bool layer_precision_parse(const char *name, LayerPrecision *out, Diag *d);
/* Sets l's precision; a named layer's name gets ",precision=NAME" (as an
 * override would write it) when it changes. */
void layer_set_precision(Layer *l, LayerPrecision p);
/* Whether spec (a layer spec that parses) gives key itself: "precision". */
bool layer_spec_gives(const char *spec, const char *key);

/* The networks with named layers, by index: "vgg16", "alexnet"; NULL past the end. */
const char *layer_network_name(int i);

/* Every conv layer of network name ("vgg16": 13, "alexnet": 5), in network
 * order, identical shapes repeated (vgg16.conv3_2 and conv3_3 are both there).
 * Fills at most max entries of out (out may be NULL when max is 0) and returns
 * the full count, or -1 for an unknown network. */
int layer_network(const char *name, Layer *out, int max);

/* Removes, in place, every layer whose shape (layer_equal) equals an earlier
 * one, keeping the first and its name, in order; returns the new count. When
 * repeats is not NULL, repeats[i] gets how many of the original layers share
 * the shape of the i-th kept one (vgg16: conv3_2 -> 2, conv5_1 -> 3), which is
 * what a whole-network time is summed with. */
int layer_dedup(Layer *ls, int n, int *repeats);

#endif
