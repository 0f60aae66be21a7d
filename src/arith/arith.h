/* arith.h: symbolic integer arithmetic for array sizes and indices.
 *
 * An AExpr is an immutable integer expression: constants, variables with a
 * range, sums, products, floor division, modulo, min, max, comparisons and
 * conditionals. Constructors normalise on construction (flatten sums and
 * products, fold constants, order terms canonically, distribute constant and
 * variable products over sums) and simplify with ranges: for 0 <= j < n,
 * (i*n + j) / n -> i and (i*n + j) % n -> j; (x/c)*c + x%c -> x.
 * All index arithmetic in convgen is over non-negative values, which is what
 * makes those rules sound; the simplifier only applies a rule when the ranges
 * prove its side conditions.
 *
 * Nodes live in the Arena they were made in. Equal expressions built in the same
 * arena are structurally equal (ax_equal), and ax_print gives the same text for
 * them; the text is valid C and parses back with ax_parse.
 */
#ifndef CONVGEN_ARITH_H
#define CONVGEN_ARITH_H

#include "util/util.h"

#define AX_INF INT64_MAX   // "no upper bound" in a range
#define AX_NEG_INF INT64_MIN

typedef enum AKind {
  AX_CST,  // integer constant
  AX_VAR,  // named variable with range [lo, hi] (inclusive)
  AX_ADD,  // n-ary sum, n >= 2
  AX_MUL,  // n-ary product, n >= 2
  AX_DIV,  // floor division a / b (b > 0)
  AX_MOD,  // a % b (b > 0, a >= 0)
  AX_MIN,  // min(a, b)
  AX_MAX,  // max(a, b)
  AX_LT,   // a < b  (1 or 0)
  AX_LE,   // a <= b
  AX_EQ,   // a == b
  AX_AND,  // a && b
  AX_SEL,  // a ? b : c
} AKind;

typedef struct AExpr AExpr;
struct AExpr {
  AKind kind;
  int64_t cst;          // AX_CST: the value
  const char *name;     // AX_VAR: the name (a C identifier)
  int64_t lo, hi;       // AX_VAR: inclusive range; AX_NEG_INF / AX_INF when unbounded
  int n;                // number of operands in ops
  const AExpr **ops;    // operands (2 for binary kinds, 3 for AX_SEL, n for ADD/MUL)
};
/* For every kind, lo/hi also hold the node's range (what ax_range returns),
 * computed once at construction. A sum lists its terms with the constant last;
 * a product lists its factors with the constant coefficient last. / and % are
 * floor division and the matching modulo (the result takes the divisor's sign)
 * in folding and ax_eval; C's / and % agree on the values convgen produces
 * (numerator >= 0, divisor > 0), and every rewrite keeps that agreement (splitting
 * a numerator into q*d + r needs ranges to prove r >= 0). Constant folding wraps
 * on int64 overflow; ax_eval reports it. */

/* Constructors (all normalise and simplify). */
const AExpr *ax_cst(Arena *a, int64_t v);
const AExpr *ax_var(Arena *a, const char *name, int64_t lo, int64_t hi);
const AExpr *ax_size_var(Arena *a, const char *name);   // a size: range [1, AX_INF]
const AExpr *ax_add(Arena *a, const AExpr *x, const AExpr *y);
const AExpr *ax_sub(Arena *a, const AExpr *x, const AExpr *y);
const AExpr *ax_mul(Arena *a, const AExpr *x, const AExpr *y);
const AExpr *ax_div(Arena *a, const AExpr *x, const AExpr *y);
const AExpr *ax_mod(Arena *a, const AExpr *x, const AExpr *y);
const AExpr *ax_ceildiv(Arena *a, const AExpr *x, const AExpr *y);  // (x + y - 1) / y
const AExpr *ax_min(Arena *a, const AExpr *x, const AExpr *y);
const AExpr *ax_max(Arena *a, const AExpr *x, const AExpr *y);
const AExpr *ax_lt(Arena *a, const AExpr *x, const AExpr *y);
const AExpr *ax_le(Arena *a, const AExpr *x, const AExpr *y);
const AExpr *ax_eq(Arena *a, const AExpr *x, const AExpr *y);
const AExpr *ax_and(Arena *a, const AExpr *x, const AExpr *y);   // NULL x or y means "true"
/* ax_and returns the other operand when one is NULL (so NULL for two NULLs: a
 * guard accumulated from NULL stays NULL until a real condition comes); its
 * operands keep their order, since && short-circuits. */
const AExpr *ax_sel(Arena *a, const AExpr *c, const AExpr *x, const AExpr *y);

/* Queries. */
bool ax_is_cst(const AExpr *e, int64_t *v);          // true (and *v) when e is a constant
void ax_range(const AExpr *e, int64_t *lo, int64_t *hi);  // sound bounds from variable ranges
bool ax_equal(const AExpr *x, const AExpr *y);       // structural equality of normal forms
bool ax_prove_lt(const AExpr *x, const AExpr *y);    // true only if x < y for all values in range
bool ax_prove_le(const AExpr *x, const AExpr *y);
bool ax_prove_divisible(const AExpr *x, const AExpr *d);  // x % d == 0 provably

/* Substitute: every variable named names[i] becomes vals[i]; the result is re-simplified. */
const AExpr *ax_subst(Arena *a, const AExpr *e, int n, const char *const *names, const AExpr *const *vals);
/* Evaluate with every variable bound; false (and a Diag naming the variable, or
 * the division by zero) when a variable is unbound or the value is undefined. */
bool ax_eval(const AExpr *e, int n, const char *const *names, const int64_t *vals, int64_t *out, Diag *d);
/* Collect the distinct variable names in e, in first-seen order; returns the count
 * (at most max are stored). */
int ax_vars(const AExpr *e, const char **names, int max);
/* ax_vars returns the number of distinct names, which may exceed max; the names
 * point into the expression's arena. */

/* Text. ax_print writes C syntax with minimal parentheses: "i*4 + j", "(n + 3)/4",
 * "min(a, b)", "(c ? x : y)". ax_parse reads that syntax back (integers, identifiers,
 * + - * / %, min(), max(), parentheses, <, <=, ==, &&, ?:); an identifier is
 * resolved through lookup (which returns the variable node or NULL for unknown
 * names, reported as "unknown size variable 'x'"). *end is set past the parsed text. */
void ax_print(StrBuf *sb, const AExpr *e);
const char *ax_str(Arena *a, const AExpr *e);
typedef const AExpr *(*AxLookup)(void *ctx, const char *name);
const AExpr *ax_parse(Arena *a, const char *text, const char **end, AxLookup lookup, void *ctx, Diag *d);
/* ax_parse stops at the first character that cannot continue the expression
 * (']' or ',' at depth 0, "->", a comment) and sets *end there, past trailing
 * spaces. With end NULL the whole text must be the expression. On error it
 * returns NULL with the message in d and, when end is given, *end at the
 * offending character. Printing, parsing and printing again gives the same text. */

#endif
