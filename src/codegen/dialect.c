/* dialect.c: the target dialects. A dialect is data the emitter reads; adding
 * a target (CUDA C through NVRTC, later) is adding a table here. */
#include "codegen/codegen.h"

const Dialect CG_OPENCL = {
    .name = "OpenCL C 1.2",
    .kernel_qual = "__kernel void",
    .global_kw = "__global",
    .local_kw = "__local",
    .restrict_kw = "restrict",
    .fun_qual = "",
    .barrier_local = "barrier(CLK_LOCAL_MEM_FENCE);",
    .barrier_global = "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
    .id_fmt = {"get_global_id(%d)", "get_group_id(%d)", "get_local_id(%d)"},
    .vload_fmt = "vload%d(%s, %s)",
    .vload_aligned_fmt = "*((__local float%d *)%s + %s)",
    .local_align = " __attribute__((aligned(16)))",
    .vstore_fmt = "vstore%d(%s, %s, %s)",
    .vec_type_fmt = "float%d",
};
