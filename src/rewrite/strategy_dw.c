/* strategy_dw.c: DW, a depthwise layer's register tiles (docs/design.md
 * section 14), derived from the high-level expression. A depthwise layer
 * (one input channel per group) does kh*kw multiply-adds per input value
 * read, so its kernel is bound by its reads: each work-item computes RH x
 * RW neighbouring outputs of one output channel, copies the patch of the
 * padded plane that their windows cover ((RH - 1)*sh + kh rows of (RW -
 * 1)*sw + kw values) and its kernel's window (kh*kw weights) into
 * registers once, each patch row as vectors of width VW where the choice
 * LV asks for them (a vload where a vector is inside the plane, lane by
 * lane at its border), and makes every window's products from the
 * registers, the window unrolled, the bias added and the activation
 * applied before the one store.
 *
 *   beta                       the windows' let inlined
 *   windows-of-groups          (grouped) the groups' windows are each
 *   zip-map-fusion, beta       group's planes' windows, made in the map
 *                              over the groups
 *   reduce-map-fusion          the products inside the window's reduction
 *   split-join RH, map-eta     the rows of windows in tiles of RH
 *   windows-row-patches        a tile's windows are views of its row patch
 *   map-fusion, beta           (the map over tiles walks the patches)
 *   split-join RW, map-eta     each row's windows in groups of RW
 *   st_sink                    the tile's rows inside its pixel groups
 *                              (map-fission-call, map-interchange-zip)
 *   windows-column-patches     a group's RH x RW windows are views of
 *   map-fusion, beta           its patch, which the map over groups walks
 *   copy, map-eta (x2)         the patch copied ...
 *   vectorise VW               (LV > 1) ... each row as vectors ...
 *   map-to-seq-unroll (x3),    ... unrolled, into registers
 *   to-private
 *   reduce-to-seq-unroll       each window's kh*kw products unrolled
 *   let-field 0, copy, map-eta (x2), map-to-seq-unroll (x3), to-private
 *                              the kernel's window bound once per
 *                              output channel and copied into registers
 *   lowering                   the batch a loop; output channels, row
 *                              tiles and pixel groups the 3-D range
 *                              (mapGlb 2, 1, 0; a grouped layer's map over
 *                              the groups folds with the channels'); the
 *                              tile's rows, pixels and the activation
 *                              unrolled
 * RH and RW stay symbolic: their splits give RH | out_h and RW | out_w,
 * and asVector[VW] that VW divides the patch row, (RW - 1)*sw + kw.
 */
#include "rewrite/strategy.h"

#include "rewrite/rules.h"

enum { DW_CHOICES = 1 };
static const int WIDTHS[] = {1, 2, 4};   // LV=1, 2, 3

/* The rule at its one position in p (the windows view it rewrites is one). */
static Program *apply_once(Arena *a, Program *p, const char *rule, const AExpr *const *args, StrBuf *log, Diag *d) {
  RwPath at[2];
  int n = rw_find(p->body, rw_rule(rule), args, at, 2);
  if (n != 1) return diag_error(d, "dw: expected one position for %s, found %d", rule, n), NULL;
  return st_apply_at(a, p, rule, args, &at[0], log, d);
}

/* The map at maps[index] cut into tiles of t (split-join, map-eta). */
static Program *tile(Arena *a, Program *p, int index, const AExpr *t, StrBuf *log, Diag *d) {
  RwPath maps[64];
  if (st_compute_maps(p, maps, 64) <= index) return diag_error(d, "dw: expected a map to tile"), NULL;
  RwPath tiles = st_path(&maps[index], "/0");
  if (!(p = st_apply_at(a, p, "split-join", &t, &maps[index], log, d))) return NULL;
  return st_apply_at(a, p, "map-eta", NULL, &tiles, log, d);
}

/* The map over tiles (compute map `index`) fused with the map that makes a
 * tile's windows from its patch. */
static Program *fuse_patches(Arena *a, Program *p, int index, StrBuf *log, Diag *d) {
  RwPath maps[64];
  int count;
  if (st_compute_maps(p, maps, 64) <= index) return diag_error(d, "dw: expected the map over tiles"), NULL;
  if (!(p = st_apply_at(a, p, "map-fusion", NULL, &maps[index], log, d))) return NULL;
  return st_apply_all(a, p, "beta", NULL, NULL, 0, &count, log, d);
}

/* The array of [c][rows][columns] floats at `copy` copied into private
 * memory, unrolled, each row as vectors of width (1: scalars). */
static Program *copy_to_private(Arena *a, Program *p, const RwPath *copy, int width, StrBuf *log, Diag *d) {
  RwPath rows = st_path(copy, "/1"), row = st_path(&rows, "/1");
  if (!(p = st_apply_at(a, p, "copy", NULL, copy, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-eta", NULL, copy, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-eta", NULL, &rows, log, d))) return NULL;
  RwPath elems = row;
  if (width > 1) {   // asScalar(map[mapVec[id]](asVector[width](row)))
    const AExpr *w = ax_cst(a, width);
    if (!(p = st_apply_at(a, p, "vectorise", &w, &row, log, d))) return NULL;
    elems = st_path(&row, "/0");
  }
  // the copy's maps unrolled (innermost first), then placed in registers
  if (!(p = st_apply_at(a, p, "map-to-seq-unroll", NULL, &elems, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-to-seq-unroll", NULL, &rows, log, d))) return NULL;
  if (!(p = st_apply_at(a, p, "map-to-seq-unroll", NULL, copy, log, d))) return NULL;
  return st_apply_at(a, p, "to-private", NULL, copy, log, d);
}

/* The patch the map over pixel groups (compute map 3) reads, copied into
 * private memory, each row as vectors of width (1: scalars). */
static Program *patch_to_private(Arena *a, Program *p, int width, StrBuf *log, Diag *d) {
  RwPath maps[64];
  Param *y;
  if (st_compute_maps(p, maps, 64) < 4 || !rw_lambda_body1(rw_at(p->body, &maps[3])->fun->f, &y))
    return diag_error(d, "dw: expected the map over pixel groups"), NULL;
  RwPath copy = st_path(&maps[3], "/1");
  if (!rw_find_field(st_body(p, &maps[3]), y, 1, &copy)) return diag_error(d, "dw: no patch in the pixel group"), NULL;
  return copy_to_private(a, p, &copy, width, log, d);
}

/* The kernel's window (field 0 of the element of the map over output
 * channels, compute map 1, or the element itself without a bias) bound
 * once per work-item (let-field) and copied into private memory: its kh*kw
 * weights read once, not once per output of the tile. */
static Program *window_to_private(Arena *a, Program *p, StrBuf *log, Diag *d) {
  RwPath maps[64];
  if (st_compute_maps(p, maps, 64) < 2) return diag_error(d, "dw: expected the map over output channels"), NULL;
  const AExpr *field = ax_cst(a, 0);
  if (!(p = st_apply_at(a, p, "let-field", &field, &maps[1], log, d))) return NULL;
  RwPath value = st_path(&maps[1], "/1/0");   // the let's value: the window
  return copy_to_private(a, p, &value, 1, log, d);
}

Program *strategy_dw(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d) {
  Program *p = (Program *)hl;
  int count;
  const AExpr *rh = ax_var(a, "RH", 1, AX_INF), *rw = ax_var(a, "RW", 1, AX_INF);
  (void)l;
  if (!(p = st_apply_all(a, p, "beta", NULL, NULL, 0, &count, log, d))) return NULL;
  if (!(p = st_group_planes(a, p, log, d))) return NULL;   // (a dense layer of one channel has no groups)
  if (!(p = st_apply_all(a, p, "reduce-map-fusion", NULL, NULL, 1, &count, log, d))) return NULL;
  // compute maps: 0 the batch, 1 the output channels, 2 the rows of
  // windows, 3 a row's windows, then the activation
  if (!(p = tile(a, p, 2, rh, log, d))) return NULL;
  if (!(p = apply_once(a, p, "windows-row-patches", NULL, log, d))) return NULL;
  if (!(p = fuse_patches(a, p, 2, log, d))) return NULL;
  // 2 the row tiles, 3 a tile's rows, 4 a row's windows
  if (!(p = tile(a, p, 4, rw, log, d))) return NULL;
  if (!(p = st_sink(a, p, 3, log, d))) return NULL;
  if (!(p = apply_once(a, p, "windows-column-patches", NULL, log, d))) return NULL;
  if (!(p = fuse_patches(a, p, 3, log, d))) return NULL;
  // 2 the row tiles, 3 the pixel groups, each reading its patch
  if (!(p = patch_to_private(a, p, WIDTHS[choice[0] - 1], log, d))) return NULL;
  if (!(p = st_apply_all(a, p, "reduce-to-seq-unroll", NULL, NULL, 0, &count, log, d))) return NULL;
  if (!(p = window_to_private(a, p, log, d))) return NULL;
  // lowering, innermost first (the paths of the outer maps stay valid)
  RwPath maps[64];
  int n = st_compute_maps(p, maps, 64);
  if (n < 6) return diag_error(d, "dw: expected the maps of the tiles"), NULL;
  for (int i = n - 1; i >= 0; i--) {
    const AExpr *dim = ax_cst(a, 3 - i);
    if (i == 0) p = st_apply_at(a, p, "map-to-seq", NULL, &maps[i], log, d);
    else if (i <= 3) p = st_apply_at(a, p, "map-to-glb", &dim, &maps[i], log, d);
    else p = st_apply_at(a, p, "map-to-seq-unroll", NULL, &maps[i], log, d);
    if (!p) return NULL;
  }
  return p;
}

const char *strategy_dw_refuses(const Layer *l) {
  if (layer_group_c(l) != 1)
    return "dw derives a depthwise layer's kernels: one input channel per group (groups=c, or c=1)";
  if (l->residual) return "dw does not take residual=1 (its windows are zipped with the residual's rows)";
  if (l->dil_h > 1 || l->dil_w > 1)
    return "the patch rules dw is built on describe windows of neighbouring taps, not a dilated layer's";
  return NULL;
}

/* At most DW_MAX_RH x DW_MAX_RW outputs per work-item by default: the
 * patch of a larger tile would not stay in registers (at stride 2, 17 x 33
 * values at the bounds). --param widens them. */
enum { DW_MAX_RH = 8, DW_MAX_RW = 16 };

int strategy_dw_domains(const Layer *l, StDomain *out) {
  out[0] = (StDomain){"RH", 1, l->out_h < DW_MAX_RH ? l->out_h : DW_MAX_RH};
  out[1] = (StDomain){"RW", 1, l->out_w < DW_MAX_RW ? l->out_w : DW_MAX_RW};
  return 2;
}

static const char *const VECTORS[] = {"scalars", "float2", "float4"};

const StChoice strategy_dw_choices[DW_CHOICES] = {
    {"LV", "how a work-item reads its patch's rows: as floats (1), or as float2 (2) or float4 (3) vectors, which "
           "the patch row, (RW - 1)*stride + kw, must be a multiple of", 3, VECTORS, 0, false},
};
