/* onnx.h: ONNX models as convgen sees them (docs/onnx.md).
 *
 * onnx_load reads a model file (ONNX's ModelProto, through protobuf-c's
 * code generated at build time from the onnx.proto that Debian's
 * libonnx-dev installs), checks it, and infers the shape of every tensor
 * of its graph: each node's operator must be one convgen claims (the table
 * in onnx.c), with its attributes in range, its inputs of the shapes the
 * operator takes and its weights initializers. A convolution becomes a
 * Layer (layer.h); a BatchNormalization that only its output feeds is
 * folded into it at import (its bias), then an Add of that output and a
 * value of its shape computed before the convolution (a residual block's
 * shortcut) becomes the layer's residual=1, and an activation that only
 * that output feeds (Relu, Clip, LeakyRelu, Sigmoid, HardSwish) becomes the
 * layer's act: one kernel for the four. The model's shapes must all be
 * known: a graph input with a symbolic dimension needs a binding
 * ("x=1x3x224x224", `convgen import --shape`).
 *
 * A convgen built without protobuf-c (the Makefile says so) has no reader:
 * onnx_load then fails with a DIAG_USER saying how to get one.
 */
#ifndef CONVGEN_ONNX_H
#define CONVGEN_ONNX_H

#include "conv/layer.h"
#include "util/util.h"

enum { ONNX_MAX_RANK = 8 };
/* The bounds of every tensor a model may hold, checked where a shape is read
 * or inferred, so that no size computed from them wraps: each dimension an
 * int (what kernels index with), the elements of one tensor at most 2^31 - 1
 * (8 GiB of floats). */
#define ONNX_MAX_DIM INT64_C(2147483647)
#define ONNX_MAX_ELEMS INT64_C(2147483647)
/* The largest model or tensor file read: protobuf's own limit on a message
 * (2 GiB) for a file, less from a stream (a pipe, a device), which cannot say
 * its size before it is read. */
#define ONNX_MAX_FILE_BYTES ((size_t)2147483647)
#define ONNX_MAX_STREAM_BYTES ((size_t)256 << 20)

typedef struct OnnxValue {
  const char *name;
  int rank;
  int64_t dims[ONNX_MAX_RANK];
  bool initializer;          // a weight, bias or constant stored in the model
  bool graph_input;          // an input of the graph that is not an initializer
  const float *data;         // a float initializer's elements (row-major), else NULL
} OnnxValue;

/* A pooling window (MaxPool, AveragePool) as the shape rule took it. */
typedef struct OnnxWindow {
  int64_t kernel[2];         // h, w
  int64_t stride[2];
  int64_t dil[2];            // dilations
  int64_t pads[4];           // begin h, begin w, end h, end w (auto_pad resolved)
  bool ceil_mode;            // the output's size rounded up: the last window may pass the end padding
  bool count_pad;            // AveragePool's count_include_pad: padded elements count in the mean
} OnnxWindow;

typedef struct OpDef OpDef;   // an operator's row in the table (ops.h)

typedef struct OnnxNode {
  const char *name;          // the node's name, or "#N" (its index) when it has none
  const char *op;            // "Conv", "Relu", ...
  const OpDef *def;          // its operator's row
  int nin, nout;
  int *in, *out;             // indices into OnnxModel.values; -1 for an absent optional input
  bool is_conv;              // a convolution: layer is its shape, bias and activation
  bool a_weights;            // a MatMul run as a convolution whose weights are A (input 0, a value) and whose
                             // input is B (input 1, a constant): shapes.c, matmul_as_conv
  Layer layer;
  int fused_into;            // a BatchNormalization, Add or activation folded into node fused_into; -1 when not
  int residual;              // a convolution with residual=1: the value it adds (the other input of the Add
                             // fused into it); -1 when none
  int scale;                 // a convolution with scale=1: the value [n][c][1][1] its input is multiplied by
                             // (the other input of the Mul fused into it, its in[0] the Mul's x); -1 when none
  const char *detail;        // what it does, for the listing ("kernel 3x3, stride 2, pad 1")
  float eps;                 // BatchNormalization's epsilon
  Layer act;                 // an activation node's function, as a layer's act (Relu, Clip, ...)
  bool has_act;              // act is set: the node is an activation convgen can apply
  OnnxWindow win;            // MaxPool's and AveragePool's window
  float alpha, beta;         // Gemm's: Y = alpha A' B' + beta C
  bool trans_a, trans_b;     // Gemm's transA, transB
  int axis;                  // Concat's and Softmax's, counted from 0 (the opset's default when absent)
  const struct OnnxLayout *layout;   // Transpose's, Slice's and Pad's attributes as import read them (rows.h)
  const struct OnnxResize *resize;   // Resize's attributes as import read them (rows.h)
  const struct OnnxConvT *convt;     // a ConvTranspose's layout node: which one and its attributes (rows.h)
  const char *from;          // a node an import rewrite made: what it was made from, for the listing, or NULL
  int nchain;                // an elementwise node whose program also computes the elementwise nodes fused
  const int *chain;          // into it (the chain's members, fuse_chains in onnx.c), their indices; 0: none
  unsigned axes;             // a reduction's (reduce.c): bit i for axis i reduced; 0: none, the input copied
  const char *fn;            // an elementwise node's function as C (its row's fn with its attributes
                             // substituted: HardSigmoid's alpha, Gelu's approximate), or NULL: the row's
} OnnxNode;

/* A graph input of integer type made a constant of the model from its
 * --input file (onnx_load_inputs): an initializer now, not an input. */
typedef struct OnnxBound {
  const char *name;              // the input's
  const char *file;              // the tensor file its values came from
  const char *type;              // its declared element type: "int64", "int32"
  int value;                     // its value, an initializer
} OnnxBound;

typedef struct OnnxModel {
  const char *path;
  int64_t ir_version, opset;     // opset: the default domain's version
  const char *producer;          // "pytorch 2.1.0", or ""
  int nvalues;
  OnnxValue *values;
  int nnodes;
  OnnxNode *nodes;
  int ninputs, noutputs;
  int *inputs, *outputs;         // graph inputs (initializers excluded) and outputs, as values
  int *input_file;               // [input]: its place among the graph's inputs as listed (initializers
                                 // excluded), the index of its --input file; i when none is bound
  int nbound;                    // graph inputs bound as constants (onnx_load_inputs)
  const OnnxBound *bound;
  int widened;                   // float16 initializers, constants and graph inputs read as float32 (exactly)
  int half_inputs;               // of those, graph inputs: a model in float16 (onnx_in_half)
} OnnxModel;

/* Whether m is a model in float16, which runs as it is, in fp16 (infer,
 * bench, export and tune take --precision fp16 for it unless told, and so
 * do the API's sessions): its graph takes float16 inputs, as a model
 * exported after torch's model.half() does. A float16 constant in a float32
 * graph (a Cast of a mixed-precision export) does not make one. */
bool onnx_in_half(const OnnxModel *m);

/* The elements of a value: the product of its dimensions (-1 past the
 * bounds above, which no value of a loaded model is). */
int64_t onnx_elems(const OnnxValue *v);
/* The product of rank dims into *n, computed without wrapping: false when a
 * dimension is negative or past ONNX_MAX_DIM, or the product past
 * ONNX_MAX_ELEMS. */
bool onnx_dims_elems(const int64_t *dims, int rank, int64_t *n);

/* Whether this convgen reads ONNX (it was built with protobuf-c). */
bool onnx_available(void);

/* The model at path, checked and with every shape known; nbind bindings
 * "NAME=D1xD2x..." give a graph input's shape. NULL with a DIAG_USER
 * naming the file, and the node, operator and reason where there is one. */
OnnxModel *onnx_load(Arena *a, const char *path, int nbind, const char *const *binds, Diag *d);
/* onnx_load with the tensor files given for the graph's inputs (--input):
 * nfiles, 0 or one per graph input as listed (initializers excluded). A
 * graph input of integer type (int64, int32) becomes a constant of the
 * model, an initializer of its file's values (an int32 one widened to
 * int64, as the folds read it), before any shape is inferred: the model is
 * specialised to it (m->bound). Without its file it is refused, naming it.
 * A file for a float32 input is not read here (infer binds it at run time:
 * m->input_file). */
OnnxModel *onnx_load_inputs(Arena *a, const char *path, int nbind, const char *const *binds, int nfiles,
                            const char *const *files, Diag *d);

/* The listing `convgen import` prints: the model, its inputs and outputs,
 * every node with its shapes, the convolutions as layer specs with what was
 * fused into them, and the distinct layers. */
void onnx_print(StrBuf *sb, const OnnxModel *m);

/* The model's convolutions as layers, identical shapes once (layer_equal),
 * in graph order, each named "MODEL:NODE"; at most max, returns how many
 * there are. */
int onnx_layers(const OnnxModel *m, Arena *a, Layer *out, const char **names, int max);

/* A tensor file: a serialized TensorProto, the format of ONNX's test data
 * (test_data_set_N/input_K.pb). Only float32 tensors are read. */
typedef struct OnnxTensor {
  const char *name;
  int rank;
  int64_t dims[ONNX_MAX_RANK];
  float *data;               // in the arena
  int64_t n;                 // elements
} OnnxTensor;
bool onnx_tensor_read(Arena *a, const char *path, OnnxTensor *t, Diag *d);
bool onnx_tensor_write(const char *path, const OnnxTensor *t, Diag *d);   // atomic (file_write)
/* numpy's .npy files (npy.c), which onnx_tensor_read takes by their magic
 * and onnx_tensor_write writes for a path ending in .npy: whether the file
 * at path starts with the magic; one read (float32 or float64, C order);
 * one written (float32, version 1.0, atomic). */
bool npy_file(const char *path);
bool npy_read(Arena *a, const char *path, OnnxTensor *t, Diag *d);
bool npy_write(const char *path, const OnnxTensor *t, Diag *d);

/* The operators onnx_load accepts, comma-separated, in the table's order (ops.c). */
const char *onnx_operators(void);

#endif
