/* rules_layout.c: moving a map through a layout primitive.
 *
 * Layout primitives move no data, and a map works element by element, so a
 * map can be applied before or after a split or a gather: split[n] of a map's
 * result is a map over the tiles of a map over each tile, and a gather picks
 * the same elements whether f was applied before or after. Moving the map
 * inwards puts it next to the reduction or map that consumes it, where
 * map-fusion and reduce-map-fusion can merge it (the products of a dot
 * product fused into each partial sum, after reorder-reduce and
 * partial-reduce put a gather and a split between them). Valid for every f.
 *
 * split-zip cuts a zip of arrays into chunks the same way: chunk i of the
 * tuples is the tuples of chunk i of each array (two arrays, or more: a
 * scale=1 layer's window, weights and scales). It is what lets a reduction
 * walked in chunks (reduce-split-seq) see each chunk as two arrays of its
 * own, each a view that can be staged in local memory as a whole.
 */
#include "rewrite/rules.h"

/* split[n](map[f](x)) */
static bool split_map_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return rw_is_call(e, P_SPLIT) && rw_is_call(e->args[0], P_MAP);
}

static const Expr *split_map_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *map = e->args[0];
  const Expr *tiles = ir_call1(a, e->fun, map->args[0]);
  return ir_call1(a, ir_prim_f(a, P_MAP, map->fun), tiles);
}

/* gather[idx](mapX[f](x)) */
static bool gather_map_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return rw_is_call(e, P_GATHER) && rw_is_map_call(e->args[0]);
}

static const Expr *gather_map_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *map = e->args[0];
  return ir_call1(a, map->fun, ir_call1(a, e->fun, map->args[0]));
}

/* split[n](zip(u, v, ...)), 2 to 16 arrays */
static bool split_zip_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return rw_is_call(e, P_SPLIT) && rw_is_call(e->args[0], P_ZIP) && e->args[0]->nargs >= 2 && e->args[0]->nargs <= 16;
}

static const Expr *split_zip_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *zip = e->args[0];
  int n = zip->nargs;
  Param *c = rw_param(a, "c");
  const Expr *parts[16], *chunks[16];
  for (int i = 0; i < n; i++) {
    parts[i] = ir_call1(a, ir_prim_i(a, P_GET, i), ir_ref(a, c));
    chunks[i] = ir_call1(a, e->fun, zip->args[i]);
  }
  const Expr *rezip = ir_call(a, zip->fun, n, parts);
  return ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &c, rezip)), ir_call(a, zip->fun, n, chunks));
}

static const Rule RULES[] = {
    {"split-map", "split[n](map[f](x)) => map[map[f]](split[n](x))", 0, {0}, split_map_match, split_map_build},
    {"gather-map", "gather[idx](map[f](x)) => map[f](gather[idx](x))  (any map kind, kept)", 0, {0},
     gather_map_match, gather_map_build},
    {"split-zip", "split[n](zip(u, v, ...)) => map[fun(c) -> zip(get[0](c), get[1](c), ...)](zip(split[n](u), split[n](v), ...))",
     0, {0}, split_zip_match, split_zip_build},
};

const Rule *rw_layout_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
