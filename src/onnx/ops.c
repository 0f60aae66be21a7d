/* ops.c: the operator table (ops.h). One row per ONNX operator convgen
 * claims, in the order `convgen import` lists them; import finds a node's
 * row by its op_type (onnx.c), and everything after asks the row: fusion
 * its role, activation and residual columns, the buffer plan its role,
 * infer its refusal and program. A convgen built without the ONNX reader
 * (no protobuf-c) has no shape rules or activations to name: it reads no
 * model, and the rest of each row stays. */
#include "onnx/rows.h"

#include <stdio.h>
#include <string.h>

#ifdef CONVGEN_ONNX
#define IMPORT(f) f
#else
#define IMPORT(f) NULL
#endif

static const OpDef OPS[] = {
    {.name = "Conv", .role = ROLE_CONV, .shape = IMPORT(shape_conv)},
    {.name = "Relu", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .act = IMPORT(act_relu),
     .refusal = refuse_activation, .program = program_activation},
    {.name = "Clip", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_clip), .act = IMPORT(act_clip),
     .fixes_inputs = true, .program = program_activation},
    {.name = "LeakyRelu", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .act = IMPORT(act_leaky),
     .refusal = refuse_activation, .program = program_activation},
    {.name = "Sigmoid", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .act = IMPORT(act_sigmoid),
     .refusal = refuse_activation, .program = program_activation},
    {.name = "HardSwish", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .act = IMPORT(act_hardswish),
     .refusal = refuse_activation, .program = program_activation},
    {.name = "Add", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_add), .residual = true, .program = program_binary,
     .fn = "a + b"},
    {.name = "BatchNormalization", .role = ROLE_AFFINE, .shape = IMPORT(shape_batchnorm), .fixes_inputs = true,
     .program = program_batchnorm, .more_nodes = 1,
     .rewrite = "a Mul and an Add of its per-channel scale and shift (when no convolution makes its input and its "
                "parameters are constants)"},
    {.name = "MaxPool", .role = ROLE_REDUCTION, .shape = IMPORT(shape_pool), .refusal = refuse_pool,
     .program = program_pool},
    {.name = "AveragePool", .role = ROLE_REDUCTION, .shape = IMPORT(shape_pool), .refusal = refuse_pool,
     .program = program_pool},
    {.name = "GlobalAveragePool", .role = ROLE_REDUCTION, .shape = IMPORT(shape_global_pool),
     .program = program_global_pool},
    {.name = "Gemm", .role = ROLE_CONTRACTION, .shape = IMPORT(shape_gemm), .refusal = refuse_gemm,
     .program = program_gemm},
    {.name = "MatMul", .role = ROLE_CONTRACTION, .shape = IMPORT(shape_matmul), .program = program_matmul},
    {.name = "Flatten", .role = ROLE_VIEW, .shape = IMPORT(shape_flatten)},
    {.name = "Reshape", .role = ROLE_VIEW, .shape = IMPORT(shape_reshape), .import_inputs = 1u << 1},
    {.name = "Concat", .role = ROLE_LAYOUT, .shape = IMPORT(shape_concat), .refusal = refuse_concat,
     .program = program_concat, .joins = true},
    {.name = "Softmax", .role = ROLE_REDUCTION, .shape = IMPORT(shape_softmax), .program = program_softmax},
    {.name = "Identity", .role = ROLE_VIEW, .shape = IMPORT(shape_unary)},
    {.name = "Dropout", .role = ROLE_VIEW, .shape = IMPORT(shape_dropout)},
    {.name = "Constant", .role = ROLE_CONSTANT, .shape = IMPORT(shape_constant)},
    // elementwise operators (elementwise.c)
    {.name = "Sub", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_broadcast), .program = program_binary,
     .fn = "a - b"},
    {.name = "Mul", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_broadcast), .program = program_binary,
     .fn = "a * b"},
    {.name = "Div", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_broadcast), .program = program_binary,
     .fn = "a / b"},
    {.name = "Pow", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_broadcast), .program = program_binary,
     .fn = "pow(a, b)"},
    {.name = "Max", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_broadcast), .refusal = refuse_variadic,
     .program = program_binary, .fn = "fmax(a, b)"},
    {.name = "Min", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_broadcast), .refusal = refuse_variadic,
     .program = program_binary, .fn = "fmin(a, b)"},
    {.name = "PRelu", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_prelu), .program = program_binary,
     .fn = "a < 0.0f ? a * b : a"},
    {.name = "HardSigmoid", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_hardsigmoid), .program = program_unary,
     .act = IMPORT(act_hardsigmoid), .fn = "fmax(0.0f, fmin(1.0f, alpha * x + beta))"},
    {.name = "Tanh", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "tanh(x)"},
    {.name = "Exp", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "exp(x)"},
    {.name = "Log", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "log(x)"},
    {.name = "Sqrt", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "sqrt(x)"},
    {.name = "Reciprocal", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "1.0f / x"},
    {.name = "Neg", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "-x"},
    {.name = "Abs", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "fabs(x)"},
    {.name = "Erf", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "erf(x)"},
    {.name = "Elu", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_elu), .program = program_unary,
     .fn = "x < 0.0f ? alpha * (exp(x) - 1.0f) : x"},
    {.name = "Selu", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_selu), .program = program_unary,
     .fn = "x > 0.0f ? gamma * x : gamma * (alpha * exp(x) - alpha)"},
    {.name = "Softplus", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "fmax(x, 0.0f) + log1p(exp(-fabs(x)))"},
    {.name = "Gelu", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_gelu), .program = program_unary,
     .fn = "0.5f * x * (1.0f + erf(0.707106781f * x))"},
    {.name = "Floor", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "floor(x)"},
    {.name = "Ceil", .role = ROLE_ELEMENTWISE, .shape = IMPORT(shape_unary), .program = program_unary,
     .fn = "ceil(x)"},

    // layout operators and the shape arithmetic folded at import (layout.c, fold.c)
    {.name = "Squeeze", .role = ROLE_VIEW, .shape = IMPORT(shape_squeeze), .import_inputs = 1u << 1,
     .fold = IMPORT(fold_reshape_view)},
    {.name = "Unsqueeze", .role = ROLE_VIEW, .shape = IMPORT(shape_unsqueeze), .import_inputs = 1u << 1,
     .fold = IMPORT(fold_reshape_view)},
    {.name = "Transpose", .role = ROLE_LAYOUT, .shape = IMPORT(shape_transpose), .refusal = refuse_layout,
     .program = program_transpose},
    {.name = "Slice", .role = ROLE_LAYOUT, .shape = IMPORT(shape_slice), .import_inputs = 0xfu << 1,
     .refusal = refuse_layout, .program = program_slice, .fold = IMPORT(fold_slice)},
    {.name = "Split", .role = ROLE_LAYOUT, .shape = IMPORT(shape_split), .import_inputs = 1u << 1,
     .refusal = refuse_layout, .program = program_slice, .per_output = true},
    {.name = "Pad", .role = ROLE_LAYOUT, .shape = IMPORT(shape_pad), .import_inputs = 0x7u << 1,
     .refusal = refuse_layout, .program = program_pad},
    {.name = "Expand", .role = ROLE_LAYOUT, .shape = IMPORT(shape_expand), .import_inputs = 1u << 1,
     .refusal = refuse_layout, .program = program_expand},
    {.name = "Resize", .role = ROLE_LAYOUT, .shape = IMPORT(shape_resize), .import_inputs = 0x7u << 1,
     .refusal = refuse_resize, .program = program_resize},
    {.name = "Shape", .role = ROLE_CONSTANT, .shape = IMPORT(shape_shape), .fold = IMPORT(fold_shape)},
    {.name = "Gather", .role = ROLE_LAYOUT, .shape = IMPORT(shape_gather), .import_inputs = 1u << 1,
     .refusal = refuse_gather, .program = program_gather, .fold = IMPORT(fold_gather)},
    {.name = "ConstantOfShape", .role = ROLE_CONSTANT, .shape = IMPORT(shape_constant_of_shape), .import_inputs = 1u,
     .fold = IMPORT(fold_constant_of_shape)},
    {.name = "Cast", .role = ROLE_CONSTANT, .shape = IMPORT(shape_cast), .fold = IMPORT(fold_cast)},
    {.name = "Range", .role = ROLE_CONSTANT, .shape = IMPORT(shape_range), .fold = IMPORT(fold_range)},

    // reductions (reduce.c)
    {.name = "ReduceSum", .role = ROLE_REDUCTION, .shape = IMPORT(shape_reduce), .import_inputs = 1u << 1,
     .program = program_reduce},
    {.name = "ReduceMean", .role = ROLE_REDUCTION, .shape = IMPORT(shape_reduce), .import_inputs = 1u << 1,
     .program = program_reduce},
    {.name = "ReduceMax", .role = ROLE_REDUCTION, .shape = IMPORT(shape_reduce), .import_inputs = 1u << 1,
     .program = program_reduce},
    {.name = "ReduceMin", .role = ROLE_REDUCTION, .shape = IMPORT(shape_reduce), .import_inputs = 1u << 1,
     .program = program_reduce},
    {.name = "ReduceProd", .role = ROLE_REDUCTION, .shape = IMPORT(shape_reduce), .import_inputs = 1u << 1,
     .program = program_reduce},
    {.name = "ReduceL1", .role = ROLE_REDUCTION, .shape = IMPORT(shape_reduce), .import_inputs = 1u << 1,
     .program = program_reduce},
    {.name = "ReduceL2", .role = ROLE_REDUCTION, .shape = IMPORT(shape_reduce), .import_inputs = 1u << 1,
     .program = program_reduce},
    {.name = "ReduceSumSquare", .role = ROLE_REDUCTION, .shape = IMPORT(shape_reduce), .import_inputs = 1u << 1,
     .program = program_reduce},
    {.name = "ReduceLogSum", .role = ROLE_REDUCTION, .shape = IMPORT(shape_reduce), .import_inputs = 1u << 1,
     .program = program_reduce},
    {.name = "ReduceLogSumExp", .role = ROLE_REDUCTION, .shape = IMPORT(shape_reduce), .import_inputs = 1u << 1,
     .program = program_reduce},
    {.name = "GlobalMaxPool", .role = ROLE_REDUCTION, .shape = IMPORT(shape_global_max_pool), .program = program_reduce},
    {.name = "LayerNormalization", .role = ROLE_REDUCTION, .shape = IMPORT(shape_layernorm), .refusal = refuse_layernorm,
     .program = program_layernorm, .reads_transposed = true},

    // derived at import as a convolution (convtranspose.c): the row's program is its layout nodes'
    {.name = "ConvTranspose", .role = ROLE_LAYOUT, .shape = IMPORT(shape_convtranspose), .refusal = refuse_layout,
     .program = program_convtranspose, .more_nodes = 2,
     .rewrite = "its weights' layout node (when they are not constants), its input's with zeros inserted (when a "
                "stride is past 1) and a Conv"},

};
enum { NOPS = sizeof OPS / sizeof *OPS };

const OpDef *op_def(const char *name) {
  for (int i = 0; i < NOPS; i++)
    if (strcmp(OPS[i].name, name) == 0) return &OPS[i];
  return NULL;
}

const char *onnx_operators(void) {
  static char list[NOPS * 24];   // every name and its ", " (the longest name is 18 characters)
  if (!list[0]) {
    size_t at = 0;
    for (int i = 0; i < NOPS; i++) at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", OPS[i].name);
  }
  return list;
}

const char *op_refusal(Arena *a, const OnnxModel *m, const OnnxNode *n) {
  if (!n->def->program) return "not run by infer (import reads it, but no program is written for it)";
  return n->def->refusal ? n->def->refusal(a, m, n) : NULL;
}

void op_program(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, OpProgram *p) {
  if (!n->def->program) cg_die("op_program: node %s (%s) has no program in the operator table", n->name, n->op);
  StrBuf t;
  sb_init(&t);
  *p = (OpProgram){0};
  if (n->nchain) program_chain(a, m, n, host, &t, p);   // the elementwise nodes fused into it computed too
  else n->def->program(a, m, n, host, &t, p);
  p->text = arena_strdup(a, sb_str(&t));
  sb_free(&t);
}

int op_count(void) { return NOPS; }

const OpDef *op_at(int i) { return i >= 0 && i < NOPS ? &OPS[i] : NULL; }

const char *op_role_name(OpRole r) {
  switch (r) {
  case ROLE_CONV: return "convolution";
  case ROLE_ELEMENTWISE: return "elementwise";
  case ROLE_AFFINE: return "affine";
  case ROLE_REDUCTION: return "reduction";
  case ROLE_CONTRACTION: return "contraction";
  case ROLE_LAYOUT: return "layout";
  case ROLE_VIEW: return "view";
  case ROLE_CONSTANT: return "constant";
  }
  return "?";
}
