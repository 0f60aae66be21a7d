/* compile.h: the compile pipeline, written once: a program's text, with the
 * values of its sizes, to the kernels of a target.
 *
 * Its passes, in order (the table `passes` in compile.c):
 *   parse          the text read into a program, the sizes given bound (ir_parse)
 *   infer          every node's type, with symbolic sizes (ir_infer)
 *   check-sizes    every size the program declares has a value
 *   lower          kernels, ND-ranges and buffers (lw_lower; its own passes,
 *                  kernels, scalarise, prefetch and combine-loads, are the
 *                  table in lower.c)
 *   check-buffers  every buffer within what the kernels' int indices reach
 *   emit           the source, in the target's dialect (cg_emit)
 * A caller stops after the pass it needs (CpOptions.through): a space's
 * parameters need the types, the space's check and the measurement the
 * lowered program (the measurement emits it, measure.h), the command line
 * the source. A strategy's point goes through the same list from its
 * variant's text (ls_compile, layer_space.h).
 *
 * A dump after any pass (the lowering's too) hands the caller the text of the
 * result: the program's text form (docs/ir.md) after the passes before
 * lower, the emitted source from the lowering's first pass on.
 */
#ifndef CONVGEN_COMPILE_H
#define CONVGEN_COMPILE_H

#include "codegen/codegen.h"

typedef enum CpPassId {
  CP_PARSE,          // parse, sizes bound
  CP_STORE,          // the tensors in memory in CpOptions.storage (ir_store_in), when given
  CP_INFER,          // types
  CP_CHECK_SIZES,    // no size without a value
  CP_LOWER,          // lw_lower
  CP_CHECK_BUFFERS,  // buffers within int indices
  CP_EMIT,           // cg_emit
  CP_NPASSES
} CpPassId;

typedef struct CpInput {
  const char *name;              // the program's name: in messages and the source's first line
  const char *text;              // its text form
  int nbind;                     // sizes given a value
  const char *const *bnames;
  const int64_t *bvals;
} CpInput;

/* A dump: the pass just run and the text of its result. */
typedef void (*CpDump)(void *ctx, const char *pass, const char *text);

typedef struct CpOptions {
  CpPassId through;              // the last pass run
  const char *header;            // the source's first comment lines; NULL: CpResult.header ("" none)
  const Dialect *target;         // NULL: OpenCL C (CG_OPENCL)
  const ElemType *storage;       // a storage type (half): the program's fp32 tensors kept in it in memory
                                 // (the store pass); NULL: as the program declares them
  int ndump;                     // the passes to dump after (cp_pass_names), by name
  const char *const *dump;
  bool dump_all;                 // after every pass
  CpDump dump_to;                // where the dumps go (needed when any is asked for)
  void *dump_ctx;
} CpOptions;

typedef struct CpResult {
  Program *prog;                 // from parse on (typed from infer on)
  LProgram *lp;                  // from lower on
  const char *header;            // from parse on: "NAME: N=1024, M=64", the name and the sizes' values
  const char *source;            // from emit on, in the arena
  const char *source_header;     // from emit on: the header source was emitted with (CpOptions.header, else header)
} CpResult;

/* Runs the passes up to o->through; false with the failing pass's Diag (r
 * keeps what the passes before it made). */
bool cp_compile(Arena *a, const CpInput *in, const CpOptions *o, CpResult *r, Diag *d);

/* The names a dump may follow, in the order the passes run: the pipeline's,
 * with the lowering's just before lower. Returns how many (at most max). */
int cp_pass_names(const char **out, int max);
bool cp_is_pass(const char *name);
const char *cp_pass_name(CpPassId id);

#endif
