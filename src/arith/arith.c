/* arith.c: symbolic integer arithmetic for sizes and indices (see arith.h).
 *
 * Every constructor returns a normal form, so that equal expressions compare
 * equal and print the same. A sum is a flat list of terms c*f1*...*fk whose
 * monomials f1*...*fk are distinct, sorted by a total order on expressions, the
 * constant last; a product is flat, already distributed over sums, its factors
 * sorted and its constant coefficient last ("i*n*4"). DIV and MOD are simplified
 * with ranges: every node caches in lo/hi sound bounds on its value (floor
 * division, saturating at AX_INF / AX_NEG_INF), so a rule reads the bounds of its
 * operands in O(1) and applies only when they prove its side condition.
 *
 * The main invariant: the operands of a node are normal forms and its lo/hi
 * bound every value it can take. This module is the bottom of the pipeline:
 * array lengths in types, index expressions in views, loop bounds and the
 * constraints of the parameter space are all made of these nodes.
 *
 * Semantics: / and % are floor division and the matching modulo (the result
 * takes the divisor's sign), which is what constant folding and ax_eval use.
 * The emitted C uses / and %, which agree whenever the numerator is >= 0 and the
 * divisor > 0; that is why a rule that splits a numerator into q*d + r demands
 * that ranges prove r >= 0. Constant folding wraps on int64 overflow (through
 * uint64_t, never signed overflow); ax_eval reports overflow instead.
 */
#include "arith/arith.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Integers ------------------------------------------------------------------ */

static bool add_ovf(int64_t x, int64_t y, int64_t *r) {
  if ((y > 0 && x > INT64_MAX - y) || (y < 0 && x < INT64_MIN - y)) return true;
  *r = x + y;
  return false;
}

static bool mul_ovf(int64_t x, int64_t y, int64_t *r) {
  bool ovf;
  if (x == 0 || y == 0) ovf = false;
  else if (x > 0) ovf = y > 0 ? x > INT64_MAX / y : y < INT64_MIN / x;
  else ovf = y > 0 ? x < INT64_MIN / y : y < INT64_MAX / x;
  if (!ovf) *r = x * y;
  return ovf;
}

static int64_t wrap_add(int64_t x, int64_t y) { return (int64_t)((uint64_t)x + (uint64_t)y); }
static int64_t wrap_mul(int64_t x, int64_t y) { return (int64_t)((uint64_t)x * (uint64_t)y); }

// y != 0. Dividing by -1 is a negation, the one case where C's / can overflow.
static int64_t floor_div(int64_t x, int64_t y) {
  if (y == -1) return wrap_mul(x, -1);
  int64_t q = x / y;
  return (x % y != 0 && (x < 0) != (y < 0)) ? q - 1 : q;
}

static int64_t floor_mod(int64_t x, int64_t y) {
  if (y == 1 || y == -1) return 0;
  int64_t r = x % y;
  return (r != 0 && (r < 0) != (y < 0)) ? r + y : r;
}

static uint64_t magnitude(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

static uint64_t gcd_u64(uint64_t x, uint64_t y) {
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x;
}

static int cmp_i64(int64_t x, int64_t y) { return (x > y) - (x < y); }
static int64_t min_i64(int64_t x, int64_t y) { return x < y ? x : y; }
static int64_t max_i64(int64_t x, int64_t y) { return x > y ? x : y; }

/* ---- Range bounds ----------------------------------------------------------------
 * A bound is an int64 where AX_INF and AX_NEG_INF stand for the infinities;
 * arithmetic on bounds saturates to them instead of overflowing. */

static bool is_inf(int64_t v) { return v == AX_INF || v == AX_NEG_INF; }
static int64_t neg_bound(int64_t v) { return v == AX_INF ? AX_NEG_INF : v == AX_NEG_INF ? AX_INF : -v; }

// `wins` is the infinity that dominates: AX_NEG_INF for lower bounds, AX_INF for upper.
static int64_t add_bound(int64_t x, int64_t y, int64_t wins) {
  if (x == wins || y == wins) return wins;
  if (is_inf(x)) return x;
  if (is_inf(y)) return y;
  int64_t r;
  if (add_ovf(x, y, &r)) return y > 0 ? AX_INF : AX_NEG_INF;
  return r;
}

// 0 times an infinite bound is 0: the value it bounds is finite.
static int64_t mul_bound(int64_t x, int64_t y) {
  if (x == 0 || y == 0) return 0;
  int64_t sat = (x < 0) != (y < 0) ? AX_NEG_INF : AX_INF, r;
  if (is_inf(x) || is_inf(y) || mul_ovf(x, y, &r)) return sat;
  return r;
}

static void range_mul(int64_t al, int64_t ah, int64_t bl, int64_t bh, int64_t *lo, int64_t *hi) {
  int64_t c[4] = {mul_bound(al, bl), mul_bound(al, bh), mul_bound(ah, bl), mul_bound(ah, bh)};
  *lo = *hi = c[0];
  for (int i = 1; i < 4; i++) {
    *lo = min_i64(*lo, c[i]);
    *hi = max_i64(*hi, c[i]);
  }
}

// floor(v / d) for a bound v and a divisor bound d >= 1.
static int64_t div_bound(int64_t v, int64_t d) {
  if (is_inf(v)) return v;
  if (d == AX_INF) return v >= 0 ? 0 : -1;
  return floor_div(v, d);
}

// floor(x/d) grows with x; in d it falls for x >= 0 and rises for x < 0.
static void range_div_pos(int64_t xl, int64_t xh, int64_t dl, int64_t dh, int64_t *lo, int64_t *hi) {
  *lo = div_bound(xl, xl >= 0 ? dh : dl);
  *hi = div_bound(xh, xh >= 0 ? dl : dh);
}

static void range_div(const AExpr *x, const AExpr *d, int64_t *lo, int64_t *hi) {
  if (d->lo >= 1) {
    range_div_pos(x->lo, x->hi, d->lo, d->hi, lo, hi);
  } else if (d->hi <= -1) {  // x / d == (-x) / (-d)
    range_div_pos(neg_bound(x->hi), neg_bound(x->lo), neg_bound(d->hi), neg_bound(d->lo), lo, hi);
  } else {
    *lo = AX_NEG_INF;
    *hi = AX_INF;
  }
}

// x % d lies in [0, d) for d > 0 and in (d, 0] for d < 0.
static void range_mod(const AExpr *x, const AExpr *d, int64_t *lo, int64_t *hi) {
  int64_t top = d->hi == AX_INF ? AX_INF : d->hi - 1;
  int64_t bottom = d->lo == AX_NEG_INF ? AX_NEG_INF : d->lo + 1;
  if (d->lo >= 1 && x->lo >= 0 && x->hi < d->lo) {  // x % d == x
    *lo = x->lo;
    *hi = x->hi;
  } else if (d->lo >= 1) {
    *lo = 0;
    *hi = x->lo >= 0 ? min_i64(x->hi, top) : top;
  } else if (d->hi <= -1) {
    *lo = bottom;
    *hi = 0;
  } else {
    *lo = min_i64(bottom, 0);
    *hi = max_i64(top, 0);
  }
}

static void set_range(AExpr *e) {
  const AExpr *x = e->n > 0 ? e->ops[0] : NULL, *y = e->n > 1 ? e->ops[1] : NULL;
  switch (e->kind) {
  case AX_CST:
  case AX_VAR: break;  // set by their constructors
  case AX_ADD:
    e->lo = e->hi = 0;
    for (int i = 0; i < e->n; i++) {
      e->lo = add_bound(e->lo, e->ops[i]->lo, AX_NEG_INF);
      e->hi = add_bound(e->hi, e->ops[i]->hi, AX_INF);
    }
    break;
  case AX_MUL:
    e->lo = e->hi = 1;
    for (int i = 0; i < e->n; i++) range_mul(e->lo, e->hi, e->ops[i]->lo, e->ops[i]->hi, &e->lo, &e->hi);
    break;
  case AX_DIV: range_div(x, y, &e->lo, &e->hi); break;
  case AX_MOD: range_mod(x, y, &e->lo, &e->hi); break;
  case AX_MIN:
    e->lo = min_i64(x->lo, y->lo);
    e->hi = min_i64(x->hi, y->hi);
    break;
  case AX_MAX:
    e->lo = max_i64(x->lo, y->lo);
    e->hi = max_i64(x->hi, y->hi);
    break;
  case AX_LT:
  case AX_LE:
  case AX_EQ:
  case AX_AND:
    e->lo = 0;
    e->hi = 1;
    break;
  case AX_SEL:
    e->lo = min_i64(e->ops[1]->lo, e->ops[2]->lo);
    e->hi = max_i64(e->ops[1]->hi, e->ops[2]->hi);
    break;
  }
}

/* ---- Nodes and their order ----------------------------------------------------- */

const AExpr *ax_cst(Arena *a, int64_t v) {
  AExpr *e = ARENA_NEW(a, AExpr);
  e->kind = AX_CST;
  e->cst = e->lo = e->hi = v;
  return e;
}

/* The one place that allocates operator nodes; callers pass normal forms. A node
 * whose range is a single value is that value wherever it is defined (x % (i == j)
 * is 0 or undefined), so it becomes a constant; not sums and products, whose
 * terms and factors sum_node assembles in place. */
static const AExpr *new_node(Arena *a, AKind kind, int n, const AExpr *const *ops) {
  AExpr *e = ARENA_NEW(a, AExpr);
  e->kind = kind;
  e->n = n;
  e->ops = ARENA_ARRAY(a, const AExpr *, n);
  for (int i = 0; i < n; i++) e->ops[i] = ops[i];
  set_range(e);
  bool point = e->lo == e->hi && !is_inf(e->lo) && kind != AX_ADD && kind != AX_MUL;
  return point ? ax_cst(a, e->lo) : e;
}

static const AExpr *new_bin(Arena *a, AKind kind, const AExpr *x, const AExpr *y) {
  const AExpr *ops[2] = {x, y};
  return new_node(a, kind, 2, ops);
}

static bool is_ident(const char *s) {
  if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return false;
  return true;
}

const AExpr *ax_var(Arena *a, const char *name, int64_t lo, int64_t hi) {
  cg_assert(name && is_ident(name) && lo <= hi);
  AExpr *e = ARENA_NEW(a, AExpr);
  e->kind = AX_VAR;
  e->name = arena_strdup(a, name);
  e->lo = lo;
  e->hi = hi;
  return e;
}

const AExpr *ax_size_var(Arena *a, const char *name) { return ax_var(a, name, 1, AX_INF); }

static int cmp(const AExpr *x, const AExpr *y);

static int cmp_list(const AExpr *const *x, int nx, const AExpr *const *y, int ny) {
  for (int i = 0; i < nx && i < ny; i++) {
    int c = cmp(x[i], y[i]);
    if (c) return c;
  }
  return cmp_i64(nx, ny);
}

// A total order on normal forms: by kind, then value, name or operands.
static int cmp(const AExpr *x, const AExpr *y) {
  if (x == y) return 0;
  if (x->kind != y->kind) return cmp_i64(x->kind, y->kind);
  switch (x->kind) {
  case AX_CST: return cmp_i64(x->cst, y->cst);
  case AX_VAR: {
    int c = strcmp(x->name, y->name);
    if (c) return c < 0 ? -1 : 1;
    c = cmp_i64(x->lo, y->lo);
    return c ? c : cmp_i64(x->hi, y->hi);
  }
  default: return cmp_list(x->ops, x->n, y->ops, y->n);
  }
}

bool ax_equal(const AExpr *x, const AExpr *y) { return cmp(x, y) == 0; }

bool ax_is_cst(const AExpr *e, int64_t *v) {
  if (e->kind != AX_CST) return false;
  if (v) *v = e->cst;
  return true;
}

static bool is_cst_val(const AExpr *e, int64_t v) { return e->kind == AX_CST && e->cst == v; }

void ax_range(const AExpr *e, int64_t *lo, int64_t *hi) {
  *lo = e->lo;
  *hi = e->hi;
}

/* ---- Terms: the sum-of-products normal form --------------------------------------
 * A term is c * f[0] * ... * f[nf-1]; the constant term has nf == 0. Factors are
 * never sums, products or constants, and are sorted by cmp. */

typedef struct Term {
  int64_t c;               // coefficient, never 0 in a normal form
  int nf;                  // number of factors; 0 for the constant term
  const AExpr *const *f;   // the factors, sorted
} Term;

typedef struct TermVec {
  Arena *a;  // where the array grows
  Term *t;   // the terms
  int n;     // used
  int cap;   // allocated
} TermVec;

static void push(TermVec *v, Term t) {
  if (v->n == v->cap) {
    int cap = v->cap ? 2 * v->cap : 8;
    Term *nt = ARENA_ARRAY(v->a, Term, cap);
    if (v->n) memcpy(nt, v->t, sizeof *nt * (size_t)v->n);
    v->t = nt;
    v->cap = cap;
  }
  v->t[v->n++] = t;
}

// slot must outlive the term: a lone factor is pointed to, not copied.
static Term term_of(const AExpr *const *slot) {
  const AExpr *e = *slot;
  if (e->kind == AX_CST) return (Term){e->cst, 0, NULL};
  if (e->kind != AX_MUL) return (Term){1, 1, slot};
  const AExpr *last = e->ops[e->n - 1];
  if (last->kind == AX_CST) return (Term){last->cst, e->n - 1, e->ops};
  return (Term){1, e->n, e->ops};
}

static void push_terms(TermVec *v, const AExpr *e) {
  if (e->kind == AX_ADD) {
    for (int i = 0; i < e->n; i++) push(v, term_of(&e->ops[i]));
    return;
  }
  const AExpr **slot = ARENA_NEW(v->a, const AExpr *);
  *slot = e;
  push(v, term_of(slot));
}

static int term_order(const void *p, const void *q) {
  const Term *x = p, *y = q;
  if (!x->nf || !y->nf) return cmp_i64(!x->nf, !y->nf);  // the constant last
  return cmp_list(x->f, x->nf, y->f, y->nf);
}

static void combine_like_terms(TermVec *v) {
  if (v->n > 1) qsort(v->t, (size_t)v->n, sizeof *v->t, term_order);
  int k = 0;
  for (int i = 0; i < v->n; i++) {
    if (k > 0 && term_order(&v->t[k - 1], &v->t[i]) == 0) v->t[k - 1].c = wrap_add(v->t[k - 1].c, v->t[i].c);
    else v->t[k++] = v->t[i];
  }
  v->n = 0;
  for (int i = 0; i < k; i++)
    if (v->t[i].c != 0) v->t[v->n++] = v->t[i];
}

static const AExpr *term_node(Arena *a, Term t) {
  if (t.nf == 0 || t.c == 0) return ax_cst(a, t.nf ? 0 : t.c);
  if (t.nf == 1 && t.c == 1) return t.f[0];
  const AExpr **ops = ARENA_ARRAY(a, const AExpr *, t.nf + 1);
  memcpy(ops, t.f, sizeof *ops * (size_t)t.nf);
  int n = t.nf;
  if (t.c != 1) ops[n++] = ax_cst(a, t.c);
  return new_node(a, AX_MUL, n, ops);
}

static const AExpr *sum_node(Arena *a, const TermVec *v) {
  if (v->n == 0) return ax_cst(a, 0);
  if (v->n == 1) return term_node(a, v->t[0]);
  const AExpr **ops = ARENA_ARRAY(a, const AExpr *, v->n);
  for (int i = 0; i < v->n; i++) ops[i] = term_node(a, v->t[i]);
  return new_node(a, AX_ADD, v->n, ops);
}

static Term term_mul(Arena *a, Term x, Term y) {
  const AExpr **f = ARENA_ARRAY(a, const AExpr *, x.nf + y.nf);
  int i = 0, j = 0, n = 0;
  while (i < x.nf || j < y.nf)
    f[n++] = (j == y.nf || (i < x.nf && cmp(x.f[i], y.f[j]) <= 0)) ? x.f[i++] : y.f[j++];
  return (Term){wrap_mul(x.c, y.c), n, f};
}

// t without its factor i, as an expression.
static const AExpr *term_without(Arena *a, Term t, int i) {
  const AExpr **f = ARENA_ARRAY(a, const AExpr *, t.nf);
  int n = 0;
  for (int j = 0; j < t.nf; j++)
    if (j != i) f[n++] = t.f[j];
  return term_node(a, (Term){t.c, n, f});
}

static void remove_term(TermVec *v, int i) {
  v->t[i] = v->t[--v->n];
}

/* The index of a factor y/d of t whose numerator y is x itself or x%M for a
 * constant M that d divides (then x%d is y%d), or -1. */
static int find_div_of(Term t, const AExpr *x, const AExpr *d) {
  int64_t dv, mv;
  for (int i = 0; i < t.nf; i++) {
    const AExpr *f = t.f[i];
    if (f->kind != AX_DIV || !ax_equal(f->ops[1], d)) continue;
    const AExpr *y = f->ops[0];
    if (ax_equal(y, x)) return i;
    if (y->kind == AX_MOD && ax_equal(y->ops[0], x) && ax_is_cst(d, &dv) && dv > 0 && ax_is_cst(y->ops[1], &mv) &&
        mv % dv == 0)
      return i;
  }
  return -1;
}

/* "k*(y/d)*d + k*(x%d) => k*y" where y is x, or x%M with d dividing M (so
 * that x%d = y%d): true for floor division whatever the signs. The second
 * form lets joined splits fold back: (i%15)/5*5 + i%5 => i%15. One pair per
 * call: the caller combines like terms again in between. The result can
 * depend on how a sum was grouped: (x/4*4 + x%4) - x%4 is x - x%4,
 * x/4*4 + (x%4 - x%4) is x/4*4; both are right, only not the same text. */
static bool recombine(Arena *a, TermVec *v) {
  for (int i = 0; i < v->n; i++)
    for (int fi = 0; fi < v->t[i].nf; fi++) {
      const AExpr *m = v->t[i].f[fi];
      if (m->kind != AX_MOD) continue;
      for (int j = 0; j < v->n; j++) {
        int fj = j == i ? -1 : find_div_of(v->t[j], m->ops[0], m->ops[1]);
        if (fj < 0) continue;
        const AExpr *k = term_without(a, v->t[i], fi), *y = v->t[j].f[fj]->ops[0];
        if (!ax_equal(term_without(a, v->t[j], fj), ax_mul(a, k, m->ops[1]))) continue;
        remove_term(v, i > j ? i : j);
        remove_term(v, i > j ? j : i);
        push_terms(v, ax_mul(a, k, y));
        return true;
      }
    }
  return false;
}

static const AExpr *build_sum(Arena *a, TermVec *v) {
  do combine_like_terms(v);
  while (recombine(a, v));
  return sum_node(a, v);
}

/* ---- Sums and products --------------------------------------------------------- */

const AExpr *ax_add(Arena *a, const AExpr *x, const AExpr *y) {
  if (is_cst_val(x, 0)) return y;
  if (is_cst_val(y, 0)) return x;
  TermVec v = {a, NULL, 0, 0};
  push_terms(&v, x);
  push_terms(&v, y);
  return build_sum(a, &v);
}

const AExpr *ax_sub(Arena *a, const AExpr *x, const AExpr *y) {
  return ax_add(a, x, ax_mul(a, ax_cst(a, -1), y));
}

// Distributes: (x0 + x1 + ...) * (y0 + ...) is the sum of all products xi*yj.
const AExpr *ax_mul(Arena *a, const AExpr *x, const AExpr *y) {
  if (is_cst_val(x, 1)) return y;
  if (is_cst_val(y, 1)) return x;
  TermVec vx = {a, NULL, 0, 0}, vy = {a, NULL, 0, 0}, v = {a, NULL, 0, 0};
  push_terms(&vx, x);
  push_terms(&vy, y);
  for (int i = 0; i < vx.n; i++)
    for (int j = 0; j < vy.n; j++) push(&v, term_mul(a, vx.t[i], vy.t[j]));
  return build_sum(a, &v);
}

/* ---- Proofs from ranges ---------------------------------------------------------
 * They may build scratch nodes (a difference y - x) in the arena they are given. */

static bool lt(Arena *a, const AExpr *x, const AExpr *y);

static bool le(Arena *a, const AExpr *x, const AExpr *y) {
  if (x->hi != AX_INF && y->lo != AX_NEG_INF && x->hi <= y->lo) return true;
  return lt(a, x, ax_add(a, y, ax_cst(a, 1)));
}

// x < y iff y - x >= 1; and x % m < m <= y, which ranges of int64 bounds cannot see
// when m is symbolic.
static bool lt(Arena *a, const AExpr *x, const AExpr *y) {
  if (x->hi != AX_INF && y->lo != AX_NEG_INF && x->hi < y->lo) return true;
  if (x->kind == AX_MOD && x->ops[1]->lo >= 1 && le(a, x->ops[1], y)) return true;
  return ax_sub(a, y, x)->lo >= 1;
}

static bool nonzero(const AExpr *e) { return e->lo >= 1 || e->hi <= -1; }
static bool is_false(const AExpr *e) { return e->lo == 0 && e->hi == 0; }
static bool is_bool(const AExpr *e) { return e->lo >= 0 && e->hi <= 1; }

// d's coefficient divides t's and d's factors are among t's.
static bool term_divides(Term d, Term t) {
  if (d.c != -1 && t.c % d.c != 0) return false;
  int j = 0;
  for (int i = 0; i < d.nf; i++) {
    while (j < t.nf && cmp(t.f[j], d.f[i]) < 0) j++;
    if (j == t.nf || cmp(t.f[j], d.f[i]) != 0) return false;
    j++;
  }
  return true;
}

// t / d, when term_divides(d, t).
static Term term_quotient(Arena *a, Term t, Term d) {
  const AExpr **f = ARENA_ARRAY(a, const AExpr *, t.nf);
  int n = 0, i = 0;
  for (int j = 0; j < t.nf; j++) {
    if (i < d.nf && cmp(t.f[j], d.f[i]) == 0) i++;
    else f[n++] = t.f[j];
  }
  return (Term){d.c == -1 ? wrap_mul(t.c, -1) : t.c / d.c, n, f};
}

// Structural: every term of x is a multiple of d (a single term, d != 0).
static bool divisible(const AExpr *x, const AExpr *d) {
  if (!nonzero(d)) return false;
  if (is_cst_val(d, 1) || is_cst_val(d, -1) || is_cst_val(x, 0)) return true;
  if (d->kind == AX_ADD) return ax_equal(x, d);
  Term td = term_of(&d);
  if (x->kind != AX_ADD) return term_divides(td, term_of(&x));
  for (int i = 0; i < x->n; i++)
    if (!term_divides(td, term_of(&x->ops[i]))) return false;
  return true;
}

/* ---- Division and modulo --------------------------------------------------------- */

// The gcd of c and every coefficient of x.
static int64_t coef_gcd(const AExpr *x, int64_t c) {
  uint64_t g = magnitude(c);
  if (x->kind != AX_ADD) return (int64_t)gcd_u64(g, magnitude(term_of(&x).c));
  for (int i = 0; i < x->n && g > 1; i++) g = gcd_u64(g, magnitude(term_of(&x->ops[i]).c));
  return (int64_t)g;
}

static const AExpr *divide_coefs(Arena *a, const AExpr *x, int64_t g) {
  TermVec v = {a, NULL, 0, 0};
  push_terms(&v, x);
  for (int i = 0; i < v.n; i++) v.t[i].c /= g;
  return build_sum(a, &v);
}

/* How much of x / d a split moves to the quotient: the terms that are multiples
 * of d; also the multiple of a constant d in the constant term; also in every
 * coefficient (9*j = 8*j + j). The last two need a constant d. */
enum { SPLIT_EXACT, SPLIT_CONST, SPLIT_ALL };

/* Splits x into q*d + r as mode says; false when nothing moved. A coefficient
 * that is not a multiple of c leaves floor_mod(k, c) in r, so r's terms have
 * coefficients in [0, c). */
static bool split(Arena *a, const AExpr *x, const AExpr *d, int mode, const AExpr **q, const AExpr **r) {
  TermVec vx = {a, NULL, 0, 0}, vq = {a, NULL, 0, 0}, vr = {a, NULL, 0, 0};
  push_terms(&vx, x);
  Term td = term_of(&d);
  bool moved = false;
  for (int i = 0; i < vx.n; i++) {
    Term t = vx.t[i];
    if (term_divides(td, t)) {
      push(&vq, term_quotient(a, t, td));
      moved = true;
    } else if (td.nf == 0 && (mode == SPLIT_ALL || (mode == SPLIT_CONST && t.nf == 0))) {
      int64_t k = floor_div(t.c, td.c);
      if (k) push(&vq, (Term){k, t.nf, t.f});
      push(&vr, (Term){floor_mod(t.c, td.c), t.nf, t.f});
      moved |= k != 0;
    } else {
      push(&vr, t);
    }
  }
  if (!moved) return false;
  *q = build_sum(a, &vq);
  *r = build_sum(a, &vr);
  return true;
}

/* "(q*d + r)/d => q + r/d when r >= 0", the modes tried from the most to the
 * least aggressive. Only when it pays: SPLIT_ALL when the division disappears,
 * the others when q has a variable part too; (n + 7)/4 stays as it is. */
static const AExpr *split_div(Arena *a, const AExpr *x, const AExpr *d) {
  if (d->kind == AX_ADD) return NULL;
  for (int mode = d->kind == AX_CST ? SPLIT_ALL : SPLIT_EXACT; mode >= SPLIT_EXACT; mode--) {
    const AExpr *q, *r;
    if (!split(a, x, d, mode, &q, &r) || r->lo < 0) continue;
    const AExpr *rd = ax_div(a, r, d);
    if (rd->kind == AX_CST || (mode != SPLIT_ALL && q->kind != AX_CST)) return ax_add(a, q, rd);
  }
  return NULL;
}

/* "(q*d + r)%d => r%d when r >= 0". With a constant d, every coefficient of r
 * ends in [0, d) when r stays >= 0 that way: (9*j + 10)%8 => (j + 2)%8. */
static const AExpr *split_mod(Arena *a, const AExpr *x, const AExpr *d) {
  if (d->kind == AX_ADD) return NULL;
  for (int mode = d->kind == AX_CST ? SPLIT_ALL : SPLIT_EXACT; mode >= SPLIT_EXACT; mode--) {
    const AExpr *q, *r;
    if (split(a, x, d, mode, &q, &r) && r->lo >= 0) return ax_mod(a, r, d);
  }
  return NULL;
}

/* "(y/e + q)/d => (y + q*e)/(e*d)" for e, d >= 1: one division fewer; x/4/8 is
 * x/32. Exact for floor division; and when y >= 0 and y/e + q >= 0, as the C
 * reading needs, y + q*e >= e*(y/e + q) >= 0 too. */
static const AExpr *merge_div(Arena *a, const AExpr *x, const AExpr *d) {
  const AExpr *const *terms = x->kind == AX_ADD ? x->ops : &x;
  int n = x->kind == AX_ADD ? x->n : 1;
  int64_t ev, dv, prod;
  for (int i = 0; i < n; i++) {
    const AExpr *t = terms[i], *e = t->kind == AX_DIV ? t->ops[1] : NULL;
    if (!e || e->lo < 1) continue;
    if (ax_is_cst(e, &ev) && ax_is_cst(d, &dv) && mul_ovf(ev, dv, &prod)) continue;
    const AExpr *q = ax_sub(a, x, t);
    return ax_div(a, ax_add(a, t->ops[0], ax_mul(a, q, e)), ax_mul(a, e, d));
  }
  return NULL;
}

/* x = k*q + r with k | c, 1 < k < c, q >= 0 and 0 <= r < k (r the terms
 * whose coefficients k does not divide, their range proven): then x/c is
 * q/(c/k) and x%c is k*(q%(c/k)) + r, floor division's identities, here
 * with every operand >= 0 as C's reading needs. (8*i + t)/24 with t in
 * [0, 8) is i/3: the step's taps of a chunk (tc's LA=2). The largest such
 * k. */
static bool factor_split(Arena *a, const AExpr *x, int64_t c, int64_t *k, const AExpr **q, const AExpr **r) {
  if (x->kind != AX_ADD || x->lo < 0) return false;
  TermVec vx = {a, NULL, 0, 0};
  push_terms(&vx, x);
  int64_t best = 1;
  for (int i = 0; i < vx.n; i++) {   // the candidates: c's common factors with each coefficient
    int64_t g = (int64_t)gcd_u64(magnitude(c), magnitude(vx.t[i].c));
    if (g <= best || g >= c) continue;
    TermVec vq = {a, NULL, 0, 0}, vr = {a, NULL, 0, 0};
    for (int j = 0; j < vx.n; j++) {
      Term t = vx.t[j];
      if (t.c % g == 0) push(&vq, (Term){t.c / g, t.nf, t.f});
      else push(&vr, t);
    }
    if (!vr.n) continue;
    const AExpr *tq = build_sum(a, &vq), *tr = build_sum(a, &vr);
    if (tq->lo >= 0 && tr->lo >= 0 && tr->hi < g) best = g, *q = tq, *r = tr;
  }
  *k = best;
  return best > 1;
}

// The rules for x / d with d >= 1 proven; NULL when none applies.
static const AExpr *simplify_div(Arena *a, const AExpr *x, const AExpr *d) {
  int64_t c = 0, g;
  bool dc = ax_is_cst(d, &c);
  if (is_cst_val(x, 0)) return x;
  if (x->lo >= 0 && lt(a, x, d)) return ax_cst(a, 0);  // "x/d => 0 when 0 <= x < d"
  if (ax_equal(x, d)) return ax_cst(a, 1);
  const AExpr *r = merge_div(a, x, d);
  if (r) return r;
  if (dc && (g = coef_gcd(x, c)) > 1)  // "(g*x)/(g*c) => x/c"
    return ax_div(a, divide_coefs(a, x, g), ax_cst(a, c / g));
  r = split_div(a, x, d);
  if (r) return r;
  int64_t k;
  const AExpr *q, *rest;
  if (dc && factor_split(a, x, c, &k, &q, &rest)) return ax_div(a, q, ax_cst(a, c / k));   // "(k*q + r)/(k*m) => q/m"
  return NULL;
}

// The rules for x % d with d >= 1 proven; NULL when none applies.
static const AExpr *simplify_mod(Arena *a, const AExpr *x, const AExpr *d) {
  int64_t c = 0, g;
  bool dc = ax_is_cst(d, &c);
  if (is_cst_val(x, 0) || ax_equal(x, d)) return ax_cst(a, 0);
  if (x->lo >= 0 && lt(a, x, d)) return x;  // "x%d => x when 0 <= x < d"
  if (x->kind == AX_MOD && x->ops[1]->lo >= 1 && divisible(x->ops[1], d))
    return ax_mod(a, x->ops[0], d);  // "(x%(k*d))%d => x%d"
  if (dc && (g = coef_gcd(x, c)) > 1)  // "(g*x)%(g*c) => g*(x%c)"
    return ax_mul(a, ax_cst(a, g), ax_mod(a, divide_coefs(a, x, g), ax_cst(a, c / g)));
  const AExpr *r = split_mod(a, x, d), *q;
  if (r) return r;
  int64_t k;
  if (dc && factor_split(a, x, c, &k, &q, &r))   // "(k*q + r)%(k*m) => k*(q%m) + r"
    return ax_add(a, ax_mul(a, ax_cst(a, k), ax_mod(a, q, ax_cst(a, c / k))), r);
  return NULL;
}

const AExpr *ax_div(Arena *a, const AExpr *x, const AExpr *y) {
  int64_t xv, yv;
  if (ax_is_cst(y, &yv) && yv != 0) {
    if (ax_is_cst(x, &xv)) return ax_cst(a, floor_div(xv, yv));
    if (yv == 1) return x;
    if (yv == -1) return ax_mul(a, x, y);
  }
  if (y->lo >= 1) {
    const AExpr *r = simplify_div(a, x, y);
    if (r) return r;
  }
  return new_bin(a, AX_DIV, x, y);  // a zero divisor stays, for ax_eval to report
}

const AExpr *ax_mod(Arena *a, const AExpr *x, const AExpr *y) {
  int64_t xv, yv;
  if (ax_is_cst(y, &yv) && yv != 0) {
    if (ax_is_cst(x, &xv)) return ax_cst(a, floor_mod(xv, yv));
    if (yv == 1 || yv == -1) return ax_cst(a, 0);
  }
  if (y->lo >= 1) {
    const AExpr *r = simplify_mod(a, x, y);
    if (r) return r;
  }
  return new_bin(a, AX_MOD, x, y);
}

const AExpr *ax_ceildiv(Arena *a, const AExpr *x, const AExpr *y) {
  return ax_div(a, ax_add(a, x, ax_sub(a, y, ax_cst(a, 1))), y);
}

/* ---- Min, max, comparisons, conditions --------------------------------------------
 * Commutative operands are ordered by cmp so that construction order does not
 * show; && keeps its order because it short-circuits, as in C. */

// Sorted before the proofs: when both hold (x == y wherever defined) the pick
// must not depend on the order of the arguments.
const AExpr *ax_min(Arena *a, const AExpr *x, const AExpr *y) {
  if (cmp(x, y) > 0) return ax_min(a, y, x);
  if (le(a, x, y)) return x;
  if (le(a, y, x)) return y;
  return new_bin(a, AX_MIN, x, y);
}

const AExpr *ax_max(Arena *a, const AExpr *x, const AExpr *y) {
  if (cmp(x, y) > 0) return ax_max(a, y, x);
  if (le(a, x, y)) return y;
  if (le(a, y, x)) return x;
  return new_bin(a, AX_MAX, x, y);
}

const AExpr *ax_lt(Arena *a, const AExpr *x, const AExpr *y) {
  if (lt(a, x, y)) return ax_cst(a, 1);
  if (le(a, y, x)) return ax_cst(a, 0);
  return new_bin(a, AX_LT, x, y);
}

const AExpr *ax_le(Arena *a, const AExpr *x, const AExpr *y) {
  if (le(a, x, y)) return ax_cst(a, 1);
  if (lt(a, y, x)) return ax_cst(a, 0);
  return new_bin(a, AX_LE, x, y);
}

// The constant goes right ("i == 0"), otherwise the operands are sorted.
const AExpr *ax_eq(Arena *a, const AExpr *x, const AExpr *y) {
  if (x->kind == AX_CST ? y->kind != AX_CST : (y->kind != AX_CST && cmp(x, y) > 0)) return ax_eq(a, y, x);
  if (ax_equal(x, y)) return ax_cst(a, 1);
  if (lt(a, x, y) || lt(a, y, x)) return ax_cst(a, 0);
  if (is_cst_val(y, 1) && is_bool(x)) return x;  // "(a < b) == 1 => a < b"
  return new_bin(a, AX_EQ, x, y);
}

// Dropping a true operand keeps the value only when the other one is 0 or 1.
const AExpr *ax_and(Arena *a, const AExpr *x, const AExpr *y) {
  if (!x || !y) return x ? x : y;
  if (is_false(x) || is_false(y)) return ax_cst(a, 0);
  if (nonzero(x) && nonzero(y)) return ax_cst(a, 1);
  if (nonzero(x) && is_bool(y)) return y;
  if (nonzero(y) && is_bool(x)) return x;
  if (ax_equal(x, y) && is_bool(x)) return x;
  return new_bin(a, AX_AND, x, y);
}

const AExpr *ax_sel(Arena *a, const AExpr *c, const AExpr *x, const AExpr *y) {
  if (nonzero(c)) return x;
  if (is_false(c)) return y;
  if (ax_equal(x, y)) return x;
  const AExpr *ops[3] = {c, x, y};
  return new_node(a, AX_SEL, 3, ops);
}

/* ---- Queries ----------------------------------------------------------------------
 * The public proofs have no arena of their own; their scratch nodes go to a
 * temporary one. */

bool ax_prove_lt(const AExpr *x, const AExpr *y) {
  Arena *tmp = arena_new();
  bool r = lt(tmp, x, y);
  arena_free(tmp);
  return r;
}

bool ax_prove_le(const AExpr *x, const AExpr *y) {
  Arena *tmp = arena_new();
  bool r = le(tmp, x, y);
  arena_free(tmp);
  return r;
}

bool ax_prove_divisible(const AExpr *x, const AExpr *d) {
  if (divisible(x, d)) return true;
  Arena *tmp = arena_new();
  bool r = is_cst_val(ax_mod(tmp, x, d), 0) && nonzero(d);
  arena_free(tmp);
  return r;
}

/* ---- Substitution and variables --------------------------------------------------- */

// Rebuilds a node of e's kind on new operands, through the simplifying constructors.
static const AExpr *rebuild(Arena *a, const AExpr *e, const AExpr **k) {
  const AExpr *r = k[0];
  switch (e->kind) {
  case AX_CST:
  case AX_VAR: return e;
  case AX_ADD:
    for (int i = 1; i < e->n; i++) r = ax_add(a, r, k[i]);
    return r;
  case AX_MUL:
    for (int i = 1; i < e->n; i++) r = ax_mul(a, r, k[i]);
    return r;
  case AX_DIV: return ax_div(a, k[0], k[1]);
  case AX_MOD: return ax_mod(a, k[0], k[1]);
  case AX_MIN: return ax_min(a, k[0], k[1]);
  case AX_MAX: return ax_max(a, k[0], k[1]);
  case AX_LT: return ax_lt(a, k[0], k[1]);
  case AX_LE: return ax_le(a, k[0], k[1]);
  case AX_EQ: return ax_eq(a, k[0], k[1]);
  case AX_AND: return ax_and(a, k[0], k[1]);
  case AX_SEL: return ax_sel(a, k[0], k[1], k[2]);
  }
  cg_die("bad arith kind %d", (int)e->kind);
}

const AExpr *ax_subst(Arena *a, const AExpr *e, int n, const char *const *names, const AExpr *const *vals) {
  if (e->kind == AX_VAR) {
    for (int i = 0; i < n; i++)
      if (strcmp(e->name, names[i]) == 0) return vals[i];
    return e;
  }
  if (e->n == 0) return e;
  const AExpr **k = ARENA_ARRAY(a, const AExpr *, e->n);
  bool changed = false;
  for (int i = 0; i < e->n; i++) {
    k[i] = ax_subst(a, e->ops[i], n, names, vals);
    changed |= k[i] != e->ops[i];
  }
  return changed ? rebuild(a, e, k) : e;
}

typedef struct NameSet {
  const char **names;  // heap array of distinct names, first-seen order
  int n, cap;          // used, allocated
} NameSet;

static void collect_vars(const AExpr *e, NameSet *s) {
  if (e->kind == AX_VAR) {
    for (int i = 0; i < s->n; i++)
      if (strcmp(s->names[i], e->name) == 0) return;
    if (s->n == s->cap) {
      s->cap = s->cap ? 2 * s->cap : 8;
      s->names = realloc(s->names, sizeof *s->names * (size_t)s->cap);
      if (!s->names) cg_out_of_memory(sizeof *s->names * (size_t)s->cap);
    }
    s->names[s->n++] = e->name;
  }
  for (int i = 0; i < e->n; i++) collect_vars(e->ops[i], s);
}

int ax_vars(const AExpr *e, const char **names, int max) {
  NameSet s = {NULL, 0, 0};
  collect_vars(e, &s);
  for (int i = 0; i < s.n && i < max; i++) names[i] = s.names[i];
  free(s.names);
  return s.n;
}

/* ---- Evaluation -------------------------------------------------------------------- */

typedef struct Env {
  int n;                     // number of bindings
  const char *const *names;  // bound names
  const int64_t *vals;       // their values
  Diag *d;                   // where errors go
} Env;

static bool eval_fail(const Env *env, const char *what, const AExpr *e) {
  StrBuf sb;
  sb_init(&sb);
  ax_print(&sb, e);
  diag_error(env->d, "%s in '%s'", what, sb_str(&sb));
  sb_free(&sb);
  return false;
}

static bool eval(const Env *env, const AExpr *e, int64_t *out);

static bool eval_var(const Env *env, const AExpr *e, int64_t *out) {
  for (int i = 0; i < env->n; i++)
    if (strcmp(env->names[i], e->name) == 0) return *out = env->vals[i], true;
  return diag_error(env->d, "unknown size variable '%s'", e->name);
}

static bool eval_nary(const Env *env, const AExpr *e, int64_t *out) {
  int64_t acc = e->kind == AX_ADD ? 0 : 1, v;
  for (int i = 0; i < e->n; i++) {
    if (!eval(env, e->ops[i], &v)) return false;
    bool ovf = e->kind == AX_ADD ? add_ovf(acc, v, &acc) : mul_ovf(acc, v, &acc);
    if (ovf) return eval_fail(env, "integer overflow", e);
  }
  *out = acc;
  return true;
}

static bool eval(const Env *env, const AExpr *e, int64_t *out) {
  int64_t x = 0, y = 0;
  switch (e->kind) {
  case AX_CST: *out = e->cst; return true;
  case AX_VAR: return eval_var(env, e, out);
  case AX_ADD:
  case AX_MUL: return eval_nary(env, e, out);
  case AX_AND:  // short-circuits, as the emitted C does
    if (!eval(env, e->ops[0], &x)) return false;
    if (x && !eval(env, e->ops[1], &y)) return false;
    *out = x && y;
    return true;
  case AX_SEL:
    if (!eval(env, e->ops[0], &x)) return false;
    return eval(env, e->ops[x ? 1 : 2], out);
  default: break;
  }
  if (!eval(env, e->ops[0], &x) || !eval(env, e->ops[1], &y)) return false;
  switch (e->kind) {
  case AX_DIV:
  case AX_MOD:
    if (y == 0) return eval_fail(env, "division by zero", e);
    if (e->kind == AX_DIV && x == INT64_MIN && y == -1) return eval_fail(env, "integer overflow", e);
    *out = e->kind == AX_DIV ? floor_div(x, y) : floor_mod(x, y);
    return true;
  case AX_MIN: *out = min_i64(x, y); return true;
  case AX_MAX: *out = max_i64(x, y); return true;
  case AX_LT: *out = x < y; return true;
  case AX_LE: *out = x <= y; return true;
  case AX_EQ: *out = x == y; return true;
  default: cg_die("bad arith kind %d", (int)e->kind);
  }
}

bool ax_eval(const AExpr *e, int n, const char *const *names, const int64_t *vals, int64_t *out, Diag *d) {
  Env env = {n, names, vals, d};
  return eval(&env, e, out);
}

/* ---- Printing ----------------------------------------------------------------------
 * C precedence levels; an operand is parenthesised when its level is below the
 * one its position needs. A sum prints its positive terms first, then the
 * negative ones as subtractions, then the constant ("n - i + 3"); a product
 * prints its coefficient last ("i*4"). */

enum { P_SEL, P_AND, P_EQ, P_REL, P_ADD, P_MUL, P_UNARY, P_PRIMARY };

static void print_at(StrBuf *sb, const AExpr *e, int ctx);

// INT64_MIN has no literal of its own in C.
static void put_int(StrBuf *sb, int64_t v) {
  if (v == INT64_MIN) sb_puts(sb, "(-9223372036854775807 - 1)");
  else sb_printf(sb, "%" PRId64, v);
}

// Printed with a leading minus: a negative coefficient other than INT64_MIN.
static bool negative(Term t) { return t.c < 0 && t.c != INT64_MIN; }

static int prec(const AExpr *e) {
  switch (e->kind) {
  case AX_CST: return e->cst < 0 && e->cst != INT64_MIN ? P_UNARY : P_PRIMARY;
  case AX_ADD: return P_ADD;
  case AX_MUL: {
    Term t = term_of(&e);
    return t.c == -1 && t.nf == 1 ? P_UNARY : P_MUL;
  }
  case AX_DIV:
  case AX_MOD: return P_MUL;
  case AX_LT:
  case AX_LE: return P_REL;
  case AX_EQ: return P_EQ;
  case AX_AND: return P_AND;
  default: return P_PRIMARY;
  }
}

/* The magnitude of a term, "i*n*4"; first is the level its first factor needs
 * (P_UNARY right after a unary minus, where "-x/4" would mean (-x)/4). */
static void print_term_abs(StrBuf *sb, Term t, int first) {
  int64_t c = negative(t) ? -t.c : t.c;
  if (t.nf == 0) {
    put_int(sb, c);
    return;
  }
  for (int i = 0; i < t.nf; i++) {
    if (i) sb_putc(sb, '*');
    print_at(sb, t.f[i], i ? P_UNARY : first);
  }
  if (c != 1) {
    sb_putc(sb, '*');
    put_int(sb, c);
  }
}

static void print_product(StrBuf *sb, const AExpr *e) {
  Term t = term_of(&e);
  if (negative(t)) sb_putc(sb, '-');
  print_term_abs(sb, t, negative(t) ? P_UNARY : P_MUL);
}

// 0: positive terms, 1: negative ones, 2: the constant (-1: a positive constant
// goes first when no positive term would).
static int sum_rank(const AExpr *e, int i) {
  Term t = term_of(&e->ops[i]);
  if (t.nf) return negative(t) ? 1 : 0;
  if (negative(t)) return 2;
  for (int j = 0; j < e->n; j++)
    if (term_of(&e->ops[j]).nf && !negative(term_of(&e->ops[j]))) return 2;
  return -1;
}

static void print_sum(StrBuf *sb, const AExpr *e) {
  bool first = true;
  for (int rank = -1; rank <= 2; rank++)
    for (int i = 0; i < e->n; i++) {
      if (sum_rank(e, i) != rank) continue;
      Term t = term_of(&e->ops[i]);
      if (first) sb_puts(sb, negative(t) ? "-" : "");
      else sb_puts(sb, negative(t) ? " - " : " + ");
      print_term_abs(sb, t, first && negative(t) ? P_UNARY : P_MUL);
      first = false;
    }
}

static void print_binary(StrBuf *sb, const AExpr *e, const char *op, int left, int right) {
  print_at(sb, e->ops[0], left);
  sb_puts(sb, op);
  print_at(sb, e->ops[1], right);
}

static void print_bare(StrBuf *sb, const AExpr *e) {
  switch (e->kind) {
  case AX_CST: put_int(sb, e->cst); break;
  case AX_VAR: sb_puts(sb, e->name); break;
  case AX_ADD: print_sum(sb, e); break;
  case AX_MUL: print_product(sb, e); break;
  case AX_DIV: print_binary(sb, e, "/", P_MUL, P_UNARY); break;
  case AX_MOD: print_binary(sb, e, "%", P_MUL, P_UNARY); break;
  case AX_MIN:
  case AX_MAX:
    sb_puts(sb, e->kind == AX_MIN ? "min(" : "max(");
    print_at(sb, e->ops[0], P_SEL);
    sb_puts(sb, ", ");
    print_at(sb, e->ops[1], P_SEL);
    sb_putc(sb, ')');
    break;
  case AX_LT: print_binary(sb, e, " < ", P_ADD, P_ADD); break;  // "(a < b) == c", never "a < b == c"
  case AX_LE: print_binary(sb, e, " <= ", P_ADD, P_ADD); break;
  case AX_EQ: print_binary(sb, e, " == ", P_ADD, P_ADD); break;
  case AX_AND: print_binary(sb, e, " && ", P_AND, P_EQ); break;
  case AX_SEL:
    sb_putc(sb, '(');
    print_at(sb, e->ops[0], P_AND);
    sb_puts(sb, " ? ");
    print_at(sb, e->ops[1], P_SEL);
    sb_puts(sb, " : ");
    print_at(sb, e->ops[2], P_SEL);
    sb_putc(sb, ')');
    break;
  }
}

static void print_at(StrBuf *sb, const AExpr *e, int ctx) {
  bool paren = prec(e) < ctx;
  if (paren) sb_putc(sb, '(');
  print_bare(sb, e);
  if (paren) sb_putc(sb, ')');
}

void ax_print(StrBuf *sb, const AExpr *e) { print_at(sb, e, P_SEL); }

const char *ax_str(Arena *a, const AExpr *e) {
  StrBuf sb;
  sb_init(&sb);
  ax_print(&sb, e);
  const char *s = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* ---- Parsing -------------------------------------------------------------------------
 * Recursive descent over the C grammar subset that ax_print writes, one function
 * per precedence level. It stops, without error, at the first character that
 * cannot continue the expression; "->" and the start of a comment stop it too,
 * so that it can read sizes embedded in the IR's text. */

enum { MAX_DEPTH = 500 };  // nesting of parentheses, unary minus and ?:

typedef struct Parser {
  Arena *a;
  const char *text;  // the whole input, for messages
  const char *p;     // the next character
  AxLookup lookup;   // resolves identifiers
  void *ctx;         // lookup's context
  Diag *d;           // where errors go
  const char *err;   // where the first error is, or NULL
  int depth;         // recursion depth, bounded against hostile input
} Parser;

static const AExpr *parse_cond(Parser *ps);

// The message quotes the text read so far (its last line, at most 40 characters),
// so that it stays short when the expression is embedded in a larger file.
static const AExpr *fail(Parser *ps, const char *what) {
  if (ps->err) return NULL;
  ps->err = ps->p;
  const char *start = ps->p, *stop = ps->p;
  while (stop > ps->text && isspace((unsigned char)stop[-1])) stop--;
  start = stop;
  while (start > ps->text && start[-1] != '\n' && stop - start < 40) start--;
  if (start == stop) diag_error(ps->d, "%s", what);
  else diag_error(ps->d, "%s after '%.*s'", what, (int)(stop - start), start);
  return NULL;
}

static void skip_space(Parser *ps) {
  while (isspace((unsigned char)*ps->p)) ps->p++;
}

// Consumes op when it comes next and is not the start of `unless` (e.g. "-" of "->").
static bool accept(Parser *ps, const char *op, const char *unless) {
  skip_space(ps);
  size_t n = strlen(op);
  if (strncmp(ps->p, op, n) != 0) return false;
  if (unless && ps->p[n] && strchr(unless, ps->p[n])) return false;
  ps->p += n;
  return true;
}

static const AExpr *parse_number(Parser *ps) {
  int64_t v = 0;
  const char *start = ps->p;
  bool big = false;
  for (; isdigit((unsigned char)*ps->p); ps->p++)
    big = big || mul_ovf(v, 10, &v) || add_ovf(v, *ps->p - '0', &v);
  if (big && !ps->err) {   // the message names the whole constant, not the text before it
    ps->err = start;
    diag_error(ps->d, "integer constant %.*s is too large (at most %lld)", (int)(ps->p - start), start,
               (long long)INT64_MAX);
  }
  return big ? NULL : ax_cst(ps->a, v);
}

static const AExpr *parse_call(Parser *ps, bool is_min) {
  const AExpr *x, *y;
  if (!accept(ps, "(", NULL) || !(x = parse_cond(ps))) return fail(ps, "expected an expression");
  if (!accept(ps, ",", NULL)) return fail(ps, "expected ','");
  if (!(y = parse_cond(ps))) return NULL;
  if (!accept(ps, ")", NULL)) return fail(ps, "expected ')'");
  return is_min ? ax_min(ps->a, x, y) : ax_max(ps->a, x, y);
}

static const AExpr *parse_ident(Parser *ps) {
  const char *start = ps->p;
  while (isalnum((unsigned char)*ps->p) || *ps->p == '_') ps->p++;
  char *name = arena_strndup(ps->a, start, (size_t)(ps->p - start));
  const char *after = ps->p;
  skip_space(ps);
  bool call = *ps->p == '(';
  ps->p = after;
  if (call && (strcmp(name, "min") == 0 || strcmp(name, "max") == 0)) return parse_call(ps, name[1] == 'i');
  const AExpr *v = ps->lookup ? ps->lookup(ps->ctx, name) : NULL;
  if (!v && !ps->err) {
    ps->err = start;
    diag_error(ps->d, "unknown size variable '%s'", name);
  }
  return v;
}

static const AExpr *parse_primary(Parser *ps) {
  skip_space(ps);
  if (isdigit((unsigned char)*ps->p)) return parse_number(ps);
  if (isalpha((unsigned char)*ps->p) || *ps->p == '_') return parse_ident(ps);
  if (!accept(ps, "(", NULL)) return fail(ps, "expected an expression");
  const AExpr *e = parse_cond(ps);
  if (e && !accept(ps, ")", NULL)) return fail(ps, "expected ')'");
  return e;
}

static const AExpr *negate(Parser *ps, const AExpr *x) {
  return x ? ax_mul(ps->a, ax_cst(ps->a, -1), x) : NULL;
}

static const AExpr *parse_unary(Parser *ps) {
  const AExpr *x;
  if (++ps->depth > MAX_DEPTH) return fail(ps, "expression nested too deeply");
  if (accept(ps, "-", ">")) x = negate(ps, parse_unary(ps));
  else if (accept(ps, "+", NULL)) x = parse_unary(ps);
  else x = parse_primary(ps);
  ps->depth--;
  return x;
}

static const AExpr *parse_mul(Parser *ps) {
  const AExpr *x = parse_unary(ps), *y;
  while (x) {
    if (accept(ps, "*", NULL)) x = (y = parse_unary(ps)) ? ax_mul(ps->a, x, y) : NULL;
    else if (accept(ps, "/", "/*")) x = (y = parse_unary(ps)) ? ax_div(ps->a, x, y) : NULL;
    else if (accept(ps, "%", NULL)) x = (y = parse_unary(ps)) ? ax_mod(ps->a, x, y) : NULL;
    else break;
  }
  return x;
}

static const AExpr *parse_add(Parser *ps) {
  const AExpr *x = parse_mul(ps), *y;
  while (x) {
    if (accept(ps, "+", NULL)) x = (y = parse_mul(ps)) ? ax_add(ps->a, x, y) : NULL;
    else if (accept(ps, "-", ">")) x = (y = parse_mul(ps)) ? ax_sub(ps->a, x, y) : NULL;
    else break;
  }
  return x;
}

// a > b and a >= b read as b < a and b <= a.
static const AExpr *parse_rel(Parser *ps) {
  const AExpr *x = parse_add(ps), *y;
  while (x) {
    if (accept(ps, "<=", NULL)) x = (y = parse_add(ps)) ? ax_le(ps->a, x, y) : NULL;
    else if (accept(ps, "<", "<")) x = (y = parse_add(ps)) ? ax_lt(ps->a, x, y) : NULL;
    else if (accept(ps, ">=", NULL)) x = (y = parse_add(ps)) ? ax_le(ps->a, y, x) : NULL;
    else if (accept(ps, ">", ">")) x = (y = parse_add(ps)) ? ax_lt(ps->a, y, x) : NULL;
    else break;
  }
  return x;
}

static const AExpr *parse_eq(Parser *ps) {
  const AExpr *x = parse_rel(ps), *y;
  while (x && accept(ps, "==", NULL)) x = (y = parse_rel(ps)) ? ax_eq(ps->a, x, y) : NULL;
  return x;
}

static const AExpr *parse_and(Parser *ps) {
  const AExpr *x = parse_eq(ps), *y;
  while (x && accept(ps, "&&", NULL)) x = (y = parse_eq(ps)) ? ax_and(ps->a, x, y) : NULL;
  return x;
}

static const AExpr *parse_select(Parser *ps) {
  const AExpr *c = parse_and(ps), *x, *y;
  if (!c || !accept(ps, "?", NULL)) return c;
  if (!(x = parse_cond(ps))) return NULL;
  if (!accept(ps, ":", NULL)) return fail(ps, "expected ':'");
  if (!(y = parse_cond(ps))) return NULL;
  return ax_sel(ps->a, c, x, y);
}

static const AExpr *parse_cond(Parser *ps) {
  if (++ps->depth > MAX_DEPTH) return fail(ps, "expression nested too deeply");
  const AExpr *e = parse_select(ps);
  ps->depth--;
  return e;
}

const AExpr *ax_parse(Arena *a, const char *text, const char **end, AxLookup lookup, void *ctx, Diag *d) {
  Parser ps = {a, text, text, lookup, ctx, d, NULL, 0};
  const AExpr *e = parse_cond(&ps);
  skip_space(&ps);
  if (e && !end && *ps.p) {
    char what[32];
    snprintf(what, sizeof what, "unexpected '%c'", *ps.p);
    e = fail(&ps, what);
  }
  if (end) *end = e ? ps.p : ps.err;
  return e;
}
