/* rules.h: what the rule families (rules_*.c) share, internal to src/rewrite.
 *
 * Each family file defines its rules in one static table and hands it out
 * through its rw_*_rules function; registry.c lists the families. The helpers
 * below are the questions every matcher asks (is this a call of primitive p?
 * does a sub-term use parameter y? may n divide this length?) and the few
 * constructors every builder needs. Builders make lambda parameters with
 * rw_param: id -1 and a base name; rw_apply gives them fresh ids and unique
 * names, and copies any lambda a builder duplicated.
 */
#ifndef CONVGEN_REWRITE_RULES_H
#define CONVGEN_REWRITE_RULES_H

#include "rewrite/rewrite.h"

/* The families, in the order rw_rules lists them. */
const Rule *rw_fusion_rules(int *n);
const Rule *rw_splitjoin_rules(int *n);
const Rule *rw_slide_rules(int *n);
const Rule *rw_reduce_rules(int *n);
const Rule *rw_vector_rules(int *n);
const Rule *rw_reorder_rules(int *n);
const Rule *rw_layout_rules(int *n);
const Rule *rw_lower_rules(int *n);
const Rule *rw_interchange_rules(int *n);
const Rule *rw_patch_rules(int *n);
const Rule *rw_group_rules(int *n);
const Rule *rw_mma_rules(int *n);
const Rule *rw_winograd_rules(int *n);

/* Shapes. */
bool rw_is_call(const Expr *e, Prim p);         // e = p[...](...)
bool rw_is_map_call(const Expr *e);             // a call of any map-family primitive (not mapVec)
bool rw_is_ref(const Expr *e, const Param *p);  // e is a reference to p
const Expr *rw_flat_arg(const Expr *e);          // e = join(map[join](x)), a 3-D array flattened: x; else NULL
const Expr *rw_lambda_body1(const Fun *f, Param **param);  // f = fun(y) -> body: body (and y); else NULL
bool rw_uses(const Expr *e, const Param *p);    // p occurs in e (free or not)
bool rw_fun_uses(const Fun *f, const Param *p); // p occurs in f (its body, its nested functions)
const AExpr *rw_len(const Expr *e);             // the length of e's (array) type; NULL when not an array
/* How often p occurs in e; *in_lambda is set when an occurrence is inside a
 * function (a lambda's body, which may run many times). */
int rw_count_uses(const Expr *e, const Param *p, bool *in_lambda);
/* e with the pair y taken apart: a two-parameter user function applied to y
 * becomes f(u, v), get[0](y) u and get[1](y) v; NULL when y is used any
 * other way. */
const Expr *rw_subst_pair(Arena *a, const Expr *e, const Param *y, const Expr *u, const Expr *v);
/* The same for a tuple of n fields (1 to 16): an n-parameter user function
 * applied to y becomes f(fields...), get[i](y) fields[i]. */
const Expr *rw_subst_tuple(Arena *a, const Expr *e, const Param *y, int n, const Expr *const *fields);
/* Does p occur in e only as get[i](p), i < n? */
bool rw_only_fields(const Expr *e, const Param *p, int n);
/* Does e read get[i](y)? With at (which locates e), the first such read in
 * pre-order: its path appended to *at. */
bool rw_find_field(const Expr *e, const Param *y, int i, RwPath *at);
/* e with every get[i](y) replaced by v, y's other uses kept. */
const Expr *rw_subst_field(Arena *a, const Expr *e, const Param *y, int i, const Expr *v);
/* e with every reference to p replaced by repl (spines rebuilt, the rest shared). */
const Expr *rw_subst(Arena *a, const Expr *e, const Param *p, const Expr *repl);

/* Sizes: false only when the condition is provably violated (constants, or a
 * size below 1); with symbolic sizes the rule applies and the condition is a
 * constraint of the parameter space, read off the split or slide it leaves. */
bool rw_may_divide(const AExpr *len, const AExpr *n);  // n >= 1 and n | len
bool rw_may_le(const AExpr *x, const AExpr *y);        // x <= y

/* Constructors for builders. */
Param *rw_param(Arena *a, const char *base);    // fresh: id -1, named later by rw_apply
const Expr *rw_call2(Arena *a, const Fun *f, const Expr *x, const Expr *y);
const Expr *rw_map(Arena *a, const Fun *f, const Expr *x);   // map[f](x)
/* A primitive like `like` (same kind and static arguments) around another
 * nested function: mapGlb[0, f] -> mapGlb[0, g]. */
const Fun *rw_with_nested(Arena *a, const Fun *like, const Fun *nested);

/* The identity user function on t (a float or a float vector), named name:
 * what a copy maps (copy's id, tile-product's id and id4); rw_apply declares
 * it in the program. */
const UserFun *rw_identity(Arena *a, const Type *t, const char *name);

/* The windows view of a convolution's input (rules_patch.c, docs/conv.md):
 * WIN(x) = x |> map[fun(plane) -> plane |> PADS |> map[slide[kw, sw]] |>
 * slide[kh, sh] |> map[transpose]] |> transpose |> map[transpose]
 * ([oh][ow][c][kh][kw]; PADS = map[pad[pw, pw, v]] |> pad[ph, ph, v]), and
 * WIN'(x) the same without PADS. */
typedef struct RwWin {
  const Expr *x;              // the planes
  const Fun *padw, *padh;     // pad[pw, pw, v] and pad[ph, ph, v]; NULL in WIN'
  const AExpr *kh, *sh, *kw, *sw;
} RwWin;
bool rw_win_match(const Expr *e, bool pads, RwWin *w);   // e = WIN(x) (pads) or WIN'(x) (no pads)


#endif
