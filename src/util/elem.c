/* elem.c: the table of element types (elem.h). One row per type; nothing
 * else in the system spells an element type or its size. */
#include "util/elem.h"

#include <float.h>
#include <string.h>

const ElemType ELEM_TYPES[ELEM_COUNT] = {
    [ELEM_FP32] = {.kind = ELEM_FP32,
                   .name = "float",
                   .bytes = 4,
                   .digits = 9,
                   .lit_suffix = "f",
                   .max = FLT_MAX,
                   .acc = ELEM_FP32,
                   .nan_bits = 0x7fc00000u,
                   .spell = {[ELEM_OPENCL] = {"float", "float%d"}, [ELEM_CUDA] = {"float", "float%d"}}},
};

const ElemType *elem_type(ElemKind k) {
  cg_assert((unsigned)k < ELEM_COUNT);
  return &ELEM_TYPES[k];
}

const ElemType *elem_fp32(void) { return &ELEM_TYPES[ELEM_FP32]; }

const ElemType *elem_lookup(const char *name) {
  for (int k = 0; k < ELEM_COUNT; k++)
    if (strcmp(ELEM_TYPES[k].name, name) == 0) return &ELEM_TYPES[k];
  return NULL;
}

int64_t elem_bytes(const ElemType *et, int64_t n) { return n * et->bytes; }

void elem_literal(StrBuf *sb, const ElemType *et, double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*g", et->digits, v);
  sb_puts(sb, buf);
  if (!strpbrk(buf, ".eni")) sb_puts(sb, ".0");
  sb_puts(sb, et->lit_suffix);
}

void elem_vec_name(char *buf, size_t cap, const ElemType *et, ElemTarget target, int width) {
  cg_assert((unsigned)target < ELEM_TARGETS);
  snprintf(buf, cap, et->spell[target].vec_fmt, width);
}
