/* strategy_s2_split.c: S2 with split-K (choice LX=2), for the deep layers whose
 * output tiles are too few to fill the device (at batch 1, vgg16.conv4_2's
 * best tiles made 256 work-groups, a quarter of a wave on the H200). The
 * window's reduction is split over work-groups: each work-group sums the
 * products of CK input channels of its tile into partial sums in global
 * memory, and a second kernel adds each output's c/CK partial sums from the
 * bias and applies the activation. The register blocks, the staging and the
 * pipeline of the tile are s2's, unchanged.
 *
 * It starts from the split form of the layer's expression
 * (conv_split_program: the map over the c/CK parts, each the convolution of
 * CK channels, then the reduction of the partial sums) rather than from the
 * dense one:
 *
 *   s2 on the part          the body of the map over the parts is the
 *                           convolution conv_part_program writes, with x and
 *                           weights the part's: it is derived as a program
 *                           of its own by s2 (the same choices, the batch
 *                           over work-groups), and the result, x and weights
 *                           again the part's, takes its place
 *   map-to-wrg 2            the parts over work-groups of dimension 2: the
 *                           part's batch and channel tiles are mapWrg 2 as
 *                           the whole body of it, so the three fold into one
 *                           range of groups (the lowering's map chains)
 *   map-to-seq / -glb       the reduction kernel: the batch a loop, output
 *                           channels, rows and pixels mapGlb 2, 1, 0, the
 *                           partial sums a sequential reduction
 *
 * The split itself is written in the split form, not derived from the dense
 * expression by rules (docs/rewrite.md says what that would take). CK stays
 * symbolic: its split gives CK | c, and the part's chunks CC | CK.
 */
#include "rewrite/strategy.h"

#include "conv/program.h"
#include "rewrite/rules.h"

#include <string.h>

/* The map over the parts: the map whose array is zip of the two splits by
 * channels (x |> map[split[CK]] |> transpose, and the weights'). */
static bool is_parts_map(const Expr *e) {
  if (!rw_is_map_call(e) || e->args[0]->kind != E_CALL) return false;
  const Expr *z = e->args[0];
  if (z->fun->kind != F_PRIM || z->fun->prim != P_ZIP || z->nargs < 2 || z->nargs > 3) return false;
  for (int i = 0; i < z->nargs; i++) {   // (the third: a scale=1 layer's scales)
    const Expr *t = z->args[i];
    if (t->kind != E_CALL || t->fun->kind != F_PRIM || t->fun->prim != P_TRANSPOSE) return false;
  }
  return true;
}

/* Where the map over the parts is: among every map (the positions
 * map-to-seq matches), the one is_parts_map accepts. */
static bool find_parts_map(const Expr *body, RwPath *at) {
  RwPath maps[256];
  int n = rw_find(body, rw_rule("map-to-seq"), NULL, maps, 256);
  for (int i = 0; i < n; i++)
    if (is_parts_map(rw_at(body, &maps[i]))) return *at = maps[i], true;
  return false;
}

/* p with the sizes of q it lacks (the part's derivation made tile sizes of
 * its own); the user functions it lacks (the copies' id) rw_renew declares. */
static void take_sizes(Arena *a, Program *p, const Program *q) {
  for (int i = 0; i < q->nsizes; i++) {
    bool known = false;
    for (int j = 0; j < p->nsizes && !known; j++) known = strcmp(p->size_names[j], q->size_names[i]) == 0;
    if (known) continue;
    p->size_names = arena_extend(a, p->size_names, (size_t)p->nsizes, sizeof *p->size_names);
    p->sizes = arena_extend(a, p->sizes, (size_t)p->nsizes, sizeof *p->sizes);
    p->size_names[p->nsizes] = q->size_names[i], p->sizes[p->nsizes++] = q->sizes[i];
  }
}

/* The body of the map over the parts (at `at`) replaced by s2's derivation of
 * the part, its inputs x and weights read as get[0] and get[1] of the part. */
static Program *derive_part(Arena *a, const Layer *l, Program *p, const RwPath *at, const int *choice, StrBuf *log,
                            Diag *d) {
  Layer part = conv_part_layer(l);
  Program *hl = conv_part_program(a, &part, d);
  if (!hl) return NULL;
  StrBuf sub;
  sb_init(&sub);
  Program *q = strategy_s2(a, &part, hl, choice, log ? &sub : NULL, d);
  if (q && log) {
    sb_printf(log, "s2 on the part (conv_part_program: CK channels, no bias, no activation) at %s, its rules:\n",
              rw_path_str(a, at));
    for (const char *s = sb_str(&sub); *s;) {   // each of the part's lines indented
      const char *e = strchr(s, '\n');
      size_t len = e ? (size_t)(e - s) + 1 : strlen(s);
      sb_printf(log, "  %.*s", (int)len, s);
      s += len;
    }
  }
  sb_free(&sub);
  if (!q) return NULL;
  const Expr *map = rw_at(p->body, at);
  Param *y;
  if (!rw_lambda_body1(map->fun->f, &y)) return diag_error(d, "s2 split: the map over the parts has no lambda"), NULL;
  const Expr *body = q->body;
  for (int i = 0; i < q->ninputs; i++) {
    const char *name = q->inputs[i]->name;
    int field = strcmp(name, "x") == 0 ? 0 : strcmp(name, "weights") == 0 ? 1 : strcmp(name, "scale") == 0 ? 2 : -1;
    if (field < 0) return diag_error(d, "s2 split: the part has an input '%s'", q->inputs[i]->name), NULL;
    const Expr *get = ir_call1(a, ir_prim_i(a, P_GET, field), ir_ref(a, y));
    body = rw_subst(a, body, q->inputs[i], get);
  }
  const Fun *f = ir_lambda(a, 1, &y, body);
  const Expr *nm = ir_call(a, rw_with_nested(a, map->fun, f), map->nargs, map->args);
  Program *r = ARENA_NEW(a, Program);
  *r = *p;
  r->body = rw_replace(a, p->body, at, nm);
  // the part's parameters were numbered apart from p's: the next rule
  // applied renumbers the copies that collide
  if (q->nparams_total > r->nparams_total) r->nparams_total = q->nparams_total;
  memcpy(r->workgroup, q->workgroup, sizeof r->workgroup);
  take_sizes(a, r, q);
  return rw_renew(a, r, d);
}

Program *st_s2_split(Arena *a, const Layer *l, const int *choice, StrBuf *log, Diag *d) {
  Program *p = conv_split_program(a, l, d);
  if (!p) return NULL;
  RwPath at = {0};
  if (!find_parts_map(p->body, &at)) return diag_error(d, "s2 split: no map over the parts"), NULL;
  int part_choice[ST_MAX_CHOICES];
  memcpy(part_choice, choice, sizeof(int) * (size_t)S2_CHOICES);
  part_choice[S2_LX] = 1;   // LX: the part is not split again
  if (!(p = derive_part(a, l, p, &at, part_choice, log, d))) return NULL;
  const AExpr *two = ax_cst(a, 2);
  if (!(p = st_apply_at(a, p, "map-to-wrg", &two, &at, log, d))) return NULL;
  // the reduction kernel: the compute maps outside the parts' (batch,
  // channels, rows, pixels, the activation), innermost first
  RwPath maps[256], k2[8];
  int n = st_compute_maps(p, maps, 256), nk = 0, count;
  for (int i = 0; i < n; i++)
    if (!st_path_within(&maps[i], &at) && nk < 8) k2[nk++] = maps[i];
  if (nk < 4) return diag_error(d, "s2 split: expected the maps of the reduction kernel"), NULL;
  for (int i = nk - 1; i >= 0; i--) {
    const AExpr *dim = ax_cst(a, 3 - i);
    bool glb = i >= 1 && i <= 3;
    if (!(p = st_apply_at(a, p, glb ? "map-to-glb" : "map-to-seq", glb ? &dim : NULL, &k2[i], log, d))) return NULL;
  }
  return st_apply_all(a, p, "reduce-to-seq", NULL, NULL, 0, &count, log, d);
}
