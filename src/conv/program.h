/* program.h: the convolution as a high-level expression (docs/design.md section 6).
 *
 * conv_program writes, for one layer, the specification every strategy is
 * derived from: pad each input plane, slide 2-D windows over it (1-D slides
 * and transposes), and for every output channel k and window, multiply the
 * flattened window by the flattened kernel element by element and reduce the
 * products with + starting from the bias (0 without bias) plus the residual
 * value (residual=1), then apply the activation (act=). A grouped layer's
 * kernels each read their group's c/G channels' windows, a broadcast view
 * (docs/conv.md). Layouts are NCHW input, KCRS weights, NCHW output. The
 * program uses only high-level primitives (map, reduce, zip, slide, pad,
 * split, transpose, join): the reference interpreter runs it as is, and the
 * rewrite strategies lower it.
 */
#ifndef CONVGEN_CONV_PROGRAM_H
#define CONVGEN_CONV_PROGRAM_H

#include "conv/layer.h"
#include "ir/ir.h"

/* The program's text (heap string; the caller frees it). */
char *conv_program_text(const Layer *l);

/* The parsed, type-inferred program; NULL with a Diag (which would be a bug in
 * conv_program_text, since layers are validated when parsed). */
Program *conv_program(Arena *a, const Layer *l, Diag *d);

/* The inputs of a layer's program that hold the layer's parameters, its
 * weights and bias (by their names, as conv_program writes them), as bits
 * of their input indices: the values that stay the same from run to run,
 * whose kernels a caller may run once (MeasOptions.fixed_inputs). A
 * network (net.c) fixes every input bound to a constant, which includes a
 * scale that is an initializer; no strategy makes a kernel of the weights
 * and a scale alone (wino, the only one with a kernel of the weights alone,
 * refuses scale=1). */
uint64_t conv_fixed_inputs(const Program *p);

/* Split-K (s2's choice LX=2): the same convolution with its input channels in
 * c/CK parts of CK (CK a size of the program, CK | c from its split): each
 * part the convolution of CK channels without bias or activation, giving
 * [c/CK][n][k][out_h][out_w] partial sums; each output's partial sums then
 * reduced from the bias, and the activation applied. The interpreter runs it
 * as it runs conv_program's. */
char *conv_split_program_text(const Layer *l);
Program *conv_split_program(Arena *a, const Layer *l, Diag *d);

/* A part of it as a program of its own (inputs x and weights with CK
 * channels; no bias, no activation): what s2 derives, and its body, with x
 * and weights the part's, is the split program's map over the parts. */
Layer conv_part_layer(const Layer *l);
char *conv_part_program_text(const Layer *l);
Program *conv_part_program(Arena *a, const Layer *l, Diag *d);

#endif
