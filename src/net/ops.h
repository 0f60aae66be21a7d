/* ops.h: the operators of a network other than the convolution, each as a
 * small program of the IR (docs/ir.md) written for its node and its shapes,
 * which net.c compiles with cp_compile and runs like any other program
 * (docs/onnx.md, "Running a model"). One function per operator family in
 * ops.c writes the text and names the host arrays it reads; another says
 * why a node is not run (its attributes), before anything runs.
 */
#ifndef CONVGEN_OPS_H
#define CONVGEN_OPS_H

#include "onnx/onnx.h"

enum { OP_MAX_INPUTS = 16 };   // a Concat's inputs at most: a tuple of the IR has 16 fields

typedef struct OpProgram {
  const char *text;                      // the program (in the arena)
  int nin;
  const char *names[OP_MAX_INPUTS];      // its inputs by name,
  const float *data[OP_MAX_INPUTS];      // with their elements on the host (NULL: a value not on the host),
  int value[OP_MAX_INPUTS];              // and the model's value each is (-1: an array made here, as counts)
} OpProgram;

/* Why infer does not run node n, an operator that is neither a convolution
 * nor a view ("not run by infer yet", or the attribute it does not take), or
 * NULL. */
const char *op_refusal(Arena *a, const OnnxModel *m, const OnnxNode *n);

/* Node n's program (op_refusal said NULL), reading its inputs' elements from
 * host[value] (NULL for a value on the device: its input names the value;
 * a Clip's runtime bounds must be on the host); the program's output is
 * the node's first. */
void op_program(Arena *a, const OnnxModel *m, const OnnxNode *n, float *const *host, OpProgram *p);

#endif
