/* strategy_s3.c: S3, the input channels split across work-items (docs/design.md
 * s.6), for deep layers with few output pixels: each work-item sums the
 * products of CG input channels of one window (kh*kw*CG of them), the
 * partial sums go to global memory, and a second kernel adds them up, from
 * the bias, and applies the activation. Derived from the high-level
 * expression:
 *
 *   reduce-init-out          the bias leaves the reduction (added at the end)
 *   partial-reduce CG*kh*kw  the window's products in chunks of CG channels
 *   split-map, map-fusion,   the products made inside each chunk's reduction
 *   beta, reduce-map-fusion
 *   map-fission-zip (x4)     the chunks' partial sums leave the maps over
 *   beta                     pixels, rows, channels and (after the windows
 *                            are inlined: a view) the batch: a kernel of
 *                            their own
 *   reduce-seq-nest kh*kw    a chunk's loop over its CG channels, each
 *                            channel's window unrolled (constant offsets)
 *   lowering                 kernel 1: channel groups, output channels and
 *                            pixels the 3-D range (rows a loop); kernel 2:
 *                            output channels, rows and pixels the 3-D range
 * CG stays symbolic: its split gives (c*kh*kw) % (CG*kh*kw) == 0.
 */
#include "rewrite/strategy.h"

#include <string.h>

Program *strategy_s3(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d) {
  Program *p = (Program *)hl;
  (void)l, (void)choice;
  int count;
  RwPath all[256];
  int nall = rw_find(p->body, rw_rule("map-to-seq"), NULL, all, 256);
  for (int i = 0; i < nall; i++)
    if (st_is_group_map(rw_at(p->body, &all[i])))
      return diag_error(d, "s3: a grouped layer (groups=G) is not built: the partial sums would leave the map over "
                        "the groups too, which map-fission-zip does not take"), NULL;
  const Type *t = NULL;   // the weights: [[[[float]kw]kh]c]k
  for (int i = 0; i < p->ninputs; i++)
    if (strcmp(p->inputs[i]->name, "weights") == 0) t = p->inputs[i]->type;
  if (!t) return diag_error(d, "s3: the program has no input 'weights'"), NULL;
  const AExpr *taps = ax_mul(a, t->elem->elem->len, t->elem->elem->elem->len);   // kh*kw
  const AExpr *chunk = ax_mul(a, ax_var(a, "CG", 1, AX_INF), taps);
  if (!(p = st_apply_all(a, p, "reduce-init-out", NULL, NULL, 1, &count, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "partial-reduce", &chunk, NULL, 1, &count, log, d))) return NULL;
  if (count != 1) return diag_error(d, "s3: the window's reduction cannot be split"), NULL;
  if (!(p = st_products_in_chunks(a, p, log, d))) return NULL;
  RwPath at;
  // the partial sums out of the maps over pixels, rows, channels and the
  // batch, innermost first (the outer ones' paths stay valid)
  RwPath levels[8];
  if (st_compute_maps(p, levels, 8) < 4) return diag_error(d, "s3: expected the maps over batch, channels, rows and pixels"), NULL;
  for (int i = 0; i < 4; i++) {
    at = levels[3 - i];
    RwPath batch_body = st_path(&levels[0], "/1");
    if (i == 3 && !(p = st_apply_at(a, p, "beta", NULL, &batch_body, log, d))) return NULL;
    const AExpr *depth = ax_cst(a, i == 0 ? st_depth_to_chunks(p, &at) : i == 1 ? 3 : 2);
    if (!(p = st_apply_at(a, p, "map-fission-zip", &depth, &at, log, d))) return NULL;
  }
  // lowering
  if (!(p = st_apply_all(a, p, "reduce-to-seq", NULL, NULL, 0, &count, log, d))) return NULL;
  if (!(p = st_nest_window(a, p, log, d))) return NULL;
  RwPath maps[32];
  int n = st_compute_maps(p, maps, 32);
  if (n < 9) return diag_error(d, "s3: expected two nests of maps over batch, channels, rows and pixels"), NULL;
  // pre-order: kernel 2's batch map, then kernel 1 (batch, channels, rows,
  // pixels, chunks), then kernel 2's channels, rows, pixels, and its epilogue
  const char *rule[] = {"map-to-seq", "map-to-seq", "map-to-glb", "map-to-seq", "map-to-glb", "map-to-glb",
                        "map-to-glb", "map-to-glb", "map-to-glb"};
  const int64_t dim[] = {0, 0, 1, 0, 0, 2, 2, 1, 0};
  for (int i = n - 1; i >= 0; i--) {   // innermost first: the paths of outer maps stay valid
    const char *r = i < 9 ? rule[i] : "map-to-seq";
    const AExpr *arg = ax_cst(a, i < 9 ? dim[i] : 0);
    if (!(p = st_apply_at(a, p, r, strcmp(r, "map-to-glb") == 0 ? &arg : NULL, &maps[i], log, d))) return NULL;
  }
  return p;
}

int strategy_s3_domains(const Layer *l, StDomain *out) {
  out[0] = (StDomain){"CG", 1, l->c};
  return 1;
}
