/* rules_lower.c: from the algorithmic primitives to the OpenCL-aware ones.
 *
 * A high-level map becomes a map at a parallel level (mapGlb[d]: one
 * work-item per element; mapWrg[d]: one work-group per element; mapLcl[d]: the
 * work-items of a group share the elements) or a sequential loop (mapSeq,
 * mapSeqUnroll); a high-level reduce becomes a sequential loop (reduceSeq,
 * reduceSeqUnroll). Placement wraps a call that produces data in toGlobal,
 * toLocal or toPrivate, which says where its result is written. None of these
 * changes the meaning, so the matchers check only the shape: the dimension is
 * a constant 0, 1 or 2 (or 3 for mapLcl: flat, the group's work-items as one
 * line), and a placed result holds scalars or vectors (tuples
 * are never stored). Whether a choice is legal where it stands (mapLcl inside
 * a mapWrg of the same dimension, no local memory inside mapGlb, barriers
 * every work-item reaches) is the lowering's check, and the parameter space's
 * (docs/design.md section 6): the rules make every choice expressible.
 */
#include "rewrite/rules.h"

#include "ir/cbody.h"
#include "lower/lower.h"

/* ---- Maps and reductions ---------------------------------------------------- */

static bool is_dim(const AExpr *d) {
  int64_t v;
  return ax_is_cst(d, &v) && v >= 0 && v <= 2;
}

static bool map_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return rw_is_call(e, P_MAP);
}

static bool map_dim_match(const Expr *e, const AExpr *const *args) { return rw_is_call(e, P_MAP) && is_dim(args[0]); }

/* mapLcl's dimension may also be IR_DIM_FLAT (3): every work-item of the group. */
static bool map_lcl_match(const Expr *e, const AExpr *const *args) {
  int64_t v;
  return rw_is_call(e, P_MAP) && (is_dim(args[0]) || (ax_is_cst(args[0], &v) && v == IR_DIM_FLAT));
}

static const Expr *parallel(Arena *a, const Expr *e, Prim p, const AExpr *d) {
  int64_t dim;
  cg_assert(ax_is_cst(d, &dim));
  return ir_call1(a, ir_prim_df(a, p, (int)dim, e->fun->f), e->args[0]);
}

static const Expr *glb_build(Arena *a, const Expr *e, const AExpr *const *args) {
  return parallel(a, e, P_MAP_GLB, args[0]);
}
static const Expr *wrg_build(Arena *a, const Expr *e, const AExpr *const *args) {
  return parallel(a, e, P_MAP_WRG, args[0]);
}
static const Expr *lcl_build(Arena *a, const Expr *e, const AExpr *const *args) {
  return parallel(a, e, P_MAP_LCL, args[0]);
}

static const Expr *seq_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return ir_call1(a, ir_prim_f(a, P_MAP_SEQ, e->fun->f), e->args[0]);
}
static const Expr *unroll_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return ir_call1(a, ir_prim_f(a, P_MAP_SEQ_UNROLL, e->fun->f), e->args[0]);
}

static bool reduce_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return rw_is_call(e, P_REDUCE);
}

/* The reduction call e with primitive p in place of its own: the same
 * function, initial value and array (the rules below differ only in p). */
static const Expr *reduce_as(Arena *a, const Expr *e, Prim p) {
  return ir_call(a, ir_prim_f(a, p, e->fun->f), 2, e->args);
}

static const Expr *reduce_seq_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return reduce_as(a, e, P_REDUCE_SEQ);
}
static const Expr *reduce_unroll_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return reduce_as(a, e, P_REDUCE_SEQ_UNROLL);
}

/* reduce-seq-prefetch: a sequential reduction whose step starts by copying
 * values of the program's inputs into local memory (a staged chunk) becomes
 * a pipelined one: the same steps in the same order, the same value; the
 * lowering's prefetch pass (lower/prefetch.c) loads step i+1's values into
 * registers while step i computes. Whether the step has that form is the
 * pass's to check: the rule only says where the pipeline is wanted. */
static bool prefetch_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  return rw_is_call(e, P_REDUCE_SEQ);
}

static const Expr *prefetch_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return reduce_as(a, e, P_REDUCE_SEQ_PREFETCH);
}

/* reduce-seq-double-buffer: as reduce-seq-prefetch, and the local arrays the
 * step's copies write get two slots, step i in slot i % 2, so that the
 * barrier that kept step i+1's stores from overwriting what step i still
 * reads is no longer needed: one barrier per step instead of two, for twice
 * the local memory (lower/prefetch.c). */
static const Expr *double_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return reduce_as(a, e, P_REDUCE_SEQ_DOUBLE);
}

/* reduce-seq-async: as reduce-seq-double-buffer, and on a target with
 * asynchronous copies into local memory (CUDA's cp.async, sm_80 and
 * later) the next step's copies go straight into their slot while this
 * step computes, with no registers between (lower/prefetch.c); elsewhere
 * the loop is lowered as reduce-seq-double-buffer's. */
static const Expr *async_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return reduce_as(a, e, P_REDUCE_SEQ_ASYNC);
}

/* reduce-seq-nest: a sequential reduction walks its array in rows of m, so
 * that the lowering emits a loop over the rows whose body walks each row
 * unrolled (gen.c): the same elements in the same order, but every index
 * inside a row is a constant offset, where a flat loop over a window of
 * c x kh x kw values pays a division and a remainder per step. m is at most
 * LW_ROW_UNROLL_MAX (lower.h), which bounds the unrolled code. */
static bool nest_match(const Expr *e, const AExpr *const *args) {
  int64_t lo, hi;
  ax_range(args[0], &lo, &hi);
  return rw_is_call(e, P_REDUCE_SEQ) && rw_len(e->args[1]) && rw_may_divide(rw_len(e->args[1]), args[0]) &&
         hi <= LW_ROW_UNROLL_MAX;
}

static const Expr *nest_build(Arena *a, const Expr *e, const AExpr *const *args) {
  const Expr *rows = ir_call1(a, ir_prim_n(a, P_SPLIT, args[0]), e->args[1]);
  const Expr *xs = ir_call1(a, ir_prim(a, P_JOIN), rows);
  return rw_call2(a, e->fun, e->args[0], xs);
}

/* ---- Placement --------------------------------------------------------------- */

/* A call of one argument that computes: a user function, a map, mapVec or
 * iterate (not a layout primitive, a lambda, or one already placed), whose
 * result holds no tuples. toX takes one argument (IR_PRIMS), so a reduction
 * (two) or a user function of several arguments cannot be placed. */
static bool place_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  if (e->kind != E_CALL || e->nargs != 1 || !e->type || !ty_is_value(ty_base(e->type))) return false;
  const Fun *f = e->fun;
  if (f->kind == F_USER) return true;
  return f->kind == F_PRIM && (prim_is_map(f->prim) || f->prim == P_MAP_VEC || f->prim == P_ITERATE);
}

static const Expr *place(Arena *a, const Expr *e, Prim p) {
  return ir_call(a, ir_prim_f(a, p, e->fun), e->nargs, e->args);
}

static const Expr *global_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return place(a, e, P_TO_GLOBAL);
}
static const Expr *local_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return place(a, e, P_TO_LOCAL);
}
static const Expr *private_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  return place(a, e, P_TO_PRIVATE);
}

/* ---- Copies ------------------------------------------------------------------ */

/* copy: an array of floats (or of half, read as floats) becomes a map (one level per dimension) of the
 * identity user function over it, the same values. Local staging is this
 * copy placed in local memory with its maps lowered to mapLcl: the data a
 * work-group reads many times is read from global memory once. The rule
 * brings its own user function, `id`, which rw_apply declares in the program
 * (docs/rewrite.md). Copying a computed array is how its values move from
 * where they were computed (a work-group's accumulators, spread over its
 * work-items' private memory) to where the result goes. */
static bool copy_match(const Expr *e, const AExpr *const *args) {
  (void)args;
  // an array of half too: id reads each value as a float, and the copy holds floats
  return e->type && e->type->kind == TY_ARRAY && ty_equal(ty_arith(ty_base(e->type)), ty_float());
}

static const Expr *copy_build(Arena *a, const Expr *e, const AExpr *const *args) {
  (void)args;
  const Fun *f = ir_user(a, rw_identity(a, ty_float(), "id"));
  for (const Type *t = e->type; t->kind == TY_ARRAY; t = t->elem) f = ir_prim_f(a, P_MAP, f);
  return ir_call1(a, f, e);
}

static const Rule RULES[] = {
    {"map-to-glb", "map[f](x) => mapGlb[d, f](x)", 1, {"d: parallel dimension (0, 1 or 2)"}, map_dim_match,
     glb_build},
    {"map-to-wrg", "map[f](x) => mapWrg[d, f](x)", 1, {"d: parallel dimension (0, 1 or 2)"}, map_dim_match,
     wrg_build},
    {"map-to-lcl", "map[f](x) => mapLcl[d, f](x)", 1, {"d: parallel dimension (0, 1 or 2; 3: flat)"},
     map_lcl_match, lcl_build},
    {"map-to-seq", "map[f](x) => mapSeq[f](x)", 0, {0}, map_match, seq_build},
    {"map-to-seq-unroll", "map[f](x) => mapSeqUnroll[f](x)", 0, {0}, map_match, unroll_build},
    {"reduce-to-seq", "reduce[f](z, x) => reduceSeq[f](z, x)", 0, {0}, reduce_match, reduce_seq_build},
    {"reduce-to-seq-unroll", "reduce[f](z, x) => reduceSeqUnroll[f](z, x)", 0, {0}, reduce_match,
     reduce_unroll_build},
    {"reduce-seq-prefetch", "reduceSeq[f](z, x) => reduceSeqPrefetch[f](z, x)  (the step's leading copies to local "
     "memory loaded one step ahead)", 0, {0}, prefetch_match, prefetch_build},
    {"reduce-seq-double-buffer", "reduceSeq[f](z, x) => reduceSeqDoubleBuffer[f](z, x)  (as reduce-seq-prefetch, "
     "the copies' local arrays in two slots, one barrier per step)", 0, {0}, prefetch_match, double_build},
    {"reduce-seq-async", "reduceSeq[f](z, x) => reduceSeqAsync[f](z, x)  (as reduce-seq-double-buffer, the next "
     "step's copies asynchronous, straight into their slot, where the target has such copies)", 0, {0},
     prefetch_match, async_build},
    {"reduce-seq-nest", "reduceSeq[f](z, x) => reduceSeq[f](z, join(split[m](x)))  (m <= 64: each row unrolled)", 1,
     {"m: the row length, unrolled"}, nest_match, nest_build},
    {"copy", "x => map[...map[id]](x)  (x an array of floats, one map per dimension; id the identity, declared "
     "in the program by the rule)", 0, {0}, copy_match, copy_build},
    {"to-global", "f(xs) => toGlobal[f](xs)  (a call of one argument; f a user function, map, mapVec or iterate; no tuples stored)",
     0, {0}, place_match, global_build},
    {"to-local", "f(xs) => toLocal[f](xs)  (a call of one argument; f a user function, map, mapVec or iterate; no tuples stored)",
     0, {0}, place_match, local_build},
    {"to-private",
     "f(xs) => toPrivate[f](xs)  (a call of one argument; f a user function, map, mapVec or iterate; no tuples stored)", 0, {0},
     place_match, private_build},
};

const Rule *rw_lower_rules(int *n) {
  *n = (int)(sizeof RULES / sizeof RULES[0]);
  return RULES;
}
