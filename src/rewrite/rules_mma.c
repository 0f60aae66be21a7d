/* rules_mma.c: a tile's reduction as the warp's tile product (issue 31;
 * docs/ir.md, "Tile products").
 *
 * tile-product: a reduction whose accumulator is a 16 x 8 tile, each step
 * adding the outer product of a column of 16 values and a row of 8 (the
 * form map-reduce-fuse-outer leaves a register tile of pixels and output
 * channels in), is the sum of 8-step tile products: with the steps cut in
 * chunks of 8, chunk j's columns are A = transpose(U's chunk) (16 x 8) and
 * its rows B = transpose(V's chunk) (8 x 8), and the tile is C + A B^T. The
 * accumulator lives in the warp's layout ([float4]32, lane l = 4g + t holding
 * its rows g and g + 8 and columns 2t and 2t + 1): it is gathered into it
 * from z and scattered back out of it, each lane copying its own values
 * (the identity maps, which a strategy lowers to mapLcl[0] of the 32 lanes).
 * The product is mma3xTF32, fp32's accuracy from three TF32 products; the
 * sum's order changes (the tensor cores add 8 products at a time), so it
 * needs add to be + and mult to be *, as partial-reduce does.
 */
#include "rewrite/rules.h"

static bool is_field(const Expr *e, int i, const Param *p) {
  return rw_is_call(e, P_GET) && e->fun->index == i && rw_is_ref(e->args[0], p);
}

static bool user_op(const Expr *e, RwOp op, int nargs) {
  return e && e->kind == E_CALL && e->fun->kind == F_USER && e->nargs == nargs && rw_user_op(e->fun->uf) == op &&
         ty_equal(e->fun->uf->ret, ty_float());
}

/* reduce[fun(acc, row) -> map[fun(p) -> map[fun(q) -> add(get[0](q), mult(get[1](p), get[1](q)))](zip(get[0](p),
 * get[1 - o](row)))](zip(acc, get[o](row)))](z, zip(X0, X1)), add a + b and mult a * b on floats (its operands in
 * either order: a product of two floats is the same either way): the tile's rows are walked with X_o, its
 * columns with the other; o in *rows. */
static bool outer_step(const Expr *e, int *rows) {
  if (!rw_is_call(e, P_REDUCE) || e->fun->f->kind != F_LAMBDA || e->fun->f->nparams != 2) return false;
  const Param *acc = e->fun->f->params[0], *row = e->fun->f->params[1];
  const Expr *m1 = e->fun->f->body;
  if (!rw_is_call(m1, P_MAP) || !rw_is_call(m1->args[0], P_ZIP) || m1->args[0]->nargs != 2 ||
      !rw_is_ref(m1->args[0]->args[0], acc))
    return false;
  int o = is_field(m1->args[0]->args[1], 0, row) ? 0 : is_field(m1->args[0]->args[1], 1, row) ? 1 : -1;
  Param *p, *q;
  const Expr *m2 = o >= 0 ? rw_lambda_body1(m1->fun->f, &p) : NULL;
  if (!rw_is_call(m2, P_MAP) || !rw_is_call(m2->args[0], P_ZIP) || m2->args[0]->nargs != 2 ||
      !is_field(m2->args[0]->args[0], 0, p) || !is_field(m2->args[0]->args[1], 1 - o, row))
    return false;
  const Expr *sum = rw_lambda_body1(m2->fun->f, &q);
  if (!user_op(sum, RW_OP_ADD, 2) || !is_field(sum->args[0], 0, q)) return false;
  const Expr *prod = sum->args[1];
  *rows = o;
  return user_op(prod, RW_OP_MUL, 2) && ((is_field(prod->args[0], 1, p) && is_field(prod->args[1], 1, q)) ||
                                         (is_field(prod->args[0], 1, q) && is_field(prod->args[1], 1, p)));
}

/* x: [[float]cols]len, cols a constant (fp32 values, no half storage: the
 * tile product reads floats). */
static bool columns_of(const Expr *x, int64_t cols) {
  int64_t c;
  const Type *t = x->type;
  return t && t->kind == TY_ARRAY && t->elem->kind == TY_ARRAY && ax_is_cst(t->elem->len, &c) && c == cols &&
         ty_equal(t->elem->elem, ty_float());
}

static bool tile_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  int o;
  if (!outer_step(e, &o)) return false;
  const Expr *z = e->args[0], *x = e->args[1];
  if (!rw_is_call(x, P_ZIP) || x->nargs != 2) return false;
  int64_t rows;
  const Type *zt = ty_arith(ty_base(z->type)) == ty_float() ? z->type : NULL;
  if (!zt || zt->kind != TY_ARRAY || !ax_is_cst(zt->len, &rows) || rows != IR_MMA_M || !columns_of(z, IR_MMA_N))
    return false;
  int64_t steps;   // a symbolic count is the split's constraint
  bool divides = !ax_is_cst(rw_len(x->args[0]), &steps) || (steps >= IR_MMA_K && steps % IR_MMA_K == 0);
  return columns_of(x->args[o], IR_MMA_M) && columns_of(x->args[1 - o], IR_MMA_N) && divides;
}

/* The warp's layout of a 16 x 8 tile read as 128 values: element i of the
 * layout is lane i / 4's component i % 4 (ir_mma_row, ir_mma_col). */
static const Fun *lanes(Arena *a, Prim p) {
  const AExpr *i = ax_var(a, "i", 0, AX_INF), *n = ax_var(a, "n", 1, AX_INF);
  const AExpr *c4 = ax_cst(a, 4), *c2 = ax_cst(a, 2), *c8 = ax_cst(a, 8);
  const AExpr *lane = ax_div(a, i, c4), *comp = ax_mod(a, i, c4);
  const AExpr *row = ax_add(a, ax_div(a, lane, c4), ax_mul(a, c8, ax_div(a, comp, c2)));
  const AExpr *col = ax_add(a, ax_mul(a, c2, ax_mod(a, lane, c4)), ax_mod(a, comp, c2));
  return ir_prim_idx(a, p, ax_add(a, ax_mul(a, row, c8), col), i, n);
}

static const UserFun *identity(Arena *a, const Type *t, const char *name) {
  UserFun *uf = ARENA_NEW(a, UserFun);
  uf->name = name, uf->nparams = 1, uf->body = " return x; ", uf->ret = t;
  uf->pnames = ARENA_ARRAY(a, const char *, 1), uf->ptypes = ARENA_ARRAY(a, const Type *, 1);
  uf->pnames[0] = "x", uf->ptypes[0] = t;
  CbType ct = {false, t->kind == TY_VEC ? t->width : 1};
  Diag d = {0};
  uf->cbody = cb_parse(a, uf->name, uf->body, 1, uf->pnames, &ct, ct, &d);
  cg_assert(uf->cbody);
  return uf;
}

static const Expr *call1(Arena *a, const Fun *f, const Expr *x) { return ir_call1(a, f, x); }

/* x |> split[8] |> map[transpose]: the chunks' tiles, each [[float]8]cols. */
static const Expr *chunk_tiles(Arena *a, const Expr *x) {
  const Expr *chunks = call1(a, ir_prim_n(a, P_SPLIT, ax_cst(a, IR_MMA_K)), x);
  return call1(a, ir_prim_f(a, P_MAP, ir_prim(a, P_TRANSPOSE)), chunks);
}

static const Expr *tile_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *z = e->args[0], *x = e->args[1];
  int o;
  outer_step(e, &o);
  const Fun *id = ir_user(a, identity(a, ty_float(), "id"));
  const Fun *id4 = ir_user(a, identity(a, ty_vec(a, ty_float()->et, 4), "id4"));
  // the accumulator in the warp's layout, each lane copying its own float4
  const Expr *init = call1(a, ir_prim(a, P_JOIN), z);
  init = call1(a, lanes(a, P_GATHER), init);
  init = call1(a, ir_prim_n(a, P_AS_VECTOR, ax_cst(a, 4)), init);
  init = call1(a, ir_prim_f(a, P_MAP, id4), init);
  Param *acc = rw_param(a, "acc"), *ab = rw_param(a, "ab");
  const Expr *prod_args[3] = {call1(a, ir_prim_i(a, P_GET, 0), ir_ref(a, ab)),
                              call1(a, ir_prim_i(a, P_GET, 1), ir_ref(a, ab)), ir_ref(a, acc)};
  const Expr *step = ir_call(a, ir_prim(a, P_MMA_3XTF32), 3, prod_args);
  const Fun *red = ir_prim_f(a, P_REDUCE, ir_lambda(a, 2, (Param *[]){acc, ab}, step));
  const Expr *chunks = rw_call2(a, ir_prim(a, P_ZIP), chunk_tiles(a, x->args[o]), chunk_tiles(a, x->args[1 - o]));
  const Expr *sum = rw_call2(a, red, init, chunks);
  // out of the warp's layout: each lane's four values copied, then scattered to the tile's rows
  Param *r = rw_param(a, "r");
  const Expr *out = call1(a, ir_prim(a, P_AS_SCALAR), ir_ref(a, r));
  out = call1(a, ir_prim_n(a, P_SPLIT, ax_cst(a, 4)), out);
  out = call1(a, ir_prim_f(a, P_MAP, ir_prim_f(a, P_MAP, id)), out);
  out = call1(a, ir_prim(a, P_JOIN), out);
  out = call1(a, lanes(a, P_SCATTER), out);
  out = call1(a, ir_prim_n(a, P_SPLIT, ax_cst(a, IR_MMA_N)), out);
  return call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &r, out)), sum);
}

static const Rule RULES[] = {
    {"tile-product",
     "reduce[fun(acc, row) -> map[fun(p) -> map[fun(q) -> add(get[0](q), mult(get[1](p), get[1](q)))](zip(get[0](p), "
     "get[1](row)))](zip(acc, get[0](row)))](z, zip(U, V)) => map[fun(r) -> r |> asScalar |> split[4] |> map[map[id]] "
     "|> join |> scatter[L] |> split[8]](reduce[fun(acc, ab) -> mma3xTF32(get[0](ab), get[1](ab), acc)](z |> join "
     "|> gather[L] |> asVector[4] |> map[id4], zip(U |> split[8] |> map[transpose], V |> split[8] |> "
     "map[transpose])))  (z: [[float]8]16, U: [[float]16]R, V: [[float]8]R, 8 | R; L the warp's layout of a 16 x 8 "
     "tile; also with get[1](row) and get[0](row) exchanged, U then zip's second array, and with mult's operands "
     "exchanged)",
     0, {0}, tile_match, tile_build},
};

const Rule *rw_mma_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
