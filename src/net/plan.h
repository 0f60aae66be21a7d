/* plan.h: the device memory of a network's run, planned by liveness
 * (docs/onnx.md, "Memory").
 *
 * A value a node makes lives in a device buffer from that node to the last
 * node that reads it; a view (Identity, Dropout, Flatten, Reshape) makes no
 * value of its own, and a node that reads the view reads its source, so the
 * source lives until then. A convolution makes the output of the last node
 * fused into it. Graph inputs live for the whole run (a run repeated reads
 * them again), graph outputs to the end. Walking the nodes in order, a value takes the smallest free buffer
 * that holds it, else a new buffer; the buffers of the values whose last
 * reader is the node are freed after it runs, so a node's output never
 * shares a buffer with its inputs. (Writing in place over an input that
 * dies would be legal for the elementwise nodes, but every kernel convgen
 * emits declares its arrays restrict: no argument may alias another.)
 *
 * A Concat (its row's `joins`) is joined where it can be: the nodes that
 * make its inputs write them straight into their slices of its output's
 * buffer and the Concat runs nothing (the copy cost SqueezeNet 4.5 us a
 * Concat on an H100, and a buffer for each input besides the output's).
 * Its output then lives from the first of those nodes on; each input is
 * the output's elements from its offset (offset[], source[] the output).
 * Joined only where every input is a slice of consecutive elements (the
 * dimensions before the axis all 1), is made by a node that runs kernels
 * and writes nothing else (or is a Concat joined before), is read by the
 * Concat alone (once) and is no graph output, and every offset is a
 * multiple of NET_JOIN_ALIGN elements (a kernel's vector stores stay
 * aligned); else the Concat copies. Concats whose inputs begin with
 * another's (DenseNet's block) are joined as one family, each one's
 * inputs read by the family's Concats alone (plan.c, join_family).
 *
 * Initializers (weights) are not planned: they are uploaded once and live
 * for the whole run; weights_bytes counts those the run reads.
 */
#ifndef CONVGEN_PLAN_H
#define CONVGEN_PLAN_H

#include "onnx/onnx.h"

enum { NET_JOIN_ALIGN = 16 };   // a joined Concat's slices start at multiples of this many elements

typedef struct NetPlan {
  int nbuffers;
  int64_t *buffer_bytes;     // [nbuffers]
  int *source;               // [value]: the value whose elements it is (a view's source; itself otherwise)
  int *buffer;               // [value]: its buffer (a view's: its source's), -1 when none (an initializer, unused)
  int *made_by;              // [value]: the node that writes it (a convolution for its fused output), -1 when none
  int *last_use;             // [value]: the last node that reads it (nnodes for a graph output), -1 when none
  int64_t *offset;           // [value]: the element of its buffer where it starts: a joined Concat's input
                             // (source: the Concat's output), 0 for any other
  bool *joined;              // [node]: a Concat joined (its inputs' makers write its output): it runs nothing
  int64_t planned_bytes;     // the buffers' bytes: the activations' peak on the device
  int64_t tensor_bytes;      // every planned value's bytes, as if each had a buffer of its own
  int64_t weights_bytes;     // the initializers nodes read
} NetPlan;

/* A view (the operator table's ROLE_VIEW: Identity, Dropout, Flatten,
 * Reshape): the same elements as the input. */
bool net_is_view(const OnnxNode *n);

/* The value node i writes: its first output, or for a convolution the
 * output of the last node fused into it. */
int net_written(const OnnxModel *m, int i);

/* The plan of m, its values' elements of type et in memory. Nodes fused
 * into a convolution and joined Concats are skipped; every other node
 * writes its first output. */
void net_plan(Arena *a, const OnnxModel *m, const ElemType *et, NetPlan *p);

/* The elements of its output's buffer, from the start, that node i's step
 * poisons before its first run: its output's; for the first of a joined
 * Concat's makers the Concat's whole output, for the others none (that
 * would undo the slices written before theirs). */
int64_t net_plan_poisoned(const NetPlan *p, const OnnxModel *m, int i);

/* Does buffer b hold no value while node i runs (no value of it written
 * before i and read at i or later, the graph's inputs written before any)?
 * Such a buffer may hold node i's temporaries, which live only while it
 * runs. */
bool net_plan_free_at(const NetPlan *p, const OnnxModel *m, int b, int i);

#endif
