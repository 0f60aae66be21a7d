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

const Dialect CG_OPENCL = {
    .name = "OpenCL C 1.2",
    .kernel_qual = "__kernel void",
    .global_kw = "__global",
    .local_kw = "__local",
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

const Dialect CG_CUDA = {
    .name = "CUDA C (NVRTC)",
    .kernel_qual = "extern \"C\" __global__ void",
    .global_kw = "",
    .local_kw = "__shared__",
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
};

const Dialect *cg_dialect(const char *target) {
  if (strcmp(target, "opencl") == 0) return &CG_OPENCL;
  if (strcmp(target, "cuda") == 0) return &CG_CUDA;
  return NULL;
}
