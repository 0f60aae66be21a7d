/* rules_fusion.c: composing and decomposing the functions of maps.
 *
 * Map fusion turns two passes over an array into one (no intermediate array),
 * fission is its inverse (so that the two halves can be mapped to different
 * parallel levels or memories), eta-expansion makes a map's nested primitive a
 * position of its own (map[slide[3, 1]] has no expression inside it to rewrite
 * until it is map[fun(y) -> slide[3, 1](y)]), reduce-map fusion folds the
 * per-element work of a map into a reduction's step, and beta-reduction
 * inlines a let (what fusing a lambda leaves) when its value is used at most
 * once and not inside a function, or is a view (layout only), so no work is
 * repeated. map-fission-zip computes a part E of each element's work first,
 * in a map of its own, and hands the rest each element with its E: what
 * moves partial results out of a nest of maps, level by level, until they are
 * a kernel of their own. All are valid for every
 * function: maps and reduce are defined element by element and left to right
 * (docs/ir.md), so only the shapes are checked. Both maps of a fusion or a
 * fission are of one kind (map, mapSeq, mapGlb[d], ...), which the result keeps.
 */
#include "rewrite/rules.h"

#include "lower/view.h"

static bool same_map(const Fun *f, const Fun *g) {
  return f->kind == F_PRIM && g->kind == F_PRIM && f->prim == g->prim &&
         (prim_static(f->prim) != S_DF || f->dim == g->dim);
}

/* map[f](map[g](x)) */
static bool fusion_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return rw_is_map_call(e) && rw_is_map_call(e->args[0]) && same_map(e->fun, e->args[0]->fun);
}

static const Expr *fusion_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *inner = e->args[0];
  Param *y = rw_param(a, "y");
  const Expr *body = ir_call1(a, e->fun->f, ir_call1(a, inner->fun->f, ir_ref(a, y)));
  return ir_call1(a, rw_with_nested(a, e->fun, ir_lambda(a, 1, &y, body)), inner->args[0]);
}

/* map[fun(y) -> f(g(y))](x), with y used nowhere in f or g. */
static bool fission_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *y;
  const Expr *body = rw_is_map_call(e) ? rw_lambda_body1(e->fun->f, &y) : NULL;
  if (!body || body->kind != E_CALL || body->nargs != 1) return false;
  const Expr *inner = body->args[0];
  if (inner->kind != E_CALL || inner->nargs != 1 || !rw_is_ref(inner->args[0], y)) return false;
  return !rw_fun_uses(body->fun, y) && !rw_fun_uses(inner->fun, y);
}

static const Expr *fission_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *body = e->fun->f->body, *inner = body->args[0];
  const Expr *first = ir_call1(a, rw_with_nested(a, e->fun, inner->fun), e->args[0]);
  return ir_call1(a, rw_with_nested(a, e->fun, body->fun), first);
}

/* map[fun(y) -> g(E)](x), g a function that does not use y, E using y and not
 * just y (that is map-fission). */
static bool fission_call_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *y;
  const Expr *body = rw_is_map_call(e) ? rw_lambda_body1(e->fun->f, &y) : NULL;
  if (!body || body->kind != E_CALL || body->nargs != 1 || body->fun->kind == F_LAMBDA) return false;
  return !rw_fun_uses(body->fun, y) && rw_uses(body->args[0], y) && !rw_is_ref(body->args[0], y);
}

static const Expr *fission_call_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *y;
  const Expr *body = rw_lambda_body1(e->fun->f, &y);
  const Expr *first = ir_call1(a, rw_with_nested(a, e->fun, ir_lambda(a, 1, &y, body->args[0])), e->args[0]);
  return ir_call1(a, rw_with_nested(a, e->fun, body->fun), first);
}

/* map[f](x), f not a lambda. */
static bool eta_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return rw_is_map_call(e) && e->fun->f->kind != F_LAMBDA;
}

static const Expr *eta_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *y = rw_param(a, "y");
  const Fun *f = ir_lambda(a, 1, &y, ir_call1(a, e->fun->f, ir_ref(a, y)));
  return ir_call1(a, rw_with_nested(a, e->fun, f), e->args[0]);
}

/* reduce[f](z, map[g](x)), any reduce and any map kind. */
static bool reduce_map_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return e->kind == E_CALL && e->fun->kind == F_PRIM && prim_is_reduce(e->fun->prim) && rw_is_map_call(e->args[1]);
}

static const Expr *reduce_map_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *map = e->args[1];
  Param *ps[2] = {rw_param(a, "acc"), rw_param(a, "y")};
  const Expr *body = rw_call2(a, e->fun->f, ir_ref(a, ps[0]), ir_call1(a, map->fun->f, ir_ref(a, ps[1])));
  const Fun *step = rw_with_nested(a, e->fun, ir_lambda(a, 2, ps, body));
  return rw_call2(a, step, e->args[0], map->args[0]);
}

/* (fun(c1, ...) -> b)(e1, ...), each ci used at most once in b, not inside a lambda. */
static bool beta_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  if (e->kind != E_CALL || e->fun->kind != F_LAMBDA || e->fun->nparams != e->nargs) return false;
  for (int i = 0; i < e->nargs; i++) {
    bool in_lambda = false;
    if (vw_is_view_expr(e->args[i])) continue;   // a view: inlining it repeats no work
    if (rw_count_uses(e->fun->body, e->fun->params[i], &in_lambda) > 1 || in_lambda) return false;
  }
  return true;
}

static const Expr *beta_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *body = e->fun->body;
  for (int i = 0; i < e->nargs; i++) body = rw_subst(a, body, e->fun->params[i], e->args[i]);
  return body;
}

/* ---- map-fission-zip ------------------------------------------------------------- */

/* In map[fun(y) -> B](x): the path (from B) that follows the last argument of
 * each call d times; false when there is none or x is not a view. */
static bool fission_zip_path(const Expr *e, const AExpr *const *args, RwPath *out, const Expr **sub, Param **y) {
  int64_t d;
  const Expr *b = rw_is_map_call(e) ? rw_lambda_body1(e->fun->f, y) : NULL;
  if (!b || !ax_is_cst(args[0], &d) || d < 1 || d > RW_MAX_PATH || !vw_is_view_expr(e->args[0])) return false;
  out->n = 0;
  for (int64_t i = 0; i < d; i++) {
    if (b->kind != E_CALL || b->nargs == 0) return false;
    out->step[out->n++] = b->nargs - 1;
    b = b->args[b->nargs - 1];
  }
  *sub = b;
  return b->kind == E_CALL && rw_uses(b, *y);
}

static bool fission_zip_match(const Expr *e, const AExpr *const *args) {
  RwPath p;
  const Expr *sub;
  Param *y;
  return fission_zip_path(e, args, &p, &sub, &y);
}

static const Expr *fission_zip_build(Arena *a, const Expr *e, const AExpr *const *args) {
  RwPath path;
  const Expr *sub;
  Param *y;
  fission_zip_path(e, args, &path, &sub, &y);
  Param *p = rw_param(a, "p");
  const Expr *get0 = ir_call1(a, ir_prim_i(a, P_GET, 0), ir_ref(a, p));
  const Expr *get1 = ir_call1(a, ir_prim_i(a, P_GET, 1), ir_ref(a, p));
  const Expr *rest = rw_subst(a, rw_replace(a, e->fun->f->body, &path, get1), y, get0);
  const Expr *first = ir_call1(a, rw_with_nested(a, e->fun, ir_lambda(a, 1, &y, sub)), e->args[0]);
  const Expr *pairs = rw_call2(a, ir_prim(a, P_ZIP), e->args[0], first);
  return ir_call1(a, rw_with_nested(a, e->fun, ir_lambda(a, 1, &p, rest)), pairs);
}

/* The first of a zip's arrays that is a plain map, or -1. */
static int zipped_map(const Expr *z) {
  for (int i = 0; i < z->nargs; i++)
    if (rw_is_call(z->args[i], P_MAP)) return i;
  return -1;
}

/* map[fun(c) -> B](zip(b0, ..., map[g](a), ..., bn)), the map the i-th array
 * (zipped_map): B with get[i](c) := g(get[i](c)). A pair (n = 1) is taken
 * apart (rw_subst_pair: also a two-parameter user function applied to c); a
 * wider tuple must be used only through get[i](c). */
static const Expr *zip_map_body(Arena *a, const Expr *e, Param *c, const Expr *b) {
  const Expr *z = e->args[0];
  int i = zipped_map(z);
  const Expr *u = ir_call1(a, z->args[i]->fun->f, ir_call1(a, ir_prim_i(a, P_GET, i), ir_ref(a, c)));
  if (z->nargs == 2) {
    const Expr *other = ir_call1(a, ir_prim_i(a, P_GET, 1 - i), ir_ref(a, c));
    return i == 0 ? rw_subst_pair(a, b, c, u, other) : rw_subst_pair(a, b, c, other, u);
  }
  return rw_only_fields(b, c, z->nargs) ? rw_subst_field(a, b, c, i, u) : NULL;
}

/* map[fun(c) -> B](zip(b0, ..., map[g](a), ..., bn)), c used in B only taken apart. */
static bool zip_map_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *c;
  const Expr *b = rw_is_map_call(e) ? rw_lambda_body1(e->fun->f, &c) : NULL;
  if (!b || e->nargs != 1 || !rw_is_call(e->args[0], P_ZIP) || e->args[0]->nargs < 2 || e->args[0]->nargs > 16 ||
      zipped_map(e->args[0]) < 0)
    return false;
  Arena *a = arena_new();   // the matcher keeps nothing it builds
  bool apart = zip_map_body(a, e, c, b) != NULL;
  arena_free(a);
  return apart;
}

static const Expr *zip_map_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *c;
  const Expr *b = rw_lambda_body1(e->fun->f, &c), *z = e->args[0];
  const Expr *zargs[16];
  for (int i = 0; i < z->nargs; i++) zargs[i] = z->args[i];
  zargs[zipped_map(z)] = z->args[zipped_map(z)]->args[0];
  const Expr *tuples = ir_call(a, z->fun, z->nargs, zargs);
  return ir_call1(a, rw_with_nested(a, e->fun, ir_lambda(a, 1, &c, zip_map_body(a, e, c, b))), tuples);
}

/* ---- let-field: a field of a map's element bound once ------------------------------ */

/* map[fun(y) -> B](x), y a tuple whose field i B reads, or (i = 0) y no
 * tuple, which B reads. */
static bool let_field_match(const Expr *e, const AExpr *const *args) {
  Param *y;
  int64_t i;
  const Expr *b = rw_is_map_call(e) ? rw_lambda_body1(e->fun->f, &y) : NULL;
  if (!b || e->nargs != 1 || !ax_is_cst(args[0], &i) || !y->type || i < 0) return false;
  if (y->type->kind != TY_TUPLE) return i == 0 && rw_uses(b, y);
  return i < y->type->n && rw_find_field(b, y, (int)i, NULL);
}

static const Expr *let_field_build(Arena *a, const Expr *e, const AExpr *const *args) {
  Param *y, *v = rw_param(a, "field");
  int64_t i;
  const Expr *b = rw_lambda_body1(e->fun->f, &y);
  ax_is_cst(args[0], &i);
  bool tuple = y->type->kind == TY_TUPLE;
  const Expr *field = tuple ? ir_call1(a, ir_prim_i(a, P_GET, (int)i), ir_ref(a, y)) : ir_ref(a, y);
  const Expr *body = tuple ? rw_subst_field(a, b, y, (int)i, ir_ref(a, v)) : rw_subst(a, b, y, ir_ref(a, v));
  const Expr *let = ir_call1(a, ir_lambda(a, 1, &v, body), field);
  return ir_call1(a, rw_with_nested(a, e->fun, ir_lambda(a, 1, &y, let)), e->args[0]);
}


/* ---- map-through-views ----------------------------------------------------- */

/* The scalar function at the bottom of a nest of maps: f itself when a user
 * function of one float to a float, map[F] and fun(y) -> map[F](y) a level
 * each; NULL otherwise. */
static const Fun *scalar_fun(const Fun *f) {
  if (f->kind == F_USER)
    return f->uf->nparams == 1 && ty_equal(f->uf->ptypes[0], ty_float()) && ty_equal(f->uf->ret, ty_float()) ? f
                                                                                                             : NULL;
  if (f->kind == F_PRIM && f->prim == P_MAP) return scalar_fun(f->f);
  Param *y;
  const Expr *body = f->kind == F_LAMBDA ? rw_lambda_body1(f, &y) : NULL;
  if (body && rw_is_call(body, P_MAP) && rw_is_ref(body->args[0], y) && !rw_fun_uses(body->fun, y))
    return scalar_fun(body->fun);
  return NULL;
}

/* The nest f with its scalar function replaced by `by`. */
static const Fun *with_scalar(Arena *a, const Fun *f, const Fun *by) {
  if (f->kind == F_USER) return by;
  if (f->kind == F_PRIM) return rw_with_nested(a, f, with_scalar(a, f->f, by));
  Param *y;
  const Expr *body = rw_lambda_body1(f, &y);
  Param *z = rw_param(a, "y");
  return ir_lambda(a, 1, &z, ir_call1(a, with_scalar(a, body->fun, by), ir_ref(a, z)));
}

/* Views that move values without making any: a value is one value of the
 * array under it (pad, which makes constants, and the tuples' are not). */
static bool moves_values(const Fun *f) {
  if (f->kind != F_PRIM) return false;
  switch (f->prim) {
  case P_SPLIT: case P_JOIN: case P_TRANSPOSE: case P_GATHER: case P_SCATTER: case P_CROP: case P_SLIDE:
  case P_AS_SCALAR: case P_AS_VECTOR:
    return true;
  default: return false;
  }
}

/* Under the views of e (following their arrays, and into the body of a map
 * of a lambda whose body is views of its element), the first map of a
 * scalar function of floats: its path appended to *at; false when the walk
 * meets anything else first. */
static bool find_producer(const Expr *e, RwPath *at) {
  if (e->kind != E_CALL || e->nargs != 1) return false;
  const Fun *f = e->fun;
  if (rw_is_call(e, P_MAP) && scalar_fun(f)) return true;
  int n = at->n;
  if (n + 1 >= RW_MAX_PATH) return false;
  if (moves_values(f) || (rw_is_call(e, P_MAP) && vw_is_layout_fun(f->f))) {
    at->step[at->n++] = 0;
    if (find_producer(e->args[0], at)) return true;
  } else if (rw_is_call(e, P_MAP) && f->f->kind == F_LAMBDA && f->f->nparams == 1) {
    at->step[at->n++] = 1;   // the lambda's body: a call's last child
    if (find_producer(f->f->body, at)) return true;
    at->n = n;
    at->step[at->n++] = 0;
    if (find_producer(e->args[0], at)) return true;
  }
  at->n = n;
  return false;
}

/* map[g](V) with g a nest of maps of a scalar function of floats, V views
 * over a map of another such function. */
static bool through_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  if (!rw_is_call(e, P_MAP) || !scalar_fun(e->fun)) return false;
  RwPath at = {0};
  return find_producer(e->args[0], &at);
}

static const Expr *through_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  RwPath at = {0};
  find_producer(e->args[0], &at);
  const Expr *inner = rw_at(e->args[0], &at);
  const Fun *g = scalar_fun(e->fun), *h = scalar_fun(inner->fun);
  Param *y = rw_param(a, "y");
  const Fun *gh = ir_lambda(a, 1, &y, ir_call1(a, g, ir_call1(a, h, ir_ref(a, y))));
  const Expr *fused = ir_call1(a, with_scalar(a, inner->fun, gh), inner->args[0]);
  return rw_replace(a, e->args[0], &at, fused);
}

static const Rule RULES[] = {
    {"map-fusion", "map[f](map[g](x)) => map[fun(y) -> f(g(y))](x)  (both maps of one kind, kept)", 0, {0},
     fusion_match, fusion_build},
    {"map-fission", "map[fun(y) -> f(g(y))](x) => map[f](map[g](x))  (y not used in f or g; one map kind, kept)",
     0, {0}, fission_match, fission_build},
    {"map-eta", "map[f](x) => map[fun(y) -> f(y)](x)  (f not a lambda; any map kind)", 0, {0}, eta_match,
     eta_build},
    {"map-through-views",
     "map^d[g](V(map^e[h](x))) => V(map^e[fun(y) -> g(h(y))](x))  (g and h user functions of a float to a float at "
     "the bottom of nests of maps; V views that only move values: split, join, transpose, gather, scatter, crop, "
     "slide, asScalar, asVector and maps of them or of lambdas of them, no pad: each value of the result is one "
     "value of the inner map's, so g is applied where h is: an activation into the copy that moves a tile out)",
     0, {0}, through_match, through_build},
    {"map-fission-call",
     "map[fun(y) -> g(E)](x) => map[g](map[fun(y) -> E](x))  (g not using y, E using y; one map kind, kept: "
     "e.g. a join or an activation after the per-element work leaves the map)",
     0, {0}, fission_call_match, fission_call_build},
    {"reduce-map-fusion",
     "reduce[f](z, map[g](x)) => reduce[fun(acc, y) -> f(acc, g(y))](z, x)  (any reduce and map kind; the reduce "
     "kind is kept)",
     0, {0}, reduce_map_match, reduce_map_build},
    {"map-fission-zip",
     "map[fun(y) -> C[E]](x) => map[fun(p) -> C[get[1](p)][y := get[0](p)]](zip(x, map[fun(y) -> E](x)))  (E the "
     "call reached from the body by following the last argument of each call d times, using y; x a view; one map "
     "kind, kept)",
     1, {"d: how deep E lies along the last arguments"}, fission_zip_match, fission_zip_build},
    {"beta", "(fun(c) -> b)(e) => b[c := e]  (c used at most once in b and not inside a function, or e a view: no "
     "work repeated; also for several parameters; let c = e in b is the same call)",
     0, {0}, beta_match, beta_build},
    {"let-field",
     "map[fun(y) -> B](x) => map[fun(y) -> (fun(v) -> B[get[i](y) := v])(get[i](y))](x)  (y a tuple whose field i B "
     "reads; with y no tuple and i = 0, y itself: (fun(v) -> B[y := v])(y); beta's inverse: the field bound once "
     "per element, so that a rule can place it, a copy into registers, say; any map kind, kept)",
     1, {"i: the field"}, let_field_match, let_field_build},
    {"zip-map-fusion",
     "map[fun(c) -> B](zip(b0, ..., map[g](a), ..., bn)) => map[fun(c) -> B[get[i](c) := g(get[i](c))]](zip(b0, "
     "..., a, ..., bn))  (the i-th array the first that is a plain map; c used in B only taken apart: get[j](c); "
     "the outer map of any kind, kept)",
     0, {0}, zip_map_match, zip_map_build},
};

const Rule *rw_fusion_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
