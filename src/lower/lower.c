/* lower.c: the lowering pipeline, start to end: its passes are the table
 * `passes` at the end (lower.h says what each does).
 *
 * The top level of a program is cut into kernels: every call that computes
 * (a map, a reduction, a user function) and is not nested inside another
 * becomes one kernel, launched after the kernels that compute its inputs;
 * layout primitives between kernels stay views over the buffers. The output
 * of the last kernel goes straight into the program's output buffer, through
 * the inverse of any layout primitives applied to it.
 */
#include "lower/gen.h"
#include "ir/interp.h"

#include <string.h>

enum { CODE_SIZE_CAP = 200000 };  // statements in one kernel after unrolling

Stmt *lw_block(Arena *a) {
  Stmt *b = ARENA_NEW(a, Stmt);
  b->kind = ST_BLOCK;
  return b;
}

void lw_append(Arena *a, Stmt *block, Stmt *s) {
  cg_assert(block->kind == ST_BLOCK);
  if (block->n == block->cap) {
    int cap = block->cap ? block->cap * 2 : 8;
    Stmt **st = ARENA_ARRAY(a, Stmt *, cap);
    if (block->n) memcpy(st, block->stmts, sizeof *st * (size_t)block->n);
    block->stmts = st;
    block->cap = cap;
  }
  block->stmts[block->n++] = s;
}

int64_t lw_stmt_count(const Stmt *s) {
  switch (s->kind) {
  case ST_BLOCK: {
    int64_t n = 0;
    for (int i = 0; i < s->n; i++) n += lw_stmt_count(s->stmts[i]);
    return n;
  }
  case ST_FOR: return 1 + lw_stmt_count(s->body);
  default: return 1;
  }
}

typedef struct Lower {
  Arena *a;
  Diag *d;
  LProgram *lp;
  int names;               // fresh names across kernels
} Lower;

/* ---- Ranges: the ND-range of a kernel from the dry run's trip counts ---------- */

static bool set_ndrange(Lower *l, LKernel *k, Gen *dry, Gen *g, const Expr *at) {
  bool glb = false, grp = false;
  for (int d = 0; d < 3; d++) {
    glb |= dry->trips[LOOP_GLB][d] > 0;
    grp |= dry->trips[LOOP_WRG][d] > 0 || dry->trips[LOOP_LCL][d] > 0;
  }
  if (glb && grp)
    return diag_error(l->d, "%s:%d:%d: a kernel uses both mapGlb and mapWrg/mapLcl; use one scheme per kernel",
                      l->lp->prog->name, at->line, at->col);
  k->uses_groups = grp;
  k->work_dim = 1;
  for (int d = 0; d < 3; d++) {
    int64_t gsz = dry->trips[LOOP_GLB][d], wg = dry->trips[LOOP_WRG][d], lc = dry->trips[LOOP_LCL][d];
    const AExpr *fixed = l->lp->prog->workgroup[d];
    if (grp && fixed && !ax_is_cst(fixed, &lc))
      return diag_error(l->d, "%s: the workgroup size needs values for its sizes", l->lp->prog->name);
    if (grp && fixed && lc < 1)
      return diag_error(l->d, "%s: workgroup size %lld in dimension %d must be at least 1", l->lp->prog->name,
                        (long long)lc, d);
    if (gsz || wg || lc) k->work_dim = d + 1;
    g->threads[LOOP_GLB][d] = gsz;
    g->threads[LOOP_WRG][d] = wg ? wg : 1;
    g->threads[LOOP_LCL][d] = lc ? lc : 1;
    k->local[d] = grp ? (size_t)(lc ? lc : 1) : 1;
    k->global[d] = grp ? (size_t)((wg ? wg : 1) * (lc ? lc : 1)) : (size_t)(gsz ? gsz : 1);
  }
  return true;
}

/* ---- Kernels ------------------------------------------------------------------- */

static LKernel *new_kernel(Lower *l) {
  LKernel *k = ARENA_NEW(l->a, LKernel);
  k->name = arena_printf(l->a, "k%d", l->lp->nkernels);
  LKernel **ks = arena_extend(l->a, l->lp->kernels, (size_t)l->lp->nkernels, sizeof *ks);
  ks[l->lp->nkernels++] = k;
  l->lp->kernels = ks;
  return k;
}

static Gen new_gen(Lower *l, LProgram *lp, LKernel *k, bool dry) {
  Gen g = {.a = l->a, .d = l->d, .lp = lp, .k = k, .block = lw_block(l->a), .dry = dry, .names = l->names};
  return g;
}

/* One kernel that applies f to already computed arguments, writing dst (a
 * fresh temporary when dst is NULL). */
static const View *kernel(Lower *l, const Fun *f, int n, const View *const *args, const Expr *at, const Env *env,
                          const View *dst, bool copy) {
  if (!dst) {
    Gen tmp = new_gen(l, l->lp, NULL, false);
    dst = vw_mem(l->a, gen_global(&tmp, at->type, MR_TEMP, "tmp"));
    l->names = tmp.names;
  }
  LProgram scratch = *l->lp;  // the dry run must leave no trace in the program
  LKernel scratch_k = {0};
  Gen dry = new_gen(l, &scratch, &scratch_k, true);
  if (!(copy ? gen_copy(&dry, args[0], dst) : gen_apply(&dry, f, n, args, at->type, env, dst, at) != NULL))
    return NULL;
  LKernel *k = new_kernel(l);
  Gen g = new_gen(l, l->lp, k, false);
  if (!set_ndrange(l, k, &dry, &g, at)) return NULL;
  if (!(copy ? gen_copy(&g, args[0], dst) : gen_apply(&g, f, n, args, at->type, env, dst, at) != NULL)) return NULL;
  k->body = g.block;
  l->names = g.names;
  if (!lw_place_barriers(l->a, k, vw_mem_of(dst), l->d)) return NULL;
  int64_t size = lw_stmt_count(k->body);
  if (size > CODE_SIZE_CAP) {
    diag_error(l->d, "%s: kernel %s has %lld statements after unrolling (cap %d); unroll less",
               l->lp->prog->name, k->name, (long long)size, CODE_SIZE_CAP);
    return NULL;
  }
  return dst;
}

static bool is_compute(const Fun *f) {
  if (f->kind == F_PRIM && prim_is_map(f->prim) && vw_is_layout_fun(f->f)) return false;  // a view
  return f->kind == F_USER || (f->kind == F_PRIM && !prim_is_layout(f->prim) && f->prim != P_BARRIER);
}

/* Does e end in views that a write can go through (transpose, split, join
 * and maps of them) over a computation? */
static bool invertible_views_over_compute(const Expr *e) {
  int views = 0;
  for (; e->kind == E_CALL && e->nargs == 1 && e->fun->kind == F_PRIM; e = e->args[0], views++) {
    const Fun *f = e->fun;
    while (f->kind == F_PRIM && prim_is_map(f->prim) && f->f) f = f->f;   // a map of a view: the view's kind
    if (f->kind != F_PRIM || (f->prim != P_TRANSPOSE && f->prim != P_SPLIT && f->prim != P_JOIN)) break;
  }
  return views > 0 && e->kind == E_CALL && e->fun->kind != F_LAMBDA && is_compute(e->fun);
}

/* Where a top-level let's value goes: a computation seen through
 * rearranging views (transpose, split, join) is written through them into a
 * temporary of the value's own layout, so that the kernels that read the
 * value read it in that order (wino's stages: rules_winograd.c); NULL
 * (the computation's own temporary, the views read over it) otherwise. */
static const View *written_through(Lower *l, const Expr *e) {
  if (e->kind != E_CALL || !invertible_views_over_compute(e)) return NULL;
  Gen tmp = new_gen(l, l->lp, NULL, false);
  const View *v = vw_mem(l->a, gen_global(&tmp, e->type, MR_TEMP, "tmp"));
  l->names = tmp.names;
  return v;
}

/* The value of top-level expression e, as a view over buffers; kernels that
 * compute it are appended to the program. */
static const View *stage(Lower *l, const Expr *e, const Env *env, const View *dst) {
  if (e->kind == E_LIT) {  // a value, e.g. a reduction's initial value
    Gen tmp = new_gen(l, l->lp, NULL, false);
    return gen_expr(&tmp, e, env, NULL);
  }
  if (e->kind == E_PARAM) {
    for (; env; env = env->next)
      if (env->p == e->param) return dst ? kernel(l, NULL, 1, &env->v, e, NULL, dst, true) : env->v;
    cg_die("unbound parameter '%s'", e->param->name);
  }
  const Fun *f = e->fun;
  if (f->kind == F_LAMBDA && e->nargs == f->nparams) {  // let at the top level
    for (int k = 0; k < e->nargs; k++) {
      const View *v = stage(l, e->args[k], env, written_through(l, e->args[k]));
      if (!v) return NULL;
      Env *b = ARENA_NEW(l->a, Env);
      *b = (Env){f->params[k], v, env};
      env = b;
    }
    return stage(l, f->body, env, dst);
  }
  if (dst && f->kind == F_PRIM && e->nargs == 1) {
    const View *inv = prim_is_map(f->prim) ? vw_map_layout(l->a, f->f, dst, e->args[0]->type, true)
                                           : vw_inverse(l->a, f, dst, e->args[0]->type);
    if (inv) return stage(l, e->args[0], env, inv) ? dst : NULL;
  }
  const View *args[16];
  for (int k = 0; k < e->nargs; k++)
    if (!(args[k] = stage(l, e->args[k], env, NULL))) return NULL;
  if (f->kind == F_PRIM && f->prim == P_ITERATE) {  // one kernel per round: rounds synchronise globally
    int64_t rounds;
    cg_assert(ax_is_cst(f->n, &rounds));
    const View *v = args[0];
    for (int64_t r = 0; r < rounds && v; r++) v = kernel(l, f->f, 1, &v, e, env, r == rounds - 1 ? dst : NULL, false);
    return rounds == 0 && dst ? kernel(l, NULL, 1, &v, e, NULL, dst, true) : v;
  }
  if (is_compute(f)) return kernel(l, f, e->nargs, args, e, env, dst, false);
  const View *v = f->prim == P_ZIP      ? vw_zip(l->a, e->nargs, args, e->type)
                  : prim_is_map(f->prim) ? vw_map_layout(l->a, f->f, args[0], e->type, false)
                                         : vw_layout(l->a, f, args[0], e->type);
  return dst ? kernel(l, NULL, 1, &v, e, NULL, dst, true) : v;
}

/* ---- The passes ------------------------------------------------------------------ */

/* The first pass: the program's buffers (inputs, then the output, last among
 * them) and its kernels in launch order, each made by kernel(). */
static bool make_kernels(Arena *a, LProgram *lp, Diag *d) {
  const Program *p = lp->prog;
  const Type *t = p->out_type ? p->out_type : p->body->type;   // the declared type: its element type is stored
  for (int i = 0; i <= p->ninputs; i++) {
    const Type *ti = i < p->ninputs ? p->inputs[i]->type : t;
    const char *var;
    if (ir_flat_count(ti) < 0 && ax_vars(ty_count(a, ti), &var, 1) > 0)
      return diag_error(d, "%s: size '%s' has no value; give it with -p %s=...", p->name, var, var);
  }
  if (t->kind != TY_ARRAY || ty_base(t)->kind == TY_TUPLE)
    return diag_error(d, "%s: the output must be an array of scalars or vectors, not %s", p->name, ty_str(a, t));
  Lower l = {a, d, lp, 0};
  Gen g = new_gen(&l, lp, NULL, false);
  const Env *env = NULL;
  for (int i = 0; i < p->ninputs; i++) {
    Mem *m = gen_global(&g, p->inputs[i]->type, MR_INPUT, p->inputs[i]->name);
    m->name = p->inputs[i]->name;
    m->input_index = i;
    Env *e = ARENA_NEW(a, Env);
    *e = (Env){p->inputs[i], vw_mem(a, m), env};
    env = e;
  }
  lp->consts = ARENA_ARRAY(a, Mem *, p->nconsts ? p->nconsts : 1);
  for (int i = 0; i < p->nconsts; i++) {   // read where they are, never kernel arguments
    Mem *m = gen_const(&g, p->consts[i]->type, p->consts[i]->name, p->consts[i]->values);
    lp->consts[lp->nconsts++] = m;
    Env *e = ARENA_NEW(a, Env);
    *e = (Env){p->consts[i], vw_mem(a, m), env};
    env = e;
  }
  Mem *out = gen_global(&g, t, MR_OUTPUT, "out");
  l.names = g.names;
  if (!stage(&l, p->body, env, vw_mem(a, out))) return false;
  for (int i = 0; i < lp->nbuffers - 1; i++)
    if (lp->buffers[i] == out) {
      memmove(lp->buffers + i, lp->buffers + i + 1, sizeof(Mem *) * (size_t)(lp->nbuffers - 1 - i));
      lp->buffers[lp->nbuffers - 1] = out;
    }
  return true;
}

static bool scalarise(Arena *a, LProgram *lp, Diag *d) {
  (void)a, (void)d;
  lw_scalarise(lp);
  return true;
}

static bool combine_loads(Arena *a, LProgram *lp, Diag *d) {
  (void)d;
  lw_combine_loads(a, lp);
  return true;
}

/* The lowering's passes, in order; lower.h says what each does. The first
 * makes each kernel in turn by kernel(): a dry run of gen for its trip counts
 * (ranges: set_ndrange), its statements (gen: gen.c, view.c, mapping.c), its
 * barriers (barriers.c) and the size check (CODE_SIZE_CAP). */
static const LwPass passes[] = {
    {"kernels", "the program cut into kernels, each with its ND-range, statements and barriers", make_kernels},
    {"scalarise", "private arrays indexed only by constants become registers", scalarise},
    {"prefetch", "each reduceSeqPrefetch's copies split into loads one step ahead and stores", lw_prefetch},
    {"combine-loads", "neighbouring local loads become float4 loads", combine_loads},
};

const LwPass *lw_passes(int *n) {
  *n = (int)(sizeof passes / sizeof *passes);
  return passes;
}

LProgram *lw_lower_with(Arena *a, const Program *p, bool warp_mma, LwAfter after, void *ctx, Diag *d) {
  LProgram *lp = ARENA_NEW(a, LProgram);
  lp->prog = p;
  lp->warp_mma = warp_mma;
  lp->async_copy = warp_mma;
  for (size_t i = 0; i < sizeof passes / sizeof *passes; i++) {
    if (!passes[i].run(a, lp, d)) return NULL;
    if (after) after(ctx, passes[i].name, lp);
  }
  return lp;
}

LProgram *lw_lower(Arena *a, const Program *p, Diag *d) { return lw_lower_with(a, p, false, NULL, NULL, d); }

int64_t lw_mem_values(const Mem *m) { return m->count * (m->storage->kind == TY_VEC ? m->storage->width : 1); }

int64_t lw_mem_bytes(const Mem *m) { return ty_bytes(m->storage, m->count); }

/* ---- Kernels that prepare: what they write depends on fixed inputs only ---------- */

bool lw_stmt_stores(const Stmt *s, const Mem *m) {
  switch (s->kind) {
  case ST_BLOCK:
    for (int i = 0; i < s->n; i++)
      if (lw_stmt_stores(s->stmts[i], m)) return true;
    return false;
  case ST_FOR: return lw_stmt_stores(s->body, m);
  case ST_STORE: return s->mem == m;
  default: return false;
  }
}

bool lw_kernel_prepares(const LProgram *lp, int k, uint64_t fixed) {
  const LKernel *kn = lp->kernels[k];
  int written = 0;
  for (int i = 0; i < kn->nargs; i++) {
    const Mem *m = kn->args[i];
    if (m->role == MR_INPUT) {
      if (m->input_index < 0 || m->input_index >= 64 || !(fixed >> m->input_index & 1)) return false;
      continue;
    }
    // the output, or a temporary it reads but another kernel writes
    if (m->role != MR_TEMP || !lw_stmt_stores(kn->body, m)) return false;
    for (int j = 0; j < lp->nkernels; j++)
      if (j != k && lw_stmt_stores(lp->kernels[j]->body, m)) return false;
    written++;
  }
  return written > 0;
}
