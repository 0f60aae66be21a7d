/* ops.h: the operators convgen claims, one table (ops.c; docs/onnx.md,
 * "Operators"). Each ONNX operator is one row: its name; its role, which
 * fusion at import and the buffer plan read instead of names; its shape
 * rule (import: attributes checked, the outputs' shapes inferred; shapes.c);
 * the activation it is when a convolution can apply it in its store
 * (fusion); which inputs are constants read at import and which its
 * program fixes; why infer does not run a node of it; and its program of
 * the IR (programs.c), which net.c compiles with cp_compile and runs like
 * any other program, written for the node and its shapes. Adding an
 * operator is adding a row and the functions it names.
 */
#ifndef CONVGEN_OPS_H
#define CONVGEN_OPS_H

#include "onnx/onnx.h"

/* What an operator does to its inputs' elements, as fusion and planning
 * ask it (TVM's operator pattern is the model). */
typedef enum OpRole {
  ROLE_CONV,         // a convolution: a layer, tuned, run as a strategy's kernels
  ROLE_ELEMENTWISE,  // each output element a function of the inputs' elements at its place (broadcast)
  ROLE_AFFINE,       // a per-channel scale and shift (BatchNormalization): foldable into a convolution's weights
  ROLE_REDUCTION,    // each output element reduces a window or an axis (pooling, Softmax)
  ROLE_CONTRACTION,  // a product of matrices (Gemm, MatMul)
  ROLE_LAYOUT,       // the inputs' elements copied into another arrangement (Concat)
  ROLE_VIEW,         // the input's elements seen in another shape: moves no data
  ROLE_CONSTANT,     // a constant: folded into an initializer at import, not a node
} OpRole;

enum { OP_MAX_INPUTS = 16 };   // the fields of a tuple of the IR (a zip's arrays) at most
enum { OP_MAX_PROGRAM_INPUTS = OP_MAX_INPUTS * OP_MAX_INPUTS };   // a program's: a Concat's, as a zip of zips

typedef struct OpProgram {
  const char *text;                      // the program (in the arena)
  int nin;
  const char *names[OP_MAX_PROGRAM_INPUTS];   // its inputs by name,
  const float *data[OP_MAX_PROGRAM_INPUTS];   // with their elements on the host (NULL: a value not on the host),
  int value[OP_MAX_PROGRAM_INPUTS];           // and the model's value each is (-1: an array made here, as counts)
} OpProgram;

typedef struct OnnxLoad OnnxLoad;   // a model being read (onnx.c): the node in hand, its attributes

struct OpDef {
  const char *name;                // ONNX's op_type
  OpRole role;
  bool (*shape)(OnnxLoad *L);      // import: the node's attributes checked, its outputs' shapes set
  bool (*act)(OnnxLoad *L, Layer *l);   // the node as a layer's activation (l->act), when it is one; or NULL
  bool residual;                   // an Add: a convolution's residual, when its other input has its shape
  unsigned import_inputs;          // bit k: input k is a constant read at import (Reshape's shape)
  bool fixes_inputs;               // its inputs after the first are compiled into its program (a Clip's bounds)
  // infer: why a node of it is not run (NULL: every node import took runs)
  const char *(*refusal)(Arena *a, const OnnxModel *m, const OnnxNode *n);
  // infer: its program, reading host[value] for a value on the host (NULL: a convolution, a view, a constant)
  void (*program)(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, StrBuf *t, OpProgram *p);
  // an elementwise operator's function as C, of x (unary) or of a and b
  // (binary), which its program and its fusion into a store apply; or NULL
  const char *fn;
  // its program reads input 0 through a Transpose that makes it and only it
  // reads (op_rows_input): import fuses that Transpose into it, never stored
  bool reads_transposed;
  // import: its outputs computed there when its inputs are constants (the
  // shape arithmetic exporters write), the node then not kept; or NULL
  bool (*fold)(OnnxLoad *L);
  // each output a function of the inputs alone (Split): import makes one
  // node per output, the k-th with the k-th of the node's layouts, and the
  // program writes that node's one output
  bool per_output;
  // import rewrites a node of it into nodes of other rows (its shape rule
  // does, through ld_rewrite): at most this many more nodes than the one, and
  // what they are, for the listing (ConvTranspose: its layout nodes, then a
  // Conv); 0 and NULL: the node stays itself
  int more_nodes;
  const char *rewrite;
  // its output is its inputs one after another along the node's axis
  // (Concat): net's plan may have the nodes that make the inputs write
  // them into their slices of the output's buffer, the node then running
  // nothing (plan.h, "joined")
  bool joins;
};

/* The row of the operator named name, or NULL when convgen does not claim it. */
const OpDef *op_def(const char *name);

/* Why infer does not run node n, an operator that is neither a convolution
 * nor a view ("not run by infer yet", or the attribute it does not take), or
 * NULL. */
const char *op_refusal(Arena *a, const OnnxModel *m, const OnnxNode *n);

/* Node n's program (op_refusal said NULL), reading its inputs' elements from
 * host[value] (NULL for a value on the device: its input names the value;
 * a Clip's runtime bounds must be on the host); the program's output is
 * the node's first. */
void op_program(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, OpProgram *p);

/* The table's rows in order, for listing them (`convgen import --operators`):
 * how many there are, and row i (0 <= i < op_count()). */
int op_count(void);
const OpDef *op_at(int i);

/* A role in words ("elementwise", "view"...), as the listing names it. */
const char *op_role_name(OpRole r);

#endif
