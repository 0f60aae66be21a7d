/* rows.h: the functions the operator table's rows name (ops.c), inside the
 * ONNX module: the shape rules of shapes.c and the activations of onnx.c
 * (they read the node in hand through OnnxLoad, load.h), the programs and
 * refusals of programs.c.
 * Nothing outside src/onnx includes it: the rest reads the table (ops.h). */
#ifndef CONVGEN_ONNX_ROWS_H
#define CONVGEN_ONNX_ROWS_H

#include "onnx/ops.h"

/* Shape rules (shapes.c): the node's inputs and attributes checked, its
 * outputs' shapes set; false with the node's error. */
bool shape_conv(OnnxLoad *L);
bool shape_unary(OnnxLoad *L);
bool shape_clip(OnnxLoad *L);
bool shape_dropout(OnnxLoad *L);
bool shape_batchnorm(OnnxLoad *L);
bool shape_add(OnnxLoad *L);
bool shape_pool(OnnxLoad *L);
bool shape_global_pool(OnnxLoad *L);
bool shape_flatten(OnnxLoad *L);
bool shape_reshape(OnnxLoad *L);
bool shape_gemm(OnnxLoad *L);
bool shape_matmul(OnnxLoad *L);
bool shape_concat(OnnxLoad *L);
bool shape_softmax(OnnxLoad *L);
bool shape_constant(OnnxLoad *L);   // a Constant: its output becomes an initializer

/* Activations (onnx.c): the node as a layer's act, when a convolution can
 * apply it in its store. */
bool act_relu(OnnxLoad *L, Layer *l);
bool act_sigmoid(OnnxLoad *L, Layer *l);
bool act_hardswish(OnnxLoad *L, Layer *l);
bool act_leaky(OnnxLoad *L, Layer *l);
bool act_clip(OnnxLoad *L, Layer *l);
bool act_hardsigmoid(OnnxLoad *L, Layer *l);

/* What every program writer uses (programs.c): an array the program reads
 * that the node's inputs do not hold; the node's input value v read as the
 * program's input name; the input declaration of value v as rank r and,
 * into view, its numpy broadcast to out[r] as views (nothing copied); value
 * x declared as name and seen, into view, flattened to y's elements (as it
 * is when it has y's shape, else broadcast: one work-item an element). */
void op_add_input(OpProgram *p, const char *name, const float *data);
void op_add_value(OpProgram *p, const char *name, float *const *host, int v);
void op_broadcast(StrBuf *t, StrBuf *view, const char *name, const OnnxValue *v, int r, const int64_t *out);
void op_flat_input(StrBuf *t, StrBuf *view, const char *name, const OnnxValue *x, const OnnxValue *y);
/* The views of the layout programs (layout.c, resize.c): value v declared
 * as name, nested by its dimensions (a scalar as one element); layout
 * primitive prim applied to view at depth d (d maps around it); out = view,
 * of rank r, flattened and each element copied by one work-item. */
void op_declare(StrBuf *t, const char *name, const OnnxValue *v);
void op_at_depth(StrBuf *view, int d, const char *prim);
void op_copy_out(StrBuf *t, StrBuf *view, int r);
/* Node n's input k (n the node at index self) as rows of r values, declared
 * as name, into view, its value bound: as it is ([[float]r]K), or, when a
 * Transpose fused into n makes it (OpDef.reads_transposed), that
 * Transpose's input declared, put in its order (op_transpose_view) and
 * split into the rows. */
void op_rows_input(StrBuf *t, StrBuf *view, const char *name, const OnnxModel *m, const OnnxNode *n, int k, int64_t r,
                   float *const *host, OpProgram *p);

/* Rows reduced by work-groups (programs.c): the work-items a row of r
 * values is folded by (a power of two, at most 256: with pad, about r / 8,
 * the row padded to a multiple; without, the largest that divides r);
 * row's fold by step (a function of the accumulator and a value) from
 * start, padded with pad (a value step leaves the accumulator as it is
 * with; NULL when lanes divide r), written to t as each lane's partial, in
 * local memory, as one chunk [[float]lanes]1 that the caller folds in a
 * mapLcl inside the row's mapWrg. */
int64_t op_lanes(int64_t r, bool pad);
void op_fold_row(StrBuf *t, const char *row, int64_t r, int64_t lanes, const char *step, const char *start,
                 const char *pad);

/* Refusals and programs (programs.c). */
typedef const char *OpRefusalFn(Arena *a, const OnnxModel *m, const OnnxNode *n);
typedef void OpProgramFn(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p);
OpRefusalFn refuse_activation, refuse_concat, refuse_pool, refuse_gemm;
OpProgramFn program_activation, program_concat, program_global_pool, program_pool, program_gemm,
    program_matmul, program_batchnorm, program_softmax;

/* ---- Families of operators, each in its own file ---- */

/* elementwise.c */
/* Shape rules (numpy broadcasting of every input; PRelu's
 * slope to X; the unary rows with attributes, which substitute them into
 * the node's fn), the programs of the whole family (f(x); f(a, b) folded
 * over the inputs) and ew_subst: fn with each identifier names[i] replaced
 * by vals[i]. */
bool shape_broadcast(OnnxLoad *L);
bool shape_prelu(OnnxLoad *L);
bool shape_hardsigmoid(OnnxLoad *L);
bool shape_elu(OnnxLoad *L);
bool shape_selu(OnnxLoad *L);
bool shape_gelu(OnnxLoad *L);
OpRefusalFn refuse_variadic;
OpProgramFn program_unary, program_binary;
void ew_subst(StrBuf *out, const char *fn, int n, const char *const *names, const char *const *vals);
/* Chains (fuse_chains, onnx.c): whether node n can be the root of a chain
 * (an elementwise row whose function is known: its fn, or an
 * activation's), and whether it can be a member, computed inside the
 * root's kernel (a root's kind, or a Transpose, whose values the root reads
 * through its transpose); the values a chain's program reads (its leaves:
 * inputs of root and its members that no member makes, each with the
 * Transpose member above it or -1) into leaves, their count, or -1 when the
 * chain is not one program: more than max leaves, more than
 * CHAIN_MAX_READS reads of leaves once each member is expanded where it is
 * read, a Transpose below another or onto another shape than root's
 * output; and the program of root with its members inlined into one
 * function. */
enum { CHAIN_MAX_READS = 64 };
typedef struct ChainLeaf {
  int value, under;
} ChainLeaf;
bool ew_chainable(const OnnxNode *n);
bool ew_chain_member(const OnnxNode *n);
int ew_chain_leaves(const OnnxModel *m, const OnnxNode *root, ChainLeaf *leaves, int max);
OpProgramFn program_chain;

/* resize.c */
/* What Resize's shape rule keeps for its program (OnnxNode.resize): the
 * interpolation, nearest's rounding, and per dimension the input coordinate
 * of output place i as (num[d] i + off[d]) / den[d]; why infer does not run
 * it (cubic, antialias...), or NULL. */
typedef struct OnnxResize {
  bool linear;
  int nearest;   // floor, ceil, round_prefer_floor, round_prefer_ceil (resize.c's NEAREST_)
  int64_t num[ONNX_MAX_RANK], off[ONNX_MAX_RANK], den[ONNX_MAX_RANK];
  const char *why;
} OnnxResize;
bool shape_resize(OnnxLoad *L);
OpRefusalFn refuse_resize;
OpProgramFn program_resize;

/* layout.c, fold.c */
/* What a layout node's shape rule keeps for its program (OnnxNode.layout):
 * per dimension of the output, Transpose's perm in a; Slice's start in the
 * input and step (negative: backwards) in a and b; Pad's begin and end
 * pads (negative: cropped) in a and b, its mode and constant value;
 * Gather's (of run-time data) index as b[0] + sum_k place_k a[k]. */
typedef enum { PAD_MODE_CONSTANT, PAD_MODE_EDGE, PAD_MODE_REFLECT } PadMode;
typedef struct OnnxLayout {
  int64_t a[ONNX_MAX_RANK], b[ONNX_MAX_RANK];
  PadMode mode;
  float value;
  const char *why;   // Gather's: why infer does not run it (indices at run time, not affine), or NULL
} OnnxLayout;
/* Into view (a nested array of rank dimensions): its dimensions put in
 * perm's order (Transpose's), by swaps of neighbours (map^d[transpose]
 * swaps dimensions d and d + 1). */
void op_transpose_view(StrBuf *view, int rank, const int64_t *perm);
bool shape_squeeze(OnnxLoad *L);
bool shape_unsqueeze(OnnxLoad *L);
bool shape_transpose(OnnxLoad *L);
bool shape_slice(OnnxLoad *L);
bool shape_split(OnnxLoad *L);
bool shape_pad(OnnxLoad *L);
bool shape_expand(OnnxLoad *L);
bool shape_shape(OnnxLoad *L);
bool shape_gather(OnnxLoad *L);
bool shape_constant_of_shape(OnnxLoad *L);
bool shape_cast(OnnxLoad *L);
bool shape_range(OnnxLoad *L);
OpRefusalFn refuse_layout, refuse_gather;
OpProgramFn program_transpose, program_slice, program_pad, program_expand, program_gather;
/* Folds (fold.c): the node's outputs computed at import as initializers
 * (the ops.h fold column; onnx.c's read_graph calls a row's fold after its
 * shape rule when every input is a constant, and always for a ROLE_CONSTANT
 * row). fold_int64 is tried on every node before its row is looked up: 1
 * when it folded the node (an operator of its own table, Add, Sub, Mul,
 * Div, Concat..., every input an int64 constant), 0 when it does not
 * apply, -1 with the node's error. */
bool fold_reshape_view(OnnxLoad *L);   // Squeeze, Unsqueeze: the constant under the shape the rule set
bool fold_shape(OnnxLoad *L);
bool fold_gather(OnnxLoad *L);
bool fold_constant_of_shape(OnnxLoad *L);
bool fold_cast(OnnxLoad *L);
bool fold_range(OnnxLoad *L);
bool fold_slice(OnnxLoad *L);
int fold_int64(OnnxLoad *L);

/* convtranspose.c */
/* What a ConvTranspose's layout node computes (OnnxNode.convt): its input
 * X with stride[i] - 1 zeros inserted between neighbours along spatial axis
 * i, then crop[i] elements cut from the start of that axis and crop[2 + i]
 * from its end; or (weights) W [C, K/group, kh, kw] as a convolution's
 * weights [K, C/group, kh, kw], each kernel reversed along both axes. */
typedef struct OnnxConvT {
  bool weights;
  int64_t group;
  int64_t stride[2], crop[4];
} OnnxConvT;
bool shape_convtranspose(OnnxLoad *L);   // the node checked, then rewritten into its layout nodes and a Conv
OpProgramFn program_convtranspose;

/* reduce.c */
bool shape_reduce(OnnxLoad *L);            // Reduce*: axes (attribute or constant input), keepdims
bool shape_global_max_pool(OnnxLoad *L);   // [N, C, D1, ...] to [N, C, 1, ...]
bool shape_layernorm(OnnxLoad *L);         // axis, epsilon, Scale and B broadcast to the normalized axes
OpRefusalFn refuse_layernorm;
OpProgramFn program_reduce, program_layernorm;

#endif
