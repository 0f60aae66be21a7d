/* rules_patch.c: the windows of a tile of outputs as the windows of its patch.
 *
 * A convolution reads its input through the windows view of a stack of
 * planes (docs/conv.md):
 *
 *   WIN(x) = x |> map[fun(plane) -> plane |> PADS |> map[slide[kw, sw]]
 *                                        |> slide[kh, sh] |> map[transpose]]
 *              |> transpose |> map[transpose]            [oh][ow][c][kh][kw]
 *
 * (PADS: map[pad[pw, pw, v]] |> pad[ph, ph, v], or nothing: WIN'). A tile of
 * k rows of windows reads the (k - 1)*sh + kh rows of the padded planes that
 * its windows cover, its patch; a tile of m*n columns the (m*n - 1)*sw + kw
 * columns. These rules say so, so that a work-group can stage its patch, each
 * input value once, instead of its windows (kh*kw copies of each):
 *
 *   windows-row-patches     a tile of rows of windows is WIN' of its row patch
 *   windows-column-patches  a tile of columns of a row patch's windows is WIN'
 *                           of its column patch
 *   windows-of-groups       a grouped layer's windows of each group's planes
 *                           are WIN of those planes
 *   im2col-channel-chunks   the taps of a tile's windows, channel-major, in
 *                           chunks of CC input channels: each chunk the same
 *                           taps of CC channels of the patch
 *   step-channel-chunks     the same for a tile product's steps (tc): each
 *                           row's windows' taps in steps of k, walked in
 *                           chunks of n steps that are CC whole channels
 *   window-taps-chunked     a window's reduction over its taps in another
 *                           order: chunks of CC channels, each chunk's taps
 *                           tap-major (kh, kw, then its channels), so that
 *                           a step of k taps is k neighbouring channels of
 *                           one tap (tc's LA=2)
 *
 * The first two keep the tiles of windows they start from, zipped with the
 * patches: the split on the windows is where the parameter space reads that
 * the tile divides the windows, the zip that there are as many patches
 * (slide[u, v] alone would drop the windows of a last partial tile). The
 * tiles of windows are not read (a view: no data moves). Each matcher walks
 * the whole left side it rewrites, node by node, and refuses any other shape.
 */
#include "rewrite/rules.h"

typedef RwWin Win;

static bool is_prim_fun(const Fun *f, Prim p) { return f && f->kind == F_PRIM && f->prim == p; }

/* map[g](y) with g the primitive p (map[transpose], map[slide[3, 1]]). */
static bool is_map_of(const Expr *e, Prim p) { return rw_is_call(e, P_MAP) && is_prim_fun(e->fun->f, p); }

/* The body of a per-plane lambda: map[transpose](slide[kh, sh](map[slide[kw, sw]](PADS(plane)))). */
static bool plane_match(const Expr *b, const Param *plane, Win *w) {
  if (!is_map_of(b, P_TRANSPOSE) || !rw_is_call(b->args[0], P_SLIDE)) return false;
  const Expr *rows = b->args[0], *cols = rows->args[0];
  if (!is_map_of(cols, P_SLIDE)) return false;
  w->kh = rows->fun->n, w->sh = rows->fun->m, w->kw = cols->fun->f->n, w->sw = cols->fun->f->m;
  const Expr *in = cols->args[0];
  w->padw = w->padh = NULL;
  if (rw_is_ref(in, plane)) return true;
  if (!rw_is_call(in, P_PAD) || !is_map_of(in->args[0], P_PAD) || !rw_is_ref(in->args[0]->args[0], plane))
    return false;
  w->padh = in->fun, w->padw = in->args[0]->fun->f;
  return true;
}

/* e = WIN(x) (pads true) or WIN'(x) (pads false). */
bool rw_win_match(const Expr *e, bool pads, RwWin *w) {
  if (!is_map_of(e, P_TRANSPOSE) || !rw_is_call(e->args[0], P_TRANSPOSE)) return false;
  const Expr *planes = e->args[0]->args[0];
  Param *plane;
  const Expr *b = rw_is_call(planes, P_MAP) ? rw_lambda_body1(planes->fun->f, &plane) : NULL;
  if (!b || !plane_match(b, plane, w) || (w->padh != NULL) != pads) return false;
  w->x = planes->args[0];
  return true;
}

static const Expr *pads(Arena *a, const Win *w, const Expr *plane) {
  return w->padh ? ir_call1(a, w->padh, rw_map(a, w->padw, plane)) : plane;
}

/* x |> map[fun(plane) -> body(PADS(plane))] |> transpose, body one slide or a slide under a map */
static const Expr *per_plane(Arena *a, const Win *w, const Expr *x, const Fun *outer, const Fun *inner) {
  Param *plane = rw_param(a, "plane");
  const Expr *b = pads(a, w, ir_ref(a, plane));
  if (inner) b = rw_map(a, inner, b);
  if (outer) b = ir_call1(a, outer, b);
  return ir_call1(a, ir_prim(a, P_TRANSPOSE), ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &plane, b)), x));
}

/* WIN(x) with w's pads (padded) or WIN'(x), the windows of planes that are
 * already padded. */
static const Expr *win_view(Arena *a, const Win *w, const Expr *x, bool padded) {
  Param *plane = rw_param(a, "plane");
  const Expr *in = padded ? pads(a, w, ir_ref(a, plane)) : ir_ref(a, plane);
  const Expr *cols = rw_map(a, ir_prim_nn(a, P_SLIDE, w->kw, w->sw), in);
  const Expr *b = rw_map(a, ir_prim(a, P_TRANSPOSE), ir_call1(a, ir_prim_nn(a, P_SLIDE, w->kh, w->sh), cols));
  const Expr *t = ir_call1(a, ir_prim(a, P_TRANSPOSE), ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &plane, b)), x));
  return rw_map(a, ir_prim(a, P_TRANSPOSE), t);
}

static const Expr *win_unpadded(Arena *a, const Win *w, const Expr *x) { return win_view(a, w, x, false); }

/* (k - 1)*t + s: the input elements that k windows of s elements every t cover. */
static const AExpr *cover(Arena *a, const AExpr *k, const AExpr *s, const AExpr *t) {
  return ax_add(a, ax_mul(a, ax_sub(a, k, ax_cst(a, 1)), t), s);
}

/* A tile's windows as a view of its patch (n: rule-specific, or NULL). */
typedef const Expr *(*PatchView)(Arena *a, const Win *w, const Expr *patch, const AExpr *n);

/* zip(tiles, patches) |> map[fun(p) -> view(get[1](p))] */
static const Expr *zip_patches(Arena *a, const Expr *tiles, const Expr *patches, PatchView view, const Win *w,
                               const AExpr *n) {
  const Expr *args[2] = {tiles, patches};
  Param *p = rw_param(a, "p");
  const Expr *patch = ir_call1(a, ir_prim_i(a, P_GET, 1), ir_ref(a, p));
  return ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &p, view(a, w, patch, n))), ir_call(a, ir_prim(a, P_ZIP), 2, args));
}

/* ---- windows-row-patches: split[k](WIN(x)) ---------------------------------- */

static bool rows_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  Win w;
  return rw_is_call(e, P_SPLIT) && rw_win_match(e->args[0], true, &w);
}

static const Expr *rows_view(Arena *a, const Win *w, const Expr *patch, const AExpr *n) {
  (void)n;
  return win_unpadded(a, w, patch);
}

static const Expr *rows_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Win w;
  rw_win_match(e->args[0], true, &w);
  const AExpr *k = e->fun->n;
  const Fun *slide = ir_prim_nn(a, P_SLIDE, cover(a, k, w.kh, w.sh), ax_mul(a, k, w.sh));
  return zip_patches(a, e, per_plane(a, &w, w.x, slide, NULL), rows_view, &w, NULL);
}

/* ---- windows-column-patches: transpose(map[fun(r) -> split[m](split[n](r))](WIN'(q))),
 * or with one split, transpose(map[fun(r) -> split[n](r)](WIN'(q))) (*m NULL) */

static bool columns_split(const Expr *e, const AExpr **m, const AExpr **n) {
  Param *r;
  const Expr *b = rw_is_call(e, P_MAP) ? rw_lambda_body1(e->fun->f, &r) : NULL;
  if (!b || !rw_is_call(b, P_SPLIT)) return false;
  if (rw_is_ref(b->args[0], r)) return *m = NULL, *n = b->fun->n, true;
  if (!rw_is_call(b->args[0], P_SPLIT) || !rw_is_ref(b->args[0]->args[0], r)) return false;
  *m = b->fun->n, *n = b->args[0]->fun->n;
  return true;
}

static bool columns_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  Win w;
  const AExpr *m, *n;
  return rw_is_call(e, P_TRANSPOSE) && columns_split(e->args[0], &m, &n) && rw_win_match(e->args[0]->args[0], false, &w);
}

static const Expr *columns_view(Arena *a, const Win *w, const Expr *patch, const AExpr *n) {
  return n ? rw_map(a, ir_prim_n(a, P_SPLIT, n), win_unpadded(a, w, patch)) : win_unpadded(a, w, patch);
}

static const Expr *columns_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Win w;
  const AExpr *m, *n;
  columns_split(e->args[0], &m, &n);
  rw_win_match(e->args[0]->args[0], false, &w);
  const AExpr *cols = m ? ax_mul(a, m, n) : n;
  const Fun *slide = ir_prim_nn(a, P_SLIDE, cover(a, cols, w.kw, w.sw), ax_mul(a, cols, w.sw));
  return zip_patches(a, e, per_plane(a, &w, w.x, ir_prim(a, P_TRANSPOSE), slide), columns_view, &w, m ? n : NULL);
}

/* ---- windows-of-groups: transpose(map[transpose](map[map[split[cg]]](WIN(x)))) --
 * The windows of G groups of cg planes each ([G][oh][ow][cg][kh][kw], what a
 * grouped layer's kernels read) are the windows of each group's planes:
 * element [g][i][j][q] of the left side is window (i, j) of plane g*cg + q,
 * which is window (i, j) of plane q of split[cg](x)'s element g. */

static bool groups_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  Win w;
  if (!rw_is_call(e, P_TRANSPOSE) || !is_map_of(e->args[0], P_TRANSPOSE)) return false;
  const Expr *m = e->args[0]->args[0];
  if (!rw_is_call(m, P_MAP) || !is_prim_fun(m->fun->f, P_MAP) || !is_prim_fun(m->fun->f->f, P_SPLIT)) return false;
  return rw_win_match(m->args[0], true, &w) || rw_win_match(m->args[0], false, &w);
}

static const Expr *groups_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  Win w;
  const Expr *m = e->args[0]->args[0];
  bool padded = rw_win_match(m->args[0], true, &w);
  if (!padded) rw_win_match(m->args[0], false, &w);
  Param *planes = rw_param(a, "planes");
  const Expr *one = win_view(a, &w, ir_ref(a, planes), padded);
  const Expr *groups = ir_call1(a, ir_prim_n(a, P_SPLIT, m->fun->f->f->n), w.x);
  return ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &planes, one)), groups);
}

/* ---- im2col-channel-chunks --------------------------------------------------
 * IM2COL(A, P) = transpose(map[fun(p) -> transpose(map[fun(y) -> transpose(map[fun(w) ->
 *                  join(map[join](w))](y))](get[1](p)))](zip(A, map[split[n]](WIN'(P)))))
 * the taps (c*kh*kw, channel-major) of the windows of a tile's patch P, moved
 * outside its rows, pixel groups and pixels; A is zipped for its length only. */

/* fun(v) -> transpose(map[f](get[1](v))) or, get false, fun(v) -> transpose(map[f](v)); *f the inner function. */
static bool transposed_map(const Fun *l, bool get, const Fun **f) {
  Param *v;
  const Expr *b = rw_lambda_body1(l, &v);
  if (!b || !rw_is_call(b, P_TRANSPOSE) || !rw_is_call(b->args[0], P_MAP)) return false;
  const Expr *in = b->args[0]->args[0];
  if (get ? !(rw_is_call(in, P_GET) && in->fun->index == 1 && rw_is_ref(in->args[0], v)) : !rw_is_ref(in, v))
    return false;
  *f = b->args[0]->fun->f;
  return true;
}

/* join(map[join](x)), a 3-dimensional array flattened: *x. */
static bool flat_of(const Expr *e, const Expr **x) { return (*x = rw_flat_arg(e)) != NULL; }

/* fun(w) -> join(map[join](w)) */
static bool flatten_fun(const Fun *l) {
  Param *v;
  const Expr *x;
  return flat_of(rw_lambda_body1(l, &v), &x) && rw_is_ref(x, v);
}

/* fun(b) -> join(map[join](map[transpose](transpose(b)))): a chunk's window
 * [CC][kh][kw] flattened tap-major, [kh*kw*CC]. */
static bool taps_fun(const Fun *l) {
  Param *v;
  const Expr *t;
  if (!flat_of(rw_lambda_body1(l, &v), &t)) return false;
  return is_map_of(t, P_TRANSPOSE) && rw_is_call(t->args[0], P_TRANSPOSE) && rw_is_ref(t->args[0]->args[0], v);
}

static const Fun *taps_fun_new(Arena *a) {
  Param *b = rw_param(a, "b");
  const Expr *t = rw_map(a, ir_prim(a, P_TRANSPOSE), ir_call1(a, ir_prim(a, P_TRANSPOSE), ir_ref(a, b)));
  return ir_lambda(a, 1, &b, ir_call1(a, ir_prim(a, P_JOIN), rw_map(a, ir_prim(a, P_JOIN), t)));
}

/* fun(w) -> join(map[TAPS](split[CC](w))), TAPS taps_fun's: a window
 * [C][kh][kw] flattened in chunks of CC channels, each chunk tap-major;
 * *cc the chunk's channels. */
static bool chunked_fun(const Fun *l, const AExpr **cc) {
  Param *v;
  const Expr *b = rw_lambda_body1(l, &v);
  if (!b || !rw_is_call(b, P_JOIN) || !rw_is_call(b->args[0], P_MAP) || !taps_fun(b->args[0]->fun->f)) return false;
  const Expr *s = b->args[0]->args[0];
  if (!rw_is_call(s, P_SPLIT) || !rw_is_ref(s->args[0], v)) return false;
  *cc = s->fun->n;
  return true;
}

/* IM2COL(A, P); *blocks the map[split[n]](WIN'(P)), w its windows. */
static bool im2col_match(const Expr *e, const Expr **blocks, Win *w) {
  const Fun *rows, *groups;
  if (!rw_is_call(e, P_TRANSPOSE) || !rw_is_call(e->args[0], P_MAP)) return false;
  const Expr *z = e->args[0]->args[0];
  if (!transposed_map(e->args[0]->fun->f, true, &rows) || !transposed_map(rows, false, &groups) || !flatten_fun(groups))
    return false;
  if (!rw_is_call(z, P_ZIP) || z->nargs != 2 || !rw_is_call(z->args[1], P_MAP) || !is_prim_fun(z->args[1]->fun->f, P_SPLIT))
    return false;
  *blocks = z->args[1];
  return rw_win_match((*blocks)->args[0], false, w);
}

/* split[m](IM2COL(A, P)), m = CC*kh*kw, CC | c */
static bool chunks_match(const Expr *e, const AExpr *const *args) {
  const Expr *blocks;
  Win w;
  if (!rw_is_call(e, P_SPLIT) || !im2col_match(e->args[0], &blocks, &w)) return false;
  Arena *a = arena_new();   // the matcher builds nothing it keeps
  bool ok = ax_equal(e->fun->n, ax_mul(a, args[0], ax_mul(a, w.kh, w.kw)));
  arena_free(a);
  return ok && rw_may_divide(rw_len(w.x), args[0]);
}

static const Expr *chunks_build(Arena *a, const Expr *e, const AExpr *const *args) {
  const Expr *blocks, *x = e->args[0], *z = x->args[0]->args[0];
  Win w;
  im2col_match(x, &blocks, &w);
  Param *c = rw_param(a, "chunk");
  const Expr *mine = rw_map(a, blocks->fun->f, win_unpadded(a, &w, ir_ref(a, c)));
  const Expr *zargs[2] = {z->args[0], mine};
  const Expr *im2col = ir_call1(a, x->fun, ir_call1(a, x->args[0]->fun, ir_call(a, z->fun, 2, zargs)));
  const Expr *split = ir_call1(a, ir_prim_n(a, P_SPLIT, args[0]), w.x);
  return ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &c, im2col)), split);
}

/* ---- step-channel-chunks ----------------------------------------------------
 * STEPS(A, P) = transpose(map[fun(p) -> map[g](split[k](transpose(map[fun(w) ->
 *                 join(map[join](w))](get[1](p)))))](zip(A, WIN'(P))))
 * each row's windows' taps (channel-major) in steps of k values, the rows
 * inside the steps: what a tile product walks (strategy tc). n steps are
 * n*k taps, CC whole channels when n*k = CC*kh*kw, so the steps' chunks of n
 * are the same steps of CC channels of P at a time. */

/* STEPS(A, P) with its pieces: *k, *g's map, *win WIN'(P)'s; *cc NULL when
 * the windows are flattened channel-major, else the chunk of the tap-major
 * flattening (window-taps-chunked). */
static bool steps_match(const Expr *e, const AExpr **k, Win *w, const AExpr **cc) {
  if (!rw_is_call(e, P_TRANSPOSE) || !rw_is_call(e->args[0], P_MAP)) return false;
  const Expr *m = e->args[0], *z = m->args[0];
  if (!rw_is_call(z, P_ZIP) || z->nargs != 2 || !rw_win_match(z->args[1], false, w)) return false;
  Param *p;
  const Expr *b = rw_lambda_body1(m->fun->f, &p);
  if (!b || !rw_is_call(b, P_MAP) || !rw_is_call(b->args[0], P_SPLIT)) return false;
  const Expr *t = b->args[0]->args[0];
  if (!rw_is_call(t, P_TRANSPOSE) || !rw_is_call(t->args[0], P_MAP) || t->args[0]->fun->f->kind != F_LAMBDA)
    return false;
  *cc = NULL;
  if (!flatten_fun(t->args[0]->fun->f) && !chunked_fun(t->args[0]->fun->f, cc)) return false;
  const Expr *in = t->args[0]->args[0];
  *k = b->args[0]->fun->n;
  return rw_is_call(in, P_GET) && in->fun->index == 1 && rw_is_ref(in->args[0], p);
}

/* split[n](STEPS(A, P)), n*k = CC*kh*kw, CC | c; tap-major, CC the
 * flattening's chunk */
static bool step_chunks_match(const Expr *e, const AExpr *const *args) {
  const AExpr *k, *cc;
  Win w;
  if (!rw_is_call(e, P_SPLIT) || !steps_match(e->args[0], &k, &w, &cc)) return false;
  if (cc && !ax_equal(cc, args[0])) return false;
  Arena *a = arena_new();   // the matcher builds nothing it keeps
  bool ok = ax_equal(ax_mul(a, e->fun->n, k), ax_mul(a, args[0], ax_mul(a, w.kh, w.kw)));
  arena_free(a);
  return ok && rw_may_divide(rw_len(w.x), args[0]);
}

static const Expr *step_chunks_build(Arena *a, const Expr *e, const AExpr *const *args) {
  const AExpr *k, *cc;
  Win w;
  const Expr *x = e->args[0], *m = x->args[0], *z = m->args[0];
  steps_match(x, &k, &w, &cc);
  Param *c = rw_param(a, "chunk");
  const Expr *zargs[2] = {z->args[0], win_unpadded(a, &w, ir_ref(a, c))};
  const Fun *f = m->fun;
  if (cc) {   // tap-major: a chunk's windows are one chunk each, flattened by the chunk's own order
    Param *p;   // the step's own parameter, kept: g may read it
    const Expr *b = rw_lambda_body1(m->fun->f, &p), *s = b->args[0];
    const Expr *wins = ir_call1(a, ir_prim_i(a, P_GET, 1), ir_ref(a, p));
    const Expr *t = ir_call1(a, ir_prim(a, P_TRANSPOSE), rw_map(a, taps_fun_new(a), wins));
    const Expr *body = ir_call1(a, b->fun, ir_call1(a, s->fun, t));
    f = ir_prim_f(a, P_MAP, ir_lambda(a, 1, &p, body));
  }
  const Expr *steps = ir_call1(a, x->fun, ir_call1(a, f, ir_call(a, z->fun, 2, zargs)));
  return ir_call1(a, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &c, steps)), ir_call1(a, ir_prim_n(a, P_SPLIT, args[0]), w.x));
}

/* ---- window-taps-chunked ----------------------------------------------------
 * reduce[f](z, map[g](zip(FLAT(x), FLAT(y)))), FLAT(v) = join(map[join](v))
 * of two [C][kh][kw] arrays (a window and its kernel): the same reduction
 * over the same pairs in another order, TAPS(v) = join(map[fun(b) ->
 * join(map[join](map[transpose](transpose(b))))](split[CC](v))): chunks of
 * CC channels, each chunk's taps tap-major. f must be commutative and
 * associative (add, mul, max, min: ir_user_op), as partial-reduce's; the sum
 * is the same up to its rounding. */

static bool flat_arg(const Expr *e, const Expr **v) {
  if (!flat_of(e, v)) return false;
  const Type *t = (*v)->type;
  return t && t->kind == TY_ARRAY && t->elem->kind == TY_ARRAY && t->elem->elem->kind == TY_ARRAY;
}

static bool taps_match(const Expr *e, const AExpr *const *args) {
  if (!rw_is_call(e, P_REDUCE) || e->fun->f->kind != F_USER || ir_user_op(e->fun->f->uf) == IR_OP_NONE) return false;
  const Expr *m = e->args[1], *x, *y;
  if (!rw_is_call(m, P_MAP) || !rw_is_call(m->args[0], P_ZIP) || m->args[0]->nargs != 2) return false;
  const Expr *z = m->args[0];
  if (!flat_arg(z->args[0], &x) || !flat_arg(z->args[1], &y)) return false;
  return ax_equal(x->type->len, y->type->len) && ax_equal(x->type->elem->len, y->type->elem->len) &&
         ax_equal(x->type->elem->elem->len, y->type->elem->elem->len) && rw_may_divide(x->type->len, args[0]);
}

static const Expr *taps(Arena *a, const Expr *v, const AExpr *cc) {
  return ir_call1(a, ir_prim(a, P_JOIN), rw_map(a, taps_fun_new(a), ir_call1(a, ir_prim_n(a, P_SPLIT, cc), v)));
}

static const Expr *taps_build(Arena *a, const Expr *e, const AExpr *const *args) {
  const Expr *m = e->args[1], *z = m->args[0], *x, *y;
  flat_arg(z->args[0], &x);
  flat_arg(z->args[1], &y);
  const Expr *zargs[2] = {taps(a, x, args[0]), taps(a, y, args[0])};
  return rw_call2(a, e->fun, e->args[0], ir_call1(a, m->fun, ir_call(a, z->fun, 2, zargs)));
}

static const Rule RULES[] = {
    {"windows-row-patches",
     "split[k](WIN(x)) => map[fun(p) -> WIN'(get[1](p))](zip(split[k](WIN(x)), x |> map[fun(plane) -> plane |> "
     "PADS |> slide[(k - 1)*sh + kh, k*sh]] |> transpose))  (WIN(x) = x |> map[fun(plane) -> plane |> PADS |> "
     "map[slide[kw, sw]] |> slide[kh, sh] |> map[transpose]] |> transpose |> map[transpose], PADS = "
     "map[pad[pw, pw, v]] |> pad[ph, ph, v], WIN' the same without PADS; k | the rows of windows, from the split; "
     "the zip: as many row patches)",
     0, {0}, rows_match, rows_build},
    {"windows-column-patches",
     "transpose(map[fun(r) -> split[m](split[n](r))](WIN'(q))) => map[fun(p) -> map[split[n]](WIN'(get[1](p)))]("
     "zip(transpose(map[fun(r) -> split[m](split[n](r))](WIN'(q))), q |> map[fun(plane) -> plane |> "
     "map[slide[(m*n - 1)*sw + kw, m*n*sw]] |> transpose] |> transpose))  (WIN' as for windows-row-patches; "
     "m*n | the columns of windows, from the splits; the zip: as many column patches; with one split[n], no m: "
     "m*n is n and each patch's windows are WIN'(get[1](p)))",
     0, {0}, columns_match, columns_build},
    {"windows-of-groups",
     "transpose(map[transpose](map[map[split[cg]]](WIN(x)))) => map[fun(planes) -> WIN(planes)](split[cg](x))  "
     "(WIN as for windows-row-patches, or WIN'; the windows of G groups of cg planes are each group's planes' "
     "windows: [G][oh][ow][cg][kh][kw])",
     0, {0}, groups_match, groups_build},
    {"im2col-channel-chunks",
     "split[CC*kh*kw](IM2COL(A, P)) => map[fun(c) -> IM2COL(A, c)](split[CC](P))  (IM2COL(A, P) = "
     "transpose(map[fun(p) -> transpose(map[fun(y) -> transpose(map[fun(w) -> join(map[join](w))](y))]("
     "get[1](p)))](zip(A, map[split[n]](WIN'(P))))): the windows' taps, channel-major, outside the rows, pixel "
     "groups and pixels; A is read for its length only; P: [C][U][V], C % CC = 0)",
     1, {"CC: input channels per chunk"}, chunks_match, chunks_build},
    {"step-channel-chunks",
     "split[n](STEPS(A, P)) => map[fun(c) -> STEPS(A, c)](split[CC](P))  (STEPS(A, P) = transpose(map[fun(p) -> "
     "map[g](split[k](transpose(map[fun(w) -> join(map[join](w))](get[1](p)))))](zip(A, WIN'(P)))): each row's "
     "windows' taps, channel-major, in steps of k, the rows inside the steps (a tile product's); n*k = CC*kh*kw, "
     "so n steps are CC whole channels; A is read for its length only; P: [C][U][V], C % CC = 0; with the windows "
     "flattened by window-taps-chunked's TAPS of chunk CC, each chunk's windows flattened tap-major)",
     1, {"CC: input channels per chunk"}, step_chunks_match, step_chunks_build},
    {"window-taps-chunked",
     "reduce[f](z, map[g](zip(join(map[join](x)), join(map[join](y))))) => reduce[f](z, map[g](zip(TAPS(x), "
     "TAPS(y))))  (TAPS(v) = join(map[fun(b) -> join(map[join](map[transpose](transpose(b))))](split[CC](v))): "
     "x and y [C][kh][kw], their values in chunks of CC channels, each chunk's taps tap-major (kh, kw, then the "
     "chunk's channels); f commutative and associative (add, mul, max or min); C % CC = 0; equal up to the "
     "rounding of the sum's new order)",
     1, {"CC: input channels per chunk"}, taps_match, taps_build},
};

const Rule *rw_patch_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
