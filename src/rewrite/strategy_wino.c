/* strategy_wino.c: WINO, Winograd's minimal filtering F(m, r) (issue 32;
 * docs/rewrite.md, "The WINO derivation"; rules_winograd.c): a stride-1
 * layer of r x r kernels in four kernels,
 *
 *   winograd m            the convolution as four stages (let U, V, M; Y),
 *                         each a top-level computation, so a kernel of its own
 *   reduce-map-fusion     each product made inside its sum's loop
 *   split-join RT, RK,    M's products (a matrix product a position) in
 *   map-eta, map-fission- register blocks of RK kernels x RT tiles, one loop
 *   call, map-interchange, over the channels a block (product_tiles)
 *   map-reduce-fuse-outer
 *   lowering, per stage   U (the filter transform, the weights' alone): a
 *                         work-item per kernel (dimension 1) and channel
 *                         (0); V (the input transform): per
 *                         image (2), channel (1) and tile (0); M: per image
 *                         and position (2), block of kernels (1) and of
 *                         tiles (0), the sums in registers; Y (the output
 *                         transform, bias and activation): per image (2),
 *                         kernel (1) and tile (0). The transforms' small
 *                         products are unrolled, so each matrix entry is a
 *                         literal of the kernel (docs/ir.md, "const").
 *
 * LS=2 (staged) after the blocks:
 *   split-join TT, TK,    M's blocks in work-groups of TK x TT, sharing each
 *   st_sink, map-reduce-  chunk of CS channels of U and V in local memory
 *   fuse-outer (x2),      (staged(): tc's LS=2 steps); LP pipelines the
 *   reduce-split-seq CS,  chunk loop as s2's
 *   copies, to-local
 *
 * WB=2 (a batch): rule winograd-batch instead, the batch folded into M's
 * tiles (one product a position over every image's tiles), M's maps one
 * level fewer.
 *
 * WM chooses m: 2 (F(2, r), alpha = r + 1) or 4 (F(4, r), alpha = r + 3).
 * A plane m does not divide is computed larger, its bottom and right
 * padding grown, and cropped (st_padded_plane, st_crop_output), as s2's LO.
 */
#include "rewrite/strategy.h"

#include "conv/program.h"
#include "conv/winograd.h"
#include "rewrite/rules.h"

enum { WINO_F2 = 1, WINO_F4 = 2 };   // the values of WM
enum { M_REGISTERS = 1, M_STAGED = 2 };   // the values of LS
enum { IMAGES_APART = 1, IMAGES_FOLDED = 2 };   // the values of WB

static int tile_of(const int *choice) { return choice[0] == WINO_F2 ? 2 : 4; }

const char *strategy_wino_refuses(const Layer *l) {
  if (l->stride_h != 1 || l->stride_w != 1) return "wino computes stride-1 layers (its tiles' patches overlap by r - 1)";
  if (l->kh != l->kw || l->kh < 2) return "wino takes square kernels of 2 x 2 or more (kh = kw = r)";
  if (l->dil_h > 1 || l->dil_w > 1) return "wino does not take dilated layers";
  if (layer_groups(l) != 1) return "wino takes dense layers (groups=1)";
  if (l->residual) return "wino does not take residual=1 yet (the output transform would add it)";
  if (l->scale) return "wino does not take scale=1 (a per-channel scale of the input is not a transform's)";
  if (elem_is_storage(layer_elem(l))) return "wino computes fp32 and tf32 layers (an fp16 layer's transforms would round)";
  return NULL;
}

static const char *not_a_variant(const Layer *l, const int *choice) {
  if (tile_of(choice) + l->kh - 1 > WINO_MAX_N) return "the tile's patch (m + r - 1) passes Winograd's 12 points";
  if (choice[2] != ST_PIPE_NONE && choice[1] != M_STAGED) return "the chunk loop's pipeline (LP=2, 3 or 4) needs the chunks staged (LS=2)";
  if (choice[3] == IMAGES_FOLDED && l->n == 1) return "WB=2 folds the batch into M's tiles: a layer of batch 1 has none to fold";
  return NULL;
}

const char *strategy_wino_not_a_variant(const Layer *l, const int *choice) { return not_a_variant(l, choice); }

/* The program's four stages: the let values at /0 (U), /1/0 (V), /1/1/0
 * (M) and the body /1/1/1 (Y); -1 for a path outside them. */
static int stage_of(const RwPath *p) {
  static const char *const stages[] = {"/0", "/1/0", "/1/1/0", "/1/1/1"};
  for (int s = 0; s < 4; s++) {
    RwPath root = st_path(&(RwPath){0}, stages[s]);
    if (st_path_within(p, &root)) return s;
  }
  return -1;
}

/* How many of the n maps at paths are strict prefixes of paths[i]: its
 * depth among the stage's maps. */
static int depth_of(const RwPath *paths, int n, int i) {
  int d = 0;
  for (int j = 0; j < n; j++)
    if (j != i && paths[j].n < paths[i].n && st_path_within(&paths[i], &paths[j])) d++;
  return d;
}

/* Each stage's maps by their depth: the outer ones the ND-range (the
 * batch in dimension 2), the transforms' small products unrolled; every
 * reduction a loop, unrolled but for M's over the channels. */
static Program *lower(Arena *a, Program *p, bool m_staged, bool fold, StrBuf *log, Diag *d) {
  RwPath r[64];
  int nr = rw_find(p->body, rw_rule("reduce-to-seq"), NULL, r, 64);
  // M's sums over the channels are the reductions of stage 2 (one each); the rest are the transforms'
  for (int i = nr - 1; i >= 0; i--)
    if (!(p = st_apply_at(a, p, stage_of(&r[i]) == 2 ? "reduce-to-seq" : "reduce-to-seq-unroll", NULL, &r[i], log, d)))
      return NULL;
  RwPath maps[64];
  int n = st_compute_maps(p, maps, 64);
  // the ND-range of each stage: U's kernels (1) and channels (0); V's images (2), channels (1) and tiles (0);
  // M's images and positions (2, one range), blocks of kernels (1) and of tiles (0); Y's images (2), kernels
  // (1) and tiles (0)
  // (with the batch folded into M's tiles, M has no map over the images: positions (2), blocks (1, 0))
  static const int dims[4][4] = {{1, 0, -1, -1}, {2, 1, 0, -1}, {2, 2, 1, 0}, {2, 1, 0, -1}}, folded[4] = {2, 1, 0, -1};
  for (int i = n - 1; i >= 0; i--) {
    int s = stage_of(&maps[i]), k = depth_of(maps, n, i);
    if (s < 0) return diag_error(d, "wino: a map outside the four stages"), NULL;
    if (s == 2 && m_staged) continue;   // lowered by staged(); what is left are views of its chunks
    int dk = k >= 4 ? -1 : s == 2 && fold ? folded[k] : dims[s][k];
    const AExpr *dim = dk >= 0 ? ax_cst(a, dk) : NULL;
    const char *rule = dim ? "map-to-glb" : "map-to-seq-unroll";
    if (!(p = st_apply_at(a, p, rule, dim ? &dim : NULL, &maps[i], log, d))) return NULL;
  }
  // M's sums in registers: the reduction's initial block of zeros (its first argument) in private memory
  RwPath all[64];
  int nt = rw_find(p->body, rw_rule("to-private"), NULL, all, 64);
  for (int i = 0; i < nt && !m_staged; i++) {
    RwPath parent = all[i];
    parent.n--;
    const Expr *e = rw_at(p->body, &parent);
    if (stage_of(&all[i]) == 2 && all[i].step[all[i].n - 1] == 0 && rw_is_call(e, P_REDUCE_SEQ))
      return st_apply_at(a, p, "to-private", NULL, &all[i], log, d);
  }
  return p;
}

/* M's products in register tiles of RK kernels x RT tiles (each work-item's
 * RK x RT sums one loop over the channels, RK + RT values read a step).
 * The paths are the rule's form: M's let value at /1/1/0, the body of its map
 * over the images /1, of its map over the positions /1/1 (the map over a
 * position's kernels), whose body's join holds the map over the tiles; with
 * the batch folded (fold: winograd-batch) M's value is the map over the
 * positions. */
static Program *product_tiles(Arena *a, Program *p, bool fold, StrBuf *log, Diag *d) {
  const AExpr *rk = ax_var(a, "RK", 1, AX_INF), *rt = ax_var(a, "RT", 1, AX_INF);
  RwPath uk = st_path(NULL, fold ? "/1/1/0/1" : "/1/1/0/1/1"), vt = st_path(&uk, "/1/0");
  if (!(p = st_apply_at(a, p, "split-join", &rt, &vt, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "split-join", &rk, &uk, log, d))) return NULL;
  // a work-item per block of RK kernels and RT tiles: the map over the kernels' blocks takes a lambda,
  // the joins leave the map over a block's kernels, and it moves inside the map over the tiles' blocks
  RwPath blocks = st_path(&uk, "/0"), kernels = st_path(&blocks, "/1"), once = st_path(&kernels, "/0"),
         twice = st_path(&once, "/0"), tiles = st_path(&twice, "/1");
  if (!(p = st_apply_at(a, p, "map-eta", NULL, &blocks, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-fission-call", NULL, &kernels, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-fission-call", NULL, &once, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-eta", NULL, &tiles, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-interchange", NULL, &twice, log, d))) return NULL;
  // a block's RK x RT sums one loop over the channels: the outer product of RK values of U and RT of V a step
  RwPath kmap = st_path(&twice, "/0/1"), tmap = st_path(&kmap, "/1");
  if (!(p = st_apply_at(a, p, "map-reduce-fuse-outer", NULL, &tmap, log, d))) return NULL;
  if (!(p = st_fission_to_reduce(a, p, &kmap, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-reduce-fuse-outer", NULL, &kmap, log, d))) return NULL;
  return p;
}

/* M's maps by depth: over the images, the positions, then (LS=2) the groups
 * of kernel blocks, of tile blocks, a group's kernel blocks and its tile
 * blocks. */
enum { M_IMAGES, M_POSITIONS, M_KGROUPS, M_TGROUPS, M_KBLOCKS, M_TBLOCKS };

/* The first compute map of M (stage 2) at that depth, in pre-order. */
static bool m_map(const Program *p, int depth, RwPath *out, Diag *d) {
  RwPath maps[64];
  int n = st_compute_maps(p, maps, 64);
  for (int i = 0; i < n; i++)
    if (stage_of(&maps[i]) == 2 && depth_of(maps, n, i) == depth) return *out = maps[i], true;
  return diag_error(d, "wino: no map of M's at depth %d", depth), false;
}

/* The index of the compute map at `at` (st_compute_maps's order). */
static int m_index(const Program *p, const RwPath *at) {
  RwPath maps[64];
  int n = st_compute_maps(p, maps, 64);
  for (int i = 0; i < n; i++)
    if (maps[i].n == at->n && st_path_within(&maps[i], at)) return i;
  return n;
}

/* beta at every position inside `at` (not the program's lets, the stages). */
static Program *beta_within(Arena *a, Program *p, const RwPath *at, StrBuf *log, Diag *d) {
  for (int guard = 0; guard < 64; guard++) {
    RwPath found[64];
    int n = rw_find(p->body, rw_rule("beta"), NULL, found, 64), i = 0;
    while (i < n && !st_path_within(&found[i], at)) i++;
    if (i == n) return p;
    if (!(p = st_apply_at(a, p, "beta", NULL, &found[i], log, d))) return NULL;
  }
  return diag_error(d, "wino staging: beta does not end"), NULL;
}

/* LS=2: M's blocks in work-groups of TK x TT work-items that share each
 * chunk of CS channels of U's and V's values, staged in local memory. The
 * blocks of kernels and of tiles are cut in groups (split-join TK, TT,
 * map-eta), a group of tiles' blocks moved outside the group of kernels'
 * (st_sink), and the work-items' reductions fused into one of the
 * work-group (map-reduce-fuse-outer at the map over a group's tiles, then
 * at its kernels); that reduction is walked in chunks of CS channels
 * (reduce-split-seq, split-zip), each chunk's two arrays copied by the
 * whole group as one line (copy, map-flatten; mapLcl flat, to-local), as
 * tc's LS=2 stages a chunk of its window. The paths are product_tiles':
 * the maps over the blocks of kernels (/1/1/0/1/1/0) and, in its body, of
 * tiles (/1/0/0/0). */
static Program *staged(Arena *a, Program *p, StPipe pipe, bool fold, StrBuf *log, Diag *d) {
  RwPath init, copies[2];   // the block's initial value (in registers), the chunks' copies (into local memory)
  const AExpr *tk = ax_var(a, "TK", 1, AX_INF), *tt = ax_var(a, "TT", 1, AX_INF), *cs = ax_var(a, "CS", 1, AX_INF);
  int shift = fold;   // with the batch folded, M has no map over the images: every depth one less
  RwPath kb = st_path(NULL, fold ? "/1/1/0/1/0" : "/1/1/0/1/1/0"), tb = st_path(&kb, "/1/0/0/0");
  if (!(p = st_apply_at(a, p, "split-join", &tt, &tb, log, d))) return NULL;
  RwPath tgroups = st_path(&tb, "/0");
  if (!(p = st_apply_at(a, p, "map-eta", NULL, &tgroups, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "split-join", &tk, &kb, log, d))) return NULL;
  RwPath kgroups = st_path(&kb, "/0");
  if (!(p = st_apply_at(a, p, "map-eta", NULL, &kgroups, log, d))) return NULL;
  // the map over a group's kernel blocks (depth 3, the tile groups inside it) moved inside the map over the
  // tile groups
  RwPath at;
  if (!m_map(p, M_TGROUPS - shift, &at, d) || !(p = st_sink(a, p, m_index(p, &at), log, d))) return NULL;
  // the work-items' reductions one of the work-group: at the map over a group's tile blocks, then its kernel blocks
  for (int depth = M_TBLOCKS; depth >= M_KBLOCKS; depth--) {
    if (!m_map(p, depth - shift, &at, d) || !(p = st_fission_to_reduce(a, p, &at, log, d))) return NULL;
    if (!(p = st_apply_at(a, p, "map-reduce-fuse-outer", NULL, &at, log, d))) return NULL;
  }
  // in chunks of CS channels, each chunk two arrays: U's [CS][TK][RK] and V's [CS][TT][RT]
  RwPath found[64], r = {0};
  int nf = rw_find(p->body, rw_rule("reduce-split-seq"), &cs, found, 64);
  for (int i = 0; i < nf && !r.n; i++)
    if (stage_of(&found[i]) == 2) r = found[i];
  if (!r.n) return diag_error(d, "wino staging: no reduction of M's over the channels"), NULL;
  RwPath pairs = st_path(&r, "/1");
  if (!(p = st_apply_at(a, p, "reduce-split-seq", &cs, &r, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "split-zip", NULL, &pairs, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "reduce-map-fusion", NULL, &r, log, d))) return NULL;
  if (!(p = beta_within(a, p, &r, log, d))) return NULL;
  // the block copied out of the work-items' registers, each its own
  if (!(p = st_apply_at(a, p, "copy", NULL, &r, log, d))) return NULL;
  r = st_path(&r, "/0");
  // each chunk's arrays copied by the whole group as one line
  RwPath inner = st_path(&r, "/2/0"), us = st_path(&inner, "/1/0"), vs = st_path(&inner, "/1/1");
  if (!(p = st_apply_at(a, p, "copy", NULL, &us, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "copy", NULL, &vs, log, d))) return NULL;
  if (!(p = st_flatten_copy(a, p, &us, &copies[0], log, d))) return NULL;
  if (!(p = st_flatten_copy(a, p, &vs, &copies[1], log, d))) return NULL;
  if (!(p = st_chunk_loops(a, p, &inner, &r, pipe, log, d))) return NULL;
  init = st_path(&r, "/0");
  // M's maps by what they walk, innermost first: the images and positions work-groups of dimension 2, the
  // groups of kernel and tile blocks work-groups 1 and 0, a group's blocks work-items 1 and 0, the copies
  // mapLcl flat, the rest unrolled
  RwPath maps[256];
  int n = st_maps_to_lower(p, &init, maps, 256);
  const AExpr *flat = ax_cst(a, IR_DIM_FLAT);
  for (int i = n - 1; i >= 0; i--) {
    if (stage_of(&maps[i]) != 2) continue;
    const AExpr *len = rw_len(rw_at(p->body, &maps[i])->args[0]), *dim = NULL;
    int depth = depth_of(maps, n, i) + shift;   // as if M had its map over the images
    const char *rule = "map-to-seq-unroll";
    if (depth <= M_TGROUPS) rule = "map-to-wrg", dim = ax_cst(a, depth <= M_POSITIONS ? 2 : depth == M_KGROUPS ? 1 : 0);
    else if (st_path_within(&maps[i], &us) || st_path_within(&maps[i], &vs)) rule = "map-to-lcl", dim = flat;
    else if (ax_equal(len, tk) || ax_equal(len, tt)) rule = "map-to-lcl", dim = ax_cst(a, ax_equal(len, tk) ? 1 : 0);
    if (!(p = st_apply_at(a, p, rule, dim ? &dim : NULL, &maps[i], log, d))) return NULL;
  }
  if (!(p = st_apply_at(a, p, "to-local", NULL, &copies[0], log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "to-local", NULL, &copies[1], log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "to-private", NULL, &init, log, d))) return NULL;
  // the copies walk more elements than the group has work-items: its shape is said, not inferred
  Program *q = ARENA_NEW(a, Program);
  *q = *p;
  q->workgroup[0] = tt, q->workgroup[1] = tk, q->workgroup[2] = ax_cst(a, 1);
  if (log) sb_puts(log, "workgroup TT, TK, 1\n");
  return q;
}

Program *strategy_wino(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d) {
  int m = tile_of(choice), count;
  Layer wl = st_padded_plane(l, m, m);
  if (wl.out_h != l->out_h || wl.out_w != l->out_w) {   // a plane the tiles do not divide: computed larger, cropped
    if (log) sb_printf(log, "# the plane computed %d x %d, the output %d x %d of it\n", wl.out_h, wl.out_w, l->out_h, l->out_w);
    Program *whl = conv_program(a, &wl, d), *q = whl ? strategy_wino(a, &wl, whl, choice, log, d) : NULL;
    return q ? st_crop_output(a, q, wl.out_h, wl.out_w, l->out_h, l->out_w, log, d) : NULL;
  }
  Program *p = (Program *)hl;
  const AExpr *ma = ax_cst(a, m);
  RwPath at;
  bool fold = choice[3] == IMAGES_FOLDED;
  const char *rule = fold ? "winograd-batch" : "winograd";
  if (rw_find(p->body, rw_rule(rule), &ma, &at, 1) != 1)
    return diag_error(d, "wino: the layer's convolution is not in the form the winograd rule takes"), NULL;
  if (!(p = st_apply_at(a, p, rule, &ma, &at, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "reduce-map-fusion", NULL, NULL, 0, &count, log, d))) return NULL;
  if (!(p = product_tiles(a, p, fold, log, d))) return NULL;
  if (choice[1] == M_STAGED && !(p = staged(a, p, (StPipe)choice[2], fold, log, d))) return NULL;
  return lower(a, p, choice[1] == M_STAGED, fold, log, d);
}

static const char *const TILES[] = {"F(2, r): 2 x 2 outputs a tile", "F(4, r): 4 x 4 outputs a tile"};

static const char *const READS[] = {"U's and V's values from global memory", "chunks staged in local memory"};

static const char *const PIPES[] = {"copy then compute", "next chunk prefetched", "prefetched, two buffers",
                                     "asynchronous copies, two buffers"};

static const char *const BATCHES[] = {"each image's product apart", "the batch folded into M's tiles"};

const StChoice strategy_wino_choices[4] = {
    {"WM", "the output tile of Winograd's F(m, r): m = 2 (1; (r + 1)^2 products a tile and channel for 4 r^2) or "
           "m = 4 (2; (r + 3)^2 for 16 r^2, fewer products, larger rounding)",
     2, TILES, 0, false},
    {"LS", "where M's products read U's and V's values: each work-item from global memory (1), or from chunks of CS "
           "channels that a work-group of TK x TT work-items shares, copied into local memory by the whole group "
           "(2); 1 when not given, and then left out of labels and point texts",
     2, READS, M_REGISTERS, true},
    {"LP", "the staged chunk loop's pipeline, as s2's: each chunk copied, then computed (1), the next chunk's values "
           "loaded into registers while this one is computed (2), and the staged arrays in two slots, one barrier a "
           "chunk (3), and as 3 with the next chunk copied asynchronously straight into its slot (4: cp.async under "
           "CUDA, elsewhere 3); 2 to 4 need LS=2; 1 when not given, and then left out of labels and point texts",
     4, PIPES, ST_PIPE_NONE, true},
    {"WB", "M's products at a position: each image's its own (1), or one over every image's tiles, the batch "
           "folded into them (2; rule winograd-batch: V and M laid out [alpha^2][C][N*T] and [alpha^2][K][N*T], a "
           "larger product where an image has few tiles; not at n=1); 1 when not given, and then left out of labels "
           "and point texts",
     2, BATCHES, IMAGES_APART, true},
};

/* RK and RT: a work-item's kernels and tiles of M's products, at most 8
 * each (64 sums in registers); the splits' constraints keep the divisors. */
int strategy_wino_domains(const Layer *l, StDomain *out) {
  int tiles = ((l->out_h + 1) / 2) * ((l->out_w + 1) / 2);
  out[0] = (StDomain){"RK", 1, l->k < 8 ? l->k : 8};
  out[1] = (StDomain){"RT", 1, tiles < 8 ? tiles : 8};
  out[2] = (StDomain){"TK", 1, 16};
  out[3] = (StDomain){"TT", 1, 32};
  out[4] = (StDomain){"CS", 1, l->c < 32 ? l->c : 32};
  return 5;
}
