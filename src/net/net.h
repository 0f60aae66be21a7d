/* net.h: a whole ONNX model run on a device (`convgen infer`; docs/onnx.md).
 *
 * The nodes run in graph order, each as kernels convgen generates: a
 * convolution (with what import fused into it: the batch norm folded into
 * its weights and bias here, the activation in its kernel) as the layer's
 * best record in the tuning database when there is one, else a similar
 * tuned layer's best point, else its default point (default_point.h), and
 * the `direct` strategy's kernel only when none compiles; every other operator import claims (activations, Add,
 * BatchNormalization, pooling, Gemm, MatMul, Concat, Softmax) as a program
 * of the IR written for the node (ops.h) and compiled by the same pipeline;
 * Identity, Dropout, Flatten and Reshape move no data. The values live on
 * the device in the buffers plan.h plans by liveness; only the graph's
 * inputs are written and its outputs read (and a value a node's program
 * text needs, a Clip's runtime bounds). A node whose attributes infer does
 * not take is refused with the node and the reason before anything runs.
 * What a run prepared (NetPrepared, below) is what `convgen export
 * MODEL.onnx` writes (export_net.h).
 */
#ifndef CONVGEN_NET_H
#define CONVGEN_NET_H

#include "lower/lower.h"
#include "net/plan.h"
#include "onnx/onnx.h"
#include "rt/rt.h"
#include "tune/db.h"

/* The device memory of a run (plan.h). */
typedef struct NetStats {
  int64_t planned_bytes;     // the activations' buffers: their peak
  int64_t tensor_bytes;      // every activation in a buffer of its own
  int64_t weights_bytes;     // the constant arrays uploaded: weights with the batch norms folded, biases, counts
  int64_t temp_bytes;        // the nodes' temporaries (split-K's partial sums), shared: slot j as large as the largest
                             // j-th; and each node's kept ones (NetStep.kept: Winograd's transformed filters)
  int nbuffers;
  // with NetOptions.runs: the whole network timed by measure.h's protocol
  RtStats time_ms;           // a run's time: the median over the batches, with the spread
  int reps;                  // runs a batch
  int nsteps;                // the nodes that run kernels, in order,
  const char **step_op, **step_name;
  const char **step_how;     // each one's kernels (NetStep.how: "tuned s2 ...", "not tuned: ...", "a program of the IR")
  int *step_kernels;         // and how many it launches a run
  double *step_ms;           // and each one's own time a run (one more batch, an event on every launch)
  int checked;               // with check_programs: the operators' distinct programs checked (each correct)
  int nconvs, untuned, transferred;   // the convolutions, those without a record, those run from a similar layer's
  int defaulted;             // and those run as their default point (default_point.h; the rest of the untuned: direct)
} NetStats;

/* ---- The prepared network: what a run on the device and an export read ----
 *
 * Each node that runs kernels is a step: its program lowered and emitted
 * for the device's target, each of the program's inputs bound to a planned
 * buffer (an activation) or to a constant array (a convolution's folded
 * weights and bias, an initializer read as it is, an array the node made:
 * a batch norm's scale and shift, AveragePool's counts), and the buffer it
 * writes. Every value a program fixes (its text, its constant arrays) is
 * taken when the node is prepared, in graph order, so a value a node
 * computed is read back from the device first. */
typedef struct NetArg {
  int buffer;                // the plan's buffer it reads, or -1:
  int constant;              // the constant array NetPrepared.consts[constant]
} NetArg;

typedef struct NetStep {
  const OnnxNode *node;      // the node (a convolution writes the output of the last node fused into it)
  const char *how;           // its kernels: "tuned s2 ... (12.3 us)", "not tuned: s2 ..., the default point (...)",
                             // "direct (not tuned)", "a program of the IR"
  const LProgram *lp;        // lowered: the kernels, their launches and arguments, in order
  int source;                // its source, NetPrepared.sources[source]
  NetArg *in;                // [lp->prog->ninputs]: what each program input reads
  int out;                   // the plan's buffer it writes,
  int value;                 // holding this value of the model
  int64_t temp_bytes;        // its temporaries (split-K's partial sums), shared with the other steps'
  uint64_t fixed;            // its program's inputs bound to constants (bit i: input i), the weights
  bool *kept;                // [lp->nbuffers]: the temporaries a kernel computed from those alone writes
                             // (lw_kernel_prepares: Winograd's filter transform), which runs in the first run
                             // only: buffers of the step's own, kept from run to run (infer's and the export's)
  int64_t kept_bytes;        // their bytes
  int *in_buffer;            // [lp->nbuffers]: a temporary that is not kept placed in this activation buffer of
                             // the plan, free while the step runs (net_plan_free_at); -1: in a shared slot
                             // (temp_bytes counts those only)
} NetStep;

typedef struct NetConst {
  const float *data;         // its elements (in the run's arena)
  int64_t n;
  const OnnxNode *node;      // the first node that reads it,
  const char *input;         // as its program's input of this name ("weights", "B", "s")
} NetConst;

typedef struct NetPrepared {
  const OnnxModel *m;
  LayerPrecision precision;  // the run's (NetOptions.precision): what an output's check allows (net_tolerance)
  NetPlan plan;              // the activations' buffers (plan.h)
  int nsteps;
  NetStep *steps;            // the nodes that run kernels, in graph order
  int nconsts;
  NetConst *consts;          // uploaded once, read by the steps
  int nsources;
  const char **sources;      // the distinct sources (cg_emit for the device's target), each built once
  int64_t temp_bytes;        // the largest temporaries of one step, kept (NetStep.kept) or shared
  int nconvs;                // the convolutions (each a layer),
  int untuned;               // those without a record of their own on the device,
  int transferred;           // and of those, the ones running a similar tuned layer's best point,
  int defaulted;             // the ones running their default point (default_point.h; the others direct)
} NetPrepared;

typedef struct NetOptions {
  Db *db;                    // records to take the layers' kernels from (NULL: none, every layer its default point)
  int64_t device_id;         // the device's id in db
  int64_t twin_id;           // the same GPU under the other target in db (0: none): its records are used too
  const char *db_path;       // where the records were looked for (NULL: nowhere), for the note on untuned layers
  bool verbose;              // say each node's kernel on stderr
  NetStats *stats;           // when not NULL: filled by a run that ends well
  int runs;                  // with stats: also time the network, this many batches (0: not timed)
  int build_threads;         // builds at once (rt/builds.h; 0: rt_build_threads's)
  bool check_programs;       // check each operator's program (not the convolutions') against the float64
                             // interpreter on random inputs before it runs (meas_run; `convgen bench`)
  NetPrepared *prepared;     // when not NULL: filled by a run that ends well (`convgen export`, export_net.h)
  bool nearest;              // --untuned nearest: a layer without a record runs the best point of a similar
                             // tuned layer before its default point
  LayerPrecision precision;  // the element type of every tensor in memory (PREC_FP32, the default: float)
  bool memory_fast;          // --memory fast: a layer's fastest record whatever its temporaries; else (lean) of
                             // its NET_LEAN_RECORDS fastest the fastest whose temporaries fit in the activation
                             // buffers free while it runs (place_temporaries), the fastest when none does
} NetOptions;

enum { NET_LEAN_RECORDS = 8 };   // the records --memory lean looks through, fastest first
/* --memory lean passes a layer's fastest record over for one whose
 * temporaries fit only when that one takes at most this many times as
 * long: round 43's DenseNet-121 ran 1.76x slower tuned than untuned when
 * lean took 48-us records for 22-us split-K ones, to save 5.6 MB where it
 * held 41 MB against PyTorch's 78 (bench/README.md); SqueezeNet 1.1's
 * choices, at most 1.7x, keep it under PyTorch's peak. */
#define NET_LEAN_SLOWDOWN 2.0

/* The tuning database a run takes its layers' kernels from, opened as
 * infer, export, bench and the library (api/convgen.h) open it: the one at
 * path (NULL: db_default_path's) read-only into no->db, no->db_path saying
 * where it was looked for. A file that does not exist is no database
 * (no->db NULL: every layer its default point); one that cannot be read or
 * is not a convgen database is the user's error. */
bool net_records_open(Arena *a, const char *path, NetOptions *no, Diag *d);
/* no->device_id and no->twin_id: dev's row in no->db and the same GPU's
 * under the other target (nothing to do without a database); false with
 * the Diag, no->db closed, when the database cannot be queried. */
bool net_records_device(NetOptions *no, RtDevice *dev, Diag *d);

/* Why m cannot be run (the first node infer does not run, with its reason),
 * or NULL. */
const char *net_unsupported(Arena *a, const OnnxModel *m);

/* Why an export of m (export_net.h) would not compute m on other inputs:
 * the first node whose program fixes elements that come from a graph input
 * (a convolution's weights, a Clip's bounds given as inputs), or NULL. */
const char *net_unexportable(Arena *a, const OnnxModel *m);

/* Whether each of m's graph inputs has its tensor's shape (inputs in the
 * graph's order); else a user error naming both shapes. */
bool net_check_inputs(const OnnxModel *m, const OnnxTensor *inputs, Diag *d);

/* Runs m on dev: inputs[i] is graph input i (m->inputs order; its shape must
 * be the input's); outputs[i] gets graph output i (data in a). False with a
 * Diag naming the node that failed. */
bool net_infer(Arena *a, RtDevice *dev, const OnnxModel *m, const OnnxTensor *inputs, OnnxTensor *outputs,
               const NetOptions *o, Diag *d);

/* A network prepared on dev and kept to run again (the library's session,
 * api/convgen.h): net_open prepares every node and runs it once on inputs
 * (as net_infer does, the same options), net_session_run runs the bound
 * steps again on other inputs of the same shapes and reads output i into
 * outputs[i] (onnx_elems of it, the caller's), net_close frees the device's
 * buffers and programs. */
typedef struct NetSession NetSession;
NetSession *net_open(Arena *a, RtDevice *dev, const OnnxModel *m, const OnnxTensor *inputs, const NetOptions *o,
                     Diag *d);
bool net_session_run(NetSession *s, const OnnxTensor *inputs, float *const *outputs, Diag *d);
const NetPrepared *net_session_prepared(const NetSession *s);
void net_close(NetSession *s);

/* Whether m's run fits dev and this host, checked before anything of it is
 * allocated (net_infer checks it too): the planned activations and the
 * weights within the device's memory, each buffer within its largest
 * allocation, the inputs and outputs within the host's physical memory.
 * Past them an allocation failed midway, or the host's aborted the process. */
bool net_memory_check(Arena *a, const OnnxModel *m, const ElemType *et, RtDevice *dev, Diag *d);

/* The largest relative L2 error of graph output k against its float64
 * value that infer's --expect passes, for a run whose tensors are in
 * precision p: 1e-4 in fp32; in fp16, 1e-4 plus 2^-11 for each rounding to
 * half on the longest path from a graph input to the output (net.c). */
double net_tolerance(const OnnxModel *m, int k, LayerPrecision p);

/* m's graph inputs, uniform in [-1, 1) from seed (in a). */
OnnxTensor *net_random_inputs(Arena *a, const OnnxModel *m, uint64_t seed);

/* net_infer on random inputs (uniform in [-1, 1) from seed), for its stats:
 * `convgen bench MODEL.onnx`'s whole network. */
bool net_bench(Arena *a, RtDevice *dev, const OnnxModel *m, const NetOptions *o, uint64_t seed, Diag *d);

#endif
