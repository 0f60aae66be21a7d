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
 * WM chooses m: 2 (F(2, r), alpha = r + 1) or 4 (F(4, r), alpha = r + 3).
 * A plane m does not divide is computed larger, its bottom and right
 * padding grown, and cropped (st_padded_plane, st_crop_output), as s2's LO.
 */
#include "rewrite/strategy.h"

#include "conv/program.h"
#include "conv/winograd.h"
#include "rewrite/rules.h"

enum { WINO_F2 = 1, WINO_F4 = 2 };   // the values of WM

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
static Program *lower(Arena *a, Program *p, StrBuf *log, Diag *d) {
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
  static const int dims[4][4] = {{1, 0, -1, -1}, {2, 1, 0, -1}, {2, 2, 1, 0}, {2, 1, 0, -1}};
  for (int i = n - 1; i >= 0; i--) {
    int s = stage_of(&maps[i]), k = depth_of(maps, n, i);
    if (s < 0) return diag_error(d, "wino: a map outside the four stages"), NULL;
    const AExpr *dim = k < 4 && dims[s][k] >= 0 ? ax_cst(a, dims[s][k]) : NULL;
    const char *rule = dim ? "map-to-glb" : "map-to-seq-unroll";
    if (!(p = st_apply_at(a, p, rule, dim ? &dim : NULL, &maps[i], log, d))) return NULL;
  }
  // M's sums in registers: the reduction's initial block of zeros (its first argument) in private memory
  RwPath all[64];
  int nt = rw_find(p->body, rw_rule("to-private"), NULL, all, 64);
  for (int i = 0; i < nt; i++) {
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
 * position's kernels), whose body's join holds the map over the tiles. */
static Program *product_tiles(Arena *a, Program *p, StrBuf *log, Diag *d) {
  const AExpr *rk = ax_var(a, "RK", 1, AX_INF), *rt = ax_var(a, "RT", 1, AX_INF);
  RwPath uk = st_path(NULL, "/1/1/0/1/1"), vt = st_path(NULL, "/1/1/0/1/1/1/0");
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
  if (rw_find(p->body, rw_rule("winograd"), &ma, &at, 1) != 1)
    return diag_error(d, "wino: the layer's convolution is not in the form the winograd rule takes"), NULL;
  if (!(p = st_apply_at(a, p, "winograd", &ma, &at, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "reduce-map-fusion", NULL, NULL, 0, &count, log, d))) return NULL;
  if (!(p = product_tiles(a, p, log, d))) return NULL;
  return lower(a, p, log, d);
}

static const char *const TILES[] = {"F(2, r): 2 x 2 outputs a tile", "F(4, r): 4 x 4 outputs a tile"};

const StChoice strategy_wino_choices[1] = {
    {"WM", "the output tile of Winograd's F(m, r): m = 2 (1; (r + 1)^2 products a tile and channel for 4 r^2) or "
           "m = 4 (2; (r + 3)^2 for 16 r^2, fewer products, larger rounding)",
     2, TILES, 0, false},
};

/* RK and RT: a work-item's kernels and tiles of M's products, at most 8
 * each (64 sums in registers); the splits' constraints keep the divisors. */
int strategy_wino_domains(const Layer *l, StDomain *out) {
  int tiles = ((l->out_h + 1) / 2) * ((l->out_w + 1) / 2);
  out[0] = (StDomain){"RK", 1, l->k < 8 ? l->k : 8};
  out[1] = (StDomain){"RT", 1, tiles < 8 ? tiles : 8};
  return 2;
}
