/* rules_splitjoin.c: tiling a map.
 *
 * split-join cuts a map over N elements into N/n tiles of n: the outer map
 * walks the tiles, the inner one the elements of a tile, so that the two
 * levels can go to work-groups and work-items, or to work-items and a
 * sequential loop. The tile size n is the rule's argument, usually a symbolic
 * tuning parameter; the split it leaves in the program is where the parameter
 * space reads the constraint N % n = 0 from. The match refuses only a tile
 * size that provably does not divide N (or is below 1).
 *
 * map-flatten goes the other way: a map of maps over [[T]m]n is one map over
 * the n*m elements of join(x), cut back into rows of m. A copy flattened so
 * can walk its elements with every work-item of a group in turn
 * (mapLcl[flat]) whatever the shape of the group; the rows are views.
 */
#include "rewrite/rules.h"

/* map[f](x), x: [T]N, n | N. */
static bool splitjoin_match(const Expr *e, const AExpr *const *args) {
  return rw_is_call(e, P_MAP) && rw_len(e->args[0]) && rw_may_divide(rw_len(e->args[0]), args[0]);
}

static const Expr *splitjoin_build(Arena *a, const Expr *e, const AExpr *const *args) {
  const Expr *tiles = ir_call1(a, ir_prim_n(a, P_SPLIT, args[0]), e->args[0]);
  const Expr *mapped = ir_call1(a, ir_prim_f(a, P_MAP, e->fun), tiles);
  return ir_call1(a, ir_prim(a, P_JOIN), mapped);
}

/* map[map[f]](x), x: [[T]m]n. */
static bool flatten_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  if (!rw_is_call(e, P_MAP) || e->nargs != 1 || e->fun->f->kind != F_PRIM || e->fun->f->prim != P_MAP) return false;
  const Type *t = e->args[0]->type;
  return t && t->kind == TY_ARRAY && t->elem->kind == TY_ARRAY;
}

static const Expr *flatten_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *flat = ir_call1(a, ir_prim(a, P_JOIN), e->args[0]);
  const Expr *mapped = ir_call1(a, ir_prim_f(a, P_MAP, e->fun->f->f), flat);
  return ir_call1(a, ir_prim_n(a, P_SPLIT, e->args[0]->type->elem->len), mapped);
}

static const Rule RULES[] = {
    {"split-join", "map[f](x) => join(map[map[f]](split[n](x)))  (x: [T]N; N % n = 0)", 1, {"n: tile size"},
     splitjoin_match, splitjoin_build},
    {"map-flatten", "map[map[f]](x) => split[m](map[f](join(x)))  (x: [[T]m]n)", 0, {0}, flatten_match,
     flatten_build},
};

const Rule *rw_splitjoin_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
