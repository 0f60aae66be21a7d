/* manifest.c: the launch description of a lowered program as JSON, written
 * beside the emitted kernels by `convgen gen`: kernels in launch order with
 * their ND-ranges and arguments, and the buffers with their sizes. */
#include "codegen/codegen.h"

#include <stdio.h>

/* A JSON string (names here are identifiers and file names; escape anyway). */
static void json_str(StrBuf *sb, const char *s) {
  sb_putc(sb, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') sb_printf(sb, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) sb_printf(sb, "\\u%04x", *s);
    else sb_putc(sb, *s);
  }
  sb_putc(sb, '"');
}

static const char *role_name(MRole r) {
  return r == MR_INPUT ? "input" : r == MR_OUTPUT ? "output" : "temporary";
}

static void sizes(StrBuf *sb, const size_t *v, int n) {
  sb_putc(sb, '[');
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%zu", i ? ", " : "", v[i]);
  sb_putc(sb, ']');
}

static void kernel(StrBuf *sb, const LKernel *k) {
  sb_puts(sb, "    {\"name\": ");
  json_str(sb, k->name);
  sb_printf(sb, ", \"work_dim\": %d, \"global\": ", k->work_dim);
  sizes(sb, k->global, k->work_dim);
  sb_puts(sb, ", \"local\": ");
  if (k->uses_groups) sizes(sb, k->local, k->work_dim);
  else sb_puts(sb, "null");
  sb_puts(sb, ", \"args\": [");
  for (int i = 0; i < k->nargs; i++) {
    if (i) sb_puts(sb, ", ");
    json_str(sb, k->args[i]->name);
  }
  sb_puts(sb, "]}");
}

char *cg_manifest_json(const LProgram *lp, const char *program, int nparams, const char *const *names,
                       const int64_t *values) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "{\n  \"program\": ");
  json_str(&sb, program);
  sb_puts(&sb, ",\n  \"parameters\": {");
  for (int i = 0; i < nparams; i++) {
    sb_puts(&sb, i ? ", " : "");
    json_str(&sb, names[i]);
    sb_printf(&sb, ": %lld", (long long)values[i]);
  }
  sb_puts(&sb, "},\n  \"kernels\": [\n");
  for (int i = 0; i < lp->nkernels; i++) {
    kernel(&sb, lp->kernels[i]);
    sb_puts(&sb, i + 1 < lp->nkernels ? ",\n" : "\n");
  }
  sb_puts(&sb, "  ],\n  \"buffers\": [\n");
  for (int i = 0; i < lp->nbuffers; i++) {
    const Mem *m = lp->buffers[i];
    sb_puts(&sb, "    {\"name\": ");
    json_str(&sb, m->name);
    sb_printf(&sb, ", \"role\": \"%s\", \"elements\": %lld, \"bytes\": %lld}%s\n", role_name(m->role),
              (long long)lw_mem_values(m), (long long)lw_mem_bytes(m), i + 1 < lp->nbuffers ? "," : "");
  }
  sb_puts(&sb, "  ]\n}\n");
  return sb_take(&sb);
}
