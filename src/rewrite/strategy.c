/* strategy.c: the strategy table and the steps strategies share: find where a
 * rule applies, apply it there, record "rule at path" in the log. */
#include "rewrite/strategy.h"

#include "conv/program.h"
#include "lower/lower.h"
#include "lower/view.h"
#include "rewrite/rules.h"

#include <stdlib.h>
#include <string.h>

Program *strategy_direct(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d);
Program *strategy_s1(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d);
int strategy_s1_domains(const Layer *l, StDomain *out);
int strategy_s2_domains(const Layer *l, StDomain *out);
extern const StChoice strategy_s2_choices[S2_CHOICES];
_Static_assert((int)S2_CHOICES <= (int)ST_MAX_CHOICES, "s2's choices need ST_MAX_CHOICES");
const char *strategy_s2_not_a_variant(const Layer *l, const int *choice);
Program *strategy_s3(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d);
int strategy_s3_domains(const Layer *l, StDomain *out);
Program *strategy_dw(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d);
int strategy_dw_domains(const Layer *l, StDomain *out);
extern const StChoice strategy_dw_choices[1];
const char *strategy_dw_refuses(const Layer *l);
Program *strategy_tc(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d);
const char *strategy_tc_refuses(const Layer *l);
int strategy_tc_domains(const Layer *l, StDomain *out);
const char *strategy_tc_not_a_variant(const Layer *l, const int *choice);
extern const StChoice strategy_tc_choices[6];
Program *strategy_wino(Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log, Diag *d);
const char *strategy_wino_refuses(const Layer *l);
int strategy_wino_domains(const Layer *l, StDomain *out);
const char *strategy_wino_not_a_variant(const Layer *l, const int *choice);
extern const StChoice strategy_wino_choices[4];

static int no_domains(const Layer *l, StDomain *out) {
  (void)l, (void)out;
  return 0;
}

static const Strategy STRATEGIES[] = {
    {"direct", "one work-item per output pixel and channel; the window's products summed in a loop", strategy_direct, no_domains, 0, NULL, NULL, NULL},
    {"s1", "partial-reduction tiles: a work-group per KPG channels x WPT pixels, each window's SO-chunks over its "
     "work-items, summed in local memory",
     strategy_s1, strategy_s1_domains, 0, NULL, NULL, NULL},
    {"s2", "register-blocked output tiles: RK channels x RW pixels per work-item, one loop updating all of them; "
     "optionally the work-group's inputs (LS=2 the chunk's windows, LS=3 the tile's patch) and weights staged in "
     "local memory, CC input channels at a time",
     strategy_s2, strategy_s2_domains, S2_CHOICES, strategy_s2_choices, strategy_s2_not_a_variant, NULL},
    {"s3", "input channels split across work-items: partial sums of CG channels, then a kernel that adds them",
     strategy_s3, strategy_s3_domains, 0, NULL, NULL, NULL},
    {"dw", "depthwise register tiles: RH x RW outputs of one channel per work-item from their patch of the input "
     "and the kernel's window, copied into registers once (LV: the patch as floats, float2 or float4), the window "
     "unrolled; depthwise layers only",
     strategy_dw, strategy_dw_domains, 1, strategy_dw_choices, NULL, strategy_dw_refuses},
    {"tc", "tensor-core tiles: TH warps a work-group, each RW pixels of its row x RK channels in 16 x 8 sub-tiles (LT: "
     "which are the 16), the window's "
     "products by the warp's tile product (mma3xTF32: fp32's accuracy from three TF32 products), 8 values a step, "
     "the fragments read from global memory or (LS=2) from chunks the warps share in local memory (LP: pipelined)",
     strategy_tc, strategy_tc_domains, 6, strategy_tc_choices, strategy_tc_not_a_variant, strategy_tc_refuses},
    {"wino", "Winograd's F(m, r) for stride-1 layers: the filter transform once (a kernel of the weights alone), the "
     "input transform of each tile, the products summed over the channels at each of the tile's (m + r - 1)^2 "
     "positions (RK x RT a work-item; LS=2: TK x TT work-items a group sharing CS channels of U and V in local "
     "memory), the output transform with the bias and activation: four kernels (WM: m = 2 or 4)",
     strategy_wino, strategy_wino_domains, 4, strategy_wino_choices, strategy_wino_not_a_variant, strategy_wino_refuses},
};

const Strategy *st_strategies(int *n) {
  *n = (int)(sizeof STRATEGIES / sizeof STRATEGIES[0]);
  return STRATEGIES;
}

const Strategy *st_strategy(const char *name) {
  int n;
  const Strategy *s = st_strategies(&n);
  for (int i = 0; i < n; i++)
    if (strcmp(s[i].name, name) == 0) return &s[i];
  return NULL;
}

Program *st_apply_at(Arena *a, Program *p, const char *name, const AExpr *const *args, const RwPath *at, StrBuf *log,
                     Diag *d) {
  const Rule *r = rw_rule(name);
  if (!r) cg_die("strategy uses an unknown rule '%s'", name);
  Program *q = rw_apply(a, p, r, args, at, d);
  if (q && log) {
    sb_puts(log, name);
    for (int i = 0; i < r->nargs; i++) {
      sb_putc(log, ' ');
      ax_print(log, args[i]);
    }
    sb_printf(log, " at %s\n", rw_path_str(a, at));
  }
  return q;
}

Program *st_apply_all(Arena *a, Program *p, const char *name, const AExpr *const *args, StPick pick, int max,
                      int *count, StrBuf *log, Diag *d) {
  const Rule *r = rw_rule(name);
  if (!r) cg_die("strategy uses an unknown rule '%s'", name);
  *count = 0;
  for (;;) {  // positions move after a rewrite: look again each time
    RwPath at[256];
    int n = rw_find(p->body, r, args, at, 256), k = 0;
    while (k < n && pick && !pick(rw_at(p->body, &at[k]))) k++;
    if (k == n || (max && *count == max)) return p;
    if (!(p = st_apply_at(a, p, name, args, &at[k], log, d))) return NULL;
    (*count)++;
  }
}

bool st_is_group_map(const Expr *e) {
  if (e->kind != E_CALL || e->fun->kind != F_PRIM || !prim_is_map(e->fun->prim) || e->nargs != 1) return false;
  const Expr *z = e->args[0];
  if (z->kind != E_CALL || z->fun->kind != F_PRIM || z->fun->prim != P_ZIP || z->nargs < 2) return false;
  const Expr *w = z->args[1];
  return w->kind == E_CALL && w->fun->kind == F_PRIM && w->fun->prim == P_SPLIT && w->args[0]->kind == E_PARAM &&
         strcmp(w->args[0]->param->name, "weights") == 0;
}

/* How many maps over the groups p has (at most one in any program the
 * strategies make); *at (may be NULL) gets the last one's position. */
static int find_group_maps(const Program *p, RwPath *at) {
  RwPath all[256];
  int n = rw_find(p->body, rw_rule("map-to-seq"), NULL, all, 256), found = 0;
  for (int i = 0; i < n; i++) {
    if (!st_is_group_map(rw_at(p->body, &all[i]))) continue;
    found++;
    if (at) *at = all[i];
  }
  return found;
}

bool st_has_group_map(const Program *p) { return find_group_maps(p, NULL) > 0; }

static bool is_compute_map(const Expr *e) {
  if (st_is_group_map(e)) return false;   // strategies see one group's maps; st_derive maps the groups
  return e->kind == E_CALL && e->fun->kind == F_PRIM && e->fun->prim == P_MAP && !vw_is_layout_fun(e->fun->f) &&
         !vw_is_view_lambda(e->fun->f);
}

bool st_is_map_of_map(const Expr *e) {
  return e->kind == E_CALL && e->fun->kind == F_PRIM && e->fun->prim == P_MAP && e->fun->f->kind == F_PRIM &&
         e->fun->f->prim == P_MAP && !vw_is_layout_fun(e->fun->f);
}

int st_compute_maps(const Program *p, RwPath *out, int max) {
  RwPath all[256];
  int n = rw_find(p->body, rw_rule("map-to-seq"), NULL, all, 256), k = 0;
  for (int i = 0; i < n && k < max; i++)
    if (is_compute_map(rw_at(p->body, &all[i]))) out[k++] = all[i];
  return k;
}

/* The first map of a parallel level in e, in pre-order: its primitive and
 * dimension in *prim and *dim; false when every map in e is sequential. */
static bool first_parallel_map(const Expr *e, Prim *prim, int *dim) {
  if (e->kind != E_CALL) return false;
  const Fun *f = e->fun;
  if (f->kind == F_PRIM && (f->prim == P_MAP_GLB || f->prim == P_MAP_WRG)) {
    *prim = f->prim, *dim = f->dim;
    return true;
  }
  if (f->kind == F_LAMBDA && first_parallel_map(f->body, prim, dim)) return true;
  if (f->kind == F_PRIM && f->f && f->f->kind == F_LAMBDA && first_parallel_map(f->f->body, prim, dim)) return true;
  for (int i = 0; i < e->nargs; i++)
    if (first_parallel_map(e->args[i], prim, dim)) return true;
  return false;
}

/* A grouped layer's map over the groups given the level and dimension of
 * the first parallel map inside it (the map over one group's channels, or
 * its batch folded with them): the two walk one range (map chains of the
 * lowering), so a group's work-groups or work-items are the group's
 * channels' times G. With no parallel map inside, a loop. */
static Program *map_groups(Arena *a, Program *p, StrBuf *log, Diag *d) {
  RwPath at;
  int found = find_group_maps(p, &at);
  if (found != 1) return diag_error(d, "expected one map over the groups, found %d", found), NULL;
  const Expr *groups = rw_at(p->body, &at);
  Prim prim;
  int dim;
  if (!first_parallel_map(groups->fun->f->body, &prim, &dim)) return st_apply_at(a, p, "map-to-seq", NULL, &at, log, d);
  const AExpr *arg = ax_cst(a, dim);
  return st_apply_at(a, p, prim == P_MAP_GLB ? "map-to-glb" : "map-to-wrg", &arg, &at, log, d);
}

/* A grouped layer's high-level expression is the dense one with each
 * kernel reading its own group's windows (a broadcast view): the rule
 * map-over-groups makes the map over the groups, each a dense layer's map
 * over its kernels, before the strategy derives one group's. */
static const Program *group_maps(Arena *a, const Program *hl, StrBuf *log, Diag *d) {
  RwPath at[2];
  int n = rw_find(hl->body, rw_rule("map-over-groups"), NULL, at, 2);
  if (n != 1) return diag_error(d, "expected one map over the kernels with their groups' windows, found %d", n), NULL;
  return st_apply_at(a, (Program *)hl, "map-over-groups", NULL, &at[0], log, d);
}

Program *st_derive(const Strategy *st, Arena *a, const Layer *l, const Program *hl, const int *choice, StrBuf *log,
                   Diag *d) {
  Layer g = layer_group(l);
  if (layer_groups(l) > 1 && !(hl = group_maps(a, hl, log, d))) return NULL;
  Program *p = st->derive(a, &g, hl, choice, log, d);
  if (p && layer_groups(l) > 1) p = map_groups(a, p, log, d);
  return p;
}

int st_domains(const Strategy *st, const Layer *l, StDomain *out) {
  Layer g = layer_group(l);
  return st->domains(&g, out);
}

bool st_path_within(const RwPath *p, const RwPath *prefix) {
  return p->n >= prefix->n && memcmp(p->step, prefix->step, sizeof(int) * (size_t)prefix->n) == 0;
}

RwPath st_path(const RwPath *base, const char *rel) {
  RwPath p = base ? *base : (RwPath){0};
  for (const char *s = rel; *s;) {
    if (*s == '/') {
      s++;
      continue;
    }
    cg_assert(p.n < RW_MAX_PATH);
    p.step[p.n++] = (int)strtol(s, (char **)&s, 10);
  }
  return p;
}

Program *st_group_planes(Arena *a, Program *p, StrBuf *log, Diag *d) {
  RwPath at[2];
  int n = rw_find(p->body, rw_rule("windows-of-groups"), NULL, at, 2);
  if (n == 0) return p;
  if (n > 1) return diag_error(d, "expected one view of the groups' windows, found %d", n), NULL;
  if (!(p = st_apply_at(a, p, "windows-of-groups", NULL, &at[0], log, d))) return NULL;
  RwPath all[256];
  int nz = rw_find(p->body, rw_rule("zip-map-fusion"), NULL, all, 256), k = 0;
  while (k < nz && !st_is_group_map(rw_at(p->body, &all[k]))) k++;
  if (k == nz) return diag_error(d, "the map over the groups does not walk the groups' planes"), NULL;
  int count;
  if (!(p = st_apply_at(a, p, "zip-map-fusion", NULL, &all[k], log, d))) return NULL;
  return st_apply_all(a, p, "beta", NULL, NULL, 0, &count, log, d);
}

const Expr *st_body(const Program *p, const RwPath *at) {
  const Expr *e = rw_at(p->body, at);
  if (!e || e->kind != E_CALL || e->fun->kind != F_PRIM || !e->fun->f || e->fun->f->kind != F_LAMBDA) return NULL;
  return e->fun->f->body;
}

const char *st_interchange_rule(const Program *p, const RwPath *at) {
  const Expr *body = st_body(p, at);
  Param *y;
  if (!body || !rw_is_call(body, P_MAP) || !rw_lambda_body1(rw_at(p->body, at)->fun->f, &y)) return "map-interchange";
  return rw_uses(body->args[0], y) ? "map-interchange-zip" : "map-interchange";
}

Program *st_tile_channels_pixels(Arena *a, Program *p, const AExpr *per_channel, const AExpr *per_pixel, StrBuf *log,
                                 Diag *d) {
  // the maps found by what they are (the compute maps in order: images,
  // output channels, rows, a row's pixels), each step at a place relative
  // to one of them (docs/rewrite.md, "Positions and paths")
  RwPath maps[8];
  if (st_compute_maps(p, maps, 8) < 4) return diag_error(d, "expected the maps over images, channels, rows and pixels"), NULL;
  const RwPath *channels = &maps[1], *pixels = &maps[3];
  struct {
    const char *rule;
    const RwPath *map;
    const char *rel;
    const AExpr *arg;
  } steps[] = {
      {"split-join", pixels, "", per_pixel},   // the pixel map of a row
      {"map-eta", pixels, "/0", NULL},
      {"split-join", channels, "", per_channel},   // the channel map
      {"map-eta", channels, "/0", NULL},
      {"map-interchange", channels, "/0/1", NULL},   // channels inside rows (-zip: a residual's rows, st_interchange_rule)
      {"map-fission-call", channels, "/0/1/0/1", NULL},   // the joins out of the way
      {"map-fission-call", channels, "/0/1/0/1/0", NULL},
      {"map-interchange", channels, "/0/1/0/1/0/0", NULL},   // channels inside pixel groups
  };
  for (size_t i = 0; p && i < sizeof steps / sizeof steps[0]; i++) {
    RwPath at = st_path(steps[i].map, steps[i].rel);
    const char *rule = strcmp(steps[i].rule, "map-interchange") == 0 ? st_interchange_rule(p, &at) : steps[i].rule;
    p = st_apply_at(a, p, rule, steps[i].arg ? &steps[i].arg : NULL, &at, log, d);
  }
  return p;
}

bool st_tiled_channel_map(const Program *p, RwPath *out, Diag *d) {
  RwPath maps[8];
  if (st_compute_maps(p, maps, 8) < 2) return diag_error(d, "expected the map over channel groups");
  *out = st_path(&maps[1], "/1/0/1/0/0/0/1");   // channel groups, rows, pixel groups: then the channels
  return true;
}

Program *st_products_in_chunks(Arena *a, Program *p, StrBuf *log, Diag *d) {
  RwPath at;
  if (rw_find(p->body, rw_rule("split-map"), NULL, &at, 1) != 1)
    return diag_error(d, "no split of the window's products"), NULL;
  if (!(p = st_apply_at(a, p, "split-map", NULL, &at, log, d))) return NULL;
  at.n--;   // the map over the chunks, now of a map of the products
  if (!(p = st_apply_at(a, p, "map-fusion", NULL, &at, log, d))) return NULL;
  RwPath body = st_path(&at, "/1");
  if (!(p = st_apply_at(a, p, "beta", NULL, &body, log, d))) return NULL;
  return st_apply_at(a, p, "reduce-map-fusion", NULL, &body, log, d);
}

int st_depth_to_chunks(const Program *p, const RwPath *at) {
  const Expr *e = st_body(p, at);
  for (int d = 0; e && e->kind == E_CALL && d < 16; d++) {
    if (rw_is_call(e, P_MAP) && rw_is_call(e->args[0], P_SPLIT)) return d;
    e = e->nargs ? e->args[e->nargs - 1] : NULL;
  }
  return 0;
}

Program *st_sink(Arena *a, Program *p, int index, StrBuf *log, Diag *d) {
  RwPath maps[64];
  int n = st_compute_maps(p, maps, 64);
  if (index >= n) return diag_error(d, "no map %d to move inward", index), NULL;
  RwPath at = maps[index];
  for (int guard = 0;; guard++) {   // the calls around the inner map leave the outer one
    const Expr *body = st_body(p, &at);
    if (!body || guard == 16) return diag_error(d, "no map inside the map at %s", rw_path_str(a, &at)), NULL;
    if (rw_is_call(body, P_MAP) && body->fun->f->kind == F_LAMBDA) {
      Param *y;
      rw_lambda_body1(rw_at(p->body, &at)->fun->f, &y);
      return st_apply_at(a, p, rw_uses(body->args[0], y) ? "map-interchange-zip" : "map-interchange", NULL, &at, log, d);
    }
    if (!(p = st_apply_at(a, p, "map-fission-call", NULL, &at, log, d))) return NULL;
    at = st_path(&at, "/0");
  }
}

Program *st_fission_to_reduce(Arena *a, Program *p, RwPath *at, StrBuf *log, Diag *d) {
  for (int guard = 0; p && guard < 8; guard++) {
    const Expr *body = st_body(p, at);
    if (!body) return diag_error(d, "expected a map at %s", rw_path_str(a, at)), NULL;
    if (rw_is_call(body, P_REDUCE)) return p;
    if (!(p = st_apply_at(a, p, "map-fission-call", NULL, at, log, d))) return NULL;
    *at = st_path(at, "/0");
  }
  return p ? (diag_error(d, "no reduction under the map at %s", rw_path_str(a, at)), NULL) : NULL;
}

/* The window's reduction: its step is the lambda reduce-map-fusion made
 * (add(acc, mult(...))); a reduction of partial sums steps with a plain add. */
static bool is_window_reduction(const Expr *e) { return e->fun->f->kind == F_LAMBDA; }

bool st_kernel_size(const Program *p, int64_t *kh, int64_t *kw, Diag *d) {
  const Type *t = NULL;   // the weights: [[[[float]kw]kh]c]k
  for (int i = 0; i < p->ninputs; i++)
    if (strcmp(p->inputs[i]->name, "weights") == 0) t = p->inputs[i]->type;
  if (!t || !ax_is_cst(t->elem->elem->len, kh) || !ax_is_cst(t->elem->elem->elem->len, kw))
    return diag_error(d, "the program has no input 'weights' of constant kernel size"), false;
  return true;
}

Program *st_nest_window(Arena *a, Program *p, StrBuf *log, Diag *d) {
  int64_t kh, kw;
  if (!st_kernel_size(p, &kh, &kw, d)) return NULL;
  const AExpr *row = ax_cst(a, kh * kw <= LW_ROW_UNROLL_MAX ? kh * kw : kw);
  int count;
  return st_apply_all(a, p, "reduce-seq-nest", &row, is_window_reduction, 1, &count, log, d);
}

Program *st_crop_output(Arena *a, const Program *p, int oh, int ow, int out_h, int out_w, StrBuf *log, Diag *d) {
  if (oh < out_h || ow < out_w) return diag_error(d, "a %d x %d plane cropped to %d x %d", oh, ow, out_h, out_w), NULL;
  Param *plane = rw_param(a, "plane");
  const Expr *e = ir_ref(a, plane);
  if (oh > out_h) e = ir_call1(a, ir_prim_nn(a, P_CROP, ax_cst(a, 0), ax_cst(a, oh - out_h)), e);
  if (ow > out_w) e = ir_call1(a, ir_prim_f(a, P_MAP, ir_prim_nn(a, P_CROP, ax_cst(a, 0), ax_cst(a, ow - out_w))), e);
  const Fun *crop = ir_prim_f(a, P_MAP, ir_prim_f(a, P_MAP, ir_lambda(a, 1, &plane, e)));
  Program *q = ARENA_NEW(a, Program);
  *q = *p;
  q->body = ir_call1(a, crop, p->body);
  q->out_type = NULL;
  if (p->out_type) {   // a declared output (half): the same element type, the cropped planes
    const Type *t = p->out_type, *base = t->elem->elem->elem->elem;
    q->out_type = ty_array(a, ty_array(a, ty_array(a, ty_array(a, base, ax_cst(a, out_w)), ax_cst(a, out_h)),
                                       t->elem->len), t->len);
  }
  if (log) sb_printf(log, "# the output cropped to %d x %d of its %d x %d planes\n", out_h, out_w, oh, ow);
  return rw_renew(a, q, d);
}

/* e with `by` zeros after its dimension `depth` (0 the outermost):
 * pad[0, by, 0.0f] inside depth maps; e when by is 0. */
static const Expr *zeros_after_at(Arena *a, const Expr *e, int depth, int by) {
  if (!by) return e;
  const Fun *f = ir_pad(a, ax_cst(a, 0), ax_cst(a, by), PAD_CONST, 0.0);
  for (int i = 0; i < depth; i++) f = ir_prim_f(a, P_MAP, f);
  return ir_call1(a, f, e);
}

static const Expr *zeros_after(Arena *a, const Expr *e, int by) { return zeros_after_at(a, e, 0, by); }
static const Expr *zeros_after_each(Arena *a, const Expr *e, int by) { return zeros_after_at(a, e, 1, by); }

Program *st_pad_inputs(Arena *a, const Program *p, const Layer *l, const Layer *pl, Diag *d) {
  int dk = pl->k - l->k, dc = pl->c - l->c, doh = pl->out_h - l->out_h, dow = pl->out_w - l->out_w;
  if (dk < 0 || dc < 0 || doh < 0 || dow < 0 || layer_groups(l) > 1)
    return diag_error(d, "inputs padded from %d, %d channels and %d x %d outputs to %d, %d and %d x %d (grouped: %d)",
                      l->c, l->k, l->out_h, l->out_w, pl->c, pl->k, pl->out_h, pl->out_w, layer_groups(l)), NULL;
  Program *hl = conv_program(a, l, d);   // its inputs' declarations: l's shapes, in its precision
  if (!hl) return NULL;
  Program *q = ARENA_NEW(a, Program);
  *q = *p;
  q->inputs = ARENA_ARRAY(a, Param *, (size_t)p->ninputs);
  const Expr *body = p->body;
  for (int i = 0; i < p->ninputs; i++) {
    Param *old = p->inputs[i], *now = NULL;
    for (int j = 0; j < hl->ninputs && !now; j++)
      if (strcmp(hl->inputs[j]->name, old->name) == 0) now = ir_param(a, old->name, hl->inputs[j]->type);
    if (!now) return diag_error(d, "the padded program's input '%s' is not the layer's", old->name), NULL;
    now->id = old->id;   // in place of the old one, which no longer occurs
    const Expr *view = ir_ref(a, now);
    if (strcmp(old->name, "x") == 0) view = zeros_after_each(a, view, dc);   // [n][c'][h][w]
    else if (strcmp(old->name, "weights") == 0) view = zeros_after(a, zeros_after_each(a, view, dc), dk);
    else if (strcmp(old->name, "bias") == 0) view = zeros_after(a, view, dk);
    else if (strcmp(old->name, "residual") == 0)   // [n][k'][out_h'][out_w']: channels, rows, columns
      view = zeros_after_at(a, zeros_after_at(a, zeros_after_at(a, view, 1, dk), 2, doh), 3, dow);
    else if (strcmp(old->name, "scale") == 0) view = zeros_after_each(a, view, dc);   // [n][c']
    else return diag_error(d, "the padded program's input '%s' is not padded", old->name), NULL;
    q->inputs[i] = now;
    body = rw_subst(a, body, old, view);
  }
  q->body = body;
  return q;
}

Program *st_pad_channels(Arena *a, const Program *p, const Layer *l, const Layer *pl, StrBuf *log, Diag *d) {
  int dk = pl->k - l->k;
  Program *q = st_pad_inputs(a, p, l, pl, d);
  if (!q) return NULL;
  if (dk) q->body = ir_call1(a, ir_prim_f(a, P_MAP, ir_prim_nn(a, P_CROP, ax_cst(a, 0), ax_cst(a, dk))), q->body);
  if (p->out_type) {   // a declared output (half): l's k channels
    const Type *t = p->out_type;
    q->out_type = ty_array(a, ty_array(a, t->elem->elem, ax_cst(a, l->k)), t->len);
  }
  if (log) sb_printf(log, "# the inputs read through views padding them with zeros to %d input and %d output channels, "
                     "the output's first %d channels kept\n", pl->c, pl->k, l->k);
  return rw_renew(a, q, d);
}

Layer st_padded_plane(const Layer *l, int mh, int mw) {
  Layer p = *l;
  int oh = (l->out_h + mh - 1) / mh * mh, ow = (l->out_w + mw - 1) / mw * mw;
  int eh = (l->kh - 1) * (l->dil_h > 1 ? l->dil_h : 1) + 1, ew = (l->kw - 1) * (l->dil_w > 1 ? l->dil_w : 1) + 1;
  if (oh != l->out_h) p.pad_dh = (oh - 1) * l->stride_h + eh - l->h - l->pad_h - l->pad_h;
  if (ow != l->out_w) p.pad_dw = (ow - 1) * l->stride_w + ew - l->w - l->pad_w - l->pad_w;
  p.out_h = oh, p.out_w = ow;
  return p;
}
