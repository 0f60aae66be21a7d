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
 *
 * tf32-product: mma3xTF32(a, b, c) => mmaTF32(a, b, c), one TF32 product
 * where there were three. Not a rewrite of equals: each operand loses its
 * low part (2^-11 of it, rounded to nearest), as cuDNN's and PyTorch's TF32
 * math does; a strategy applies it only to a layer whose precision allows
 * it (precision=tf32), and the check's tolerance widens by the program's
 * mmaTF32 (meas_tolerance).
 */
#include "rewrite/rules.h"

static bool is_field(const Expr *e, int i, const Param *p) {
  return rw_is_call(e, P_GET) && e->fun->index == i && rw_is_ref(e->args[0], p);
}

static bool user_op(const Expr *e, IrOp op, int nargs) {
  return e && e->kind == E_CALL && e->fun->kind == F_USER && e->nargs == nargs && ir_user_op(e->fun->uf) == op &&
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
  if (!user_op(sum, IR_OP_ADD, 2) || !is_field(sum->args[0], 0, q)) return false;
  const Expr *prod = sum->args[1];
  *rows = o;
  return user_op(prod, IR_OP_MUL, 2) && ((is_field(prod->args[0], 1, p) && is_field(prod->args[1], 1, q)) ||
                                         (is_field(prod->args[0], 1, q) && is_field(prod->args[1], 1, p)));
}

/* x: [[float]cols]len (fp32 values, no half storage: the tile product
 * reads floats). */
static bool floats_2d(const Type *t) {
  return t && t->kind == TY_ARRAY && t->elem->kind == TY_ARRAY && t->elem->elem->kind == TY_FLOAT &&
         ty_equal(ty_arith(t->elem->elem), ty_float());
}

/* The product the row's arrays take: mmaF16 when both are half (a
 * precision=fp16 layer's inputs and weights), else mma3xTF32. */
static Prim product_of(const Expr *x) {
  bool half = x->args[0]->type->elem->elem->et != elem_fp32() && x->args[1]->type->elem->elem->et != elem_fp32();
  return half ? P_MMA_F16 : P_MMA_3XTF32;
}

/* n may be a multiple of k: a constant is, or the split the build makes of
 * a symbolic one says so as a constraint of the space. */
static bool may_divide(const AExpr *n, int64_t k) {
  int64_t v;
  return !ax_is_cst(n, &v) || (v >= k && v % k == 0);
}

static bool tile_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  int o;
  if (!outer_step(e, &o)) return false;
  const Expr *z = e->args[0], *x = e->args[1];
  if (!rw_is_call(x, P_ZIP) || x->nargs != 2 || !floats_2d(z->type) || !floats_2d(x->args[0]->type) ||
      !floats_2d(x->args[1]->type))
    return false;
  return may_divide(z->type->len, IR_MMA_M) && may_divide(z->type->elem->len, IR_MMA_N) &&
         may_divide(rw_len(x->args[0]), ir_mma_k(product_of(x)));
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

static const Expr *call1(Arena *a, const Fun *f, const Expr *x) { return ir_call1(a, f, x); }
static const Expr *prim1(Arena *a, Prim p, const Expr *x) { return ir_call1(a, ir_prim(a, p), x); }
static const Expr *split(Arena *a, int64_t n, const Expr *x) { return ir_call1(a, ir_prim_n(a, P_SPLIT, ax_cst(a, n)), x); }
static const Expr *get(Arena *a, int i, Param *p) { return ir_call1(a, ir_prim_i(a, P_GET, i), ir_ref(a, p)); }

/* map[fun(y) -> body](x), body made by the caller with y. */
static const Expr *map_of(Arena *a, Param *y, const Expr *body, const Expr *x) {
  return ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &y, body)), x);
}

/* A 16 x 8 tile in the warp's layout, each lane copying its own float4. */
static const Expr *into_lanes(Arena *a, const Expr *tile) {
  const Expr *v = call1(a, lanes(a, P_GATHER), prim1(a, P_JOIN, tile));
  v = call1(a, ir_prim_n(a, P_AS_VECTOR, ax_cst(a, 4)), v);
  return call1(a, ir_prim_f(a, P_MAP, ir_user(a, rw_identity(a, ty_vec(a, ty_float()->et, 4), "id4"))), v);
}

/* The warp's [float4]32 back to a 16 x 8 tile, each lane copying its four values. */
static const Expr *out_of_lanes(Arena *a, const Expr *frag) {
  Param *l = rw_param(a, "l");
  const Expr *v = split(a, 4, prim1(a, P_AS_SCALAR, frag));
  v = map_of(a, l, call1(a, ir_prim_f(a, P_MAP, ir_user(a, rw_identity(a, ty_float(), "id"))), ir_ref(a, l)), v);
  v = call1(a, lanes(a, P_SCATTER), prim1(a, P_JOIN, v));
  return split(a, IR_MMA_N, v);
}

/* t: [[T]N]M as [[[[T]8]16](N/8)](M/16), its 16 x 8 sub-tiles. */
static const Expr *subtiles(Arena *a, const Expr *t) {
  Param *rows = rw_param(a, "rows");
  const Expr *cut = call1(a, ir_prim_f(a, P_MAP, ir_prim_n(a, P_SPLIT, ax_cst(a, IR_MMA_N))), ir_ref(a, rows));
  return map_of(a, rows, prim1(a, P_TRANSPOSE, cut), split(a, IR_MMA_M, t));
}

/* x: [[float]L]R as the chunks of k steps, each L/size tiles of size x k. */
static const Expr *chunk_tiles(Arena *a, const Expr *x, int64_t size, int k) {
  Param *c = rw_param(a, "c");
  return map_of(a, c, split(a, size, prim1(a, P_TRANSPOSE, ir_ref(a, c))), split(a, k, x));
}

static const Expr *tile_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *z = e->args[0], *x = e->args[1];
  int o;
  outer_step(e, &o);
  // the accumulator: the tile's 16 x 8 sub-tiles, each in the warp's layout
  Param *zr = rw_param(a, "zr"), *zt = rw_param(a, "zt");
  const Expr *init = map_of(a, zr, map_of(a, zt, into_lanes(a, ir_ref(a, zt)), ir_ref(a, zr)), subtiles(a, z));
  // a step: every sub-tile's product with its rows' tile of A and its columns' of B
  Param *acc = rw_param(a, "acc"), *ab = rw_param(a, "ab"), *p = rw_param(a, "p"), *q = rw_param(a, "q");
  const Expr *prod_args[3] = {get(a, 1, p), get(a, 1, q), get(a, 0, q)};
  Prim product = product_of(x);
  const Expr *prod = ir_call(a, ir_prim(a, product), 3, prod_args);
  const Expr *row = map_of(a, q, prod, rw_call2(a, ir_prim(a, P_ZIP), get(a, 0, p), get(a, 1, ab)));
  const Expr *step = map_of(a, p, row, rw_call2(a, ir_prim(a, P_ZIP), ir_ref(a, acc), get(a, 0, ab)));
  const Fun *red = ir_prim_f(a, P_REDUCE, ir_lambda(a, 2, (Param *[]){acc, ab}, step));
  const Expr *chunks = rw_call2(a, ir_prim(a, P_ZIP), chunk_tiles(a, x->args[o], IR_MMA_M, ir_mma_k(product)),
                                chunk_tiles(a, x->args[1 - o], IR_MMA_N, ir_mma_k(product)));
  const Expr *sum = rw_call2(a, red, init, chunks);
  // out of the warp's layout, the sub-tiles joined back into the tile
  Param *r = rw_param(a, "r"), *fr = rw_param(a, "fr"), *f = rw_param(a, "f"), *tr = rw_param(a, "tr");
  const Expr *tiles = map_of(a, fr, map_of(a, f, out_of_lanes(a, ir_ref(a, f)), ir_ref(a, fr)), ir_ref(a, r));
  const Expr *joined = call1(a, ir_prim_f(a, P_MAP, ir_prim(a, P_JOIN)), prim1(a, P_TRANSPOSE, ir_ref(a, tr)));
  const Expr *out = prim1(a, P_JOIN, map_of(a, tr, joined, tiles));
  return map_of(a, r, out, sum);
}

static bool tf32_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return rw_is_call(e, P_MMA_3XTF32);
}

static const Expr *tf32_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Expr *operands[3] = {e->args[0], e->args[1], e->args[2]};
  return ir_call(a, ir_prim(a, P_MMA_TF32), 3, operands);
}

static const Rule RULES[] = {
    {"tile-product",
     "reduce[fun(acc, row) -> map[fun(p) -> map[fun(q) -> add(get[0](q), mult(get[1](p), get[1](q)))](zip(get[0](p), "
     "get[1](row)))](zip(acc, get[0](row)))](z, zip(U, V)) => map[fun(r) -> join(map[fun(tr) -> map[join]("
     "transpose(tr))](map[map[OUT]](r)))](reduce[fun(acc, ab) -> map[fun(p) -> map[fun(q) -> mma3xTF32(get[1](p), "
     "get[1](q), get[0](q))](zip(get[0](p), get[1](ab)))](zip(acc, get[0](ab)))](map[map[IN]](T(z)), zip(U |> "
     "split[8] |> map[fun(c) -> split[16](transpose(c))], V |> split[8] |> map[fun(c) -> split[8](transpose(c))])))  "
     "(z: [[float]N]M, U: [[float]M]R, V: [[float]N]R, 16 | M, 8 | N, 8 | R; T(z) = z |> split[16] |> map[fun(rows) "
     "-> transpose(map[split[8]](rows))], the 16 x 8 sub-tiles; IN(t) = t |> join |> gather[L] |> asVector[4] |> "
     "map[id4] and OUT(f) = f |> asScalar |> split[4] |> map[fun(l) -> map[id](l)] |> join |> scatter[L] |> "
     "split[8], a sub-tile into and out of the warp's layout L; also with get[1](row) and get[0](row) exchanged, U "
     "then zip's second array, and with mult's operands exchanged)",
     0, {0}, tile_match, tile_build},
    {"tf32-product",
     "mma3xTF32(a, b, c) => mmaTF32(a, b, c)  (one TF32 product for three: the operands' low parts dropped, "
     "within 2^-10 of each product; only where the layer's precision allows it)",
     0, {0}, tf32_match, tf32_build},
};

const Rule *rw_mma_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
