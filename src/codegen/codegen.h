/* codegen.h: prints a lowered program as kernel source through a dialect table.
 *
 * One C-like emitter (emit.c) walks the lowered statements; everything that
 * differs between targets (kernel qualifier, address-space keywords, barrier,
 * work-item builtins, vector loads and stores) is a field of a Dialect value
 * (dialect.c). The emitter never asks which target it is printing for.
 */
#ifndef CONVGEN_CODEGEN_H
#define CONVGEN_CODEGEN_H

#include "lower/lower.h"

typedef struct Dialect {
  const char *name;            // "OpenCL C 1.2"
  const char *kernel_qual;     // "__kernel void"
  const char *global_kw;       // "__global"
  const char *local_kw;        // "__local"
  const char *const_kw;        // a program-scope array of constants: "__constant" ("__constant__" in CUDA)
  const char *restrict_kw;     // "restrict"
  const char *fun_qual;        // qualifier of helper functions ("" in OpenCL, "__device__" in CUDA)
  const char *barrier_local;   // "barrier(CLK_LOCAL_MEM_FENCE);"
  const char *barrier_global;  // "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"
  const char *ids[3][3];       // the global, group and local id of dimensions 0, 1, 2
  const char *vload_fmt;       // "vload%d(%s, %s)": width, offset in vectors, pointer
  const char *vload_aligned_fmt;  // a load from a local array at an offset that is a multiple of the width:
                               // the vector type's name, pointer, offset in vectors
  const char *local_align;     // after a local array's declaration: its alignment (16 bytes)
  const char *vstore_fmt;      // "vstore%d(%s, %s, %s)": width, value, offset, pointer
  ElemTarget elem_target;      // how it spells element types and their vectors (util/elem.h: "float", "float4")
  const char *vec_splat_fmt;   // a vector of one value: width, then the value ("cg_splat%d(%s)"); NULL: the
                               // vector made (vec_make_fmt) of the one value
  const char *vec_make_fmt;    // a vector of its components, before them: the vector type's name ("(%s)(")
  const char *vec_make_end;    // and after them (")")
  const char *comp_names[16];  // the components' names: "s0" ... "sf" in OpenCL, "x" ... "w" in CUDA
  const char *prelude;         // after the header: what the kernels need that the language lacks ("" in OpenCL)
  int max_width;               // the widest vector type the dialect has
  bool warp_mma;               // a warp's tile product is one instruction (CUDA: mma.sync; LProgram.warp_mma)
  const char *mma_helpers;     // the tile product's functions (cg_mma_*), printed after the prelude when a
                               // kernel calls them
  const char *async_helpers;   // the asynchronous copies' functions (cg_cp_async*, CUDA's cp.async), printed
                               // when a kernel makes them (LProgram.uses_async); NULL: the dialect has none
} Dialect;

extern const Dialect CG_OPENCL;
extern const Dialect CG_CUDA;
/* The dialect of a target name ("opencl", "cuda"); NULL when none. */
const Dialect *cg_dialect(const char *target);
/* Whether dl can print lp: every vector of lp at most dl->max_width wide
 * (CUDA has float2 and float4, OpenCL up to float16); false with the reason
 * in why. */
bool cg_supports(const Dialect *dl, const LProgram *lp, char *why, size_t cap);

/* The whole source: a header comment (the given lines, e.g. program name and
 * parameter values), the user functions, then every kernel. Heap string. */
char *cg_emit(const LProgram *lp, const Dialect *dl, const char *header);

/* The launch description of a lowered program as JSON (heap string): what
 * a host program needs to run the emitted source without convgen. Fields:
 * "program", "parameters" ({name: value}), "kernels" ([{name, work_dim,
 * global, local (null: the driver's choice), args: [buffer names]}]),
 * "buffers" ([{name, role: input|output|temporary, elements, bytes}]),
 * in launch and argument order. */
char *cg_manifest_json(const LProgram *lp, const char *program, int nparams, const char *const *names,
                       const int64_t *values);

#endif
