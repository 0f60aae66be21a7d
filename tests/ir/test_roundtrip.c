/* test_roundtrip.c: the text form prints and parses back to the same program.
 *
 * For every example program in examples/ir (the directory is read at run
 * time; the test runs from the repository root): parse with no sizes bound,
 * print, parse the printed text, print again; the two printed texts must be
 * identical. Then the same with the sizes of the example's `# run:` line
 * bound, and type inference must succeed on that bound program. A set of
 * inline programs does the same for every primitive of IR_PRIMS, and the
 * test checks that together they use each one at least once.
 */
#include "ir/ir.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

enum { MAX_BIND = 32 };

typedef struct Bindings {
  int n;
  const char *names[MAX_BIND];
  int64_t vals[MAX_BIND];
} Bindings;

static bool prim_seen[P_COUNT];

static void mark_expr(const Expr *e);

static void mark_fun(const Fun *f) {
  switch (f->kind) {
  case F_USER: return;
  case F_LAMBDA: mark_expr(f->body); return;
  case F_PRIM:
    prim_seen[f->prim] = true;
    if (f->f) mark_fun(f->f);
    return;
  }
}

static void mark_expr(const Expr *e) {
  if (e->kind != E_CALL) return;
  mark_fun(e->fun);
  for (int i = 0; i < e->nargs; i++) mark_expr(e->args[i]);
}

static char *print_str(const Program *p) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_program(&sb, p);
  return sb_take(&sb);
}

/* Parse, print, parse the print, print again: both prints must agree. Returns
 * the program parsed from the original text (NULL on a parse error). */
static Program *roundtrip(Arena *a, const char *name, const char *text, const Bindings *b) {
  Diag d = {0};
  Program *p = ir_parse(a, name, text, b->n, b->names, b->vals, &d);
  if (!p) {
    fprintf(stderr, "%s: parse failed: %s\n", name, d.msg);
    CHECK(p != NULL);
    return NULL;
  }
  char *first = print_str(p);
  Program *q = ir_parse(a, name, first, b->n, b->names, b->vals, &d);
  if (!q) fprintf(stderr, "%s: the printed text does not parse: %s\n--- printed:\n%s", name, d.msg, first);
  CHECK(q != NULL);
  if (q) {
    char *second = print_str(q);
    if (strcmp(first, second) != 0) fprintf(stderr, "%s: printed texts differ:\n--- first:\n%s--- second:\n%s", name, first, second);
    CHECK_STR(second, first);
    free(second);
  }
  free(first);
  mark_expr(p->body);
  return p;
}

static void check_infer(Arena *a, Program *p) {
  Diag d = {0};
  bool ok = ir_infer(a, p, &d);
  if (!ok) fprintf(stderr, "%s: type inference failed: %s\n", p->name, d.msg);
  CHECK(ok);
}

/* The -p NAME=VALUE words of the first `# run:` line among the comment lines
 * that open the file (the convention of scripts/run-examples.sh). */
static bool run_line(Arena *a, const char *text, Bindings *b) {
  b->n = 0;
  for (const char *s = text; *s;) {
    const char *eol = strchr(s, '\n');
    size_t len = eol ? (size_t)(eol - s) : strlen(s);
    char *line = arena_strndup(a, s, len);
    s += len + (eol != NULL);
    char *t = line + strspn(line, " \t");
    if (*t == '\0') continue;
    if (*t != '#') return false;
    t += 1 + strspn(t + 1, " \t");
    if (strncmp(t, "run:", 4) != 0) continue;
    for (char *w = strtok(t + 4, " \t"); w; w = strtok(NULL, " \t")) {
      if (strcmp(w, "-p") == 0) continue;
      char *eq = strchr(w, '=');
      if (!eq || b->n == MAX_BIND) return false;
      *eq = '\0';
      b->names[b->n] = w;
      b->vals[b->n++] = strtoll(eq + 1, NULL, 10);
    }
    return true;
  }
  return false;
}

static int by_name(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static void test_examples(void) {
  const char *dir = "examples/ir";
  DIR *dp = opendir(dir);
  CHECK(dp != NULL);
  if (!dp) return;
  char *names[256];
  int n = 0;
  for (struct dirent *de; (de = readdir(dp)) != NULL;) {
    size_t len = strlen(de->d_name);
    if (len > 3 && strcmp(de->d_name + len - 3, ".cg") == 0 && n < 256) names[n++] = strdup(de->d_name);
  }
  closedir(dp);
  qsort(names, (size_t)n, sizeof *names, by_name);
  CHECK(n >= 10);  // vector add and scale, float4 add, dot, matvec, two matmuls, transpose, two stencils
  for (int i = 0; i < n; i++) {
    Arena *a = arena_new();
    char *path = arena_printf(a, "%s/%s", dir, names[i]);
    Diag d = {0};
    char *text = file_read(path, NULL, &d);
    CHECK(text != NULL);
    if (text) {
      Bindings none = {0}, run;
      roundtrip(a, path, text, &none);
      bool has_run = run_line(a, text, &run);
      if (!has_run) fprintf(stderr, "%s: no '# run: -p NAME=VALUE ...' line at the top\n", path);
      CHECK(has_run);
      Program *p = has_run ? roundtrip(a, path, text, &run) : NULL;
      if (p) check_infer(a, p);
      free(text);
    }
    free(names[i]);
    arena_free(a);
  }
}

/* Small programs that together use every primitive, each with the sizes of
 * its second round trip and of type inference in a `# run:` line, as in the
 * examples. */
static const char *const INLINE[] = {
    // map family, reduce family, zip/get, toGlobal, let, a literal in a lambda
    "# run: -p N=64\n"
    "size N\n"
    "userfun add(a: float, b: float): float { return a + b; }\n"
    "userfun id(a: float): float { return a; }\n"
    "input x: [[float]8]N\n"
    "input y: [[float]8]N\n"
    "out = zip(x, y) |> mapGlb[0, fun(p) ->\n"
    "  let s = reduceSeq[add](0.0f, get[0](p)) in\n"
    "  let t = reduceSeqUnroll[add](1.5f, get[1](p)) in\n"
    "  let u = reduce[add](-2.0f, map[id](get[0](p))) in\n"
    "  zip(s, zip(t, u) |> mapSeq[add]) |> toGlobal[mapSeqUnroll[add]]]\n"
    "  |> join\n",
    // work-groups, local and private memory, barrier, unzip, split/join
    "# run: -p N=64 -p T=16\n"
    "size N, T\n"
    "userfun id(a: float): float { return a; }\n"
    "userfun add(a: float, b: float): float { return a + b; }\n"
    "input x: [float]N\n"
    "input y: [float]N\n"
    "workgroup T\n"
    "out = zip(x, y) |> split[T] |> mapWrg[0, fun(c) ->\n"
    "  let parts = unzip(c) in\n"
    "  get[0](parts) |> toLocal[mapLcl[0, id]] |> barrier\n"
    "  |> mapLcl[0, fun(v) -> toPrivate[id](v)]] |> join\n",
    // slide, pad with a constant and with clamp, transpose, gather, scatter, iterate
    "# run: -p N=64 -p M=16\n"
    "size N, M\n"
    "userfun add(a: float, b: float): float { return a + b; }\n"
    "userfun id(a: float): float { return a; }\n"
    "input x: [[float]M]N\n"
    "out = x |> transpose |> mapGlb[1, fun(col) ->\n"
    "  col |> pad[1, 2, -0.5f] |> pad[2, 0, clamp] |> slide[3, 2]\n"
    "  |> gather[(i, n) -> n - 1 - i]\n"
    "  |> mapGlb[0, fun(w) -> reduceSeq[add](0.0f, w)] |> join\n"
    "  |> iterate[2, fun(v) -> v |> mapSeq[id]]\n"
    "  |> scatter[(i, n) -> (i*2) % n]]\n",
    // vectors: asVector, mapVec, asScalar, a float4 user function, a lambda called directly
    "# run: -p N=64\n"
    "size N\n"
    "userfun neg(a: float): float { return -a; }\n"
    "userfun add4(a: float4, b: float4): float4 { return a + b; }\n"
    "input x: [float]N\n"
    "input y: [float]N\n"
    "out = (fun(a, b) -> zip(a |> asVector[4], b |> asVector[4])\n"
    "  |> mapGlb[0, fun(p) -> mapVec[neg](add4(get[0](p), get[1](p)))] |> asScalar)(x, y)\n",
    // int arrays; work-groups and work-items in two dimensions
    "# run: -p N=64 -p M=16\n"
    "size N, M\n"
    "userfun twice(i: int): int { return 2 * i; }\n"
    "input x: [[int]M]N\n"
    "workgroup 4, 2\n"
    "out = x |> split[2] |> mapWrg[1, fun(rows) ->\n"
    "  rows |> transpose |> split[4] |> mapWrg[0, fun(blk) ->\n"
    "    blk |> mapLcl[0, fun(col) -> col |> mapLcl[1, twice]]]\n"
    "  |> join |> transpose] |> join\n",
    // a reduction pipelined with asynchronous copies (what it pipelines: tests/rewrite/golden/reduce-seq-async.*)
    "# run: -p N=16\n"
    "size N\n"
    "userfun add(a: float, b: float): float { return a + b; }\n"
    "input x: [float]N\n"
    "out = reduceSeqAsync[add](0.0f, x)\n",
    // the warp's tile product (mma3xTF32 is in examples/ir/matmul_mma.cg)
    "# run:\n"
    "userfun id4(x: float4): float4 { return x; }\n"
    "input A: [[float]8]16\n"
    "input B: [[float]8]8\n"
    "input C: [[float4]32]1\n"
    "workgroup 32\n"
    "out = C |> mapWrg[0, fun(c) -> mmaTF32(A, B, c) |> mapLcl[0, id4]] |> join\n",
    // its half form: 16 values a row
    "# run:\n"
    "userfun id4(x: float4): float4 { return x; }\n"
    "input A: [[half]16]16\n"
    "input B: [[half]16]8\n"
    "input C: [[float4]32]1\n"
    "workgroup 32\n"
    "out = C |> mapWrg[0, fun(c) -> mmaF16(A, B, c) |> mapLcl[0, id4]] |> join\n",
};

static void test_inline(void) {
  for (size_t i = 0; i < sizeof INLINE / sizeof *INLINE; i++) {
    Arena *a = arena_new();
    const char *name = arena_printf(a, "<inline %zu>", i);
    Bindings none = {0}, run;
    CHECK(run_line(a, INLINE[i], &run));
    roundtrip(a, name, INLINE[i], &none);
    Program *p = roundtrip(a, name, INLINE[i], &run);
    if (p) check_infer(a, p);
    arena_free(a);
  }
}

/* Every primitive of IR_PRIMS was parsed, printed and parsed back above. */
static void test_coverage(void) {
  for (int p = 0; p < P_COUNT; p++) {
    if (!prim_seen[p]) fprintf(stderr, "primitive '%s' is not covered by any round trip\n", prim_name((Prim)p));
    CHECK(prim_seen[p]);
  }
}

/* Printing is stable on details that are easy to lose: literals keep their
 * kind, pad values their sign, index functions their variable names. */
static void test_details(void) {
  Arena *a = arena_new();
  const char *src =
      "size N\n"
      "userfun f(a: float, i: int): float { return a * (float)i; }\n"
      "input x: [float]N\n"
      "out = x |> pad[0, 3, -1.25f] |> gather[(k, len) -> (k + 1) % len]\n"
      "  |> mapGlb[0, fun(v) -> f(v, 3)]\n";
  Diag d = {0};
  Program *p = ir_parse(a, "<details>", src, 0, NULL, NULL, &d);
  CHECK(p != NULL);
  if (p) {
    char *s = print_str(p);
    CHECK(strstr(s, "pad[0, 3, -1.25f]") != NULL);
    CHECK(strstr(s, "gather[(k, len) -> ") != NULL);
    CHECK(strstr(s, "f(v, 3)") != NULL);
    CHECK(strstr(s, "userfun f(a: float, i: int): float { return a * (float)i; }") != NULL);
    free(s);
  }
  arena_free(a);
}

/* A const array keeps its values as floats: 0.1 is held (and printed) as
 * the float nearest it, which parses back to itself; the declaration is
 * printed after the inputs, and a size bound by -p gives its length. */
static void test_const(void) {
  Arena *a = arena_new();
  const char *src = "size N\n"
                    "userfun id(a: float): float { return a; }\n"
                    "const C: [[float]N]2 = [0.1, -2, 1e-3, 0.5]\n"
                    "out = C |> join |> mapGlb[0, id]\n";
  Diag d = {0};
  Program *p = ir_parse(a, "<const>", src, 1, (const char *[]){"N"}, (const int64_t[]){2}, &d);
  CHECK(p != NULL && p->nconsts == 1 && p->ninputs == 0);
  if (p) {
    CHECK(p->consts[0]->values[0] == (double)0.1f && p->consts[0]->values[1] == -2.0);
    char *s = print_str(p);
    CHECK(strstr(s, "const C: [[float]2]2 = [0.100000001f, -2.0f, 0.00100000005f, 0.5f]") != NULL);
    Program *q = ir_parse(a, "<const again>", s, 0, NULL, NULL, &d);
    CHECK(q != NULL && q->nconsts == 1 && q->consts[0]->values[2] == (double)1e-3f);
    free(s);
  }
  arena_free(a);
}

/* Element types (util/elem.h) on the types: a float scalar and a vector
 * carry fp32's descriptor, print as they always did, parse back to equal
 * types, and count their bytes by it. */
static void test_elem_types(void) {
  Arena *a = arena_new();
  const ElemType *f = elem_fp32();
  const Type *v4 = ty_vec(a, f, 4), *arr = ty_array(a, v4, ax_cst(a, 3));
  CHECK(ty_float() == ty_scalar(f) && ty_float()->et == f && v4->et == f && ty_elem(arr) == f && !ty_elem(ty_int()));
  CHECK(ty_equal(v4, ty_vec(a, f, 4)) && !ty_equal(v4, ty_vec(a, f, 2)) && !ty_equal(ty_float(), ty_int()));
  CHECK_STR(ty_str(a, arr), "[float4]3");
  CHECK(ty_bytes(ty_float(), 5) == 20 && ty_bytes(v4, 3) == 48 && ty_bytes(ty_int(), 2) == 8);
  Diag d = {0};
  Program *p = ir_parse(a, "<elem>", "input x: [float3]4\nout = x |> asScalar |> mapGlb[0, fun(v) -> v]\n", 0, NULL,
                        NULL, &d);
  CHECK(p && ir_infer(a, p, &d));
  if (p && !d.set) {
    CHECK(p->inputs[0]->type->elem->et == f && p->inputs[0]->type->elem->width == 3);
    CHECK(ty_equal(p->body->type, ty_array(a, ty_float(), ax_cst(a, 12))));
  }
  arena_free(a);
}

int main(void) {
  test_elem_types();
  test_const();
  test_examples();
  test_inline();
  test_coverage();
  test_details();
  TEST_MAIN_END();
}
