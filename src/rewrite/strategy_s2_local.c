/* strategy_s2_local.c: S2's local staging (choice LS=2), the steps after the
 * tiles of channel groups, rows and pixel groups are cut and sunk (every map
 * at work-group level; strategy_s2.c). A work-group computes a TK*RK x
 * TH x TW*RW block of outputs as one implicit matrix product: it walks the
 * window's taps in chunks of CC input channels (CC*kh*kw taps), copies each
 * chunk's input values (taps x the tile's pixels) and weights (taps x the
 * tile's channels) into local memory once, with every work-item copying a
 * share, and then each work-item updates its RK x RW accumulators from
 * local memory. Steps (docs/rewrite.md, "The S2 derivation"):
 *
 *   map-reduce-fuse-outer (x3)  at the maps over a tile's pixel groups, rows
 *                               and channel groups (innermost first, each
 *                               after map-fission-call): one reduction per
 *                               work-group over zip(inputs, weights), the
 *                               accumulator the whole block
 *   reduce-split-seq CC*kh*kw   that reduction walked in chunks
 *   split-zip, reduce-map-fusion, beta
 *                               each chunk two arrays of its own
 *   copy                        (no activation) the block copied out
 *   copy (x2)                   each chunk's arrays copied ...
 *   map-flatten (LC=3)          ... as one map over all of a chunk's
 *                               elements, in its order, rows cut back out
 *                               by views
 *   reduce-to-seq (x2)
 *   reduce-seq-prefetch (LP=2)  the chunk loop pipelined: the next chunk's
 *                               values loaded while this one is computed
 *   reduce-seq-double-buffer (LP=3)  the same, the staged arrays in two
 *                               slots: one barrier per chunk
 *   map-to-lcl / -seq-unroll    every map by what it walks: TK, TH, TW ->
 *                               mapLcl 2, 1, 0; in the copies the chunk's
 *                               taps over the work-items left free (the
 *                               weights' over dimension 0, a weight chunk
 *                               being contiguous along its taps, or with
 *                               LC=2 over dimension 1, RK over 0: few taps
 *                               and many channels), or with LC=3 the
 *                               flattened copies mapLcl[flat]: every
 *                               work-item busy whatever the group's shape,
 *                               neighbours on neighbouring elements; the
 *                               rest unrolled
 *   to-local (x2)               ... into local memory
 *   to-private                  the accumulators' initial values
 *   reduce-seq-nest kh*kw       a chunk's taps in rows of one channel's
 *                               window (of kw when kh*kw > 64), each row
 *                               unrolled
 *   workgroup TW, TH, TK        the copies walk more elements than the
 *                               group has work-items, so the group's shape
 *                               is said, not inferred
 *
 * With LS=3 (patch) the inputs are staged as the tile's patch of the padded
 * input, each value once, instead of each chunk's windows (kh*kw copies):
 *
 *   windows-row-patches, windows-column-patches (each then map-fusion, beta)
 *                               first: the maps over row and pixel tiles
 *                               walk the tiles' patches, and a tile's
 *                               windows are views of its patch
 *   im2col-channel-chunks CC    after split-zip: each chunk of taps is the
 *                               same view of CC channels of the patch
 *   zip-map-fusion              that view into the chunk loop's step
 *   copy, map-flatten           the patch chunk [CC][U][V], copied by the
 *                               whole group as one line (mapLcl[flat]),
 *                               whatever LC, which says the weights' copy
 * The maps to lower are found as for LS=2; the views the initial value's
 * maps walk (tiles of windows zipped with patches) stay views.
 */
#include "rewrite/strategy.h"

#include "lower/lower.h"
#include "rewrite/rules.h"


/* Is the map at `at` inside the array that another map of the initial value
 * walks (a view that map reads, such as the tiles of windows zipped with the
 * patches)? */
static bool in_array_of_map(const RwPath *at, const RwPath *all, int n, const RwPath *init) {
  for (int j = 0; j < n; j++) {
    RwPath array = st_path(&all[j], "/0");
    if (st_path_within(&all[j], init) && st_path_within(at, &array)) return true;
  }
  return false;
}

int st_maps_to_lower(const Program *p, const RwPath *init, RwPath *out, int max) {
  RwPath all[256];
  int n = rw_find(p->body, rw_rule("map-to-seq"), NULL, all, 256), k = 0, nc;
  RwPath compute[256];
  nc = st_compute_maps(p, compute, 256);
  for (int i = 0; i < n && k < max; i++) {
    bool take = st_path_within(&all[i], init) && !in_array_of_map(&all[i], all, n, init);
    for (int j = 0; j < nc && !take; j++)
      take = compute[j].n == all[i].n && st_path_within(&all[i], &compute[j]);
    if (take) out[k++] = all[i];
  }
  return k;
}

Program *st_chunk_loops(Arena *a, Program *p, const RwPath *inner, const RwPath *r, StPipe pipe, StrBuf *log, Diag *d) {
  int count;
  if (!(p = st_apply_at(a, p, "reduce-to-seq", NULL, inner, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "reduce-to-seq", NULL, r, log, d))) return NULL;
  const char *pipeline = pipe == ST_PIPE_PREFETCH ? "reduce-seq-prefetch"
                         : pipe == ST_PIPE_DOUBLE ? "reduce-seq-double-buffer"
                         : pipe == ST_PIPE_ASYNC  ? "reduce-seq-async"
                                                  : NULL;
  if (pipeline && !(p = st_apply_at(a, p, pipeline, NULL, r, log, d))) return NULL;
  return st_apply_all(a, p, "map-eta", NULL, st_is_map_of_map, 0, &count, log, d);
}

Program *st_flatten_copy(Arena *a, Program *p, const RwPath *at, RwPath *map, StrBuf *log, Diag *d) {
  *map = *at;
  while (rw_rule("map-flatten")->match(rw_at(p->body, map), NULL)) {
    if (!(p = st_apply_at(a, p, "map-flatten", NULL, map, log, d))) return NULL;
    *map = st_path(map, "/0");
  }
  return p;
}

bool st_patch_chunk(const Program *p, const RwPath *r, int field, RwPath *at) {
  const Expr *step = rw_at(p->body, r), *views = rw_at(p->body, at);
  return step && views && step->kind == E_CALL && step->fun->f && step->fun->f->kind == F_LAMBDA &&
         rw_find_field(views, step->fun->f->params[1], field, at);
}

/* LS=3 (strategy.h): each map over tiles is compute map 2 or 3. */
Program *st_tile_patches(Arena *a, Program *p, StrBuf *log, Diag *d) {
  const char *rules[] = {"windows-row-patches", "windows-column-patches"};
  for (int i = 0; i < 2; i++) {
    RwPath at, maps[256];
    int count;
    if (rw_find(p->body, rw_rule(rules[i]), NULL, &at, 1) != 1)
      return diag_error(d, "s2 patch: no tile of windows for %s", rules[i]), NULL;
    if (!(p = st_apply_at(a, p, rules[i], NULL, &at, log, d))) return NULL;
    if (st_compute_maps(p, maps, 256) < 4) return diag_error(d, "s2 patch: expected the maps over tiles"), NULL;
    if (!(p = st_apply_at(a, p, "map-fusion", NULL, &maps[2 + i], log, d))) return NULL;
    if (!(p = st_apply_all(a, p, "beta", NULL, NULL, 0, &count, log, d))) return NULL;
  }
  return p;
}

Program *st_s2_stage(Arena *a, Program *p, StCopy copy, bool patch, StPipe pipe, int batch, StrBuf *log, Diag *d) {
  if (patch && !(p = st_tile_patches(a, p, log, d))) return NULL;
  const AExpr *tk = ax_var(a, "TK", 1, AX_INF), *th = ax_var(a, "TH", 1, AX_INF), *tw = ax_var(a, "TW", 1, AX_INF);
  int64_t kh, kw;
  if (!st_kernel_size(p, &kh, &kw, d)) return NULL;
  const int64_t window = kh * kw;
  // the block's reduction lifted to the work-group: maps 4, 5, 6 are a
  // tile's channel groups, rows and pixel groups (0 the batch, 1-3 the tiles)
  RwPath maps[256];
  int n = st_compute_maps(p, maps, 256);
  if (n < 7) return diag_error(d, "s2 staging: expected the maps of a tile's channel groups, rows and pixel groups"), NULL;
  RwPath group = maps[3];
  for (int i = 6; i >= 4; i--) {
    RwPath m = maps[i];
    if (!(p = st_fission_to_reduce(a, p, &m, log, d))) return NULL;
    if (!(p = st_apply_at(a, p, "map-reduce-fuse-outer", NULL, &m, log, d))) return NULL;
  }
  // in chunks of CC input channels, each chunk two arrays
  const AExpr *chunk = ax_mul(a, ax_var(a, "CC", 1, AX_INF), ax_cst(a, window));
  RwPath r;
  if (rw_find(p->body, rw_rule("reduce-split-seq"), &chunk, &r, 1) != 1)
    return diag_error(d, "s2 staging: no reduction over the window"), NULL;
  RwPath pairs = st_path(&r, "/1");
  int count;
  if (!(p = st_apply_at(a, p, "reduce-split-seq", &chunk, &r, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "split-zip", NULL, &pairs, log, d))) return NULL;
  if (patch) {   // each chunk the same taps of CC channels of the patch, made in the chunk's step
    RwPath im2col = st_path(&pairs, "/0/0");
    const AExpr *cc = ax_var(a, "CC", 1, AX_INF);
    if (!(p = st_apply_at(a, p, "im2col-channel-chunks", &cc, &im2col, log, d))) return NULL;
    if (!(p = st_apply_at(a, p, "zip-map-fusion", NULL, &pairs, log, d))) return NULL;
  }
  if (!(p = st_apply_at(a, p, "reduce-map-fusion", NULL, &r, log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "beta", NULL, NULL, 0, &count, log, d))) return NULL;
  // the block copied out of the work-items' registers, unless an
  // activation's map (a compute map between the tile and the reduction)
  // already reads it out
  bool epilogue = false;
  n = st_compute_maps(p, maps, 256);
  for (int i = 0; i < n; i++) epilogue |= maps[i].n > group.n && maps[i].n < r.n && st_path_within(&r, &maps[i]);
  if (!epilogue) {
    if (!(p = st_apply_at(a, p, "copy", NULL, &r, log, d))) return NULL;
    r = st_path(&r, "/0");
  }
  // the copies of the chunk's inputs and weights
  RwPath inner = st_path(&r, "/2/0"), xs = st_path(&inner, "/1/0"), ws = st_path(&inner, "/1/1"), init = st_path(&r, "/0");
  if (patch && !st_patch_chunk(p, &r, 0, &xs))   // the patch's chunk, read through the windows' views
    return diag_error(d, "s2 patch: no chunk of the patch in the chunk's step"), NULL;
  if (!(p = st_apply_at(a, p, "copy", NULL, &ws, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "copy", NULL, &xs, log, d))) return NULL;
  RwPath wcopy = ws, xcopy = xs;   // the maps toLocal places
  if (copy == ST_COPY_FLAT && !(p = st_flatten_copy(a, p, &ws, &wcopy, log, d))) return NULL;
  if ((copy == ST_COPY_FLAT || patch) && !(p = st_flatten_copy(a, p, &xs, &xcopy, log, d))) return NULL;
  if (!(p = st_chunk_loops(a, p, &inner, &r, pipe, log, d))) return NULL;
  // every map by what it walks, innermost first (the outer paths stay valid)
  n = st_maps_to_lower(p, &init, maps, 256);
  for (int i = n - 1; i >= 0; i--) {
    const AExpr *len = rw_len(rw_at(p->body, &maps[i])->args[0]);
    int dim = ax_equal(len, tk) ? 2 : ax_equal(len, th) ? 1 : ax_equal(len, tw) ? 0 : -1;
    const char *rule = "map-to-seq-unroll";
    bool in_x = st_path_within(&maps[i], &xs), in_copy = st_path_within(&maps[i], &ws) || in_x;
    if (i == 0) {   // the batch, as LN says
      if (!(p = st_s2_lower_batch(a, p, batch, &maps[0], log, d))) return NULL;
      continue;
    }
    else if (i <= 3) rule = "map-to-wrg", dim = 3 - i;   // the tiles
    else if ((copy == ST_COPY_FLAT && in_copy) || (patch && in_x)) dim = IR_DIM_FLAT;
    else if (st_path_within(&maps[i], &ws) && dim < 0) {   // [taps][TK][RK]: taps and RK over dimensions 0 and 1
      bool taps = maps[i].n == ws.n;
      dim = copy == ST_COPY_BY_CHANNELS ? (taps ? 1 : 0) : (taps ? 0 : 1);
    }
    else if (st_path_within(&maps[i], &xs) && dim < 0)   // [taps][TH][TW][RW]: taps over 2, RW a loop
      dim = maps[i].n == xs.n ? 2 : -1, rule = dim < 0 ? "map-to-seq" : rule;
    if (i > 3 && dim >= 0) rule = "map-to-lcl";
    const AExpr *dv = ax_cst(a, dim);
    if (!(p = st_apply_at(a, p, rule, dim >= 0 ? &dv : NULL, &maps[i], log, d))) return NULL;
  }
  if (!(p = st_apply_at(a, p, "to-local", NULL, &wcopy, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "to-local", NULL, &xcopy, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "to-private", NULL, &init, log, d))) return NULL;
  // the chunk's taps in rows of one input channel's window (or of one of its
  // rows when the window is over LW_ROW_UNROLL_MAX), each row unrolled
  const AExpr *row = ax_cst(a, window <= LW_ROW_UNROLL_MAX ? window : kw);
  if (!(p = st_apply_at(a, p, "reduce-seq-nest", &row, &inner, log, d))) return NULL;
  Program *q = ARENA_NEW(a, Program);
  *q = *p;
  q->workgroup[0] = tw, q->workgroup[1] = th, q->workgroup[2] = tk;
  if (log) sb_puts(log, "workgroup TW, TH, TK\n");
  return q;
}
