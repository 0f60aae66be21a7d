/* rules_reorder.c: reorder-with-stride, for coalesced reads.
 *
 * When each work-item walks its own chunk of n consecutive elements, work-item
 * c reads x[c*n + e] at step e: neighbouring work-items are n elements apart.
 * Reading through gather[(i, m) -> i % n * (m / n) + i / n] instead, element
 * e of chunk c (i = c*n + e) is x[e*(m/n) + c]: at every step neighbouring
 * work-items read neighbouring addresses. The index function is the transpose
 * of an n x (m/n) matrix, a permutation of 0..m-1 when n divides m.
 *
 * A permutation changes the array, so the gather alone is not a rewrite. It is
 * one in two contexts, which are the two rules: under a reduction whose
 * operator is associative and commutative (the sum of the permuted elements is
 * the sum; the operator is recognised from the user function's body, as in
 * partial-reduce), or around a map with the matching scatter on the written
 * side (element i is read from and written to the same place sigma(i)).
 * Apply it before tiling with the same n: reorder-reduce then partial-reduce,
 * or reorder-map then split-join on the inner map.
 */
#include "rewrite/rules.h"

#include <string.h>

/* Names for the index function's variables that n does not use. */
static void index_names(Arena *a, const AExpr *n, const char **iname, const char **mname) {
  const char *used[16];
  int nused = ax_vars(n, used, 16);
  for (int k = 0;; k++) {
    *iname = k ? arena_printf(a, "i%d", k) : "i";
    *mname = k ? arena_printf(a, "m%d", k) : "m";
    bool clash = false;
    for (int j = 0; j < nused && j < 16; j++) clash |= !strcmp(used[j], *iname) || !strcmp(used[j], *mname);
    if (!clash) return;
  }
}

/* prim[(i, m) -> i % n * (m / n) + i / n] for gather or scatter. */
static const Fun *stride(Arena *a, Prim p, const AExpr *n) {
  const char *iname, *mname;
  index_names(a, n, &iname, &mname);
  const AExpr *i = ax_var(a, iname, 0, AX_INF), *m = ax_var(a, mname, 1, AX_INF);
  const AExpr *idx = ax_add(a, ax_mul(a, ax_mod(a, i, n), ax_div(a, m, n)), ax_div(a, i, n));
  return ir_prim_idx(a, p, idx, i, m);
}

/* reduce[f](z, x), f an associative and commutative user function on A, x: [A]N. */
static bool reduce_match(const Expr *e, const AExpr *const *args) {
  if (e->kind != E_CALL || e->fun->kind != F_PRIM || !prim_is_reduce(e->fun->prim)) return false;
  if (e->fun->f->kind != F_USER || ir_user_op(e->fun->f->uf) == IR_OP_NONE || !rw_len(e->args[1])) return false;
  const Type *ret = e->fun->f->uf->ret;
  return ty_equal(ty_arith(e->args[0]->type), ret) && ty_equal(ty_arith(e->args[1]->type->elem), ret) &&
         rw_may_divide(rw_len(e->args[1]), args[0]);
}

static const Expr *reduce_build(Arena *a, const Expr *e, const AExpr *const *args) {
  const Expr *x = ir_call1(a, stride(a, P_GATHER, args[0]), e->args[1]);
  return rw_call2(a, e->fun, e->args[0], x);
}

/* mapX[f](x), x: [T]N. */
static bool map_match(const Expr *e, const AExpr *const *args) {
  return rw_is_map_call(e) && rw_len(e->args[0]) && rw_may_divide(rw_len(e->args[0]), args[0]);
}

static const Expr *map_build(Arena *a, const Expr *e, const AExpr *const *args) {
  const Expr *x = ir_call1(a, stride(a, P_GATHER, args[0]), e->args[0]);
  return ir_call1(a, stride(a, P_SCATTER, args[0]), ir_call1(a, e->fun, x));
}

static const Rule RULES[] = {
    {"reorder-reduce",
     "reduce[f](z, x) => reduce[f](z, gather[(i, m) -> i % n * (m / n) + i / n](x))  (a permutation of x, so only "
     "under an associative and commutative f, recognised from its body: a + b, a * b, max/min/fmax/fmin; "
     "f: (A, A) -> A, x: [A]N, N % n = 0; any reduce kind, kept)",
     1, {"n: chunk length of the split that follows"}, reduce_match, reduce_build},
    {"reorder-map",
     "map[f](x) => scatter[(i, m) -> i % n * (m / n) + i / n](map[f](gather[(i, m) -> i % n * (m / n) + i / n](x)))  "
     "(the matching scatter undoes the permutation on the written side; x: [T]N, N % n = 0; any map kind, kept)",
     1, {"n: chunk length of the split that follows"}, map_match, map_build},
};

const Rule *rw_reorder_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
