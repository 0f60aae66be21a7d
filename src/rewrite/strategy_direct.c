/* strategy_direct.c: the direct convolution, one work-item per output
 * element (the naive baseline of docs/design.md section 9), derived from the high-level
 * expression:
 *   reduce-map-fusion  the products are made inside the reduction's loop
 *   reduce-to-seq      the reduction is a sequential loop
 *   map-to-seq         the batch is a loop of every work-item
 *   map-to-glb 2/1/0   output channels, rows and columns are the 3-D range
 *   map-to-seq         the activation of the one-element result
 * The layout maps (padding, sliding, flattening) stay: they are views.
 */
#include "rewrite/strategy.h"

Program *strategy_direct(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d) {
  Program *p = (Program *)hl;
  (void)l, (void)choice;
  int count;
  if (!(p = st_apply_all(a, p, "reduce-map-fusion", NULL, NULL, 1, &count, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "reduce-to-seq", NULL, NULL, 0, &count, log, d))) return NULL;
  RwPath maps[8];
  int n = st_compute_maps(p, maps, 8);
  if (n < 4) return diag_error(d, "direct: expected the maps over batch, channels, rows and columns"), NULL;
  // pre-order: batch, output channel, row, column, then the activation (if any)
  const char *rule[] = {"map-to-seq", "map-to-glb", "map-to-glb", "map-to-glb", "map-to-seq"};
  int64_t dim[] = {0, 2, 1, 0, 0};
  for (int i = 0; i < n && i < 5; i++) {
    const AExpr *arg = ax_cst(a, dim[i]);
    if (!(p = st_apply_at(a, p, rule[i], &arg, &maps[i], log, d))) return NULL;
  }
  return p;
}
