/* net.h: a whole ONNX model run on a device (`convgen infer`; docs/onnx.md).
 *
 * The nodes run in graph order, each as kernels convgen generates: a
 * convolution (with what import fused into it: the batch norm folded into
 * its weights and bias here, the activation in its kernel) as the layer's
 * best record in the tuning database when there is one, else the `direct`
 * strategy's kernel; every other operator import claims (activations, Add,
 * BatchNormalization, pooling, Gemm, MatMul, Concat, Softmax) as a program
 * of the IR written for the node (ops.h) and compiled by the same pipeline;
 * Identity, Dropout, Flatten and Reshape move no data. The values live on
 * the device in the buffers plan.h plans by liveness; only the graph's
 * inputs are written and its outputs read (and a value a node's program
 * text needs, a Clip's runtime bounds). A node whose attributes infer does
 * not take is refused with the node and the reason before anything runs.
 */
#ifndef CONVGEN_NET_H
#define CONVGEN_NET_H

#include "onnx/onnx.h"
#include "rt/rt.h"
#include "tune/db.h"

/* The device memory of a run (plan.h). */
typedef struct NetStats {
  int64_t planned_bytes;     // the activations' buffers: their peak
  int64_t tensor_bytes;      // every activation in a buffer of its own
  int64_t weights_bytes;     // the initializers read (uploaded as the nodes run: folded, or as read)
  int64_t temp_bytes;        // the nodes' temporaries (split-K's partial sums), each node's its own for the run
  int nbuffers;
  // with NetOptions.runs: the whole network timed by measure.h's protocol
  RtStats time_ms;           // a run's time: the median over the batches, with the spread
  int reps;                  // runs a batch
  int nsteps;                // the nodes that run kernels, in order,
  const char **step_op, **step_name;
  double *step_ms;           // and each one's own time a run (one more batch, an event on every launch)
  int checked;               // with check_programs: the operators' programs checked (each correct)
} NetStats;

typedef struct NetOptions {
  Db *db;                    // records to take the layers' kernels from (NULL: direct kernels only)
  int64_t device_id;         // the device's id in db
  bool verbose;              // say each node's kernel on stderr
  NetStats *stats;           // when not NULL: filled by a run that ends well
  int runs;                  // with stats: also time the network, this many batches (0: not timed)
  bool check_programs;       // check each operator's program (not the convolutions') against the float64
                             // interpreter on random inputs before it runs (meas_run; `convgen bench`)
} NetOptions;

/* Why m cannot be run (the first node infer does not run, with its reason),
 * or NULL. */
const char *net_unsupported(Arena *a, const OnnxModel *m);

/* Runs m on dev: inputs[i] is graph input i (m->inputs order; its shape must
 * be the input's); outputs[i] gets graph output i (data in a). False with a
 * Diag naming the node that failed. */
bool net_infer(Arena *a, RtDevice *dev, const OnnxModel *m, const OnnxTensor *inputs, OnnxTensor *outputs,
               const NetOptions *o, Diag *d);

/* net_infer on random inputs (uniform in [-1, 1) from seed), for its stats:
 * `convgen bench MODEL.onnx`'s whole network. */
bool net_bench(Arena *a, RtDevice *dev, const OnnxModel *m, const NetOptions *o, uint64_t seed, Diag *d);

#endif
