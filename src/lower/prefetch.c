/* prefetch.c: a reduceSeqPrefetch's loop software-pipelined, a lowering pass
 * after scalarisation.
 *
 * A staged kernel's chunk loop copies each chunk from global into local
 * memory, waits at a barrier, computes, and waits again: while the group
 * waits for the copy's loads, nothing computes (docs/rewrite.md, "What S2
 * still lacks"). Here the copies that start the loop's body (ST_FOR/ST_BLOCK
 * nests of mapLcl and sequential loops whose stores go to local memory and
 * whose values read only global arrays the kernel does not store into: the
 * program's inputs, an earlier kernel's temporaries) are split into their loads and
 * their stores. Each work-item's share of a copy is a fixed list of slots,
 * the copy's loops expanded over this work-item's iterations (a strided
 * mapLcl of stop s over t work-items: ceil(s/t) slots, the last guarded
 * when t does not divide s); each slot gets a register.
 *
 *   before the loop   registers <- the loads of step 0
 *   each step i       the stores, from the registers; then registers <- the
 *                     loads of step i+1 (guarded: i+1 < steps); then the
 *                     rest of the step as it was (barrier, compute, barrier)
 *
 * A reduceSeqDoubleBuffer's loop also gets two slots in each local array its
 * copies write (each slot rounded up to a multiple of 4 floats, so that
 * combine-loads still proves float4 alignment): step i stores into and
 * reads from slot i % 2, and the barrier that ended each step goes. A
 * work-item stores step i+1's values only after the barrier of step i,
 * which every work-item reaches only after its stores of step i, so after
 * its compute of step i-1: the slot it overwrites is no longer read. Only
 * when the rest of the step writes no local memory and nothing outside the
 * loop touches those arrays; otherwise the program is refused.
 *
 * A reduceSeqAsync's loop is a reduceSeqDoubleBuffer's, except on a target
 * with asynchronous copies (LProgram.async_copy: CUDA's cp.async), where
 * each copied value is one such copy, straight from global memory into its
 * slot, with no register between:
 *
 *   before the loop   the copies of step 0 into slot 0
 *   each step i       wait for this work-item's copies; the barrier; the
 *                     copies of step i+1 into slot (i+1) % 2 (guarded:
 *                     i+1 < steps); the rest of the step (compute)
 *
 * The copies of step i+1 start after the barrier of step i, which every
 * work-item reaches after its compute of step i-1: the slot they overwrite
 * is no longer read. Only where every copied value is one 4-byte value of
 * global memory copied as it is (through copy's id), its pad test a zero
 * fill, and the step's copies are followed by their barrier; otherwise, as
 * a reduceSeqDoubleBuffer's.
 *
 * The loads of step i+1 are in flight while step i computes. Legal because
 * nothing in the kernel writes what they read (inputs are const restrict
 * arguments; a temporary an earlier kernel filled is only read here):
 * moving a load earlier cannot change what it reads; the stores stay where the copies
 * were, so the barriers that order local memory still do. The work-item's
 * index in each dimension a copy walks is taken once, by a one-iteration
 * mapLcl loop around the whole (emitted `const int lid = get_local_id(d)`).
 */
#include "lower/lower.h"

#include <string.h>

enum { PREFETCH_MAX_SLOTS = 256, MAX_NEST = 16, MAX_DIMS = 4 };

typedef struct Slot {
  Stmt *store;            // the copy's store
  int n;                  // the nest's loop variables and their values in this slot
  const char *names[MAX_NEST];
  const AExpr *vals[MAX_NEST];
  const AExpr *guard;     // NULL, or when the slot exists for this work-item
} Slot;

typedef struct Prefetch {
  Arena *a;
  Diag *d;
  LProgram *lp;
  const LKernel *k;
  Slot slots[PREFETCH_MAX_SLOTS];
  int nslots;
  const AExpr *base[MAX_DIMS];   // the work-item's index per dimension (0, 1, 2, flat), made once
  int64_t threads[MAX_DIMS];
  int names;              // fresh names in this kernel
} Prefetch;

static int dim_slot(int dim) { return dim == IR_DIM_FLAT ? 3 : dim; }

/* Does c read only what the kernel does not write: program inputs, and
 * global arrays that earlier kernels filled (a Winograd stage's
 * temporaries), which may then be loaded a step early? */
static bool reads_unwritten(const CExpr *c, const Stmt *kernel) {
  if (c->kind == C_LOAD && c->mem->role != MR_INPUT && (c->mem->space != MS_GLOBAL || lw_stmt_stores(kernel, c->mem)))
    return false;
  for (int i = 0; i < c->nargs; i++)
    if (!reads_unwritten(c->args[i], kernel)) return false;
  return true;
}

/* Is s a copy into local memory of values the kernel does not write (an
 * input's, an earlier kernel's), made only of loops, blocks and such
 * stores? */
static bool is_input_copy(const Stmt *s, const Stmt *kernel) {
  switch (s->kind) {
  case ST_BLOCK:
    for (int i = 0; i < s->n; i++)
      if (!is_input_copy(s->stmts[i], kernel)) return false;
    return s->n > 0;
  case ST_FOR: return (s->loop == LOOP_SEQ || s->loop == LOOP_LCL) && is_input_copy(s->body, kernel);
  case ST_STORE:
    return s->mem->space == MS_LOCAL && s->width == 1 && !s->cond && reads_unwritten(s->value, kernel);
  default: return false;
  }
}

/* The slots of copy s, with the nest's variables so far in `at`. */
static bool expand(Prefetch *p, const Stmt *s, const Slot *at) {
  if (s->kind == ST_BLOCK) {
    for (int i = 0; i < s->n; i++)
      if (!expand(p, s->stmts[i], at)) return false;
    return true;
  }
  if (s->kind == ST_STORE) {
    if (p->nslots == PREFETCH_MAX_SLOTS)   // decided by the sizes: DIAG_USER, as the code-size cap (space.h)
      return diag_error(p->d, "kernel %s: the copies a reduceSeqPrefetch's step starts with hold more than %d values "
                        "per work-item, too many to keep in registers; stage smaller chunks",
                        p->k->name, PREFETCH_MAX_SLOTS);
    Slot *sl = &p->slots[p->nslots++];
    *sl = *at;
    sl->store = (Stmt *)s;
    return true;
  }
  cg_assert(s->kind == ST_FOR && at->n < MAX_NEST);
  int64_t trips = s->stop, step = 1;
  const AExpr *first = NULL;
  if (s->loop == LOOP_LCL) {
    int ds = dim_slot(s->dim);
    if (!p->base[ds]) {
      p->base[ds] = ax_var(p->a, arena_printf(p->a, "pf_lid%d_%d", p->names++, ds), 0, s->step - 1);
      p->threads[ds] = s->step;
    }
    cg_assert(p->threads[ds] == s->step);
    first = p->base[ds], step = s->step;
    trips = (s->stop + step - 1) / step;
  }
  for (int64_t j = 0; j < trips; j++) {
    Slot next = *at;
    const AExpr *v = first ? ax_add(p->a, first, ax_cst(p->a, j * step)) : ax_cst(p->a, j);
    next.names[next.n] = s->var->name, next.vals[next.n++] = v;
    const AExpr *stop = ax_cst(p->a, s->stop);
    if (first && !ax_prove_lt(v, stop)) next.guard = ax_and(p->a, at->guard, ax_lt(p->a, v, stop));
    if (!expand(p, s->body, &next)) return false;
  }
  return true;
}

/* c with the slot's (and the step's) variables put in, every load done only
 * when `guard` holds. */
static const CExpr *subst_cexpr(Prefetch *p, const CExpr *c, int n, const char *const *names,
                                const AExpr *const *vals, const AExpr *guard) {
  CExpr *r = ARENA_NEW(p->a, CExpr);
  *r = *c;
  if (c->kind == C_LOAD) {
    r->idx = ax_subst(p->a, c->idx, n, names, vals);
    const AExpr *cond = c->cond ? ax_subst(p->a, c->cond, n, names, vals) : NULL;
    r->cond = guard || cond ? ax_and(p->a, guard, cond) : NULL;
    if (!c->cond && !c->lane_cond) r->padval = 0.0;   // (a gather's pad tests are its lane_cond)
    if (c->lane_cond) {   // the lanes read one by one are guarded as well
      const AExpr *lanes = ax_subst(p->a, c->lane_cond, n, names, vals);
      r->lane_cond = guard ? ax_and(p->a, guard, lanes) : lanes;
    }
    if (c->nlevels > 1) {   // nested pads of different values: each level's test, the outermost also guarded
      const AExpr **conds = ARENA_ARRAY(p->a, const AExpr *, (size_t)c->nlevels);
      for (int i = 0; i < c->nlevels; i++) conds[i] = ax_subst(p->a, c->level_cond[i], n, names, vals);
      if (guard) conds[0] = ax_and(p->a, guard, conds[0]);
      r->level_cond = conds;
    }
    if (c->lane_idx) {   // a gather: each lane at its index, every guard on each lane
      r->lane_idx = ax_subst(p->a, c->lane_idx, n, names, vals);
      if (!c->lane_cond && guard) r->lane_cond = guard;
      r->cond = NULL;
    }
  }
  if (c->nargs) {
    const CExpr **args = ARENA_ARRAY(p->a, const CExpr *, (size_t)c->nargs);
    for (int i = 0; i < c->nargs; i++) args[i] = subst_cexpr(p, c->args[i], n, names, vals, guard);
    r->args = args;
  }
  return r;
}

static Stmt *new_stmt(Arena *a, Stmt s) {
  Stmt *n = ARENA_NEW(a, Stmt);
  *n = s;
  return n;
}

/* The slot's variables and the step variable `var` at `step`, into names and
 * vals (MAX_NEST + 1 each); their count. */
static int bind_slot(const Slot *sl, const AExpr *var, const AExpr *step, const char **names, const AExpr **vals) {
  memcpy(names, sl->names, sizeof *names * (size_t)sl->n);
  memcpy(vals, sl->vals, sizeof *vals * (size_t)sl->n);
  names[sl->n] = var->name, vals[sl->n] = step;
  return sl->n + 1;
}

/* The loads of every slot into its register, the step variable `var` at `step`
 * (and `guard`, NULL or that the step exists). */
static void append_loads(Prefetch *p, Stmt *block, Mem *regs, const AExpr *var, const AExpr *step,
                         const AExpr *guard) {
  for (int i = 0; i < p->nslots; i++) {
    const Slot *sl = &p->slots[i];
    const char *names[MAX_NEST + 1];
    const AExpr *vals[MAX_NEST + 1];
    bind_slot(sl, var, step, names, vals);
    const AExpr *g = guard || sl->guard ? ax_and(p->a, guard, sl->guard) : NULL;
    const CExpr *v = subst_cexpr(p, sl->store->value, sl->n + 1, names, vals, g);
    lw_append(p->a, block, new_stmt(p->a, (Stmt){.kind = ST_STORE, .mem = regs, .idx = ax_cst(p->a, i),
                                                 .width = 1, .value = v}));
  }
}

/* ---- Two slots (reduceSeqDoubleBuffer) --------------------------------------------- */

static const CExpr *reslot_cexpr(Prefetch *p, const CExpr *c, const Mem *m, const AExpr *off) {
  const CExpr **args = NULL;
  bool changed = false;
  if (c->nargs) {
    args = ARENA_ARRAY(p->a, const CExpr *, (size_t)c->nargs);
    for (int i = 0; i < c->nargs; i++) changed |= (args[i] = reslot_cexpr(p, c->args[i], m, off)) != c->args[i];
  }
  bool load = c->kind == C_LOAD && c->mem == m;
  if (!load && !changed) return c;
  CExpr *r = ARENA_NEW(p->a, CExpr);
  *r = *c;
  if (changed) r->args = args;
  if (load) r->idx = ax_add(p->a, c->idx, off);
  return r;
}

/* Every access of m under s moved by off (the step's slot). */
static void reslot(Prefetch *p, Stmt *s, const Mem *m, const AExpr *off) {
  switch (s->kind) {
  case ST_BLOCK:
    for (int i = 0; i < s->n; i++) reslot(p, s->stmts[i], m, off);
    return;
  case ST_FOR: reslot(p, s->body, m, off); return;
  case ST_STORE:
    if (s->mem == m) s->idx = ax_add(p->a, s->idx, off);
    s->value = reslot_cexpr(p, s->value, m, off);
    return;
  default: return;
  }
}

static int cexpr_uses(const CExpr *c, const Mem *m) {
  int n = c->kind == C_LOAD && c->mem == m;
  for (int i = 0; i < c->nargs; i++) n += cexpr_uses(c->args[i], m);
  return n;
}

/* Accesses of m under s; *local_stores counts the stores into any local array. */
static int uses(const Stmt *s, const Mem *m, int *local_stores) {
  int n = 0;
  switch (s->kind) {
  case ST_BLOCK:
    for (int i = 0; i < s->n; i++) n += uses(s->stmts[i], m, local_stores);
    return n;
  case ST_FOR: return uses(s->body, m, local_stores);
  case ST_STORE:
    if (local_stores && s->mem->space == MS_LOCAL) ++*local_stores;
    return (s->mem == m) + cexpr_uses(s->value, m);
  default: return 0;
  }
}

/* Two slots for the local arrays the slots' stores write, in the loop whose
 * new body is `step` (the stores first, then `rest` from index `from`). */
static bool double_buffer(Prefetch *p, Stmt *loop, Stmt *step, int from) {
  int stores = 0;
  for (int i = from; i < step->n; i++) uses(step->stmts[i], NULL, &stores);
  if (stores)
    return diag_error(p->d, "kernel %s: a reduceSeqDoubleBuffer's step writes local memory after its copies, which "
                      "two slots of the copies' arrays do not protect; use reduceSeqPrefetch", p->k->name);
  const AExpr *slot = ax_mod(p->a, loop->var, ax_cst(p->a, 2));
  Mem *done[PREFETCH_MAX_SLOTS];
  int ndone = 0;
  for (int i = 0; i < p->nslots; i++) {
    Mem *m = p->slots[i].store->mem;
    bool seen = false;
    for (int j = 0; j < ndone; j++) seen |= done[j] == m;
    if (seen) continue;
    done[ndone++] = m;
    if (uses(p->k->body, m, NULL) != uses(loop, m, NULL))   // the old loop, still in the kernel
      return diag_error(p->d, "kernel %s: local array %s of a reduceSeqDoubleBuffer's copies is used outside its "
                        "loop, where no slot is chosen; use reduceSeqPrefetch", p->k->name, m->name);
    int64_t size = (m->count + 3) / 4 * 4;
    m->count = 2 * size;
    reslot(p, step, m, ax_mul(p->a, slot, ax_cst(p->a, size)));
  }
  if (step->n > from && step->stmts[step->n - 1]->kind == ST_BARRIER) step->n--;   // the step's last barrier
  return true;
}

/* ---- Asynchronous copies (reduceSeqAsync) ------------------------------------------ */

static bool is_identity_call(const Prefetch *p, const CExpr *c) {
  for (int i = 0; i < p->lp->nufs; i++) {
    const LUserFun *u = &p->lp->ufs[i];
    if (u->width == 1 && strcmp(u->cname, c->fname) == 0) return ir_user_is_identity(u->uf);
  }
  return false;
}

/* The load of global memory the slot's store copies (through copy's id);
 * NULL unless the store can be an asynchronous copy: one 4-byte value of
 * the local array's own type, its pad test (if any) a zero fill. */
static const CExpr *async_source(const Prefetch *p, const Stmt *st) {
  const CExpr *v = st->value;
  while (v->kind == C_CALL && v->nargs == 1 && is_identity_call(p, v)) v = v->args[0];
  if (v->kind != C_LOAD || v->mem->space != MS_GLOBAL || v->width != 1 || st->width != 1 || v->lane_idx ||
      v->lane_cond || v->nlevels > 1 || (v->cond && v->padval != 0.0))
    return NULL;
  return ty_equal(v->mem->storage, st->mem->storage) && ty_bytes(st->mem->storage, 1) == 4 ? v : NULL;
}

/* The asynchronous copies of every slot at step `step` (the loop variable
 * `var`'s value), each local index moved by its array's slot offset
 * (`slot` times the array's half, NULL: none), each copy done only when
 * `guard` (NULL, or that the step exists) and its slot's guard hold. */
static void append_async(Prefetch *p, Stmt *block, const AExpr *var, const AExpr *step, const AExpr *slot,
                         const AExpr *guard) {
  for (int i = 0; i < p->nslots; i++) {
    const Slot *sl = &p->slots[i];
    const char *names[MAX_NEST + 1];
    const AExpr *vals[MAX_NEST + 1];
    bind_slot(sl, var, step, names, vals);
    const Stmt *st = sl->store;
    const AExpr *idx = ax_subst(p->a, st->idx, sl->n + 1, names, vals);
    if (slot) idx = ax_add(p->a, idx, ax_mul(p->a, slot, ax_cst(p->a, st->mem->count / 2)));
    const CExpr *v = subst_cexpr(p, async_source(p, st), sl->n + 1, names, vals, NULL);
    const AExpr *g = guard || sl->guard ? ax_and(p->a, guard, sl->guard) : NULL;
    lw_append(p->a, block, new_stmt(p->a, (Stmt){.kind = ST_STORE, .mem = st->mem, .idx = idx, .width = 1,
                                                 .value = v, .cond = g, .async = true}));
  }
}

/* The loop with asynchronous copies (the header's schedule), its copies the
 * first ncopies statements of its body, followed by their barrier: the
 * block that replaces it, or NULL with a Diag. */
static Stmt *async_pipeline(Prefetch *p, Stmt *loop, int ncopies) {
  Stmt *body = loop->body, *step = lw_block(p->a);
  lw_append(p->a, step, new_stmt(p->a, (Stmt){.kind = ST_ASYNC_WAIT}));
  for (int i = ncopies; i < body->n; i++) lw_append(p->a, step, body->stmts[i]);   // the barrier, then the rest
  if (!double_buffer(p, loop, step, 1)) return NULL;   // two slots; step i reads slot i % 2
  Stmt *rest = lw_block(p->a);   // the barrier, the next step's copies, the rest
  lw_append(p->a, rest, step->stmts[0]);
  lw_append(p->a, rest, step->stmts[1]);
  const AExpr *next = ax_add(p->a, loop->var, ax_cst(p->a, 1)), *stop = ax_cst(p->a, loop->stop);
  append_async(p, rest, loop->var, next, ax_mod(p->a, next, ax_cst(p->a, 2)), ax_lt(p->a, next, stop));
  for (int i = 2; i < step->n; i++) lw_append(p->a, rest, step->stmts[i]);
  loop->body = rest;
  loop->pipe = LPIPE_NONE;
  p->lp->uses_async = true;
  Stmt *inner = lw_block(p->a);
  append_async(p, inner, loop->var, ax_cst(p->a, 0), NULL, NULL);
  lw_append(p->a, inner, loop);
  return inner;
}

/* The block made the work-item's index in each dimension the copies walk
 * (one-iteration mapLcl loops around it). */
static Stmt *around_lids(Prefetch *p, Stmt *inner) {
  for (int ds = 0; ds < MAX_DIMS; ds++) {
    if (!p->base[ds]) continue;
    Stmt *wrap = new_stmt(p->a, (Stmt){.kind = ST_FOR, .loop = LOOP_LCL, .dim = ds == 3 ? IR_DIM_FLAT : ds,
                                       .var = p->base[ds], .stop = p->threads[ds], .step = p->threads[ds],
                                       .body = inner});
    inner = lw_block(p->a);
    lw_append(p->a, inner, wrap);
  }
  return inner;
}

/* The pipelined form of the loop `loop`, returned in its place. */
static Stmt *pipeline(Prefetch *p, Stmt *loop) {
  Stmt *body = loop->body;
  int ncopies = 0;
  while (ncopies < body->n && is_input_copy(body->stmts[ncopies], p->k->body)) ncopies++;
  if (ncopies == 0) {
    diag_error(p->d, "kernel %s: the step of a reduceSeqPrefetch does not start with a copy into local memory of "
               "values the kernel does not write (toLocal[mapLcl[...]] of a view of an input or of an earlier "
               "kernel's array), so there is "
               "nothing to load one step ahead; use reduceSeq", p->k->name);
    return NULL;
  }
  p->nslots = 0;
  memset(p->base, 0, sizeof p->base);
  Slot none = {0};
  for (int i = 0; i < ncopies; i++)
    if (!expand(p, body->stmts[i], &none)) return NULL;
  if (loop->pipe == LPIPE_ASYNC) {   // asynchronous where the target and every copy allow, else double-buffered
    bool async = p->lp->async_copy && ncopies < body->n && body->stmts[ncopies]->kind == ST_BARRIER;
    for (int i = 0; i < p->nslots && async; i++) async = async_source(p, p->slots[i].store) != NULL;
    if (async) {
      Stmt *inner = async_pipeline(p, loop, ncopies);
      return inner ? around_lids(p, inner) : NULL;
    }
    loop->pipe = LPIPE_DOUBLE;
  }
  // the registers are of the copied values' element type (fp32 for an int copy, as they always were), as
  // computed: a copy of halves staged as halves (gen.c's staged_type) holds floats in its registers
  const ElemType *et = ty_elem(p->slots[0].store->mem->storage);
  const Type *rt = ty_arith(ty_scalar(et ? et : elem_fp32()));
  Mem *regs = ARENA_NEW(p->a, Mem);
  *regs = (Mem){.name = arena_printf(p->a, "pf%d", p->names++), .space = MS_PRIVATE, .role = MR_PRIVATE,
                .type = ty_array(p->a, rt, ax_cst(p->a, p->nslots)), .storage = rt,
                .count = p->nslots, .input_index = -1, .scalarised = true};
  // the step: the stores from the registers, the next step's loads, the rest
  Stmt *step = lw_block(p->a);
  for (int i = 0; i < p->nslots; i++) {
    const Slot *sl = &p->slots[i];
    Stmt *st = sl->store;
    CExpr *reg = ARENA_NEW(p->a, CExpr);
    *reg = (CExpr){.kind = C_LOAD, .type = rt, .mem = regs, .idx = ax_cst(p->a, i), .width = 1};
    lw_append(p->a, step, new_stmt(p->a, (Stmt){.kind = ST_STORE, .mem = st->mem,
                                                .idx = ax_subst(p->a, st->idx, sl->n, sl->names, sl->vals),
                                                .width = st->width, .value = reg, .cond = sl->guard}));
  }
  const AExpr *next = ax_add(p->a, loop->var, ax_cst(p->a, 1)), *stop = ax_cst(p->a, loop->stop);
  append_loads(p, step, regs, loop->var, next, ax_lt(p->a, next, stop));
  int from = step->n;
  for (int i = ncopies; i < body->n; i++) lw_append(p->a, step, body->stmts[i]);
  if (loop->pipe == LPIPE_DOUBLE && !double_buffer(p, loop, step, from)) return NULL;
  loop->body = step;
  loop->pipe = LPIPE_NONE;
  // before the loop: the registers and step 0's loads; around it, the
  // work-item's index in each dimension the copies walk
  Stmt *inner = lw_block(p->a);
  lw_append(p->a, inner, new_stmt(p->a, (Stmt){.kind = ST_DECL, .mem = regs}));
  append_loads(p, inner, regs, loop->var, ax_cst(p->a, 0), NULL);
  lw_append(p->a, inner, loop);
  return around_lids(p, inner);
}

static bool walk(Prefetch *p, Stmt *s) {
  if (s->kind == ST_FOR) return walk(p, s->body);
  if (s->kind != ST_BLOCK) return true;
  for (int i = 0; i < s->n; i++) {
    Stmt *c = s->stmts[i];
    if (c->kind == ST_FOR && c->pipe != LPIPE_NONE) {
      if (!walk(p, c->body)) return false;   // a pipelined loop inside: its own registers
      if (!(s->stmts[i] = pipeline(p, c))) return false;
    } else if (!walk(p, c)) {
      return false;
    }
  }
  return true;
}

bool lw_prefetch(Arena *a, LProgram *lp, Diag *d) {
  for (int i = 0; i < lp->nkernels; i++) {
    Prefetch *p = ARENA_NEW(a, Prefetch);
    *p = (Prefetch){.a = a, .d = d, .lp = lp, .k = lp->kernels[i]};
    if (!walk(p, lp->kernels[i]->body)) return false;
  }
  return true;
}
