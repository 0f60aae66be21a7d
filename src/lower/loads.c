/* loads.c: neighbouring scalar loads from local memory combined into vector
 * loads, the last lowering pass (after scalarisation).
 *
 * An unrolled register block reads local memory one float at a time:
 * lcl[b], lcl[b + 1], ... (a row of RW pixels of the staged patch, RK
 * weights of a tap). Where b is provably a multiple of 4 (ax_prove_divisible
 * on the index) and at least two of lcl[b .. b + 3] are read, the four are
 * loaded once as a float4 (from halves: vload_half4) into a private register
 * at the start of the run of statements that reads them, and each read
 * becomes a component of it. A
 * run is a sequence of statements of one block that declare or store only
 * private memory: no barrier and no store to local memory lies between the vector
 * load and the reads it replaces, so the values are the same. The emitter
 * declares local arrays 16-byte aligned and prints an aligned local vector
 * load as one (CG dialect: vload_aligned_fmt), so the device compiler may use
 * a single 16-byte load where it saw four 4-byte ones (NVIDIA's did not
 * combine them itself: ld.shared.f32 only in the PTX of round 8's kernels).
 * CONVGEN_COMBINE_LOADS=0 turns the pass off (for measuring what it gives).
 */
#include "lower/lower.h"

#include <stdlib.h>
#include <string.h>

enum { VEC = 4, MIN_LANES = 2, MAX_GROUPS = 256 };

typedef struct Group {
  const Mem *mem;          // a local array
  const AExpr *base;       // a multiple of VEC
  bool lane[VEC];          // which of base + 0 .. 3 the run reads
  Mem *reg;                // the private vector of VEC they are loaded into (float4)
} Group;

typedef struct Combine {
  Arena *a;
  Group g[MAX_GROUPS];
  int ng;
  int nregs;               // registers made in this kernel (their names)
} Combine;

static bool candidate(const CExpr *c) {
  return c->kind == C_LOAD && c->width == 1 && !c->cond && !c->raw && c->mem->space == MS_LOCAL &&
         c->mem->storage->kind == TY_FLOAT;   // (not a raw half: a tile product's operand, gen.c's raw_halves)
}

/* The group and lane of a load, made when new (NULL: not combinable). */
static Group *group_of(Combine *k, const CExpr *c, int *lane, bool make) {
  const AExpr *w = ax_cst(k->a, VEC);
  for (int l = 0; l < VEC; l++) {
    const AExpr *base = ax_sub(k->a, c->idx, ax_cst(k->a, l));
    if (!ax_prove_divisible(base, w)) continue;
    *lane = l;
    for (int i = 0; i < k->ng; i++)
      if (k->g[i].mem == c->mem && ax_equal(k->g[i].base, base)) return &k->g[i];
    if (!make || k->ng == MAX_GROUPS) return NULL;
    k->g[k->ng] = (Group){.mem = c->mem, .base = base};
    return &k->g[k->ng++];
  }
  return NULL;
}

static void collect(Combine *k, const CExpr *c) {
  int lane;
  Group *g;
  if (candidate(c) && (g = group_of(k, c, &lane, true))) g->lane[lane] = true;
  for (int i = 0; i < c->nargs; i++) collect(k, c->args[i]);
}

static CExpr *copy_of(Combine *k, const CExpr *c) {
  CExpr *n = ARENA_NEW(k->a, CExpr);
  *n = *c;
  return n;
}

/* c with every load of a kept group read from its register. */
static const CExpr *rewrite(Combine *k, const CExpr *c) {
  int lane;
  Group *g;
  if (candidate(c) && (g = group_of(k, c, &lane, false)) && g->reg) {
    CExpr *reg = ARENA_NEW(k->a, CExpr);
    *reg = (CExpr){.kind = C_LOAD, .type = g->reg->type, .mem = g->reg, .idx = ax_cst(k->a, 0), .width = 1};
    CExpr *comp = ARENA_NEW(k->a, CExpr);
    *comp = (CExpr){.kind = C_COMP, .type = c->type, .nargs = 1, .comp = lane};
    comp->args = ARENA_ARRAY(k->a, const CExpr *, 1);
    comp->args[0] = reg;
    return comp;
  }
  if (c->nargs == 0) return c;
  const CExpr **args = ARENA_ARRAY(k->a, const CExpr *, (size_t)c->nargs);
  bool changed = false;
  for (int i = 0; i < c->nargs; i++) changed |= (args[i] = rewrite(k, c->args[i])) != c->args[i];
  if (!changed) return c;
  CExpr *n = copy_of(k, c);
  n->args = args;
  return n;
}

static bool in_run(const Stmt *s) {
  return (s->kind == ST_STORE || s->kind == ST_DECL) && s->mem->space == MS_PRIVATE;
}

/* The run b->stmts[i .. j): its groups of two or more lanes loaded first.
 * Returns how many statements were put before it. */
static int combine_run(Combine *k, Stmt *b, int i, int j) {
  k->ng = 0;
  for (int s = i; s < j; s++)
    if (b->stmts[s]->kind == ST_STORE) collect(k, b->stmts[s]->value);
  Stmt *pre[2 * MAX_GROUPS];
  int np = 0;
  for (int n = 0; n < k->ng; n++) {
    Group *g = &k->g[n];
    int lanes = 0;
    for (int l = 0; l < VEC; l++) lanes += g->lane[l];
    if (lanes < MIN_LANES) continue;
    Mem *reg = ARENA_NEW(k->a, Mem);
    // the register holds the values as computed: a float4 of a local array of halves (vload_half4)
    const Type *vec = ty_arith(ty_vec(k->a, g->mem->storage->et, VEC));
    *reg = (Mem){.name = arena_printf(k->a, "vl%d", k->nregs++), .space = MS_PRIVATE, .role = MR_PRIVATE,
                 .type = vec, .storage = vec, .count = 1, .input_index = -1, .scalarised = true};
    g->reg = reg;
    Stmt *decl = ARENA_NEW(k->a, Stmt), *load = ARENA_NEW(k->a, Stmt);
    *decl = (Stmt){.kind = ST_DECL, .mem = reg};
    CExpr *v = ARENA_NEW(k->a, CExpr);
    *v = (CExpr){.kind = C_LOAD, .type = vec, .mem = (Mem *)g->mem, .idx = g->base, .width = VEC};
    *load = (Stmt){.kind = ST_STORE, .mem = reg, .idx = ax_cst(k->a, 0), .width = 1, .value = v};
    pre[np++] = decl, pre[np++] = load;
  }
  if (np == 0) return 0;
  for (int s = i; s < j; s++)
    if (b->stmts[s]->kind == ST_STORE) b->stmts[s]->value = rewrite(k, b->stmts[s]->value);
  Stmt **st = ARENA_ARRAY(k->a, Stmt *, (size_t)(b->n + np));
  memcpy(st, b->stmts, sizeof *st * (size_t)i);
  memcpy(st + i, pre, sizeof *st * (size_t)np);
  memcpy(st + i + np, b->stmts + i, sizeof *st * (size_t)(b->n - i));
  b->stmts = st;
  b->n += np;
  b->cap = b->n;
  return np;
}

static void walk(Combine *k, Stmt *s) {
  if (s->kind == ST_FOR) {
    walk(k, s->body);
    return;
  }
  if (s->kind != ST_BLOCK) return;
  for (int i = 0; i < s->n;) {
    if (!in_run(s->stmts[i])) {
      walk(k, s->stmts[i++]);
      continue;
    }
    int j = i;
    while (j < s->n && in_run(s->stmts[j])) j++;
    i = j + combine_run(k, s, i, j);
  }
}

void lw_combine_loads(Arena *a, LProgram *lp) {
  const char *off = getenv("CONVGEN_COMBINE_LOADS");
  if (off && strcmp(off, "0") == 0) return;
  for (int i = 0; i < lp->nkernels; i++) {
    Combine *k = ARENA_NEW(a, Combine);
    k->a = a;
    walk(k, lp->kernels[i]->body);
  }
}
