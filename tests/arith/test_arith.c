/* test_arith.c: the symbolic arithmetic (src/arith).
 *
 * Hand-written cases for the normal form, the range rules, printing and
 * parsing, then a randomized property test: random expression trees over a few
 * ranged variables are evaluated by a small independent evaluator (floor
 * division, the reference) and built through the simplifying constructors; the
 * simplified expression must agree at random points within the ranges, and so
 * must its C reading (truncating / and %) whenever the reference only divided
 * non-negative numbers, which is what the emitted kernels rely on.
 */
#include "arith/arith.h"
#include "test.h"

#include <stdlib.h>

static Arena *A;  // everything made by the hand-written cases

/* ---- Helpers ----------------------------------------------------------------------- */

static const AExpr *C(int64_t v) { return ax_cst(A, v); }
static const char *S(const AExpr *e) { return e ? ax_str(A, e) : "(null)"; }
static const AExpr *add(const AExpr *x, const AExpr *y) { return ax_add(A, x, y); }
static const AExpr *sub(const AExpr *x, const AExpr *y) { return ax_sub(A, x, y); }
static const AExpr *mul(const AExpr *x, const AExpr *y) { return ax_mul(A, x, y); }
static const AExpr *dv(const AExpr *x, const AExpr *y) { return ax_div(A, x, y); }
static const AExpr *md(const AExpr *x, const AExpr *y) { return ax_mod(A, x, y); }

// The variables the hand-written cases use, also what parsing resolves names to.
static const AExpr *I, *J, *J4, *K, *X, *N, *M, *T, *B;

static const AExpr *lookup(void *ctx, const char *name) {
  (void)ctx;
  const AExpr *all[] = {I, J, J4, K, X, N, M, T, B};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (strcmp(all[i]->name, name) == 0) return all[i];
  return NULL;
}

static void make_vars(void) {
  I = ax_var(A, "i", 0, 100);
  J = ax_var(A, "j", 0, 7);
  J4 = ax_var(A, "j4", 0, 3);
  K = ax_var(A, "k", 0, 7);
  X = ax_var(A, "x", 0, AX_INF);
  N = ax_size_var(A, "n");         // [1, inf): nothing below it is provably smaller
  M = ax_var(A, "m", 8, AX_INF);   // a symbolic size known to exceed j
  T = ax_var(A, "t", -2, 2);       // may be negative
  B = ax_var(A, "b", 0, 1);
}

static const AExpr *P(const char *text) {
  Diag d = {0};
  return ax_parse(A, text, NULL, lookup, NULL, &d);
}

static const char *parse_error(const char *text) {
  static Diag d;
  memset(&d, 0, sizeof d);
  const AExpr *e = ax_parse(A, text, NULL, lookup, NULL, &d);
  return e ? "(parsed)" : d.set ? d.msg : "(no message)";
}

static bool contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

/* ---- Normal form -------------------------------------------------------------------- */

static void test_canonical(void) {
  const AExpr *a = add(mul(I, C(4)), J);
  const AExpr *b = add(J, mul(C(4), I));
  const AExpr *c = add(add(J, mul(I, C(2))), mul(C(2), I));
  CHECK_STR(S(a), "i*4 + j");
  CHECK_STR(S(b), "i*4 + j");
  CHECK_STR(S(c), "i*4 + j");
  CHECK(ax_equal(a, b) && ax_equal(b, c));

  const AExpr *p = mul(add(I, N), add(J, C(1)));
  const AExpr *q = mul(add(C(1), J), add(N, I));
  CHECK_STR(S(p), S(q));
  CHECK_STR(S(p), "i + i*j + j*n + n");
  CHECK_STR(S(add(N, C(-1))), "n - 1");
  CHECK_STR(S(sub(C(3), I)), "3 - i");
  CHECK_STR(S(sub(J, I)), "j - i");
  CHECK_STR(S(sub(sub(C(3), I), J)), "3 - i - j");
  CHECK_STR(S(sub(add(N, C(3)), I)), "n - i + 3");
  CHECK_STR(S(mul(C(-1), I)), "-i");
  CHECK_STR(S(mul(I, C(-4))), "-i*4");
  CHECK_STR(S(sub(mul(C(-4), I), J)), "-i*4 - j");
  CHECK_STR(S(mul(mul(N, I), mul(J, C(3)))), "i*j*n*3");
  CHECK_STR(S(mul(C(-1), dv(X, C(4)))), "-(x/4)");
  CHECK_STR(S(sub(C(0), mul(dv(X, C(4)), C(3)))), "-(x/4)*3");
  CHECK_STR(S(mul(I, dv(X, C(4)))), "i*(x/4)");
}

static void test_folding(void) {
  CHECK_STR(S(add(C(2), mul(C(3), C(4)))), "14");
  CHECK_STR(S(dv(C(7), C(2))), "3");
  CHECK_STR(S(dv(C(-7), C(2))), "-4");   // floor division
  CHECK_STR(S(md(C(-7), C(2))), "1");    // the modulo takes the divisor's sign
  CHECK_STR(S(dv(C(7), C(-2))), "-4");
  CHECK_STR(S(md(C(7), C(-2))), "-1");
  CHECK_STR(S(add(mul(C(2), I), mul(C(3), I))), "i*5");
  CHECK_STR(S(sub(I, I)), "0");
  CHECK_STR(S(add(I, C(0))), "i");
  CHECK_STR(S(mul(I, C(1))), "i");
  CHECK_STR(S(mul(I, C(0))), "0");
  CHECK_STR(S(mul(add(mul(I, N), J), C(4))), "i*n*4 + j*4");
  CHECK_STR(S(mul(add(I, C(1)), sub(I, C(1)))), "i*i - 1");
  CHECK_STR(S(sub(mul(add(I, J), C(2)), mul(C(2), J))), "i*2");
  // Folding wraps instead of overflowing (the sanitizer build checks there is no UB).
  CHECK_STR(S(add(C(INT64_MAX), C(1))), "(-9223372036854775807 - 1)");
  CHECK_STR(S(mul(C(INT64_MIN), C(-1))), "(-9223372036854775807 - 1)");
  CHECK_STR(S(dv(C(INT64_MIN), C(-1))), "(-9223372036854775807 - 1)");
  CHECK_STR(S(md(C(INT64_MIN), C(-1))), "0");
}

/* ---- Division and modulo ------------------------------------------------------------- */

static void test_div_mod(void) {
  // Constant divisor: j in [0, 7].
  const AExpr *x8 = add(mul(I, C(8)), J);
  CHECK_STR(S(dv(x8, C(8))), "i");
  CHECK_STR(S(md(x8, C(8))), "j");
  // Symbolic divisor m in [8, inf): j < m is provable.
  const AExpr *xm = add(mul(I, M), J);
  CHECK_STR(S(dv(xm, M)), "i");
  CHECK_STR(S(md(xm, M)), "j");
  // A size n in [1, inf): j < n is not provable, the multiple still comes out.
  const AExpr *xn = add(mul(I, N), J);
  CHECK_STR(S(dv(xn, N)), "i + j/n");
  CHECK_STR(S(md(xn, N)), "j%n");
  CHECK_STR(S(dv(mul(I, N), N)), "i");
  CHECK_STR(S(md(mul(mul(I, N), C(3)), N)), "0");
  // j4 in [0, 3].
  const AExpr *x4 = add(mul(I, C(4)), J4);
  CHECK_STR(S(dv(x4, C(4))), "i");
  CHECK_STR(S(md(x4, C(4))), "j4");
  CHECK_STR(S(dv(x4, C(2))), "i*2 + j4/2");
  CHECK_STR(S(md(x4, C(2))), "j4%2");
  CHECK_STR(S(dv(mul(x4, C(3)), C(4))), "i*3 + j4*3/4");
  CHECK_STR(S(dv(mul(x4, C(3)), C(8))), "(i*12 + j4*3)/8");
  // Recombination.
  CHECK_STR(S(add(mul(dv(X, C(4)), C(4)), md(X, C(4)))), "x");
  CHECK_STR(S(add(md(X, C(4)), mul(C(4), dv(X, C(4))))), "x");
  CHECK_STR(S(add(mul(mul(dv(X, C(4)), C(4)), C(3)), mul(C(3), md(X, C(4))))), "x*3");
  CHECK_STR(S(add(mul(mul(dv(X, C(4)), C(4)), I), mul(I, md(X, C(4))))), "i*x");
  CHECK_STR(S(add(mul(dv(X, N), N), md(X, N))), "x");
  CHECK_STR(S(add(add(mul(dv(X, C(4)), C(4)), J), md(X, C(4)))), "j + x");
  CHECK_STR(S(add(mul(dv(X, C(4)), C(8)), md(X, C(4)))), "x/4*8 + x%4");
  // Chains.
  CHECK_STR(S(dv(dv(X, C(4)), C(8))), "x/32");
  CHECK_STR(S(dv(dv(X, N), C(2))), "x/(n*2)");
  CHECK_STR(S(dv(add(dv(X, C(4)), C(1)), C(2))), "(x + 4)/8");
  CHECK_STR(S(dv(add(dv(X, C(4)), I), N)), "(i*4 + x)/(n*4)");
  CHECK_STR(S(md(md(X, C(32)), C(8))), "x%8");
  CHECK_STR(S(md(md(X, C(8)), C(32))), "x%8");
  CHECK_STR(S(md(md(X, mul(N, C(4))), N)), "x%n");
  CHECK_STR(S(md(md(X, N), N)), "x%n");
  CHECK_STR(S(dv(md(X, C(4)), C(4))), "0");
  CHECK_STR(S(dv(md(X, N), N)), "0");
  CHECK_STR(S(dv(md(X, C(4)), C(8))), "0");
  // Constants in the numerator.
  CHECK_STR(S(dv(add(mul(I, C(4)), C(5)), C(4))), "i + 1");
  CHECK_STR(S(dv(sub(mul(I, C(4)), C(1)), C(4))), "i - 1");
  CHECK_STR(S(dv(add(X, C(7)), C(4))), "(x + 7)/4");
  CHECK_STR(S(md(add(X, C(5)), C(4))), "(x + 1)%4");
  CHECK_STR(S(md(add(X, C(4)), C(4))), "x%4");
  CHECK_STR(S(ax_ceildiv(A, N, C(4))), "(n + 3)/4");
  CHECK_STR(S(ax_ceildiv(A, mul(N, C(4)), C(4))), "n");
  // Coefficients reduced modulo a constant divisor (for a division, only when that removes it).
  CHECK_STR(S(dv(mul(J4, C(9)), C(8))), "j4");
  CHECK_STR(S(md(mul(J4, C(9)), C(8))), "j4");
  CHECK_STR(S(md(add(mul(J, C(9)), C(2)), C(8))), "(j + 2)%8");
  CHECK_STR(S(md(mul(J, C(10)), C(8))), "j%4*2");
  CHECK_STR(S(md(sub(mul(I, C(8)), J), C(8))), "j*7%8");
  CHECK_STR(S(md(sub(mul(I, C(8)), T), C(8))), "(i*8 - t)%8");  // t may be positive or negative
  CHECK_STR(S(dv(sub(mul(I, C(8)), J), C(8))), "(i*8 - j)/8");
  // Common factors.
  CHECK_STR(S(dv(add(mul(I, C(4)), mul(J, C(2))), C(8))), "(i*2 + j)/4");
  CHECK_STR(S(md(add(mul(I, C(4)), mul(J, C(2))), C(8))), "(i*2 + j)%4*2");
  // A factor k of the divisor: (k*q + r)/(k*m) => q/m and (k*q + r)%(k*m) => k*(q%m) + r when 0 <= r < k.
  const AExpr *x24 = add(mul(I, C(8)), J4);
  CHECK_STR(S(dv(x24, C(24))), "i/3");
  CHECK_STR(S(md(x24, C(24))), "j4 + i%3*8");
  CHECK_STR(S(dv(md(x24, C(24)), C(8))), "i%3");
  CHECK_STR(S(dv(add(x24, C(4)), C(24))), "i/3");
  CHECK_STR(S(dv(add(mul(I, C(8)), J), C(24))), "i/3");
  CHECK_STR(S(dv(add(mul(I, C(8)), add(J, C(1))), C(24))), "(i*8 + j + 1)/24");   // j + 1 may reach 8
  CHECK_STR(S(dv(add(mul(I, C(8)), T), C(24))), "(i*8 + t)/24");                 // t may be negative
  // Trivial cases, and those the ranges cannot decide.
  CHECK_STR(S(dv(X, C(1))), "x");
  CHECK_STR(S(md(X, C(1))), "0");
  CHECK_STR(S(dv(X, X)), "x/x");    // x may be 0
  CHECK_STR(S(dv(N, N)), "1");
  CHECK_STR(S(md(N, N)), "0");
  CHECK_STR(S(dv(J, C(8))), "0");
  CHECK_STR(S(md(J, C(8))), "j");
  CHECK_STR(S(dv(J, M)), "0");
  CHECK_STR(S(dv(X, C(0))), "x/0");  // left for ax_eval to report
  CHECK_STR(S(dv(add(mul(I, C(4)), T), C(4))), "(i*4 + t)/4");  // t may be negative
  CHECK_STR(S(dv(X, C(-2))), "x/-2");
}

static void test_min_max_cmp(void) {
  CHECK_STR(S(ax_min(A, K, M)), "k");
  CHECK_STR(S(ax_max(A, K, M)), "m");
  CHECK_STR(S(ax_min(A, I, J)), "min(i, j)");
  CHECK_STR(S(ax_min(A, J, I)), "min(i, j)");
  CHECK_STR(S(ax_max(A, J, I)), "max(i, j)");
  CHECK_STR(S(ax_min(A, I, add(I, C(1)))), "i");
  CHECK_STR(S(ax_max(A, md(X, N), N)), "n");
  CHECK_STR(S(ax_lt(A, K, M)), "1");
  CHECK_STR(S(ax_lt(A, M, K)), "0");
  CHECK_STR(S(ax_le(A, K, C(7))), "1");
  CHECK_STR(S(ax_lt(A, K, C(7))), "k < 7");
  CHECK_STR(S(ax_lt(A, md(X, N), N)), "1");
  CHECK_STR(S(ax_le(A, md(X, N), sub(N, C(1)))), "1");
  CHECK_STR(S(ax_eq(A, K, C(9))), "0");
  CHECK_STR(S(ax_eq(A, I, I)), "1");
  CHECK_STR(S(ax_eq(A, C(0), I)), "i == 0");
  CHECK_STR(S(ax_eq(A, J, I)), "i == j");
  CHECK_STR(S(ax_eq(A, C(1), ax_lt(A, I, N))), "i < n");
  const AExpr *lt7 = ax_lt(A, K, C(7));
  CHECK_STR(S(ax_and(A, lt7, C(1))), "k < 7");
  CHECK_STR(S(ax_and(A, ax_lt(A, K, M), lt7)), "k < 7");
  CHECK_STR(S(ax_and(A, lt7, C(0))), "0");
  CHECK(ax_and(A, NULL, lt7) == lt7 && ax_and(A, lt7, NULL) == lt7 && !ax_and(A, NULL, NULL));
  CHECK_STR(S(ax_and(A, lt7, ax_lt(A, I, N))), "k < 7 && i < n");
  CHECK_STR(S(ax_and(A, C(1), I)), "1 && i");  // && yields 0 or 1, i need not
  CHECK_STR(S(ax_sel(A, C(1), I, J)), "i");
  CHECK_STR(S(ax_sel(A, C(0), I, J)), "j");
  CHECK_STR(S(ax_sel(A, ax_lt(A, M, K), I, J)), "j");
  CHECK_STR(S(ax_sel(A, lt7, I, I)), "i");
  CHECK_STR(S(ax_sel(A, lt7, I, J)), "(k < 7 ? i : j)");
  CHECK_STR(S(add(ax_sel(A, lt7, I, J), C(1))), "(k < 7 ? i : j) + 1");
  CHECK_STR(S(mul(lt7, C(4))), "(k < 7)*4");
}

static void check_range(const AExpr *e, int64_t lo, int64_t hi) {
  int64_t l, h;
  ax_range(e, &l, &h);
  CHECK(l == lo && h == hi);
  if (l != lo || h != hi)
    fprintf(stderr, "  range of %s: [%lld, %lld], want [%lld, %lld]\n", S(e), (long long)l, (long long)h,
            (long long)lo, (long long)hi);
}

static void test_range(void) {
  check_range(add(mul(I, C(4)), J4), 0, 403);
  check_range(mul(X, C(4)), 0, AX_INF);
  check_range(mul(X, C(-1)), AX_NEG_INF, 0);
  check_range(sub(I, X), AX_NEG_INF, 100);
  check_range(mul(X, T), AX_NEG_INF, AX_INF);
  check_range(mul(C(INT64_MAX / 2), I), 0, AX_INF);  // saturates
  check_range(mul(C(INT64_MIN / 2), add(I, C(1))), AX_NEG_INF, INT64_MIN / 2);
  check_range(dv(X, N), 0, AX_INF);
  check_range(dv(I, N), 0, 100);
  check_range(dv(sub(I, C(50)), C(4)), -13, 12);
  check_range(md(X, C(4)), 0, 3);
  check_range(md(I, N), 0, 100);
  check_range(md(I, M), 0, 100);
  check_range(md(T, C(4)), 0, 3);
  check_range(md(X, C(-4)), -3, 0);
  check_range(ax_min(A, I, X), 0, 100);
  check_range(ax_max(A, T, J), 0, 7);
  check_range(ax_lt(A, I, N), 0, 1);
  check_range(ax_sel(A, ax_lt(A, I, N), T, K), -2, 7);
  check_range(dv(I, T), AX_NEG_INF, AX_INF);  // t may be 0
  CHECK(ax_prove_lt(J, M) && !ax_prove_lt(J, N) && ax_prove_le(J, C(7)) && !ax_prove_lt(J, C(7)));
  CHECK(ax_prove_lt(md(X, N), N) && ax_prove_le(I, add(I, B)) && !ax_prove_lt(I, add(I, B)));
  CHECK(ax_prove_divisible(mul(I, C(8)), C(4)) && !ax_prove_divisible(mul(I, C(2)), C(4)));
  CHECK(ax_prove_divisible(add(mul(I, N), mul(N, J)), N) && !ax_prove_divisible(add(mul(I, N), J), N));
  CHECK(ax_prove_divisible(C(12), C(4)) && !ax_prove_divisible(X, C(0)) && ax_prove_divisible(X, C(1)));
}

/* ---- Substitution, evaluation, variables -------------------------------------------- */

static void test_subst_eval(void) {
  const AExpr *e = dv(add(mul(I, N), J), N);
  const char *names[] = {"n"};
  const AExpr *vals[] = {C(8)};
  CHECK_STR(S(ax_subst(A, e, 1, names, vals)), "i");
  const AExpr *vals2[] = {add(N, C(8))};
  CHECK_STR(S(ax_subst(A, md(add(mul(I, N), J), N), 1, names, vals2)), "j");
  CHECK(ax_subst(A, e, 0, NULL, NULL) == e);

  const char *vn[] = {"i", "j", "n", "x", "k"};
  int64_t vv[] = {3, 2, 5, 17, 0};
  int64_t out = 0;
  Diag d = {0};
  CHECK(ax_eval(add(mul(I, C(4)), J), 5, vn, vv, &out, &d) && out == 14);
  CHECK(ax_eval(e, 5, vn, vv, &out, &d) && out == 3);
  CHECK(ax_eval(P("(x < 20 ? x%n : 0) + min(i, j)*max(i, j)"), 5, vn, vv, &out, &d) && out == 8);
  CHECK(!d.set);
  CHECK(!ax_eval(add(I, T), 5, vn, vv, &out, &d));
  CHECK_STR(d.msg, "unknown size variable 't'");
  Diag d2 = {0};
  CHECK(!ax_eval(dv(X, K), 5, vn, vv, &out, &d2));
  CHECK_STR(d2.msg, "division by zero in 'x/k'");
  Diag d3 = {0};
  CHECK(!ax_eval(add(md(I, K), C(1)), 5, vn, vv, &out, &d3));
  CHECK_STR(d3.msg, "division by zero in 'i%k'");
  Diag d4 = {0};
  CHECK(!ax_eval(dv(X, C(0)), 5, vn, vv, &out, &d4) && contains(d4.msg, "division by zero"));
  Diag d5 = {0};  // && and ?: short-circuit, as in C
  CHECK(ax_eval(ax_and(A, ax_lt(A, X, K), ax_lt(A, dv(X, K), C(2))), 5, vn, vv, &out, &d5) && out == 0);
  CHECK(ax_eval(ax_sel(A, ax_eq(A, K, C(0)), C(7), dv(X, K)), 5, vn, vv, &out, &d5) && out == 7);
  Diag d6 = {0};
  int64_t big[] = {INT64_MAX, 0, 1, 1, 0};
  CHECK(!ax_eval(mul(I, C(2)), 5, vn, big, &out, &d6) && contains(d6.msg, "overflow"));

  const char *got[8];
  CHECK(ax_vars(add(mul(I, N), J), got, 8) == 3);
  CHECK_STR(got[0], "i");
  CHECK_STR(got[1], "n");
  CHECK_STR(got[2], "j");
  CHECK(ax_vars(add(mul(I, N), mul(J, I)), got, 1) == 3);
  CHECK_STR(got[0], "i");
  CHECK(ax_vars(C(3), got, 8) == 0);
}

/* ---- Text ------------------------------------------------------------------------------ */

static void test_round_trip(void) {
  static const char *const canon[] = {
      "i*4 + j",
      "i*n*4 + j*4 + 3",
      "(n + 3)/4",
      "n - i - 1",
      "3 - i",
      "-i*4 - j",
      "-i",
      "7 - x/4*3",
      "-i - x/4*3",
      "-(x/4)*3",
      "x/4*8 + x%4",
      "i*(x/4)",
      "x%(n*2)",
      "(x + 7)/4",
      "x/(n + 1)",
      "x/-2",
      "(i*2 + j)%4*2",
      "min(i, j)",
      "min(i, x/2) + max(i, j)",
      "(k < 7 ? i : j)",
      "(k < 7 && i < n ? i + 1 : (k == 1 ? j : 0))",
      "i < 10",
      "i <= n - 1",
      "k < 7 && i < n",
      "i + (k < 7)*4",
      "i == j",
      "b == (x < n)",
      "1 && i",
      "-i/4",
      "(-9223372036854775807 - 1)",
      "i*(-9223372036854775807 - 1) + j",
      "i*9223372036854775807",
      "t - (t - 1)/3*2",
  };
  for (size_t i = 0; i < sizeof canon / sizeof *canon; i++) CHECK_STR(S(P(canon[i])), canon[i]);

  static const char *const other[][2] = {
      {"4*i + j", "i*4 + j"},
      {"  j + i * 4  ", "i*4 + j"},
      {"((i))", "i"},
      {"i - -1", "i + 1"},
      {"-(-i)", "i"},
      {"+i", "i"},
      {"n > i", "i < n"},
      {"n >= i", "i <= n"},
      {"(i*n + j)/n + (i*n + j)%n", "i + j/n + j%n"},
      {"(i*m + j)/m", "i"},
      {"x/4*4 + x%4", "x"},
      {"min(j, 100)", "j"},
      {"x/4/8", "x/32"},
  };
  for (size_t i = 0; i < sizeof other / sizeof *other; i++) CHECK_STR(S(P(other[i][0])), other[i][1]);

  // With end, parsing stops where the expression cannot go on.
  const char *end = NULL;
  Diag d = {0};
  const char *text = "i + 1] rest";
  CHECK_STR(S(ax_parse(A, text, &end, lookup, NULL, &d)), "i + 1");
  CHECK(end == text + 5);
  text = " min(i, j) , 4";
  CHECK(ax_parse(A, text, &end, lookup, NULL, &d) && *end == ',');
  text = "n -> [float]n";
  CHECK(ax_parse(A, text, &end, lookup, NULL, &d) && end == text + 2);
  text = "n/4 // a comment";
  CHECK_STR(S(ax_parse(A, text, &end, lookup, NULL, &d)), "n/4");
  CHECK(end == text + 4);
  text = "n << 2";
  CHECK_STR(S(ax_parse(A, text, &end, lookup, NULL, &d)), "n");
  CHECK(end == text + 2);
  CHECK(!d.set);
}

static void test_parse_errors(void) {
  CHECK_STR(parse_error("i + q"), "unknown size variable 'q'");
  CHECK_STR(parse_error("i + 1"), "(parsed)");
  Diag d = {0};
  CHECK(!ax_parse(A, "n", NULL, NULL, NULL, &d));
  CHECK_STR(d.msg, "unknown size variable 'n'");
  CHECK_STR(parse_error("i +"), "expected an expression after 'i +'");
  CHECK_STR(parse_error("i * "), "expected an expression after 'i *'");
  CHECK_STR(parse_error("(i + 1"), "expected ')' after '(i + 1'");
  CHECK_STR(parse_error("i + 1)"), "unexpected ')' after 'i + 1'");
  CHECK_STR(parse_error(""), "expected an expression");
  CHECK_STR(parse_error("   "), "expected an expression");
  CHECK_STR(parse_error("min(i j)"), "expected ',' after 'min(i'");
  CHECK_STR(parse_error("b ? i"), "expected ':' after 'b ? i'");
  CHECK(contains(parse_error("99999999999999999999"), "integer constant 99999999999999999999 is too large"));
  CHECK(contains(parse_error("i = 1"), "unexpected '='"));
  const char *end = NULL;
  Diag d2 = {0};
  const char *text = "i + (j * )";
  CHECK(!ax_parse(A, text, &end, lookup, NULL, &d2) && end == text + 9);
  CHECK(contains(d2.msg, "expected an expression"));

  // Hostile nesting is an error, not a stack overflow.
  enum { DEEP = 100000 };
  char *deep = malloc(2 * DEEP + 2);
  for (int i = 0; i < DEEP; i++) deep[i] = '(';
  deep[DEEP] = 'i';
  for (int i = 0; i < DEEP; i++) deep[DEEP + 1 + i] = ')';
  deep[2 * DEEP + 1] = 0;
  CHECK(contains(parse_error(deep), "nested too deeply"));
  memset(deep, '-', DEEP);
  CHECK(contains(parse_error(deep), "nested too deeply"));
  free(deep);
}

/* ---- Randomized property test ------------------------------------------------------------ */

enum {
  R_CST, R_VAR, R_ADD, R_SUB, R_MUL, R_NEG, R_DIV, R_MOD,
  R_CEIL, R_MIN, R_MAX, R_LT, R_LE, R_EQ, R_AND, R_SEL,
};

typedef struct RNode {
  int op;               // R_*
  int64_t v;            // R_CST: the value; R_VAR: the variable's index
  struct RNode *k[3];   // operands
} RNode;

static const struct {
  const char *name;
  int64_t lo, hi;
} RVARS[] = {
    {"i", 0, 9}, {"j", 0, 3}, {"k", 0, 40}, {"n", 1, 6}, {"w", 4, 7}, {"s", -6, 6},
};
enum { NRVARS = sizeof RVARS / sizeof *RVARS };

#ifndef RANDOM_SEED
#define RANDOM_SEED 0x9E3779B97F4A7C15u
#endif
#ifndef RANDOM_TREES
#define RANDOM_TREES 6000
#endif
static uint64_t rng_state = RANDOM_SEED;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static int rnd(int n) { return (int)(rng() % (uint64_t)n); }

static RNode *rnode(Arena *a, int op, RNode *x, RNode *y, RNode *z) {
  RNode *r = ARENA_NEW(a, RNode);
  r->op = op;
  r->k[0] = x;
  r->k[1] = y;
  r->k[2] = z;
  return r;
}

static RNode *rleaf(Arena *a, int op, int64_t v) {
  RNode *r = rnode(a, op, NULL, NULL, NULL);
  r->v = v;
  return r;
}

static RNode *gen(Arena *a, int depth);

// Mostly small positive constants and sizes, sometimes anything (zero, negative).
static RNode *gen_divisor(Arena *a, int depth) {
  switch (rnd(10)) {
  case 0: case 1: case 2: case 3: return rleaf(a, R_CST, 1 + rnd(8));
  case 4: return rleaf(a, R_VAR, 3);  // n
  case 5: return rleaf(a, R_VAR, 4);  // w
  case 6: {
    RNode *k = rleaf(a, R_CST, 2 + rnd(3));  // one call per statement: argument order is unspecified
    return rnode(a, R_MUL, k, rleaf(a, R_VAR, 3 + rnd(2)), NULL);
  }
  default: return gen(a, depth - 1);
  }
}

// x / d or x % d, half the time with x = q*d + r, the shape that views produce.
static RNode *gen_div(Arena *a, int op, int depth) {
  RNode *d = gen_divisor(a, depth);
  RNode *x = gen(a, depth - 1);
  if (rnd(2)) x = rnode(a, R_ADD, rnode(a, R_MUL, x, d, NULL), gen(a, depth - 2), NULL);
  if (rnd(4) == 0) x = rnode(a, R_ADD, x, rleaf(a, R_CST, rnd(9)), NULL);
  return rnode(a, op, x, d, NULL);
}

static RNode *gen(Arena *a, int depth) {
  if (depth <= 0 || rnd(6) == 0)
    return rnd(3) ? rleaf(a, R_VAR, rnd(NRVARS)) : rleaf(a, R_CST, rnd(15) - 3);
  int op = R_ADD + rnd(R_SEL - R_ADD + 4);
  if (op > R_SEL) op = rnd(2) ? R_DIV : R_MOD;  // extra weight: the part that matters
  if (op == R_DIV || op == R_MOD || op == R_CEIL) return gen_div(a, op, depth);
  RNode *x = gen(a, depth - 1), *y = gen(a, depth - 1);
  return rnode(a, op, x, y, op == R_SEL ? gen(a, depth - 1) : NULL);
}

static bool r_add(int64_t x, int64_t y, int64_t *r) {
  if ((y > 0 && x > INT64_MAX - y) || (y < 0 && x < INT64_MIN - y)) return false;
  return *r = x + y, true;
}

// Small operands only: anything near the int64 limits counts as undefined.
static bool r_mul(int64_t x, int64_t y, int64_t *r) {
  const int64_t lim = INT64_C(3037000499);  // floor(sqrt(INT64_MAX))
  if (x > lim || x < -lim || y > lim || y < -lim) return false;
  return *r = x * y, true;
}

static int64_t r_floor_div(int64_t x, int64_t y) {
  int64_t q = x / y;
  return (x % y != 0 && (x < 0) != (y < 0)) ? q - 1 : q;
}

/* The reference: floor semantics, && and ?: short-circuit. False when undefined
 * (division by zero, overflow). *plain stays true while every division seen had
 * a numerator >= 0 and a divisor > 0, where C's / and % agree with floor. */
static bool reval(const RNode *r, const int64_t *vals, bool *plain, int64_t *out) {
  int64_t x = 0, y = 0, z = 0;
  switch (r->op) {
  case R_CST: return *out = r->v, true;
  case R_VAR: return *out = vals[r->v], true;
  case R_AND:
    if (!reval(r->k[0], vals, plain, &x)) return false;
    if (x && !reval(r->k[1], vals, plain, &y)) return false;
    return *out = x && y, true;
  case R_SEL:
    if (!reval(r->k[0], vals, plain, &x)) return false;
    return reval(r->k[x ? 1 : 2], vals, plain, out);
  case R_NEG: return reval(r->k[0], vals, plain, &x) && r_mul(x, -1, out);
  default: break;
  }
  if (!reval(r->k[0], vals, plain, &x) || !reval(r->k[1], vals, plain, &y)) return false;
  switch (r->op) {
  case R_ADD: return r_add(x, y, out);
  case R_SUB: return r_mul(y, -1, &z) && r_add(x, z, out);
  case R_MUL: return r_mul(x, y, out);
  case R_CEIL:
    if (y == 0 || !r_add(x, y - 1, &x)) return false;
    // fallthrough
  case R_DIV:
  case R_MOD:
    if (y == 0 || (x == INT64_MIN && y == -1)) return false;
    if (x < 0 || y < 0) *plain = false;
    *out = r_floor_div(x, y);
    if (r->op == R_MOD) *out = x - *out * y;
    return true;
  case R_MIN: return *out = x < y ? x : y, true;
  case R_MAX: return *out = x > y ? x : y, true;
  case R_LT: return *out = x < y, true;
  case R_LE: return *out = x <= y, true;
  case R_EQ: return *out = x == y, true;
  default: return false;
  }
}

// The same tree through the constructors; mirror swaps commutative operands.
static const AExpr *rbuild(Arena *a, const RNode *r, const AExpr *const *vars, bool mirror) {
  if (r->op == R_CST) return ax_cst(a, r->v);
  if (r->op == R_VAR) return vars[r->v];
  const AExpr *x = rbuild(a, r->k[0], vars, mirror);
  if (r->op == R_NEG) return ax_mul(a, ax_cst(a, -1), x);
  const AExpr *y = rbuild(a, r->k[1], vars, mirror);
  const AExpr *p = mirror ? y : x, *q = mirror ? x : y;
  switch (r->op) {
  case R_ADD: return ax_add(a, p, q);
  case R_SUB: return ax_sub(a, x, y);
  case R_MUL: return ax_mul(a, p, q);
  case R_DIV: return ax_div(a, x, y);
  case R_MOD: return ax_mod(a, x, y);
  case R_CEIL: return ax_ceildiv(a, x, y);
  case R_MIN: return ax_min(a, p, q);
  case R_MAX: return ax_max(a, p, q);
  case R_LT: return ax_lt(a, x, y);
  case R_LE: return ax_le(a, x, y);
  case R_EQ: return ax_eq(a, p, q);
  case R_AND: return ax_and(a, x, y);
  case R_SEL: return ax_sel(a, x, y, rbuild(a, r->k[2], vars, mirror));
  default: return NULL;
  }
}

static void rprint(StrBuf *sb, const RNode *r) {
  static const char *const names[] = {"", "", "+", "-", "*", "neg", "/", "%",
                                      "ceildiv", "min", "max", "<", "<=", "==", "&&", "?"};
  if (r->op == R_CST) sb_printf(sb, "%lld", (long long)r->v);
  else if (r->op == R_VAR) sb_puts(sb, RVARS[r->v].name);
  else {
    sb_printf(sb, "(%s", names[r->op]);
    for (int i = 0; i < 3 && r->k[i]; i++) {
      sb_putc(sb, ' ');
      rprint(sb, r->k[i]);
    }
    sb_putc(sb, ')');
  }
}

// The emitted C reading of an expression: truncating / and %.
static bool ceval(const AExpr *e, const int64_t *vals, int64_t *out) {
  int64_t x = 0, y = 0;
  switch (e->kind) {
  case AX_CST: return *out = e->cst, true;
  case AX_VAR:
    for (int i = 0; i < NRVARS; i++)
      if (strcmp(RVARS[i].name, e->name) == 0) return *out = vals[i], true;
    return false;
  case AX_ADD:
  case AX_MUL:
    *out = e->kind == AX_MUL;
    for (int i = 0; i < e->n; i++)
      if (!ceval(e->ops[i], vals, &x) || !(e->kind == AX_ADD ? r_add(*out, x, out) : r_mul(*out, x, out)))
        return false;
    return true;
  case AX_AND:
    if (!ceval(e->ops[0], vals, &x)) return false;
    if (x && !ceval(e->ops[1], vals, &y)) return false;
    return *out = x && y, true;
  case AX_SEL:
    if (!ceval(e->ops[0], vals, &x)) return false;
    return ceval(e->ops[x ? 1 : 2], vals, out);
  default: break;
  }
  if (!ceval(e->ops[0], vals, &x) || !ceval(e->ops[1], vals, &y)) return false;
  switch (e->kind) {
  case AX_DIV: return y != 0 && !(x == INT64_MIN && y == -1) && (*out = x / y, true);
  case AX_MOD: return y != 0 && y != -1 && (*out = x % y, true);
  case AX_MIN: return *out = x < y ? x : y, true;
  case AX_MAX: return *out = x > y ? x : y, true;
  case AX_LT: return *out = x < y, true;
  case AX_LE: return *out = x <= y, true;
  case AX_EQ: return *out = x == y, true;
  default: return false;
  }
}

static const char *rnames[NRVARS];
static const AExpr *rvars[NRVARS];

static const AExpr *rlookup(void *ctx, const char *name) {
  (void)ctx;
  for (int i = 0; i < NRVARS; i++)
    if (strcmp(rnames[i], name) == 0) return rvars[i];
  return NULL;
}

// Every sub-expression's value lies within its cached range.
static bool ranges_hold(const AExpr *e, const int64_t *vals) {
  int64_t v, lo, hi;
  Diag d = {0};
  ax_range(e, &lo, &hi);
  if (ax_eval(e, NRVARS, rnames, vals, &v, &d) && (v < lo || v > hi)) return false;
  for (int i = 0; i < e->n; i++)
    if (!ranges_hold(e->ops[i], vals)) return false;
  return true;
}

typedef struct Stats {
  int trees, points, checked_c, bad_order, bad_text, bad_value, bad_c, bad_range, bad_subst;
} Stats;

static void report(int *count, const char *what, Arena *a, const RNode *r, const AExpr *e,
                   const int64_t *vals) {
  if ((*count)++ >= 3) return;  // the first few are enough to debug
  StrBuf sb;
  sb_init(&sb);
  rprint(&sb, r);
  fprintf(stderr, "random: %s\n  tree: %s\n  simplified: %s\n", what, sb_str(&sb), ax_str(a, e));
  if (vals) {
    fprintf(stderr, "  at");
    for (int i = 0; i < NRVARS; i++) fprintf(stderr, " %s=%lld", rnames[i], (long long)vals[i]);
    fprintf(stderr, "\n");
  }
  sb_free(&sb);
}

static void check_point(Stats *st, Arena *a, const RNode *r, const AExpr *e, const int64_t *vals) {
  bool plain = true;
  int64_t want, got;
  if (!reval(r, vals, &plain, &want)) return;  // undefined there: nothing to compare
  st->points++;
  Diag d = {0};
  if (!ax_eval(e, NRVARS, rnames, vals, &got, &d) || got != want) {
    report(&st->bad_value, d.set ? d.msg : "value differs from the reference", a, r, e, vals);
    return;
  }
  if (plain) {
    st->checked_c++;
    if (!ceval(e, vals, &got) || got != want) report(&st->bad_c, "C reading differs", a, r, e, vals);
  }
  if (!ranges_hold(e, vals)) report(&st->bad_range, "a range does not hold", a, r, e, vals);
  const AExpr *cs[NRVARS];
  for (int i = 0; i < NRVARS; i++) cs[i] = ax_cst(a, vals[i]);
  const AExpr *s = ax_subst(a, e, NRVARS, rnames, cs);
  if (!ax_is_cst(s, &got) || got != want) report(&st->bad_subst, "substitution does not fold", a, r, e, vals);
}

static void check_tree(Stats *st, const RNode *r, Arena *a) {
  const AExpr *e = rbuild(a, r, rvars, false);
  const char *text = ax_str(a, e);
  if (strcmp(text, ax_str(a, rbuild(a, r, rvars, true))) != 0)
    report(&st->bad_order, arena_printf(a, "operands swapped give %s", ax_str(a, rbuild(a, r, rvars, true))),
           a, r, e, NULL);
  Diag d = {0};
  const AExpr *back = ax_parse(a, text, NULL, rlookup, NULL, &d);
  if (!back || strcmp(ax_str(a, back), text) != 0 || !ax_equal(back, e))
    report(&st->bad_text, arena_printf(a, "printed and parsed back: %s", back ? ax_str(a, back) : d.msg),
           a, r, e, NULL);
  for (int p = 0; p < 16; p++) {
    int64_t vals[NRVARS];
    for (int i = 0; i < NRVARS; i++) vals[i] = RVARS[i].lo + rnd((int)(RVARS[i].hi - RVARS[i].lo + 1));
    check_point(st, a, r, e, vals);
  }
}

static void test_random(void) {
  Stats st = {0};
  for (int t = 0; t < RANDOM_TREES; t++) {
    Arena *a = arena_new();
    for (int i = 0; i < NRVARS; i++) {
      rvars[i] = ax_var(a, RVARS[i].name, RVARS[i].lo, RVARS[i].hi);
      rnames[i] = RVARS[i].name;
    }
    check_tree(&st, gen(a, 1 + rnd(5)), a);
    st.trees++;
    arena_free(a);
  }
  printf("random: %d trees, %d points compared (%d also in C reading)\n", st.trees, st.points, st.checked_c);
  CHECK(st.points > 20000 && st.checked_c > 5000);
  CHECK(st.bad_order == 0);
  CHECK(st.bad_text == 0);
  CHECK(st.bad_value == 0);
  CHECK(st.bad_c == 0);
  CHECK(st.bad_range == 0);
  CHECK(st.bad_subst == 0);
}

/* Joined splits fold back: a flat index taken apart by two nested splits and
 * put together again is the index itself. */
static void test_join_of_splits(void) {
  const AExpr *inner = add(mul(dv(md(I, C(15)), C(5)), C(5)), md(I, C(5)));
  CHECK_STR(S(inner), "i%15");
  CHECK_STR(S(add(mul(dv(I, C(15)), C(15)), inner)), "i");
  // not when the inner divisor does not divide the outer modulus
  CHECK(strcmp(S(add(mul(dv(md(I, C(14)), C(5)), C(5)), md(I, C(5)))), "i%14") != 0);
}

int main(void) {
  A = arena_new();
  make_vars();
  test_canonical();
  test_folding();
  test_div_mod();
  test_min_max_cmp();
  test_range();
  test_subst_eval();
  test_round_trip();
  test_parse_errors();
  test_join_of_splits();
  test_random();
  arena_free(A);
  TEST_MAIN_END();
}
