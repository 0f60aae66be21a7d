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

/* What every program writer uses (programs.c): an array the program reads
 * that the node's inputs do not hold; the node's input value v read as the
 * program's input name; the input declaration of value v as rank r and,
 * into view, its numpy broadcast to out[r] as views (nothing copied). */
void op_add_input(OpProgram *p, const char *name, const float *data);
void op_add_value(OpProgram *p, const char *name, float *const *host, int v);
void op_broadcast(StrBuf *t, StrBuf *view, const char *name, const OnnxValue *v, int r, const int64_t *out);

/* Refusals and programs (programs.c). */
typedef const char *OpRefusalFn(Arena *a, const OnnxModel *m, const OnnxNode *n);
typedef void OpProgramFn(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p);
OpRefusalFn refuse_activation, refuse_concat, refuse_pool, refuse_gemm;
OpProgramFn program_activation, program_add, program_concat, program_global_pool, program_pool, program_gemm,
    program_matmul, program_batchnorm, program_softmax;

/* ---- Families of operators, each in its own file ---- */

/* elementwise.c */

/* layout.c, fold.c */

/* reduce.c */

#endif
