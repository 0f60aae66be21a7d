/* rules_interchange.c: exchanging two nested maps.
 *
 * map over A of (map over B of h(a, b)) is, transposed, map over B of (map
 * over A of h(a, b)), provided B does not depend on a (else there is no single
 * B to map over outside). Strategies use it to move a loop inward or outward:
 * a map over output channels inside the maps over pixels gives each work-item
 * several channels of one pixel (a register block), and a map over channel
 * groups moved to the top level becomes a kernel of its own. The transpose
 * moves no data: reading or writing through it is a view.
 *
 * map-interchange-zip is the same exchange when B depends on a (the pixel
 * groups of a row, when rows are the outer map): the inner arrays B(a), all
 * of one length, are laid side by side and transposed, and the map over A
 * gets each a with its element of B(a). B must be a view, so that building
 * the arrays of all B(a) moves no data.
 */
#include "rewrite/rules.h"

#include "lower/view.h"

/* map[fun(a) -> map[fun(b) -> h](B)](A), B free of a; both high-level maps. */
static bool interchange_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  if (!rw_is_call(e, P_MAP)) return false;
  Param *pa;
  const Expr *inner = rw_lambda_body1(e->fun->f, &pa);
  if (!inner || !rw_is_call(inner, P_MAP) || inner->fun->f->kind != F_LAMBDA) return false;
  return !rw_uses(inner->args[0], pa);
}

static const Expr *interchange_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *pa, *pb;
  const Expr *inner = rw_lambda_body1(e->fun->f, &pa);
  const Expr *h = rw_lambda_body1(inner->fun->f, &pb);
  const Fun *map_a = ir_prim_f(a, P_MAP, ir_lambda(a, 1, &pa, h));
  const Fun *map_b = ir_prim_f(a, P_MAP, ir_lambda(a, 1, &pb, ir_call1(a, map_a, e->args[0])));
  return ir_call1(a, ir_prim(a, P_TRANSPOSE), ir_call1(a, map_b, inner->args[0]));
}

/* map[fun(a) -> map[fun(b) -> h](B)](A), B using a, A and B views; both high-level maps. */
static bool zip_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  if (!rw_is_call(e, P_MAP)) return false;
  Param *pa;
  const Expr *inner = rw_lambda_body1(e->fun->f, &pa);
  if (!inner || !rw_is_call(inner, P_MAP) || inner->fun->f->kind != F_LAMBDA) return false;
  return rw_uses(inner->args[0], pa) && vw_is_view_expr(inner->args[0]) && vw_is_view_expr(e->args[0]);
}

static const Expr *zip_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *pa, *pb, *p = rw_param(a, "p"), *q = rw_param(a, "q");
  const Expr *inner = rw_lambda_body1(e->fun->f, &pa);
  const Expr *h = rw_lambda_body1(inner->fun->f, &pb);
  h = rw_subst(a, h, pa, ir_call1(a, ir_prim_i(a, P_GET, 0), ir_ref(a, p)));
  h = rw_subst(a, h, pb, ir_call1(a, ir_prim_i(a, P_GET, 1), ir_ref(a, p)));
  const Expr *pairs = rw_call2(a, ir_prim(a, P_ZIP), e->args[0], ir_ref(a, q));
  const Expr *over_a = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &p, h)), pairs);
  const Expr *bs = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &pa, inner->args[0])), e->args[0]);
  const Expr *cols = ir_call1(a, ir_prim(a, P_TRANSPOSE), bs);
  const Expr *over_b = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &q, over_a)), cols);
  return ir_call1(a, ir_prim(a, P_TRANSPOSE), over_b);
}

static const Rule RULES[] = {
    {"map-interchange",
     "map[fun(a) -> map[fun(b) -> h](B)](A) => transpose(map[fun(b) -> map[fun(a) -> h](A)](B))  (B free of a; "
     "both high-level maps)",
     0, {0}, interchange_match, interchange_build},
    {"map-interchange-zip",
     "map[fun(a) -> map[fun(b) -> h](B)](A) => transpose(map[fun(q) -> map[fun(p) -> h[a := get[0](p), b := "
     "get[1](p)]](zip(A, q))](transpose(map[fun(a) -> B](A))))  (B using a, all B of one length; A and B views; "
     "both high-level maps)",
     0, {0}, zip_match, zip_build},
};

const Rule *rw_interchange_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
