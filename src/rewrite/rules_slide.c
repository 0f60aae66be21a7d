/* rules_slide.c: overlapping tiles of a slide.
 *
 * slide[s, t] makes windows of s elements every t elements. Tiling cuts the
 * input into overlapping tiles of u elements, each starting v = u - s + t
 * after the previous one (consecutive tiles share the s - t elements of the
 * halo), and slides within each tile: a tile holds k = (u - s)/t + 1 windows,
 * and tile j's windows are windows j*k .. j*k + k - 1 of the original, so
 * joining the tiles gives the original windows in order. This is exact when
 * u >= s, t divides u - s, and k divides the number of windows
 * W = (N - s)/t + 1 (then there are W/k tiles; otherwise the last windows
 * would be lost). The match checks these where the sizes are constants; with
 * a symbolic u, N >= u and u >= s are read off the two slides it leaves, and
 * the other two are stated in the equation for the parameter space.
 * A 2-D tiling is this rule applied twice (to the slide over rows and, after
 * map-eta, to the slide inside map[slide[s, t]]): no rule of its own.
 */
#include "rewrite/rules.h"

typedef struct Sizes {
  int64_t n, s, t, u;  // input length, window, step, tile
} Sizes;

static bool all_constant(const AExpr *len, const Fun *slide, const AExpr *u, Sizes *z) {
  return ax_is_cst(len, &z->n) && ax_is_cst(slide->n, &z->s) && ax_is_cst(slide->m, &z->t) && ax_is_cst(u, &z->u);
}

/* slide[s, t](x), x: [T]N, with the conditions above where decidable. */
static bool tiling_match(const Expr *e, const AExpr *const *args) {
  if (!rw_is_call(e, P_SLIDE) || !rw_len(e->args[0])) return false;
  const Fun *f = e->fun;
  const AExpr *u = args[0], *len = rw_len(e->args[0]);
  Sizes z;
  if (!all_constant(len, f, u, &z)) return rw_may_le(f->n, u) && rw_may_le(u, len);
  if (z.t < 1 || z.u < z.s || z.u > z.n || (z.u - z.s) % z.t != 0) return false;
  int64_t windows = (z.n - z.s) / z.t + 1, per_tile = (z.u - z.s) / z.t + 1;
  return windows % per_tile == 0;
}

static const Expr *tiling_build(Arena *a, const Expr *e, const AExpr *const *args) {
  const Fun *f = e->fun;
  const AExpr *u = args[0], *v = ax_add(a, ax_sub(a, u, f->n), f->m);
  const Expr *tiles = ir_call1(a, ir_prim_nn(a, P_SLIDE, u, v), e->args[0]);
  return ir_call1(a, ir_prim(a, P_JOIN), ir_call1(a, ir_prim_f(a, P_MAP, f), tiles));
}

static const Rule RULES[] = {
    {"slide-tiling",
     "slide[s, t](x) => join(map[slide[s, t]](slide[u, u - s + t](x)))  (x: [T]N; a tile of u elements holds "
     "k = (u - s)/t + 1 windows; valid when s <= u <= N, (u - s) % t = 0 and ((N - s)/t + 1) % k = 0)",
     1, {"u: tile size in input elements (halo included)"}, tiling_match, tiling_build},
};

const Rule *rw_slide_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
