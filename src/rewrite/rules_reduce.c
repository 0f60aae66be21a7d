/* rules_reduce.c: reshaping reductions.
 *
 * partial-reduce splits one reduction into independent partial reductions of
 * n elements each (work for parallel work-items) and a final reduction of the
 * partial results. It reorders the operations, so it needs an associative
 * operator with a neutral element: the matcher recognises the operator from
 * the user function's body (a + b, a * b, max, min, fmax, fmin on two scalars
 * of the accumulator's type) rather than trusting a name. The partial
 * reductions start from the neutral element and only the final one from z,
 * so z may be anything (a bias): z is counted once. For the idempotent max
 * and min the neutral element is z itself.
 *
 * reduce-init-out moves the initial value out of a reduction (the same
 * operator test): what lets reductions that start from different values (a
 * bias per output channel) become one reduction over an array of them.
 *
 * map-reduce-interchange turns "reduce each column" into "one reduction over
 * the rows whose accumulator is a whole row of partial results", and
 * reduce-map-interchange is its inverse. Both perform exactly the same
 * operations in the same order on every element, so they hold for every f.
 *
 * map-reduce-fuse is the general form of map-reduce-interchange: the
 * reductions of a map, each over its own array of one length and from its
 * own initial value, become one reduction whose accumulator is the array of
 * all of them (a register block: one loop, every accumulator updated per
 * step). The same operations in the same order again, for every f.
 * map-reduce-fuse-outer is the case of a map whose reductions walk the pairs
 * of one array they share and one of their own: each step then reads the
 * shared value once and every own value, the outer-product form a tile of
 * output channels and pixels needs to read its inputs and weights once.
 */
#include "rewrite/rules.h"

/* ---- partial-reduce ---------------------------------------------------------- */

static bool partial_match(const Expr *e, const AExpr *const *args) {
  if (!rw_is_call(e, P_REDUCE) || e->fun->f->kind != F_USER || !rw_len(e->args[1])) return false;
  const UserFun *uf = e->fun->f->uf;
  if (ir_user_op(uf) == IR_OP_NONE) return false;
  // read from half, the accumulator and the elements are floats (the loads convert)
  const Type *acc = ty_arith(e->args[0]->type), *elem = ty_arith(e->args[1]->type->elem);
  return ty_equal(acc, uf->ret) && ty_equal(elem, uf->ret) && rw_may_divide(rw_len(e->args[1]), args[0]);
}

static const Expr *neutral(Arena *a, const UserFun *uf, const Expr *z) {
  bool is_int = uf->ret->kind == TY_INT;
  switch (ir_user_op(uf)) {
  case IR_OP_ADD: return ir_lit(a, 0, is_int);
  case IR_OP_MUL: return ir_lit(a, 1, is_int);
  default: return z;  // max, min: idempotent, so z itself
  }
}

static const Expr *partial_build(Arena *a, const Expr *e, const AExpr *const *args) {
  const Expr *z = e->args[0], *x = e->args[1];
  Param *c = rw_param(a, "c");
  const Expr *part = rw_call2(a, e->fun, neutral(a, e->fun->f->uf, z), ir_ref(a, c));
  const Expr *chunks = ir_call1(a, ir_prim_n(a, P_SPLIT, args[0]), x);
  const Expr *parts = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &c, part)), chunks);
  return rw_call2(a, e->fun, z, ir_call1(a, ir_prim(a, P_JOIN), parts));
}

/* ---- reduce-init-out ------------------------------------------------------------ */

/* The same operator test as partial-reduce, without a chunk size. */
static bool init_out_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  if (!rw_is_call(e, P_REDUCE) || e->fun->f->kind != F_USER || !rw_len(e->args[1])) return false;
  const UserFun *uf = e->fun->f->uf;
  if (ir_user_op(uf) == IR_OP_NONE || e->args[0]->kind == E_LIT) return false;
  return ty_equal(ty_arith(e->args[0]->type), uf->ret) && ty_equal(ty_arith(e->args[1]->type->elem), uf->ret);
}

static const Expr *init_out_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *z = e->args[0];
  Param *r = rw_param(a, "r");
  const Expr *from_e = rw_call2(a, e->fun, neutral(a, e->fun->f->uf, z), e->args[1]);
  const Expr *add_z = rw_call2(a, e->fun->f, z, ir_ref(a, r));
  return ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &r, add_z)), from_e);
}

/* ---- map-reduce-interchange -------------------------------------------------- */

/* The reduction in map[fun(r) -> reduce[f](z, r)](...), with r used only as
 * the reduced array; NULL otherwise. */
static const Expr *column_reduce(const Expr *e) {
  Param *r;
  const Expr *body = rw_is_call(e, P_MAP) ? rw_lambda_body1(e->fun->f, &r) : NULL;
  if (!rw_is_call(body, P_REDUCE) || !rw_is_ref(body->args[1], r)) return NULL;
  return rw_uses(body->args[0], r) || rw_fun_uses(body->fun, r) ? NULL : body;
}

static bool interchange_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return column_reduce(e) && rw_is_call(e->args[0], P_TRANSPOSE);
}

static const Expr *get_field(Arena *a, int i, Param *p) { return ir_call1(a, ir_prim_i(a, P_GET, i), ir_ref(a, p)); }

static const Expr *interchange_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *red = column_reduce(e), *cols = e->args[0], *x = cols->args[0];
  Param *acc = rw_param(a, "acc"), *row = rw_param(a, "row"), *p = rw_param(a, "p"), *c = rw_param(a, "c");
  const Expr *fp = rw_call2(a, red->fun->f, get_field(a, 0, p), get_field(a, 1, p));
  const Expr *zipped = rw_call2(a, ir_prim(a, P_ZIP), ir_ref(a, acc), ir_ref(a, row));
  const Expr *step_body = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &p, fp)), zipped);
  const Fun *step = ir_prim_f(a, P_REDUCE, ir_lambda(a, 2, (Param *[]){acc, row}, step_body));
  const Expr *init = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &c, red->args[0])), cols);
  return ir_call1(a, ir_prim(a, P_TRANSPOSE), rw_call2(a, step, init, x));
}

/* ---- map-reduce-fuse ------------------------------------------------------------ */

/* map[fun(a) -> reduce[f](z, X)](A), f not using a, X an array: the reduce. */
static const Expr *fused_reduce(const Expr *e, Param **a) {
  const Expr *body = rw_is_call(e, P_MAP) ? rw_lambda_body1(e->fun->f, a) : NULL;
  if (!rw_is_call(body, P_REDUCE) || rw_fun_uses(body->fun, *a) || !rw_len(body->args[1])) return NULL;
  return body;
}

static bool fuse_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *pa;
  return fused_reduce(e, &pa) != NULL;
}

static const Expr *fuse_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *pa;
  const Expr *red = fused_reduce(e, &pa);
  Param *acc = rw_param(a, "acc"), *row = rw_param(a, "row"), *p = rw_param(a, "p");
  const Expr *fp = rw_call2(a, red->fun->f, get_field(a, 0, p), get_field(a, 1, p));
  const Expr *zipped = rw_call2(a, ir_prim(a, P_ZIP), ir_ref(a, acc), ir_ref(a, row));
  const Expr *step_body = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &p, fp)), zipped);
  const Fun *step = ir_prim_f(a, P_REDUCE, ir_lambda(a, 2, (Param *[]){acc, row}, step_body));
  const Expr *init = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &pa, red->args[0])), e->args[0]);
  const Expr *arrays = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &pa, red->args[1])), e->args[0]);
  const Expr *rows = ir_call1(a, ir_prim(a, P_TRANSPOSE), arrays);
  return ir_call1(a, ir_prim(a, P_TRANSPOSE), rw_call2(a, step, init, rows));
}

/* ---- map-reduce-fuse-outer --------------------------------------------------------- */

/* map[fun(a) -> reduce[fun(acc, y) -> B](z, zip(X0, ..., Xn-1))](A), 2 <= n
 * <= 16, exactly one of the Xi using a (*own its index; the others are
 * shared by every a: a scale=1 layer's scales beside its window), y used
 * only taken apart, f not using a: the reduce. */
static const Expr *outer_reduce(const Expr *e, Param **pa, int *own) {
  const Expr *red = fused_reduce(e, pa);
  if (!red || red->fun->f->kind != F_LAMBDA || red->fun->f->nparams != 2) return NULL;
  const Expr *x = red->args[1];
  if (!rw_is_call(x, P_ZIP) || x->nargs < 2 || x->nargs > 16) return NULL;
  int users = 0;
  for (int i = 0; i < x->nargs; i++)
    if (rw_uses(x->args[i], *pa)) users++, *own = i;
  return users == 1 ? red : NULL;
}

static bool outer_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *pa;
  int own;
  const Expr *red = outer_reduce(e, &pa, &own);
  if (!red) return false;
  Arena *scratch = arena_new();   // the body must come apart: try it
  const Fun *f = red->fun->f;
  int n = red->args[1]->nargs;
  const Expr *fields[16];
  for (int i = 0; i < n; i++) fields[i] = ir_ref(scratch, rw_param(scratch, "u"));
  bool ok = rw_subst_tuple(scratch, f->body, f->params[1], n, fields) != NULL;
  arena_free(scratch);
  return ok;
}

static const Expr *outer_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Param *pa;
  int own;
  const Expr *red = outer_reduce(e, &pa, &own);
  const Fun *f = red->fun->f;
  const Expr *xs = red->args[1];
  int n = xs->nargs;
  Param *acc = rw_param(a, "acc"), *row = rw_param(a, "row"), *p = rw_param(a, "p");
  // an element: the shared values of this step, with this a's accumulator and own value
  const Expr *fields[16], *rows_args[16];
  for (int i = 0; i < n; i++) fields[i] = i == own ? get_field(a, 1, p) : get_field(a, i, row);
  const Expr *body = rw_subst_tuple(a, f->body, f->params[1], n, fields);
  body = rw_subst(a, body, f->params[0], get_field(a, 0, p));
  const Expr *mine_all = get_field(a, own, row);
  const Expr *step_body =
      ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &p, body)), rw_call2(a, ir_prim(a, P_ZIP), ir_ref(a, acc), mine_all));
  const Fun *step = ir_prim_f(a, P_REDUCE, ir_lambda(a, 2, (Param *[]){acc, row}, step_body));
  const Expr *init = ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &pa, red->args[0])), e->args[0]);
  const Expr *owns = ir_call1(a, ir_prim(a, P_TRANSPOSE),
                              ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &pa, xs->args[own])), e->args[0]));
  for (int i = 0; i < n; i++) rows_args[i] = i == own ? owns : xs->args[i];
  const Expr *rows = ir_call(a, ir_prim(a, P_ZIP), n, rows_args);
  return ir_call1(a, ir_prim(a, P_TRANSPOSE), rw_call2(a, step, init, rows));
}

/* ---- reduce-map-interchange -------------------------------------------------- */

static bool is_field(const Expr *e, int i, const Param *p) {
  return rw_is_call(e, P_GET) && e->fun->index == i && rw_is_ref(e->args[0], p);
}

/* In transpose(reduce[fun(acc, row) -> map[fun(p) -> f(get[0](p), get[1](p))](zip(acc, row))](init, x)):
 * the call f(...), with f using none of acc, row, p; NULL otherwise. */
static const Expr *row_step(const Expr *red) {
  const Fun *step = red->fun->f;
  if (step->kind != F_LAMBDA || step->nparams != 2) return NULL;
  Param *acc = step->params[0], *row = step->params[1], *p;
  const Expr *map = step->body, *zip = map->kind == E_CALL ? map->args[0] : NULL;
  if (!rw_is_call(map, P_MAP) || !rw_is_call(zip, P_ZIP) || zip->nargs != 2) return NULL;
  if (!rw_is_ref(zip->args[0], acc) || !rw_is_ref(zip->args[1], row)) return NULL;
  const Expr *fp = rw_lambda_body1(map->fun->f, &p);
  if (!fp || fp->kind != E_CALL || fp->nargs != 2 || !is_field(fp->args[0], 0, p) || !is_field(fp->args[1], 1, p))
    return NULL;
  const Fun *f = fp->fun;
  return rw_fun_uses(f, acc) || rw_fun_uses(f, row) || rw_fun_uses(f, p) ? NULL : fp;
}

/* init = map[fun(c) -> z](ys), z not using c: z; else NULL. */
static const Expr *constant_row(const Expr *init) {
  Param *c;
  const Expr *z = rw_is_call(init, P_MAP) ? rw_lambda_body1(init->fun->f, &c) : NULL;
  return z && !rw_uses(z, c) ? z : NULL;
}

static bool back_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *red = rw_is_call(e, P_TRANSPOSE) ? e->args[0] : NULL;
  if (!rw_is_call(red, P_REDUCE) || !row_step(red) || !constant_row(red->args[0])) return false;
  const Type *x = red->args[1]->type;
  const AExpr *n = rw_len(red->args[0]);
  return x->kind == TY_ARRAY && x->elem->kind == TY_ARRAY && n && ax_equal(n, x->elem->len);
}

static const Expr *back_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *red = e->args[0], *x = red->args[1];
  const Expr *z = constant_row(red->args[0]);
  Param *r = rw_param(a, "r");
  const Expr *body = rw_call2(a, ir_prim_f(a, P_REDUCE, row_step(red)->fun), z, ir_ref(a, r));
  const Expr *cols = ir_call1(a, ir_prim(a, P_TRANSPOSE), x);
  return ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &r, body)), cols);
}

/* ---- reduce-split-seq ---------------------------------------------------------- */

/* The same reduction walked in chunks of n: an outer reduction over the
 * chunks whose step runs the inner reduction over one chunk from the running
 * accumulator. Same operations, same order, so it holds for every f. The
 * inner reduction returns a one-element array; join turns it back into the
 * accumulator, which is why the accumulator must be an array (a register
 * block, after map-reduce-fuse). It is what lets a work-group stage one chunk
 * of its inputs at a time. */
static bool split_seq_match(const Expr *e, const AExpr *const *args) {
  if (!(rw_is_call(e, P_REDUCE) || rw_is_call(e, P_REDUCE_SEQ)) || !rw_len(e->args[1])) return false;
  return e->args[0]->type && e->args[0]->type->kind == TY_ARRAY && rw_may_divide(rw_len(e->args[1]), args[0]);
}

static const Expr *split_seq_build(Arena *a, const Expr *e, const AExpr *const *args) {
  Param *ps[2] = {rw_param(a, "acc"), rw_param(a, "c")};
  const Expr *inner = rw_call2(a, e->fun, ir_ref(a, ps[0]), ir_ref(a, ps[1]));
  const Fun *step = ir_lambda(a, 2, ps, ir_call1(a, ir_prim(a, P_JOIN), inner));
  const Fun *outer = ir_prim_f(a, e->fun->prim, step);
  return rw_call2(a, outer, e->args[0], ir_call1(a, ir_prim_n(a, P_SPLIT, args[0]), e->args[1]));
}

static const Rule RULES[] = {
    {"partial-reduce",
     "reduce[f](z, x) => reduce[f](z, join(map[fun(c) -> reduce[f](e, c)](split[n](x))))  (f associative with "
     "neutral element e, recognised from its body: a + b with e = 0, a * b with e = 1, max/min/fmax/fmin with "
     "e = z; f: (A, A) -> A, x: [A]N, N % n = 0)",
     1, {"n: elements per partial reduction"}, partial_match, partial_build},
    {"reduce-init-out",
     "reduce[f](z, x) => map[fun(r) -> f(z, r)](reduce[f](e, x))  (f associative with neutral element e, as for "
     "partial-reduce; z not a literal. The reduction then starts from a constant, so reductions of different z "
     "can be interchanged with a map; z is applied once at the end)",
     0, {0}, init_out_match, init_out_build},
    {"map-reduce-interchange",
     "map[fun(r) -> reduce[f](z, r)](transpose(x)) => transpose(reduce[fun(acc, row) -> map[fun(p) -> f(get[0](p), "
     "get[1](p))](zip(acc, row))](map[fun(c) -> z](transpose(x)), x))  (x: [[T]M]N; r not used in f or z; the same "
     "operations in the same order)",
     0, {0}, interchange_match, interchange_build},
    {"map-reduce-fuse",
     "map[fun(a) -> reduce[f](z, X)](A) => transpose(reduce[fun(acc, row) -> map[fun(p) -> f(get[0](p), "
     "get[1](p))](zip(acc, row))](map[fun(a) -> z](A), transpose(map[fun(a) -> X](A))))  (f not using a; each X "
     "of one length; z and X may use a: one reduction with an array of accumulators, a register block)",
     0, {0}, fuse_match, fuse_build},
    {"map-reduce-fuse-outer",
     "map[fun(a) -> reduce[fun(acc, y) -> B](z, zip(U, V))](A) => transpose(reduce[fun(acc', row) -> "
     "map[fun(p) -> B[acc := get[0](p), y := (get[0](row), get[1](p))]](zip(acc', get[1](row)))](map[fun(a) -> "
     "z](A), zip(U, transpose(map[fun(a) -> V](A)))))  (U not using a, V using a, or the mirror; y used only taken "
     "apart, by a two-parameter user function or get; the reduction over the pairs of one shared and one own "
     "array becomes one over the shared value and all the own values at once: an outer product)",
     0, {0}, outer_match, outer_build},
    {"reduce-split-seq",
     "reduce[f](z, x) => reduce[fun(acc, c) -> join(reduce[f](acc, c))](z, split[n](x))  (z an array, so that "
     "join of the inner one-element result is the accumulator again; x: [T]N, N % n = 0; the same operations in "
     "the same order, for every f; reduce or reduceSeq, kept)",
     1, {"n: elements per chunk"}, split_seq_match, split_seq_build},
    {"reduce-map-interchange",
     "transpose(reduce[fun(acc, row) -> map[fun(p) -> f(get[0](p), get[1](p))](zip(acc, row))](map[fun(c) -> z](ys), "
     "x)) => map[fun(r) -> reduce[f](z, r)](transpose(x))  (the inverse; x: [[T]M]N, ys of length M; acc, row, p "
     "not used in f, c not in z)",
     0, {0}, back_match, back_build},
};

const Rule *rw_reduce_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
