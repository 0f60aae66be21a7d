/* load.h: a model being read (onnx.c), as the shape rules of the operator
 * table see it: the node in hand with its protobuf attributes, the values
 * with their shapes and initializers, and the helpers every rule uses
 * (ld_). Inside src/onnx only, and only where protobuf-c's generated
 * reader is (CONVGEN_ONNX): a shape rule reads a NodeProto's attributes.
 * The invariant every rule keeps: a value's shape is set once, by
 * ld_set_out (or an initializer's), within ONNX_MAX_DIM and ONNX_MAX_ELEMS,
 * so that nothing computed from it wraps. */
#ifndef CONVGEN_ONNX_LOAD_H
#define CONVGEN_ONNX_LOAD_H

#include "onnx/rows.h"
#include "onnx/onnx.pb-c.h"

struct OnnxLoad {
  Arena *a;
  Diag *d;
  OnnxModel *m;
  int cap;                          // of m->values
  bool *known;                      // [value]: its shape is known
  const Onnx__TensorProto **init;   // [value]: its initializer, or NULL
  const Onnx__NodeProto *np;        // the node being read
  OnnxNode *node;
  const Onnx__NodeProto **proto;    // [node]: its NodeProto (a rewrite's nodes share their node's)
  int cap_nodes;                    // of m->nodes and proto
  const Onnx__GraphProto *g;        // the graph being read
  const char **names;               // [nnames]: every name the graph gives a value, open-addressed (NULL
  size_t nnames;                    // empty), made when a rewrite first asks (ld_new_value); a power of 2
  int *slots;                       // [nslots]: an open-addressed table of values by name, -1 empty
  int nslots;                       // a power of 2, at least twice the values
};
typedef OnnxLoad Load;

/* The node's error, "PATH: node NAME (OP): MESSAGE"; false. */
bool ld_error(Load *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The value named name (made when missing); -1 for "" (an absent optional input). */
int ld_value_of(Load *L, const char *name);
/* Value v as the constant tensor t (an initializer, or a Constant node's
 * value; what names it in messages), its shape and data checked. */
bool ld_add_initializer(Load *L, int v, const Onnx__TensorProto *t, const char *what);

/* A value of its own, named name, or name#2, name#3... when that is taken
 * or the graph names a value so anywhere, later nodes too (a rewrite's
 * intermediate value: ConvTranspose's zeros inserted). */
int ld_new_value(Load *L, const char *name);
/* An import rewrite (an OpDef's more_nodes): the node in hand, the last so
 * far, made into count nodes, each a copy of it with its NodeProto; the
 * first returned, L->node the last. The rewrite then gives each its row,
 * name, inputs and outputs (their arrays its own). */
OnnxNode *ld_rewrite(Load *L, int count);

/* Attributes of a node: the attribute, or its value with a default. */
const Onnx__AttributeProto *ld_attr(const Onnx__NodeProto *n, const char *name);
int64_t ld_attr_int(const Onnx__NodeProto *n, const char *name, int64_t def);
float ld_attr_float(const Onnx__NodeProto *n, const char *name, float def);
int ld_attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, int max);   // its count, -1 when absent
const char *ld_attr_string(Arena *ar, const Onnx__NodeProto *n, const char *name, const char *def);

/* Initializer data: element i of an int64 tensor, element 0 of a float one,
 * every element of a float one (false: another type or count). */
bool ld_init_i64(const Onnx__TensorProto *t, int64_t i, int64_t *out);
bool ld_init_f32(const Onnx__TensorProto *t, float *out);
bool ld_tensor_floats(const Onnx__TensorProto *t, float *out, int64_t n);

/* The node in hand: input k's value; its inputs counted (lo to hi, the
 * required ones present); input k's rank; input k an initializer; output
 * k's shape set (false past the bounds); every output the shape of input 0. */
OnnxValue *ld_in(Load *L, int k);
bool ld_need_inputs(Load *L, int lo, int hi);
bool ld_has_input(Load *L, int k);   // input k given (not absent, not "")
bool ld_need_rank(Load *L, int k, int rank, const char *what);
bool ld_need_init(Load *L, int k, const char *what);
bool ld_set_out(Load *L, int k, int rank, const int64_t *dims);
bool ld_same_shape(Load *L);
void ld_put_dims(StrBuf *sb, int rank, const int64_t *dims);   // "2x3x4", "scalar"

/* The layer of a 2-D convolution of an input of NCHW dims x by k kernels of
 * ks (kh, kw), with strides st, dilations dil, pads (begin h, begin w, end
 * h, end w) and g groups, into *l; false with d's reason when it is not one
 * convgen takes (layer_check). Conv's rule and ConvTranspose's derivation
 * (convtranspose.c) both make their layers here. */
bool ld_conv_layer(const int64_t *x, int64_t k, const int64_t *ks, const int64_t *st, const int64_t *dil,
                   const int64_t *pads, int64_t g, bool bias, Layer *l, Diag *d);

/* The pads of a 2-D window (begin h, begin w, end h, end w) from pads or
 * auto_pad; in, kernel extent (dilated), stride per dimension (each
 * checked by the caller: 1 to INT32_MAX). */
bool ld_window_pads(Load *L, const int64_t *in, const int64_t *ext, const int64_t *stride, int64_t *pads);

#endif
