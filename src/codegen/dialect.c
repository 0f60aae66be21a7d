/* dialect.c: the target dialects. A dialect is data the emitter reads; adding
 * a target is adding a table here (and a runtime for it, rt.h).
 *
 * CUDA C (through NVRTC) differs from OpenCL C 1.2 in keywords, the
 * work-item builtins and the vectors: float2 and float4 are plain structs
 * with .x .y .z .w, no arithmetic, no vloadN/vstoreN, no element-wise math.
 * The CUDA prelude supplies what the emitted code and the user functions'
 * bodies use of those (the operators, the cbody builtins on vectors and
 * OpenCL's spellings that CUDA lacks: mad, clamp, select, dot), so that one
 * emitter prints both. */
#include "codegen/codegen.h"

#include <stdio.h>
#include <string.h>

/* The tile product's helpers (gen.c, gen_mma; docs/ir.md, "Tile products"),
 * printed after the prelude when a kernel calls them. The _lane functions
 * give one lane's four values of the warp's D = C + A B^T, computed by the
 * lane from A's rows g and g + 8 and B's rows 2t and 2t + 1 (K values each:
 * a0.., b0..), the operands rounded as the tensor cores round them
 * (cvt.rna.tf32.f32: 10 bits of mantissa, ties away from zero, and
 * mma3xTF32's high and low parts; half to nearest even for mmaF16): for
 * targets without the instruction. One text for both dialects, their
 * spellings its arguments (F16 the rounding to half and back). */
#define CG_MMA_LANE(FN, BITS, FLOAT, UINT, F16, X, Y, Z, W)                                              \
  FN " float cg_tf32_rna(float x) {\n"                                                                 \
  "  " UINT " u = " BITS "(x);\n"                                                                      \
  "  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;\n"                         \
  "  return " FLOAT "(u);\n"                                                                           \
  "}\n"                                                                                                \
  F16                                                                                                  \
  "/* c + the dot product of a and b (k each) as the tensor cores make it: parts 1 (TF32), 3 (3xTF32)\n" \
  "   or 0 (half) */\n"                                                                                 \
  FN " float cg_mma_dot(float c, int parts, int k, const float *a, const float *b) {\n"                \
  "  for (int i = 0; i < k; i++) {\n"                                                                  \
  "    if (parts == 0) {\n"                                                                            \
  "      c = fma(cg_f16_rn(a[i]), cg_f16_rn(b[i]), c);\n"                                              \
  "      continue;\n"                                                                                  \
  "    }\n"                                                                                            \
  "    float ah = cg_tf32_rna(a[i]), bh = cg_tf32_rna(b[i]);\n"                                        \
  "    if (parts == 3) c = fma(cg_tf32_rna(a[i] - ah), bh, fma(ah, cg_tf32_rna(b[i] - bh), c));\n"     \
  "    c = fma(ah, bh, c);\n"                                                                          \
  "  }\n"                                                                                              \
  "  return c;\n"                                                                                      \
  "}\n"                                                                                                \
  CG_MMA_LANE8(FN, "cg_mma_tf32_lane", "1", X, Y, Z, W)                                                \
  CG_MMA_LANE8(FN, "cg_mma_3xtf32_lane", "3", X, Y, Z, W)                                              \
  CG_MMA_LANE16(FN, "cg_mma_f16_lane", "0", X, Y, Z, W)
#define CG_MMA_LANE_BODY(K, X, Y, Z, W, PARTS)                                                           \
  "  c." X " = cg_mma_dot(c." X ", " PARTS ", " K ", a, b);\n"                                          \
  "  c." Y " = cg_mma_dot(c." Y ", " PARTS ", " K ", a, b + " K ");\n"                                  \
  "  c." Z " = cg_mma_dot(c." Z ", " PARTS ", " K ", a + " K ", b);\n"                                  \
  "  c." W " = cg_mma_dot(c." W ", " PARTS ", " K ", a + " K ", b + " K ");\n"                          \
  "  return c;\n"                                                                                      \
  "}\n"
#define CG_MMA_LANE8(FN, NAME, PARTS, X, Y, Z, W)                                                        \
  FN " float4 " NAME "(float4 c,\n"                                                                    \
  "    float a0, float a1, float a2, float a3, float a4, float a5, float a6, float a7, float a8,\n" \
  "    float a9, float a10, float a11, float a12, float a13, float a14, float a15, float b0,\n"     \
  "    float b1, float b2, float b3, float b4, float b5, float b6, float b7, float b8, float b9,\n" \
  "    float b10, float b11, float b12, float b13, float b14, float b15) {\n"                       \
  "  float a[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};\n"         \
  "  float b[16] = {b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15};\n"         \
  CG_MMA_LANE_BODY("8", X, Y, Z, W, PARTS)
#define CG_MMA_LANE16(FN, NAME, PARTS, X, Y, Z, W)                                                       \
  FN " float4 " NAME "(float4 c,\n"                                                                    \
  "    float a0, float a1, float a2, float a3, float a4, float a5, float a6, float a7, float a8,\n" \
  "    float a9, float a10, float a11, float a12, float a13, float a14, float a15, float a16,\n"    \
  "    float a17, float a18, float a19, float a20, float a21, float a22, float a23, float a24,\n"   \
  "    float a25, float a26, float a27, float a28, float a29, float a30, float a31, float b0,\n"    \
  "    float b1, float b2, float b3, float b4, float b5, float b6, float b7, float b8, float b9,\n" \
  "    float b10, float b11, float b12, float b13, float b14, float b15, float b16, float b17,\n"   \
  "    float b18, float b19, float b20, float b21, float b22, float b23, float b24, float b25,\n"   \
  "    float b26, float b27, float b28, float b29, float b30, float b31) {\n"                       \
  "  float a[32] = {" CG_LIST32(a) "};\n"                                                              \
  "  float b[32] = {" CG_LIST32(b) "};\n"                                                              \
  CG_MMA_LANE_BODY("16", X, Y, Z, W, PARTS)
#define CG_LIST32(v)                                                                                     \
  #v "0, " #v "1, " #v "2, " #v "3, " #v "4, " #v "5, " #v "6, " #v "7, " #v "8, " #v "9, "             \
  #v "10, " #v "11, " #v "12, " #v "13, " #v "14, " #v "15, " #v "16, " #v "17, " #v "18, " #v "19, "   \
  #v "20, " #v "21, " #v "22, " #v "23, " #v "24, " #v "25, " #v "26, " #v "27, " #v "28, " #v "29, "   \
  #v "30, " #v "31"

/* A float rounded to half and back, to nearest even: OpenCL 1.2's
 * vstore_half_rte into a ushort (a half variable needs cl_khr_fp16); CUDA's
 * cvt through a 16-bit register. */
#define CL_F16_RN                                                                                        \
  " float cg_f16_rn(float x) {\n"                                                                      \
  "  ushort u;\n"                                                                                      \
  "  vstore_half_rte(x, 0, (__private half *)&u);\n"                                                   \
  "  return vload_half(0, (__private const half *)&u);\n"                                              \
  "}\n"
#define CUDA_F16_RN                                                                                      \
  "CG_FN float cg_f16_rn(float x) {\n"                                                                 \
  "  unsigned short h;\n"                                                                              \
  "  float r;\n"                                                                                       \
  "  asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(x));\n"                                    \
  "  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(r) : \"h\"(h));\n"                                       \
  "  return r;\n"                                                                                      \
  "}\n"

const Dialect CG_OPENCL = {
    .name = "OpenCL C 1.2",
    .kernel_qual = "__kernel void",
    .global_kw = "__global",
    .local_kw = "__local",
    .const_kw = "__constant",
    .restrict_kw = "restrict",
    .fun_qual = "",
    .barrier_local = "barrier(CLK_LOCAL_MEM_FENCE);",
    .barrier_global = "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
    .ids = {{"get_global_id(0)", "get_global_id(1)", "get_global_id(2)"},
            {"get_group_id(0)", "get_group_id(1)", "get_group_id(2)"},
            {"get_local_id(0)", "get_local_id(1)", "get_local_id(2)"}},
    .vload_fmt = "vload%d(%s, %s)",
    .vload_aligned_fmt = "*((__local %s *)%s + %s)",
    .local_align = " __attribute__((aligned(16)))",
    .vstore_fmt = "vstore%d(%s, %s, %s)",
    .elem_target = ELEM_OPENCL,
    .vec_splat_fmt = NULL,   // (float4)(v)
    .vec_make_fmt = "(%s)(",
    .vec_make_end = ")",
    .comp_names = {"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "sa", "sb", "sc", "sd", "se", "sf"},
    .prelude = "",
    .max_width = 16,
    .warp_mma = false,
    .mma_helpers = "// convgen's tile products, each lane computing its own values (no warp instruction)\n"
                   CG_MMA_LANE("", "as_uint", "as_float", "uint", CL_F16_RN, "s0", "s1", "s2", "s3") "\n",
};

/* The CUDA prelude. CG_VEC defines the helpers of one vector type, each an
 * element-wise statement S applied to its fields; vloadN and vstoreN go
 * element by element, since their addresses need not be aligned. It is
 * fp32's (float2, float4 and their scalar float): the one element type there
 * is (util/elem.h); another needs its own. */
static const char cuda_prelude[] =
    "// convgen's CUDA prelude: what CUDA C lacks of OpenCL C (vector arithmetic,\n"
    "// vloadN and vstoreN, element-wise math on vectors, mad, clamp, select, dot)\n"
    "#define CG_FN static __device__ __forceinline__\n"
    "#define CG_EACH2(S) { S(x, 0); S(y, 1); }\n"
    "#define CG_EACH4(S) { S(x, 0); S(y, 1); S(z, 2); S(w, 3); }\n"
    "#define CG_VEC(V, N)                                                                     \\\n"
    "  CG_FN V operator+(V a, V b) { V r; CG_EACH##N(CG_ADD_VV); return r; }                  \\\n"
    "  CG_FN V operator-(V a, V b) { V r; CG_EACH##N(CG_SUB_VV); return r; }                  \\\n"
    "  CG_FN V operator*(V a, V b) { V r; CG_EACH##N(CG_MUL_VV); return r; }                  \\\n"
    "  CG_FN V operator/(V a, V b) { V r; CG_EACH##N(CG_DIV_VV); return r; }                  \\\n"
    "  CG_FN V operator+(V a, float s) { V r; CG_EACH##N(CG_ADD_VS); return r; }              \\\n"
    "  CG_FN V operator-(V a, float s) { V r; CG_EACH##N(CG_SUB_VS); return r; }              \\\n"
    "  CG_FN V operator*(V a, float s) { V r; CG_EACH##N(CG_MUL_VS); return r; }              \\\n"
    "  CG_FN V operator/(V a, float s) { V r; CG_EACH##N(CG_DIV_VS); return r; }              \\\n"
    "  CG_FN V operator+(float s, V b) { return b + s; }                                      \\\n"
    "  CG_FN V operator*(float s, V b) { return b * s; }                                      \\\n"
    "  CG_FN V operator-(float s, V b) { V r; CG_EACH##N(CG_RSUB_SV); return r; }             \\\n"
    "  CG_FN V operator/(float s, V b) { V r; CG_EACH##N(CG_RDIV_SV); return r; }             \\\n"
    "  CG_FN V operator-(V a) { V r; CG_EACH##N(CG_NEG); return r; }                          \\\n"
    "  CG_FN V cg_splat##N(float s) { V r; CG_EACH##N(CG_SET); return r; }                    \\\n"
    "  CG_FN V vload##N(int off, const float *p) { V r; p += N * off; CG_EACH##N(CG_LOAD); return r; } \\\n"
    "  CG_FN void vstore##N(V v, int off, float *p) { p += N * off; CG_EACH##N(CG_STORE); }   \\\n"
    "  CG_FN V fmax(V a, V b) { V r; CG_EACH##N(CG_FMAX_VV); return r; }                      \\\n"
    "  CG_FN V fmax(V a, float s) { V r; CG_EACH##N(CG_FMAX_VS); return r; }                  \\\n"
    "  CG_FN V fmin(V a, V b) { V r; CG_EACH##N(CG_FMIN_VV); return r; }                      \\\n"
    "  CG_FN V fmin(V a, float s) { V r; CG_EACH##N(CG_FMIN_VS); return r; }                  \\\n"
    "  CG_FN V max(V a, V b) { return fmax(a, b); }                                           \\\n"
    "  CG_FN V max(V a, float s) { return fmax(a, s); }                                       \\\n"
    "  CG_FN V min(V a, V b) { return fmin(a, b); }                                           \\\n"
    "  CG_FN V min(V a, float s) { return fmin(a, s); }                                       \\\n"
    "  CG_FN V clamp(V a, float lo, float hi) { return fmin(fmax(a, lo), hi); }               \\\n"
    "  CG_FN V fabs(V a) { V r; CG_EACH##N(CG_FABS); return r; }                              \\\n"
    "  CG_FN V sqrt(V a) { V r; CG_EACH##N(CG_SQRT); return r; }                              \\\n"
    "  CG_FN V rsqrt(V a) { V r; CG_EACH##N(CG_RSQRT); return r; }                            \\\n"
    "  CG_FN V exp(V a) { V r; CG_EACH##N(CG_EXP); return r; }                                \\\n"
    "  CG_FN V log(V a) { V r; CG_EACH##N(CG_LOG); return r; }                                \\\n"
    "  CG_FN V log1p(V a) { V r; CG_EACH##N(CG_LOG1P); return r; }                            \\\n"
    "  CG_FN V tanh(V a) { V r; CG_EACH##N(CG_TANH); return r; }                              \\\n"
    "  CG_FN V erf(V a) { V r; CG_EACH##N(CG_ERF); return r; }                                \\\n"
    "  CG_FN V floor(V a) { V r; CG_EACH##N(CG_FLOOR); return r; }                            \\\n"
    "  CG_FN V ceil(V a) { V r; CG_EACH##N(CG_CEIL); return r; }                              \\\n"
    "  CG_FN V pow(V a, V b) { V r; CG_EACH##N(CG_POW); return r; }                           \\\n"
    "  CG_FN V fma(V a, V b, V c) { V r; CG_EACH##N(CG_FMA); return r; }                      \\\n"
    "  CG_FN V mad(V a, V b, V c) { return fma(a, b, c); }\n"
    "#define CG_ADD_VV(f, i) r.f = a.f + b.f\n"
    "#define CG_SUB_VV(f, i) r.f = a.f - b.f\n"
    "#define CG_MUL_VV(f, i) r.f = a.f * b.f\n"
    "#define CG_DIV_VV(f, i) r.f = a.f / b.f\n"
    "#define CG_ADD_VS(f, i) r.f = a.f + s\n"
    "#define CG_SUB_VS(f, i) r.f = a.f - s\n"
    "#define CG_MUL_VS(f, i) r.f = a.f * s\n"
    "#define CG_DIV_VS(f, i) r.f = a.f / s\n"
    "#define CG_RSUB_SV(f, i) r.f = s - b.f\n"
    "#define CG_RDIV_SV(f, i) r.f = s / b.f\n"
    "#define CG_NEG(f, i) r.f = -a.f\n"
    "#define CG_SET(f, i) r.f = s\n"
    "#define CG_FMAX_VV(f, i) r.f = fmaxf(a.f, b.f)\n"
    "#define CG_FMAX_VS(f, i) r.f = fmaxf(a.f, s)\n"
    "#define CG_FMIN_VV(f, i) r.f = fminf(a.f, b.f)\n"
    "#define CG_FMIN_VS(f, i) r.f = fminf(a.f, s)\n"
    "#define CG_FABS(f, i) r.f = fabsf(a.f)\n"
    "#define CG_SQRT(f, i) r.f = sqrtf(a.f)\n"
    "#define CG_RSQRT(f, i) r.f = rsqrtf(a.f)\n"
    "#define CG_EXP(f, i) r.f = expf(a.f)\n"
    "#define CG_LOG(f, i) r.f = logf(a.f)\n"
    "#define CG_LOG1P(f, i) r.f = log1pf(a.f)\n"
    "#define CG_TANH(f, i) r.f = tanhf(a.f)\n"
    "#define CG_ERF(f, i) r.f = erff(a.f)\n"
    "#define CG_FLOOR(f, i) r.f = floorf(a.f)\n"
    "#define CG_CEIL(f, i) r.f = ceilf(a.f)\n"
    "#define CG_POW(f, i) r.f = powf(a.f, b.f)\n"
    "#define CG_FMA(f, i) r.f = fmaf(a.f, b.f, c.f)\n"
    "#define CG_LOAD(f, i) r.f = p[i]\n"
    "#define CG_STORE(f, i) p[i] = v.f\n"
    "CG_VEC(float2, 2)\n"
    "CG_VEC(float4, 4)\n"
    "CG_FN float mad(float a, float b, float c) { return fmaf(a, b, c); }\n"
    "CG_FN float clamp(float a, float lo, float hi) { return fminf(fmaxf(a, lo), hi); }\n"
    "CG_FN int clamp(int a, int lo, int hi) { return min(max(a, lo), hi); }\n"
    "CG_FN float select(float a, float b, int c) { return c ? b : a; }\n"
    "CG_FN int select(int a, int b, int c) { return c ? b : a; }\n"
    "CG_FN float dot(float a, float b) { return a * b; }\n"
    "CG_FN float dot(float2 a, float2 b) { return a.x * b.x + a.y * b.y; }\n"
    "CG_FN float dot(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }\n"
    "\n";

/* CUDA's tile products on the tensor cores: mma.sync.m16n8k8 with TF32
 * operands, each lane giving its fragments of A (a0..a3) and B (b0, b1), and
 * m16n8k16 with half operands (a0..a7, b0..b3, packed in pairs by cvt);
 * mma3xTF32 as three products, the small ones first: the high and low
 * parts' cross terms, then the high parts' (the low parts' product, under
 * 2^-22 of the whole, left out). */
/* Asynchronous copies into shared memory (LProgram.uses_async; sm_80):
 * cg_cp_async4 copies 4 bytes, or fills 4 zero bytes when ok is 0 (a
 * source size of 0 reads nothing); cg_cp_async_wait waits until the
 * thread's copies have landed. */
static const char cuda_async[] =
    "\n// convgen's asynchronous copies into shared memory (cp.async, sm_80)\n"
    "CG_FN void cg_cp_async4(void *dst, const void *src, int ok) {\n"
    "  unsigned s = (unsigned)__cvta_generic_to_shared(dst);\n"
    "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4, %2;\" :: \"r\"(s), \"l\"(src), \"r\"(ok ? 4 : 0) : \"memory\");\n"
    "}\n"
    "CG_FN void cg_cp_async_wait() { asm volatile(\"cp.async.wait_all;\" ::: \"memory\"); }\n";

static const char cuda_mma[] =
    "// convgen's tile products: a warp's D = C + A B^T on the tensor cores (mma.sync.m16n8k8, TF32)\n"
    "CG_FN unsigned cg_tf32(float x) {\n"
    "  unsigned r;\n"
    "  asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(x));\n"
    "  return r;\n"
    "}\n"
    "CG_FN float4 cg_mma_step(float4 c, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {\n"
    "  asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, \"\n"
    "               \"{%0, %1, %2, %3};\"\n"
    "               : \"+f\"(c.x), \"+f\"(c.y), \"+f\"(c.z), \"+f\"(c.w)\n"
    "               : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1));\n"
    "  return c;\n"
    "}\n"
    "CG_FN float4 cg_mma_tf32(float4 c, float a0, float a1, float a2, float a3, float b0, float b1) {\n"
    "  return cg_mma_step(c, cg_tf32(a0), cg_tf32(a1), cg_tf32(a2), cg_tf32(a3), cg_tf32(b0), cg_tf32(b1));\n"
    "}\n"
    "CG_FN float4 cg_mma_3xtf32(float4 c, float a0, float a1, float a2, float a3, float b0, float b1) {\n"
    "  unsigned ah0 = cg_tf32(a0), ah1 = cg_tf32(a1), ah2 = cg_tf32(a2), ah3 = cg_tf32(a3);\n"
    "  unsigned bh0 = cg_tf32(b0), bh1 = cg_tf32(b1);\n"
    "  unsigned al0 = cg_tf32(a0 - __uint_as_float(ah0)), al1 = cg_tf32(a1 - __uint_as_float(ah1));\n"
    "  unsigned al2 = cg_tf32(a2 - __uint_as_float(ah2)), al3 = cg_tf32(a3 - __uint_as_float(ah3));\n"
    "  unsigned bl0 = cg_tf32(b0 - __uint_as_float(bh0)), bl1 = cg_tf32(b1 - __uint_as_float(bh1));\n"
    "  c = cg_mma_step(c, al0, al1, al2, al3, bh0, bh1);\n"
    "  c = cg_mma_step(c, ah0, ah1, ah2, ah3, bl0, bl1);\n"
    "  return cg_mma_step(c, ah0, ah1, ah2, ah3, bh0, bh1);\n"
    "}\n"
    "CG_FN unsigned cg_f16x2(float lo, float hi) {\n"
    "  unsigned r;\n"
    "  asm(\"cvt.rn.f16x2.f32 %0, %1, %2;\" : \"=r\"(r) : \"f\"(hi), \"f\"(lo));\n"
    "  return r;\n"
    "}\n"
    "CG_FN float4 cg_mma_f16(float4 c, float a0, float a1, float a2, float a3, float a4, float a5, float a6, float a7,\n"
    "                        float b0, float b1, float b2, float b3) {\n"
    "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, \"\n"
    "               \"{%0, %1, %2, %3};\"\n"
    "               : \"+f\"(c.x), \"+f\"(c.y), \"+f\"(c.z), \"+f\"(c.w)\n"
    "               : \"r\"(cg_f16x2(a0, a1)), \"r\"(cg_f16x2(a2, a3)), \"r\"(cg_f16x2(a4, a5)), \"r\"(cg_f16x2(a6, a7)),\n"
    "                 \"r\"(cg_f16x2(b0, b1)), \"r\"(cg_f16x2(b2, b3)));\n"
    "  return c;\n"
    "}\n"
    "/* the same from halves as they are stored, their bits in pairs (no conversion); cg_h2x and cg_h2_at\n"
    "   macros, as __half is defined only where the program has halves */\n"
    "CG_FN unsigned cg_h2(unsigned short lo, unsigned short hi) { return (unsigned)lo | (unsigned)hi << 16; }\n"
    "CG_FN float4 cg_mma_f16_bits(float4 c, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,\n"
    "                             unsigned b1) {\n"
    "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, \"\n"
    "               \"{%0, %1, %2, %3};\"\n"
    "               : \"+f\"(c.x), \"+f\"(c.y), \"+f\"(c.z), \"+f\"(c.w)\n"
    "               : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1));\n"
    "  return c;\n"
    "}\n"
    "#define cg_h2x(lo, hi) cg_h2((lo).x, (hi).x)   /* two halves' bits */\n"
    "#define cg_h2_at(p) (*(const unsigned *)(p))   /* two neighbouring halves' bits, p 4-byte aligned */\n"
    CG_MMA_LANE("CG_FN", "__float_as_uint", "__uint_as_float", "unsigned", CUDA_F16_RN, "x", "y", "z", "w") "\n";

const Dialect CG_CUDA = {
    .name = "CUDA C (NVRTC)",
    .kernel_qual = "extern \"C\" __global__ void",
    .global_kw = "",
    .local_kw = "__shared__",
    .const_kw = "__constant__",
    .restrict_kw = "__restrict__",
    .fun_qual = "static __device__ __forceinline__",
    .barrier_local = "__syncthreads();",
    .barrier_global = "__syncthreads();",   // orders the block's global and shared accesses alike
    .ids = {{"(int)(blockIdx.x * blockDim.x + threadIdx.x)", "(int)(blockIdx.y * blockDim.y + threadIdx.y)",
             "(int)(blockIdx.z * blockDim.z + threadIdx.z)"},
            {"(int)blockIdx.x", "(int)blockIdx.y", "(int)blockIdx.z"},
            {"(int)threadIdx.x", "(int)threadIdx.y", "(int)threadIdx.z"}},
    .vload_fmt = "vload%d(%s, %s)",
    .vload_aligned_fmt = "*((%s *)%s + %s)",
    .local_align = " __attribute__((aligned(16)))",
    .vstore_fmt = "vstore%d(%s, %s, %s)",
    .elem_target = ELEM_CUDA,
    .vec_splat_fmt = "cg_splat%d(%s)",
    .vec_make_fmt = "%s{",   // C++ aggregate initialisation: no header needed
    .vec_make_end = "}",
    .comp_names = {"x", "y", "z", "w"},
    .prelude = cuda_prelude,
    .max_width = 4,
    .warp_mma = true,
    .mma_helpers = cuda_mma,
    .async_helpers = cuda_async,
};

const Dialect *cg_dialect(const char *target) {
  if (strcmp(target, "opencl") == 0) return &CG_OPENCL;
  if (strcmp(target, "cuda") == 0) return &CG_CUDA;
  return NULL;
}
