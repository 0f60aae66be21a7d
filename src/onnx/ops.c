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
    // name, role, shape rule, activation, residual, import_inputs, fixes_inputs, refusal, program
    {"Conv", ROLE_CONV, IMPORT(shape_conv), NULL, false, 0, false, NULL, NULL},
    {"Relu", ROLE_ELEMENTWISE, IMPORT(shape_unary), IMPORT(act_relu), false, 0, false, refuse_activation,
     program_activation},
    {"Clip", ROLE_ELEMENTWISE, IMPORT(shape_clip), IMPORT(act_clip), false, 0, true, NULL, program_activation},
    {"LeakyRelu", ROLE_ELEMENTWISE, IMPORT(shape_unary), IMPORT(act_leaky), false, 0, false, refuse_activation,
     program_activation},
    {"Sigmoid", ROLE_ELEMENTWISE, IMPORT(shape_unary), IMPORT(act_sigmoid), false, 0, false, refuse_activation,
     program_activation},
    {"HardSwish", ROLE_ELEMENTWISE, IMPORT(shape_unary), IMPORT(act_hardswish), false, 0, false, refuse_activation,
     program_activation},
    {"Add", ROLE_ELEMENTWISE, IMPORT(shape_add), NULL, true, 0, false, NULL, program_add},
    {"BatchNormalization", ROLE_AFFINE, IMPORT(shape_batchnorm), NULL, false, 0, true, NULL, program_batchnorm},
    {"MaxPool", ROLE_REDUCTION, IMPORT(shape_pool), NULL, false, 0, false, refuse_pool, program_pool},
    {"AveragePool", ROLE_REDUCTION, IMPORT(shape_pool), NULL, false, 0, false, refuse_pool, program_pool},
    {"GlobalAveragePool", ROLE_REDUCTION, IMPORT(shape_global_pool), NULL, false, 0, false, NULL, program_global_pool},
    {"Gemm", ROLE_CONTRACTION, IMPORT(shape_gemm), NULL, false, 0, false, refuse_gemm, program_gemm},
    {"MatMul", ROLE_CONTRACTION, IMPORT(shape_matmul), NULL, false, 0, false, NULL, program_matmul},
    {"Flatten", ROLE_VIEW, IMPORT(shape_flatten), NULL, false, 0, false, NULL, NULL},
    {"Reshape", ROLE_VIEW, IMPORT(shape_reshape), NULL, false, 1u << 1, false, NULL, NULL},
    {"Concat", ROLE_LAYOUT, IMPORT(shape_concat), NULL, false, 0, false, refuse_concat, program_concat},
    {"Softmax", ROLE_REDUCTION, IMPORT(shape_softmax), NULL, false, 0, false, NULL, program_softmax},
    {"Identity", ROLE_VIEW, IMPORT(shape_unary), NULL, false, 0, false, NULL, NULL},
    {"Dropout", ROLE_VIEW, IMPORT(shape_dropout), NULL, false, 0, false, NULL, NULL},
    {"Constant", ROLE_CONSTANT, IMPORT(shape_constant), NULL, false, 0, false, NULL, NULL},
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
  n->def->program(a, m, n, host, &t, p);
  p->text = arena_strdup(a, sb_str(&t));
  sb_free(&t);
}
