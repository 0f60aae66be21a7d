/* compile.c: the compile pipeline (compile.h), one table of passes run in
 * order by cp_compile.
 *
 * It sits between the compiler's stages (ir, lower, codegen), which it calls,
 * and every caller that turns a program into kernels: the command line, the
 * space and its check, a layer's point (layer_space.c), the tuner's worker,
 * the benchmarks. Invariant: each pass reads what the passes before it left
 * in the CpResult, and a pass that fails leaves its Diag and stops the list.
 */
#include "compile/compile.h"

#include <stdlib.h>
#include <string.h>

typedef struct Run {
  Arena *a;
  const CpInput *in;
  const CpOptions *o;
  CpResult *r;
  Diag *d;
} Run;

/* "FILE: N=1024, M=64": the first line of the emitted source. */
static const char *sizes_header(Arena *a, const Program *p) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, p->name);
  for (int i = 0; i < p->nsizes; i++) {
    int64_t v = 0;
    ax_is_cst(p->sizes[i], &v);
    sb_printf(&sb, "%s%s=%lld", i ? ", " : ": ", p->size_names[i], (long long)v);
  }
  const char *s = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

static const char *emit_header(const Run *run) { return run->o->header ? run->o->header : run->r->header; }

static const Dialect *target(const Run *run) { return run->o->target ? run->o->target : &CG_OPENCL; }

/* ---- The passes ------------------------------------------------------------------- */

static bool parse(Run *run) {
  const CpInput *in = run->in;
  run->r->prog = ir_parse(run->a, in->name, in->text, in->nbind, in->bnames, in->bvals, run->d);
  if (!run->r->prog) return false;
  run->r->header = sizes_header(run->a, run->r->prog);
  return true;
}

static bool store(Run *run) {
  if (run->o->storage) ir_store_in(run->a, run->r->prog, run->o->storage);
  return true;
}

static bool infer(Run *run) { return ir_infer(run->a, run->r->prog, run->d); }

/* Names every size that has no value yet; false when there is one. */
static bool check_sizes(Run *run) {
  const Program *p = run->r->prog;
  StrBuf names, hint;
  sb_init(&names);
  sb_init(&hint);
  int n = 0;
  for (int i = 0; i < p->nsizes; i++) {
    int64_t v;
    if (ax_is_cst(p->sizes[i], &v)) continue;
    sb_printf(&names, "%s'%s'", n ? ", " : "", p->size_names[i]);
    sb_printf(&hint, "%s-p %s=...", n ? " " : "", p->size_names[i]);
    n++;
  }
  if (n == 1) diag_error(run->d, "%s: size %s has no value; give it with %s", p->name, sb_str(&names), sb_str(&hint));
  if (n > 1) diag_error(run->d, "%s: sizes %s have no value; give them with %s", p->name, sb_str(&names), sb_str(&hint));
  sb_free(&names);
  sb_free(&hint);
  return n == 0;
}

static bool wants(const CpOptions *o, const char *pass) {
  if (o->dump_all) return true;
  for (int i = 0; i < o->ndump; i++)
    if (strcmp(o->dump[i], pass) == 0) return true;
  return false;
}

/* After each of the lowering's passes: the lowered program so far, emitted. */
static void after_lowering_pass(void *ctx, const char *pass, const LProgram *lp) {
  const Run *run = ctx;
  if (!wants(run->o, pass)) return;
  char *src = cg_emit(lp, target(run), emit_header(run));
  run->o->dump_to(run->o->dump_ctx, pass, src);
  free(src);
}

static bool lower(Run *run) {
  run->r->lp = lw_lower_with(run->a, run->r->prog, target(run)->warp_mma, after_lowering_pass, run, run->d);
  return run->r->lp != NULL;
}

/* Every buffer of the lowered program (the temporaries too: ir_infer checked
 * the inputs and the output) within what the kernels' int indices reach. */
static bool check_buffers(Run *run) {
  const LProgram *lp = run->r->lp;
  for (int i = 0; i < lp->nbuffers; i++) {
    const Mem *m = lp->buffers[i];
    if (lw_mem_values(m) > INT32_MAX)
      return diag_error(run->d, "%s: buffer '%s' holds %lld values, more than 2147483647, the most that the kernels' "
                        "int indices reach", run->r->header, m->name, (long long)lw_mem_values(m));
  }
  return true;
}

static bool emit(Run *run) {
  char why[256];
  if (!cg_supports(target(run), run->r->lp, why, sizeof why))
    return diag_error(run->d, "%s: %s", run->r->header, why);
  char *src = cg_emit(run->r->lp, target(run), emit_header(run));
  run->r->source = arena_strdup(run->a, src);
  run->r->source_header = emit_header(run);
  free(src);
  return true;
}

typedef struct CpPass {
  const char *name;
  const char *purpose;
  bool (*run)(Run *run);
} CpPass;

/* The pipeline, in order. */
static const CpPass passes[CP_NPASSES] = {
    [CP_PARSE] = {"parse", "the text read into a program, the sizes given bound", parse},
    [CP_STORE] = {"store", "the tensors in memory in the storage type asked for (an fp16 network's half), if any",
                  store},
    [CP_INFER] = {"infer", "every node's type, with symbolic sizes", infer},
    [CP_CHECK_SIZES] = {"check-sizes", "every size the program declares has a value", check_sizes},
    [CP_LOWER] = {"lower", "kernels, ND-ranges and buffers (the lowering's passes: lower.c)", lower},
    [CP_CHECK_BUFFERS] = {"check-buffers", "every buffer within what the kernels' int indices reach", check_buffers},
    [CP_EMIT] = {"emit", "the source in the target's dialect", emit},
};

/* The text a dump after pass i shows. */
static void dump_after(const Run *run, int i) {
  if (i >= CP_LOWER) {
    const char *src = run->r->source;
    char *emitted = src ? NULL : cg_emit(run->r->lp, target(run), emit_header(run));
    run->o->dump_to(run->o->dump_ctx, passes[i].name, src ? src : emitted);
    free(emitted);
    return;
  }
  StrBuf sb;
  sb_init(&sb);
  ir_print_program(&sb, run->r->prog);
  run->o->dump_to(run->o->dump_ctx, passes[i].name, sb_str(&sb));
  sb_free(&sb);
}

bool cp_compile(Arena *a, const CpInput *in, const CpOptions *o, CpResult *r, Diag *d) {
  *r = (CpResult){0};
  Run run = {a, in, o, r, d};
  for (int i = 0; i <= (int)o->through; i++) {
    if (!passes[i].run(&run)) return false;
    if (wants(o, passes[i].name)) dump_after(&run, i);
  }
  return true;
}

int cp_pass_names(const char **out, int max) {
  int n = 0, nl;
  const LwPass *lw = lw_passes(&nl);
  for (int i = 0; i < CP_NPASSES; i++) {
    for (int j = 0; i == CP_LOWER && j < nl && n < max; j++) out[n++] = lw[j].name;
    if (n < max) out[n++] = passes[i].name;
  }
  return n;
}

bool cp_is_pass(const char *name) {
  const char *names[CP_NPASSES + 16];
  int n = cp_pass_names(names, CP_NPASSES + 16);
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

const char *cp_pass_name(CpPassId id) { return passes[id].name; }
