/* gen.c: staged lowering: expressions become statements over memories.
 *
 * This is where address spaces, memory allocation, views, barriers and
 * unrolling meet (docs/design.md section 3), done as one staged evaluation: each
 * expression is "run" at compile time with views for values, emitting the
 * statements that compute it. A destination view is passed down so that a
 * map writes its results straight where its consumer wants them (through the
 * inverse of join, split, transpose, asVector/asScalar and scatter).
 *
 * Address spaces: toGlobal/toLocal/toPrivate place a function's result; a map
 * that must allocate its own result uses its toX, else global for mapGlb and
 * mapWrg, local for mapLcl, private for sequential maps; reductions accumulate
 * in private memory (in place when their destination is private).
 * Allocation: private memory is declared where it is made; local memory is
 * declared once per kernel and multiplied by the enclosing mapLcl loops (one
 * slice per work-item); a global temporary is multiplied by every enclosing
 * parallel loop.
 * Barriers are placed afterwards, by barriers.c, except where the program
 * asks for one with the barrier primitive.
 */
#include "lower/gen.h"

#include <string.h>

enum { UNROLL_COPY_MAX = 64 };  // copies of private arrays up to this length unroll

static const char *fresh(Gen *g, const char *hint) { return arena_printf(g->a, "%s%d", hint, g->names++); }

static void emit(Gen *g, Stmt *s) { lw_append(g->a, g->block, s); }

static bool gen_error(Gen *g, const Expr *at, const char *msg) {
  return diag_error(g->d, "%s:%d:%d: cannot compile '%s': %s", g->lp->prog->name, at ? at->line : 0,
                    at ? at->col : 0, at ? ir_expr_str(g->a, at) : "?", msg);
}

/* ---- Memory ---------------------------------------------------------------- */

static Mem *new_mem(Gen *g, const Type *t, MSpace space, MRole role, const char *hint) {
  Mem *m = ARENA_NEW(g->a, Mem);
  m->name = fresh(g, hint);
  m->space = space;
  m->role = role;
  m->type = t;
  const Type *base = ty_base(t);
  // what the lowering allocates holds floats, not halves, but for local copies of halves (staged_type)
  if (role != MR_INPUT && role != MR_OUTPUT && role != MR_LOCAL) base = ty_arith(base);
  m->storage = (space == MS_PRIVATE || !(base->kind == TY_VEC)) ? base : ty_scalar(base->et);
  int64_t count;
  if (!ax_is_cst(ty_count(g->a, t), &count)) cg_die("memory of symbolic size");
  m->count = count * (m->storage == base ? 1 : base->width);
  if (space == MS_PRIVATE) {
    int depth = 0;
    for (const Type *x = t; x->kind == TY_ARRAY; x = x->elem) depth++;
    m->dist = ARENA_ARRAY(g->a, int64_t, depth ? depth : 1);
    m->dist_by = ARENA_ARRAY(g->a, int, depth ? depth : 1);
    for (int k = 0; k < depth; k++) m->dist[k] = 1, m->dist_by[k] = -1;
  }
  return m;
}

void gen_use_arg(Gen *g, Mem *m) {
  for (int i = 0; i < g->k->nargs; i++)
    if (g->k->args[i] == m) return;
  Mem **args = arena_extend(g->a, g->k->args, (size_t)g->k->nargs, sizeof *args);
  args[g->k->nargs++] = m;
  g->k->args = args;
}

Mem *gen_global(Gen *g, const Type *t, MRole role, const char *name) {
  Mem *m = new_mem(g, t, MS_GLOBAL, role, name);
  if (role == MR_OUTPUT) m->name = name;
  Mem **bufs = arena_extend(g->a, g->lp->buffers, (size_t)g->lp->nbuffers, sizeof *bufs);
  bufs[g->lp->nbuffers++] = m;
  g->lp->buffers = bufs;
  return m;
}

Mem *gen_const(Gen *g, const Type *t, const char *name, const double *values) {
  Mem *m = new_mem(g, t, MS_CONST, MR_CONST, name);
  m->name = name;
  m->values = values;
  return m;
}

static void add_local(Gen *g, Mem *m) {
  Mem **l = arena_extend(g->a, g->k->locals, (size_t)g->k->nlocals, sizeof *l);
  l[g->k->nlocals++] = m;
  g->k->locals = l;
}

/* Memory for a value of type t in space s, as seen by the current work-item:
 * the allocation is multiplied by the enclosing loops whose iterations would
 * otherwise share it, and indexed by their variables. */
static const View *alloc_one(Gen *g, const Type *t, MSpace s, const char *hint, const Expr *at) {
  if (s == MS_PRIVATE) {
    Mem *m = new_mem(g, t, s, MR_PRIVATE, hint);
    Stmt *decl = ARENA_NEW(g->a, Stmt);
    decl->kind = ST_DECL;
    decl->mem = m;
    emit(g, decl);
    return vw_mem(g->a, m);
  }
  const AExpr *vars[GEN_MAX_LOOPS];
  int nv = 0;
  const Type *whole = t;
  for (int i = g->nctx - 1; i >= 0; i--) {
    const Ctx *c = &g->ctx[i];
    bool shares = s == MS_LOCAL ? c->kind == LOOP_LCL : c->kind != LOOP_SEQ;
    if (s == MS_LOCAL && c->kind == LOOP_GLB) {
      gen_error(g, at, "local memory inside mapGlb; use mapWrg and mapLcl");
      return NULL;
    }
    if (!shares) continue;
    whole = ty_array(g->a, whole, ax_cst(g->a, c->trip));
    vars[nv++] = c->var;
  }
  Mem *m = s == MS_LOCAL ? new_mem(g, whole, s, MR_LOCAL, hint) : gen_global(g, whole, MR_TEMP, hint);
  if (s == MS_LOCAL) add_local(g, m);
  else gen_use_arg(g, m);
  const View *v = vw_mem(g->a, m);
  for (int i = nv - 1; i >= 0; i--) v = vw_access(g->a, v, vars[i]);
  return v;
}

/* Tuples are never stored: a tuple (or an array of tuples) becomes one memory
 * per field, seen together through a tuple (or zip) view. */
static const View *alloc(Gen *g, const Type *t, MSpace s, const char *hint, const Expr *at) {
  const View *fields[16];
  if (t->kind == TY_TUPLE || (t->kind == TY_ARRAY && t->elem->kind == TY_TUPLE)) {
    const Type *tt = t->kind == TY_TUPLE ? t : t->elem;
    for (int k = 0; k < tt->n; k++) {
      const Type *ft = t->kind == TY_TUPLE ? tt->fields[k] : ty_array(g->a, tt->fields[k], t->len);
      if (!(fields[k] = alloc(g, ft, s, hint, at))) return NULL;
    }
    return t->kind == TY_TUPLE ? vw_tuple(g->a, tt->n, fields, t) : vw_zip(g->a, tt->n, fields, t);
  }
  if (ty_base(t)->kind == TY_TUPLE) {
    gen_error(g, at, "an array of arrays of tuples cannot be stored; unzip it first");
    return NULL;
  }
  return alloc_one(g, t, s, hint, at);
}


/* ---- Reads and writes --------------------------------------------------- */

/* The parallel loops around the current point, for the ownership check of
 * spread private memory. */
static int lanes(const Gen *g, Lane *out) {
  int n = 0;
  for (int i = 0; i < g->nctx; i++)
    if (g->ctx[i].kind == LOOP_LCL || g->ctx[i].kind == LOOP_GLB)
      out[n++] = (Lane){g->ctx[i].var, g->ctx[i].step, LW_LANE(g->ctx[i].kind, g->ctx[i].dim)};
  return n;
}

static CExpr *new_cexpr(Gen *g, CKind k, const Type *t) {
  CExpr *c = ARENA_NEW(g->a, CExpr);
  c->kind = k;
  c->type = t;
  return c;
}

static const CExpr *read(Gen *g, const View *v) {
  Access acc;
  Lane ln[GEN_MAX_LOOPS];
  int nl = lanes(g, ln);
  if (!vw_resolve(g->a, v, false, &acc, g->d, g->dry ? NULL : ln, nl)) return NULL;
  const CExpr *c;
  if (acc.val) {
    c = acc.val;
  } else {
    CExpr *ld = new_cexpr(g, C_LOAD, v->type);
    ld->mem = acc.mem;
    ld->idx = acc.idx;
    ld->width = acc.width;
    ld->cond = acc.cond;
    ld->padval = acc.padval;
    ld->lane_cond = acc.lane_cond;
    ld->lane_idx = acc.lane_idx;
    if (acc.nlevels > 1) {
      ld->nlevels = acc.nlevels;
      const AExpr **conds = ARENA_ARRAY(g->a, const AExpr *, (size_t)acc.nlevels);
      double *vals = ARENA_ARRAY(g->a, double, (size_t)acc.nlevels);
      memcpy(conds, acc.level_cond, sizeof(const AExpr *) * (size_t)acc.nlevels);
      memcpy(vals, acc.level_val, sizeof(double) * (size_t)acc.nlevels);
      ld->level_cond = conds, ld->level_val = vals;
    }
    if (acc.mem->space == MS_GLOBAL) gen_use_arg(g, acc.mem);
    c = ld;
    int64_t k;
    if (acc.mem->role == MR_CONST && ld->width == 1 && !ld->cond && !ld->lane_idx && ld->nlevels <= 1 &&
        ax_is_cst(ld->idx, &k)) {   // a const array's element at a known place: its value
      CExpr *lit = new_cexpr(g, C_LIT, v->type);
      lit->lit = acc.mem->values[k];
      c = lit;
    }
  }
  if (acc.comp >= 0) {
    CExpr *comp = new_cexpr(g, C_COMP, v->type);
    comp->nargs = 1;
    comp->args = ARENA_ARRAY(g->a, const CExpr *, 1);
    comp->args[0] = c;
    comp->comp = acc.comp;
    c = comp;
  }
  return c;
}

static bool store(Gen *g, const View *dst, const CExpr *val) {
  Access acc;
  Lane ln[GEN_MAX_LOOPS];
  int nl = lanes(g, ln);
  if (!vw_resolve(g->a, dst, true, &acc, g->d, g->dry ? NULL : ln, nl)) return false;
  if (acc.comp >= 0) return diag_error(g->d, "writing one component of a private vector is not supported");
  if (acc.mem->role == MR_CONST) return diag_error(g->d, "const '%s' is read only: nothing may be written into it", acc.mem->name);
  if (val->kind == C_LOAD && val->mem == acc.mem && val->width == acc.width && !val->cond && !acc.cond &&
      !val->lane_idx && !val->lane_cond && val->nlevels <= 1 && ax_equal(val->idx, acc.idx))
    return true;   // the place's own value (an accumulator plus a literal 0: identity_operand): nothing to write
  Stmt *s = ARENA_NEW(g->a, Stmt);
  s->kind = ST_STORE;
  s->mem = acc.mem;
  s->idx = acc.idx;
  s->width = acc.width;
  s->value = val;
  s->cond = acc.cond;   // a store through crop's inverse: only the middle is written
  if (acc.mem->space == MS_GLOBAL) gen_use_arg(g, acc.mem);
  emit(g, s);
  return true;
}

/* ---- Loops ----------------------------------------------------------------- */

typedef struct Loop {
  Stmt *stmt;             // the ST_FOR (NULL when unrolled)
  Stmt *outer_block;      // where the loop goes when closed
} Loop;

static int64_t threads_for(Gen *g, LoopKind kind, int dim, int64_t trip) {
  if (kind == LOOP_SEQ) return 1;
  if (g->dry) return trip;
  if (dim == IR_DIM_FLAT) return g->threads[LOOP_LCL][0] * g->threads[LOOP_LCL][1] * g->threads[LOOP_LCL][2];
  return g->threads[kind][dim];
}

/* A loop of trip iterations opened around what follows (close_loop ends
 * it); NULL with a Diag when GEN_MAX_LOOPS are open already: a program of
 * that many nested maps is the user's, not a broken invariant. at: where
 * (NULL for a copy, which has no expression of its own). */
static const AExpr *open_loop(Gen *g, Loop *l, LoopKind kind, int dim, int64_t trip, const Expr *at) {
  if (g->nctx == GEN_MAX_LOOPS) {
    const char *msg = arena_printf(g->a, "loops nested more than %d deep in one kernel (maps, reductions and copies "
                                   "of arrays each make one); the lowering's limit is %d", GEN_MAX_LOOPS, GEN_MAX_LOOPS);
    if (at) gen_error(g, at, msg);
    else diag_error(g->d, "%s: cannot compile: %s", g->lp->prog->name, msg);
    return NULL;
  }
  const char *hints[] = {"i", "gid", "wg", "lid"};
  const AExpr *var = ax_var(g->a, fresh(g, hints[kind]), 0, trip - 1);
  int64_t outside = 1;
  int chain = map_chain(g, kind, dim, &outside);
  // a flat mapLcl takes the work-group as the other maps shape it
  if (g->dry && kind != LOOP_SEQ && dim != IR_DIM_FLAT && trip * outside > g->trips[kind][dim])
    g->trips[kind][dim] = trip * outside;
  Stmt *f = ARENA_NEW(g->a, Stmt);
  f->kind = ST_FOR;
  f->loop = kind;
  f->dim = dim;
  f->var = var;
  f->stop = trip;
  f->step = chain ? trip : threads_for(g, kind, dim, trip);   // folded: one round of its own range
  f->body = lw_block(g->a);
  f->folded = chain > 0;
  for (int i = 0; i < chain; i++) {   // the chain's group id now also walks this map's trip
    Stmt *o = g->ctx[g->nctx - 1 - i].stmt;
    o->fold_div = (o->fold_div ? o->fold_div : 1) * trip;
  }
  g->ctx[g->nctx++] = (Ctx){kind, dim, var, trip, f->step, f};
  l->stmt = f;
  l->outer_block = g->block;
  g->block = f->body;
  // a mapLcl of one iteration on one work-item: its index is 0, said as a
  // constant so that a private array it indexes stays registers (a
  // work-group tile of 1 in S2's staging would keep `lid*32 + c` otherwise).
  // Only mapLcl: the same for one work-group or one global work-item in a
  // dimension made NVIDIA's OpenCL build slower kernels (on the H200,
  // alexnet.conv3's best s1 point 64 -> 121 us, vgg16.conv2_1's s2 point
  // 130 -> 158 us; bench rounds 5 and 6), for no gain.
  if (kind == LOOP_LCL && trip == 1 && f->step == 1 && !g->dry) return ax_cst(g->a, 0);
  return var;
}

static Stmt *barrier_stmt(Gen *g, bool global) {
  Stmt *b = ARENA_NEW(g->a, Stmt);
  b->kind = ST_BARRIER;
  b->global_fence = global;
  return b;
}

static void close_loop(Gen *g, Loop *l) {
  g->nctx--;
  g->block = l->outer_block;
  emit(g, l->stmt);
}

static bool emit_barrier(Gen *g, bool global, const Expr *at) {
  if (!barrier_ok(g, at)) return false;
  emit(g, barrier_stmt(g, global));
  return true;
}

/* ---- Copies ---------------------------------------------------------------- */

bool gen_copy(Gen *g, const View *src, const View *dst) {
  const Type *t = dst->type;
  if (ty_is_value(t)) {
    Access s, d;
    if (vw_resolve(g->a, src, false, &s, NULL, NULL, 0) && vw_resolve(g->a, dst, true, &d, NULL, NULL, 0) &&
        s.mem && s.mem == d.mem &&
        !s.cond && s.width == d.width && s.comp == d.comp && ax_equal(s.idx, d.idx))
      return true;  // already in place (a reduction accumulating where its initial value is)
    const CExpr *c = read(g, src);
    return c && store(g, dst, c);
  }
  if (t->kind == TY_TUPLE) {
    for (int k = 0; k < t->n; k++)
      if (!gen_copy(g, vw_get(g->a, src, k), vw_get(g->a, dst, k))) return false;
    return true;
  }
  int64_t n;
  cg_assert(ax_is_cst(t->len, &n));
  const Mem *ms = vw_mem_of(src), *md = vw_mem_of(dst);
  bool priv = (ms && ms->space == MS_PRIVATE) || (md && md->space == MS_PRIVATE);
  if (priv && n <= UNROLL_COPY_MAX) {
    for (int64_t i = 0; i < n; i++) {
      const AExpr *ci = ax_cst(g->a, i);
      if (!gen_copy(g, vw_access(g->a, src, ci), vw_access(g->a, dst, ci))) return false;
    }
    return true;
  }
  Loop l;
  const AExpr *i = open_loop(g, &l, LOOP_SEQ, 0, n, NULL);
  if (!i) return false;
  bool ok = gen_copy(g, vw_access(g->a, src, i), vw_access(g->a, dst, i));
  close_loop(g, &l);
  return ok;
}

/* ---- Functions ------------------------------------------------------------- */

static const char *user_cname(Gen *g, const UserFun *uf, int width) {
  LProgram *lp = g->lp;
  for (int i = 0; i < lp->nufs; i++)
    if (lp->ufs[i].uf == uf && lp->ufs[i].width == width) return lp->ufs[i].cname;
  LUserFun *u = arena_extend(g->a, lp->ufs, (size_t)lp->nufs, sizeof *u);
  u[lp->nufs] = (LUserFun){uf, width, width == 1 ? uf->name : arena_printf(g->a, "%s_v%d", uf->name, width)};
  lp->ufs = u;
  return lp->ufs[lp->nufs++].cname;
}

static const View *result(Gen *g, const CExpr *c, const View *dst, const Expr *at) {
  if (!dst) dst = alloc(g, c->type, MS_PRIVATE, "v", at);
  return dst && store(g, dst, c) ? dst : NULL;
}

/* A product with a literal 0 is that 0 and one with a literal 1 its other
 * factor, a sum with a literal 0 its other term (add and mult recognised by
 * ir_user_op); NULL otherwise. The Winograd transforms' matrices
 * (rules_winograd.c), const arrays whose entries the lowering reads as
 * literals, are mostly zeros and ones. Equal for finite values, which a
 * layer's are (0*x is NaN for an infinite x), up to the sign of a zero. */
static const CExpr *identity_operand(const UserFun *uf, const CExpr *const *args) {
  IrOp op = ir_user_op(uf);
  if (op != IR_OP_ADD && op != IR_OP_MUL) return NULL;
  for (int k = 0; k < 2; k++) {
    const CExpr *lit = args[k], *other = args[1 - k];
    if (lit->kind != C_LIT || !ty_equal(lit->type, uf->ret) || !ty_equal(other->type, uf->ret)) continue;
    if (op == IR_OP_MUL && lit->lit == 0.0) return lit;
    if ((op == IR_OP_MUL && lit->lit == 1.0) || (op == IR_OP_ADD && lit->lit == 0.0)) return other;
  }
  return NULL;
}

static const View *gen_user(Gen *g, const UserFun *uf, int width, int n, const View *const *args, const View *dst,
                            const Expr *at) {
  const View *spread[16];
  if (n == 1 && uf->nparams > 1) {  // a tuple argument spreads over the parameters
    for (int k = 0; k < uf->nparams; k++) spread[k] = vw_get(g->a, args[0], k);
    args = spread;
    n = uf->nparams;
  }
  CExpr *call = new_cexpr(g, C_CALL, width == 1 ? uf->ret : ty_vec(g->a, uf->ret->et, width));
  call->fname = user_cname(g, uf, width);
  call->nargs = n;
  call->args = ARENA_ARRAY(g->a, const CExpr *, n);
  for (int k = 0; k < n; k++)
    if (!(call->args[k] = read(g, args[k]))) return NULL;
  const CExpr *same = width == 1 && n == 2 ? identity_operand(uf, call->args) : NULL;
  if (same && same->kind == C_LIT && !dst) return vw_val(g->a, same);   // read where it is used, no temporary
  return result(g, same ? same : call, dst, at);
}

/* t with its scalar elements of type et, at any depth. */
static const Type *with_elem(Arena *a, const Type *t, const ElemType *et) {
  return t->kind == TY_ARRAY ? ty_array(a, with_elem(a, t->elem, et), t->len) : ty_scalar(et);
}

/* The type a toLocal's memory holds: rt, or the storage type of the
 * values it copies (an fp16 layer's inputs and weights staged as halves:
 * half the bytes of floats) when its function is a copy, maps down to the
 * identity, and those values are of a storage type. The copy is exact. */
static const Type *staged_type(Gen *g, const Fun *f, const View *x, const Type *rt) {
  for (;;) {
    if (f->kind == F_PRIM && prim_is_map(f->prim)) f = f->f;
    else if (f->kind == F_LAMBDA && f->nparams == 1 && f->body->kind == E_CALL && f->body->nargs == 1 &&
             f->body->args[0]->kind == E_PARAM && f->body->args[0]->param == f->params[0])
      f = f->body->fun;   // fun(y) -> g(y), as g
    else break;
  }
  if (f->kind != F_USER || !ir_user_is_identity(f->uf)) return rt;
  // the memory read holds halves (an input's), not only the view's type: a global temporary typed half holds
  // floats (new_mem), which a copy into halves would round
  const Mem *from = vw_mem_of(x);
  bool halves = from && from->storage->kind == TY_FLOAT && elem_is_storage(from->storage->et);
  return halves && ty_base(x->type)->kind == TY_FLOAT && ty_base(rt)->kind == TY_FLOAT
             ? with_elem(g->a, rt, from->storage->et)
             : rt;
}

static MSpace space_of(Prim p) {
  return p == P_TO_GLOBAL ? MS_GLOBAL : p == P_TO_LOCAL ? MS_LOCAL : MS_PRIVATE;
}

static bool is_to(const Fun *f) {
  return f->kind == F_PRIM && (f->prim == P_TO_GLOBAL || f->prim == P_TO_LOCAL || f->prim == P_TO_PRIVATE);
}

static LoopKind loop_kind(Prim p) {
  return p == P_MAP_GLB ? LOOP_GLB : p == P_MAP_WRG ? LOOP_WRG : p == P_MAP_LCL ? LOOP_LCL : LOOP_SEQ;
}

/* A parallel map writing private memory: each work-item holds only the
 * elements of its own iterations, so the dimension the map writes is spread
 * over its work-items (Lift: a mapLcl does not multiply private sizes). Only
 * for destinations reached by plain element accesses. */
static bool spread_private(Gen *g, const View *dst, int64_t threads, int by, const Expr *at) {
  int depth = 0;
  for (; dst->kind == V_ACCESS; dst = dst->src) depth++;
  if (dst->kind != V_MEM || dst->mem->space != MS_PRIVATE || threads <= 1) return true;
  int64_t *d = &dst->mem->dist[depth];
  int *b = &dst->mem->dist_by[depth];
  if ((*d != 1 && *d != threads) || (*b >= 0 && *b != by))
    return gen_error(g, at, "private memory is written by different parallel maps (work-items or dimensions)");
  *d = threads, *b = by;
  return true;
}

static const View *gen_map(Gen *g, const Fun *f, const View *xs, const Type *rt, const Env *env, const View *dst,
                           const Expr *at) {
  LoopKind kind = loop_kind(f->prim);
  if (!map_nesting_ok(g, kind, f->dim, at)) return NULL;
  const Fun *body = f->f;
  if (!dst) {  // the map allocates its result: where its toX says, else by its level
    MSpace s = kind == LOOP_LCL ? MS_LOCAL : kind == LOOP_SEQ ? MS_PRIVATE : MS_GLOBAL;
    const Type *t = rt;
    if (is_to(body)) {
      s = space_of(body->prim), body = body->f;
      if (s == MS_LOCAL) t = ty_array(g->a, staged_type(g, body, vw_access(g->a, xs, ax_cst(g->a, 0)), rt->elem), rt->len);
    }
    if (!(dst = alloc(g, t, s, s == MS_LOCAL ? "lcl" : s == MS_GLOBAL ? "tmp" : "p", at))) return NULL;
  }
  int64_t n;
  cg_assert(ax_is_cst(xs->type->len, &n));
  if (f->prim == P_MAP_SEQ_UNROLL) {
    for (int64_t i = 0; i < n; i++) {
      const AExpr *ci = ax_cst(g->a, i);
      const View *x = vw_access(g->a, xs, ci);
      if (!gen_apply(g, body, 1, &x, rt->elem, env, vw_access(g->a, dst, ci), at)) return NULL;
    }
    return dst;
  }
  if (kind != LOOP_SEQ && !g->dry && !spread_private(g, dst, threads_for(g, kind, f->dim, n), LW_LANE(kind, f->dim), at))
    return NULL;
  Loop l;
  const AExpr *i = open_loop(g, &l, kind, f->dim, n, at);
  if (!i) return NULL;
  const View *x = vw_access(g->a, xs, i);
  bool ok = gen_apply(g, body, 1, &x, rt->elem, env, vw_access(g->a, dst, i), at) != NULL;
  close_loop(g, &l);
  if (!ok || !map_chain_ok(g, l.stmt, at)) return NULL;
  return dst;
}

/* One step of reduction f: the accumulator accv becomes f(accv, x), in place. */
static bool reduce_step(Gen *g, const Fun *f, const View *accv, const View *x, const Type *rt, const Env *env,
                        const Expr *at) {
  const View *args[2] = {accv, x};
  return gen_apply(g, f->f, 2, args, rt->elem, env, accv, at) != NULL;
}

/* The steps over xs[0], ..., xs[n - 1], unrolled. */
static bool reduce_unrolled(Gen *g, const Fun *f, const View *accv, const View *xs, int64_t n, const Type *rt,
                            const Env *env, const Expr *at) {
  for (int64_t i = 0; i < n; i++)
    if (!reduce_step(g, f, accv, vw_access(g->a, xs, ax_cst(g->a, i)), rt, env, at)) return false;
  return true;
}

static const View *gen_reduce(Gen *g, const Fun *f, const View *init, const View *xs, const Type *rt,
                              const Env *env, const View *dst, const Expr *at) {
  const Mem *dm = dst ? vw_mem_of(dst) : NULL, *im = vw_mem_of(init);
  const View *acc, *accv;
  if (!dst && im && (im->role == MR_PRIVATE || im->role == MR_LOCAL) && init->kind != V_VAL) {
    accv = init;  // accumulate in place, where the initial value was computed
    acc = vw_unit(g->a, init, rt);
  } else if (dst && dst->kind == V_SPLIT && dst->src == init && dm && dm->space == MS_PRIVATE) {
    accv = init;  // a chunk's reduction (join(reduce(acc, chunk)), reduce-split-seq) on the running accumulator: in place
    acc = dst;
  } else {
    // accumulate in the destination when it is private and every value written there stays (not through a crop)
    acc = dm && dm->space == MS_PRIVATE && !vw_drops(dst) ? dst : alloc(g, rt, MS_PRIVATE, "acc", at);
    if (!acc) return NULL;
    accv = vw_access(g->a, acc, ax_cst(g->a, 0));
    if (!gen_copy(g, init, accv)) return NULL;
  }
  int64_t n;
  cg_assert(ax_is_cst(xs->type->len, &n));
  int64_t row;
  bool ok;
  Loop l;
  if (f->prim == P_REDUCE_SEQ_UNROLL) {
    ok = reduce_unrolled(g, f, accv, xs, n, rt, env, at);
  } else if (f->prim == P_REDUCE_SEQ && xs->kind == V_JOIN && ax_is_cst(xs->src->type->elem->len, &row) && row <= LW_ROW_UNROLL_MAX) {
    // over join(xss): a loop over the rows, each row unrolled, so that the
    // indices inside a row are constant offsets (rule reduce-seq-nest)
    const AExpr *i = open_loop(g, &l, LOOP_SEQ, 0, n / row, at);
    if (!i) return NULL;
    ok = reduce_unrolled(g, f, accv, vw_access(g->a, xs->src, i), row, rt, env, at);
    close_loop(g, &l);
  } else {
    const AExpr *i = open_loop(g, &l, LOOP_SEQ, 0, n, at);
    if (!i) return NULL;
    // the prefetch pass pipelines its step's copies (and gives their local arrays two slots)
    l.stmt->pipe = f->prim == P_REDUCE_SEQ_PREFETCH ? LPIPE_PREFETCH
                   : f->prim == P_REDUCE_SEQ_DOUBLE ? LPIPE_DOUBLE
                   : f->prim == P_REDUCE_SEQ_ASYNC  ? LPIPE_ASYNC
                                                    : LPIPE_NONE;
    ok = reduce_step(g, f, accv, vw_access(g->a, xs, i), rt, env, at);
    close_loop(g, &l);
  }
  if (!ok) return NULL;
  if (dst && dst != acc) return gen_copy(g, acc, dst) ? dst : NULL;
  return acc;
}

/* ---- The warp's tile product ----------------------------------------------- */

/* Element (row + r, col) of a tile, row an expression of the lane. */
static const CExpr *read_at(Gen *g, const View *tile, const AExpr *row, int r, const AExpr *col) {
  const View *v = vw_access(g->a, vw_access(g->a, tile, ax_add(g->a, row, ax_cst(g->a, r))), col);
  return read(g, v);
}

/* The fp16 tile product's operands as the halves they are stored as, when
 * each is a plain read of one element of memory of halves (an fp16 layer's
 * staged chunks: staged_type): they go to the helper in pairs as they are
 * (half_pair), where converting each to float and back would cost two
 * conversions a value. The reads marked raw; false, none marked, else. */
static bool raw_halves(Gen *g, const CExpr **ops, int n) {
  for (int i = 0; i < n; i++) {
    const CExpr *c = ops[i];
    if (c->kind != C_LOAD || c->width != 1 || c->cond || c->lane_idx || c->nlevels > 1 ||
        c->mem->storage->kind != TY_FLOAT || c->mem->storage->et->kind != ELEM_FP16)
      return false;
  }
  for (int i = 0; i < n; i++) {
    CExpr *c = ARENA_NEW(g->a, CExpr);
    *c = *ops[i];
    c->raw = true;
    ops[i] = c;
  }
  return true;
}

/* Two halves read as they are stored (raw_halves) as one 32-bit value, lo
 * in its low half: one load of both where hi is lo's neighbour and lo's
 * index is even (a C_LOAD of width 2, raw: cg_h2_at), else the two packed
 * (cg_h2x). */
static const CExpr *half_pair(Gen *g, const CExpr *lo, const CExpr *hi) {
  if (lo->mem == hi->mem && ax_equal(ax_add(g->a, lo->idx, ax_cst(g->a, 1)), hi->idx) &&
      ax_prove_divisible(lo->idx, ax_cst(g->a, 2))) {
    CExpr *c = ARENA_NEW(g->a, CExpr);
    *c = *lo;
    c->width = 2;
    return c;
  }
  CExpr *call = new_cexpr(g, C_CALL, lo->type);
  call->fname = "cg_h2x";
  call->nargs = 2;
  call->args = ARENA_ARRAY(g->a, const CExpr *, 2);
  call->args[0] = lo, call->args[1] = hi;
  return call;
}

/* mmaTF32(a, b, c), mma3xTF32 and mmaF16 (ir.h): the warp's D = C + A B^T, done by
 * the 32 work-items of dimension 0, each lane l = 4g + t its four values of
 * the accumulator, which must be private memory spread over those lanes (made
 * by a mapLcl[0] of 32). On a target with the instruction (LProgram.warp_mma:
 * CUDA's mma.sync) each lane reads its fragments (m16n8k8's A[g][t],
 * A[g + 8][t], A[g][t + 4], A[g + 8][t + 4] and B[g][t], B[g][t + 4], or
 * m16n8k16's eight and four) for the helpers cg_mma_tf32, cg_mma_3xtf32 or
 * cg_mma_f16; elsewhere it reads the two rows of A and of B its four values
 * need and computes them itself (cg_mma_*_lane), rounding as the tensor
 * cores do, so that PoCL checks the program's tiles and views. */
static const View *gen_mma(Gen *g, const Fun *f, const View *const *args, const Type *rt, const View *dst,
                           const Expr *at) {
  if (!map_nesting_ok(g, LOOP_LCL, 0, at)) return NULL;
  if (!g->dry && g->threads[LOOP_LCL][0] != IR_WARP)
    return gen_error(g, at, arena_printf(g->a, "%s is a warp's operation: dimension 0 of the work-group must have %d "
                                         "work-items, it has %lld", prim_name(f->prim), IR_WARP,
                                         (long long)g->threads[LOOP_LCL][0])), NULL;
  bool fresh_dst = !dst;   // a destination of its own is spread here; one given must be spread already
  if (!dst && !(dst = alloc(g, rt, MS_PRIVATE, "acc", at))) return NULL;
  int depth = 0;   // the accumulator's dimension of lanes: how deep dst is in its memory
  const View *base = dst;
  for (; base->kind == V_ACCESS; base = base->src) depth++;
  Mem *m = base->kind == V_MEM ? base->mem : NULL;
  if (!m || m->space != MS_PRIVATE)
    return gen_error(g, at, "the tile product's accumulator must be a private array of the warp's lanes"), NULL;
  if (!g->dry && fresh_dst && !spread_private(g, dst, IR_WARP, LW_LANE(LOOP_LCL, 0), at)) return NULL;
  if (!g->dry && (m->dist[depth] != IR_WARP || m->dist_by[depth] != LW_LANE(LOOP_LCL, 0)))
    return gen_error(g, at, "the tile product's accumulator must be spread over the warp's 32 lanes (made by a "
                            "mapLcl[0] of 32)"), NULL;
  Loop l;
  const AExpr *lane = open_loop(g, &l, LOOP_LCL, 0, IR_WARP, at);
  if (!lane) return NULL;
  const AExpr *grp = ax_div(g->a, lane, ax_cst(g->a, 4)), *tig = ax_mod(g->a, lane, ax_cst(g->a, 4));
  CExpr *call = new_cexpr(g, C_CALL, rt->elem);
  const CExpr *cargs[1 + 4 * IR_MMA_K16];
  int n = 0, kk = ir_mma_k(f->prim);
  bool ok = (cargs[n++] = read(g, vw_access(g->a, args[2], lane))) != NULL;
  static const char *const NATIVE[] = {"cg_mma_tf32", "cg_mma_3xtf32", "cg_mma_f16"};
  static const char *const LANE[] = {"cg_mma_tf32_lane", "cg_mma_3xtf32_lane", "cg_mma_f16_lane"};
  int which = f->prim == P_MMA_TF32 ? 0 : f->prim == P_MMA_3XTF32 ? 1 : 2;
  if (g->lp->warp_mma && kk == IR_MMA_K) {   // m16n8k8: A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4]; B[g][t], B[g][t + 4]
    call->fname = NATIVE[which];
    for (int i = 0; i < 4 && ok; i++)
      ok = (cargs[n++] = read_at(g, args[0], grp, 8 * (i % 2), ax_add(g->a, tig, ax_cst(g->a, 4 * (i / 2))))) != NULL;
    for (int j = 0; j < 2 && ok; j++)
      ok = (cargs[n++] = read_at(g, args[1], grp, 0, ax_add(g->a, tig, ax_cst(g->a, 4 * j)))) != NULL;
  } else if (g->lp->warp_mma) {   // m16n8k16: A's pairs at rows g, g + 8, g, g + 8 and columns 2t, 2t, 2t + 8, 2t + 8
    call->fname = NATIVE[which];   // (each pair two neighbouring columns); B's at columns 2t and 2t + 8 of row g
    const AExpr *col = ax_mul(g->a, tig, ax_cst(g->a, 2));
    for (int i = 0; i < 8 && ok; i++)
      ok = (cargs[n++] = read_at(g, args[0], grp, 8 * ((i / 2) % 2), ax_add(g->a, col, ax_cst(g->a, i % 2 + 8 * (i / 4))))) != NULL;
    for (int j = 0; j < 4 && ok; j++)
      ok = (cargs[n++] = read_at(g, args[1], grp, 0, ax_add(g->a, col, ax_cst(g->a, j % 2 + 8 * (j / 2))))) != NULL;
  } else {
    call->fname = LANE[which];
    const AExpr *col = ax_mul(g->a, tig, ax_cst(g->a, 2));
    for (int r = 0; r < 4 && ok; r++)   // A's rows g and g + 8, B's rows 2t and 2t + 1
      for (int k = 0; k < kk && ok; k++)
        ok = (cargs[n++] = read_at(g, args[r / 2], r < 2 ? grp : col, r < 2 ? 8 * r : r - 2, ax_cst(g->a, k))) != NULL;
  }
  if (ok && g->lp->warp_mma && which == 2 && raw_halves(g, cargs + 1, n - 1)) {
    call->fname = "cg_mma_f16_bits";   // the operands' bits in pairs: one 32-bit load where a pair is neighbours
    for (int k = 0; k < (n - 1) / 2; k++) cargs[1 + k] = half_pair(g, cargs[1 + 2 * k], cargs[2 + 2 * k]);
    n = 1 + (n - 1) / 2;
  }
  if (ok) {
    call->nargs = n;
    call->args = ARENA_ARRAY(g->a, const CExpr *, n);
    memcpy(call->args, cargs, sizeof(const CExpr *) * (size_t)n);
    g->lp->uses_mma = true;
    ok = store(g, vw_access(g->a, dst, lane), call);
  }
  close_loop(g, &l);
  return ok ? dst : NULL;
}

static const View *gen_prim(Gen *g, const Fun *f, int n, const View *const *args, const Type *rt, const Env *env,
                            const View *dst, const Expr *at) {
  if (f->prim == P_MAP && !vw_is_layout_fun(f->f) && vw_is_view_lambda(f->f)) {  // a view per element
    const char *var = fresh(g, "e");
    int64_t lo, hi;
    ax_range(args[0]->type->len, &lo, &hi);
    const View *y = vw_access(g->a, args[0], ax_var(g->a, var, 0, hi - 1));
    const View *body = gen_apply(g, f->f, 1, &y, rt->elem, env, NULL, at);
    if (!body) return NULL;
    const View *v = vw_fn(g->a, var, body, args[0], rt);
    return dst ? (gen_copy(g, v, dst) ? dst : NULL) : v;
  }
  if ((f->prim == P_MAP && !vw_map_layout(g->a, f->f, args[0], rt, false)) || f->prim == P_REDUCE) {
    gen_error(g, at, f->prim == P_MAP ? "'map' is a high-level primitive; choose mapGlb, mapWrg, mapLcl or mapSeq"
                                      : "'reduce' is a high-level primitive; use reduceSeq");
    return NULL;
  }
  if (prim_is_map(f->prim)) {
    const View *v = vw_map_layout(g->a, f->f, args[0], rt, false);  // map of a layout primitive moves nothing
    if (v) return dst ? (gen_copy(g, v, dst) ? dst : NULL) : v;
    return gen_map(g, f, args[0], rt, env, dst, at);
  }
  if (prim_is_reduce(f->prim)) return gen_reduce(g, f, args[0], args[1], rt, env, dst, at);
  switch (f->prim) {
  case P_MAP_VEC:
    if (f->f->kind != F_USER) return gen_error(g, at, "mapVec takes a user function"), NULL;
    return gen_user(g, f->f->uf, args[0]->type->width, 1, args, dst, at);
  case P_ITERATE: {
    int64_t k;
    cg_assert(ax_is_cst(f->n, &k));
    const View *cur = args[0];
    for (int64_t i = 0; i < k && cur; i++) cur = gen_apply(g, f->f, 1, &cur, rt, env, i == k - 1 ? dst : NULL, at);
    return k == 0 && dst ? (gen_copy(g, cur, dst) ? dst : NULL) : cur;
  }
  case P_TO_GLOBAL:
  case P_TO_LOCAL:
  case P_TO_PRIVATE: {
    MSpace s = space_of(f->prim);
    const Type *t = s == MS_LOCAL && n == 1 ? staged_type(g, f->f, args[0], rt) : rt;
    const View *tmp = alloc(g, t, s, s == MS_LOCAL ? "lcl" : s == MS_GLOBAL ? "tmp" : "p", at);
    if (!tmp || !gen_apply(g, f->f, n, args, rt, env, tmp, at)) return NULL;
    if (!dst) return tmp;
    return gen_copy(g, tmp, dst) ? dst : NULL;
  }
  case P_BARRIER:
    if (!emit_barrier(g, true, at)) return NULL;
    return dst ? (gen_copy(g, args[0], dst) ? dst : NULL) : args[0];
  case P_MMA_TF32:
  case P_MMA_3XTF32:
  case P_MMA_F16: return gen_mma(g, f, args, rt, dst, at);
  case P_ZIP: {
    const View *v = vw_zip(g->a, n, args, rt);
    return dst ? (gen_copy(g, v, dst) ? dst : NULL) : v;
  }
  default: {
    const View *v = vw_layout(g->a, f, args[0], rt);
    return dst ? (gen_copy(g, v, dst) ? dst : NULL) : v;
  }
  }
}

const View *gen_apply(Gen *g, const Fun *f, int n, const View *const *args, const Type *rt, const Env *env,
                      const View *dst, const Expr *at) {
  switch (f->kind) {
  case F_USER: return gen_user(g, f->uf, 1, n, args, dst, at);
  case F_PRIM: return gen_prim(g, f, n, args, rt, env, dst, at);
  case F_LAMBDA: {
    for (int k = 0; k < n; k++) {
      Env *e = ARENA_NEW(g->a, Env);
      *e = (Env){f->params[k], args[k], env};
      env = e;
    }
    return gen_expr(g, f->body, env, dst);
  }
  }
  cg_die("bad function kind");
}

static CExpr *literal(Gen *g, const Expr *e) {
  CExpr *c = new_cexpr(g, C_LIT, e->type);
  c->lit = e->lit;
  c->lit_is_int = e->lit_is_int;
  return c;
}

const View *gen_expr(Gen *g, const Expr *e, const Env *env, const View *dst) {
  switch (e->kind) {
  case E_PARAM:
    for (; env; env = env->next)
      if (env->p == e->param) return dst ? (gen_copy(g, env->v, dst) ? dst : NULL) : env->v;
    cg_die("unbound parameter '%s'", e->param->name);
  case E_LIT: {
    const View *v = vw_val(g->a, literal(g, e));
    return dst ? (gen_copy(g, v, dst) ? dst : NULL) : v;
  }
  case E_CALL: break;
  }
  const Fun *f = e->fun;
  if (dst && f->kind == F_PRIM && e->nargs == 1) {  // write through an invertible layout primitive
    const View *inv = prim_is_map(f->prim) ? vw_map_layout(g->a, f->f, dst, e->args[0]->type, true)
                                           : vw_inverse(g->a, f, dst, e->args[0]->type);
    if (inv) return gen_expr(g, e->args[0], env, inv) ? dst : NULL;
  }
  const View *args[16];
  for (int k = 0; k < e->nargs; k++)
    if (!(args[k] = gen_expr(g, e->args[k], env, NULL))) return NULL;
  return gen_apply(g, f, e->nargs, args, e->type, env, dst, e);
}
