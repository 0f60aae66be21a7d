/* constraints.c: the constraints a program's IR and the device put on its
 * parameters, collected by one walk over the type-inferred program.
 *
 * The walk follows type inference (ir/infer.c): a call's arguments first, then
 * its function applied to their types, into nested functions with the element
 * types. Every primitive whose type rule has a side condition on sizes adds it
 * here as a constraint, with the place it comes from: split, asVector, slide,
 * zip, and the unrolled nests, whose trip product bounds the kernel's size.
 * Then the `workgroup` line meets the device's limits. Inference has already
 * rejected the conditions that are false for constant sizes; what reaches
 * here mentions parameters, or is a device limit. See space.h for the list.
 */
#include "space/space.h"

#include <string.h>

typedef struct Walk {
  Space *s;
  Arena *a;
  bool groups;   // some map is a mapWrg or a mapLcl: the workgroup line applies
  int per_item;  // inside a mapGlb or mapLcl: what is made here is one work-item's
  const AExpr *lcl;   // the product of the trips of the enclosing mapLcl nest (NULL: none)
  const AExpr *row;   // in the step of a reduceSeq walked in unrolled rows: the row's length (NULL: none)
  const Expr *nest;   // that reduceSeq
} Walk;

static bool walk_fun(Walk *w, const Fun *f, int n, const Type *const *args, const Expr *at, const AExpr *unroll);

static const char *place(Walk *w, const Expr *at) {
  return arena_printf(w->a, "%s:%d:%d", w->s->in.file, at->line, at->col);
}

static const char *fun_text(Walk *w, const Fun *f) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_fun(&sb, f);
  const char *t = arena_strdup(w->a, sb_str(&sb));
  sb_free(&sb);
  return t;
}

static const char *dev_name(const Space *s) { return s->dev.name[0] ? s->dev.name : "the device"; }

/* A parameter's meaning is the first place the program uses it as a size. */
static void note_use(Walk *w, const AExpr *n, const char *origin) {
  const char *names[16];
  int k = ax_vars(n, names, 16);
  for (int i = 0; i < k && i < 16; i++) {
    int p = space_param_index(w->s, names[i]);
    if (p >= 0 && !w->s->params[p].meaning) w->s->params[p].meaning = origin;
  }
}

static void add(Walk *w, ConKind k, const AExpr *l, const AExpr *r, const char *origin) {
  space_add_con(w->s, k, l, r, origin);
}

/* ---- Primitives ------------------------------------------------------------- */

static void split_like(Walk *w, const Fun *f, const Type *x, const Expr *at) {
  const char *origin =
      arena_printf(w->a, "%s at %s on length %s", fun_text(w, f), place(w, at), ax_str(w->a, x->len));
  note_use(w, f->n, origin);
  add(w, CON_DIVIDES, x->len, f->n, origin);
  add(w, CON_GE, f->n, ax_cst(w->a, 1), origin);
}

static void slide(Walk *w, const Fun *f, const Type *x, const Expr *at) {
  const char *origin =
      arena_printf(w->a, "%s at %s on length %s", fun_text(w, f), place(w, at), ax_str(w->a, x->len));
  note_use(w, f->n, origin);
  note_use(w, f->m, origin);
  add(w, CON_GE, x->len, f->n, arena_printf(w->a, "%s: the window fits", origin));
  add(w, CON_GE, f->n, ax_cst(w->a, 1), origin);
  add(w, CON_GE, f->m, ax_cst(w->a, 1), origin);
}

static void zip(Walk *w, int n, const Type *const *args, const Expr *at) {
  for (int i = 1; i < n; i++)
    if (!ax_equal(args[0]->len, args[i]->len))
      add(w, CON_EQ, args[0]->len, args[i]->len,
        arena_printf(w->a, "zip at %s: argument %d as long as the first", place(w, at), i + 1));
}

/* Without a workgroup line, a kernel has as many work-items in d as its
 * largest mapLcl(d) has iterations, so each one fits the device. A flat
 * mapLcl takes the group the others shape, whatever its length. */
static void map_lcl(Walk *w, const Fun *f, const Type *x, const Expr *at) {
  const Space *s = w->s;
  if (s->prog->workgroup[0] || !s->in.dev || f->dim == IR_DIM_FLAT) return;
  add(w, CON_LE, x->len, ax_cst(w->a, (int64_t)s->dev.max_wi_sizes[f->dim]),
      arena_printf(w->a, "device: mapLcl(%d) at %s has a work-item per iteration, at most %zu in dimension %d (%s)",
                   f->dim, place(w, at), s->dev.max_wi_sizes[f->dim], f->dim, dev_name(s)));
  if (w->lcl)   // nested in other dimensions: the work-group is the product
    add(w, CON_LE, ax_mul(w->a, w->lcl, x->len), ax_cst(w->a, (int64_t)s->dev.max_wg_size),
        arena_printf(w->a, "device: work-group size of the mapLcl nest ending at %s, at most %zu (%s)", place(w, at),
                     s->dev.max_wg_size, dev_name(s)));
}

/* n elements of t's innermost element type, in values: a vector's width
 * each (a float4 accumulator is four registers). */
static const AExpr *values_times(Arena *a, const AExpr *n, const Type *t) {
  while (t->kind == TY_ARRAY) t = t->elem;
  return t->kind == TY_VEC ? ax_mul(a, n, ax_cst(a, t->width)) : n;
}

/* A work-group's reduction whose accumulators toPrivate[mapLcl ...] spread
 * over its work-items (S2 staged): the values one work-item holds, the
 * product of the lengths of the levels not mapped to mapLcl; NULL for any
 * other initial value. Level i of the result is the i-th map of the nest. */
static const AExpr *private_share(Arena *a, const Expr *init) {
  if (init->kind != E_CALL || init->fun->kind != F_PRIM || init->fun->prim != P_TO_PRIVATE) return NULL;
  const AExpr *n = ax_cst(a, 1);
  const Fun *f = init->fun->f;
  bool spread = false;
  for (const Type *t = init->type; t->kind == TY_ARRAY; t = t->elem) {
    bool lcl = f && f->kind == F_PRIM && f->prim == P_MAP_LCL;
    spread |= lcl;
    if (!lcl) n = ax_mul(a, n, t->len);
    const Fun *g = f && f->kind == F_PRIM && prim_is_map(f->prim) ? f->f : NULL;
    if (g && g->kind == F_LAMBDA) g = g->body->kind == E_CALL ? g->body->fun : NULL;
    f = g;
  }
  return spread ? values_times(a, n, init->type) : NULL;
}

/* A work-item's reduction over an array of accumulators keeps them in
 * registers: their number is bounded (beyond it the compiler spills them to
 * slow memory, or the kernel cannot be built). Those a mapLcl inside its
 * initial value spreads over the work-items (a warp's tile-product
 * accumulators, over its 32 lanes) count a work-item's share. */
static void private_acc(Walk *w, const Fun *f, const Type *acc, const Expr *at) {
  const AExpr *n = at->nargs == 2 ? private_share(w->a, at->args[0]) : NULL;
  if (!n) {
    n = ax_cst(w->a, 1);
    for (const Type *t = acc; t->kind == TY_ARRAY; t = t->elem) n = ax_mul(w->a, n, t->len);
    n = values_times(w->a, n, acc);
  }
  add(w, CON_LE, n, ax_cst(w->a, SPACE_PRIVATE_MAX),
      arena_printf(w->a, "private memory: the accumulators of the %s at %s, at most %d values per work-item",
                   prim_name(f->prim), place(w, at), SPACE_PRIVATE_MAX));
}

static void spread_acc(Walk *w, const Fun *f, const Expr *at) {
  const AExpr *n = private_share(w->a, at->args[0]);
  if (n)
    add(w, CON_LE, n, ax_cst(w->a, SPACE_PRIVATE_MAX),
        arena_printf(w->a, "private memory: a work-item's share of the accumulators of the %s at %s, at most %d "
                     "values", prim_name(f->prim), place(w, at), SPACE_PRIVATE_MAX));
}

/* The row length m of a reduceSeq over join(split[m](x)): the lowering walks
 * it as a loop over rows, each row unrolled (reduce-seq-nest); NULL for any
 * other reduction. */
static const AExpr *nest_row(const Fun *f, int n, const Expr *at) {
  const Expr *x = at->kind == E_CALL && at->nargs == n ? at->args[n - 1] : NULL;
  if (f->prim != P_REDUCE_SEQ || !x || x->kind != E_CALL || x->fun->kind != F_PRIM || x->fun->prim != P_JOIN) return NULL;
  const Expr *sp = x->args[0];
  return sp->kind == E_CALL && sp->fun->kind == F_PRIM && sp->fun->prim == P_SPLIT ? sp->fun->n : NULL;
}

/* The straight-line body of a nested reduceSeq's loop: each unrolled row
 * of m steps repeats the step's unrolled nest (S2: one multiply-add per
 * accumulator), m times. Bounded apart from the kernel's statements, since
 * a compiler schedules and allocates registers over the whole body. */
static void body_size(Walk *w, const Fun *f, const Expr *at, const AExpr *u) {
  add(w, CON_LE, ax_mul(w->a, w->row, u), ax_cst(w->a, SPACE_BODY_MAX),
      arena_printf(w->a, "code size: the loop body of the reduceSeq at %s, rows of %s steps unrolled, each the nest "
                   "ending in %s at %s, at most %d unrolled statements (multiply-adds) per body", place(w, w->nest),
                   ax_str(w->a, w->row), prim_name(f->prim), place(w, at), SPACE_BODY_MAX));
}

static bool unrolled(const Fun *f) {
  return (f->prim == P_MAP_SEQ_UNROLL || f->prim == P_REDUCE_SEQ_UNROLL) &&
         !(f->f->kind == F_PRIM && prim_is_layout(f->f->prim));
}

/* A map or reduction: its function on the element type. An unrolled one
 * multiplies the unroll product; the innermost of a nest bounds it. */
static bool walk_loop(Walk *w, const Fun *f, int n, const Type *const *args, const Expr *at, const AExpr *unroll) {
  const Type *xs = args[n - 1];
  const Type *fa[2] = {args[0], xs->elem};
  if (f->prim == P_MAP_WRG || f->prim == P_MAP_LCL) w->groups = true;
  if (f->prim == P_MAP_LCL) map_lcl(w, f, xs, at);
  if (prim_is_reduce(f->prim) && w->per_item && args[0]->kind == TY_ARRAY) private_acc(w, f, args[0], at);
  if (prim_is_reduce(f->prim) && !w->per_item && args[0]->kind == TY_ARRAY) spread_acc(w, f, at);
  if (!unrolled(f)) {
    int item = f->prim == P_MAP_GLB || f->prim == P_MAP_LCL;
    const AExpr *lcl = w->lcl;
    if (f->prim == P_MAP_LCL && f->dim != IR_DIM_FLAT) w->lcl = lcl ? ax_mul(w->a, lcl, xs->len) : xs->len;
    w->per_item += item;
    const AExpr *row = w->row, *m = nest_row(f, n, at);
    const Expr *nest = w->nest;
    if (m) w->row = m, w->nest = at;
    bool r = walk_fun(w, f->f, n, n == 2 ? fa : &xs->elem, at, unroll);
    w->row = row, w->nest = nest;
    w->per_item -= item;
    w->lcl = lcl;
    return r;
  }
  const AExpr *u = unroll ? ax_mul(w->a, unroll, xs->len) : xs->len;
  if (walk_fun(w, f->f, n, n == 2 ? fa : &xs->elem, at, u)) return true;
  add(w, CON_LE, u, ax_cst(w->a, SPACE_CODE_CAP),
      arena_printf(w->a, "code size: the unrolled nest ending in %s at %s, at most %d statements per kernel",
                   prim_name(f->prim), place(w, at), SPACE_CODE_CAP));
  if (w->row) body_size(w, f, at, u);
  return true;
}

static bool walk_prim(Walk *w, const Fun *f, int n, const Type *const *args, const Expr *at, const AExpr *unroll) {
  if (prim_is_map(f->prim) || prim_is_reduce(f->prim)) return walk_loop(w, f, n, args, at, unroll);
  switch (f->prim) {
  case P_MAP_VEC: return walk_fun(w, f->f, 1, (const Type *[]){ty_scalar(args[0]->et)}, at, unroll);
  case P_ITERATE:
    note_use(w, f->n, arena_printf(w->a, "%s at %s", fun_text(w, f), place(w, at)));
    return walk_fun(w, f->f, n, args, at, unroll);
  case P_TO_GLOBAL:
  case P_TO_LOCAL:
  case P_TO_PRIVATE: return walk_fun(w, f->f, n, args, at, unroll);
  case P_ZIP: zip(w, n, args, at); return false;
  case P_SPLIT:
  case P_AS_VECTOR: split_like(w, f, args[0], at); return false;
  case P_SLIDE: slide(w, f, args[0], at); return false;
  case P_CROP: {
    const char *origin =
        arena_printf(w->a, "%s at %s on length %s", fun_text(w, f), place(w, at), ax_str(w->a, args[0]->len));
    note_use(w, ax_add(w->a, f->n, f->m), origin);
    add(w, CON_GE, args[0]->len, ax_add(w->a, ax_add(w->a, f->n, f->m), ax_cst(w->a, 1)),
        arena_printf(w->a, "%s: an element is left", origin));
    add(w, CON_GE, f->n, ax_cst(w->a, 0), origin);   // (type inference refuses a constant below 0)
    add(w, CON_GE, f->m, ax_cst(w->a, 0), origin);
    return false;
  }
  case P_PAD:
    note_use(w, ax_add(w->a, f->n, f->m), arena_printf(w->a, "%s at %s", fun_text(w, f), place(w, at)));
    return false;
  default: return false;
  }
}

/* ---- Expressions --------------------------------------------------------------- */

static bool walk_expr(Walk *w, const Expr *e, const AExpr *unroll) {
  if (e->kind != E_CALL) return false;
  const Type *args[16];
  bool inner = false;
  for (int i = 0; i < e->nargs; i++) {
    inner |= walk_expr(w, e->args[i], unroll);
    args[i] = e->args[i]->type;
  }
  return walk_fun(w, e->fun, e->nargs, args, e, unroll) || inner;
}

static bool walk_fun(Walk *w, const Fun *f, int n, const Type *const *args, const Expr *at, const AExpr *unroll) {
  switch (f->kind) {
  case F_USER: return false;
  case F_LAMBDA: return walk_expr(w, f->body, unroll);
  case F_PRIM: return walk_prim(w, f, n, args, at, unroll);
  }
  return false;
}

/* ---- The workgroup line and the device ---------------------------------------- */

static int decl_line(const char *text, const char *word) {
  size_t n = strlen(word);
  int line = 1;
  for (const char *q = text; *q; line++) {
    while (*q == ' ' || *q == '\t') q++;
    if (strncmp(q, word, n) == 0 && (q[n] == ' ' || q[n] == '\t')) return line;
    q = strchr(q, '\n');
    if (!q) break;
    q++;
  }
  return 0;
}

static void workgroup(Walk *w) {
  const Space *s = w->s;
  const AExpr *const *wg = s->prog->workgroup;
  if (!wg[0] || !w->groups) return;
  const char *where = arena_printf(w->a, "the workgroup line at %s:%d", s->in.file, decl_line(s->in.text, "workgroup"));
  const AExpr *size = ax_cst(w->a, 1);
  for (int d = 0; d < 3 && wg[d]; d++) {
    note_use(w, wg[d], where);
    add(w, CON_GE, wg[d], ax_cst(w->a, 1), arena_printf(w->a, "%s: at least one work-item in dimension %d", where, d));
    if (s->in.dev)
      add(w, CON_LE, wg[d], ax_cst(w->a, (int64_t)s->dev.max_wi_sizes[d]),
          arena_printf(w->a, "device: work-items in dimension %d of %s, at most %zu (%s)", d, where,
                       s->dev.max_wi_sizes[d], dev_name(s)));
    size = ax_mul(w->a, size, wg[d]);
  }
  if (s->in.dev)
    add(w, CON_LE, size, ax_cst(w->a, (int64_t)s->dev.max_wg_size),
        arena_printf(w->a, "device: work-group size of %s, at most %zu (%s)", where, s->dev.max_wg_size,
                     dev_name(s)));
}

/* `out: T = e`: each length of e's type that type inference took as equal
 * to T's because they differ by no constant (ir_infer's declared_fits) must
 * be equal at the point. */
static void declared_output(Walk *w, const Type *t, const Type *decl) {
  for (; t->kind == TY_ARRAY && decl->kind == TY_ARRAY; t = t->elem, decl = decl->elem) {
    int64_t diff;
    if (!ax_is_cst(ax_sub(w->a, t->len, decl->len), &diff))
      add(w, CON_EQ, t->len, decl->len,
          arena_printf(w->a, "the output: %s as long as its declared %s", ax_str(w->a, t->len), ax_str(w->a, decl->len)));
  }
}

void space_collect(Space *s) {
  Walk w = {s, s->a, false, 0, NULL, NULL, NULL};
  walk_expr(&w, s->prog->body, NULL);
  if (s->prog->out_type) declared_output(&w, s->prog->body->type, s->prog->out_type);
  workgroup(&w);
  for (int i = 0; i < s->nparams; i++)
    if (!s->params[i].meaning) s->params[i].meaning = "not used as a size by the program";
}
