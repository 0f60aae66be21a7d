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
 * Initializers (weights) are not planned: they are uploaded once and live
 * for the whole run; weights_bytes counts those the run reads.
 */
#ifndef CONVGEN_PLAN_H
#define CONVGEN_PLAN_H

#include "onnx/onnx.h"

typedef struct NetPlan {
  int nbuffers;
  int64_t *buffer_bytes;     // [nbuffers]
  int *source;               // [value]: the value whose elements it is (a view's source; itself otherwise)
  int *buffer;               // [value]: its buffer (a view's: its source's), -1 when none (an initializer, unused)
  int *made_by;              // [value]: the node that writes it (a convolution for its fused output), -1 when none
  int *last_use;             // [value]: the last node that reads it (nnodes for a graph output), -1 when none
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
 * into a convolution are skipped; every other node writes its first output. */
void net_plan(Arena *a, const OnnxModel *m, const ElemType *et, NetPlan *p);

/* Does buffer b hold no value while node i runs (no value of it written
 * before i and read at i or later, the graph's inputs written before any)?
 * Such a buffer may hold node i's temporaries, which live only while it
 * runs. */
bool net_plan_free_at(const NetPlan *p, const OnnxModel *m, int b, int i);

#endif
