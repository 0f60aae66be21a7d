/* strategy_s2.c: S2, register-blocked output tiles (DESIGN.md s.6), derived
 * from the high-level expression. Each work-item computes RK output channels
 * of RW neighbouring pixels of one row, with the RK x RW partial sums in
 * registers: one loop over the window (kh*kw*c steps) updates all of them,
 * so every input value read serves RK channels and every weight RW pixels.
 *
 *   reduce-map-fusion        the products are made inside the reduction
 *   split-join RW, map-eta   the pixels of a row in groups of RW
 *   split-join RK, map-eta   the output channels in groups of RK
 *   map-interchange (x3)     the channel map moved inside the row, the pixel
 *                            group and the pixel maps (map-fission-call moves
 *                            the joins out of the way)
 *   map-fission-call         the activation leaves the channel map, then the
 *                            pixel map
 *   map-reduce-fuse (x2)     the RK reductions, then the RW of those, become
 *                            one reduction with an RW x RK accumulator
 *   beta, map-eta            tidying: no redexes, every map a call
 *   lowering                 the batch a loop; channel groups, rows and pixel
 *                            groups the 3-D range (parallel level and
 *                            dimensions as chosen); the block maps unrolled
 * RK and RW stay symbolic: the splits they make give RK | k and RW | out_w.
 */
#include "rewrite/strategy.h"

#include "lower/view.h"

/* Apply map-fission-call at `at` until the map's body is a reduction; *at
 * follows the map (the fission leaves it as the argument of the new outer map). */
static Program *fission_to_reduce(Arena *a, Program *p, RwPath *at, StrBuf *log, Diag *d) {
  for (int guard = 0; p && guard < 8; guard++) {
    const Expr *body = st_body(p, at);
    if (!body) return diag_error(d, "s2: expected a map at %s", rw_path_str(a, at)), NULL;
    if (body->kind == E_CALL && body->fun->kind == F_PRIM && body->fun->prim == P_REDUCE) return p;
    if (!(p = st_apply_at(a, p, "map-fission-call", NULL, at, log, d))) return NULL;
    *at = st_path(at, "/0");
  }
  return p ? (diag_error(d, "s2: no reduction under the map at %s", rw_path_str(a, at)), NULL) : NULL;
}

static bool is_prim_map_fun(const Expr *e) {
  return e->kind == E_CALL && e->fun->kind == F_PRIM && e->fun->prim == P_MAP && e->fun->f->kind == F_PRIM &&
         e->fun->f->prim == P_MAP && !vw_is_layout_fun(e->fun->f);
}

Program *strategy_s2(Arena *a, const Program *hl, StrBuf *log, Diag *d) {
  Program *p = (Program *)hl;
  int count;
  const AExpr *rk = ax_var(a, "RK", 1, AX_INF), *rw = ax_var(a, "RW", 1, AX_INF);
  RwPath at;
  if (!(p = st_apply_all(a, p, "reduce-map-fusion", NULL, NULL, 1, &count, log, d))) return NULL;
  if (!(p = st_tile_channels_pixels(a, p, rk, rw, log, d))) return NULL;
  at = st_path(NULL, "/1/1/0/1/0/1/0/0/0/1");   // the channel map inside the pixel group: inside the pixels
  if (!(p = st_apply_at(a, p, "map-interchange", NULL, &at, log, d))) return NULL;
  RwPath pixel = st_path(NULL, "/1/1/0/1/0/1/0/0/0/1/0"), channel = st_path(&pixel, "/1");
  if (!(p = fission_to_reduce(a, p, &channel, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-reduce-fuse", NULL, &channel, log, d))) return NULL;
  if (!(p = fission_to_reduce(a, p, &pixel, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-reduce-fuse", NULL, &pixel, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "beta", NULL, NULL, 0, &count, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "map-eta", NULL, is_prim_map_fun, 0, &count, log, d))) return NULL;
  // lowering
  if (!(p = st_apply_all(a, p, "reduce-to-seq", NULL, NULL, 0, &count, log, d))) return NULL;
  RwPath maps[32];
  int n = st_compute_maps(p, maps, 32);
  if (n < 4) return diag_error(d, "s2: expected the maps over batch, channel groups, rows and pixel groups"), NULL;
  for (int i = n - 1; i >= 0; i--) {  // innermost first: the paths of outer maps stay valid
    const char *rule = i == 0 ? "map-to-seq" : i <= 3 ? "map-to-glb" : "map-to-seq-unroll";
    const AExpr *dim = ax_cst(a, 3 - i);
    if (!(p = st_apply_at(a, p, rule, i >= 1 && i <= 3 ? &dim : NULL, &maps[i], log, d))) return NULL;
  }
  return p;
}

int strategy_s2_domains(const Layer *l, StDomain *out) {
  out[0] = (StDomain){"RK", 1, l->k};
  out[1] = (StDomain){"RW", 1, l->out_w};
  return 2;
}
