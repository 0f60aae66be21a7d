/* elem.c: the table of element types (elem.h). One row per type; nothing
 * else in the system spells an element type or its size. */
#include "util/elem.h"

#include <float.h>
#include <string.h>

/* CUDA's __half and its two conversions as cuda_fp16.h defines them (the
 * PTX cvt instructions, round to nearest even into half), written out: NVRTC
 * finds no cuda_fp16.h without the toolkit's include path, and a kernel's
 * source compiles on its own. */
#define CUDA_HALF                                                                                               \
  "// __half as cuda_fp16.h has it: NVRTC has no include path\n"                                                \
  "struct __align__(2) __half { unsigned short x; };\n"                                                         \
  "static __device__ __forceinline__ float __half2float(__half h) {\n"                                          \
  "  float f;\n"                                                                                                \
  "  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h.x));\n"                                                   \
  "  return f;\n"                                                                                               \
  "}\n"                                                                                                         \
  "static __device__ __forceinline__ __half __float2half_rn(float f) {\n"                                       \
  "  __half h;\n"                                                                                               \
  "  asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h.x) : \"f\"(f));\n"                                                \
  "  return h;\n"                                                                                               \
  "}\n"                                                                                                         \
  "// half vectors as OpenCL's vload_halfN and vstore_halfN: N values at p + N*off, as floats\n"               \
  "static __device__ __forceinline__ float2 vload_half2(int off, const __half *p) {\n"                         \
  "  p += 2 * off;\n"                                                                                           \
  "  return make_float2(__half2float(p[0]), __half2float(p[1]));\n"                                             \
  "}\n"                                                                                                         \
  "static __device__ __forceinline__ float4 vload_half4(int off, const __half *p) {\n"                         \
  "  p += 4 * off;\n"                                                                                           \
  "  return make_float4(__half2float(p[0]), __half2float(p[1]), __half2float(p[2]), __half2float(p[3]));\n"      \
  "}\n"                                                                                                         \
  "static __device__ __forceinline__ void vstore_half2(float2 v, int off, __half *p) {\n"                      \
  "  p += 2 * off;\n"                                                                                           \
  "  p[0] = __float2half_rn(v.x), p[1] = __float2half_rn(v.y);\n"                                               \
  "}\n"                                                                                                         \
  "static __device__ __forceinline__ void vstore_half4(float4 v, int off, __half *p) {\n"                      \
  "  p += 4 * off;\n"                                                                                           \
  "  p[0] = __float2half_rn(v.x), p[1] = __float2half_rn(v.y);\n"                                               \
  "  p[2] = __float2half_rn(v.z), p[3] = __float2half_rn(v.w);\n"                                               \
  "}"

const ElemType ELEM_TYPES[ELEM_COUNT] = {
    [ELEM_FP32] = {.kind = ELEM_FP32,
                   .name = "float",
                   .bytes = 4,
                   .digits = 9,
                   .lit_suffix = "f",
                   .max = FLT_MAX,
                   .roundoff = 0x1p-24,
                   .acc = ELEM_FP32,
                   .nan_bits = 0x7fc00000u,
                   .spell = {[ELEM_OPENCL] = {"float", "float%d"}, [ELEM_CUDA] = {"float", "float%d"}}},
    [ELEM_FP16] = {.kind = ELEM_FP16,
                   .name = "half",
                   .bytes = 2,
                   .digits = 5,
                   .lit_suffix = "f",   // a literal is of its accumulation type: OpenCL's 1.5h needs cl_khr_fp16
                   .max = 65504.0,
                   .roundoff = 0x1p-11,
                   .acc = ELEM_FP32,
                   .nan_bits = 0x7e00u,
                   .spell = {[ELEM_OPENCL] = {.scalar = "half", .vec_fmt = "half%d", .load = "vload_half",
                                              .store = "vstore_half", .by_offset = true,
                                              .vload_fmt = "vload_half%d", .vstore_fmt = "vstore_half%d",
                                              .local_raw = "ushort"},
                             [ELEM_CUDA] = {.scalar = "__half", .vec_fmt = "__half%d", .load = "__half2float",
                                            .store = "__float2half_rn", .header = CUDA_HALF,
                                            .vload_fmt = "vload_half%d", .vstore_fmt = "vstore_half%d"}}},
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

bool elem_is_storage(const ElemType *et) { return et->acc != et->kind; }

/* Round to nearest even by hand, so that the host's conversion does not
 * depend on the compiler's _Float16 or the FPU's mode. */
uint16_t elem_f32_to_f16(float v) {
  uint32_t x;
  memcpy(&x, &v, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
  if (exp == 0xffu) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));   // inf, NaN (quiet)
  int e = (int)exp - 127 + 15;                                                              // the half's exponent
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);                                           // overflow: infinity
  if (e <= 0) {                                                                             // a subnormal or zero
    if (e < -10) return sign;                                                               // under half the least
    man |= 0x800000u;                                                                       // the implicit bit
    int shift = 14 - e;                                                                     // 14 .. 24
    uint32_t h = man >> shift, rest = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1))) h++;   // may carry into the least normal: right
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (man >> 13), rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++;   // a carry into the exponent is right, up to inf
  return (uint16_t)(sign | h);
}

float elem_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
  if (exp == 0x1fu) {
    x = sign | 0x7f800000u | (man << 13);
  } else if (exp) {
    x = sign | ((exp - 15 + 127) << 23) | (man << 13);
  } else if (!man) {
    x = sign;
  } else {   // a subnormal: normalised in fp32
    int e = -1;
    do man <<= 1, e++;
    while (!(man & 0x400u));
    x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
  }
  float v;
  memcpy(&v, &x, 4);
  return v;
}

double elem_round(const ElemType *et, double v) {
  float f = (float)v;
  if (et->kind == ELEM_FP16) return elem_f16_to_f32(elem_f32_to_f16(f));
  cg_assert(et->kind == ELEM_FP32);
  return f;
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
