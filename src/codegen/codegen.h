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
  const char *restrict_kw;     // "restrict"
  const char *fun_qual;        // qualifier of helper functions ("" in OpenCL, "__device__" in CUDA)
  const char *barrier_local;   // "barrier(CLK_LOCAL_MEM_FENCE);"
  const char *barrier_global;  // "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"
  const char *id_fmt[3];       // printf formats with one %d: global id, group id, local id
  const char *vload_fmt;       // "vload%d(%s, %s)": width, offset in vectors, pointer
  const char *vload_aligned_fmt;  // a load from a local array at an offset that is a multiple of the width:
                               // width, pointer, offset in vectors
  const char *local_align;     // after a local array's declaration: its alignment (16 bytes)
  const char *vstore_fmt;      // "vstore%d(%s, %s, %s)": width, value, offset, pointer
  const char *vec_type_fmt;    // "float%d"
} Dialect;

extern const Dialect CG_OPENCL;

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
