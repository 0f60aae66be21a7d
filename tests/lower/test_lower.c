/* test_lower.c: the lowering's promises, checked on emitted kernels and on
 * views directly: layout primitives cost no index arithmetic, the tiled matrix
 * multiply reads like a careful hand-written kernel (one simplified index per
 * access, barriers only where needed), multi-kernel programs get the right
 * ND-ranges. */
#include "codegen/codegen.h"
#include "ir/interp.h"
#include "lower/view.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static Mem *memory(Arena *a, const char *name, const Type *t) {
  Mem *m = ARENA_NEW(a, Mem);
  m->name = name;
  m->space = MS_GLOBAL;
  m->role = MR_INPUT;
  m->type = t;
  m->storage = ty_base(t);
  return m;
}

static const char *index_of(Arena *a, const View *v) {
  Access acc;
  Diag d = {0};
  if (!vw_resolve(a, v, false, &acc, &d, NULL, 0)) return arena_strdup(a, d.msg);
  return ax_str(a, acc.idx);
}

/* split then join, transpose twice, slide windows: the walk's / and % vanish. */
static void test_views(void) {
  Arena *a = arena_new();
  const Type *vec64 = ty_array(a, ty_float(), ax_cst(a, 64));
  const View *x = vw_mem(a, memory(a, "x", vec64));
  const View *split = vw_layout(a, ir_prim_n(a, P_SPLIT, ax_cst(a, 4)), x,
                                ty_array(a, ty_array(a, ty_float(), ax_cst(a, 4)), ax_cst(a, 16)));
  const View *joined = vw_layout(a, ir_prim(a, P_JOIN), split, vec64);
  const AExpr *k = ax_var(a, "k", 0, 63);
  CHECK_STR(index_of(a, vw_access(a, joined, k)), "k");

  const AExpr *i = ax_var(a, "i", 0, 15), *j = ax_var(a, "j", 0, 3);
  CHECK_STR(index_of(a, vw_access(a, vw_access(a, split, i), j)), "i*4 + j");

  const Type *m2 = ty_array(a, ty_array(a, ty_float(), ax_cst(a, 8)), ax_cst(a, 6));
  const Type *m2t = ty_array(a, ty_array(a, ty_float(), ax_cst(a, 6)), ax_cst(a, 8));
  const View *y = vw_mem(a, memory(a, "y", m2));
  const View *tt = vw_layout(a, ir_prim(a, P_TRANSPOSE), vw_layout(a, ir_prim(a, P_TRANSPOSE), y, m2t), m2);
  const AExpr *r = ax_var(a, "r", 0, 5), *c = ax_var(a, "c", 0, 7);
  CHECK_STR(index_of(a, vw_access(a, vw_access(a, tt, r), c)), "c + r*8");

  const Type *win = ty_array(a, ty_array(a, ty_float(), ax_cst(a, 3)), ax_cst(a, 62));
  const View *sl = vw_layout(a, ir_prim_nn(a, P_SLIDE, ax_cst(a, 3), ax_cst(a, 1)), x, win);
  const AExpr *w = ax_var(a, "w", 0, 61), *e = ax_var(a, "e", 0, 2);
  CHECK_STR(index_of(a, vw_access(a, vw_access(a, sl, w), e)), "e + w");
  arena_free(a);
}

static LProgram *lower_file(Arena *a, const char *path, char **source) {
  Diag d = {0};
  char *text = file_read(path, NULL, &d);
  if (!text) return fprintf(stderr, "%s\n", d.msg), NULL;
  // the sizes of the example's `# run:` line
  const char *names[16];
  int64_t vals[16];
  int n = 0;
  const char *run = strstr(text, "# run:");
  for (const char *p = run; p && (p = strstr(p, "-p ")) && p < strchr(run, '\n'); p += 3) {
    const char *eq = strchr(p + 3, '=');
    names[n] = arena_strndup(a, p + 3, (size_t)(eq - p - 3));
    vals[n++] = atoll(eq + 1);
  }
  Program *prog = ir_parse(a, path, text, n, names, vals, &d);
  free(text);
  LProgram *lp = prog && ir_infer(a, prog, &d) ? lw_lower(a, prog, &d) : NULL;
  if (!lp) return fprintf(stderr, "%s\n", d.msg), NULL;
  *source = cg_emit(lp, &CG_OPENCL, path);
  return lp;
}

static int count(const char *s, const char *what) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, what)); p++) n++;
  return n;
}

/* The code lines of a kernel source, without its comments. */
static char *code_only(const char *src) {
  char *out = malloc(strlen(src) + 1), *o = out;
  for (const char *p = src; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    const char *t = p;
    while (*t == ' ') t++;
    if (strncmp(t, "//", 2) != 0) memcpy(o, p, len), o += len, *o++ = '\n';
    p += len + (nl ? 1 : 0);
  }
  *o = 0;
  return out;
}

static void test_tiled_matmul(void) {
  Arena *a = arena_new();
  char *src = NULL;
  LProgram *lp = lower_file(a, "examples/ir/matmul_tiled.cg", &src);
  CHECK(lp != NULL);
  if (lp) {
    char *code = code_only(src);
    CHECK(lp->nkernels == 1);
    CHECK(lp->kernels[0]->uses_groups);
    CHECK(count(code, "__local float") == 2);         // one staged tile of A, one of B
    CHECK(count(code, "barrier(") == 2);              // after staging; before the next round overwrites
    CHECK(strchr(code, '/') == NULL && strchr(code, '%') == NULL);  // every index simplified
    CHECK(strstr(code, "p5[") == NULL);               // the register block is scalarised
    free(code);
  }
  free(src);
  arena_free(a);
}

static void test_dot_two_kernels(void) {
  Arena *a = arena_new();
  char *src = NULL;
  LProgram *lp = lower_file(a, "examples/ir/dot.cg", &src);
  CHECK(lp != NULL);
  if (lp) {
    CHECK(lp->nkernels == 2);
    CHECK(lp->kernels[0]->uses_groups && lp->kernels[0]->local[0] == 64 && lp->kernels[0]->global[0] == 2048);
    CHECK(!lp->kernels[1]->uses_groups && lp->kernels[1]->global[0] == 1);
    CHECK(lp->nbuffers == 4);  // x, y, the partial sums between the kernels, out
    CHECK(lp->buffers[2]->role == MR_TEMP && lp->buffers[2]->count == 32);
    CHECK(count(src, "barrier(") == 2);  // between the reduction steps; none after the last
  }
  free(src);
  arena_free(a);
}

int main(void) {
  test_views();
  test_tiled_matmul();
  test_dot_two_kernels();
  TEST_MAIN_END();
}
