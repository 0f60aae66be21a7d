/* rules_winograd.c: a convolution as Winograd's minimal filtering F(m, r)
 * (issue 32; docs/conv.md, "Winograd"; docs/rewrite.md, "The wino
 * derivation").
 *
 * A stride-1 layer of r x r kernels computes each m x m tile of an output
 * plane from the tile's alpha x alpha patch of the padded input (alpha =
 * m + r - 1) with alpha^2 products a channel instead of m^2 r^2:
 *
 *   Y = A^T [ sum_c (G g_c G^T) .* (B^T d_c B) ] A
 *
 * (A^T m x alpha, G alpha x r, B^T alpha x alpha: conv/winograd.c computes
 * them exactly, Toom-Cook's construction; here each entry is the float
 * nearest it, a const array of the program). The rule rewrites the whole
 * high-level convolution (conv/program.c) into four stages, each a
 * top-level computation, so that the lowering makes each its own kernel and
 * the filter transform depends on the weights alone:
 *
 *   U = G g G^T      of every kernel's every channel        [alpha^2][K][C]
 *   V = B^T d B      of every image's every channel's tile  [N][C][alpha^2][T]
 *   M = U V          per image and position: a matrix       [N][alpha^2][K][T]
 *                    product, the sums over the channels
 *   Y = A^T M A + b, activated, tiles put back in the plane [N][K][OH][OW]
 *
 * (each stage's positions and tiles ordered so that the product's operands
 * of one position lie together, and neighbouring tiles side by side)
 *
 * (T = OH/m * OW/m tiles; m must divide both). Every product is a reduce of
 * the layer's own add over its mult, so the interpreter checks the
 * rewrite like any other (tests/rewrite/golden/winograd.*.cg).
 */
#include "rewrite/rules.h"

#include "conv/winograd.h"

/* The pieces of a layer's high-level convolution:
 *   x |> map[fun(image) -> let windows = WIN(image) in
 *     KB |> map[fun(kb) -> windows |> map[fun(row) -> row |> map[fun(window) ->
 *       reduce[add](INIT, zip(FLAT(window), FLAT(KERNEL)) |> map[mult]) [|> map[act]]] |> join]]]
 * KB = zip(weights, bias), INIT = get[1](kb), KERNEL = get[0](kb); or,
 * without a bias, KB = weights, INIT = 0.0f, KERNEL = kb. FLAT(v) =
 * v |> map[join] |> join. */
typedef struct Conv {
  const Expr *x, *weights, *bias;   // bias NULL without
  RwWin win;                        // an image's windows
  const Fun *add, *mult, *act;      // user functions; act NULL without
  const AExpr *oh, *ow;             // the output plane
  int64_t r;                        // the kernel's rows and columns
} Conv;

static bool is_user(const Fun *f) { return f && f->kind == F_USER; }

/* v |> map[join] |> join with v a reference to p. */
static bool flat_of(const Expr *e, const Param *p) { return rw_is_ref(rw_flat_arg(e), p); }

/* get[i](y) with y a reference to p. */
static bool field_of(const Expr *e, int i, const Param *p) {
  return rw_is_call(e, P_GET) && e->fun->index == i && rw_is_ref(e->args[0], p);
}

/* The window's reduction, activated or not: R or map[act](R). */
static bool window_match(const Expr *e, const Param *window, const Param *kb, bool bias, Conv *c) {
  c->act = NULL;
  if (rw_is_call(e, P_MAP) && is_user(e->fun->f)) c->act = e->fun->f, e = e->args[0];
  if (!rw_is_call(e, P_REDUCE) || !is_user(e->fun->f) || ir_user_op(e->fun->f->uf) != IR_OP_ADD) return false;
  c->add = e->fun->f;
  const Expr *init = e->args[0], *prods = e->args[1];
  if (bias ? !field_of(init, 1, kb) : !(init->kind == E_LIT && init->lit == 0.0)) return false;
  if (!rw_is_call(prods, P_MAP) || !is_user(prods->fun->f)) return false;
  c->mult = prods->fun->f;
  const Expr *z = prods->args[0];
  if (!rw_is_call(z, P_ZIP) || z->nargs != 2 || !flat_of(z->args[0], window)) return false;
  const Expr *k = z->args[1];
  if (!rw_is_call(k, P_JOIN) || !rw_is_call(k->args[0], P_MAP)) return false;
  const Expr *kernel = k->args[0]->args[0];
  return bias ? field_of(kernel, 0, kb) : rw_is_ref(kernel, kb);
}

static bool conv_match(const Expr *e, Conv *c) {
  Param *image, *windows, *kb, *row, *window;
  const Expr *let = rw_is_call(e, P_MAP) ? rw_lambda_body1(e->fun->f, &image) : NULL;
  if (!let || let->kind != E_CALL || let->nargs != 1 || !(let->fun->kind == F_LAMBDA && let->fun->nparams == 1))
    return false;
  c->x = e->args[0];
  if (!rw_win_match(let->args[0], true, &c->win) && !rw_win_match(let->args[0], false, &c->win)) return false;
  if (!rw_is_ref(c->win.x, image)) return false;
  const Expr *kmap = rw_lambda_body1(let->fun, &windows);
  if (!kmap || !rw_is_call(kmap, P_MAP)) return false;
  const Expr *ks = kmap->args[0];
  bool bias = rw_is_call(ks, P_ZIP);
  if (bias && ks->nargs != 2) return false;
  c->weights = bias ? ks->args[0] : ks;
  c->bias = bias ? ks->args[1] : NULL;
  if (c->weights->kind != E_PARAM || (bias && c->bias->kind != E_PARAM)) return false;
  const Expr *rows = rw_lambda_body1(kmap->fun->f, &kb);
  if (!rows || !rw_is_call(rows, P_MAP) || !rw_is_ref(rows->args[0], windows)) return false;
  const Expr *j = rw_lambda_body1(rows->fun->f, &row);
  if (!j || !rw_is_call(j, P_JOIN) || !rw_is_call(j->args[0], P_MAP) || !rw_is_ref(j->args[0]->args[0], row))
    return false;
  const Expr *w = rw_lambda_body1(j->args[0]->fun->f, &window);
  if (!w || !window_match(w, window, kb, bias, c)) return false;
  int64_t kh, kw, sh, sw;
  if (!ax_is_cst(c->win.kh, &kh) || !ax_is_cst(c->win.kw, &kw) || !ax_is_cst(c->win.sh, &sh) ||
      !ax_is_cst(c->win.sw, &sw) || kh != kw || sh != 1 || sw != 1)
    return false;
  c->r = kh;
  const Type *t = let->args[0]->type;   // [oh][ow][c][kh][kw]
  if (!t || t->kind != TY_ARRAY || t->elem->kind != TY_ARRAY) return false;
  c->oh = t->len, c->ow = t->elem->len;
  return true;
}

/* winograd m: the whole convolution, stride 1 and kh = kw = r, m | OH and
 * m | OW, m + r - 1 <= WINO_MAX_N. */
static bool wino_match(const Expr *e, const AExpr *const *args) {
  Conv c;
  int64_t m;
  if (!conv_match(e, &c) || !ax_is_cst(args[0], &m) || m < 1 || m + c.r - 1 > WINO_MAX_N) return false;
  return rw_may_divide(c.oh, args[0]) && rw_may_divide(c.ow, args[0]);
}

/* ---- the rewritten program ---- */

typedef struct Build {
  Arena *a;
  const Conv *c;
} Build;

static const Expr *call1(Build *b, const Fun *f, const Expr *x) { return ir_call1(b->a, f, x); }
static const Expr *prim1(Build *b, Prim p, const Expr *x) { return ir_call1(b->a, ir_prim(b->a, p), x); }
static const Expr *map_of(Build *b, const Fun *f, const Expr *x) { return rw_map(b->a, f, x); }
static const Fun *map_fun(Build *b, const Fun *f) { return ir_prim_f(b->a, P_MAP, f); }
static const Expr *ref(Build *b, Param *p) { return ir_ref(b->a, p); }
static const Expr *get(Build *b, int i, const Expr *x) { return ir_call1(b->a, ir_prim_i(b->a, P_GET, i), x); }

static const Expr *zip2(Build *b, const Expr *x, const Expr *y) {
  const Expr *args[2] = {x, y};
  return ir_call(b->a, ir_prim(b->a, P_ZIP), 2, args);
}

static const Expr *let(Build *b, Param *p, const Expr *value, const Expr *body) {
  return ir_call(b->a, ir_lambda(b->a, 1, &p, body), 1, &value);
}

/* The dot product of two arrays, the layer's own way: reduce[add](0.0f,
 * zip(x, y) |> map[mult]), one value ([float]1). */
static const Expr *dot(Build *b, const Expr *x, const Expr *y) {
  return rw_call2(b->a, ir_prim_f(b->a, P_REDUCE, b->c->add), ir_lit(b->a, 0.0, false), map_of(b, b->c->mult, zip2(b, x, y)));
}

/* The matrix product P Q of P [p][q] and Q [q][s]: P |> map[fun(pr) ->
 * transpose(Q) |> map[fun(qc) -> dot(pr, qc)] |> join], [p][s]. */
static const Expr *matmul(Build *b, const Expr *p, const Expr *q) {
  Param *pr = rw_param(b->a, "pr"), *qc = rw_param(b->a, "qc");
  const Expr *cols = map_of(b, ir_lambda(b->a, 1, &qc, dot(b, ref(b, pr), ref(b, qc))), prim1(b, P_TRANSPOSE, q));
  return map_of(b, ir_lambda(b->a, 1, &pr, prim1(b, P_JOIN, cols)), p);
}

/* L X L^T, the two-sided transform of X by L. */
static const Expr *sandwich(Build *b, Param *l, const Expr *x) {
  return matmul(b, matmul(b, ref(b, l), x), prim1(b, P_TRANSPOSE, ref(b, l)));
}

/* A const array [rows][cols] of a matrix's entries, each the float nearest
 * the exact fraction. */
static Param *matrix(Build *b, const char *name, int rows, int cols, const WinoQ q[WINO_MAX_N][WINO_MAX_N]) {
  Param *p = rw_param(b->a, name);
  double *v = ARENA_ARRAY(b->a, double, (size_t)rows * (size_t)cols);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) v[i * cols + j] = (float)wino_value(q[i][j]);
  p->type = ty_array(b->a, ty_array(b->a, ty_float(), ax_cst(b->a, cols)), ax_cst(b->a, rows));
  p->values = v;
  return p;
}

/* An image's planes' tiles: plane |> PADS |> map[slide[alpha, m]] |>
 * slide[alpha, m] |> map[transpose] |> join, [T][alpha][alpha]. */
static const Expr *tiles(Build *b, const Expr *plane, const AExpr *alpha, const AExpr *m) {
  const RwWin *w = &b->c->win;
  if (w->padh) plane = call1(b, w->padh, map_of(b, w->padw, plane));
  const Fun *slide = ir_prim_nn(b->a, P_SLIDE, alpha, m);
  const Expr *t = call1(b, slide, map_of(b, slide, plane));
  return prim1(b, P_JOIN, map_of(b, ir_prim(b->a, P_TRANSPOSE), t));
}

/* y + the bias, activated: the output transform's last step for one value. */
static const Expr *finish(Build *b, const Expr *y, const Expr *bias) {
  if (bias) y = rw_call2(b->a, b->c->add, y, bias);
  return b->c->act ? call1(b, b->c->act, y) : y;
}

/* The rewritten program; fold: the batch folded into M's tiles (V
 * [alpha^2][C][N*T], M [alpha^2][K][N*T]: one product a position, over
 * every image's tiles), else each image's product its own. */
static const Expr *build(Arena *a, const Expr *e, const AExpr *const *args, bool fold) {
  Conv c;
  conv_match(e, &c);
  int64_t m;
  ax_is_cst(args[0], &m);
  WinoMatrices wm;
  Diag d = {0};
  if (!wino_matrices((int)m, (int)c.r, &wm, &d)) cg_die("winograd: %s", d.msg);   // the matcher checked m and r
  Build b = {a, &c};
  int n = wm.n;
  const AExpr *alpha = ax_cst(a, n), *ma = args[0];
  Param *at = matrix(&b, "At", (int)m, n, wm.at), *g = matrix(&b, "G", n, (int)c.r, wm.g),
        *bt = matrix(&b, "Bt", n, n, wm.bt);
  // U: every kernel's every channel, G g G^T, its a^2 positions outermost ([a^2][K][C]: the products' operands
  // of one position together)
  Param *kc = rw_param(a, "kc"), *gk = rw_param(a, "g");
  const Expr *per_channel = prim1(&b, P_JOIN, sandwich(&b, g, ref(&b, gk)));
  const Expr *u_val = map_of(&b, ir_lambda(a, 1, &kc, map_of(&b, ir_lambda(a, 1, &gk, per_channel), ref(&b, kc))), c.weights);
  u_val = prim1(&b, P_TRANSPOSE, map_of(&b, ir_prim(a, P_TRANSPOSE), u_val));
  // V: every image's every plane's tiles, B^T d B, the positions outside the tiles ([N][C][a^2][T])
  Param *image = rw_param(a, "image"), *plane = rw_param(a, "plane"), *dt = rw_param(a, "d");
  const Expr *per_tile = map_of(&b, ir_lambda(a, 1, &dt, prim1(&b, P_JOIN, sandwich(&b, bt, ref(&b, dt)))),
                                tiles(&b, ref(&b, plane), alpha, ma));
  const Expr *v_val = map_of(&b, ir_lambda(a, 1, &image, map_of(&b, ir_lambda(a, 1, &plane, prim1(&b, P_TRANSPOSE, per_tile)),
                                                                 ref(&b, image))),
                             c.x);
  if (fold)   // [N][C][a^2][T] seen as [a^2][C][N*T]: the images' tiles side by side at each position and channel
    v_val = prim1(&b, P_TRANSPOSE, map_of(&b, map_fun(&b, ir_prim(a, P_JOIN)),
                                         map_of(&b, ir_prim(a, P_TRANSPOSE), prim1(&b, P_TRANSPOSE, v_val))));
  // M: per image and position, the product of U's [K][C] and V's [C][T] ([N][a^2][K][T]): the sums over the
  // channels, a matrix product a position
  Param *u = rw_param(a, "U"), *v = rw_param(a, "V"), *vi = rw_param(a, "vi"), *pq = rw_param(a, "pq"),
        *uk = rw_param(a, "uk"), *vt = rw_param(a, "vt");
  const Expr *row = map_of(&b, ir_lambda(a, 1, &vt, dot(&b, ref(&b, uk), ref(&b, vt))), prim1(&b, P_TRANSPOSE, get(&b, 1, ref(&b, pq))));
  const Expr *product = map_of(&b, ir_lambda(a, 1, &uk, prim1(&b, P_JOIN, row)), get(&b, 0, ref(&b, pq)));
  const Expr *m_val = fold ? map_of(&b, ir_lambda(a, 1, &pq, product), zip2(&b, ref(&b, u), ref(&b, v)))
                           : map_of(&b, ir_lambda(a, 1, &vi, map_of(&b, ir_lambda(a, 1, &pq, product),
                                                                    zip2(&b, ref(&b, u), prim1(&b, P_TRANSPOSE, ref(&b, vi))))),
                                    ref(&b, v));
  // Y: per image and kernel, each tile's A^T M A, plus the bias, activated, the tiles put back in the plane
  Param *mm = rw_param(a, "M"), *mi = rw_param(a, "mi"), *mk = rw_param(a, "mk"), *mt = rw_param(a, "mt"),
        *yr = rw_param(a, "yr"), *y = rw_param(a, "y");
  const Expr *kernel_sums = ref(&b, mk), *bias = NULL;
  if (c.bias) kernel_sums = get(&b, 0, ref(&b, mk)), bias = get(&b, 1, ref(&b, mk));
  const Expr *yt = sandwich(&b, at, call1(&b, ir_prim_n(a, P_SPLIT, alpha), ref(&b, mt)));
  if (c.bias || c.act) yt = map_of(&b, ir_lambda(a, 1, &yr, map_of(&b, ir_lambda(a, 1, &y, finish(&b, ref(&b, y), bias)), ref(&b, yr))), yt);
  const Expr *ys = map_of(&b, ir_lambda(a, 1, &mt, yt), prim1(&b, P_TRANSPOSE, kernel_sums));   // [T][m][m]
  const Expr *grid = map_of(&b, ir_prim(a, P_TRANSPOSE), call1(&b, ir_prim_n(a, P_SPLIT, ax_div(a, c.ow, ma)), ys));
  const Expr *planes = prim1(&b, P_JOIN, map_of(&b, map_fun(&b, ir_prim(a, P_JOIN)), grid));   // [OH][OW]
  const Expr *by_kernel = prim1(&b, P_TRANSPOSE, ref(&b, mi));   // [K][a^2][T]
  const Expr *per_image = map_of(&b, ir_lambda(a, 1, &mk, planes), c.bias ? zip2(&b, by_kernel, c.bias) : by_kernel);
  const Expr *images = ref(&b, mm);
  if (fold) {   // M [a^2][K][N*T] seen as [N][a^2][K][T], each image's
    const AExpr *t = ax_mul(a, ax_div(a, c.oh, ma), ax_div(a, c.ow, ma));
    images = map_of(&b, map_fun(&b, ir_prim_n(a, P_SPLIT, t)), images);   // [a^2][K][N][T]
    images = prim1(&b, P_TRANSPOSE, map_of(&b, ir_prim(a, P_TRANSPOSE), images));
  }
  const Expr *y_val = map_of(&b, ir_lambda(a, 1, &mi, per_image), images);
  return let(&b, u, u_val, let(&b, v, v_val, let(&b, mm, m_val, y_val)));
}

static const Expr *wino_build(Arena *a, const Expr *e, const AExpr *const *args) { return build(a, e, args, false); }

static const Expr *wino_batch_build(Arena *a, const Expr *e, const AExpr *const *args) {
  return build(a, e, args, true);
}

static const Rule RULES[] = {
    {"winograd",
     "x |> map[fun(image) -> let windows = WIN(image) in KB |> map[fun(kb) -> windows |> map[fun(row) -> row |> "
     "map[fun(window) -> reduce[add](INIT, zip(FLAT(window), FLAT(KERNEL)) |> map[mult]) [|> map[act]]] |> join]]] "
     "=> let U = weights |> map[map[fun(g) -> G g G^T |> join]] |> map[transpose] |> transpose in let V = x |> "
     "map[map[fun(plane) -> TILES(plane) |> map[fun(d) -> B^T d B |> join] |> transpose]] in let M = V |> "
     "map[fun(vi) -> zip(U, vi |> transpose) |> map[fun(pq) -> get[0](pq) |> map[fun(uk) -> get[1](pq) |> transpose "
     "|> map[fun(vt) -> reduce[add](0.0f, zip(uk, vt) |> map[mult])] |> join]]] in M |> map[fun(mi) -> KM(mi |> "
     "transpose) |> map[fun(mk) -> SUMS |> transpose |> map[fun(mt) -> A^T (mt |> split[alpha]) A |> "
     "map[map[fun(y) -> act(add(y, BIAS))]]] |> split[OW/m] |> map[transpose] |> map[map[join]] |> join]]  "
     "(Winograd's F(m, r): WIN stride 1, kh = kw = r, alpha = m + r - 1 <= 12, m | OH, m | OW; A^T, G and B^T const "
     "arrays of conv/winograd.c's matrices; U [alpha^2][K][C], V [N][C][alpha^2][T], M [N][alpha^2][K][T], a matrix "
     "product a position; TILES(plane) = plane |> PADS |> map[slide[alpha, m]] |> slide[alpha, m] |> map[transpose] "
     "|> join; P Q = P |> map[fun(pr) -> transpose(Q) |> map[fun(qc) -> reduce[add](0.0f, zip(pr, qc) |> "
     "map[mult])] |> join]; KB = zip(weights, bias), KM(e) = zip(e, bias), SUMS = get[0](mk), BIAS = get[1](mk), or "
     "without a bias weights, e, mk and no add; equal up to the rounding of the matrices' entries to floats)",
     1, {"m: the output tile's rows and columns"}, wino_match, wino_build},
    {"winograd-batch",
     "CONV(x) => winograd m's program with the batch folded into M's tiles: let V = V' |> transpose |> "
     "map[transpose] |> map[map[join]] |> transpose ([alpha^2][C][N*T], V' winograd's V), M = zip(U, V) |> "
     "map[fun(pq) -> PQ] ([alpha^2][K][N*T], PQ winograd's product of a position: one product a position over "
     "every image's tiles), and winograd's output transform of M |> map[map[split[T]]] |> map[transpose] |> "
     "transpose ([N][alpha^2][K][T])  (CONV and the conditions as winograd's; T = OH/m * OW/m)",
     1, {"m: the output tile's rows and columns"}, wino_match, wino_batch_build},
};

const Rule *rw_winograd_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
