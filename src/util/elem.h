/* elem.h: the element types of tensors (docs/design.md section 2).
 *
 * One descriptor per element type says everything the system needs to know
 * of it: its name in the IR's text form, its size, how each target spells it
 * and its vectors, how a literal of it is written, the type its sums are
 * accumulated in, and the bits it is poisoned with. The types, the text form,
 * the lowering, both emitters, the runtime and the measurement read it where
 * they used to write `float` and 4 bytes. fp32 is the arithmetic type; fp16
 * (half) is a storage type so far (issue 31): an array of it in memory is
 * read as fp32 values and written from them, rounded to nearest even, and
 * arithmetic stays fp32. What does not name an element type is fp32.
 */
#ifndef CONVGEN_ELEM_H
#define CONVGEN_ELEM_H

#include "util/util.h"

typedef enum ElemKind {
  ELEM_FP32,   // IEEE binary32: OpenCL's and CUDA's float
  ELEM_FP16,   // IEEE binary16: OpenCL's half (storage only), CUDA's __half
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
  /* A storage type (acc another type): how a value in memory is read as
   * its accumulation type and written from it. With by_offset the calls
   * take the index and the pointer, load(i, p) and store(v, i, p) (OpenCL's
   * vload_half); else they convert the element, load(p[i]) and
   * p[i] = store(v) (CUDA's __half2float). NULL for an arithmetic type. */
  const char *load;
  const char *store;
  bool by_offset;
  /* Its vectors in memory, given the width: read as the accumulation type's
   * vector, vload(off, p) reading N values at p + N*off, and written from
   * one, vstore(v, off, p) (OpenCL's vload_half4; CUDA's as the header
   * defines them). NULL for an arithmetic type. */
  const char *vload_fmt;
  const char *vstore_fmt;
  const char *header;    // what the source needs before its first use, or NULL (CUDA's __half and its conversions)
  /* Where the language declares no arrays of it (OpenCL 1.2's half, without
   * cl_khr_fp16): the type of its size a local array of it is declared as,
   * then seen through a pointer to it; NULL where its arrays are declared
   * as they are. */
  const char *local_raw;
} ElemSpelling;

typedef struct ElemType {
  ElemKind kind;
  const char *name;          // the scalar type in the IR's text form ("float"; vectors are name then width)
  int bytes;                 // one value's size in memory
  int digits;                // significant decimal digits that read back as the same value (9)
  const char *lit_suffix;    // after a literal in the IR and in C ("f": 1.5f)
  double max;                // the largest finite value (FLT_MAX)
  double roundoff;           // the unit roundoff 2^-p (p the significand's bits): the largest relative
                             // error of rounding a value in range to nearest (fp32 2^-24, fp16 2^-11)
  ElemKind acc;              // the type its sums are accumulated in; another type's for a storage
                             // type, whose values are computed in that type and rounded when stored
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
/* A storage type: its values are computed in another (its acc) and only
 * stored in it (fp16). */
bool elem_is_storage(const ElemType *et);
/* v rounded to a value of et, to nearest even (through fp32 first, as a
 * kernel computes it in fp32 and then stores it): what a kernel's store of
 * v into memory of et keeps. NaN stays NaN, beyond the largest finite value
 * is an infinity. */
double elem_round(const ElemType *et, double v);
/* IEEE binary16 and binary32 conversions, round to nearest even. */
uint16_t elem_f32_to_f16(float v);
float elem_f16_to_f32(uint16_t h);

/* The name of et's vector of the given width in a target ("float4"). */
void elem_vec_name(char *buf, size_t cap, const ElemType *et, ElemTarget target, int width);

#endif
