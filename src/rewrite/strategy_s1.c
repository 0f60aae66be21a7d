/* strategy_s1.c: S1, partial-reduction tiles (GPGPU'20; docs/design.md section 6),
 * derived from the high-level expression. A work-group computes KPG output
 * channels of WPT neighbouring pixels of one output row. Each flattened
 * window (c*kh*kw products) is cut into chunks of SO, one chunk per
 * work-item, read with a stride so that neighbouring work-items read
 * neighbouring addresses; the partial sums of all KPG x WPT outputs go to
 * local memory; after a barrier, a second stage sums each output's chunks,
 * adds the bias and applies the activation, the output channels spread over
 * the work-items.
 *
 *   reduce-init-out          the bias leaves the reduction
 *   reorder-reduce SO        the window read with stride c*kh*kw/SO
 *   partial-reduce SO        in chunks of SO (after the reordering: strided)
 *   gather-map, then the shared steps that make the products inside each
 *   chunk's reduction (split-map, map-fusion, beta, reduce-map-fusion)
 *   the shared tiling        channels in groups of KPG and pixels in groups
 *                            of WPT, the channel map inside the pixel group
 *                            (map-interchange-zip with a residual, whose rows
 *                            and pixels the channel's plane is zipped with)
 *   map-fission-zip (x2)     the chunks' partial sums of the group's pixels,
 *                            then channels, computed first: stage one
 *   st_sink (x2),            the chunks outside the group's pixels and
 *   map-reduce-fuse (x2)     channels; each work-item's chunk sums for all
 *                            of them in one loop: KPG x WPT accumulators in
 *                            registers ([windowsPerThread][kernelsPerGroup])
 *   lowering                 batch a loop; channel groups, rows and pixel
 *                            groups the work-groups (mapWrg 2, 1, 0); stage
 *                            one's chunks over the work-items (mapLcl 0), its
 *                            block unrolled, into local memory (toLocal);
 *                            stage two gives the channels to the work-items
 *                            (mapLcl 0) and loops over pixels
 * KPG, WPT and SO stay symbolic; the barrier between the stages is placed by
 * the lowering.
 */
#include "rewrite/strategy.h"

Program *strategy_s1(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d) {
  Program *p = (Program *)hl;
  (void)l, (void)choice;
  int count;
  const AExpr *kpg = ax_var(a, "KPG", 1, AX_INF), *wpt = ax_var(a, "WPT", 1, AX_INF);
  const AExpr *so = ax_var(a, "SO", 1, AX_INF);
  if (!(p = st_apply_all(a, p, "reduce-init-out", NULL, NULL, 1, &count, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "reorder-reduce", &so, NULL, 1, &count, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "partial-reduce", &so, NULL, 1, &count, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "gather-map", NULL, NULL, 1, &count, log, d))) return NULL;
  if (!(p = st_products_in_chunks(a, p, log, d))) return NULL;
  if (!(p = st_tile_channels_pixels(a, p, kpg, wpt, log, d))) return NULL;
  RwPath channels;
  if (!st_tiled_channel_map(p, &channels, d)) return NULL;
  RwPath pixels = st_path(&channels, "/1");
  const AExpr *depth = ax_cst(a, st_depth_to_chunks(p, &pixels));
  if (!(p = st_apply_at(a, p, "map-fission-zip", &depth, &pixels, log, d))) return NULL;
  depth = ax_cst(a, 2);
  if (!(p = st_apply_at(a, p, "map-fission-zip", &depth, &channels, log, d))) return NULL;
  // stage one: the chunks over the work-items outermost, then each work-item
  // sums its chunk for every channel and pixel of the group at once, with a
  // private accumulator per (channel, pixel): KPG x WPT registers
  // (pre-order: 0 batch, 1 channel groups, 2 rows, 3 pixel groups, 4 stage
  // two's channels, 5 stage one's channels, 6 its pixels, 7 its chunks)
  if (!(p = st_sink(a, p, 6, log, d))) return NULL;   // pixels inside chunks
  if (!(p = st_sink(a, p, 5, log, d))) return NULL;   // channels inside chunks
  RwPath maps[64];
  int n = st_compute_maps(p, maps, 64);
  if (n < 8) return diag_error(d, "s1: expected the maps of the tiles and of both stages"), NULL;
  RwPath chunk = maps[5], chans = maps[6], pix = maps[7];
  if (!(p = st_fission_to_reduce(a, p, &pix, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-reduce-fuse", NULL, &pix, log, d))) return NULL;
  if (!(p = st_fission_to_reduce(a, p, &chans, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-reduce-fuse", NULL, &chans, log, d))) return NULL;
  // lowering
  if (!(p = st_apply_all(a, p, "reduce-to-seq", NULL, NULL, 0, &count, log, d))) return NULL;
  n = st_compute_maps(p, maps, 64);
  for (int i = n - 1; i >= 0; i--) {   // innermost first: the paths of outer maps stay valid
    bool in_chunk = i > 5 && maps[i].n > chunk.n && st_path_within(&maps[i], &chunk);
    const char *r = i == 0 ? "map-to-seq" : i <= 3 ? "map-to-wrg" : i <= 5 ? "map-to-lcl"
                  : in_chunk ? "map-to-seq-unroll" : "map-to-seq";
    // the work-groups: channel groups, rows and pixel groups in dimensions 2, 1, 0;
    // stage two's channels and stage one's chunks over the work-items (dimension 0)
    const AExpr *arg = ax_cst(a, i >= 1 && i <= 3 ? 3 - i : 0);
    if (!(p = st_apply_at(a, p, r, i >= 1 && i <= 5 ? &arg : NULL, &maps[i], log, d))) return NULL;
  }
  return st_apply_at(a, p, "to-local", NULL, &chunk, log, d);   // stage one's result: local memory
}

int strategy_s1_domains(const Layer *l, StDomain *out) {
  out[0] = (StDomain){"KPG", 1, l->k};
  out[1] = (StDomain){"WPT", 1, l->out_w};
  out[2] = (StDomain){"SO", 1, (int64_t)l->c * l->kh * l->kw};
  return 3;
}
