/* test_compile.c: the compile pipeline (compile.h): its passes in order, a
 * caller stopping after the pass it needs, the failing pass's Diag, and the
 * dumps: the program's text form before the lowering (which parses back to
 * the same program), the emitted source from it on. */
#include "compile/compile.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static const char *const vadd = "size N\n"
                                "userfun add(a: float, b: float): float { return a + b; }\n"
                                "input x: [float]N\n"
                                "input y: [float]N\n"
                                "out = zip(x, y) |> mapGlb[0, add]\n";
static const char *const n_name[] = {"N"};
static const int64_t n_val[] = {64};

/* Every dump, in order: the pass's name and its text. */
typedef struct Dumps {
  Arena *a;
  int n;
  const char *pass[32];
  const char *text[32];
} Dumps;

static void keep(void *ctx, const char *pass, const char *text) {
  Dumps *ds = ctx;
  if (ds->n == 32) return;
  ds->pass[ds->n] = pass;
  ds->text[ds->n++] = arena_strdup(ds->a, text);
}

static void test_names(void) {
  const char *names[32];
  int n = cp_pass_names(names, 32);
  static const char *const want[] = {"parse", "store", "infer", "check-sizes", "kernels", "scalarise", "prefetch",
                                     "combine-loads", "lower", "check-buffers", "emit"};
  CHECK(n == (int)(sizeof want / sizeof *want));
  for (int i = 0; i < n && i < (int)(sizeof want / sizeof *want); i++) CHECK_STR(names[i], want[i]);
  for (int i = 0; i < n; i++) CHECK(cp_is_pass(names[i]));
  CHECK(!cp_is_pass("lowering") && !cp_is_pass(""));
  CHECK_STR(cp_pass_name(CP_PARSE), "parse");
  CHECK_STR(cp_pass_name(CP_EMIT), "emit");
  CHECK(cp_pass_names(names, 2) == 2);   // at most max
}

static void test_through(void) {
  Arena *a = arena_new();
  Diag d = {0};
  CpInput in = {"vadd", vadd, 1, n_name, n_val};
  CpResult r;
  CpOptions o = {.through = CP_INFER};
  CHECK(cp_compile(a, &in, &o, &r, &d) && r.prog && r.prog->body->type && !r.lp && !r.source);
  CHECK_STR(r.header, "vadd: N=64");
  o.through = CP_LOWER;
  CHECK(cp_compile(a, &in, &o, &r, &d) && r.lp && r.lp->nkernels == 1 && !r.source);
  o.through = CP_EMIT;
  CHECK(cp_compile(a, &in, &o, &r, &d) && r.source && strncmp(r.source, "// vadd: N=64\n", 14) == 0);
  o.header = "";
  CHECK(cp_compile(a, &in, &o, &r, &d) && strncmp(r.source, "// OpenCL C", 11) == 0);
  // an unbound size: free for the types, an error from check-sizes on
  CpInput free_n = {"vadd", vadd, 0, NULL, NULL};
  o = (CpOptions){.through = CP_INFER};
  CHECK(cp_compile(a, &free_n, &o, &r, &d));
  o.through = CP_EMIT;
  CHECK(!cp_compile(a, &free_n, &o, &r, &d) && r.prog && !r.lp);
  CHECK_STR(d.msg, "vadd: size 'N' has no value; give it with -p N=...");
  arena_free(a);
}

/* CpOptions.storage: the store pass keeps an fp32 program's tensors in half
 * (an fp16 network's operators): its fp32 inputs declared half, its output
 * stored half, computed in float; int inputs and a declared output as they were. */
static void test_store(void) {
  Arena *a = arena_new();
  Diag d = {0};
  const ElemType *half = elem_type(ELEM_FP16);
  CpInput in = {"vadd", vadd, 1, n_name, n_val};
  CpResult r;
  CpOptions o = {.through = CP_EMIT, .storage = half};
  CHECK(cp_compile(a, &in, &o, &r, &d));
  CHECK(ty_elem(r.prog->inputs[0]->type) == half && ty_elem(r.prog->inputs[1]->type) == half);
  CHECK(r.prog->out_type && ty_elem(r.prog->out_type) == half);
  CHECK(ty_elem(r.prog->body->type) == elem_fp32());   // the sum is computed in float
  CHECK(strstr(r.source, "vload_half(") && strstr(r.source, "vstore_half("));
  StrBuf sb;   // the program after it parses back as stored
  sb_init(&sb);
  ir_print_program(&sb, r.prog);
  CHECK(strstr(sb_str(&sb), "input x: [half]64\n") && strstr(sb_str(&sb), "out: [half]64 = "));
  sb_free(&sb);
  // no storage: as declared
  o.storage = NULL;
  CHECK(cp_compile(a, &in, &o, &r, &d) && !r.prog->out_type && !strstr(r.source, "half"));
  // an int input stays int; a declared output keeps its declaration
  static const char *const gather = "size N\n"
                                    "userfun scale(v: float, k: int): float { return v * (float)k; }\n"
                                    "input x: [float]N\n"
                                    "input k: [int]N\n"
                                    "out: [float]N = zip(x, k) |> mapGlb[0, scale]\n";
  CpInput gin = {"scale", gather, 1, n_name, n_val};
  o.storage = half;
  CHECK(cp_compile(a, &gin, &o, &r, &d));
  CHECK(ty_elem(r.prog->inputs[0]->type) == half && ty_base(r.prog->inputs[1]->type)->kind == TY_INT);
  CHECK(ty_elem(r.prog->out_type) == elem_fp32());
  arena_free(a);
}

static void test_dumps(void) {
  Arena *a = arena_new();
  Diag d = {0};
  CpInput in = {"vadd", vadd, 1, n_name, n_val};
  CpResult r;
  Dumps ds = {.a = a};
  CpOptions o = {.through = CP_EMIT, .dump_all = true, .dump_to = keep, .dump_ctx = &ds};
  CHECK(cp_compile(a, &in, &o, &r, &d));
  const char *names[32];
  int n = cp_pass_names(names, 32);
  CHECK(ds.n == n);
  for (int i = 0; i < ds.n && i < n; i++) CHECK_STR(ds.pass[i], names[i]);
  // before the lowering, the text form: it parses back to the program it shows
  StrBuf sb;
  sb_init(&sb);
  ir_print_program(&sb, r.prog);
  CHECK_STR(ds.text[1], sb_str(&sb));
  Program *back = ir_parse(a, "dump", ds.text[1], 0, NULL, NULL, &d);
  CHECK(back && ir_infer(a, back, &d));
  sb_free(&sb);
  // from the lowering's first pass on, the source; after emit, what was emitted
  CHECK(strstr(ds.text[4], "__kernel void k0") != NULL);
  CHECK_STR(ds.text[n - 1], r.source);
  CHECK_STR(ds.text[n - 2], r.source);
  // one pass by name; a failing pass dumps nothing after it
  ds.n = 0;
  static const char *const one[] = {"scalarise"};
  o = (CpOptions){.through = CP_EMIT, .ndump = 1, .dump = one, .dump_to = keep, .dump_ctx = &ds};
  CHECK(cp_compile(a, &in, &o, &r, &d) && ds.n == 1 && strcmp(ds.pass[0], "scalarise") == 0);
  ds.n = 0;
  CpInput free_n = {"vadd", vadd, 0, NULL, NULL};
  o.dump_all = true;
  CHECK(!cp_compile(a, &free_n, &o, &r, &d) && ds.n == 3);   // parse, store and infer
  arena_free(a);
}

int main(void) {
  test_names();
  test_through();
  test_store();
  test_dumps();
  TEST_MAIN_END();
}
