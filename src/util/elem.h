/* elem.h: the element types of tensors (docs/design.md section 2).
 *
 * One descriptor per element type says everything the system needs to know
 * of it: its name in the IR's text form, its size, how each target spells it
 * and its vectors, how a literal of it is written, the type its sums are
 * accumulated in, and the bits it is poisoned with. The types, the text form,
 * the lowering, both emitters, the runtime and the measurement read it where
 * they used to write `float` and 4 bytes. fp32 is the one element type today
 * (issue 31 adds fp16); what does not name an element type is fp32.
 */
#ifndef CONVGEN_ELEM_H
#define CONVGEN_ELEM_H

#include "util/util.h"

typedef enum ElemKind {
  ELEM_FP32,   // IEEE binary32: OpenCL's and CUDA's float
  ELEM_COUNT
} ElemKind;

/* The languages that spell an element type; a dialect (src/codegen) names
 * the one it prints. */
typedef enum ElemTarget {
  ELEM_OPENCL,   // OpenCL C 1.2
  ELEM_CUDA,     // CUDA C
  ELEM_TARGETS
} ElemTarget;

typedef struct ElemSpelling {
  const char *scalar;    // the scalar type: "float"
  const char *vec_fmt;   // a vector of it, given the width: "float%d"
} ElemSpelling;

typedef struct ElemType {
  ElemKind kind;
  const char *name;          // the scalar type in the IR's text form ("float"; vectors are name then width)
  int bytes;                 // one value's size in memory
  int digits;                // significant decimal digits that read back as the same value (9)
  const char *lit_suffix;    // after a literal in the IR and in C ("f": 1.5f)
  double max;                // the largest finite value (FLT_MAX)
  ElemKind acc;              // the type its sums are accumulated in
  uint32_t nan_bits;         // a quiet NaN, the low `bytes` bytes (little-endian): the poison
  ElemSpelling spell[ELEM_TARGETS];   // how each target writes it
} ElemType;

extern const ElemType ELEM_TYPES[ELEM_COUNT];   // by ElemKind
const ElemType *elem_type(ElemKind k);
const ElemType *elem_fp32(void);                  // the default element type
const ElemType *elem_lookup(const char *name);    // by the text form's name; NULL when none
/* The one byte formula: the bytes of n values of element type et. */
int64_t elem_bytes(const ElemType *et, int64_t n);
/* v as a literal of et, in the IR's text form and in C alike: et->digits
 * significant digits, always a '.' or an exponent, then the suffix. */
void elem_literal(StrBuf *sb, const ElemType *et, double v);
/* The name of et's vector of the given width in a target ("float4"). */
void elem_vec_name(char *buf, size_t cap, const ElemType *et, ElemTarget target, int width);

#endif
