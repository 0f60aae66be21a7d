/* strategy_s2.c: S2, register-blocked output tiles (docs/design.md section 6), derived
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
 *                            the joins out of the way; map-interchange-zip
 *                            with a residual, zipped with those maps' arrays)
 *   map-fission-call         the activation leaves the channel map, then the
 *                            pixel map
 *   map-reduce-fuse (x2)     the RK reductions, then the RW of those, become
 *                            one reduction with an RW x RK accumulator
 *   beta, map-eta            tidying: no redexes, every map a call
 *   reduce-seq-nest          the window's loop in rows of kh*kw (one input
 *                            channel), each row unrolled: constant offsets
 *                            instead of a division and remainder per step
 *   lowering                 the block maps unrolled; the batch a loop;
 *                            pixel groups, rows and channel groups in
 *                            dimensions 0, 1, 2, each at the level its
 *                            choice (LW, LH, LK) says: mapGlb, mapWrg over
 *                            tiles of TW / TH / TK with mapLcl inside
 *                            (split-join, map-eta), or (rows only) mapSeq
 * LS=2 and LS=3 stage the work-group's inputs and weights in local memory
 * (strategy_s2_local.c): LS=2 each chunk's windows, LS=3 the tile's patch.
 * RK, RW and the tiles stay symbolic: their splits give RK | k, RW | out_w,
 * TK | k/RK, ... The lowering's legality rules reject the variants that mix
 * mapGlb with mapWrg/mapLcl in one kernel.
 */
#include "rewrite/strategy.h"

#include <string.h>

#include "conv/program.h"

enum { LEVEL_GLB = 1, LEVEL_WRG = 2, LEVEL_SEQ = 3 };   // the values of LK, LH, LW
enum { STAGE_NONE = 1, STAGE_LOCAL = 2, STAGE_PATCH = 3 };  // the values of LS
enum { ROWS_ONE = 1, ROWS_BLOCK = 2 };                      // the values of LR
enum { BATCH_LOOP = 1, BATCH_GROUPS = 2 };                  // the values of LN
enum { SPLIT_NONE = 1, SPLIT_GROUPS = 2 };                  // the values of LX
enum { PAD_NONE = 1 };                                      // LO: 1 none, v > 1 to multiples of 2^(v-1)
enum { EXTEND_NONE = 1 };                                   // LE: 1 none, 2 and 3 to multiples of 8 and 32

/* Why the staged one-kernel forms (LS=2 or 3 with LX=1) refuse residual=1:
 * a rejected variant, where the others take it. */
static const char S2_RESIDUAL_REFUSED[] =
    "residual=1 with local staging (LS=2 or 3) is built with split-K (LX=2) alone, whose second kernel adds the "
    "residual: in one kernel, map-interchange-zip pairs each channel with its row and pixels of the residual and "
    "of the windows alike, so the window's products read the window through the channel's pair, and "
    "map-reduce-fuse-outer, which stages them, needs the window free of the channel";

/* Why these choices contradict each other (NULL: they do not). */
static const char *conflict(const int *choice) {
  bool all_groups = choice[0] == LEVEL_WRG && choice[1] == LEVEL_WRG && choice[2] == LEVEL_WRG;
  if (choice[3] == STAGE_LOCAL && !all_groups)
    return "local staging (LS=2) needs every map at work-group level (LK=LH=LW=2): the work-items of a group copy "
           "the chunks together";
  if (choice[3] == STAGE_PATCH && !all_groups)
    return "local staging (LS=3) needs every map at work-group level (LK=LH=LW=2): the work-items of a group copy "
           "the patch together";
  if (choice[5] == ROWS_BLOCK && choice[3] == STAGE_PATCH)
    return "a block of RH rows (LR=2) with the patch (LS=3): the patch rules match a tile of rows of windows, "
           "split[TH](WIN(x)), and its columns cut by RW and TW inside one row; with RH the tile is "
           "split[TH](split[RH](WIN(x))) and the columns are cut inside each group of RH rows, shapes they do not "
           "describe";
  if (choice[6] != ST_PIPE_NONE && choice[3] == STAGE_NONE)
    return "loading the next chunk ahead (LP=2, 3 or 4) needs staged chunks: LS=2 or LS=3";
  if (choice[4] != ST_COPY_BY_TAPS && choice[3] == STAGE_NONE)
    return "LC chooses how the staged chunks are copied: LC=2 and LC=3 need LS=2 or LS=3";
  if (choice[7] == BATCH_GROUPS && choice[0] != LEVEL_WRG)
    return "the batch over work-groups (LN=2) shares dimension 2 with the tiles of channel groups: it needs LK=2";
  if (choice[8] == SPLIT_GROUPS && choice[3] == STAGE_NONE)
    return "split-K (LX=2) splits the staged chunk loop: it needs LS=2 or LS=3";
  if (choice[8] == SPLIT_GROUPS && choice[7] != BATCH_GROUPS)
    return "split-K (LX=2) folds the parts, the batch and the channel tiles into dimension 2's groups: it needs LN=2 "
           "(with LN=1 the batch's loop would sit between two mapWrg of dimension 2)";
  return NULL;
}

/* LO's layer: l with its bottom and right padding grown until the output
 * plane's rows and columns are multiples of m (the padding a view of zeros,
 * the rows and columns past l's output dropped as they are stored). The
 * bottom padding that gives OH rows is (OH - 1)*stride + the window's
 * extent - h - top, more than l's when OH > out_h. */
static Layer padded_layer(const Layer *l, int m) { return st_padded_plane(l, m, m); }

/* n rounded up to a multiple of m where that adds at most a quarter (the
 * padded channels' work: c = 3 stays 3 rather than 8), else n. */
static int round_channels(int n, int m) {
  int up = (n + m - 1) / m * m;
  return 4 * (up - n) <= n ? up : n;
}

/* LE's layer: l with its input and output channels each rounded up to a
 * multiple of 8 (LE=2) or 32 (LE=3) where that adds at most a quarter of
 * them (round_channels), the inputs read through views that pad them with
 * zeros, the output's channels past l's dropped as it is stored
 * (st_pad_channels). */
static Layer extended_layer(const Layer *l, int le) {
  int m = le == 2 ? 8 : 32;
  Layer p = *l;
  p.c = round_channels(l->c, m), p.k = round_channels(l->k, m);
  return p;
}

const char *strategy_s2_not_a_variant(const Layer *l, const int *choice) {
  const char *why = conflict(choice);
  if (!why && choice[7] == BATCH_GROUPS && choice[8] != SPLIT_GROUPS && l->n == 1)
    why = "a batch of one image (n=1) over work-groups (LN=2) is the loop of one step (LN=1)";
  if (!why && layer_groups(l) > 1 && choice[8] == SPLIT_GROUPS)
    why = "split-K (LX=2) starts from the dense layer's split form; a grouped layer's (groups=G) is not written";
  if (!why && (l->dil_h > 1 || l->dil_w > 1) && choice[3] == STAGE_PATCH)
    why = "the patch rules (LS=3) describe windows of neighbouring taps, not a dilated layer's (dilation > 1)";
  if (!why && choice[5] == ROWS_BLOCK && l->out_h < 2)
    why = "a block of RH >= 2 rows (LR=2) on an output of one row";
  if (!why && choice[S2_LO] != PAD_NONE) {
    int m = 1 << (choice[S2_LO] - 1);
    Layer p = padded_layer(l, m), half = padded_layer(l, m / 2);
    if (l->out_h % m == 0 && l->out_w % m == 0)
      why = "the output plane's rows and columns are multiples of the padding's already (LO pads to multiples of 2, "
            "4 or 8)";
    else if (m > 2 && p.out_h == half.out_h && p.out_w == half.out_w)
      why = "the padded plane is the one of the LO below (the rows and columns round up to the same multiples)";
    else if (layer_groups(l) > 1)
      why = "a padded plane (LO > 1) of a grouped layer: s2 derives one group, whose map over the groups is made "
            "around it, and the padded layer's is not written";
    else if (choice[S2_LX] == SPLIT_GROUPS)
      why = "a padded plane (LO > 1) with split-K (LX=2): its second kernel is not written for it";
    else if (layer_pad_bottom(&p) > LAYER_PAD_MAX || layer_pad_right(&p) > LAYER_PAD_MAX)
      why = "a padded plane (LO > 1) past the padding a layer takes";
  }
  if (!why && choice[S2_LE] != EXTEND_NONE) {
    Layer p = extended_layer(l, choice[S2_LE]), below = choice[S2_LE] > 2 ? extended_layer(l, 2) : *l;
    if (p.c == l->c && p.k == l->k)
      why = "the input and output channels are multiples of the padding's already, or would grow by more than a "
            "quarter (LE pads each to a multiple of 8 or 32 where that adds at most a quarter)";
    else if (p.c == below.c && p.k == below.k)
      why = "the padded channels are those of the LE below (they round up to the same multiples)";
    else if (layer_groups(l) > 1)
      why = "padded channels (LE > 1) of a grouped layer: its groups' channels would mix";
    else if (choice[S2_LX] == SPLIT_GROUPS)
      why = "padded channels (LE > 1) with split-K (LX=2): its second kernel is not written for it";
  }
  return why;
}

/* LR=2: the rows of the register block. The map over rows (compute map 2)
 * in groups of RH (split-join RH, map-eta), as the pixels of a row are in
 * groups of RW, and the map over a group's rows moved inside the map over
 * its pixel groups (st_sink: map-fission-call, map-interchange-zip), so
 * that the block's maps are a group's rows, their pixels and channels. */
static Program *block_rows(Arena *a, Program *p, StrBuf *log, Diag *d) {
  RwPath maps[32];
  if (st_compute_maps(p, maps, 32) < 6) return diag_error(d, "s2: expected the map over output rows"), NULL;
  const AExpr *rh = ax_var(a, "RH", 1, AX_INF);
  RwPath groups = st_path(&maps[2], "/0");
  if (!(p = st_apply_at(a, p, "split-join", &rh, &maps[2], log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-eta", NULL, &groups, log, d))) return NULL;
  return st_sink(a, p, 3, log, d);
}

/* The map over the batch: a loop around the kernel's work (LN=1), or a
 * mapWrg of dimension 2 whose whole body is the mapWrg over the tiles of
 * channel groups (LN=2): the lowering folds the two into one range of
 * groups, n times as many, where a batch would otherwise repeat the same
 * few groups' work n times over. */
Program *st_s2_lower_batch(Arena *a, Program *p, int level, const RwPath *at, StrBuf *log, Diag *d) {
  if (level == BATCH_LOOP) return st_apply_at(a, p, "map-to-seq", NULL, at, log, d);
  const AExpr *dim = ax_cst(a, 2);
  return st_apply_at(a, p, "map-to-wrg", &dim, at, log, d);
}

/* s2's derivation of pl, a padded form of the layer (LO's plane, LE's
 * channels), with the padding's choice `which` at 1 (none): the rules
 * see a plain layer, and the caller makes its program the layer's. */
static Program *derive_padded(Arena *a, const Layer *pl, const int *choice, int which, StrBuf *log, Diag *d) {
  Program *hl = conv_program(a, pl, d);
  int plain[S2_CHOICES];
  memcpy(plain, choice, sizeof plain);
  plain[which] = 1;   // PAD_NONE, EXTEND_NONE
  return hl ? strategy_s2(a, pl, hl, plain, log, d) : NULL;
}

Program *strategy_s2(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d) {
  Program *p = (Program *)hl;
  int count;
  bool staged = choice[3] != STAGE_NONE;
  const char *why = conflict(choice);
  if (why) return diag_error(d, "s2: %s", why), NULL;
  if (choice[S2_LE] != EXTEND_NONE) {   // the channel-padded layer's derivation, its inputs padded, its output cropped
    Layer el = extended_layer(l, choice[S2_LE]);
    if (log) sb_printf(log, "# LE: the layer computed with %d input and %d output channels, for its %d and %d\n", el.c,
                       el.k, l->c, l->k);
    if (layer_groups(l) > 1 || choice[S2_LX] == SPLIT_GROUPS)
      return diag_error(d, "s2: padded channels (LE > 1) are not derived for a grouped layer or split-K"), NULL;
    Program *q = derive_padded(a, &el, choice, S2_LE, log, d);
    return q ? st_pad_channels(a, q, l, &el, log, d) : NULL;
  }
  if (choice[S2_LO] != PAD_NONE) {   // the padded layer's derivation, its output cropped to l's
    Layer pl = padded_layer(l, 1 << (choice[S2_LO] - 1));
    if (log) sb_printf(log, "# LO: the plane computed as %d x %d, the output %d x %d of it\n", pl.out_h, pl.out_w,
                       l->out_h, l->out_w);
    Program *q = derive_padded(a, &pl, choice, S2_LO, log, d);
    if (q && l->residual && !(q = st_pad_inputs(a, q, l, &pl, d))) return NULL;   // the residual: l's plane, padded
    return q ? st_crop_output(a, q, pl.out_h, pl.out_w, l->out_h, l->out_w, log, d) : NULL;
  }
  if (choice[S2_LX] == SPLIT_GROUPS) return st_s2_split(a, l, choice, log, d);
  if (l->residual && staged) return diag_error(d, "s2: %s", S2_RESIDUAL_REFUSED), NULL;
  const AExpr *rk = ax_var(a, "RK", 1, AX_INF), *rw = ax_var(a, "RW", 1, AX_INF);
  RwPath at;
  // the patch (LS=3) of a grouped layer: each group's windows made from its planes, which the patch rules match
  if (choice[3] == STAGE_PATCH && st_has_group_map(p) &&
      (!(p = st_apply_all(a, p, "beta", NULL, NULL, 0, &count, log, d)) || !(p = st_group_planes(a, p, log, d))))
    return NULL;
  if (!(p = st_apply_all(a, p, "reduce-map-fusion", NULL, NULL, 1, &count, log, d))) return NULL;
  if (!(p = st_tile_channels_pixels(a, p, rk, rw, log, d))) return NULL;
  // the channel map inside the pixel group: inside the pixels
  if (!st_tiled_channel_map(p, &at, d) || !(p = st_apply_at(a, p, st_interchange_rule(p, &at), NULL, &at, log, d)))
    return NULL;
  if (choice[5] == ROWS_BLOCK && !(p = block_rows(a, p, log, d))) return NULL;
  // the block's maps (a group's rows with LR=2, its pixels, their channels)
  // after the batch, channel groups, rows or row groups and pixel groups
  RwPath maps[32];
  int n = st_compute_maps(p, maps, 32), last = choice[5] == ROWS_BLOCK ? 6 : 5;
  if (n <= last) return diag_error(d, "s2: expected the maps of a register block"), NULL;
  // innermost first (the outer maps' paths stay valid); staged, the
  // outer-product form: each step reads a pixel's input value once for all
  // its channels, and a channel's weight once for all pixels
  const char *fuse = staged ? "map-reduce-fuse-outer" : "map-reduce-fuse";
  for (int i = last; i >= 4; i--) {
    if (!(p = st_fission_to_reduce(a, p, &maps[i], log, d))) return NULL;
    if (!(p = st_apply_at(a, p, fuse, NULL, &maps[i], log, d))) return NULL;
  }
  if (!(p = st_apply_all(a, p, "beta", NULL, NULL, 0, &count, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "map-eta", NULL, st_is_map_of_map, 0, &count, log, d))) return NULL;
  n = st_compute_maps(p, maps, 32);
  if (n < 4) return diag_error(d, "s2: expected the maps over batch, channel groups, rows and pixel groups"), NULL;
  if (!staged) {   // lowering: the block's maps unrolled, innermost first so that the paths of outer maps stay valid
    if (!(p = st_apply_all(a, p, "reduce-to-seq", NULL, NULL, 0, &count, log, d))) return NULL;
    if (!(p = st_nest_window(a, p, log, d))) return NULL;
    n = st_compute_maps(p, maps, 32);
    for (int i = n - 1; i >= 4; i--)
      if (!(p = st_apply_at(a, p, "map-to-seq-unroll", NULL, &maps[i], log, d))) return NULL;
  }
  // the maps chosen for work-groups cut into tiles (innermost first, so
  // that the paths of the outer maps stay valid)
  const char *tile[] = {NULL, "TK", "TH", "TW"};
  for (int i = 3; i >= 1; i--) {
    if (choice[i - 1] != LEVEL_WRG) continue;
    const AExpr *t = ax_var(a, tile[i], 1, AX_INF);
    RwPath tiles = st_path(&maps[i], "/0");
    if (!(p = st_apply_at(a, p, "split-join", &t, &maps[i], log, d))) return NULL;
    if (!(p = st_apply_at(a, p, "map-eta", NULL, &tiles, log, d))) return NULL;
  }
  // the nest below the batch, outermost first: each map is one of the three
  // (1 channel groups, 2 rows, 3 pixel groups), whole or as tiles and
  // elements; the tiles move out past every other map (work-groups outside)
  int role[6], kind[6], nr = 0;   // kind: 0 whole, 1 tiles, 2 elements of a tile
  for (int i = 1; i <= 3; i++) {
    role[nr] = i, kind[nr++] = choice[i - 1] == LEVEL_WRG;
    if (choice[i - 1] == LEVEL_WRG) role[nr] = i, kind[nr++] = 2;
  }
  for (bool moved = true; moved;) {
    moved = false;
    for (int j = 0; j + 1 < nr; j++)
      if (kind[j] != 1 && kind[j + 1] == 1) {
        if (!(p = st_sink(a, p, j + 1, log, d))) return NULL;   // + 1: the batch map comes first
        int r = role[j], k = kind[j];
        role[j] = role[j + 1], kind[j] = kind[j + 1], role[j + 1] = r, kind[j + 1] = k;
        moved = true;
      }
  }
  if (staged)
    return st_s2_stage(a, p, (StCopy)choice[4], choice[3] == STAGE_PATCH, (StPipe)choice[6], choice[7], log, d);
  // each at its level: pixel groups, rows, channel groups in dimensions 0, 1, 2
  n = st_compute_maps(p, maps, 32);
  for (int j = nr - 1; j >= 0; j--) {   // innermost first
    const AExpr *dim = ax_cst(a, 3 - role[j]);
    RwPath *m = &maps[j + 1];
    if (kind[j] == 1) p = st_apply_at(a, p, "map-to-wrg", &dim, m, log, d);
    else if (kind[j] == 2) p = st_apply_at(a, p, "map-to-lcl", &dim, m, log, d);
    else if (choice[role[j] - 1] == LEVEL_GLB) p = st_apply_at(a, p, "map-to-glb", &dim, m, log, d);
    else p = st_apply_at(a, p, "map-to-seq", NULL, m, log, d);
    if (!p) return NULL;
  }
  return st_s2_lower_batch(a, p, choice[7], &maps[0], log, d);
}

static const char *const LEVELS[] = {"mapGlb", "mapWrg+mapLcl", "mapSeq"};
static const char *const STAGING[] = {"global", "local staging", "local patch"};
static const char *const COPYING[] = {"taps", "channels", "flat"};
static const char *const ROWS[] = {"one row", "RH rows"};
static const char *const PIPES[] = {"copy then compute", "next chunk prefetched", "prefetched, two buffers",
                                     "asynchronous copies, two buffers"};
static const char *const BATCHES[] = {"a loop", "work-groups"};
static const char *const SPLITS[] = {"one kernel", "split-K"};
static const char *const PADDINGS[] = {"none", "to multiples of 2", "to multiples of 4", "to multiples of 8"};
static const char *const EXTENDS[] = {"none", "to multiples of 8", "to multiples of 32"};

const StChoice strategy_s2_choices[S2_CHOICES] = {
    {"LK", "the parallel level of the map over channel groups (dimension 2)", 2, LEVELS, 0, false},
    {"LH", "the parallel level of the map over output rows (dimension 1)", 3, LEVELS, 0, false},
    {"LW", "the parallel level of the map over pixel groups (dimension 0)", 2, LEVELS, 0, false},
    {"LS", "where a work-group's inputs and weights are read from: global memory, or chunks of CC input channels "
           "staged in local memory, the inputs as the chunk's windows (2, kh*kw copies of each value) or as the "
           "tile's patch of the input (3, each value once); needs LK=LH=LW=2; 1 when not given", 3, STAGING, STAGE_NONE, false},
    {"LC", "how the work-items copy the staged chunks: neighbours walk a weight chunk's taps (neighbouring weights "
           "in memory) or its RK output channels, or each chunk is walked in its order by the group as one line "
           "(mapLcl flat; needs LS=2 or 3, where LS=3 copies its patch flat whatever LC; 1 when not given)", 3, COPYING, ST_COPY_BY_TAPS, false},
    {"LR", "the rows of a work-item's register block: one output row (RK x RW accumulators), or RH rows (RK x RH x "
           "RW, the tuning parameter RH >= 2; each input row read once for the RH rows and kh taps that use it); 1 "
           "when not given, and then left out of labels and point texts", 2, ROWS, ROWS_ONE, true},
    {"LP", "the chunk loop's pipeline: each chunk copied, then computed (1), or the next chunk's values loaded into "
           "registers while the current one is computed, and only stored at the next step (2: reduceSeqPrefetch), "
           "and the staged arrays in two slots, one barrier per chunk for twice the local memory (3: "
           "reduceSeqDoubleBuffer), and as 3 with the next chunk copied asynchronously straight into its slot, no "
           "registers between, where the target has such copies (CUDA's cp.async; elsewhere 3) (4: "
           "reduceSeqAsync); 2 to 4 need LS=2 or 3; 1 when not given, and then left out of labels and point "
           "texts", 4, PIPES, ST_PIPE_NONE, true},
    {"LN", "the map over the batch: a loop around the kernel's work (1), or work-groups, folded with the tiles of "
           "channel groups into one range of dimension 2, n times as many groups (2; needs LK=2); 1 when not given, "
           "and then left out of labels and point texts", 2, BATCHES, BATCH_LOOP, true},
    {"LX", "the window's reduction: whole in each work-group (1), or split-K (2): the input channels in parts of "
           "CK, each part's tile of partial sums made by a work-group of its own (the parts folded with the batch "
           "and the channel tiles into dimension 2) and written to global memory, then a second kernel adding each "
           "output's c/CK partial sums from the bias and applying the activation (needs LS=2 or 3 and LN=2, also "
           "at n=1); 1 when not given, and then left out of labels and point texts", 2, SPLITS, SPLIT_NONE, true},
    {"LO", "optimisational padding: the output plane computed over rows and columns rounded up to multiples of 2, 4 "
           "or 8 (2, 3, 4), so that tiles divide it, the input padded below and right with zeros to match (a view), "
           "and what lies past the output dropped as it is stored (crop; a residual padded alike); not with LX=2; 1 when not "
           "given (none), and then left out of labels and point texts", 4, PADDINGS, PAD_NONE, true},
    {"LE", "channel padding: the input and output channels each rounded up to a multiple of 8 or 32 (2, 3) where "
           "that adds at most a quarter of them, so that "
           "channel tiles (TK, RK) and chunks (CC) divide them, the input, the weights and the bias read through views "
           "that pad them with zeros (a residual's and a scale's too), and the output's channels past k dropped as it "
           "is stored (crop); not with groups or LX=2; 1 when not given (none), and then left out of labels and point "
           "texts", 3,
     EXTENDS, EXTEND_NONE, true},
};

int strategy_s2_domains(const Layer *l, StDomain *out) {
  out[0] = (StDomain){"RK", 1, l->k};
  out[1] = (StDomain){"RW", 1, l->out_w};
  out[2] = (StDomain){"TK", 1, l->k};
  out[3] = (StDomain){"TH", 1, l->out_h};
  out[4] = (StDomain){"TW", 1, l->out_w};
  out[5] = (StDomain){"CC", 1, l->c};
  out[6] = (StDomain){"RH", 2, l->out_h};   // RH=1 is LR=1
  out[7] = (StDomain){"CK", (l->c + S2_MAX_PARTS - 1) / S2_MAX_PARTS, l->c};   // with LX=2: c/CK parts, at most 32
  return 8;
}
