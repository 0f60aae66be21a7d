/* rules_vector.c: vectorisation.
 *
 * A map of a scalar user function over floats becomes a map over float
 * vectors of width n whose function is mapVec[f]: the lowering emits f once
 * more with every float of its signature made floatn (f_v4), and the loads and
 * stores become vloadn/vstoren through asVector and asScalar, which move no
 * data. The map keeps its kind (map, mapGlb[d], mapSeq, ...). Only a user
 * function of one float to float qualifies: that is what mapVec accepts
 * (docs/ir.md), and its body is then valid at any vector width because OpenCL
 * C arithmetic is element-wise. n must be a constant width (2, 3, 4, 8 or 16)
 * dividing the length; the parameter space sees the division in asVector[n].
 */
#include "rewrite/rules.h"

static bool is_float_to_float(const Fun *f) {
  return f->kind == F_USER && f->uf->nparams == 1 && f->uf->ptypes[0]->kind == TY_FLOAT &&
         f->uf->ret->kind == TY_FLOAT;
}

static bool vector_width(const AExpr *n) {
  int64_t w;
  return ax_is_cst(n, &w) && (w == 2 || w == 3 || w == 4 || w == 8 || w == 16);
}

/* mapX[f](x), x: [float]N, f: float -> float a user function, n | N. */
static bool vectorise_match(const Expr *e, const AExpr *const *args) {
  if (!rw_is_map_call(e) || !is_float_to_float(e->fun->f) || !rw_len(e->args[0])) return false;
  return e->args[0]->type->elem->kind == TY_FLOAT && vector_width(args[0]) &&
         rw_may_divide(rw_len(e->args[0]), args[0]);
}

static const Expr *vectorise_build(Arena *a, const Expr *e, const AExpr *const *args) {
  const Expr *vecs = ir_call1(a, ir_prim_n(a, P_AS_VECTOR, args[0]), e->args[0]);
  const Fun *map = rw_with_nested(a, e->fun, ir_prim_f(a, P_MAP_VEC, e->fun->f));
  return ir_call1(a, ir_prim(a, P_AS_SCALAR), ir_call1(a, map, vecs));
}

static const Rule RULES[] = {
    {"vectorise",
     "map[f](x) => asScalar(map[mapVec[f]](asVector[n](x)))  (f a user function float -> float; x: [float]N; "
     "n in {2, 3, 4, 8, 16}, N % n = 0; any map kind, kept)",
     1, {"n: vector width"}, vectorise_match, vectorise_build},
};

const Rule *rw_vector_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
