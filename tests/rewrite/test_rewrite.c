/* test_rewrite.c: the rewrite engine and every rule.
 *
 * Golden tests (tests/rewrite/golden/): for every rule NAME of rw_rules there
 * is NAME.before.cg, a complete program whose comment lines say
 *   # rule: NAME [ARG, ...]      the rule and its arguments (size expressions
 *                                over the program's sizes)
 *   # at: /0/1                   where to apply it (optional: else the first
 *                                position rw_find lists)
 *   # run: -p N=16 ...           the sizes to bind for the interpreter
 * and NAME.after.cg, the exact text ir_print_program prints for the program
 * after the rewrite (sizes left symbolic). The test applies the rule, compares
 * the print with the after file, checks that the print parses back to the same
 * text, and then applies the rule to the program with the sizes bound and runs
 * both programs through the reference interpreter on the same random inputs:
 * they must agree to 1e-9 (relative L2), since a rewrite must not change the
 * meaning (tile-product to 1e-5: its tile product rounds its operands as the
 * tensor cores do; tf32-product, which drops the operands' low parts, to
 * 4 * 2^-11). Every file in the folder must belong to a rule.
 *
 * To regenerate the after files (then review `git diff tests/rewrite/golden`):
 *   REWRITE_GOLDEN_UPDATE=1 build/tests/rewrite/test_rewrite
 *
 * A rewritten golden program with nothing high-level left is also lowered
 * and emitted (lw_lower, cg_emit).
 *
 * Then: positions (rw_children, rw_find, rw_replace), non-matching cases,
 * every rule at every position of every example and golden program (no
 * crash; the result type-checks and prints back), rw_apply's messages, fresh
 * parameters and declared tuning parameters, compositions of rules (2-D slide
 * tiling; a dot product and a convolution's reduction read with stride,
 * split into partial sums and fused), and programs lowered only by rules that
 * compile to the same kernels as the hand-written examples.
 * Runs from the repository root. REWRITE_SHOW=1 prints the composed programs
 * and kernels.
 */
#include "codegen/codegen.h"
#include "ir/interp.h"
#include "lower/lower.h"
#include "rewrite/rewrite.h"
#include "test.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN "tests/rewrite/golden/"

enum { MAX_BIND = 16 };

typedef struct Header {
  char rule[64];
  const char *args_text;      // after the rule name (in the file text), or ""
  bool has_at;
  RwPath at;
  int nbind;
  const char *bnames[MAX_BIND];
  int64_t bvals[MAX_BIND];
} Header;

/* ---- Helpers ----------------------------------------------------------------- */

static char *print_program(const Program *p) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_program(&sb, p);
  return sb_take(&sb);
}

static Program *parse_typed(Arena *a, const char *name, const char *text, int nbind, const char *const *bnames,
                            const int64_t *bvals) {
  Diag d = {0};
  Program *p = ir_parse(a, name, text, nbind, bnames, bvals, &d);
  if (p && !ir_infer(a, p, &d)) p = NULL;
  if (!p) fprintf(stderr, "%s: %s\n", name, d.msg);
  return p;
}

static Program *parse_src(Arena *a, const char *text) { return parse_typed(a, "<test>", text, 0, NULL, NULL); }

/* The text of a comment line "# key: ..." (up to the end of the line), or NULL. */
static const char *comment_value(Arena *a, const char *text, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "# %s:", key);
  const char *p = strstr(text, pat);
  if (!p) return NULL;
  p += strlen(pat);
  while (*p == ' ') p++;
  return arena_strndup(a, p, strcspn(p, "\n"));
}

static bool read_header(Arena *a, const char *text, Header *h) {
  memset(h, 0, sizeof *h);
  const char *rule = comment_value(a, text, "rule");
  if (!rule) return false;
  size_t n = strcspn(rule, " ");
  snprintf(h->rule, sizeof h->rule, "%.*s", (int)n, rule);
  h->args_text = rule + n + strspn(rule + n, " ");
  const char *at = comment_value(a, text, "at");
  if (at && !(h->has_at = rw_path_parse(at, &h->at))) return false;
  const char *run = comment_value(a, text, "run");
  for (const char *p = run; p && (p = strstr(p, "-p ")) && h->nbind < MAX_BIND; p += 3) {
    const char *eq = strchr(p + 3, '=');
    if (!eq) return false;
    h->bnames[h->nbind] = arena_strndup(a, p + 3, (size_t)(eq - p - 3));
    h->bvals[h->nbind++] = atoll(eq + 1);
  }
  return true;
}

static const AExpr *lookup_size(void *ctx, const char *name) {
  const Program *p = ctx;
  for (int i = 0; i < p->nsizes; i++)
    if (strcmp(p->size_names[i], name) == 0) return p->sizes[i];
  return NULL;
}

/* "4, T*2" -> AExprs over the program's sizes (bound sizes are constants). */
static int parse_rule_args(Arena *a, const char *text, const Program *p, const AExpr **out) {
  int n = 0;
  while (*text && n < RW_MAX_ARGS) {
    Diag d = {0};
    const char *end = NULL;
    const AExpr *e = ax_parse(a, text, &end, lookup_size, (void *)p, &d);
    if (!e) return fprintf(stderr, "rule arguments '%s': %s\n", text, d.msg), -1;
    out[n++] = e;
    text = end + strspn(end, ", ");
  }
  return n;
}

static const AExpr **args_of(Arena *a, const char *text, const Program *p) {
  const AExpr **args = ARENA_ARRAY(a, const AExpr *, RW_MAX_ARGS);
  return parse_rule_args(a, text, p, args) >= 0 ? args : NULL;
}

static uint64_t rng_state = 12345;
static float rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (float)((double)(rng_state >> 11) / (double)(1ULL << 53) * 2.0 - 1.0);
}

/* Both programs (sizes bound, typed) on the same random inputs: agree to 1e-9. */
static bool same_meaning(const Program *p, const Program *q, const char *what) {
  float *in[16];
  int64_t total = ir_flat_count(p->body->type);
  if (total < 0 || total != ir_flat_count(q->body->type) || p->ninputs > 16)
    return fprintf(stderr, "%s: outputs of different sizes\n", what), false;
  for (int i = 0; i < p->ninputs; i++) {
    int64_t n = ir_flat_count(p->inputs[i]->type);
    in[i] = malloc(sizeof(float) * (size_t)(n ? n : 1));
    for (int64_t k = 0; k < n; k++) in[i][k] = rnd();
  }
  double *x = calloc((size_t)total, sizeof(double)), *y = calloc((size_t)total, sizeof(double));
  Diag d = {0};
  bool ok = ir_eval(p, (const float *const *)in, x, 0, NULL, &d) && ir_eval(q, (const float *const *)in, y, 0, NULL, &d);
  if (!ok) fprintf(stderr, "%s: evaluation failed: %s\n", what, d.msg);
  double num = 0, den = 0;
  for (int64_t k = 0; ok && k < total; k++) {
    num += (x[k] - y[k]) * (x[k] - y[k]);
    den += x[k] * x[k];
    if (isnan(x[k]) || isnan(y[k])) ok = false;
  }
  // tile-product's mma3xTF32 rounds its operands to TF32 parts (docs/ir.md, "Tile products"): under 2^-21 of
  // each product, 1e-5 of the sum's relative L2 (test_strategy's bound)
  // tf32-product's mmaTF32 keeps TF32's 11 bits of each operand: 2^-11 of each, relative; 4 * 2^-11 of the
  // sum's relative L2 is meas_tolerance's bound (about 1e-3 is expected of random sums of products)
  double tol = strcmp(what, "tile-product") == 0 ? 1e-5 : strcmp(what, "tf32-product") == 0 ? 4 * 0x1p-11 : 1e-9;
  if (ok && sqrt(num) > tol * sqrt(den)) {
    fprintf(stderr, "%s: results differ (relative L2 %g)\n", what, sqrt(num / (den > 0 ? den : 1)));
    ok = false;
  }
  for (int i = 0; i < p->ninputs; i++) free(in[i]);
  free(x);
  free(y);
  return ok;
}

/* Apply rule `name` with argument text at path `at` (NULL: the first
 * position); NULL (and a message) when it fails. */
static Program *apply_at(Arena *a, const Program *p, const char *name, const char *args_text, const RwPath *at) {
  const Rule *r = rw_rule(name);
  const AExpr **args = r ? args_of(a, args_text, p) : NULL;
  if (!args) return fprintf(stderr, "rule %s: unknown or bad arguments\n", name), NULL;
  RwPath first;
  if (!at) {
    if (rw_find(p->body, r, args, &first, 1) < 1) return fprintf(stderr, "rule %s applies nowhere\n", name), NULL;
    at = &first;
  }
  Diag d = {0};
  Program *q = rw_apply(a, p, r, args, at, &d);
  if (!q) fprintf(stderr, "%s\n", d.msg);
  return q;
}

static Program *apply_str(Arena *a, const Program *p, const char *name, const char *args_text, const char *at) {
  RwPath path;
  if (at && !rw_path_parse(at, &path)) return fprintf(stderr, "bad path %s\n", at), NULL;
  return apply_at(a, p, name, args_text, at ? &path : NULL);
}

/* ---- Golden before/after tests ------------------------------------------------- */

static int golden_compiled;  // rewritten golden programs that were lowered and emitted

static bool prints_back(Arena *a, const char *text) {
  Program *p = parse_src(a, text);
  if (!p) return false;
  char *again = print_program(p);
  bool same = strcmp(again, text) == 0;
  if (!same) fprintf(stderr, "printed program does not print back the same:\n%s---\n%s", text, again);
  free(again);
  return same;
}

static void compare_after(const char *name, const char *printed) {
  char path[256];
  snprintf(path, sizeof path, GOLDEN "%s.after.cg", name);
  Diag d = {0};
  if (getenv("REWRITE_GOLDEN_UPDATE")) {
    CHECK(file_write(path, printed, strlen(printed), &d));
    printf("wrote %s\n", path);
    return;
  }
  char *want = file_read(path, NULL, &d);
  if (!want) fprintf(stderr, "%s (REWRITE_GOLDEN_UPDATE=1 writes it)\n", d.msg);
  CHECK(want != NULL);
  if (want) {
    if (strcmp(want, printed) != 0) fprintf(stderr, "%s: the rewritten program differs from %s\n", name, path);
    CHECK_STR(printed, want);
  }
  free(want);
}

/* Does the program still hold a high-level map (other than a map of a layout
 * primitive, which is a view) or reduce? */
static bool high_level_expr(const Expr *e);
static bool high_level_fun(const Fun *f) {
  for (; f; f = f->f) {
    if (f->kind == F_LAMBDA) return high_level_expr(f->body);
    if (f->kind != F_PRIM) return false;
    if (f->prim == P_REDUCE) return true;
    if (f->prim == P_MAP && !(f->f->kind == F_PRIM && prim_is_layout(f->f->prim))) return true;
  }
  return false;
}
static bool high_level_expr(const Expr *e) {
  if (e->kind != E_CALL) return false;
  for (int i = 0; i < e->nargs; i++)
    if (high_level_expr(e->args[i])) return true;
  return high_level_fun(e->fun);
}

/* A rewritten program with nothing high-level left must compile. */
static void compiles_if_low_level(Arena *a, const Program *p, const char *name) {
  if (high_level_expr(p->body)) return;
  Diag d = {0};
  LProgram *lp = lw_lower(a, p, &d);
  if (!lp) fprintf(stderr, "%s: the rewritten program does not compile: %s\n", name, d.msg);
  CHECK(lp != NULL);
  char *src = lp ? cg_emit(lp, &CG_OPENCL, name) : NULL;
  CHECK(!lp || (src && strstr(src, "__kernel")));
  free(src);
  golden_compiled++;
}

static void golden_one(const Rule *r) {
  Arena *a = arena_new();
  char path[256];
  snprintf(path, sizeof path, GOLDEN "%s.before.cg", r->name);
  Diag d = {0};
  char *text = file_read(path, NULL, &d);
  Header h;
  bool ok = text && read_header(a, text, &h) && strcmp(h.rule, r->name) == 0;
  if (!ok) fprintf(stderr, "%s: missing, or no '# rule: %s' line\n", path, r->name);
  CHECK(ok);
  Program *p = ok ? parse_typed(a, path, text, 0, NULL, NULL) : NULL;
  Program *q = p ? apply_at(a, p, r->name, h.args_text, h.has_at ? &h.at : NULL) : NULL;
  CHECK(q != NULL);
  if (q) {
    char *printed = print_program(q);
    compare_after(r->name, printed);
    CHECK(prints_back(a, printed));
    free(printed);
  }
  Program *pb = ok ? parse_typed(a, path, text, h.nbind, h.bnames, h.bvals) : NULL;
  Program *qb = pb ? apply_at(a, pb, r->name, h.args_text, h.has_at ? &h.at : NULL) : NULL;
  CHECK(qb != NULL);
  if (qb) CHECK(same_meaning(pb, qb, r->name));
  if (qb) compiles_if_low_level(a, qb, r->name);
  free(text);
  arena_free(a);
}

/* Every golden file names a rule. */
static void golden_files_belong(void) {
  DIR *dir = opendir(GOLDEN);
  CHECK(dir != NULL);
  if (!dir) return;
  for (struct dirent *de; (de = readdir(dir));) {
    if (de->d_name[0] == '.') continue;
    char name[256];
    snprintf(name, sizeof name, "%s", de->d_name);
    char *dot = strstr(name, ".before.cg");
    if (!dot) dot = strstr(name, ".after.cg");
    if (dot) *dot = 0;
    bool known = dot && rw_rule(name);
    if (!known) fprintf(stderr, GOLDEN "%s belongs to no rule\n", de->d_name);
    CHECK(known);
  }
  closedir(dir);
}

static void test_golden(void) {
  int n;
  const Rule *rules = rw_rules(&n);
  for (int i = 0; i < n; i++) golden_one(&rules[i]);
  golden_files_belong();
  CHECK(golden_compiled >= 11);  // the lowering and placement rules, vectorise
  printf("golden: %d rules; %d rewritten programs fully low-level, lowered and emitted\n", n, golden_compiled);
}

/* ---- The rule table -------------------------------------------------------------- */

static void test_table(void) {
  int n;
  const Rule *rules = rw_rules(&n);
  CHECK(n >= 20);
  for (int i = 0; i < n; i++) {
    CHECK(strstr(rules[i].equation, " => ") != NULL);
    CHECK(rules[i].nargs >= 0 && rules[i].nargs <= RW_MAX_ARGS);
    for (int k = 0; k < rules[i].nargs; k++) CHECK(rules[i].arg_names[k] && strchr(rules[i].arg_names[k], ':'));
    CHECK(rw_rule(rules[i].name) == &rules[i]);
  }
  CHECK(rw_rule("no-such-rule") == NULL);
}

/* ---- Positions ------------------------------------------------------------------ */

static const char *text_of(Arena *a, const Expr *e) { return e ? ir_expr_str(a, e) : "(null)"; }

static void test_children(void) {
  Arena *a = arena_new();
  Program *p = parse_src(a, "size N\nuserfun neg(a: float): float { return -a; }\ninput A: [[float]4]N\n"
                            "out = A |> mapWrg[0, mapLcl[0, fun(x) -> neg(x)]] |> join\n");
  const Expr *kids[17];
  const Expr *wrg = p->body->args[0];
  CHECK(rw_children(p->body, kids, 17) == 1);
  CHECK(rw_children(wrg, kids, 17) == 2);
  CHECK_STR(text_of(a, kids[0]), "A");
  CHECK_STR(text_of(a, kids[1]), "neg(x)");
  CHECK(rw_children(kids[0], kids, 17) == 0);

  Program *q = parse_src(a, "size N\nuserfun add(a: float, b: float): float { return a + b; }\n"
                            "input x: [float]N\nout = let s = reduce[fun(acc, v) -> add(acc, v)](0.0f, x) in s\n");
  CHECK(rw_children(q->body, kids, 17) == 2);  // the let's value, then its body
  CHECK_STR(text_of(a, kids[0]), "reduce[fun(acc, v) -> add(acc, v)](0.0f, x)");
  CHECK_STR(text_of(a, kids[1]), "s");
  CHECK(rw_children(kids[0], kids, 1) == 3);  // 0.0f, x, add(acc, v): counted, one stored

  RwPath path;
  CHECK(rw_path_parse("/0/1", &path) && path.n == 2);
  CHECK_STR(text_of(a, rw_at(p->body, &path)), "neg(x)");
  CHECK(rw_path_parse("/0/2", &path) && rw_at(p->body, &path) == NULL);
  CHECK(rw_path_parse(" / ", &path) && path.n == 0 && rw_at(p->body, &path) == p->body);
  CHECK_STR(rw_path_str(a, &path), "/");
  CHECK(!rw_path_parse("0/1", &path) && !rw_path_parse("/a", &path) && !rw_path_parse("/-1", &path));
  arena_free(a);
}

static const char *const LARGER =
    "size N, M\n"
    "userfun neg(a: float): float { return -a; }\n"
    "userfun add(a: float, b: float): float { return a + b; }\n"
    "input A: [[float]M]N\n"
    "input x: [float]M\n"
    "out = A |> map[fun(row) -> zip(row |> map[neg], x) |> map[add]]\n"
    "      |> map[fun(r) -> reduce[add](0.0f, r)] |> join\n";

static void test_find(void) {
  Arena *a = arena_new();
  Program *p = parse_src(a, LARGER);
  const Rule *r = rw_rule("map-to-seq");
  RwPath found[8];
  int n = rw_find(p->body, r, NULL, found, 8);
  CHECK(n == 4);
  const char *want[] = {"/0", "/0/0", "/0/0/1", "/0/0/1/0/0"};  // pre-order
  for (int i = 0; i < n && i < 4; i++) CHECK_STR(rw_path_str(a, &found[i]), want[i]);
  CHECK(rw_find(p->body, r, NULL, found, 2) == 4);  // counts all, stores two
  CHECK(rw_find(p->body, rw_rule("map-fusion"), NULL, found, 8) == 1);
  CHECK_STR(rw_path_str(a, &found[0]), "/0");
  CHECK(rw_find(p->body, rw_rule("map-fission"), NULL, found, 8) == 0);   // zip(..., x) is not g(row)
  CHECK(rw_find(p->body, rw_rule("reduce-to-seq"), NULL, found, 8) == 1);
  CHECK_STR(rw_path_str(a, &found[0]), "/0/1");
  CHECK(rw_find(p->body, rw_rule("reduce-map-fusion"), NULL, found, 8) == 0);
  arena_free(a);
}

static void test_replace(void) {
  Arena *a = arena_new();
  Program *p = parse_src(a, LARGER);
  char *before = print_program(p);
  RwPath path;
  CHECK(rw_path_parse("/0/0/1/0/0", &path));
  const Expr *target = rw_at(p->body, &path);
  CHECK_STR(text_of(a, target), "map[neg](row)");
  const Expr *repl = target->args[0];  // drop the negation
  const Expr *root = rw_replace(a, p->body, &path, repl);
  CHECK(root != p->body);
  CHECK(rw_at(root, &path) == repl);
  CHECK(root->fun == p->body->fun);  // join: unchanged sibling Fun shared
  const Expr *m1 = root->args[0], *m0 = p->body->args[0];
  CHECK(m1->fun == m0->fun);          // the second map: untouched
  CHECK(m1->args[0]->args[0] == m0->args[0]->args[0]);  // A: shared
  CHECK(m1->args[0]->fun != m0->args[0]->fun);          // the first map's lambda: rebuilt
  CHECK(strstr(ir_expr_str(a, root), "zip(row, x)") != NULL);
  char *after = print_program(p);
  CHECK_STR(after, before);  // the old program is unchanged
  CHECK(rw_path_parse("/0/5", &path) && rw_replace(a, p->body, &path, repl) == NULL);
  free(before);
  free(after);
  arena_free(a);
}

/* ---- Non-matching cases ------------------------------------------------------------ */

static bool applies(Arena *a, const char *src, const char *rule, const char *args_text, const char *at) {
  Program *p = parse_src(a, src);
  const Rule *r = rw_rule(rule);
  const AExpr **args = p && r ? args_of(a, args_text, p) : NULL;
  RwPath path;
  if (!args || !rw_path_parse(at, &path) || !rw_at(p->body, &path)) return fprintf(stderr, "bad case\n"), false;
  return r->match(rw_at(p->body, &path), args);
}

#define UF "userfun neg(a: float): float { return -a; }\n"                         \
           "userfun add(a: float, b: float): float { return a + b; }\n"             \
           "userfun sub(a: float, b: float): float { return a - b; }\n"             \
           "userfun iadd(a: int, b: int): int { return b+a; }\n"                    \
           "userfun fmx(a: float, b: float): float { return (fmax(a, b)); }\n"      \
           "userfun madd(acc: float, a: float, b: float): float { return acc + a * b; }\n"

static void test_no_match(void) {
  Arena *a = arena_new();
  const char *v16 = "size N\n" UF "input x: [float]16\ninput y: [float]16\n";
  char src[2048];
#define PROG(body) (snprintf(src, sizeof src, "%sout = %s\n", v16, body), src)
  CHECK(applies(a, PROG("x |> map[neg]"), "split-join", "4", "/"));
  CHECK(!applies(a, PROG("x |> map[neg]"), "split-join", "5", "/"));      // 5 does not divide 16
  CHECK(!applies(a, PROG("x |> map[neg]"), "split-join", "0", "/"));
  CHECK(!applies(a, PROG("x |> mapSeq[neg]"), "split-join", "4", "/"));   // only the high-level map
  CHECK(applies(a, PROG("x |> map[neg]"), "vectorise", "4", "/"));
  CHECK(!applies(a, PROG("x |> map[neg]"), "vectorise", "5", "/"));       // not a vector width
  CHECK(!applies(a, PROG("x |> map[neg]"), "vectorise", "32", "/"));
  CHECK(!applies(a, PROG("zip(x, y) |> map[add]"), "vectorise", "4", "/"));  // add is not float -> float
  CHECK(!applies(a, PROG("x |> map[fun(v) -> neg(v)]"), "vectorise", "4", "/"));
  CHECK(!applies(a, PROG("x |> map[fun(v) -> add(neg(v), v)]"), "map-fission", "", "/"));
  CHECK(!applies(a, PROG("x |> map[fun(v) -> neg(v)]"), "map-fission", "", "/"));
  CHECK(!applies(a, PROG("x |> map[neg] |> mapSeq[neg]"), "map-fusion", "", "/"));  // two kinds
  CHECK(!applies(a, PROG("x |> map[fun(v) -> neg(v)]"), "map-eta", "", "/"));
  CHECK(applies(a, PROG("reduce[add](0.0f, x)"), "partial-reduce", "4", "/"));
  CHECK(!applies(a, PROG("reduce[sub](0.0f, x)"), "partial-reduce", "4", "/"));   // not associative
  CHECK(!applies(a, PROG("reduce[add](0.0f, x)"), "partial-reduce", "3", "/"));
  CHECK(!applies(a, PROG("reduce[fun(acc, p) -> madd(acc, get[0](p), get[1](p))](0.0f, zip(x, y))"),
                 "partial-reduce", "4", "/"));                                    // f: (A, T) -> A
  CHECK(!applies(a, PROG("reduceSeq[add](0.0f, x)"), "partial-reduce", "4", "/"));
  CHECK(applies(a, PROG("reduce[fmx](0.0f, x)"), "partial-reduce", "4", "/"));
  CHECK(!applies(a, PROG("reduce[sub](0.0f, x)"), "reorder-reduce", "4", "/"));
  CHECK(!applies(a, PROG("x |> map[neg]"), "reorder-map", "3", "/"));
  CHECK(applies(a, PROG("x |> slide[3, 1] |> join"), "slide-tiling", "9", "/0"));  // 14 windows, 7 per tile
  CHECK(!applies(a, PROG("x |> slide[3, 1] |> join"), "slide-tiling", "2", "/0"));  // tile below the window
  CHECK(!applies(a, PROG("x |> slide[3, 2] |> join"), "slide-tiling", "6", "/0"));  // (6 - 3) % 2 != 0
  CHECK(!applies(a, PROG("x |> slide[3, 1] |> join"), "slide-tiling", "20", "/0")); // longer than x
  CHECK(!applies(a, PROG("x |> slide[3, 1] |> join"), "slide-tiling", "7", "/0"));  // 5 windows per tile, 14 in all
  CHECK(!applies(a, PROG("x |> map[neg]"), "map-to-glb", "3", "/"));
  CHECK(!applies(a, PROG("x |> mapSeq[neg]"), "map-to-glb", "0", "/"));
  CHECK(!applies(a, PROG("x |> map[neg]"), "reduce-to-seq", "", "/"));
  CHECK(!applies(a, PROG("x |> split[4] |> join"), "to-private", "", "/"));       // a layout primitive
  CHECK(!applies(a, PROG("zip(x, y) |> mapSeq[fun(p) -> p] |> unzip |> get[0]"), "to-local", "", "/0/0"));  // tuples
  CHECK(applies(a, PROG("x |> mapSeq[neg]"), "to-local", "", "/"));
  CHECK(!applies(a, PROG("x |> split[4] |> map[fun(c) -> reduce[add](0.0f, c)]"), "map-reduce-interchange", "",
                 "/"));  // no transpose
  CHECK(applies(a, PROG("x |> split[4] |> transpose |> map[fun(c) -> reduce[add](0.0f, c)]"),
                "map-reduce-interchange", "", "/"));
  CHECK(!applies(a, PROG("let c = x |> map[neg] in zip(c, c) |> map[add]"), "beta", "", "/"));  // used twice
  CHECK(!applies(a, PROG("let c = x |> map[neg] in x |> split[4] |> map[fun(v) -> c] |> join"), "beta", "", "/"));
  CHECK(applies(a, PROG("let c = x |> map[neg] in zip(c, x) |> map[add]"), "beta", "", "/"));
  CHECK(!applies(a, PROG("x |> split[4] |> join |> split[4] |> join"), "split-map", "", "/0"));
  CHECK(!applies(a, PROG("x |> gather[(i, n) -> n - 1 - i]"), "gather-map", "", "/"));
  CHECK(!applies(a, PROG("reduce[add](0.0f, x)"), "reduce-map-fusion", "", "/"));
  CHECK(!applies(a, PROG("x |> split[4] |> transpose |> join"), "reduce-map-interchange", "", "/0"));
#undef PROG
  const char *ints = "size N\n" UF "input k: [int]N\nout = reduce[iadd](0, k)\n";
  CHECK(applies(a, ints, "partial-reduce", "4", "/"));
  CHECK(!applies(a, ints, "vectorise", "4", "/"));
  arena_free(a);
}

/* Every rule on every node of a program: no crash, and a result that
 * type-checks and prints back. With symbolic sizes a rewrite may fail to
 * type-check for a reason that is not the rule's: a tiled length N/n*n is not
 * N in normal form (the arithmetic cannot assume n | N), so a reduction whose
 * accumulator is an array no longer matches its step. Those are counted; with
 * the sizes bound every rewrite must type-check. */
static int symbolic_failures;

static void sweep_program(Arena *a, Program *p, bool bound) {
  int n;
  const Rule *rules = rw_rules(&n);
  const AExpr *two = ax_cst(a, 2), *args[RW_MAX_ARGS] = {two, two, two, two};
  for (int i = 0; i < n; i++) {
    RwPath found[64];
    int k = rw_find(p->body, &rules[i], args, found, 64);
    for (int j = 0; j < k && j < 64; j++) {
      Diag d = {0};
      Program *q = rw_apply(a, p, &rules[i], args, &found[j], &d);
      if (!q && !bound && strstr(d.msg, "ill-typed") && strstr(d.msg, "*")) {
        symbolic_failures++;
        if (getenv("REWRITE_SHOW")) fprintf(stderr, "symbolic: %s\n", d.msg);
        continue;
      }
      if (!q) fprintf(stderr, "%s at %s: %s\n", rules[i].name, rw_path_str(a, &found[j]), d.msg);
      CHECK(q != NULL);
      if (q) {
        char *t = print_program(q);
        CHECK(prints_back(a, t));
        free(t);
      }
    }
  }
}

static void sweep_file(const char *path) {
  Arena *a = arena_new();
  Diag d = {0};
  char *text = file_read(path, NULL, &d);
  Header h = {0};
  if (text) read_header(a, text, &h);
  const char *run = text ? comment_value(a, text, "run") : NULL;
  for (const char *p = run; p && (p = strstr(p, "-p ")) && h.nbind < MAX_BIND; p += 3) {
    const char *eq = strchr(p + 3, '=');
    h.bnames[h.nbind] = arena_strndup(a, p + 3, (size_t)(eq - p - 3));
    h.bvals[h.nbind++] = atoll(eq + 1);
  }
  Program *p = text ? parse_typed(a, path, text, 0, NULL, NULL) : NULL;
  if (p) sweep_program(a, p, false);
  CHECK(p != NULL);
  if (p && p->nsizes > 0 && h.nbind == 0) return free(text), arena_free(a);  // an after file: no sizes to bind
  Program *pb = text ? parse_typed(a, path, text, h.nbind, h.bnames, h.bvals) : NULL;
  if (pb) sweep_program(a, pb, true);
  CHECK(pb != NULL);
  free(text);
  arena_free(a);
}

static void sweep_dir(const char *dirname, const char *suffix) {
  DIR *dir = opendir(dirname);
  CHECK(dir != NULL);
  if (!dir) return;
  for (struct dirent *de; (de = readdir(dir));) {
    size_t len = strlen(de->d_name), sl = strlen(suffix);
    if (len < sl || strcmp(de->d_name + len - sl, suffix) != 0) continue;
    char path[512];
    snprintf(path, sizeof path, "%s%s", dirname, de->d_name);
    sweep_file(path);
  }
  closedir(dir);
}

static void test_sweep(void) {
  sweep_dir("examples/ir/", ".cg");
  sweep_dir(GOLDEN, ".cg");
  printf("sweep: %d rewrites of symbolic programs ill-typed only through N/n*n lengths\n", symbolic_failures);
}

/* ---- rw_apply: messages, parameters ---------------------------------------------- */

static bool bad_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return e->kind == E_CALL;
}

/* map[f](x) => f(x): ill-typed for an array x and a float function f. */
static const Expr *bad_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return ir_call1(a, e->fun->f, e->args[0]);
}

/* map[f](x) => map[fun(y) -> f(y)](y): y used outside its lambda. */
static const Expr *escape_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *y = ir_param(a, "y", NULL);
  const Fun *f = ir_lambda(a, 1, &y, ir_call1(a, e->fun->f, ir_ref(a, y)));
  return ir_call1(a, ir_prim_f(a, P_MAP, f), ir_ref(a, y));
}

static void test_apply_errors(void) {
  Arena *a = arena_new();
  Program *p = parse_src(a, "size N\n" UF "input x: [float]N\nout = x |> map[neg] |> split[4] |> join\n");
  CHECK(p != NULL);
  if (!p) return arena_free(a);
  RwPath at;
  Diag d = {0};
  rw_path_parse("/0", &at);
  CHECK(rw_apply(a, p, rw_rule("map-to-seq"), NULL, &at, &d) == NULL);
  CHECK_STR(d.msg, "rule 'map-to-seq' does not apply at /0 ('(x |> map[neg] |> split[4])')");
  rw_path_parse("/0/0/0/0", &at);
  d = (Diag){0};
  CHECK(rw_apply(a, p, rw_rule("map-to-seq"), NULL, &at, &d) == NULL);
  CHECK_STR(d.msg, "rule 'map-to-seq': no expression at /0/0/0/0");
  d = (Diag){0};
  CHECK(rw_apply(a, p, rw_rule("split-join"), NULL, &at, &d) == NULL);
  CHECK_STR(d.msg, "rule 'split-join' takes 1 argument (n: tile size)");

  Rule bad = {"bad", "map[f](x) => f(x)", 0, {0}, bad_match, bad_build};
  rw_path_parse("/0/0", &at);
  d = (Diag){0};
  CHECK(rw_apply(a, p, &bad, NULL, &at, &d) == NULL);
  CHECK(strncmp(d.msg, "rule 'bad' produced an ill-typed program at /0/0: <test>:", 57) == 0);
  CHECK(strstr(d.msg, "argument 1 of 'neg' (a) is [float]N, expected float") != NULL);
  Rule escape = {"escape", "map[f](x) => map[fun(y) -> f(y)](y)", 0, {0}, bad_match, escape_build};
  d = (Diag){0};
  CHECK(rw_apply(a, p, &escape, NULL, &at, &d) == NULL);
  CHECK_STR(d.msg, "rule 'escape' produced an ill-scoped program at /0/0: 'y' is used outside its lambda");

  // copy brings id: reused when the program's id is the same function (up to
  // blanks and parameter names), refused when it is another one
  Program *same = parse_src(a, "size N\nuserfun id(v: float): float {return  v;}\ninput x: [float]N\nout = x |> split[4] |> join\n");
  Program *other = parse_src(a, "size N\nuserfun id(v: float): float { return v + 1.0f; }\ninput x: [float]N\nout = x |> split[4] |> join\n");
  CHECK(same && other);
  if (same && other) {
    rw_path_parse("/0", &at);
    d = (Diag){0};
    Program *q = rw_apply(a, same, rw_rule("copy"), NULL, &at, &d);
    CHECK(q && q->nufs == 1);
    d = (Diag){0};
    CHECK(rw_apply(a, other, rw_rule("copy"), NULL, &at, &d) == NULL);
    CHECK_STR(d.msg, "rule 'copy' brings a user function 'id' but the program has another of that name");
  }
  arena_free(a);
}

typedef struct Seen {
  int n;
  int ids[256];
  const char *names[256];
} Seen;

static void collect_params(const Expr *e, Seen *s);
static void collect_fun(const Fun *f, Seen *s) {
  for (; f && f->kind == F_PRIM; f = f->f) {}
  if (!f || f->kind != F_LAMBDA) return;
  for (int i = 0; i < f->nparams && s->n < 256; i++, s->n++) {
    s->ids[s->n] = f->params[i]->id;
    s->names[s->n] = f->params[i]->name;
  }
  collect_params(f->body, s);
}
static void collect_params(const Expr *e, Seen *s) {
  if (e->kind != E_CALL) return;
  collect_fun(e->fun, s);
  for (int i = 0; i < e->nargs; i++) collect_params(e->args[i], s);
}

/* Ids unique, within 0 .. nparams_total-1, not those of the inputs; names unique. */
static bool params_unique(const Program *p) {
  Seen s = {0};
  collect_params(p->body, &s);
  for (int i = 0; i < s.n; i++) {
    if (s.ids[i] < 0 || s.ids[i] >= p->nparams_total) return false;
    for (int k = 0; k < p->ninputs; k++)
      if (p->inputs[k]->id == s.ids[i] || strcmp(p->inputs[k]->name, s.names[i]) == 0) return false;
    for (int j = 0; j < i; j++)
      if (s.ids[j] == s.ids[i] || strcmp(s.names[j], s.names[i]) == 0) return false;
  }
  return true;
}

static void test_fresh_params(void) {
  Arena *a = arena_new();
  const char *src = "size N\n" UF "userfun twice(a: float): float { return 2.0f * a; }\n"
                    "input x: [float]N\ninput y2: [float]N\n"
                    "out = zip(x |> map[neg] |> map[twice] |> map[neg], y2) |> map[add]\n";
  Program *p = parse_src(a, src);
  char *before = print_program(p);
  Program *q = apply_str(a, p, "map-fusion", "", "/0/0");
  Program *r = q ? apply_str(a, q, "map-fusion", "", "/0/0") : NULL;
  CHECK(r != NULL);
  if (r) {
    // p has parameters 0 and 1 (x, y2); the first fusion makes id 2, which
    // cannot be named y2 (an input); the second makes id 3
    char *t = print_program(r);
    CHECK(strstr(t, "out = map[add](zip(map[fun(y3) -> let y2_1 = neg(y3) in\n    neg(twice(y2_1))](x), y2))\n"));
    CHECK(prints_back(a, t));
    CHECK(params_unique(r));
    CHECK(r->nparams_total == 4);
    free(t);
  }
  char *again = print_program(p);
  CHECK_STR(again, before);  // the old program is unchanged
  free(again);
  free(before);

  // A lambda parameter that shadows an input is renamed (a rule could move a
  // reference to the input under it); the meaning is kept.
  const char *names[] = {"N", "M"};
  int64_t vals[] = {16, 4};
  Program *s = parse_typed(a, "<shadow>", "size N\n" UF "input x: [float]N\n"
                           "out = x |> split[4] |> map[fun(x) -> x |> map[neg]] |> join\n", 1, names, vals);
  Program *sr = s ? apply_str(a, s, "map-to-seq", "", "/0/1") : NULL;
  CHECK(sr != NULL);
  if (sr) {
    char *t = print_program(sr);
    CHECK(strstr(t, "map[fun(x1) -> mapSeq[neg](x1)]") != NULL);
    CHECK(same_meaning(s, sr, "renamed shadowing parameter"));
    free(t);
  }

  // The interchange copies transpose(x); x holds a lambda, which must not be
  // shared between the two copies.
  const char *mat = "size N, M\n" UF "input A: [[float]M]N\n"
                    "out = A |> map[fun(r) -> r |> map[neg]] |> transpose |> map[fun(col) -> reduce[add](0.0f, col)] "
                    "|> join\n";
  vals[0] = 6;
  Program *m = parse_typed(a, "<mat>", mat, 2, names, vals);
  Program *mi = m ? apply_str(a, m, "map-reduce-interchange", "", "/0") : NULL;
  CHECK(mi != NULL);
  if (mi) {
    CHECK(params_unique(mi));
    CHECK(same_meaning(m, mi, "interchange with a duplicated lambda"));
    char *t = print_program(mi);
    CHECK(prints_back(a, t));
    free(t);
  }
  arena_free(a);
}

/* Fission undoes fusion: the original text comes back. */
static void test_inverse(void) {
  Arena *a = arena_new();
  const char *src = "size N\n" UF "userfun twice(a: float): float { return 2.0f * a; }\n"
                    "input x: [float]N\nout = (x |> mapSeq[neg] |> mapSeq[twice])\n";
  Program *p = parse_src(a, src);
  Program *q = p ? apply_str(a, p, "map-fusion", "", "/") : NULL;
  Program *r = q ? apply_str(a, q, "map-fission", "", "/") : NULL;
  CHECK(r != NULL);
  if (r) {
    char *t = print_program(r);
    CHECK_STR(t, src);
    free(t);
  }
  arena_free(a);
}

/* A tuning parameter that the program does not declare becomes a size of
 * the rewritten program, so that its text parses back. */
static void test_tuning_parameter(void) {
  Arena *a = arena_new();
  Program *p = parse_src(a, "size N\n" UF "input x: [float]N\nout = x |> map[neg]\n");
  const AExpr *tile = ax_var(a, "tile", 1, 64);
  RwPath root = {0};
  Diag d = {0};
  Program *q = p ? rw_apply(a, p, rw_rule("split-join"), (const AExpr *[]){ax_mul(a, tile, ax_cst(a, 2))}, &root, &d)
                 : NULL;
  CHECK(q != NULL);
  if (q) {
    char *t = print_program(q);
    CHECK(strncmp(t, "size N, tile\n", 13) == 0 && strstr(t, "split[tile*2]") != NULL);
    CHECK(prints_back(a, t));
    CHECK(p->nsizes == 1 && q->nsizes == 2);
    free(t);
  }
  arena_free(a);
}

/* ---- Compositions ------------------------------------------------------------------ */

/* 2-D overlapping tiles of the 3x3 stencil (examples/ir/stencil2d.cg), as a
 * composition of the 1-D rule: on the slide over rows (12 x 10 image, padded
 * to 14 x 12: tiles of 6 rows, 4 apart, hold 4 of the 12 row windows), then,
 * after map-eta exposes it, on the slide along each padded row (tiles of 7,
 * 5 apart, hold 5 of the 10 windows). */
static void test_slide_2d(void) {
  Arena *a = arena_new();
  const char *src = "size H, W\n" UF "input img: [[float]W]H\ninput weights: [[float]3]3\n"
                    "out = img |> map[pad[1, 1, 0.0f]] |> pad[1, 1, 0.0f]\n"
                    "  |> map[slide[3, 1]] |> slide[3, 1] |> map[transpose]\n"
                    "  |> map[fun(row) -> row |> map[fun(window) ->\n"
                    "       reduce[fun(acc, p) -> madd(acc, get[0](p), get[1](p))](0.0f, zip(join(window), join(weights)))]\n"
                    "     |> join]\n";
  const char *names[] = {"H", "W"};
  int64_t vals[] = {12, 10};  // padded 14 x 12: 12 x 10 windows
  Program *p = parse_typed(a, "<stencil2d>", src, 2, names, vals);
  CHECK(p != NULL);
  if (!p) return arena_free(a);
  RwPath found[4];
  CHECK(rw_find(p->body, rw_rule("slide-tiling"), (const AExpr *[]){ax_cst(a, 6)}, found, 4) == 1);
  // rows: tiles of 6 padded rows hold 4 windows, 12 % 4 = 0
  Program *q = apply_at(a, p, "slide-tiling", "6", &found[0]);
  // the slide inside map[slide[3, 1]] over the padded rows: expose it, then tile it
  int n = q ? rw_find(q->body, rw_rule("map-eta"), NULL, found, 4) : 0;
  const Expr *e = NULL;
  for (int i = 0; i < n && !e; i++) {
    const Expr *c = rw_at(q->body, &found[i]);
    const Expr *arg = c->args[0];
    if (arg->kind != E_CALL || arg->fun->kind != F_PRIM || arg->fun->prim != P_PAD) continue;
    e = c;
    q = apply_at(a, q, "map-eta", "", &found[i]);
  }
  CHECK(e != NULL);
  n = q ? rw_find(q->body, rw_rule("slide-tiling"), (const AExpr *[]){ax_cst(a, 7)}, found, 4) : 0;
  Program *r = NULL;
  for (int i = 0; i < n && !r; i++)
    if (rw_at(q->body, &found[i])->args[0]->kind == E_PARAM) r = apply_at(a, q, "slide-tiling", "7", &found[i]);
  CHECK(r != NULL);
  if (r) {
    CHECK(same_meaning(p, r, "2-D slide tiling"));
    char *t = print_program(r);
    CHECK(strstr(t, "slide[6, 4]") != NULL && strstr(t, "slide[7, 5]") != NULL);
    free(t);
  }
  arena_free(a);
}

static void test_compile(Arena *a, const Program *p, const char *golden, const char *header) {
  Diag d = {0};
  LProgram *lp = lw_lower(a, p, &d);
  if (!lp) fprintf(stderr, "%s: %s\n", header, d.msg);
  CHECK(lp != NULL);
  if (!lp) return;
  char *src = cg_emit(lp, &CG_OPENCL, header);
  if (getenv("REWRITE_SHOW")) fprintf(stderr, "%s", src);
  CHECK(src && strstr(src, "__kernel") != NULL);
  if (golden) {
    char *want = file_read(golden, NULL, &d);
    CHECK(want != NULL);
    if (want) {
      size_t len = strlen(src);
      bool same = strncmp(want, src, len) == 0 && (want[len] == 0 || (want[len] == '\n' && want[len + 1] == 0));
      if (!same) fprintf(stderr, "%s: kernel differs from %s:\n%s", header, golden, src);
      CHECK(same);
    }
    free(want);
  }
  free(src);
}

/* Programs written with map and reduce, lowered only by rules, compile; the
 * vector add and the matrix-vector product give the examples' exact kernels. */
static void test_lowered_by_rules(void) {
  Arena *a = arena_new();
  const char *names[] = {"N", "M"};
  int64_t vals[] = {4096, 0};
  Program *p = parse_typed(a, "<vadd>", "size N\n" UF "input x: [float]N\ninput y: [float]N\nout = zip(x, y) |> map[add]\n",
                           1, names, vals);
  Program *q = p ? apply_str(a, p, "map-to-glb", "0", "/") : NULL;
  CHECK(q != NULL);
  if (q) test_compile(a, q, "tests/golden/vector_add.cl", "examples/ir/vector_add.cg: N=4096");

  const char *mv = "size N, M\nuserfun madd(acc: float, a: float, b: float): float { return acc + a * b; }\n"
                   "input A: [[float]M]N\ninput x: [float]M\n"
                   "out = A |> map[fun(row) ->\n"
                   "        reduce[fun(acc, p) -> madd(acc, get[0](p), get[1](p))](0.0f, zip(row, x))]\n"
                   "      |> join\n";
  int64_t mvals[] = {512, 384};
  p = parse_typed(a, "<matvec>", mv, 2, names, mvals);
  q = p ? apply_str(a, p, "map-to-glb", "0", "/0") : NULL;
  q = q ? apply_str(a, q, "reduce-to-seq", "", "/0/1") : NULL;
  CHECK(q != NULL);
  if (q) {
    CHECK(same_meaning(p, q, "matvec lowered by rules"));
    test_compile(a, q, "tests/golden/matvec.cl", "examples/ir/matvec.cg: N=512, M=384");
  }

  // vectorised: map[neg] -> float4 -> mapGlb[0]
  p = parse_typed(a, "<vneg>", "size N\n" UF "input x: [float]N\nout = x |> map[neg]\n", 1, names, vals);
  q = p ? apply_str(a, p, "vectorise", "4", "/") : NULL;
  q = q ? apply_str(a, q, "map-to-glb", "0", NULL) : NULL;
  CHECK(q != NULL);
  if (q) {
    CHECK(same_meaning(p, q, "vectorised neg"));
    test_compile(a, q, NULL, "vectorised neg");
  }
  arena_free(a);
}

/* A dot product the S1 way: the sum's elements read with stride, split into
 * partial sums, the products fused into each partial sum, lowered to one
 * work-item per partial sum (neighbouring work-items read neighbouring
 * addresses) and a final sum. Same meaning after every step; the result
 * compiles to those two kernels. */
static void test_dot_product(void) {
  Arena *a = arena_new();
  const char *names[] = {"N"};
  int64_t vals[] = {1024};
  const char *src = "size N\n" UF "userfun mul(a: float, b: float): float { return a * b; }\n"
                    "input x: [float]N\ninput y: [float]N\n"
                    "out = reduce[add](0.0f, zip(x, y) |> map[mul])\n";
  Program *p = parse_typed(a, "<dot>", src, 1, names, vals);
  const char *steps[][3] = {
      {"reorder-reduce", "32", "/"},      // reduce[add](0, gather(map[mul](zip(x, y))))
      {"gather-map", "", "/1"},           // reduce[add](0, map[mul](gather(zip(x, y))))
      {"partial-reduce", "32", "/"},      // reduce[add](0, join(map[fun(c) -> reduce[add](0, c)](split[32](map[mul](...)))))
      {"split-map", "", "/1/0/0"},        // ... map[fun(c) -> ...](map[map[mul]](split[32](...)))
      {"map-fusion", "", "/1/0"},         // map[fun(y) -> let c = map[mul](y) in reduce[add](0, c)]
      {"beta", "", "/1/0/1"},             // map[fun(y) -> reduce[add](0, map[mul](y))]
      {"reduce-map-fusion", "", "/1/0/1"},  // map[fun(y) -> reduce[fun(acc, v) -> add(acc, mul(v))](0, y)]
      {"map-to-glb", "0", "/1/0"},        // one work-item per partial sum
      {"reduce-to-seq", "", "/1/0/1"},    // each partial sum, a loop
      {"reduce-to-seq", "", "/"},         // the final sum
  };
  Program *q = p;
  for (size_t i = 0; i < sizeof steps / sizeof steps[0] && q; i++) {
    q = apply_str(a, q, steps[i][0], steps[i][1], steps[i][2]);
    if (q) CHECK(same_meaning(p, q, steps[i][0]));
  }
  CHECK(q != NULL);
  if (q) {
    char *t = print_program(q);
    if (getenv("REWRITE_SHOW")) fprintf(stderr, "%s", t);
    CHECK(strstr(t, "mapGlb[0, fun(y") != NULL && strstr(t, "add(acc") != NULL && strstr(t, "mul(y") != NULL);
    free(t);
    Diag d = {0};
    LProgram *lp = lw_lower(a, q, &d);
    CHECK(lp != NULL && lp->nkernels == 2);
    if (lp) {
      char *k = cg_emit(lp, &CG_OPENCL, "dot product");
      if (getenv("REWRITE_SHOW")) fprintf(stderr, "%s", k);
      CHECK(strstr(k, "x[gid") != NULL && strstr(k, "*32]") != NULL);  // strided: neighbours read neighbours
      free(k);
    }
  }
  arena_free(a);
}

/* The reduction of a convolution (the form src/conv/program.c writes, here a
 * 2-channel 5x4 image, 3 kernels of 3x3 with bias): the same chain as the dot
 * product at the reduction's position, whose windows are 18 values long:
 * chunks of 6, read with stride, products fused into the partial sums, the
 * bias added once by the final sum. */
static const char *const CONV =
    "userfun mult(x: float, y: float): float { return x * y; }\n"
    "userfun add(x: float, y: float): float { return x + y; }\n"
    "input x: [[[[float]4]5]2]1\n"
    "input weights: [[[[float]3]3]2]3\n"
    "input bias: [float]3\n"
    "out = x |> map[fun(image) ->\n"
    "    let windows = image\n"
    "      |> map[fun(plane) -> plane |> map[pad[1, 1, 0.0f]] |> pad[1, 1, 0.0f]\n"
    "                               |> map[slide[3, 1]] |> slide[3, 1] |> map[transpose]]\n"
    "      |> transpose |> map[transpose] in\n"
    "    zip(weights, bias) |> map[fun(kb) ->\n"
    "      windows |> map[fun(row) -> row |> map[fun(window) ->\n"
    "        reduce[add](get[1](kb), zip(window |> map[join] |> join, get[0](kb) |> map[join] |> join) |> map[mult])]\n"
    "        |> join]]]\n";

static RwPath below(RwPath p, const char *more) {
  RwPath q;
  if (rw_path_parse(more, &q))
    for (int i = 0; i < q.n; i++) p.step[p.n++] = q.step[i];
  return p;
}

static void test_conv_reduction(void) {
  Arena *a = arena_new();
  Program *p = parse_src(a, CONV);
  RwPath at[2];
  CHECK(p && rw_find(p->body, rw_rule("partial-reduce"), (const AExpr *[]){ax_cst(a, 6)}, at, 2) == 1);
  if (!p) return arena_free(a);
  const char *steps[][3] = {
      {"reorder-reduce", "6", "/"}, {"gather-map", "", "/1"},   {"partial-reduce", "6", "/"},
      {"split-map", "", "/1/0/0"},  {"map-fusion", "", "/1/0"}, {"beta", "", "/1/0/1"},
      {"reduce-map-fusion", "", "/1/0/1"},
  };
  Program *q = p;
  for (size_t i = 0; i < sizeof steps / sizeof steps[0] && q; i++) {
    RwPath where = below(at[0], steps[i][2]);
    q = apply_at(a, q, steps[i][0], steps[i][1], &where);
  }
  CHECK(q != NULL);
  if (q) {
    CHECK(same_meaning(p, q, "convolution reduction"));
    char *t = print_program(q);
    if (getenv("REWRITE_SHOW")) fprintf(stderr, "%s", t);
    CHECK(strstr(t, "reduce[add](get[1](kb), ") != NULL);           // the bias, once, in the final sum
    CHECK(strstr(t, "reduce[fun(acc") != NULL && strstr(t, "add(acc") != NULL);  // products fused
    CHECK(strstr(t, "gather[(i, m) -> i/6 + m/6*(i%6)]") != NULL);  // 3 chunks of 6, strided
    free(t);
  }
  arena_free(a);
}

/* The rules' wider forms, each applied where it matches and checked to keep
 * the meaning: zip-map-fusion on a zip of three (a grouped layer's windows
 * zipped with the weights and biases of its groups, taken apart by get[i]),
 * and windows-column-patches on one split of a row's windows (a work-item's
 * RW windows, no tile around them: dw's patch). */
static void test_wider_forms(void) {
  Arena *a = arena_new();
  const char *zip3 = "size N\n" UF "input A: [float]N\ninput B: [float]N\ninput C: [float]N\n"
                     "out = zip(A |> map[fun(v) -> madd(v, v, v)], B, C) |> map[fun(t) -> madd(get[0](t), get[1](t), get[2](t))]\n";
  const char *cols = "size U, W\ninput q: [[[float]W]U]1\n"
                     "out = q |> map[fun(plane) -> plane |> map[slide[3, 2]] |> slide[3, 1] |> map[transpose]] |> transpose\n"
                     "  |> map[transpose] |> map[fun(r) -> r |> split[3]] |> transpose\n";
  struct {
    const char *what, *src, *rule, *want;
    int nbind;
    const char *names[2];
    int64_t vals[2];
  } cases[] = {
      {"zip-map-fusion on three", zip3, "zip-map-fusion", "zip(A, B, C)", 1, {"N"}, {7}},
      {"windows-column-patches on one split", cols, "windows-column-patches", "slide[7, 6]", 2, {"U", "W"}, {4, 13}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    Program *p = parse_typed(a, cases[i].what, cases[i].src, cases[i].nbind, cases[i].names, cases[i].vals);
    CHECK(p != NULL);
    RwPath at[2];
    int n = p ? rw_find(p->body, rw_rule(cases[i].rule), NULL, at, 2) : 0;
    if (n != 1) fprintf(stderr, "%s: %d positions\n", cases[i].what, n);
    CHECK(n == 1);
    Program *q = n == 1 ? apply_at(a, p, cases[i].rule, "", &at[0]) : NULL;
    CHECK(q != NULL);
    if (!q) continue;
    CHECK(same_meaning(p, q, cases[i].what));
    char *t = print_program(q);
    if (!strstr(t, cases[i].want)) fprintf(stderr, "%s: no '%s' in\n%s\n", cases[i].what, cases[i].want, t);
    CHECK(strstr(t, cases[i].want) != NULL);
    free(t);
  }
  arena_free(a);
}

int main(void) {
  test_table();
  test_golden();
  test_children();
  test_find();
  test_replace();
  test_no_match();
  test_sweep();
  test_apply_errors();
  test_fresh_params();
  test_tuning_parameter();
  test_inverse();
  test_slide_2d();
  test_wider_forms();
  test_lowered_by_rules();
  test_dot_product();
  test_conv_reduction();
  TEST_MAIN_END();
}
