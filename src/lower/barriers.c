/* barriers.c: places work-group barriers where work-items share memory.
 *
 * Runs on a kernel's statements after gen. Local memory, and global
 * temporaries a kernel both writes and reads, are shared: a work-item may read
 * what another wrote. Walking the statements in order, the pass tracks which
 * shared memories were written and read since the last barrier, and puts a
 * barrier before the first statement that reads what may have been written
 * (read after write) or writes what may still be read or written (write
 * after read, write after write). The unit of that check is a parallel loop
 * with no parallel loop inside (one work-item's own sequential work) or a
 * statement that every work-item runs; loops with parallel loops inside are
 * entered, and when such a loop runs more than one round, a barrier closes
 * its body if the next round would race with the last.
 * A barrier must be reached by every work-item of the group: never inside
 * mapGlb, never inside a mapLcl whose trip count is not a multiple of the
 * work-group size. Where one is needed there, the kernel is rejected.
 */
#include "lower/lower.h"

#include <string.h>

enum { MAX_SHARED = 64, MAX_DEPTH = 64 };

typedef struct MemSet {
  const Mem *m[MAX_SHARED];
  int n;
} MemSet;

typedef struct Sync {
  MemSet w, r;             // shared memories written, read since the last barrier
} Sync;

typedef struct Pass {
  Arena *a;
  Diag *d;
  const LKernel *k;
  const Mem *result;       // the kernel's result: only later kernels read it
  const Stmt *loops[MAX_DEPTH];  // enclosing loops, outermost first
  int depth;
} Pass;

static bool is_shared(const Pass *p, const Mem *m) {
  return m != p->result && (m->role == MR_LOCAL || m->role == MR_TEMP);
}

static bool has(const MemSet *s, const Mem *m) {
  for (int i = 0; i < s->n; i++)
    if (s->m[i] == m) return true;
  return false;
}

static void add(MemSet *s, const Mem *m) {
  if (has(s, m)) return;
  if (s->n == MAX_SHARED) cg_die("more than %d shared memories in one kernel", MAX_SHARED);
  s->m[s->n++] = m;
}

static bool meets(const MemSet *x, const MemSet *y) {
  for (int i = 0; i < x->n; i++)
    if (has(y, x->m[i])) return true;
  return false;
}

static void reads_of(const Pass *p, const CExpr *c, MemSet *r) {
  if (c->kind == C_LOAD && is_shared(p, c->mem)) add(r, c->mem);
  for (int i = 0; i < c->nargs; i++) reads_of(p, c->args[i], r);
}

static void accesses(const Pass *p, const Stmt *s, MemSet *r, MemSet *w) {
  switch (s->kind) {
  case ST_BLOCK:
    for (int i = 0; i < s->n; i++) accesses(p, s->stmts[i], r, w);
    break;
  case ST_FOR: accesses(p, s->body, r, w); break;
  case ST_STORE:
    if (is_shared(p, s->mem)) add(w, s->mem);
    reads_of(p, s->value, r);
    break;
  default: break;
  }
}

static bool is_parallel(const Stmt *s) { return s->kind == ST_FOR && (s->loop == LOOP_LCL || s->loop == LOOP_GLB); }

static bool contains_parallel(const Stmt *s) {
  if (s->kind == ST_BLOCK) {
    for (int i = 0; i < s->n; i++)
      if (contains_parallel(s->stmts[i])) return true;
    return false;
  }
  return s->kind == ST_FOR && (is_parallel(s) || contains_parallel(s->body));
}

/* A unit: the work of one work-item between synchronisation points. */
static bool is_unit(const Stmt *s) {
  return s->kind != ST_BARRIER && (!contains_parallel(s) || (is_parallel(s) && !contains_parallel(s->body)));
}

/* Does s race with what was done since the last barrier? Write after write
 * counts between different statements, not between the rounds of one loop:
 * a map writes each element of its result once. */
static bool conflicts(const Pass *p, const Stmt *s, const Sync *st, bool waw, bool *global) {
  MemSet r = {.n = 0}, w = {.n = 0};
  accesses(p, s, &r, &w);
  bool c = meets(&r, &st->w) || (waw && meets(&w, &st->w)) || meets(&w, &st->r);
  for (int i = 0; c && i < r.n + w.n; i++) *global |= (i < r.n ? r.m[i] : w.m[i - r.n])->role == MR_TEMP;
  return c;
}

static void record(const Pass *p, const Stmt *s, Sync *st) { accesses(p, s, &st->r, &st->w); }

static bool barrier_reachable(Pass *p) {
  for (int i = 0; i < p->depth; i++) {
    const Stmt *l = p->loops[i];
    if (l->loop == LOOP_GLB)
      return diag_error(p->d, "kernel %s: work-items share memory inside mapGlb(%d), where they cannot "
                        "synchronise; use mapWrg and mapLcl", p->k->name, l->dim);
    if (l->loop == LOOP_LCL && l->stop % l->step != 0)
      return diag_error(p->d, "kernel %s: a barrier would not be reached by all work-items: it is needed inside "
                        "mapLcl(%s) over %lld iterations with %lld work-items (not a multiple)",
                        p->k->name, lw_dim_name(l->dim), (long long)l->stop, (long long)l->step);
  }
  return true;
}

static Stmt *new_barrier(Pass *p, bool global) {
  Stmt *b = ARENA_NEW(p->a, Stmt);
  b->kind = ST_BARRIER;
  b->global_fence = global;
  return b;
}

/* Would the first units of block, run after state st, race with it? */
static bool races_at_start(const Pass *p, const Stmt *block, const Sync *st, bool waw, bool *global) {
  for (int i = 0; i < block->n; i++) {
    const Stmt *s = block->stmts[i];
    if (s->kind == ST_BARRIER) return false;
    if (is_unit(s)) {
      if (conflicts(p, s, st, waw, global)) return true;
    } else if (s->kind == ST_FOR) {
      return races_at_start(p, s->body, st, waw, global);
    } else if (s->kind == ST_BLOCK) {
      return races_at_start(p, s, st, waw, global);
    }
  }
  return false;
}

static bool place(Pass *p, Stmt *block, Sync *st);

/* A loop with parallel loops inside: enter it, and close its body with a
 * barrier when one work-item's next round would race with the last. */
static bool enter_loop(Pass *p, Stmt *s, Sync *st) {
  if (p->depth == MAX_DEPTH) cg_die("loops nested deeper than %d", MAX_DEPTH);
  p->loops[p->depth++] = s;
  bool ok = place(p, s->body, st);
  bool rounds = s->loop == LOOP_SEQ ? s->stop > 1 : s->stop > s->step;
  bool global = false;
  if (ok && rounds && races_at_start(p, s->body, st, false, &global)) {
    ok = barrier_reachable(p);
    if (ok) {
      lw_append(p->a, s->body, new_barrier(p, global));
      memset(st, 0, sizeof *st);
    }
  }
  p->depth--;
  return ok;
}

static bool place(Pass *p, Stmt *block, Sync *st) {
  Stmt **old = block->stmts;
  int n = block->n;
  block->stmts = NULL;
  block->n = block->cap = 0;
  for (int i = 0; i < n; i++) {
    Stmt *s = old[i];
    if (s->kind == ST_BARRIER) {
      memset(st, 0, sizeof *st);
    } else if (is_unit(s)) {
      bool global = false;
      if (conflicts(p, s, st, true, &global)) {
        if (!barrier_reachable(p)) return false;
        lw_append(p->a, block, new_barrier(p, global));
        memset(st, 0, sizeof *st);
      }
      record(p, s, st);
    } else {
      // a barrier needed at the start of s goes before s, outside its loops
      bool global = false;
      const Stmt *body = s->kind == ST_FOR ? s->body : s;
      if (races_at_start(p, body, st, true, &global)) {
        if (!barrier_reachable(p)) return false;
        lw_append(p->a, block, new_barrier(p, global));
        memset(st, 0, sizeof *st);
      }
      if (s->kind == ST_FOR ? !enter_loop(p, s, st) : !place(p, s, st)) return false;
    }
    lw_append(p->a, block, s);
  }
  return true;
}

bool lw_place_barriers(Arena *a, LKernel *k, const Mem *result, Diag *d) {
  Pass p = {.a = a, .d = d, .k = k, .result = result};
  Sync st;
  memset(&st, 0, sizeof st);
  return place(&p, k->body, &st);
}
