/* strategy_tc.c: TC, tensor-core tiles (issue 31; docs/design.md section
 * 6; docs/rewrite.md, "The TC derivation"): TH warps a work-group, one
 * output row each, each warp RW pixels of its row by RK output channels in
 * the tile product's 16 x 8 sub-tiles (LT: the pixels or the channels are
 * the 16), the window's products summed by the warp's tile product
 * (mma3xTF32: fp32's accuracy from three TF32 products; mmaTF32, one, for a
 * tf32 layer; mmaF16 for an fp16 layer; docs/ir.md, "Tile products"), 8
 * (16) of the window's values a step.
 *
 *   reduce-map-fusion, the     as s2: the accumulators of a warp's tile one
 *   shared tiling, map-        reduction over the window, each step the
 *   reduce-fuse-outer (x2)     outer product of input values and weights
 *   tile-product               the reduction 8 (16) steps at a time, each the
 *                              tile products of every sub-tile, their
 *                              accumulators in the warp's layout (copied in
 *                              from the bias and out by each lane)
 *   tf32-product               (precision=tf32) one TF32 product for three
 *   map-through-views          the activation into the lanes' copy out
 *   split-join TH, st_sink     a work-group's rows, one warp each
 *   lowering                   the batch a loop (LN=2: work-groups, with the
 *                              channel groups in dimension 2); channel groups, row tiles
 *                              and pixel groups the work-groups (mapWrg 2, 1,
 *                              0), a tile's rows mapLcl 1, the lanes' copies
 *                              mapLcl 0, the copy in to private memory
 * LS=2 (staged) after the split-join TH:
 *   map-reduce-fuse-outer      the warps' reductions one of the work-group
 *                              (the weights' tiles shared, each warp's
 *                              windows its own)
 *   reduce-split-seq CS,       in chunks of CS steps, each chunk two arrays
 *   split-zip, reduce-map-
 *   fusion, beta
 *   copy, map-flatten (x2)     each chunk copied by the group as one line
 *   reduce-seq-prefetch (LP=2) the next chunk loaded while this one is
 *   or -double-buffer (LP=3)   computed (as s2's LP)
 *   or -async (LP=4)
 *   lowering as above, the     ... into local memory
 *   copies mapLcl flat,
 *   to-local (x2)
 * LS=3 (the patch staged) the same, with:
 *   st_tile_patches            first: the tiles walk their patches of the
 *                              input (windows-row-patches, windows-column-
 *                              patches, each with map-fusion and beta), a
 *                              tile's windows views of its patch
 *   reduce-split-seq kh*kw*CB  chunks of CB blocks of 8 (16) input channels
 *   step-channel-chunks CC,    each chunk's steps the same view of its CC
 *   zip-map-fusion             channels of the patch, made in the chunk's step
 *   copy of the patch's chunk  [CC][U][V], each value once, flat
 * LG=2 (with LS=2 or 3): TH x TK warps, TK of them over neighbouring blocks
 * of RK channels: split-join TK on the channel groups, map-eta, st_sink
 * twice (beside a tile's rows), both maps' reductions fused into the
 * group's; the channel blocks mapLcl 2 (workgroup 32, TH, TK).
 * LA=2 (with LS=3), first of all:
 *   window-taps-chunked CC     the window's taps in chunks of the patch's CC
 *                              channels, each chunk tap-major (kh, kw, then
 *                              its channels): a step's 8 (16) values are
 *                              neighbouring channels of one tap, so a lane's
 *                              fragments lie at offsets of the tap alone
 * A dense layer the tiles do not divide is derived padded (channels_layer,
 * wider_layer); strategy_tc_refuses says which layers it does not take.
 */
#include "rewrite/strategy.h"

#include "conv/program.h"
#include "rewrite/rules.h"

enum { TILE_PIXEL_ROWS = 1, TILE_CHANNEL_ROWS = 2 };   // the values of LT
enum { READ_GLOBAL = 1, READ_STAGED = 2, READ_PATCH = 3 };   // the values of LS
enum { BATCH_LOOP = 1, BATCH_GROUPS = 2 };                // the values of LN (s2's)
enum { WARPS_ROWS = 1, WARPS_GRID = 2 };                  // the values of LG
enum { TAPS_CHANNEL_MAJOR = 1, TAPS_CHUNKED = 2 };        // the values of LA

static int round_up(int n, int m) { return (n + m - 1) / m * m; }

/* The window's values a tile product takes: 8 (mma3xTF32), 16 for an fp16
 * layer (mmaF16, half operands). */
static int window_step(const Layer *l) { return layer_elem(l) == elem_fp32() ? IR_MMA_K : IR_MMA_K16; }

/* CC, the input channels of one of the patch's chunks (LS=3): CB blocks of
 * a step's 8 (16) channels. window-taps-chunked (LA=2) and
 * step-channel-chunks must chunk alike. */
static const AExpr *patch_chunk(Arena *a, const Layer *l) {
  return ax_mul(a, ax_var(a, "CB", 1, AX_INF), ax_cst(a, window_step(l)));
}

/* The tile form's pixels (the output row is padded to a multiple of them)
 * and output channels. */
static int tile_pixels(const int *choice) { return choice[0] == TILE_PIXEL_ROWS ? IR_MMA_M : IR_MMA_N; }
static int tile_channels(const int *choice) { return choice[0] == TILE_PIXEL_ROWS ? IR_MMA_N : IR_MMA_M; }

/* The window's values a multiple of 8 (its input channels rounded up to 8;
 * with LS=3 always, the patch's chunks being blocks of 8 channels) and the
 * output channels of the tile's: the layer computed with zero channels
 * added (st_pad_channels); l itself when it needs none. */
static Layer channels_layer(const Layer *l, const int *choice) {
  Layer p = *l;
  int k = window_step(l);
  if ((int64_t)l->c * l->kh * l->kw % k != 0 || (choice[1] == READ_PATCH && l->c % k != 0)) p.c = round_up(l->c, k);
  p.k = round_up(l->k, tile_channels(choice));
  return p;
}

/* The output row a multiple of the tile's pixels: the plane computed wider,
 * its right padding grown (st_crop_output drops the extra columns as they
 * are stored); l itself when it needs none. */
static Layer wider_layer(const Layer *l, const int *choice) { return st_padded_plane(l, 1, tile_pixels(choice)); }

/* Why LT's value does not fit the layer; NULL when it does. A dense layer
 * is padded to fit (channels_layer, wider_layer); a grouped one must fit. */
static const char *not_a_variant(const Layer *l, const int *choice) {
  if (choice[2] != ST_PIPE_NONE && choice[1] == READ_GLOBAL)
    return "the chunk loop's pipeline (LP=2, 3 or 4) needs the chunks staged (LS=2 or 3)";
  if (choice[3] == BATCH_GROUPS && l->n == 1) return "LN=2 folds the batch into the work-groups: a layer of batch 1 has none to fold";
  if (choice[4] == WARPS_GRID && choice[1] == READ_GLOBAL)
    return "LG=2 (TK warps over the output channels too) shares the staged chunks between them: it needs LS=2 or 3";
  if (choice[5] == TAPS_CHUNKED && choice[1] != READ_PATCH)
    return "LA=2 orders the window's taps by the patch's chunks of channels: it needs LS=3";
  if (choice[1] == READ_PATCH && (l->dil_h > 1 || l->dil_w > 1))
    return "the patch rules (LS=3) describe windows of neighbouring taps, not a dilated layer's (dilation > 1)";
  if (layer_groups(l) == 1) return NULL;
  if (choice[1] == READ_PATCH) return "LS=3 stages a dense layer's patch: a grouped layer's is not derived";
  if (l->out_w % tile_pixels(choice) != 0)
    return tile_pixels(choice) == IR_MMA_M ? "LT=1 takes 16 pixels of a row: a grouped layer's output width must be a "
                                              "multiple of 16 (a dense one's row is padded)"
                                            : "LT=2 takes 8 pixels of a row: a grouped layer's output width must be a "
                                              "multiple of 8 (a dense one's row is padded)";
  if (l->k / layer_groups(l) % tile_channels(choice) != 0)
    return tile_channels(choice) == IR_MMA_M ? "LT=2 takes 16 output channels: a group's must be a multiple of 16"
                                              : "LT=1 takes 8 output channels: a group's must be a multiple of 8";
  if ((int64_t)layer_group_c(l) * l->kh * l->kw % window_step(l) != 0)
    return window_step(l) == IR_MMA_K ? "a group's window (c/groups*kh*kw values) must be a multiple of 8 (8 a step)"
                                      : "an fp16 group's window (c/groups*kh*kw values) must be a multiple of 16 (16 a step)";
  return NULL;
}

/* Which layers: the rules take their form, and some tile fits. */
const char *strategy_tc_refuses(const Layer *l) {
  if (not_a_variant(l, (int[]){TILE_PIXEL_ROWS, READ_GLOBAL, ST_PIPE_NONE, BATCH_LOOP, WARPS_ROWS, TAPS_CHANNEL_MAJOR}) &&
      not_a_variant(l, (int[]){TILE_CHANNEL_ROWS, READ_GLOBAL, ST_PIPE_NONE, BATCH_LOOP, WARPS_ROWS, TAPS_CHANNEL_MAJOR}))
    return "tc takes a grouped layer when a tile divides it: the output width by 16 and a group's output channels "
           "by 8, or the width by 8 and the channels by 16, and a group's window by 8";
  if (!l->bias) return "tc starts each tile from the bias: a layer without one (bias=0) is not derived yet";
  if (l->residual) return "tc does not take residual=1 (its windows are zipped with the residual's rows)";
  if (l->scale) return "tc does not take scale=1 (the scaled products are not a tile product's)";
  return NULL;
}

/* Each lane's copy of the warp's accumulator: in, map[id4] of a sub-tile's
 * float4s (a user function of a vector); out, a map over the lanes'
 * split[4](asScalar(...)). */
static bool is_lane_copy(const Expr *m) {
  const Fun *f = m->fun->f;
  if (f->kind == F_USER && f->uf->ret->kind == TY_VEC) return true;
  const Expr *x = m->args[0];
  return rw_is_call(x, P_SPLIT) && rw_is_call(x->args[0], P_AS_SCALAR);
}

/* LS=2: the work-group's warps share each chunk of the window, staged in
 * local memory. The warps' reductions become one (map-reduce-fuse-outer:
 * the weights' tiles shared, each warp's windows its own), walked in
 * chunks of CS tile-product steps (reduce-split-seq CS), each chunk's two
 * arrays copied into local memory by the whole group, as one line (copy,
 * map-flatten, mapLcl flat, to-local); the warps then read their fragments
 * from there. LS=3 (patch) stages the tile's patch of the input instead of
 * its windows, each value once: the tiles walk their patches first
 * (st_tile_patches, as s2's LS=3), the chunks are CB blocks of 8 (16)
 * input channels, kh*kw*CB steps, and each chunk's steps are the same view
 * of its channels of the patch (step-channel-chunks, zip-map-fusion), so
 * the chunk of the patch is what is copied. */
static Program *staged(Arena *a, const Layer *l, Program *p, bool patch, StPipe pipe, int batch, bool grid,
                       StrBuf *log, Diag *d) {
  if (patch && !(p = st_tile_patches(a, p, log, d))) return NULL;
  RwPath maps[256];
  int n = st_compute_maps(p, maps, 256), count;
  if (n <= 4 + grid) return diag_error(d, "tc staging: expected the map over a tile's warps"), NULL;
  // the warps' reductions one (with LG=2 the maps over a tile's rows, 5, then over its channel blocks, 4)
  for (int i = 4 + grid; i >= 4; i--) {
    n = st_compute_maps(p, maps, 256);
    RwPath warps = maps[i];
    if (!(p = st_fission_to_reduce(a, p, &warps, log, d))) return NULL;
    if (!(p = st_apply_at(a, p, "map-reduce-fuse-outer", NULL, &warps, log, d))) return NULL;
  }
  // in chunks of CS steps, each chunk two arrays: the weights' tiles and the warps' windows' tiles
  const AExpr *cs = ax_var(a, "CS", 1, AX_INF), *th = ax_var(a, "TH", 1, AX_INF), *tk = ax_var(a, "TK", 1, AX_INF);
  // the patch's chunks: CB blocks of the step's 8 (16) input channels, kh*kw*CB steps
  const AExpr *cb = ax_var(a, "CB", 1, AX_INF), *cc = patch_chunk(a, l);
  if (patch) cs = ax_mul(a, cb, ax_cst(a, (int64_t)l->kh * l->kw));
  RwPath r;
  if (rw_find(p->body, rw_rule("reduce-split-seq"), &cs, &r, 1) != 1)
    return diag_error(d, "tc staging: no reduction over the window's tile products"), NULL;
  RwPath pairs = st_path(&r, "/1");
  if (!(p = st_apply_at(a, p, "reduce-split-seq", &cs, &r, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "split-zip", NULL, &pairs, log, d))) return NULL;
  int windows = 0;   // which of the chunk's two arrays is the windows' (LT=1: the first, the tile's rows)
  if (patch) {   // each chunk the same steps of CC channels of the patch, made in the chunk's step
    RwPath steps = st_path(&pairs, "/0/0");
    if (!rw_rule("step-channel-chunks")->match(rw_at(p->body, &steps), &cc)) steps = st_path(&pairs, "/0/1"), windows = 1;
    if (!(p = st_apply_at(a, p, "step-channel-chunks", &cc, &steps, log, d))) return NULL;
    if (!(p = st_apply_at(a, p, "zip-map-fusion", NULL, &pairs, log, d))) return NULL;
  }
  if (!(p = st_apply_at(a, p, "reduce-map-fusion", NULL, &r, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "beta", NULL, NULL, 0, &count, log, d))) return NULL;
  // each chunk's arrays copied by the whole group as one line (the join's reduction: r/2/0)
  RwPath inner = st_path(&r, "/2/0"), ws = st_path(&inner, "/1/0"), xs = st_path(&inner, "/1/1"), init = st_path(&r, "/0");
  if (patch && !st_patch_chunk(p, &r, windows, windows ? &xs : &ws))   // the patch's chunk, read through the steps
    return diag_error(d, "tc patch: no chunk of the patch in the chunk's step"), NULL;
  RwPath wcopy, xcopy;
  if (!(p = st_apply_at(a, p, "copy", NULL, &ws, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "copy", NULL, &xs, log, d))) return NULL;
  if (!(p = st_flatten_copy(a, p, &ws, &wcopy, log, d))) return NULL;
  if (!(p = st_flatten_copy(a, p, &xs, &xcopy, log, d))) return NULL;
  if (!(p = st_chunk_loops(a, p, &inner, &r, pipe, log, d))) return NULL;
  // every map by what it walks, innermost first (the outer paths stay valid): the batch as LN says, the tiles
  // work-groups, the warps mapLcl 1, the lanes' copies mapLcl 0, the chunks' copies mapLcl flat, the rest unrolled
  n = st_maps_to_lower(p, &init, maps, 256);
  const AExpr *lanes = ax_cst(a, 0), *warp_dim = ax_cst(a, 1), *grid_dim = ax_cst(a, 2), *flat = ax_cst(a, IR_DIM_FLAT);
  for (int i = n - 1; i >= 0; i--) {
    const Expr *m = rw_at(p->body, &maps[i]);
    const AExpr *dim = ax_cst(a, 3 - i);
    int64_t len;
    if (i == 0) p = st_s2_lower_batch(a, p, batch, &maps[i], log, d);
    else if (i <= 3) p = st_apply_at(a, p, "map-to-wrg", &dim, &maps[i], log, d);
    else if (st_path_within(&maps[i], &ws) || st_path_within(&maps[i], &xs))
      p = st_apply_at(a, p, "map-to-lcl", &flat, &maps[i], log, d);
    else if (ax_equal(rw_len(m->args[0]), th)) p = st_apply_at(a, p, "map-to-lcl", &warp_dim, &maps[i], log, d);
    else if (grid && ax_equal(rw_len(m->args[0]), tk)) p = st_apply_at(a, p, "map-to-lcl", &grid_dim, &maps[i], log, d);
    else if (is_lane_copy(m)) p = st_apply_at(a, p, "map-to-lcl", &lanes, &maps[i], log, d);
    else if (ax_is_cst(rw_len(m->args[0]), &len) && len == 1) p = st_apply_at(a, p, "map-to-seq", NULL, &maps[i], log, d);
    else p = st_apply_at(a, p, "map-to-seq-unroll", NULL, &maps[i], log, d);
    if (!p) return NULL;
  }
  if (!(p = st_apply_at(a, p, "to-local", NULL, &wcopy, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "to-local", NULL, &xcopy, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "to-private", NULL, &init, log, d))) return NULL;
  // the copies walk more elements than the group has work-items: its shape is said, not inferred
  Program *q = ARENA_NEW(a, Program);
  *q = *p;
  q->workgroup[0] = ax_cst(a, IR_WARP), q->workgroup[1] = th, q->workgroup[2] = grid ? tk : ax_cst(a, 1);
  if (log) sb_puts(log, grid ? "workgroup 32, TH, TK\n" : "workgroup 32, TH, 1\n");
  return q;
}

Program *strategy_tc(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d) {
  Program *p = (Program *)hl;
  int count;
  // a dense layer the tiles do not divide: derived padded, then read and cropped as the layer
  Layer cl = channels_layer(l, choice), wl = wider_layer(l, choice);
  if ((cl.c != l->c || cl.k != l->k || wl.out_w != l->out_w) && st_has_group_map(hl))
    return diag_error(d, "tc: a grouped layer is not padded"), NULL;
  if (cl.c != l->c || cl.k != l->k) {
    if (log) sb_printf(log, "# the layer computed with %d input and %d output channels, for its %d and %d\n", cl.c, cl.k,
                       l->c, l->k);
    Program *chl = conv_program(a, &cl, d), *q = chl ? strategy_tc(a, &cl, chl, choice, log, d) : NULL;
    return q ? st_pad_channels(a, q, l, &cl, log, d) : NULL;
  }
  if (wl.out_w != l->out_w) {
    if (log) sb_printf(log, "# the rows computed %d wide, the output %d of them\n", wl.out_w, l->out_w);
    Program *whl = conv_program(a, &wl, d), *q = whl ? strategy_tc(a, &wl, whl, choice, log, d) : NULL;
    return q ? st_crop_output(a, q, wl.out_h, wl.out_w, l->out_h, l->out_w, log, d) : NULL;
  }
  bool pixel_rows = choice[0] == TILE_PIXEL_ROWS;
  if (choice[5] == TAPS_CHUNKED) {   // the taps in the patch's chunks of CC = CB*8 (16) channels, each tap-major
    const AExpr *cc = patch_chunk(a, l);
    RwPath r;
    if (rw_find(p->body, rw_rule("window-taps-chunked"), &cc, &r, 1) != 1)
      return diag_error(d, "tc LA=2: no reduction over a window's taps"), NULL;
    if (!(p = st_apply_at(a, p, "window-taps-chunked", &cc, &r, log, d))) return NULL;
  }
  // the warp's tile: RW pixels by RK channels, a multiple of the tile product's (16 x 8 or 8 x 16 as LT says:
  // tile-product's splits make these constraints of the space)
  const AExpr *rk = ax_var(a, "RK", 1, AX_INF), *rw = ax_var(a, "RW", 1, AX_INF);
  RwPath at;
  if (!(p = st_apply_all(a, p, "reduce-map-fusion", NULL, NULL, 1, &count, log, d))) return NULL;
  if (!(p = st_tile_channels_pixels(a, p, rk, rw, log, d))) return NULL;
  // the tile's rows (the tile product's 16) the outer of its two maps: the
  // pixels (the channel map moved inside them) or the channels
  if (pixel_rows &&
      (!st_tiled_channel_map(p, &at, d) || !(p = st_apply_at(a, p, st_interchange_rule(p, &at), NULL, &at, log, d))))
    return NULL;
  RwPath maps[32];
  int n = st_compute_maps(p, maps, 32);
  if (n <= 5) return diag_error(d, "tc: expected the maps of a tile"), NULL;
  for (int i = 5; i >= 4; i--) {
    if (!(p = st_fission_to_reduce(a, p, &maps[i], log, d))) return NULL;
    if (!(p = st_apply_at(a, p, "map-reduce-fuse-outer", NULL, &maps[i], log, d))) return NULL;
  }
  if (!(p = st_apply_all(a, p, "beta", NULL, NULL, 0, &count, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "map-eta", NULL, st_is_map_of_map, 0, &count, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "tile-product", NULL, NULL, 1, &count, log, d))) return NULL;
  if (count != 1) return diag_error(d, "tc: the tile's reduction is not in the outer-product form"), NULL;
  // precision=tf32: one TF32 product a step, as cuDNN's TF32 math, where fp32 takes three
  if (l->precision == PREC_TF32 && !(p = st_apply_all(a, p, "tf32-product", NULL, NULL, 0, &count, log, d)))
    return NULL;
  // the activation into each lane's copy out of the warp's layout
  if (!(p = st_apply_all(a, p, "map-through-views", NULL, NULL, 0, &count, log, d))) return NULL;
  // TH rows a work-group, a warp each: the rows in tiles of TH (split-join,
  // map-eta), a tile's rows moved inside its pixel groups (st_sink)
  const AExpr *th = ax_var(a, "TH", 1, AX_INF);
  n = st_compute_maps(p, maps, 32);
  RwPath row_tiles = st_path(&maps[2], "/0");
  if (!(p = st_apply_at(a, p, "split-join", &th, &maps[2], log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-eta", NULL, &row_tiles, log, d))) return NULL;
  if (!(p = st_sink(a, p, 3, log, d))) return NULL;
  bool grid = choice[4] == WARPS_GRID;
  if (grid) {   // LG=2: TK warps over the channel groups too: their blocks of TK (split-join, map-eta), moved inside
                // the row tiles and the pixel groups (st_sink twice), beside the tile's rows
    const AExpr *tk = ax_var(a, "TK", 1, AX_INF);
    n = st_compute_maps(p, maps, 32);
    RwPath blocks = st_path(&maps[1], "/0");
    if (!(p = st_apply_at(a, p, "split-join", &tk, &maps[1], log, d))) return NULL;
    if (!(p = st_apply_at(a, p, "map-eta", NULL, &blocks, log, d))) return NULL;
    if (!(p = st_sink(a, p, 2, log, d)) || !(p = st_sink(a, p, 3, log, d))) return NULL;
  }
  if (choice[1] != READ_GLOBAL)
    return staged(a, l, p, choice[1] == READ_PATCH, (StPipe)choice[2], choice[3], grid, log, d);
  // lowering. The compute maps now: 0 the batch, 1 channel groups, 2 row
  // tiles, 3 pixel groups, 4 a tile's rows (its warps); then the map that takes the tile out of the
  // reduction's one result (`out`), the maps over its sub-tiles, each
  // lane's copy out of the warp's layout and the maps in it; the
  // reduction's initial value (`init`), each lane's copy in; the step's
  // maps over the sub-tiles
  if (!(p = st_apply_all(a, p, "reduce-to-seq", NULL, NULL, 0, &count, log, d))) return NULL;
  n = st_compute_maps(p, maps, 32);
  RwPath init = {0};
  int lane_copies = 0;
  const AExpr *lanes = ax_cst(a, 0), *warps = ax_cst(a, 1);
  for (int i = n - 1; i >= 0; i--) {   // innermost first: the paths of the outer maps stay valid
    const Expr *m = rw_at(p->body, &maps[i]);
    const AExpr *dim = ax_cst(a, 3 - i);
    bool reduces = rw_is_call(m->args[0], P_REDUCE_SEQ);
    if (reduces) init = st_path(&maps[i], "/0/0");
    if (i == 0) p = st_s2_lower_batch(a, p, choice[3], &maps[i], log, d);
    else if (reduces) p = st_apply_at(a, p, "map-to-seq", NULL, &maps[i], log, d);
    else if (i <= 3) p = st_apply_at(a, p, "map-to-wrg", &dim, &maps[i], log, d);
    else if (i == 4) p = st_apply_at(a, p, "map-to-lcl", &warps, &maps[i], log, d);
    else if (is_lane_copy(m)) p = st_apply_at(a, p, "map-to-lcl", &lanes, &maps[i], log, d), lane_copies++;
    else p = st_apply_at(a, p, "map-to-seq-unroll", NULL, &maps[i], log, d);
    if (!p) return NULL;
  }
  if (lane_copies != 2 || !init.n) return diag_error(d, "tc: expected the lanes' copies into and out of the warp's layout"), NULL;
  // the accumulator in the lanes' private registers
  return st_apply_at(a, p, "to-private", NULL, &init, log, d);
}

static const char *const TILES[] = {"16 pixels x 8 channels", "16 channels x 8 pixels"};

static const char *const READS[] = {"fragments from global memory", "chunks staged in local memory",
                                     "the patch staged in local memory"};

static const char *const PIPES[] = {"copy then compute", "next chunk prefetched", "prefetched, two buffers",
                                     "asynchronous copies, two buffers"};

static const char *const BATCHES[] = {"a loop", "work-groups"};

static const char *const GRIDS[] = {"warps along the rows", "warps along the rows and the output channels"};

static const char *const ORDERS[] = {"taps channel-major", "taps tap-major in the patch's chunks"};

const StChoice strategy_tc_choices[6] = {
    {"LT", "the warp's 16 x 8 tile: 16 neighbouring pixels of a row by 8 output channels (1), or 16 output channels "
           "by 8 pixels (2)", 2, TILES, 0, false},
    {"LS", "where the warps read their fragments: each from global memory (1), or from chunks of CS tile-product "
           "steps of the window that the work-group's warps share, copied into local memory by the whole group (2), "
           "or from the work-group's patch of the input, copied CB blocks of 8 (16 in fp16) input channels at a time, "
           "each value once (3); 1 when not given, and then left out of labels and point texts", 3, READS,
     READ_GLOBAL, true},
    {"LP", "the staged chunk loop's pipeline, as s2's: each chunk copied, then computed (1), the next chunk's values "
           "loaded into registers while this one is computed (2), and the staged arrays in two slots, one barrier a "
           "chunk (3), and as 3 with the next chunk copied asynchronously straight into its slot (4: cp.async under "
           "CUDA, elsewhere 3); 2 to 4 need LS=2 or 3; 1 when not given, and then left out of labels and point texts",
     4, PIPES,
     ST_PIPE_NONE, true},
    {"LN", "the map over the batch: a loop around each work-group's work (1), or work-groups, folded with the "
           "channel groups into one range of dimension 2, n times as many groups (2; not at n=1); 1 when not given, "
           "and then left out of labels and point texts", 2, BATCHES, BATCH_LOOP, true},
    {"LG", "the work-group's warps: TH, one a row of tiles (1), or TH x TK, TK of them over neighbouring blocks of "
           "RK output channels, sharing the staged patch or window chunks (2; needs LS=2 or 3); 1 when not given, and "
           "then left out of labels and point texts", 2, GRIDS, WARPS_ROWS, true},
    {"LA", "the order of the window's taps in the reduction: channel-major, a step's 8 (16 in fp16) values "
           "running over channels and taps (1), or in the patch's chunks of CB blocks of channels, each chunk "
           "tap-major, a step's values neighbouring channels of one tap (2; needs LS=3); 1 when not given, and then "
           "left out of labels and point texts", 2, ORDERS, TAPS_CHANNEL_MAJOR, true},
};

const char *strategy_tc_not_a_variant(const Layer *l, const int *choice) { return not_a_variant(l, choice); }

/* RW and RK: the warp's pixels and channels, multiples of the tile
 * product's 16 and 8 (or 8 and 16: the split's constraints), at most 64 and
 * 32 by default: up to 4 x 4 products a step, 64 accumulators a lane. */
enum { TC_MAX_RW = 64, TC_MAX_RK = 32, TC_MAX_TH = 8, TC_MAX_CS = 16, TC_MAX_CB = 4, TC_MAX_TK = 4 };

/* TH: a work-group's rows, one warp each, at most 8 (256 work-items). CS
 * (LS=2): a staged chunk's tile-product steps, at most 16 (128 of the
 * window's values; an fp16 layer's steps are 16 values, so its chunks
 * twice as long). CB (LS=3): a staged chunk of the patch in blocks of 8
 * input channels (16 in fp16), at most 4. */
int strategy_tc_domains(const Layer *l, StDomain *out) {
  int ow = round_up(l->out_w, IR_MMA_M), k = round_up(l->k, IR_MMA_M);
  out[0] = (StDomain){"RW", 1, ow < TC_MAX_RW ? ow : TC_MAX_RW};
  out[1] = (StDomain){"RK", 1, k < TC_MAX_RK ? k : TC_MAX_RK};
  out[2] = (StDomain){"TH", 1, l->out_h < TC_MAX_TH ? l->out_h : TC_MAX_TH};
  int steps = (int)(((int64_t)layer_group_c(l) * l->kh * l->kw + IR_MMA_K - 1) / IR_MMA_K);   // the window's, 8 a step
  out[3] = (StDomain){"CS", 1, steps < TC_MAX_CS ? steps : TC_MAX_CS};
  int blocks = (layer_group_c(l) + window_step(l) - 1) / window_step(l);
  out[4] = (StDomain){"CB", 1, blocks < TC_MAX_CB ? blocks : TC_MAX_CB};
  out[5] = (StDomain){"TK", 1, TC_MAX_TK};   // LG=2's warps over the channel blocks (TH x TK warps at most 8)
  return 6;
}
